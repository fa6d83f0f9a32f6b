package validator_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/validator"
)

var epoch = time.Date(2026, 1, 5, 10, 20, 0, 0, time.UTC)

// ledgerScan is a Scan read straight from the ledger's store: the domain
// tests need the DSO's contracts, not HTTP (the API tests and the
// end-to-end tests use the real Scan client).
type ledgerScan struct {
	s   ledger.Store
	dso daml.Party
}

func (l ledgerScan) one(ctx context.Context, tid ledger.TemplateID) (*ledger.Contract, error) {
	cs, err := l.s.ActiveContracts(ctx, ledger.ContractFilter{Templates: []ledger.TemplateID{tid}, Stakeholder: l.dso})
	if err != nil || len(cs) == 0 {
		return nil, fault.New(fault.NotFound, "no %s", tid.EntityName)
	}
	return cs[0], nil
}

func (l ledgerScan) AmuletRules(ctx context.Context) (*ledger.Contract, error) {
	return l.one(ctx, splice.AmuletRules{}.TemplateID())
}

func (l ledgerScan) AnsRules(ctx context.Context) (*ledger.Contract, error) {
	return l.one(ctx, splice.AnsRules{}.TemplateID())
}

func (l ledgerScan) ExternalPartyAmuletRules(ctx context.Context) (*ledger.Contract, error) {
	return l.one(ctx, splice.ExternalPartyAmuletRules{}.TemplateID())
}

func (l ledgerScan) OpenAndIssuingRounds(ctx context.Context) (open, issuing []*ledger.Contract, err error) {
	open, err = l.s.ActiveContracts(ctx, ledger.ContractFilter{Templates: []ledger.TemplateID{splice.OpenMiningRound{}.TemplateID()}})
	return open, nil, err
}

// TransferPreapprovalByParty is Scan's lookup: the party's pre-approval
// with the latest validFrom.
func (l ledgerScan) TransferPreapprovalByParty(ctx context.Context, party daml.Party) (*ledger.Contract, error) {
	ps, err := splice.Active[splice.TransferPreapproval](ctx, l.s, party)
	if err != nil {
		return nil, err
	}
	var best *splice.Contract[splice.TransferPreapproval]
	for i, p := range ps {
		if p.Payload.Receiver == party && (best == nil || p.Payload.ValidFrom > best.Payload.ValidFrom) {
			best = &ps[i]
		}
	}
	if best == nil {
		return nil, fault.New(fault.NotFound, "No TransferPreapproval found for party: %s", party)
	}
	return best.Contract, nil
}

func (ledgerScan) Invalidate() {}

// The registry reads are not needed by these tests: the token-standard
// wallet is tested over a real Scan (internal/api/validatorapi).
func (ledgerScan) TransferFactory(context.Context, splice.TransferFactoryTransfer) (splice.RegistryFactory, error) {
	return splice.RegistryFactory{}, fault.New(fault.FailedPrecondition, "no registry in this test")
}

func (ledgerScan) TransferInstructionContext(context.Context, daml.ContractID, string) (splice.RegistryContext, error) {
	return splice.RegistryContext{}, fault.New(fault.FailedPrecondition, "no registry in this test")
}

type env struct {
	net    *ledger.Network
	seeded *splice.Seeded
	v      *validator.Validator
	wall   *atomic.Int64
	// vs is the validator's store, in file dbPath, for tests that restart
	// the validator.
	vs     *sqlitestore.Validator
	dbPath string
}

// newEnv is an env whose wall clock stands at epoch until a test moves
// it (env.wall).
func newEnv(t testing.TB) *env { return newEnvAt(t, nil) }

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
	net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: "validator-" + t.Name(), Wall: clock})
	if err != nil {
		t.Fatal(err)
	}
	seeded, err := splice.Seed(ctx, net, splice.SeedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, "validator.db")
	vs, err := sqlitestore.OpenValidator(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vs.Close()
		net.Close()
		st.Close()
	})
	sv := seeded.Validator
	v := validator.New(validator.Config{
		Participant: sv.Participant, Party: sv.Party, OperatorUser: sv.OperatorUser,
		DSO: seeded.DSOParty, AnsAcronym: seeded.AnsAcronym,
	}, net, ledgerScan{s: net.Store(), dso: seeded.DSOParty}, vs, nil)
	return &env{net: net, seeded: seeded, v: v, wall: wall, vs: vs, dbPath: dbPath}
}

