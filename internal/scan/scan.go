package scan

import (
	"context"
	"fmt"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Update is one update of a Scan's history: a transaction as the DSO party
// sees it (LEDGER_EFFECTS), numbered by the offset its SV participant gave
// it.
type Update struct {
	// Offset is the SV participant's offset of the update. Import updates
	// have none (0).
	Offset ledger.Offset
	// Transaction is the transaction projected to the DSO party: only the
	// nodes the DSO party witnesses, with node ids of the full tree.
	// Exactly one of Transaction and Reassignment is set.
	Transaction *ledger.Transaction
	// Reassignment is an unassignment or an assignment of a contract the
	// DSO party is a stakeholder of, as Scan history serves it
	// (UpdateHistoryReassignment). It neither adds to nor removes from the
	// DSO party's active contract set: an assignment moves the contract to
	// its target synchronizer (Created and Archived stay empty).
	Reassignment *ledger.Reassignment
	// Import marks an ACS re-import update of a hard migration: one create
	// per update, no record time, update id = contract id. History reads
	// of v1 and v2 leave them out.
	Import bool
	// Created are the contracts the update adds to the DSO party's active
	// contract set: created in it, with the DSO party as a stakeholder.
	Created []*ledger.Contract
	// Archived are the contracts the update removes from it.
	Archived []daml.ContractID
}

// UpdateID returns the update id.
func (u *Update) UpdateID() string {
	if u.Reassignment != nil {
		return u.Reassignment.UpdateID
	}
	return u.Transaction.UpdateID
}

// MigrationID returns the migration id of the synchronizer that ordered
// the update.
func (u *Update) MigrationID() int64 {
	if u.Reassignment != nil {
		return u.Reassignment.MigrationID
	}
	return u.Transaction.MigrationID
}

// RecordTime returns the update's record time.
func (u *Update) RecordTime() daml.Timestamp {
	if u.Reassignment != nil {
		return u.Reassignment.RecordTime
	}
	return u.Transaction.RecordTime
}

// Synchronizer returns the synchronizer that ordered the update: for a
// reassignment, the source of an unassignment and the target of an
// assignment.
func (u *Update) Synchronizer() ledger.SynchronizerID {
	if u.Reassignment != nil {
		return u.Reassignment.Synchronizer()
	}
	return u.Transaction.Synchronizer
}

// Cursor says how far ingestion has come.
type Cursor struct {
	// Offset is the last participant offset ingested (0: none yet).
	Offset ledger.Offset
	// Watermark is a record time that every update after Offset is later
	// than: the ledger's synchronizer time when the source last said it
	// was caught up. Snapshots at or before it are final.
	Watermark daml.Timestamp
	// Migration is the migration id of the last update ingested, or of
	// the migration whose import updates were ingested after it.
	Migration int64
}

// Backfilling says whether the Scan holds the network's whole history.
type Backfilling struct {
	// Complete is true when the Scan holds every non-import update of
	// every migration.
	Complete bool
	// ImportUpdatesComplete is true when it holds every import update.
	ImportUpdatesComplete bool
	// Start is where the history of a Scan that joined late begins (its
	// joining transaction): live ingestion brings what comes after it,
	// backfilling what came before. Zero for a history from the start.
	Start HistoryPosition
}

// HistoryQuery selects updates in (migration id, record time,
// synchronizer) order, as the v1 and v2 update lists page them.
type HistoryQuery struct {
	// After, when set, keeps only the updates after it: those of its
	// migration with a later record time, and those of later migrations.
	After *HistoryPosition
	// Limit is the most updates returned.
	Limit int
	// Imports includes import updates (the v0 list does, v1 and v2 do not).
	// They sort first within their migration.
	Imports bool
}

// HistoryPosition is a position in the history: a migration id and a
// record time within it.
type HistoryPosition struct {
	Migration  int64
	RecordTime daml.Timestamp
}

// BeforeQuery selects the updates of one migration and synchronizer before
// a record time, newest first, as backfilling Scans read them from peers.
type BeforeQuery struct {
	Migration    int64
	Synchronizer ledger.SynchronizerID
	// Before is exclusive.
	Before daml.Timestamp
	// AtOrAfter, when set, keeps only updates at or after it and then
	// includes import updates (whose record time is the minimum).
	AtOrAfter *daml.Timestamp
	Limit     int
}

// RecordTimeRange is the oldest and newest record time of the non-import
// updates of one synchronizer within a migration.
type RecordTimeRange struct {
	Synchronizer ledger.SynchronizerID
	Min, Max     daml.Timestamp
}

// Migration summarises what a Scan holds of one migration.
type Migration struct {
	ID int64
	// Ranges has one entry per synchronizer with non-import updates,
	// ordered by synchronizer id.
	Ranges []RecordTimeRange
	// LastImportUpdateID is the greatest update id of the migration's
	// import updates, or "" when it has none.
	LastImportUpdateID string
	// HasUpdates is true when the migration has any update, import or not.
	HasUpdates bool
}

// Snapshot is an ACS snapshot: the DSO party's active contracts at a
// boundary of ledger time. Its rows are numbered FirstRow..LastRow in
// (created_at, contract_id) order; an empty snapshot has LastRow =
// FirstRow-1.
type Snapshot struct {
	ID         int64
	Migration  int64
	RecordTime daml.Timestamp
	FirstRow   int64
	LastRow    int64
}

// Contracts returns how many contracts the snapshot holds.
func (s Snapshot) Contracts() int64 { return s.LastRow - s.FirstRow + 1 }

// SnapshotQuery selects a page of a snapshot.
type SnapshotQuery struct {
	Snapshot Snapshot
	// After is the last row of the previous page (0: from the start).
	After int64
	Limit int
	// Parties keeps the contracts one of these parties is a stakeholder of.
	Parties []daml.Party
	// Templates keeps the contracts of these templates.
	Templates []TemplateKey
}

// SnapshotRow is a contract of a snapshot and its row number.
type SnapshotRow struct {
	Row      int64
	Contract *ledger.Contract
	// Imported is true for contracts of earlier migrations, re-imported
	// by an import update: they have no creating update in this history.
	Imported bool
}

// ContractQuery selects the DSO party's current active contracts.
type ContractQuery struct {
	Templates []TemplateKey
	// Limit bounds the result; 0 means no bound.
	Limit int
}

// TemplateKey names a template by package name, module and entity, the
// form Scan filters use ("splice-amulet:Splice.Amulet:Amulet"): it stays
// the same across package versions.
type TemplateKey struct {
	PackageName, Module, Entity string
}

// KeyOf returns the key of a template id.
func KeyOf(t ledger.TemplateID) TemplateKey {
	return TemplateKey{PackageName: t.PackageName, Module: t.ModuleName, Entity: t.EntityName}
}

// String returns "package:Module:Entity".
func (k TemplateKey) String() string { return k.PackageName + ":" + k.Module + ":" + k.Entity }

// ParseTemplateKey reads "package_name:module_name:entity_name".
func ParseTemplateKey(s string) (TemplateKey, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return TemplateKey{}, fault.New(fault.InvalidArgument, "Malformed template_id, expected 'package_name:module_name:entity_name'")
	}
	return TemplateKey{PackageName: parts[0], Module: parts[1], Entity: parts[2]}, nil
}

