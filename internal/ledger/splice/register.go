package splice

import "github.com/sandnet/sandnet/internal/ledger"

// Register adds sandnet's Splice templates, their choices and the
// interfaces they implement to a registry.
func Register(r *ledger.Registry) {
	registerAmulet(r)
	registerRounds(r)
	registerAmuletRules(r)
	registerWallet(r)
	registerSubscriptions(r)
	registerAns(r)
	registerDso(r)
}

// NewRegistry returns a registry holding the Splice templates.
func NewRegistry() *ledger.Registry {
	r := ledger.NewRegistry()
	Register(r)
	return r
}
