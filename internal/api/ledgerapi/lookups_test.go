package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// lookupFixture names updates and contracts of the shared network that the
// lookup tests ask for, found in the validator participant's stream.
type lookupFixture struct {
	aliceTx    ledger.ParticipantUpdate // a transaction alice witnesses
	bobOnlyTx  ledger.ParticipantUpdate // a transaction bob witnesses and alice does not
	topology   ledger.ParticipantUpdate // a topology transaction
	archived   daml.ContractID          // a contract of alice's, archived
	active     daml.ContractID          // a contract of alice's, active
	unknownCID daml.ContractID
	end        ledger.Offset
}

func findLookupFixture(t *testing.T, e *env) lookupFixture {
	t.Helper()
	ctx := t.Context()
	st := e.net.Store()
	p := e.seeded.Validator.Participant
	alice, bob := e.party("alice"), e.party("bob")
	us, err := st.Updates(ctx, ledger.UpdateQuery{Participant: p})
	if err != nil {
		t.Fatal(err)
	}
	var f lookupFixture
	f.end = us[len(us)-1].Offset
	for _, u := range us {
		switch {
		case u.Topology != nil && f.topology.Topology == nil:
			f.topology = u
		case u.Transaction != nil:
			informees := u.Transaction.Informees()
			if slices.Contains(informees, alice) && f.aliceTx.Transaction == nil {
				f.aliceTx = u
			}
			if slices.Contains(informees, bob) && !slices.Contains(informees, alice) && f.bobOnlyTx.Transaction == nil {
				f.bobOnlyTx = u
			}
			for _, c := range u.Transaction.Created() {
				if !slices.Contains(c.Stakeholders(), alice) {
					continue
				}
				by, err := st.ArchivedBy(ctx, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				if by != "" && f.archived == "" {
					f.archived = c.ID
				}
				if by == "" && f.active == "" {
					f.active = c.ID
				}
			}
		}
	}
	f.unknownCID = daml.ContractID("00" + string(bytes.Repeat([]byte("ab"), 32)) + "ca11")
	if f.aliceTx.Transaction == nil || f.bobOnlyTx.Transaction == nil || f.topology.Topology == nil || f.archived == "" || f.active == "" {
		t.Fatalf("the seeded network lacks a fixture: %+v", f)
	}
	return f
}

// The point lookups of updates and contracts, on the shared network.
func TestLookups(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "lookups", *update)
	f := findLookupFixture(t, e)
	off := func(o ledger.Offset) string { return strconv.FormatInt(int64(o), 10) }
	const (
		aliceACS     = `{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{alice}":{}}}}}`
		aliceEffects = `{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS","eventFormat":{"filtersByParty":{"{alice}":{}}}}}`
		topologyOnly = `{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{}}}`
	)
	// sameAsList checks that a lookup answers the update the updates list
	// has at the offset, with the same format.
	sameAsList := func(at ledger.Offset, format string) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			t.Helper()
			var got ledgerapi.JsGetUpdateResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			list := httptest.NewRecorder()
			body := `{"beginExclusive":` + off(at-1) + `,"endInclusive":` + off(at) + `,"updateFormat":` + format + `}`
			e.handler(options{}).ServeHTTP(list, newRequest(http.MethodPost, "/v2/updates", bearer(t, userAnyReader), e.expand(body)))
			want := decodeList(t, list)
			if len(want) != 1 {
				t.Fatalf("the list has %d updates at %d", len(want), at)
			}
			g, _ := json.Marshal(got.Update)
			w, _ := json.Marshal(want[0].Update)
			if !bytes.Equal(g, w) {
				t.Errorf("lookup %s\nlist   %s", g, w)
			}
		}
	}
	wantArchived := func(archived bool) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			t.Helper()
			var got ledgerapi.JsGetEventsByContractIDResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Created == nil || got.Created.CreatedEvent == nil || (got.Archived != nil) != archived {
				t.Errorf("created %v, archived %v; want archived %v", got.Created, got.Archived, archived)
			}
			if archived && got.Archived.ArchivedEvent.Offset <= got.Created.CreatedEvent.Offset {
				t.Errorf("archived at %d, created at %d", got.Archived.ArchivedEvent.Offset, got.Created.CreatedEvent.Offset)
			}
		}
	}
	byID := func(id, format string) string { return `{"updateId":"` + id + `","updateFormat":` + format + `}` }
	byOffset := func(o ledger.Offset, format string) string {
		return `{"offset":` + off(o) + `,"updateFormat":` + format + `}`
	}
	events := func(cid daml.ContractID, party string) string {
		return `{"contractId":"` + string(cid) + `","eventFormat":{"filtersByParty":{"` + party + `":{}}}}`
	}
	aliceID, bobOnlyID, topoID := f.aliceTx.UpdateID(), f.bobOnlyTx.UpdateID(), f.topology.UpdateID()
	unknownID := "1220" + string(bytes.Repeat([]byte("0"), 64))
	steps := []step{
		{name: "update by id: ACS delta", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 200,
			body: byID(aliceID, aliceACS), check: sameAsList(f.aliceTx.Offset, aliceACS)},
		{name: "update by id: ledger effects", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 200,
			body: byID(aliceID, aliceEffects), check: sameAsList(f.aliceTx.Offset, aliceEffects)},
		{name: "update by id: a topology transaction", method: "POST", path: "/v2/updates/update-by-id", user: userAnyReader, status: 200,
			body: byID(topoID, topologyOnly), check: sameAsList(f.topology.Offset, topologyOnly)},
		{name: "update by id: nothing the format selects", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 404, code: "UPDATE_NOT_FOUND",
			body: byID(bobOnlyID, aliceACS)},
		{name: "update by id: unknown", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 404, code: "UPDATE_NOT_FOUND",
			body: byID(unknownID, aliceACS)},
		{name: "update by id: not in this participant's stream", method: "POST", path: "/sv/1/v2/updates/update-by-id", user: admin, status: 404, code: "UPDATE_NOT_FOUND",
			body: byID(f.bobOnlyTx.UpdateID(), `{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersForAnyParty":{}}}}`), opts: options{authNone: true},
			check: func(t *testing.T, _ *httptest.ResponseRecorder) {
				if _, err := e.net.Store().UpdateByID(t.Context(), e.seeded.SVs[0].Participant, f.bobOnlyTx.UpdateID()); !fault.Is(err, fault.NotFound) {
					t.Errorf("the SV's stream has the update: %v", err)
				}
			}},
		{name: "update by id: malformed", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 400, code: "INVALID_ARGUMENT", body: byID("xyz", aliceACS)},
		{name: "update by id: not a hash", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 400, code: "INVALID_ARGUMENT", body: byID("abcd", aliceACS)},
		{name: "update by id: empty", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 400, code: "MISSING_FIELD", body: byID("", aliceACS)},
		{name: "update by id: no format", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 400, code: "MISSING_FIELD", offSpec: true,
			body: `{"updateId":"` + aliceID + `"}`},
		{name: "update by id: an unknown package name", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 404, code: "PACKAGE_NAMES_NOT_FOUND",
			body: byID(aliceID, `{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{alice}":{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"#nope:A:B"}}}}]}}}}}`)},
		{name: "update by id: reading as another party", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 403,
			body: byID(aliceID, `{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{bob}":{}}}}}`)},
		{name: "update by id: no token", method: "POST", path: "/v2/updates/update-by-id", status: 401, offSpec: true, body: byID(aliceID, aliceACS)},
		{name: "update by id: undecodable", method: "POST", path: "/v2/updates/update-by-id", user: "alice", status: 400, offSpec: true, body: `{"updateId":5}`},

		{name: "update by offset", method: "POST", path: "/v2/updates/update-by-offset", user: "alice", status: 200,
			body: byOffset(f.aliceTx.Offset, aliceACS), check: sameAsList(f.aliceTx.Offset, aliceACS)},
		{name: "update by offset: as a string", method: "POST", path: "/v2/updates/update-by-offset", user: "alice", status: 200,
			body: `{"offset":"` + off(f.aliceTx.Offset) + `","updateFormat":` + aliceACS + `}`, check: sameAsList(f.aliceTx.Offset, aliceACS)},
		{name: "update by offset: a topology transaction, transactions asked for", method: "POST", path: "/v2/updates/update-by-offset", user: "alice", status: 404, code: "UPDATE_NOT_FOUND",
			body: byOffset(f.topology.Offset, aliceACS)},
		{name: "update by offset: after the ledger end", method: "POST", path: "/v2/updates/update-by-offset", user: "alice", status: 404, code: "UPDATE_NOT_FOUND",
			body: byOffset(f.end+1, aliceACS)},
		{name: "update by offset: zero", method: "POST", path: "/v2/updates/update-by-offset", user: "alice", status: 400, code: "NON_POSITIVE_OFFSET", body: byOffset(0, aliceACS)},

		{name: "transaction by id: requesting parties", method: "POST", path: "/v2/updates/transaction-by-id", user: "alice", status: 200,
			body: `{"updateId":"` + aliceID + `","requestingParties":["{alice}"]}`},
		{name: "transaction by id: a transaction format", method: "POST", path: "/v2/updates/transaction-by-id", user: "alice", status: 200,
			body: `{"updateId":"` + aliceID + `","transactionFormat":` + `{"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS","eventFormat":{"filtersByParty":{"{alice}":{}}}}}`},
		{name: "transaction by id: both", method: "POST", path: "/v2/updates/transaction-by-id", user: "alice", status: 400, code: "INVALID_ARGUMENT",
			body: `{"updateId":"` + aliceID + `","requestingParties":["{alice}"],"transactionFormat":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{alice}":{}}}}}`},
		{name: "transaction by id: neither", method: "POST", path: "/v2/updates/transaction-by-id", user: "alice", status: 400, code: "INVALID_ARGUMENT",
			body: `{"updateId":"` + aliceID + `"}`},
		{name: "transaction by id: a topology transaction", method: "POST", path: "/v2/updates/transaction-by-id", user: userAnyReader, status: 404, code: "UPDATE_NOT_FOUND",
			body: `{"updateId":"` + topoID + `","requestingParties":["{alice}"]}`},
		{name: "transaction by id: another party's", method: "POST", path: "/v2/updates/transaction-by-id", user: "alice", status: 403,
			body: `{"updateId":"` + aliceID + `","requestingParties":["{bob}"]}`},
		{name: "transaction by offset", method: "POST", path: "/v2/updates/transaction-by-offset", user: "alice", status: 200,
			body: `{"offset":` + off(f.aliceTx.Offset) + `,"requestingParties":["{alice}"]}`},
		{name: "transaction by offset: negative", method: "POST", path: "/v2/updates/transaction-by-offset", user: "alice", status: 400, code: "NON_POSITIVE_OFFSET",
			body: `{"offset":-1,"requestingParties":["{alice}"]}`},

		{name: "transaction tree by id", method: "GET", path: "/v2/updates/transaction-tree-by-id/" + aliceID + "?parties={alice}", user: "alice", status: 200},
		{name: "transaction tree by id: no parties", method: "GET", path: "/v2/updates/transaction-tree-by-id/" + aliceID, user: "alice", status: 400, code: "INVALID_ARGUMENT"},
		{name: "transaction tree by id: unknown", method: "GET", path: "/v2/updates/transaction-tree-by-id/" + unknownID + "?parties={alice}", user: "alice", status: 404, code: "UPDATE_NOT_FOUND"},
		{name: "transaction tree by id: another party's", method: "GET", path: "/v2/updates/transaction-tree-by-id/" + aliceID + "?parties={bob}", user: "alice", status: 403},
		{name: "transaction tree by offset", method: "GET", path: "/v2/updates/transaction-tree-by-offset/" + off(f.aliceTx.Offset) + "?parties={alice}", user: "alice", status: 200},
		{name: "transaction tree by offset: no number", method: "GET", path: "/v2/updates/transaction-tree-by-offset/x?parties={alice}", user: "alice", status: 400, offSpec: true},

		{name: "events by contract id: archived", method: "POST", path: "/v2/events/events-by-contract-id", user: "alice", status: 200,
			body: events(f.archived, "{alice}"), check: wantArchived(true)},
		{name: "events by contract id: active", method: "POST", path: "/v2/events/events-by-contract-id", user: "alice", status: 200,
			body: events(f.active, "{alice}"), check: wantArchived(false)},
		{name: "events by contract id: not a stakeholder", method: "POST", path: "/v2/events/events-by-contract-id", user: "bob", status: 404, code: "CONTRACT_EVENTS_NOT_FOUND",
			body: events(f.active, "{bob}")},
		{name: "events by contract id: unknown", method: "POST", path: "/v2/events/events-by-contract-id", user: "alice", status: 404, code: "CONTRACT_EVENTS_NOT_FOUND",
			body: events(f.unknownCID, "{alice}")},
		{name: "events by contract id: a template filter that does not match", method: "POST", path: "/v2/events/events-by-contract-id", user: "alice", status: 404, code: "CONTRACT_EVENTS_NOT_FOUND",
			body: `{"contractId":"` + string(f.active) + `","eventFormat":{"filtersByParty":{"{alice}":{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"#splice-wallet:Splice.Wallet.Install:WalletAppInstall"}}}}]}}}}`},
		{name: "events by contract id: malformed", method: "POST", path: "/v2/events/events-by-contract-id", user: "alice", status: 400, code: "INVALID_FIELD",
			body: events("00zz", "{alice}")},
		{name: "events by contract id: empty", method: "POST", path: "/v2/events/events-by-contract-id", user: "alice", status: 400, code: "MISSING_FIELD",
			body: events("", "{alice}")},
		{name: "events by contract id: no event format", method: "POST", path: "/v2/events/events-by-contract-id", user: "alice", status: 400, code: "MISSING_FIELD", offSpec: true,
			body: `{"contractId":"` + string(f.active) + `"}`},
		{name: "events by contract id: another party's", method: "POST", path: "/v2/events/events-by-contract-id", user: "alice", status: 403,
			body: events(f.active, "{bob}")},

		{name: "contract by id", method: "POST", path: "/v2/contracts/contract-by-id", user: "alice", status: 200,
			body: `{"contractId":"` + string(f.active) + `","queryingParties":["{alice}"]}`},
		{name: "contract by id: archived", method: "POST", path: "/v2/contracts/contract-by-id", user: "alice", status: 200,
			body: `{"contractId":"` + string(f.archived) + `","queryingParties":["{alice}"]}`},
		{name: "contract by id: any party", method: "POST", path: "/v2/contracts/contract-by-id", user: userAnyReader, status: 200,
			body: `{"contractId":"` + string(f.active) + `"}`},
		{name: "contract by id: any party, without the right", method: "POST", path: "/v2/contracts/contract-by-id", user: "alice", status: 403,
			body: `{"contractId":"` + string(f.active) + `"}`},
		{name: "contract by id: not a stakeholder", method: "POST", path: "/v2/contracts/contract-by-id", user: "bob", status: 404, code: "CONTRACT_PAYLOAD_NOT_FOUND",
			body: `{"contractId":"` + string(f.active) + `","queryingParties":["{bob}"]}`},
		{name: "contract by id: unknown", method: "POST", path: "/v2/contracts/contract-by-id", user: "alice", status: 404, code: "CONTRACT_PAYLOAD_NOT_FOUND",
			body: `{"contractId":"` + string(f.unknownCID) + `","queryingParties":["{alice}"]}`},
		{name: "contract by id: malformed", method: "POST", path: "/v2/contracts/contract-by-id", user: "alice", status: 400, code: "INVALID_FIELD",
			body: `{"contractId":"01","queryingParties":["{alice}"]}`},
	}
	runSteps(t, e, s, golden, steps)
}

