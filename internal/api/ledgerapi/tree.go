package ledgerapi

import (
	"strconv"
)

// The deprecated transaction trees of POST /v2/updates/trees. A tree is
// the LEDGER_EFFECTS transaction the updates list renders, with its events
// keyed by node id instead of listed: the list's reader, projection and
// checks serve it, and only the last step, the wrapping, differs. Offset
// checkpoints are encoded as in the updates list.

// JsGetUpdateTreesResponse is one element of the trees list.
type JsGetUpdateTreesResponse struct {
	Update UpdateTree `json:"update"`
}

// UpdateTree is the trees list's Update one-of; exactly one field is set.
type UpdateTree struct {
	OffsetCheckpoint *Wrapped[OffsetCheckpoint]  `json:"OffsetCheckpoint,omitempty"`
	TransactionTree  *Wrapped[JsTransactionTree] `json:"TransactionTree,omitempty"`
	// Reassignment is rendered as in the updates list.
	Reassignment *Wrapped[JsReassignment] `json:"Reassignment,omitempty"`
}

// JsTransactionTree is a transaction as a tree of events.
type JsTransactionTree struct {
	UpdateID       string        `json:"updateId"`
	CommandID      string        `json:"commandId"`
	WorkflowID     string        `json:"workflowId"`
	EffectiveAt    string        `json:"effectiveAt"`
	Offset         int64         `json:"offset"`
	EventsByID     TreeEvents    `json:"eventsById"`
	SynchronizerID string        `json:"synchronizerId"`
	TraceContext   *TraceContext `json:"traceContext"`
	RecordTime     string        `json:"recordTime"`
}

// TreeEvent is the TreeEvent one-of; exactly one field is set.
type TreeEvent struct {
	CreatedTreeEvent   *Wrapped[CreatedEvent]   `json:"CreatedTreeEvent,omitempty"`
	ExercisedTreeEvent *Wrapped[ExercisedEvent] `json:"ExercisedTreeEvent,omitempty"`
}

// nodeID is the event's node id.
func (e TreeEvent) nodeID() int32 {
	if e.CreatedTreeEvent != nil {
		return e.CreatedTreeEvent.Value.NodeID
	}
	return e.ExercisedTreeEvent.Value.NodeID
}

// TreeEvents are a tree's events in node order, encoded as an object
// keyed by node id, in that order (not in the string order of the keys).
type TreeEvents []TreeEvent

// MarshalJSON encodes the events as {"<nodeId>": event, …}.
func (t TreeEvents) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, e := range t {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(e.nodeID()), 10)
		b = append(b, '"', ':')
		v, err := marshal(e)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// treeOf is the tree of a rendered LEDGER_EFFECTS transaction, whose
// events are in node order.
func treeOf(tx *JsTransaction) JsTransactionTree {
	events := make(TreeEvents, 0, len(tx.Events))
	for _, e := range tx.Events {
		switch {
		case e.CreatedEvent != nil:
			events = append(events, TreeEvent{CreatedTreeEvent: &Wrapped[CreatedEvent]{Value: *e.CreatedEvent}})
		case e.ExercisedEvent != nil:
			events = append(events, TreeEvent{ExercisedTreeEvent: &Wrapped[ExercisedEvent]{Value: *e.ExercisedEvent}})
		}
	}
	return JsTransactionTree{
		UpdateID: tx.UpdateID, CommandID: tx.CommandID, WorkflowID: tx.WorkflowID, EffectiveAt: tx.EffectiveAt,
		Offset: tx.Offset, EventsByID: events, SynchronizerID: tx.SynchronizerID, TraceContext: tx.TraceContext,
		RecordTime: tx.RecordTime,
	}
}

// treeUpdate is an update of the updates list as the trees list shows it:
// a transaction as its tree, a reassignment as it is. The tree one-of has
// no topology case, and the projector renders no topology events for the
// trees list.
func treeUpdate(u Update) UpdateTree {
	if u.Transaction != nil {
		return UpdateTree{TransactionTree: &Wrapped[JsTransactionTree]{Value: treeOf(&u.Transaction.Value)}}
	}
	return UpdateTree{Reassignment: u.Reassignment, OffsetCheckpoint: u.OffsetCheckpoint}
}
