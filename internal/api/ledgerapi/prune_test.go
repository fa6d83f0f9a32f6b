package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/ledger"
)

// prunedAt is where the pruning tests prune the validator's stream.
const prunedAt = 6

const codePruned = "PARTICIPANT_PRUNED_DATA_ACCESSED"

// checkPruned checks a pruned-data error and its earliest offset.
func checkPruned(t *testing.T, je ledgerapi.JsCantonError, cause string) {
	t.Helper()
	if je.Code != codePruned || je.Cause != cause || je.ErrorCategory != 9 || je.GRPCCodeValue == nil || *je.GRPCCodeValue != 9 ||
		je.Context["earliest_offset"] != strconv.Itoa(prunedAt) {
		t.Errorf("error %+v, want %s %q with earliest_offset %d", je, codePruned, cause, prunedAt)
	}
}

// Reads of a pruned participant: the lists, the snapshot and the pruned
// offsets, before, at and after the pruned offset.
func TestPruned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	acs := func(at string) string {
		return `{"activeAtOffset":` + at + `,"eventFormat":{"filtersByParty":{"{alice}":{}},"verbose":false}}`
	}
	// The snapshots taken before pruning, to compare with the same
	// snapshots after it: at the pruned offset, just after it, and at the
	// ledger end.
	head, err := e.net.Store().Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	end := head.Offsets[e.seeded.Validator.Participant]
	if end <= prunedAt+1 {
		t.Fatalf("validator's ledger end %d is too close to the pruned offset %d", end, prunedAt)
	}
	snapshotAt := func(at ledger.Offset) []byte {
		t.Helper()
		rec := httptest.NewRecorder()
		e.handler(options{}).ServeHTTP(rec, newRequest("POST", "/v2/state/active-contracts", bearer(t, "alice"), e.expand(acs(strconv.FormatInt(int64(at), 10)))))
		if rec.Code != http.StatusOK {
			t.Fatalf("active contracts at %d: %d %s", at, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	snapshotOffsets := []ledger.Offset{prunedAt, prunedAt + 1, end}
	unpruned := map[ledger.Offset][]byte{}
	for _, at := range snapshotOffsets {
		unpruned[at] = snapshotAt(at)
	}
	// The snapshot at the pruned offset holds contracts created at or
	// before it, or the comparison below proves nothing.
	if n := len(activeOffsets(t, unpruned[prunedAt])); n == 0 {
		t.Fatalf("the snapshot at the pruned offset is empty: %s", unpruned[prunedAt])
	}
	if err := e.net.Prune(t.Context(), e.seeded.Validator.Participant, prunedAt); err != nil {
		t.Fatal(err)
	}
	golden := apitest.OpenGolden(t, "prune", *update)
	type pruneCase struct {
		name   string
		method string
		path   string
		body   string
		status int
		cause  string // of a refusal
		user   string // alice unless set
	}
	alice := func(begin, end string, descending bool) string {
		b := `{"beginExclusive":` + begin
		if end != "" {
			b += `,"endInclusive":` + end
		}
		if descending {
			b += `,"descendingOrder":true`
		}
		return b + `,"filter":{"filtersByParty":{"{alice}":{}}}}`
	}
	cases := []pruneCase{
		{name: "updates before the pruned offset", method: "POST", path: "/v2/updates", body: alice("0", "15", false), status: 400,
			cause: "Updates request from 1 to 15 precedes pruned offset 6"},
		{name: "updates just before the pruned offset", method: "POST", path: "/v2/updates/flats", body: alice("5", "15", false), status: 400,
			cause: "Updates request from 6 to 15 precedes pruned offset 6"},
		{name: "updates before the pruned offset, descending", method: "POST", path: "/v2/updates", body: alice("4", "15", true), status: 400,
			cause: "Updates request from 5 to 15 precedes pruned offset 6"},
		{name: "updates at the pruned offset", method: "POST", path: "/v2/updates", body: alice("6", "15", false), status: 200},
		{name: "updates at the pruned offset, descending", method: "POST", path: "/v2/updates", body: alice("6", "15", true), status: 200},
		{name: "updates after the pruned offset", method: "POST", path: "/v2/updates", body: alice("8", "15", false), status: 200},
		// Read through the per-party index: a party the participant does
		// not host matches nothing, and the empty pages are not a prune.
		{name: "updates of a party seen nowhere, at the pruned offset", method: "POST", path: "/v2/updates", body: e.expand(`{"beginExclusive":6,"endInclusive":15,"filter":{"filtersByParty":{"{sv1}":{}}}}`), user: userAnyReader, status: 200},
		{name: "updates of a party seen nowhere, before the pruned offset", method: "POST", path: "/v2/updates", body: e.expand(`{"beginExclusive":4,"endInclusive":15,"filter":{"filtersByParty":{"{sv1}":{}}}}`), user: userAnyReader, status: 400,
			cause: "Updates request from 5 to 15 precedes pruned offset 6"},
		{name: "updates for any party at the pruned offset", method: "POST", path: "/v2/updates", body: `{"beginExclusive":6,"endInclusive":8,"filter":{"filtersForAnyParty":{}}}`, user: userAnyReader, status: 200},
		{name: "open-ended updates before the pruned offset", method: "POST", path: "/v2/updates?stream_idle_timeout_ms=1", body: alice("0", "", false), status: 400},
		{name: "active contracts before the pruned offset", method: "POST", path: "/v2/state/active-contracts", body: acs("5"), status: 400,
			cause: "Active contracts request at offset 5 precedes pruned offset 6"},
		{name: "active contracts at offset 0", method: "POST", path: "/v2/state/active-contracts", body: acs("0"), status: 400,
			cause: "Active contracts request at offset 0 precedes pruned offset 6"},
		{name: "latest pruned offsets", method: "GET", path: "/v2/state/latest-pruned-offsets", status: 200},
		{name: "latest pruned offsets of an unpruned participant", method: "GET", path: "/sv/1/v2/state/latest-pruned-offsets", status: 200},
	}
	ran := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ran++
			authz := bearer(t, "alice")
			if tc.user != "" {
				authz = bearer(t, tc.user)
			}
			if tc.path[:3] == "/sv" {
				authz = bearer(t, admin)
			}
			body := e.expand(tc.body)
			rec := httptest.NewRecorder()
			e.handler(options{}).ServeHTTP(rec, newRequest(tc.method, tc.path, authz, body))
			if rec.Code != tc.status {
				t.Fatalf("status = %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if rec.Code != http.StatusOK {
				checkError(t, rec, codePruned)
				if tc.cause != "" {
					checkPruned(t, decodeError(t, rec), tc.cause)
				}
			}
			golden.Check(t, tc.name, entryOf(t, rec))
			if err := s.Validate(t, newRequest(tc.method, tc.path, authz, body), rec); err != nil {
				t.Errorf("request does not conform to the document: %v", err)
			}
			if tc.method == "POST" && tc.path == "/v2/updates" && rec.Code == http.StatusOK {
				sameStreamed(t, e, options{}, tc.path, authz, body, rec)
				for _, tx := range transactionsOf(t, rec) {
					if tx.Offset <= prunedAt {
						t.Errorf("a pruned transaction at offset %d", tx.Offset)
					}
				}
			}
			if tc.method == "GET" {
				var got ledgerapi.GetLatestPrunedOffsetsResponse
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatal(err)
				}
				want := int64(prunedAt)
				if tc.path[:3] == "/sv" {
					want = 0
				}
				if got.ParticipantPrunedUpToInclusive != want || got.AllDivulgedContractsPrunedUpToInclusive != want {
					t.Errorf("pruned offsets %s, want %d", rec.Body, want)
				}
			}
		})
	}
	// A snapshot at or after the pruned offset is allowed and is the one
	// the unpruned participant served: the contracts created before the
	// pruned offset, with their creation offsets, included.
	for _, at := range snapshotOffsets {
		got := snapshotAt(at)
		if !bytes.Equal(got, unpruned[at]) {
			t.Errorf("active contracts at %d after pruning through %d differ from before pruning:\n got %s\nwant %s", at, prunedAt, got, unpruned[at])
		}
	}

	// The websocket streams go through the same checks.
	srv := httptest.NewServer(e.handler(options{}))
	t.Cleanup(srv.Close)
	for _, wc := range []struct{ name, path, body string }{
		{"websocket updates before the pruned offset", "/v2/updates", alice("0", "15", false)},
		{"websocket updates at the pruned offset", "/v2/updates", alice("6", "8", false)},
		{"websocket active contracts before the pruned offset", "/v2/state/active-contracts", acs("4")},
	} {
		t.Run(wc.name, func(t *testing.T) {
			ran++
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			conn := wsDial(t, ctx, srv, wc.path, bearer(t, "alice"), nil)
			if err := conn.Write(ctx, websocket.MessageText, []byte(e.expand(wc.body))); err != nil {
				t.Fatal(err)
			}
			ex := wsReadAll(t, ctx, s, conn)
			b, err := json.Marshal(ex)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, wc.name, apitest.Entry{Status: http.StatusSwitchingProtocols, ContentType: "application/json", Body: b})
		})
	}
	golden.Finish(t, ran == len(cases)+3)
}

