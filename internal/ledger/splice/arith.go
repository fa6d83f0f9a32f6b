package splice

import (
	"math"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// arith does Decimal arithmetic as Daml does, remembering the first error
// (an overflow, a division by zero) so that a choice body reads like its
// Daml source and checks once. Daml raises ArithmeticError for these, which
// a choice does not catch: the transaction fails like a failed `require`.
type arith struct{ err error }

func (a *arith) keep(n daml.Numeric, err error) daml.Numeric {
	if err != nil && a.err == nil {
		e := fault.Wrap(fault.DamlPrecondition, err, "Interpretation error: Error: Unhandled Daml exception: DA.Exception.ArithmeticError:ArithmeticError")
		e.Code = ledger.CodeUnhandledException
		a.err = e
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

// mulInt multiplies Int64s as Daml does: an overflow is an ArithmeticError.
func (a *arith) mulInt(x, y int64) int64 {
	p := x * y
	if x != 0 && (p/x != y || x == -1 && y == math.MinInt64) {
		if a.err == nil {
			a.err = fault.WithCode(fault.DamlPrecondition, ledger.CodeUnhandledException,
				"Interpretation error: Error: Unhandled Daml exception: DA.Exception.ArithmeticError:ArithmeticError{ message = \"ArithmeticError while evaluating (MUL_INT64 %d %d).\" }", x, y)
		}
		return 0
	}
	return p
}

var zero daml.Numeric
