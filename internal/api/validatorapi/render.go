package validatorapi

import (
	"regexp"

	"github.com/sandnet/sandnet/internal/daml"
)

// decimalPattern is the form Splice's decoders accept for a Decimal.
const decimalPattern = `-?\d{1,28}(\.\d{1,10})?`

var decimalRE = regexp.MustCompile(`^` + decimalPattern + `$`)

// parseDecimal reads a Decimal string of a request, with Splice's 400.
func parseDecimal(s string) (daml.Numeric, error) {
	if !decimalRE.MatchString(s) {
		return daml.Numeric{}, badRequest(`Failed to decode: Invalid Decimal string "%s", as it does not match "%s"`, s, decimalPattern)
	}
	n, err := daml.ParseNumeric(s)
	if err != nil {
		return daml.Numeric{}, badRequest("Failed to decode: %v", err)
	}
	return n, nil
}
