package ledgerapi

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// pageSize is how many updates one store read returns: a list or a
// stream holds at most one page of decoded updates at a time.
const pageSize = 256

// updates serves POST /v2/updates and /v2/updates/flats, which Canton
// runs with the same handler: a blocking list of the participant's
// updates between two offsets.
//
// The request is decoded (400 text/plain), checked for the JSON layer's
// filter-or-updateFormat rule, authenticated and authorized, validated
// (offsets, format, ledger end) and its filters resolved, and its range
// checked against the pruned offset, before anything is read. A list over the node limit is refused with 413 before any of it
// is sent, as Canton does.
//
// A bounded list is streamed (see stream.go): its range ends at or before
// the ledger end read during validation, and committed updates never
// change, so counting the range and then reading it again for the
// response see the same updates. An open-ended list waits for commits
// until it has take elements or is idle, so what it returns is only known
// at its end: it is collected, up to take elements, and sent whole.
func (h *Handler) updates(w http.ResponseWriter, r *http.Request) error {
	return h.updatesList(w, r, false)
}

// updateTrees serves the deprecated POST /v2/updates/trees: the same
// list, read and checked the same way, with each transaction rendered as
// a transaction tree (see tree.go).
func (h *Handler) updateTrees(w http.ResponseWriter, r *http.Request) error {
	return h.updatesList(w, r, true)
}

func (h *Handler) updatesList(w http.ResponseWriter, r *http.Request, trees bool) error {
	q, params, take, err := readList(h, w, r, func(r *http.Request, body []byte) (*updatesQuery, error) {
		return h.prepareUpdates(r, body, trees)
	})
	if err != nil || take == 0 {
		return err
	}
	if !q.plan.openEnded {
		return h.boundedList(w, r, q.plan, take)
	}
	out := newListBody(w, math.MaxInt)
	l := &lister{h: h, plan: q.plan, take: take, emit: out.add}
	return h.openEndedList(r.Context(), params, out, l, q.plan.begin, q.ledgerEnd, q.committed)
}

// openEndedList answers an open-ended list: f, whose elements go to out,
// followed from begin (the ledger end end, read after the commit signal
// committed was taken) until it has its elements or none came for the
// idle timeout (stream_idle_timeout_ms, or the node's list wait time).
// Since what it returns is only known at its end, it is collected and
// sent whole, or refused with 413 when it is over the node limit.
func (h *Handler) openEndedList(ctx context.Context, params listParams, out *listBody, f follower, begin, end ledger.Offset, committed <-chan struct{}) error {
	idle := h.cfg.ListWaitTime
	if params.IdleTimeout != nil {
		idle = time.Duration(min(*params.IdleTimeout, int64(math.MaxInt64/time.Millisecond))) * time.Millisecond
	}
	if err := h.follow(ctx, f, begin, end, committed, idle); err != nil {
		return err
	}
	if n := f.emitted(); n > h.cfg.MaxListElements {
		return overLimit(n, h.cfg.MaxListElements)
	}
	return out.finish()
}

// listTake is how many elements a list reads at most: one more than the
// node limit, so that a list over it is refused with 413 rather than cut,
// as Canton does, or the request's smaller limit. ok is false for a limit
// of 0 or less, which is an empty list.
func (h *Handler) listTake(params listParams) (take int, ok bool) {
	take = h.cfg.MaxListElements + 1
	if params.Limit != nil {
		if *params.Limit <= 0 {
			return 0, false
		}
		if *params.Limit < int64(take) {
			take = int(*params.Limit)
		}
	}
	return take, true
}

