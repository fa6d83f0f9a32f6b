package ledger_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// iouCommand is a command of the bank's user on p1 that issues alice an
// IOU, with command id id.
func (b *bundle) iouCommand(id string) ledger.Command {
	return ledger.Command{
		Participant: b.p1, UserID: "bank-user", ActAs: []daml.Party{b.bank}, CommandID: id, SubmissionID: "sub-" + id,
		TraceContext: ledger.TraceContext{TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, Iou{Issuer: b.bank, Owner: b.alice, Amount: daml.MustNumeric("1")})
			return err
		},
	}
}

// completions returns p1's whole completion stream.
func (b *bundle) completions(t testing.TB) []ledger.Completion {
	t.Helper()
	cs, err := b.net.Store().Completions(context.Background(), ledger.CompletionQuery{Participant: b.p1})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// ious counts the active IOUs.
func (b *bundle) ious(t testing.TB) int {
	t.Helper()
	cs, err := b.net.Store().ActiveContracts(context.Background(), ledger.ContractFilter{Templates: []ledger.TemplateID{iouID}})
	if err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

// accept submits cmd and fails the test unless it is accepted.
func (b *bundle) accept(t testing.TB, cmd ledger.Command) *ledger.Completion {
	t.Helper()
	tx, c, err := b.net.SubmitAndWait(context.Background(), cmd)
	if err != nil {
		t.Fatalf("submit %s: %v", cmd.CommandID, err)
	}
	if c == nil || !c.Accepted() || c.UpdateID != tx.UpdateID || c.RecordTime != tx.RecordTime {
		t.Fatalf("completion of %s = %+v; want the acceptance of %s", cmd.CommandID, c, tx.UpdateID)
	}
	return c
}

// duplicate submits cmd and fails the test unless it is rejected as a
// duplicate of the acceptance at earlier. It returns the rejection.
func (b *bundle) duplicate(t testing.TB, cmd ledger.Command, earlier ledger.Offset) *ledger.Completion {
	t.Helper()
	before := b.ious(t)
	_, c, err := b.net.SubmitAndWait(context.Background(), cmd)
	rej, ok := errors.AsType[*ledger.RejectedError](err)
	if !ok || c != nil {
		t.Fatalf("submit %s = %v, %v; want a rejection", cmd.CommandID, c, err)
	}
	f, _ := fault.As(err)
	if f.Code != ledger.CodeDuplicateCommand || f.Kind != fault.AlreadyExists {
		t.Fatalf("rejection = %v (%s); want DUPLICATE_COMMAND", err, f.Code)
	}
	if got := f.Context[ledger.ContextCompletionOffset]; got != strconv.FormatInt(int64(earlier), 10) {
		t.Errorf("completion_offset = %q; want %d", got, earlier)
	}
	if b.ious(t) != before {
		t.Errorf("a duplicate created an IOU")
	}
	return rej.Completion
}

func TestDeduplication(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first := b.accept(t, b.iouCommand("c1"))
	if first.Deduplication != ledger.DeduplicateAfter(0) || first.SubmissionID != "sub-c1" || first.UserID != "bank-user" {
		t.Errorf("first completion = %+v", first)
	}

	// The same change again: rejected at an offset of its own, which
	// p1's update stream skips, with the period it was checked with.
	dup := b.duplicate(t, b.iouCommand("c1"), first.Offset)
	head, err := b.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dup.Offset != first.Offset+1 || head.Offsets[b.p1] != dup.Offset || dup.UpdateID != "" {
		t.Errorf("rejection at %d (update %q), ledger end %d; want %d", dup.Offset, dup.UpdateID, head.Offsets[b.p1], first.Offset+1)
	}
	if dup.Deduplication != ledger.DeduplicateFor(ledger.DefaultMaxDeduplicationDuration) {
		t.Errorf("rejection's period = %+v; want the maximum duration", dup.Deduplication)
	}
	if dup.RecordTime <= first.RecordTime || head.LastRecordTime != dup.RecordTime {
		t.Errorf("rejection at record time %d after %d, head at %d", dup.RecordTime, first.RecordTime, head.LastRecordTime)
	}
	ups, err := b.net.Store().Updates(ctx, ledger.UpdateQuery{Participant: b.p1, After: first.Offset})
	if err != nil || len(ups) != 0 {
		t.Errorf("p1's updates after the acceptance = %v, %v; want none", ups, err)
	}
	if cs := b.completions(t); len(cs) != 2 || cs[1].Offset != dup.Offset || cs[1].Status.Code != ledger.CodeDuplicateCommand {
		t.Errorf("completions = %+v", cs)
	}
	// The next transaction takes the next offset.
	next := b.accept(t, b.iouCommand("c2"))
	if next.Offset != dup.Offset+1 {
		t.Errorf("next acceptance at %d; want %d", next.Offset, dup.Offset+1)
	}

	// actAs is a set; another set, user or participant is another change.
	same := b.iouCommand("c1")
	same.ActAs = []daml.Party{b.bank, b.bank}
	b.duplicate(t, same, first.Offset)
	otherActAs := b.iouCommand("c1")
	otherActAs.ActAs = []daml.Party{b.alice, b.bank}
	b.accept(t, otherActAs)
	otherUser := b.iouCommand("c1")
	otherUser.UserID = "other-user"
	b.accept(t, otherUser)

	// A duration period: within it a duplicate, after it accepted again,
	// reporting the acceptance that fell out of it.
	hour := b.iouCommand("c1")
	hour.Deduplication = ledger.DeduplicateFor(time.Hour)
	b.duplicate(t, hour, first.Offset)
	if _, err := b.net.AdvanceClock(ctx, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	again := b.accept(t, hour)
	if again.Deduplication != ledger.DeduplicateAfter(first.Offset) {
		t.Errorf("period reported after the duration = %+v; want after %d", again.Deduplication, first.Offset)
	}
	b.duplicate(t, hour, again.Offset)

	// An offset period: an acceptance after the offset is within it.
	b.duplicate(t, withPeriod(b.iouCommand("c1"), ledger.DeduplicateAfter(again.Offset-1)), again.Offset)
	late := b.accept(t, withPeriod(b.iouCommand("c1"), ledger.DeduplicateAfter(again.Offset)))
	if late.Deduplication != ledger.DeduplicateAfter(again.Offset) {
		t.Errorf("period reported = %+v; want after %d", late.Deduplication, again.Offset)
	}

	// A command without a command id is never a duplicate.
	for range 2 {
		b.accept(t, b.iouCommand(""))
	}
}

func withPeriod(cmd ledger.Command, d ledger.DeduplicationPeriod) ledger.Command {
	cmd.Deduplication = d
	return cmd
}

func TestDeduplicationPeriodRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		name string
		d    ledger.DeduplicationPeriod
		code string
	}{
		{"negative duration", ledger.DeduplicateFor(-time.Second), ledger.CodeInvalidField},
		{"negative offset", ledger.DeduplicateAfter(-1), ledger.CodeNegativeOffset},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.net.Submit(context.Background(), withPeriod(b.iouCommand("bad-"+tc.name), tc.d))
			if f, ok := fault.As(err); !ok || f.Kind != fault.InvalidArgument || f.Code != tc.code {
				t.Fatalf("err = %v; want %s", err, tc.code)
			}
		})
	}
	if cs := b.completions(t); len(cs) != 0 {
		t.Errorf("refused commands have completions: %+v", cs)
	}
}

