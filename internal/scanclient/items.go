package scanclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// This file decodes the items of the Scan's update history, the inverse of
// the Scan API's renderer (internal/api/scanapi/render.go): rendering a
// decoded item again, in the same version and encoding, gives the item
// byte for byte (the tests check it on a real history). What the wire does
// not carry cannot be decoded, and is left zero:
//
//   - node ids: an item numbers the nodes of the DSO party's projection
//     0..N-1 in pre-order, and the decoded node ids are those numbers, not
//     the node ids of the full transaction tree;
//   - the transaction's Submission and TraceContext, the events'
//     Witnesses and an exercise's Stakeholders (so a consuming exercise
//     does not say whether it archives a contract of the DSO party: the
//     caller tells from its active contract set);
//   - of a reassignment, its CommandID, WorkflowID and TraceContext, and,
//     of an unassignment, the contract but for its id (its Synchronizer is
//     set to the source);
//   - the creating update of an imported or assigned contract (CreatedBy
//     is left empty) and the migration it was created in (MigrationID is
//     the import's or the assignment's), and an imported contract's
//     reassignment counter (0);
//   - the v1 offset, a constant, and external_transaction_hash, which
//     sandnet's Scan never writes (both ignored).

// historyItem is an item of the history in either shape: a transaction
// (UpdateHistoryTransaction, with events_by_id) or a reassignment
// (UpdateHistoryReassignment, with event). Fields a client has no use
// for (offset, external_transaction_hash) are ignored.
type historyItem struct {
	UpdateID       string                     `json:"update_id"`
	MigrationID    *int64                     `json:"migration_id"`
	WorkflowID     string                     `json:"workflow_id"`
	RecordTime     string                     `json:"record_time"`
	SynchronizerID string                     `json:"synchronizer_id"`
	EffectiveAt    string                     `json:"effective_at"`
	RootEventIDs   []string                   `json:"root_event_ids"`
	EventsByID     map[string]json.RawMessage `json:"events_by_id"`
	Event          json.RawMessage            `json:"event"`
}

// treeEvent is a node of a transaction: a created_event or an
// exercised_event.
type treeEvent struct {
	EventType   string `json:"event_type"`
	EventID     string `json:"event_id"`
	ContractID  string `json:"contract_id"`
	TemplateID  string `json:"template_id"`
	PackageName string `json:"package_name"`
	// created_event
	CreateArguments json.RawMessage `json:"create_arguments"`
	CreatedAt       string          `json:"created_at"`
	Signatories     []string        `json:"signatories"`
	Observers       []string        `json:"observers"`
	// exercised_event
	Choice         string          `json:"choice"`
	ChoiceArgument json.RawMessage `json:"choice_argument"`
	ChildEventIDs  []string        `json:"child_event_ids"`
	ExerciseResult json.RawMessage `json:"exercise_result"`
	Consuming      bool            `json:"consuming"`
	ActingParties  []string        `json:"acting_parties"`
	InterfaceID    string          `json:"interface_id"`
}

// reassignmentEvent is the event of a reassignment: an assignment (with
// created_event) or an unassignment (with contract_id).
type reassignmentEvent struct {
	Submitter           string     `json:"submitter"`
	SourceSynchronizer  string     `json:"source_synchronizer"`
	TargetSynchronizer  string     `json:"target_synchronizer"`
	MigrationID         *int64     `json:"migration_id"`
	UnassignID          string     `json:"unassign_id"`
	CreatedEvent        *treeEvent `json:"created_event"`
	ReassignmentCounter *int64     `json:"reassignment_counter"`
	ContractID          string     `json:"contract_id"`
}

// DecodeUpdate decodes an item of the Scan's update history with its Daml
// values in protobuf_json, which is self-describing: a v1 or v2 item of
// /v1/updates or /v2/updates, or an item of the backfilling reads. The
// update has no offset, Created or Archived; an item whose record time is
// the minimum time is an import update (Import set, RecordTime
// daml.MinTimestamp). Items in compact_json cannot be decoded without
// their types, and fail. It never panics.
func DecodeUpdate(item []byte) (scan.Update, error) {
	var it historyItem
	if err := json.Unmarshal(item, &it); err != nil {
		return scan.Update{}, fmt.Errorf("not a history item: %w", err)
	}
	if it.UpdateID == "" {
		return scan.Update{}, fmt.Errorf("no update_id")
	}
	rt, err := daml.ParseTimestamp(it.RecordTime)
	if err != nil {
		return scan.Update{}, fmt.Errorf("update %s: record_time: %w", it.UpdateID, err)
	}
	if it.Event != nil {
		r, err := decodeReassignment(&it, rt)
		if err != nil {
			return scan.Update{}, fmt.Errorf("reassignment %s: %w", it.UpdateID, err)
		}
		return scan.Update{Reassignment: r}, nil
	}
	t, err := decodeTransaction(&it, rt)
	if err != nil {
		return scan.Update{}, fmt.Errorf("transaction %s: %w", it.UpdateID, err)
	}
	// An import update has no record time: Splice writes the minimum
	// time, which no other update can have.
	imported := rt == daml.MinTimestamp
	if imported {
		// An imported contract was created in an earlier migration, by an
		// update the item does not name.
		for i := range t.Events {
			if c := t.Events[i].Created; c != nil {
				c.CreatedBy = ""
			}
		}
	}
	return scan.Update{Transaction: t, Import: imported}, nil
}

