package scan_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// TestHardMigration runs a hard migration under an ingesting Scan: the
// Scan stores one import update of migration 1 per contract the DSO party
// has active, in contract id order and with Splice's conventions; its
// cursor moves to migration 1; the update history runs across the
// migration without the imports; migration-info of migration 1 names
// migration 0 and the last import; and the first snapshot of migration 1,
// at the first boundary after its first real update, holds the imported
// contracts and equals the DSO party's active contracts.
func TestHardMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	dso := e.seeded.DSOParty
	e.ing.DSO = dso
	alice, _ := e.seeded.User("alice")
	if _, err := splice.TapFor(ctx, e.net, e.seeded, alice.Name, alice.Party, daml.MustNumeric("5.0")); err != nil {
		t.Fatal(err)
	}
	e.step(t)
	if _, err := e.snaps.Step(ctx); err != nil {
		t.Fatal(err)
	}
	before := e.history(t)
	held, err := e.store.ActiveContracts(ctx, scan.ContractQuery{})
	if err != nil || len(held) == 0 {
		t.Fatalf("the Scan's active contracts before the migration: %d, %v", len(held), err)
	}

	if id, err := e.net.Migrate(ctx); err != nil || id != 1 {
		t.Fatalf("Migrate = %d, %v", id, err)
	}
	cur := e.step(t)
	if cur.Migration != 1 {
		t.Fatalf("cursor after the migration = %+v; want migration 1", cur)
	}
	imports, err := e.store.ImportUpdates(ctx, 1, "", 10_000)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(held, func(a, b *ledger.Contract) int { return strings.Compare(string(a.ID), string(b.ID)) })
	if len(imports) != len(held) {
		t.Fatalf("%d import updates; want one per active contract (%d)", len(imports), len(held))
	}
	for i, u := range imports {
		c, tx := held[i], u.Transaction
		if !u.Import || tx.UpdateID != string(c.ID) || tx.WorkflowID != "canton-network-acs-import-"+string(c.ID) ||
			tx.MigrationID != 1 || tx.Synchronizer != c.Synchronizer || tx.EffectiveAt != c.CreatedAt ||
			!slices.Equal(tx.Roots, []int32{0}) || len(tx.Events) != 1 || tx.Events[0].NodeID != 0 ||
			tx.Events[0].Created == nil || tx.Events[0].Created.ID != c.ID || tx.Events[0].Created.MigrationID != 0 ||
			!slices.Equal(tx.Events[0].Witnesses, []daml.Party{dso}) {
			t.Errorf("import update %d = %+v (%+v); want the import of %s", i, u, tx, c.ID)
		}
	}
	// Nothing of migration 1 but its imports: the history is unchanged, and
	// a second step stores no second import.
	if diff := cmp.Diff(updateIDs(before), updateIDs(e.history(t))); diff != "" {
		t.Errorf("history after the migration (-want +got):\n%s", diff)
	}
	e.step(t)
	if again, err := e.store.ImportUpdates(ctx, 1, "", 10_000); err != nil || len(again) != len(imports) {
		t.Errorf("import updates after a second step: %d, %v; want %d", len(again), err, len(imports))
	}

	// Migration 1's first real update, then 2 hours to the next boundary.
	amulet, err := splice.TapFor(ctx, e.net, e.seeded, alice.Name, alice.Party, daml.MustNumeric("7.0"))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := e.net.Store().Contract(ctx, amulet)
	if err != nil {
		t.Fatal(err)
	}
	tap, err := e.net.Store().Transaction(ctx, c.CreatedBy)
	if err != nil {
		t.Fatal(err)
	}
	if tap.MigrationID != 1 {
		t.Fatalf("tap after the migration in migration %d", tap.MigrationID)
	}
	e.step(t)
	hist := e.history(t)
	if diff := cmp.Diff(append(updateIDs(before), tap.UpdateID), updateIDs(hist)); diff != "" {
		t.Errorf("history across the migration (-want +got):\n%s", diff)
	}
	withImports, err := e.store.History(ctx, scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: before[len(before)-1].Transaction.RecordTime}, Limit: 10_000, Imports: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(updateIDs(imports), tap.UpdateID), updateIDs(withImports)); diff != "" {
		t.Errorf("history of migration 1 with imports (-want +got):\n%s", diff)
	}
	info, err := (&scan.Service{Store: e.store}).MigrationInfo(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if info.Previous == nil || *info.Previous != 0 || info.LastImportUpdateID != imports[len(imports)-1].UpdateID() ||
		len(info.Ranges) != 1 || info.Ranges[0].Min != tap.RecordTime || info.Ranges[0].Max != tap.RecordTime ||
		!info.Complete || !info.ImportUpdatesComplete {
		t.Errorf("migration-info of migration 1 = %+v; want previous 0, last import %s, the tap's range", info, imports[len(imports)-1].UpdateID())
	}

	if _, err := e.net.AdvanceClock(ctx, 2*time.Hour); err != nil { // 12:20
		t.Fatal(err)
	}
	e.step(t)
	taken, err := e.snaps.Step(ctx)
	if err != nil {
		t.Fatal(err)
	}
	boundary := scan.Boundary(tap.RecordTime, scan.DefaultSnapshotPeriod) + daml.Timestamp(scan.DefaultSnapshotPeriod.Microseconds())
	if len(taken) != 1 || taken[0].Migration != 1 || taken[0].RecordTime != boundary {
		t.Fatalf("snapshots after the migration: %+v; want one of migration 1 at %s", taken, boundary)
	}
	rows, err := e.store.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: taken[0], Limit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	var got []daml.ContractID
	for _, r := range rows {
		got = append(got, r.Contract.ID)
	}
	all, err := e.net.Store().ActiveContracts(ctx, ledger.ContractFilter{Stakeholder: dso})
	if err != nil {
		t.Fatal(err)
	}
	var want []daml.ContractID
	for _, c := range all {
		want = append(want, c.ID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first snapshot of migration 1 (-DSO's active contracts +snapshot):\n%s", diff)
	}
	for _, c := range held {
		if _, active, err := e.net.Store().Contract(ctx, c.ID); err == nil && active && !slices.Contains(got, c.ID) {
			t.Errorf("imported contract %s, still active, missing from the first snapshot of migration 1", c.ID)
		}
	}
}
