package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// Exercise runs the conformance suite. open returns a fresh, empty store
// (and arranges for it to be closed when the test ends); reopen closes s
// and returns a store on the same data, as a restarted process would see
// it. Subtests run in parallel, each on a store of its own.
func Exercise(t *testing.T, open func(t *testing.T) ledger.Store, reopen func(t *testing.T, s ledger.Store) ledger.Store) {
	tests := []struct {
		name string
		run  func(t *testing.T, s ledger.Store)
	}{
		{"HeadStartsEmpty", testHeadStartsEmpty},
		{"AppendReadBack", testAppendReadBack},
		{"ReadYourWritesOnlyInside", testReadYourWritesOnlyInside},
		{"ActiveContracts", testActiveContracts},
		{"ActiveContractsPagination", testActiveContractsPagination},
		{"AmountsAtDecimalsEdge", testAmountsAtDecimalsEdge},
		{"Transient", testTransient},
		{"Inactive", testInactive},
		{"DoubleConsume", testDoubleConsume},
		{"WriteRollback", testWriteRollback},
		{"ConcurrentConsume", testConcurrentConsume},
		{"ConcurrentAppends", testConcurrentAppends},
		{"OrderEnforced", testOrderEnforced},
		{"Migration", testMigration},
		{"SetMigration", testSetMigration},
		{"Updates", testUpdates},
		{"UpdatesByParty", testUpdatesByParty},
		{"Prune", testPrune},
		{"PruneRefused", testPruneRefused},
		{"Users", testUsers},
		{"Topology", testTopology},
		{"Reassignment", testReassignment},
		{"Meta", testMeta},
		{"ClockOffset", testClockOffset},
		{"Leader", testLeader},
		{"Completions", testCompletions},
		{"DeduplicationIndex", testDeduplicationIndex},
		{"UpdateByID", testUpdateByID},
		{"ArchivedBy", testArchivedBy},
		{"PartyRecords", testPartyRecords},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
	t.Run("Reopen", func(t *testing.T) {
		t.Parallel()
		testReopen(t, open(t), reopen)
	})
	t.Run("CompletionsReopen", func(t *testing.T) {
		t.Parallel()
		testCompletionsReopen(t, open(t), reopen)
	})
}

func testHeadStartsEmpty(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	h, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ledger.Head{}, h, cmpOpts...); diff != "" {
		t.Errorf("head of an empty store (-want +got):\n%s", diff)
	}
	if n, err := s.CountActiveContracts(ctx); err != nil || n != 0 {
		t.Errorf("CountActiveContracts = %d, %v; want 0", n, err)
	}
	if ps, err := s.Participants(ctx); err != nil || len(ps) != 0 {
		t.Errorf("Participants = %v, %v; want none", ps, err)
	}
	if cs, err := s.ActiveContracts(ctx, ledger.ContractFilter{}); err != nil || len(cs) != 0 {
		t.Errorf("ActiveContracts = %v, %v; want none", cs, err)
	}
	if _, err := s.Transaction(ctx, "1220"+hexID("nope")); !fault.Is(err, fault.NotFound) {
		t.Errorf("Transaction(unknown) error = %v; want NotFound", err)
	}
	if _, _, err := s.Contract(ctx, "00"+daml.ContractID(hexID("nope"))); !fault.Is(err, fault.NotFound) {
		t.Errorf("Contract(unknown) error = %v; want NotFound", err)
	}
}

