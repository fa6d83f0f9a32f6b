package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/validator"
)

// ExerciseValidator runs the conformance suite of [validator.Store]. open
// returns a fresh, empty store (closed when the test ends); reopen closes s
// and returns a store on the same data, as a restarted process would see
// it. Subtests run in parallel, each on a store of its own.
func ExerciseValidator(t *testing.T, open func(t *testing.T) validator.Store,
	reopen func(t *testing.T, s validator.Store) validator.Store) {
	tests := []struct {
		name string
		run  func(t *testing.T, s validator.Store)
	}{
		{"StartsEmpty", testValidatorStartsEmpty},
		{"IngestCompareAndSwap", testValidatorIngestCAS},
		{"IngestRefusesBadEvents", testValidatorIngestRefuses},
		{"ConcurrentIngest", testValidatorConcurrentIngest},
		{"CursorWithoutEvents", testValidatorCursorWithoutEvents},
		{"LatestEventWins", testValidatorLatestWins},
		{"SenderAndReceiver", testValidatorParties},
		{"SharedTrackingID", testValidatorSharedTrackingID},
		{"RoundTrip", testValidatorRoundTrip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
	t.Run("Reopen", func(t *testing.T) {
		t.Parallel()
		testValidatorReopen(t, open(t), reopen)
	})
}

// charlie is a party that neither sends nor receives the fixtures'
// transfers, unless a test says so.
var charlie = ledger.PartyID("charlie", ledger.Fingerprint("storetest", "charlie"))

// transferEvent is the event of a transfer from sender to receiver in
// state, with the fields that state has; n makes its update (and
// contract) ids differ from those of other steps.
func transferEvent(sender, receiver daml.Party, trackingID string, state validator.TransferState, n int) validator.TransferEvent {
	e := validator.TransferEvent{
		TrackingID: trackingID,
		Sender:     sender,
		Receiver:   receiver,
		State:      state,
		UpdateID:   "1220" + hexID(fmt.Sprintf("transfer/%s/%s/%s/%d", sender, trackingID, state, n)),
		RecordTime: baseTime + daml.Timestamp(n)*1000,
	}
	if state == validator.TransferFailed {
		e.FailureKind, e.Reason = validator.FailureRejected, "receiver rejected it"
	} else {
		e.ContractID = daml.ContractID("00" + hexID(fmt.Sprintf("transfer/%s/%s/%s/%d/cid", sender, trackingID, state, n)))
	}
	return e
}

// validatorIngester ingests into a store from its cursor.
type validatorIngester struct {
	t   testing.TB
	s   validator.Store
	cur ledger.Offset
}

func newValidatorIngester(t testing.TB, s validator.Store) *validatorIngester {
	t.Helper()
	c, err := s.Cursor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &validatorIngester{t: t, s: s, cur: c}
}

// ingest records events in one Ingest that moves the cursor by 10.
func (g *validatorIngester) ingest(events ...validator.TransferEvent) {
	g.t.Helper()
	next := g.cur + 10
	if err := g.s.Ingest(context.Background(), g.cur, next, events); err != nil {
		g.t.Fatalf("Ingest(%d, %d): %v", g.cur, next, err)
	}
	g.cur = next
}

// wantTransfer checks what Transfer(party, id) returns.
func wantTransfer(t *testing.T, s validator.Store, party daml.Party, trackingID string, want validator.TransferEvent) {
	t.Helper()
	got, err := s.Transfer(t.Context(), party, trackingID)
	if err != nil {
		t.Errorf("Transfer(%s, %q): %v", party, trackingID, err)
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Transfer(%s, %q) (-want +got):\n%s", party, trackingID, diff)
	}
}

// wantSent checks what SentTransfer(sender, id) returns.
func wantSent(t *testing.T, s validator.Store, sender daml.Party, trackingID string, want validator.TransferEvent) {
	t.Helper()
	got, err := s.SentTransfer(t.Context(), sender, trackingID)
	if err != nil {
		t.Errorf("SentTransfer(%s, %q): %v", sender, trackingID, err)
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SentTransfer(%s, %q) (-want +got):\n%s", sender, trackingID, diff)
	}
}

// wantNoTransfer checks that neither Transfer(party, id) nor, with sent,
// SentTransfer(party, id) finds anything.
func wantNoTransfer(t *testing.T, s validator.Store, party daml.Party, trackingID string, sent bool) {
	t.Helper()
	if e, err := s.Transfer(t.Context(), party, trackingID); !fault.Is(err, fault.NotFound) {
		t.Errorf("Transfer(%s, %q) = %+v, %v; want NotFound", party, trackingID, e, err)
	}
	if !sent {
		return
	}
	if e, err := s.SentTransfer(t.Context(), party, trackingID); !fault.Is(err, fault.NotFound) {
		t.Errorf("SentTransfer(%s, %q) = %+v, %v; want NotFound", party, trackingID, e, err)
	}
}

// wantCursor checks the stored cursor.
func wantCursor(t *testing.T, s validator.Store, want ledger.Offset) {
	t.Helper()
	if c, err := s.Cursor(t.Context()); err != nil || c != want {
		t.Errorf("Cursor = %d, %v; want %d", c, err, want)
	}
}

func testValidatorStartsEmpty(t *testing.T, s validator.Store) {
	wantCursor(t, s, 0)
	wantNoTransfer(t, s, alice, "t1", true)
	wantNoTransfer(t, s, bob, "t1", true)
}

func testValidatorIngestCAS(t *testing.T, s validator.Store) {
	ctx := t.Context()
	first := transferEvent(alice, bob, "t1", validator.TransferCreated, 1)
	if err := s.Ingest(ctx, 0, 5, []validator.TransferEvent{first}); err != nil {
		t.Fatal(err)
	}
	wantCursor(t, s, 5)

	// A stale prev stores nothing: neither a new transfer nor a step of
	// the stored one.
	stale := []validator.TransferEvent{
		transferEvent(alice, bob, "t2", validator.TransferCreated, 2),
		transferEvent(alice, bob, "t1", validator.TransferAccepted, 3),
	}
	for _, prev := range []ledger.Offset{0, 4, 6} {
		err := s.Ingest(ctx, prev, 9, stale)
		if !fault.Is(err, fault.Aborted) {
			t.Errorf("Ingest(prev %d) error = %v; want Aborted", prev, err)
		}
	}
	wantCursor(t, s, 5)
	wantNoTransfer(t, s, alice, "t2", true)
	wantNoTransfer(t, s, bob, "t2", false)
	wantSent(t, s, alice, "t1", first)
	wantTransfer(t, s, bob, "t1", first)

	// The stored cursor is accepted.
	if err := s.Ingest(ctx, 5, 9, stale); err != nil {
		t.Fatal(err)
	}
	wantCursor(t, s, 9)
	wantSent(t, s, alice, "t1", stale[1])
	wantSent(t, s, alice, "t2", stale[0])
}

// testValidatorIngestRefuses checks that an Ingest with an event that
// cannot be stored fails with InvalidArgument, stores none of its events
// and leaves the cursor where it was.
func testValidatorIngestRefuses(t *testing.T, s validator.Store) {
	g := newValidatorIngester(t, s)
	g.ingest(transferEvent(alice, bob, "t0", validator.TransferCreated, 0))
	good := transferEvent(alice, bob, "ok", validator.TransferCreated, 1)
	tests := []struct {
		name   string
		mutate func(e *validator.TransferEvent)
	}{
		{"NoTrackingID", func(e *validator.TransferEvent) { e.TrackingID = "" }},
		{"NoSender", func(e *validator.TransferEvent) { e.Sender = "" }},
		{"NoReceiver", func(e *validator.TransferEvent) { e.Receiver = "" }},
		{"UnknownState", func(e *validator.TransferEvent) { e.State = "lost" }},
		// Text PostgreSQL cannot store, or keys beyond its index's limit:
		// refused alike by both engines, never an internal error.
		{"NULInTrackingID", func(e *validator.TransferEvent) { e.TrackingID = "a\x00b" }},
		{"InvalidUTF8TrackingID", func(e *validator.TransferEvent) { e.TrackingID = "a\xffb" }},
		{"LongTrackingID", func(e *validator.TransferEvent) { e.TrackingID = strings.Repeat("t", validator.MaxTrackingIDBytes+1) }},
		{"LongSender", func(e *validator.TransferEvent) { e.Sender = daml.Party(strings.Repeat("p", validator.MaxIDBytes+1)) }},
		{"NULInReason", func(e *validator.TransferEvent) { e.Reason = "why\x00" }},
		{"LongReason", func(e *validator.TransferEvent) { e.Reason = strings.Repeat("r", validator.MaxReasonBytes+1) }},
		{"UnknownFailureKind", func(e *validator.TransferEvent) {
			e.State, e.FailureKind, e.ContractID = validator.TransferFailed, "lost", ""
		}},
	}
	for _, tc := range tests {
		bad := transferEvent(alice, bob, "bad", validator.TransferCreated, 2)
		tc.mutate(&bad)
		err := s.Ingest(t.Context(), g.cur, g.cur+1, []validator.TransferEvent{good, bad})
		if !fault.Is(err, fault.InvalidArgument) {
			t.Errorf("%s: Ingest error = %v; want InvalidArgument", tc.name, err)
		}
	}
	if err := s.Ingest(t.Context(), g.cur, g.cur-1, nil); !fault.Is(err, fault.InvalidArgument) {
		t.Errorf("Ingest moving the cursor back: error = %v; want InvalidArgument", err)
	}
	wantCursor(t, s, g.cur)
	wantNoTransfer(t, s, alice, "ok", true)
}

// testValidatorConcurrentIngest races ingesters from the same cursor:
// exactly one wins, and only its events are stored.
func testValidatorConcurrentIngest(t *testing.T, s validator.Store) {
	g := newValidatorIngester(t, s)
	g.ingest()
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			e := transferEvent(alice, bob, fmt.Sprintf("race-%d", i), validator.TransferCreated, i)
			errs[i] = s.Ingest(context.Background(), g.cur, g.cur+ledger.Offset(i)+1, []validator.TransferEvent{e})
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("ingesters %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !fault.Is(err, fault.Aborted):
			t.Errorf("ingester %d: error = %v; want Aborted", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no ingester won")
	}
	wantCursor(t, s, g.cur+ledger.Offset(winner)+1)
	for i := range n {
		id := fmt.Sprintf("race-%d", i)
		if i == winner {
			wantSent(t, s, alice, id, transferEvent(alice, bob, id, validator.TransferCreated, i))
		} else {
			wantNoTransfer(t, s, alice, id, true)
		}
	}
}

func testValidatorCursorWithoutEvents(t *testing.T, s validator.Store) {
	ctx := t.Context()
	for _, step := range []struct {
		prev, next ledger.Offset
		events     []validator.TransferEvent
	}{
		{0, 7, nil},
		{7, 9, []validator.TransferEvent{}},
		{9, 9, nil},
		{9, 1000, nil},
	} {
		if err := s.Ingest(ctx, step.prev, step.next, step.events); err != nil {
			t.Fatalf("Ingest(%d, %d): %v", step.prev, step.next, err)
		}
		wantCursor(t, s, step.next)
	}
	wantNoTransfer(t, s, alice, "t1", true)
}

// testValidatorLatestWins records the steps of a transfer in batches of
// several shapes: after each batch, the transfer's state is the last step
// recorded, seen alike by the sender and the receiver.
func testValidatorLatestWins(t *testing.T, s validator.Store) {
	created := func(id string) validator.TransferEvent {
		return transferEvent(alice, bob, id, validator.TransferCreated, 1)
	}
	accepted := func(id string) validator.TransferEvent {
		return transferEvent(alice, bob, id, validator.TransferAccepted, 2)
	}
	completed := func(id string) validator.TransferEvent {
		return transferEvent(alice, bob, id, validator.TransferCompleted, 3)
	}
	failed := func(id string) validator.TransferEvent {
		return transferEvent(alice, bob, id, validator.TransferFailed, 4)
	}
	tests := []struct {
		id      string
		batches [][]func(string) validator.TransferEvent
	}{
		{"across-batches", [][]func(string) validator.TransferEvent{{created}, {accepted}, {completed}}},
		{"one-batch", [][]func(string) validator.TransferEvent{{created, accepted, completed}}},
		{"then-a-batch", [][]func(string) validator.TransferEvent{{created, accepted}, {completed}}},
		{"a-batch-then", [][]func(string) validator.TransferEvent{{created}, {accepted, completed}}},
		{"failed", [][]func(string) validator.TransferEvent{{created}, {failed}}},
		{"failed-in-batch", [][]func(string) validator.TransferEvent{{created, failed}}},
	}
	g := newValidatorIngester(t, s)
	for _, tc := range tests {
		for i, batch := range tc.batches {
			var events []validator.TransferEvent
			for _, step := range batch {
				events = append(events, step(tc.id))
			}
			// Another transfer's events around them change nothing.
			other := transferEvent(bob, alice, tc.id+"-other", validator.TransferCreated, i)
			g.ingest(append(append([]validator.TransferEvent{other}, events...), other)...)
			want := events[len(events)-1]
			wantSent(t, s, alice, tc.id, want)
			wantTransfer(t, s, alice, tc.id, want)
			wantTransfer(t, s, bob, tc.id, want)
			wantSent(t, s, bob, tc.id+"-other", other)
		}
	}
}

// testValidatorParties checks who finds a transfer: the sender and the
// receiver, by its tracking id only.
func testValidatorParties(t *testing.T, s validator.Store) {
	g := newValidatorIngester(t, s)
	e := transferEvent(alice, bob, "t1", validator.TransferCreated, 1)
	g.ingest(e)
	tests := []struct {
		name       string
		party      daml.Party
		trackingID string
		transfer   bool // Transfer finds e
		sent       bool // SentTransfer finds e
	}{
		{"Sender", alice, "t1", true, true},
		{"Receiver", bob, "t1", true, false},
		{"ThirdParty", charlie, "t1", false, false},
		{"OtherTrackingID", alice, "t2", false, false},
		{"TrackingIDPrefix", alice, "t", false, false},
		{"OtherTrackingIDReceiver", bob, "T1", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.transfer {
				wantTransfer(t, s, tc.party, tc.trackingID, e)
			} else {
				wantNoTransfer(t, s, tc.party, tc.trackingID, false)
			}
			if tc.sent {
				wantSent(t, s, tc.party, tc.trackingID, e)
			} else if got, err := s.SentTransfer(t.Context(), tc.party, tc.trackingID); !fault.Is(err, fault.NotFound) {
				t.Errorf("SentTransfer(%s, %q) = %+v, %v; want NotFound", tc.party, tc.trackingID, got, err)
			}
		})
	}
}

// testValidatorSharedTrackingID has two senders use the same tracking id
// towards the same receiver: the receiver sees the transfer with the
// latest event, each sender its own.
func testValidatorSharedTrackingID(t *testing.T, s validator.Store) {
	g := newValidatorIngester(t, s)
	fromAlice := transferEvent(alice, bob, "shared", validator.TransferCreated, 1)
	fromCharlie := transferEvent(charlie, bob, "shared", validator.TransferCreated, 2)
	g.ingest(fromAlice)
	g.ingest(fromCharlie)
	wantTransfer(t, s, bob, "shared", fromCharlie)
	wantTransfer(t, s, alice, "shared", fromAlice)
	wantTransfer(t, s, charlie, "shared", fromCharlie)
	wantSent(t, s, alice, "shared", fromAlice)
	wantSent(t, s, charlie, "shared", fromCharlie)
	if got, err := s.SentTransfer(t.Context(), bob, "shared"); !fault.Is(err, fault.NotFound) {
		t.Errorf("SentTransfer(receiver) = %+v, %v; want NotFound", got, err)
	}

	// A later step of alice's transfer is now the latest recorded.
	accepted := transferEvent(alice, bob, "shared", validator.TransferAccepted, 3)
	g.ingest(accepted)
	wantTransfer(t, s, bob, "shared", accepted)
	wantSent(t, s, charlie, "shared", fromCharlie)

	// Within one batch too: the later event of the batch wins.
	charlieDone := transferEvent(charlie, bob, "shared", validator.TransferCompleted, 4)
	aliceDone := transferEvent(alice, bob, "shared", validator.TransferCompleted, 5)
	g.ingest(charlieDone, aliceDone)
	wantTransfer(t, s, bob, "shared", aliceDone)
	// bob now also sends a transfer with the id, to charlie, before the
	// others' steps: bob and charlie each send one and receive one, and see
	// the latest of the two.
	fromBob := transferEvent(bob, charlie, "shared", validator.TransferCreated, 6)
	g.ingest(fromBob, aliceDone, charlieDone)
	wantTransfer(t, s, bob, "shared", charlieDone)
	wantTransfer(t, s, charlie, "shared", charlieDone)
	wantSent(t, s, alice, "shared", aliceDone)
	wantSent(t, s, charlie, "shared", charlieDone)
	wantSent(t, s, bob, "shared", fromBob)
	bobDone := transferEvent(bob, charlie, "shared", validator.TransferCompleted, 7)
	g.ingest(bobDone)
	wantTransfer(t, s, bob, "shared", bobDone)
	wantTransfer(t, s, charlie, "shared", bobDone)
	wantTransfer(t, s, alice, "shared", aliceDone)
}

// validatorRoundTripEvents is one event in each state and failure, with
// every field set that the state has, and edge values.
func validatorRoundTripEvents() []validator.TransferEvent {
	base := func(id string, state validator.TransferState) validator.TransferEvent {
		return transferEvent(alice, bob, id, state, 7)
	}
	failed := func(id string, kind validator.FailureKind, reason string) validator.TransferEvent {
		e := base(id, validator.TransferFailed)
		e.FailureKind, e.Reason = kind, reason
		return e
	}
	selfSent := base("self", validator.TransferCreated)
	selfSent.Receiver = alice
	epoch := base("epoch", validator.TransferAccepted)
	epoch.RecordTime = 0
	early := base("early", validator.TransferCompleted)
	early.RecordTime = -62135596800_000000 // 0001-01-01T00:00:00Z
	late := base("late", validator.TransferCompleted)
	late.RecordTime = 253402300799_999999 // 9999-12-31T23:59:59.999999Z
	// The largest keys an event may have (PostgreSQL indexes them): a
	// tracking id of 279 four-byte characters, the longest the template
	// allows, from and to parties of the most bytes kept.
	longest := base(strings.Repeat("😀", validator.MaxTrackingIDBytes/4), validator.TransferCreated)
	longest.Sender = daml.Party(strings.Repeat("s", validator.MaxIDBytes))
	longest.Receiver = daml.Party(strings.Repeat("r", validator.MaxIDBytes))
	return []validator.TransferEvent{
		base("created", validator.TransferCreated),
		base("accepted", validator.TransferAccepted),
		base("completed", validator.TransferCompleted),
		failed("expired", validator.FailureExpired, "the offer expired at 2026-01-01T00:00:00Z"),
		failed("rejected", validator.FailureRejected, ""),
		failed("withdrawn", validator.FailureWithdrawn, "withdrawn: insufficient funds — 'ünïcödé' \"quoted\"\n"),
		selfSent, epoch, early, late,
		base("tracking id with spaces/and/slashes ✓", validator.TransferCreated),
		longest, failed("longest reason", validator.FailureWithdrawn, strings.Repeat("ü", validator.MaxReasonBytes/2)),
	}
}

func testValidatorRoundTrip(t *testing.T, s validator.Store) {
	events := validatorRoundTripEvents()
	for _, e := range events {
		if e.State == validator.TransferFailed && e.ContractID != "" {
			t.Fatalf("fixture: failed transfer %q has a contract id", e.TrackingID)
		}
	}
	newValidatorIngester(t, s).ingest(events...)
	for _, e := range events {
		t.Run(fmt.Sprintf("%.40s", e.TrackingID), func(t *testing.T) {
			wantSent(t, s, e.Sender, e.TrackingID, e)
			wantTransfer(t, s, e.Sender, e.TrackingID, e)
			wantTransfer(t, s, e.Receiver, e.TrackingID, e)
		})
	}
}

func testValidatorReopen(t *testing.T, s validator.Store, reopen func(t *testing.T, s validator.Store) validator.Store) {
	ctx := t.Context()
	g := newValidatorIngester(t, s)
	events := validatorRoundTripEvents()
	g.ingest(events...)
	fromCharlie := transferEvent(charlie, bob, "created", validator.TransferCreated, 8)
	g.ingest(fromCharlie)
	g.ingest()

	s = reopen(t, s)
	g.s = s
	wantCursor(t, s, g.cur)
	for _, e := range events {
		wantSent(t, s, e.Sender, e.TrackingID, e)
	}
	wantTransfer(t, s, bob, "created", fromCharlie)

	// Ingestion resumes from the stored cursor, and a step recorded now is
	// later than every one before the reopen.
	accepted := transferEvent(alice, bob, "created", validator.TransferAccepted, 9)
	g.ingest(accepted)
	wantTransfer(t, s, bob, "created", accepted)
	wantSent(t, s, charlie, "created", fromCharlie)
	if err := s.Ingest(ctx, 0, 1, nil); !fault.Is(err, fault.Aborted) {
		t.Errorf("Ingest from offset 0 after reopen = %v; want Aborted", err)
	}
}
