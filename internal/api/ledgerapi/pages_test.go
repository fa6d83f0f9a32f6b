package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// TestListsSpanningManyPages serves lists longer than several store pages
// (256 updates each), so the reader's one-page read-ahead runs, and checks
// each response byte for byte against the same updates encoded from
// memory, ascending, descending, cut by a limit and filtered by party.
func TestListsSpanningManyPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	alice := e.party("alice")
	for range 700 {
		if _, err := splice.TapFor(ctx, e.net, e.seeded, "alice", alice, daml.MustNumeric("1")); err != nil {
			t.Fatal(err)
		}
	}
	head, err := e.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	end := head.Offsets[e.seeded.Validator.Participant]
	h := e.handler(options{max: 100000, authNone: true})
	tests := []struct {
		name       string
		descending bool
		limit      int
	}{
		{"ascending", false, 0},
		{"descending", true, 0},
		{"ascending with a limit inside the third page", false, 600},
		{"descending with a limit", true, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := fmt.Sprintf(`{"beginExclusive":0,"endInclusive":%d,"descendingOrder":%t,"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{%q:{}}}}}}`,
				end, tt.descending, alice)
			target := "/v2/updates"
			if tt.limit > 0 {
				target += fmt.Sprintf("?limit=%d", tt.limit)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, newRequest(http.MethodPost, target, "", body))
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %.500s", rec.Code, rec.Body)
			}
			// The same updates, read whole from the store and encoded in
			// memory.
			ups, err := e.net.Store().Updates(ctx, ledger.UpdateQuery{
				Participant: e.seeded.Validator.Participant, Until: end, Descending: tt.descending,
			})
			if err != nil {
				t.Fatal(err)
			}
			// The request asks for transactions only.
			ups = slices.DeleteFunc(ups, func(u ledger.ParticipantUpdate) bool { return u.Transaction == nil })
			var mem bytes.Buffer
			enc := ledgerapi.New(ledgerapi.Config{
				Participant: e.seeded.Validator.Participant, ParticipantName: e.seeded.Validator.ParticipantName,
				Ledger: ledgerapi.NetworkLedger(e.net), Registry: e.net.Registry(), Logger: discard,
				Auth: &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true},
			})
			n, err := enc.EncodeFromMemory([]byte(body), ups, &mem)
			if err != nil {
				t.Fatal(err)
			}
			if n < 700 {
				t.Fatalf("only %d elements: the list does not span several pages", n)
			}
			var got, want []json.RawMessage
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(mem.Bytes(), &want); err != nil {
				t.Fatal(err)
			}
			if tt.limit > 0 {
				want = want[:tt.limit]
			}
			if len(got) != len(want) {
				t.Fatalf("served %d elements, want %d", len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("element %d differs:\n got %.300s\nwant %.300s", i, got[i], want[i])
				}
			}
		})
	}
}
