package ledgerclient

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// The wire shapes of a GetUpdatesRequest the client sends.

type updatesRequest struct {
	BeginExclusive int64         `json:"beginExclusive"`
	EndInclusive   *int64        `json:"endInclusive,omitempty"`
	UpdateFormat   *updateFormat `json:"updateFormat"`
}

type updateFormat struct {
	IncludeTransactions  *transactionFormat `json:"includeTransactions,omitempty"`
	IncludeReassignments *eventFormat       `json:"includeReassignments,omitempty"`
}

type transactionFormat struct {
	EventFormat      *eventFormat `json:"eventFormat"`
	TransactionShape string       `json:"transactionShape"`
}

type eventFormat struct {
	FiltersByParty map[daml.Party]filters `json:"filtersByParty"`
	Verbose        bool                   `json:"verbose"`
}

type filters struct {
	Cumulative []cumulativeFilter `json:"cumulative"`
}

type cumulativeFilter struct {
	IdentifierFilter map[string]wrapped `json:"identifierFilter"`
}

type wrapped struct {
	Value any `json:"value"`
}

type wildcardFilter struct {
	IncludeCreatedEventBlob bool `json:"includeCreatedEventBlob"`
}

// dsoEvents is every event the DSO party witnesses, verbose, without
// created event blobs.
func (c *Client) dsoEvents() *eventFormat {
	return &eventFormat{
		FiltersByParty: map[daml.Party]filters{c.cfg.Party: {Cumulative: []cumulativeFilter{{
			IdentifierFilter: map[string]wrapped{"WildcardFilter": {Value: wildcardFilter{}}},
		}}}},
		Verbose: true,
	}
}

// updates is the format Read lists: the DSO party's transactions in the
// LEDGER_EFFECTS shape, and the reassignments of the contracts the DSO
// party is a stakeholder of (the ledger API shows a reassignment to the
// listed parties among the contract's stakeholders), as the in-process
// source keeps them.
func (c *Client) updates() *updateFormat {
	return &updateFormat{
		IncludeTransactions:  &transactionFormat{EventFormat: c.dsoEvents(), TransactionShape: "TRANSACTION_SHAPE_LEDGER_EFFECTS"},
		IncludeReassignments: c.dsoEvents(),
	}
}

// checkpointsOnly is a format that selects few updates: the DSO party's
// reassignments, which are rare. An open-ended list of it holds offset
// checkpoints, which Canton adds to every open-ended list whatever its
// format, and those reassignments, which the callers skip.
func (c *Client) checkpointsOnly() *updateFormat {
	return &updateFormat{IncludeReassignments: c.dsoEvents()}
}

// list posts a GetUpdatesRequest and returns its elements. idle, when not
// negative, is the open-ended list's stream_idle_timeout_ms.
func (c *Client) list(ctx context.Context, req updatesRequest, limit int, idle time.Duration) ([]ledgerapi.JsGetUpdatesResponse, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if idle >= 0 {
		q.Set("stream_idle_timeout_ms", strconv.FormatInt(idle.Milliseconds(), 10))
	}
	var out []ledgerapi.JsGetUpdatesResponse
	err := c.call(ctx, c.ledgerAPI(), "POST", "/v2/updates", q, req, &out)
	return out, err
}

// LedgerEnd returns the participant's ledger end (GET
// /v2/state/ledger-end).
func (c *Client) LedgerEnd(ctx context.Context) (ledger.Offset, error) {
	var out ledgerapi.GetLedgerEndResponse
	if err := c.call(ctx, c.ledgerAPI(), "GET", "/v2/state/ledger-end", nil, nil, &out); err != nil {
		return 0, err
	}
	return ledger.Offset(out.Offset), nil
}

// Read returns the DSO party's updates after offset after, at most limit
// of them (and at most Config.PageSize): its transactions and the
// reassignments of its contracts. It reads the ledger end first and lists
// (after, end] in the LEDGER_EFFECTS shape; when the batch reaches the
// end, it adds the checkpoint there (see checkpoint). Updates the DSO
// party does not see, topology updates among them, are not listed, but
// the batch's End covers them.
//
// With Config.AdminURL set, the updates' migration ids and the
// checkpoint's migration come from where the admin API says each
// migration starts (see tagMigrations); without it, every update has
// Config.MigrationID and the checkpoint migration 0.
func (c *Client) Read(ctx context.Context, after ledger.Offset, limit int) (scan.Batch, error) {
	batch, err := c.read(ctx, after, limit)
	if err != nil || c.cfg.AdminURL == "" {
		return batch, err
	}
	return batch, c.tagMigrations(ctx, &batch)
}

