package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store"
)

// importRecordTime is the record time stored for import updates, which
// have none, and for the creation of the contracts they import: the
// minimum, so that they sort first within their migration (as the Scan
// API lists them) and every snapshot of their migration holds them.
const importRecordTime = math.MinInt64

// Scan is the PostgreSQL implementation of [scan.Store]: a Scan's own
// schema, apart from the ledger's.
type Scan struct {
	pool   *pgxpool.Pool
	schema string
	// buildKey is the advisory lock that serialises BuildSnapshot across
	// processes: the rows of a snapshot must be a contiguous range of row
	// ids, and an incomplete snapshot found under the lock is a crash's
	// leftover, never a build in progress.
	buildKey int64
}

var _ scan.Store = (*Scan)(nil)

// OpenScan connects to the database at url, creates schema if missing,
// applies pending migrations and returns a store whose connections all
// work in schema.
func OpenScan(ctx context.Context, url, schema string) (*Scan, error) {
	pool, _, err := openPool(ctx, "scan", url, schema, "migrations/scan")
	if err != nil {
		return nil, err
	}
	return &Scan{pool: pool, schema: schema, buildKey: lockKey("scan-snapshot", schema)}, nil
}

// Schema returns the schema the store works in.
func (s *Scan) Schema() string { return s.schema }

// Close closes the pool.
func (s *Scan) Close() error {
	s.pool.Close()
	return nil
}

// beginner is what a write needs: the pool, or the connection that holds
// the build lock.
type beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// write runs fn in one READ COMMITTED transaction on db.
func write(ctx context.Context, db beginner, fn func(tx pgx.Tx) error) error {
	tx, err := db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return interpret(err)
	}
	defer func() {
		// A rollback after Commit is a no-op; after a cancelled ctx it must
		// still reach the server, or the connection is discarded.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()
	if err := fn(tx); err != nil {
		return err
	}
	return interpret(tx.Commit(ctx))
}

// Cursor returns where ingestion stands.
func (s *Scan) Cursor(ctx context.Context) (scan.Cursor, error) {
	var c scan.Cursor
	var off, wm int64
	err := s.pool.QueryRow(ctx, `SELECT ledger_offset, watermark, migration_id FROM ingestion WHERE id = 1`).
		Scan(&off, &wm, &c.Migration)
	c.Offset, c.Watermark = ledger.Offset(off), daml.Timestamp(wm)
	return c, interpret(err)
}

// Backfilling returns the backfilling state.
func (s *Scan) Backfilling(ctx context.Context) (scan.Backfilling, error) {
	var b scan.Backfilling
	var rt int64
	err := s.pool.QueryRow(ctx, `SELECT complete, import_updates_complete, start_migration, start_record_time
FROM ingestion WHERE id = 1`).Scan(&b.Complete, &b.ImportUpdatesComplete, &b.Start.Migration, &rt)
	b.Start.RecordTime = daml.Timestamp(rt)
	return b, interpret(err)
}