func testAppendReadBack(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	tx := mustAppend(t, s, spec{
		creates: []create{
			{tmpl: amulet, sig: []daml.Party{dso}, obs: []daml.Party{alice}, amount: "12.5"},
			{tmpl: locked, sig: []daml.Party{dso, alice}, obs: []daml.Party{bob}, amount: "99999999999999999999999999.9999999999"},
		},
		on: []ledger.ParticipantID{par1.ID, par2.ID},
	})

	got, err := s.Transaction(ctx, tx.UpdateID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tx, got, cmpOpts...); diff != "" {
		t.Errorf("transaction read back (-want +got):\n%s", diff)
	}
	for _, c := range tx.Created() {
		gotC, active, err := s.Contract(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !active {
			t.Errorf("contract %s not active", c.ID)
		}
		if diff := cmp.Diff(c, gotC, cmpOpts...); diff != "" {
			t.Errorf("contract read back (-want +got):\n%s", diff)
		}
	}

	h, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.Head{
		Sequence: 1, LastRecordTime: tx.RecordTime,
		Offsets: map[ledger.ParticipantID]ledger.Offset{par1.ID: 1, par2.ID: 1},
	}
	if diff := cmp.Diff(want, h, cmpOpts...); diff != "" {
		t.Errorf("head after one append (-want +got):\n%s", diff)
	}

	for _, p := range []ledger.ParticipantID{par1.ID, par2.ID} {
		us, err := s.Updates(ctx, ledger.UpdateQuery{Participant: p})
		if err != nil {
			t.Fatal(err)
		}
		wantU := []ledger.ParticipantUpdate{{Participant: p, Offset: 1, Transaction: tx}}
		if diff := cmp.Diff(wantU, us, cmpOpts...); diff != "" {
			t.Errorf("updates of %s (-want +got):\n%s", p, diff)
		}
	}
	if n, err := s.CountActiveContracts(ctx); err != nil || n != 2 {
		t.Errorf("CountActiveContracts = %d, %v; want 2", n, err)
	}
}

// testReadYourWritesOnlyInside checks that the write transaction sees its
// own writes (the head it advanced) and that readers see none of them until
// it commits.
func testReadYourWritesOnlyInside(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		h, err := w.Head(ctx)
		if err != nil {
			return err
		}
		tx, offsets := build(h, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
		if err := w.AppendTransaction(ctx, tx, offsets); err != nil {
			return err
		}
		inside, err := w.Head(ctx)
		if err != nil {
			return err
		}
		if inside.Sequence != 2 || inside.Offsets[par1.ID] != 2 || inside.LastRecordTime != tx.RecordTime {
			t.Errorf("head inside the write = %+v; want sequence 2, offset 2, record time %d", inside, tx.RecordTime)
		}
		outside, err := s.Head(ctx)
		if err != nil {
			return err
		}
		if outside.Sequence != 1 || outside.Offsets[par1.ID] != 1 {
			t.Errorf("head outside the uncommitted write = %+v; want sequence 1, offset 1", outside)
		}
		if _, err := s.Transaction(ctx, tx.UpdateID); !fault.Is(err, fault.NotFound) {
			t.Errorf("uncommitted transaction visible to readers: err = %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Head(ctx); h.Sequence != 2 {
		t.Errorf("head after commit: sequence %d, want 2", h.Sequence)
	}
}

func testActiveContracts(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	tx1 := mustAppend(t, s, spec{creates: []create{
		{tmpl: amulet, sig: []daml.Party{dso}, obs: []daml.Party{alice}}, // a1
		{tmpl: locked, sig: []daml.Party{dso}, obs: []daml.Party{bob}},   // l1
		{tmpl: otherAmulet, sig: []daml.Party{alice}},                    // o1
	}})
	a1, l1, o1 := tx1.Created()[0], tx1.Created()[1], tx1.Created()[2]
	tx2 := mustAppend(t, s, spec{creates: []create{
		{tmpl: amuletV2, sig: []daml.Party{bob}},                         // a2 (upgraded package)
		{tmpl: amulet, sig: []daml.Party{alice}, obs: []daml.Party{bob}}, // a3
	}})
	a2, a3 := tx2.Created()[0], tx2.Created()[1]
	// Archive a3; a later page must not show it and a1 stays.
	mustAppend(t, s, spec{consumes: []daml.ContractID{a3.ID}})

	for _, tc := range []struct {
		name string
		f    ledger.ContractFilter
		want []*ledger.Contract
	}{
		{"all", ledger.ContractFilter{}, []*ledger.Contract{a1, l1, o1, a2}},
		{"template by package name, any package id", ledger.ContractFilter{Templates: []ledger.TemplateID{amulet}}, []*ledger.Contract{a1, a2}},
		{"filter given with the upgraded id", ledger.ContractFilter{Templates: []ledger.TemplateID{amuletV2}}, []*ledger.Contract{a1, a2}},
		{"other package name", ledger.ContractFilter{Templates: []ledger.TemplateID{otherAmulet}}, []*ledger.Contract{o1}},
		{"two templates", ledger.ContractFilter{Templates: []ledger.TemplateID{locked, otherAmulet}}, []*ledger.Contract{l1, o1}},
		{"two templates, limit", ledger.ContractFilter{Templates: []ledger.TemplateID{otherAmulet, amulet}, Limit: 2}, []*ledger.Contract{a1, o1}},
		{"two templates, after", ledger.ContractFilter{Templates: []ledger.TemplateID{locked, amulet}, After: l1.ID}, []*ledger.Contract{a2}},
		{"two versions of one template", ledger.ContractFilter{Templates: []ledger.TemplateID{amulet, amuletV2, locked}}, []*ledger.Contract{a1, l1, a2}},
		{"stakeholder as observer", ledger.ContractFilter{Stakeholder: bob}, []*ledger.Contract{l1, a2}},
		{"stakeholder as signatory", ledger.ContractFilter{Stakeholder: alice}, []*ledger.Contract{a1, o1}},
		{"stakeholder and template", ledger.ContractFilter{Stakeholder: bob, Templates: []ledger.TemplateID{amulet}}, []*ledger.Contract{a2}},
		{"stakeholder and template, none archived", ledger.ContractFilter{Stakeholder: alice, Templates: []ledger.TemplateID{amulet}}, []*ledger.Contract{a1}},
		{"stakeholder and two templates", ledger.ContractFilter{Stakeholder: dso, Templates: []ledger.TemplateID{locked, amulet}}, []*ledger.Contract{a1, l1}},
		{"stakeholder, two templates, limit", ledger.ContractFilter{Stakeholder: bob, Templates: []ledger.TemplateID{amuletV2, locked}, Limit: 1}, []*ledger.Contract{l1}},
		{"stakeholder, two templates, after and limit", ledger.ContractFilter{Stakeholder: bob, Templates: []ledger.TemplateID{amulet, locked}, After: l1.ID, Limit: 1}, []*ledger.Contract{a2}},
		{"stakeholder, two templates, one matched as an upgrade", ledger.ContractFilter{Stakeholder: dso, Templates: []ledger.TemplateID{otherAmulet, amuletV2}}, []*ledger.Contract{a1}},
		{"stakeholder with nothing", ledger.ContractFilter{Stakeholder: ledger.PartyID("nobody", "1220")}, nil},
		{"limit", ledger.ContractFilter{Limit: 2}, []*ledger.Contract{a1, l1}},
		{"after", ledger.ContractFilter{After: l1.ID}, []*ledger.Contract{o1, a2}},
		{"after an archived contract", ledger.ContractFilter{After: a3.ID}, nil},
		{"after the last", ledger.ContractFilter{After: a2.ID}, nil},
		{"after with stakeholder and limit", ledger.ContractFilter{Stakeholder: dso, After: a1.ID, Limit: 5}, []*ledger.Contract{l1}},
		{"after with template", ledger.ContractFilter{Templates: []ledger.TemplateID{amulet}, After: a1.ID}, []*ledger.Contract{a2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ActiveContracts(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ids(tc.want), ids(got), cmpOpts...); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got, cmpOpts...); diff != "" {
				t.Errorf("contracts (-want +got):\n%s", diff)
			}
		})
	}

	_, err := s.ActiveContracts(ctx, ledger.ContractFilter{After: "00" + daml.ContractID(hexID("unknown"))})
	if !fault.Is(err, fault.InvalidArgument) {
		t.Errorf("unknown cursor: error = %v; want InvalidArgument", err)
	}
	if n, err := s.CountActiveContracts(ctx); err != nil || n != 4 {
		t.Errorf("CountActiveContracts = %d, %v; want 4", n, err)
	}
	c, active, err := s.Contract(ctx, a3.ID)
	if err != nil || active {
		t.Errorf("Contract(archived) active = %v, err = %v; want false, nil", active, err)
	}
	if diff := cmp.Diff(a3, c, cmpOpts...); diff != "" {
		t.Errorf("archived contract (-want +got):\n%s", diff)
	}
}

// testActiveContractsPagination walks the active set page by page with the
// keyset cursor while contracts are archived between pages: every contract
// active throughout is seen exactly once, in creation order.
func testActiveContractsPagination(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	var all []*ledger.Contract
	for range 5 {
		var cs []create
		for range 7 {
			cs = append(cs, create{tmpl: amulet, sig: []daml.Party{alice}})
		}
		all = append(all, mustAppend(t, s, spec{creates: cs}).Created()...)
	}
	// Archive every third contract up front.
	var want []daml.ContractID
	var gone []daml.ContractID
	for i, c := range all {
		if i%3 == 2 {
			gone = append(gone, c.ID)
		} else {
			want = append(want, c.ID)
		}
	}
	mustAppend(t, s, spec{consumes: gone})

	for _, f := range []ledger.ContractFilter{
		{Limit: 4},
		{Limit: 4, Stakeholder: alice},
		{Limit: 4, Templates: []ledger.TemplateID{amulet}},
		{Limit: 4, Templates: []ledger.TemplateID{locked, amulet}},
		{Limit: 4, Stakeholder: alice, Templates: []ledger.TemplateID{amulet}},
		{Limit: 4, Stakeholder: alice, Templates: []ledger.TemplateID{locked, amulet}},
	} {
		var got []daml.ContractID
		f := f
		for {
			page, err := s.ActiveContracts(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > f.Limit {
				t.Fatalf("page of %d with limit %d", len(page), f.Limit)
			}
			got = append(got, ids(page)...)
			if len(page) < f.Limit {
				break
			}
			f.After = page[len(page)-1].ID
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("paginated %+v (-want +got):\n%s", f, diff)
		}
	}
}

// testTransient creates and archives a contract in one transaction.
func testTransient(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		h, err := w.Head(ctx)
		if err != nil {
			return err
		}
		tx, offsets := build(h, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
		c := tx.Events[0].Created
		tx.Events = append(tx.Events, ledger.Event{
			NodeID: 1,
			Exercised: &ledger.Exercised{
				ContractID: c.ID, Template: amulet, Choice: "Archive", ChoiceArgument: &daml.Record{},
				ActingParties: []daml.Party{alice}, Consuming: true, LastDescendant: 1, ExerciseResult: daml.Unit{},
				Stakeholders: []daml.Party{alice},
			},
			Witnesses: []daml.Party{alice},
		})
		tx.Roots = []int32{0, 1}
		return w.AppendTransaction(ctx, tx, offsets)
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.ActiveContracts(ctx, ledger.ContractFilter{Stakeholder: alice})
	if err != nil || len(cs) != 0 {
		t.Errorf("ActiveContracts = %v, %v; want none", ids(cs), err)
	}
	if n, _ := s.CountActiveContracts(ctx); n != 0 {
		t.Errorf("CountActiveContracts = %d; want 0", n)
	}
}

func testInactive(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	tx := mustAppend(t, s, spec{creates: []create{
		{tmpl: amulet, sig: []daml.Party{alice}},
		{tmpl: amulet, sig: []daml.Party{alice}},
	}})
	live, dead := tx.Created()[0].ID, tx.Created()[1].ID
	mustAppend(t, s, spec{consumes: []daml.ContractID{dead}})
	unknown := "00" + daml.ContractID(hexID("never"))
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		got, err := w.Inactive(ctx, []daml.ContractID{unknown, live, dead, unknown})
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]daml.ContractID{unknown, dead}, got); diff != "" {
			t.Errorf("Inactive (-want +got):\n%s", diff)
		}
		none, err := w.Inactive(ctx, []daml.ContractID{live})
		if err != nil || len(none) != 0 {
			t.Errorf("Inactive(active) = %v, %v; want none", none, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testDoubleConsume checks that the store itself refuses to consume a
// contract that is not active, whatever the engine checked, and that the
// whole Write is undone.
func testDoubleConsume(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	c := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}}).Created()[0]
	mustAppend(t, s, spec{consumes: []daml.ContractID{c.ID}})
	before := snapshot(t, s)

	for _, tc := range []struct {
		name string
		sp   spec
		cid  daml.ContractID
	}{
		{"already archived", spec{consumes: []daml.ContractID{c.ID}, creates: []create{{tmpl: amulet, sig: []daml.Party{bob}}}, on: []ledger.ParticipantID{par1.ID, par2.ID}}, c.ID},
		{"never created", spec{consumes: []daml.ContractID{"00" + daml.ContractID(hexID("never"))}}, "00" + daml.ContractID(hexID("never"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var appended *ledger.Transaction
			err := s.Write(ctx, func(w ledger.WriteTx) error {
				if err := w.SetMeta(ctx, "touched", "yes"); err != nil {
					return err
				}
				h, err := w.Head(ctx)
				if err != nil {
					return err
				}
				tx, offsets := build(h, tc.sp)
				appended = tx
				return w.AppendTransaction(ctx, tx, offsets)
			})
			checkInactiveError(t, err, tc.cid)
			if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
				t.Errorf("state changed by a refused Write (-before +after):\n%s", diff)
			}
			if _, err := s.Transaction(ctx, appended.UpdateID); !fault.Is(err, fault.NotFound) {
				t.Errorf("refused transaction stored: err = %v", err)
			}
		})
	}

	t.Run("twice in one transaction", func(t *testing.T) {
		d := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}}).Created()[0]
		before := snapshot(t, s)
		_, err := appendTx(ctx, s, spec{consumes: []daml.ContractID{d.ID, d.ID}})
		checkInactiveError(t, err, d.ID)
		if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
			t.Errorf("state changed by a refused Write (-before +after):\n%s", diff)
		}
		if _, active, err := s.Contract(ctx, d.ID); err != nil || !active {
			t.Errorf("contract consumed by a refused Write: active = %v, err = %v", active, err)
		}
	})
}

