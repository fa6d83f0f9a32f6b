package splice

import (
	"context"
	"fmt"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Supply is the amulet accounting of a network. Minted and Burned come from
// the update log, Holdings from the active contract set, so that
// Minted = Holdings + Burned checks the fee logic against the ledger's
// state rather than restating it.
type Supply struct {
	// Minted sums the amounts of every AmuletRules_Mint (taps included).
	Minted daml.Numeric
	// Burned sums what transfers burned (their summaries' holding fees,
	// output fees and change fees) and the initial amounts of amulets
	// archived outside a transfer (the DSO burning name-service fees).
	// Token-standard transfers burn nothing (they charge no fees).
	Burned daml.Numeric
	// Holdings sums the initial amounts of the active Amulet and
	// LockedAmulet contracts.
	Holdings daml.Numeric
}

// ComputeSupply reads the amulet accounting of a DSO from the update stream
// of a participant hosting the DSO party (every amulet has the DSO as
// signatory, so that participant sees every mint, transfer and burn) and
// from the active contract set.
func ComputeSupply(ctx context.Context, s ledger.Store, participant ledger.ParticipantID, dso daml.Party) (Supply, error) {
	var sup Supply
	var a arith
	amounts := map[daml.ContractID]daml.Numeric{} // every amulet created, by id
	amuletID := Amulet{}.TemplateID()
	rulesID := AmuletRules{}.TemplateID()
	var after ledger.Offset
	for {
		page, err := s.Updates(ctx, ledger.UpdateQuery{Participant: participant, After: after, Limit: 500})
		if err != nil {
			return sup, err
		}
		if len(page) == 0 {
			break
		}
		for _, u := range page {
			after = u.Offset
			t := u.Transaction
			if t == nil {
				continue // a topology transaction
			}
			parent := map[int32]*ledger.Exercised{}
			for i := range t.Events {
				if x := t.Events[i].Exercised; x != nil {
					for _, c := range x.Children {
						parent[c] = x
					}
				}
			}
			for i := range t.Events {
				e := &t.Events[i]
				if c := e.Created; c != nil && sameTemplate(c.Template, amuletID) {
					var am Amulet
					if err := daml.ToGo(c.Argument, &am); err != nil {
						return sup, fmt.Errorf("decode amulet %s: %w", c.ID, err)
					}
					if am.DSO == dso {
						amounts[c.ID] = am.Amount.InitialAmount
					}
				}
				x := e.Exercised
				if x == nil {
					continue
				}
				switch {
				case sameTemplate(x.Template, rulesID) && x.Choice == "AmuletRules_Mint":
					var arg AmuletRulesMint
					if err := daml.ToGo(x.ChoiceArgument, &arg); err != nil {
						return sup, fmt.Errorf("decode mint in %s: %w", t.UpdateID, err)
					}
					sup.Minted = a.add(sup.Minted, arg.Amount)
				case sameTemplate(x.Template, rulesID) && x.Choice == "AmuletRules_Transfer":
					var res TransferResult
					if err := daml.ToGo(x.ExerciseResult, &res); err != nil {
						return sup, fmt.Errorf("decode transfer in %s: %w", t.UpdateID, err)
					}
					burned, err := res.Summary.Burned()
					if err != nil {
						return sup, err
					}
					sup.Burned = a.add(sup.Burned, burned)
				case sameTemplate(x.Template, amuletID) && x.Choice == "Archive":
					if p := parent[e.NodeID]; p != nil {
						if sameTemplate(p.Template, rulesID) && p.Choice == "AmuletRules_Transfer" {
							continue // a transfer input, accounted for by the transfer's summary
						}
						if externalPartyTransferChoices[p.Choice] {
							continue // a token-standard transfer's input: its outputs hold it all
						}
					}
					if amt, ok := amounts[x.ContractID]; ok {
						sup.Burned = a.add(sup.Burned, amt)
					}
				}
			}
		}
	}
	amulets, err := Active[Amulet](ctx, s, dso)
	if err != nil {
		return sup, err
	}
	for _, c := range amulets {
		sup.Holdings = a.add(sup.Holdings, c.Payload.Amount.InitialAmount)
	}
	locked, err := Active[LockedAmulet](ctx, s, dso)
	if err != nil {
		return sup, err
	}
	for _, c := range locked {
		sup.Holdings = a.add(sup.Holdings, c.Payload.Amulet.Amount.InitialAmount)
	}
	return sup, a.err
}

// externalPartyTransferChoices are the choices that run Splice's
// executeExternalPartyTransfer, which archives its input amulets directly
// (no AmuletRules_Transfer node) and charges no fees (CIP-78): what it
// archives, its outputs and change hold, so those archives burn nothing.
var externalPartyTransferChoices = map[string]bool{
	"TransferFactory_Transfer":   true,
	"TransferPreapproval_SendV2": true,
	"TransferInstruction_Accept": true,
	"AllocationFactory_Allocate": true,
	"Allocation_ExecuteTransfer": true,
}

// sameTemplate compares templates by package name, module and entity, as
// filters do, whatever the package id.
func sameTemplate(a, b ledger.TemplateID) bool {
	return a.PackageName == b.PackageName && a.ModuleName == b.ModuleName && a.EntityName == b.EntityName
}