// The statements of the write path.
const (
	// sqlScanAdvance is the cursor's compare-and-swap. Before the first
	// Ingest any prev is accepted (BeginHistory leaves the cursor as it
	// is), and that Ingest fixes the backfilling state unless BeginHistory
	// has; it never lowers a flag SetBackfilling raised. Under READ
	// COMMITTED a concurrent Ingest waits for the row and then re-checks
	// the condition against the committed cursor, so exactly one of two
	// racing ingesters wins.
	sqlScanAdvance = `UPDATE ingestion SET ledger_offset = $1, watermark = $2, migration_id = $3,
  complete = CASE WHEN started OR begun THEN complete ELSE complete OR $4 END,
  import_updates_complete = CASE WHEN started OR begun THEN import_updates_complete ELSE import_updates_complete OR $4 END,
  started = true
WHERE id = 1 AND (NOT started OR ledger_offset = $5)`
	// sqlScanBegin is BeginHistory: only the first call before the first
	// Ingest fixes the flags, so that a restart that begins again cannot
	// lower flags raised since.
	sqlScanBegin = `UPDATE ingestion SET begun = true,
  complete = complete OR $1, import_updates_complete = import_updates_complete OR $1,
  start_migration = $2, start_record_time = $3
WHERE id = 1 AND NOT started AND NOT begun`
	sqlScanRaise = `UPDATE ingestion SET complete = complete OR $1,
  import_updates_complete = import_updates_complete OR $2 WHERE id = 1`
	// sqlScanLock is Backfill's first statement: it takes the row lock that
	// Ingest's compare-and-swap takes, so a backfill and an ingestion never
	// interleave (one could miss the other's uncommitted contract row or
	// orphaned archive, or both intern the same name).
	sqlScanLock         = `SELECT 1 FROM ingestion WHERE id = 1 FOR UPDATE`
	sqlScanInsertUpdate = `INSERT INTO updates
(update_id, migration_id, record_time, synchronizer, ledger_offset, is_import, created, archived, body)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
	// sqlScanBackfillUpdate skips an update already stored (the unique
	// index on update_id): peers' batches overlap what the Scan holds.
	sqlScanBackfillUpdate = sqlScanInsertUpdate + ` ON CONFLICT (update_id, migration_id) DO NOTHING`
	sqlScanUpsertRange    = `INSERT INTO record_time_ranges (migration_id, synchronizer, min_record_time, max_record_time)
VALUES ($1, $2, $3, $3) ON CONFLICT (migration_id, synchronizer) DO UPDATE SET
  min_record_time = LEAST(record_time_ranges.min_record_time, excluded.min_record_time),
  max_record_time = GREATEST(record_time_ranges.max_record_time, excluded.max_record_time)`
	sqlScanUpsertMigration = `INSERT INTO migrations AS m (migration_id, last_import_update_id) VALUES ($1, $2)
ON CONFLICT (migration_id) DO UPDATE SET last_import_update_id = CASE
  WHEN excluded.last_import_update_id IS NULL THEN m.last_import_update_id
  WHEN m.last_import_update_id IS NULL OR excluded.last_import_update_id > m.last_import_update_id
    THEN excluded.last_import_update_id
  ELSE m.last_import_update_id END`
	// sqlScanInsertContract stores a contract at the position ($4, $5) of
	// the update that brings it, which is also its body's position.
	sqlScanInsertContract = `INSERT INTO contracts
(contract_id, template_id, created_at, created_migration, created_record_time, imported, body, body_migration, body_record_time)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING seq`
	// sqlScanImportContract is sqlScanInsertContract for an import update
	// or an assignment: a contract the Scan already holds (it ingested the
	// earlier migration's creation) keeps its row, and RETURNING gives
	// nothing.
	sqlScanImportContract = `INSERT INTO contracts
(contract_id, template_id, created_at, created_migration, created_record_time, imported, body, body_migration, body_record_time)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (contract_id) DO NOTHING RETURNING seq`
	// Parties and templates are interned: the snapshot tables, written
	// once per contract per snapshot, then hold small integers, not the
	// long names (a seventh of the bytes written per snapshot row). Only
	// the ingester that won the cursor's compare-and-swap, or a backfill
	// holding the same row lock, interns, so two transactions never add
	// the same name at once.
	sqlScanPartyID     = `SELECT id FROM parties WHERE party = $1`
	sqlScanNewParty    = `INSERT INTO parties (party) VALUES ($1) RETURNING id`
	sqlScanTemplateID  = `SELECT id FROM templates WHERE template_key = $1`
	sqlScanNewTemplate = `INSERT INTO templates (template_key) VALUES ($1) RETURNING id`
	// sqlScanArchive archives a held contract at ($1, $2), or moves its
	// archive earlier (a contract is archived once; the guard makes a
	// replayed or reordered archive harmless).
	sqlScanArchive = `UPDATE contracts SET archived_migration = $1, archived_record_time = $2
WHERE contract_id = $3 AND (archived_record_time IS NULL OR (archived_migration, archived_record_time) > ($1, $2))`
	// sqlScanOrphan remembers the archive of a contract the Scan holds no
	// row of (its creation is older and not backfilled yet); the earliest
	// archive wins.
	sqlScanOrphan = `INSERT INTO orphans AS o (contract_id, archived_migration, archived_record_time)
SELECT $3, $1::bigint, $2::bigint WHERE NOT EXISTS (SELECT 1 FROM contracts WHERE contract_id = $3)
ON CONFLICT (contract_id) DO UPDATE SET
  archived_migration = excluded.archived_migration, archived_record_time = excluded.archived_record_time
WHERE (excluded.archived_migration, excluded.archived_record_time) < (o.archived_migration, o.archived_record_time)`
	// sqlScanAdoptOrphan takes the remembered archive of a contract whose
	// row has just been stored.
	sqlScanAdoptOrphan = `DELETE FROM orphans WHERE contract_id = $1 RETURNING archived_migration, archived_record_time`
	// sqlScanAssign gives a held contract the body of an update at ($2,
	// $3) (an assignment moves it: the body carries synchronizer and
	// counter) when that update is newer than the body's and the contract
	// was not archived before it, as an in-order ingestion would have.
	sqlScanAssign = `UPDATE contracts SET body = $1, body_migration = $2, body_record_time = $3
WHERE contract_id = $4 AND (body_migration, body_record_time) < ($2, $3)
  AND (archived_record_time IS NULL OR (archived_migration, archived_record_time) > ($2, $3))`
	// sqlScanHeld says whether a contract has a row, and whether that row
	// is imported (no creating update stored yet).
	sqlScanHeld = `SELECT imported FROM contracts WHERE contract_id = $1`
	// sqlScanTakeOver gives an imported row the position of the creating
	// update a backfill brought; its archive and (newer) body stay.
	sqlScanTakeOver = `UPDATE contracts SET created_migration = $1, created_record_time = $2, imported = false
WHERE contract_id = $3 AND imported`
	// sqlScanEarlier moves an imported row to an older import update or
	// assignment that a backfill brought: an imported row sits where the
	// first update that brought it is.
	sqlScanEarlier = `UPDATE contracts SET created_migration = $1, created_record_time = $2
WHERE contract_id = $3 AND imported AND (created_migration, created_record_time) > ($1, $2)`
)

// BeginHistory fixes the backfilling state before the first Ingest; the
// cursor stays as it is, so the first Ingest's compare-and-swap still
// accepts any prev.
func (s *Scan) BeginHistory(ctx context.Context, complete bool, start scan.HistoryPosition) error {
	_, err := s.pool.Exec(ctx, sqlScanBegin, complete, start.Migration, int64(start.RecordTime))
	return interpret(err)
}

// SetBackfilling raises the backfilling flags.
func (s *Scan) SetBackfilling(ctx context.Context, b scan.Backfilling) error {
	_, err := s.pool.Exec(ctx, sqlScanRaise, b.Complete, b.ImportUpdatesComplete)
	return interpret(err)
}

// Ingest stores updates and moves the cursor in one transaction; the
// cursor's compare-and-swap comes first, so a lost race stores nothing.
func (s *Scan) Ingest(ctx context.Context, prev, next scan.Cursor, updates []scan.Update) error {
	return write(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlScanAdvance, int64(next.Offset), int64(next.Watermark), next.Migration,
			prev.Offset == 0, int64(prev.Offset))
		if err != nil {
			return interpret(err)
		}
		if tag.RowsAffected() == 0 {
			return fault.New(fault.Aborted, "scan cursor is no longer at offset %d: another ingester stored updates", prev.Offset)
		}
		for i := range updates {
			if err := storeUpdate(ctx, tx, &updates[i], false); err != nil {
				return err
			}
		}
		return nil
	})
}

// Backfill stores older updates from peers in one transaction, in history
// order (see [store.BackfillOrder]), skipping those already stored, under
// the ingestion row's lock (sqlScanLock).
func (s *Scan) Backfill(ctx context.Context, updates []scan.Update) error {
	for i := range updates {
		if updates[i].Transaction == nil && updates[i].Reassignment == nil {
			return fault.New(fault.InvalidArgument, "scan update without a transaction")
		}
	}
	ordered := store.BackfillOrder(updates)
	return write(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlScanLock); err != nil {
			return interpret(err)
		}
		for _, u := range ordered {
			if err := storeUpdate(ctx, tx, u, true); err != nil {
				return err
			}
		}
		return nil
	})
}

// storeUpdate stores one update: its history row, its synchronizer's
// record-time range, its migration's summary, and its effects on the DSO
// party's contracts. Ingest stores updates in history order (backfill
// false); Backfill stores older ones after newer ones (backfill true): an
// update already stored is skipped, and the effects are applied so that
// the contracts end up as an in-order ingestion leaves them.
func storeUpdate(ctx context.Context, tx pgx.Tx, u *scan.Update, backfill bool) error {
	if u.Reassignment != nil {
		return storeReassignment(ctx, tx, u, backfill)
	}
	t := u.Transaction
	if t == nil {
		return fault.New(fault.InvalidArgument, "scan update without a transaction")
	}
	body, err := ledger.EncodeTransaction(t)
	if err != nil {
		return err
	}
	created, archived, err := encodeEffects(u)
	if err != nil {
		return err
	}
	rt := int64(t.RecordTime)
	if u.Import {
		rt = importRecordTime
	}
	if stored, err := insertUpdate(ctx, tx, backfill, t.UpdateID, t.MigrationID, rt, t.Synchronizer,
		u.Offset, u.Import, created, archived, body); err != nil || !stored {
		return err
	}
	var lastImport *string
	if u.Import {
		lastImport = &t.UpdateID
	} else if _, err := tx.Exec(ctx, sqlScanUpsertRange, t.MigrationID, string(t.Synchronizer), rt); err != nil {
		return interpret(err)
	}
	if _, err := tx.Exec(ctx, sqlScanUpsertMigration, t.MigrationID, lastImport); err != nil {
		return interpret(err)
	}
	at := position{t.MigrationID, rt}
	if backfill {
		// Archives first: a contract created and archived in this
		// transaction is then stored archived by the orphan its archive
		// leaves, the same path as an archive backfilled before the
		// creation.
		for _, id := range u.Archived {
			if err := archive(ctx, tx, id, at); err != nil {
				return err
			}
		}
	}
	for _, c := range u.Created {
		var err error
		switch {
		case u.Import:
			err = importContract(ctx, tx, c, at, backfill, false)
		case backfill:
			err = backfillCreate(ctx, tx, c, at)
		default:
			_, err = addContract(ctx, tx, sqlScanInsertContract, c, at, at, false)
		}
		if err != nil {
			return err
		}
	}
	if !backfill {
		for _, id := range u.Archived {
			if err := archive(ctx, tx, id, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// position is where an update sits in the history: its migration and
// record time (the minimum for import updates).
type position struct {
	migration  int64
	recordTime int64
}

// insertUpdate stores a history row. A backfilled update already stored
// is skipped: stored is false.
func insertUpdate(ctx context.Context, tx pgx.Tx, backfill bool, updateID string, migration, rt int64,
	sync ledger.SynchronizerID, off ledger.Offset, imp bool, created, archived *string, body []byte) (stored bool, err error) {
	insert := sqlScanInsertUpdate
	if backfill {
		insert = sqlScanBackfillUpdate
	}
	tag, err := tx.Exec(ctx, insert, updateID, migration, rt, string(sync), int64(off), imp, created, archived, body)
	if err != nil {
		return false, interpret(err)
	}
	return tag.RowsAffected() > 0, nil
}

// addContract stores a contract brought by the update at at with insert
// (sqlScanInsertContract, or sqlScanImportContract, which leaves a held
// contract as it is: added is false), with its stakeholders (one
// statement, unnest of an array), and applies an archive remembered for
// it.
// addContract stores a contract's row, created (or brought in) at at, its
// body from the update at body.
func addContract(ctx context.Context, tx pgx.Tx, insert string, c *ledger.Contract, at, body position, imported bool) (added bool, err error) {
	cb, err := ledger.EncodeContract(c)
	if err != nil {
		return false, err
	}
	tmpl, err := intern(ctx, tx, sqlScanTemplateID, sqlScanNewTemplate, scan.KeyOf(c.Template).String())
	if err != nil {
		return false, err
	}
	var seq int64
	err = tx.QueryRow(ctx, insert, string(c.ID), tmpl, int64(c.CreatedAt), at.migration, at.recordTime, imported, cb,
		body.migration, body.recordTime).Scan(&seq)
	if insert == sqlScanImportContract && errors.Is(err, pgx.ErrNoRows) {
		return false, nil // already held
	}
	if err != nil {
		return false, interpret(err)
	}
	for _, p := range c.Stakeholders() {
		id, err := intern(ctx, tx, sqlScanPartyID, sqlScanNewParty, string(p))
		if err != nil {
			return false, err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO contract_stakeholders (seq, party_id) VALUES ($1, $2)`, seq, id); err != nil {
			return false, interpret(err)
		}
	}
	var orphan position
	err = tx.QueryRow(ctx, sqlScanAdoptOrphan, string(c.ID)).Scan(&orphan.migration, &orphan.recordTime)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, interpret(err)
	}
	return true, archive(ctx, tx, c.ID, orphan)
}

