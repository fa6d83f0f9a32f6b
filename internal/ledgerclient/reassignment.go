package ledgerclient

import (
	"context"

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

// origin is where a contract was created: its creating update and that
// update's offset in the participant's stream.
type origin struct {
	updateID string
	offset   ledger.Offset
}

// templateFilter selects the events of one template.
type templateFilter struct {
	TemplateID              string `json:"templateId"`
	IncludeCreatedEventBlob bool   `json:"includeCreatedEventBlob"`
}

// origin returns where contract id, of template tmpl, was created in the participant's stream at or before offset
// before: the JSON Ledger API does not say in an assignment, and a Scan
// keeps the creating update of the contracts it serves. It searches the
// DSO party's creations of that template (an ACS_DELTA list with a
// template filter, so only transactions creating or archiving such
// contracts are listed), once per contract: reassignments are rare. ok
// is false when the creation is not in the stream (pruned away, or not
// seen by the DSO party).
func (c *Client) origin(ctx context.Context, id daml.ContractID, tmpl ledger.TemplateID, before ledger.Offset) (origin, bool, error) {
	c.mu.Lock()
	o, ok := c.origins[id]
	c.mu.Unlock()
	if ok {
		return o, true, nil
	}
	format := &updateFormat{IncludeTransactions: &transactionFormat{
		EventFormat: &eventFormat{FiltersByParty: map[daml.Party]filters{c.cfg.Party: {Cumulative: []cumulativeFilter{{
			// By package name, as the ledger API wants template filters.
			IdentifierFilter: map[string]wrapped{"TemplateFilter": {Value: templateFilter{
				TemplateID: "#" + tmpl.PackageName + ":" + tmpl.Identifier.ModuleName + ":" + tmpl.Identifier.EntityName,
			}}},
		}}}}},
		TransactionShape: "TRANSACTION_SHAPE_ACS_DELTA",
	}}
	end := int64(before)
	for after := int64(0); after < end; {
		list, err := c.list(ctx, updatesRequest{BeginExclusive: after, EndInclusive: &end, UpdateFormat: format}, c.cfg.PageSize, -1)
		if isCode(err, "PARTICIPANT_PRUNED_DATA_ACCESSED") {
			return origin{}, false, nil
		}
		if err != nil {
			return origin{}, false, err
		}
		next := after
		for i := range list {
			tx := list[i].Update.Transaction
			if tx == nil {
				continue
			}
			next = max(next, tx.Value.Offset)
			for _, e := range tx.Value.Events {
				if e.CreatedEvent != nil && daml.ContractID(e.CreatedEvent.ContractID) == id {
					o := origin{updateID: tx.Value.UpdateID, offset: ledger.Offset(tx.Value.Offset)}
					c.mu.Lock()
					if c.origins == nil {
						c.origins = map[daml.ContractID]origin{}
					}
					c.origins[id] = o
					c.mu.Unlock()
					return o, true, nil
				}
			}
		}
		if len(list) < c.cfg.PageSize || next == after {
			break // the list reached before
		}
		after = next
	}
	return origin{}, false, nil
}