func (e *env) wallet(t testing.TB, user string) validator.Wallet {
	t.Helper()
	w, err := e.v.Wallet(context.Background(), user, "test")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (e *env) step(t testing.TB) {
	t.Helper()
	if _, err := e.v.Automation().Step(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (e *env) status(t testing.TB, w validator.Wallet, id string) validator.TransferEvent {
	t.Helper()
	ev, err := e.v.TransferStatus(context.Background(), w, id)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func (e *env) checkSupply(t testing.TB) {
	t.Helper()
	sup, err := splice.ComputeSupply(context.Background(), e.net.Store(), e.seeded.SVs[0].Participant, e.seeded.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sup.Holdings.Add(sup.Burned)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Cmp(sup.Minted) != 0 {
		t.Fatalf("supply not conserved: minted %s, holdings %s + burned %s = %s", sup.Minted, sup.Holdings, sup.Burned, sum)
	}
}

func (e *env) now() daml.Timestamp { return e.net.Clock().Now() }

func num(s string) daml.Numeric { return daml.MustNumeric(s) }

func TestTransferLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	offer := func(id, amount string, expires time.Duration) daml.ContractID {
		t.Helper()
		cid, err := e.v.CreateOffer(ctx, alice, validator.OfferRequest{
			Receiver: bob.Party, Amount: num(amount), Description: "t", ExpiresAt: e.now() + daml.Timestamp(expires.Microseconds()), TrackingID: id,
		})
		if err != nil {
			t.Fatal(err)
		}
		return cid
	}

	// Completed: the receiver accepts, the sender's automation pays.
	cid := offer("done", "10.0", time.Hour)
	if st := e.status(t, bob, "done"); st.State != validator.TransferCreated || st.ContractID != cid {
		t.Errorf("status after create: %+v", st)
	}
	if _, err := e.v.CreateOffer(ctx, alice, validator.OfferRequest{Receiver: bob.Party, Amount: num("1.0"), ExpiresAt: e.now() + 1e9, TrackingID: "done"}); !fault.Is(err, fault.AlreadyExists) {
		t.Errorf("duplicate tracking id: %v, want AlreadyExists", err)
	}
	if _, err := e.v.AcceptOffer(ctx, alice, cid); !fault.Is(err, fault.PermissionDenied) {
		t.Errorf("sender accepting: %v", err)
	}
	acc, err := e.v.AcceptOffer(ctx, bob, cid)
	if err != nil {
		t.Fatal(err)
	}
	if st := e.status(t, alice, "done"); st.State != validator.TransferAccepted || st.ContractID != acc {
		t.Errorf("status after accept: %+v", st)
	}
	e.step(t)
	st := e.status(t, alice, "done")
	if st.State != validator.TransferCompleted || st.ContractID == "" {
		t.Fatalf("status after automation: %+v", st)
	}
	if c, _, err := e.net.Store().Contract(ctx, st.ContractID); err != nil || c.Argument == nil {
		t.Errorf("completed contract %s: %v", st.ContractID, err)
	}

	// Rejected and withdrawn.
	rej := offer("rej", "1.0", time.Hour)
	if err := e.v.RejectOffer(ctx, bob, rej); err != nil {
		t.Fatal(err)
	}
	if st := e.status(t, alice, "rej"); st.State != validator.TransferFailed || st.FailureKind != validator.FailureRejected {
		t.Errorf("rejected: %+v", st)
	}
	wd := offer("wd", "1.0", time.Hour)
	if err := e.v.WithdrawOffer(ctx, alice, wd); err != nil {
		t.Fatal(err)
	}
	if st := e.status(t, bob, "wd"); st.State != validator.TransferFailed || st.FailureKind != validator.FailureWithdrawn || st.Reason != validator.WithdrawReason {
		t.Errorf("withdrawn: %+v", st)
	}

	// Exactly at expiry an offer can be accepted; after it, not; and the
	// automation expires what is left.
	at := offer("at", "1.0", time.Minute)
	late := offer("late", "1.0", time.Minute)
	if _, err := e.net.AdvanceClock(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.AcceptOffer(ctx, bob, at); err != nil {
		t.Errorf("accept exactly at expires_at: %v", err)
	}
	if _, err := e.net.AdvanceClock(ctx, time.Microsecond); err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.AcceptOffer(ctx, bob, late); !fault.Is(err, fault.DamlPrecondition) {
		t.Errorf("accept after expires_at: %v, want a Daml precondition failure", err)
	}
	e.step(t)
	for _, id := range []string{"at", "late"} {
		if st := e.status(t, alice, id); st.State != validator.TransferFailed || st.FailureKind != validator.FailureExpired {
			t.Errorf("%s after expiry: %+v", id, st)
		}
	}

	// Out of funds: the sender's wallet aborts and says why.
	big := offer("big", "1000000.0", time.Hour)
	if _, err := e.v.AcceptOffer(ctx, bob, big); err != nil {
		t.Fatal(err)
	}
	e.step(t)
	st = e.status(t, alice, "big")
	if st.State != validator.TransferFailed || st.FailureKind != validator.FailureWithdrawn || !strings.HasPrefix(st.Reason, "out of funds (missing ") {
		t.Errorf("out of funds: %+v", st)
	}
	if _, err := e.v.TransferStatus(ctx, alice, "nope"); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown tracking id: %v", err)
	}
	e.checkSupply(t)
}

// TestConcurrentCompletionsNeverOverdraw accepts many offers from one
// sender at once and runs several automation steps concurrently: the
// sender never pays more than it has, and no offer completes twice.
func TestConcurrentCompletionsNeverOverdraw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	carol, err := e.v.Onboard(ctx, "carol", "")
	if err != nil {
		t.Fatal(err)
	}
	cw := e.wallet(t, "carol")
	bob := e.wallet(t, "bob")
	if _, err := e.v.Tap(ctx, cw, num("0.5"), ""); err != nil { // 100 CC at 0.005 USD
		t.Fatal(err)
	}
	const offers = 15 // 15 × 10 CC against 100 CC
	for i := range offers {
		cid, err := e.v.CreateOffer(ctx, cw, validator.OfferRequest{
			Receiver: bob.Party, Amount: num("10.0"), ExpiresAt: e.now() + 1e10, TrackingID: fmt.Sprint("c", i),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.v.AcceptOffer(ctx, bob, cid); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				if _, err := e.v.Automation().Step(ctx); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	e.step(t)
	completed := 0
	for i := range offers {
		st := e.status(t, cw, fmt.Sprint("c", i))
		switch st.State {
		case validator.TransferCompleted:
			completed++
		case validator.TransferFailed:
		default:
			t.Errorf("offer c%d left %s", i, st.State)
		}
	}
	if completed > 10 || completed < 9 {
		t.Errorf("%d offers of 10 CC completed from a wallet of 100 CC", completed)
	}
	b, err := e.v.Balance(ctx, cw)
	if err != nil {
		t.Fatal(err)
	}
	if b.Unlocked.Sign() < 0 {
		t.Errorf("carol (%s) is overdrawn: %s", carol, b.Unlocked)
	}
	e.checkSupply(t)
}

// TestSupplyConservedUnderRandomWorkflows drives random mixes of taps,
// offers, accepts, rejects, withdrawals, expiries and completions, and
// checks after each round that every minted coin is held or was burned
// and that every offer is in exactly one state.
func TestSupplyConservedUnderRandomWorkflows(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e := newEnv(t)
			r := rand.New(rand.NewPCG(seed, seed))
			ws := []validator.Wallet{e.wallet(t, "alice"), e.wallet(t, "bob")}
			var ids []string
			for i := range 40 {
				from, to := ws[r.IntN(2)], ws[r.IntN(2)]
				switch r.IntN(7) {
				case 0:
					if _, err := e.v.Tap(ctx, from, num(fmt.Sprint(r.IntN(5)+1, ".0")), ""); err != nil {
						t.Fatal(err)
					}
				case 1, 2:
					id := fmt.Sprint("o", i)
					if _, err := e.v.CreateOffer(ctx, from, validator.OfferRequest{
						Receiver: to.Party, Amount: num(fmt.Sprint(r.IntN(3000)+1, ".5")), ExpiresAt: e.now() + daml.Timestamp(r.IntN(3600)+1)*1e6, TrackingID: id,
					}); err != nil {
						t.Fatal(err)
					}
					ids = append(ids, id)
				case 3, 4:
					offers, err := e.v.Offers(ctx, to)
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range offers {
						if o.Payload.Receiver != to.Party {
							continue
						}
						switch r.IntN(3) {
						case 0, 1:
							_, err = e.v.AcceptOffer(ctx, to, o.ID)
						case 2:
							err = e.v.RejectOffer(ctx, to, o.ID)
						}
						if err != nil && !fault.Is(err, fault.DamlPrecondition) {
							t.Fatal(err)
						}
						break
					}
				case 5:
					if _, err := e.net.AdvanceClock(ctx, time.Duration(r.IntN(1800))*time.Second); err != nil {
						t.Fatal(err)
					}
				case 6:
					e.step(t)
				}
				if i%10 == 9 {
					e.checkSupply(t)
				}
			}
			if _, err := e.net.AdvanceClock(ctx, 2*time.Hour); err != nil {
				t.Fatal(err)
			}
			e.step(t)
			e.step(t)
			e.checkSupply(t)
			for _, id := range ids {
				st, err := e.v.TransferStatus(ctx, ws[0], id)
				if err != nil {
					st, err = e.v.TransferStatus(ctx, ws[1], id)
				}
				if err != nil {
					t.Fatalf("offer %s has no state: %v", id, err)
				}
				if st.State != validator.TransferCompleted && st.State != validator.TransferFailed {
					t.Errorf("offer %s still %s after every expiry", id, st.State)
				}
			}
		})
	}
}

// TestNameRenewal moves the clock into a name entry's payment window: the
// owner's wallet automation pays, the DSO collects, and the entry comes
// back with a new contract id and a later expiry. A wallet without coin
// does not renew: its entry expires and leaves the list.
func TestNameRenewal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	dso := splice.NewDSOAutomation(e.net, e.seeded, nil)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	entries := func(w validator.Wallet) []validator.Entry {
		t.Helper()
		es, err := e.v.Entries(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	before := entries(alice)
	if len(before) != 1 || len(entries(bob)) != 1 {
		t.Fatalf("seeded entries: alice %v, bob %v", before, entries(bob))
	}
	// Bob spends everything first: he cannot pay his renewal.
	bal, err := e.v.Balance(ctx, bob)
	if err != nil {
		t.Fatal(err)
	}
	all, err := bal.Unlocked.Numeric()
	if err != nil {
		t.Fatal(err)
	}
	drain, err := e.v.CreateOffer(ctx, bob, validator.OfferRequest{Receiver: alice.Party, Amount: all, ExpiresAt: e.now() + 1e9, TrackingID: "drain"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.AcceptOffer(ctx, alice, drain); err != nil {
		t.Fatal(err)
	}
	e.step(t)
	if st := e.status(t, bob, "drain"); st.State != validator.TransferCompleted {
		t.Fatalf("draining bob: %+v", st)
	}

	// 61 days on: inside the 30-day window before the 90-day expiry.
	if _, err := e.net.AdvanceClock(ctx, 61*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := dso.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		e.step(t)
	}
	if _, err := dso.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	after := entries(alice)
	if len(after) != 1 || after[0].ContractID == before[0].ContractID || after[0].ExpiresAt <= before[0].ExpiresAt {
		t.Fatalf("alice's entry after the renewal window: %+v, before %+v", after, before)
	}
	if got, want := after[0].ExpiresAt-before[0].ExpiresAt, daml.Timestamp((90 * 24 * time.Hour).Microseconds()); got != want {
		t.Errorf("renewal extended the entry by %d µs, want %d", got, want)
	}
	// Past bob's expiry his entry is gone from his list.
	if _, err := e.net.AdvanceClock(ctx, 30*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := dso.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if es := entries(bob); len(es) != 0 {
		t.Errorf("bob's unpaid entry is still listed: %+v", es)
	}
	if es := entries(alice); len(es) != 1 {
		t.Errorf("alice's renewed entry: %+v", es)
	}
	e.checkSupply(t)
}