// TestNoCompletionBeforeSequencing checks that a command refused while it
// is interpreted yields no completion and changes nothing.
func TestNoCompletionBeforeSequencing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	before, err := b.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bad := b.iouCommand("c1")
	bad.Run = func(tx *ledger.Tx) error {
		_, err := ledger.Create(tx, Iou{Issuer: b.bank, Owner: b.alice, Amount: daml.MustNumeric("-1")})
		return err
	}
	if _, err := b.net.Submit(ctx, bad); !fault.Is(err, fault.DamlPrecondition) {
		t.Fatalf("err = %v; want a failed ensure", err)
	}
	after, err := b.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.completions(t)) != 0 || after.Offsets[b.p1] != before.Offsets[b.p1] {
		t.Errorf("a command refused at interpretation left a completion or an offset")
	}
	// Its flight ended with it: the same change goes through.
	b.accept(t, b.iouCommand("c1"))
}

func TestSubmissionInFlight(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	entered, release := make(chan struct{}), make(chan struct{})
	slow := b.iouCommand("c1")
	run := slow.Run
	slow.Run = func(tx *ledger.Tx) error {
		close(entered)
		<-release
		return run(tx)
	}
	done := make(chan error, 1)
	go func() {
		_, err := b.net.Submit(ctx, slow)
		done <- err
	}()
	<-entered
	_, err := b.net.Submit(ctx, b.iouCommand("c1"))
	f, ok := fault.As(err)
	if !ok || f.Code != ledger.CodeSubmissionInFlight || f.Kind != fault.Aborted || f.Context["existingSubmissionId"] != "Some(sub-c1)" {
		t.Fatalf("second submission while the first is in flight: %v (%+v)", err, f)
	}
	if got := f.Context[ledger.ContextChangeID]; got != "ChangeId(bank-user,c1,Set("+string(b.bank)+"))" {
		t.Errorf("changeId = %q", got)
	}
	// Other changes are not held up.
	b.accept(t, b.iouCommand("c2"))
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cs := b.completions(t)
	if len(cs) != 2 {
		t.Fatalf("completions = %+v; want c2's and c1's, none for the refused one", cs)
	}
	// Once decided, a resubmission is a duplicate, not in flight.
	b.duplicate(t, b.iouCommand("c1"), cs[1].Offset)
}

