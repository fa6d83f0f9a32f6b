package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// RegistryContext is a token-standard registry's answer for one choice,
// decoded for a command: the context the choice reads from
// extraArgs.context and the contracts the command must disclose (the
// DSO's, which a wallet's parties cannot see).
type RegistryContext struct {
	Context   ChoiceContext
	Disclosed []*ledger.Contract
}

// ExtraArgs is the choice's extra arguments: the registry's context and
// empty metadata, as Splice's wallet passes them.
func (c RegistryContext) ExtraArgs() ExtraArgs {
	ctx := c.Context
	if ctx.Values == nil {
		ctx.Values = map[string]AnyValue{}
	}
	return ExtraArgs{Context: ctx, Meta: emptyMetadata()}
}

// RegistryFactory is the registry's transfer-factory answer, decoded: the
// factory to exercise TransferFactory_Transfer on, how the transfer will
// settle ("self", "direct" or "offer") and the choice's context.
type RegistryFactory struct {
	FactoryID daml.ContractID
	Kind      string
	RegistryContext
}
