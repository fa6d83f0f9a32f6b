package ledger_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// Iou is a test template: an issuer owes an owner an amount.
type Iou struct {
	Issuer daml.Party   `daml:"issuer"`
	Owner  daml.Party   `daml:"owner"`
	Amount daml.Numeric `daml:"amount"`
	// Viewers see the IOU without being bound by it.
	Viewers []daml.Party `daml:"viewers"`
}

var iouID = ledger.TemplateID{
	Identifier:  daml.Identifier{PackageID: "0000000000000000000000000000000000000000000000000000000000000001", ModuleName: "Test.Iou", EntityName: "Iou"},
	PackageName: "test-iou",
}

func (Iou) TemplateID() ledger.TemplateID { return iouID }
func (i Iou) Signatories() []daml.Party   { return []daml.Party{i.Issuer} }
func (i Iou) Observers() []daml.Party     { return append([]daml.Party{i.Owner}, i.Viewers...) }
func (i Iou) Ensure() error {
	if i.Amount.Sign() <= 0 {
		return fmt.Errorf("amount must be positive")
	}
	return nil
}

// Transfer moves an IOU to a new owner; the owner controls it.
type Transfer struct {
	NewOwner daml.Party `daml:"newOwner"`
}

// Split splits an IOU in two and returns both.
type Split struct {
	Amount daml.Numeric `daml:"splitAmount"`
}

// SplitResult is what Split returns.
type SplitResult struct {
	First  daml.ContractID `daml:"first"`
	Second daml.ContractID `daml:"second"`
}

func testRegistry() *ledger.Registry {
	r := ledger.NewRegistry()
	ledger.RegisterTemplate[Iou](r)
	ledger.AddChoice(r, "Iou_Transfer", true,
		func(c Iou, _ Transfer) []daml.Party { return []daml.Party{c.Owner} },
		func(tx *ledger.Tx, _ daml.ContractID, c Iou, a Transfer) (daml.ContractID, error) {
			c.Owner = a.NewOwner
			return ledger.Create(tx, c)
		})
	ledger.AddChoice(r, "Iou_Split", true,
		func(c Iou, _ Split) []daml.Party { return []daml.Party{c.Owner} },
		func(tx *ledger.Tx, _ daml.ContractID, c Iou, a Split) (SplitResult, error) {
			if err := tx.Require(a.Amount.Cmp(c.Amount) < 0, "split amount %s must be below %s", a.Amount, c.Amount); err != nil {
				return SplitResult{}, err
			}
			rest, err := c.Amount.Sub(a.Amount)
			if err != nil {
				return SplitResult{}, err
			}
			first, second := c, c
			first.Amount, second.Amount = a.Amount, rest
			f, err := ledger.Create(tx, first)
			if err != nil {
				return SplitResult{}, err
			}
			s, err := ledger.Create(tx, second)
			return SplitResult{f, s}, err
		})
	return r
}

type bundle struct {
	net              *ledger.Network
	bank, alice, bob daml.Party
	p1, p2           ledger.ParticipantID
	wall             *atomic.Int64
}

