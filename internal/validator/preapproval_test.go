package validator_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/validator"
)

const day = daml.Timestamp(24 * 3600_000_000)

// propose creates receiver's proposal to provider on participant, as the
// receiver's wallet or any ledger API client would.
func (e *env) propose(t testing.TB, participant ledger.ParticipantID, receiver, provider daml.Party) daml.ContractID {
	t.Helper()
	dso := e.seeded.DSOParty
	var cid daml.ContractID
	tr, err := e.net.Submit(context.Background(), ledger.Command{
		Participant: participant, UserID: "proposer", ActAs: []daml.Party{receiver}, CommandID: splice.CommandID("propose"),
		Run: func(tx *ledger.Tx) error {
			var err error
			cid, err = ledger.Create(tx, splice.TransferPreapprovalProposal{Receiver: receiver, Provider: provider, ExpectedDso: &dso})
			return err
		},
	})
	if err != nil {
		t.Fatalf("propose a pre-approval for %s: %v", receiver, err)
	}
	return tr.Final(cid)
}

func (e *env) preapproval(t testing.TB, receiver daml.Party) splice.Contract[splice.TransferPreapproval] {
	t.Helper()
	p, err := e.v.Preapproval(context.Background(), receiver)
	if err != nil {
		t.Fatalf("pre-approval of %s: %v", receiver, err)
	}
	return p
}

// The automation accepts the proposals naming the operator whose receiver
// the validator's participant hosts and has none yet, for 90 days; it
// skips other providers' proposals and receivers hosted elsewhere, and
// renews a pre-approval once it expires within 30 days, by 90 days past
// its expiry.
func TestPreapprovalAutomation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	op := e.seeded.Validator.Party
	sv := e.seeded.SVs[0]
	elsewhere, err := e.net.AllocateParty(ctx, ledger.PartySpec{Hint: "elsewhere", Hosts: []ledger.Hosting{{Participant: sv.Participant}}})
	if err != nil {
		t.Fatal(err)
	}

	e.propose(t, e.seeded.Validator.Participant, alice.Party, op)
	e.propose(t, e.seeded.Validator.Participant, bob.Party, sv.Party) // another provider
	e.propose(t, sv.Participant, elsewhere, op)                       // not hosted here
	start := e.now()
	e.step(t)
	p := e.preapproval(t, alice.Party)
	if p.Payload.Provider != op || p.Payload.ValidFrom != start || p.Payload.ExpiresAt != start+90*day {
		t.Errorf("alice's pre-approval = %+v, want the operator's from %s for 90 days", p.Payload, start)
	}
	for _, party := range []daml.Party{bob.Party, elsewhere} {
		if _, err := e.v.Preapproval(ctx, party); !fault.Is(err, fault.NotFound) {
			t.Errorf("pre-approval of %s: %v, want none", party, err)
		}
	}

	// A second proposal of a receiver that has one is left alone.
	second := e.propose(t, e.seeded.Validator.Participant, alice.Party, op)
	e.step(t)
	if ps, _ := e.v.Preapprovals(ctx); len(ps) != 1 {
		t.Errorf("%d pre-approvals after a second proposal, want 1", len(ps))
	}
	if _, active, err := e.net.Store().Contract(ctx, second); err != nil || !active {
		t.Errorf("the second proposal: active %v, %v; want left active", active, err)
	}

	// Renewal: not 61 days in (29 days left would be within 30: not yet
	// at 60), but at 60 days.
	if next, err := e.v.Automation().Step(ctx); err != nil || next != p.Payload.ExpiresAt-30*day {
		t.Errorf("next due %s (%v), want the renewal at %s", next, err, p.Payload.ExpiresAt-30*day)
	}
	if _, err := e.net.AdvanceClock(ctx, 59*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	e.step(t)
	if got := e.preapproval(t, alice.Party); got.ID != p.ID {
		t.Errorf("renewed 31 days before expiry: %+v", got.Payload)
	}
	if _, err := e.net.AdvanceClock(ctx, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	e.step(t)
	got := e.preapproval(t, alice.Party)
	if got.ID == p.ID || got.Payload.ExpiresAt != p.Payload.ExpiresAt+90*day || got.Payload.LastRenewedAt != p.Payload.ExpiresAt || got.Payload.ValidFrom != p.Payload.ValidFrom {
		t.Errorf("after 60 days: %+v, want renewed to %s", got.Payload, p.Payload.ExpiresAt+90*day)
	}
	e.checkSupply(t)
}

// A wallet's pre-approval: created at once through a proposal, a 409 with
// the same contract the second time, sent to, cancelled by the provider.
func TestWalletPreapproval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	cid, existed, err := e.v.CreatePreapproval(ctx, bob)
	if err != nil || existed {
		t.Fatalf("create: %s %v %v", cid, existed, err)
	}
	again, existed, err := e.v.CreatePreapproval(ctx, bob)
	if err != nil || !existed || again != cid {
		t.Errorf("create again: %s %v %v, want %s existing", again, existed, err, cid)
	}
	if e.preapproval(t, bob.Party).ID != cid {
		t.Errorf("lookup differs from the created %s", cid)
	}

	before := balance(t, e, bob)
	if err := e.v.SendThroughPreapproval(ctx, alice, validator.PreapprovalSend{Receiver: bob.Party, Amount: num("5.0"), DeduplicationID: "d-1"}); err != nil {
		t.Fatalf("send: %v", err)
	}
	if after := balance(t, e, bob); after.Cmp(before) <= 0 {
		t.Errorf("bob's balance %s after a send, before %s", after, before)
	}
	if err := e.v.SendThroughPreapproval(ctx, alice, validator.PreapprovalSend{Receiver: bob.Party, Amount: num("5.0"), DeduplicationID: "d-1"}); !fault.Is(err, fault.AlreadyExists) {
		t.Errorf("send again with the deduplication id: %v, want AlreadyExists", err)
	}
	for name, r := range map[string]validator.PreapprovalSend{
		"no pre-approval":  {Receiver: alice.Party, Amount: num("1.0"), DeduplicationID: "d-2"},
		"zero":             {Receiver: bob.Party, Amount: num("0"), DeduplicationID: "d-3"},
		"not a party":      {Receiver: "bob", Amount: num("1.0"), DeduplicationID: "d-4"},
		"no deduplication": {Receiver: bob.Party, Amount: num("1.0")},
	} {
		if err := e.v.SendThroughPreapproval(ctx, alice, r); !fault.Is(err, fault.InvalidArgument) {
			t.Errorf("%s: %v, want InvalidArgument", name, err)
		}
	}

	if err := e.v.CancelPreapproval(ctx, bob.Party); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if err := e.v.CancelPreapproval(ctx, bob.Party); !fault.Is(err, fault.NotFound) {
		t.Errorf("cancel again: %v, want NotFound", err)
	}
	if err := e.v.SendThroughPreapproval(ctx, alice, validator.PreapprovalSend{Receiver: bob.Party, Amount: num("1.0"), DeduplicationID: "d-5"}); !fault.Is(err, fault.InvalidArgument) {
		t.Errorf("send after cancel: %v, want InvalidArgument", err)
	}
	// The pending proposal is gone with the acceptance: creating again
	// proposes anew.
	if renewed, existed, err := e.v.CreatePreapproval(ctx, bob); err != nil || existed || renewed == cid {
		t.Errorf("create after cancel: %s %v %v", renewed, existed, err)
	}
	e.checkSupply(t)
}

