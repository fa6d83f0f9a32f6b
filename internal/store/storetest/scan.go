package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// ExerciseScan runs the conformance suite of [scan.Store]. open returns a
// fresh, empty store (closed when the test ends); reopen closes s and
// returns a store on the same data, as a restarted process would see it.
// Subtests run in parallel, each on a store of its own.
func ExerciseScan(t *testing.T, open func(t *testing.T) scan.Store, reopen func(t *testing.T, s scan.Store) scan.Store) {
	tests := []struct {
		name string
		run  func(t *testing.T, s scan.Store)
	}{
		{"StartsEmpty", testScanStartsEmpty},
		{"IngestCompareAndSwap", testScanIngestCAS},
		{"IngestRollsBack", testScanIngestRollsBack},
		{"ConcurrentIngest", testScanConcurrentIngest},
		{"BackfillingFromStart", testScanBackfillingFromStart},
		{"BackfillingLate", testScanBackfillingLate},
		{"History", testScanHistory},
		{"Update", testScanUpdate},
		{"UpdatesBefore", testScanUpdatesBefore},
		{"ImportUpdates", testScanImportUpdates},
		{"Migrations", testScanMigrations},
		{"Reassignments", testScanReassignments},
		{"ActiveContracts", testScanActiveContracts},
		{"Snapshot", testScanSnapshot},
		{"SnapshotEmpty", testScanSnapshotEmpty},
		{"SnapshotLookup", testScanSnapshotLookup},
		{"SnapshotPage", testScanSnapshotPage},
		{"BackfillSkips", testScanBackfillSkips},
		{"BackfillConcurrentIngest", testScanBackfillConcurrentIngest},
		{"BackfillContracts", testScanBackfillContracts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
	t.Run("SnapshotChunked", func(t *testing.T) {
		t.Parallel()
		testScanSnapshotChunked(t, open)
	})
	t.Run("Reopen", func(t *testing.T) {
		t.Parallel()
		testScanReopen(t, open(t), reopen)
	})
	t.Run("BeginHistory", func(t *testing.T) {
		t.Parallel()
		testScanBeginHistory(t, open)
	})
	for _, seed := range []int64{1, 2, 3} {
		t.Run(fmt.Sprintf("BackfillConverges/seed%d", seed), func(t *testing.T) {
			t.Parallel()
			testScanBackfillConverges(t, open, seed)
		})
	}
}

// sync2 is a second synchronizer; its id sorts after sync1's.
var sync2 = ledger.Synchronizer{
	ID:    ledger.NewSynchronizerID("global-domain-2", ledger.Fingerprint("storetest", "sync2")),
	Alias: "global2",
}

// supd describes a Scan update for [scanUpd].
type supd struct {
	mig  int64
	rt   daml.Timestamp // record time (ignored for imports)
	sync ledger.SynchronizerID
	// creates are created with the DSO party as an observer unless it is
	// among sig.
	creates  []create
	archives []daml.ContractID
	// imp makes an import update of the one contract in creates.
	imp bool
	// createdAt overrides the ledger effective time (default rt - 250).
	createdAt daml.Timestamp
	// tag makes the contract ids of otherwise identical updates differ.
	tag string
}

// scanUpd builds the Scan update u describes, at offset off.
func scanUpd(off ledger.Offset, u supd) scan.Update {
	sync := u.sync
	if sync == "" {
		sync = sync1.ID
	}
	eff := u.rt - 250
	if u.createdAt != 0 {
		eff = u.createdAt
	}
	updateID := "1220" + hexID(fmt.Sprintf("scan/%d/%d/%s/%s", u.mig, u.rt, sync, u.tag))
	rt := u.rt
	if u.imp {
		rt = 0
	}
	tx := &ledger.Transaction{
		UpdateID:     updateID,
		WorkflowID:   "wf",
		Synchronizer: sync,
		MigrationID:  u.mig,
		RecordTime:   rt,
		EffectiveAt:  eff,
	}
	node := int32(0)
	for _, cid := range u.archives {
		tx.Roots = append(tx.Roots, node)
		tx.Events = append(tx.Events, ledger.Event{
			NodeID: node,
			Exercised: &ledger.Exercised{
				ContractID: cid, Template: amulet, Choice: "Archive", ChoiceArgument: daml.Unit{},
				ActingParties: []daml.Party{dso}, Consuming: true, LastDescendant: node,
				ExerciseResult: daml.Unit{}, Stakeholders: []daml.Party{dso},
			},
			Witnesses: []daml.Party{dso},
		})
		node++
	}
	out := scan.Update{Offset: off, Import: u.imp, Archived: u.archives}
	for _, c := range u.creates {
		obs := c.obs
		if !slices.Contains(c.sig, dso) && !slices.Contains(obs, dso) {
			obs = append(slices.Clone(obs), dso)
		}
		k := &ledger.Contract{
			ID:           daml.ContractID("00" + hexID(fmt.Sprintf("%s/%d/%s", updateID, node, u.tag))),
			Template:     c.tmpl,
			Argument:     argument(c),
			Signatories:  c.sig,
			Observers:    obs,
			CreatedAt:    eff,
			CreatedBy:    updateID,
			Synchronizer: sync,
			MigrationID:  u.mig,
		}
		if u.imp {
			// An import update's id is its contract's id.
			tx.UpdateID = string(k.ID)
			k.CreatedBy = string(k.ID)
		}
		tx.Roots = append(tx.Roots, node)
		tx.Events = append(tx.Events, ledger.Event{NodeID: node, Created: k, Witnesses: k.Stakeholders()})
		out.Created = append(out.Created, k)
		node++
	}
	out.Transaction = tx
	return out
}

// scanIngester ingests into a store from its cursor, one offset per update.
type scanIngester struct {
	t   testing.TB
	s   scan.Store
	cur scan.Cursor
}

func newScanIngester(t testing.TB, s scan.Store) *scanIngester {
	t.Helper()
	c, err := s.Cursor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &scanIngester{t: t, s: s, cur: c}
}

// ingest stores the updates us describe (offsets continue the cursor's)
// and returns them.
func (g *scanIngester) ingest(us ...supd) []scan.Update {
	g.t.Helper()
	next := g.cur
	var out []scan.Update
	for _, u := range us {
		next.Offset++
		out = append(out, scanUpd(next.Offset, u))
		if !u.imp {
			next.Watermark = max(next.Watermark, u.rt)
		}
		next.Migration = max(next.Migration, u.mig)
	}
	if err := g.s.Ingest(context.Background(), g.cur, next, out); err != nil {
		g.t.Fatalf("ingest: %v", err)
	}
	g.cur = next
	return out
}

// t0 is the record time the Scan fixtures start at.
const t0 = baseTime

func owned(owner daml.Party, tmpl ledger.TemplateID) create {
	return create{tmpl: tmpl, sig: []daml.Party{owner}}
}

func updateIDs(us []scan.Update) []string {
	out := make([]string, len(us))
	for i := range us {
		out[i] = us[i].UpdateID()
	}
	return out
}

func testScanStartsEmpty(t *testing.T, s scan.Store) {
	ctx := t.Context()
	if c, err := s.Cursor(ctx); err != nil || c != (scan.Cursor{}) {
		t.Errorf("Cursor = %+v, %v; want zero", c, err)
	}
	if b, err := s.Backfilling(ctx); err != nil || b != (scan.Backfilling{}) {
		t.Errorf("Backfilling = %+v, %v; want zero", b, err)
	}
	if us, err := s.History(ctx, scan.HistoryQuery{Limit: 10, Imports: true}); err != nil || len(us) != 0 {
		t.Errorf("History = %v, %v; want none", us, err)
	}
	if ms, err := s.Migrations(ctx); err != nil || len(ms) != 0 {
		t.Errorf("Migrations = %v, %v; want none", ms, err)
	}
	if cs, err := s.ActiveContracts(ctx, scan.ContractQuery{}); err != nil || len(cs) != 0 {
		t.Errorf("ActiveContracts = %v, %v; want none", cs, err)
	}
	if _, err := s.Update(ctx, "1220"+hexID("nope")); !fault.Is(err, fault.NotFound) {
		t.Errorf("Update(unknown) error = %v; want NotFound", err)
	}
	if _, _, err := s.Contract(ctx, daml.ContractID("00"+hexID("nope"))); !fault.Is(err, fault.NotFound) {
		t.Errorf("Contract(unknown) error = %v; want NotFound", err)
	}
	if _, err := s.LatestSnapshot(ctx); !fault.Is(err, fault.NotFound) {
		t.Errorf("LatestSnapshot error = %v; want NotFound", err)
	}
}

func testScanIngestCAS(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	first := g.ingest(supd{rt: t0, creates: []create{owned(alice, amulet)}}, supd{rt: t0 + 10})
	want := scan.Cursor{Offset: 2, Watermark: t0 + 10}
	if c, err := s.Cursor(ctx); err != nil || c != want {
		t.Fatalf("Cursor = %+v, %v; want %+v", c, err, want)
	}

	// A stale prev stores nothing.
	stale := scanUpd(3, supd{rt: t0 + 20, creates: []create{owned(bob, amulet)}})
	for _, prev := range []scan.Cursor{{}, {Offset: 1}, {Offset: 3}} {
		err := s.Ingest(ctx, prev, scan.Cursor{Offset: 3, Watermark: t0 + 20}, []scan.Update{stale})
		if !fault.Is(err, fault.Aborted) {
			t.Errorf("Ingest(prev %d) error = %v; want Aborted", prev.Offset, err)
		}
	}
	if _, err := s.Update(ctx, stale.UpdateID()); !fault.Is(err, fault.NotFound) {
		t.Errorf("update of an aborted Ingest stored: %v", err)
	}
	if _, _, err := s.Contract(ctx, stale.Created[0].ID); !fault.Is(err, fault.NotFound) {
		t.Errorf("contract of an aborted Ingest stored: %v", err)
	}
	if c, _ := s.Cursor(ctx); c != want {
		t.Errorf("Cursor after aborted Ingest = %+v; want %+v", c, want)
	}

	// An Ingest with no update moves the watermark.
	next := scan.Cursor{Offset: 5, Watermark: t0 + 99, Migration: 1}
	if err := s.Ingest(ctx, want, next, nil); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Cursor(ctx); c != next {
		t.Errorf("Cursor = %+v; want %+v", c, next)
	}
	us, err := s.History(ctx, scan.HistoryQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, us, cmpOpts...); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
}

// testScanIngestRollsBack checks that an Ingest that fails half-way (an
// update id stored twice) stores nothing and leaves the cursor.
func testScanIngestRollsBack(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	first := g.ingest(supd{rt: t0})
	fresh := scanUpd(2, supd{rt: t0 + 10, creates: []create{owned(alice, amulet)}})
	dup := first[0]
	dup.Offset = 3
	err := s.Ingest(ctx, g.cur, scan.Cursor{Offset: 3, Watermark: t0 + 10}, []scan.Update{fresh, dup})
	if err == nil {
		t.Fatal("Ingest of an update id stored before succeeded")
	}
	if _, err := s.Update(ctx, fresh.UpdateID()); !fault.Is(err, fault.NotFound) {
		t.Errorf("update of a failed Ingest stored: %v", err)
	}
	if _, _, err := s.Contract(ctx, fresh.Created[0].ID); !fault.Is(err, fault.NotFound) {
		t.Errorf("contract of a failed Ingest stored: %v", err)
	}
	if c, _ := s.Cursor(ctx); c != g.cur {
		t.Errorf("Cursor = %+v; want %+v", c, g.cur)
	}
}

// testScanConcurrentIngest races ingesters from the same cursor: exactly
// one wins.
func testScanConcurrentIngest(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	g.ingest(supd{rt: t0})
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			u := scanUpd(2, supd{rt: t0 + 10, tag: fmt.Sprint(i), creates: []create{owned(alice, amulet)}})
			errs[i] = s.Ingest(ctx, g.cur, scan.Cursor{Offset: 2, Watermark: t0 + 10}, []scan.Update{u})
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !fault.Is(err, fault.Aborted):
			t.Errorf("losing Ingest error = %v; want Aborted", err)
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent Ingests succeeded; want 1", won)
	}
	if us, err := s.History(ctx, scan.HistoryQuery{}); err != nil || len(us) != 2 {
		t.Errorf("History = %d updates, %v; want 2", len(us), err)
	}
}

func testScanBackfillingFromStart(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	g.ingest(supd{rt: t0})
	want := scan.Backfilling{Complete: true, ImportUpdatesComplete: true}
	if b, err := s.Backfilling(ctx); err != nil || b != want {
		t.Errorf("Backfilling = %+v, %v; want %+v", b, err, want)
	}
	g.ingest(supd{rt: t0 + 10})
	if b, _ := s.Backfilling(ctx); b != want {
		t.Errorf("Backfilling after a second Ingest = %+v; want %+v", b, want)
	}
}

func testScanBackfillingLate(t *testing.T, s scan.Store) {
	ctx := t.Context()
	// The first Ingest starts after offset 0 of the participant's stream.
	prev := scan.Cursor{Offset: 41, Watermark: t0}
	next := scan.Cursor{Offset: 42, Watermark: t0 + 10}
	if err := s.Ingest(ctx, prev, next, []scan.Update{scanUpd(42, supd{rt: t0 + 10})}); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Backfilling(ctx); err != nil || b != (scan.Backfilling{}) {
		t.Errorf("Backfilling = %+v, %v; want incomplete", b, err)
	}
	if c, _ := s.Cursor(ctx); c != next {
		t.Errorf("Cursor = %+v; want %+v", c, next)
	}
	// Later Ingests keep it, and the CAS now holds against 42.
	if err := s.Ingest(ctx, scan.Cursor{}, scan.Cursor{Offset: 43}, nil); !fault.Is(err, fault.Aborted) {
		t.Errorf("Ingest(prev 0) after the first = %v; want Aborted", err)
	}
	if err := s.Ingest(ctx, next, scan.Cursor{Offset: 43, Watermark: t0 + 20}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Backfilling(ctx); b != (scan.Backfilling{}) {
		t.Errorf("Backfilling after a second Ingest = %+v; want incomplete", b)
	}
}

// historyFixture ingests two migrations: migration 0 on two synchronizers
// (sharing a record time, ingested against synchronizer order), and
// migration 1 with import updates then ordinary ones. It returns the
// updates in history order, the import updates apart.
func historyFixture(t *testing.T, s scan.Store) (m0, imports, m1 []scan.Update) {
	g := newScanIngester(t, s)
	a := g.ingest(
		supd{rt: t0, creates: []create{owned(alice, amulet)}},
		supd{rt: t0 + 10, sync: sync2.ID},
		supd{rt: t0 + 10},
		supd{rt: t0 + 20, sync: sync2.ID},
	)
	m0 = slices.Clone(a)
	slices.SortStableFunc(m0, func(x, y scan.Update) int {
		if x.Transaction.RecordTime != y.Transaction.RecordTime {
			return int(x.Transaction.RecordTime - y.Transaction.RecordTime)
		}
		return strings.Compare(string(x.Transaction.Synchronizer), string(y.Transaction.Synchronizer))
	})
	imports = g.ingest(
		supd{mig: 1, imp: true, creates: []create{owned(alice, amulet)}, createdAt: t0 - 5, tag: "i1"},
		supd{mig: 1, imp: true, creates: []create{owned(bob, locked)}, createdAt: t0 - 6, tag: "i2"},
	)
	m1 = g.ingest(
		supd{mig: 1, rt: t0 + 5, creates: []create{owned(bob, amulet)}},
		supd{mig: 1, rt: t0 + 30, archives: []daml.ContractID{a[0].Created[0].ID}},
	)
	return m0, imports, m1
}

func testScanHistory(t *testing.T, s scan.Store) {
	ctx := t.Context()
	m0, imports, m1 := historyFixture(t, s)
	all := slices.Concat(m0, m1)
	for _, tc := range []struct {
		name string
		q    scan.HistoryQuery
		want []scan.Update
	}{
		{"all", scan.HistoryQuery{}, all},
		{"limit", scan.HistoryQuery{Limit: 3}, all[:3]},
		{"imports", scan.HistoryQuery{Imports: true}, slices.Concat(m0, imports, m1)},
		{"after, exclusive", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: t0}}, all[1:]},
		{"after the last of a migration", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: t0 + 20}}, m1},
		{"after, later migrations", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: t0 + 1000}, Imports: true},
			slices.Concat(imports, m1)},
		{"after, within the next migration", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 1, RecordTime: t0 + 5}, Imports: true}, m1[1:]},
		{"after, limit", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: t0 + 10}, Limit: 2}, []scan.Update{m0[3], m1[0]}},
		{"after the end", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 1, RecordTime: t0 + 30}, Imports: true}, nil},
		{"after a later migration", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 2}}, nil},
	} {
		got, err := s.History(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(updateIDs(tc.want), updateIDs(got)); diff != "" {
			t.Errorf("%s: History (-want +got):\n%s", tc.name, diff)
		}
	}
	// Whole updates come back as ingested.
	got, err := s.History(ctx, scan.HistoryQuery{Imports: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(slices.Concat(m0, imports, m1), got, cmpOpts...); diff != "" {
		t.Errorf("History read back (-want +got):\n%s", diff)
	}
}

func testScanUpdate(t *testing.T, s scan.Store) {
	ctx := t.Context()
	m0, imports, m1 := historyFixture(t, s)
	for _, u := range slices.Concat(m0, imports, m1) {
		got, err := s.Update(ctx, u.UpdateID())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&u, got, cmpOpts...); diff != "" {
			t.Errorf("Update(%s) (-want +got):\n%s", u.UpdateID(), diff)
		}
	}
	_, err := s.Update(ctx, "1220"+hexID("unknown"))
	if !fault.Is(err, fault.NotFound) || !strings.Contains(err.Error(), hexID("unknown")) {
		t.Errorf("Update(unknown) error = %v; want NotFound naming it", err)
	}
}

func testScanUpdatesBefore(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	m0 := g.ingest(supd{rt: t0 + 15}) // migration 0: left out of migration 1's
	imports := g.ingest(
		supd{mig: 1, imp: true, creates: []create{owned(alice, amulet)}, tag: "i1"},
		supd{mig: 1, imp: true, creates: []create{owned(alice, amulet)}, tag: "i2"},
	)
	us := g.ingest(
		supd{mig: 1, rt: t0 + 10},
		supd{mig: 1, rt: t0 + 15, sync: sync2.ID}, // other synchronizer: left out
		supd{mig: 1, rt: t0 + 20},
		supd{mig: 1, rt: t0 + 30},
		supd{mig: 1, rt: t0 + 40},
	)
	u10, u20, u30, u40 := us[0], us[2], us[3], us[4]
	at := func(ts daml.Timestamp) *daml.Timestamp { return &ts }
	q := func(before daml.Timestamp, atOrAfter *daml.Timestamp, limit int) scan.BeforeQuery {
		return scan.BeforeQuery{Migration: 1, Synchronizer: sync1.ID, Before: before, AtOrAfter: atOrAfter, Limit: limit}
	}
	// Import updates come after the others, newest first in ingestion
	// order.
	importsNewestFirst := []scan.Update{imports[1], imports[0]}
	for _, tc := range []struct {
		name string
		q    scan.BeforeQuery
		want []scan.Update
	}{
		{"before, exclusive", q(t0+40, nil, 0), []scan.Update{u30, u20, u10}},
		{"limit", q(t0+40, nil, 2), []scan.Update{u30, u20}},
		{"everything", q(t0+1000, nil, 0), []scan.Update{u40, u30, u20, u10}},
		{"at or after, inclusive, with imports", q(t0+40, at(t0+20), 0), slices.Concat([]scan.Update{u30, u20}, importsNewestFirst)},
		{"at or after, limit within the range", q(t0+40, at(t0+10), 2), []scan.Update{u30, u20}},
		{"at or after, limit within the imports", q(t0+40, at(t0+20), 3), []scan.Update{u30, u20, imports[1]}},
		{"at or after an empty range", q(t0+5, at(t0), 0), importsNewestFirst},
		{"nothing before", q(t0+10, nil, 0), nil},
		{"other migration", scan.BeforeQuery{Migration: 0, Synchronizer: sync1.ID, Before: t0 + 100}, m0},
		{"other synchronizer", scan.BeforeQuery{Migration: 1, Synchronizer: sync2.ID, Before: t0 + 100}, us[1:2]},
	} {
		got, err := s.UpdatesBefore(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(updateIDs(tc.want), updateIDs(got)); diff != "" {
			t.Errorf("%s: UpdatesBefore (-want +got):\n%s", tc.name, diff)
		}
	}
}

func testScanImportUpdates(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	g.ingest(supd{mig: 0, imp: true, creates: []create{owned(alice, amulet)}, tag: "m0"})
	var specs []supd
	for i := range 5 {
		specs = append(specs, supd{mig: 1, imp: true, creates: []create{owned(alice, amulet)}, tag: fmt.Sprint(i)})
	}
	imports := g.ingest(specs...)
	g.ingest(supd{mig: 1, rt: t0})
	sorted := slices.Clone(imports)
	slices.SortFunc(sorted, func(a, b scan.Update) int { return strings.Compare(a.UpdateID(), b.UpdateID()) })
	for _, tc := range []struct {
		name  string
		after string
		limit int
		want  []scan.Update
	}{
		{"all", "", 0, sorted},
		{"limit", "", 2, sorted[:2]},
		{"after, exclusive", sorted[1].UpdateID(), 0, sorted[2:]},
		{"after, limit", sorted[1].UpdateID(), 2, sorted[2:4]},
		{"after the last", sorted[4].UpdateID(), 0, nil},
	} {
		got, err := s.ImportUpdates(ctx, 1, tc.after, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(updateIDs(tc.want), updateIDs(got)); diff != "" {
			t.Errorf("%s: ImportUpdates (-want +got):\n%s", tc.name, diff)
		}
	}
	got, err := s.ImportUpdates(ctx, 1, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sorted, got, cmpOpts...); diff != "" {
		t.Errorf("ImportUpdates read back (-want +got):\n%s", diff)
	}
	if got, err := s.ImportUpdates(ctx, 2, "", 0); err != nil || len(got) != 0 {
		t.Errorf("ImportUpdates(2) = %v, %v; want none", updateIDs(got), err)
	}

	// A contract that lives on through a second hard migration is
	// imported again, under the same update id (its contract id): ids are
	// unique per migration, and a lookup by id finds the latest import.
	again := sorted[0]
	tx := *again.Transaction
	tx.MigrationID = 2
	again.Transaction, again.Offset = &tx, 0
	cur, err := s.Cursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := cur
	next.Offset, next.Migration = cur.Offset+1, 2
	if err := s.Ingest(ctx, cur, next, []scan.Update{again}); err != nil {
		t.Fatalf("import the same contract into migration 2: %v", err)
	}
	if got, err := s.ImportUpdates(ctx, 2, "", 0); err != nil || !slices.Equal(updateIDs(got), []string{again.UpdateID()}) {
		t.Errorf("ImportUpdates(2) = %v, %v; want %s", updateIDs(got), err, again.UpdateID())
	}
	if got, err := s.ImportUpdates(ctx, 1, "", 0); err != nil || len(got) != len(sorted) {
		t.Errorf("ImportUpdates(1) after migration 2's = %d, %v; want %d", len(got), err, len(sorted))
	}
	if u, err := s.Update(ctx, again.UpdateID()); err != nil || u.MigrationID() != 2 {
		t.Errorf("Update(%s) = %+v, %v; want migration 2's import", again.UpdateID(), u, err)
	}
}

func testScanMigrations(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	g.ingest(
		supd{rt: t0 + 10, sync: sync2.ID},
		supd{rt: t0 + 20},
		supd{rt: t0 + 30, sync: sync2.ID},
		supd{rt: t0 + 40},
	)
	imports := g.ingest(
		supd{mig: 1, imp: true, creates: []create{owned(alice, amulet)}, tag: "a"},
		supd{mig: 1, imp: true, creates: []create{owned(alice, amulet)}, tag: "b"},
		supd{mig: 1, imp: true, creates: []create{owned(alice, amulet)}, tag: "c"},
	)
	g.ingest(supd{mig: 2, imp: true, creates: []create{owned(alice, amulet)}})
	g.ingest(supd{mig: 3, rt: t0 + 5}, supd{mig: 3, rt: t0 + 6})
	last := slices.Max(updateIDs(imports))
	r := func(id ledger.SynchronizerID, lo, hi daml.Timestamp) scan.RecordTimeRange {
		return scan.RecordTimeRange{Synchronizer: id, Min: lo, Max: hi}
	}
	ranges0 := []scan.RecordTimeRange{r(sync1.ID, t0+20, t0+40), r(sync2.ID, t0+10, t0+30)}
	slices.SortFunc(ranges0, func(a, b scan.RecordTimeRange) int {
		return strings.Compare(string(a.Synchronizer), string(b.Synchronizer))
	})
	imp2, err := s.ImportUpdates(ctx, 2, "", 0)
	if err != nil || len(imp2) != 1 {
		t.Fatalf("ImportUpdates(2) = %v, %v", imp2, err)
	}
	want := []scan.Migration{
		{ID: 0, Ranges: ranges0, HasUpdates: true},
		{ID: 1, LastImportUpdateID: last, HasUpdates: true},
		{ID: 2, LastImportUpdateID: imp2[0].UpdateID(), HasUpdates: true},
		{ID: 3, Ranges: []scan.RecordTimeRange{r(sync1.ID, t0+5, t0+6)}, HasUpdates: true},
	}
	got, err := s.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
		t.Errorf("Migrations (-want +got):\n%s", diff)
	}
}

func testScanActiveContracts(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	u1 := g.ingest(supd{rt: t0, creates: []create{owned(alice, amulet), owned(bob, locked), owned(alice, otherAmulet)}})[0]
	a1, l1, o1 := u1.Created[0], u1.Created[1], u1.Created[2]
	u2 := g.ingest(supd{rt: t0 + 10, creates: []create{owned(bob, amuletV2), owned(bob, locked)}, archives: []daml.ContractID{l1.ID}})[0]
	a2, l2 := u2.Created[0], u2.Created[1]
	// An archive of a contract the Scan never saw changes nothing.
	g.ingest(supd{rt: t0 + 20, archives: []daml.ContractID{daml.ContractID("00" + hexID("unseen"))}})

	key := scan.KeyOf
	// Listed in (created_at, contract_id) order: u1's contracts first, in
	// contract id order, then u2's.
	all := byCreation(a1, o1, a2, l2)
	for _, tc := range []struct {
		name string
		q    scan.ContractQuery
		want []*ledger.Contract
	}{
		{"all, (created_at, contract_id) order", scan.ContractQuery{}, all},
		{"limit", scan.ContractQuery{Limit: 2}, all[:2]},
		{"template, every version", scan.ContractQuery{Templates: []scan.TemplateKey{key(amulet)}}, []*ledger.Contract{a1, a2}},
		{"template of another package", scan.ContractQuery{Templates: []scan.TemplateKey{key(otherAmulet)}}, []*ledger.Contract{o1}},
		{"two templates", scan.ContractQuery{Templates: []scan.TemplateKey{key(locked), key(amulet)}}, byCreation(a1, a2, l2)},
		{"two templates, limit", scan.ContractQuery{Templates: []scan.TemplateKey{key(locked), key(amulet), key(amuletV2)}, Limit: 2},
			byCreation(a1, a2, l2)[:2]},
		{"unknown template", scan.ContractQuery{Templates: []scan.TemplateKey{{PackageName: "x", Module: "Y", Entity: "Z"}}}, nil},
	} {
		got, err := s.ActiveContracts(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got, cmpOpts...); diff != "" {
			t.Errorf("%s: ActiveContracts (-want +got):\n%s", tc.name, diff)
		}
	}
	for _, tc := range []struct {
		c      *ledger.Contract
		active bool
	}{{a1, true}, {l1, false}, {l2, true}} {
		got, active, err := s.Contract(ctx, tc.c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if active != tc.active {
			t.Errorf("Contract(%s) active = %v; want %v", tc.c.ID, active, tc.active)
		}
		if diff := cmp.Diff(tc.c, got, cmpOpts...); diff != "" {
			t.Errorf("Contract read back (-want +got):\n%s", diff)
		}
	}
	_, _, err := s.Contract(ctx, daml.ContractID("00"+hexID("nope")))
	if !fault.Is(err, fault.NotFound) || !strings.Contains(err.Error(), hexID("nope")) {
		t.Errorf("Contract(unknown) error = %v; want NotFound naming it", err)
	}
}

// snapshotIDs reads a whole snapshot a page at a time and returns its
// contract ids, checking that the row numbers are FirstRow..LastRow.
func snapshotIDs(t *testing.T, s scan.Store, snap scan.Snapshot) []daml.ContractID {
	t.Helper()
	rows := snapshotRows(t, s, scan.SnapshotQuery{Snapshot: snap, Limit: 2})
	var out []daml.ContractID
	for i, r := range rows {
		if r.Row != snap.FirstRow+int64(i) {
			t.Errorf("row %d numbered %d; want %d", i, r.Row, snap.FirstRow+int64(i))
		}
		out = append(out, r.Contract.ID)
	}
	if int64(len(rows)) != snap.Contracts() {
		t.Errorf("snapshot has %d rows; Contracts() = %d", len(rows), snap.Contracts())
	}
	return out
}

// snapshotRows pages through q's snapshot from q.After with q's page size.
func snapshotRows(t *testing.T, s scan.Store, q scan.SnapshotQuery) []scan.SnapshotRow {
	t.Helper()
	var out []scan.SnapshotRow
	for range 1000 {
		page, err := s.SnapshotPage(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page...)
		if len(page) < q.Limit || len(page) == 0 {
			return out
		}
		q.After = page[len(page)-1].Row
	}
	t.Fatal("snapshot pages do not end")
	return nil
}

// snapshotFixture ingests contracts whose creation order differs from
// their (created_at, contract_id) order, archives, and a second migration
// with imports. It returns the contracts by name.
func snapshotFixture(t *testing.T, s scan.Store) map[string]*ledger.Contract {
	g := newScanIngester(t, s)
	c := map[string]*ledger.Contract{}
	u := g.ingest(
		supd{rt: t0 + 10, creates: []create{owned(alice, amulet), owned(bob, locked)}}, // same created_at: by contract id
		supd{rt: t0 + 20, creates: []create{owned(bob, amulet)}, createdAt: t0 - 100},  // created_at before the first
		supd{rt: t0 + 30, creates: []create{owned(alice, locked)}},
	)
	c["a"], c["b"], c["early"], c["d"] = u[0].Created[0], u[0].Created[1], u[1].Created[0], u[2].Created[0]
	g.ingest(supd{rt: t0 + 50, archives: []daml.ContractID{c["b"].ID}})
	imp := g.ingest(supd{mig: 1, imp: true, creates: []create{owned(bob, otherAmulet)}, createdAt: t0 - 500})
	c["imported"] = imp[0].Created[0]
	u = g.ingest(
		supd{mig: 1, rt: t0 + 5, creates: []create{owned(alice, amulet)}},
		supd{mig: 1, rt: t0 + 15, archives: []daml.ContractID{c["a"].ID}},
	)
	c["m1"] = u[0].Created[0]
	return c
}

// order sorts contracts as snapshot rows are ordered.
func order(cs ...*ledger.Contract) []daml.ContractID {
	return ids(byCreation(cs...))
}

// byCreation sorts contracts in (created_at, contract_id) order, that of
// snapshot rows and of ActiveContracts.
func byCreation(cs ...*ledger.Contract) []*ledger.Contract {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b *ledger.Contract) int {
		if a.CreatedAt != b.CreatedAt {
			return int(a.CreatedAt - b.CreatedAt)
		}
		return strings.Compare(string(a.ID), string(b.ID))
	})
	return cs
}

func testScanSnapshot(t *testing.T, s scan.Store) {
	ctx := t.Context()
	c := snapshotFixture(t, s)
	for _, tc := range []struct {
		name string
		mig  int64
		at   daml.Timestamp
		want []daml.ContractID
	}{
		{"before everything", 0, t0, nil},
		{"created at the time, inclusive", 0, t0 + 10, order(c["a"], c["b"])},
		{"created_at order", 0, t0 + 30, order(c["a"], c["b"], c["early"], c["d"])},
		{"archived at the time, inclusive", 0, t0 + 50, order(c["a"], c["early"], c["d"])},
		{"earlier migration and imports", 1, t0, order(c["a"], c["early"], c["d"], c["imported"])},
		{"later in the migration", 1, t0 + 15, order(c["early"], c["d"], c["imported"], c["m1"])},
	} {
		snap, err := s.BuildSnapshot(ctx, tc.mig, tc.at, 1000)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if snap.Migration != tc.mig || snap.RecordTime != tc.at {
			t.Errorf("%s: snapshot %+v; want migration %d, record time %d", tc.name, snap, tc.mig, tc.at)
		}
		if snap.Contracts() != int64(len(tc.want)) {
			t.Errorf("%s: snapshot %+v holds %d contracts; want %d", tc.name, snap, snap.Contracts(), len(tc.want))
		}
		if diff := cmp.Diff(tc.want, snapshotIDs(t, s, snap), cmpOpts...); diff != "" {
			t.Errorf("%s: snapshot (-want +got):\n%s", tc.name, diff)
		}
		again, err := s.BuildSnapshot(ctx, tc.mig, tc.at, 1)
		if err != nil || again != snap {
			t.Errorf("%s: BuildSnapshot again = %+v, %v; want the existing %+v", tc.name, again, err, snap)
		}
	}
	// Whole rows come back as ingested, imported flagged.
	snap, err := s.SnapshotAtOrBefore(ctx, 1, t0)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: snap, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		want := c["early"]
		switch r.Contract.ID {
		case c["a"].ID:
			want = c["a"]
		case c["d"].ID:
			want = c["d"]
		case c["imported"].ID:
			want = c["imported"]
		}
		if diff := cmp.Diff(want, r.Contract, cmpOpts...); diff != "" {
			t.Errorf("row %d (-want +got):\n%s", i, diff)
		}
		if imported := r.Contract.ID == c["imported"].ID; r.Imported != imported {
			t.Errorf("row %d (%s) Imported = %v; want %v", i, r.Contract.ID, r.Imported, imported)
		}
	}
}

