package scan

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Peers are the other SVs' Scans, as a backfilling Scan reads them: every
// answer is one that f+1 of them agree on (f = (n-1)/3 of n peers), so a
// peer that answers wrongly, slowly or not at all is outvoted. Without
// such an answer a read fails with a fault.Unavailable saying why.
type Peers interface {
	// MigrationInfo returns what the peers hold of a migration. When they
	// agree that they hold nothing of it, it fails with a fault.NotFound.
	MigrationInfo(ctx context.Context, migration int64) (PeerMigration, error)
	// UpdatesBefore returns the updates of one migration and synchronizer
	// before q.Before (exclusive), newest first, at most q.Limit; never
	// import updates. The updates carry no offset (0) and no Created or
	// Archived: the caller derives them (see Effects).
	UpdatesBefore(ctx context.Context, q BeforeQuery) ([]Update, error)
	// ImportUpdates returns a migration's import updates with an update id
	// greater than after, in update id order, at most limit (Import set,
	// Created and Archived not).
	ImportUpdates(ctx context.Context, migration int64, after string, limit int) ([]Update, error)
}

// PeerMigration is what the peers agree on about one migration.
type PeerMigration struct {
	// Previous is the migration before it, if any.
	Previous *int64
	// Mins is the oldest record time of each synchronizer's non-import
	// updates in the migration: where backfilling it ends. (The newest
	// differs between peers that ingest at different speeds, so it is not
	// part of what they agree on.)
	Mins map[ledger.SynchronizerID]daml.Timestamp
	// LastImportUpdateID is the greatest id of the migration's import
	// updates, or "" when it has none.
	LastImportUpdateID string
	// Complete is true when the peers hold every non-import update of the
	// migration (their history is complete).
	Complete bool
}
