// Package pgstore implements sandnet's store seams over PostgreSQL with pgx
// v5 (pgxpool) — the ledger's [ledger.Store] (OpenLedger), a Scan's
// [scan.Store] (OpenScan) and the validator's [validator.Store]
// (OpenValidator) — for setups bigger than one developer's machine and for
// several sandnet processes sharing one database.
//
// # One schema per component
//
// Each component (the ledger, each Scan, the validator) owns a schema of its
// own, so that their tables, migrations and locks never collide and a big
// Scan snapshot never holds the ledger's writer. The store creates its
// schema if it is missing and sets search_path to it on every pooled
// connection through the startup parameters, so the SQL is written
// unqualified. Schema names are restricted to lower-case identifiers so that
// they need no quoting anywhere.
//
// # One total order across processes
//
// Every [Ledger.Write] takes pg_advisory_xact_lock(key) as its first
// statement, key being derived from the schema name. Commits of all
// processes on the schema are therefore serialised: the head read after the
// lock is the one the previous writer committed, offsets and record times
// are allocated in one total order, and since the lock is released only
// after the commit is visible, no reader can see offset n+1 before offset
// n. The transaction runs at READ COMMITTED on purpose: at REPEATABLE READ
// the snapshot would be taken by the lock statement itself, before the
// previous writer committed, and the head read afterwards would be stale.
// Within a process, writers also queue on a semaphore before they take a
// pooled connection, so that waiting writers do not starve readers of
// connections.
//
// # Leadership
//
// [Ledger.TryLead] holds a session-level pg_try_advisory_lock on a
// dedicated connection (outside the pool) and pings it periodically; the
// lock dies with the session, so a crashed leader is replaced as soon as
// PostgreSQL notices the dead connection.
//
// # Migrations
//
// The embedded migrations (same versions as the SQLite adapter's) are
// applied at open in one transaction, under a session advisory lock, so that
// two processes starting together do not migrate at once.
//
// # Durability
//
// A commit returns once PostgreSQL has flushed it (synchronous_commit=on,
// the server's default), and the write lock is held until then, so the
// append rate is bounded by the disk's flush latency. For a throwaway
// network, add synchronous_commit=off to the URL (pgx passes unknown URL
// parameters to the server as session settings): a server crash may then
// lose the last commits, never consistency. See the benchmarks in this
// package.
//
// # Pool
//
// The pool has 10 connections unless the URL says otherwise
// (pool_max_conns=N); pgx's default depends on the CPU count, which is the
// wrong thing to vary by. Behind PgBouncer in transaction mode, add
// default_query_exec_mode=exec to the URL: the default statement cache
// does not survive connection swapping. Advisory locks need session or
// transaction affinity; transaction mode keeps the write lock working, but
// leadership needs a direct connection (session mode).
package pgstore
