package ledgerapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The wire types of the updates list. Field order is Canton's; optional
// values Canton leaves unset are null, never omitted; one-ofs are objects
// with one member naming the case, which the Update cases wrap in
// {"value": …} and the Event cases do not.

// JsGetUpdatesResponse is one element of the updates list.
type JsGetUpdatesResponse struct {
	Update Update `json:"update"`
}

// Update is the Update one-of; exactly one field is set.
type Update struct {
	OffsetCheckpoint    *Wrapped[OffsetCheckpoint]      `json:"OffsetCheckpoint,omitempty"`
	Transaction         *Wrapped[JsTransaction]         `json:"Transaction,omitempty"`
	TopologyTransaction *Wrapped[JsTopologyTransaction] `json:"TopologyTransaction,omitempty"`
	Reassignment        *Wrapped[JsReassignment]        `json:"Reassignment,omitempty"`
}

// Wrapped is the {"value": …} wrapper of the Update cases.
type Wrapped[T any] struct {
	Value T `json:"value"`
}

// OffsetCheckpoint says that the stream has reached an offset, with the
// time each synchronizer had reached there.
type OffsetCheckpoint struct {
	Offset            int64              `json:"offset"`
	SynchronizerTimes []SynchronizerTime `json:"synchronizerTimes"`
}

// SynchronizerTime is a synchronizer's record time.
type SynchronizerTime struct {
	SynchronizerID string `json:"synchronizerId"`
	RecordTime     string `json:"recordTime"`
}

// JsTransaction is a transaction as a reader sees it.
type JsTransaction struct {
	UpdateID                string        `json:"updateId"`
	CommandID               string        `json:"commandId"`
	WorkflowID              string        `json:"workflowId"`
	EffectiveAt             string        `json:"effectiveAt"`
	Events                  []Event       `json:"events"`
	Offset                  int64         `json:"offset"`
	SynchronizerID          string        `json:"synchronizerId"`
	TraceContext            *TraceContext `json:"traceContext"`
	RecordTime              string        `json:"recordTime"`
	ExternalTransactionHash *string       `json:"externalTransactionHash"`
	PaidTrafficCost         *int64        `json:"paidTrafficCost"`
}

// TraceContext is a W3C trace context.
type TraceContext struct {
	TraceParent *string `json:"traceparent"`
	TraceState  *string `json:"tracestate"`
}

// Event is the Event one-of; exactly one field is set.
type Event struct {
	ArchivedEvent  *ArchivedEvent  `json:"ArchivedEvent,omitempty"`
	CreatedEvent   *CreatedEvent   `json:"CreatedEvent,omitempty"`
	ExercisedEvent *ExercisedEvent `json:"ExercisedEvent,omitempty"`
}

// CreatedEvent is the creation of a contract.
type CreatedEvent struct {
	Offset                  int64           `json:"offset"`
	NodeID                  int32           `json:"nodeId"`
	ContractID              string          `json:"contractId"`
	TemplateID              string          `json:"templateId"`
	ContractKey             json.RawMessage `json:"contractKey"`
	ContractKeyHash         string          `json:"contractKeyHash"`
	CreateArgument          json.RawMessage `json:"createArgument"`
	CreatedEventBlob        string          `json:"createdEventBlob"`
	InterfaceViews          []InterfaceView `json:"interfaceViews"`
	WitnessParties          []daml.Party    `json:"witnessParties"`
	Signatories             []daml.Party    `json:"signatories"`
	Observers               []daml.Party    `json:"observers"`
	CreatedAt               string          `json:"createdAt"`
	PackageName             string          `json:"packageName"`
	RepresentativePackageID string          `json:"representativePackageId"`
	AcsDelta                bool            `json:"acsDelta"`
}

// ArchivedEvent is the archival of a contract, under the ACS_DELTA shape.
type ArchivedEvent struct {
	Offset                int64        `json:"offset"`
	NodeID                int32        `json:"nodeId"`
	ContractID            string       `json:"contractId"`
	TemplateID            string       `json:"templateId"`
	WitnessParties        []daml.Party `json:"witnessParties"`
	PackageName           string       `json:"packageName"`
	ImplementedInterfaces []string     `json:"implementedInterfaces"`
}

