package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

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

// Scan is the SQLite implementation of [scan.Store]: a Scan's own database
// file, apart from the ledger's, with the same single-writer layout as
// [Ledger].
type Scan struct {
	path  string
	conns // the write statements are scanWriteStatements

	// build serialises BuildSnapshot: the rows of a snapshot must be a
	// contiguous range of row ids, so one build writes at a time, and an
	// incomplete snapshot found under it is a crash's leftover, never a
	// build in progress. The file lock makes this process the only writer.
	build sync.Mutex

	closeOnce sync.Once
	closeErr  error
}

var _ scan.Store = (*Scan)(nil)

// OpenScan opens (creating if needed) the Scan database at path and applies
// pending migrations. It fails with a fault.FailedPrecondition if another
// process has the same file open.
func OpenScan(ctx context.Context, path string) (*Scan, error) {
	s := &Scan{path: path}
	if err := s.open(ctx, "scan", path, "migrations/scan", "NORMAL", scanWriteStatements); err != nil {
		return nil, err
	}
	return s, nil
}

// Path returns the database file's path.
func (s *Scan) Path() string { return s.path }

// Close closes both pools and releases the file lock. It is safe to call
// more than once.
func (s *Scan) Close() error {
	s.closeOnce.Do(func() {
		s.optimize()
		s.closeErr = s.closeDBs()
	})
	return s.closeErr
}

// write runs fn in one IMMEDIATE transaction on the write connection.
func (s *Scan) write(ctx context.Context, fn func(w runner) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return interpret(err)
	}
	defer tx.Rollback()
	if err := fn(writeRunner(s.w, tx, s.wc)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return interpret(err)
	}
	s.committed()
	return nil
}

// readTx runs fn in one read transaction, so that its queries see one
// snapshot of the database.
func (s *Scan) readTx(ctx context.Context, fn func(r runner) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return interpret(err)
	}
	defer tx.Rollback()
	return fn(runner{db: s.r, tx: tx, cache: s.rc})
}

// The statements of the write path, prepared once on the write connection
// (a statement prepared from inside a write would wait for the connection
// the write holds).
const (
	sqlScanCursor = `SELECT ledger_offset, watermark, migration_id FROM ingestion WHERE id = 1`
	// sqlScanAdvance is the cursor's compare-and-swap. Before the first
	// Ingest any prev is accepted (BeginHistory leaves the cursor as it
	// is), and that Ingest fixes the backfilling state unless BeginHistory
	// has; it never lowers a flag SetBackfilling raised.
	sqlScanAdvance = `UPDATE ingestion SET ledger_offset = ?1, watermark = ?2, migration_id = ?3,
  complete = CASE WHEN started = 1 OR begun = 1 THEN complete ELSE max(complete, ?4) END,
  import_updates_complete = CASE WHEN started = 1 OR begun = 1 THEN import_updates_complete ELSE max(import_updates_complete, ?4) END,
  started = 1
WHERE id = 1 AND (started = 0 OR ledger_offset = ?5)`
	// sqlScanBegin is BeginHistory: only the first call before the first
	// Ingest fixes the flags, so that a restart that begins again cannot
	// lower flags raised since.
	sqlScanBegin = `UPDATE ingestion SET begun = 1,
  complete = max(complete, ?1), import_updates_complete = max(import_updates_complete, ?1),
  start_migration = ?2, start_record_time = ?3
WHERE id = 1 AND started = 0 AND begun = 0`
	sqlScanRaise = `UPDATE ingestion SET complete = max(complete, ?1),
  import_updates_complete = max(import_updates_complete, ?2) WHERE id = 1`
	sqlScanInsertUpdate = `INSERT INTO updates
(update_id, migration_id, record_time, synchronizer, ledger_offset, is_import, created, archived, body)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// sqlScanBackfillUpdate skips an update already stored (the unique
	// index on update_id): peers' batches overlap what the Scan holds.
	sqlScanBackfillUpdate = sqlScanInsertUpdate + ` ON CONFLICT (update_id, migration_id) DO NOTHING`
	sqlScanUpsertRange    = `INSERT INTO record_time_ranges (migration_id, synchronizer, min_record_time, max_record_time)
VALUES (?1, ?2, ?3, ?3) ON CONFLICT (migration_id, synchronizer) DO UPDATE SET
  min_record_time = min(min_record_time, excluded.min_record_time),
  max_record_time = max(max_record_time, excluded.max_record_time)`
	sqlScanUpsertMigration = `INSERT INTO migrations (migration_id, last_import_update_id) VALUES (?, ?)
ON CONFLICT (migration_id) DO UPDATE SET last_import_update_id = CASE
  WHEN excluded.last_import_update_id IS NULL THEN last_import_update_id
  WHEN last_import_update_id IS NULL OR excluded.last_import_update_id > last_import_update_id
    THEN excluded.last_import_update_id
  ELSE last_import_update_id END`
	// sqlScanInsertContract stores a contract at the position (?4, ?5) of
	// the update that brings it, which is also its body's position.
	sqlScanInsertContract = `INSERT INTO contracts
(contract_id, template_id, created_at, created_migration, created_record_time, imported, body, body_migration, body_record_time)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING seq`
	// sqlScanImportContract is sqlScanInsertContract for an import update
	// or an assignment: a contract the Scan already holds (it ingested the
	// earlier migration's creation) keeps its row, and RETURNING gives
	// nothing.
	sqlScanImportContract = `INSERT INTO contracts
(contract_id, template_id, created_at, created_migration, created_record_time, imported, body, body_migration, body_record_time)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (contract_id) DO NOTHING RETURNING seq`
	sqlScanInsertStakeholder = `INSERT INTO contract_stakeholders (seq, party_id) VALUES (?, ?)`
	// Parties and templates are interned: the snapshot tables, written
	// once per contract per snapshot, then hold small integers, not the
	// long names (a seventh of the bytes written per snapshot row).
	sqlScanPartyID     = `SELECT id FROM parties WHERE party = ?`
	sqlScanNewParty    = `INSERT INTO parties (party) VALUES (?) RETURNING id`
	sqlScanTemplateID  = `SELECT id FROM templates WHERE template_key = ?`
	sqlScanNewTemplate = `INSERT INTO templates (template_key) VALUES (?) RETURNING id`
	// sqlScanArchive archives a held contract at (?1, ?2), or moves its
	// archive earlier (a contract is archived once; the guard makes a
	// replayed or reordered archive harmless).
	sqlScanArchive = `UPDATE contracts SET archived_migration = ?1, archived_record_time = ?2
WHERE contract_id = ?3 AND (archived_record_time IS NULL OR (archived_migration, archived_record_time) > (?1, ?2))`
	// sqlScanOrphan remembers the archive of a contract the Scan holds no
	// row of (its creation is older and not backfilled yet); the earliest
	// archive wins.
	sqlScanOrphan = `INSERT INTO orphans (contract_id, archived_migration, archived_record_time)
SELECT ?3, ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM contracts WHERE contract_id = ?3)
ON CONFLICT (contract_id) DO UPDATE SET
  archived_migration = excluded.archived_migration, archived_record_time = excluded.archived_record_time