func decodeTransaction(it *historyItem, rt daml.Timestamp) (*ledger.Transaction, error) {
	if it.MigrationID == nil {
		return nil, fmt.Errorf("no migration_id")
	}
	if it.SynchronizerID == "" {
		return nil, fmt.Errorf("no synchronizer_id")
	}
	if it.RootEventIDs == nil || it.EventsByID == nil {
		return nil, fmt.Errorf("no root_event_ids or events_by_id")
	}
	eff, err := daml.ParseTimestamp(it.EffectiveAt)
	if err != nil {
		return nil, fmt.Errorf("effective_at: %w", err)
	}
	t := &ledger.Transaction{
		UpdateID: it.UpdateID, WorkflowID: it.WorkflowID, Synchronizer: ledger.SynchronizerID(it.SynchronizerID),
		MigrationID: *it.MigrationID, RecordTime: rt, EffectiveAt: eff,
		Events: make([]ledger.Event, len(it.EventsByID)),
	}
	n := len(it.EventsByID)
	// The nodes are numbered 0..n-1 in pre-order: a node's number is its
	// index in Events, and the walk below checks that the tree visits every
	// node once, in that order, so that the numbers are what the renderer
	// would give them.
	node := func(id string) (int32, error) {
		k, ok := eventNumber(it.UpdateID, id)
		if !ok || k >= n {
			return 0, fmt.Errorf("event id %q is not %s:<0..%d>", id, it.UpdateID, n-1)
		}
		return int32(k), nil
	}
	for id, raw := range it.EventsByID {
		k, err := node(id)
		if err != nil {
			return nil, err
		}
		e, err := decodeTreeEvent(raw, id, node)
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", id, err)
		}
		e.NodeID = k
		if c := e.Created; c != nil {
			c.CreatedBy, c.Synchronizer, c.MigrationID = t.UpdateID, t.Synchronizer, t.MigrationID
		}
		t.Events[k] = e
	}
	next := int32(0)
	var walk func(id int32) error
	walk = func(id int32) error {
		if id != next {
			return fmt.Errorf("event %s:%d is not numbered in pre-order (want %d)", t.UpdateID, id, next)
		}
		next++
		x := t.Events[id].Exercised
		if x == nil {
			return nil
		}
		for _, c := range x.Children {
			if err := walk(c); err != nil {
				return err
			}
		}
		x.LastDescendant = next - 1
		return nil
	}
	for _, r := range it.RootEventIDs {
		k, err := node(r)
		if err != nil {
			return nil, fmt.Errorf("root: %w", err)
		}
		t.Roots = append(t.Roots, k)
		if err := walk(k); err != nil {
			return nil, err
		}
	}
	if int(next) != n {
		return nil, fmt.Errorf("%d of its %d events are not reachable from its roots", n-int(next), n)
	}
	if t.Roots == nil {
		t.Roots = []int32{}
	}
	return t, nil
}

// eventNumber returns n of an event id "<update id>:<n>", n written as the
// renderer writes it (decimal, no sign, no leading zero).
func eventNumber(updateID, id string) (int, bool) {
	s, ok := strings.CutPrefix(id, updateID+":")
	if !ok || s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 0 || strconv.Itoa(k) != s {
		return 0, false
	}
	return k, true
}

// decodeTreeEvent decodes a node whose event id is id; node maps the ids
// of its children to node ids.
func decodeTreeEvent(raw []byte, id string, node func(string) (int32, error)) (ledger.Event, error) {
	var ev treeEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return ledger.Event{}, err
	}
	if ev.EventID != id {
		return ledger.Event{}, fmt.Errorf("event_id %q under the key %q", ev.EventID, id)
	}
	switch ev.EventType {
	case "created_event":
		c, err := decodeCreated(&ev)
		if err != nil {
			return ledger.Event{}, err
		}
		return ledger.Event{Created: c}, nil
	case "exercised_event":
		x, err := decodeExercised(&ev, node)
		if err != nil {
			return ledger.Event{}, err
		}
		return ledger.Event{Exercised: x}, nil
	}
	return ledger.Event{}, fmt.Errorf("event_type %q is neither created_event nor exercised_event", ev.EventType)
}

func decodeCreated(ev *treeEvent) (*ledger.Contract, error) {
	tpl, err := templateID(ev.TemplateID, ev.PackageName)
	if err != nil {
		return nil, err
	}
	if ev.ContractID == "" {
		return nil, fmt.Errorf("no contract_id")
	}
	v, err := decodeValue("create_arguments", ev.CreateArguments)
	if err != nil {
		return nil, err
	}
	arg, ok := v.(*daml.Record)
	if !ok {
		return nil, fmt.Errorf("create_arguments is a %T, not a record", v)
	}
	at, err := daml.ParseTimestamp(ev.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("created_at: %w", err)
	}
	if ev.Signatories == nil || ev.Observers == nil {
		return nil, fmt.Errorf("no signatories or observers")
	}
	return &ledger.Contract{
		ID: daml.ContractID(ev.ContractID), Template: tpl, Argument: arg,
		Signatories: partyList(ev.Signatories), Observers: partyList(ev.Observers), CreatedAt: at,
	}, nil
}