// activeOffsets decodes an active contracts snapshot and returns the
// creation offsets of the contracts created at or before prunedAt.
func activeOffsets(t *testing.T, body []byte) []int64 {
	t.Helper()
	var entries []struct {
		ContractEntry struct {
			JsActiveContract *struct {
				CreatedEvent struct {
					Offset int64 `json:"offset"`
				} `json:"createdEvent"`
			} `json:"JsActiveContract"`
		} `json:"contractEntry"`
	}
	if err := json.Unmarshal(body, &entries); err != nil {
		t.Fatalf("decoding active contracts: %v: %s", err, body)
	}
	var out []int64
	for _, e := range entries {
		if c := e.ContractEntry.JsActiveContract; c != nil && c.CreatedEvent.Offset <= prunedAt {
			out = append(out, c.CreatedEvent.Offset)
		}
	}
	return out
}

// transactionsOf decodes a 200 list's transactions.
func transactionsOf(t *testing.T, rec *httptest.ResponseRecorder) []ledgerapi.JsTransaction {
	t.Helper()
	txs, _ := transactions(decodeList(t, rec))
	return txs
}

// pruningLedger prunes the stream through at under the handler's feet:
// the first Head says nothing is pruned, every read afterwards sees the
// prune, and pages start after a gap. Pruning deletes no entries, so the
// gap is what a store that dropped them would show; it exercises the
// defensive checks in lister.pages.
type pruningLedger struct {
	ledgerapi.Ledger
	participant ledger.ParticipantID
	at          ledger.Offset
	pruned      atomic.Bool
}

