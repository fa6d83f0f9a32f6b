package sqlitestore

import (
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
)

// FuzzDecodeManifest feeds a save's manifest decoder arbitrary bytes: it
// never panics, and what it refuses is a FailedPrecondition (a damaged
// save) whose message names the save.
func FuzzDecodeManifest(f *testing.F) {
	for _, seed := range []string{
		`{"name":"s1","created_at":"2026-11-26T10:00:00Z","ledger_time_us":1,"ledger_end":2,"size_bytes":3,"files":[{"name":"ledger.db","size":3,"crc32c":7}]}`,
		`{"name":"s1","files":[{"name":"../ledger.db"}]}`,
		`{"name":"s1","files":[{"name":"scan.db-wal","size":-1}]}`,
		`{"name":"s1","files":[{"name":"a.db"},{"name":"a.db"}]}`,
		`{"name":"s1","size_bytes":-5}`,
		`{"name":"other"}`,
		`{"created_at":"yesterday"}`,
		`[]`, `null`, ``, `{`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b string) {
		m, err := decodeManifest("s1", []byte(b))
		if err != nil {
			if !fault.Is(err, fault.FailedPrecondition) {
				t.Fatalf("error %v is not a FailedPrecondition", err)
			}
			return
		}
		if m.Name != "s1" || m.SizeBytes < 0 {
			t.Fatalf("accepted %+v", m)
		}
		for _, file := range m.Files {
			if file.Size < 0 || file.Name == "" || file.Name[0] == '.' {
				t.Fatalf("accepted file %+v", file)
			}
		}
	})
}
