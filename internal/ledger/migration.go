package ledger

import (
	"context"

	"github.com/sandnet/sandnet/internal/fault"
)

// Migrate runs a hard synchronizer migration: it ends the current
// migration N and starts N+1, in one write transaction ordered with the
// sequencer's batches, and returns N+1.
//
// As in Splice, the synchronizers keep their ids and move to migration
// N+1 (Synchronizer.MigrationID), the active contract set carries over
// unchanged, and the ledger's offsets and update sequence go on
// increasing. Record times start afresh: the first update of N+1 is
// recorded at the clock, however late N's last update was. Nothing of
// the migration appears in the participants' streams: the ACS re-import
// exists only in Scan history, which its ingester writes when it sees the
// new migration.
//
// Migrating again before migration N+1 has any update of its own is
// refused with fault.FailedPrecondition, and nothing changes: that is
// sandnet's reading of "migrating while a migration is in progress".
func (n *Network) Migrate(ctx context.Context) (int64, error) {
	var next int64
	err := n.store.Write(ctx, func(w WriteTx) error {
		head, err := w.Head(ctx)
		if err != nil {
			return err
		}
		if head.LastRecordTime == 0 {
			return fault.New(fault.FailedPrecondition,
				"migration %d has not started: it has no update of its own yet, so a new migration cannot start before it does",
				head.MigrationID)
		}
		next = head.MigrationID + 1
		return w.SetMigration(ctx, next)
	})
	if err != nil {
		return 0, err
	}
	n.committed.Notify()
	return next, nil
}
