package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// arith does Decimal arithmetic as Daml does, remembering the first error
// (an overflow, a division by zero) so that a choice body reads like its
// Daml source and checks once. Daml raises ArithmeticError for these, which
// a choice does not catch: the transaction fails like a failed `require`.
type arith struct{ err error }

func (a *arith) keep(n daml.Numeric, err error) daml.Numeric {
	if err != nil && a.err == nil {
		a.err = fault.Wrap(fault.DamlPrecondition, err, "ArithmeticError")
	}
	return n
}

func (a *arith) add(x, y daml.Numeric) daml.Numeric { return a.keep(x.Add(y)) }
func (a *arith) sub(x, y daml.Numeric) daml.Numeric { return a.keep(x.Sub(y)) }
func (a *arith) mul(x, y daml.Numeric) daml.Numeric { return a.keep(x.Mul(y)) }
func (a *arith) div(x, y daml.Numeric) daml.Numeric { return a.keep(x.Div(y)) }

func (a *arith) sum(xs ...daml.Numeric) daml.Numeric {
	var total daml.Numeric
	for _, x := range xs {
		total = a.add(total, x)
	}
	return total
}

func (a *arith) fromInt(i int64) daml.Numeric { return daml.NumericFromInt(i) }

var zero daml.Numeric