// setup opens a network on a fresh SQLite store with two participants: p1
// hosts the bank and alice, p2 hosts bob.
func setup(t testing.TB) *bundle {
	t.Helper()
	store, err := sqlitestore.OpenLedger(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return setupOn(t, store)
}

func (b *bundle) issue(t testing.TB, owner daml.Party, amount string) daml.ContractID {
	t.Helper()
	tx, err := b.net.Submit(context.Background(), ledger.Command{
		Participant: b.p1, ActAs: []daml.Party{b.bank},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, Iou{Issuer: b.bank, Owner: owner, Amount: daml.MustNumeric(amount)})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx.Created()[0].ID
}

func TestSubmitCreatesAndOrders(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	cid := b.issue(t, b.alice, "10")
	c, active, err := b.net.Store().Contract(ctx, cid)
	if err != nil || !active {
		t.Fatalf("contract %s: active=%v err=%v", cid, active, err)
	}
	if got := c.Argument.Get("amount"); got.(daml.Numeric).String() != "10.0000000000" {
		t.Errorf("amount = %v", got)
	}
	// Transfer to bob: alice (p1) acts, bob on p2 now sees the new IOU.
	tx, err := b.net.Submit(ctx, ledger.Command{
		Participant: b.p1, ActAs: []daml.Party{b.alice}, CommandID: "transfer-1",
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[daml.ContractID](tx, cid, "Iou_Transfer", Transfer{NewOwner: b.bob})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tx.Events) != 2 || tx.Events[0].Exercised == nil || tx.Events[1].Created == nil {
		t.Fatalf("tree = %+v", tx.Events)
	}
	x := tx.Events[0].Exercised
	if !x.Consuming || x.LastDescendant != 1 || len(x.Children) != 1 || x.Children[0] != 1 {
		t.Errorf("exercise node = %+v", x)
	}
	newID := tx.Events[1].Created.ID
	if res := x.ExerciseResult.(daml.ContractID); res != newID {
		t.Errorf("result %s is not the final id %s", res, newID)
	}
	if _, active, _ := b.net.Store().Contract(ctx, cid); active {
		t.Error("the transferred IOU is still active")
	}
	// The bank is a witness of the whole tree; bob sees the create only.
	if w := tx.Events[1].Witnesses; len(w) != 3 {
		t.Errorf("create witnesses = %v, want bank, alice, bob", w)
	}
	head, err := b.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Each stream begins with the topology transactions of the parties its
	// participant hosts: bank and alice on p1, bob on p2.
	if head.Offsets[b.p1] != 4 || head.Offsets[b.p2] != 2 {
		t.Errorf("offsets = %v, want p1:4 p2:2", head.Offsets)
	}
	if tx.RecordTime <= 0 || tx.EffectiveAt > tx.RecordTime {
		t.Errorf("record time %d, effective %d", tx.RecordTime, tx.EffectiveAt)
	}
}

func TestSubmitFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cid := b.issue(t, b.alice, "10")
	tests := []struct {
		name string
		cmd  ledger.Command
		want fault.Kind
	}{
		{"ensure fails", ledger.Command{Participant: b.p1, ActAs: []daml.Party{b.bank}, Run: func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, Iou{Issuer: b.bank, Owner: b.alice, Amount: daml.MustNumeric("-1")})
			return err
		}}, fault.DamlPrecondition},
		{"require fails", ledger.Command{Participant: b.p1, ActAs: []daml.Party{b.alice}, Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[SplitResult](tx, cid, "Iou_Split", Split{Amount: daml.MustNumeric("11")})
			return err
		}}, fault.DamlPrecondition},
		{"missing authorization", ledger.Command{Participant: b.p1, ActAs: []daml.Party{b.alice}, Run: func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, Iou{Issuer: b.bank, Owner: b.alice, Amount: daml.MustNumeric("1")})
			return err
		}}, fault.InvalidArgument},
		{"contract not visible", ledger.Command{Participant: b.p2, ActAs: []daml.Party{b.bob}, Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[daml.ContractID](tx, cid, "Iou_Transfer", Transfer{NewOwner: b.bob})
			return err
		}}, fault.NotFound},
		{"party not hosted", ledger.Command{Participant: b.p2, ActAs: []daml.Party{b.alice}, Run: func(tx *ledger.Tx) error {
			return nil
		}}, fault.NotFound},
		{"empty transaction", ledger.Command{Participant: b.p1, ActAs: []daml.Party{b.alice}, Run: func(tx *ledger.Tx) error {
			return nil
		}}, fault.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := b.net.Submit(context.Background(), tt.cmd)
			if got := fault.KindOf(err); err == nil || got != tt.want {
				t.Fatalf("err = %v (%v), want kind %v", err, got, tt.want)
			}
		})
	}
	// Nothing above changed the contract.
	if _, active, err := b.net.Store().Contract(context.Background(), cid); err != nil || !active {
		t.Errorf("contract disturbed: active=%v err=%v", active, err)
	}
}