// ExercisedEvent is the exercise of a choice, under the LEDGER_EFFECTS
// shape.
type ExercisedEvent struct {
	Offset                int64           `json:"offset"`
	NodeID                int32           `json:"nodeId"`
	ContractID            string          `json:"contractId"`
	TemplateID            string          `json:"templateId"`
	InterfaceID           *string         `json:"interfaceId"`
	Choice                string          `json:"choice"`
	ChoiceArgument        json.RawMessage `json:"choiceArgument"`
	ActingParties         []daml.Party    `json:"actingParties"`
	Consuming             bool            `json:"consuming"`
	WitnessParties        []daml.Party    `json:"witnessParties"`
	LastDescendantNodeID  int32           `json:"lastDescendantNodeId"`
	ExerciseResult        json.RawMessage `json:"exerciseResult"`
	PackageName           string          `json:"packageName"`
	ImplementedInterfaces []string        `json:"implementedInterfaces"`
	AcsDelta              bool            `json:"acsDelta"`
}

// InterfaceView is a contract's view for an interface a filter named.
type InterfaceView struct {
	InterfaceID             string          `json:"interfaceId"`
	ViewStatus              Status          `json:"viewStatus"`
	ViewValue               json.RawMessage `json:"viewValue"`
	ImplementationPackageID *string         `json:"implementationPackageId"`
}

// Status is a gRPC status; code 0 is success.
type Status struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// projector renders a participant's transactions for one request.
type projector struct {
	plan        *updatePlan
	reg         *ledger.Registry
	participant ledger.ParticipantID
	// hosted are the parties the participant hosts, sorted.
	hosted []daml.Party
}

// match is what a selector says about one event: the filters that select
// it and the parties it shows as witnesses.
type match struct {
	filters   []*partyFilter
	witnesses []daml.Party
}

func (m match) ok() bool { return len(m.filters) > 0 }

// transaction renders the part of tx that the request selects, or nil
// when it selects nothing.
func (pr *projector) transaction(offset ledger.Offset, tx *ledger.Transaction) (*JsTransaction, error) {
	sel := pr.plan.transactions
	if sel == nil {
		return nil, nil
	}
	transient := transientContracts(tx)
	var events []Event
	for i := range tx.Events {
		e := &tx.Events[i]
		// The participant holds the nodes its parties witness.
		if !intersects(e.Witnesses, pr.hosted) {
			continue
		}
		ev, err := pr.event(offset, e, transient)
		if err != nil {
			return nil, err
		}
		if ev != nil {
			events = append(events, *ev)
		}
	}
	if len(events) == 0 {
		return nil, nil
	}
	commandID := ""
	if tx.Submission.Participant == pr.participant && (sel.anyParty != nil || intersects(tx.Submission.ActAs, sel.parties)) {
		commandID = tx.Submission.CommandID
	}
	return &JsTransaction{
		UpdateID:       tx.UpdateID,
		CommandID:      commandID,
		WorkflowID:     tx.WorkflowID,
		EffectiveAt:    tx.EffectiveAt.String(),
		Events:         events,
		Offset:         int64(offset),
		SynchronizerID: string(tx.Synchronizer),
		TraceContext:   traceContextOf(tx),
		RecordTime:     tx.RecordTime.String(),

		ExternalTransactionHash: externalHashOf(tx),
	}, nil
}

// externalHashOf is the hash an external party signed for the
// transaction, base64, when it was executed from an interactive
// submission.
func externalHashOf(tx *ledger.Transaction) *string {
	if len(tx.ExternalHash) == 0 {
		return nil
	}
	s := base64.StdEncoding.EncodeToString(tx.ExternalHash)
	return &s
}