WHERE (excluded.archived_migration, excluded.archived_record_time) < (archived_migration, archived_record_time)`
	// sqlScanAdoptOrphan takes the remembered archive of a contract whose
	// row has just been stored.
	sqlScanAdoptOrphan = `DELETE FROM orphans WHERE contract_id = ? RETURNING archived_migration, archived_record_time`
	// sqlScanAssign gives a held contract the body of an update at (?2,
	// ?3) (an assignment moves it: the body carries synchronizer and
	// counter) when that update is newer than the body's and the contract
	// was not archived before it, as an in-order ingestion would have.
	sqlScanAssign = `UPDATE contracts SET body = ?1, body_migration = ?2, body_record_time = ?3
WHERE contract_id = ?4 AND (body_migration, body_record_time) < (?2, ?3)
  AND (archived_record_time IS NULL OR (archived_migration, archived_record_time) > (?2, ?3))`
	// sqlScanHeld says whether a contract has a row, and whether that row
	// is imported (no creating update stored yet).
	sqlScanHeld = `SELECT imported FROM contracts WHERE contract_id = ?`
	// sqlScanTakeOver gives an imported row the position of the creating
	// update a backfill brought; its archive and (newer) body stay.
	sqlScanTakeOver = `UPDATE contracts SET created_migration = ?1, created_record_time = ?2, imported = 0
WHERE contract_id = ?3 AND imported = 1`
	// sqlScanEarlier moves an imported row to an older import update or
	// assignment that a backfill brought: an imported row sits where the
	// first update that brought it is.
	sqlScanEarlier = `UPDATE contracts SET created_migration = ?1, created_record_time = ?2
WHERE contract_id = ?3 AND imported = 1 AND (created_migration, created_record_time) > (?1, ?2)`
	// activeAt is the condition of a contract being in the snapshot of
	// migration ?1 at record time ?2: created at or before it, in this or
	// an earlier migration, and not archived at or before it.
	activeAt = `(created_migration < ?1 OR (created_migration = ?1 AND created_record_time <= ?2))
  AND (archived_record_time IS NULL OR archived_migration > ?1
       OR (archived_migration = ?1 AND archived_record_time > ?2))`
	// sqlSnapChunk writes the next chunk of a snapshot: the next ?5
	// contracts after (?3, ?4) in (created_at, contract_id) order, a range
	// of contracts_created, numbered from ?6+1.
	sqlSnapChunk = `INSERT INTO acs_snapshot_rows (row_id, snapshot_id, contract_seq, template_id)
SELECT ?6 + row_number() OVER (ORDER BY created_at, contract_id), ?7, seq, template_id FROM (
  SELECT seq, created_at, contract_id, template_id FROM contracts
  WHERE (created_at, contract_id) > (?3, ?4) AND ` + activeAt + `
  ORDER BY created_at, contract_id LIMIT ?5)`
	sqlSnapChunkParties = `INSERT INTO acs_snapshot_parties (party_id, row_id, template_id)
SELECT s.party_id, d.row_id, d.template_id FROM acs_snapshot_rows d
JOIN contract_stakeholders s ON s.seq = d.contract_seq
WHERE d.row_id > ? AND d.row_id <= ?`
	sqlSnapRowKey = `SELECT c.created_at, c.contract_id FROM acs_snapshot_rows d
JOIN contracts c ON c.seq = d.contract_seq WHERE d.row_id = ?`
	sqlSnapFind = `SELECT id, first_row, last_row, complete FROM acs_snapshots
WHERE migration_id = ? AND record_time = ?`
	sqlSnapIncomplete = `SELECT id, first_row FROM acs_snapshots WHERE complete = 0`
	sqlSnapNextRow    = `SELECT max(coalesce((SELECT max(last_row) FROM acs_snapshots WHERE complete = 1), 0),
  coalesce((SELECT max(row_id) FROM acs_snapshot_rows), 0)) + 1`
	sqlSnapInsert = `INSERT INTO acs_snapshots (migration_id, record_time, first_row, last_row, complete)
