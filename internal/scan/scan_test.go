package scan_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// epoch is the tests' wall clock at the start: 10:20 UTC, so the previous
// 3-hour boundary is 09:00.
var epoch = time.Date(2026, 1, 5, 10, 20, 0, 0, time.UTC)

// env is a seeded network and SV 1's Scan over it.
type env struct {
	net    *ledger.Network
	seeded *splice.Seeded
	store  scan.Store
	src    *scan.NetworkSource
	ing    *scan.Ingester
	snaps  *scan.Snapshotter
	wall   *atomic.Int64 // µs
}

// newEnv is an env whose wall clock stands at epoch until a test moves it
// (env.wall).
func newEnv(t *testing.T) *env { return newEnvAt(t, nil) }

// newEnvAt is an env over the given wall clock (nil: env.wall).
func newEnvAt(t testing.TB, clock func() time.Time) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	wall := new(atomic.Int64)
	wall.Store(epoch.UnixMicro())
	if clock == nil {
		clock = func() time.Time { return time.UnixMicro(wall.Load()) }
	}
	net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: "scan-" + t.Name(), Wall: clock})
	if err != nil {
		t.Fatal(err)
	}
	genesis := scan.Boundary(daml.TimestampFromTime(clock()), scan.DefaultSnapshotPeriod) - daml.Timestamp(time.Minute.Microseconds())
	seeded, err := splice.Seed(ctx, net, splice.SeedConfig{Genesis: genesis})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := sqlitestore.OpenScan(ctx, filepath.Join(dir, "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ss.Close()
		net.Close()
		st.Close()
	})
	src := &scan.NetworkSource{Network: net, Participant: seeded.SVs[0].Participant, DSO: seeded.DSOParty}
	sig := ledger.NewSignal()
	return &env{
		net: net, seeded: seeded, store: ss, src: src, wall: wall,
		ing:   &scan.Ingester{Source: src, Store: ss, BatchSize: 4, Ingested: sig},
		snaps: &scan.Snapshotter{Store: ss, Chunk: 3, Ingested: sig},
	}
}

func (e *env) step(t *testing.T) scan.Cursor {
	t.Helper()
	cur, err := e.ing.Step(context.Background())
	if err != nil {
		t.Fatalf("ingest: %v", err)
	}
	return cur
}

// want is what the Scan must hold: SV 1's stream as the DSO party sees it.
func (e *env) want(t *testing.T) []scan.Update {
	t.Helper()
	ups, err := e.net.ParticipantUpdates(context.Background(), ledger.UpdateQuery{Participant: e.src.Participant})
	if err != nil {
		t.Fatal(err)
	}
	var out []scan.Update
	for _, u := range ups {
		if r := u.Reassignment; r != nil {
			if slices.Contains(r.Parties(), e.seeded.DSOParty) {
				out = append(out, scan.Update{Offset: u.Offset, Reassignment: r})
			}
			continue
		}
		if u.Transaction == nil {
			continue
		}
		full, err := e.net.Store().Transaction(context.Background(), u.UpdateID())
		if err != nil {
			t.Fatal(err)
		}
		if up, ok := scan.DSOView(u.Offset, full, e.seeded.DSOParty); ok {
			out = append(out, up)
		}
	}
	return out
}

func (e *env) history(t *testing.T) []scan.Update {
	t.Helper()
	var all []scan.Update
	var after *scan.HistoryPosition
	for {
		page, err := e.store.History(context.Background(), scan.HistoryQuery{After: after, Limit: 7})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			return all
		}
		all = append(all, page...)
		last := &page[len(page)-1]
		after = &scan.HistoryPosition{Migration: last.MigrationID(), RecordTime: last.RecordTime()}
	}
}

func updateIDs(us []scan.Update) []string {
	var ids []string
	for _, u := range us {
		ids = append(ids, u.UpdateID())
	}
	return ids
}