// selects reports whether transaction renders tx, that is whether the
// request selects any of its events, without rendering them: the list
// counts with it.
func (pr *projector) selects(tx *ledger.Transaction) bool {
	if pr.plan.transactions == nil {
		return false
	}
	var transient map[daml.ContractID]bool
	for i := range tx.Events {
		e := &tx.Events[i]
		if !intersects(e.Witnesses, pr.hosted) {
			continue
		}
		if transient == nil {
			transient = transientContracts(tx)
		}
		switch {
		case e.Created != nil:
			c := e.Created
			if pr.plan.shape == acsDelta {
				if !transient[c.ID] && pr.stakeholderMatch(c.Template, c.Stakeholders()).ok() {
					return true
				}
			} else if pr.witnessMatch(c.Template, e.Witnesses).ok() {
				return true
			}
		case e.Exercised != nil:
			x := e.Exercised
			if pr.plan.shape == acsDelta {
				if x.Consuming && !transient[x.ContractID] && pr.stakeholderMatch(x.Template, x.Stakeholders).ok() {
					return true
				}
			} else if pr.witnessMatch(x.Template, e.Witnesses).ok() {
				return true
			}
		}
	}
	return false
}

func (pr *projector) event(offset ledger.Offset, e *ledger.Event, transient map[daml.ContractID]bool) (*Event, error) {
	switch {
	case e.Created != nil:
		c := e.Created
		stake := pr.stakeholderMatch(c.Template, c.Stakeholders())
		inDelta := !transient[c.ID] && stake.ok()
		var m match
		if pr.plan.shape == acsDelta {
			if !inDelta {
				return nil, nil
			}
			m = stake
		} else {
			if m = pr.witnessMatch(c.Template, e.Witnesses); !m.ok() {
				return nil, nil
			}
		}
		return pr.created(offset, e.NodeID, c, m, inDelta)
	case e.Exercised != nil:
		x := e.Exercised
		var stake match
		if x.Consuming && !transient[x.ContractID] {
			stake = pr.stakeholderMatch(x.Template, x.Stakeholders)
		}
		if pr.plan.shape == acsDelta {
			if !stake.ok() {
				return nil, nil
			}
			return &Event{ArchivedEvent: pr.archived(offset, e.NodeID, x, stake)}, nil
		}
		m := pr.witnessMatch(x.Template, e.Witnesses)
		if !m.ok() {
			return nil, nil
		}
		arg, err := encodeValue(x.ChoiceArgument)
		if err != nil {
			return nil, err
		}
		res, err := encodeValue(x.ExerciseResult)
		if err != nil {
			return nil, err
		}
		var iface *string
		if x.Interface != nil {
			s := x.Interface.String()
			iface = &s
		}
		implemented := []string{}
		if x.Consuming {
			implemented = pr.viewedInterfaces(x.Template, m.filters)
		}
		return &Event{ExercisedEvent: &ExercisedEvent{
			Offset: int64(offset), NodeID: e.NodeID, ContractID: string(x.ContractID),
			TemplateID: x.Template.Identifier.String(), InterfaceID: iface, Choice: x.Choice,
			ChoiceArgument: arg, ActingParties: parties(x.ActingParties), Consuming: x.Consuming,
			WitnessParties: m.witnesses, LastDescendantNodeID: x.LastDescendant, ExerciseResult: res,
			PackageName: x.Template.PackageName, ImplementedInterfaces: implemented, AcsDelta: stake.ok(),
		}}, nil
	}
	return nil, nil
}

// archived renders the archival of a contract (a consuming exercise) as
// the ACS_DELTA shape shows it to the parties of m.
func (pr *projector) archived(offset ledger.Offset, node int32, x *ledger.Exercised, m match) *ArchivedEvent {
	return &ArchivedEvent{
		Offset: int64(offset), NodeID: node, ContractID: string(x.ContractID),
		TemplateID: x.Template.Identifier.String(), WitnessParties: m.witnesses,
		PackageName: x.Template.PackageName, ImplementedInterfaces: pr.viewedInterfaces(x.Template, m.filters),
	}
}

// update renders the part of a participant's update that the request
// selects, as the Update one-of; ok is false when it selects nothing.
func (pr *projector) update(u *ledger.ParticipantUpdate) (out Update, ok bool, err error) {
	switch {
	case u.Reassignment != nil:
		ra, err := pr.reassignment(u.Offset, u.Reassignment)
		if err != nil || ra == nil {
			return out, false, err
		}
		out.Reassignment = &Wrapped[JsReassignment]{Value: *ra}
	case u.Topology != nil:
		tt := pr.topology(u.Offset, u.Topology)
		if tt == nil {
			return out, false, nil
		}
		out.TopologyTransaction = &Wrapped[JsTopologyTransaction]{Value: *tt}
	default:
		tx, err := pr.transaction(u.Offset, u.Transaction)
		if err != nil || tx == nil {
			return out, false, err
		}
		out.Transaction = &Wrapped[JsTransaction]{Value: *tx}
	}
	return out, true, nil
}

