package validatorapi

import (
	"regexp"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// decimalPattern is the form Splice's decoders accept for a Decimal.
const decimalPattern = `-?\d{1,28}(\.\d{1,10})?`

var decimalRE = regexp.MustCompile(`^` + decimalPattern + `$`)

// parseDecimal reads a Decimal string of a request, with Splice's 400.
func parseDecimal(s string) (daml.Numeric, error) {
	if !decimalRE.MatchString(s) {
		return daml.Numeric{}, badRequest(`Failed to decode: Invalid Decimal string %s, as it does not match "%s"`, fault.Quote(s), decimalPattern)
	}
	n, err := daml.ParseNumeric(s)
	if err != nil {
		return daml.Numeric{}, badRequest("Failed to decode: %v", err)
	}
	return n, nil
}

// contractsOf renders contracts decoded by the domain (splice.Contract[T])
// as Splice's HTTP Contracts, never as null.
func contractsOf[T ledger.Template](cs []splice.Contract[T]) ([]*splicewire.Contract, error) {
	return splicewire.ContractsOf(plainContracts(cs))
}

// fullContracts renders them as Splice's ContractWithStates, with their
// synchronizers, never as null.
func fullContracts[T ledger.Template](cs []splice.Contract[T]) ([]*splicewire.FullContractWithState, error) {
	return splicewire.WithStates[splicewire.FullContractWithState](plainContracts(cs))
}

func plainContracts[T ledger.Template](cs []splice.Contract[T]) []*ledger.Contract {
	plain := make([]*ledger.Contract, len(cs))
	for i, c := range cs {
		plain[i] = c.Contract
	}
	return plain
}