func (c *Client) read(ctx context.Context, after ledger.Offset, limit int) (scan.Batch, error) {
	if limit <= 0 || limit > c.cfg.PageSize {
		limit = c.cfg.PageSize
	}
	end, err := c.LedgerEnd(ctx)
	if err != nil {
		return scan.Batch{}, err
	}
	if after > end {
		return scan.Batch{}, fault.WithCode(fault.OutOfRange, "OFFSET_AFTER_LEDGER_END",
			"offset %d is after the ledger end %d of %s", after, end, c.cfg.BaseURL)
	}
	batch := scan.Batch{End: after}
	full, err := c.readRange(ctx, &batch, end, limit)
	if err != nil || full || end == 0 {
		return batch, err
	}
	cp, ok, err := c.checkpoint(ctx, end)
	if err != nil || !ok {
		return batch, err
	}
	if cp.Offset > end {
		// Commits landed since the ledger end was read: the checkpoint
		// is at a later end, which the batch must reach to carry it.
		if full, err := c.readRange(ctx, &batch, cp.Offset, limit); err != nil || full {
			return batch, err
		}
	}
	batch.Checkpoint = cp
	return batch, nil
}

// readRange lists (batch.End, until] into batch, up to limit updates in
// all, and moves batch.End: to until when the list ended there, or to the
// last update when it filled the batch first (full).
func (c *Client) readRange(ctx context.Context, batch *scan.Batch, until ledger.Offset, limit int) (full bool, err error) {
	if batch.End >= until {
		return false, nil
	}
	take := limit - len(batch.Updates)
	end := int64(until)
	list, err := c.list(ctx, updatesRequest{BeginExclusive: int64(batch.End), EndInclusive: &end, UpdateFormat: c.updates()}, take, -1)
	if err != nil {
		return false, err
	}
	n := 0
	for i := range list {
		var up scan.Update
		switch u := list[i].Update; {
		case u.Transaction != nil:
			if up, err = c.update(&u.Transaction.Value); err != nil {
				return false, err
			}
		case u.Reassignment != nil:
			r, err := DecodeReassignment(&u.Reassignment.Value, c.cfg.Registry, c.cfg.MigrationID)
			if err != nil {
				return false, err
			}
			if r.Kind == ledger.Assigned {
				o, ok, err := c.origin(ctx, r.Contract.ID, r.Contract.Template, ledger.Offset(u.Reassignment.Value.Offset))
				if err != nil {
					return false, err
				}
				if ok {
					r.Contract.CreatedBy = o.updateID
				}
			}
			up = scan.Update{Offset: ledger.Offset(u.Reassignment.Value.Offset), Reassignment: r}
		default:
			continue // a bounded list has no checkpoints; no topology was asked for
		}
		batch.Updates = append(batch.Updates, up)
		batch.End = up.Offset
		n++
	}
	if n >= take && batch.End < until {
		return true, nil
	}
	batch.End = until
	return n >= take, nil
}

// checkpoint returns the offset checkpoint at the participant's ledger
// end, end or later: that of an open-ended list that begins just before
// end (a list that begins at the end gets no checkpoint until something
// is committed) and selects almost nothing (checkpointsOnly), with an
// idle timeout of 0 and a limit of 2, so that it answers at once with the
// checkpoint, after the update at end when that is a reassignment of the
// DSO party's. Its time is the network's watermark there, which every
// later update's record time is after. This reads at most one update on
// the server and transfers at most that one; a bounded list never
// carries a checkpoint. ok is false when there is none to be had: at offset 0,
// or when the participant's stream is pruned up to its end.
func (c *Client) checkpoint(ctx context.Context, end ledger.Offset) (scan.Checkpoint, bool, error) {
	if end <= 0 {
		return scan.Checkpoint{}, false, nil
	}
	list, err := c.list(ctx, updatesRequest{BeginExclusive: int64(end - 1), UpdateFormat: c.checkpointsOnly()}, 2, 0)
	if isCode(err, "PARTICIPANT_PRUNED_DATA_ACCESSED") {
		return scan.Checkpoint{}, false, nil
	}
	if err != nil {
		return scan.Checkpoint{}, false, err
	}
	for i := len(list) - 1; i >= 0; i-- {
		if cp := list[i].Update.OffsetCheckpoint; cp != nil {
			return c.decodeCheckpoint(&cp.Value)
		}
	}
	return scan.Checkpoint{}, false, nil
}