VALUES (?, ?, ?, ?, 0) RETURNING id`
	sqlSnapPublish = `UPDATE acs_snapshots SET last_row = ?, complete = 1 WHERE id = ?`
)

var scanWriteStatements = []string{
	sqlScanCursor, sqlScanAdvance, sqlScanBegin, sqlScanRaise, sqlScanInsertUpdate, sqlScanBackfillUpdate,
	sqlScanUpsertRange, sqlScanUpsertMigration,
	sqlScanInsertContract, sqlScanImportContract, sqlScanInsertStakeholder, sqlScanArchive, sqlScanAssign,
	sqlScanOrphan, sqlScanAdoptOrphan, sqlScanHeld, sqlScanTakeOver, sqlScanEarlier,
	sqlScanPartyID, sqlScanNewParty, sqlScanTemplateID, sqlScanNewTemplate,
	sqlSnapChunk, sqlSnapChunkParties, sqlSnapRowKey, sqlSnapFind, sqlSnapIncomplete, sqlSnapNextRow,
	sqlSnapInsert, sqlSnapPublish,
}

// Cursor returns where ingestion stands.
func (s *Scan) Cursor(ctx context.Context) (scan.Cursor, error) {
	var c scan.Cursor
	var off, wm int64
	err := s.read.QueryRowContext(ctx, sqlScanCursor).Scan(&off, &wm, &c.Migration)
	c.Offset, c.Watermark = ledger.Offset(off), daml.Timestamp(wm)
	return c, interpret(err)
}

// Backfilling returns the backfilling state.
func (s *Scan) Backfilling(ctx context.Context) (scan.Backfilling, error) {
	var b scan.Backfilling
	var rt int64
	err := s.read.QueryRowContext(ctx, `SELECT complete, import_updates_complete, start_migration, start_record_time