func checkInactiveError(t *testing.T, err error, cid daml.ContractID) {
	t.Helper()
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.Aborted || fe.Code != store.CodeInactiveContracts {
		t.Fatalf("error = %v; want Aborted %s", err, store.CodeInactiveContracts)
	}
	if !strings.Contains(fe.Message, string(cid)) {
		t.Errorf("message %q does not name contract %s", fe.Message, cid)
	}
}

// state is what a reader can see of a store, for before/after
// comparisons.
type state struct {
	Head    ledger.Head
	Active  []daml.ContractID
	Updates map[ledger.ParticipantID][]ledger.Offset
	Meta    map[string]string
	Users   []ledger.User
}

func snapshot(t testing.TB, s ledger.Store) state {
	t.Helper()
	ctx := context.Background()
	var st state
	var err error
	if st.Head, err = s.Head(ctx); err != nil {
		t.Fatal(err)
	}
	cs, err := s.ActiveContracts(ctx, ledger.ContractFilter{})
	if err != nil {
		t.Fatal(err)
	}
	st.Active = ids(cs)
	st.Updates = map[ledger.ParticipantID][]ledger.Offset{}
	ps, err := s.Participants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		us, err := s.Updates(ctx, ledger.UpdateQuery{Participant: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			st.Updates[p.ID] = append(st.Updates[p.ID], u.Offset)
		}
		users, err := s.Users(ctx, p.ID, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		st.Users = append(st.Users, users...)
	}
	st.Meta = map[string]string{}
	for _, k := range []string{"touched", "seed"} {
		if v, ok, err := s.Meta(ctx, k); err != nil {
			t.Fatal(err)
		} else if ok {
			st.Meta[k] = v
		}
	}
	return st
}

// testWriteRollback checks that an error from fn undoes everything fn did.
func testWriteRollback(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	before := snapshot(t, s)
	boom := errors.New("boom")
	var tx *ledger.Transaction
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		h, err := w.Head(ctx)
		if err != nil {
			return err
		}
		var offsets map[ledger.ParticipantID]ledger.Offset
		tx, offsets = build(h, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{bob}}}, on: []ledger.ParticipantID{par1.ID, par2.ID}})
		for _, f := range []func() error{
			func() error { return w.AppendTransaction(ctx, tx, offsets) },
			func() error { return w.SetMeta(ctx, "touched", "yes") },
			func() error { return w.SetClockOffset(ctx, 123) },
			func() error {
				return w.PutUser(ctx, ledger.User{ID: "ghost", Participant: par1.ID, Rights: []ledger.Right{{Kind: ledger.ParticipantAdmin}}})
			},
			func() error { return w.PutParticipant(ctx, ledger.Participant{ID: "PAR::ghost::1220", Name: "ghost"}) },
		} {
			if err := f(); err != nil {
				return err
			}
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write error = %v; want fn's error", err)
	}
	if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
		t.Errorf("state changed by a failed Write (-before +after):\n%s", diff)
	}
	if _, err := s.Transaction(ctx, tx.UpdateID); !fault.Is(err, fault.NotFound) {
		t.Errorf("rolled back transaction readable: err = %v", err)
	}
	if ps, _ := s.Participants(ctx); len(ps) != 2 {
		t.Errorf("participants after rollback: %v", ps)
	}

	// The store is still usable, and the next append takes the position the
	// failed one would have had.
	next := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{bob}}}})
	if next.UpdateID != tx.UpdateID {
		t.Errorf("next update id %s; want the rolled-back position's %s", next.UpdateID, tx.UpdateID)
	}
}

// testConcurrentConsume races 16 writers to consume one contract: the store
// must let exactly one win, even though none of them checks Inactive first.
func testConcurrentConsume(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	c := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}}).Created()[0]
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = appendTx(ctx, s, spec{
				consumes: []daml.ContractID{c.ID},
				creates:  []create{{tmpl: amulet, sig: []daml.Party{alice}, amount: fmt.Sprint(i)}},
			})
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case fault.Is(err, fault.Aborted):
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d writers consumed the contract; want exactly 1", won)
	}
	h, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Sequence != 2 || h.Offsets[par1.ID] != 2 {
		t.Errorf("head = %+v; want sequence 2 and offset 2", h)
	}
	if n, _ := s.CountActiveContracts(ctx); n != 1 {
		t.Errorf("CountActiveContracts = %d; want 1 (the winner's create)", n)
	}
}

// testConcurrentAppends has 16 writers append at once: all succeed, and
// every participant's offsets come out gap-free, strictly increasing and in
// record-time order.
func testConcurrentAppends(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			on := []ledger.ParticipantID{par1.ID}
			if i%2 == 0 {
				on = append(on, par2.ID)
			}
			_, errs[i] = appendTx(ctx, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}, on: on})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for p, count := range map[ledger.ParticipantID]int{par1.ID: n, par2.ID: n / 2} {
		us, err := s.Updates(ctx, ledger.UpdateQuery{Participant: p})
		if err != nil {
			t.Fatal(err)
		}
		if len(us) != count {
			t.Fatalf("%s has %d updates; want %d", p, len(us), count)
		}
		for i, u := range us {
			if u.Offset != ledger.Offset(i+1) {
				t.Errorf("%s: update %d at offset %d", p, i, u.Offset)
			}
			if i > 0 && u.Transaction.RecordTime <= us[i-1].Transaction.RecordTime {
				t.Errorf("%s: record time does not increase with the offset at %d", p, u.Offset)
			}
		}
	}
	if h, _ := s.Head(ctx); h.Sequence != n {
		t.Errorf("head sequence %d; want %d", h.Sequence, n)
	}
}

