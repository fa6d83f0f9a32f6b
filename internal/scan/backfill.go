package scan

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Peers are the other SVs' Scans, as a backfilling Scan reads them: every
// answer is one that f+1 of them agree on (f = (n-1)/3 of n peers), so a
// peer that answers wrongly, slowly or not at all is outvoted. Without
// such an answer a read fails with a fault.Unavailable saying why.
type Peers interface {
	// MigrationInfo returns what the peers hold of a migration. When they
	// agree that they hold nothing of it, it fails with a fault.NotFound.
	MigrationInfo(ctx context.Context, migration int64) (PeerMigration, error)
	// UpdatesBefore returns the updates of one migration and synchronizer
	// before q.Before (exclusive), newest first, at most q.Limit; never
	// import updates. The updates carry no offset (0) and no Created or
	// Archived: the caller derives them (see Effects).
	UpdatesBefore(ctx context.Context, q BeforeQuery) ([]Update, error)
	// ImportUpdates returns a migration's import updates with an update id
	// greater than after, in update id order, at most limit (Import set,
	// Created and Archived not).
	ImportUpdates(ctx context.Context, migration int64, after string, limit int) ([]Update, error)
}

// PeerMigration is what the peers agree on about one migration.
type PeerMigration struct {
	// Previous is the migration before it, if any.
	Previous *int64
	// Mins is the oldest record time of each synchronizer's non-import
	// updates in the migration: where backfilling it ends. (The newest
	// differs between peers that ingest at different speeds, so it is not
	// part of what they agree on.)
	Mins map[ledger.SynchronizerID]daml.Timestamp
	// LastImportUpdateID is the greatest id of the migration's import
	// updates, or "" when it has none.
	LastImportUpdateID string
	// Complete is true when the peers hold every non-import update of the
	// migration (their history is complete).
	Complete bool
}

// DefaultBackfillBatch is how many updates a Backfiller asks its peers
// for at a time, and stores per database transaction.
const DefaultBackfillBatch = 500

// Backfiller fills the history of a Scan that joined the network late:
// everything before its joining transaction, from what its peers agree
// on, migration by migration from the newest down, then the import
// updates of every migration, as Splice's Scan backfills. Its progress is
// the store's own history (the oldest record time it holds of each
// synchronizer of each migration), so it resumes where it stopped after a
// crash or a restart, and live ingestion goes on meanwhile. Each step is
// one request and one database transaction.
type Backfiller struct {
	Store Store
	Peers Peers
	// DSO is the DSO party: the contracts it is a stakeholder of join its
	// contract set.
	DSO daml.Party
	// Batch is the most updates asked for and stored at a time
	// (DefaultBackfillBatch when 0; at most MaxPageSize).
	Batch  int
	Logger *slog.Logger
	// Stored, when set, is called after every stored batch, with how
	// many updates and import updates it held: metrics listen to it.
	Stored func(updates, imports int)
	// Ingested, when set, fires after every batch live ingestion stores:
	// a Backfiller that waits for the first one listens to it.
	Ingested *ledger.Signal

	// ahead is the next page of updates, asked for while the last one is
	// stored: the peers render and the store writes at the same time.
	// Only Step uses it.
	ahead *prefetch
	// settled holds what the peers said of migrations whose history they
	// hold completely: that does not change, so each is asked once, not
	// at every step. Only Step uses it.
	settled map[int64]PeerMigration
}

// prefetch is a page of updates asked of the peers ahead of its step.
type prefetch struct {
	q    BeforeQuery
	done chan struct{}
	ups  []Update
	err  error
}

// BackfillStep is what one step did.
type BackfillStep struct {
	// Migration is the migration it worked on.
	Migration int64
	// Updates and Imports count what it stored.
	Updates, Imports int
	// Done is true when the history is complete, import updates
	// included.
	Done bool
}

func (b *Backfiller) batch() int {
	switch {
	case b.Batch <= 0:
		return DefaultBackfillBatch
	case b.Batch > MaxPageSize:
		return MaxPageSize
	}
	return b.Batch
}

// Step does the next piece of backfilling: it stores one batch of the
// past got from the peers, or raises a backfilling flag when there is
// nothing left to fetch. It stores nothing and fails when the peers do not
// agree, or when they give nothing where they say they have history; it
// does nothing before live ingestion has stored the joining transaction
// (the history's newest end has to be known first).
func (b *Backfiller) Step(ctx context.Context) (BackfillStep, error) {
	bf, err := b.Store.Backfilling(ctx)
	if err != nil {
		return BackfillStep{}, err
	}
	if bf.Complete && bf.ImportUpdatesComplete {
		return BackfillStep{Done: true}, nil
	}
	own, err := b.Store.Migrations(ctx)
	if err != nil {
		return BackfillStep{}, err
	}
	i := slices.IndexFunc(own, func(m Migration) bool { return len(m.Ranges) > 0 })
	if i < 0 {
		return BackfillStep{}, nil // nothing ingested yet
	}
	if !bf.Complete {
		return b.stepUpdates(ctx, own, own[i].ID, bf.Start)
	}
	return b.stepImports(ctx, own)
}

