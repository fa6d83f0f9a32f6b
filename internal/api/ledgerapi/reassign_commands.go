package ledgerapi

import (
	"context"
	"net/http"
	"slices"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Reassignment commands: POST /v2/commands/submit-and-wait-for-reassignment
// and POST /v2/commands/async/submit-reassignment.
//
// sandnet assigns a contract in the same step as it unassigns it, as
// Canton's automatic assignment would once the exclusivity timeout has
// passed, so an UnassignCommand moves the contract: its answer is the
// unassignment, and the assignment follows it in the stream. An
// AssignCommand then names a reassignment that is already complete: it is
// answered with the assignment that completed it, as if it had made it,
// so a client that unassigns and then assigns ends where it meant to.

// reassignmentRequest is a ReassignmentCommands with its one command.
type reassignmentRequest struct {
	WorkflowID, UserID, CommandID, SubmissionID string
	Submitter                                   string
	// Exactly one of Unassign and Assign is set.
	Unassign *unassignCommand
	Assign   *assignCommand
}

type unassignCommand struct{ ContractID, Source, Target string }

type assignCommand struct{ ReassignmentID, Source, Target string }

// reassignmentCommands decodes a ReassignmentCommands object.
func (d *decoder) reassignmentCommands(path string, obj map[string]any) *reassignmentRequest {
	req := &reassignmentRequest{}
	req.WorkflowID, _ = d.stringMember(path, obj, "workflowId")
	req.UserID, _ = d.stringMember(path, obj, "userId")
	req.CommandID, _ = d.stringMember(path, obj, "commandId")
	req.SubmissionID, _ = d.stringMember(path, obj, "submissionId")
	req.Submitter, _ = d.stringMember(path, obj, "submitter")
	n := 0
	d.list(path, obj, "commands", func(ip string, item any) {
		rc, ok := d.object(ip, item)
		if !ok {
			return
		}
		cmd, ok := d.member(ip, rc, "command")
		if !ok {
			return
		}
		if n++; n > 1 {
			d.fail(join(path, "commands"), "sandnet takes one reassignment command per submission")
			return
		}
		cp := join(ip, "command")
		// The two kinds have the same shape: what they name, the source
		// and the target.
		for _, kind := range []struct{ name, id string }{{"UnassignCommand", "contractId"}, {"AssignCommand", "reassignmentId"}} {
			k, ok := d.member(cp, cmd, kind.name)
			if !ok {
				continue
			}
			v, ok := d.member(join(cp, kind.name), k, "value")
			if !ok {
				continue
			}
			vp := join(cp, kind.name+".value")
			id, _ := d.stringMember(vp, v, kind.id)
			source, _ := d.stringMember(vp, v, "source")
			target, _ := d.stringMember(vp, v, "target")
			if kind.name == "UnassignCommand" {
				req.Unassign = &unassignCommand{ContractID: id, Source: source, Target: target}
			} else {
				req.Assign = &assignCommand{ReassignmentID: id, Source: source, Target: target}
			}
		}
		if req.Unassign != nil && req.Assign != nil {
			d.fail(cp, "expected one of UnassignCommand and AssignCommand, got both")
		}
	})
	return req
}

// reassigned is a reassignment command's outcome: the update it answers
// with, at its offset in this participant's stream.
type reassigned struct {
	update *ledger.ParticipantUpdate
}

// reassign validates a reassignment request for the caller and carries it
// out.
func (h *Handler) reassign(r *http.Request, c caller, req *reassignmentRequest) (*reassigned, error) {
	userID, err := submittingUser(c, req.UserID)
	if err != nil {
		return nil, err
	}
	switch {
	case req.CommandID == "":
		return nil, missingField("command_id")
	case req.Submitter == "":
		return nil, missingField("submitter")
	case req.Unassign == nil && req.Assign == nil:
		return nil, missingField("commands")
	}
	if msg := checkPartySyntax(req.Submitter); msg != "" {
		return nil, invalidField("submitter", "%s", msg)
	}
	if err := checkSubmissionIDs(req.CommandID, req.WorkflowID, req.SubmissionID); err != nil {
		return nil, err
	}
	submitter := daml.Party(req.Submitter)
	if !c.canAct(submitter) {
		return nil, permissionDenied(false, "no right to act as %s", submitter)
	}
	ctx := r.Context()
	if a := req.Assign; a != nil {
		return h.completedAssignment(ctx, submitter, a)
	}
	u := req.Unassign
	switch {
	case u.ContractID == "":
		return nil, missingField("contract_id")
	case u.Source == "":
		return nil, missingField("source")
	case u.Target == "":
		return nil, missingField("target")
	}
	contract, active, err := h.cfg.Ledger.Contract(ctx, daml.ContractID(u.ContractID))
	if err != nil && !fault.Is(err, fault.NotFound) {
		return nil, err
	}
	if contract == nil || !active || !slices.Contains(contract.Stakeholders(), submitter) {
		return nil, fault.WithCode(fault.NotFound, "CONTRACT_NOT_FOUND", "Contract could not be found with id %s", fault.Clip(u.ContractID))
	}
	if on := string(contract.Synchronizer); on != "" && on != u.Source {
		return nil, invalidArgument("contract %s is on synchronizer %s, not on the source %s", contract.ID, on, fault.Clip(u.Source))
	}
	trace := web.TraceFrom(ctx)
	unassigned, _, err := h.cfg.Ledger.Reassign(ctx, ledger.ReassignSpec{
		Contract: contract.ID, Target: ledger.SynchronizerID(u.Target), Submitter: submitter,
		CommandID: req.CommandID, WorkflowID: req.WorkflowID,
		TraceContext: ledger.TraceContext{TraceParent: trace.TraceParent, TraceState: trace.TraceState},
		Participant:  h.cfg.Participant, UserID: userID, SubmissionID: req.SubmissionID,
	})
	if err != nil {
		return nil, err
	}
	pu, err := h.cfg.Ledger.UpdateByID(ctx, h.cfg.Participant, unassigned.UpdateID)
	if err != nil {
		return nil, err
	}
	return &reassigned{update: pu}, nil
}

// completedAssignment is the assignment that completed the reassignment an
// AssignCommand names, which the submitter must see.
func (h *Handler) completedAssignment(ctx context.Context, submitter daml.Party, a *assignCommand) (*reassigned, error) {
	switch {
	case a.ReassignmentID == "":
		return nil, missingField("reassignment_id")
	case a.Source == "":
		return nil, missingField("source")
	case a.Target == "":
		return nil, missingField("target")
	}
	notFound := fault.New(fault.NotFound, "Reassignment %s not found", fault.Clip(a.ReassignmentID))
	id, ok := ledger.AssignmentUpdateID(a.ReassignmentID)
	if !ok {
		return nil, notFound
	}
	pu, err := h.cfg.Ledger.UpdateByID(ctx, h.cfg.Participant, id)
	if fault.Is(err, fault.NotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	ra := pu.Reassignment
	if ra == nil || ra.Kind != ledger.Assigned || ra.UnassignID != a.ReassignmentID || !slices.Contains(ra.Contract.Stakeholders(), submitter) {
		return nil, notFound
	}
	if string(ra.Source) != a.Source || string(ra.Target) != a.Target {
		return nil, invalidArgument("reassignment %s goes from %s to %s, not from %s to %s", a.ReassignmentID, ra.Source, ra.Target, fault.Clip(a.Source), fault.Clip(a.Target))
	}
	return &reassigned{update: pu}, nil
}

// JsSubmitAndWaitForReassignmentResponse answers
// submit-and-wait-for-reassignment.
type JsSubmitAndWaitForReassignmentResponse struct {
	Reassignment *JsReassignment `json:"reassignment"`
}

// decodeReassignmentRequest reads the body's reassignmentCommands.
func decodeReassignmentRequest(obj map[string]any) (*reassignmentRequest, error) {
	d := &decoder{}
	rc, ok := d.member("", obj, "reassignmentCommands")
	if !ok && d.err == nil {
		d.fail("reassignmentCommands", "missing required field")
	}
	var req *reassignmentRequest
	if d.err == nil {
		req = d.reassignmentCommands("reassignmentCommands", rc)
	}
	return req, d.err
}

func (h *Handler) submitAndWaitForReassignment(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "SubmitAndWaitForReassignmentRequest")
	if err != nil {
		return err
	}
	req, err := decodeReassignmentRequest(obj)
	if err != nil {
		return err
	}
	d := &decoder{}
	var ef *eventFormat
	if f, ok := d.member("", obj, "eventFormat"); ok {
		ef = d.eventFormat("eventFormat", f, true)
	}
	if d.err != nil {
		return d.err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	// The format is checked, with the caller's right to read it, before
	// anything moves.
	var plan *updatePlan
	if ef != nil {
		if plan, err = h.formatPlan(c, &updateFormat{Reassignments: ef}); err != nil {
			return err
		}
	}
	done, err := h.reassign(r, c, req)
	if err != nil {
		return err
	}
	u := done.update
	ra := &JsReassignment{
		UpdateID: u.Reassignment.UpdateID, CommandID: u.Reassignment.CommandID, WorkflowID: u.Reassignment.WorkflowID, Offset: int64(u.Offset),
		Events: []JsReassignmentEvent{}, TraceContext: traceContext(u.Reassignment.UpdateID, u.Reassignment.TraceContext),
		RecordTime: u.Reassignment.RecordTime.String(), SynchronizerID: string(u.Reassignment.Synchronizer()),
	}
	if plan != nil {
		pr := &projector{plan: plan, reg: h.cfg.Registry, participant: h.cfg.Participant, hosted: h.cfg.Ledger.HostedParties(h.cfg.Participant)}
		rendered, err := pr.reassignment(u.Offset, u.Reassignment)
		if err != nil {
			return err
		}
		if rendered != nil {
			ra = rendered
		}
	}
	return writeJSON(w, JsSubmitAndWaitForReassignmentResponse{Reassignment: ra})
}

func (h *Handler) submitReassignmentAsync(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "SubmitReassignmentRequest")
	if err != nil {
		return err
	}
	req, err := decodeReassignmentRequest(obj)
	if err != nil {
		return err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if _, err := h.reassign(r, c, req); err != nil {
		return err
	}
	return writeJSON(w, SubmitResponse{})
}
