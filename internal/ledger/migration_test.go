package ledger_test

import (
	"context"
	"maps"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// TestMigrate runs a hard migration: the migration id moves on, the
// synchronizers keep their ids in the new migration, the active contract
// set carries over, offsets and the sequence go on, and the record times
// of the new migration start afresh at the clock (the wall clock stands
// still here, so migration 0's record times ran ahead of it). Migrating
// again before the new migration has an update is refused, with nothing
// changed.
func TestMigrate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	kept := b.issue(t, b.alice, "10")
	b.issue(t, b.alice, "20")
	last := b.issue(t, b.alice, "30")
	lastTx, _, err := b.net.Store().Contract(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	before, err := b.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	acs, err := b.net.Store().ActiveContracts(ctx, ledger.ContractFilter{})
	if err != nil {
		t.Fatal(err)
	}

	id, err := b.net.Migrate(ctx)
	if err != nil || id != 1 {
		t.Fatalf("Migrate = %d, %v; want 1", id, err)
	}
	h, err := b.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.MigrationID != 1 || h.LastRecordTime != 0 || h.Sequence != before.Sequence || h.Offsets[b.p1] != before.Offsets[b.p1] {
		t.Errorf("head after Migrate = %+v; want migration 1, no record time, sequence and offsets of %+v", h, before)
	}
	// Where migration 1 starts in the streams: after their last offsets.
	starts, err := b.net.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != 2 || starts[0].ID != 0 || len(starts[0].Offsets) != 0 || starts[1].ID != 1 ||
		!maps.Equal(starts[1].Offsets, before.Offsets) {
		t.Errorf("Migrations = %+v; want migration 0 from the start and migration 1 after %v", starts, before.Offsets)
	}
	syncs, err := b.net.Store().Synchronizers(ctx)
	if err != nil || len(syncs) == 0 {
		t.Fatalf("synchronizers: %v, %v", syncs, err)
	}
	for _, s := range syncs {
		if s.MigrationID != 1 {
			t.Errorf("synchronizer %s in migration %d after Migrate; want 1", s.ID, s.MigrationID)
		}
	}
	after, err := b.net.Store().ActiveContracts(ctx, ledger.ContractFilter{})
	if err != nil || len(after) != len(acs) {
		t.Fatalf("active contracts after Migrate: %d, %v; want the %d before", len(after), err, len(acs))
	}
	for i := range acs {
		if after[i].ID != acs[i].ID || after[i].MigrationID != 0 {
			t.Errorf("active contract %d after Migrate: %s of migration %d; want %s of migration 0", i, after[i].ID, after[i].MigrationID, acs[i].ID)
		}
	}

	// Nothing of migration 1 yet: a second migration is refused.
	if _, err := b.net.Migrate(ctx); !fault.Is(err, fault.FailedPrecondition) {
		t.Errorf("Migrate before migration 1 has an update: error = %v; want FailedPrecondition", err)
	}
	if h2, _ := b.net.Store().Head(ctx); h2.MigrationID != 1 || h2.Sequence != h.Sequence {
		t.Errorf("head changed by a refused Migrate: %+v", h2)
	}

	// A contract of migration 0 is used in migration 1.
	tx, err := b.net.Submit(ctx, ledger.Command{
		Participant: b.p1, ActAs: []daml.Party{b.alice},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[daml.ContractID](tx, kept, "Iou_Transfer", Transfer{NewOwner: b.bob})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if tx.MigrationID != 1 || tx.Synchronizer != syncs[0].ID {
		t.Errorf("first transaction of migration 1: migration %d on %s; want 1 on %s", tx.MigrationID, tx.Synchronizer, syncs[0].ID)
	}
	if now := b.net.Clock().Now(); tx.RecordTime != now || tx.RecordTime >= before.LastRecordTime {
		t.Errorf("record time of migration 1's first transaction = %d; want the clock %d, before migration 0's last %d (of %s)",
			tx.RecordTime, now, before.LastRecordTime, lastTx.CreatedBy)
	}
	if c := tx.Created()[0]; c.MigrationID != 1 {
		t.Errorf("contract created in migration 1 has migration %d", c.MigrationID)
	}
	ups, err := b.net.Store().Updates(ctx, ledger.UpdateQuery{Participant: b.p1, After: before.Offsets[b.p1]})
	if err != nil || len(ups) != 1 || ups[0].Offset != before.Offsets[b.p1]+1 || ups[0].UpdateID() != tx.UpdateID {
		t.Errorf("p1's stream after the migration: %+v, %v; want the transfer at offset %d", ups, err, before.Offsets[b.p1]+1)
	}
	if h3, _ := b.net.Store().Head(ctx); h3.Sequence != before.Sequence+1 {
		t.Errorf("sequence after migration 1's first transaction = %d; want %d", h3.Sequence, before.Sequence+1)
	}

	// Now migration 1 has started: the next migration is allowed.
	if id, err := b.net.Migrate(ctx); err != nil || id != 2 {
		t.Errorf("second Migrate = %d, %v; want 2", id, err)
	}
}