// boundedList streams the list of (begin, end], in either order, at most
// take elements.
//
// The first pass renders into the response's buffer. When the list ends
// before the buffer is full, it is sent whole (or refused with 413). When
// the buffer fills first, the rest of the range is counted, without
// rendering, up to the node limit — unless the range is too short to hold
// more elements than the limit allows (each update is one element at
// most) or take is within the limit; then the response starts and the
// rest is rendered and written as it is read.
func (h *Handler) boundedList(w http.ResponseWriter, r *http.Request, plan *updatePlan, take int) error {
	ctx := r.Context()
	nodeLimit := h.cfg.MaxListElements
	out := newListBody(w, h.cfg.ListBufferBytes)
	l := &lister{h: h, plan: plan, take: take, emit: out.add}
	pr := l.projector()
	after, until := plan.begin, plan.end
	err := l.scan(ctx, pr, after, until, plan.descending)
	if err == nil {
		if l.n > nodeLimit {
			return overLimit(l.n, nodeLimit)
		}
		return out.finish()
	}
	if !errors.Is(err, errOverBudget) {
		return err
	}
	// Resume after the update that filled the buffer.
	if plan.descending {
		until = l.last.Offset - 1
	} else {
		after = l.last.Offset
	}
	if take > nodeLimit && l.n+int(min(until-after, ledger.Offset(nodeLimit))) > nodeLimit {
		more, err := l.count(ctx, pr, after, until, plan.descending, nodeLimit+1-l.n)
		if err != nil {
			return err
		}
		if l.n+more > nodeLimit {
			return overLimit(l.n+more, nodeLimit)
		}
	}
	if err := out.start(); err != nil {
		return h.abort(ctx, r, err)
	}
	if err := l.scan(ctx, pr, after, until, plan.descending); err != nil {
		return h.abort(ctx, r, err)
	}
	if err := out.finish(); err != nil {
		return h.abort(ctx, r, err)
	}
	return nil
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
// authentication of r and authorization, validation, the ledger end, the
// resolution of the filters' names, and the pruned offset. trees asks
// for the deprecated tree rendering, whose transactions are always of the
// LEDGER_EFFECTS shape (a tree has no archived events); a given
// updateFormat's shape is still validated.
func (h *Handler) prepareUpdates(r *http.Request, body []byte, trees bool) (*updatesQuery, error) {
	req, err := decodeGetUpdatesRequest(body)
	if err != nil {
		return nil, err
	}
	uf, err := effectiveFormat(req, trees)
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
	if trees {
		plan.trees = true
		if plan.transactions != nil {
			plan.shape = ledgerEffects
		}
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
	// The pruned offset comes from the same Head as the ledger end. A
	// request may begin at it, never before it.
	if pruned := head.Pruned[h.cfg.Participant]; plan.begin < pruned {
		end := plan.end
		if plan.openEnded {
			end = ledgerEnd
		}
		return nil, updatesPruned(plan.begin, end, pruned)
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
	// replay marks a read from the start of the stream whatever was
	// pruned (the active contracts replay), which pages does not check
	// for pruning.
	replay bool
	// parties, when set, are the plan's witnessFilter, passed to every
	// page read (see pages).
	parties    []daml.Party
	partiesSet bool
}

// witnessFilter is the plan's witnessFilter, computed once, or nil when
// it names a party the participant does not host: the store indexes a
// transaction in a participant's stream only under the informees the
// participant hosts (see ledger.UpdateQuery.Parties), and such a request
// (an admin's read of a party hosted elsewhere, rare) reads the whole
// stream instead, so that it still sees what the party witnesses there.
func (l *lister) witnessFilter() []daml.Party {
	if !l.partiesSet {
		l.parties, l.partiesSet = l.plan.witnessFilter(), true
		if len(l.parties) > 0 {
			hosted := l.h.cfg.Ledger.HostedParties(l.h.cfg.Participant)
			for _, p := range l.parties {
				if _, ok := slices.BinarySearch(hosted, p); !ok {
					l.parties = nil
					break
				}
			}
		}
	}
	return l.parties
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

// follower is a stream that follow tails: the updates and the
// completions.
type follower interface {
	// scanRange adds the stream's elements in (after, until].
	scanRange(ctx context.Context, after, until ledger.Offset) error
	// addCheckpoint adds the offset checkpoint at end, a ledger end the
	// stream has caught up with, or reports false when it has none to
	// add. at is the network's watermark, which belongs to end when exact
	// (see Handler.checkpointAt).
	addCheckpoint(ctx context.Context, end ledger.Offset, at daml.Timestamp, exact bool) (bool, error)
	// full reports whether the stream has all the elements it may take.
	full() bool
	// emitted counts the elements added so far.
	emitted() int
}

// follow lists a stream from begin to the ledger end, end, then follows
// new commits. Each time it has caught up with a ledger end past what it
// has reported, it adds an offset checkpoint there, carrying the
// network's watermark at that end (Ledger.Watermark). It stops when the
// stream is full, or when no element came for idle; a negative idle never
// expires. committed is the commit signal taken before end was read.
func (h *Handler) follow(ctx context.Context, f follower, begin, end ledger.Offset, committed <-chan struct{}, idle time.Duration) error {
	cursor, checkpointed := begin, begin
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
		before := f.emitted()
		if cursor < end {
			if err := f.scanRange(ctx, cursor, end); err != nil {
				return err
			}
			cursor = end
		}
		for !f.full() && end > checkpointed {
			// The checkpoint carries the synchronizer time at the ledger
			// end. Commits that landed since end was read are read
			// first, so that it is at the end the watermark belongs to.
			wend, at, err := h.cfg.Ledger.Watermark(ctx, h.cfg.Participant)
			if err != nil {
				return err
			}
			if wend > end {
				if err := f.scanRange(ctx, cursor, wend); err != nil {
					return err
				}
				cursor, end = wend, wend
				continue
			}
			ok, err := f.addCheckpoint(ctx, end, at, wend == end)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			checkpointed = end
		}
		if f.full() {
			return nil
		}
		if timer != nil && f.emitted() > before {
			timer.Reset(idle)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return nil
		case <-committed:
			committed = h.cfg.Ledger.Committed()
			head, err := h.cfg.Ledger.Head(ctx)
			if err != nil {
				return err
			}
			end = max(end, head.Offsets[h.cfg.Participant])
		}
	}
}

func (l *lister) emitted() int { return l.n }

func (l *lister) scanRange(ctx context.Context, after, until ledger.Offset) error {
	return l.scan(ctx, l.projector(), after, until, false)
}

// addCheckpoint adds the checkpoint at end with the synchronizer and
// record time of the update there.
func (l *lister) addCheckpoint(ctx context.Context, end ledger.Offset, at daml.Timestamp, exact bool) (bool, error) {
	u, err := l.updateAt(ctx, end)
	if err != nil {
		return false, err
	}
	var sync ledger.SynchronizerID
	var rt daml.Timestamp
	if u != nil {
		sync, rt = u.Synchronizer(), u.RecordTime()
	}
	cp, ok, err := l.h.checkpointAt(ctx, end, at, exact, sync, rt)
	if err != nil || !ok {
		return false, err
	}
	return true, l.add(JsGetUpdatesResponse{Update: Update{OffsetCheckpoint: &Wrapped[OffsetCheckpoint]{Value: cp}}})
}

// updateAt returns the update at end, which the offset checkpoint there
// takes its record time from: the last update read, or, when a
// party-filtered read skipped it, that update read by itself. It is nil
// when the store has none at end: the offset of a rejected command's
// completion, which no update has.
func (l *lister) updateAt(ctx context.Context, end ledger.Offset) (*ledger.ParticipantUpdate, error) {
	if l.last != nil && l.last.Offset == end {
		return l.last, nil
	}
	if len(l.witnessFilter()) == 0 || end <= 0 {
		return nil, nil
	}
	page, err := l.h.cfg.Ledger.Updates(ctx, ledger.UpdateQuery{Participant: l.h.cfg.Participant, After: end - 1, Until: end, Limit: 1})
	if err != nil || len(page) == 0 || page[0].Offset != end {
		return nil, err
	}
	return &page[0], nil
}

// checkpointAt is the offset checkpoint at end. When the stream knows
// what is at end (sync set: an update, a completion), the checkpoint has
// its synchronizer, at the watermark at when exact (the watermark was
// read at this ledger end) and at its record time rt otherwise. A stream
// with nothing of its own at end (a gap: the offset of a rejected
// command's completion in the update stream, or an element the stream
// does not select) has the synchronizers of the current migration at the
// watermark, which needs exact; ok is false otherwise.
func (h *Handler) checkpointAt(ctx context.Context, end ledger.Offset, at daml.Timestamp, exact bool, sync ledger.SynchronizerID, rt daml.Timestamp) (cp OffsetCheckpoint, ok bool, err error) {
	cp = OffsetCheckpoint{Offset: int64(end)}
	if sync != "" {
		if !exact {
			at = rt
		}
		cp.SynchronizerTimes = []SynchronizerTime{{SynchronizerID: string(sync), RecordTime: at.String()}}
		return cp, true, nil
	}
	if !exact {
		return cp, false, nil
	}
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return cp, false, err
	}
	syncs, err := h.cfg.Ledger.Synchronizers(ctx)
	if err != nil {
		return cp, false, err
	}
	for _, s := range syncs {
		if s.MigrationID == head.MigrationID {
			cp.SynchronizerTimes = append(cp.SynchronizerTimes, SynchronizerTime{SynchronizerID: string(s.ID), RecordTime: at.String()})
		}
	}
	return cp, len(cp.SynchronizerTimes) > 0, nil
}

// pages reads (after, until] of the participant's stream page by page,
// in the given order, and calls each for every update until it returns
// false or an error.
//
// When every filter of the request names its parties, the pages come
// from the store's per-party index (UpdateQuery.Parties): only updates in
// which one of them witnesses a node, a superset of what the request
// selects (see updatePlan.witnessFilter). The active contracts replay
// reads them too: a contract is in a party's snapshot only if the party
// is one of its stakeholders, and its stakeholders witness its creation,
// its archival (a consuming exercise's informees include them) and its
// reassignments, so the party's index holds every update that changes
// its snapshot, and the replay costs the party's history rather than the
// participant's. Any-party filters still read the whole stream.
//
// The request was checked against the pruned offset when it was prepared,
// but a prune can land between that check and a page read. Pruning
// deletes no stream entries today, so the pages stay whole; as a defence
// against a store that would drop them, a page that does not start (or,
// descending, end) right after after may be missing updates: the stream's
// offsets have no gaps, but a party-filtered read skips the updates its
// parties do not see, so a gap alone proves nothing. pages then reads the
// Head again and refuses the request when the pruned offset has passed
// after. Before the response has started
// this is the request's error; after, the response is aborted.
func (l *lister) pages(ctx context.Context, after, until ledger.Offset, descending bool, each func(u *ledger.ParticipantUpdate) (bool, error)) error {
	parties := l.witnessFilter()
	read := func(ctx context.Context, after, until ledger.Offset) ([]ledger.ParticipantUpdate, error) {
		return l.h.cfg.Ledger.Updates(ctx, ledger.UpdateQuery{
			Participant: l.h.cfg.Participant, After: after, Until: until, Limit: pageSize, Descending: descending,
			Parties: parties,
		})
	}
	// A full page is followed by a read of the next one in a goroutine
	// while it is handed to each: at most one page ahead, and waited for
	// (cancelled when each stops) before pages returns. Its result, or
	// its error, is used exactly where the sequential read would be.
	var next chan pageRead
	rctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		if next != nil {
			<-next
		}
	}()
	for after < until {
		var page []ledger.ParticipantUpdate
		var err error
		if next != nil {
			r := <-next
			next = nil
			page, err = r.page, r.err
		} else {
			page, err = read(ctx, after, until)
		}
		if err != nil {
			return err
		}
		if !l.replay && startsAfterGap(page, after, descending) {
			if err := l.checkPruned(ctx, after, until); err != nil {
				return err
			}
		}
		if len(page) == pageSize {
			nextAfter, nextUntil := after, until
			if descending {
				nextUntil = page[len(page)-1].Offset - 1
			} else {
				nextAfter = page[len(page)-1].Offset
			}
			if nextAfter < nextUntil {
				ch := make(chan pageRead, 1)
				next = ch
				go func() {
					p, err := read(rctx, nextAfter, nextUntil)
					ch <- pageRead{p, err}
				}()
			}
		}
		for i := range page {
			if more, err := each(&page[i]); err != nil || !more {
				return err
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

// pageRead is the outcome of a page read ahead by lister.pages.
type pageRead struct {
	page []ledger.ParticipantUpdate
	err  error
}

// startsAfterGap reports whether a page read after after does not hold
// the update right after it, so that it may be missing (see pages): an
// ascending page that does not start at after+1, and the last page of a
// descending read that does not end there.
func startsAfterGap(page []ledger.ParticipantUpdate, after ledger.Offset, descending bool) bool {
	switch {
	case len(page) == 0:
		return true
	case !descending:
		return page[0].Offset > after+1
	default:
		return len(page) < pageSize && page[len(page)-1].Offset > after+1
	}
}

// checkPruned reads the Head again and refuses the request when its
// participant's stream is now pruned past after.
func (l *lister) checkPruned(ctx context.Context, after, until ledger.Offset) error {
	head, err := l.h.cfg.Ledger.Head(ctx)
	if err != nil {
		return err
	}
	pruned := head.Pruned[l.h.cfg.Participant]
	if after >= pruned {
		return nil
	}
	end := l.plan.end
	if l.plan.openEnded {
		end = until
	}
	return updatesPruned(l.plan.begin, end, pruned)
}

// scan reads (after, until] and adds what the request selects, until it
// has take elements.
func (l *lister) scan(ctx context.Context, pr *projector, after, until ledger.Offset, descending bool) error {
	if l.full() {
		return nil
	}
	return l.pages(ctx, after, until, descending, func(u *ledger.ParticipantUpdate) (bool, error) {
		l.last = u
		upd, ok, err := pr.update(u)
		if err != nil || !ok {
			return true, err
		}
		var el any = JsGetUpdatesResponse{Update: upd}
		if l.plan.trees {
			el = JsGetUpdateTreesResponse{Update: treeUpdate(upd)}
		}
		if err := l.add(el); err != nil {
			return false, err
		}
		return !l.full(), nil
	})
}

// count counts the updates of (after, until] the request selects, up to
// max, without rendering them.
func (l *lister) count(ctx context.Context, pr *projector, after, until ledger.Offset, descending bool, max int) (int, error) {
	n := 0
	if max <= 0 {
		return 0, nil
	}
	err := l.pages(ctx, after, until, descending, func(u *ledger.ParticipantUpdate) (bool, error) {
		if u.Reassignment != nil {
			if pr.reassignmentMatch(u.Reassignment).ok() {
				n++
			}
			return n < max, nil
		}
		if u.Topology != nil {
			if pr.topology(u.Offset, u.Topology) != nil {
				n++
			}
		} else if pr.selects(u.Transaction) {
			n++
		}
		return n < max, nil
	})
	return n, err
}