func TestIngestionCopiesTheDSOView(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cur := e.step(t)
	want := e.want(t)
	if len(want) == 0 {
		t.Fatal("the DSO party sees nothing of the seeded network")
	}
	got := e.history(t)
	if diff := cmp.Diff(updateIDs(want), updateIDs(got)); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
	for i := range want {
		// Compared through the stored encoding, which covers every field.
		wb, err := ledger.EncodeTransaction(want[i].Transaction)
		if err != nil {
			t.Fatal(err)
		}
		gb, err := ledger.EncodeTransaction(got[i].Transaction)
		if err != nil {
			t.Fatal(err)
		}
		if string(wb) != string(gb) {
			t.Fatalf("update %d (%s) differs from the DSO party's view of it", i, want[i].UpdateID())
		}
		if got[i].Offset != want[i].Offset {
			t.Errorf("update %d: offset %d, want %d", i, got[i].Offset, want[i].Offset)
		}
	}
	head, err := e.net.Store().Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cur.Offset != head.Offsets[e.src.Participant] {
		t.Errorf("cursor at offset %d, want the participant's end %d", cur.Offset, head.Offsets[e.src.Participant])
	}
	if cur.Watermark < head.LastRecordTime {
		t.Errorf("watermark %s before the last record time %s", cur.Watermark, head.LastRecordTime)
	}

	// Nothing new: a step stores nothing more.
	if again := e.step(t); again.Offset != cur.Offset {
		t.Errorf("a second step moved the cursor from %d to %d", cur.Offset, again.Offset)
	}
	if n := len(e.history(t)); n != len(want) {
		t.Errorf("history has %d updates after a second step, want %d", n, len(want))
	}

	// A tap (the DSO's amulet rules are used) is ingested next time.
	alice, _ := e.seeded.User("alice")
	if _, err := splice.TapFor(context.Background(), e.net, e.seeded, alice.Name, alice.Party, daml.MustNumeric("5.0")); err != nil {
		t.Fatal(err)
	}
	e.step(t)
	if diff := cmp.Diff(updateIDs(e.want(t)), updateIDs(e.history(t))); diff != "" {
		t.Errorf("history after a tap (-want +got):\n%s", diff)
	}
	ok, err := (&scan.Service{Store: e.store}).BackfillingComplete(context.Background())
	if err != nil || !ok {
		t.Errorf("backfilling complete = %v, %v; want true for a Scan that saw the network start", ok, err)
	}
}

