package validator

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// A wallet's token-standard allocations of amulet (Splice's wallet
// allocateAmulet, listAmuletAllocations, withdrawAmuletAllocation and
// listAllocationRequests): the wallet asks its Scan's registry for the
// allocation factory or an allocation's choice context, as Splice's
// treasury does, and exercises the token standard's interface choice as
// the user's party with the contracts the registry names disclosed.

// Registry is a Scan's token-standard registry as the validator asks it
// for allocations: the factory and the choice contexts, decoded
// (internal/scanclient's Client implements it).
type Registry interface {
	AllocationFactory(ctx context.Context, arg splice.AllocationFactoryAllocate) (splice.RegistryFactory, error)
	AllocationContext(ctx context.Context, id daml.ContractID, choice string) (splice.RegistryContext, error)
}

// allocateMethod is the method name of Splice's wallet allocation command
// ids.
const allocateMethod = "org.lfdecentralizedtrust.splice.wallet.allocateAmulet"

// AllocateRequest is an allocation a wallet user asks for: one leg of a
// settlement, sent by the user's party.
type AllocateRequest struct {
	Executor         daml.Party
	SettlementRefID  string
	SettlementRefCid *daml.ContractID
	RequestedAt      daml.Timestamp
	AllocateBefore   daml.Timestamp
	SettleBefore     daml.Timestamp
	SettlementMeta   map[string]string
	TransferLegID    string
	Receiver         daml.Party
	Amount           daml.Numeric
	LegMeta          map[string]string
}

func metadataOf(m map[string]string) splice.Metadata {
	if m == nil {
		m = map[string]string{}
	}
	return splice.Metadata{Values: m}
}

// registry returns the Scan's registry; a Scan client without one cannot
// serve token-standard operations.
func (v *Validator) registry() (Registry, error) {
	r, ok := v.scan.(Registry)
	if !ok {
		return nil, fault.New(fault.Unavailable, "the validator's Scan connection does not serve the token-standard registry")
	}
	return r, nil
}

// allocationInputs are what Splice's treasury spends for a token-standard
// operation: every amulet of the party and its locked amulets whose lock
// has expired (the factory unlocks them).
func (v *Validator) allocationInputs(ctx context.Context, party daml.Party) ([]daml.ContractID, error) {
	s := v.net.Store()
	amulets, err := splice.Active[splice.Amulet](ctx, s, party)
	if err != nil {
		return nil, err
	}
	out := []daml.ContractID{}
	for _, a := range amulets {
		if a.Payload.Owner == party {
			out = append(out, a.ID)
		}
	}
	locked, err := splice.Active[splice.LockedAmulet](ctx, s, party)
	if err != nil {
		return nil, err
	}
	now := v.net.Clock().Now()
	for _, l := range locked {
		if l.Payload.Amulet.Owner == party && l.Payload.Lock.ExpiresAt < now {
			out = append(out, l.ID)
		}
	}
	return out, nil
}

// AllocateAmulet allocates amulet of the wallet's party for one leg of a
// settlement through the DSO's AllocationFactory, as Splice's wallet
// does: the factory and its context from the registry, the inputs every
// amulet of the party (and its expired locked ones), requested now. The
// executor, the settlement reference and the leg id make the command id,
// so the same allocation asked again within the ledger's deduplication
// period is refused (409), and while the first is running (429).
func (v *Validator) AllocateAmulet(ctx context.Context, w Wallet, r AllocateRequest) (splice.AllocationInstructionResult, error) {
	var none splice.AllocationInstructionResult
	for _, p := range []struct {
		field string
		party daml.Party
	}{{"settlement.executor", r.Executor}, {"transfer_leg.receiver", r.Receiver}} {
		if !ledger.ValidPartyID(string(p.party)) {
			return none, fault.New(fault.InvalidArgument, "Invalid %s %s: expected a party id such as alice::1220…", p.field, fault.Quote(string(p.party)))
		}
	}
	reg, err := v.registry()
	if err != nil {
		return none, err
	}
	refCid := ""
	if r.SettlementRefCid != nil {
		refCid = string(*r.SettlementRefCid)
	}
	discriminator := strings.Join([]string{string(r.Executor), r.SettlementRefID, refCid, r.TransferLegID}, "/")
	release, err := v.flight.begin("allocate/"+string(w.Party)+"/"+discriminator, "The allocation of "+fault.Clip(r.TransferLegID)+" for "+fault.Clip(r.SettlementRefID))
	if err != nil {
		return none, err
	}
	defer release()
	defer v.spending.lock(w.Party)()
	inputs, err := v.allocationInputs(ctx, w.Party)
	if err != nil {
		return none, err
	}
	arg := splice.AllocationFactoryAllocate{
		ExpectedAdmin: v.cfg.DSO,
		Allocation: splice.AllocationSpecification{
			Settlement: splice.SettlementInfo{
				Executor: r.Executor, SettlementRef: splice.Reference{ID: r.SettlementRefID, Cid: r.SettlementRefCid},
				RequestedAt: r.RequestedAt, AllocateBefore: r.AllocateBefore, SettleBefore: r.SettleBefore, Meta: metadataOf(r.SettlementMeta),
			},
			TransferLegID: r.TransferLegID,
			TransferLeg: splice.TransferLeg{
				Sender: w.Party, Receiver: r.Receiver, Amount: r.Amount, InstrumentID: splice.AmuletInstrumentID(v.cfg.DSO), Meta: metadataOf(r.LegMeta),
			},
		},
		RequestedAt: v.net.Clock().Now(), InputHoldingCids: inputs,
		ExtraArgs: splice.ExtraArgs{Context: splice.ChoiceContext{Values: map[string]splice.AnyValue{}}, Meta: metadataOf(nil)},
	}
	f, err := reg.AllocationFactory(ctx, arg)
	if err != nil {
		return none, err
	}
	arg.ExtraArgs.Context = f.Context
	var res splice.AllocationInstructionResult
	id := splice.DedupCommandID(allocateMethod, []daml.Party{w.Party}, discriminator)
	t, err := v.submitID(ctx, id, []daml.Party{w.Party}, f.Disclosed, func(tx *ledger.Tx) (err error) {
		res, err = ledger.ExerciseInterface[splice.AllocationInstructionResult](tx, f.FactoryID, splice.AllocationFactoryInterface, "AllocationFactory_Allocate", arg)
		return err
	})
	if err != nil {
		return none, err
	}
	if c := res.Output.Completed; c != nil {
		c.AllocationCid = t.Final(c.AllocationCid)
	}
	for i, cid := range res.SenderChangeCids {
		res.SenderChangeCids[i] = t.Final(cid)
	}
	return res, nil
}

