package testnet

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// FeatureApp has provider (a party on the validator's participant) feature
// itself through AmuletRules_DevNet_FeatureApp. It returns the
// FeaturedAppRight.
func (n *Net) FeatureApp(t testing.TB, provider daml.Party) daml.ContractID {
	t.Helper()
	ctx := context.Background()
	v := n.Seeded.Validator
	ac, err := splice.LoadAmuletContext(ctx, n.Network.Store(), n.Seeded.DSOParty, n.Network.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	var cid daml.ContractID
	tr, err := n.Network.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{provider}, Disclosed: ac.Disclosed(),
		CommandID: splice.CommandID("feature-app"),
		Run: func(tx *ledger.Tx) error {
			res, err := ledger.Exercise[splice.AmuletRulesDevNetFeatureAppResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_FeatureApp",
				splice.AmuletRulesDevNetFeatureApp{Provider: provider})
			cid = res.FeaturedAppRightCid
			return err
		},
	})
	if err != nil {
		t.Fatalf("feature %s: %v", provider, err)
	}
	return tr.Final(cid)
}

// Allocate has sender (a party on the validator's participant) allocate
// amount of its biggest holding to receiver for a settlement by executor
// with id ref, to settle before settleBefore, through
// AllocationFactory_Allocate on the DSO's ExternalPartyAmuletRules. It
// returns the AmuletAllocation.
func (n *Net) Allocate(t testing.TB, sender, receiver, executor daml.Party, amount, ref string, settleBefore daml.Timestamp) daml.ContractID {
	t.Helper()
	ctx := context.Background()
	s := n.Network.Store()
	dso := n.Seeded.DSOParty
	rules, err := splice.Active[splice.ExternalPartyAmuletRules](ctx, s, dso)
	if err != nil || len(rules) == 0 {
		t.Fatalf("external-party amulet rules: %v (%d)", err, len(rules))
	}
	states, err := splice.Active[splice.ExternalPartyConfigState](ctx, s, dso)
	if err != nil || len(states) == 0 {
		t.Fatalf("config states: %v (%d)", err, len(states))
	}
	state := slices.MaxFunc(states, func(a, b splice.Contract[splice.ExternalPartyConfigState]) int {
		return cmp.Compare(a.Payload.TargetArchiveAfter, b.Payload.TargetArchiveAfter)
	})
	holdings, err := splice.Holdings(ctx, s, sender)
	if err != nil || len(holdings) == 0 {
		t.Fatalf("holdings of %s: %v (%d)", sender, err, len(holdings))
	}
	biggest := slices.MaxFunc(holdings, func(a, b splice.Contract[splice.Amulet]) int {
		return a.Payload.Amount.InitialAmount.Cmp(b.Payload.Amount.InitialAmount)
	})
	now := n.Network.Clock().Now()
	minute := daml.Timestamp(60_000_000)
	stateID := state.ID
	arg := splice.AllocationFactoryAllocate{
		ExpectedAdmin: dso,
		Allocation: splice.AllocationSpecification{
			Settlement: splice.SettlementInfo{
				Executor: executor, SettlementRef: splice.Reference{ID: ref},
				RequestedAt: now - minute, AllocateBefore: settleBefore, SettleBefore: settleBefore,
				Meta: splice.Metadata{Values: map[string]string{}},
			},
			TransferLegID: "leg-0",
			TransferLeg: splice.TransferLeg{
				Sender: sender, Receiver: receiver, Amount: daml.MustNumeric(amount), InstrumentID: splice.AmuletInstrumentID(dso),
				Meta: splice.Metadata{Values: map[string]string{}},
			},
		},
		RequestedAt: now - minute, InputHoldingCids: []daml.ContractID{biggest.ID},
		ExtraArgs: splice.ExtraArgs{
			Context: splice.ChoiceContext{Values: map[string]splice.AnyValue{splice.ContextKeyExternalPartyConfigState: {AVContractID: &stateID}}},
			Meta:    splice.Metadata{Values: map[string]string{}},
		},
	}
	v := n.Seeded.Validator
	var cid daml.ContractID
	tr, err := n.Network.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{sender},
		Disclosed: []*ledger.Contract{rules[0].Contract, state.Contract}, CommandID: splice.CommandID("allocate"),
		Run: func(tx *ledger.Tx) error {
			res, err := ledger.ExerciseInterface[splice.AllocationInstructionResult](tx, rules[0].ID, splice.AllocationFactoryInterface, "AllocationFactory_Allocate", arg)
			if err == nil {
				cid = res.Output.Completed.AllocationCid
			}
			return err
		},
	})
	if err != nil {
		t.Fatalf("allocate %s of %s to %s: %v", amount, sender, receiver, err)
	}
	return tr.Final(cid)
}