func (c *Client) decodeCheckpoint(cp *ledgerapi.OffsetCheckpoint) (scan.Checkpoint, bool, error) {
	out := scan.Checkpoint{Offset: ledger.Offset(cp.Offset)}
	for _, st := range cp.SynchronizerTimes {
		t, err := daml.ParseTimestamp(st.RecordTime)
		if err != nil {
			return scan.Checkpoint{}, false, wrapDecode(err, "checkpoint at %d: record time %q", cp.Offset, st.RecordTime)
		}
		out.RecordTime = max(out.RecordTime, t)
	}
	return out, out.RecordTime != 0, nil
}

// Wait returns when updates after offset after may have been committed,
// once ledger time has reached until (when set), when ctx ends (with
// ctx's error), or after Config.WaitIdle at most, since ledger time may
// move without a commit and the ledger API does not report it. It long
// polls an open-ended list that begins at after and selects almost
// nothing (checkpointsOnly), with a limit of 1: the server answers with
// the checkpoint (or a reassignment of the DSO party's) as soon as its
// ledger end passes after, or empty at the idle timeout.
func (c *Client) Wait(ctx context.Context, after ledger.Offset, until daml.Timestamp) error {
	idle := c.cfg.WaitIdle
	if until != 0 {
		now, err := c.Now(ctx)
		if err != nil {
			return ctxErr(ctx, err)
		}
		if now >= until {
			return nil
		}
		idle = min(idle, time.Duration(until-now)*time.Microsecond+time.Millisecond-1)
	}
	_, err := c.list(ctx, updatesRequest{BeginExclusive: int64(after), UpdateFormat: c.checkpointsOnly()}, 1, idle)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// clockResponse is the admin API's GET /clock.
type clockResponse struct {
	Now string `json:"now"`
}

// Now returns ledger time: the admin API's clock (GET
// /api/sandnet/v0/clock) when Config.AdminURL is set. Otherwise it is the
// watermark of a checkpoint at the ledger end, max(clock − 1µs, last
// record time): the JSON Ledger API has no clock. It then fails with
// fault.Unavailable on an empty stream, which has no checkpoint.
func (c *Client) Now(ctx context.Context) (daml.Timestamp, error) {
	if c.cfg.AdminURL != "" {
		var out clockResponse
		if err := c.call(ctx, c.adminAPI(), "GET", "/api/sandnet/v0/clock", nil, nil, &out); err != nil {
			return 0, err
		}
		t, err := daml.ParseTimestamp(out.Now)
		return t, wrapDecode(err, "admin API clock %q", out.Now)
	}
	end, err := c.LedgerEnd(ctx)
	if err != nil {
		return 0, err
	}
	cp, ok, err := c.checkpoint(ctx, end)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fault.New(fault.Unavailable, "no ledger time yet: %s has no offset checkpoint (set AdminURL to read the clock)", c.cfg.BaseURL)
	}
	return cp.RecordTime, nil
}

// hostingsResponse is the admin API's GET /parties/{party}/hostings.
type hostingsResponse struct {
	Hostings []struct {
		ParticipantID  string `json:"participant_id"`
		SynchronizerID string `json:"synchronizer_id"`
	} `json:"hostings"`
}

// Hostings returns the participants hosting party on synchronizer (on any
// when it is empty), in the order the admin API lists them (GET
// /api/sandnet/v0/parties/{party}/hostings): the JSON Ledger API has no
// read of another participant's hostings. It fails with
// fault.FailedPrecondition when Config.AdminURL is not set.
func (c *Client) Hostings(ctx context.Context, synchronizer ledger.SynchronizerID, party daml.Party) ([]ledger.ParticipantID, error) {
	if c.cfg.AdminURL == "" {
		return nil, fault.New(fault.FailedPrecondition, "party hostings need sandnet's admin API: set ledgerclient.Config.AdminURL")
	}
	var out hostingsResponse
	if err := c.call(ctx, c.adminAPI(), "GET", "/api/sandnet/v0/parties/"+url.PathEscape(string(party))+"/hostings", nil, nil, &out); err != nil {
		return nil, err
	}
	var ps []ledger.ParticipantID
	for _, h := range out.Hostings {
		if synchronizer != "" && h.SynchronizerID != string(synchronizer) {
			continue
		}
		ps = append(ps, ledger.ParticipantID(h.ParticipantID))
	}
	return ps, nil
}