FROM ingestion WHERE id = 1`).Scan(&b.Complete, &b.ImportUpdatesComplete, &b.Start.Migration, &rt)
	b.Start.RecordTime = daml.Timestamp(rt)
	return b, interpret(err)
}

// BeginHistory fixes the backfilling state before the first Ingest; the
// cursor stays as it is, so the first Ingest's compare-and-swap still
// accepts any prev.
func (s *Scan) BeginHistory(ctx context.Context, complete bool, start scan.HistoryPosition) error {
	return s.write(ctx, func(w runner) error {
		_, err := w.ExecContext(ctx, sqlScanBegin, complete, start.Migration, int64(start.RecordTime))
		return interpret(err)
	})
}

// SetBackfilling raises the backfilling flags.
func (s *Scan) SetBackfilling(ctx context.Context, b scan.Backfilling) error {
	return s.write(ctx, func(w runner) error {
		_, err := w.ExecContext(ctx, sqlScanRaise, b.Complete, b.ImportUpdatesComplete)
		return interpret(err)
	})
}

// Ingest stores updates and moves the cursor in one transaction; the
// cursor's compare-and-swap comes first, so a lost race stores nothing.
func (s *Scan) Ingest(ctx context.Context, prev, next scan.Cursor, updates []scan.Update) error {
	return s.write(ctx, func(w runner) error {
		res, err := w.ExecContext(ctx, sqlScanAdvance, int64(next.Offset), int64(next.Watermark), next.Migration,
			prev.Offset == 0, int64(prev.Offset))
		if err != nil {
			return interpret(err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return interpret(err)
		} else if n == 0 {
			return cursorMoved(prev)
		}
		for i := range updates {
			if err := storeUpdate(ctx, w, &updates[i], false); err != nil {
				return err
			}
		}
		return nil
	})
}

// Backfill stores older updates from peers in one transaction, in history
// order (see [store.BackfillOrder]), skipping those already stored. The
// single write connection serialises it with Ingest, so the two never
// race on a contract's row and its orphaned archive.
func (s *Scan) Backfill(ctx context.Context, updates []scan.Update) error {
	for i := range updates {
		if updates[i].Transaction == nil && updates[i].Reassignment == nil {
			return fault.New(fault.InvalidArgument, "scan update without a transaction")
		}
	}
	ordered := store.BackfillOrder(updates)
	return s.write(ctx, func(w runner) error {
		for _, u := range ordered {
			if err := storeUpdate(ctx, w, u, true); err != nil {
				return err
			}
		}
		return nil
	})
}

// cursorMoved is the error of an Ingest whose prev is not the stored
// cursor: another ingester got there first.
func cursorMoved(prev scan.Cursor) error {
	return fault.New(fault.Aborted, "scan cursor is no longer at offset %d: another ingester stored updates", prev.Offset)
}

// storeUpdate stores one update: its history row, its synchronizer's
// record-time range, its migration's summary, and its effects on the DSO
// party's contracts. Ingest stores updates in history order (backfill
// false); Backfill stores older ones after newer ones (backfill true): an
// update already stored is skipped, and the effects are applied so that
// the contracts end up as an in-order ingestion leaves them.
func storeUpdate(ctx context.Context, w runner, u *scan.Update, backfill bool) error {
	if u.Reassignment != nil {
		return storeReassignment(ctx, w, u, backfill)
	}
	tx := u.Transaction
	if tx == nil {
		return fault.New(fault.InvalidArgument, "scan update without a transaction")
	}
	body, err := ledger.EncodeTransaction(tx)
	if err != nil {
		return err
	}
	created, archived, err := encodeEffects(u)
	if err != nil {
		return err
	}
	rt := int64(tx.RecordTime)
	if u.Import {
		rt = importRecordTime
	}
	if stored, err := insertUpdate(ctx, w, backfill, tx.UpdateID, tx.MigrationID, rt, tx.Synchronizer,
		u.Offset, u.Import, created, archived, body); err != nil || !stored {
		return err
	}
	var lastImport any
	if u.Import {
		lastImport = tx.UpdateID
	} else if _, err := w.ExecContext(ctx, sqlScanUpsertRange, tx.MigrationID, string(tx.Synchronizer), rt); err != nil {
		return interpret(err)
	}
	if _, err := w.ExecContext(ctx, sqlScanUpsertMigration, tx.MigrationID, lastImport); err != nil {
		return interpret(err)
	}
	at := position{tx.MigrationID, rt}
	if backfill {
		// Archives first: a contract created and archived in this
		// transaction is then stored archived by the orphan its archive
		// leaves, the same path as an archive backfilled before the
		// creation.
		for _, id := range u.Archived {
			if err := archive(ctx, w, id, at); err != nil {
				return err
			}
		}
	}
	for _, c := range u.Created {
		var err error
		switch {
		case u.Import:
			err = importContract(ctx, w, c, at, backfill, false)
		case backfill:
			err = backfillCreate(ctx, w, c, at)
		default:
			_, err = addContract(ctx, w, sqlScanInsertContract, c, at, at, false)
		}
		if err != nil {
			return err
		}
	}
	if !backfill {
		for _, id := range u.Archived {
			if err := archive(ctx, w, id, at); err != nil {
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
func insertUpdate(ctx context.Context, w runner, backfill bool, updateID string, migration, rt int64,
	sync ledger.SynchronizerID, off ledger.Offset, imp bool, created, archived any, body []byte) (stored bool, err error) {
	insert := sqlScanInsertUpdate
	if backfill {
		insert = sqlScanBackfillUpdate
	}
	res, err := w.ExecContext(ctx, insert, updateID, migration, rt, string(sync), int64(off), imp, created, archived, body)
	if err != nil {
		return false, interpret(err)
	}
	n, err := res.RowsAffected()
	return n > 0, interpret(err)
}

// addContract stores a contract brought by the update at at with insert
// (sqlScanInsertContract, or sqlScanImportContract, which leaves a held
// contract as it is: added is false), with its stakeholders, and applies
// an archive remembered for it.
// addContract stores a contract's row, created (or brought in) at at, its
// body from the update at body.
func addContract(ctx context.Context, w runner, insert string, c *ledger.Contract, at, body position, imported bool) (added bool, err error) {
	cb, err := ledger.EncodeContract(c)
	if err != nil {
		return false, err
	}
	tmpl, err := intern(ctx, w, sqlScanTemplateID, sqlScanNewTemplate, scan.KeyOf(c.Template).String())
	if err != nil {
		return false, err
	}
	var seq int64
	err = w.QueryRowContext(ctx, insert, string(c.ID), tmpl, int64(c.CreatedAt), at.migration, at.recordTime, imported, cb,
		body.migration, body.recordTime).Scan(&seq)
	if insert == sqlScanImportContract && errors.Is(err, sql.ErrNoRows) {
		return false, nil // already held
	}
	if err != nil {
		return false, interpret(err)
	}
	for _, p := range c.Stakeholders() {
		id, err := intern(ctx, w, sqlScanPartyID, sqlScanNewParty, string(p))
		if err != nil {
			return false, err
		}
		if _, err := w.ExecContext(ctx, sqlScanInsertStakeholder, seq, id); err != nil {
			return false, interpret(err)
		}
	}
	var orphan position
	err = w.QueryRowContext(ctx, sqlScanAdoptOrphan, string(c.ID)).Scan(&orphan.migration, &orphan.recordTime)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, interpret(err)
	}
	return true, archive(ctx, w, c.ID, orphan)
}

// archive archives a contract at at, or, when the Scan holds no row of it
// (it was created before the Scan's history began, or before what has
// been backfilled so far), remembers the archive for when the row comes.
func archive(ctx context.Context, w runner, id daml.ContractID, at position) error {
	res, err := w.ExecContext(ctx, sqlScanArchive, at.migration, at.recordTime, string(id))
	if err != nil {
		return interpret(err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return interpret(err)
	}
	_, err = w.ExecContext(ctx, sqlScanOrphan, at.migration, at.recordTime, string(id))
	return interpret(err)
}

// importContract stores the contract of an import update, or of an
// assignment (assign), unless the Scan holds it. An assignment gives a
// held contract its body (it moves). A backfilled one the Scan holds as
// imported moves its row to the older position, and gives it its body if
// that is newer than the row's. (A live import update of a held contract
// changes nothing: its body is the one held.)
func importContract(ctx context.Context, w runner, c *ledger.Contract, at position, backfill, assign bool) error {
	// An import update never gives a contract its body: in history order
	// it comes after the contract's creation and assignments, whose body
	// stays (a live import of a held contract does nothing). Its body is
	// only that of a contract nothing else has brought yet, and any of
	// those, arriving later in a backfill, replaces it.
	body := at
	if !assign {
		body = position{migration: -1, recordTime: math.MinInt64}
	}
	added, err := addContract(ctx, w, sqlScanImportContract, c, at, body, true)
	if err != nil || added {
		return err
	}
	if backfill {
		if _, err := w.ExecContext(ctx, sqlScanEarlier, at.migration, at.recordTime, string(c.ID)); err != nil {
			return interpret(err)
		}
	}
	if !assign {
		return nil
	}
	return setBody(ctx, w, c, at)
}

// setBody gives a held contract c's body if the update at at is newer
// than the body's and not after the contract's archive.
func setBody(ctx context.Context, w runner, c *ledger.Contract, at position) error {
	cb, err := ledger.EncodeContract(c)
	if err != nil {
		return err
	}
	_, err = w.ExecContext(ctx, sqlScanAssign, cb, at.migration, at.recordTime, string(c.ID))
	return interpret(err)
}

// backfillCreate stores a contract whose creating update a backfill
// brought. A row an import update or an assignment of a later position
// stored (imported) takes the creation's position and stops being
// imported; its archive and its (newer) body stay.
func backfillCreate(ctx context.Context, w runner, c *ledger.Contract, at position) error {
	var imported bool
	err := w.QueryRowContext(ctx, sqlScanHeld, string(c.ID)).Scan(&imported)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = addContract(ctx, w, sqlScanInsertContract, c, at, at, false)
		return err
	}
	if err != nil {
		return interpret(err)
	}
	if !imported {
		return fault.New(fault.InvalidArgument, "contract %s is created by two updates", c.ID)
	}
	if _, err := w.ExecContext(ctx, sqlScanTakeOver, at.migration, at.recordTime, string(c.ID)); err != nil {
		return interpret(err)
	}
	return setBody(ctx, w, c, at)
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
func storeReassignment(ctx context.Context, w runner, u *scan.Update, backfill bool) error {
	r := u.Reassignment
	body, err := ledger.EncodeReassignment(r)
	if err != nil {
		return err
	}
	rt := int64(r.RecordTime)
	if stored, err := insertUpdate(ctx, w, backfill, r.UpdateID, r.MigrationID, rt, r.Synchronizer(),
		u.Offset, false, nil, nil, body); err != nil || !stored {
		return err
	}
	if _, err := w.ExecContext(ctx, sqlScanUpsertRange, r.MigrationID, string(r.Synchronizer()), rt); err != nil {
		return interpret(err)
	}
	if _, err := w.ExecContext(ctx, sqlScanUpsertMigration, r.MigrationID, nil); err != nil {
		return interpret(err)
	}
	if r.Kind != ledger.Assigned {
		return nil
	}
	return importContract(ctx, w, r.Contract, position{r.MigrationID, rt}, backfill, true)
}

// intern returns the id of name, looked up with find or, the first time,
// made with add.
func intern(ctx context.Context, w runner, find, add, name string) (int64, error) {
	var id int64
	err := w.QueryRowContext(ctx, find, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = w.QueryRowContext(ctx, add, name).Scan(&id)
	}
	return id, interpret(err)
}

// templateID and partyID are the scalar subqueries of a filter on an
// interned template key or party (arg its placeholder): SQLite runs them
// once and uses the id as an index bound. An unknown name is NULL, which
// matches nothing.
func templateID(arg string) string {
	return `(SELECT id FROM templates WHERE template_key = ` + arg + `)`
}
func partyID(arg string) string { return `(SELECT id FROM parties WHERE party = ` + arg + `)` }

// encodeEffects renders an update's Created and Archived as JSON arrays of
// contract ids, nil when empty.
func encodeEffects(u *scan.Update) (created, archived any, err error) {
	if len(u.Created) > 0 {
		ids := make([]daml.ContractID, len(u.Created))
		for i, c := range u.Created {
			ids[i] = c.ID
		}
		b, err := json.Marshal(ids)
		if err != nil {
			return nil, nil, err
		}
		created = string(b)
	}
	if len(u.Archived) > 0 {
		b, err := json.Marshal(u.Archived)
		if err != nil {
			return nil, nil, err
		}
		archived = string(b)
	}
	return created, archived, nil
}

// updateColumns are the columns [scanUpdate] reads.
const updateColumns = `ledger_offset, is_import, created, archived, body`

// scanUpdate reads one row of updateColumns. body may be a reused buffer:
// the decoded update does not keep it.
func scanUpdate(ctx context.Context, q queryer, rows *sql.Rows) (scan.Update, error) {
	var u scan.Update
	var off int64
	var created, archived sql.NullString
	var body sql.RawBytes
	if err := rows.Scan(&off, &u.Import, &created, &archived, &body); err != nil {
		return u, interpret(err)
	}
	u.Offset = ledger.Offset(off)
	du, err := ledger.DecodeUpdateShared(body)
	tx := du.Transaction
	if err != nil {
		return u, err
	}
	if du.Reassignment != nil {
		u.Reassignment = du.Reassignment
		return u, nil
	}
	if tx == nil {
		return u, fmt.Errorf("scan update at offset %d is not a transaction", off)
	}
	u.Transaction = tx
	if archived.Valid {
		if err := json.Unmarshal([]byte(archived.String), &u.Archived); err != nil {
			return u, fmt.Errorf("scan update %s: archived: %w", tx.UpdateID, err)
		}
	}
	if created.Valid {
		var ids []daml.ContractID
		if err := json.Unmarshal([]byte(created.String), &ids); err != nil {
			return u, fmt.Errorf("scan update %s: created: %w", tx.UpdateID, err)
		}
		if u.Created, err = createdOf(ctx, q, tx, ids); err != nil {
			return u, err
		}
	}
	return u, nil
}

// createdOf returns the contracts ids names, from the transaction's create
// nodes, where the update's contracts are; one that is not there is read
// from the contracts table.
func createdOf(ctx context.Context, q queryer, tx *ledger.Transaction, ids []daml.ContractID) ([]*ledger.Contract, error) {
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

// readUpdates runs a query of updateColumns.
func readUpdates(ctx context.Context, q queryer, query string, args ...any) ([]scan.Update, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	var out []scan.Update
	for rows.Next() {
		u, err := scanUpdate(ctx, q, rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, u)
	}
	rows.Close()
	return out, interpret(rows.Err())
}

// limitArg is a LIMIT argument: SQLite reads a negative limit as none.
func limitArg(n int) int64 {
	if n <= 0 {
		return -1
	}
	return int64(n)
}

// historyQuery is the statement of [Scan.History]: a range of
// updates_history from the position after q.After, in index order (SEARCH
// updates USING INDEX updates_history ((migration_id,record_time)>(?,?)),
// no sort). Leaving import updates out filters them in the walk: they sit
// at the start of each migration's range, so only a page that crosses into
// a migration walks past them.
func historyQuery(q scan.HistoryQuery) (string, []any) {
	m, rt := int64(math.MinInt64), int64(math.MinInt64)
	if q.After != nil {
		m, rt = q.After.Migration, int64(q.After.RecordTime)
	}
	query := `SELECT ` + updateColumns + ` FROM updates INDEXED BY updates_history
