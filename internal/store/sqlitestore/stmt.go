package sqlitestore

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds a lazy cache: ActiveContracts builds its text
// from the filter, and a client varying the number of templates must not
// grow the cache without end.
const maxCachedStatements = 128

// stmtCache holds prepared statements of one pool by query text. modernc
// does not cache prepared statements itself, and parsing a statement costs
// as much as running a small one.
type stmtCache struct {
	db *sql.DB
	// lazy prepares unknown queries on first use. The write pool's cache is
	// filled at open instead: with its one connection, a prepare from inside
	// a Write would wait for the connection the Write holds.
	lazy  bool
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB, lazy bool) *stmtCache {
	return &stmtCache{db: db, lazy: lazy, stmts: map[string]*sql.Stmt{}}
}

// prepare adds queries to the cache.
func (c *stmtCache) prepare(ctx context.Context, queries ...string) error {
	for _, q := range queries {
		st, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.stmts[q] = st
		c.mu.Unlock()
	}
	return nil
}

// get returns the prepared statement for q, or nil to run q unprepared.
func (c *stmtCache) get(ctx context.Context, q string, mayPrepare bool) *sql.Stmt {
	c.mu.Lock()
	st, n := c.stmts[q], len(c.stmts)
	c.mu.Unlock()
	if st != nil || !c.lazy || !mayPrepare || n >= maxCachedStatements {
		return st
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil // the unprepared run reports the error
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.stmts[q]; old != nil {
		st.Close()
		return old
	}
	c.stmts[q] = st
	return st
}

func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for q, st := range c.stmts {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
		delete(c.stmts, q)
	}
	return first
}

// runner runs statements on a pool or inside one of its transactions,
// through the pool's statement cache.
type runner struct {
	db    *sql.DB
	tx    *sql.Tx // nil: on db
	cache *stmtCache
	// txStmts, when set (a write transaction, used by one goroutine),
	// keeps the transaction's handles of the cached statements, so that
	// a statement run once per node or participant is bound to the
	// transaction once (database/sql's Tx.StmtContext allocates a handle
	// and registers it for closing on every call).
	txStmts map[*sql.Stmt]*sql.Stmt
}

// writeRunner is the runner of a write transaction on db.
func writeRunner(db *sql.DB, tx *sql.Tx, cache *stmtCache) runner {
	return runner{db: db, tx: tx, cache: cache, txStmts: map[*sql.Stmt]*sql.Stmt{}}
}

func (r runner) stmt(ctx context.Context, q string) *sql.Stmt {
	// Inside a transaction, never prepare on the pool: that needs a second
	// connection while the transaction holds one, and a few concurrent
	// transactions then wait on each other for the pool forever. An
	// uncached query runs unprepared on the transaction's connection; the
	// next read outside a transaction caches it.
	st := r.cache.get(ctx, q, r.tx == nil)
	if st != nil && r.tx != nil {
		if bound := r.txStmts[st]; bound != nil {
			return bound
		}
		// Reuses the statement already prepared on the transaction's
		// connection; closed with the transaction.
		bound := r.tx.StmtContext(ctx, st)
		if r.txStmts != nil {
			r.txStmts[st] = bound
		}
		st = bound
	}
	return st
}

// ExecContext runs a statement.
func (r runner) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := r.stmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	if r.tx != nil {
		return r.tx.ExecContext(ctx, q, args...)
	}
	return r.db.ExecContext(ctx, q, args...)
}

// QueryContext runs a query.
func (r runner) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := r.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	if r.tx != nil {
		return r.tx.QueryContext(ctx, q, args...)
	}
	return r.db.QueryContext(ctx, q, args...)
}

// QueryRowContext runs a query that returns at most one row.
func (r runner) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := r.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	if r.tx != nil {
		return r.tx.QueryRowContext(ctx, q, args...)
	}
	return r.db.QueryRowContext(ctx, q, args...)
}
