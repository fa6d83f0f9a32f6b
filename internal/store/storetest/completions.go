package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The completion stream and the deduplication index
// (ledger.WriteTx.AppendCompletion, LastAcceptance, ledger.Store.Completions).

// completionsFixture is a stream of par1 with five completions: three
// accepted ones at the offsets of three transactions, and two rejected
// ones at offsets of their own, which leave gaps in par1's update stream.
type completionsFixture struct {
	all []ledger.Completion // in offset order
}

// accepted is the accepted completion of tx, at its offset on par1.
func accepted(tx *ledger.Transaction, off ledger.Offset, user, command string, actAs ...daml.Party) *ledger.Completion {
	return &ledger.Completion{
		Participant: par1.ID, Offset: off, UserID: user, CommandID: command, SubmissionID: "sub-" + command,
		ActAs: actAs, UpdateID: tx.UpdateID, Deduplication: ledger.DeduplicateAfter(0),
		TraceContext: tx.TraceContext, Synchronizer: tx.Synchronizer, RecordTime: tx.RecordTime,
	}
}

// rejected is a rejection at par1's next offset and a record time after
// the last, as the engine records one.
func rejected(h ledger.Head, user, command string, actAs ...daml.Party) *ledger.Completion {
	return &ledger.Completion{
		Participant: par1.ID, Offset: h.Offsets[par1.ID] + 1, UserID: user, CommandID: command,
		ActAs: actAs,
		Status: &fault.Error{Kind: fault.AlreadyExists, Code: "DUPLICATE_COMMAND", Message: "Command submission already exists.",
			Context: map[string]string{"completion_offset": "1", "accepted": "true"}},
		Deduplication: ledger.DeduplicateFor(30 * time.Second),
		TraceContext:  ledger.TraceContext{TraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", TraceState: "k=v"},
		Synchronizer:  sync1.ID, RecordTime: h.LastRecordTime + 7,
	}
}

// appendCompletion appends c in a write of its own.
func appendCompletion(ctx context.Context, s ledger.Store, c *ledger.Completion) error {
	return s.Write(ctx, func(w ledger.WriteTx) error { return w.AppendCompletion(ctx, c) })
}

// appendAtHead appends, in one write, what add makes from the head as the
// write sees it, and returns the completion add recorded.
func appendAtHead(t testing.TB, s ledger.Store, what string, add func(ctx context.Context, w ledger.WriteTx, h ledger.Head) (*ledger.Completion, error)) ledger.Completion {
	t.Helper()
	ctx := context.Background()
	var c *ledger.Completion
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		h, err := w.Head(ctx)
		if err != nil {
			return err
		}
		c, err = add(ctx, w, h)
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return *c
}

// acceptTx appends a transaction on par1 with its accepted completion, in
// one write, as the engine commits a command.
func acceptTx(t testing.TB, s ledger.Store, user, command string, actAs ...daml.Party) ledger.Completion {
	t.Helper()
	return appendAtHead(t, s, "accept "+command, func(ctx context.Context, w ledger.WriteTx, h ledger.Head) (*ledger.Completion, error) {
		tx, offsets := build(h, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
		if err := w.AppendTransaction(ctx, tx, offsets); err != nil {
			return nil, err
		}
		c := accepted(tx, offsets[par1.ID], user, command, actAs...)
		return c, w.AppendCompletion(ctx, c)
	})
}

// rejectNext appends a rejection at par1's next offset.
func rejectNext(t testing.TB, s ledger.Store, user, command string, actAs ...daml.Party) ledger.Completion {
	t.Helper()
	return appendAtHead(t, s, "reject "+command, func(ctx context.Context, w ledger.WriteTx, h ledger.Head) (*ledger.Completion, error) {
		c := rejected(h, user, command, actAs...)
		return c, w.AppendCompletion(ctx, c)
	})
}

func newCompletionsFixture(t *testing.T, s ledger.Store) completionsFixture {
	setupNetwork(t, s)
	return completionsFixture{all: []ledger.Completion{
		acceptTx(t, s, "alice-user", "c1", alice),             // 1
		rejectNext(t, s, "alice-user", "c1", alice),           // 2
		acceptTx(t, s, "bob-user", "c2", alice, bob),          // 3
		acceptTx(t, s, "alice-user", "c3", alice, bob, dso),   // 4
		rejectNext(t, s, "alice-user", "c4", bob, alice, dso), // 5
	}}
}

// completionOffsets reads q and returns the offsets.
func completionOffsets(t *testing.T, s ledger.Store, q ledger.CompletionQuery) []ledger.Offset {
	t.Helper()
	cs, err := s.Completions(t.Context(), q)
	if err != nil {
		t.Fatalf("Completions(%+v): %v", q, err)
	}
	out := []ledger.Offset{}
	for _, c := range cs {
		out = append(out, c.Offset)
	}
	return out
}

func testCompletions(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	f := newCompletionsFixture(t, s)

	// Read back whole, as written.
	got, err := s.Completions(ctx, ledger.CompletionQuery{Participant: par1.ID})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.all, got, cmpOpts...); diff != "" {
		t.Errorf("completions (-want +got):\n%s", diff)
	}

	// Rejections took offsets of their own: the participant's ledger end
	// moved past them, the update stream has gaps there, and the head's
	// record time moved to the last rejection's.
	h, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Offsets[par1.ID] != 5 || h.LastRecordTime != f.all[4].RecordTime {
		t.Errorf("head = offset %d, record time %d; want 5 and %d", h.Offsets[par1.ID], h.LastRecordTime, f.all[4].RecordTime)
	}
	if got := updateOffsets(t, s, ledger.UpdateQuery{Participant: par1.ID}); len(got) != 3 {
		t.Errorf("par1's updates = %v; want the 3 transactions", got)
	}

	for _, tc := range []struct {
		name string
		q    ledger.CompletionQuery
		want []ledger.Offset
	}{
		{"user", ledger.CompletionQuery{UserID: "alice-user"}, []ledger.Offset{1, 2, 4, 5}},
		{"other user", ledger.CompletionQuery{UserID: "bob-user"}, []ledger.Offset{3}},
		{"unknown user", ledger.CompletionQuery{UserID: "carol"}, []ledger.Offset{}},
		{"one party", ledger.CompletionQuery{Parties: []daml.Party{bob}}, []ledger.Offset{3, 4, 5}},
		{"parties, once each", ledger.CompletionQuery{Parties: []daml.Party{dso, bob, alice, bob}}, []ledger.Offset{1, 2, 3, 4, 5}},
		{"user and party", ledger.CompletionQuery{UserID: "alice-user", Parties: []daml.Party{bob}}, []ledger.Offset{4, 5}},
		{"user and parties", ledger.CompletionQuery{UserID: "alice-user", Parties: []daml.Party{dso, alice}}, []ledger.Offset{1, 2, 4, 5}},
		{"unknown party", ledger.CompletionQuery{Parties: []daml.Party{"carol::1220ab"}}, []ledger.Offset{}},
		{"after", ledger.CompletionQuery{After: 2}, []ledger.Offset{3, 4, 5}},
		{"until", ledger.CompletionQuery{After: 1, Until: 4}, []ledger.Offset{2, 3, 4}},
		{"limit", ledger.CompletionQuery{After: 1, Limit: 2}, []ledger.Offset{2, 3}},
		{"parties with limit", ledger.CompletionQuery{Parties: []daml.Party{alice, dso}, After: 1, Limit: 3}, []ledger.Offset{2, 3, 4}},
		{"parties until", ledger.CompletionQuery{UserID: "alice-user", Parties: []daml.Party{alice, bob}, Until: 4}, []ledger.Offset{1, 2, 4}},
		{"after the end", ledger.CompletionQuery{After: 5}, []ledger.Offset{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Participant = par1.ID
			if got := completionOffsets(t, s, tc.q); !cmp.Equal(got, tc.want) {
				t.Errorf("offsets = %v; want %v", got, tc.want)
			}
		})
	}

	// Another participant's stream is its own.
	if got := completionOffsets(t, s, ledger.CompletionQuery{Participant: par2.ID}); len(got) != 0 {
		t.Errorf("par2's completions = %v; want none", got)
	}
	unknown := ledger.ParticipantID("PAR::nobody::1220ff")
	if _, err := s.Completions(ctx, ledger.CompletionQuery{Participant: unknown}); !fault.Is(err, fault.NotFound) {
		t.Errorf("completions of an unknown participant: %v; want NotFound", err)
	}
	if err := appendCompletion(ctx, s, &ledger.Completion{Participant: unknown, Offset: 1}); !fault.Is(err, fault.NotFound) {
		t.Errorf("completion of an unknown participant: %v; want NotFound", err)
	}
	// An offset has one completion: a second fails the write, which
	// leaves nothing behind.
	dup := f.all[3]
	dup.CommandID = "again"
	if err := appendCompletion(ctx, s, &dup); err == nil {
		t.Errorf("a second completion at offset %d was stored", dup.Offset)
	}
	if got := completionOffsets(t, s, ledger.CompletionQuery{Participant: par1.ID}); len(got) != 5 {
		t.Errorf("completions after the refused one = %v", got)
	}
}

func testDeduplicationIndex(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	change := ledger.NewChangeID("alice-user", "c1", []daml.Party{alice})
	last := func() (ledger.Acceptance, bool) {
		t.Helper()
		var a ledger.Acceptance
		var ok bool
		err := s.Write(ctx, func(w ledger.WriteTx) error {
			var err error
			a, ok, err = w.LastAcceptance(ctx, par1.ID, change)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return a, ok
	}
	if a, ok := last(); ok {
		t.Fatalf("a change never submitted has an acceptance: %+v", a)
	}
	// A rejection is no acceptance.
	rejectNext(t, s, "alice-user", "c1", alice)
	if a, ok := last(); ok {
		t.Fatalf("a rejected change has an acceptance: %+v", a)
	}
	first := acceptTx(t, s, "alice-user", "c1", alice)
	want := ledger.Acceptance{Offset: first.Offset, RecordTime: first.RecordTime, SubmissionID: first.SubmissionID}
	if a, ok := last(); !ok || a != want {
		t.Errorf("acceptance = %+v, %v; want %+v", a, ok, want)
	}
	// Other changes are their own: another command, user, actAs, or
	// participant.
	for _, other := range []ledger.ChangeID{
		ledger.NewChangeID("alice-user", "c2", []daml.Party{alice}),
		ledger.NewChangeID("bob-user", "c1", []daml.Party{alice}),
		ledger.NewChangeID("alice-user", "c1", []daml.Party{alice, bob}),
	} {
		err := s.Write(ctx, func(w ledger.WriteTx) error {
			if a, ok, err := w.LastAcceptance(ctx, par1.ID, other); err != nil || ok {
				t.Errorf("acceptance of another change = %+v, %v, %v", a, ok, err)
			}
			if a, ok, err := w.LastAcceptance(ctx, par2.ID, change); err != nil || ok {
				t.Errorf("acceptance on another participant = %+v, %v, %v", a, ok, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A later acceptance replaces it, and the write that makes it sees it
	// at once; a rolled-back one leaves no trace.
	second := acceptTx(t, s, "alice-user", "c1", alice)
	if a, _ := last(); a.Offset != second.Offset {
		t.Errorf("acceptance after a second one at %d = %+v", second.Offset, a)
	}
	rollback := fault.New(fault.Internal, "roll back")
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		h, err := w.Head(ctx)
		if err != nil {
			return err
		}
		tx, offsets := build(h, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
		if err := w.AppendTransaction(ctx, tx, offsets); err != nil {
			return err
		}
		if err := w.AppendCompletion(ctx, accepted(tx, offsets[par1.ID], "alice-user", "c1", alice)); err != nil {
			return err
		}
		if a, ok, err := w.LastAcceptance(ctx, par1.ID, change); err != nil || !ok || a.Offset != offsets[par1.ID] {
			t.Errorf("inside the write, acceptance = %+v, %v, %v; want offset %d", a, ok, err, offsets[par1.ID])
		}
		return rollback
	})
	if err != rollback {
		t.Fatalf("write = %v; want the rollback", err)
	}
	if a, _ := last(); a.Offset != second.Offset {
		t.Errorf("acceptance after a rolled-back one = %+v; want offset %d", a, second.Offset)
	}
	// A completion without a command id is no change.
	c := acceptTx(t, s, "alice-user", "", alice)
	if c.ChangeID() != "" {
		t.Errorf("change id without a command id = %q", c.ChangeID())
	}
}

// testCompletionsReopen checks that completions and the deduplication
// index survive a restart.
func testCompletionsReopen(t *testing.T, s ledger.Store, reopen func(t *testing.T, s ledger.Store) ledger.Store) {
	ctx := t.Context()
	f := newCompletionsFixture(t, s)
	s = reopen(t, s)
	got, err := s.Completions(ctx, ledger.CompletionQuery{Participant: par1.ID})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.all, got, cmpOpts...); diff != "" {
		t.Errorf("completions after reopening (-want +got):\n%s", diff)
	}
	err = s.Write(ctx, func(w ledger.WriteTx) error {
		a, ok, err := w.LastAcceptance(ctx, par1.ID, f.all[3].ChangeID())
		if err != nil {
			return err
		}
		if !ok || a.Offset != f.all[3].Offset {
			t.Errorf("acceptance after reopening = %+v, %v; want offset %d", a, ok, f.all[3].Offset)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The next rejection takes the next offset.
	if c := rejectNext(t, s, "alice-user", "c9", alice); c.Offset != 6 {
		t.Errorf("rejection after reopening at offset %d; want 6", c.Offset)
	}
}

// sharedDeduplication runs on two stores over one database: an acceptance
// one records is what the other's next write transaction finds.
func sharedDeduplication(t *testing.T, a, b ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, a)
	c := acceptTx(t, a, "alice-user", "c1", alice)
	err := b.Write(ctx, func(w ledger.WriteTx) error {
		got, ok, err := w.LastAcceptance(ctx, par1.ID, c.ChangeID())
		if err != nil {
			return err
		}
		if !ok || got.Offset != c.Offset {
			t.Errorf("acceptance seen by the other store = %+v, %v; want offset %d", got, ok, c.Offset)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Both stores append to one stream.
	r := rejectNext(t, b, "alice-user", "c1", alice)
	if got := completionOffsets(t, a, ledger.CompletionQuery{Participant: par1.ID}); !cmp.Equal(got, []ledger.Offset{c.Offset, r.Offset}) {
		t.Errorf("completions seen by the first store = %v", got)
	}
}
