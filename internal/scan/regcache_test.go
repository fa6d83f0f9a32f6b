package scan_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// countingStore counts the reads the registry's answers may make.
type countingStore struct {
	scan.Store
	reads atomic.Int64
}

func (s *countingStore) Cursor(ctx context.Context) (scan.Cursor, error) {
	s.reads.Add(1)
	return s.Store.Cursor(ctx)
}

func (s *countingStore) Backfilling(ctx context.Context) (scan.Backfilling, error) {
	s.reads.Add(1)
	return s.Store.Backfilling(ctx)
}

func (s *countingStore) ActiveContracts(ctx context.Context, q scan.ContractQuery) ([]*ledger.Contract, error) {
	s.reads.Add(1)
	return s.Store.ActiveContracts(ctx, q)
}

func (s *countingStore) Contract(ctx context.Context, id daml.ContractID) (*ledger.Contract, bool, error) {
	s.reads.Add(1)
	return s.Store.Contract(ctx, id)
}

// registryAnswers renders every registry answer of svc that the cache
// serves, for senders and receivers of the test: the transfer factory of
// a self transfer and of a transfer to each receiver, the allocation
// factory, each receiver's pre-approval and each provider's featured app
// right. Errors are rendered as answers.
func registryAnswers(ctx context.Context, svc *scan.Service, sender daml.Party, receivers, providers []daml.Party) string {
	var b strings.Builder
	cc := func(c scan.ChoiceContext) {
		fmt.Fprintf(&b, " sync=%s entries=[%s] disclosed=[", c.Synchronizer, entriesOf(c))
		for _, d := range c.Disclosed {
			fmt.Fprintf(&b, "%s@%s ", d.ID, d.Synchronizer)
		}
		b.WriteString("]\n")
	}
	for _, r := range append([]daml.Party{sender}, receivers...) {
		tf, err := svc.TransferFactory(ctx, sender, r)
		if err != nil {
			fmt.Fprintf(&b, "factory %s: %v\n", r, err)
			continue
		}
		fmt.Fprintf(&b, "factory %s: %s kind=%s", r, tf.Factory.ID, tf.Kind)
		cc(tf.Context)
	}
	if af, err := svc.AllocationFactory(ctx); err != nil {
		fmt.Fprintf(&b, "allocation: %v\n", err)
	} else {
		fmt.Fprintf(&b, "allocation: %s", af.Factory.ID)
		cc(af.Context)
	}
	for _, r := range receivers {
		p, err := svc.TransferPreapproval(ctx, r)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "preapproval %s: %v\n", r, err)
		case p == nil:
			fmt.Fprintf(&b, "preapproval %s: none\n", r)
		default:
			fmt.Fprintf(&b, "preapproval %s: %s\n", r, p.ID)
		}
	}
	for _, p := range providers {
		c, err := svc.FeaturedAppRight(ctx, p)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "featured %s: %v\n", p, err)
		case c == nil:
			fmt.Fprintf(&b, "featured %s: none\n", p)
		default:
			fmt.Fprintf(&b, "featured %s: %s\n", p, c.ID)
		}
	}
	return b.String()
}

