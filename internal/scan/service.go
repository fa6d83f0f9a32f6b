package scan

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// MaxPageSize is the largest page_size, limit or count a Scan read
// accepts, as in Splice.
const MaxPageSize = 1000

// Config describes the SV a Scan belongs to.
type Config struct {
	// DSO is the DSO party, whose view the Scan keeps.
	DSO daml.Party
	// SV is the Scan's own SV party and SVName its name.
	SV     daml.Party
	SVName string
	// AnsAcronym is the name service's acronym ("cns"): entry names end in
	// ".<acronym>".
	AnsAcronym string
	// AmuletName and AmuletAcronym are the name and symbol the registry
	// API gives Amulet (DefaultAmuletName and DefaultAmuletAcronym when
	// empty): Splice configures them per deployment, not on the ledger.
	AmuletName    string
	AmuletAcronym string
}

// Service answers a Scan's reads from its store.
type Service struct {
	Config Config
	Store  Store
	Source Source
	// Registry, when set, caches what the token-standard registry reads;
	// the Ingester that fills Store must have it as its Observer. Nil
	// reads the store on every request.
	Registry *RegistryCache

	// supply caches TotalSupply's sum of the latest snapshot.
	supply supplyCache
}

// CheckLimit applies Splice's bounds on page_size, limit and count.
func CheckLimit(n int64) error {
	switch {
	case n > MaxPageSize:
		return fault.New(fault.InvalidArgument, "Exceeded limit maximum (%d > %d).", n, MaxPageSize)
	case n < 1:
		return fault.New(fault.InvalidArgument, "Limit must be at least 1.")
	}
	return nil
}

// BackfillingComplete reports whether the Scan holds the whole history.
func (s *Service) BackfillingComplete(ctx context.Context) (bool, error) {
	b, err := s.Store.Backfilling(ctx)
	if err != nil {
		return false, err
	}
	return b.Complete && b.ImportUpdatesComplete, nil
}

// requireBackfilled answers the v1 and v2 update reads with Splice's 503
// until the history is complete.
func (s *Service) requireBackfilled(ctx context.Context) error {
	cur, err := s.Store.Cursor(ctx)
	if err != nil {
		return err
	}
	if cur.Offset == 0 {
		return fault.New(fault.Unavailable, "This scan instance has not yet loaded its updates history. Wait a short time and retry.")
	}
	ok, err := s.BackfillingComplete(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fault.New(fault.Unavailable, "This scan instance has not yet replicated all data. This process can take an extended period of time to complete. Wait until replication is complete, or connect to a different scan instance.")
	}
	return nil
}

// History returns a page of the update history after a position. v1 and
// v2 (imports false) refuse with 503 while backfilling; v0 returns what
// it has.
func (s *Service) History(ctx context.Context, after *HistoryPosition, pageSize int64, imports bool) ([]Update, error) {
	if err := CheckLimit(pageSize); err != nil {
		return nil, err
	}
	if !imports {
		if err := s.requireBackfilled(ctx); err != nil {
			return nil, err
		}
	}
	return s.Store.History(ctx, HistoryQuery{After: after, Limit: int(pageSize), Imports: imports})
}

// Update returns one update by id.
func (s *Service) Update(ctx context.Context, id string) (*Update, error) {
	u, err := s.Store.Update(ctx, id)
	if fault.Is(err, fault.NotFound) {
		return nil, fault.New(fault.NotFound, "Transaction with id %s not found", fault.Clip(id))
	}
	return u, err
}

// UpdatesBefore returns updates before a record time, newest first, for
// Scans that backfill from this one.
func (s *Service) UpdatesBefore(ctx context.Context, q BeforeQuery) ([]Update, error) {
	if err := CheckLimit(int64(q.Limit)); err != nil {
		return nil, err
	}
	return s.Store.UpdatesBefore(ctx, q)
}

// MigrationInfo is what Scan reports of one migration for backfilling.
type MigrationInfo struct {
	Previous              *int64
	Ranges                []RecordTimeRange
	LastImportUpdateID    string
	Complete              bool
	ImportUpdatesComplete bool
}

