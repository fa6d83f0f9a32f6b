// Package scan is the Scan app's domain: a Scan ingests one SV
// participant's ordered update stream in the DSO party's view, keeps its
// own history of it, takes ACS snapshots at fixed boundaries of ledger
// time, and answers the reads an explorer, an exchange or a validator makes
// of it.
//
// The package imports neither SQL nor HTTP. It reads the ledger through the
// [Source] seam (in process: [NetworkSource]; over the JSON Ledger API: the
// client in internal/ledgerclient) and persists through the
// [Store] seam (internal/store/sqlitestore and pgstore), so a Scan can run
// beside its ledger or in its own process against a remote one.
//
// # Ingestion
//
// The [Ingester] reads the source after the last offset it stored and
// stores each batch together with the new cursor in one database
// transaction, compare-and-swapping the cursor: a restart resumes exactly
// where the last commit ended, an update is never stored twice and never
// skipped. Every batch also carries the source's watermark, a record time
// that no later update can be at or before; ACS snapshots wait for it.
//
// # Snapshots
//
// The [Snapshotter] takes a snapshot at every boundary of ledger time (every
// three hours by default, at 00:00, 03:00, … UTC) once the watermark has
// passed it, also on an idle network and once per boundary when the clock
// jumps across several. A snapshot holds the contracts the DSO party is a
// stakeholder of that are active at the boundary, in (created_at,
// contract_id) order, so every SV's Scan pages the same list.
package scan