// TestRegistryCacheFollowsIngestion interleaves ingestion with registry
// answers from a Scan with the cache and one without, over one store, and
// requires the same answers at every cursor: once caught up, after a
// batch that touches nothing the registry reads (which must cost no store
// read), after a pre-approval is created and archived, after round
// changes and an external-party config-state rotation, and from a new
// cache over the same store (a restart). Batches of four updates make the
// cache follow several Ingests per step.
func TestRegistryCacheFollowsIngestion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	cfg := scan.Config{DSO: e.seeded.DSOParty}
	cache := scan.NewRegistryCache()
	counting := &countingStore{Store: e.store}
	cached := &scan.Service{Config: cfg, Store: counting, Source: e.src, Registry: cache}
	uncached := &scan.Service{Config: cfg, Store: e.store, Source: e.src}
	e.ing.Observer = cache
	auto := splice.NewDSOAutomation(e.net, e.seeded, nil)
	alice, bob := e.seeded.Users[0].Party, e.seeded.Users[1].Party
	v := e.seeded.Validator
	receivers, providers := []daml.Party{bob}, []daml.Party{v.Party, e.seeded.SVs[0].Party}

	same := func(step string) string {
		t.Helper()
		want := registryAnswers(ctx, uncached, alice, receivers, providers)
		got := registryAnswers(ctx, cached, alice, receivers, providers)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: cached answers differ from the store's (-store +cached):\n%s", step, diff)
		}
		return got
	}
	submit := func(what string, actAs []daml.Party, run func(tx *ledger.Tx, ac splice.AmuletContext) error) {
		t.Helper()
		ac, err := splice.LoadAmuletContext(ctx, e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.net.Submit(ctx, ledger.Command{
			Participant: v.Participant, UserID: v.OperatorUser, ActAs: actAs, Disclosed: ac.Disclosed(),
			CommandID: splice.CommandID(what), Run: func(tx *ledger.Tx) error { return run(tx, ac) },
		}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	runAutomation := func(step string) {
		t.Helper()
		for range 4 {
			res, err := auto.RunOnce(ctx)
			if err != nil {
				t.Fatalf("%s: automation: %v", step, err)
			}
			if res.Transactions == 0 {
				return
			}
		}
	}
	advance := func(d time.Duration) {
		t.Helper()
		if _, err := e.net.AdvanceClock(ctx, d); err != nil {
			t.Fatal(err)
		}
	}

	runAutomation("bootstrap")
	e.step(t)
	first := same("caught up")
	if cache.Builds() != 1 {
		t.Errorf("builds after the first answers: %d, want 1", cache.Builds())
	}

	// A tap touches nothing the registry reads: the cache follows the
	// cursor and answers without reading the store.
	submit("tap", []daml.Party{alice}, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		_, err := splice.Tap(tx, ac, alice, daml.MustNumeric("10"))
		return err
	})
	e.step(t)
	before := counting.reads.Load()
	if got := same("after a tap"); got != first {
		t.Errorf("a tap changed the registry's answers:\n%s", cmp.Diff(first, got))
	}
	if n := counting.reads.Load() - before; n != 0 {
		t.Errorf("steady-state answers read the store %d times, want 0", n)
	}
	if cache.Builds() != 1 {
		t.Errorf("builds after a tap: %d, want 1", cache.Builds())
	}

	// bob's pre-approval: direct transfers from then on.
	expires := e.net.Clock().Now() + daml.Timestamp((90 * 24 * time.Hour).Microseconds())
	submit("preapprove", []daml.Party{bob, v.Party}, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		_, err := ledger.Exercise[splice.AmuletRulesCreateTransferPreapprovalResult](tx, ac.AmuletRules.ID, "AmuletRules_CreateTransferPreapproval",
			splice.AmuletRulesCreateTransferPreapproval{
				Context: ac.PaymentContext(), Receiver: bob, Provider: v.Party, ExpiresAt: expires, ExpectedDso: &e.seeded.DSOParty,
			})
		return err
	})
	e.step(t)
	if got := same("pre-approved"); !strings.Contains(got, "kind=direct") {
		t.Errorf("after bob's pre-approval no direct transfer:\n%s", got)
	}
	pre, err := uncached.TransferPreapproval(ctx, bob)
	if err != nil || pre == nil {
		t.Fatalf("bob's pre-approval: %v %v", pre, err)
	}

	// Its archive: offers again.
	submit("cancel", []daml.Party{bob}, func(tx *ledger.Tx, _ splice.AmuletContext) error {
		_, err := ledger.Exercise[splice.TransferPreapprovalCancelResult](tx, pre.ID, "TransferPreapproval_Cancel", splice.TransferPreapprovalCancel{P: bob})
		return err
	})
	e.step(t)
	if got := same("pre-approval archived"); strings.Contains(got, "kind=direct") {
		t.Errorf("after the archive still a direct transfer:\n%s", got)
	}

	// Round changes: the ledger's time moves a tick at a time, the
	// automation opens and closes rounds, and the Scan answers from both
	// before and after it ingests them.
	for i := range 3 {
		advance(splice.DefaultTickDuration)
		same(fmt.Sprintf("tick %d, before the automation", i))
		runAutomation(fmt.Sprintf("tick %d", i))
		same(fmt.Sprintf("tick %d, before ingestion", i))
		e.step(t)
		same(fmt.Sprintf("tick %d, ingested", i))
	}

	// A config-state rotation: the ledger's time moves past the older
	// state's targetArchiveAfter.
	stateOf := func() string {
		cc, err := uncached.TransferFactory(ctx, alice, alice)
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range cc.Context.Entries {
			if en.Key == scan.ContextKeyExternalPartyConfigState {
				return string(en.ContractID)
			}
		}
		return ""
	}
	oldState := stateOf()
	states, err := splice.Active[splice.ExternalPartyConfigState](ctx, e.net.Store(), e.seeded.DSOParty)
	if err != nil || len(states) != 2 {
		t.Fatalf("config states: %d (%v), want 2", len(states), err)
	}
	oldest := min(states[0].Payload.TargetArchiveAfter, states[1].Payload.TargetArchiveAfter)
	advance(time.Duration(oldest-e.net.Clock().Now()+1) * time.Microsecond)
	same("rotation due, before the automation")
	runAutomation("rotation")
	same("rotated, before ingestion")
	e.step(t)
	same("rotated, ingested")
	if stateOf() == oldState {
		t.Errorf("the config state %q never rotated", oldState)
	}
	builds := cache.Builds()
	if builds < 4 {
		t.Errorf("builds: %d, want a build after each change", builds)
	}

	// A restart: a new cache over the same store.
	restarted := &scan.Service{Config: cfg, Store: e.store, Source: e.src, Registry: scan.NewRegistryCache()}
	want := registryAnswers(ctx, uncached, alice, receivers, providers)
	if got := registryAnswers(ctx, restarted, alice, receivers, providers); got != want {
		t.Errorf("after a restart (-store +cached):\n%s", cmp.Diff(want, got))
	}
}

