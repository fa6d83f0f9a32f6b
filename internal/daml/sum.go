package daml

import "github.com/cockroachdb/apd/v3"

// sumCtx adds exactly: with precision 0 apd never rounds, and the exponent
// bounds are far beyond any sum of Numerics.
var sumCtx = apd.BaseContext

// Sum is the exact total of any number of Numerics. Unlike a Numeric it
// has no upper bound, so a sum over many contracts (a wallet's balance,
// the inputs of a transfer) can never fail: Splice's wallet sums in Java's
// unbounded BigDecimal too. The zero value is 0.
type Sum struct {
	d apd.Decimal
}

// Add adds n to the sum.
func (s *Sum) Add(n Numeric) {
	// Exact addition of finite values cannot fail or round.
	_, _ = sumCtx.Add(&s.d, &s.d, &n.d)
}

// Cmp compares the sum with n: -1, 0 or +1.
func (s Sum) Cmp(n Numeric) int { return s.d.Cmp(&n.d) }

// Sign returns -1, 0 or +1.
func (s Sum) Sign() int { return s.d.Sign() }

// Numeric returns the sum as a Numeric, or [ErrNumericRange] when it is
// beyond Daml's range.
func (s Sum) Numeric() (Numeric, error) { return Numeric(s).quantize() }

// String renders the sum with exactly ten digits after the point, as a
// Numeric renders, however many digits it has before the point: Splice's
// wallet renders its BigDecimal totals in plain notation at scale 10.
func (s Sum) String() string {
	var q apd.Decimal
	c := apd.BaseContext.WithPrecision(uint32(s.d.NumDigits()) + NumericScale + 1)
	if _, err := c.Quantize(&q, &s.d, -NumericScale); err != nil {
		return s.d.Text('f') // cannot happen: the precision fits every digit
	}
	if q.IsZero() {
		q.Negative = false
	}
	return q.Text('f')
}