// stakeholderMatch applies the ACS_DELTA rule: an event is selected for
// the listed parties among its contract's stakeholders whose filter
// matches its template, and for any party when the participant hosts one
// of the stakeholders and the any-party filter matches.
func (pr *projector) stakeholderMatch(t ledger.TemplateID, stakeholders []daml.Party) match {
	return pr.selectFor(t, stakeholders, intersects(stakeholders, pr.hosted))
}

// witnessMatch applies the LEDGER_EFFECTS rule: an event is selected for
// the listed parties among its witnesses whose filter matches its template,
// and for any party (the event is held by the participant, so some party
// it hosts witnesses it) when the any-party filter matches.
func (pr *projector) witnessMatch(t ledger.TemplateID, witnesses []daml.Party) match {
	return pr.selectFor(t, witnesses, true)
}

// selectFor finds the filters selecting an event of template t seen by
// parties. Witnesses shown are those parties narrowed to the listed ones,
// or all of them when the request reads as any party.
func (pr *projector) selectFor(t ledger.TemplateID, seenBy []daml.Party, anyPartySees bool) match {
	return pr.selectWith(pr.plan.transactions, t, seenBy, anyPartySees)
}

// selectWith is selectFor through the filters of sel: the transactions'
// or the reassignments' event format.
func (pr *projector) selectWith(sel *selector, t ledger.TemplateID, seenBy []daml.Party, anyPartySees bool) match {
	var m match
	for _, p := range sel.parties {
		if !slices.Contains(seenBy, p) {
			continue
		}
		m.witnesses = append(m.witnesses, p)
		if f := sel.byParty[p]; pr.matches(f, t) {
			m.filters = append(m.filters, f)
		}
	}
	if sel.anyParty != nil {
		m.witnesses = slices.Clone(seenBy)
		if anyPartySees && pr.matches(sel.anyParty, t) {
			m.filters = append(m.filters, sel.anyParty)
		}
	}
	m.witnesses = parties(m.witnesses)
	slices.Sort(m.witnesses)
	m.witnesses = slices.Compact(m.witnesses)
	return m
}

// matches reports whether a filter selects template t: a wildcard, a
// template filter naming it (by package name, whatever the version), or an
// interface filter naming an interface it implements.
func (pr *projector) matches(f *partyFilter, t ledger.TemplateID) bool {
	if f.wildcard {
		return true
	}
	for _, tf := range f.templates {
		if tf.ref.pkg == t.PackageName && tf.ref.module == t.ModuleName && tf.ref.entity == t.EntityName {
			return true
		}
	}
	if len(f.interfaces) > 0 {
		impl := pr.reg.Interfaces(t.Identifier)
		for _, in := range f.interfaces {
			if slices.Contains(impl, in.id) {
				return true
			}
		}
	}
	return false
}

