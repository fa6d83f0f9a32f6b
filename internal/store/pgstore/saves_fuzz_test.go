package pgstore

import (
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
)

// FuzzDecodeStores feeds the decoder of a save's catalog entry arbitrary
// bytes: it never panics, refuses with a FailedPrecondition (a damaged
// save), and accepts only live stores' names (they go into schema names).
func FuzzDecodeStores(f *testing.F) {
	for _, seed := range []string{
		`[{"store":"ledger","tables":[{"name":"contracts","rows":3}],"sequences":[{"name":"s","value":1,"is_called":true}]}]`,
		`[{"store":"scan_sv2"},{"store":"validator_alice"}]`,
		`[{"store":"ledger\"; DROP"}]`,
		`[{"store":"ledger"},{"store":"ledger"}]`,
		`[{"store":"ledger","tables":[{"name":"","rows":-1}]}]`,
		`{}`, `null`, ``, `[`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b string) {
		stores, err := decodeStores("s1", []byte(b))
		if err != nil {
			if !fault.Is(err, fault.FailedPrecondition) {
				t.Fatalf("error %v is not a FailedPrecondition", err)
			}
			return
		}
		for _, st := range stores {
			if !liveStore.MatchString(st.Store) {
				t.Fatalf("accepted store %q", st.Store)
			}
		}
	})
}
