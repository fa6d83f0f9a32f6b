package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// Checkpoints copy the pages that commits appended to the WAL back into the
// database file, and fsync both (synchronous=NORMAL syncs only then). By
// default SQLite runs one inside the commit that takes the WAL past 1,000
// pages: with the ledger's 30 or so pages a transaction, one
// submit-and-wait in 32 waited for a checkpoint, 6 to 40 ms on the
// development machine, which made the one-client p99 several times the
// p50. The store runs them on a connection of their own instead, after
// commits, where they do not hold the writer: a PASSIVE checkpoint never
// takes the write lock, so commits go on appending to the WAL meanwhile.
//
// The write connection keeps an automatic checkpoint at
// backstopCheckpointPages as a backstop. SQLite starts the WAL over from
// its beginning only when a write transaction begins after every page was
// copied, which a background checkpoint under a steady stream of commits
// rarely sees; the backstop bounds the WAL (about 40 MiB) and copies only
// what the background checkpoints have not.
const backstopCheckpointPages = 10000

// checkpointPause is the least time between two background checkpoints, so
// that a stream of commits is checkpointed in batches (each checkpoint
// fsyncs twice) rather than one commit at a time.
const checkpointPause = 20 * time.Millisecond

// checkpointer runs the background checkpoints of one database.
type checkpointer struct {
	db *sql.DB // one connection, its own
	// mu is held by each checkpoint, and by a save while it copies the
	// database's files (saves.go), which no checkpoint may change.
	mu   sync.Mutex
	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

// startCheckpointer opens the checkpointer's connection to the database at
// path, with the writer's synchronous setting, and starts it.
func startCheckpointer(ctx context.Context, path, synchronous string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn(path, "_pragma=synchronous("+synchronous+")"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

// committed tells the checkpointer that a commit appended to the WAL. It
// never blocks.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		}
		// A failure is left to the next commit's checkpoint, or to the
		// writer's backstop: a checkpoint that did not run loses nothing.
		_ = c.checkpoint()
		select {
		case <-c.stop:
			return
		case <-time.After(checkpointPause):
		}
	}
}

// checkpoint copies what it can without waiting for anyone: the pages
// that no open read transaction may still need from the WAL.
func (c *checkpointer) checkpoint() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var busy, log, copied int
	if err := c.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &copied); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.db.Close()
}