// archive archives a contract at at, or, when the Scan holds no row of it
// (it was created before the Scan's history began, or before what has
// been backfilled so far), remembers the archive for when the row comes.
func archive(ctx context.Context, tx pgx.Tx, id daml.ContractID, at position) error {
	tag, err := tx.Exec(ctx, sqlScanArchive, at.migration, at.recordTime, string(id))
	if err != nil {
		return interpret(err)
	}
	if tag.RowsAffected() > 0 {
		return nil
	}
	_, err = tx.Exec(ctx, sqlScanOrphan, at.migration, at.recordTime, string(id))
	return interpret(err)
}

// importContract stores the contract of an import update, or of an
// assignment (assign), unless the Scan holds it. An assignment gives a
// held contract its body (it moves). A backfilled one the Scan holds as
// imported moves its row to the older position, and gives it its body if
// that is newer than the row's. (A live import update of a held contract
// changes nothing: its body is the one held.)
func importContract(ctx context.Context, tx pgx.Tx, c *ledger.Contract, at position, backfill, assign bool) error {
	// An import update never gives a contract its body: in history order
	// it comes after the contract's creation and assignments, whose body
	// stays (a live import of a held contract does nothing). Its body is
	// only that of a contract nothing else has brought yet, and any of
	// those, arriving later in a backfill, replaces it.
	body := at
	if !assign {
		body = position{migration: -1, recordTime: math.MinInt64}
	}
	added, err := addContract(ctx, tx, sqlScanImportContract, c, at, body, true)
	if err != nil || added {
		return err
	}
	if backfill {
		if _, err := tx.Exec(ctx, sqlScanEarlier, at.migration, at.recordTime, string(c.ID)); err != nil {
			return interpret(err)
		}
	}
	if !assign {
		return nil
	}
	return setBody(ctx, tx, c, at)
}

