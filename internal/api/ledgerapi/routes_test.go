package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
)

// The endpoints a Canton client calls besides the updates list: the
// deprecated transaction trees, the connected synchronizers, and the 404
// of a path no route serves.
func TestRoutes(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "routes", *update)
	head, err := e.net.Store().Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	nearEnd := strconv.FormatInt(int64(head.Offsets[e.seeded.Validator.Participant])-2, 10)
	type routeCase struct {
		name    string
		method  string
		path    string
		body    string
		user    string
		noToken bool
		opts    options
		offSpec bool
		status  int
		code    string // of a JsCantonError
		check   func(t *testing.T, rec *httptest.ResponseRecorder)
	}
	const trees = "/v2/updates/trees"
	aliceTrees := `{"beginExclusive":0,"endInclusive":15,"filter":{"filtersByParty":{"{alice}":{}}}}`
	cs := "/v2/state/connected-synchronizers"
	cases := []routeCase{
		{name: "trees: legacy filter", method: "POST", path: trees, body: aliceTrees, user: "alice", status: 200,
			check: sameAsFlat(e, txFormat("0", "15", "LEDGER_EFFECTS", byParty("{alice}", `{}`)))},
		{name: "trees: ACS delta format rendered as ledger effects", method: "POST", path: trees, user: "alice", status: 200,
			body:  txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter(amuletID, false))),
			check: sameAsFlat(e, txFormat("0", "15", "LEDGER_EFFECTS", byParty("{alice}", templateFilter(amuletID, false))))},
		{name: "trees: descending", method: "POST", path: trees, user: "bob", status: 200,
			body: `{"beginExclusive":0,"endInclusive":15,"descendingOrder":true,"filter":{"filtersByParty":{"{bob}":{}}}}`},
		{name: "trees: open-ended, with a checkpoint", method: "POST", path: trees + "?stream_idle_timeout_ms=1", user: userAnyReader, status: 200,
			body: `{"beginExclusive":` + nearEnd + `,"filter":{"filtersForAnyParty":{}}}`},
		{name: "trees: limit", method: "POST", path: trees + "?limit=1", body: aliceTrees, user: "alice", status: 200},
		{name: "trees: over the node limit", method: "POST", path: trees, body: aliceTrees, user: "alice", opts: options{max: 1}, status: 413, code: "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"},
		{name: "trees: filter and updateFormat", method: "POST", path: trees, user: "alice", status: 400, code: "INVALID_ARGUMENT",
			body: `{"beginExclusive":0,"filter":{"filtersByParty":{"{alice}":{}}},"updateFormat":{}}`},
		{name: "trees: verbose false beside updateFormat", method: "POST", path: trees, user: "alice", status: 200,
			body:  `{"beginExclusive":0,"endInclusive":15,"verbose":false,"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS","eventFormat":{"filtersByParty":{"{alice}":{}}}}}}`,
			check: sameAsFlat(e, txFormat("0", "15", "LEDGER_EFFECTS", byParty("{alice}", `{}`)))},
		{name: "trees: undecodable body", method: "POST", path: trees, body: `{"beginExclusive":"x"}`, user: "alice", offSpec: true, status: 400},
		{name: "trees: reading as another party", method: "POST", path: trees, body: `{"beginExclusive":0,"filter":{"filtersByParty":{"{bob}":{}}}}`, user: "alice", status: 403},
		{name: "trees: no token", method: "POST", path: trees, body: aliceTrees, noToken: true, offSpec: true, status: 401},

		{name: "synchronizers", method: "GET", path: cs, user: "alice", status: 200},
		{name: "synchronizers of a party", method: "GET", path: cs + "?party={alice}", user: "alice", status: 200, check: permission("PARTICIPANT_PERMISSION_SUBMISSION")},
		{name: "synchronizers of a party not hosted here", method: "GET", path: cs + "?party={dso}", user: admin, status: 200, check: permission("")},
		{name: "synchronizers of a party on another participant", method: "GET", path: cs + "?party={sv1}&participantId=" + string(e.seeded.SVs[0].Participant), user: admin, status: 200,
			check: permission("PARTICIPANT_PERMISSION_SUBMISSION")},
		{name: "synchronizers of an SV participant", method: "GET", path: "/sv/1" + cs + "?party={sv1}", user: admin, status: 200, check: permission("PARTICIPANT_PERMISSION_SUBMISSION")},
		{name: "synchronizers of an unknown participant", method: "GET", path: cs + "?participantId=PAR::nobody::1220", user: "alice", status: 200, check: permission("")},
		{name: "synchronizers of another party", method: "GET", path: cs + "?party={bob}", user: "alice", status: 403},
		{name: "synchronizers: invalid party", method: "GET", path: cs + "?party=al%2Fice", user: "alice", status: 400, code: "INVALID_FIELD"},
		{name: "synchronizers: unknown identity provider", method: "GET", path: cs + "?identityProviderId=other", user: "alice", status: 400, code: "INVALID_ARGUMENT"},
		{name: "synchronizers: party twice", method: "GET", path: cs + "?party={alice}&party={bob}", user: "alice", status: 400},
		{name: "synchronizers: no token", method: "GET", path: cs, noToken: true, offSpec: true, status: 401},

		{name: "unknown path", method: "GET", path: "/v2/no-such-route?x=1", user: "alice", offSpec: true, status: 404},
		{name: "unknown path, no token", method: "POST", path: "/v2/updates/nothing", noToken: true, offSpec: true, status: 404},
		{name: "unknown path of an SV participant", method: "DELETE", path: "/sv/1/v2/state", noToken: true, offSpec: true, status: 404},
		{name: "the bare prefix", method: "GET", path: "/v2", noToken: true, offSpec: true, status: 404},
		{name: "a route's path with another method", method: "PUT", path: "/v2/updates", noToken: true, offSpec: true, status: 405},
	}
	var (
		mu  sync.Mutex
		ran int
	)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				authz := caseToken(t, tc.noToken, tc.user)
				path, body := e.expand(tc.path), e.expand(tc.body)
				rec := httptest.NewRecorder()
				e.handler(tc.opts).ServeHTTP(rec, newRequest(tc.method, path, authz, body))
				mu.Lock()
				ran++
				mu.Unlock()
				if rec.Code != tc.status {
					t.Fatalf("status = %d, want %d: %.2000s", rec.Code, tc.status, rec.Body)
				}
				if tc.code != "" {
					checkError(t, rec, tc.code)
				}
				if rec.Code == http.StatusNotFound {
					checkNotFound(t, tc.method, path, rec)
				}
				golden.Check(t, tc.name, entryOf(t, rec))
				if rec.Code == http.StatusNotFound || rec.Code == http.StatusMethodNotAllowed {
					// No route serves it, and the document has none.
					if s.Describes(newRequest(tc.method, path, authz, body)) {
						t.Errorf("the document describes %s %s", tc.method, path)
					}
					return
				}
				checkConformance(t, s, newRequest(tc.method, path, authz, body), rec, tc.offSpec)
				if tc.method == http.MethodPost && strings.Contains(body, "endInclusive") {
					sameStreamed(t, e, tc.opts, path, authz, body, rec)
				}
				if tc.check != nil {
					tc.check(t, rec)
				}
			})
		}
	})
	golden.Finish(t, ran == len(cases))
}

