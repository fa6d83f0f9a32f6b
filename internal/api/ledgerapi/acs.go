package ledgerapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The active contracts snapshot: POST /v2/state/active-contracts (a
// blocking list under the updates list's node limit) and its websocket
// twin. A snapshot at offset N holds the contracts created at or before N
// and not archived at or before N that the request's filters select, in
// creation order, each rendered as the ACS_DELTA shape of the updates
// list renders its creation (same offset, node id, witnesses, blob and
// interface views).

// JsGetActiveContractsResponse is one element of the snapshot.
type JsGetActiveContractsResponse struct {
	WorkflowID    string        `json:"workflowId"`
	ContractEntry ContractEntry `json:"contractEntry"`
}

// ContractEntry is the JsContractEntry one-of. sandnet commits a
// reassignment's unassignment and assignment together, so no ledger end
// falls between them and the only case is an active contract (a snapshot
// at the very offset of an unassignment leaves the contract out).
type ContractEntry struct {
	JsActiveContract *JsActiveContract `json:"JsActiveContract,omitempty"`
}

// JsActiveContract is an active contract and where it lives.
type JsActiveContract struct {
	CreatedEvent        *CreatedEvent `json:"createdEvent"`
	SynchronizerID      string        `json:"synchronizerId"`
	ReassignmentCounter int64         `json:"reassignmentCounter"`
}

// getActiveContractsRequest is GetActiveContractsRequest.
type getActiveContractsRequest struct {
	ActiveAtOffset    int64
	Filter            *eventFormat
	Verbose           *bool
	EventFormat       *eventFormat
	ContinuationToken string
}

func decodeGetActiveContractsRequest(body []byte) (*getActiveContractsRequest, error) {
	root, err := parseJSON(body)
	if err != nil {
		return nil, err
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, undecodable("Invalid value for: body (expected a GetActiveContractsRequest object, got %s)", describe(root))
	}
	d := &decoder{}
	req := &getActiveContractsRequest{}
	req.ActiveAtOffset = d.requiredInt64(obj, "activeAtOffset")
	if f, ok := d.member("", obj, "filter"); ok {
		req.Filter = d.eventFormat("filter", f, false)
	}
	if v, ok := d.boolMember("", obj, "verbose"); ok {
		req.Verbose = &v
	}
	if f, ok := d.member("", obj, "eventFormat"); ok {
		req.EventFormat = d.eventFormat("eventFormat", f, true)
	}
	req.ContinuationToken, _ = d.stringMember("", obj, "streamContinuationToken")
	if d.err != nil {
		return nil, d.err
	}
	return req, nil
}

// acsQuery is a GetActiveContractsRequest that passed every check.
type acsQuery struct {
	plan *updatePlan
	at   ledger.Offset
}

// prepareActiveContracts takes a request body through the same steps, in
// the same order, as prepareUpdates: decoding, the JSON layer's
// filter-or-eventFormat rule, authentication and authorization,
// validation, the ledger end, and the resolution of names.
func (h *Handler) prepareActiveContracts(r *http.Request, body []byte) (*acsQuery, error) {
	req, err := decodeGetActiveContractsRequest(body)
	if err != nil {
		return nil, err
	}
	if err := checkLegacyFormat("event_format", req.EventFormat != nil, req.Filter != nil, req.Verbose); err != nil {
		return nil, err
	}
	ef := req.EventFormat
	if ef == nil {
		legacy := *req.Filter
		if req.Verbose != nil {
			legacy.Verbose = *req.Verbose
		}
		ef = &legacy
	}
	c, err := h.authenticate(r)
	if err != nil {
		return nil, err
	}
	uf := &updateFormat{Transactions: &transactionFormat{EventFormat: ef, Shape: shapeACSDelta}}
	if err := authorize(c, uf); err != nil {
		return nil, err
	}
	if req.ActiveAtOffset < 0 {
		return nil, fault.WithCode(fault.InvalidArgument, codeNegativeOffset,
			"Offset %d in active_at_offset is a negative integer: the offset in active_at_offset field has to be a non-negative integer (>=0)", req.ActiveAtOffset)
	}
	if req.ContinuationToken != "" {
		return nil, invalidField("stream_continuation_token", "sandnet issues no continuation tokens, so %s is not one", fault.Quote(req.ContinuationToken))
	}
	sel, err := compileSelector(ef)
	if err != nil {
		return nil, err
	}
	at := ledger.Offset(req.ActiveAtOffset)
	plan := &updatePlan{end: at, transactions: sel, shape: acsDelta}
	head, err := h.cfg.Ledger.Head(r.Context())
	if err != nil {
		return nil, err
	}
	if end := head.Offsets[h.cfg.Participant]; at > end {
		return nil, fault.WithCode(fault.OutOfRange, codeOffsetAfterLedgerEnd, "Active contracts offset (%d) is after ledger end (%d)", at, end)
	}
	if err := plan.resolve(h.cfg.Registry); err != nil {
		return nil, err
	}
	if pruned := head.Pruned[h.cfg.Participant]; at < pruned {
		return nil, acsPruned(at, pruned)
	}
	return &acsQuery{plan: plan, at: at}, nil
}

// acsPruned refuses a snapshot at an offset before the pruned offset, with
// Canton's cause.
func acsPruned(at, pruned ledger.Offset) *fault.Error {
	return prunedDataAccessed(pruned, "Active contracts request at offset %d precedes pruned offset %d", at, pruned)
}

// activeSnapshot is the selected active contracts at an offset, in
// creation order, not yet rendered.
type activeSnapshot struct {
	pr      *projector
	entries []*activeEntry // archived ones are nil
	n       int            // entries not nil
}

type activeEntry struct {
	offset       ledger.Offset
	node         int32
	contract     *ledger.Contract
	match        match
	workflowID   string
	synchronizer ledger.SynchronizerID
}

// activeContracts computes the snapshot.
//
// It replays the participant's stream from the start up to the offset,
// a page at a time, keeping the selected creations and dropping them when
// they are archived, and holds the selected active contracts (decoded,
// not rendered) in memory: its memory grows with the size of the answer.
// When every filter names its parties (all hosted here), the replay reads
// only their updates, through the store's per-party index (see
// lister.pages), so its cost grows with those parties' history; a
// filtersForAnyParty request (or one naming a party hosted elsewhere)
// reads every update up to activeAtOffset, and its cost grows with the
// participant's history. An index of active contracts by participant and
// offset would replace the replay for those. Rendering is streamed (emit).
//
// Pruning keeps the stream's entries (it only records the pruned offset),
// so on a pruned participant the replay still starts at the beginning and
// a snapshot at or after the pruned offset holds the contracts created
// before it, with their original offsets, as on an unpruned copy.
func (h *Handler) activeContracts(ctx context.Context, q *acsQuery) (*activeSnapshot, error) {
	cfg := h.cfg
	pr := &projector{plan: q.plan, reg: cfg.Registry, participant: cfg.Participant, hosted: cfg.Ledger.HostedParties(cfg.Participant)}
	s := &activeSnapshot{pr: pr}
	if q.at == 0 {
		return s, nil // the empty ledger has no contracts
	}
	index := map[daml.ContractID]int{}
	l := &lister{h: h, plan: q.plan, replay: true}
	// A party-filtered replay cannot see what a party witnessed while the
	// participant did not host it: a revocation of one of its parties
	// here (it is hosted again now) sends the replay to the whole stream,
	// so that an archival in that gap is not missed.
	gap := false
	each := func(u *ledger.ParticipantUpdate) (bool, error) {
		if t := u.Topology; t != nil && l.parties != nil && revokesAny(t, cfg.Participant, l.parties) {
			gap = true
			return false, nil
		}
		if r := u.Reassignment; r != nil {
			// The contract leaves the active contract set with its
			// unassignment and comes back with its assignment, as it
			// is on the target: the assignment is its last activation
			// (its offset, node 0, its workflow id, the new counter).
			switch r.Kind {
			case ledger.Unassigned:
				// Only from where it is: an assignment read before its
				// unassignment has already moved it.
				if i, ok := index[r.Contract.ID]; ok && s.entries[i].synchronizer == r.Source {
					s.entries[i] = nil
					s.n--
					delete(index, r.Contract.ID)
				}
			case ledger.Assigned:
				c := r.Contract
				if !intersects(c.Stakeholders(), pr.hosted) {
					return true, nil
				}
				if i, ok := index[c.ID]; ok { // no unassignment seen
					s.entries[i] = nil
					s.n--
				}
				if m := pr.stakeholderMatch(c.Template, c.Stakeholders()); m.ok() {
					index[c.ID] = len(s.entries)
					s.entries = append(s.entries, &activeEntry{u.Offset, 0, c, m, r.WorkflowID, r.Target})
					s.n++
				} else {
					delete(index, c.ID)
				}
			}
			return true, nil
		}
		tx := u.Transaction
		if tx == nil {
			return true, nil // a topology transaction
		}
		for i := range tx.Events {
			e := &tx.Events[i]
			switch {
			case e.Created != nil:
				// The participant holds the nodes its parties witness.
				if !intersects(e.Witnesses, pr.hosted) {
					continue
				}
				c := e.Created
				if m := pr.stakeholderMatch(c.Template, c.Stakeholders()); m.ok() {
					index[c.ID] = len(s.entries)
					s.entries = append(s.entries, &activeEntry{u.Offset, e.NodeID, c, m, tx.WorkflowID, tx.Synchronizer})
					s.n++
				}
			case e.Exercised != nil && e.Exercised.Consuming:
				if i, ok := index[e.Exercised.ContractID]; ok {
					s.entries[i] = nil
					s.n--
					delete(index, e.Exercised.ContractID)
				}
			}
		}
		return true, nil
	}
	err := l.pages(ctx, 0, q.at, false, each)
	if err == nil && gap {
		s.entries, s.n = nil, 0
		clear(index)
		l = &lister{h: h, plan: q.plan, replay: true, partiesSet: true} // the whole stream
		err = l.pages(ctx, 0, q.at, false, each)
	}
	if err != nil {
		return nil, err
	}
	// A prune that landed after the request was checked and reached past
	// its offset makes the request one Canton refuses. Pruning deletes no
	// entries, so the replay itself is whole; this is a defensive check.
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return nil, err
	}
	if pruned := head.Pruned[cfg.Participant]; q.at < pruned {
		return nil, acsPruned(q.at, pruned)
	}
	return s, nil
}

