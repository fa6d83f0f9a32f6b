package splice_test

import (
	"context"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

func (s seeded) active(t testing.TB, cid daml.ContractID) bool {
	t.Helper()
	_, active, err := s.net.Store().Contract(context.Background(), cid)
	if err != nil {
		t.Fatal(err)
	}
	return active
}

// offer has alice offer bob 1.0 amulet until executeBefore, and returns the
// transfer instruction and its locked amulet.
func (s seeded) offer(t testing.TB, executeBefore daml.Timestamp) (instruction daml.ContractID, locked splice.Contract[splice.LockedAmulet]) {
	t.Helper()
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	f := s.factory(t)
	arg := s.transferArg(f, alice, bob, "1.0", []daml.ContractID{s.biggest(t, alice)})
	arg.Transfer.ExecuteBefore = executeBefore
	res, _, err := s.transferThroughFactory(t, f, []daml.Party{alice}, arg)
	if err != nil {
		t.Fatal(err)
	}
	instruction = res.Output.Pending.TransferInstructionCid
	i, err := splice.Decode[splice.AmuletTransferInstruction](s.contract(t, instruction))
	if err != nil {
		t.Fatal(err)
	}
	if locked, err = splice.Decode[splice.LockedAmulet](s.contract(t, i.Payload.LockedAmulet)); err != nil {
		t.Fatal(err)
	}
	return instruction, locked
}

// The DSO automation expires a transfer pre-approval once its expiresAt
// has passed and a transfer instruction once its transfer's executeBefore
// has, not a microsecond earlier; the instruction's locked amulet returns
// to the sender, so the supply is conserved.
func TestAutomationExpiresPreapprovalsAndTransferInstructions(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	s.settle(t)
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	executeBefore, expiresAt := after(s.now(), time.Hour), after(s.now(), 2*time.Hour)
	instruction, locked := s.offer(t, executeBefore)
	_, tx, err := s.createPreapproval(t, []daml.Party{alice, bob}, s.createPreapprovalArg(t, alice, bob, expiresAt))
	if err != nil {
		t.Fatal(err)
	}
	preapproval := createdPreapproval(t, tx)
	if res := s.runAutomation(t); res.Next == 0 || res.Next > executeBefore+1 {
		t.Errorf("the instruction's expiry is not scheduled: %+v", res)
	}

	// At executeBefore, nothing has expired yet.
	s.advance(t, time.Duration(executeBefore-s.now())*time.Microsecond)
	s.settle(t)
	if !s.active(t, instruction) || !s.active(t, locked.ID) || !s.active(t, preapproval) {
		t.Fatal("expired at executeBefore")
	}
	if res := s.runAutomation(t); res.Next == 0 || res.Next > executeBefore+1 {
		t.Errorf("the instruction's expiry is not scheduled: %+v", res)
	}

	// A microsecond later the instruction expires and alice gets the
	// locked amulet back.
	s.advance(t, time.Microsecond)
	if err := s.conserved(t, func() error { s.settle(t); return nil }); err != nil {
		t.Fatal(err)
	}
	if s.active(t, instruction) || s.active(t, locked.ID) {
		t.Fatal("the instruction or its lock outlived executeBefore")
	}
	if !s.active(t, preapproval) {
		t.Fatal("the pre-approval expired early")
	}
	returned := false
	for _, h := range s.holdings(t, alice) {
		a, b := h.Payload, locked.Payload.Amulet
		returned = returned || (a.Owner == alice && a.Amount.InitialAmount.Cmp(b.Amount.InitialAmount) == 0 && a.Amount.CreatedAt == b.Amount.CreatedAt)
	}
	if !returned {
		t.Errorf("alice did not get %s back", locked.Payload.Amulet.Amount.InitialAmount)
	}
	if res := s.runAutomation(t); res.Next == 0 || res.Next > expiresAt+1 {
		t.Errorf("the pre-approval's expiry is not scheduled: %+v", res)
	}

	// The pre-approval lives through its expiresAt and expires after it.
	s.advance(t, time.Duration(expiresAt-s.now())*time.Microsecond)
	s.settle(t)
	if !s.active(t, preapproval) {
		t.Fatal("the pre-approval expired at expiresAt")
	}
	s.advance(t, time.Microsecond)
	s.settle(t)
	if s.active(t, preapproval) {
		t.Fatal("the pre-approval outlived expiresAt")
	}
}

// When the sender already unlocked the expired lock itself, the DSO
// expires the instruction without asking for the lock (expireLock false),
// as Splice's trigger does.
func TestAutomationExpiresInstructionWithoutItsLock(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	s.settle(t)
	alice := s.user(t, "alice").Party
	executeBefore := after(s.now(), time.Hour)
	instruction, locked := s.offer(t, executeBefore)
	s.advance(t, time.Duration(executeBefore-s.now())*time.Microsecond)
	s.settle(t)
	if _, err := s.submit(t, []daml.Party{alice}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.LockedAmuletOwnerExpireLockV2Result](tx, locked.ID, "LockedAmulet_OwnerExpireLockV2", splice.LockedAmuletOwnerExpireLockV2{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s.advance(t, time.Microsecond)
	if err := s.conserved(t, func() error { s.settle(t); return nil }); err != nil {
		t.Fatal(err)
	}
	if s.active(t, instruction) {
		t.Fatal("the instruction outlived executeBefore")
	}
}