// setBody gives a held contract c's body if the update at at is newer
// than the body's and not after the contract's archive.
func setBody(ctx context.Context, tx pgx.Tx, c *ledger.Contract, at position) error {
	cb, err := ledger.EncodeContract(c)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, sqlScanAssign, cb, at.migration, at.recordTime, string(c.ID))
	return interpret(err)
}

// backfillCreate stores a contract whose creating update a backfill
// brought. A row an import update or an assignment of a later position
// stored (imported) takes the creation's position and stops being
// imported; its archive and its (newer) body stay.
func backfillCreate(ctx context.Context, tx pgx.Tx, c *ledger.Contract, at position) error {
	var imported bool
	err := tx.QueryRow(ctx, sqlScanHeld, string(c.ID)).Scan(&imported)
	if errors.Is(err, pgx.ErrNoRows) {
		_, err = addContract(ctx, tx, sqlScanInsertContract, c, at, at, false)
		return err
	}
	if err != nil {
		return interpret(err)
	}
	if !imported {
		return fault.New(fault.InvalidArgument, "contract %s is created by two updates", c.ID)
	}
	if _, err := tx.Exec(ctx, sqlScanTakeOver, at.migration, at.recordTime, string(c.ID)); err != nil {
		return interpret(err)
	}
	return setBody(ctx, tx, c, at)
}

// storeReassignment stores an unassignment or an assignment: a history
// row (its body the reassignment's blob), its synchronizer's record-time
// range, and, for an assignment, the contract's new synchronizer and
// counter in the DSO party's active contract set. Sandnet commits both
// halves of a reassignment together, so an unassigned contract stays
// active until its assignment moves it. A contract the Scan does not hold
// (created before its history began, or before what has been backfilled)
// joins the active contract set with the assignment, as a contract without
// a creating update in this history, until a backfill brings its creation.
func storeReassignment(ctx context.Context, tx pgx.Tx, u *scan.Update, backfill bool) error {
	r := u.Reassignment
	body, err := ledger.EncodeReassignment(r)
	if err != nil {
		return err
	}
	rt := int64(r.RecordTime)
	if stored, err := insertUpdate(ctx, tx, backfill, r.UpdateID, r.MigrationID, rt, r.Synchronizer(),
		u.Offset, false, nil, nil, body); err != nil || !stored {
		return err
	}
	if _, err := tx.Exec(ctx, sqlScanUpsertRange, r.MigrationID, string(r.Synchronizer()), rt); err != nil {
		return interpret(err)
	}
	if _, err := tx.Exec(ctx, sqlScanUpsertMigration, r.MigrationID, nil); err != nil {
		return interpret(err)
	}
	if r.Kind != ledger.Assigned {
		return nil
	}
	return importContract(ctx, tx, r.Contract, position{r.MigrationID, rt}, backfill, true)
}

// intern returns the id of name, looked up with find or, the first time,
// made with add.
func intern(ctx context.Context, tx pgx.Tx, find, add, name string) (int64, error) {
	var id int64
	err := tx.QueryRow(ctx, find, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		err = tx.QueryRow(ctx, add, name).Scan(&id)
	}
	return id, interpret(err)
}

// templateID and partyID are the scalar subqueries of a filter on an
// interned template key or party (arg its placeholder): PostgreSQL runs
// them once (an InitPlan) and uses the id as an index bound. An unknown
// name is NULL, which matches nothing.
func templateID(arg string) string {
	return `(SELECT id FROM templates WHERE template_key = ` + arg + `)`
}
func partyID(arg string) string { return `(SELECT id FROM parties WHERE party = ` + arg + `)` }

// encodeEffects renders an update's Created and Archived as JSON arrays of
// contract ids, nil when empty.
func encodeEffects(u *scan.Update) (created, archived *string, err error) {
	if len(u.Created) > 0 {
		ids := make([]daml.ContractID, len(u.Created))
		for i, c := range u.Created {
			ids[i] = c.ID
		}
		b, err := json.Marshal(ids)
		if err != nil {
			return nil, nil, err
		}
		s := string(b)
		created = &s
	}
	if len(u.Archived) > 0 {
		b, err := json.Marshal(u.Archived)
		if err != nil {
			return nil, nil, err
		}
		s := string(b)
		archived = &s
	}
	return created, archived, nil
}

