package validator_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// TestBalanceBeyondDecimal gives a wallet amulets whose sum is beyond a
// Decimal's 28 digits before the point: its balance is the exact sum, as
// Splice's wallet renders it, never an error.
func TestBalanceBeyondDecimal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice := e.wallet(t, "alice")
	// A tap mints at most 100,000,000 CC; the DSO mints any amount. Host
	// alice where the DSO is, to mint with both.
	sv := e.seeded.SVs[0].Participant
	if _, err := e.net.ChangeHosting(ctx, alice.Party, sv, ledger.PermissionSubmission); err != nil {
		t.Fatal(err)
	}
	ac, err := splice.LoadAmuletContext(ctx, e.net.Store(), e.seeded.DSOParty, e.now())
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, err := e.net.Submit(ctx, ledger.Command{
			Participant: sv, UserID: "test", ActAs: []daml.Party{e.seeded.DSOParty, alice.Party},
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.AmuletRulesMintResult](tx, ac.AmuletRules.ID, "AmuletRules_Mint", splice.AmuletRulesMint{
					Receiver: alice.Party, Amount: num("4000000000000000000000000000.0"), OpenRound: ac.OpenRound.ID,
				})
				return err
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := e.v.Balance(ctx, alice)
	if err != nil {
		t.Fatalf("balance of 1.2e28 CC: %v", err)
	}
	// The sums, computed apart in exact rationals.
	_, hs, err := e.v.Holdings(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	unlocked, fees := new(big.Rat), new(big.Rat)
	for _, h := range hs {
		for _, x := range []struct {
			sum *big.Rat
			n   daml.Numeric
		}{{unlocked, h.EffectiveAmount}, {fees, h.AccruedFee}} {
			r, ok := new(big.Rat).SetString(x.n.String())
			if !ok {
				t.Fatalf("parse %s", x.n)
			}
			x.sum.Add(x.sum, r)
		}
	}
	if got, want := b.Unlocked.String(), unlocked.FloatString(10); got != want || len(want) < 40 {
		t.Errorf("unlocked %s, want %s", got, want)
	}
	if got, want := b.HoldingFees.String(), fees.FloatString(10); got != want {
		t.Errorf("holding fees %s, want %s", got, want)
	}
	if got := b.Locked.String(); got != "0.0000000000" {
		t.Errorf("locked %s, want 0.0000000000", got)
	}
}
