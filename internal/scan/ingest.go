package scan

import (
	"context"
	"log/slog"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// DefaultBatchSize is how many updates the Ingester reads and stores per
// database transaction.
const DefaultBatchSize = 500

// Ingester copies a Source's stream into a Store.
type Ingester struct {
	Source Source
	Store  Store
	// BatchSize is the most updates stored per transaction
	// (DefaultBatchSize when 0).
	BatchSize int
	Logger    *slog.Logger
	// Ingested, when set, fires after every stored batch; the
	// snapshotter listens to it.
	Ingested *ledger.Signal
}

// Step ingests what the source has now, one batch after another, until a
// read finds nothing new (and its checkpoint has moved the watermark to
// the source's time). It returns the cursor it stored last.
func (g *Ingester) Step(ctx context.Context) (Cursor, error) {
	size := g.BatchSize
	if size <= 0 {
		size = DefaultBatchSize
	}
	cur, err := g.Store.Cursor(ctx)
	if err != nil {
		return Cursor{}, err
	}
	for {
		prev := cur.Offset
		b, err := g.Source.Read(ctx, prev, size)
		if err != nil {
			return cur, err
		}
		next := cur
		next.Offset = max(b.End, cur.Offset)
		if n := len(b.Updates); n > 0 {
			next.Migration = b.Updates[n-1].Transaction.MigrationID
			// The last update's record time is a watermark too: no later
			// update of the migration is at or before it.
			next.Watermark = max(next.Watermark, b.Updates[n-1].Transaction.RecordTime)
		}
		if b.Checkpoint.RecordTime != 0 {
			next.Watermark = max(next.Watermark, b.Checkpoint.RecordTime)
		}
		if next != cur {
			if err := g.Store.Ingest(ctx, cur, next, b.Updates); fault.Is(err, fault.Aborted) {
				// Another ingester stored this batch (several processes
				// share one database): carry on from where it got to.
				if cur, err = g.Store.Cursor(ctx); err != nil {
					return cur, err
				}
				continue
			} else if err != nil {
				return cur, err
			}
			cur = next
			if g.Ingested != nil {
				g.Ingested.Notify()
			}
		}
		if b.Checkpoint.RecordTime != 0 && b.End == prev {
			// Nothing was left: the checkpoint is the source's current
			// time, which moves the watermark on an idle network.
			return cur, nil
		}
	}
}

// Run ingests until ctx ends: a Step, then a wait for the source to have
// more (a commit, a clock advance, or the wake-up time that wake returns
// for the cursor, which the snapshotter uses to be woken at its next
// boundary on an idle network). Failures are logged and retried after a
// pause; fault.Aborted (another ingester moved the cursor) just restarts
// from the stored cursor.
func (g *Ingester) Run(ctx context.Context, wake func(Cursor) daml.Timestamp) error {
	log := g.Logger
	if log == nil {
		log = slog.Default()
	}
	for ctx.Err() == nil {
		cur, err := g.Step(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			if !fault.Is(err, fault.Aborted) {
				log.Warn("scan ingestion failed; retrying", "err", err)
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
			continue
		}
		var until daml.Timestamp
		if wake != nil {
			until = wake(cur)
		}
		if err := g.Source.Wait(ctx, cur.Offset, until); err != nil && ctx.Err() == nil {
			log.Warn("scan source wait failed", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}
