package scan

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The choice contexts of the token standard's allocation APIs (v1), as a
// Scan's registry computes them: what a wallet discloses and names in
// extraArgs.context for AllocationFactory_Allocate on the
// ExternalPartyAmuletRules, and for the executor, the sender and the
// receiver to execute, cancel or withdraw an AmuletAllocation.

// AllocationChoice names a choice of an Allocation whose context the
// registry gives.
type AllocationChoice string

// The choices of Allocation with registry contexts, as the registry's
// paths spell them.
const (
	ChoiceExecuteTransfer AllocationChoice = "execute-transfer"
	ChoiceAllocWithdraw   AllocationChoice = "withdraw"
	ChoiceAllocCancel     AllocationChoice = "cancel"
)

// AllocationChoices lists the allocation choices with registry contexts.
func AllocationChoices() []AllocationChoice {
	return []AllocationChoice{ChoiceExecuteTransfer, ChoiceAllocWithdraw, ChoiceAllocCancel}
}

// AmuletAllocationKey is the template of Amulet's V1 allocations.
var AmuletAllocationKey = TemplateKey{
	PackageName: splice.PackageAmulet.Name, Module: "Splice.AmuletAllocation", Entity: "AmuletAllocation",
}

// AllocationFactory is the registry's answer for an allocation: the
// factory to exercise AllocationFactory_Allocate on and the context the
// choice needs.
type AllocationFactory struct {
	Factory *ledger.Contract
	Context ChoiceContext
}

// AllocationFactory answers the registry's allocation-factory request as
// Splice's Scan does: the amulet rules, the latest usable open round and
// the newest external-party config state, then the ExternalPartyAmuletRules
// disclosed without a key. The choice's arguments are not read: the
// ledger checks them when the choice runs.
func (s *Service) AllocationFactory(ctx context.Context) (AllocationFactory, error) {
	st, err := s.registry(ctx)
	if err != nil {
		return AllocationFactory{}, err
	}
	factory, err := st.externalPartyAmuletRules()
	if err != nil {
		return AllocationFactory{}, err
	}
	cc, err := s.amuletRulesContext(ctx, st)
	if err != nil {
		return AllocationFactory{}, err
	}
	cc.Disclosed = append(cc.Disclosed, factory)
	return AllocationFactory{Factory: factory, Context: cc}, nil
}

// AllocationContext answers the registry's choice-context request for a
// choice on the AmuletAllocation id, as Splice's Scan does. While the
// allocation's LockedAmulet is active every choice gets the amulet rules,
// the open round, the external-party config state, the LockedAmulet
// disclosed and expire-lock true; execute-transfer adds the executor's
// featured-app-right when it has one. Once the LockedAmulet is gone,
// execute-transfer is a fault.NotFound while cancel and withdraw get only
// expire-lock false.
func (s *Service) AllocationContext(ctx context.Context, id daml.ContractID, choice AllocationChoice) (ChoiceContext, error) {
	c, ok, err := s.activeOf(ctx, id, AmuletAllocationKey)
	if err != nil {
		return ChoiceContext{}, err
	}
	if !ok {
		return ChoiceContext{}, fault.New(fault.NotFound, "AmuletAllocation '%s' not found.", fault.Clip(string(id)))
	}
	alloc, err := splice.Decode[splice.AmuletAllocation](c)
	if err != nil {
		return ChoiceContext{}, fault.Wrap(fault.Internal, err, "decode %s", c.ID)
	}
	lockedID := alloc.Payload.LockedAmulet
	settlement := alloc.Payload.Allocation.Settlement
	var gone func() error
	if choice == ChoiceExecuteTransfer {
		gone = func() error {
			// Splice renders the Scala Options of the ids and the expiry,
			// which for a V1 allocation is the settlement's deadline.
			return fault.New(fault.NotFound,
				"LockedAmulet 'Some(ContractId(%s))' not found for AmuletAllocation '%s', which expires on Some(%s)",
				lockedID, fault.Clip(string(id)), settlement.SettleBefore.MicrosString())
		}
	}
	cc, st, err := s.lockedAmuletContext(ctx, lockedID, gone)
	if err != nil {
		return ChoiceContext{}, err
	}
	if choice == ChoiceExecuteTransfer {
		// The lock is active (gone failed otherwise). Only a settlement
		// may be featured, its executor the provider.
		if featured := st.featured[settlement.Executor]; featured != nil {
			cc.add(ContextKeyFeaturedAppRight, featured)
		}
	}
	return cc, nil
}