// viewedInterfaces lists the interfaces, implemented by t, that the
// filters ask views of.
func (pr *projector) viewedInterfaces(t ledger.TemplateID, fs []*partyFilter) []string {
	out := []string{}
	impl := pr.reg.Interfaces(t.Identifier)
	for _, f := range fs {
		for _, in := range f.interfaces {
			if in.view && slices.Contains(impl, in.id) {
				out = append(out, in.id.String())
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (pr *projector) created(offset ledger.Offset, node int32, c *ledger.Contract, m match, inDelta bool) (*Event, error) {
	arg, err := encodeValue(c.Argument)
	if err != nil {
		return nil, err
	}
	blob := false
	impl := pr.reg.Interfaces(c.Template.Identifier)
	var viewOf []daml.Identifier
	for _, f := range m.filters {
		blob = blob || f.wildcard && f.wildcardBlob
		for _, tf := range f.templates {
			if tf.blob && tf.ref.pkg == c.Template.PackageName && tf.ref.module == c.Template.ModuleName && tf.ref.entity == c.Template.EntityName {
				blob = true
			}
		}
		for _, in := range f.interfaces {
			if !slices.Contains(impl, in.id) {
				continue
			}
			blob = blob || in.blob
			if in.view {
				viewOf = append(viewOf, in.id)
			}
		}
	}
	ev := &CreatedEvent{
		Offset: int64(offset), NodeID: node, ContractID: string(c.ID), TemplateID: c.Template.Identifier.String(),
		CreateArgument: arg, InterfaceViews: []InterfaceView{},
		WitnessParties: m.witnesses, Signatories: parties(c.Signatories), Observers: parties(c.Observers),
		CreatedAt: c.CreatedAt.String(), PackageName: c.Template.PackageName,
		RepresentativePackageID: c.Template.PackageID, AcsDelta: inDelta,
	}
	if blob {
		b, err := ledger.EncodeContract(c)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "encode contract %s", c.ID)
		}
		ev.CreatedEventBlob = base64.StdEncoding.EncodeToString(b)
	}
	slices.SortFunc(viewOf, func(a, b daml.Identifier) int { return strings.Compare(a.String(), b.String()) })
	for _, iface := range slices.Compact(viewOf) {
		ev.InterfaceViews = append(ev.InterfaceViews, pr.interfaceView(c, iface))
	}
	return &Event{CreatedEvent: ev}, nil
}

// interfaceView computes a contract's view; a failure is reported in the
// view's status, as Canton reports it, not as an error of the request.
func (pr *projector) interfaceView(c *ledger.Contract, iface daml.Identifier) InterfaceView {
	iv := InterfaceView{InterfaceID: iface.String(), ViewStatus: Status{Details: []any{}}}
	v, err := pr.reg.InterfaceView(c, iface)
	var b []byte
	if err == nil {
		b, err = daml.LedgerJSON.Encode(v)
	}
	if err != nil {
		iv.ViewStatus.Code = grpcInternal
		if fault.KindOf(err) == fault.NotFound {
			iv.ViewStatus.Code = grpcNotFound
		}
		iv.ViewStatus.Message = "Failed to compute the view of " + string(c.ID) + " for " + iface.String()
		return iv
	}
	iv.ViewValue = b
	pkg := c.Template.PackageID
	iv.ImplementationPackageID = &pkg
	return iv
}

// transientContracts are the contracts a transaction both creates and
// archives: the ACS_DELTA shape shows neither event.
func transientContracts(tx *ledger.Transaction) map[daml.ContractID]bool {
	created := map[daml.ContractID]bool{}
	for _, c := range tx.Created() {
		created[c.ID] = true
	}
	out := map[daml.ContractID]bool{}
	for _, id := range tx.Consumed() {
		if created[id] {
			out[id] = true
		}
	}
	return out
}

// traceContextOf returns the trace context of the submission, or one the
// server derives from the update id when the submission had none, so that
// every reader of an update sees the same one.
func traceContextOf(tx *ledger.Transaction) *TraceContext {
	return traceContext(tx.UpdateID, tx.TraceContext)
}

// traceContext returns tc, or the one derived from the update id when tc
// is empty.
func traceContext(updateID string, given ledger.TraceContext) *TraceContext {
	tp := given.TraceParent
	if tp == "" {
		h := sha256.Sum256([]byte("sandnet/trace\x00" + updateID))
		tp = "00-" + hex.EncodeToString(h[:16]) + "-" + hex.EncodeToString(h[16:24]) + "-01"
	}
	tc := &TraceContext{TraceParent: &tp}
	if ts := given.TraceState; ts != "" {
		tc.TraceState = &ts
	}
	return tc
}

// encodeValue renders a Daml value in the ledger API's JSON; a missing
// value is null.
func encodeValue(v daml.Value) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := daml.LedgerJSON.Encode(v)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode a Daml value")
	}
	return b, nil
}

// parties returns ps, or an empty list for nil, so that the JSON is [].
func parties(ps []daml.Party) []daml.Party {
	if ps == nil {
		return []daml.Party{}
	}
	return ps
}

func intersects(a, b []daml.Party) bool {
	for _, p := range a {
		if slices.Contains(b, p) {
			return true
		}
	}
	return false
}