// testOrderEnforced checks that the store refuses appends that would break
// the ledger's order, whatever the engine computed.
func testOrderEnforced(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	first := mustAppend(t, s, spec{on: []ledger.ParticipantID{par1.ID, par2.ID}, creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	before := snapshot(t, s)
	for _, tc := range []struct {
		name   string
		mutate func(tx *ledger.Transaction, offsets map[ledger.ParticipantID]ledger.Offset)
		kind   fault.Kind
	}{
		{"same offset again", func(_ *ledger.Transaction, o map[ledger.ParticipantID]ledger.Offset) { o[par2.ID] = 1 }, fault.FailedPrecondition},
		{"offset going back", func(_ *ledger.Transaction, o map[ledger.ParticipantID]ledger.Offset) { o[par1.ID] = 0 }, fault.FailedPrecondition},
		{"unknown participant", func(_ *ledger.Transaction, o map[ledger.ParticipantID]ledger.Offset) { o["PAR::nobody::1220"] = 1 }, fault.NotFound},
		{"same record time", func(tx *ledger.Transaction, _ map[ledger.ParticipantID]ledger.Offset) {
			tx.RecordTime = first.RecordTime
		}, fault.FailedPrecondition},
		{"earlier record time", func(tx *ledger.Transaction, _ map[ledger.ParticipantID]ledger.Offset) {
			tx.RecordTime = first.RecordTime - 1
		}, fault.FailedPrecondition},
		{"duplicate update id", func(tx *ledger.Transaction, _ map[ledger.ParticipantID]ledger.Offset) { tx.UpdateID = first.UpdateID }, fault.AlreadyExists},
		{"duplicate contract id", func(tx *ledger.Transaction, _ map[ledger.ParticipantID]ledger.Offset) {
			tx.Events[0].Created.ID = first.Created()[0].ID
		}, fault.AlreadyExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Write(ctx, func(w ledger.WriteTx) error {
				h, err := w.Head(ctx)
				if err != nil {
					return err
				}
				tx, offsets := build(h, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}, on: []ledger.ParticipantID{par1.ID, par2.ID}})
				tc.mutate(tx, offsets)
				return w.AppendTransaction(ctx, tx, offsets)
			})
			if k := fault.KindOf(err); err == nil || k != tc.kind {
				t.Errorf("error = %v (%v); want %v", err, k, tc.kind)
			}
			if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
				t.Errorf("state changed by a refused append (-before +after):\n%s", diff)
			}
		})
	}
}

// testMigration checks the head across a hard migration: record times
// start again, the migration never goes back, and rows carry their
// migration.
func testMigration(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	one, zero := int64(1), int64(0)
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		h, err := w.Head(ctx)
		if err != nil {
			return err
		}
		tx, offsets := build(h, spec{migration: &one, creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
		tx.RecordTime = baseTime // earlier than the last of migration 0: allowed in a new migration
		for _, c := range tx.Created() {
			c.MigrationID = 1
		}
		return w.AppendTransaction(ctx, tx, offsets)
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.MigrationID != 1 || h.LastRecordTime != baseTime || h.Sequence != 3 || h.Offsets[par1.ID] != 3 {
		t.Errorf("head after migrating = %+v; want migration 1, record time %d, sequence 3, offset 3", h, baseTime)
	}
	_, err = appendTx(ctx, s, spec{migration: &zero})
	if !fault.Is(err, fault.FailedPrecondition) {
		t.Errorf("append to an earlier migration: error = %v; want FailedPrecondition", err)
	}
	us, err := s.Updates(ctx, ledger.UpdateQuery{Participant: par1.ID, After: 2})
	if err != nil || len(us) != 1 || us[0].Transaction.MigrationID != 1 {
		t.Errorf("update of migration 1 = %v, %v", us, err)
	}
}

// testSetMigration starts migration 1 with SetMigration: the head moves
// to it with no record time, the synchronizers move to it with their ids,
// the sequence, offsets and contracts stay, the next append may take any
// record time, and a migration that is not after the current one is
// refused with nothing changed.
func testSetMigration(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	first := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	mustAppend(t, s, spec{})
	if err := s.Write(ctx, func(w ledger.WriteTx) error { return w.SetMigration(ctx, 1) }); err != nil {
		t.Fatal(err)
	}
	h, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.MigrationID != 1 || h.LastRecordTime != 0 || h.Sequence != 2 || h.Offsets[par1.ID] != 2 {
		t.Errorf("head after SetMigration = %+v; want migration 1, no record time, sequence 2, offset 2", h)
	}
	syncs, err := s.Synchronizers(ctx)
	if err != nil || len(syncs) != 1 || syncs[0].ID != sync1.ID || syncs[0].MigrationID != 1 {
		t.Errorf("synchronizers after SetMigration = %+v, %v; want %s in migration 1", syncs, err, sync1.ID)
	}
	if _, active, err := s.Contract(ctx, first.Created()[0].ID); err != nil || !active {
		t.Errorf("contract of migration 0 after SetMigration: active %v, %v", active, err)
	}
	before := snapshot(t, s)
	for _, id := range []int64{1, 0} {
		err := s.Write(ctx, func(w ledger.WriteTx) error { return w.SetMigration(ctx, id) })
		if !fault.Is(err, fault.FailedPrecondition) {
			t.Errorf("SetMigration(%d) in migration 1: error = %v; want FailedPrecondition", id, err)
		}
	}
	if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
		t.Errorf("state changed by a refused SetMigration (-before +after):\n%s", diff)
	}
	// Record times start afresh: the first update of migration 1 may be
	// earlier than the last of migration 0.
	tx := mustAppend(t, s, spec{})
	if tx.MigrationID != 1 || tx.RecordTime != baseTime {
		t.Errorf("first update of migration 1: migration %d, record time %d; want 1, %d", tx.MigrationID, tx.RecordTime, baseTime)
	}
	if h, err := s.Head(ctx); err != nil || h.Sequence != 3 || h.LastRecordTime != baseTime || h.Offsets[par1.ID] != 3 {
		t.Errorf("head after the first update of migration 1 = %+v, %v", h, err)
	}
}

func testUpdates(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	// Five updates; par2 sees the 2nd and the 4th only.
	var txs []*ledger.Transaction
	for i := range 5 {
		on := []ledger.ParticipantID{par1.ID}
		if i%2 == 1 {
			on = append(on, par2.ID)
		}
		txs = append(txs, mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}, on: on}))
	}
	type pos struct {
		off ledger.Offset
		tx  *ledger.Transaction
	}
	for _, tc := range []struct {
		name string
		q    ledger.UpdateQuery
		want []pos
	}{
		{"all", ledger.UpdateQuery{Participant: par1.ID}, []pos{{1, txs[0]}, {2, txs[1]}, {3, txs[2]}, {4, txs[3]}, {5, txs[4]}}},
		{"after", ledger.UpdateQuery{Participant: par1.ID, After: 3}, []pos{{4, txs[3]}, {5, txs[4]}}},
		{"range", ledger.UpdateQuery{Participant: par1.ID, After: 1, Until: 3}, []pos{{2, txs[1]}, {3, txs[2]}}},
		{"limit", ledger.UpdateQuery{Participant: par1.ID, After: 1, Limit: 2}, []pos{{2, txs[1]}, {3, txs[2]}}},
		{"descending", ledger.UpdateQuery{Participant: par1.ID, Descending: true}, []pos{{5, txs[4]}, {4, txs[3]}, {3, txs[2]}, {2, txs[1]}, {1, txs[0]}}},
		{"descending range and limit", ledger.UpdateQuery{Participant: par1.ID, After: 1, Until: 4, Limit: 2, Descending: true}, []pos{{4, txs[3]}, {3, txs[2]}}},
		{"other participant's offsets", ledger.UpdateQuery{Participant: par2.ID}, []pos{{1, txs[1]}, {2, txs[3]}}},
		{"empty range", ledger.UpdateQuery{Participant: par1.ID, After: 5}, nil},
		{"until before after", ledger.UpdateQuery{Participant: par1.ID, After: 3, Until: 2}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Updates(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var want []ledger.ParticipantUpdate
			for _, p := range tc.want {
				want = append(want, ledger.ParticipantUpdate{Participant: tc.q.Participant, Offset: p.off, Transaction: p.tx})
			}
			if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := s.Updates(ctx, ledger.UpdateQuery{Participant: "PAR::nobody::1220"}); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown participant: error = %v; want NotFound", err)
	}
}

// testUpdatesByParty checks the party filter: the updates some named party
// witnesses, once each, in offset order, with the range and the limit
// applied to them, and the filter after pruning.
func testUpdatesByParty(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	carol := ledger.PartyID("carol", ledger.Fingerprint("storetest", "carol")) // witnesses nothing
	// par1 (alice, DSO) gets all but the 5th; par2 (bob) the 3rd and 5th.
	var txs []*ledger.Transaction
	for _, sp := range []spec{
		{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}},                                                                       // par1 1: alice
		{creates: []create{{tmpl: amulet, sig: []daml.Party{dso}}}},                                                                         // par1 2: dso
		{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}, obs: []daml.Party{bob}}}, on: []ledger.ParticipantID{par1.ID, par2.ID}}, // par1 3, par2 1: alice, bob
		{creates: []create{{tmpl: amulet, sig: []daml.Party{dso}, obs: []daml.Party{alice}}, {tmpl: locked, sig: []daml.Party{alice}}}},     // par1 4: alice (twice), dso
		{creates: []create{{tmpl: amulet, sig: []daml.Party{bob}}}, on: []ledger.ParticipantID{par2.ID}},                                    // par2 2: bob
		{creates: []create{{tmpl: amulet, sig: []daml.Party{dso}}}},                                                                         // par1 5: dso
	} {
		txs = append(txs, mustAppend(t, s, sp))
	}
	at := func(off ledger.Offset, i int) string { return fmt.Sprintf("%d %s", off, txs[i].UpdateID) }
	ps := func(p ...daml.Party) []daml.Party { return p }
	type tcase struct {
		name string
		q    ledger.UpdateQuery
		want []string
	}
	run := func(t *testing.T, cases []tcase) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if diff := cmp.Diff(tc.want, updateOffsets(t, s, tc.q), cmpOpts...); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
	run(t, []tcase{
		{"one party", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice)}, []string{at(1, 0), at(3, 2), at(4, 3)}},
		{"one party, descending", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice), Descending: true}, []string{at(4, 3), at(3, 2), at(1, 0)}},
		{"one party, limit", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice), Limit: 2}, []string{at(1, 0), at(3, 2)}},
		{"one party, descending limit", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice), Limit: 2, Descending: true}, []string{at(4, 3), at(3, 2)}},
		{"one party, range", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice), After: 1, Until: 3}, []string{at(3, 2)}},
		{"one party, descending range and limit", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(dso), After: 1, Until: 4, Limit: 1, Descending: true}, []string{at(4, 3)}},
		{"one party, other participant", ledger.UpdateQuery{Participant: par2.ID, Parties: ps(bob)}, []string{at(1, 2), at(2, 4)}},
		{"several parties, de-duplicated", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(dso, alice)}, []string{at(1, 0), at(2, 1), at(3, 2), at(4, 3), at(5, 5)}},
		{"several parties, descending limit", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice, dso), Limit: 3, Descending: true}, []string{at(5, 5), at(4, 3), at(3, 2)}},
		{"several parties, after and limit", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice, dso), After: 2, Limit: 2}, []string{at(3, 2), at(4, 3)}},
		{"several parties, descending range", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice, dso, alice), After: 1, Until: 4, Descending: true}, []string{at(4, 3), at(3, 2), at(2, 1)}},
		{"several parties, one sees nothing", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(carol, alice), Limit: 2}, []string{at(1, 0), at(3, 2)}},
		{"party that sees nothing", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(carol)}, nil},
		{"party that sees nothing, descending", ledger.UpdateQuery{Participant: par2.ID, Parties: ps(carol), Descending: true, Limit: 1}, nil},
		{"empty range", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice, dso), After: 5}, nil},
		// A transaction is indexed in a stream only under the informees
		// its participant hosts: bob witnesses par1's 3rd, alice par2's 1st.
		{"informee not hosted", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(bob)}, nil},
		{"informee not hosted, other participant", ledger.UpdateQuery{Participant: par2.ID, Parties: ps(alice, dso)}, nil},
	})
	if _, err := s.Updates(ctx, ledger.UpdateQuery{Participant: "PAR::nobody::1220", Parties: ps(alice)}); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown participant: error = %v; want NotFound", err)
	}
	if _, err := s.Updates(ctx, ledger.UpdateQuery{Participant: "PAR::nobody::1220", Parties: ps(alice, dso)}); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown participant, several parties: error = %v; want NotFound", err)
	}

	// Pruning par1 up to 3 keeps its index entries: the store returns
	// them as before (the ledger API refuses reads before the pruned
	// offset, not the store).
	if err := prune(ctx, s, par1.ID, 3); err != nil {
		t.Fatal(err)
	}
	t.Run("after pruning", func(t *testing.T) {
		run(t, []tcase{
			{"one party", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice)}, []string{at(1, 0), at(3, 2), at(4, 3)}},
			{"one party, limit", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(dso), Limit: 1}, []string{at(2, 1)}},
			{"one party, descending", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(dso), Descending: true}, []string{at(5, 5), at(4, 3), at(2, 1)}},
			{"several parties, limit", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice, dso), Limit: 1}, []string{at(1, 0)}},
			{"several parties, descending", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice, dso), Descending: true}, []string{at(5, 5), at(4, 3), at(3, 2), at(2, 1), at(1, 0)}},
			{"ending at the pruned offset", ledger.UpdateQuery{Participant: par1.ID, Parties: ps(alice, dso), Until: 3}, []string{at(1, 0), at(2, 1), at(3, 2)}},
			{"other participant untouched", ledger.UpdateQuery{Participant: par2.ID, Parties: ps(bob)}, []string{at(1, 2), at(2, 4)}},
		})
	})
}

