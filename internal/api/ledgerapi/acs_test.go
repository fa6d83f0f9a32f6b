package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// acsBody builds a GetActiveContractsRequest body with an eventFormat.
func acsBody(at, eventFormat string) string {
	return `{"activeAtOffset":` + at + `,"eventFormat":` + eventFormat + `}`
}

const aliceACS = `{"activeAtOffset":15,"filter":{"filtersByParty":{"{alice}":{}}}}`

// decodeACS decodes a 200 active contracts list.
func decodeACS(t testing.TB, rec *httptest.ResponseRecorder) []ledgerapi.JsGetActiveContractsResponse {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %.2000s", rec.Code, rec.Body)
	}
	var out []ledgerapi.JsGetActiveContractsResponse
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil || out == nil {
		t.Fatalf("decode the list: %v (%s)", err, rec.Body)
	}
	return out
}

// foldsUpdates checks a snapshot against the updates list: the created
// events that the ACS_DELTA updates up to the offset show for the same
// event format, minus those they archive, in order, each exactly as the
// updates list renders it, with its transaction's workflow id and
// synchronizer.
func foldsUpdates(user string, at int, eventFormat string) func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
		t.Helper()
		got := decodeACS(t, rec)
		type want struct {
			ev       ledgerapi.CreatedEvent
			workflow string
			sync     string
		}
		var active []*want
		if at > 0 {
			upd := httptest.NewRecorder()
			body := txFormat("0", strconv.Itoa(at), "ACS_DELTA", e.expand(eventFormat))
			e.handler(options{}).ServeHTTP(upd, newRequest(http.MethodPost, "/v2/updates", bearer(t, user), body))
			txs, _ := transactions(decodeList(t, upd))
			byID := map[string]int{}
			for _, tx := range txs {
				for _, ev := range tx.Events {
					switch {
					case ev.CreatedEvent != nil:
						byID[ev.CreatedEvent.ContractID] = len(active)
						active = append(active, &want{*ev.CreatedEvent, tx.WorkflowID, tx.SynchronizerID})
					case ev.ArchivedEvent != nil:
						if i, ok := byID[ev.ArchivedEvent.ContractID]; ok {
							active[i] = nil
						}
					}
				}
			}
		}
		var wants []*want
		for _, w := range active {
			if w != nil {
				wants = append(wants, w)
			}
		}
		if len(got) != len(wants) {
			t.Fatalf("%d active contracts, the updates fold to %d", len(got), len(wants))
		}
		for i, g := range got {
			ac := g.ContractEntry.JsActiveContract
			if ac == nil || ac.CreatedEvent == nil {
				t.Fatalf("entry %d is not an active contract", i)
			}
			if !reflect.DeepEqual(*ac.CreatedEvent, wants[i].ev) || g.WorkflowID != wants[i].workflow || ac.SynchronizerID != wants[i].sync || ac.ReassignmentCounter != 0 {
				t.Errorf("entry %d differs from the updates:\n got %+v\nwant %+v", i, *ac.CreatedEvent, wants[i].ev)
			}
		}
	}
}

func acsLen(n int) func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
		t.Helper()
		if got := decodeACS(t, rec); len(got) != n {
			t.Errorf("%d elements, want %d", len(got), n)
		}
	}
}