// MigrationInfo returns what the Scan holds of a migration. A migration it
// holds no update of is a fault.NotFound. complete is per migration, as
// sandnet's interface defines it: the Scan holds all the migration's
// non-import updates when its history is complete or, for a Scan that is
// still backfilling, when the migration is not the oldest it holds (it
// backfills the newest migration first). import_updates_complete is the
// Scan's: import updates are backfilled last, for every migration.
func (s *Service) MigrationInfo(ctx context.Context, migration int64) (MigrationInfo, error) {
	migs, err := s.Store.Migrations(ctx)
	if err != nil {
		return MigrationInfo{}, err
	}
	i := slices.IndexFunc(migs, func(m Migration) bool { return m.ID == migration })
	if i < 0 || len(migs[i].Ranges) == 0 {
		return MigrationInfo{}, fault.New(fault.NotFound, "No data for migration %d", migration)
	}
	b, err := s.Store.Backfilling(ctx)
	if err != nil {
		return MigrationInfo{}, err
	}
	m := migs[i]
	info := MigrationInfo{
		Ranges:                m.Ranges,
		LastImportUpdateID:    m.LastImportUpdateID,
		Complete:              b.Complete || i > 0,
		ImportUpdatesComplete: b.ImportUpdatesComplete,
	}
	if i > 0 {
		prev := migs[i-1].ID
		info.Previous = &prev
	}
	return info, nil
}

// ImportUpdates returns a migration's import updates after an update id.
// A migration the Scan holds nothing of is a fault.NotFound.
func (s *Service) ImportUpdates(ctx context.Context, migration int64, after string, limit int64) ([]Update, error) {
	if err := CheckLimit(limit); err != nil {
		return nil, err
	}
	migs, err := s.Store.Migrations(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(migs, func(m Migration) bool { return m.ID == migration && m.HasUpdates }) {
		return nil, fault.New(fault.NotFound, "No data for migration %d", migration)
	}
	return s.Store.ImportUpdates(ctx, migration, after, int(limit))
}

// SnapshotTimestamp returns the latest snapshot of a migration at or
// before t (inclusive, as Splice's snapshot-timestamp is).
func (s *Service) SnapshotTimestamp(ctx context.Context, migration int64, before daml.Timestamp) (daml.Timestamp, error) {
	snap, err := s.Store.SnapshotAtOrBefore(ctx, migration, before)
	if fault.Is(err, fault.NotFound) {
		return 0, fault.New(fault.NotFound, "No snapshots found before %s", before)
	}
	return snap.RecordTime, err
}

// SnapshotTimestampAfter returns the earliest snapshot after t in the
// migration or, failing that, in a later one.
func (s *Service) SnapshotTimestampAfter(ctx context.Context, migration int64, after daml.Timestamp) (Snapshot, error) {
	snap, err := s.Store.SnapshotAfter(ctx, migration, after)
	if fault.Is(err, fault.NotFound) {
		return Snapshot{}, fault.New(fault.NotFound, "No snapshots found after %s", after)
	}
	return snap, err
}

// AcsRequest asks for a page of an ACS snapshot.
type AcsRequest struct {
	Migration  int64
	RecordTime daml.Timestamp
	// AtOrBefore uses the latest snapshot at or before RecordTime;
	// otherwise RecordTime must be a snapshot's time exactly.
	AtOrBefore bool
	// After is the last row of the previous page, from its token (0: the
	// first page): a row number on /v0 and /v1, whose range check alone
	// ties it to the snapshot, as in Splice.
	After int64
	// Resume, from a /v2 page token, is where the previous page ended;
	// the request must resolve to the snapshot it names. It takes the
	// place of After.
	Resume   *PagePosition
	PageSize int64
	// Parties keeps contracts one of them is a stakeholder of; empty means
	// the DSO party, which is a stakeholder of every contract a snapshot
	// holds.
	Parties   []daml.Party
	Templates []TemplateKey
}

// AcsPage is a page of an ACS snapshot.
type AcsPage struct {
	Snapshot Snapshot
	Rows     []SnapshotRow
	// Next is the row to pass as After for the next page, 0 when the page
	// is not full (a full last page is followed by an empty one, as in
	// Splice).
	Next int64
}

// Acs returns a page of the snapshot a request names.
func (s *Service) Acs(ctx context.Context, r AcsRequest) (AcsPage, error) {
	if err := CheckLimit(r.PageSize); err != nil {
		return AcsPage{}, err
	}
	snap, err := s.Store.SnapshotAtOrBefore(ctx, r.Migration, r.RecordTime)
	switch {
	case fault.Is(err, fault.NotFound) && r.AtOrBefore:
		return AcsPage{}, fault.New(fault.NotFound, "No snapshots found before %s", r.RecordTime)
	case err == nil && !r.AtOrBefore && snap.RecordTime != r.RecordTime, fault.Is(err, fault.NotFound):
		return AcsPage{}, fault.New(fault.NotFound, "Failed to find ACS snapshot for migration id %d at %s", r.Migration, r.RecordTime)
	case err != nil:
		return AcsPage{}, err
	}
	if p := r.Resume; p != nil {
		if p.Migration != snap.Migration || p.RecordTime != snap.RecordTime {
			return AcsPage{}, fault.New(fault.InvalidArgument,
				"Invalid page token: it continues the snapshot of migration %d at %s, and this request names the one of migration %d at %s",
				p.Migration, p.RecordTime, snap.Migration, snap.RecordTime)
		}
		r.After = p.Row
	}
	if r.After != 0 && (r.After < snap.FirstRow || r.After > snap.LastRow) {
		return AcsPage{}, fault.New(fault.InvalidArgument, "Invalid after token, outside of snapshot range (%d to %d).", snap.FirstRow, snap.LastRow)
	}
	parties := r.Parties
	if len(parties) == 0 {
		parties = []daml.Party{s.Config.DSO}
	}
	rows, err := s.Store.SnapshotPage(ctx, SnapshotQuery{
		Snapshot: snap, After: r.After, Limit: int(r.PageSize), Parties: parties, Templates: r.Templates,
	})
	if err != nil {
		return AcsPage{}, err
	}
	// A contract created in an earlier migration came into this one by an
	// import: it has no creating update in this migration's history, so
	// created_in_update_id is left out, as the interface says.
	for i := range rows {
		if rows[i].Contract.MigrationID < snap.Migration {
			rows[i].Imported = true
		}
	}
	page := AcsPage{Snapshot: snap, Rows: rows}
	if int64(len(rows)) == r.PageSize {
		page.Next = rows[len(rows)-1].Row
	}
	return page, nil
}

// PagePosition is where a page of /v2/state/acs ended: a row of the
// snapshot it paged, and that snapshot. It is what the opaque page token
// carries.
type PagePosition struct {
	// Migration and RecordTime name the snapshot.
	Migration  int64
	RecordTime daml.Timestamp
	// Row is the last row of the page.
	Row int64
}

// PageToken renders the opaque token of /v2/state/acs: the row to resume
// after and the snapshot it is a row of. It is bound to the snapshot and
// not to the request's literal parameters, as Splice's row number is, so
// that any request resolving to the same snapshot may continue with it
// (an `at_or_before` first page continued with the resolved time and
// `exact`), while a token of another snapshot is refused by [Service.Acs].
func PageToken(snap Snapshot, row int64) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d.%d.%d", row, snap.Migration, int64(snap.RecordTime)))
}