// prunedFixture appends five updates to par1's stream; par2 sees the 2nd
// and the 4th only (its offsets 1 and 2).
func prunedFixture(t *testing.T, s ledger.Store) []*ledger.Transaction {
	t.Helper()
	setupNetwork(t, s)
	var txs []*ledger.Transaction
	for i := range 5 {
		on := []ledger.ParticipantID{par1.ID}
		if i%2 == 1 {
			on = append(on, par2.ID)
		}
		txs = append(txs, mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}, on: on}))
	}
	return txs
}

func prune(ctx context.Context, s ledger.Store, p ledger.ParticipantID, upTo ledger.Offset) error {
	return s.Write(ctx, func(w ledger.WriteTx) error { return w.Prune(ctx, p, upTo) })
}

// updateOffsets reads a range of a participant's stream and returns the
// offsets and update ids it holds.
func updateOffsets(t *testing.T, s ledger.Store, q ledger.UpdateQuery) []string {
	t.Helper()
	us, err := s.Updates(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range us {
		out = append(out, fmt.Sprintf("%d %s", u.Offset, u.Transaction.UpdateID))
	}
	return out
}

// testPrune checks that pruning moves the participant's pruned offset and
// changes nothing else: the store is dumb about pruning, so its stream
// still holds the updates up to it (the ledger API refuses reads before
// it), and the other participant's stream, the transactions and the
// active contracts stay.
func testPrune(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	txs := prunedFixture(t, s)
	at := func(off ledger.Offset, tx *ledger.Transaction) string { return fmt.Sprintf("%d %s", off, tx.UpdateID) }

	if h, err := s.Head(ctx); err != nil || len(h.Pruned) != 0 {
		t.Fatalf("head before pruning: Pruned = %v, %v; want none", h.Pruned, err)
	}
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		if err := w.Prune(ctx, par1.ID, 3); err != nil {
			return err
		}
		inside, err := w.Head(ctx)
		if err != nil {
			return err
		}
		if inside.Pruned[par1.ID] != 3 {
			t.Errorf("head inside the write: Pruned = %v; want %s: 3", inside.Pruned, par1.ID)
		}
		outside, err := s.Head(ctx)
		if err != nil {
			return err
		}
		if len(outside.Pruned) != 0 {
			t.Errorf("head outside the uncommitted prune: Pruned = %v; want none", outside.Pruned)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	h, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.Head{
		Sequence: 5, LastRecordTime: txs[4].RecordTime,
		Offsets: map[ledger.ParticipantID]ledger.Offset{par1.ID: 5, par2.ID: 2},
		Pruned:  map[ledger.ParticipantID]ledger.Offset{par1.ID: 3},
	}
	if diff := cmp.Diff(want, h, cmpOpts...); diff != "" {
		t.Errorf("head after pruning par1 up to 3 (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name string
		q    ledger.UpdateQuery
		want []string
	}{
		{"all", ledger.UpdateQuery{Participant: par1.ID}, []string{at(1, txs[0]), at(2, txs[1]), at(3, txs[2]), at(4, txs[3]), at(5, txs[4])}},
		{"from before the pruned offset", ledger.UpdateQuery{Participant: par1.ID, After: 1}, []string{at(2, txs[1]), at(3, txs[2]), at(4, txs[3]), at(5, txs[4])}},
		{"from the pruned offset", ledger.UpdateQuery{Participant: par1.ID, After: 3}, []string{at(4, txs[3]), at(5, txs[4])}},
		{"ending at the pruned offset", ledger.UpdateQuery{Participant: par1.ID, Until: 3}, []string{at(1, txs[0]), at(2, txs[1]), at(3, txs[2])}},
		{"limit", ledger.UpdateQuery{Participant: par1.ID, Limit: 1}, []string{at(1, txs[0])}},
		{"descending", ledger.UpdateQuery{Participant: par1.ID, Descending: true}, []string{at(5, txs[4]), at(4, txs[3]), at(3, txs[2]), at(2, txs[1]), at(1, txs[0])}},
		{"other participant untouched", ledger.UpdateQuery{Participant: par2.ID}, []string{at(1, txs[1]), at(2, txs[3])}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, updateOffsets(t, s, tc.q), cmpOpts...); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	// The transactions and the contracts stay.
	for _, tx := range txs[:3] {
		if _, err := s.Transaction(ctx, tx.UpdateID); err != nil {
			t.Errorf("Transaction(%s) after pruning: %v", tx.UpdateID, err)
		}
	}
	if n, err := s.CountActiveContracts(ctx); err != nil || n != 5 {
		t.Errorf("CountActiveContracts after pruning = %d, %v; want 5", n, err)
	}

	// Pruning again at the pruned offset changes nothing.
	before := snapshot(t, s)
	if err := prune(ctx, s, par1.ID, 3); err != nil {
		t.Errorf("pruning again at the pruned offset: %v", err)
	}
	if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
		t.Errorf("pruning again at the pruned offset changed the store (-before +after):\n%s", diff)
	}

	// Up to the ledger end: the pruned offset moves forward, the stream
	// keeps its entries, and it goes on after it.
	before = snapshot(t, s)
	if err := prune(ctx, s, par1.ID, 5); err != nil {
		t.Fatal(err)
	}
	before.Head.Pruned = map[ledger.ParticipantID]ledger.Offset{par1.ID: 5}
	if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
		t.Errorf("pruning to the ledger end changed more than the pruned offset (-want +got):\n%s", diff)
	}
	next := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	if diff := cmp.Diff([]string{at(6, next)}, updateOffsets(t, s, ledger.UpdateQuery{Participant: par1.ID, After: 5})); diff != "" {
		t.Errorf("updates after appending to a pruned stream (-want +got):\n%s", diff)
	}
	if h, err := s.Head(ctx); err != nil || h.Offsets[par1.ID] != 6 || h.Pruned[par1.ID] != 5 || h.Pruned[par2.ID] != 0 {
		t.Errorf("head after appending to a pruned stream = %+v, %v; want offset 6, pruned 5 on par1 and none on par2", h, err)
	}
}

// testPruneRefused checks that a prune that would go back, go past the
// ledger end or name no participant fails with its kind and changes
// nothing.
func testPruneRefused(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	prunedFixture(t, s)
	if err := prune(ctx, s, par1.ID, 3); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s)
	for _, tc := range []struct {
		name string
		p    ledger.ParticipantID
		upTo ledger.Offset
		kind fault.Kind
	}{
		{"backwards", par1.ID, 2, fault.InvalidArgument},
		{"zero", par1.ID, 0, fault.InvalidArgument},
		{"negative", par1.ID, -1, fault.InvalidArgument},
		{"beyond the ledger end", par1.ID, 6, fault.OutOfRange},
		{"beyond the other participant's ledger end", par2.ID, 3, fault.OutOfRange},
		{"far beyond the ledger end", par2.ID, 1 << 40, fault.OutOfRange},
		{"unknown participant", "PAR::nobody::1220", 1, fault.NotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := prune(ctx, s, tc.p, tc.upTo)
			if !fault.Is(err, tc.kind) {
				t.Fatalf("Prune(%s, %d) error = %v; want %s", tc.p, tc.upTo, err, tc.kind)
			}
			if e, _ := fault.As(err); !strings.Contains(e.Message, fmt.Sprint(tc.upTo)) {
				t.Errorf("message %q does not name the offset %d", e.Message, tc.upTo)
			}
		})
	}
	if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
		t.Errorf("refused prunes changed the store (-before +after):\n%s", diff)
	}
}

