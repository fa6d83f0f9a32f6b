package splice

import (
	"context"
	"fmt"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Contract is an active contract with its payload decoded into the Go type
// of its template.
type Contract[T ledger.Template] struct {
	*ledger.Contract
	Payload T
}

// Decode decodes a contract of template T.
func Decode[T ledger.Template](c *ledger.Contract) (Contract[T], error) {
	var out Contract[T]
	var zero T
	if c.Template.ModuleName != zero.TemplateID().ModuleName || c.Template.EntityName != zero.TemplateID().EntityName {
		return out, fmt.Errorf("contract %s is a %s, not a %s", c.ID, c.Template.Identifier, zero.TemplateID().Identifier)
	}
	if err := daml.ToGo(c.Argument, &out.Payload); err != nil {
		return out, fmt.Errorf("decode %s: %w", c.ID, err)
	}
	out.Contract = c
	return out, nil
}

// Active lists the active contracts of template T that stakeholder is a
// stakeholder of (all of them when stakeholder is empty), in creation
// order.
func Active[T ledger.Template](ctx context.Context, s ledger.Store, stakeholder daml.Party) ([]Contract[T], error) {
	var zero T
	cs, err := s.ActiveContracts(ctx, ledger.ContractFilter{
		Templates: []ledger.TemplateID{zero.TemplateID()}, Stakeholder: stakeholder,
	})
	if err != nil {
		return nil, err
	}
	out := make([]Contract[T], 0, len(cs))
	for _, c := range cs {
		d, err := Decode[T](c)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// only returns the one active contract of T for stakeholder.
func only[T ledger.Template](ctx context.Context, s ledger.Store, stakeholder daml.Party) (Contract[T], error) {
	cs, err := Active[T](ctx, s, stakeholder)
	if err != nil {
		return Contract[T]{}, err
	}
	if len(cs) != 1 {
		var zero T
		return Contract[T]{}, fault.New(fault.FailedPrecondition, "expected one active %s for %s, found %d",
			zero.TemplateID().EntityName, stakeholder, len(cs))
	}
	return cs[0], nil
}

// AmuletContext is what a command that moves amulet refers to: the DSO's
// AmuletRules and the open round to transact in. A validator reads them
// from Scan and submits them as disclosed contracts, since its users do
// not see the DSO's contracts.
type AmuletContext struct {
	AmuletRules Contract[AmuletRules]
	OpenRound   Contract[OpenMiningRound]
}

// LoadAmuletContext reads the DSO's AmuletRules and its latest open round
// that has opened at ledger time now.
func LoadAmuletContext(ctx context.Context, s ledger.Store, dso daml.Party, now daml.Timestamp) (AmuletContext, error) {
	rules, err := only[AmuletRules](ctx, s, dso)
	if err != nil {
		return AmuletContext{}, err
	}
	round, err := LatestOpenRound(ctx, s, dso, now)
	if err != nil {
		return AmuletContext{}, err
	}
	return AmuletContext{AmuletRules: rules, OpenRound: round}, nil
}

// LatestOpenRound returns the open round with the highest number that has
// opened at time now, the round wallets transact in.
func LatestOpenRound(ctx context.Context, s ledger.Store, dso daml.Party, now daml.Timestamp) (Contract[OpenMiningRound], error) {
	rounds, err := Active[OpenMiningRound](ctx, s, dso)
	if err != nil {
		return Contract[OpenMiningRound]{}, err
	}
	var best *Contract[OpenMiningRound]
	for i := range rounds {
		r := &rounds[i]
		if r.Payload.DSO == dso && r.Payload.IsOpen(now) && (best == nil || r.Payload.Round.Number > best.Payload.Round.Number) {
			best = r
		}
	}
	if best == nil {
		return Contract[OpenMiningRound]{}, fault.New(fault.Unavailable, "no open mining round has opened yet")
	}
	return *best, nil
}

// Disclosed returns the contracts to disclose with a command using the
// context.
func (c AmuletContext) Disclosed() []*ledger.Contract {
	return []*ledger.Contract{c.AmuletRules.Contract, c.OpenRound.Contract}
}

// PaymentContext is the context of a payment with amulet inputs only.
func (c AmuletContext) PaymentContext() PaymentTransferContext {
	return PaymentTransferContext{AmuletRules: c.AmuletRules.ID, Context: AmuletTransferContext(c.OpenRound.ID)}
}

// AppContext is the context the receiver of a payment collects with.
func (c AmuletContext) AppContext() AppTransferContext {
	return AppTransferContext{AmuletRules: c.AmuletRules.ID, OpenMiningRound: c.OpenRound.ID}
}

// Holdings lists an owner's unlocked amulets.
func Holdings(ctx context.Context, s ledger.Store, owner daml.Party) ([]Contract[Amulet], error) {
	all, err := Active[Amulet](ctx, s, owner)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, a := range all {
		if a.Payload.Owner == owner {
			out = append(out, a)
		}
	}
	return out, nil
}