// stepUpdates backfills the non-import updates, starting at migration m,
// the oldest one the Scan holds.
func (b *Backfiller) stepUpdates(ctx context.Context, own []Migration, m int64, joined HistoryPosition) (BackfillStep, error) {
	for {
		info, err := b.migrationInfo(ctx, m)
		if err != nil {
			return BackfillStep{Migration: m}, fmt.Errorf("migration %d: %w", m, err)
		}
		mins := ownMins(own, m)
		// A synchronizer the Scan holds nothing of is backfilled from
		// the end of the migration down, or, in the migration it joined
		// in, from its joining transaction down: what came later on it,
		// live ingestion brings (record times increase across the
		// network's synchronizers).
		start := daml.MaxTimestamp
		if m == joined.Migration && joined.RecordTime != 0 {
			start = joined.RecordTime
		}
		// The synchronizer whose history the Scan holds the least of:
		// the one whose oldest update is the newest.
		var sync ledger.SynchronizerID
		var before daml.Timestamp
		for _, s := range slices.Sorted(maps.Keys(info.Mins)) {
			have, ok := mins[s]
			if !ok {
				have = start
			}
			if have > info.Mins[s] && have > before {
				sync, before = s, have
			}
		}
		if sync != "" {
			ups, err := b.updatesBefore(ctx, BeforeQuery{Migration: m, Synchronizer: sync, Before: before, Limit: b.batch()})
			if err != nil {
				return BackfillStep{Migration: m}, fmt.Errorf("migration %d, synchronizer %s, updates before %s: %w", m, sync, before, err)
			}
			if len(ups) == 0 {
				return BackfillStep{Migration: m}, fault.New(fault.Unavailable,
					"the peers' history of migration %d on %s starts at %s, but they agree on no update before %s",
					m, sync, info.Mins[sync], before)
			}
			if err := b.store(ctx, ups); err != nil {
				return BackfillStep{Migration: m}, err
			}
			return BackfillStep{Migration: m, Updates: len(ups)}, nil
		}
		if !info.Complete {
			return BackfillStep{Migration: m}, fault.New(fault.Unavailable,
				"the peers have not backfilled migration %d themselves: waiting for them", m)
		}
		if info.Previous == nil {
			if err := b.Store.SetBackfilling(ctx, Backfilling{Complete: true}); err != nil {
				return BackfillStep{Migration: m}, err
			}
			b.logger().Info("scan history backfilled: every update of every migration", "migration", m)
			return b.stepImports(ctx, own)
		}
		m = *info.Previous
	}
}