func testUsers(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	put := func(u ledger.User) error {
		return s.Write(ctx, func(w ledger.WriteTx) error { return w.PutUser(ctx, u) })
	}
	get := func(p ledger.ParticipantID, id string) *ledger.User {
		t.Helper()
		u, err := s.User(ctx, p, id)
		if err != nil {
			t.Fatalf("User(%s): %v", id, err)
		}
		return u
	}

	alices := ledger.User{
		ID: "alice", Participant: par1.ID, PrimaryParty: alice,
		Rights:      []ledger.Right{{Kind: ledger.CanActAs, Party: alice}, {Kind: ledger.CanReadAs, Party: dso}, {Kind: ledger.CanReadAsAnyParty}},
		Annotations: map[string]string{"wallet": "yes", "note": "ünïcode"},
	}
	if err := put(alices); err != nil {
		t.Fatal(err)
	}
	want := alices
	want.ResourceVersion = 1
	if diff := cmp.Diff(&want, get(par1.ID, "alice"), cmpOpts...); diff != "" {
		t.Errorf("new user (-want +got):\n%s", diff)
	}

	// Replacing drops rights that are not given again.
	alices.Rights = []ledger.Right{{Kind: ledger.CanReadAs, Party: alice}}
	alices.Annotations = nil
	if err := put(alices); err != nil {
		t.Fatal(err)
	}
	want = alices
	want.ResourceVersion = 2
	if diff := cmp.Diff(&want, get(par1.ID, "alice"), cmpOpts...); diff != "" {
		t.Errorf("replaced user (-want +got):\n%s", diff)
	}

	alices.Deactivated = true
	if err := put(alices); err != nil {
		t.Fatal(err)
	}
	if u := get(par1.ID, "alice"); !u.Deactivated || u.ResourceVersion != 3 {
		t.Errorf("deactivated user = %+v; want Deactivated, version 3", u)
	}

	// Users of another participant and a page of several users.
	for _, u := range []ledger.User{
		{ID: "zed", Participant: par1.ID},
		{ID: "bob", Participant: par1.ID, Rights: []ledger.Right{{Kind: ledger.ParticipantAdmin}}},
		{ID: "alice", Participant: par2.ID, PrimaryParty: bob},
		{ID: "carol", Participant: par1.ID, Rights: []ledger.Right{{Kind: ledger.CanActAs, Party: bob}}},
	} {
		if err := put(u); err != nil {
			t.Fatal(err)
		}
	}
	page := func(p ledger.ParticipantID, after string, limit int) []string {
		t.Helper()
		us, err := s.Users(ctx, p, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, u := range us {
			if u.Participant != p {
				t.Errorf("user %s of %s listed for %s", u.ID, u.Participant, p)
			}
			out = append(out, u.ID)
		}
		return out
	}
	if diff := cmp.Diff([]string{"alice", "bob", "carol", "zed"}, page(par1.ID, "", 0)); diff != "" {
		t.Errorf("all users (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"bob", "carol"}, page(par1.ID, "alice", 2)); diff != "" {
		t.Errorf("page after alice (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"alice"}, page(par2.ID, "", 10)); diff != "" {
		t.Errorf("users of par2 (-want +got):\n%s", diff)
	}
	us, err := s.Users(ctx, par1.ID, "alice", 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ledger.Right{{Kind: ledger.CanActAs, Party: bob}}, us[1].Rights); diff != "" {
		t.Errorf("rights in a page (-want +got):\n%s", diff)
	}

	if err := s.Write(ctx, func(w ledger.WriteTx) error { return w.DeleteUser(ctx, par1.ID, "alice") }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.User(ctx, par1.ID, "alice"); !fault.Is(err, fault.NotFound) {
		t.Errorf("deleted user: error = %v; want NotFound", err)
	}
	if u := get(par2.ID, "alice"); u.PrimaryParty != bob {
		t.Errorf("par2's alice = %+v after deleting par1's", u)
	}
	err = s.Write(ctx, func(w ledger.WriteTx) error { return w.DeleteUser(ctx, par1.ID, "alice") })
	if !fault.Is(err, fault.NotFound) {
		t.Errorf("deleting twice: error = %v; want NotFound", err)
	}
	// Re-created: no rights left over from before.
	if err := put(ledger.User{ID: "alice", Participant: par1.ID}); err != nil {
		t.Fatal(err)
	}
	if u := get(par1.ID, "alice"); len(u.Rights) != 0 || u.Deactivated {
		t.Errorf("re-created user = %+v; want no rights, active", u)
	}
	if err := put(ledger.User{ID: "x", Participant: "PAR::nobody::1220"}); !fault.Is(err, fault.NotFound) {
		t.Errorf("user of an unknown participant: error = %v; want NotFound", err)
	}
}

func testTopology(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	sync2 := ledger.Synchronizer{ID: ledger.NewSynchronizerID("app-sync", ledger.Fingerprint("storetest", "sync2")), Alias: "app", MigrationID: 3}
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		// Adding again is a no-op, and does not change creation order.
		if err := w.PutParticipant(ctx, ledger.Participant{ID: par1.ID, Name: "renamed"}); err != nil {
			return err
		}
		if err := w.PutSynchronizer(ctx, sync2); err != nil {
			return err
		}
		if err := w.PutSynchronizer(ctx, sync1); err != nil {
			return err
		}
		// Replacing a permission; a second hosting of alice.
		if err := w.PutHosting(ctx, ledger.Hosting{Party: alice, Participant: par1.ID, Synchronizer: sync1.ID, Permission: ledger.PermissionObservation}); err != nil {
			return err
		}
		return w.PutHosting(ctx, ledger.Hosting{Party: alice, Participant: par2.ID, Synchronizer: sync2.ID, Permission: ledger.PermissionConfirmation})
	})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s.Participants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ledger.Participant{par1, par2}, ps); diff != "" {
		t.Errorf("participants (-want +got):\n%s", diff)
	}
	ss, err := s.Synchronizers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ledger.Synchronizer{sync1, sync2}, ss); diff != "" {
		t.Errorf("synchronizers (-want +got):\n%s", diff)
	}
	hs, err := s.Hostings(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	// Ordered by participant id: "PAR::app::…" (par2) before "PAR::sv1::…".
	wantAlice := []ledger.Hosting{
		{Party: alice, Participant: par2.ID, Synchronizer: sync2.ID, Permission: ledger.PermissionConfirmation},
		{Party: alice, Participant: par1.ID, Synchronizer: sync1.ID, Permission: ledger.PermissionObservation},
	}
	if diff := cmp.Diff(wantAlice, hs); diff != "" {
		t.Errorf("hostings of alice (-want +got):\n%s", diff)
	}
	all, err := s.Hostings(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 {
		t.Errorf("all hostings = %v; want 4", all)
	}
	err = s.Write(ctx, func(w ledger.WriteTx) error {
		return w.PutHosting(ctx, ledger.Hosting{Party: alice, Participant: "PAR::nobody::1220", Synchronizer: sync1.ID, Permission: ledger.PermissionSubmission})
	})
	if !fault.Is(err, fault.NotFound) {
		t.Errorf("hosting on an unknown participant: error = %v; want NotFound", err)
	}

	// Revoking: the row goes, alice's other hosting stays.
	if err := s.Write(ctx, func(w ledger.WriteTx) error { return w.DeleteHosting(ctx, alice, par1.ID, sync1.ID) }); err != nil {
		t.Fatal(err)
	}
	hs, err = s.Hostings(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantAlice[:1], hs); diff != "" {
		t.Errorf("hostings of alice after a revocation (-want +got):\n%s", diff)
	}
	// A hosting that does not exist (gone, on another synchronizer, of an
	// unknown party) is NotFound, and a failed write changes nothing.
	for _, h := range []ledger.Hosting{
		{Party: alice, Participant: par1.ID, Synchronizer: sync1.ID},
		{Party: alice, Participant: par2.ID, Synchronizer: sync1.ID},
		{Party: "nobody::1220", Participant: par2.ID, Synchronizer: sync2.ID},
	} {
		err := s.Write(ctx, func(w ledger.WriteTx) error { return w.DeleteHosting(ctx, h.Party, h.Participant, h.Synchronizer) })
		if !fault.Is(err, fault.NotFound) {
			t.Errorf("DeleteHosting(%s, %s, %s) = %v; want NotFound", h.Party, h.Participant, h.Synchronizer, err)
		}
	}
	err = s.Write(ctx, func(w ledger.WriteTx) error {
		if err := w.DeleteHosting(ctx, alice, par2.ID, sync2.ID); err != nil {
			return err
		}
		return fault.New(fault.Internal, "roll back")
	})
	if !fault.Is(err, fault.Internal) {
		t.Fatalf("rolled-back write: %v", err)
	}
	if hs, err = s.Hostings(ctx, alice); err != nil || len(hs) != 1 {
		t.Errorf("hostings of alice after a rolled-back revocation = %v, %v; want 1", hs, err)
	}
	if all, err = s.Hostings(ctx, ""); err != nil || len(all) != 3 {
		t.Errorf("all hostings after a revocation = %v, %v; want 3", all, err)
	}
}

func testMeta(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	if _, ok, err := s.Meta(ctx, "seed"); err != nil || ok {
		t.Fatalf("unset key: ok = %v, err = %v", ok, err)
	}
	for _, v := range []string{"first", "", "second"} {
		if err := s.Write(ctx, func(w ledger.WriteTx) error { return w.SetMeta(ctx, "seed", v) }); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.Meta(ctx, "seed")
		if err != nil || !ok || got != v {
			t.Errorf("Meta = %q, %v, %v; want %q", got, ok, err, v)
		}
	}
}

func testClockOffset(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	tx := mustAppend(t, s, spec{})
	if err := s.Write(ctx, func(w ledger.WriteTx) error { return w.SetClockOffset(ctx, 86_400_000_000) }); err != nil {
		t.Fatal(err)
	}
	h, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.ClockOffset != 86_400_000_000 || h.Sequence != 1 || h.LastRecordTime != tx.RecordTime {
		t.Errorf("head = %+v; want the clock offset set and the rest kept", h)
	}
}

// testReopen writes one of everything, reopens the store and reads it all
// back.
func testReopen(t *testing.T, s ledger.Store, reopen func(t *testing.T, s ledger.Store) ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	tx := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}, obs: []daml.Party{bob}}}, on: []ledger.ParticipantID{par1.ID, par2.ID}})
	mustAppend(t, s, spec{creates: []create{{tmpl: locked, sig: []daml.Party{dso}}}})
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		if err := w.SetClockOffset(ctx, 42); err != nil {
			return err
		}
		if err := w.SetMeta(ctx, "seed", "s3cr3t"); err != nil {
			return err
		}
		if err := w.Prune(ctx, par1.ID, 1); err != nil {
			return err
		}
		return w.PutUser(ctx, ledger.User{ID: "alice", Participant: par1.ID, PrimaryParty: alice, Rights: []ledger.Right{{Kind: ledger.CanActAs, Party: alice}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s)
	hostings, err := s.Hostings(ctx, "")
	if err != nil {
		t.Fatal(err)
	}

	s = reopen(t, s)
	if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
		t.Errorf("state after reopening (-before +after):\n%s", diff)
	}
	// The pruned offset survives, and so does the pruned part of the stream.
	if h, err := s.Head(ctx); err != nil || h.Pruned[par1.ID] != 1 || h.Pruned[par2.ID] != 0 {
		t.Errorf("pruned offsets after reopening = %v, %v; want %s: 1", h.Pruned, err, par1.ID)
	}
	if got := updateOffsets(t, s, ledger.UpdateQuery{Participant: par1.ID, Until: 1}); len(got) != 1 {
		t.Errorf("pruned updates after reopening = %v; want the one at offset 1", got)
	}
	got, err := s.Transaction(ctx, tx.UpdateID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tx, got, cmpOpts...); diff != "" {
		t.Errorf("transaction after reopening (-want +got):\n%s", diff)
	}
	if hs, err := s.Hostings(ctx, ""); err != nil || !cmp.Equal(hostings, hs) {
		t.Errorf("hostings after reopening = %v, %v; want %v", hs, err, hostings)
	}
	// And it keeps going where it stopped.
	next := mustAppend(t, s, spec{consumes: []daml.ContractID{tx.Created()[0].ID}})
	if h, _ := s.Head(ctx); h.Sequence != 3 || h.Offsets[par1.ID] != 3 || h.LastRecordTime != next.RecordTime {
		t.Errorf("head after appending to the reopened store = %+v", h)
	}
}