func testScanSnapshotEmpty(t *testing.T, s scan.Store) {
	ctx := t.Context()
	empty, err := s.BuildSnapshot(ctx, 0, t0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if empty.LastRow != empty.FirstRow-1 || empty.Contracts() != 0 {
		t.Errorf("empty snapshot %+v; want LastRow = FirstRow-1", empty)
	}
	if rows, err := s.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: empty, Limit: 10}); err != nil || len(rows) != 0 {
		t.Errorf("SnapshotPage(empty) = %v, %v; want none", rows, err)
	}
	g := newScanIngester(t, s)
	g.ingest(supd{rt: t0 + 10, creates: []create{owned(alice, amulet), owned(alice, amulet)}})
	full, err := s.BuildSnapshot(ctx, 0, t0+10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if full.Contracts() != 2 {
		t.Errorf("second snapshot %+v holds %d contracts; want 2", full, full.Contracts())
	}
	if got := snapshotIDs(t, s, full); len(got) != 2 {
		t.Errorf("second snapshot holds %d contracts; want 2", len(got))
	}
	if rows, err := s.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: empty, Limit: 10}); err != nil || len(rows) != 0 {
		t.Errorf("SnapshotPage(empty) after another snapshot = %v, %v; want none", rows, err)
	}
}

// testScanSnapshotChunked builds the same snapshot in chunks of several
// sizes, on stores with the same history: the rows are the same.
func testScanSnapshotChunked(t *testing.T, open func(t *testing.T) scan.Store) {
	ctx := t.Context()
	var want []scan.SnapshotRow
	for _, chunk := range []int{1000, 2, 1, 5, 4} {
		s := open(t)
		g := newScanIngester(t, s)
		var specs []supd
		for i := range 6 {
			specs = append(specs, supd{rt: t0 + daml.Timestamp(i*10), creates: []create{owned(alice, amulet)}, createdAt: t0 - daml.Timestamp(i%3)})
		}
		us := g.ingest(specs...)
		g.ingest(supd{rt: t0 + 100, archives: []daml.ContractID{us[2].Created[0].ID}})
		snap, err := s.BuildSnapshot(ctx, 0, t0+100, chunk)
		if err != nil {
			t.Fatal(err)
		}
		rows := snapshotRows(t, s, scan.SnapshotQuery{Snapshot: snap, Limit: 100})
		if len(rows) != 5 || snap.Contracts() != 5 {
			t.Fatalf("chunk %d: %d rows, snapshot %+v; want 5", chunk, len(rows), snap)
		}
		// Fresh stores number alike; compare positions within the
		// snapshot all the same.
		for i := range rows {
			rows[i].Row -= snap.FirstRow
		}
		if want == nil {
			want = rows
			continue
		}
		if diff := cmp.Diff(want, rows, cmpOpts...); diff != "" {
			t.Errorf("chunk %d: rows differ from chunk 1000 (-want +got):\n%s", chunk, diff)
		}
	}
}