WHERE (migration_id, record_time) > (?1, ?2)`
	if !q.Imports {
		query += ` AND record_time > ` + strconv.FormatInt(importRecordTime, 10)
	}
	query += ` ORDER BY migration_id, record_time, synchronizer, id LIMIT ?3`
	return query, []any{m, rt, limitArg(q.Limit)}
}

// History lists updates in (migration, record time, synchronizer) order.
func (s *Scan) History(ctx context.Context, q scan.HistoryQuery) ([]scan.Update, error) {
	query, args := historyQuery(q)
	return readUpdates(ctx, s.read, query, args...)
}

// Update returns an update by id.
func (s *Scan) Update(ctx context.Context, updateID string) (*scan.Update, error) {
	out, err := readUpdates(ctx, s.read, `SELECT `+updateColumns+` FROM updates WHERE update_id = ? ORDER BY migration_id DESC LIMIT 1`, updateID)
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
	sqlBefore = `SELECT ` + updateColumns + ` FROM updates INDEXED BY updates_before
WHERE migration_id = ? AND synchronizer = ? AND record_time < ? AND record_time >= ?
ORDER BY record_time DESC, id DESC LIMIT ?`
	sqlBeforeImports = `SELECT ` + updateColumns + ` FROM updates INDEXED BY updates_before