// TestConsumeOnce races 16 submitters on one contract: exactly one wins.
func TestConsumeOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cid := b.issue(t, b.alice, "10")
	var wins, losses atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			_, err := b.net.Submit(context.Background(), ledger.Command{
				Participant: b.p1, ActAs: []daml.Party{b.alice},
				Run: func(tx *ledger.Tx) error {
					_, err := ledger.Exercise[daml.ContractID](tx, cid, "Iou_Transfer", Transfer{NewOwner: b.bob})
					return err
				},
			})
			switch {
			case err == nil:
				wins.Add(1)
			case fault.Is(err, fault.Aborted) || fault.Is(err, fault.NotFound):
				losses.Add(1)
			default:
				t.Errorf("unexpected error: %v", err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 || losses.Load() != 15 {
		t.Fatalf("wins=%d losses=%d, want 1 and 15", wins.Load(), losses.Load())
	}
}

func TestRecordTimeStrictlyIncreases(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// The wall clock stands still: record times must still increase.
	var last daml.Timestamp
	for i := range 5 {
		tx, err := b.net.Submit(context.Background(), ledger.Command{
			Participant: b.p1, ActAs: []daml.Party{b.bank},
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Create(tx, Iou{Issuer: b.bank, Owner: b.alice, Amount: daml.NumericFromInt(int64(i + 1))})
				return err
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if tx.RecordTime <= last {
			t.Fatalf("record time %d after %d", tx.RecordTime, last)
		}
		last = tx.RecordTime
	}
}

func TestAdvanceClock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	before := b.net.Clock().Now()
	advanced := b.net.Clock().Advanced()
	now, err := b.net.AdvanceClock(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-advanced:
	default:
		t.Error("automation was not told about the advance")
	}
	if got := int64(now - before); got != time.Hour.Microseconds() {
		t.Errorf("advanced by %dµs", got)
	}
	if _, err := b.net.AdvanceClock(ctx, -time.Second); !fault.Is(err, fault.InvalidArgument) {
		t.Errorf("moving back: err = %v", err)
	}
	head, _ := b.net.Store().Head(ctx)
	if head.ClockOffset != time.Hour.Microseconds() {
		t.Errorf("stored offset = %d", head.ClockOffset)
	}
}

func TestDeterministicIDs(t *testing.T) {
	t.Parallel()
	run := func() []daml.ContractID {
		b := setup(t)
		return []daml.ContractID{b.issue(t, b.alice, "1"), b.issue(t, b.bob, "2")}
	}
	a, c := run(), run()
	for i := range a {
		if a[i] != c[i] {
			t.Errorf("contract %d: %s vs %s", i, a[i], c[i])
		}
	}
}

// BenchmarkSubmit measures commit throughput of simple transactions (one
// create) through the whole engine on SQLite: sequential, and with 16
// concurrent submitters whose transactions the sequencer group-commits.
// BenchmarkSubmitPostgres is the same on PostgreSQL.
func BenchmarkSubmit(b *testing.B) {
	for _, par := range []int{1, 16} {
		b.Run(fmt.Sprintf("submitters=%d", par), func(b *testing.B) {
			benchSubmit(b, setup(b), par)
		})
	}
}

// TestIDsFixedAtInterpretation checks that a transaction's contract ids
// are those its node seeds give: each create's id is "00", the
// discriminator of its seed, ledger time and stakeholders, then Canton's
// suffix; each child's seed derives from its exercise's.
func TestIDsFixedAtInterpretation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cid := b.issue(t, b.alice, "10")
	var inside SplitResult
	tr, err := b.net.Submit(context.Background(), ledger.Command{
		Participant: b.p1, ActAs: []daml.Party{b.alice},
		Run: func(tx *ledger.Tx) error {
			var err error
			inside, err = ledger.Exercise[SplitResult](tx, cid, "Iou_Split", Split{Amount: daml.MustNumeric("4")})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.NodeSeeds) != 3 || len(tr.Events) != 3 {
		t.Fatalf("%d seeds for %d nodes", len(tr.NodeSeeds), len(tr.Events))
	}
	for i, s := range tr.NodeSeeds {
		if s.NodeID != int32(i) {
			t.Errorf("seed %d is node %d's", i, s.NodeID)
		}
	}
	for i, child := range tr.Events[0].Exercised.Children {
		if got, want := tr.NodeSeeds[child].Seed, ledger.DeriveNodeSeed(tr.NodeSeeds[0].Seed, int32(i)); got != want {
			t.Errorf("child %d seed %x, want %x", i, got, want)
		}
		c := tr.Events[child].Created
		d := ledger.DeriveDiscriminator(tr.NodeSeeds[child].Seed, tr.EffectiveAt, c.Stakeholders())
		unsuffixed := "00" + hex.EncodeToString(d[:])
		rest, ok := strings.CutPrefix(string(c.ID), unsuffixed)
		if !ok || !strings.HasPrefix(rest, ledger.ContractIDSuffixPrefix+"1220") || len(rest) != 72 {
			t.Errorf("contract %s, want %s and a suffix", c.ID, unsuffixed)
		}
	}
	// Inside the command the ids were the unsuffixed ones, and the
	// transaction's result carries the committed ones.
	if tr.Final(inside.First) != tr.Events[1].Created.ID || len(inside.First) != 66 {
		t.Errorf("id inside the command %s, committed %s", inside.First, tr.Events[1].Created.ID)
	}
	res := tr.Events[0].Exercised.ExerciseResult.(*daml.Record)
	if res.Get("first") != tr.Events[1].Created.ID {
		t.Errorf("exercise result %v", res)
	}
	// The same command again at the same (pinned) ledger time gets other
	// seeds: every submission has its own.
	again := b.issue(t, b.alice, "10")
	if again[:66] == cid[:66] {
		t.Errorf("two submissions derived discriminator %s", cid[:66])
	}
}

// A command's minimum ledger time sets its effective time when it is
// ahead; one further ahead than the tolerance is waited for until the
// clock brings it within it, and the wait ends with the context.
func TestMinLedgerTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	create := func(ctx context.Context, min daml.Timestamp, rel time.Duration) (*ledger.Transaction, error) {
		return b.net.Submit(ctx, ledger.Command{
			Participant: b.p1, ActAs: []daml.Party{b.bank}, MinLedgerTime: min, MinLedgerTimeRel: rel,
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Create(tx, Iou{Issuer: b.bank, Owner: b.alice, Amount: daml.MustNumeric("1")})
				return err
			},
		})
	}
	now := b.net.Clock().Now()
	for _, tc := range []struct {
		name string
		min  daml.Timestamp
		rel  time.Duration
		want daml.Timestamp // 0: the clock's time
	}{
		{"none", 0, 0, 0},
		{"passed", now - 1_000_000, 0, 0},
		{"ahead, absolute", now + 30_000_000, 0, now + 30_000_000},
		{"ahead, relative", 0, 45 * time.Second, now + 45_000_000},
	} {
		tx, err := create(ctx, tc.min, tc.rel)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := tc.want
		if want == 0 {
			want = b.net.Clock().Now()
		}
		if tx.EffectiveAt != want {
			t.Errorf("%s: effective at %s, want %s", tc.name, tx.EffectiveAt, want)
		}
	}
	// Beyond the tolerance: the submission waits for the clock.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := create(short, now+micros(3*time.Minute), 0); err == nil {
		t.Fatalf("a minimum three minutes ahead was not waited for")
	}
	done := make(chan error, 1)
	go func() {
		_, err := create(ctx, now+micros(3*time.Minute), 0)
		done <- err
	}()
	if _, err := b.net.AdvanceClock(ctx, 2*time.Minute+time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after the clock moved: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the submission still waits after the clock moved within the tolerance")
	}
}

// micros is a duration as a span of ledger time.
func micros(d time.Duration) daml.Timestamp { return daml.Timestamp(d.Microseconds()) }