func decodeExercised(ev *treeEvent, node func(string) (int32, error)) (*ledger.Exercised, error) {
	tpl, err := templateID(ev.TemplateID, ev.PackageName)
	if err != nil {
		return nil, err
	}
	if ev.ContractID == "" || ev.Choice == "" {
		return nil, fmt.Errorf("no contract_id or choice")
	}
	if ev.ChildEventIDs == nil || ev.ActingParties == nil {
		return nil, fmt.Errorf("no child_event_ids or acting_parties")
	}
	x := &ledger.Exercised{
		ContractID: daml.ContractID(ev.ContractID), Template: tpl, Choice: ev.Choice,
		ActingParties: partyList(ev.ActingParties), Consuming: ev.Consuming, Children: []int32{},
	}
	if x.ChoiceArgument, err = decodeValue("choice_argument", ev.ChoiceArgument); err != nil {
		return nil, err
	}
	if x.ExerciseResult, err = decodeValue("exercise_result", ev.ExerciseResult); err != nil {
		return nil, err
	}
	if ev.InterfaceID != "" {
		id, err := identifier(ev.InterfaceID)
		if err != nil {
			return nil, fmt.Errorf("interface_id: %w", err)
		}
		x.Interface = &id
	}
	for _, c := range ev.ChildEventIDs {
		k, err := node(c)
		if err != nil {
			return nil, fmt.Errorf("child: %w", err)
		}
		x.Children = append(x.Children, k)
	}
	return x, nil
}

func decodeReassignment(it *historyItem, rt daml.Timestamp) (*ledger.Reassignment, error) {
	var ev reassignmentEvent
	if err := json.Unmarshal(it.Event, &ev); err != nil {
		return nil, fmt.Errorf("event: %w", err)
	}
	if ev.MigrationID == nil || ev.ReassignmentCounter == nil {
		return nil, fmt.Errorf("no migration_id or reassignment_counter")
	}
	if ev.SourceSynchronizer == "" || ev.TargetSynchronizer == "" || ev.UnassignID == "" {
		return nil, fmt.Errorf("no source_synchronizer, target_synchronizer or unassign_id")
	}
	r := &ledger.Reassignment{
		UpdateID: it.UpdateID, RecordTime: rt, Submitter: daml.Party(ev.Submitter),
		Source: ledger.SynchronizerID(ev.SourceSynchronizer), Target: ledger.SynchronizerID(ev.TargetSynchronizer),
		MigrationID: *ev.MigrationID, UnassignID: ev.UnassignID, Counter: *ev.ReassignmentCounter,
	}
	switch {
	case ev.CreatedEvent != nil && ev.ContractID == "":
		if want := it.UpdateID + ":0"; ev.CreatedEvent.EventID != want || ev.CreatedEvent.EventType != "created_event" {
			return nil, fmt.Errorf("the assignment's created_event is not the created_event %s", want)
		}
		c, err := decodeCreated(ev.CreatedEvent)
		if err != nil {
			return nil, fmt.Errorf("created_event: %w", err)
		}
		// The contract as it is on the target (see ledger.Reassignment).
		c.Synchronizer, c.MigrationID, c.ReassignmentCounter = r.Target, r.MigrationID, r.Counter
		r.Kind, r.Contract = ledger.Assigned, c
	case ev.CreatedEvent == nil && ev.ContractID != "":
		// An unassignment names the contract only.
		r.Kind = ledger.Unassigned
		r.Contract = &ledger.Contract{ID: daml.ContractID(ev.ContractID), Synchronizer: r.Source}
	default:
		return nil, fmt.Errorf("event has neither a created_event (assignment) nor a contract_id (unassignment), or both")
	}
	return r, nil
}

// decodeValue decodes a protobuf_json value, which is self-describing.
func decodeValue(field string, raw json.RawMessage) (daml.Value, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, fmt.Errorf("no %s", field)
	}
	v, err := daml.ProtobufJSON.Decode(raw, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return v, nil
}

// identifier parses "package:Module:Entity".
func identifier(s string) (daml.Identifier, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return daml.Identifier{}, fmt.Errorf("%q is not package:Module:Entity", s)
	}
	return daml.Identifier{PackageID: parts[0], ModuleName: parts[1], EntityName: parts[2]}, nil
}

func templateID(s, pkgName string) (ledger.TemplateID, error) {
	id, err := identifier(s)
	if err != nil {
		return ledger.TemplateID{}, fmt.Errorf("template_id: %w", err)
	}
	return ledger.TemplateID{Identifier: id, PackageName: pkgName}, nil
}

// partyList converts the wire's parties, which the renderer sorted.
func partyList(ps []string) []daml.Party {
	out := make([]daml.Party, len(ps))
	for i, p := range ps {
		out[i] = daml.Party(p)
	}
	return out
}