// ParsePageToken reads a token of PageToken.
func ParsePageToken(token string) (PagePosition, error) {
	bad := fault.New(fault.InvalidArgument, "Invalid page token %s: pass the next_page_token of an earlier request for the same snapshot", fault.Quote(token))
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return PagePosition{}, bad
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 3 {
		return PagePosition{}, bad
	}
	var n [3]int64
	for i, part := range parts {
		if n[i], err = strconv.ParseInt(part, 10, 64); err != nil {
			return PagePosition{}, bad
		}
	}
	if n[0] <= 0 || n[1] < 0 {
		return PagePosition{}, bad
	}
	return PagePosition{Row: n[0], Migration: n[1], RecordTime: daml.Timestamp(n[2])}, nil
}

// Active returns the DSO party's active contracts of some templates, in
// creation order.
func (s *Service) Active(ctx context.Context, templates ...TemplateKey) ([]*ledger.Contract, error) {
	return s.Store.ActiveContracts(ctx, ContractQuery{Templates: templates})
}

// VoteRequest returns an active vote request.
func (s *Service) VoteRequest(ctx context.Context, id daml.ContractID, voteRequest TemplateKey) (*ledger.Contract, error) {
	c, active, err := s.Store.Contract(ctx, id)
	if err != nil && !fault.Is(err, fault.NotFound) {
		return nil, err
	}
	if err != nil || !active || KeyOf(c.Template) != voteRequest {
		return nil, fault.New(fault.NotFound, "No VoteRequest found contract: %s", fault.Clip(string(id)))
	}
	return c, nil
}

// ParticipantsOf returns the participants hosting a party on a
// synchronizer.
func (s *Service) ParticipantsOf(ctx context.Context, synchronizer ledger.SynchronizerID, party daml.Party) ([]ledger.ParticipantID, error) {
	ps, err := s.Source.Hostings(ctx, synchronizer, party)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fault.New(fault.NotFound, "Party not found: %s", fault.Clip(string(party)))
	}
	return ps, nil
}

// Now returns the ledger's current time, against which name entries
// expire.
func (s *Service) Now(ctx context.Context) (daml.Timestamp, error) { return s.Source.Now(ctx) }
