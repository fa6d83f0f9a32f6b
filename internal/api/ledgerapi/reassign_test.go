package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// An amulet of alice's moved to a second synchronizer and back: the
// validator's stream holds, after the tap that created it, its
// unassignment and assignment twice. They are served as Canton's
// Reassignment updates to the requests whose reassignment format selects
// the contract (by its stakeholders and template), in the updates list,
// its deprecated twins, the websocket stream and the 413 count, and the
// active contract set shows the contract where it lives with its counter.
func TestReassignments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	ctx := context.Background()
	v := e.seeded.Validator.Participant
	alice := e.party("alice")
	end := func() int64 {
		t.Helper()
		h, err := e.net.Store().Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int64(h.Offsets[v])
	}
	other, err := e.net.AddSynchronizer(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	begin := end()
	tx := e.tap(t, v, "alice", alice, "tap-to-move")
	var cid daml.ContractID
	for _, c := range tx.Created() {
		if c.Template.EntityName == "Amulet" {
			cid = c.ID
		}
	}
	if cid == "" {
		t.Fatal("the tap created no amulet")
	}
	out, in, err := e.net.Reassign(ctx, ledger.ReassignSpec{
		Contract: cid, Target: other.ID, Submitter: alice, CommandID: "move-out", WorkflowID: "moving",
		TraceContext: ledger.TraceContext{TraceParent: "00-0123456789abcdef0123456789abcdef-0123456789abcdef-01"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Back, on behalf of the first signatory (the DSO, hosted elsewhere).
	if _, _, err := e.net.Reassign(ctx, ledger.ReassignSpec{Contract: cid, Target: out.Source, CommandID: "move-back"}); err != nil {
		t.Fatal(err)
	}
	last := end()
	if last != begin+5 {
		t.Fatalf("the validator's ledger end moved from %d to %d; want the tap and four reassignment updates", begin, last)
	}
	b, l := strconv.FormatInt(begin, 10), strconv.FormatInt(last, 10)
	rng := `"beginExclusive":` + b + `,"endInclusive":` + l
	reassignments := func(eventFormat string) string {
		return `{` + rng + `,"updateFormat":{"includeReassignments":` + eventFormat + `}}`
	}
	legacy := `{` + rng + `,"filter":{"filtersByParty":{"{alice}":{}}}}`
	anyParty := `{"filtersForAnyParty":{"cumulative":[{"identifierFilter":{"WildcardFilter":{"value":{"includeCreatedEventBlob":true}}}}]}}`
	golden := apitest.OpenGolden(t, "reassignments", *update)
	cases := []struct {
		name, path, user, body string
		opts                   options
		status                 int
		// kinds are the updates listed, in order: T a transaction, U an
		// unassignment, A an assignment.
		kinds string
	}{
		{"reassignments of alice's contract", "/v2/updates", "alice", reassignments(byParty("{alice}", "{}")), options{}, 200, "UAUA"},
		{"the legacy filter: transactions and reassignments", "/v2/updates", "alice", legacy, options{}, 200, "TUAUA"},
		{"flats: the same list", "/v2/updates/flats", "alice", legacy, options{}, 200, "TUAUA"},
		{"trees: reassignments as they are", "/v2/updates/trees", "alice", legacy, options{}, 200, "TUAUA"},
		{"transactions only: no reassignments", "/v2/updates", "alice", txFormat(b, l, "ACS_DELTA", byParty("{alice}", "{}")), options{}, 200, "T"},
		{"descending", "/v2/updates", "alice", `{` + rng + `,"descendingOrder":true,"updateFormat":{"includeReassignments":` + byParty("{alice}", "{}") + `}}`, options{}, 200, "AUAU"},
		{"an interface filter with view and blob", "/v2/updates", "alice", reassignments(byParty("{alice}", interfaceFilter(holdingID, true, true))), options{}, 200, "UAUA"},
		{"a template filter of another template: none", "/v2/updates", "alice", reassignments(byParty("{alice}", templateFilter("#splice-dso-governance:Splice.DsoRules:DsoRules", false))), options{}, 200, ""},
		{"a party that is no stakeholder: none", "/v2/updates", "bob", reassignments(byParty("{bob}", "{}")), options{}, 200, ""},
		{"any party, with blobs", "/v2/updates", userAnyReader, reassignments(anyParty), options{}, 200, "UAUA"},
		{"counted for the node limit", "/v2/updates", "alice", legacy, options{max: 4}, http.StatusRequestEntityTooLarge, ""},
		{"within the node limit", "/v2/updates", "alice", legacy, options{max: 5}, 200, "TUAUA"},
	}
	bodies := map[string]string{}
	for _, tc := range cases {
		body := e.expand(tc.body)
		authz := bearer(t, tc.user)
		rec := httptest.NewRecorder()
		e.handler(tc.opts).ServeHTTP(rec, newRequest(http.MethodPost, tc.path, authz, body))
		if rec.Code != tc.status {
			t.Fatalf("%s: status %d, want %d: %.2000s", tc.name, rec.Code, tc.status, rec.Body)
		}
		golden.Check(t, tc.name, entryOf(t, rec))
		if err := s.Validate(t, newRequest(http.MethodPost, tc.path, authz, body), rec); err != nil {
			t.Errorf("%s: the exchange does not conform to the document: %v", tc.name, err)
		}
		sameStreamed(t, e, tc.opts, tc.path, authz, body, rec)
		if rec.Code != http.StatusOK {
			continue
		}
		bodies[tc.name] = rec.Body.String()
		var list []struct {
			Update struct {
				Transaction, TransactionTree json.RawMessage
				Reassignment                 *ledgerapi.Wrapped[ledgerapi.JsReassignment]
			} `json:"update"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		kinds := ""
		for _, u := range list {
			switch r := u.Update.Reassignment; {
			case u.Update.Transaction != nil || u.Update.TransactionTree != nil:
				kinds += "T"
			case r != nil && r.Value.Events[0].JsUnassignedEvent != nil:
				kinds += "U"
			case r != nil && r.Value.Events[0].JsAssignmentEvent != nil:
				kinds += "A"
			default:
				kinds += "?"
			}
		}
		if kinds != tc.kinds {
			t.Errorf("%s: updates %q, want %q", tc.name, kinds, tc.kinds)
		}
	}
	if bodies["flats: the same list"] != bodies["the legacy filter: transactions and reassignments"] {
		t.Errorf("flats differs from /v2/updates")
	}

	// An open-ended list follows the reassignments to the ledger end and
	// adds the checkpoint there, at the assignment's synchronizer.
	{
		body := e.expand(`{"beginExclusive":` + strconv.FormatInt(begin+2, 10) + `,"updateFormat":{"includeReassignments":` + byParty("{alice}", "{}") + `}}`)
		authz := bearer(t, "alice")
		target := "/v2/updates?stream_idle_timeout_ms=10"
		rec := httptest.NewRecorder()
		e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, target, authz, body))
		if err := s.Validate(t, newRequest(http.MethodPost, target, authz, body), rec); err != nil {
			t.Errorf("open-ended: the exchange does not conform to the document: %v", err)
		}
		list := decodeList(t, rec)
		if len(list) != 4 || list[0].Update.Reassignment == nil || list[2].Update.Reassignment == nil || list[3].Update.OffsetCheckpoint == nil {
			t.Fatalf("open-ended: %.3000s", rec.Body)
		}
		cp := list[3].Update.OffsetCheckpoint.Value
		if cp.Offset != last || cp.SynchronizerTimes[0].SynchronizerID != string(out.Source) {
			t.Errorf("open-ended: checkpoint %+v, want at %d on %s", cp, last, out.Source)
		}
	}

	// What alice sees of the first move: the same counter and id on both
	// halves, the command id of her own move only, the record time and
	// synchronizer of the source for the unassignment and of the target
	// for the assignment.
	var list []ledgerapi.JsGetUpdatesResponse
	if err := json.Unmarshal([]byte(bodies["reassignments of alice's contract"]), &list); err != nil {
		t.Fatal(err)
	}
	un, as := list[0].Update.Reassignment.Value, list[1].Update.Reassignment.Value
	ue, ae := un.Events[0].JsUnassignedEvent.Value, as.Events[0].JsAssignmentEvent
	switch {
	case ue.ReassignmentID != out.UnassignID || ae.ReassignmentID != out.UnassignID:
		t.Errorf("reassignment ids %q and %q, want %q", ue.ReassignmentID, ae.ReassignmentID, out.UnassignID)
	case ue.ReassignmentCounter != 1 || ae.ReassignmentCounter != 1 || list[3].Update.Reassignment.Value.Events[0].JsAssignmentEvent.ReassignmentCounter != 2:
		t.Errorf("counters %d, %d, then %d; want 1, 1, 2", ue.ReassignmentCounter, ae.ReassignmentCounter, list[3].Update.Reassignment.Value.Events[0].JsAssignmentEvent.ReassignmentCounter)
	case un.CommandID != "move-out" || as.CommandID != "move-out" || list[2].Update.Reassignment.Value.CommandID != "":
		t.Errorf("command ids %q, %q, %q", un.CommandID, as.CommandID, list[2].Update.Reassignment.Value.CommandID)
	case un.SynchronizerID != string(out.Source) || as.SynchronizerID != string(other.ID):
		t.Errorf("synchronizers %s and %s", un.SynchronizerID, as.SynchronizerID)
	case un.RecordTime != out.RecordTime.String() || as.RecordTime != in.RecordTime.String():
		t.Errorf("record times %s and %s", un.RecordTime, as.RecordTime)
	case ae.CreatedEvent.ContractID != string(cid) || ae.CreatedEvent.Offset != as.Offset || ae.CreatedEvent.NodeID != 0:
		t.Errorf("the assignment's created event: %+v", ae.CreatedEvent)
	case *un.TraceContext.TraceParent != "00-0123456789abcdef0123456789abcdef-0123456789abcdef-01":
		t.Errorf("trace context %v", *un.TraceContext.TraceParent)
	}

	// The websocket stream sends the list's elements.
	srv := httptest.NewServer(e.handler(options{}))
	t.Cleanup(srv.Close)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn := wsDial(t, wctx, srv, "/v2/updates", bearer(t, "alice"), nil)
	if err := conn.Write(wctx, websocket.MessageText, []byte(e.expand(legacy))); err != nil {
		t.Fatal(err)
	}
	ex := wsReadAll(t, wctx, s, conn)
	var want []json.RawMessage
	if err := json.Unmarshal([]byte(bodies["the legacy filter: transactions and reassignments"]), &want); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(ex.Frames, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, apitest.Compact(t, b)) }) {
		t.Errorf("the stream's %d frames differ from the list's %d elements", len(ex.Frames), len(want))
	}

	// The active contract set: the amulet where it lives, with its counter
	// and its last assignment's created event.
	const acsPath = "/v2/state/active-contracts"
	for _, at := range []struct {
		name    string
		offset  int64
		sync    ledger.SynchronizerID
		counter int64
	}{
		{"active contracts: created", begin + 1, out.Source, 0},
		{"active contracts: moved", begin + 3, other.ID, 1},
		{"active contracts: moved back", last, out.Source, 2},
	} {
		body := e.expand(acsBody(strconv.FormatInt(at.offset, 10), byParty("{alice}", "{}")))
		authz := bearer(t, "alice")
		rec := httptest.NewRecorder()
		e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, acsPath, authz, body))
		golden.Check(t, at.name, entryOf(t, rec))
		if err := s.Validate(t, newRequest(http.MethodPost, acsPath, authz, body), rec); err != nil {
			t.Errorf("%s: the exchange does not conform to the document: %v", at.name, err)
		}
		found := false
		for _, a := range decodeACS(t, rec) {
			ac := a.ContractEntry.JsActiveContract
			if ac.CreatedEvent.ContractID != string(cid) {
				continue
			}
			found = true
			if ac.SynchronizerID != string(at.sync) || ac.ReassignmentCounter != at.counter {
				t.Errorf("%s: on %s with counter %d, want %s and %d", at.name, ac.SynchronizerID, ac.ReassignmentCounter, at.sync, at.counter)
			}
			if at.counter > 0 && (ac.CreatedEvent.Offset == begin+1 || ac.CreatedEvent.NodeID != 0 || a.WorkflowID == "ledgerapi-test") {
				t.Errorf("%s: the created event is not the assignment's: %+v", at.name, ac.CreatedEvent)
			}
		}
		if !found {
			t.Errorf("%s: the amulet is not active", at.name)
		}
		if strings.Contains(rec.Body.String(), `"JsActiveContract":null`) {
			t.Errorf("%s: an empty entry", at.name)
		}
	}
	golden.Finish(t, true)
}
