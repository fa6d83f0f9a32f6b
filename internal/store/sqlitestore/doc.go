// Package sqlitestore implements sandnet's store seams over embedded SQLite
// files (modernc.org/sqlite, pure Go, behind database/sql): the ledger's
// [ledger.Store] (OpenLedger), a Scan's [scan.Store] (OpenScan) and the
// validator's [validator.Store] (OpenValidator). It is sandnet's default
// storage: `sandnet start` keeps each component in a file of its own in the
// data directory (ledger.db, scan.db, validator.db), so that a large Scan
// snapshot never holds the ledger's writer. The three share how a file is
// opened (open.go), migrated (migrations/<component>/) and closed; what
// follows applies to each.
//
// # One writer, many readers
//
// SQLite has a single writer. The store opens the file twice: a write pool
// with exactly one connection whose transactions start with BEGIN IMMEDIATE
// (DSN `_txlock=immediate`), and a read pool with several connections.
// Taking the write lock at BEGIN rather than on the first write matters: a
// deferred transaction that upgrades from read to write fails at once with
// SQLITE_BUSY, ignoring busy_timeout. With one write connection, writers in
// this process queue in database/sql, and readers never wait for them
// because WAL gives each read transaction a snapshot.
//
// Pragmas are set per connection through the DSN (a PRAGMA executed on a
// pool reaches only one connection), busy_timeout first so that the pragmas
// after it wait rather than fail while another connection holds a lock.
//
// # Durability
//
// The journal is WAL with synchronous=NORMAL. At commit, the transaction's
// pages are appended to the WAL file with write(2); WAL is fsynced only at
// checkpoints. A committed transaction is therefore in the operating
// system's page cache before Write returns, and killing the process (kill
// -9, a panic, an OOM kill) loses nothing that was committed: the next open
// replays the WAL. Only an operating-system crash or power loss can lose
// the last transactions before a checkpoint, and even then the database
// stays consistent (it rolls back to a committed state). synchronous=FULL
// would close that window at the price of an fsync per commit; for a local
// development network NORMAL is the right trade (see the package's
// benchmarks for the measured difference). TestKill9KeepsCommitted checks
// the process-crash guarantee with a real SIGKILL.
//
// Checkpoints run on a connection of their own after commits, PASSIVE so
// that they never hold the writer, rather than inside the commit that
// fills the WAL past 1,000 pages as SQLite does by default; the writer
// keeps an automatic checkpoint at 10,000 pages as a backstop that bounds
// the WAL (checkpoint.go).
//
// # One process per file
//
// The store takes an exclusive flock on "<path>.lock" before it touches the
// database, so that a second sandnet on the same data directory fails
// within two seconds (the wait covers a holder that is just exiting, or a
// descriptor copy a forking process keeps until it execs) with a clear
// error instead of fighting over the write lock (SQLite
// would allow it, and both processes would allocate offsets). The lock is
// released by the kernel when the process dies, so a killed sandnet never
// leaves a stale lock behind. Leadership ([Ledger.TryLead]) is therefore
// decided within the process.
//
// # Times and order
//
// Times are INTEGER microseconds. Creation order of contracts is the
// contracts table's rowid, and every list is paginated by keyset on an
// indexed column, never by OFFSET.
package sqlitestore
