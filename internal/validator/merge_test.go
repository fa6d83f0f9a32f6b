package validator_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/validator"
)

// unlockedAmulets counts a wallet's amulets.
func (e *env) unlockedAmulets(t testing.TB, w validator.Wallet) int {
	t.Helper()
	_, hs, err := e.v.Holdings(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range hs {
		if !h.Locked {
			n++
		}
	}
	return n
}

// TestManyAmulets taps 300 times into one wallet, three times the 100
// inputs a transfer may spend: the wallet still pays for a name entry and
// completes a transfer that needs more than 100 of its amulets, and its
// automation merges its amulets down to one.
func TestManyAmulets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.v.Onboard(ctx, "carol", ""); err != nil {
		t.Fatal(err)
	}
	carol, bob := e.wallet(t, "carol"), e.wallet(t, "bob")
	const taps = 300
	var wg sync.WaitGroup
	limit := make(chan struct{}, 16) // concurrent taps share group commits
	for range taps {
		limit <- struct{}{}
		wg.Go(func() {
			defer func() { <-limit }()
			if _, err := e.v.Tap(ctx, carol, num("0.05"), ""); err != nil { // 10 CC at 0.005 USD
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// A client that taps sees its new amulet: none is merged until it is
	// 30 s old.
	e.step(t)
	if n := e.unlockedAmulets(t, carol); n != taps {
		t.Fatalf("carol holds %d amulets after %d taps", n, taps)
	}

	// A name entry's first payment spends the 100 largest amulets.
	req, err := e.v.RequestEntry(ctx, carol, "carol.unverified."+e.seeded.AnsAcronym, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.AcceptSubscription(ctx, carol, req.SubscriptionRequest); err != nil {
		t.Fatalf("paying for a name entry from %d amulets: %v", taps, err)
	}

	// 2,000 CC is more than any 100 of carol's amulets hold: the transfer
	// completes once the automation has merged them.
	offer, err := e.v.CreateOffer(ctx, carol, validator.OfferRequest{
		Receiver: bob.Party, Amount: num("2000.0"), ExpiresAt: e.now() + 1e10, TrackingID: "many",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.AcceptOffer(ctx, bob, offer); err != nil {
		t.Fatal(err)
	}
	before := e.unlockedAmulets(t, carol)
	e.step(t)
	if st := e.status(t, carol, "many"); st.State != validator.TransferAccepted {
		t.Fatalf("the transfer did not wait for the merges: %+v", st)
	}
	for range 10 {
		if e.status(t, carol, "many").State != validator.TransferAccepted && e.unlockedAmulets(t, carol) <= 1 {
			break
		}
		if _, err := e.net.AdvanceClock(ctx, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		e.step(t)
	}
	if st := e.status(t, carol, "many"); st.State != validator.TransferCompleted {
		t.Fatalf("transfer of 2,000 CC from %d amulets: %+v", before, st)
	}
	if n := e.unlockedAmulets(t, carol); n != 1 {
		t.Errorf("carol holds %d amulets after the merge automation, %d before", n, before)
	}
	e.checkSupply(t)
}
