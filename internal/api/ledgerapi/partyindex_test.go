package ledgerapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// recordingLedger records the parties of every update read and, with
// unfiltered set, reads the whole stream whatever the handler asks.
type recordingLedger struct {
	ledgerapi.Ledger
	unfiltered bool
	mu         sync.Mutex
	parties    [][]daml.Party
}

func (l *recordingLedger) Updates(ctx context.Context, q ledger.UpdateQuery) ([]ledger.ParticipantUpdate, error) {
	l.mu.Lock()
	l.parties = append(l.parties, slices.Clone(q.Parties))
	l.mu.Unlock()
	if l.unfiltered {
		q.Parties = nil
	}
	return l.Ledger.Updates(ctx, q)
}

// reads returns the parties of the reads so far and forgets them.
func (l *recordingLedger) reads() [][]daml.Party {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.parties
	l.parties = nil
	return out
}

// handlerOn serves the validator's ledger API from led, without auth.
func (e *env) handlerOn(led ledgerapi.Ledger, o options) http.Handler {
	mux := http.NewServeMux()
	ledgerapi.New(ledgerapi.Config{
		Participant: e.seeded.Validator.Participant, ParticipantName: e.seeded.Validator.ParticipantName,
		Ledger: led, Registry: e.net.Registry(), Auth: &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true},
		MaxListElements: o.max, ListWaitTime: o.wait, ListBufferBytes: o.buffer, Logger: discard,
	}).Register(mux, "")
	return web.TraceContext(mux)
}

// A request whose filters all name their parties is read through the
// store's per-party index, and returns exactly what reading the whole
// stream returns; a request for any party reads the whole stream.
func TestPartyIndex(t *testing.T) {
	t.Parallel()
	e := shared(t)
	alice, bob, validator := e.party("alice"), e.party("bob"), e.seeded.Validator.Party
	both := `{"filtersByParty":{"{alice}":{},"{bob}":{}},"verbose":true}`
	cases := []struct {
		name, path, body string
		parties          []daml.Party // nil: unfiltered
	}{
		{"legacy filter", "/v2/updates", aliceWildcard, []daml.Party{alice}},
		{"ACS delta, two parties", "/v2/updates", txFormat("0", "", "ACS_DELTA", both), []daml.Party{alice, bob}},
		{"ledger effects, two parties", "/v2/updates", txFormat("0", "", "LEDGER_EFFECTS", both), []daml.Party{alice, bob}},
		{"ledger effects, the validator", "/v2/updates", txFormat("0", "", "LEDGER_EFFECTS", byParty("{validator}", `{}`)), []daml.Party{validator}},
		{"ACS delta, a template", "/v2/updates", txFormat("0", "", "ACS_DELTA", byParty("{bob}", templateFilter(amuletID, false))), []daml.Party{bob}},
		{"ledger effects, an interface", "/v2/updates", txFormat("0", "", "LEDGER_EFFECTS", byParty("{alice}", interfaceFilter(holdingID, true, false))), []daml.Party{alice}},
		{"descending", "/v2/updates", `{"beginExclusive":0,"endInclusive":15,"descendingOrder":true,"filter":{"filtersByParty":{"{bob}":{}}}}`, []daml.Party{bob}},
		// The store indexes a transaction only under the informees the
		// participant hosts: a party hosted elsewhere reads the whole stream.
		{"a party the participant does not host", "/v2/updates", txFormat("0", "", "LEDGER_EFFECTS", byParty("{sv1}", `{}`)), nil},
		{"trees", "/v2/updates/trees", `{"beginExclusive":0,"filter":{"filtersByParty":{"{alice}":{}}}}`, []daml.Party{alice}},
		{"any party", "/v2/updates", txFormat("0", "", "LEDGER_EFFECTS", `{"filtersForAnyParty":{}}`), nil},
		{"any party and a party", "/v2/updates", txFormat("0", "", "ACS_DELTA", `{"filtersByParty":{"{alice}":{}},"filtersForAnyParty":{}}`), nil},
		// The active contracts replay reads the parties' own history: a
		// stakeholder witnesses a contract's creation, archival and
		// reassignments.
		{"active contracts, two parties", "/v2/state/active-contracts", acsBody("15", both), []daml.Party{alice, bob}},
		{"active contracts, the validator", "/v2/state/active-contracts", acsBody("15", byParty("{validator}", `{}`)), []daml.Party{validator}},
		{"active contracts page, a template", "/v2/state/active-contracts-page", `{"eventFormat":` + byParty("{bob}", templateFilter(amuletID, false)) + `}`, []daml.Party{bob}},
		{"active contracts page, an interface", "/v2/state/active-contracts-page", `{"maxPageSize":2,"eventFormat":` + byParty("{alice}", interfaceFilter(holdingID, true, false)) + `}`, []daml.Party{alice}},
		{"active contracts, a party the participant does not host", "/v2/state/active-contracts", acsBody("15", byParty("{sv1}", `{}`)), nil},
		{"active contracts page, any party", "/v2/state/active-contracts-page", `{"eventFormat":{"filtersForAnyParty":` + templateFilter(amuletID, false) + `}}`, nil},
	}
	for _, tc := range cases {
		slices.SortFunc(tc.parties, func(a, b daml.Party) int { return bytes.Compare([]byte(a), []byte(b)) })
	}
	for _, o := range []options{{}, {buffer: 1, max: 3}} {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				indexed := &recordingLedger{Ledger: ledgerapi.NetworkLedger(e.net)}
				whole := &recordingLedger{Ledger: ledgerapi.NetworkLedger(e.net), unfiltered: true}
				body := e.expand(tc.body)
				// The shared network does not change, so open-ended
				// requests see the same updates.
				target := tc.path + "?stream_idle_timeout_ms=50"
				got, want := httptest.NewRecorder(), httptest.NewRecorder()
				e.handlerOn(indexed, o).ServeHTTP(got, newRequest(http.MethodPost, target, "", body))
				e.handlerOn(whole, o).ServeHTTP(want, newRequest(http.MethodPost, target, "", body))
				if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
					t.Errorf("the indexed read differs from the whole stream's:\n got %d %.1500s\nwant %d %.1500s", got.Code, got.Body, want.Code, want.Body)
				}
				if got.Code == http.StatusOK && got.Body.String() == "[]" && tc.parties != nil {
					t.Errorf("an empty list proves nothing: %s", got.Body)
				}
				reads := indexed.reads()
				if len(reads) == 0 {
					t.Fatal("no update was read")
				}
				filtered := 0
				for _, ps := range reads {
					if ps == nil && tc.parties != nil {
						// The offset checkpoint's read of the update at
						// the ledger end is unfiltered.
						continue
					}
					if ps != nil {
						filtered++
					}
					if !slices.Equal(ps, tc.parties) {
						t.Errorf("read for parties %q, want %q", ps, tc.parties)
					}
				}
				if tc.parties != nil && filtered == 0 {
					t.Error("no read went through the party index")
				}
			})
		}
	}
}
