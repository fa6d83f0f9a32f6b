package ledger

import (
	"context"
	"encoding/json"
	"fmt"

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
// Migrate also records, in the same write transaction, where migration
// N+1 starts in every participant's stream (see [Network.Migrations]):
// the JSON Ledger API has no migration id, and a client of it (a Scan in
// its own process) reads it there.
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
		if err := w.SetMigration(ctx, next); err != nil {
			return err
		}
		offsets, err := json.Marshal(head.Offsets)
		if err != nil {
			return fault.Wrap(fault.Internal, err, "encode the start offsets of migration %d", next)
		}
		return w.SetMeta(ctx, migrationOffsetsKey(next), string(offsets))
	})
	if err != nil {
		return 0, err
	}
	n.committed.Notify()
	return next, nil
}

// MigrationStart is where a hard migration starts in the participants'
// streams.
type MigrationStart struct {
	ID int64
	// Offsets holds each participant's last offset before the migration:
	// its updates after it (and before the next migration's start) belong
	// to this migration. A participant without an entry had no update
	// yet, so all of its updates are at or after this migration.
	Offsets map[ParticipantID]Offset
}

// migrationOffsetsKey is the meta key of the start offsets of a migration.
func migrationOffsetsKey(id int64) string { return fmt.Sprintf("migration/%d/offsets", id) }

// Migrations lists where each migration up to the current one starts, in
// migration order. Migration 0 starts at the beginning of every stream.
// A migration whose start was not recorded (one run by a sandnet that
// predates the record) is left out.
func (n *Network) Migrations(ctx context.Context) ([]MigrationStart, error) {
	head, err := n.store.Head(ctx)
	if err != nil {
		return nil, err
	}
	out := []MigrationStart{{ID: 0, Offsets: map[ParticipantID]Offset{}}}
	for id := int64(1); id <= head.MigrationID; id++ {
		v, ok, err := n.store.Meta(ctx, migrationOffsetsKey(id))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		m := MigrationStart{ID: id}
		if err := json.Unmarshal([]byte(v), &m.Offsets); err != nil {
			return nil, fault.Wrap(fault.Internal, err, "decode the start offsets of migration %d", id)
		}
		if m.Offsets == nil {
			m.Offsets = map[ParticipantID]Offset{}
		}
		out = append(out, m)
	}
	return out, nil
}