func testScanSnapshotLookup(t *testing.T, s scan.Store) {
	ctx := t.Context()
	build := func(m int64, at daml.Timestamp) scan.Snapshot {
		snap, err := s.BuildSnapshot(ctx, m, at, 10)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	// Built out of order.
	s0b := build(0, t0+200)
	s0a := build(0, t0+100)
	s2a := build(2, t0+50)
	s2b := build(2, t0+150)
	latest, err := s.LatestSnapshot(ctx)
	if err != nil || latest != s2b {
		t.Errorf("LatestSnapshot = %+v, %v; want %+v", latest, err, s2b)
	}
	notFound := scan.Snapshot{ID: -1}
	for _, tc := range []struct {
		name string
		f    func(context.Context, int64, daml.Timestamp) (scan.Snapshot, error)
		m    int64
		t    daml.Timestamp
		want scan.Snapshot
	}{
		{"at or before, exact", s.SnapshotAtOrBefore, 0, t0 + 100, s0a},
		{"at or before, between", s.SnapshotAtOrBefore, 0, t0 + 199, s0a},
		{"at or before, after the last", s.SnapshotAtOrBefore, 0, t0 + 10000, s0b},
		{"at or before, before the first", s.SnapshotAtOrBefore, 0, t0 + 99, notFound},
		{"at or before, not another migration's", s.SnapshotAtOrBefore, 1, t0 + 10000, notFound},
		{"at or before, migration 2", s.SnapshotAtOrBefore, 2, t0 + 100, s2a},
		{"after, exclusive", s.SnapshotAfter, 0, t0 + 100, s0b},
		{"after, before the first", s.SnapshotAfter, 0, t0, s0a},
		{"after, a later migration", s.SnapshotAfter, 0, t0 + 200, s2a},
		{"after, a migration without snapshots", s.SnapshotAfter, 1, t0 + 10000, s2a},
		{"after the last", s.SnapshotAfter, 2, t0 + 150, notFound},
	} {
		got, err := tc.f(ctx, tc.m, tc.t)
		if tc.want == notFound {
			if !fault.Is(err, fault.NotFound) {
				t.Errorf("%s: = %+v, %v; want NotFound", tc.name, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: = %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

func testScanSnapshotPage(t *testing.T, s scan.Store) {
	ctx := t.Context()
	carol := ledger.PartyID("carol", ledger.Fingerprint("storetest", "carol"))
	g := newScanIngester(t, s)
	var specs []supd
	tmpls := []ledger.TemplateID{amulet, locked, amuletV2, otherAmulet}
	owners := []daml.Party{alice, bob, carol}
	for i := range 12 {
		cr := owned(owners[i%3], tmpls[i%4])
		if i%5 == 0 {
			cr.obs = []daml.Party{bob} // a second stakeholder besides the DSO
		}
		specs = append(specs, supd{rt: t0 + daml.Timestamp(i), creates: []create{cr}})
	}
	g.ingest(specs...)
	imp := g.ingest(supd{mig: 1, imp: true, creates: []create{owned(carol, locked)}, createdAt: t0 + 1000})[0].Created[0]
	snap, err := s.BuildSnapshot(ctx, 1, t0, 3)
	if err != nil {
		t.Fatal(err)
	}
	all := snapshotRows(t, s, scan.SnapshotQuery{Snapshot: snap, Limit: 100})
	if len(all) != 13 {
		t.Fatalf("snapshot has %d rows; want 13", len(all))
	}
	if last := all[12]; last.Contract.ID != imp.ID || !last.Imported {
		t.Errorf("last row %s imported %v; want the imported %s", last.Contract.ID, last.Imported, imp.ID)
	}
	for _, r := range all[:12] {
		if r.Imported {
			t.Errorf("row %d imported", r.Row)
		}
	}
	filter := func(parties []daml.Party, keys []scan.TemplateKey) []scan.SnapshotRow {
		var out []scan.SnapshotRow
		for _, r := range all {
			if len(parties) > 0 && !slices.ContainsFunc(r.Contract.Stakeholders(), func(p daml.Party) bool { return slices.Contains(parties, p) }) {
				continue
			}
			if len(keys) > 0 && !slices.Contains(keys, scan.KeyOf(r.Contract.Template)) {
				continue
			}
			out = append(out, r)
		}
		return out
	}
	key := scan.KeyOf
	for _, tc := range []struct {
		name    string
		parties []daml.Party
		keys    []scan.TemplateKey
	}{
		{"no filter", nil, nil},
		{"one party", []daml.Party{alice}, nil},
		{"a party that is only an observer somewhere", []daml.Party{bob}, nil},
		{"the DSO party", []daml.Party{dso}, nil},
		{"two parties, a contract of both once", []daml.Party{alice, bob}, nil},
		{"unknown party", []daml.Party{"nobody::1220"}, nil},
		{"one template, every version", nil, []scan.TemplateKey{key(amulet)}},
		{"two templates", nil, []scan.TemplateKey{key(otherAmulet), key(locked)}},
		{"party and template", []daml.Party{carol}, []scan.TemplateKey{key(locked)}},
		{"parties and templates", []daml.Party{carol, bob}, []scan.TemplateKey{key(locked), key(amulet)}},
	} {
		want := filter(tc.parties, tc.keys)
		for _, limit := range []int{2, 100} {
			got := snapshotRows(t, s, scan.SnapshotQuery{Snapshot: snap, Limit: limit, Parties: tc.parties, Templates: tc.keys})
			if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
				t.Errorf("%s, limit %d (-want +got):\n%s", tc.name, limit, diff)
			}
		}
		if len(want) < 2 {
			continue
		}
		// After is exclusive, and pages end at the snapshot's last row.
		got, err := s.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: snap, After: want[0].Row, Limit: 1, Parties: tc.parties, Templates: tc.keys})
		if err != nil || len(got) != 1 || got[0].Row != want[1].Row {
			t.Errorf("%s: page after row %d = %v, %v; want row %d", tc.name, want[0].Row, got, err, want[1].Row)
		}
		got, err = s.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: snap, After: want[len(want)-1].Row, Limit: 10, Parties: tc.parties, Templates: tc.keys})
		if err != nil || len(got) != 0 {
			t.Errorf("%s: page after the last row = %v, %v; want none", tc.name, got, err)
		}
	}
	// A later snapshot's rows stay out of this one's pages.
	g.ingest(supd{mig: 1, rt: t0 + 10, creates: []create{owned(alice, amulet)}})
	later, err := s.BuildSnapshot(ctx, 1, t0+10, 3)
	if err != nil {
		t.Fatal(err)
	}
	if later.Contracts() != 14 {
		t.Errorf("later snapshot holds %d contracts; want 14", later.Contracts())
	}
	again := snapshotRows(t, s, scan.SnapshotQuery{Snapshot: snap, Limit: 5, Parties: []daml.Party{alice}})
	if diff := cmp.Diff(filter([]daml.Party{alice}, nil), again, cmpOpts...); diff != "" {
		t.Errorf("first snapshot after another (-want +got):\n%s", diff)
	}
}

func testScanReopen(t *testing.T, s scan.Store, reopen func(t *testing.T, s scan.Store) scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	before := g.ingest(supd{rt: t0, creates: []create{owned(alice, amulet)}}, supd{rt: t0 + 10})
	snap, err := s.BuildSnapshot(ctx, 0, t0+10, 10)
	if err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s)
	if c, err := s.Cursor(ctx); err != nil || c != g.cur {
		t.Errorf("Cursor after reopen = %+v, %v; want %+v", c, err, g.cur)
	}
	if b, err := s.Backfilling(ctx); err != nil || !b.Complete {
		t.Errorf("Backfilling after reopen = %+v, %v; want complete", b, err)
	}
	if got, err := s.LatestSnapshot(ctx); err != nil || got != snap {
		t.Errorf("LatestSnapshot after reopen = %+v, %v; want %+v", got, err, snap)
	}
	// Ingestion resumes from the stored cursor.
	g.s = s
	after := g.ingest(supd{rt: t0 + 20})
	got, err := s.History(ctx, scan.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(slices.Concat(before, after), got, cmpOpts...); diff != "" {
		t.Errorf("History after reopen (-want +got):\n%s", diff)
	}
	snap2, err := s.BuildSnapshot(ctx, 0, t0+20, 10)
	if err != nil {
		t.Fatal(err)
	}
	if snap2.FirstRow <= snap.LastRow {
		t.Errorf("snapshot after reopen %+v overlaps %+v", snap2, snap)
	}
	if ids := snapshotIDs(t, s, snap2); len(ids) != 1 {
		t.Errorf("snapshot after reopen holds %v; want 1 contract", ids)
	}
	if err := s.Ingest(ctx, scan.Cursor{}, scan.Cursor{Offset: 1}, nil); !fault.Is(err, fault.Aborted) {
		t.Errorf("Ingest from offset 0 after reopen = %v; want Aborted", err)
	}
}

// testScanReassignments stores an unassignment and an assignment of a DSO
// contract between two transactions: both are history rows in (migration,
// record time) order, readable by id and by UpdatesBefore on their own
// synchronizer, counted in that synchronizer's record-time range, and the
// assignment moves the contract (synchronizer, counter) in the active
// contract set without archiving it.
func testScanReassignments(t *testing.T, s scan.Store) {
	ctx := t.Context()
	g := newScanIngester(t, s)
	created := g.ingest(supd{rt: t0, creates: []create{owned(dso, amulet)}})[0]
	c := created.Created[0]
	moved := *c
	moved.Synchronizer, moved.ReassignmentCounter = sync2.ID, 1
	r := func(kind ledger.ReassignmentKind, rt daml.Timestamp, k *ledger.Contract) *ledger.Reassignment {
		return &ledger.Reassignment{
			Kind: kind, UpdateID: "1220" + hexID(fmt.Sprintf("reassign/%d", kind)),
			Source: sync1.ID, Target: sync2.ID, RecordTime: rt, UnassignID: "0x" + hexID("unassign"),
			Counter: 1, Contract: k, Submitter: dso, CommandID: "move",
		}
	}
	un, as := r(ledger.Unassigned, t0+10, c), r(ledger.Assigned, t0+11, &moved)
	next := g.cur
	next.Offset += 2
	next.Watermark = t0 + 11
	moves := []scan.Update{{Offset: g.cur.Offset + 1, Reassignment: un}, {Offset: g.cur.Offset + 2, Reassignment: as}}
	if err := s.Ingest(ctx, g.cur, next, moves); err != nil {
		t.Fatalf("ingest the reassignment: %v", err)
	}
	g.cur = next
	later := g.ingest(supd{rt: t0 + 20})[0]

	hist, err := s.History(ctx, scan.HistoryQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := []string{created.UpdateID(), un.UpdateID, as.UpdateID, later.UpdateID()}
	if diff := cmp.Diff(wantIDs, updateIDs(hist)); diff != "" {
		t.Fatalf("History (-want +got):\n%s", diff)
	}
	for i, want := range []*ledger.Reassignment{un, as} {
		got := hist[i+1]
		if got.Transaction != nil || len(got.Created) > 0 || len(got.Archived) > 0 || got.Offset != moves[i].Offset {
			t.Errorf("history row %s: %+v", want.UpdateID, got)
		}
		if diff := cmp.Diff(want, got.Reassignment, cmpOpts...); diff != "" {
			t.Errorf("History's %s (-want +got):\n%s", want.UpdateID, diff)
		}
		byID, err := s.Update(ctx, want.UpdateID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, byID.Reassignment, cmpOpts...); diff != "" {
			t.Errorf("Update(%s) (-want +got):\n%s", want.UpdateID, diff)
		}
	}
	after, err := s.History(ctx, scan.HistoryQuery{After: &scan.HistoryPosition{RecordTime: t0 + 10}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantIDs[2:], updateIDs(after)); diff != "" {
		t.Errorf("History after the unassignment (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		sync ledger.SynchronizerID
		want []string
	}{
		{sync1.ID, []string{later.UpdateID(), un.UpdateID, created.UpdateID()}},
		{sync2.ID, []string{as.UpdateID}},
	} {
		got, err := s.UpdatesBefore(ctx, scan.BeforeQuery{Synchronizer: tc.sync, Before: t0 + 100, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, updateIDs(got)); diff != "" {
			t.Errorf("UpdatesBefore(%s) (-want +got):\n%s", tc.sync, diff)
		}
	}
	ms, err := s.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ranges := []scan.RecordTimeRange{
		{Synchronizer: sync1.ID, Min: t0, Max: t0 + 20},
		{Synchronizer: sync2.ID, Min: t0 + 11, Max: t0 + 11},
	}
	slices.SortFunc(ranges, func(a, b scan.RecordTimeRange) int {
		return strings.Compare(string(a.Synchronizer), string(b.Synchronizer))
	})
	if diff := cmp.Diff([]scan.Migration{{ID: 0, Ranges: ranges, HasUpdates: true}}, ms, cmpOpts...); diff != "" {
		t.Errorf("Migrations (-want +got):\n%s", diff)
	}
	got, active, err := s.Contract(ctx, c.ID)
	if err != nil || !active {
		t.Fatalf("Contract(%s) = active %v, %v", c.ID, active, err)
	}
	if got.Synchronizer != sync2.ID || got.ReassignmentCounter != 1 {
		t.Errorf("the contract is on %s with counter %d, want %s and 1", got.Synchronizer, got.ReassignmentCounter, sync2.ID)
	}
	acs, err := s.ActiveContracts(ctx, scan.ContractQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(acs) != 1 || acs[0].ID != c.ID || acs[0].Synchronizer != sync2.ID {
		t.Errorf("ActiveContracts = %v, want the moved contract", ids(acs))
	}

	// The assignment of a contract created before the history began: it
	// joins the active contract set, with no creating update here.
	early := &ledger.Contract{
		ID: daml.ContractID("00" + hexID("early")), Template: amulet, Argument: argument(owned(dso, amulet)),
		Signatories: []daml.Party{dso}, CreatedAt: t0 - 1000, CreatedBy: "1220" + hexID("before the history"),
		Synchronizer: sync2.ID, ReassignmentCounter: 3,
	}
	arrive := r(ledger.Assigned, t0+30, early)
	arrive.UpdateID, arrive.Counter = "1220"+hexID("early arrives"), 3
	next = g.cur
	next.Offset++
	next.Watermark = t0 + 30
	if err := s.Ingest(ctx, g.cur, next, []scan.Update{{Offset: next.Offset, Reassignment: arrive}}); err != nil {
		t.Fatalf("ingest the assignment: %v", err)
	}
	g.cur = next
	got, active, err = s.Contract(ctx, early.ID)
	if err != nil || !active || got.Synchronizer != sync2.ID || got.ReassignmentCounter != 3 {
		t.Fatalf("Contract(%s) = %+v active %v, %v: want it active on %s", early.ID, got, active, err, sync2.ID)
	}
	snap, err := s.BuildSnapshot(ctx, 0, t0+30, 10)
	if err != nil {
		t.Fatal(err)
	}
	rows := snapshotRows(t, s, scan.SnapshotQuery{Snapshot: snap, Limit: 10})
	var inSnap []daml.ContractID
	for _, row := range rows {
		inSnap = append(inSnap, row.Contract.ID)
		if row.Contract.ID == early.ID && !row.Imported {
			t.Errorf("the assigned contract %s has a creating update in the snapshot", early.ID)
		}
	}
	if diff := cmp.Diff([]daml.ContractID{early.ID, c.ID}, inSnap); diff != "" {
		t.Errorf("snapshot after the assignment (-want +got):\n%s", diff)
	}
}