func TestActiveContracts(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "acs", *update)
	const acsPath = "/v2/state/active-contracts"
	aliceAll := byParty("{alice}", "{}")
	amulets := byParty("{alice}", templateFilter(amuletID, true))
	holdings := byParty("{alice}", interfaceFilter(holdingID, true, false))
	anyParty := `{"filtersForAnyParty":{}}`
	cases := []updatesCase{
		{name: "legacy filter: alice at the ledger end", user: "alice", body: aliceACS, status: 200, check: foldsUpdates("alice", 15, aliceAll)},
		{name: "event format: alice halfway", user: "alice", body: acsBody("9", aliceAll), status: 200, check: foldsUpdates("alice", 9, aliceAll)},
		{name: "offset as a string", user: "alice", body: `{"activeAtOffset":"15","eventFormat":` + aliceAll + `}`, status: 200, check: foldsUpdates("alice", 15, aliceAll)},
		{name: "template filter with blobs", user: "alice", body: acsBody("15", amulets), status: 200, check: foldsUpdates("alice", 15, amulets)},
		{name: "interface filter with views", user: "alice", body: acsBody("15", holdings), status: 200, check: foldsUpdates("alice", 15, holdings)},
		{name: "token standard: every V1 interface at once", user: "alice", body: acsBody("15", byParty("{alice}", interfaceFilters(tokenStandardIDs...))), status: 200,
			check: foldsUpdates("alice", 15, byParty("{alice}", interfaceFilters(holdingID)))},
		{name: "any party", user: admin, body: acsBody("15", anyParty), status: 200, check: foldsUpdates(admin, 15, anyParty)},
		{name: "offset 0 is the empty ledger", user: "alice", body: acsBody("0", aliceAll), status: 200, check: acsLen(0)},
		{name: "a well-formed party nobody hosts", user: admin, body: acsBody("15", byParty("nobody::1220ab", "{}")), status: 200, check: acsLen(0)},
		{name: "SV participant: its own offsets", path: "/sv/1" + acsPath, user: admin, body: acsBody("4", byParty("{dso}", templateFilter("#splice-dso-governance:Splice.DsoRules:DsoRules", false))), status: 200, check: acsLen(1)},
		{name: "limit cuts the list", user: "alice", query: "limit=1", body: aliceACS, status: 200, check: acsLen(1)},
		{name: "limit 0 is an empty list", user: "alice", query: "limit=0", body: aliceACS, status: 200, check: acsLen(0)},
		{name: "an idle timeout is accepted", user: "alice", query: "stream_idle_timeout_ms=600000", body: aliceACS, status: 200, check: foldsUpdates("alice", 15, aliceAll)},
		{name: "auth none: no token reads any party", opts: options{authNone: true}, noToken: true, offSpec: true, body: acsBody("15", anyParty), status: 200, check: foldsUpdates(admin, 15, anyParty)},
		{name: "413: more than the node limit", user: "alice", opts: options{max: 1}, body: aliceACS, status: 413, code: "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"},
		{name: "413: a limit at the node limit cuts silently", user: "alice", opts: options{max: 1}, query: "limit=1", body: aliceACS, status: 200, check: acsLen(1)},
		{name: "400: activeAtOffset missing", user: "alice", body: `{"filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: activeAtOffset a fraction", user: "alice", body: `{"activeAtOffset":1.5,"filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: eventFormat an array", user: "alice", body: `{"activeAtOffset":4,"eventFormat":[]}`, offSpec: true, status: 400},
		{name: "400: limit not a number", user: "alice", query: "limit=ten", body: aliceACS, offSpec: true, status: 400},
		{name: "filter and eventFormat", user: "alice", body: `{"activeAtOffset":15,"filter":{"filtersByParty":{"{alice}":{}}},"eventFormat":` + aliceAll + `}`, status: 400, code: "INVALID_ARGUMENT"},
		{name: "verbose true and eventFormat", user: "alice", body: `{"activeAtOffset":15,"verbose":true,"eventFormat":` + aliceAll + `}`, status: 400, code: "INVALID_ARGUMENT"},
		{name: "verbose false beside eventFormat", user: "alice", body: `{"activeAtOffset":15,"verbose":false,"eventFormat":` + aliceAll + `}`, status: 200, check: foldsUpdates("alice", 15, aliceAll)},
		{name: "neither filter nor eventFormat", user: "alice", body: `{"activeAtOffset":15,"verbose":true}`, status: 400, code: "INVALID_ARGUMENT"},
		{name: "INVALID_ARGUMENT: no filters", user: "alice", body: acsBody("15", `{"filtersByParty":{}}`), status: 400, code: "INVALID_ARGUMENT"},
		{name: "INVALID_FIELD: a continuation token", user: "alice", body: `{"activeAtOffset":15,"streamContinuationToken":"abc","eventFormat":` + aliceAll + `}`, status: 400, code: "INVALID_FIELD"},
		{name: "NEGATIVE_OFFSET", user: "alice", body: acsBody("-1", aliceAll), status: 400, code: "NEGATIVE_OFFSET"},
		{name: "OFFSET_AFTER_LEDGER_END", user: "alice", body: acsBody("16", aliceAll), status: 400, code: "OFFSET_AFTER_LEDGER_END"},
		{name: "PACKAGE_NAMES_NOT_FOUND", user: "alice", body: acsBody("15", byParty("{alice}", templateFilter("#nope:A:B", false))), status: 404, code: "PACKAGE_NAMES_NOT_FOUND"},
		{name: "401: no token", noToken: true, offSpec: true, body: aliceACS, status: 401},
		{name: "403: bob reads alice", user: "bob", body: aliceACS, status: 403},
		{name: "403: alice reads any party", user: "alice", body: acsBody("15", anyParty), status: 403},
		{name: "403: ParticipantAdmin does not read party data", user: userAdminOnly, body: aliceACS, status: 403},
		{name: "authorization comes before validation", user: "bob", body: acsBody("-1", aliceAll), status: 403},
	}
	var ran atomic.Int32
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				target := tc.path
				if target == "" {
					target = acsPath
				}
				if tc.query != "" {
					target += "?" + tc.query
				}
				authz := caseToken(t, tc.noToken, tc.user)
				body := e.expand(tc.body)
				rec := e.answerCase(t, tc.opts, newRequest(http.MethodPost, target, authz, body), tc.status, tc.code, &ran)
				golden.Check(t, tc.name, entryOf(t, rec))
				checkConformance(t, s, newRequest(http.MethodPost, target, authz, body), rec, tc.offSpec)
				if tc.check != nil {
					tc.check(t, e, rec)
				}
				if tc.opts.buffer == 0 {
					sameStreamed(t, e, tc.opts, target, authz, body, rec)
				}
			})
		}
	})
	golden.Finish(t, int(ran.Load()) == len(cases))
}