func (p *pruningLedger) Head(ctx context.Context) (ledger.Head, error) {
	h, err := p.Ledger.Head(ctx)
	if err != nil || !p.pruned.Load() {
		return h, err
	}
	h.Pruned = maps.Clone(h.Pruned)
	if h.Pruned == nil {
		h.Pruned = map[ledger.ParticipantID]ledger.Offset{}
	}
	h.Pruned[p.participant] = p.at
	return h, nil
}

func (p *pruningLedger) Updates(ctx context.Context, q ledger.UpdateQuery) ([]ledger.ParticipantUpdate, error) {
	p.pruned.Store(true)
	page, err := p.Ledger.Updates(ctx, q)
	var left []ledger.ParticipantUpdate
	for _, u := range page {
		if u.Offset > p.at {
			left = append(left, u)
		}
	}
	return left, err
}

// A prune between the checks and the page reads, with pages that start
// after a gap, is refused before the first byte.
func TestPrunedWhileReading(t *testing.T) {
	t.Parallel()
	e := shared(t)
	for _, tc := range []struct{ name, body, cause string }{
		{"ascending", `{"beginExclusive":0,"endInclusive":15,"filter":{"filtersByParty":{"{alice}":{}}}}`, "Updates request from 1 to 15 precedes pruned offset 6"},
		{"descending", `{"beginExclusive":4,"endInclusive":15,"descendingOrder":true,"filter":{"filtersByParty":{"{alice}":{}}}}`, "Updates request from 5 to 15 precedes pruned offset 6"},
		{"open-ended", `{"beginExclusive":0,"filter":{"filtersByParty":{"{alice}":{}}}}`, ""},
		// The per-party index skips what its parties do not see, so a
		// page after a gap, or an empty one, is only a prune when the
		// Head says so.
		{"a party seen nowhere", `{"beginExclusive":0,"endInclusive":15,"filter":{"filtersByParty":{"{sv1}":{}}}}`, "Updates request from 1 to 15 precedes pruned offset 6"},
		{"a party seen nowhere, descending", `{"beginExclusive":4,"endInclusive":15,"descendingOrder":true,"filter":{"filtersByParty":{"{sv1}":{}}}}`, "Updates request from 5 to 15 precedes pruned offset 6"},
		{"any party", `{"beginExclusive":0,"endInclusive":15,"filter":{"filtersForAnyParty":{}}}`, "Updates request from 1 to 15 precedes pruned offset 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mux := http.NewServeMux()
			ledgerapi.New(ledgerapi.Config{
				Participant: e.seeded.Validator.Participant, ParticipantName: e.seeded.Validator.ParticipantName,
				Ledger:   &pruningLedger{Ledger: ledgerapi.NetworkLedger(e.net), participant: e.seeded.Validator.Participant, at: prunedAt},
				Registry: e.net.Registry(), Auth: &web.Authenticator{Verifier: verifier},
				ListWaitTime: time.Millisecond, Logger: discard,
			}).Register(mux, "")
			rec := httptest.NewRecorder()
			web.TraceContext(mux).ServeHTTP(rec, newRequest(http.MethodPost, "/v2/updates", bearer(t, userAnyReader), e.expand(tc.body)))
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %.500s", rec.Code, rec.Body)
			}
			je := decodeError(t, rec)
			if tc.cause != "" {
				checkPruned(t, je, tc.cause)
			} else if je.Code != codePruned {
				t.Errorf("code %s, want %s", je.Code, codePruned)
			}
		})
	}
}
