package scan

import (
	"context"
	"log/slog"
	"slices"
	"strings"
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
	// DSO is the DSO party, the witness of the import updates of a hard
	// migration (their contracts' stakeholders when empty).
	DSO daml.Party
}

// ImportWorkflowPrefix starts the workflow id of an ACS import update,
// followed by the contract id.
const ImportWorkflowPrefix = "canton-network-acs-import-"

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
		imports, migration, err := g.migration(ctx, cur, &b)
		if err != nil {
			return cur, err
		}
		if imports != nil || migration > cur.Migration {
			// Record times start afresh in the new migration: the old
			// migration's watermark says nothing about them.
			next.Migration, next.Watermark = migration, 0
			b.Updates = append(imports, b.Updates...)
		}
		next.Offset = max(b.End, cur.Offset)
		if n := len(b.Updates); n > 0 {
			next.Migration = b.Updates[n-1].MigrationID()
			// The last update's record time is a watermark too: no later
			// update of the migration is at or before it.
			next.Watermark = max(next.Watermark, b.Updates[n-1].RecordTime())
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

// migration finds whether b starts a hard migration after the cursor's.
// When some of b's updates belong to the cursor's migration and later ones
// to a new one, it cuts b after the former (the next read starts the new
// migration). When b starts with a new migration's updates, or has none
// and its checkpoint names a later migration, it returns the new
// migration and its import updates: one per contract the DSO party has
// active (the Scan's own active contracts, all of the old migration's
// updates being ingested), in contract id order, each recording the
// contract as created by an update whose id is the contract id, at
// Splice's minimum record time. Otherwise it returns nil and the cursor's
// migration.
func (g *Ingester) migration(ctx context.Context, cur Cursor, b *Batch) ([]Update, int64, error) {
	later := func(m int64) func(Update) bool {
		return func(u Update) bool { return u.MigrationID() > m }
	}
	next := cur.Migration
	switch k := slices.IndexFunc(b.Updates, later(cur.Migration)); {
	case k > 0:
		*b = Batch{Updates: b.Updates[:k], End: b.Updates[k-1].Offset}
		return nil, cur.Migration, nil
	case k == 0:
		next = b.Updates[0].MigrationID()
		if j := slices.IndexFunc(b.Updates, later(next)); j > 0 {
			*b = Batch{Updates: b.Updates[:j], End: b.Updates[j-1].Offset}
		}
	case len(b.Updates) == 0 && b.Checkpoint.Migration > cur.Migration:
		// A batch of the old migration's updates whose checkpoint names
		// the new one is stored as it is: the imports follow them, at the
		// next (empty) read.
		next = b.Checkpoint.Migration
	default:
		return nil, cur.Migration, nil
	}
	acs, err := g.Store.ActiveContracts(ctx, ContractQuery{})
	if err != nil {
		return nil, 0, err
	}
	slices.SortFunc(acs, func(a, b *ledger.Contract) int { return strings.Compare(string(a.ID), string(b.ID)) })
	imports := make([]Update, 0, len(acs))
	for _, c := range acs {
		witnesses := []daml.Party{g.DSO}
		if g.DSO == "" {
			witnesses = c.Stakeholders()
		}
		imports = append(imports, Update{Import: true, Created: []*ledger.Contract{c}, Transaction: &ledger.Transaction{
			UpdateID: string(c.ID), WorkflowID: ImportWorkflowPrefix + string(c.ID), MigrationID: next,
			Synchronizer: c.Synchronizer, RecordTime: daml.MinTimestamp, EffectiveAt: c.CreatedAt,
			Roots: []int32{0}, Events: []ledger.Event{{NodeID: 0, Created: c, Witnesses: witnesses}},
		}})
	}
	return imports, next, nil
}

// Run ingests until ctx ends: a Step, then a wait for the source to have
// more (a commit, a clock advance, or the wake-up time that wake returns
// for the cursor, which the snapshotter uses to be woken at its next
// boundary on an idle network). Failures are logged and retried after a
// pause (Step itself carries on past another ingester's batches).
func (g *Ingester) Run(ctx context.Context, wake func(Cursor) daml.Timestamp) error {
	log := g.Logger
	if log == nil {
		log = slog.Default()
	}
	for ctx.Err() == nil {
		cur, err := g.Step(ctx)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("scan ingestion failed; retrying", "err", err)
				pause(ctx, time.Second)
			}
			continue
		}
		var until daml.Timestamp
		if wake != nil {
			until = wake(cur)
		}
		if err := g.Source.Wait(ctx, cur.Offset, until); err != nil && ctx.Err() == nil {
			log.Warn("scan source wait failed", "err", err)
			pause(ctx, time.Second)
		}
	}
	return nil
}

// pause waits d or until ctx ends, whichever comes first: the back-off of
// the Scan's loops after a failure.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
