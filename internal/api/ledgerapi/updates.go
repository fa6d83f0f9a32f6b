package ledgerapi

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// pageSize is how many updates one store read returns.
const pageSize = 128

// updates serves POST /v2/updates and /v2/updates/flats, which Canton
// runs with the same handler: a blocking list of the participant's
// updates between two offsets.
//
// The request is decoded (400 text/plain), checked for the JSON layer's
// filter-or-updateFormat rule, authenticated and authorized, validated
// (offsets, format, ledger end) and its filters resolved, before anything
// is read. The list is collected up to one element more than the node
// limit, so that a list over the limit is refused with 413 before any of
// it is sent, as Canton does; an error while reading replaces the list.
func (h *Handler) updates(w http.ResponseWriter, r *http.Request) error {
	params, err := parseListParams(r.URL.Query())
	if err != nil {
		return err
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	q, err := h.prepareUpdates(r, body)
	if err != nil {
		return err
	}

	return h.writeLimitedList(w, params, func(take int, emit func(json.RawMessage) error) error {
		l := &lister{h: h, plan: q.plan, take: take, emit: emit}
		if !q.plan.openEnded {
			return l.bounded(r.Context())
		}
		idle := h.cfg.ListWaitTime
		if params.IdleTimeout != nil {
			idle = time.Duration(min(*params.IdleTimeout, int64(math.MaxInt64/time.Millisecond))) * time.Millisecond
		}
		return l.tail(r.Context(), q.ledgerEnd, q.committed, idle)
	})
}

// writeLimitedList answers a list endpoint: fill emits at most take
// elements, which are collected and written as one array. take is one more
// than the node limit, or the request's smaller limit, so that a list
// over the node limit is refused with 413 before any of it is sent, as
// Canton does; a limit of 0 or less is an empty list, and an error of fill
// replaces the list.
func (h *Handler) writeLimitedList(w http.ResponseWriter, params listParams, fill func(take int, emit func(json.RawMessage) error) error) error {
	nodeLimit := h.cfg.MaxListElements
	take := nodeLimit + 1
	if params.Limit != nil {
		if *params.Limit <= 0 {
			return writeList(w, nil)
		}
		if *params.Limit < int64(take) {
			take = int(*params.Limit)
		}
	}
	var out []json.RawMessage
	if err := fill(take, func(b json.RawMessage) error {
		out = append(out, b)
		return nil
	}); err != nil {
		return err
	}
	if len(out) > nodeLimit {
		return fault.WithCode(fault.Aborted, codeMaxListElements,
			"The number of matching elements (%d) is greater than the node limit (%d).", len(out), nodeLimit)
	}
	return writeList(w, out)
}

// updatesQuery is a GetUpdatesRequest that passed every check before the
// first read.
type updatesQuery struct {
	plan      *updatePlan
	ledgerEnd ledger.Offset
	// committed is closed at the first commit after ledgerEnd was read.
	committed <-chan struct{}
}

// prepareUpdates takes a GetUpdatesRequest body through every step the
// list and the websocket stream share, in Canton's order: decoding
// (text/plain 400), the JSON layer's filter-or-updateFormat rule,
// authentication of r and authorization, validation, the ledger end, and
// the resolution of the filters' names.
func (h *Handler) prepareUpdates(r *http.Request, body []byte) (*updatesQuery, error) {
	req, err := decodeGetUpdatesRequest(body)
	if err != nil {
		return nil, err
	}
	uf, err := effectiveFormat(req)
	if err != nil {
		return nil, err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return nil, err
	}
	if err := authorize(c, uf); err != nil {
		return nil, err
	}
	plan, err := compile(req, uf)
	if err != nil {
		return nil, err
	}
	// Take the commit signal before reading the ledger end, so that a
	// commit between the read and the wait is not missed.
	committed := h.cfg.Ledger.Committed()
	head, err := h.cfg.Ledger.Head(r.Context())
	if err != nil {
		return nil, err
	}
	ledgerEnd := head.Offsets[h.cfg.Participant]
	if err := plan.checkLedgerEnd(ledgerEnd); err != nil {
		return nil, err
	}
	if err := plan.resolve(h.cfg.Registry); err != nil {
		return nil, err
	}
	return &updatesQuery{plan: plan, ledgerEnd: ledgerEnd, committed: committed}, nil
}

// authorize checks the caller's rights against what the format reads, all
// or nothing: every party of filtersByParty (and of the topology format)
// needs CanReadAs or CanActAs, and reading for any party needs
// CanReadAsAnyParty.
func authorize(c caller, uf *updateFormat) error {
	parties, anyParty := readClaims(uf)
	if anyParty && !c.canReadAnyParty() {
		return permissionDenied(false, "reading as any party needs the CanReadAsAnyParty right")
	}
	for _, p := range parties {
		if !c.canRead(daml.Party(p)) {
			return permissionDenied(false, "no right to read as %s", p)
		}
	}
	return nil
}

// writeList writes the elements as a JSON array.
func writeList(w http.ResponseWriter, elems []json.RawMessage) error {
	n := 2
	for _, e := range elems {
		n += len(e) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	b = append(b, ']')
	writeBody(w, http.StatusOK, b)
	return nil
}

// lister renders a request's elements and hands them to emit, at most
// take of them: the list collects them, the websocket stream sends each
// as a frame.
type lister struct {
	h    *Handler
	plan *updatePlan
	take int
	emit func(json.RawMessage) error
	n    int // elements emitted
	// last is the last update read, for offset checkpoints.
	last *ledger.ParticipantUpdate
}

func (l *lister) full() bool { return l.n >= l.take }

func (l *lister) add(v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	l.n++
	return l.emit(b)
}

func (l *lister) projector() *projector {
	cfg := l.h.cfg
	return &projector{plan: l.plan, reg: cfg.Registry, participant: cfg.Participant, hosted: cfg.Ledger.HostedParties(cfg.Participant)}
}

// bounded lists (begin, end], in either order.
func (l *lister) bounded(ctx context.Context) error {
	return l.scan(ctx, l.projector(), l.plan.begin, l.plan.end, l.plan.descending)
}

// tail lists from begin to the ledger end, then follows new commits. Each
// time it has caught up with a ledger end past what it has reported, it
// adds an offset checkpoint there. It stops when it has take elements, or
// when no element came for idle; a negative idle never expires.
func (l *lister) tail(ctx context.Context, end ledger.Offset, committed <-chan struct{}, idle time.Duration) error {
	cursor, checkpointed := l.plan.begin, l.plan.begin
	var (
		timer   *time.Timer
		timeout <-chan time.Time
	)
	if idle >= 0 {
		timer = time.NewTimer(idle)
		defer timer.Stop()
		timeout = timer.C
	}
	for {
		before := l.n
		if cursor < end {
			if err := l.scan(ctx, l.projector(), cursor, end, false); err != nil {
				return err
			}
			cursor = end
		}
		if !l.full() && end > checkpointed && l.last != nil && l.last.Offset == end {
			if err := l.add(checkpoint(l.last)); err != nil {
				return err
			}
			checkpointed = end
		}
		if l.full() {
			return nil
		}
		if timer != nil && l.n > before {
			timer.Reset(idle)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return nil
		case <-committed:
			committed = l.h.cfg.Ledger.Committed()
			head, err := l.h.cfg.Ledger.Head(ctx)
			if err != nil {
				return err
			}
			end = max(end, head.Offsets[l.h.cfg.Participant])
		}
	}
}

// checkpoint is the offset checkpoint after an update: its offset, and
// its synchronizer's record time.
func checkpoint(u *ledger.ParticipantUpdate) JsGetUpdatesResponse {
	return JsGetUpdatesResponse{Update: Update{OffsetCheckpoint: &Wrapped[OffsetCheckpoint]{Value: OffsetCheckpoint{
		Offset: int64(u.Offset),
		SynchronizerTimes: []SynchronizerTime{{
			SynchronizerID: string(u.Transaction.Synchronizer), RecordTime: u.Transaction.RecordTime.String(),
		}},
	}}}}
}

// scan reads (after, until] page by page and adds what the request
// selects, until it has take elements.
func (l *lister) scan(ctx context.Context, pr *projector, after, until ledger.Offset, descending bool) error {
	for after < until && !l.full() {
		page, err := l.h.cfg.Ledger.Updates(ctx, ledger.UpdateQuery{
			Participant: l.h.cfg.Participant, After: after, Until: until, Limit: pageSize, Descending: descending,
		})
		if err != nil {
			return err
		}
		for i := range page {
			u := &page[i]
			l.last = u
			if tx, err := pr.transaction(u.Offset, u.Transaction); err != nil {
				return err
			} else if tx != nil {
				if err := l.add(JsGetUpdatesResponse{Update: Update{Transaction: &Wrapped[JsTransaction]{Value: *tx}}}); err != nil {
					return err
				}
				if l.full() {
					return nil
				}
			}
		}
		if len(page) < pageSize {
			return nil
		}
		if descending {
			until = page[len(page)-1].Offset - 1
		} else {
			after = page[len(page)-1].Offset
		}
	}
	return nil
}
