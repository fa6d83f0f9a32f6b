package scan

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// DefaultSnapshotPeriod is Splice's ACS snapshot period: snapshots are
// taken at 00:00, 03:00, … 21:00 UTC.
const DefaultSnapshotPeriod = 3 * time.Hour

// DefaultSnapshotChunk is how many contracts a snapshot build writes per
// database transaction.
const DefaultSnapshotChunk = 1000

// Boundary returns the latest snapshot boundary at or before t: t rounded
// down to a multiple of period since the Unix epoch, which for periods that
// divide a day are the same hours of every UTC day.
func Boundary(t daml.Timestamp, period time.Duration) daml.Timestamp {
	p := period.Microseconds()
	b := int64(t) / p * p
	if b > int64(t) { // negative t rounds towards zero
		b -= p
	}
	return daml.Timestamp(b)
}

// Snapshotter takes ACS snapshots at every boundary of ledger time once
// ingestion has passed it.
type Snapshotter struct {
	Store Store
	// Period is the time between boundaries (DefaultSnapshotPeriod when 0).
	Period time.Duration
	// Chunk is the most contracts written per transaction
	// (DefaultSnapshotChunk when 0).
	Chunk int
	// Ingested fires after each ingested batch.
	Ingested *ledger.Signal
	Logger   *slog.Logger
	// Taken, when set, is called after each snapshot is published, with
	// how long its build took.
	Taken func(Snapshot, time.Duration)

	// complete is set once the Scan's history is complete, which it then
	// stays: the steps that follow every ingested batch stop asking.
	complete atomic.Bool
}

func (s *Snapshotter) period() time.Duration {
	if s.Period <= 0 {
		return DefaultSnapshotPeriod
	}
	return s.Period
}

// NextBoundary returns the boundary the next scheduled snapshot is for:
// the one after the latest snapshot or, before the first, the first
// boundary after the first update of the current migration. ok is false
// when there is nothing to snapshot yet.
func (s *Snapshotter) NextBoundary(ctx context.Context, cur Cursor) (daml.Timestamp, bool, error) {
	period := s.period()
	latest, err := s.Store.LatestSnapshot(ctx)
	switch {
	case err == nil && latest.Migration == cur.Migration:
		return Boundary(latest.RecordTime, period) + daml.Timestamp(period.Microseconds()), true, nil
	case err != nil && !fault.Is(err, fault.NotFound):
		return 0, false, err
	}
	// No snapshot of this migration yet: the first boundary after its
	// first update.
	migs, err := s.Store.Migrations(ctx)
	if err != nil {
		return 0, false, err
	}
	for _, m := range migs {
		if m.ID != cur.Migration || len(m.Ranges) == 0 {
			continue
		}
		first := m.Ranges[0].Min
		for _, r := range m.Ranges[1:] {
			first = min(first, r.Min)
		}
		return Boundary(first, period) + daml.Timestamp(period.Microseconds()), true, nil
	}
	return 0, false, nil
}

// Step takes every snapshot whose boundary the ingested watermark has
// passed, oldest first, and returns them.
func (s *Snapshotter) Step(ctx context.Context) ([]Snapshot, error) {
	cur, err := s.Store.Cursor(ctx)
	if err != nil {
		return nil, err
	}
	// A backfilling Scan does not know every contract yet: as in Splice,
	// it takes no snapshot until its history is complete, and then
	// takes every one that is due.
	if ok, err := s.historyComplete(ctx); err != nil || !ok {
		return nil, err
	}
	next, ok, err := s.NextBoundary(ctx, cur)
	if err != nil || !ok {
		return nil, err
	}
	var taken []Snapshot
	step := daml.Timestamp(s.period().Microseconds())
	for ; next <= cur.Watermark; next += step {
		snap, err := s.take(ctx, cur.Migration, next)
		if err != nil {
			return taken, err
		}
		taken = append(taken, snap)
	}
	return taken, nil
}

// TakeNow takes a snapshot at the ingested watermark, outside the
// schedule, as Splice's test-only forced snapshots do. Scheduled snapshots
// carry on at the boundaries after it.
func (s *Snapshotter) TakeNow(ctx context.Context) (Snapshot, error) {
	cur, err := s.Store.Cursor(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	if cur.Offset == 0 {
		return Snapshot{}, fault.New(fault.Unavailable, "the scan has not ingested any update yet")
	}
	if ok, err := s.historyComplete(ctx); err != nil {
		return Snapshot{}, err
	} else if !ok {
		return Snapshot{}, fault.New(fault.Unavailable, "the scan is still backfilling its history from its peers")
	}
	if _, err := s.Step(ctx); err != nil { // due boundaries first, in order
		return Snapshot{}, err
	}
	return s.take(ctx, cur.Migration, cur.Watermark)
}

// historyComplete reports whether the Scan holds its whole history.
func (s *Snapshotter) historyComplete(ctx context.Context) (bool, error) {
	if s.complete.Load() {
		return true, nil
	}
	bf, err := s.Store.Backfilling(ctx)
	if err != nil || !bf.Complete || !bf.ImportUpdatesComplete {
		return false, err
	}
	s.complete.Store(true)
	return true, nil
}

func (s *Snapshotter) take(ctx context.Context, migration int64, at daml.Timestamp) (Snapshot, error) {
	chunk := s.Chunk
	if chunk <= 0 {
		chunk = DefaultSnapshotChunk
	}
	start := time.Now()
	snap, err := s.Store.BuildSnapshot(ctx, migration, at, chunk)
	if err != nil {
		return Snapshot{}, err
	}
	if s.Taken != nil {
		s.Taken(snap, time.Since(start))
	}
	return snap, nil
}

// Wake returns when the ingester should wake up on an idle network: just
// after the first boundary past the ingested watermark, so that the
// watermark it reads then has passed the boundary and the snapshot there
// can be taken. It needs no store read: whether that boundary is due is
// the snapshotter's business.
func (s *Snapshotter) Wake(cur Cursor) daml.Timestamp {
	if cur.Offset == 0 {
		return 0
	}
	return Boundary(cur.Watermark, s.period()) + daml.Timestamp(s.period().Microseconds()) + 1
}

// Run takes snapshots as ingestion passes boundaries, until ctx ends.
func (s *Snapshotter) Run(ctx context.Context) error {
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	for ctx.Err() == nil {
		ingested := s.Ingested.C()
		if _, err := s.Step(ctx); err != nil && ctx.Err() == nil {
			log.Warn("ACS snapshot failed; retrying", "err", err)
			pause(ctx, time.Second)
			continue
		}
		select {
		case <-ingested:
		case <-ctx.Done():
		}
	}
	return nil
}