// testLeader checks the [store.Leader] contract on stores that implement
// it: one leader at a time, released when its context ends.
func testLeader(t *testing.T, s ledger.Store) {
	l, ok := s.(store.Leader)
	if !ok {
		t.Skip("store does not implement store.Leader")
	}
	ctx1, cancel1 := context.WithCancel(t.Context())
	defer cancel1()
	lost1, ok, err := l.TryLead(ctx1)
	if err != nil || !ok {
		t.Fatalf("first TryLead = %v, %v; want leadership", ok, err)
	}
	if _, ok, err := l.TryLead(t.Context()); err != nil || ok {
		t.Fatalf("second TryLead while led = %v, %v; want refused", ok, err)
	}
	select {
	case <-lost1:
		t.Fatal("leadership lost while held")
	default:
	}
	cancel1()
	select {
	case <-lost1:
	case <-time.After(10 * time.Second):
		t.Fatal("lost not closed after the leader's context ended")
	}
	ctx2, cancel2 := context.WithCancel(t.Context())
	defer cancel2()
	lost2, ok, err := l.TryLead(ctx2)
	if err != nil || !ok {
		t.Fatalf("TryLead after release = %v, %v; want leadership", ok, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost2:
	case <-time.After(10 * time.Second):
		t.Fatal("lost not closed by Close")
	}
}

// ExerciseShared runs the tests for stores that several processes can
// share (PostgreSQL): open returns two fresh stores on the same empty data,
// standing for two sandnet processes. Writers of both must commit in one
// total order, consume a contract at most once between them, and agree on
// one leader.
func ExerciseShared(t *testing.T, open func(t *testing.T) (ledger.Store, ledger.Store)) {
	t.Run("OneOrder", func(t *testing.T) {
		t.Parallel()
		a, b := open(t)
		ctx := t.Context()
		setupNetwork(t, a)
		c := mustAppend(t, b, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}}).Created()[0]
		const n = 16
		errs := make([]error, n)
		consumed := make([]bool, n)
		var wg sync.WaitGroup
		for i := range n {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Go(func() {
				// Half the writers race for c; all create.
				sp := spec{creates: []create{{tmpl: amulet, sig: []daml.Party{bob}}}, on: []ledger.ParticipantID{par1.ID, par2.ID}}
				if i%4 == 0 {
					sp.consumes = []daml.ContractID{c.ID}
				}
				_, errs[i] = appendTx(ctx, s, sp)
				consumed[i] = errs[i] == nil && i%4 == 0
			})
		}
		wg.Wait()
		wins, ok := 0, 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
				if consumed[i] {
					wins++
				}
			case !fault.Is(err, fault.Aborted) || i%4 != 0:
				t.Errorf("writer %d: %v", i, err)
			}
		}
		if wins != 1 {
			t.Errorf("%d writers consumed the contract; want 1", wins)
		}
		for _, s := range []ledger.Store{a, b} {
			h, err := s.Head(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if h.Sequence != int64(ok)+1 || h.Offsets[par2.ID] != ledger.Offset(ok) {
				t.Errorf("head = %+v; want sequence %d and par2 at offset %d", h, ok+1, ok)
			}
			us, err := s.Updates(ctx, ledger.UpdateQuery{Participant: par2.ID})
			if err != nil {
				t.Fatal(err)
			}
			for i, u := range us {
				if u.Offset != ledger.Offset(i+1) || (i > 0 && u.Transaction.RecordTime <= us[i-1].Transaction.RecordTime) {
					t.Errorf("par2's stream out of order at %d: offset %d", i, u.Offset)
				}
			}
		}
	})
	t.Run("Deduplication", func(t *testing.T) {
		t.Parallel()
		a, b := open(t)
		sharedDeduplication(t, a, b)
	})
	t.Run("OneLeader", func(t *testing.T) {
		t.Parallel()
		a, b := open(t)
		la, okA := a.(store.Leader)
		lb, okB := b.(store.Leader)
		if !okA || !okB {
			t.Skip("store does not implement store.Leader")
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		lost, ok, err := la.TryLead(ctx)
		if err != nil || !ok {
			t.Fatalf("TryLead on a = %v, %v", ok, err)
		}
		if _, ok, err := lb.TryLead(t.Context()); err != nil || ok {
			t.Fatalf("TryLead on b while a leads = %v, %v; want refused", ok, err)
		}
		cancel()
		<-lost
		ctxB, cancelB := context.WithCancel(t.Context())
		defer cancelB()
		if _, ok, err := lb.TryLead(ctxB); err != nil || !ok {
			t.Fatalf("TryLead on b after a stepped down = %v, %v", ok, err)
		}
	})
}

