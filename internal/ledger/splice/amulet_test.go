package splice_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

func TestTap(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	for _, tc := range []struct {
		name        string
		actAs       daml.Party
		receiver    daml.Party
		amount      string
		undisclosed bool
		want        fault.Kind // 0: success
		code        string     // the fault's code, when want is set and this is not empty
	}{
		{name: "tap", actAs: alice, receiver: alice, amount: "10.5"},
		{name: "the cap", actAs: alice, receiver: alice, amount: "100000000.0"},
		// Splice's cap keeps sums of taps far from Decimal's range.
		{name: "above the cap", actAs: alice, receiver: alice, amount: "100000000.0000000001", want: fault.DamlPrecondition, code: ledger.CodeUnhandledException},
		{name: "far above the cap", actAs: alice, receiver: alice, amount: "4000000000000000000000000000.0", want: fault.DamlPrecondition, code: ledger.CodeUnhandledException},
		{name: "zero amount", actAs: alice, receiver: alice, amount: "0.0", want: fault.DamlPrecondition},
		{name: "negative amount", actAs: alice, receiver: alice, amount: "-1.0", want: fault.DamlPrecondition},
		{name: "for someone else", actAs: bob, receiver: alice, amount: "1.0", want: fault.InvalidArgument},
		{name: "rules not disclosed", actAs: alice, receiver: alice, amount: "1.0", undisclosed: true, want: fault.NotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ac := s.amuletContext(t)
			disclosed := ac.Disclosed()
			if tc.undisclosed {
				disclosed = nil
			}
			var res splice.AmuletRulesDevNetTapResult
			tx, err := s.submit(t, []daml.Party{tc.actAs}, disclosed, func(tx *ledger.Tx) (err error) {
				res, err = splice.Tap(tx, ac, tc.receiver, num(tc.amount))
				return err
			})
			if tc.want != 0 {
				wantKind(t, err, tc.want)
				if f, _ := fault.As(err); tc.code != "" && (f.Code != tc.code || !strings.Contains(f.Message, "Tapped amount <= 100,000,000")) {
					t.Errorf("code %q (%s), want %s and Splice's requirement", f.Code, f.Message, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Meta == nil || res.Meta.Values["splice.lfdecentralizedtrust.org/reason"] != "tapped DevNet faucet" {
				t.Errorf("meta %+v, want Splice's reason", res.Meta)
			}
			created := splice.CreatedIn(tx, splice.Amulet{}.TemplateID())
			if len(created) != 1 {
				t.Fatalf("created %v", created)
			}
			c, _, err := s.net.Store().Contract(context.Background(), created[0])
			if err != nil {
				t.Fatal(err)
			}
			a, err := splice.Decode[splice.Amulet](c)
			if err != nil {
				t.Fatal(err)
			}
			if a.Payload.Owner != tc.receiver || a.Payload.Amount.InitialAmount.Cmp(num(tc.amount)) != 0 ||
				a.Payload.Amount.CreatedAt != ac.OpenRound.Payload.Round || res.AmuletSum.Round != ac.OpenRound.Payload.Round {
				t.Errorf("tapped %+v (result %+v)", a.Payload, res)
			}
		})
	}
}

func TestTransfer(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	for _, tc := range []struct {
		name    string
		actAs   []daml.Party
		inputs  func() []daml.ContractID
		outputs []splice.TransferOutput
		want    fault.Kind
	}{
		{name: "pay bob", actAs: []daml.Party{alice, bob}, outputs: []splice.TransferOutput{splice.Pay(bob, num("100.0"))}},
		{name: "split to self", actAs: []daml.Party{alice}, outputs: []splice.TransferOutput{splice.Pay(alice, num("1.0")), splice.Pay(alice, num("2.0"))}},
		{name: "insufficient funds", actAs: []daml.Party{alice, bob}, outputs: []splice.TransferOutput{splice.Pay(bob, num("100000.0"))}, want: fault.DamlPrecondition},
		{name: "zero output", actAs: []daml.Party{alice, bob}, outputs: []splice.TransferOutput{splice.Pay(bob, num("0.0"))}, want: fault.DamlPrecondition},
		{name: "receiver does not authorize", actAs: []daml.Party{alice}, outputs: []splice.TransferOutput{splice.Pay(bob, num("1.0"))}, want: fault.InvalidArgument},
		{
			name: "spending someone else's amulet", actAs: []daml.Party{alice, bob},
			inputs:  func() []daml.ContractID { return ids(s.holdings(t, bob)) },
			outputs: []splice.TransferOutput{splice.Pay(alice, num("1.0"))},
			want:    fault.DamlPrecondition,
		},
		{
			name: "same input twice", actAs: []daml.Party{alice},
			inputs: func() []daml.ContractID {
				h := ids(s.holdings(t, alice))
				return append(h, h[0])
			},
			outputs: []splice.TransferOutput{splice.Pay(alice, num("1.0"))},
			want:    fault.DamlPrecondition,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ac := s.amuletContext(t)
			inputs := ids(s.holdings(t, alice))
			if tc.inputs != nil {
				inputs = tc.inputs()
			}
			before := map[daml.Party]daml.Numeric{alice: s.balance(t, alice), bob: s.balance(t, bob)}
			var res splice.TransferResult
			_, err := s.submit(t, tc.actAs, ac.Disclosed(), func(tx *ledger.Tx) (err error) {
				res, err = splice.TransferAmulet(tx, ac, alice, alice, inputs, tc.outputs...)
				return err
			})
			if tc.want != 0 {
				wantKind(t, err, tc.want)
				if a, b := s.balance(t, alice), s.balance(t, bob); a.Cmp(before[alice]) != 0 || b.Cmp(before[bob]) != 0 {
					t.Errorf("a failed transfer moved coin: alice %s→%s, bob %s→%s", before[alice], a, before[bob], b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var out daml.Numeric
			for _, o := range tc.outputs {
				out, _ = out.Add(o.Amount)
				if o.Receiver != alice {
					got, _ := s.balance(t, o.Receiver).Sub(before[o.Receiver])
					if got.Cmp(o.Amount) != 0 {
						t.Errorf("%s received %s, want %s", o.Receiver, got, o.Amount)
					}
				}
			}
			if len(res.CreatedAmulets) != len(tc.outputs) || !res.Summary.HoldingFees.IsZero() {
				t.Errorf("result %+v", res)
			}
			if res.Meta == nil || res.Meta.Values[splice.MetaTxKind] == "" {
				t.Errorf("no transaction metadata: %+v", res.Meta)
			}
		})
	}
}

func ids[T ledger.Template](cs []splice.Contract[T]) []daml.ContractID {
	out := make([]daml.ContractID, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// Holding fees accrue per round, but since CIP-78 a transfer does not
// charge them: an input counts with its initial amount and nothing is
// burned (Splice charges them only when the DSO expires a dust amulet).
func TestHoldingFeesAreNotChargedByTransfers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	amulet := s.holdings(t, alice)[0]
	created := amulet.Payload.Amount.CreatedAt

	for range 5 {
		s.advance(t, s.TickDuration)
		s.runAutomation(t)
		s.runAutomation(t)
	}
	ac := s.amuletContext(t)
	rounds := ac.OpenRound.Payload.Round.Number - created.Number
	if rounds < 4 {
		t.Fatalf("only %d rounds passed", rounds)
	}
	wantFee, err := splice.HoldingFee(amulet.Payload.Amount, ac.OpenRound.Payload.Round)
	if err != nil {
		t.Fatal(err)
	}
	perRound := amulet.Payload.Amount.RatePerRound.Rate
	if check, _ := perRound.Mul(daml.NumericFromInt(rounds)); check.Cmp(wantFee) != 0 {
		t.Fatalf("fee %s after %d rounds at %s", wantFee, rounds, perRound)
	}
	var res splice.TransferResult
	if _, err := s.submit(t, []daml.Party{alice}, ac.Disclosed(), func(tx *ledger.Tx) (err error) {
		res, err = splice.TransferAmulet(tx, ac, alice, alice, []daml.ContractID{amulet.ID}, splice.Pay(alice, num("1.0")))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !res.Summary.HoldingFees.IsZero() || !res.Summary.SenderChangeFee.IsZero() {
		t.Errorf("burned %s in holding fees and %s in change fees, want none", res.Summary.HoldingFees, res.Summary.SenderChangeFee)
	}
	left, _ := amulet.Payload.Amount.InitialAmount.Sub(num("1.0"))
	if res.Summary.SenderChangeAmount.Cmp(left) != 0 {
		t.Errorf("change %s, want %s", res.Summary.SenderChangeAmount, left)
	}
	if _, burned := res.Meta.Values[splice.MetaBurned]; burned || res.Meta.Values[splice.MetaTxKind] != "merge-split" {
		t.Errorf("meta %v", res.Meta.Values)
	}
	sup, err := splice.ComputeSupply(ctx, s.net.Store(), s.SVs[0].Participant, s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	assertSupply(t, sup, num("6000.0"))
}

// Two transactions spending the same amulet: the sequencer commits exactly
// one.
func TestDoubleSpend(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	validator := s.Validator.Party
	for round := range 5 {
		ac := s.amuletContext(t)
		input := s.holdings(t, alice)[0].ID
		var interpreted sync.WaitGroup
		interpreted.Add(2)
		errs := make([]error, 2)
		var done sync.WaitGroup
		for i, receiver := range []daml.Party{bob, validator} {
			done.Go(func() {
				_, errs[i] = s.submit(t, []daml.Party{alice, receiver}, ac.Disclosed(), func(tx *ledger.Tx) error {
					_, err := splice.TransferAmulet(tx, ac, alice, alice, []daml.ContractID{input}, splice.Pay(receiver, num("1.0")))
					// Both have read the amulet as active before either commits.
					interpreted.Done()
					interpreted.Wait()
					return err
				})
			})
		}
		done.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case fault.Is(err, fault.Aborted):
			default:
				t.Fatalf("round %d: unexpected error %v", round, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d transactions spent the same amulet (%v)", round, wins, errs)
		}
	}
}

func TestHoldingView(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	ac := s.amuletContext(t)
	amulet := s.holdings(t, alice)[0]
	view, err := s.net.Registry().InterfaceView(amulet.Contract, splice.HoldingInterface)
	if err != nil {
		t.Fatal(err)
	}
	var hv splice.HoldingView
	if err := daml.ToGo(view, &hv); err != nil {
		t.Fatal(err)
	}
	if hv.Owner != alice || hv.InstrumentID != (splice.InstrumentID{Admin: s.DSOParty, ID: "Amulet"}) || hv.Lock != nil ||
		hv.Amount.Cmp(amulet.Payload.Amount.InitialAmount) != 0 ||
		hv.Meta.Values[splice.MetaCreatedInRound] != fmt.Sprint(amulet.Payload.Amount.CreatedAt.Number) ||
		hv.Meta.Values[splice.MetaRatePerRound] != "0.00380518" {
		t.Errorf("view %+v", hv)
	}
	if rec, ok := view.(*daml.Record); !ok || rec.ID == nil || rec.ID.PackageID != splice.PackageTokenHolding.ID {
		t.Errorf("view record id %v", view)
	}

	// A locked amulet's view carries its lock.
	expires := s.now() + daml.Timestamp(time.Hour.Microseconds())
	lock := &splice.TimeLock{Holders: []daml.Party{bob}, ExpiresAt: expires}
	tx, err := s.submit(t, []daml.Party{alice, bob}, ac.Disclosed(), func(tx *ledger.Tx) error {
		out := splice.Pay(alice, num("5.0"))
		out.Lock = lock
		_, err := splice.TransferAmulet(tx, ac, alice, alice, []daml.ContractID{amulet.ID}, out)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	lockedID := splice.CreatedIn(tx, splice.LockedAmulet{}.TemplateID())[0]
	locked, _, err := s.net.Store().Contract(context.Background(), lockedID)
	if err != nil {
		t.Fatal(err)
	}
	view, err = s.net.Registry().InterfaceView(locked, splice.HoldingInterface)
	if err != nil {
		t.Fatal(err)
	}
	hv = splice.HoldingView{}
	if err := daml.ToGo(view, &hv); err != nil {
		t.Fatal(err)
	}
	if hv.Lock == nil || len(hv.Lock.Holders) != 1 || hv.Lock.Holders[0] != bob || *hv.Lock.ExpiresAt != expires {
		t.Errorf("locked view %+v", hv)
	}
	if got := s.net.Registry().Implementations(splice.HoldingInterface); len(got) != 2 {
		t.Errorf("Holding implementations %v", got)
	}
	if _, err := s.net.Registry().InterfaceView(s.amuletContext(t).OpenRound.Contract, splice.HoldingInterface); !fault.Is(err, fault.NotFound) {
		t.Errorf("a round's Holding view: %v", err)
	}
}

func assertSupply(t *testing.T, sup splice.Supply, minted daml.Numeric) {
	t.Helper()
	total, _ := sup.Holdings.Add(sup.Burned)
	if sup.Minted.Cmp(minted) != 0 || total.Cmp(sup.Minted) != 0 {
		t.Fatalf("minted %s (want %s), holdings %s + burned %s = %s", sup.Minted, minted, sup.Holdings, sup.Burned, total)
	}
}

// A property test: whatever users do, every amulet minted is either held
// or burned.
func TestSupplyInvariant(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(seed, 42))
			s := seedNetwork(t, splice.SeedConfig{})
			parties := []daml.Party{s.user(t, "alice").Party, s.user(t, "bob").Party, s.Validator.Party}
			minted := num("6000.0") // the seed's taps
			amount := func(max int) daml.Numeric {
				n, _ := daml.NumericFromInt(int64(rng.IntN(max*100) + 1)).Div(daml.NumericFromInt(100))
				return n
			}
			for step := range 80 {
				ac := s.amuletContext(t)
				from := parties[rng.IntN(len(parties))]
				switch op := rng.IntN(10); {
				case op < 3: // tap
					a := amount(500)
					if _, err := s.submit(t, []daml.Party{from}, ac.Disclosed(), func(tx *ledger.Tx) error {
						_, err := splice.Tap(tx, ac, from, a)
						return err
					}); err != nil {
						t.Fatalf("step %d: tap: %v", step, err)
					}
					minted, _ = minted.Add(a)
				case op < 7: // transfer some of the sender's amulets, maybe more than it has
					to := parties[rng.IntN(len(parties))]
					hs := ids(s.holdings(t, from))
					if len(hs) == 0 {
						continue
					}
					rng.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
					hs = hs[:1+rng.IntN(len(hs))]
					_, err := s.submit(t, []daml.Party{from, to}, ac.Disclosed(), func(tx *ledger.Tx) error {
						_, err := splice.TransferAmulet(tx, ac, from, from, hs, splice.Pay(to, amount(3000)))
						return err
					})
					if err != nil && !fault.Is(err, fault.DamlPrecondition) {
						t.Fatalf("step %d: transfer: %v", step, err)
					}
				case op < 9: // let time pass
					s.advance(t, time.Duration(rng.IntN(3)+1)*s.TickDuration)
					s.runAutomation(t)
				default: // a long jump
					s.advance(t, time.Duration(rng.IntN(40)+1)*24*time.Hour)
					s.runAutomation(t)
				}
				if step%10 == 9 {
					sup, err := splice.ComputeSupply(ctx, s.net.Store(), s.SVs[0].Participant, s.DSOParty)
					if err != nil {
						t.Fatal(err)
					}
					assertSupply(t, sup, minted)
				}
			}
			sup, err := splice.ComputeSupply(ctx, s.net.Store(), s.SVs[0].Participant, s.DSOParty)
			if err != nil {
				t.Fatal(err)
			}
			assertSupply(t, sup, minted)
			if sup.Burned.IsZero() {
				t.Error("nothing was burned: the test did not exercise holding fees")
			}
		})
	}
}