// Allocations lists the wallet's amulet allocations: those its party sends
// of the DSO's instrument, oldest first.
func (v *Validator) Allocations(ctx context.Context, w Wallet) ([]splice.Contract[splice.AmuletAllocation], error) {
	all, err := splice.Active[splice.AmuletAllocation](ctx, v.net.Store(), w.Party)
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(all, func(c splice.Contract[splice.AmuletAllocation]) bool {
		leg := c.Payload.Allocation.TransferLeg
		return leg.Sender != w.Party || leg.InstrumentID.Admin != v.cfg.DSO
	})
	slices.SortStableFunc(out, func(a, b splice.Contract[splice.AmuletAllocation]) int {
		return cmp.Compare(a.Contract.CreatedAt, b.Contract.CreatedAt)
	})
	return out, nil
}

// WithdrawAllocation withdraws one of the wallet's allocations as its
// sender, with the registry's withdraw context: the locked amount comes
// back to the party. An allocation the wallet does not send is a 404.
func (v *Validator) WithdrawAllocation(ctx context.Context, w Wallet, cid daml.ContractID) (splice.AllocationWithdrawResult, error) {
	var none splice.AllocationWithdrawResult
	mine, err := v.Allocations(ctx, w)
	if err != nil {
		return none, err
	}
	if !slices.ContainsFunc(mine, func(c splice.Contract[splice.AmuletAllocation]) bool { return c.ID == cid }) {
		return none, fault.New(fault.NotFound, "AmuletAllocation %s not found", fault.Clip(string(cid)))
	}
	reg, err := v.registry()
	if err != nil {
		return none, err
	}
	cc, err := reg.AllocationContext(ctx, cid, "withdraw")
	if err != nil {
		return none, err
	}
	defer v.spending.lock(w.Party)()
	var res splice.AllocationWithdrawResult
	t, err := v.submit(ctx, "withdraw-allocation", []daml.Party{w.Party}, cc.Disclosed, func(tx *ledger.Tx) (err error) {
		res, err = ledger.ExerciseInterface[splice.AllocationWithdrawResult](tx, cid, splice.AllocationInterface, "Allocation_Withdraw",
			splice.AllocationWithdraw{ExtraArgs: splice.ExtraArgs{Context: cc.Context, Meta: metadataOf(nil)}})
		return err
	})
	if err != nil {
		return none, err
	}
	for i, h := range res.SenderHoldingCids {
		res.SenderHoldingCids[i] = t.Final(h)
	}
	return res, nil
}

// AllocationRequests lists the contracts implementing the token
// standard's AllocationRequest interface that the wallet's party is a
// stakeholder of, oldest first. Apps implement AllocationRequest, Amulet
// does not: the list holds what the network's registered templates
// implement, which for sandnet's built-in packages is nothing.
func (v *Validator) AllocationRequests(ctx context.Context, w Wallet) ([]*ledger.Contract, error) {
	templates := v.net.Registry().Implementations(splice.AllocationRequestInterface)
	if len(templates) == 0 {
		return []*ledger.Contract{}, nil
	}
	cs, err := v.net.Store().ActiveContracts(ctx, ledger.ContractFilter{Templates: templates, Stakeholder: w.Party})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(cs, func(a, b *ledger.Contract) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	return cs, nil
}
