// Package store holds what the adapters of the [ledger.Store] seam share
// and that is not SQL: the reader of their embedded migrations, the errors
// they must report identically, the order a Scan's backfill stores its
// updates in ([BackfillOrder]), and the [Leader] capability that
// automation uses to run on exactly one process.
//
// The adapters themselves are named after their technology:
//
//   - internal/store/sqlitestore: embedded SQLite (modernc.org/sqlite), the
//     default for local development; one process per data directory.
//   - internal/store/pgstore: PostgreSQL (pgx), for bigger setups where
//     several sandnet processes share one database.
//
// Both pass the one behavioural suite in internal/store/storetest, so a
// behaviour fixed once is tested on both engines. Each adapter keeps its own
// SQL and its own migrations (same version numbers on both engines), because
// the dialects differ in the details that matter for speed (RETURNING and
// data-modifying CTEs, arrays, partial indexes).
//
// [ledger.Store]: github.com/sandnet/sandnet/internal/ledger.Store
package store