// networkResponse is the part of the admin API's GET /network the client
// reads.
type networkResponse struct {
	Migrations []struct {
		MigrationID  int64 `json:"migration_id"`
		StartOffsets []struct {
			ParticipantID string `json:"participant_id"`
			Offset        int64  `json:"offset"`
		} `json:"start_offsets"`
	} `json:"migrations"`
}

// participantIDResponse is the ledger API's GET /v2/parties/participant-id.
type participantIDResponse struct {
	ParticipantID string `json:"participantId"`
}

// participant returns the id of the participant the client reads, asked
// once of its ledger API: the admin API lists migration starts by
// participant.
func (c *Client) participant(ctx context.Context) (ledger.ParticipantID, error) {
	c.mu.Lock()
	p := c.participantID
	c.mu.Unlock()
	if p != "" {
		return p, nil
	}
	var out participantIDResponse
	if err := c.call(ctx, c.ledgerAPI(), "GET", "/v2/parties/participant-id", nil, nil, &out); err != nil {
		return "", err
	}
	if out.ParticipantID == "" {
		return "", fault.New(fault.Internal, "%s has no participant id", c.cfg.BaseURL)
	}
	c.mu.Lock()
	c.participantID = ledger.ParticipantID(out.ParticipantID)
	c.mu.Unlock()
	return ledger.ParticipantID(out.ParticipantID), nil
}

// migrationStart is where a migration starts in the participant's stream:
// its updates after offset after belong to it (or a later one).
type migrationStart struct {
	id    int64
	after ledger.Offset
}

// tagMigrations sets the migration id of the batch's updates (and of the
// contracts they create) to that of the last migration each is after in
// the participant's stream, and the checkpoint's to the last migration
// started at or before its offset, as the admin API lists the starts
// (GET /api/sandnet/v0/network).
//
// The list is read after the updates: a migration's start is recorded in
// the write that starts it, before any of its updates, so every listed
// update's migration is in it. A migration started after the batch was
// read starts at or after its checkpoint's offset; at it (nothing was
// committed since) the checkpoint carries it, as the in-process source
// does when it reads the head after the migration.
func (c *Client) tagMigrations(ctx context.Context, batch *scan.Batch) error {
	p, err := c.participant(ctx)
	if err != nil {
		return err
	}
	var out networkResponse
	if err := c.call(ctx, c.adminAPI(), "GET", "/api/sandnet/v0/network", nil, nil, &out); err != nil {
		return err
	}
	var starts []migrationStart
	for _, m := range out.Migrations {
		s := migrationStart{id: m.MigrationID}
		for _, o := range m.StartOffsets {
			if ledger.ParticipantID(o.ParticipantID) == p {
				s.after = ledger.Offset(o.Offset)
			}
		}
		starts = append(starts, s)
	}
	// of returns the last migration whose start offset is before offset
	// o (at or before it, when inclusive).
	of := func(o ledger.Offset, inclusive bool) int64 {
		id := c.cfg.MigrationID
		for _, s := range starts {
			if s.after < o || (inclusive && s.after == o) {
				id = s.id
			}
		}
		return id
	}
	for i := range batch.Updates {
		u := &batch.Updates[i]
		setMigration(u, of(u.Offset, false))
		if r := u.Reassignment; r != nil && r.Kind == ledger.Assigned {
			// The contract's own migration is that of its creation, when
			// it was found (see origin).
			c.mu.Lock()
			o, ok := c.origins[r.Contract.ID]
			c.mu.Unlock()
			if ok {
				r.Contract.MigrationID = of(o.offset, false)
			}
		}
	}
	if batch.Checkpoint.RecordTime != 0 {
		batch.Checkpoint.Migration = of(batch.Checkpoint.Offset, true)
	}
	return nil
}

// setMigration sets the migration id of an update and of the contracts
// it creates or assigns: the wire carries none.
func setMigration(u *scan.Update, id int64) {
	if r := u.Reassignment; r != nil {
		r.MigrationID = id
		if r.Contract != nil {
			r.Contract.MigrationID = id
		}
		return
	}
	if t := u.Transaction; t != nil {
		t.MigrationID = id
		for i := range t.Events {
			if c := t.Events[i].Created; c != nil {
				c.MigrationID = id
			}
		}
	}
}