WHERE migration_id = ? AND synchronizer = ? AND record_time = ?
ORDER BY record_time DESC, id DESC LIMIT ?`
)

// UpdatesBefore lists updates newest first: the non-import updates of the
// range, then, with AtOrAfter, the import updates (whose record time is
// the minimum), both read in one snapshot.
func (s *Scan) UpdatesBefore(ctx context.Context, q scan.BeforeQuery) ([]scan.Update, error) {
	lo := int64(importRecordTime) + 1
	if q.AtOrAfter != nil {
		lo = max(lo, int64(*q.AtOrAfter))
	}
	var out []scan.Update
	err := s.readTx(ctx, func(r runner) error {
		var err error
		out, err = readUpdates(ctx, r, sqlBefore, q.Migration, string(q.Synchronizer), int64(q.Before), lo, limitArg(q.Limit))
		if err != nil || q.AtOrAfter == nil || (q.Limit > 0 && len(out) >= q.Limit) {
			return err
		}
		imports, err := readUpdates(ctx, r, sqlBeforeImports, q.Migration, string(q.Synchronizer), int64(importRecordTime),
			limitArg(q.Limit-len(out)))
		out = append(out, imports...)
		return err
	})
	return out, err
}

// sqlImportUpdates is a range of the partial index updates_import.
const sqlImportUpdates = `SELECT ` + updateColumns + ` FROM updates
WHERE migration_id = ? AND is_import = 1 AND update_id > ? ORDER BY update_id LIMIT ?`

// ImportUpdates lists a migration's import updates by update id.
func (s *Scan) ImportUpdates(ctx context.Context, migration int64, after string, limit int) ([]scan.Update, error) {
	return readUpdates(ctx, s.read, sqlImportUpdates, migration, after, limitArg(limit))
}

// Migrations summarises the migrations from the tables Ingest keeps.
func (s *Scan) Migrations(ctx context.Context) ([]scan.Migration, error) {
	var out []scan.Migration
	err := s.readTx(ctx, func(r runner) error {
		rows, err := r.QueryContext(ctx, `SELECT migration_id, last_import_update_id FROM migrations ORDER BY migration_id`)
		if err != nil {
			return interpret(err)
		}
		byID := map[int64]int{}
		for rows.Next() {
			m := scan.Migration{HasUpdates: true}
			var last sql.NullString
			if err := rows.Scan(&m.ID, &last); err != nil {
				rows.Close()
				return interpret(err)
			}
			m.LastImportUpdateID = last.String
			byID[m.ID] = len(out)
			out = append(out, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return interpret(err)
		}
		rows, err = r.QueryContext(ctx, `SELECT migration_id, synchronizer, min_record_time, max_record_time
FROM record_time_ranges ORDER BY migration_id, synchronizer`)
		if err != nil {
			return interpret(err)
		}
		defer rows.Close()
		for rows.Next() {
			var m, lo, hi int64
			var sync string
			if err := rows.Scan(&m, &sync, &lo, &hi); err != nil {
				return interpret(err)
			}
			if i, ok := byID[m]; ok {
				out[i].Ranges = append(out[i].Ranges, scan.RecordTimeRange{
					Synchronizer: ledger.SynchronizerID(sync), Min: daml.Timestamp(lo), Max: daml.Timestamp(hi)})
			}
		}
		return interpret(rows.Err())
	})
	return out, err
}

// activeContractsQuery lists active contracts in (created_at,
// contract_id) order: a range of contracts_active, or one of
// contracts_active_template per template, each cut at the limit and
// merged (MERGE (UNION ALL)... ORDER BY created_at, contract_id).
func activeContractsQuery(q scan.ContractQuery) (string, []any) {
	keys := distinctKeys(q.Templates)
	limit := limitArg(q.Limit)
	switch len(keys) {
	case 0:
		return `SELECT body FROM contracts INDEXED BY contracts_active WHERE archived_record_time IS NULL
