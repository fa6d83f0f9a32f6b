package scanapi

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// v1Offset is the offset every v1 item reports: Splice hard-codes it so
// that v1 answers are the same on every SV's Scan.
const v1Offset = "000000000000000001"

// importWorkflowPrefix starts the workflow id of an ACS import update.
const importWorkflowPrefix = "canton-network-acs-import-"

// historyVersion selects the wire differences of the update-history
// versions.
type historyVersion int

const (
	historyV1 historyVersion = 1
	historyV2 historyVersion = 2
)

// UpdateItem is a transaction of the update history (v1 UpdateHistoryTransaction
// or v2 UpdateHistoryTransactionV2; v2 has no offset).
type UpdateItem struct {
	UpdateID                string                     `json:"update_id"`
	MigrationID             int64                      `json:"migration_id"`
	WorkflowID              string                     `json:"workflow_id"`
	RecordTime              string                     `json:"record_time"`
	SynchronizerID          string                     `json:"synchronizer_id"`
	EffectiveAt             string                     `json:"effective_at"`
	Offset                  string                     `json:"offset,omitempty"`
	RootEventIDs            []string                   `json:"root_event_ids"`
	EventsByID              map[string]json.RawMessage `json:"events_by_id"`
	ExternalTransactionHash string                     `json:"external_transaction_hash,omitempty"`
}

// ReassignmentItem is an unassignment or an assignment of the update
// history (UpdateHistoryReassignment, the same in v1 and v2). It has no
// migration id of its own: the event's is that of the synchronizer that
// recorded it.
type ReassignmentItem struct {
	UpdateID   string `json:"update_id"`
	Offset     string `json:"offset"`
	RecordTime string `json:"record_time"`
	// Event is an *AssignmentEvent or an *UnassignmentEvent.
	Event any `json:"event"`
}

// AssignmentEvent is a contract's arrival on its target synchronizer
// (UpdateHistoryAssignment).
type AssignmentEvent struct {
	Submitter           string        `json:"submitter"`
	SourceSynchronizer  string        `json:"source_synchronizer"`
	TargetSynchronizer  string        `json:"target_synchronizer"`
	MigrationID         int64         `json:"migration_id"`
	UnassignID          string        `json:"unassign_id"`
	CreatedEvent        *CreatedEvent `json:"created_event"`
	ReassignmentCounter int64         `json:"reassignment_counter"`
}

// UnassignmentEvent is a contract's departure from its source
// synchronizer (UpdateHistoryUnassignment).
type UnassignmentEvent struct {
	Submitter           string `json:"submitter"`
	SourceSynchronizer  string `json:"source_synchronizer"`
	MigrationID         int64  `json:"migration_id"`
	TargetSynchronizer  string `json:"target_synchronizer"`
	UnassignID          string `json:"unassign_id"`
	ReassignmentCounter int64  `json:"reassignment_counter"`
	ContractID          string `json:"contract_id"`
}

// renderReassignment renders a reassignment of the history. Its offset is
// Splice's constant in v1 and v2 alike; the assignment's created event is
// numbered as the only node of its update.
func renderReassignment(r *ledger.Reassignment, codec daml.Codec) (*ReassignmentItem, error) {
	item := &ReassignmentItem{UpdateID: r.UpdateID, Offset: v1Offset, RecordTime: r.RecordTime.MicrosString()}
	if r.Kind == ledger.Assigned {
		ev, err := createdEvent(r.Contract, r.UpdateID+":0", codec)
		if err != nil {
			return nil, err
		}
		item.Event = &AssignmentEvent{
			Submitter: string(r.Submitter), SourceSynchronizer: string(r.Source), TargetSynchronizer: string(r.Target),
			MigrationID: r.MigrationID, UnassignID: r.UnassignID, CreatedEvent: ev, ReassignmentCounter: r.Counter,
		}
		return item, nil
	}
	item.Event = &UnassignmentEvent{
		Submitter: string(r.Submitter), SourceSynchronizer: string(r.Source), MigrationID: r.MigrationID,
		TargetSynchronizer: string(r.Target), UnassignID: r.UnassignID, ReassignmentCounter: r.Counter,
		ContractID: string(r.Contract.ID),
	}
	return item, nil
}

// CreatedEvent is a tree node creating a contract; also the item of the
// v0 ACS.
type CreatedEvent struct {
	EventType       string          `json:"event_type"`
	EventID         string          `json:"event_id"`
	ContractID      string          `json:"contract_id"`
	TemplateID      string          `json:"template_id"`
	PackageName     string          `json:"package_name"`
	CreateArguments json.RawMessage `json:"create_arguments"`
	CreatedAt       string          `json:"created_at"`
	Signatories     []string        `json:"signatories"`
	Observers       []string        `json:"observers"`
}

// ExercisedEvent is a tree node exercising a choice.
type ExercisedEvent struct {
	EventType      string          `json:"event_type"`
	EventID        string          `json:"event_id"`
	ContractID     string          `json:"contract_id"`
	TemplateID     string          `json:"template_id"`
	PackageName    string          `json:"package_name"`
	Choice         string          `json:"choice"`
	ChoiceArgument json.RawMessage `json:"choice_argument"`
	ChildEventIDs  []string        `json:"child_event_ids"`
	ExerciseResult json.RawMessage `json:"exercise_result"`
	Consuming      bool            `json:"consuming"`
	ActingParties  []string        `json:"acting_parties"`
	InterfaceID    string          `json:"interface_id,omitempty"`
}

// ActiveContract is a contract of an ACS snapshot (v1 and v2), in the
// shape the scan client reads back.
type ActiveContract = splicewire.ActiveContract