// checkNotFound checks the old JSON API's 404 body.
func checkNotFound(t *testing.T, method, path string, rec *httptest.ResponseRecorder) {
	t.Helper()
	var got struct {
		Errors []string `json:"errors"`
		Status int      `json:"status"`
	}
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	want := "HttpMethod(" + method + "), uri: " + baseURL + path
	if err := dec.Decode(&got); err != nil || got.Status != http.StatusNotFound || len(got.Errors) != 1 || got.Errors[0] != want {
		t.Errorf("404 body %s (%v), want errors [%q] and status 404", rec.Body, err, want)
	}
}

// permission checks that the connected synchronizers are the one
// synchronizer with that permission, or none when want is empty.
func permission(want string) func(t *testing.T, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, rec *httptest.ResponseRecorder) {
		var got struct {
			ConnectedSynchronizers []struct {
				SynchronizerAlias, SynchronizerID, Permission string
			}
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		switch {
		case want == "" && len(got.ConnectedSynchronizers) != 0,
			want != "" && (len(got.ConnectedSynchronizers) != 1 || got.ConnectedSynchronizers[0].Permission != want ||
				!strings.HasPrefix(got.ConnectedSynchronizers[0].SynchronizerID, got.ConnectedSynchronizers[0].SynchronizerAlias+"::")):
			t.Errorf("connected synchronizers %s, want one with %q", rec.Body, want)
		}
	}
}