// TestConcurrentIngestersStoreEachUpdateOnce runs several ingesters on one
// store: the cursor's compare-and-swap lets exactly one store each batch.
func TestConcurrentIngestersStoreEachUpdateOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			g := &scan.Ingester{Source: e.src, Store: e.store, BatchSize: 2}
			for {
				_, err := g.Step(context.Background())
				if err == nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(updateIDs(e.want(t)), updateIDs(e.history(t))); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

// TestNoPrivateContractsInScan creates a contract only users see (a
// transfer offer between alice and bob): it must be nowhere in Scan.
func TestNoPrivateContractsInScan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, _ := e.seeded.User("alice")
	bob, _ := e.seeded.User("bob")
	tx, err := e.net.Submit(context.Background(), ledger.Command{
		Participant: e.seeded.Validator.Participant, UserID: splice.OperatorUser, ActAs: []daml.Party{alice.Party},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, splice.TransferOffer{
				Sender: alice.Party, Receiver: bob.Party, DSO: e.seeded.DSOParty,
				Amount:      splice.PaymentAmount{Amount: daml.MustNumeric("1.0"), Unit: splice.AmuletUnit},
				Description: "private", ExpiresAt: e.net.Clock().Now() + 1e9, TrackingID: "t-1",
			})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	offer := tx.Created()[0].ID
	e.step(t)
	if _, err := e.store.Update(context.Background(), tx.UpdateID); err == nil {
		t.Errorf("the private transaction %s is in Scan's history", tx.UpdateID)
	}
	if _, _, err := e.store.Contract(context.Background(), offer); err == nil {
		t.Errorf("the private contract %s is in Scan", offer)
	}
	for _, u := range e.history(t) {
		if u.Transaction == nil {
			continue
		}
		for _, ev := range u.Transaction.Events {
			if ev.Created != nil && !slices.Contains(ev.Created.Stakeholders(), e.seeded.DSOParty) &&
				!slices.Contains(ev.Witnesses, e.seeded.DSOParty) {
				t.Errorf("update %s holds a node the DSO party does not witness: %s", u.UpdateID(), ev.Created.ID)
			}
		}
	}
}

// TestSnapshots checks the schedule: a fresh network has its first snapshot
// at the previous boundary; jumping the clock across k boundaries on an
// idle network gives k more; and each snapshot is the DSO party's active
// contracts at its time.
func TestSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	e.step(t)
	taken, err := e.snaps.Step(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := daml.TimestampFromTime(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	if len(taken) != 1 || taken[0].RecordTime != first {
		t.Fatalf("snapshots of a fresh network: %+v, want one at %s", taken, first)
	}
	checkSnapshot(t, e, taken[0])

	// Three boundaries later (12:00, 15:00, 18:00), with no transaction.
	if _, err := e.net.AdvanceClock(ctx, 8*time.Hour); err != nil { // 18:20
		t.Fatal(err)
	}
	e.step(t)
	taken, err = e.snaps.Step(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var times []string
	for _, s := range taken {
		times = append(times, s.RecordTime.String())
	}
	if diff := cmp.Diff([]string{"2026-01-05T12:00:00Z", "2026-01-05T15:00:00Z", "2026-01-05T18:00:00Z"}, times); diff != "" {
		t.Errorf("snapshots after an 8-hour jump (-want +got):\n%s", diff)
	}
	// A snapshot taken on demand is at the watermark, and the schedule
	// carries on at the boundaries.
	now, err := e.snaps.TakeNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, e, now)
	if b := e.snaps.Wake(scan.Cursor{Offset: 1, Watermark: now.RecordTime}); b != daml.TimestampFromTime(time.Date(2026, 1, 5, 21, 0, 0, 0, time.UTC))+1 {
		t.Errorf("wake-up after an on-demand snapshot = %s, want just after 21:00", b)
	}
}

// checkSnapshot compares a snapshot with the DSO party's active contracts
// on the ledger at the snapshot's time.
func checkSnapshot(t *testing.T, e *env, snap scan.Snapshot) {
	t.Helper()
	ctx := context.Background()
	all, err := e.net.Store().ActiveContracts(ctx, ledger.ContractFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var want []daml.ContractID
	for _, c := range all {
		tx, err := e.net.Store().Transaction(ctx, c.CreatedBy)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(c.Stakeholders(), e.seeded.DSOParty) && tx.RecordTime <= snap.RecordTime {
			want = append(want, c.ID)
		}
	}
	var got []daml.ContractID
	after := int64(0)
	for {
		rows, err := e.store.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: snap, After: after, Limit: 5, Parties: []daml.Party{e.seeded.DSOParty}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			break
		}
		for _, r := range rows {
			got = append(got, r.Contract.ID)
		}
		after = rows[len(rows)-1].Row
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("snapshot at %s vs the DSO party's active contracts (-ledger +scan):\n%s", snap.RecordTime, diff)
	}
}

// TestRunTakesSnapshotsOnAnIdleNetwork runs the ingester and snapshotter
// loops and moves only the clock: the snapshot at the boundary it crosses
// appears without any transaction.
func TestRunTakesSnapshotsOnAnIdleNetwork(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	e := newEnv(t)
	var wg sync.WaitGroup
	wg.Go(func() { _ = e.ing.Run(ctx, e.snaps.Wake) })
	wg.Go(func() { _ = e.snaps.Run(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()
	waitSnapshot := func(at time.Time) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			s, err := e.store.LatestSnapshot(ctx)
			if err == nil && s.RecordTime == daml.TimestampFromTime(at) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("no snapshot at %s within 10 s", at)
	}
	waitSnapshot(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	// The wall clock passing the boundary wakes the ingester by its timer.
	e.wall.Store(time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC).UnixMicro())
	if _, err := e.net.AdvanceClock(ctx, time.Microsecond); err != nil {
		t.Fatal(err)
	}
	waitSnapshot(time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC))
	if _, err := e.net.AdvanceClock(ctx, 3*time.Hour); err != nil {
		t.Fatal(err)
	}
	waitSnapshot(time.Date(2026, 1, 5, 15, 0, 0, 0, time.UTC))
}
