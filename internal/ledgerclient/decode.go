package ledgerclient

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// update decodes one listed transaction into the Scan's update.
// Its migration id is Config.MigrationID until Read tags it.
func (c *Client) update(js *ledgerapi.JsTransaction) (scan.Update, error) {
	tx, err := DecodeTransaction(js, c.cfg.Registry, c.cfg.Party, c.cfg.MigrationID)
	if err != nil {
		return scan.Update{}, err
	}
	created, archived := DSOView(tx, c.cfg.Party)
	return scan.Update{Offset: ledger.Offset(js.Offset), Transaction: tx, Created: created, Archived: archived}, nil
}

// DecodeTransaction turns a JsTransaction of the LEDGER_EFFECTS shape,
// listed for the party reader alone, back into the transaction
// ledger.Transaction.Project([]daml.Party{reader}) gives: the events in
// node order with the full tree's node ids, roots and children rebuilt
// from their nodeId and lastDescendantNodeId, and values typed with reg.
// migration is the transaction's migration id, which the API does not
// carry. See the package documentation for what the wire cannot say.
func DecodeTransaction(js *ledgerapi.JsTransaction, reg *ledger.Registry, reader daml.Party, migration int64) (*ledger.Transaction, error) {
	tx := &ledger.Transaction{
		UpdateID: js.UpdateID, WorkflowID: js.WorkflowID, Synchronizer: ledger.SynchronizerID(js.SynchronizerID),
		MigrationID: migration, TraceContext: traceContextOf(js),
	}
	var err error
	if tx.RecordTime, err = daml.ParseTimestamp(js.RecordTime); err != nil {
		return nil, wrapDecode(err, "update %s: record time", js.UpdateID)
	}
	if tx.EffectiveAt, err = daml.ParseTimestamp(js.EffectiveAt); err != nil {
		return nil, wrapDecode(err, "update %s: effective time", js.UpdateID)
	}
	created := map[daml.ContractID]*ledger.Contract{}
	for i := range js.Events {
		ev, err := decodeEvent(&js.Events[i], tx, reg, created)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "update %s: event %d", js.UpdateID, i)
		}
		if len(tx.Events) > 0 && ev.NodeID <= tx.Events[len(tx.Events)-1].NodeID {
			return nil, fault.New(fault.Internal, "update %s: node %d after node %d", js.UpdateID, ev.NodeID, tx.Events[len(tx.Events)-1].NodeID)
		}
		tx.Events = append(tx.Events, ev)
	}
	// Stakeholders narrowed to the reader: exact for consuming exercises
	// (acsDelta) and contracts created in the transaction.
	for i := range tx.Events {
		x := tx.Events[i].Exercised
		if x == nil {
			continue
		}
		var stake bool
		if c := created[x.ContractID]; c != nil && c.ID != "" {
			stake = slices.Contains(c.Stakeholders(), reader)
		} else if x.Consuming {
			stake = js.Events[i].ExercisedEvent.AcsDelta
		}
		if stake {
			x.Stakeholders = []daml.Party{reader}
		}
	}
	rebuildTree(tx)
	return tx, nil
}