// emit renders the snapshot's first take contracts and hands each to
// emit as it is rendered.
func (s *activeSnapshot) emit(take int, emit func(json.RawMessage) error) error {
	n := 0
	for _, a := range s.entries {
		if n >= take {
			return nil
		}
		if a == nil {
			continue
		}
		b, err := s.render(a)
		if err != nil {
			return err
		}
		if err := emit(b); err != nil {
			return err
		}
		n++
	}
	return nil
}

// render renders one active contract of the snapshot.
func (s *activeSnapshot) render(a *activeEntry) (json.RawMessage, error) {
	ev, err := s.pr.created(a.offset, a.node, a.contract, a.match, true)
	if err != nil {
		return nil, err
	}
	return marshal(JsGetActiveContractsResponse{
		WorkflowID: a.workflowID,
		ContractEntry: ContractEntry{JsActiveContract: &JsActiveContract{
			CreatedEvent: ev.CreatedEvent, SynchronizerID: string(a.synchronizer),
			ReassignmentCounter: a.contract.ReassignmentCounter,
		}},
	})
}

// POST /v2/state/active-contracts: the snapshot as a list, under the same
// limit and node limit rules as the updates list. The snapshot is bounded,
// so stream_idle_timeout_ms is accepted and has nothing to wait for. The
// size of the snapshot is known before anything is rendered, so the 413 is
// decided first and the list is then streamed as it is rendered.
func (h *Handler) activeContractsList(w http.ResponseWriter, r *http.Request) error {
	q, _, take, err := readList(h, w, r, h.prepareActiveContracts)
	if err != nil || take == 0 {
		return err
	}
	snap, err := h.activeContracts(r.Context(), q)
	if err != nil {
		return err
	}
	if n := min(snap.n, take); n > h.cfg.MaxListElements {
		return overLimit(n, h.cfg.MaxListElements)
	}
	out := newListBody(w, h.cfg.ListBufferBytes)
	err = snap.emit(take, func(b json.RawMessage) error {
		if err := out.add(b); !errors.Is(err, errOverBudget) {
			return err
		}
		return out.start()
	})
	if err == nil {
		err = out.finish()
	}
	if err != nil && out.started {
		return h.abort(r.Context(), r, err)
	}
	return err
}

// revokesAny reports whether a topology transaction ends the hosting of
// one of parties (sorted) on participant p.
func revokesAny(t *ledger.TopologyTransaction, p ledger.ParticipantID, parties []daml.Party) bool {
	for _, e := range t.Events {
		if e.Kind == ledger.AuthorizationRevoked && e.Participant == p {
			if _, ok := slices.BinarySearch(parties, e.Party); ok {
				return true
			}
		}
	}
	return false
}