// updatesBefore asks the peers for a page of updates, or takes the one
// asked for ahead if it is that page. A full page makes it ask for the
// next one (the same synchronizer, before the page's oldest update) in the
// background, which the next step most likely wants; a page it does not
// want is dropped.
func (b *Backfiller) updatesBefore(ctx context.Context, q BeforeQuery) ([]Update, error) {
	p := b.ahead
	b.ahead = nil
	var ups []Update
	err := errNotFetched
	if p != nil && p.q == q {
		select {
		case <-p.done:
			ups, err = p.ups, p.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil { // not asked for ahead, or that failed: ask now
		ups, err = b.Peers.UpdatesBefore(ctx, q)
	}
	if err != nil || len(ups) < q.Limit {
		return ups, err
	}
	next := q
	next.Before = ups[len(ups)-1].RecordTime()
	ahead := &prefetch{q: next, done: make(chan struct{})}
	go func() {
		defer close(ahead.done)
		ahead.ups, ahead.err = b.Peers.UpdatesBefore(ctx, next)
	}()
	b.ahead = ahead
	return ups, nil
}

// migrationInfo asks the peers what they hold of a migration, once the
// answer is final (their history of it is complete).
func (b *Backfiller) migrationInfo(ctx context.Context, m int64) (PeerMigration, error) {
	if info, ok := b.settled[m]; ok {
		return info, nil
	}
	info, err := b.Peers.MigrationInfo(ctx, m)
	if err != nil || !info.Complete {
		return info, err
	}
	if b.settled == nil {
		b.settled = map[int64]PeerMigration{}
	}
	b.settled[m] = info
	return info, nil
}

// errNotFetched marks a page not asked for yet.
var errNotFetched = errors.New("not fetched")

// stepImports backfills the import updates of the migrations, oldest
// first, once the other updates are all there.
func (b *Backfiller) stepImports(ctx context.Context, own []Migration) (BackfillStep, error) {
	for _, m := range own {
		info, err := b.migrationInfo(ctx, m.ID)
		if fault.Is(err, fault.NotFound) && len(m.Ranges) == 0 {
			continue // peers hold no update of their own of it either
		}
		if err != nil {
			return BackfillStep{Migration: m.ID}, fmt.Errorf("migration %d: %w", m.ID, err)
		}
		if info.LastImportUpdateID == "" || m.LastImportUpdateID >= info.LastImportUpdateID {
			continue
		}
		ups, err := b.Peers.ImportUpdates(ctx, m.ID, m.LastImportUpdateID, b.batch())
		if err != nil {
			return BackfillStep{Migration: m.ID}, fmt.Errorf("migration %d, import updates after %q: %w", m.ID, m.LastImportUpdateID, err)
		}
		if len(ups) == 0 {
			return BackfillStep{Migration: m.ID}, fault.New(fault.Unavailable,
				"the peers' last import update of migration %d is %s, but they agree on none after %q",
				m.ID, info.LastImportUpdateID, m.LastImportUpdateID)
		}
		if err := b.store(ctx, ups); err != nil {
			return BackfillStep{Migration: m.ID}, err
		}
		return BackfillStep{Migration: m.ID, Imports: len(ups)}, nil
	}
	if err := b.Store.SetBackfilling(ctx, Backfilling{Complete: true, ImportUpdatesComplete: true}); err != nil {
		return BackfillStep{}, err
	}
	b.logger().Info("scan history backfilled: import updates too; the history is complete")
	return BackfillStep{Done: true}, nil
}

// store derives the effects of updates from the peers on the DSO party's
// contracts and stores them.
func (b *Backfiller) store(ctx context.Context, ups []Update) error {
	var updates, imports int
	for i := range ups {
		Effects(&ups[i], b.DSO)
		if ups[i].Import {
			imports++
		} else {
			updates++
		}
	}
	if err := b.Store.Backfill(ctx, ups); err != nil {
		return err
	}
	if b.Stored != nil {
		b.Stored(updates, imports)
	}
	return nil
}

// Effects sets what an update from a peer adds to and removes from the
// DSO party's contract set, as DSOView does for an update read from the
// ledger. The peers' wire format does not carry the stakeholders of an
// exercised contract, so every consuming exercise counts as an archive: a
// contract the DSO party is not a stakeholder of is never in its set,
// and its archive changes nothing there.
func Effects(u *Update, dso daml.Party) {
	u.Created, u.Archived = nil, nil
	t := u.Transaction
	if t == nil {
		return
	}
	for i := range t.Events {
		e := &t.Events[i]
		if c := e.Created; c != nil && slices.Contains(c.Stakeholders(), dso) {
			u.Created = append(u.Created, c)
		}
		if x := e.Exercised; x != nil && x.Consuming {
			u.Archived = append(u.Archived, x.ContractID)
		}
	}
}

// ownMins returns the oldest record time the Scan holds of each
// synchronizer of migration m.
func ownMins(own []Migration, m int64) map[ledger.SynchronizerID]daml.Timestamp {
	mins := map[ledger.SynchronizerID]daml.Timestamp{}
	for _, mg := range own {
		if mg.ID == m {
			for _, r := range mg.Ranges {
				mins[r.Synchronizer] = r.Min
			}
		}
	}
	return mins
}

func (b *Backfiller) logger() *slog.Logger {
	if b.Logger == nil {
		return slog.Default()
	}
	return b.Logger
}

// Run backfills until the history is complete or ctx ends. It logs its
// progress (counts and rates) every ten seconds, and why it waits when the
// peers do not agree; it then retries, backing off up to half a minute.
func (b *Backfiller) Run(ctx context.Context) error {
	log := b.logger()
	start, last := time.Now(), time.Now()
	var updates, imports, lastTotal int
	backoff := time.Second
	for ctx.Err() == nil {
		st, err := b.Step(ctx)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			log.Warn("scan backfilling waits", "migration", st.Migration, "why", err, "retry_in", backoff)
			pause(ctx, backoff)
			backoff = min(2*backoff, 30*time.Second)
			continue
		case st.Done:
			if updates+imports > 0 {
				log.Info("scan backfilling complete", "updates", updates, "import_updates", imports,
					"took", time.Since(start).Round(time.Millisecond))
			}
			return nil
		case st.Updates+st.Imports == 0:
			// Waiting for live ingestion to store the joining
			// transaction.
			if b.Ingested == nil {
				pause(ctx, time.Second)
				continue
			}
			select {
			case <-b.Ingested.C():
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
			continue
		}
		backoff = time.Second
		updates += st.Updates
		imports += st.Imports
		if d := time.Since(last); d >= 10*time.Second {
			total := updates + imports
			log.Info("scan backfilling", "migration", st.Migration, "updates", updates, "import_updates", imports,
				"per_second", int(float64(total-lastTotal)/d.Seconds()))
			last, lastTotal = time.Now(), total
		}
	}
	return ctx.Err()
}