// FormatOffset renders a participant offset as Scan reports it: a
// fixed-width hexadecimal string, so offsets sort lexicographically.
func FormatOffset(o ledger.Offset) string { return fmt.Sprintf("%018x", int64(o)) }

// Store is the persistence seam of a Scan. Adapters exist for SQLite and
// PostgreSQL and pass the same conformance suite
// (internal/store/storetest). A Scan's store is its own database (its
// own SQLite file, its own PostgreSQL schema), apart from the ledger's.
type Store interface {
	// Cursor returns where ingestion stands; the zero Cursor before the
	// first Ingest.
	Cursor(ctx context.Context) (Cursor, error)
	// Ingest stores updates (in offset order) and moves the cursor from
	// prev to next, in one transaction. It fails with fault.Aborted and
	// stores nothing when the stored cursor's offset is not prev.Offset,
	// so two ingesters can never store an update twice. The first Ingest
	// also fixes the backfilling state: complete when ingestion starts at
	// the beginning of the participant's stream (prev.Offset 0), not when
	// it starts later.
	Ingest(ctx context.Context, prev, next Cursor, updates []Update) error
	// Backfilling returns the backfilling state (the zero value before the
	// first Ingest or BeginHistory).
	Backfilling(ctx context.Context) (Backfilling, error)
	// BeginHistory fixes the backfilling state before the first Ingest:
	// complete (both flags true) when the history starts with the
	// network's founding transaction, incomplete (both false) when it
	// starts with this SV's joining transaction and what came before is
	// to be backfilled from peers; start is where it starts (the joining
	// transaction's migration and record time). Once the first Ingest has
	// stored something it changes nothing. A store never begun gets its
	// flags from its first Ingest (see Ingest).
	BeginHistory(ctx context.Context, complete bool, start HistoryPosition) error
	// Backfill stores updates that a backfilling Scan got from its peers,
	// in one transaction: updates of the past (older than anything the
	// store holds of their migration and synchronizer, or import updates),
	// in any order (peers send them newest first). Updates already stored
	// (by update id) are skipped. The contracts they create, archive and
	// reassign join the DSO party's contract set as if they had been
	// ingested in history order: a contract whose archive or assignment
	// was stored before its creation is stored archived or moved.
	Backfill(ctx context.Context, updates []Update) error
	// SetBackfilling raises the backfilling flags: a flag true in b
	// becomes true; flags are never lowered.
	SetBackfilling(ctx context.Context, b Backfilling) error

	// History lists updates in (migration, record time, synchronizer)
	// order.
	History(ctx context.Context, q HistoryQuery) ([]Update, error)
	// Update returns an update by id; an unknown id is a fault.NotFound.
	Update(ctx context.Context, updateID string) (*Update, error)
	// UpdatesBefore lists updates newest first.
	UpdatesBefore(ctx context.Context, q BeforeQuery) ([]Update, error)
	// ImportUpdates lists a migration's import updates with an update id
	// greater than after, in update id order.
	ImportUpdates(ctx context.Context, migration int64, after string, limit int) ([]Update, error)
	// Migrations summarises every migration the Scan holds, in id order.
	Migrations(ctx context.Context) ([]Migration, error)

	// ActiveContracts lists the DSO party's active contracts now, in
	// (created_at, contract_id) order: the same order on every SV's Scan,
	// whichever order the store learnt of them in (backfilling stores the
	// oldest last).
	ActiveContracts(ctx context.Context, q ContractQuery) ([]*ledger.Contract, error)
	// Contract returns a contract the Scan has seen created, and whether
	// it is active; an unknown contract is a fault.NotFound.
	Contract(ctx context.Context, id daml.ContractID) (*ledger.Contract, bool, error)

	// BuildSnapshot takes the snapshot of migration at record time at: the
	// contracts created at or before it (in this or an earlier migration)
	// and not archived at or before it. It writes the rows in chunks of
	// at most chunk contracts, each in its own transaction, so that
	// ingestion and reads go on meanwhile, and publishes the snapshot
	// only when all its rows are written. Taking a snapshot that exists
	// returns the existing one. The caller makes sure at is at or before
	// the cursor's watermark.
	BuildSnapshot(ctx context.Context, migration int64, at daml.Timestamp, chunk int) (Snapshot, error)
	// LatestSnapshot returns the snapshot with the greatest (migration,
	// record time), or a fault.NotFound when there is none.
	LatestSnapshot(ctx context.Context) (Snapshot, error)
	// SnapshotAtOrBefore returns the latest snapshot of migration at or
	// before t; fault.NotFound when there is none.
	SnapshotAtOrBefore(ctx context.Context, migration int64, t daml.Timestamp) (Snapshot, error)
	// SnapshotAfter returns the earliest snapshot after t in migration, or
	// else the earliest of a later migration; fault.NotFound when there is
	// none.
	SnapshotAfter(ctx context.Context, migration int64, t daml.Timestamp) (Snapshot, error)
	// SnapshotPage returns the next rows of a snapshot in row order, by
	// keyset on the row number.
	SnapshotPage(ctx context.Context, q SnapshotQuery) ([]SnapshotRow, error)

	// Close releases the store's resources.
	Close() error
}

