package splice

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Expired transfer instructions go in batches of Splice's 100, each
// unlocking the locks still active, observed by their senders, receivers
// and the DSO; what is not yet expired is scheduled a microsecond after
// its deadline, as Splice lists contracts strictly past it.
func TestPlanTransferExpiries(t *testing.T) {
	t.Parallel()
	const dso, alice, bob, other = daml.Party("dso::1"), daml.Party("alice::1"), daml.Party("bob::1"), daml.Party("other::1")
	const now = daml.Timestamp(1_000_000)
	instruction := func(n int, admin daml.Party, executeBefore daml.Timestamp) Contract[AmuletTransferInstruction] {
		sender := alice
		if n%2 == 1 {
			sender = bob
		}
		return Contract[AmuletTransferInstruction]{
			Contract: &ledger.Contract{ID: daml.ContractID(fmt.Sprintf("ti%d", n))},
			Payload: AmuletTransferInstruction{LockedAmulet: daml.ContractID(fmt.Sprintf("lock%d", n)), Transfer: TokenTransfer{
				Sender: sender, Receiver: alice, InstrumentID: AmuletInstrumentID(admin), ExecuteBefore: executeBefore,
			}},
		}
	}
	st := &dsoState{amuletRules: Contract[AmuletRules]{Contract: &ledger.Contract{ID: "rules"}}, locked: map[daml.ContractID]bool{}}
	for n := range 150 {
		st.transfers = append(st.transfers, instruction(n, dso, now-1))
		st.locked[daml.ContractID(fmt.Sprintf("lock%d", n))] = n != 7
	}
	st.transfers = append(st.transfers,
		instruction(150, dso, now),      // due at now+1
		instruction(151, other, now-1),  // another instrument's
		instruction(152, dso, now+5000)) // later
	preapproval := func(id string, owner daml.Party, expiresAt daml.Timestamp) Contract[TransferPreapproval] {
		return Contract[TransferPreapproval]{Contract: &ledger.Contract{ID: daml.ContractID(id)}, Payload: TransferPreapproval{DSO: owner, ExpiresAt: expiresAt}}
	}
	st.preapprovals = []Contract[TransferPreapproval]{
		preapproval("p0", dso, now-1), preapproval("p1", dso, now-1), preapproval("p2", dso, now), preapproval("p3", other, now-1),
	}

	a := NewAutomation(nil, AutomationConfig{DSO: dso})
	var next daml.Timestamp
	actions := a.planTransferExpiries(st, now, func(t daml.Timestamp) {
		if next == 0 || t < next {
			next = t
		}
	})
	var names []string
	for _, act := range actions {
		names = append(names, act.name)
	}
	want := []string{"expire-transfer-preapproval", "expire-transfer-preapproval", "expire-transfer-instructions", "expire-transfer-instructions"}
	if !slices.Equal(names, want) {
		t.Errorf("actions %v, want %v", names, want)
	}
	if next != now+1 {
		t.Errorf("next due %d, want %d", next, now+1)
	}

	expired := st.transfers[:150]
	args := expireTransferInstructionsArgs(dso, expired, st.locked)
	if len(args) != 2 || len(args[0].Inputs) != 100 || len(args[1].Inputs) != 50 {
		t.Fatalf("batches of %d", len(args))
	}
	for _, arg := range args {
		if arg.ExpectedDso != dso || !slices.Equal(arg.Observers, []daml.Party{alice, bob, dso}) {
			t.Errorf("batch %+v", arg)
		}
	}
	for n, in := range slices.Concat(args[0].Inputs, args[1].Inputs) {
		if in.TransferInstructionCid != expired[n].ID || in.ExpireLock != (n != 7) {
			t.Errorf("input %d: %+v", n, in)
		}
	}
}

// Expired allocations go in batches of Splice's 100 through the
// ExternalPartyAmuletRules, each unlocking the locks still active,
// observed by their senders and executors; an allocation is dated by its
// settlement's settleBefore, and what is not yet past is scheduled a
// microsecond after it.
func TestPlanAllocationExpiries(t *testing.T) {
	t.Parallel()
	const dso, alice, bob, venue, other = daml.Party("dso::1"), daml.Party("alice::1"), daml.Party("bob::1"), daml.Party("venue::1"), daml.Party("other::1")
	const now = daml.Timestamp(1_000_000)
	allocation := func(n int, admin daml.Party, settleBefore daml.Timestamp) Contract[AmuletAllocation] {
		sender := alice
		if n%2 == 1 {
			sender = bob
		}
		early := settleBefore - 500
		return Contract[AmuletAllocation]{
			Contract: &ledger.Contract{ID: daml.ContractID(fmt.Sprintf("al%d", n))},
			Payload: AmuletAllocation{LockedAmulet: daml.ContractID(fmt.Sprintf("lock%d", n)), ExpiresAt: &early, Allocation: AllocationSpecification{
				Settlement:  SettlementInfo{Executor: venue, SettleBefore: settleBefore},
				TransferLeg: TransferLeg{Sender: sender, Receiver: other, InstrumentID: AmuletInstrumentID(admin)},
			}},
		}
	}
	st := &dsoState{externalRules: []Contract[ExternalPartyAmuletRules]{{Contract: &ledger.Contract{ID: "ext-rules"}}}, locked: map[daml.ContractID]bool{}}
	for n := range 130 {
		st.allocations = append(st.allocations, allocation(n, dso, now-1))
		st.locked[daml.ContractID(fmt.Sprintf("lock%d", n))] = n != 3
	}
	st.allocations = append(st.allocations,
		allocation(130, dso, now),      // due at now+1, though its expiresAt has passed
		allocation(131, other, now-1),  // another instrument's
		allocation(132, dso, now+9000)) // later

	a := NewAutomation(nil, AutomationConfig{DSO: dso})
	var next daml.Timestamp
	actions := a.planAllocationExpiries(st, now, func(t daml.Timestamp) {
		if next == 0 || t < next {
			next = t
		}
	})
	if len(actions) != 2 || actions[0].name != "expire-amulet-allocations" {
		t.Fatalf("actions %v", actions)
	}
	if next != now+1 {
		t.Errorf("next due %v, want %v", next, now+1)
	}
	args := expireAllocationsArgs(dso, st.allocations[:130], st.locked)
	if len(args) != 2 || len(args[0].Inputs) != 100 || len(args[1].Inputs) != 30 {
		t.Fatalf("batches %d", len(args))
	}
	if in := args[0].Inputs[3]; in.AllocationCid != "al3" || in.ExpireLock {
		t.Errorf("input 3 %+v: its lock is gone", in)
	}
	if in := args[0].Inputs[4]; !in.ExpireLock {
		t.Errorf("input 4 %+v: its lock is active", in)
	}
	if got := args[0].Observers; !slices.Equal(got, []daml.Party{alice, venue, bob}) || args[0].ExpectedDso != dso {
		t.Errorf("observers %v, expected DSO %v", got, args[0].ExpectedDso)
	}
	// Without the rules there is nothing to exercise the expiry on.
	if acts := a.planAllocationExpiries(&dsoState{allocations: st.allocations}, now, func(daml.Timestamp) {}); len(acts) != 0 {
		t.Errorf("actions without the rules: %d", len(acts))
	}
}
