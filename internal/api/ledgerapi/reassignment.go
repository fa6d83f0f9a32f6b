package ledgerapi

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Reassignments in the updates lists: an unassignment or an assignment of
// a contract, rendered as Canton's JsReassignment for the requests whose
// includeReassignments (or deprecated filter) selects the contract. The
// event format applies the ACS_DELTA rule: a reassignment is shown to the
// listed parties among the contract's stakeholders whose filter matches
// its template (or to any party through filtersForAnyParty), and only when
// the participant hosts one of its stakeholders.

// JsReassignment is a reassignment as a reader sees it.
type JsReassignment struct {
	UpdateID        string                `json:"updateId"`
	CommandID       string                `json:"commandId"`
	WorkflowID      string                `json:"workflowId"`
	Offset          int64                 `json:"offset"`
	Events          []JsReassignmentEvent `json:"events"`
	TraceContext    *TraceContext         `json:"traceContext"`
	RecordTime      string                `json:"recordTime"`
	SynchronizerID  string                `json:"synchronizerId"`
	PaidTrafficCost *int64                `json:"paidTrafficCost"`
}

// JsReassignmentEvent is the JsReassignmentEvent one-of; exactly one field
// is set. As in Canton the two cases differ: the assignment is not
// wrapped, the unassignment is, under "value".
type JsReassignmentEvent struct {
	JsAssignmentEvent *JsAssignmentEvent        `json:"JsAssignmentEvent,omitempty"`
	JsUnassignedEvent *Wrapped[UnassignedEvent] `json:"JsUnassignedEvent,omitempty"`
}

// JsAssignmentEvent is the arrival of a contract on its target
// synchronizer, with the contract's creation as it is there.
type JsAssignmentEvent struct {
	Source              string        `json:"source"`
	Target              string        `json:"target"`
	ReassignmentID      string        `json:"reassignmentId"`
	Submitter           string        `json:"submitter"`
	ReassignmentCounter int64         `json:"reassignmentCounter"`
	CreatedEvent        *CreatedEvent `json:"createdEvent"`
}

// UnassignedEvent is the departure of a contract from its source
// synchronizer.
type UnassignedEvent struct {
	ReassignmentID        string       `json:"reassignmentId"`
	ContractID            string       `json:"contractId"`
	TemplateID            string       `json:"templateId"`
	Source                string       `json:"source"`
	Target                string       `json:"target"`
	Submitter             string       `json:"submitter"`
	ReassignmentCounter   int64        `json:"reassignmentCounter"`
	AssignmentExclusivity *string      `json:"assignmentExclusivity"`
	WitnessParties        []daml.Party `json:"witnessParties"`
	PackageName           string       `json:"packageName"`
	Offset                int64        `json:"offset"`
	NodeID                int32        `json:"nodeId"`
}

// reassignmentMatch is what the request's reassignment format says about
// r: the filters that select its contract and the stakeholders shown as
// witnesses. It selects nothing when the request asks for no
// reassignments or the participant hosts none of the stakeholders.
func (pr *projector) reassignmentMatch(r *ledger.Reassignment) match {
	sel := pr.plan.reassignments
	if sel == nil || r.Contract == nil {
		return match{}
	}
	c := r.Contract
	stakeholders := c.Stakeholders()
	if !intersects(stakeholders, pr.hosted) {
		return match{}
	}
	return pr.selectWith(sel, c.Template, stakeholders, true)
}

// reassignment renders r as the request selects it, or nil when it does
// not. The event is node 0 of its update, as Canton numbers the events of
// a reassignment batch.
func (pr *projector) reassignment(offset ledger.Offset, r *ledger.Reassignment) (*JsReassignment, error) {
	m := pr.reassignmentMatch(r)
	if !m.ok() {
		return nil, nil
	}
	c := r.Contract
	var ev JsReassignmentEvent
	switch r.Kind {
	case ledger.Assigned:
		created, err := pr.created(offset, 0, c, m, true)
		if err != nil {
			return nil, err
		}
		ev.JsAssignmentEvent = &JsAssignmentEvent{
			Source: string(r.Source), Target: string(r.Target), ReassignmentID: r.UnassignID,
			Submitter: string(r.Submitter), ReassignmentCounter: r.Counter, CreatedEvent: created.CreatedEvent,
		}
	case ledger.Unassigned:
		ev.JsUnassignedEvent = &Wrapped[UnassignedEvent]{Value: UnassignedEvent{
			ReassignmentID: r.UnassignID, ContractID: string(c.ID), TemplateID: c.Template.Identifier.String(),
			Source: string(r.Source), Target: string(r.Target), Submitter: string(r.Submitter),
			ReassignmentCounter: r.Counter, WitnessParties: m.witnesses, PackageName: c.Template.PackageName,
			Offset: int64(offset),
		}}
	default:
		return nil, nil
	}
	// The command id is the submitter's: shown when the participant hosts
	// the submitting party and the request reads as it (or as any party).
	commandID := ""
	sel := pr.plan.reassignments
	if r.Submitter != "" && slices.Contains(pr.hosted, r.Submitter) &&
		(sel.anyParty != nil || slices.Contains(sel.parties, r.Submitter)) {
		commandID = r.CommandID
	}
	return &JsReassignment{
		UpdateID:       r.UpdateID,
		CommandID:      commandID,
		WorkflowID:     r.WorkflowID,
		Offset:         int64(offset),
		Events:         []JsReassignmentEvent{ev},
		TraceContext:   traceContext(r.UpdateID, r.TraceContext),
		RecordTime:     r.RecordTime.String(),
		SynchronizerID: string(r.Synchronizer()),
	}, nil
}