func parties(ps []daml.Party) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	slices.Sort(out)
	return out
}

func encode(codec daml.Codec, v daml.Value) (json.RawMessage, error) {
	if v == nil {
		v = daml.Unit{}
	}
	b, err := codec.Encode(v)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode a Daml value")
	}
	return b, nil
}

// numbering maps the node ids of a projected transaction to the v1 event
// numbers: 0..N-1 in pre-order over the roots and their children.
func numbering(t *ledger.Transaction) map[int32]int {
	out := make(map[int32]int, len(t.Events))
	var walk func(id int32)
	walk = func(id int32) {
		if _, seen := out[id]; seen {
			return
		}
		out[id] = len(out)
		e := t.Event(id)
		if e == nil || e.Exercised == nil {
			return
		}
		for _, c := range e.Exercised.Children {
			walk(c)
		}
	}
	for _, r := range t.Roots {
		walk(r)
	}
	return out
}

// renderUpdate renders an update of the history as the v1 or v2 item: an
// *UpdateItem for a transaction, a *ReassignmentItem for a reassignment.
func renderUpdate(u *scan.Update, v historyVersion, codec daml.Codec) (any, error) {
	if u.Reassignment != nil {
		return renderReassignment(u.Reassignment, codec)
	}
	return renderTransaction(u, v, codec)
}

// renderTransaction renders a transaction of the history.
func renderTransaction(u *scan.Update, v historyVersion, codec daml.Codec) (*UpdateItem, error) {
	t := u.Transaction
	num := numbering(t)
	id := func(node int32) string { return t.UpdateID + ":" + strconv.Itoa(num[node]) }
	item := &UpdateItem{
		UpdateID: t.UpdateID, MigrationID: t.MigrationID, WorkflowID: t.WorkflowID,
		RecordTime: t.RecordTime.MicrosString(), SynchronizerID: string(t.Synchronizer),
		EffectiveAt: t.EffectiveAt.String(), RootEventIDs: []string{}, EventsByID: map[string]json.RawMessage{},
	}
	if u.Import {
		item.RecordTime = daml.MinTimestamp.MicrosString()
		if item.WorkflowID == "" {
			item.WorkflowID = importWorkflowPrefix + t.UpdateID
		}
	}
	if v == historyV1 {
		item.Offset = v1Offset
	}
	for _, r := range t.Roots {
		item.RootEventIDs = append(item.RootEventIDs, id(r))
	}
	for i := range t.Events {
		e := &t.Events[i]
		if _, ok := num[e.NodeID]; !ok {
			continue // not reachable from a root: cannot happen in a projection
		}
		var node any
		if c := e.Created; c != nil {
			ev, err := createdEvent(c, id(e.NodeID), codec)
			if err != nil {
				return nil, err
			}
			node = ev
		} else if x := e.Exercised; x != nil {
			arg, err := encode(codec, x.ChoiceArgument)
			if err != nil {
				return nil, err
			}
			res, err := encode(codec, x.ExerciseResult)
			if err != nil {
				return nil, err
			}
			ev := &ExercisedEvent{
				EventType: "exercised_event", EventID: id(e.NodeID), ContractID: string(x.ContractID),
				TemplateID: x.Template.Identifier.String(), PackageName: x.Template.PackageName,
				Choice: x.Choice, ChoiceArgument: arg, ChildEventIDs: []string{}, ExerciseResult: res,
				Consuming: x.Consuming, ActingParties: parties(x.ActingParties),
			}
			for _, c := range x.Children {
				ev.ChildEventIDs = append(ev.ChildEventIDs, id(c))
			}
			if x.Interface != nil {
				ev.InterfaceID = x.Interface.String()
			}
			node = ev
		} else {
			continue
		}
		b, err := json.Marshal(node)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "encode an event")
		}
		item.EventsByID[id(e.NodeID)] = b
	}
	return item, nil
}

func createdEvent(c *ledger.Contract, eventID string, codec daml.Codec) (*CreatedEvent, error) {
	arg, err := encode(codec, c.Argument)
	if err != nil {
		return nil, err
	}
	return &CreatedEvent{
		EventType: "created_event", EventID: eventID, ContractID: string(c.ID),
		TemplateID: c.Template.Identifier.String(), PackageName: c.Template.PackageName,
		CreateArguments: arg, CreatedAt: c.CreatedAt.String(),
		Signatories: parties(c.Signatories), Observers: parties(c.Observers),
	}, nil
}

func activeContract(row scan.SnapshotRow) (*ActiveContract, error) {
	c := row.Contract
	arg, err := encode(daml.CompactJSON, c.Argument)
	if err != nil {
		return nil, err
	}
	out := &ActiveContract{
		ContractID: string(c.ID), TemplateID: c.Template.Identifier.String(), PackageName: c.Template.PackageName,
		CreateArguments: arg, CreatedAt: c.CreatedAt.String(),
		Signatories: parties(c.Signatories), Observers: parties(c.Observers),
	}
	if !row.Imported {
		out.CreatedInUpdateID = c.CreatedBy
	}
	return out, nil
}

// RenderUpdate renders an update of the history as the Scan serves it:
// the v1 item (version 1; also the item of the backfilling reads, with
// codec daml.ProtobufJSON) or the v2 item (version 2), Daml values in
// codec. It exists so that a client decoding the history (a backfilling
// Scan's peers) can check that its decoding is the renderer's inverse.
func RenderUpdate(u *scan.Update, version int, codec daml.Codec) ([]byte, error) {
	v := historyV2
	if version == 1 {
		v = historyV1
	}
	item, err := renderUpdate(u, v, codec)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(item)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode an update")
	}
	return b, nil
}