func decodeEvent(e *ledgerapi.Event, tx *ledger.Transaction, reg *ledger.Registry, created map[daml.ContractID]*ledger.Contract) (ledger.Event, error) {
	switch {
	case e.CreatedEvent != nil:
		ce := e.CreatedEvent
		tid, err := templateID(ce.TemplateID, reg)
		if err != nil {
			return ledger.Event{}, err
		}
		typ, err := reg.PayloadType(tid.Identifier)
		if err != nil {
			return ledger.Event{}, err
		}
		v, err := decodeValue(ce.CreateArgument, typ)
		if err != nil {
			return ledger.Event{}, wrapDecode(err, "createArgument of %s", ce.ContractID)
		}
		arg, ok := v.(*daml.Record)
		if !ok {
			return ledger.Event{}, fault.New(fault.Internal, "createArgument of %s is not a record", ce.ContractID)
		}
		at, err := daml.ParseTimestamp(ce.CreatedAt)
		if err != nil {
			return ledger.Event{}, wrapDecode(err, "createdAt of %s", ce.ContractID)
		}
		c := &ledger.Contract{
			ID: daml.ContractID(ce.ContractID), Template: tid, Argument: arg,
			Signatories: ce.Signatories, Observers: ce.Observers, CreatedAt: at,
			CreatedBy: tx.UpdateID, Synchronizer: tx.Synchronizer, MigrationID: tx.MigrationID,
		}
		created[c.ID] = c
		return ledger.Event{NodeID: ce.NodeID, Created: c, Witnesses: ce.WitnessParties}, nil
	case e.ExercisedEvent != nil:
		xe := e.ExercisedEvent
		tid, err := templateID(xe.TemplateID, reg)
		if err != nil {
			return ledger.Event{}, err
		}
		argType, resType, err := reg.ChoiceTypes(tid.Identifier, xe.Choice)
		if err != nil {
			return ledger.Event{}, err
		}
		arg, err := decodeValue(xe.ChoiceArgument, argType)
		if err != nil {
			return ledger.Event{}, wrapDecode(err, "choiceArgument of %s on %s", xe.Choice, xe.ContractID)
		}
		res, err := decodeValue(xe.ExerciseResult, resType)
		if err != nil {
			return ledger.Event{}, wrapDecode(err, "exerciseResult of %s on %s", xe.Choice, xe.ContractID)
		}
		x := &ledger.Exercised{
			ContractID: daml.ContractID(xe.ContractID), Template: tid, Choice: xe.Choice,
			ChoiceArgument: arg, ActingParties: xe.ActingParties, Consuming: xe.Consuming,
			LastDescendant: xe.LastDescendantNodeID, ExerciseResult: res,
		}
		if xe.InterfaceID != nil {
			id, err := parseIdentifier(*xe.InterfaceID)
			if err != nil {
				return ledger.Event{}, err
			}
			x.Interface = &id
		}
		if xe.LastDescendantNodeID < xe.NodeID {
			return ledger.Event{}, fault.New(fault.Internal, "node %d: last descendant %d before it", xe.NodeID, xe.LastDescendantNodeID)
		}
		return ledger.Event{NodeID: xe.NodeID, Exercised: x, Witnesses: xe.WitnessParties}, nil
	}
	return ledger.Event{}, fault.New(fault.Internal, "an event of the LEDGER_EFFECTS shape is created or exercised")
}

// rebuildTree sets the roots and every exercise's children from the
// nesting of node ids: a node belongs to the innermost exercise whose
// (nodeId, lastDescendantNodeId] holds it. A projection keeps every
// descendant of a node it keeps (witnesses are inherited), so the
// children are complete.
func rebuildTree(tx *ledger.Transaction) {
	var stack []*ledger.Exercised
	for i := range tx.Events {
		e := &tx.Events[i]
		for len(stack) > 0 && stack[len(stack)-1].LastDescendant < e.NodeID {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			tx.Roots = append(tx.Roots, e.NodeID)
		} else {
			parent := stack[len(stack)-1]
			parent.Children = append(parent.Children, e.NodeID)
		}
		if x := e.Exercised; x != nil {
			x.Children = []int32{}
			stack = append(stack, x)
		}
	}
}

// templateID resolves "<package id>:<module>:<entity>" to a registered
// template.
func templateID(s string, reg *ledger.Registry) (ledger.TemplateID, error) {
	id, err := parseIdentifier(s)
	if err != nil {
		return ledger.TemplateID{}, err
	}
	t, ok := reg.Template(id)
	if !ok {
		return ledger.TemplateID{}, fault.New(fault.Internal, "template %s is not in the registry", s)
	}
	return t, nil
}

func parseIdentifier(s string) (daml.Identifier, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return daml.Identifier{}, fault.New(fault.Internal, "malformed identifier %q", s)
	}
	return daml.Identifier{PackageID: parts[0], ModuleName: parts[1], EntityName: parts[2]}, nil
}

// traceContextOf returns the submission's trace context. sandnet's ledger
// API derives a traceparent from the update id for an update submitted
// without one; that one decodes as none.
func traceContextOf(js *ledgerapi.JsTransaction) ledger.TraceContext {
	return decodeTraceContext(js.UpdateID, js.TraceContext)
}

// decodeTraceContext decodes the trace context of update updateID.
func decodeTraceContext(updateID string, js *ledgerapi.TraceContext) ledger.TraceContext {
	var tc ledger.TraceContext
	if js == nil {
		return tc
	}
	if tp := js.TraceParent; tp != nil && *tp != derivedTraceParent(updateID) {
		tc.TraceParent = *tp
	}
	if ts := js.TraceState; ts != nil {
		tc.TraceState = *ts
	}
	return tc
}

// derivedTraceParent is the traceparent sandnet's ledger API serves for an
// update submitted without a trace context.
func derivedTraceParent(updateID string) string {
	h := sha256.Sum256([]byte("sandnet/trace\x00" + updateID))
	return "00-" + hex.EncodeToString(h[:16]) + "-" + hex.EncodeToString(h[16:24]) + "-01"
}