// testAmountsAtDecimalsEdge stores amulets of the largest Decimal and sums
// what the store returns, as a wallet's balance does: every amount comes
// back exact, and their sum is served beyond Decimal's range.
func testAmountsAtDecimalsEdge(t *testing.T, s ledger.Store) {
	const most = "9999999999999999999999999999.9999999999"
	setupNetwork(t, s)
	mustAppend(t, s, spec{creates: []create{
		{tmpl: amulet, sig: []daml.Party{alice}, amount: most},
		{tmpl: amulet, sig: []daml.Party{alice}, amount: most},
		{tmpl: amulet, sig: []daml.Party{alice}, amount: "0.0000000001"},
	}})
	cs, err := s.ActiveContracts(t.Context(), ledger.ContractFilter{Templates: []ledger.TemplateID{amulet}, Stakeholder: alice})
	if err != nil || len(cs) != 3 {
		t.Fatalf("ActiveContracts = %d contracts, %v; want 3", len(cs), err)
	}
	var total daml.Sum
	for _, c := range cs {
		amount, ok := field(c.Argument, "amount").(*daml.Record)
		n, ok2 := field(amount, "initialAmount").(daml.Numeric)
		if !ok || !ok2 {
			t.Fatalf("contract %s has no amount.initialAmount: %v", c.ID, c.Argument)
		}
		total.Add(n)
	}
	if got, want := total.String(), "19999999999999999999999999999.9999999999"; got != want {
		t.Errorf("sum of the stored amounts = %s, want %s", got, want)
	}
}

// field returns the value of a record's field, or nil.
func field(v daml.Value, label string) daml.Value {
	if r, ok := v.(*daml.Record); ok && r != nil {
		for _, f := range r.Fields {
			if f.Label == label {
				return f.Value
			}
		}
	}
	return nil
}

// ExerciseUserExists checks an adapter's read-only user lookup.
// open returns a new store and the lookup bound to where it keeps its
// data; the store stays open meanwhile, as a running sandnet's does.
// absent is the lookup bound to a place where no ledger was ever created.
func ExerciseUserExists(t *testing.T,
	open func(t *testing.T) (ledger.Store, func(ctx context.Context, id string) (bool, error)),
	absent func(ctx context.Context, id string) (bool, error)) {
	t.Parallel()
	ctx := t.Context()
	s, exists := open(t)
	setupNetwork(t, s)
	if err := s.Write(ctx, func(w ledger.WriteTx) error {
		return w.PutUser(ctx, ledger.User{ID: "alice", Participant: par1.ID, PrimaryParty: alice})
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"alice", true},
		{"bob", false},
		{"Alice", false},
		{strings.Repeat("x", 1<<20), false},
	} {
		got, err := exists(ctx, tc.id)
		if err != nil || got != tc.want {
			t.Errorf("UserExists(%.20q) = %v, %v; want %v", tc.id, got, err, tc.want)
		}
	}
	if got, err := absent(ctx, "alice"); got || !fault.Is(err, fault.NotFound) {
		t.Errorf("UserExists where there is no ledger = %v, %v; want a fault.NotFound", got, err)
	}
}