// updateColumns are the columns [readUpdates] reads.
const updateColumns = `ledger_offset, is_import, created, archived, body`

// storedUpdate is a row of updateColumns.
type storedUpdate struct {
	offset            int64
	imported          bool
	created, archived *string
	body              []byte
}

// readUpdates runs a query of updateColumns and decodes the rows once they
// are all read (a created contract missing from its transaction is read
// with a query of its own).
func readUpdates(ctx context.Context, q querier, query string, args ...any) ([]scan.Update, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	stored, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storedUpdate, error) {
		var u storedUpdate
		err := r.Scan(&u.offset, &u.imported, &u.created, &u.archived, &u.body)
		return u, err
	})
	if err != nil {
		return nil, interpret(err)
	}
	out := make([]scan.Update, len(stored))
	for i, su := range stored {
		u := &out[i]
		u.Offset, u.Import = ledger.Offset(su.offset), su.imported
		du, err := ledger.DecodeUpdateShared(su.body)
		tx := du.Transaction
		if err != nil {
			return nil, err
		}
		if du.Reassignment != nil {
			u.Reassignment = du.Reassignment
			continue
		}
		if tx == nil {
			return nil, fmt.Errorf("scan update at offset %d is not a transaction", su.offset)
		}
		u.Transaction = tx
		if su.archived != nil {
			if err := json.Unmarshal([]byte(*su.archived), &u.Archived); err != nil {
				return nil, fmt.Errorf("scan update %s: archived: %w", tx.UpdateID, err)
			}
		}
		if su.created != nil {
			var ids []daml.ContractID
			if err := json.Unmarshal([]byte(*su.created), &ids); err != nil {
				return nil, fmt.Errorf("scan update %s: created: %w", tx.UpdateID, err)
			}
			if u.Created, err = createdOf(ctx, q, tx, ids); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// createdOf returns the contracts ids names, from the transaction's create
// nodes, where the update's contracts are; one that is not there is read
// from the contracts table.
func createdOf(ctx context.Context, q querier, tx *ledger.Transaction, ids []daml.ContractID) ([]*ledger.Contract, error) {
	byID := map[daml.ContractID]*ledger.Contract{}
	for _, c := range tx.Created() {
		byID[c.ID] = c
	}
	out := make([]*ledger.Contract, len(ids))
	for i, id := range ids {
		if c := byID[id]; c != nil {
			out[i] = c
			continue
		}
		c, _, err := readContract(ctx, q, id)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// limitArg is a LIMIT argument: NULL is none.
func limitArg(n int) any {
	if n <= 0 {
		return nil
	}
	return int64(n)
}

// historyQuery is the statement of [Scan.History]: a range of
// updates_history from the position after q.After, in index order.
// Leaving import updates out filters them in the walk: they sit at the
// start of each migration's range, so only a page that crosses into a
// migration walks past them.
func historyQuery(q scan.HistoryQuery) (string, []any) {
	m, rt := int64(math.MinInt64), int64(math.MinInt64)
	if q.After != nil {
		m, rt = q.After.Migration, int64(q.After.RecordTime)
	}
	query := `SELECT ` + updateColumns + ` FROM updates WHERE (migration_id, record_time) > ($1, $2)`
	if !q.Imports {
		query += ` AND record_time > ` + strconv.FormatInt(importRecordTime, 10)
	}
	query += ` ORDER BY migration_id, record_time, synchronizer, id LIMIT $3`
	return query, []any{m, rt, limitArg(q.Limit)}
}

// History lists updates in (migration, record time, synchronizer) order.
func (s *Scan) History(ctx context.Context, q scan.HistoryQuery) ([]scan.Update, error) {
	query, args := historyQuery(q)
	return readUpdates(ctx, s.pool, query, args...)
}

// Update returns an update by id.
func (s *Scan) Update(ctx context.Context, updateID string) (*scan.Update, error) {
	out, err := readUpdates(ctx, s.pool, `SELECT `+updateColumns+` FROM updates WHERE update_id = $1 ORDER BY migration_id DESC LIMIT 1`, updateID)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, store.UpdateNotFound(updateID)
	}
	return &out[0], nil
}

// The statements of [Scan.UpdatesBefore]: ranges of updates_before, newest
// first.
const (
	sqlBefore = `SELECT ` + updateColumns + ` FROM updates
WHERE migration_id = $1 AND synchronizer = $2 AND record_time < $3 AND record_time >= $4
ORDER BY record_time DESC, id DESC LIMIT $5`
	sqlBeforeImports = `SELECT ` + updateColumns + ` FROM updates
WHERE migration_id = $1 AND synchronizer = $2 AND record_time = $3
ORDER BY record_time DESC, id DESC LIMIT $4`
)

// UpdatesBefore lists updates newest first: the non-import updates of the
// range, then, with AtOrAfter, the import updates (whose record time is
// the minimum), both read in one REPEATABLE READ snapshot.
func (s *Scan) UpdatesBefore(ctx context.Context, q scan.BeforeQuery) ([]scan.Update, error) {
	lo := int64(importRecordTime) + 1
	if q.AtOrAfter != nil {
		lo = max(lo, int64(*q.AtOrAfter))
	}
	var out []scan.Update
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		out, err = readUpdates(ctx, tx, sqlBefore, q.Migration, string(q.Synchronizer), int64(q.Before), lo, limitArg(q.Limit))
		if err != nil || q.AtOrAfter == nil || (q.Limit > 0 && len(out) >= q.Limit) {
			return err
		}
		rest := 0
		if q.Limit > 0 {
			rest = q.Limit - len(out)
		}
		imports, err := readUpdates(ctx, tx, sqlBeforeImports, q.Migration, string(q.Synchronizer), int64(importRecordTime), limitArg(rest))
		out = append(out, imports...)
		return err
	})
	return out, interpret(err)
}

// sqlImportUpdates is a range of the partial index updates_import.
const sqlImportUpdates = `SELECT ` + updateColumns + ` FROM updates
WHERE migration_id = $1 AND is_import AND update_id > $2 ORDER BY update_id LIMIT $3`

// ImportUpdates lists a migration's import updates by update id.
func (s *Scan) ImportUpdates(ctx context.Context, migration int64, after string, limit int) ([]scan.Update, error) {
	return readUpdates(ctx, s.pool, sqlImportUpdates, migration, after, limitArg(limit))
}

// Migrations summarises the migrations from the tables Ingest keeps, in
// one statement (one snapshot).
func (s *Scan) Migrations(ctx context.Context) ([]scan.Migration, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.migration_id, m.last_import_update_id,
  ARRAY(SELECT synchronizer FROM record_time_ranges r WHERE r.migration_id = m.migration_id ORDER BY synchronizer),
  ARRAY(SELECT min_record_time FROM record_time_ranges r WHERE r.migration_id = m.migration_id ORDER BY synchronizer),
  ARRAY(SELECT max_record_time FROM record_time_ranges r WHERE r.migration_id = m.migration_id ORDER BY synchronizer)
FROM migrations m ORDER BY m.migration_id`)
	if err != nil {
		return nil, interpret(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (scan.Migration, error) {
		m := scan.Migration{HasUpdates: true}
		var last *string
		var syncs []string
		var lo, hi []int64
		if err := r.Scan(&m.ID, &last, &syncs, &lo, &hi); err != nil {
			return m, err
		}
		if last != nil {
			m.LastImportUpdateID = *last
		}
		for i := range syncs {
			m.Ranges = append(m.Ranges, scan.RecordTimeRange{
				Synchronizer: ledger.SynchronizerID(syncs[i]), Min: daml.Timestamp(lo[i]), Max: daml.Timestamp(hi[i])})
		}
		return m, nil
	})
	return out, interpret(err)
}

// distinctKeys returns the distinct keys of ts as strings, in order.
func distinctKeys(ts []scan.TemplateKey) []string {
	var out []string
	for _, t := range ts {
		if k := t.String(); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// activeContractsQuery lists active contracts in (created_at,
// contract_id) order: a range of contracts_active, or one of
// contracts_active_template per template, each cut at the limit and
// merged (Merge Append).
func activeContractsQuery(q scan.ContractQuery) (string, []any) {
	keys := distinctKeys(q.Templates)
	limit := limitArg(q.Limit)
	switch len(keys) {
	case 0:
		return `SELECT body FROM contracts WHERE archived_record_time IS NULL ORDER BY created_at, contract_id LIMIT $1`, []any{limit}
	case 1:
		return `SELECT body FROM contracts WHERE template_id = ` + templateID("$2") +
			` AND archived_record_time IS NULL ORDER BY created_at, contract_id LIMIT $1`, []any{limit, keys[0]}
	}
	args := []any{limit}
	arms := make([]string, len(keys))
	for i, k := range keys {
		args = append(args, k)
		arms[i] = `(SELECT created_at, contract_id, body FROM contracts WHERE template_id = ` + templateID("$"+strconv.Itoa(len(args))) +
			` AND archived_record_time IS NULL ORDER BY created_at, contract_id LIMIT $1)`
	}
	return `SELECT body FROM (` + strings.Join(arms, " UNION ALL ") + `) u ORDER BY created_at, contract_id LIMIT $1`, args
}

// ActiveContracts lists the DSO party's active contracts in (created_at,
// contract_id) order.
func (s *Scan) ActiveContracts(ctx context.Context, q scan.ContractQuery) ([]*ledger.Contract, error) {
	query, args := activeContractsQuery(q)
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	bodies, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, interpret(err)
	}
	out := make([]*ledger.Contract, len(bodies))
	for i, b := range bodies {
		if out[i], err = ledger.DecodeContract(b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Contract returns a contract the Scan has seen created.
func (s *Scan) Contract(ctx context.Context, id daml.ContractID) (*ledger.Contract, bool, error) {
	return readContract(ctx, s.pool, id)
}

func readContract(ctx context.Context, q querier, id daml.ContractID) (*ledger.Contract, bool, error) {
	var body []byte
	var active bool
	err := q.QueryRow(ctx, `SELECT body, archived_record_time IS NULL FROM contracts WHERE contract_id = $1`,
		string(id)).Scan(&body, &active)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, store.ContractNotFound(id)
	}
	if err != nil {
		return nil, false, interpret(err)
	}
	c, err := ledger.DecodeContract(body)
	return c, active, err
}

// The statements of BuildSnapshot.
const (
	// activeAt is the condition of a contract being in the snapshot of
	// migration $1 at record time $2: created at or before it, in this or
	// an earlier migration, and not archived at or before it.
	activeAt = `(created_migration < $1 OR (created_migration = $1 AND created_record_time <= $2))
  AND (archived_record_time IS NULL OR archived_migration > $1
       OR (archived_migration = $1 AND archived_record_time > $2))`
	// sqlSnapChunk writes the next chunk of a snapshot: the next $5
	// contracts after ($3, $4) in (created_at, contract_id) order, a range
	// of contracts_created, numbered from $6+1.
	sqlSnapChunk = `INSERT INTO acs_snapshot_rows (row_id, snapshot_id, contract_seq, template_id)
SELECT $6::bigint + row_number() OVER (ORDER BY created_at, contract_id), $7, seq, template_id FROM (
  SELECT seq, created_at, contract_id, template_id FROM contracts
  WHERE (created_at, contract_id) > ($3::bigint, $4::text) AND ` + activeAt + `
  ORDER BY created_at, contract_id LIMIT $5) c`
	// sqlSnapChunkParties indexes a chunk's rows by stakeholder. The
	// stakeholders are a LATERAL subquery that OFFSET 0 keeps from being
	// flattened: a lookup of contract_stakeholders_pkey per row, not a hash
	// join over the whole table for every chunk.
	sqlSnapChunkParties = `INSERT INTO acs_snapshot_parties (party_id, row_id, template_id)
SELECT s.party_id, d.row_id, d.template_id FROM acs_snapshot_rows d
CROSS JOIN LATERAL (SELECT party_id FROM contract_stakeholders s WHERE s.seq = d.contract_seq OFFSET 0) s
WHERE d.row_id > $1 AND d.row_id <= $2`
	sqlSnapRowKey = `SELECT c.created_at, c.contract_id FROM acs_snapshot_rows d
JOIN contracts c ON c.seq = d.contract_seq WHERE d.row_id = $1`
	sqlSnapNextRow = `SELECT GREATEST(coalesce((SELECT max(last_row) FROM acs_snapshots WHERE complete), 0),
  coalesce((SELECT max(row_id) FROM acs_snapshot_rows), 0)) + 1`
	sqlSnapPublish = `UPDATE acs_snapshots SET last_row = $1, complete = true WHERE id = $2`
)

// BuildSnapshot takes the snapshot of migration at at. Under the schema's
// build lock (a session advisory lock on a connection held for the build)
// it discards an interrupted build, numbers the rows from the next free
// row id and writes them chunk by chunk, each chunk in its own
// transaction (a keyset walk of contracts_created from where the last one
// ended); it publishes the snapshot (complete) in the last transaction.
func (s *Scan) BuildSnapshot(ctx context.Context, migration int64, at daml.Timestamp, chunk int) (scan.Snapshot, error) {
	if chunk <= 0 {
		return scan.Snapshot{}, fault.New(fault.InvalidArgument, "snapshot chunk size %d: must be positive", chunk)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return scan.Snapshot{}, interpret(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, s.buildKey); err != nil {
		return scan.Snapshot{}, interpret(err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, s.buildKey); err != nil {
			// The lock must not outlive the build: drop the session.
			conn.Hijack().Close(uctx)
		}
	}()

	snap := scan.Snapshot{Migration: migration, RecordTime: at}
	done := false
	err = write(ctx, conn, func(tx pgx.Tx) error {
		var complete bool
		err := tx.QueryRow(ctx, `SELECT id, first_row, last_row, complete FROM acs_snapshots
WHERE migration_id = $1 AND record_time = $2`, migration, int64(at)).Scan(&snap.ID, &snap.FirstRow, &snap.LastRow, &complete)
		if err == nil && complete {
			done = true
			return nil
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return interpret(err)
		}
		if err := discardIncomplete(ctx, tx); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, sqlSnapNextRow).Scan(&snap.FirstRow); err != nil {
			return interpret(err)
		}
		snap.LastRow = snap.FirstRow - 1
		return interpret(tx.QueryRow(ctx, `INSERT INTO acs_snapshots (migration_id, record_time, first_row, last_row, complete)
VALUES ($1, $2, $3, $4, false) RETURNING id`, migration, int64(at), snap.FirstRow, snap.LastRow).Scan(&snap.ID))
	})
	if err != nil || done {
		return snap, err
	}
	var afterAt int64 = math.MinInt64
	afterID := ""
	for {
		var n int64
		err := write(ctx, conn, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, sqlSnapChunk, migration, int64(at), afterAt, afterID, chunk, snap.LastRow, snap.ID)
			if err != nil {
				return interpret(err)
			}
			if n = tag.RowsAffected(); n > 0 {
				if _, err := tx.Exec(ctx, sqlSnapChunkParties, snap.LastRow, snap.LastRow+n); err != nil {
					return interpret(err)
				}
				if err := tx.QueryRow(ctx, sqlSnapRowKey, snap.LastRow+n).Scan(&afterAt, &afterID); err != nil {
					return interpret(err)
				}
			}
			if n < int64(chunk) {
				// The walk has ended: publish with the last rows.
				_, err = tx.Exec(ctx, sqlSnapPublish, snap.LastRow+n, snap.ID)
			}
			return interpret(err)
		})
		if err != nil {
			return scan.Snapshot{}, err
		}
		snap.LastRow += n
		if n < int64(chunk) {
			return snap, nil
		}
	}
}

// discardIncomplete deletes snapshots whose build was interrupted, with
// their rows: builds run one at a time, so their rows are the last ones.
func discardIncomplete(ctx context.Context, tx pgx.Tx) error {
	var first int64
	err := tx.QueryRow(ctx, `SELECT min(first_row) FROM acs_snapshots WHERE NOT complete HAVING count(*) > 0`).Scan(&first)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return interpret(err)
	}
	for _, q := range []string{
		// Party rows are written in the transaction of their snapshot
		// rows, so the leftover's are found from its rows' stakeholders:
		// a primary key lookup each.
		`DELETE FROM acs_snapshot_parties WHERE (party_id, row_id) IN (
  SELECT s.party_id, d.row_id FROM acs_snapshot_rows d JOIN contract_stakeholders s ON s.seq = d.contract_seq
  WHERE d.row_id >= $1)`,
		`DELETE FROM acs_snapshot_rows WHERE row_id >= $1`,
	} {
		if _, err := tx.Exec(ctx, q, first); err != nil {
			return interpret(err)
		}
	}
	_, err = tx.Exec(ctx, `DELETE FROM acs_snapshots WHERE NOT complete`)
	return interpret(err)
}

func (s *Scan) snapshotOne(ctx context.Context, what, query string, args ...any) (scan.Snapshot, error) {
	var snap scan.Snapshot
	var rt int64
	err := s.pool.QueryRow(ctx, `SELECT id, migration_id, record_time, first_row, last_row FROM acs_snapshots `+query, args...).
		Scan(&snap.ID, &snap.Migration, &rt, &snap.FirstRow, &snap.LastRow)
	if errors.Is(err, pgx.ErrNoRows) {
		return snap, fault.New(fault.NotFound, "no ACS snapshot %s", what)
	}
	snap.RecordTime = daml.Timestamp(rt)
	return snap, interpret(err)
}

// LatestSnapshot returns the published snapshot with the greatest
// (migration, record time).
func (s *Scan) LatestSnapshot(ctx context.Context) (scan.Snapshot, error) {
	return s.snapshotOne(ctx, "has been taken", `WHERE complete ORDER BY migration_id DESC, record_time DESC LIMIT 1`)
}

// SnapshotAtOrBefore returns the latest snapshot of migration at or before t.
func (s *Scan) SnapshotAtOrBefore(ctx context.Context, migration int64, t daml.Timestamp) (scan.Snapshot, error) {
	return s.snapshotOne(ctx, fmt.Sprintf("of migration %d at or before %s", migration, t),
		`WHERE migration_id = $1 AND record_time <= $2 AND complete ORDER BY record_time DESC LIMIT 1`, migration, int64(t))
}

// SnapshotAfter returns the earliest snapshot after t in migration, or of
// a later migration.
func (s *Scan) SnapshotAfter(ctx context.Context, migration int64, t daml.Timestamp) (scan.Snapshot, error) {
	return s.snapshotOne(ctx, fmt.Sprintf("after %s of migration %d", t, migration),
		`WHERE (migration_id, record_time) > ($1, $2) AND complete ORDER BY migration_id, record_time LIMIT 1`, migration, int64(t))
}

// snapshotPageQuery is the statement of [Scan.SnapshotPage]. The page's
// row ids are a keyset range ($1, $2] in row order, stopped by the LIMIT:
// of acs_snapshot_rows_pkey (no filter), acs_snapshot_rows_template (one
// template), acs_snapshot_parties_pkey (one party) or
// acs_snapshot_parties_template (a party and a template); several parties
// or templates make one range per (party, template) pair, each cut at the
// page size, merged in order with duplicates dropped as they meet (Merge
// Append, Unique, or for a pair of very unequal ranges a hash of at most
// pairs × limit row ids and their sort). Each row's
// contract is then looked up by primary key: a LATERAL subquery with a
// LIMIT, which PostgreSQL cannot flatten into a join, so it stays a nested
// loop over the page instead of a hash join over all of contracts.
func snapshotPageQuery(q scan.SnapshotQuery) (string, []any) {
	lo := max(q.After, q.Snapshot.FirstRow-1)
	args := []any{lo, q.Snapshot.LastRow, limitArg(q.Limit)}
	const lookup = `SELECT o.row_id, c.imported, c.body FROM (`
	const rest = `) o
CROSS JOIN LATERAL (SELECT contract_seq FROM acs_snapshot_rows d WHERE d.row_id = o.row_id LIMIT 1) d
CROSS JOIN LATERAL (SELECT imported, body FROM contracts c WHERE c.seq = d.contract_seq LIMIT 1) c
ORDER BY o.row_id`
	parties := store.Parties(q.Parties)
	keys := distinctKeys(q.Templates)
	if len(parties) == 0 && len(keys) == 0 {
		return `SELECT o.row_id, c.imported, c.body FROM (SELECT row_id, contract_seq FROM acs_snapshot_rows
WHERE row_id > $1 AND row_id <= $2 ORDER BY row_id LIMIT $3) o
CROSS JOIN LATERAL (SELECT imported, body FROM contracts c WHERE c.seq = o.contract_seq LIMIT 1) c
ORDER BY o.row_id`, args
	}
	arg := func(v string) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var arms []string
	switch {
	case len(parties) == 0:
		for _, k := range keys {
			arms = append(arms, `SELECT row_id FROM acs_snapshot_rows WHERE template_id = `+templateID(arg(k))+
				` AND row_id > $1 AND row_id <= $2 ORDER BY row_id`)
		}
	case len(keys) == 0:
		for _, p := range parties {
			arms = append(arms, `SELECT row_id FROM acs_snapshot_parties WHERE party_id = `+partyID(arg(p))+
				` AND row_id > $1 AND row_id <= $2 ORDER BY row_id`)
		}
	default:
		for _, p := range parties {
			for _, k := range keys {
				arms = append(arms, `SELECT row_id FROM acs_snapshot_parties WHERE party_id = `+partyID(arg(p))+
					` AND template_id = `+templateID(arg(k))+` AND row_id > $1 AND row_id <= $2 ORDER BY row_id`)
			}
		}
	}
	if len(arms) == 1 {
		return lookup + arms[0] + ` LIMIT $3` + rest, args
	}
	for i := range arms {
		// Each arm cut at the page size too: the merge then reads at most
		// arms × limit rows whichever plan PostgreSQL picks for it.
		arms[i] = "(" + arms[i] + " LIMIT $3)"
	}
	return lookup + `SELECT DISTINCT row_id FROM (` + strings.Join(arms, "\n  UNION ALL ") + `) a
ORDER BY row_id LIMIT $3` + rest, args
}

// SnapshotPage returns the next rows of a snapshot in row order.
func (s *Scan) SnapshotPage(ctx context.Context, q scan.SnapshotQuery) ([]scan.SnapshotRow, error) {
	query, args := snapshotPageQuery(q)
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []scan.SnapshotRow
	if q.Limit > 0 {
		out = make([]scan.SnapshotRow, 0, min(q.Limit, 1024))
	}
	for rows.Next() {
		var r scan.SnapshotRow
		var body []byte
		if err := rows.Scan(&r.Row, &r.Imported, &body); err != nil {
			return nil, interpret(err)
		}
		if r.Contract, err = ledger.DecodeContract(body); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, interpret(rows.Err())
}