// TestContention races two commands that consume the same contract, both
// interpreted before either is sequenced: exactly one commits, the other
// gets a rejected completion with a LOCAL_VERDICT code and changes
// nothing.
func TestContention(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	cid := b.issue(t, b.alice, "10")
	var interpreted sync.WaitGroup
	interpreted.Add(2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			_, errs[i] = b.net.Submit(ctx, ledger.Command{
				Participant: b.p1, UserID: "alice-user", ActAs: []daml.Party{b.alice}, CommandID: "transfer-" + strconv.Itoa(i),
				Run: func(tx *ledger.Tx) error {
					_, err := ledger.Exercise[daml.ContractID](tx, cid, "Iou_Transfer", Transfer{NewOwner: b.bob})
					interpreted.Done()
					interpreted.Wait()
					return err
				},
			})
		})
	}
	wg.Wait()
	var lost *ledger.RejectedError
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
			continue
		}
		rej, ok := errors.AsType[*ledger.RejectedError](err)
		if !ok {
			t.Fatalf("loser's error = %v; want a rejection", err)
		}
		lost = rej
	}
	if wins != 1 || lost == nil {
		t.Fatalf("errors = %v; want one winner and one loser", errs)
	}
	if code := lost.Completion.Status.Code; code != ledger.CodeLockedContracts && code != ledger.CodeInactiveContracts {
		t.Errorf("loser's code = %s", code)
	}
	if lost.Completion.Status.Context["CONTRACT_ID"] != string(cid) {
		t.Errorf("loser's context = %v", lost.Completion.Status.Context)
	}
	owned, err := b.net.Store().ActiveContracts(ctx, ledger.ContractFilter{Templates: []ledger.TemplateID{iouID}, Stakeholder: b.bob})
	if err != nil || len(owned) != 1 {
		t.Errorf("bob's IOUs = %d, %v; want exactly one", len(owned), err)
	}
	cs := b.completions(t)
	rejected := 0
	for _, c := range cs {
		if !c.Accepted() {
			rejected++
			if c.Offset != lost.Completion.Offset {
				t.Errorf("rejected completion at %d; want %d", c.Offset, lost.Completion.Offset)
			}
		}
	}
	if rejected != 1 {
		t.Errorf("%d rejected completions; want 1", rejected)
	}
}

func TestSubmitAsync(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	committed := b.net.Committed()
	if err := b.net.SubmitAsync(ctx, b.iouCommand("c1")); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for len(b.completions(t)) == 0 {
		select {
		case <-committed:
			committed = b.net.Committed()
		case <-deadline:
			t.Fatal("no completion")
		}
	}
	if c := b.completions(t)[0]; !c.Accepted() || c.CommandID != "c1" {
		t.Errorf("completion = %+v", c)
	}
	// An async duplicate is answered in the stream, not by SubmitAsync.
	if err := b.net.SubmitAsync(ctx, b.iouCommand("c1")); err != nil {
		t.Fatal(err)
	}
	for len(b.completions(t)) < 2 {
		select {
		case <-committed:
			committed = b.net.Committed()
		case <-deadline:
			t.Fatal("no completion for the duplicate")
		}
	}
	if c := b.completions(t)[1]; c.Accepted() || c.Status.Code != ledger.CodeDuplicateCommand {
		t.Errorf("duplicate's completion = %+v", c)
	}
	// Refusals before the sequencer are SubmitAsync's errors.
	bad := b.iouCommand("c2")
	bad.ActAs = []daml.Party{b.bob}
	if err := b.net.SubmitAsync(ctx, bad); !fault.Is(err, fault.NotFound) {
		t.Errorf("submitting as a party p1 does not host: %v", err)
	}
}

// TestDeduplicationAcrossReopen restarts the network on its SQLite file:
// the acceptance is still there.
func TestDeduplicationAcrossReopen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.db")
	st, err := sqlitestore.OpenLedger(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	b := setupOn(t, st)
	first := b.accept(t, b.iouCommand("c1"))
	b.net.Close()
	st.Close()

	st, err = sqlitestore.OpenLedger(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b.net = reopenNetwork(t, b, st)
	b.duplicate(t, b.iouCommand("c1"), first.Offset)
}

// reopenNetwork opens a network on st with the bundle's configuration.
func reopenNetwork(t *testing.T, b *bundle, st ledger.Store) *ledger.Network {
	t.Helper()
	net, err := ledger.Open(context.Background(), st, testRegistry(), ledger.Config{
		Seed: "test", Wall: func() time.Time { return time.UnixMicro(b.wall.Load()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	return net
}

// TestDeduplicationAcrossProcesses runs two networks on one PostgreSQL
// schema, as two sandnet processes: what one accepts, the other's
// sequencer rejects as a duplicate.
func TestDeduplicationAcrossProcesses(t *testing.T) {
	t.Parallel()
	url := benchDatabaseURL(t)
	var r [8]byte
	rand.Read(r[:])
	schema := "sandnet_dedup_" + hex.EncodeToString(r[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, url); err == nil {
			defer conn.Close(ctx)
			_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		}
	})
	open := func() ledger.Store {
		st, err := pgstore.OpenLedger(context.Background(), url, schema)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a := setupOn(t, open())
	first := a.accept(t, a.iouCommand("c1"))
	b := *a
	b.net = reopenNetwork(t, a, open())
	rej := b.duplicate(t, b.iouCommand("c1"), first.Offset)
	// Both append to p1's one stream.
	if cs := a.completions(t); len(cs) != 2 || cs[1].Offset != rej.Offset {
		t.Errorf("completions seen by the first process = %+v", cs)
	}
}
