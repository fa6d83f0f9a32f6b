package splice

import "github.com/sandnet/sandnet/internal/ledger"

// Register adds sandnet's packages and Splice templates, with their
// choices and the interfaces they implement, to a registry.
func Register(r *ledger.Registry) {
	for _, p := range Packages() {
		r.AddPackage(ledger.Package{Name: p.Name, ID: p.ID, Version: p.Version})
		for _, i := range p.Interfaces {
			r.AddInterface(p.Identifier(i.Module, i.Entity))
		}
	}
	registerTokenStandard(r)
	registerAmulet(r)
	registerRounds(r)
	registerAmuletRules(r)
	registerCoupons(r)
	registerPreapprovals(r)
	registerExternalParty(r)
	registerExternalPartyAmuletRulesChoices(r)
	registerTransferFactory(r)
	registerTransferInstruction(r)
	registerAllocations(r)
	registerWallet(r)
	registerSubscriptions(r)
	registerAns(r)
	registerDso(r)
	registerExternalPartyDsoRules(r)
	registerTransferCommands(r)
}

// NewRegistry returns a registry holding the Splice templates.
func NewRegistry() *ledger.Registry {
	r := ledger.NewRegistry()
	Register(r)
	return r
}
