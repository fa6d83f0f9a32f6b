package ledgerclient

import (
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// DecodeReassignment turns a listed JsReassignment (one event, as Canton
// and sandnet list a reassignment) back into the ledger.Reassignment the
// in-process stream holds, as far as the wire carries it: an
// assignment's contract in full from its created event, an
// unassignment's by contract id and template only. migration is the
// update's migration id, which the API does not carry. See the package
// documentation for what the wire cannot say.
func DecodeReassignment(js *ledgerapi.JsReassignment, reg *ledger.Registry, migration int64) (*ledger.Reassignment, error) {
	if len(js.Events) != 1 {
		return nil, fault.New(fault.Internal, "reassignment %s has %d events, want 1", js.UpdateID, len(js.Events))
	}
	r := &ledger.Reassignment{
		UpdateID: js.UpdateID, MigrationID: migration, CommandID: js.CommandID, WorkflowID: js.WorkflowID,
		TraceContext: decodeTraceContext(js.UpdateID, js.TraceContext),
	}
	var err error
	if r.RecordTime, err = daml.ParseTimestamp(js.RecordTime); err != nil {
		return nil, wrapDecode(err, "reassignment %s: record time", js.UpdateID)
	}
	switch ev := js.Events[0]; {
	case ev.JsAssignmentEvent != nil:
		a := ev.JsAssignmentEvent
		if a.CreatedEvent == nil {
			return nil, fault.New(fault.Internal, "assignment %s has no created event", js.UpdateID)
		}
		r.Kind, r.Source, r.Target = ledger.Assigned, ledger.SynchronizerID(a.Source), ledger.SynchronizerID(a.Target)
		r.UnassignID, r.Counter, r.Submitter = a.ReassignmentID, a.ReassignmentCounter, daml.Party(a.Submitter)
		// The created event decodes as a transaction's would; what it
		// cannot say about the contract's origin is left out below.
		at := &ledger.Transaction{UpdateID: js.UpdateID, Synchronizer: r.Target, MigrationID: migration}
		e, err := decodeEvent(&ledgerapi.Event{CreatedEvent: a.CreatedEvent}, at, reg, map[daml.ContractID]*ledger.Contract{})
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "assignment %s", js.UpdateID)
		}
		c := e.Created
		c.CreatedBy = "" // the creating update is not on the wire
		c.ReassignmentCounter = r.Counter
		r.Contract = c
	case ev.JsUnassignedEvent != nil:
		u := &ev.JsUnassignedEvent.Value
		r.Kind, r.Source, r.Target = ledger.Unassigned, ledger.SynchronizerID(u.Source), ledger.SynchronizerID(u.Target)
		r.UnassignID, r.Counter, r.Submitter = u.ReassignmentID, u.ReassignmentCounter, daml.Party(u.Submitter)
		tid, err := templateID(u.TemplateID, reg)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "unassignment %s", js.UpdateID)
		}
		// Only the id and template of the contract are on the wire: its
		// argument, parties and creation are not.
		r.Contract = &ledger.Contract{
			ID: daml.ContractID(u.ContractID), Template: tid, Synchronizer: r.Source,
			MigrationID: migration, ReassignmentCounter: r.Counter - 1,
		}
	default:
		return nil, fault.New(fault.Internal, "reassignment %s: an event of unknown kind", js.UpdateID)
	}
	return r, nil
}
