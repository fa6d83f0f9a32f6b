// Package builtin assembles the packages every sandnet network runs: the
// Splice packages (with the token standard's interfaces) and Canton's
// built-in ping package. Wiring builds a network's registry here, so that
// every network, seeded or empty, on one process or several, runs the same
// packages.
package builtin

import (
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/ping"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Register adds every built-in package to a registry.
func Register(r *ledger.Registry) {
	splice.Register(r)
	ping.Register(r)
}

// NewRegistry returns a registry holding every built-in package.
func NewRegistry() *ledger.Registry {
	r := ledger.NewRegistry()
	Register(r)
	return r
}