// Lookups do not reach into the pruned part of the stream: an update at
// or before the pruned offset, and the events of a contract archived
// there, are not found; a contract created there and still active is.
func TestLookupsPruned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := findLookupFixture(t, e)
	ctx := t.Context()
	archivedBy, err := e.net.Store().ArchivedBy(ctx, f.archived)
	if err != nil {
		t.Fatal(err)
	}
	archive, err := e.net.Store().UpdateByID(ctx, e.seeded.Validator.Participant, archivedBy)
	if err != nil {
		t.Fatal(err)
	}
	prunedAt := max(archive.Offset, f.aliceTx.Offset)
	if err := e.net.Prune(ctx, e.seeded.Validator.Participant, prunedAt); err != nil {
		t.Fatal(err)
	}
	const aliceACS = `{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{alice}":{}}}}}`
	for _, tc := range []struct {
		name, path, body string
		status           int
	}{
		{"update by id", "/v2/updates/update-by-id", `{"updateId":"` + f.aliceTx.UpdateID() + `","updateFormat":` + aliceACS + `}`, 404},
		{"update by offset", "/v2/updates/update-by-offset", `{"offset":` + strconv.FormatInt(int64(f.aliceTx.Offset), 10) + `,"updateFormat":` + aliceACS + `}`, 404},
		{"events of a contract archived there", "/v2/events/events-by-contract-id", `{"contractId":"` + string(f.archived) + `","eventFormat":{"filtersByParty":{"{alice}":{}}}}`, 404},
		{"events of a contract still active", "/v2/events/events-by-contract-id", `{"contractId":"` + string(f.active) + `","eventFormat":{"filtersByParty":{"{alice}":{}}}}`, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, tc.path, bearer(t, "alice"), e.expand(tc.body)))
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
		})
	}
}
