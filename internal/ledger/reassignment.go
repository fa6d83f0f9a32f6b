package ledger

import (
	"context"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// ReassignmentKind says which half of a reassignment an update is.
type ReassignmentKind uint8

// The two halves of a reassignment.
const (
	// Unassigned: the contract leaves its source synchronizer.
	Unassigned ReassignmentKind = iota + 1
	// Assigned: the contract arrives on its target synchronizer.
	Assigned
)

// Reassignment is one half of moving a contract from one synchronizer to
// another: an unassignment, ordered on the source synchronizer, or an
// assignment, ordered on the target. Each is its own update with its own
// update id, record time and offsets in the streams of the participants
// hosting the contract's stakeholders. The two share UnassignID and
// Counter.
type Reassignment struct {
	Kind     ReassignmentKind
	UpdateID string
	// Source and Target are the synchronizers the contract moves from and
	// to.
	Source, Target SynchronizerID
	// MigrationID is the migration of the synchronizer that recorded the
	// update (Source for an unassignment, Target for an assignment).
	MigrationID int64
	RecordTime  daml.Timestamp
	// UnassignID correlates an assignment with its unassignment.
	UnassignID string
	// Counter is the reassignment counter: 0 at creation, one more at each
	// unassignment of the contract, the same in the assignment that
	// follows.
	Counter int64
	// Contract is the reassigned contract; in an assignment, as it is on
	// the target (Synchronizer = Target, ReassignmentCounter = Counter).
	Contract   *Contract
	Submitter  daml.Party
	CommandID  string
	WorkflowID string
	// TraceContext is the trace context of the request that asked for it.
	TraceContext TraceContext
}

// Synchronizer returns the synchronizer that ordered the update: the
// source for an unassignment, the target for an assignment.
func (r *Reassignment) Synchronizer() SynchronizerID {
	if r.Kind == Assigned {
		return r.Target
	}
	return r.Source
}

// Parties returns the contract's stakeholders: who sees the reassignment.
func (r *Reassignment) Parties() []daml.Party { return r.Contract.Stakeholders() }

// ReassignSpec asks for a contract to move to another synchronizer.
type ReassignSpec struct {
	Contract daml.ContractID
	Target   SynchronizerID
	// Submitter is the stakeholder on whose behalf the reassignment is
	// made; empty means the contract's first signatory.
	Submitter    daml.Party
	CommandID    string
	WorkflowID   string
	TraceContext TraceContext
	// Participant, UserID and SubmissionID say who submitted the
	// reassignment through the ledger API: the unassignment then gets an
	// accepted completion in that user's completion stream on that
	// participant, as an unassign command's does on Canton. Empty for a
	// reassignment the operator makes.
	Participant  ParticipantID
	UserID       string
	SubmissionID string
}

// reassignment is the sequencer's part of a Reassign call.
type reassignment struct {
	spec   ReassignSpec
	result [2]*Reassignment
}

// Reassign moves an active contract to another synchronizer: the
// sequencer orders an unassignment on its current synchronizer and then
// an assignment on the target, each its own update in the streams of the
// participants hosting the contract's stakeholders, and the contract
// lives on the target from then on. Both carry the contract's new
// reassignment counter (one more than its last) and the unassignment's id.
//
// Refused, with nothing changed: an unknown or archived contract
// (NotFound, CONTRACT_NOT_FOUND), an unknown target synchronizer
// (NotFound), the synchronizer the contract is already on
// (InvalidArgument), or a submitter that is not a stakeholder
// (InvalidArgument).
func (n *Network) Reassign(ctx context.Context, spec ReassignSpec) (unassigned, assigned *Reassignment, err error) {
	if spec.Contract == "" {
		return nil, nil, fault.WithCode(fault.InvalidArgument, "MISSING_FIELD",
			"The submitted command is missing a mandatory field: contract_id")
	}
	if spec.Target == "" {
		return nil, nil, fault.WithCode(fault.InvalidArgument, "MISSING_FIELD",
			"The submitted command is missing a mandatory field: target")
	}
	p := &pending{reassign: &reassignment{spec: spec}, done: make(chan error, 1)}
	if err := n.enqueue(ctx, p); err != nil {
		return nil, nil, err
	}
	return p.reassign.result[0], p.reassign.result[1], nil
}

// commitReassignment orders and stores both halves of a reassignment.
// moved holds the contracts earlier reassignments of the batch moved, so
// that a later one of the same batch starts from their state. A refusal
// is returned as refused (the batch goes on), a store failure as err.
func (n *Network) commitReassignment(ctx context.Context, w WriteTx, head *Head, p *pending,
	consumed map[daml.ContractID]bool, moved map[daml.ContractID]*Contract) (refused, err error) {
	spec := p.reassign.spec
	notFound := fault.WithCode(fault.NotFound, "CONTRACT_NOT_FOUND", "Contract could not be found with id %s", fault.Clip(string(spec.Contract)))
	if consumed[spec.Contract] {
		return notFound, nil
	}
	c := moved[spec.Contract]
	if c == nil {
		stored, active, err := n.store.Contract(ctx, spec.Contract)
		if fault.Is(err, fault.NotFound) {
			return notFound, nil
		}
		if err != nil {
			return nil, err
		}
		if !active {
			return notFound, nil
		}
		c = stored
	}
	inactive, err := w.Inactive(ctx, []daml.ContractID{spec.Contract})
	if err != nil {
		return nil, err
	}
	if len(inactive) > 0 {
		return notFound, nil
	}
	syncs, err := n.store.Synchronizers(ctx)
	if err != nil {
		return nil, err
	}
	var target *Synchronizer
	for i := range syncs {
		if syncs[i].ID == spec.Target && syncs[i].MigrationID == head.MigrationID {
			target = &syncs[i]
		}
	}
	if target == nil {
		return fault.New(fault.NotFound, "synchronizer %s not found", fault.Clip(string(spec.Target))), nil
	}
	source := c.Synchronizer
	if source == "" {
		if source, err = n.defaultSynchronizer(ctx); err != nil {
			return nil, err
		}
	}
	if source == spec.Target {
		return fault.New(fault.InvalidArgument, "contract %s is already on synchronizer %s", spec.Contract, spec.Target), nil
	}
	submitter := spec.Submitter
	stakeholders := c.Stakeholders()
	if submitter == "" && len(c.Signatories) > 0 {
		submitter = c.Signatories[0]
	}
	if !contains(stakeholders, submitter) {
		return fault.New(fault.InvalidArgument, "submitter %s is not a stakeholder of contract %s", submitter, spec.Contract), nil
	}
	if !n.knowsAll(stakeholders) {
		if err := n.loadHostings(ctx); err != nil {
			return nil, err
		}
	}
	counter := c.ReassignmentCounter + 1
	moved2 := *c
	moved2.Synchronizer = spec.Target
	moved2.ReassignmentCounter = counter
	for i, kind := range []ReassignmentKind{Unassigned, Assigned} {
		head.Sequence++
		r := &Reassignment{
			Kind: kind, UpdateID: updateID(n.seed, head.MigrationID, head.Sequence),
			Source: source, Target: spec.Target, MigrationID: head.MigrationID,
			RecordTime: max(n.clock.Now(), head.LastRecordTime+1),
			Counter:    counter, Contract: c, Submitter: submitter,
			CommandID: spec.CommandID, WorkflowID: spec.WorkflowID, TraceContext: spec.TraceContext,
		}
		if kind == Unassigned {
			// The assignment is the next update: the reassignment id
			// names it.
			r.UnassignID = ReassignmentID(updateID(n.seed, head.MigrationID, head.Sequence+1))
		} else {
			r.UnassignID = p.reassign.result[0].UnassignID
			r.Contract = &moved2
		}
		head.LastRecordTime = r.RecordTime
		offsets := map[ParticipantID]Offset{}
		for _, pid := range n.participantsOf(stakeholders) {
			head.Offsets[pid]++
			offsets[pid] = head.Offsets[pid]
		}
		if err := w.AppendReassignment(ctx, r, offsets); err != nil {
			return nil, err
		}
		if kind == Unassigned && spec.Participant != "" {
			if err := n.completeReassignment(ctx, w, head, spec, r, offsets); err != nil {
				return nil, err
			}
		}
		p.reassign.result[i] = r
	}
	moved[spec.Contract] = &moved2
	return nil, nil
}

// completeReassignment records the accepted completion of an unassignment
// submitted through the ledger API, at the unassignment's offset in the
// submitting participant's stream (or an offset of its own there, should
// that participant host none of the stakeholders).
func (n *Network) completeReassignment(ctx context.Context, w WriteTx, head *Head, spec ReassignSpec, r *Reassignment, offsets map[ParticipantID]Offset) error {
	off, ok := offsets[spec.Participant]
	if !ok {
		head.Offsets[spec.Participant]++
		off = head.Offsets[spec.Participant]
	}
	return w.AppendCompletion(ctx, &Completion{
		Participant: spec.Participant, Offset: off,
		UserID: spec.UserID, CommandID: spec.CommandID, SubmissionID: spec.SubmissionID, ActAs: []daml.Party{r.Submitter},
		UpdateID: r.UpdateID, TraceContext: r.TraceContext,
		Synchronizer: r.Source, RecordTime: r.RecordTime,
	})
}

// ReassignmentID is the id of a reassignment (its unassignment's
// reassignmentId), a "0x" hex digest as Canton's are. sandnet assigns a
// contract in the same step as it unassigns it, as Canton's automatic
// assignment would, so the id is made from the assignment's update id:
// [AssignmentUpdateID] finds the assignment that completed it.
func ReassignmentID(assignmentUpdateID string) string {
	return "0x" + strings.TrimPrefix(assignmentUpdateID, "1220")
}

// AssignmentUpdateID is the update id of the assignment that completed
// the reassignment id names, and whether id is one sandnet made.
func AssignmentUpdateID(id string) (string, bool) {
	digest, ok := strings.CutPrefix(id, "0x")
	if !ok || len(digest) != 64 || strings.Trim(digest, "0123456789abcdef") != "" {
		return "", false
	}
	return "1220" + digest, true
}

func contains(ps []daml.Party, p daml.Party) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// notOnSynchronizer is the error for a command that uses a contract that
// lives on another synchronizer than the command's.
func notOnSynchronizer(cid daml.ContractID, on, want SynchronizerID) error {
	return fault.WithCode(fault.FailedPrecondition, "INVALID_PRESCRIBED_SYNCHRONIZER_ID",
		"Cannot submit transaction to prescribed synchronizer %s because: contract %s is on synchronizer %s; reassign it first", want, cid, on)
}

// checkMoved refuses a transaction that uses a contract an earlier
// reassignment of the batch moved to another synchronizer than the
// transaction's.
func checkMoved(p *pending, moved map[daml.ContractID]*Contract) error {
	if len(moved) == 0 {
		return nil
	}
	for _, cid := range p.inputs {
		if c := moved[cid]; c != nil && c.Synchronizer != p.tx.Synchronizer {
			return notOnSynchronizer(cid, c.Synchronizer, p.tx.Synchronizer)
		}
	}
	return nil
}