// sameAsFlat checks that a trees list holds the transactions of the flat
// list for body, each event under its node id, in node order.
func sameAsFlat(e *env, body string) func(t *testing.T, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, rec *httptest.ResponseRecorder) {
		flatRec := httptest.NewRecorder()
		e.handler(options{}).ServeHTTP(flatRec, newRequest(http.MethodPost, "/v2/updates", bearer(t, "alice"), e.expand(body)))
		flat, _ := transactions(decodeList(t, flatRec))
		var trees []struct {
			Update struct {
				TransactionTree struct {
					Value struct {
						UpdateID   string          `json:"updateId"`
						Offset     int64           `json:"offset"`
						EventsByID json.RawMessage `json:"eventsById"`
					} `json:"value"`
				} `json:"TransactionTree"`
			} `json:"update"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &trees); err != nil {
			t.Fatal(err)
		}
		if len(trees) != len(flat) || len(flat) == 0 {
			t.Fatalf("%d trees, want %d (not 0)", len(trees), len(flat))
		}
		for i, tx := range flat {
			tree := trees[i].Update.TransactionTree.Value
			if tree.UpdateID != tx.UpdateID || tree.Offset != tx.Offset {
				t.Errorf("tree %d is %s at %d, want %s at %d", i, tree.UpdateID, tree.Offset, tx.UpdateID, tx.Offset)
			}
			var want bytes.Buffer
			want.WriteByte('{')
			for j, ev := range tx.Events {
				if j > 0 {
					want.WriteByte(',')
				}
				var node int32
				var kind string
				var v any
				switch {
				case ev.CreatedEvent != nil:
					node, kind, v = ev.CreatedEvent.NodeID, "CreatedTreeEvent", ev.CreatedEvent
				case ev.ExercisedEvent != nil:
					node, kind, v = ev.ExercisedEvent.NodeID, "ExercisedTreeEvent", ev.ExercisedEvent
				default:
					t.Fatalf("a ledger effects event of neither kind: %+v", ev)
				}
				b, err := json.Marshal(map[string]any{kind: map[string]any{"value": v}})
				if err != nil {
					t.Fatal(err)
				}
				want.WriteString(`"` + strconv.Itoa(int(node)) + `":`)
				want.Write(b)
			}
			want.WriteByte('}')
			checkNodeOrder(t, tree.EventsByID)
			var a, b any
			if err := json.Unmarshal(tree.EventsByID, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want.Bytes(), &b); err != nil {
				t.Fatal(err)
			}
			ab, _ := json.Marshal(a)
			bb, _ := json.Marshal(b)
			if !bytes.Equal(ab, bb) {
				t.Errorf("events of tree %d:\n got %.1000s\nwant %.1000s", i, ab, bb)
			}
		}
	}
}

// checkNodeOrder checks that an eventsById object lists its node ids in
// ascending order.
func checkNodeOrder(t *testing.T, obj json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	last := -1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(tok.(string))
		if err != nil || n <= last {
			t.Errorf("node ids out of order in %.300s", obj)
			return
		}
		last = n
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
}