// Checkpoint is a source's statement that its stream has reached Offset
// and that every update after Offset will have a record time after
// RecordTime.
type Checkpoint struct {
	Offset     ledger.Offset
	RecordTime daml.Timestamp
	// Migration is the ledger's current hard-migration id at Offset, or
	// 0 when the source does not know it (the JSON Ledger API source). A
	// migration above the cursor's, with no update of it yet, makes the
	// Ingester store the new migration's import updates.
	Migration int64
}

// Batch is what a Source returns: the next updates of the stream, and,
// when the batch reaches the end of the stream, a checkpoint there.
type Batch struct {
	// Updates are the updates in offset order, projected to the DSO party.
	// Topology updates are left out (their offsets still count).
	Updates []Update
	// End is the last offset the batch covers: the offset of the last
	// update read, including updates the Scan does not keep.
	End ledger.Offset
	// Checkpoint, when its RecordTime is set, is a checkpoint at End.
	Checkpoint Checkpoint
}

// Source is the ledger a Scan ingests: its SV participant's update stream
// in the DSO party's view.
type Source interface {
	// Read returns the updates after offset after, at most limit of them.
	// It does not wait: at the end of the stream it returns an empty batch
	// with a checkpoint.
	Read(ctx context.Context, after ledger.Offset, limit int) (Batch, error)
	// Wait returns when updates after offset after may have been
	// committed, when ledger time may have moved, once ledger time reaches
	// until (when it is set), or when ctx ends (with ctx's error).
	Wait(ctx context.Context, after ledger.Offset, until daml.Timestamp) error
	// Now returns the ledger's current time.
	Now(ctx context.Context) (daml.Timestamp, error)
	// Hostings returns the participants hosting party on synchronizer.
	Hostings(ctx context.Context, synchronizer ledger.SynchronizerID, party daml.Party) ([]ledger.ParticipantID, error)
}