// Backfilling says the fake Scan's history is complete.
func (s *fakeStore) Backfilling(context.Context) (scan.Backfilling, error) {
	return scan.Backfilling{Complete: true, ImportUpdatesComplete: true}, nil
}

// TestRegistryCacheBatches drives the cache by hand over a store in
// memory, built at cursor 7, through batches that store a new
// ExternalPartyAmuletRules (which then is the factory) or nothing it
// holds: the answer after each is the store's, and the cache is built
// again only when it must be.
func TestRegistryCacheBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dso := daml.Party("dso::1220")
	for _, tc := range []struct {
		name string
		// batch stores into st as the case's batch does, telling c;
		// read, when set, answers while the batch is being stored.
		batch       func(st *fakeStore, c *scan.RegistryCache, factory *ledger.Contract, read func(string))
		wantFactory daml.ContractID
		wantBuilds  int64
	}{
		{"a batch of nothing it holds", func(st *fakeStore, c *scan.RegistryCache, _ *ledger.Contract, _ func(string)) {
			c.BeginIngest()
			st.ingest(8, dsoContract(t, "00other", splice.Amulet{DSO: dso}))
			c.EndIngest(scan.Cursor{Offset: 7}, scan.Cursor{Offset: 8}, []scan.Update{{Created: []*ledger.Contract{st.contracts[len(st.contracts)-1]}, Archived: []daml.ContractID{"00amulet"}}}, nil)
		}, "00epar", 1},
		{"a batch that creates a factory", func(st *fakeStore, c *scan.RegistryCache, f *ledger.Contract, _ func(string)) {
			c.BeginIngest()
			st.ingest(8, f)
			c.EndIngest(scan.Cursor{Offset: 7}, scan.Cursor{Offset: 8}, []scan.Update{{Created: []*ledger.Contract{f}}}, nil)
		}, "00epar2", 2},
		{"a batch that archives the factory", func(st *fakeStore, c *scan.RegistryCache, f *ledger.Contract, _ func(string)) {
			c.BeginIngest()
			st.mu.Lock()
			st.archived["00epar"] = true
			st.mu.Unlock()
			st.ingest(8)
			c.EndIngest(scan.Cursor{Offset: 7}, scan.Cursor{Offset: 8}, []scan.Update{{Archived: []daml.ContractID{"00epar"}}}, nil)
		}, "", 2},
		{"another process's batch before this one's", func(st *fakeStore, c *scan.RegistryCache, f *ledger.Contract, _ func(string)) {
			st.ingest(9, f)
			c.BeginIngest()
			st.ingest(10)
			c.EndIngest(scan.Cursor{Offset: 9}, scan.Cursor{Offset: 10}, nil, nil)
		}, "00epar2", 2},
		{"a failed batch", func(st *fakeStore, c *scan.RegistryCache, f *ledger.Contract, _ func(string)) {
			c.BeginIngest()
			st.ingest(8, f) // the commit's outcome is unknown
			c.EndIngest(scan.Cursor{Offset: 7}, scan.Cursor{Offset: 8}, nil, fault.New(fault.Unavailable, "connection lost"))
		}, "00epar2", 2},
		{"answers while a batch is stored", func(st *fakeStore, c *scan.RegistryCache, f *ledger.Contract, read func(string)) {
			c.BeginIngest()
			read("00epar")
			st.ingest(8, f)
			read("00epar2")
			c.EndIngest(scan.Cursor{Offset: 7}, scan.Cursor{Offset: 8}, []scan.Update{{Created: []*ledger.Contract{f}}}, nil)
		}, "00epar2", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc, _ := instructionEnv(t, false)
			st := svc.Store.(*fakeStore)
			st.cursor = 7
			c := scan.NewRegistryCache()
			svc.Registry = c
			factory := func() (daml.ContractID, error) {
				tf, err := svc.TransferFactory(ctx, "alice::1", "carol::1")
				if err != nil {
					return "", err
				}
				return tf.Factory.ID, nil
			}
			if got, err := factory(); err != nil || got != "00epar" || c.Builds() != 1 {
				t.Fatalf("first answer: factory %s (%v), %d builds", got, err, c.Builds())
			}
			read := func(want string) {
				t.Helper()
				builds := c.Builds()
				if got, err := factory(); err != nil || string(got) != want {
					t.Errorf("while stored: factory %s (%v), want %s", got, err, want)
				}
				if c.Builds() != builds {
					t.Errorf("a build was kept while a batch was stored")
				}
			}
			tc.batch(st, c, dsoContract(t, "00epar2", splice.ExternalPartyAmuletRules{DSO: dso}), read)
			got, err := factory()
			if tc.wantFactory == "" {
				if !fault.Is(err, fault.NotFound) {
					t.Errorf("after: factory %s (%v), want NotFound", got, err)
				}
			} else if err != nil || got != tc.wantFactory {
				t.Errorf("after: factory %s (%v), want %s", got, err, tc.wantFactory)
			}
			if c.Builds() != tc.wantBuilds {
				t.Errorf("builds: %d, want %d", c.Builds(), tc.wantBuilds)
			}
		})
	}
}