ORDER BY created_at, contract_id LIMIT ?`, []any{limit}
	case 1:
		return `SELECT body FROM contracts INDEXED BY contracts_active_template
WHERE template_id = (SELECT id FROM templates WHERE template_key = ?) AND archived_record_time IS NULL
ORDER BY created_at, contract_id LIMIT ?`, []any{keys[0], limit}
	}
	args := []any{limit}
	arms := make([]string, len(keys))
	for i, k := range keys {
		args = append(args, k)
		arms[i] = `SELECT * FROM (SELECT created_at, contract_id, body FROM contracts INDEXED BY contracts_active_template
WHERE template_id = (SELECT id FROM templates WHERE template_key = ?` + strconv.Itoa(len(args)) + `) AND archived_record_time IS NULL
ORDER BY created_at, contract_id LIMIT ?1)`
	}
	return `SELECT body FROM (` + strings.Join(arms, " UNION ALL ") + `) ORDER BY created_at, contract_id LIMIT ?1`, args
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

// ActiveContracts lists the DSO party's active contracts in (created_at,
// contract_id) order.
func (s *Scan) ActiveContracts(ctx context.Context, q scan.ContractQuery) ([]*ledger.Contract, error) {
	query, args := activeContractsQuery(q)
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []*ledger.Contract
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, interpret(err)
		}
		c, err := ledger.DecodeContract(body)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, interpret(rows.Err())
}

// Contract returns a contract the Scan has seen created.
func (s *Scan) Contract(ctx context.Context, id daml.ContractID) (*ledger.Contract, bool, error) {
	return readContract(ctx, s.read, id)
}

func readContract(ctx context.Context, q queryer, id daml.ContractID) (*ledger.Contract, bool, error) {
	var body []byte
	var active bool
	err := q.QueryRowContext(ctx, `SELECT body, archived_record_time IS NULL FROM contracts WHERE contract_id = ?`,
		string(id)).Scan(&body, &active)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, store.ContractNotFound(id)
	}
	if err != nil {
		return nil, false, interpret(err)
	}
	c, err := ledger.DecodeContract(body)
	return c, active, err
}

// BuildSnapshot takes the snapshot of migration at at. Under s.build it
// discards an interrupted build, numbers the rows from the next free row
// id and writes them chunk by chunk, each chunk in its own write
// transaction (a keyset walk of contracts_created from where the last one
// ended), so ingestion takes the write connection between chunks; it
// publishes the snapshot (complete = 1) in the last transaction.
func (s *Scan) BuildSnapshot(ctx context.Context, migration int64, at daml.Timestamp, chunk int) (scan.Snapshot, error) {
	if chunk <= 0 {
		return scan.Snapshot{}, fault.New(fault.InvalidArgument, "snapshot chunk size %d: must be positive", chunk)
	}
	s.build.Lock()
	defer s.build.Unlock()
	snap := scan.Snapshot{Migration: migration, RecordTime: at}
	done := false
	err := s.write(ctx, func(w runner) error {
		var complete bool
		err := w.QueryRowContext(ctx, sqlSnapFind, migration, int64(at)).Scan(&snap.ID, &snap.FirstRow, &snap.LastRow, &complete)
		if err == nil && complete {
			done = true
			return nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return interpret(err)
		}
		if err := discardIncomplete(ctx, w); err != nil {
			return err
		}
		if err := w.QueryRowContext(ctx, sqlSnapNextRow).Scan(&snap.FirstRow); err != nil {
			return interpret(err)
		}
		snap.LastRow = snap.FirstRow - 1
		return interpret(w.QueryRowContext(ctx, sqlSnapInsert, migration, int64(at), snap.FirstRow, snap.LastRow).Scan(&snap.ID))
	})
	if err != nil || done {
		return snap, err
	}
	var afterAt int64 = math.MinInt64
	afterID := ""
	for {
		var n int64
		err := s.write(ctx, func(w runner) error {
			res, err := w.ExecContext(ctx, sqlSnapChunk, migration, int64(at), afterAt, afterID, chunk, snap.LastRow, snap.ID)
			if err != nil {
				return interpret(err)
			}
			if n, err = res.RowsAffected(); err != nil {
				return interpret(err)
			}
			if n > 0 {
				if _, err := w.ExecContext(ctx, sqlSnapChunkParties, snap.LastRow, snap.LastRow+n); err != nil {
					return interpret(err)
				}
				if err := w.QueryRowContext(ctx, sqlSnapRowKey, snap.LastRow+n).Scan(&afterAt, &afterID); err != nil {
					return interpret(err)
				}
			}
			if n < int64(chunk) {
				// The walk has ended: publish with the last rows.
				_, err = w.ExecContext(ctx, sqlSnapPublish, snap.LastRow+n, snap.ID)
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
func discardIncomplete(ctx context.Context, w runner) error {
	var id, first int64
	err := w.QueryRowContext(ctx, sqlSnapIncomplete).Scan(&id, &first)
	if errors.Is(err, sql.ErrNoRows) {
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
  WHERE d.row_id >= ?)`,
		`DELETE FROM acs_snapshot_rows WHERE row_id >= ?`,
	} {
		if _, err := w.ExecContext(ctx, q, first); err != nil {
			return interpret(err)
		}
	}
	_, err = w.ExecContext(ctx, `DELETE FROM acs_snapshots WHERE complete = 0`)
	return interpret(err)
}

