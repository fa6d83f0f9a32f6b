package ledgerapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// reassignBody is a SubmitAndWaitForReassignmentRequest with one command.
func reassignBody(commandID, submitter, command, eventFormat string) string {
	b := `{"reassignmentCommands":{"commandId":"` + commandID + `","submitter":"` + submitter + `","workflowId":"moving","commands":[{"command":` + command + `}]}`
	if eventFormat != "" {
		b += `,"eventFormat":` + eventFormat
	}
	return b + `}`
}

// TestReassignmentCommands moves alice's amulet to a second synchronizer
// and back through the reassignment commands: an unassignment answers
// with the unassignment (events as the event format selects them), an
// assignment of the completed reassignment with the assignment that
// completed it, and the refusals are Canton's.
func TestReassignmentCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "reassigncommands", *update)
	ctx := context.Background()
	v := e.seeded.Validator.Participant
	alice := e.party("alice")
	other, err := e.net.AddSynchronizer(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	var cid daml.ContractID
	for _, c := range e.tap(t, v, "alice", alice, "tap-to-move").Created() {
		if c.Template.EntityName == "Amulet" {
			cid = c.ID
		}
	}
	home, err := e.net.Store().Synchronizers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := string(home[0].ID), string(other.ID)
	unassign := func(from, to string) string {
		return `{"UnassignCommand":{"value":{"contractId":"{cid}","source":"` + from + `","target":"` + to + `"}}}`
	}
	assign := func(id, from, to string) string {
		return `{"AssignCommand":{"value":{"reassignmentId":"` + id + `","source":"` + from + `","target":"` + to + `"}}}`
	}
	aliceFormat := `{"filtersByParty":{"{alice}":{}},"verbose":true}`
	const path = "/v2/commands/submit-and-wait-for-reassignment"
	steps := []step{
		{name: "unassign, with events", method: http.MethodPost, path: path, user: "alice",
			body: reassignBody("move-out", "{alice}", unassign(src, dst), aliceFormat), status: 200},
		{name: "the contract is gone from the source", method: http.MethodPost, path: path, user: "alice",
			body: reassignBody("move-again", "{alice}", unassign(src, dst), ""), status: 400, code: "INVALID_ARGUMENT"},
		{name: "another party's contract", method: http.MethodPost, path: path, user: "bob",
			body: reassignBody("steal", "{bob}", unassign(dst, src), ""), status: 404, code: "CONTRACT_NOT_FOUND"},
		{name: "a submitter without the right", method: http.MethodPost, path: path, user: "bob",
			body: reassignBody("steal", "{alice}", unassign(dst, src), ""), status: 403},
		{name: "an unknown reassignment", method: http.MethodPost, path: path, user: "alice",
			body: reassignBody("assign", "{alice}", assign("0x"+"ab", dst, src), ""), status: 404, code: "NOT_FOUND"},
		{name: "no command id", method: http.MethodPost, path: path, user: "alice",
			body: reassignBody("", "{alice}", unassign(dst, src), ""), status: 400, code: "MISSING_FIELD"},
		{name: "unassign back, without events", method: http.MethodPost, path: path, user: "alice",
			body: reassignBody("move-back", "{alice}", unassign(dst, src), ""), status: 200},
		{name: "unassign asynchronously", method: http.MethodPost, path: "/v2/commands/async/submit-reassignment", user: "alice",
			body: reassignBody("move-async", "{alice}", unassign(src, dst), ""), status: 200},
		{name: "two commands", method: http.MethodPost, path: path, user: "alice",
			body: `{"reassignmentCommands":{"commandId":"c","submitter":"{alice}","commands":[{"command":` + unassign(dst, src) + `},{"command":` + unassign(dst, src) + `}]}}`, status: 400},
	}
	runSteps(t, e, s, golden, steps, "{cid}", string(cid))

	// Each unassignment has its accepted completion in alice's stream,
	// with the unassignment's update id.
	rec := e.post(t, options{wait: 50 * time.Millisecond}, "/v2/commands/completions", "alice",
		e.expand(`{"userId":"alice","parties":["{alice}"],"beginExclusive":0}`))
	for _, id := range []string{"move-out", "move-back", "move-async"} {
		if !strings.Contains(rec.Body.String(), `"commandId":"`+id+`"`) {
			t.Errorf("no completion of %s among alice's: %d %.3000s", id, rec.Code, rec.Body)
		}
	}

	// The assignment of the last move, named by its reassignment id.
	contract, _, err := e.net.Store().Contract(ctx, cid)
	if err != nil || string(contract.Synchronizer) != dst {
		t.Fatalf("the amulet is on %v (%v), want %s", contract, err, dst)
	}
	ups, err := e.net.Store().Updates(ctx, ledger.UpdateQuery{Participant: v, Descending: true, Limit: 1})
	if err != nil || len(ups) != 1 || ups[0].Reassignment == nil || ups[0].Reassignment.Kind != ledger.Assigned {
		t.Fatalf("the last update is no assignment: %+v %v", ups, err)
	}
	id := ups[0].Reassignment.UnassignID
	assigned := apitest.OpenGolden(t, "reassigncommands-assign", *update)
	runSteps(t, e, s, assigned, []step{
		{name: "assign the completed reassignment", method: http.MethodPost, path: path, user: "alice",
			body: reassignBody("assign", "{alice}", assign(id, src, dst), aliceFormat), status: 200,
			check: func(t *testing.T, rec *httptest.ResponseRecorder) {
				if !strings.Contains(rec.Body.String(), `"JsAssignmentEvent"`) || !strings.Contains(rec.Body.String(), ups[0].Reassignment.UpdateID) {
					t.Errorf("not the assignment %s: %s", ups[0].Reassignment.UpdateID, rec.Body)
				}
			}},
		{name: "assign with the wrong source", method: http.MethodPost, path: path, user: "alice",
			body: reassignBody("assign", "{alice}", assign(id, dst, src), ""), status: 400, code: "INVALID_ARGUMENT"},
		{name: "assign as another party", method: http.MethodPost, path: path, user: "bob",
			body: reassignBody("assign", "{bob}", assign(id, src, dst), ""), status: 404, code: "NOT_FOUND"},
	}, "{cid}", string(cid))
}
