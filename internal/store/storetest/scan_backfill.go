package storetest

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// testScanBeginHistory checks how BeginHistory, the first Ingest and
// SetBackfilling fix and raise the backfilling flags, each case on a
// fresh store.
func testScanBeginHistory(t *testing.T, open func(t *testing.T) scan.Store) {
	complete := scan.Backfilling{Complete: true, ImportUpdatesComplete: true}
	// ingestAt ingests one update as the first batch of a participant
	// stream read from offset from (0: the beginning).
	ingestAt := func(from ledger.Offset) func(t *testing.T, s scan.Store) {
		return func(t *testing.T, s scan.Store) {
			t.Helper()
			cur, err := s.Cursor(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if cur.Offset == 0 {
				cur.Offset = from
			}
			next := scan.Cursor{Offset: cur.Offset + 1, Watermark: t0 + daml.Timestamp(cur.Offset+1)}
			u := scanUpd(next.Offset, supd{rt: next.Watermark})
			if err := s.Ingest(t.Context(), cur, next, []scan.Update{u}); err != nil {
				t.Fatalf("ingest: %v", err)
			}
		}
	}
	begin := func(c bool) func(t *testing.T, s scan.Store) {
		return func(t *testing.T, s scan.Store) {
			t.Helper()
			if err := s.BeginHistory(t.Context(), c, scan.HistoryPosition{}); err != nil {
				t.Fatalf("BeginHistory(%v): %v", c, err)
			}
		}
	}
	raise := func(b scan.Backfilling) func(t *testing.T, s scan.Store) {
		return func(t *testing.T, s scan.Store) {
			t.Helper()
			if err := s.SetBackfilling(t.Context(), b); err != nil {
				t.Fatalf("SetBackfilling(%+v): %v", b, err)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		steps []func(t *testing.T, s scan.Store)
		want  scan.Backfilling
	}{
		{"never begun, nothing ingested", nil, scan.Backfilling{}},
		{"first Ingest of a never-begun store is complete", []func(*testing.T, scan.Store){ingestAt(0)}, complete},
		{"first Ingest of a never-begun store from a later offset is incomplete", []func(*testing.T, scan.Store){ingestAt(41)}, scan.Backfilling{}},
		{"BeginHistory(true) alone", []func(*testing.T, scan.Store){begin(true)}, complete},
		{"BeginHistory(false) alone", []func(*testing.T, scan.Store){begin(false)}, scan.Backfilling{}},
		{"BeginHistory(false) then Ingest stays incomplete", []func(*testing.T, scan.Store){begin(false), ingestAt(0), ingestAt(0)}, scan.Backfilling{}},
		{"BeginHistory(true) then Ingest from a later offset stays complete", []func(*testing.T, scan.Store){begin(true), ingestAt(41)}, complete},
		{"BeginHistory is idempotent", []func(*testing.T, scan.Store){begin(false), begin(false), ingestAt(0)}, scan.Backfilling{}},
		{"the first BeginHistory fixes the flags", []func(*testing.T, scan.Store){begin(false), begin(true)}, scan.Backfilling{}},
		{"BeginHistory after Ingest changes nothing", []func(*testing.T, scan.Store){ingestAt(0), begin(false)}, complete},
		{"BeginHistory after a late Ingest changes nothing", []func(*testing.T, scan.Store){ingestAt(41), begin(true)}, scan.Backfilling{}},
		{"SetBackfilling raises each flag", []func(*testing.T, scan.Store){begin(false), ingestAt(0),
			raise(scan.Backfilling{ImportUpdatesComplete: true})}, scan.Backfilling{ImportUpdatesComplete: true}},
		{"SetBackfilling raises both flags", []func(*testing.T, scan.Store){begin(false), ingestAt(0),
			raise(scan.Backfilling{ImportUpdatesComplete: true}), raise(scan.Backfilling{Complete: true})}, complete},
		{"SetBackfilling never lowers", []func(*testing.T, scan.Store){ingestAt(0), raise(scan.Backfilling{})}, complete},
		{"SetBackfilling never lowers one flag", []func(*testing.T, scan.Store){begin(false), raise(scan.Backfilling{Complete: true}),
			raise(scan.Backfilling{ImportUpdatesComplete: true}), raise(scan.Backfilling{})}, complete},
		{"a flag raised before the first Ingest stays", []func(*testing.T, scan.Store){raise(scan.Backfilling{Complete: true}), ingestAt(41)},
			scan.Backfilling{Complete: true}},
		{"a flag raised before BeginHistory stays", []func(*testing.T, scan.Store){raise(scan.Backfilling{Complete: true}), begin(false), ingestAt(0)},
			scan.Backfilling{Complete: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			for _, step := range tc.steps {
				step(t, s)
			}
			if b, err := s.Backfilling(t.Context()); err != nil || b != tc.want {
				t.Errorf("Backfilling = %+v, %v; want %+v", b, err, tc.want)
			}
		})
	}

	// The first BeginHistory also fixes where a late history starts.
	t.Run("start", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		s := open(t)
		start := scan.HistoryPosition{Migration: 2, RecordTime: t0 + 99}
		if err := s.BeginHistory(ctx, false, start); err != nil {
			t.Fatal(err)
		}
		if err := s.BeginHistory(ctx, false, scan.HistoryPosition{Migration: 3, RecordTime: t0}); err != nil {
			t.Fatal(err)
		}
		if b, err := s.Backfilling(ctx); err != nil || b.Start != start {
			t.Errorf("Backfilling = %+v, %v; want the first start %+v", b, err, start)
		}
	})

	// BeginHistory leaves the cursor at zero: the first Ingest, from prev
	// 0, succeeds, and the compare-and-swap holds from then on.
	t.Run("cursor", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		s := open(t)
		begin(false)(t, s)
		if c, err := s.Cursor(ctx); err != nil || c != (scan.Cursor{}) {
			t.Fatalf("Cursor after BeginHistory = %+v, %v; want zero", c, err)
		}
		next := scan.Cursor{Offset: 7, Watermark: t0, Migration: 1}
		if err := s.Ingest(ctx, scan.Cursor{}, next, []scan.Update{scanUpd(7, supd{mig: 1, rt: t0})}); err != nil {
			t.Fatalf("first Ingest after BeginHistory: %v", err)
		}
		if err := s.Ingest(ctx, scan.Cursor{}, scan.Cursor{Offset: 8}, nil); !fault.Is(err, fault.Aborted) {
			t.Errorf("Ingest(prev 0) after the first = %v; want Aborted", err)
		}
		if c, _ := s.Cursor(ctx); c != next {
			t.Errorf("Cursor = %+v; want %+v", c, next)
		}
	})
}

// testScanBackfillSkips checks that Backfill skips updates already stored
// (by Ingest or an earlier Backfill, or twice in one batch) and stores
// nothing of a batch that fails.
func testScanBackfillSkips(t *testing.T, s scan.Store) {
	ctx := t.Context()
	if err := s.BeginHistory(ctx, false, scan.HistoryPosition{}); err != nil {
		t.Fatal(err)
	}
	old := []scan.Update{
		scanUpd(0, supd{rt: t0, creates: []create{owned(alice, amulet)}}),
		scanUpd(0, supd{rt: t0 + 10, creates: []create{owned(bob, amulet)}}),
	}
	g := newScanIngester(t, s)
	live := g.ingest(supd{rt: t0 + 20, archives: []daml.ContractID{old[0].Created[0].ID}})
	if err := s.Backfill(ctx, []scan.Update{old[1], old[0], old[1], live[0]}); err != nil {
		t.Fatal(err)
	}
	if err := s.Backfill(ctx, old); err != nil {
		t.Fatal(err)
	}
	got, err := s.History(ctx, scan.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Concat(old, live)
	if diff := cmp.Diff(want, got, slices.Concat(cmpOpts, []cmp.Option{cmpopts.IgnoreFields(scan.Update{}, "Offset")})...); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
	if _, active, err := s.Contract(ctx, old[0].Created[0].ID); err != nil || active {
		t.Errorf("the contract archived live before its creation was backfilled: active %v, %v; want archived", active, err)
	}
	if _, active, err := s.Contract(ctx, old[1].Created[0].ID); err != nil || !active {
		t.Errorf("backfilled contract: active %v, %v; want active", active, err)
	}
	// A batch with an update without a transaction stores nothing.
	fresh := scanUpd(0, supd{rt: t0 - 10, creates: []create{owned(alice, locked)}})
	if err := s.Backfill(ctx, []scan.Update{fresh, {}}); !fault.Is(err, fault.InvalidArgument) {
		t.Errorf("Backfill of an empty update = %v; want InvalidArgument", err)
	}
	if _, err := s.Update(ctx, fresh.UpdateID()); !fault.Is(err, fault.NotFound) {
		t.Errorf("update of a failed Backfill stored: %v", err)
	}
	if b, err := s.Backfilling(ctx); err != nil || b != (scan.Backfilling{}) {
		t.Errorf("Backfilling = %+v, %v; want incomplete (Backfill does not raise it)", b, err)
	}
}

// backfillHistory is a history for the convergence test: the updates of
// migration 0, migration 1's import updates (what the Ingester builds
// from the store's active contracts), and migration 1's other updates, in
// offset order; and every contract ever created.
type backfillHistory struct {
	m0, imports, m1 []scan.Update
	contracts       []daml.ContractID
	// times are record times to take snapshots at, per migration.
	times map[int64][]daml.Timestamp
}

// historyGen makes a random history of the DSO party's updates on two
// synchronizers: creates (owned by alice or bob, or by the DSO party),
// archives of contracts created any time before, contracts created and
// archived in one transaction, and reassignments (an unassignment and the
// assignment that follows, moving a contract to the other synchronizer).
type historyGen struct {
	rng    *rand.Rand
	rt     daml.Timestamp
	n      int
	off    ledger.Offset
	active []daml.ContractID // in creation order
	bodies map[daml.ContractID]*ledger.Contract
	all    []daml.ContractID
}

// next returns the next update or reassignment pair of migration mig.
func (g *historyGen) next(mig int64) []scan.Update {
	g.n++
	g.rt += daml.Timestamp(1 + g.rng.Intn(20))
	syncs := []ledger.SynchronizerID{sync1.ID, sync2.ID}
	if len(g.active) > 0 && g.rng.Intn(100) < 12 {
		id := g.active[g.rng.Intn(len(g.active))]
		c := g.bodies[id]
		target := syncs[0]
		if c.Synchronizer == target {
			target = syncs[1]
		}
		moved := *c
		moved.Synchronizer, moved.ReassignmentCounter = target, c.ReassignmentCounter+1
		r := func(kind ledger.ReassignmentKind, rt daml.Timestamp, k *ledger.Contract) *ledger.Reassignment {
			return &ledger.Reassignment{
				Kind: kind, UpdateID: "1220" + hexID(fmt.Sprintf("backfill/reassign/%d/%d", g.n, kind)),
				Source: c.Synchronizer, Target: target, MigrationID: mig, RecordTime: rt,
				UnassignID: "0x" + hexID(fmt.Sprintf("backfill/unassign/%d", g.n)),
				Counter:    moved.ReassignmentCounter, Contract: k, Submitter: dso, CommandID: "move" + strconv.Itoa(g.n),
			}
		}
		un := r(ledger.Unassigned, g.rt, c)
		g.rt++
		as := r(ledger.Assigned, g.rt, &moved)
		g.bodies[id] = &moved
		g.off += 2
		return []scan.Update{{Offset: g.off - 1, Reassignment: un}, {Offset: g.off, Reassignment: as}}
	}
	sync := syncs[g.rng.Intn(2)]
	u := supd{mig: mig, rt: g.rt, sync: sync, tag: "backfill/" + strconv.Itoa(g.n)}
	owners := []daml.Party{alice, bob, dso}
	tmpls := []ledger.TemplateID{amulet, locked}
	for range g.rng.Intn(3) {
		u.creates = append(u.creates, owned(owners[g.rng.Intn(3)], tmpls[g.rng.Intn(2)]))
	}
	transient := g.rng.Intn(10) == 0
	if transient {
		u.creates = append(u.creates, owned(dso, amulet))
	}
	if g.rng.Intn(100) < 45 {
		var here []daml.ContractID
		for _, id := range g.active {
			if g.bodies[id].Synchronizer == sync {
				here = append(here, id)
			}
		}
		g.rng.Shuffle(len(here), func(i, j int) { here[i], here[j] = here[j], here[i] })
		u.archives = here[:min(len(here), 1+g.rng.Intn(3))]
	}
	g.off++
	out := scanUpd(g.off, u)
	for _, id := range u.archives {
		g.active = slices.DeleteFunc(g.active, func(a daml.ContractID) bool { return a == id })
	}
	for i, c := range out.Created {
		g.all = append(g.all, c.ID)
		if transient && i == len(out.Created)-1 {
			// Created and archived in the same transaction.
			out.Archived = append(slices.Clone(out.Archived), c.ID)
			continue
		}
		g.active = append(g.active, c.ID)
		g.bodies[c.ID] = c
	}
	return []scan.Update{out}
}

// ingestAll ingests us into s in random-sized batches from its cursor.
func ingestAll(t *testing.T, rng *rand.Rand, s scan.Store, us []scan.Update) {
	t.Helper()
	ctx := t.Context()
	for len(us) > 0 {
		n := min(len(us), 1+rng.Intn(30))
		batch := us[:n]
		us = us[n:]
		prev, err := s.Cursor(ctx)
		if err != nil {
			t.Fatal(err)
		}
		next := prev
		for _, u := range batch {
			next.Offset = max(next.Offset, u.Offset)
			if !u.Import {
				next.Watermark = max(next.Watermark, u.RecordTime())
			}
			next.Migration = max(next.Migration, u.MigrationID())
		}
		if err := s.Ingest(ctx, prev, next, batch); err != nil {
			t.Fatalf("ingest: %v", err)
		}
	}
}

// backfillFixture makes a history of a few hundred updates over two
// migrations and ingests it, in order, into a, as a Scan that ingested
// from the network's start does (the import updates of migration 1 built
// from a's active contracts, as the Ingester builds them).
func backfillFixture(t *testing.T, seed int64, a scan.Store) backfillHistory {
	ctx := t.Context()
	rng := rand.New(rand.NewSource(seed))
	g := &historyGen{rng: rng, rt: t0, bodies: map[daml.ContractID]*ledger.Contract{}}
	h := backfillHistory{times: map[int64][]daml.Timestamp{}}
	for len(h.m0) < 150 {
		h.m0 = append(h.m0, g.next(0)...)
	}
	ingestAll(t, rng, a, h.m0)
	acs, err := a.ActiveContracts(ctx, scan.ContractQuery{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(acs, func(a, b *ledger.Contract) int { return strings.Compare(string(a.ID), string(b.ID)) })
	for _, c := range acs {
		h.imports = append(h.imports, scan.Update{Import: true, Created: []*ledger.Contract{c}, Transaction: &ledger.Transaction{
			UpdateID: string(c.ID), WorkflowID: scan.ImportWorkflowPrefix + string(c.ID), MigrationID: 1,
			Synchronizer: c.Synchronizer, RecordTime: daml.MinTimestamp, EffectiveAt: c.CreatedAt,
			Roots: []int32{0}, Events: []ledger.Event{{NodeID: 0, Created: c, Witnesses: []daml.Party{dso}}},
		}})
	}
	cur, err := a.Cursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := cur
	next.Migration = 1
	if err := a.Ingest(ctx, cur, next, h.imports); err != nil {
		t.Fatalf("ingest the import updates: %v", err)
	}
	for len(h.m1) < 150 {
		h.m1 = append(h.m1, g.next(1)...)
	}
	ingestAll(t, rng, a, h.m1)
	h.contracts = g.all
	for _, m := range []struct {
		id int64
		us []scan.Update
	}{{0, h.m0}, {1, h.m1}} {
		for _, i := range []int{0, len(m.us) / 3, len(m.us) / 2, len(m.us) - 1} {
			h.times[m.id] = append(h.times[m.id], m.us[i].RecordTime())
		}
	}
	h.times[1] = append(h.times[1], daml.MinTimestamp) // the import updates alone
	return h
}

// testScanBackfillConverges checks the heart of backfilling: a Scan that
// joins late (BeginHistory(false)), ingests from its joining update on and
// backfills what came before from peers, newest first, in batches of
// random sizes interleaved with its live ingestion, ends up with the same
// history, contracts and snapshots as a Scan that ingested everything in
// order.
func testScanBackfillConverges(t *testing.T, open func(t *testing.T) scan.Store, seed int64) {
	ctx := t.Context()
	a, b := open(t), open(t)
	h := backfillFixture(t, seed, a)
	rng := rand.New(rand.NewSource(seed + 1000))

	// b joins in migration 1, after its import updates.
	join := len(h.m1)/5 + rng.Intn(len(h.m1)/5)
	for h.m1[join].Reassignment != nil && h.m1[join].Reassignment.Kind == ledger.Assigned {
		join++ // not between the halves of a reassignment
	}
	prefix, suffix := slices.Concat(h.m0, h.m1[:join]), h.m1[join:]
	if err := b.BeginHistory(ctx, false, scan.HistoryPosition{}); err != nil {
		t.Fatal(err)
	}
	var chunks [][]scan.Update
	for len(suffix) > 0 {
		n := min(len(suffix), 1+rng.Intn(len(h.m1)/4))
		chunks, suffix = append(chunks, suffix[:n]), suffix[n:]
	}
	live := func() {
		if len(chunks) > 0 {
			ingestAll(t, rng, b, chunks[0])
			chunks = chunks[1:]
		}
	}
	live()
	live()

	// Peers send updates newest first, without offsets.
	var batches [][]scan.Update
	for i := len(prefix); i > 0; {
		n := min(i, 1+rng.Intn(40))
		batch := slices.Clone(prefix[i-n : i])
		slices.Reverse(batch)
		for k := range batch {
			batch[k].Offset = 0
		}
		batches = append(batches, batch)
		i -= n
	}
	importsAt := rng.Intn(len(batches) + 1)
	backfillImports := func() {
		for imps := h.imports; len(imps) > 0; {
			n := min(len(imps), 1+rng.Intn(25))
			if err := b.Backfill(ctx, imps[:n]); err != nil {
				t.Fatalf("backfill import updates: %v", err)
			}
			imps = imps[n:]
		}
	}
	for i, batch := range batches {
		if i == importsAt {
			backfillImports()
		}
		if err := b.Backfill(ctx, batch); err != nil {
			t.Fatalf("backfill batch %d: %v", i, err)
		}
		if rng.Intn(3) == 0 {
			live()
		}
	}
	if importsAt == len(batches) {
		backfillImports()
	}
	// A batch backfilled again is skipped.
	before, err := b.History(ctx, scan.HistoryQuery{Imports: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Backfill(ctx, batches[rng.Intn(len(batches))]); err != nil {
		t.Fatalf("backfill a batch again: %v", err)
	}
	if after, err := b.History(ctx, scan.HistoryQuery{Imports: true}); err != nil || len(after) != len(before) {
		t.Errorf("History after a batch backfilled again has %d updates, %v; want %d", len(after), err, len(before))
	}
	for len(chunks) > 0 {
		live()
	}
	if got, err := b.Backfilling(ctx); err != nil || got != (scan.Backfilling{}) {
		t.Errorf("Backfilling before SetBackfilling = %+v, %v; want incomplete", got, err)
	}
	if err := b.SetBackfilling(ctx, scan.Backfilling{Complete: true, ImportUpdatesComplete: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []scan.Store{a, b} {
		if got, err := s.Backfilling(ctx); err != nil || got != (scan.Backfilling{Complete: true, ImportUpdatesComplete: true}) {
			t.Errorf("Backfilling = %+v, %v; want complete", got, err)
		}
	}
	compareScans(t, a, b, h)
}

// noOffsets clears the offsets of the updates v holds.
func noOffsets(v any) {
	clear := func(us []scan.Update) {
		for i := range us {
			us[i].Offset = 0
		}
	}
	switch v := v.(type) {
	case *scan.Update:
		v.Offset = 0
	case []scan.Update:
		clear(v)
	case [][]scan.Update:
		for _, us := range v {
			clear(us)
		}
	}
}

// compareScans checks that b serves what a does. Offsets are left out:
// each Scan's are its own participant's (and backfilled updates have
// none).
func compareScans(t *testing.T, a, b scan.Store, h backfillHistory) {
	ctx := t.Context()
	opts := append(slices.Clone(cmpOpts), cmpopts.IgnoreFields(scan.Update{}, "Offset"))
	same := func(what string, read func(s scan.Store) (any, error)) {
		t.Helper()
		want, err := read(a)
		if err != nil {
			t.Fatalf("%s of the in-order Scan: %v", what, err)
		}
		got, err := read(b)
		if err != nil {
			t.Fatalf("%s of the backfilled Scan: %v", what, err)
		}
		noOffsets(want)
		noOffsets(got)
		if reflect.DeepEqual(want, got) {
			return // cmp.Diff takes long on a few hundred updates
		}
		if diff := cmp.Diff(want, got, opts...); diff != "" {
			t.Errorf("%s (-in order +backfilled):\n%s", what, diff)
		}
	}
	all := slices.Concat(h.m0, h.imports, h.m1)
	for _, imports := range []bool{false, true} {
		same(fmt.Sprintf("History (imports %v)", imports), func(s scan.Store) (any, error) {
			return s.History(ctx, scan.HistoryQuery{Imports: imports})
		})
	}
	// Page through the history without imports (record times are distinct).
	same("History pages", func(s scan.Store) (any, error) {
		var out [][]scan.Update
		q := scan.HistoryQuery{Limit: 17}
		for range len(all) {
			page, err := s.History(ctx, q)
			if err != nil || len(page) == 0 {
				return out, err
			}
			out = append(out, page)
			last := page[len(page)-1]
			q.After = &scan.HistoryPosition{Migration: last.MigrationID(), RecordTime: last.RecordTime()}
		}
		return out, nil
	})
	if got, err := b.History(ctx, scan.HistoryQuery{Imports: true}); err != nil || len(got) != len(all) {
		t.Errorf("the backfilled Scan holds %d updates, %v; want %d", len(got), err, len(all))
	}
	for _, u := range all {
		same("Update("+u.UpdateID()+")", func(s scan.Store) (any, error) { return s.Update(ctx, u.UpdateID()) })
	}
	minTime := daml.MinTimestamp
	for _, m := range []int64{0, 1} {
		for _, sync := range []ledger.SynchronizerID{sync1.ID, sync2.ID} {
			q := scan.BeforeQuery{Migration: m, Synchronizer: sync, Before: h.m1[len(h.m1)-1].RecordTime() + 1}
			same(fmt.Sprintf("UpdatesBefore(%d, %s)", m, sync), func(s scan.Store) (any, error) { return s.UpdatesBefore(ctx, q) })
			q.AtOrAfter, q.Limit = &minTime, 1000
			same(fmt.Sprintf("UpdatesBefore(%d, %s) with imports", m, sync), func(s scan.Store) (any, error) { return s.UpdatesBefore(ctx, q) })
		}
		same(fmt.Sprintf("ImportUpdates(%d)", m), func(s scan.Store) (any, error) { return s.ImportUpdates(ctx, m, "", 0) })
	}
	same("Migrations", func(s scan.Store) (any, error) { return s.Migrations(ctx) })
	same("ActiveContracts", func(s scan.Store) (any, error) { return s.ActiveContracts(ctx, scan.ContractQuery{}) })
	same("ActiveContracts of a template", func(s scan.Store) (any, error) {
		return s.ActiveContracts(ctx, scan.ContractQuery{Templates: []scan.TemplateKey{scan.KeyOf(locked)}, Limit: 20})
	})
	type held struct {
		C      *ledger.Contract
		Active bool
	}
	for _, id := range h.contracts {
		same("Contract("+string(id)+")", func(s scan.Store) (any, error) {
			c, active, err := s.Contract(ctx, id)
			return held{c, active}, err
		})
	}
	type row struct {
		Row      int64
		ID       daml.ContractID
		Imported bool
		Contract *ledger.Contract
	}
	for _, m := range []int64{0, 1} {
		for _, at := range h.times[m] {
			same(fmt.Sprintf("snapshot of migration %d at %d", m, at), func(s scan.Store) (any, error) {
				snap, err := s.BuildSnapshot(ctx, m, at, 7)
				if err != nil {
					return nil, err
				}
				var out []row
				for _, r := range snapshotRows(t, s, scan.SnapshotQuery{Snapshot: snap, Limit: 13}) {
					out = append(out, row{r.Row - snap.FirstRow, r.Contract.ID, r.Imported, r.Contract})
				}
				return out, nil
			})
		}
	}
}

// testScanBackfillConcurrentIngest races Backfill with Ingest: live
// archives of contracts whose creations are being backfilled at the same
// time. Whichever comes first, every contract ends up archived (neither
// misses the other's uncommitted row or orphaned archive).
func testScanBackfillConcurrentIngest(t *testing.T, s scan.Store) {
	ctx := t.Context()
	if err := s.BeginHistory(ctx, false, scan.HistoryPosition{}); err != nil {
		t.Fatal(err)
	}
	// Both walk the contracts newest first: the backfill in batches, the
	// live archives one per Ingest.
	const n, batch = 200, 100
	var creations, archives []scan.Update
	for i := range n {
		c := scanUpd(0, supd{rt: t0 + daml.Timestamp(i), tag: fmt.Sprint(i), creates: []create{owned(dso, amulet)}})
		creations = append(creations, c)
	}
	for i := range n {
		// In a later migration: the two share no record-time range or
		// migration row whose lock would serialise them anyway.
		archives = append(archives, scanUpd(ledger.Offset(i+1), supd{mig: 1, rt: t0 + 1000 + daml.Timestamp(i), tag: fmt.Sprint(i),
			archives: []daml.ContractID{creations[n-1-i].Created[0].ID}}))
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() {
		for i := n; i > 0 && errs[0] == nil; i -= batch {
			errs[0] = s.Backfill(ctx, creations[i-batch:i])
		}
	})
	wg.Go(func() {
		for i := 0; i < n && errs[1] == nil; i++ {
			prev := scan.Cursor{Offset: ledger.Offset(i), Watermark: t0 + 1000 + daml.Timestamp(i-1), Migration: 1}
			if i == 0 {
				prev = scan.Cursor{}
			}
			next := scan.Cursor{Offset: ledger.Offset(i + 1), Watermark: t0 + 1000 + daml.Timestamp(i), Migration: 1}
			errs[1] = s.Ingest(ctx, prev, next, archives[i:i+1])
		}
	})
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range creations {
		if _, active, err := s.Contract(ctx, c.Created[0].ID); err != nil || active {
			t.Errorf("Contract(%s): active %v, %v; want archived", c.Created[0].ID, active, err)
		}
	}
	if acs, err := s.ActiveContracts(ctx, scan.ContractQuery{}); err != nil || len(acs) != 0 {
		t.Errorf("ActiveContracts = %v, %v; want none", ids(acs), err)
	}
}

// testScanBackfillContracts walks through the contract cases of a
// backfill one by one: a contract assigned and one archived live before
// their creations are backfilled, their import updates backfilled before
// their creations (rows then taken over by the creation), and a contract
// created and archived in one backfilled transaction.
func testScanBackfillContracts(t *testing.T, s scan.Store) {
	ctx := t.Context()
	if err := s.BeginHistory(ctx, false, scan.HistoryPosition{}); err != nil {
		t.Fatal(err)
	}
	// Migration 0, to be backfilled: c and d created, e created and
	// archived in one transaction.
	created := scanUpd(0, supd{rt: t0, creates: []create{owned(dso, amulet), owned(alice, locked)}})
	c, d := created.Created[0], created.Created[1]
	transient := scanUpd(0, supd{rt: t0 + 10, creates: []create{owned(dso, amulet)}})
	e := transient.Created[0]
	transient.Archived = []daml.ContractID{e.ID}
	imports := []scan.Update{}
	for _, k := range byCreation(c, d) {
		imports = append(imports, scan.Update{Import: true, Created: []*ledger.Contract{k}, Transaction: &ledger.Transaction{
			UpdateID: string(k.ID), WorkflowID: scan.ImportWorkflowPrefix + string(k.ID), MigrationID: 1,
			Synchronizer: k.Synchronizer, RecordTime: daml.MinTimestamp, EffectiveAt: k.CreatedAt,
			Roots: []int32{0}, Events: []ledger.Event{{NodeID: 0, Created: k, Witnesses: []daml.Party{dso}}},
		}})
	}
	slices.SortFunc(imports, func(a, b scan.Update) int { return strings.Compare(a.UpdateID(), b.UpdateID()) })

	// Live, in migration 1: c moves to sync2, d is archived.
	moved := *c
	moved.Synchronizer, moved.ReassignmentCounter = sync2.ID, 1
	r := func(kind ledger.ReassignmentKind, rt daml.Timestamp, k *ledger.Contract) *ledger.Reassignment {
		return &ledger.Reassignment{
			Kind: kind, UpdateID: "1220" + hexID(fmt.Sprintf("backfill-contracts/%d", kind)), MigrationID: 1,
			Source: sync1.ID, Target: sync2.ID, RecordTime: rt, UnassignID: "0x" + hexID("backfill-contracts"),
			Counter: 1, Contract: k, Submitter: dso, CommandID: "move",
		}
	}
	live := []scan.Update{
		{Offset: 1, Reassignment: r(ledger.Unassigned, t0+100, c)},
		{Offset: 2, Reassignment: r(ledger.Assigned, t0+101, &moved)},
		scanUpd(3, supd{mig: 1, rt: t0 + 110, archives: []daml.ContractID{d.ID}}),
	}
	if err := s.Ingest(ctx, scan.Cursor{}, scan.Cursor{Offset: 3, Watermark: t0 + 110, Migration: 1}, live); err != nil {
		t.Fatal(err)
	}
	contract := func(k *ledger.Contract, want *ledger.Contract, wantActive bool) {
		t.Helper()
		got, active, err := s.Contract(ctx, k.ID)
		if err != nil {
			t.Fatalf("Contract(%s): %v", k.ID, err)
		}
		if active != wantActive {
			t.Errorf("Contract(%s) active = %v; want %v", k.ID, active, wantActive)
		}
		if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
			t.Errorf("Contract(%s) (-want +got):\n%s", k.ID, diff)
		}
	}
	// The assignment brought c (imported); d's archive waits for its row.
	contract(c, &moved, true)
	if _, _, err := s.Contract(ctx, d.ID); !fault.Is(err, fault.NotFound) {
		t.Errorf("Contract(%s) before its creation is backfilled: %v; want NotFound", d.ID, err)
	}
	snapshot := func(m int64, at daml.Timestamp) []scan.SnapshotRow {
		t.Helper()
		snap, err := s.BuildSnapshot(ctx, m, at, 10)
		if err != nil {
			t.Fatal(err)
		}
		return snapshotRows(t, s, scan.SnapshotQuery{Snapshot: snap, Limit: 10})
	}
	if rows := snapshot(1, t0+101); len(rows) != 1 || rows[0].Contract.ID != c.ID || !rows[0].Imported {
		t.Errorf("snapshot at the assignment = %+v; want c, imported", rows)
	}

	// The import updates, newest first: d's row takes its archive.
	if err := s.Backfill(ctx, []scan.Update{imports[1], imports[0]}); err != nil {
		t.Fatal(err)
	}
	contract(c, &moved, true)
	contract(d, d, false)
	// The creations: both rows take their creation's position.
	if err := s.Backfill(ctx, []scan.Update{transient, created}); err != nil {
		t.Fatal(err)
	}
	contract(c, &moved, true)
	contract(d, d, false)
	contract(e, e, false)
	if acs, err := s.ActiveContracts(ctx, scan.ContractQuery{}); err != nil || len(acs) != 1 || acs[0].ID != c.ID {
		t.Errorf("ActiveContracts = %v, %v; want c", ids(acs), err)
	}
	type row struct {
		ID       daml.ContractID
		Imported bool
	}
	rowsOf := func(rows []scan.SnapshotRow) []row {
		var out []row
		for _, r := range rows {
			out = append(out, row{r.Contract.ID, r.Imported})
		}
		return out
	}
	var both []row // c and d, in snapshot order
	for _, k := range byCreation(c, d) {
		both = append(both, row{k.ID, false})
	}
	for _, tc := range []struct {
		m    int64
		at   daml.Timestamp
		want []row
	}{
		{0, t0 - 1, nil},
		{0, t0, both},
		{0, t0 + 10, both}, // e created and archived at once
		{1, daml.MinTimestamp, both},
		{1, t0 + 110, []row{{c.ID, false}}},
	} {
		if diff := cmp.Diff(tc.want, rowsOf(snapshot(tc.m, tc.at)), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("snapshot of migration %d at %d (-want +got):\n%s", tc.m, tc.at, diff)
		}
	}
}