func balance(t testing.TB, e *env, w validator.Wallet) daml.Numeric {
	t.Helper()
	b, err := e.v.Balance(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	n, err := b.Unlocked.Numeric()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The automation and wallet requests racing for the same receivers give
// each one pre-approval, never two.
func TestPreapprovalRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	done := make(chan error, 6)
	for range 2 {
		go func() { _, err := e.v.Automation().Step(ctx); done <- err }()
		for _, w := range []validator.Wallet{alice, bob} {
			go func() {
				_, _, err := e.v.CreatePreapproval(ctx, w)
				if fault.Is(err, fault.Aborted) {
					err = nil // the same request in flight: Splice's 429
				}
				done <- err
			}()
		}
	}
	for range 6 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	e.step(t)
	ps, err := e.v.Preapprovals(ctx)
	if err != nil || len(ps) != 2 {
		t.Errorf("%d pre-approvals (%v), want one each for alice and bob", len(ps), err)
	}
}

// On a clock that moves while a pre-approval is created (a real one), the
// pre-approval still lasts exactly the free base duration from its
// creation: free, so an operator without amulets creates it.
func TestWalletPreapprovalOnMovingClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var tick atomic.Int64
	tick.Store(epoch.UnixMicro())
	e := newEnvAt(t, func() time.Time { return time.UnixMicro(tick.Add(1000)) })
	bob := e.wallet(t, "bob")
	cid, existed, err := e.v.CreatePreapproval(ctx, bob)
	if err != nil || existed {
		t.Fatalf("create: %s %v %v", cid, existed, err)
	}
	p := e.preapproval(t, bob.Party)
	if p.ID != cid || p.Payload.ExpiresAt != p.Payload.ValidFrom+90*day {
		t.Errorf("pre-approval %+v, want one lasting 90 days from its creation", p.Payload)
	}
}