// snapshotColumns are the columns [snapshotOne] reads.
const snapshotColumns = `SELECT id, migration_id, record_time, first_row, last_row FROM acs_snapshots`

func (s *Scan) snapshotOne(ctx context.Context, what, query string, args ...any) (scan.Snapshot, error) {
	var snap scan.Snapshot
	var rt int64
	err := s.read.QueryRowContext(ctx, snapshotColumns+" "+query, args...).
		Scan(&snap.ID, &snap.Migration, &rt, &snap.FirstRow, &snap.LastRow)
	if errors.Is(err, sql.ErrNoRows) {
		return snap, fault.New(fault.NotFound, "no ACS snapshot %s", what)
	}
	snap.RecordTime = daml.Timestamp(rt)
	return snap, interpret(err)
}

// LatestSnapshot returns the published snapshot with the greatest
// (migration, record time).
func (s *Scan) LatestSnapshot(ctx context.Context) (scan.Snapshot, error) {
	return s.snapshotOne(ctx, "has been taken",
		`WHERE complete = 1 ORDER BY migration_id DESC, record_time DESC LIMIT 1`)
}

// SnapshotAtOrBefore returns the latest snapshot of migration at or before t.
func (s *Scan) SnapshotAtOrBefore(ctx context.Context, migration int64, t daml.Timestamp) (scan.Snapshot, error) {
	return s.snapshotOne(ctx, fmt.Sprintf("of migration %d at or before %s", migration, t),
		`WHERE migration_id = ? AND record_time <= ? AND complete = 1 ORDER BY record_time DESC LIMIT 1`, migration, int64(t))
}

// SnapshotAfter returns the earliest snapshot after t in migration, or of
// a later migration.
func (s *Scan) SnapshotAfter(ctx context.Context, migration int64, t daml.Timestamp) (scan.Snapshot, error) {
	return s.snapshotOne(ctx, fmt.Sprintf("after %s of migration %d", t, migration),
		`WHERE (migration_id, record_time) > (?, ?) AND complete = 1 ORDER BY migration_id, record_time LIMIT 1`, migration, int64(t))
}

// snapshotPageQuery is the statement of [Scan.SnapshotPage]. Every form is
// a keyset range of row ids (?1, ?2] in row order, stopped by the LIMIT:
//   - no filter: SEARCH d USING INTEGER PRIMARY KEY (rowid>? AND rowid<?);
//   - one template: acs_snapshot_rows_template (template_id=? AND
//     row_id>? AND row_id<?);
//   - one party: acs_snapshot_parties' primary key (party_id=? AND row_id>?
//     AND row_id<?); a party and a template:
//     acs_snapshot_parties_template;
//   - several parties or templates: one such range per (party, template)
//     pair, merged in order with duplicates dropped (MERGE (UNION)), the
//     rows then looked up by row id.
func snapshotPageQuery(q scan.SnapshotQuery) (string, []any) {
	lo := max(q.After, q.Snapshot.FirstRow-1)
	args := []any{lo, q.Snapshot.LastRow, limitArg(q.Limit)}
	const cols = `SELECT d.row_id, c.imported, c.body FROM `
	const join = ` JOIN contracts c ON c.seq = d.contract_seq`
	parties := store.Parties(q.Parties)
	keys := distinctKeys(q.Templates)
	if len(parties) == 0 && len(keys) == 0 {
		return cols + `acs_snapshot_rows d` + join + `
WHERE d.row_id > ?1 AND d.row_id <= ?2 ORDER BY d.row_id LIMIT ?3`, args
	}
	arg := func(v string) string {
		args = append(args, v)
		return "?" + strconv.Itoa(len(args))
	}
	var arms []string
	switch {
	case len(parties) == 0:
		for _, k := range keys {
			arms = append(arms, `SELECT row_id FROM acs_snapshot_rows INDEXED BY acs_snapshot_rows_template
WHERE template_id = `+templateID(arg(k))+` AND row_id > ?1 AND row_id <= ?2`)
		}
	case len(keys) == 0:
		for _, p := range parties {
			arms = append(arms, `SELECT row_id FROM acs_snapshot_parties
WHERE party_id = `+partyID(arg(p))+` AND row_id > ?1 AND row_id <= ?2`)
		}
	default:
		for _, p := range parties {
			for _, k := range keys {
				arms = append(arms, `SELECT row_id FROM acs_snapshot_parties INDEXED BY acs_snapshot_parties_template
WHERE party_id = `+partyID(arg(p))+` AND template_id = `+templateID(arg(k))+` AND row_id > ?1 AND row_id <= ?2`)
			}
		}
	}
	if len(arms) == 1 {
		return cols + `(` + arms[0] + ` ORDER BY row_id LIMIT ?3) o
JOIN acs_snapshot_rows d ON d.row_id = o.row_id` + join + ` ORDER BY o.row_id`, args
	}
	return cols + `(` + strings.Join(arms, "\nUNION ") + `
ORDER BY 1 LIMIT ?3) o
JOIN acs_snapshot_rows d ON d.row_id = o.row_id` + join + ` ORDER BY o.row_id`, args
}

// SnapshotPage returns the next rows of a snapshot in row order.
func (s *Scan) SnapshotPage(ctx context.Context, q scan.SnapshotQuery) ([]scan.SnapshotRow, error) {
	query, args := snapshotPageQuery(q)
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []scan.SnapshotRow
	if q.Limit > 0 {
		out = make([]scan.SnapshotRow, 0, min(q.Limit, 1024))
	}
	var body sql.RawBytes
	for rows.Next() {
		var r scan.SnapshotRow
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
