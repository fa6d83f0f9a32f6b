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
	// SV is the Scan's own SV party: a history that starts with its
	// joining transaction is backfilled from peers.
	SV daml.Party
	// Observer, when set, is told of every batch as it is stored (the
	// Scan's RegistryCache).
	Observer IngestObserver
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
		var b Batch
		if prev == 0 {
			// Nothing stored yet: the history starts at the founding or
			// the joining transaction, wherever that is in the stream.
			var found bool
			if b, found, err = g.begin(ctx, size); err != nil || !found {
				return cur, err
			}
		} else if b, err = g.Source.Read(ctx, prev, size); err != nil {
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
			if err := g.ingest(ctx, cur, next, b.Updates); fault.Is(err, fault.Aborted) {
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

// ingest stores a batch, telling the Observer before and after.
func (g *Ingester) ingest(ctx context.Context, prev, next Cursor, updates []Update) error {
	if g.Observer == nil {
		return g.Store.Ingest(ctx, prev, next, updates)
	}
	g.Observer.BeginIngest()
	err := g.Store.Ingest(ctx, prev, next, updates)
	g.Observer.EndIngest(prev, next, updates, err)
	return err
}

// begin reads the participant's stream from its start up to the update the
// Scan's history starts with, and fixes the store's backfilling state by
// it, as Splice's Scan does:
//
//   - the network's founding transaction (a root create of DsoBootstrap),
//     or the import of a forked network's contracts: the Scan has the
//     whole history;
//   - this SV's joining transaction (a root exercise of
//     DsoRules_AddConfirmedSv for the Scan's SV party): what came before
//     is backfilled from peers. The DSO party's updates before it (the
//     participant saw some between the DSO party's hosting and the
//     joining) are left out: they are part of what peers provide.
//
// It returns the batch from that update to the end of the read, and false
// when the stream has not reached it yet.
func (g *Ingester) begin(ctx context.Context, size int) (Batch, bool, error) {
	var after ledger.Offset
	for {
		b, err := g.Source.Read(ctx, after, size)
		if err != nil {
			return Batch{}, false, err
		}
		for i, u := range b.Updates {
			complete, ok := g.historyStart(u)
			if !ok {
				continue
			}
			start := HistoryPosition{Migration: u.MigrationID(), RecordTime: u.RecordTime()}
			if complete {
				start = HistoryPosition{}
			}
			if err := g.Store.BeginHistory(ctx, complete, start); err != nil {
				return Batch{}, false, err
			}
			b.Updates = b.Updates[i:]
			return b, true, nil
		}
		if b.End <= after {
			return Batch{}, false, nil // the end of the stream: not yet
		}
		after = b.End
	}
}

// historyStart says whether u is where a Scan's history starts, and
// whether the history is then complete.
func (g *Ingester) historyStart(u Update) (complete, ok bool) {
	t := u.Transaction
	if t == nil {
		return false, false
	}
	if t.WorkflowID == ledger.ForkImportWorkflowID {
		return true, true
	}
	for _, root := range t.Roots {
		e := t.Event(root)
		switch {
		case e == nil:
		case e.Created != nil && e.Created.Template.ModuleName == "Splice.DsoBootstrap" && e.Created.Template.EntityName == "DsoBootstrap":
			return true, true
		case e.Exercised != nil && e.Exercised.Choice == "DsoRules_AddConfirmedSv" && g.SV != "":
			if r, isRecord := e.Exercised.ChoiceArgument.(*daml.Record); isRecord && len(r.Fields) > 0 && r.Fields[0].Value == daml.Value(g.SV) {
				return false, true
			}
		}
	}
	return false, false
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
	if bf, err := g.Store.Backfilling(ctx); err != nil {
		return nil, 0, err
	} else if !bf.Complete || !bf.ImportUpdatesComplete {
		// A Scan still backfilling does not know the whole active
		// contract set: the new migration's import updates come from its
		// peers, with the rest of what it backfills.
		return nil, next, nil
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
