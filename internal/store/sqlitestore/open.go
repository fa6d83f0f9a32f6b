package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/sandnet/sandnet/internal/fault"
)

// conns is the single-writer layout every SQLite store shares ([Ledger],
// [Scan], [Validator]): a file lock, one write connection and a pool of
// read-only ones, each with its statement cache.
type conns struct {
	file string  // the database file's path
	w    *sql.DB // exactly one connection, BEGIN IMMEDIATE
	r    *sql.DB // read-only snapshots
	lock *fileLock
	// cp checkpoints the WAL off the commit path (checkpoint.go); every
	// commit on w tells it.
	cp *checkpointer

	wc   *stmtCache // the store's write statements, prepared on w at open
	rc   *stmtCache // prepared on r on first use
	read runner     // r through rc
}

// open opens (creating if needed) the database at path for the store
// called name ("ledger", "scan", "validator": it names the store in the
// errors), locks it, applies the pending migrations of migrationsDir and
// prepares writeStatements on the write connection. It fails with a
// fault.FailedPrecondition if another process has the same file open. On
// failure it closes whatever it opened and releases the lock.
func (c *conns) open(ctx context.Context, name, path, migrationsDir, synchronous string, writeStatements []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	lock, err := waitLock(ctx, path+".lock")
	if err != nil {
		return err
	}
	c.lock = lock
	c.file = path
	ok := false
	defer func() {
		if !ok {
			c.closeDBs()
		}
	}()

	// synchronous only matters for the connection that commits; the
	// readers get query_only so that a bug cannot write around the single
	// writer.
	c.w, err = sql.Open("sqlite", dsn(path,
		"_pragma=journal_mode(WAL)", "_pragma=synchronous("+synchronous+")", "_pragma=foreign_keys(1)",
		"_txlock=immediate", fmt.Sprintf("_pragma=wal_autocheckpoint(%d)", backstopCheckpointPages)))
	if err != nil {
		return fmt.Errorf("open %s %s: %w", name, path, err)
	}
	c.w.SetMaxOpenConns(1)
	c.w.SetMaxIdleConns(1)
	c.w.SetConnMaxLifetime(0)
	c.w.SetConnMaxIdleTime(0)
	if err := migrateDir(ctx, c.w, migrationsDir); err != nil {
		return fmt.Errorf("open %s %s: %w", name, path, err)
	}
	c.wc = newStmtCache(c.w, false)
	if err := c.wc.prepare(ctx, writeStatements...); err != nil {
		return fmt.Errorf("open %s %s: prepare: %w", name, path, err)
	}

	c.r, err = sql.Open("sqlite", dsn(path, "_pragma=foreign_keys(1)", "_pragma=query_only(1)"))
	if err != nil {
		return fmt.Errorf("open %s %s: %w", name, path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	c.r.SetMaxOpenConns(n)
	c.r.SetMaxIdleConns(n)
	if err := c.r.PingContext(ctx); err != nil {
		return fmt.Errorf("open %s %s: %w", name, path, err)
	}
	c.rc = newStmtCache(c.r, true)
	c.read = runner{db: c.r, cache: c.rc}
	if c.cp, err = startCheckpointer(ctx, path, synchronous); err != nil {
		return fmt.Errorf("open %s %s: %w", name, path, err)
	}
	ok = true
	return nil
}

// optimize lets SQLite refresh its planner statistics for the next open,
// as its documentation recommends before closing a connection.
func (c *conns) optimize() {
	if c.w != nil {
		_, _ = c.w.Exec("PRAGMA optimize")
	}
}

// committed is called after every commit on the write connection.
func (c *conns) committed() { c.cp.committed() }

// closeDBs stops the checkpointer and closes the statement caches, the
// read pool, the write connection and then releases the file lock, in that
// order.
func (c *conns) closeDBs() error {
	var errs []error
	if c.cp != nil {
		errs = append(errs, c.cp.close())
	}
	for _, sc := range []*stmtCache{c.rc, c.wc} {
		if sc != nil {
			errs = append(errs, sc.close())
		}
	}
	if c.r != nil {
		errs = append(errs, c.r.Close())
	}
	if c.w != nil {
		errs = append(errs, c.w.Close())
	}
	if c.lock != nil {
		errs = append(errs, c.lock.release())
	}
	return errors.Join(errs...)
}

// lockWait is how long opening a store waits for a lock that is held
// before it reports the data directory in use. A lock outlives its holder
// briefly: a process that just exited is still being torn down, and a
// process that starts another (a restart script, a test) forks, leaving a
// copy of every descriptor, the lock file's included, in the child until
// it execs. A second sandnet on the same directory is still told at once,
// give or take this.
const lockWait = 2 * time.Second

// waitLock takes the lock at path, trying again for up to lockWait while
// another holder has it.
func waitLock(ctx context.Context, path string) (*fileLock, error) {
	deadline := time.Now().Add(lockWait)
	for {
		lock, err := lockFile(path)
		if !fault.Is(err, fault.FailedPrecondition) || time.Now().After(deadline) {
			return lock, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(20 * time.Millisecond):
		}
	}
}