// TestRegistryCacheConcurrent answers from the cache while the Scan
// ingests in the background (Ingester.Run) and the ledger creates and
// archives a pre-approval and moves rounds on: every answer succeeds, and
// once ingestion has stopped and caught up the cache answers as the store.
// Run with -race.
func TestRegistryCacheConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	cfg := scan.Config{DSO: e.seeded.DSOParty}
	cache := scan.NewRegistryCache()
	cached := &scan.Service{Config: cfg, Store: e.store, Source: e.src, Registry: cache}
	uncached := &scan.Service{Config: cfg, Store: e.store, Source: e.src}
	e.ing.Observer = cache
	auto := splice.NewDSOAutomation(e.net, e.seeded, nil)
	if _, err := auto.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	alice, bob := e.seeded.Users[0].Party, e.seeded.Users[1].Party
	v := e.seeded.Validator

	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// Before the env closes its stores, on failure too.
	t.Cleanup(func() { stop(); wg.Wait() })
	wg.Go(func() { _ = e.ing.Run(runCtx, nil) })
	var answers atomic.Int64
	for range 2 {
		wg.Go(func() {
			for runCtx.Err() == nil {
				tf, err := cached.TransferFactory(ctx, alice, bob)
				if err != nil && !fault.Is(err, fault.NotFound) { // nothing ingested yet
					t.Errorf("transfer factory: %v", err)
					return
				}
				if err == nil && tf.Kind != scan.TransferOffer && tf.Kind != scan.TransferDirect {
					t.Errorf("kind %s", tf.Kind)
				}
				answers.Add(1)
			}
		})
	}
	for i := range 3 {
		ac, err := splice.LoadAmuletContext(ctx, e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.net.Submit(ctx, ledger.Command{
			Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{bob, v.Party}, Disclosed: ac.Disclosed(),
			CommandID: splice.CommandID("preapprove"),
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.AmuletRulesCreateTransferPreapprovalResult](tx, ac.AmuletRules.ID, "AmuletRules_CreateTransferPreapproval",
					splice.AmuletRulesCreateTransferPreapproval{
						Context: ac.PaymentContext(), Receiver: bob, Provider: v.Party, ExpectedDso: &e.seeded.DSOParty,
						ExpiresAt: e.net.Clock().Now() + daml.Timestamp((24 * time.Hour).Microseconds()),
					})
				return err
			},
		}); err != nil {
			t.Fatalf("pre-approve %d: %v", i, err)
		}
		time.Sleep(5 * time.Millisecond)
		pres, err := splice.Active[splice.TransferPreapproval](ctx, e.net.Store(), e.seeded.DSOParty)
		if err != nil || len(pres) != 1 {
			t.Fatalf("pre-approvals: %d (%v), want 1", len(pres), err)
		}
		pre := pres[0].ID
		if _, err := e.net.Submit(ctx, ledger.Command{
			Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{bob}, CommandID: splice.CommandID("cancel"),
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.TransferPreapprovalCancelResult](tx, pre, "TransferPreapproval_Cancel", splice.TransferPreapprovalCancel{P: bob})
				return err
			},
		}); err != nil {
			t.Fatalf("cancel %d: %v", i, err)
		}
		if _, err := e.net.AdvanceClock(ctx, splice.DefaultTickDuration); err != nil {
			t.Fatal(err)
		}
		if _, err := auto.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	wg.Wait()
	e.step(t)
	want := registryAnswers(ctx, uncached, alice, []daml.Party{bob}, []daml.Party{v.Party})
	if got := registryAnswers(ctx, cached, alice, []daml.Party{bob}, []daml.Party{v.Party}); got != want {
		t.Errorf("after ingestion stopped (-store +cached):\n%s", cmp.Diff(want, got))
	}
	if answers.Load() == 0 {
		t.Error("no answers while ingesting")
	}
}

// TestRegistryCacheShared checks a cache over a store that other
// processes ingest into: a batch stored elsewhere, which this process's
// ingester never sees, is in the next answer.
func TestRegistryCacheShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := instructionEnv(t, false)
	st := svc.Store.(*fakeStore)
	st.cursor = 7
	c := scan.NewRegistryCache()
	c.Shared = true
	svc.Registry = c
	factory := func() daml.ContractID {
		t.Helper()
		tf, err := svc.TransferFactory(ctx, "alice::1", "carol::1")
		if err != nil {
			t.Fatal(err)
		}
		return tf.Factory.ID
	}
	if got := factory(); got != "00epar" {
		t.Fatalf("first factory %s", got)
	}
	if got := factory(); got != "00epar" || c.Builds() != 1 {
		t.Fatalf("second factory %s, %d builds, want the first build", got, c.Builds())
	}
	st.ingest(8, dsoContract(t, "00epar2", splice.ExternalPartyAmuletRules{DSO: "dso::1220"}))
	if got := factory(); got != "00epar2" || c.Builds() != 2 {
		t.Errorf("after another process's batch: factory %s, %d builds, want 00epar2 from a second build", got, c.Builds())
	}
}
