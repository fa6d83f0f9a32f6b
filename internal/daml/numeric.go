package daml

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"

	"github.com/cockroachdb/apd/v3"

	"github.com/sandnet/sandnet/internal/fault"
)

// NumericScale is the scale of the Numeric values Splice uses (Daml's
// Decimal, Numeric 10): ten digits after the point.
const NumericScale = 10

// numericPrecision is Daml-LF's maximum precision: 38 significant digits,
// so at most 28 before the point at scale 10.
const numericPrecision = 38

// numericPattern is the shape Splice accepts for a Decimal string.
var numericPattern = regexp.MustCompile(`^-?[0-9]{1,28}(\.[0-9]{1,10})?$`)

// numericCtx rounds half-even, as Daml-LF does for multiplication and
// division, and traps every condition that would lose information.
// Additions and subtractions of two in-range values need at most 39
// digits, so this precision keeps them exact; Mul and Div do not go through
// it (see mulDiv) because rounding twice would not be half-even.
var numericCtx = func() *apd.Context {
	c := apd.BaseContext.WithPrecision(numericPrecision + 2)
	c.Rounding = apd.RoundHalfEven
	c.Traps = apd.Overflow | apd.Underflow | apd.DivisionByZero | apd.InvalidOperation
	return c
}()

// maxNumeric bounds the magnitude of a Numeric 10: |x| < 10^28.
var maxNumeric = apd.New(1, 28)

// ErrNumericRange reports a Numeric outside Daml's range.
var ErrNumericRange = errors.New("numeric out of range: at most 28 digits before the point")

// errDivisionByZero is what Daml reports for x / 0.
var errDivisionByZero = errors.New("division by zero")

// Numeric is a Daml Numeric 10 (Decimal): at most 38 digits, exactly 10 of
// them after the point. It is exact decimal arithmetic and never touches
// float64. The zero value is 0.
//
// Every in-range value fits apd's inline 128-bit coefficient, so a Numeric
// can be copied freely: copies never share memory.
type Numeric struct {
	d apd.Decimal
}

// ParseNumeric parses a decimal string in the form Splice accepts:
// an optional minus sign, 1 to 28 digits, and optionally a point and 1 to
// 10 digits.
func ParseNumeric(s string) (Numeric, error) {
	if !numericPattern.MatchString(s) {
		return Numeric{}, fmt.Errorf("invalid Decimal string %s, as it does not match %q", fault.Quote(s), `-?\d{1,28}(\.\d{1,10})?`)
	}
	var n Numeric
	if _, _, err := n.d.SetString(s); err != nil {
		return Numeric{}, fmt.Errorf("invalid Decimal string %s: %w", fault.Quote(s), err)
	}
	return n.quantize()
}

// maxLenientNumeric bounds the length of a decimal literal the JSON decoders
// accept, so that a hostile input cannot make apd work on huge numbers.
const maxLenientNumeric = 128

// parseNumericLenient parses the decimal literals the JSON formats accept
// for a Numeric: what Java's BigDecimal(String) reads (an optional sign,
// digits with an optional point, an optional exponent), so "1e-10",
// "10.0", ".5" and Splice's own "0E-10" all work. Like the ledger (and
// unlike ApiCodecCompressed, which rounds) it rejects a value that
// Numeric 10 cannot hold exactly: silently changing an amount is worse
// than a 400. Trailing zeros beyond ten decimals are harmless.
func parseNumericLenient(s string) (Numeric, error) {
	if len(s) == 0 {
		return Numeric{}, errors.New("empty string is not a Numeric")
	}
	if len(s) > maxLenientNumeric {
		return Numeric{}, fmt.Errorf("Numeric literal too long (%d characters)", len(s))
	}
	if !isDecimalLiteral(s) {
		return Numeric{}, fmt.Errorf("%q is not a decimal number", s)
	}
	var in apd.Decimal
	if _, _, err := in.SetString(s); err != nil {
		return Numeric{}, fmt.Errorf("%q is not a decimal number: %v", s, err)
	}
	if in.Form != apd.Finite {
		return Numeric{}, fmt.Errorf("%q is not a decimal number", s)
	}
	// An exponent this far out means a value out of range or with more
	// than ten decimals (the coefficient has at most 128 digits); deciding
	// early keeps Quantize cheap.
	switch {
	case in.IsZero():
		in.Exponent = 0
	case int64(in.Exponent)+in.NumDigits() > 60:
		return Numeric{}, fmt.Errorf("%q: %w", s, ErrNumericRange)
	case in.Exponent < -200:
		return Numeric{}, fmt.Errorf("%q has more than %d decimal places", s, NumericScale)
	}
	n, err := Numeric{d: in}.quantize()
	if err != nil {
		return Numeric{}, fmt.Errorf("%q: %w", s, err)
	}
	if n.d.Cmp(&in) != 0 {
		return Numeric{}, fmt.Errorf("%q has more than %d decimal places", s, NumericScale)
	}
	return n, nil
}

// isDecimalLiteral checks the BigDecimal(String) grammar:
// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
func isDecimalLiteral(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expDigits := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			expDigits++
		}
		if expDigits == 0 || expDigits > 6 {
			return false
		}
	}
	return i == len(s)
}

// MustNumeric is [ParseNumeric] for constants; it panics on bad input.
func MustNumeric(s string) Numeric {
	n, err := ParseNumeric(s)
	if err != nil {
		panic(err)
	}
	return n
}

// NumericFromInt returns the Numeric equal to i.
func NumericFromInt(i int64) Numeric {
	var n Numeric
	n.d.SetInt64(i)
	n, _ = n.quantize() // an int64 has at most 19 digits: always in range
	return n
}

// quantize sets the scale to 10, rounding half-even, and checks the range.
func (n Numeric) quantize() (Numeric, error) {
	var out Numeric
	if _, err := numericCtx.Quantize(&out.d, &n.d, -NumericScale); err != nil {
		return Numeric{}, ErrNumericRange
	}
	var abs apd.Decimal
	abs.Abs(&out.d)
	if abs.Cmp(maxNumeric) >= 0 {
		return Numeric{}, ErrNumericRange
	}
	if out.d.IsZero() {
		out.d.Negative = false // no "-0.0000000000"
	}
	return out, nil
}

// String renders the value with exactly ten digits after the point, as
// Splice and the ledger API do: "10.0000000000".
func (n Numeric) String() string {
	var buf [48]byte
	return string(n.appendFixed(buf[:0]))
}

// appendFixed appends the ten-decimal form of n. Amounts whose unscaled
// value fits a uint64 (|x| < 1.8e9) take an allocation-free path, because
// Scan renders many of them per page.
func (n Numeric) appendFixed(dst []byte) []byte {
	d := &n.d
	if d.Form == apd.Finite && d.Exponent == -NumericScale && d.Coeff.IsUint64() {
		u := d.Coeff.Uint64()
		if d.Negative && u != 0 {
			dst = append(dst, '-')
		}
		var digits [24]byte
		ds := strconv.AppendUint(digits[:0], u, 10)
		if len(ds) <= NumericScale {
			dst = append(dst, '0', '.')
			for i := len(ds); i < NumericScale; i++ {
				dst = append(dst, '0')
			}
			return append(dst, ds...)
		}
		cut := len(ds) - NumericScale
		dst = append(dst, ds[:cut]...)
		dst = append(dst, '.')
		return append(dst, ds[cut:]...)
	}
	q, err := n.quantize()
	if err != nil {
		return d.Append(dst, 'f')
	}
	return q.d.Append(dst, 'f')
}

// appendJava appends n as Java's BigDecimal.toString renders a scale-10
// value, which is what Splice's compact_json emits (the Java codegen writes
// the BigDecimal it got from the ledger): plain notation unless the
// adjusted exponent is below -6, then scientific, so zero is "0E-10" and
// 0.0000001 is "1.000E-7".
func (n Numeric) appendJava(dst []byte) []byte {
	var buf [48]byte
	fixed := n.appendFixed(buf[:0])
	neg := len(fixed) > 0 && fixed[0] == '-'
	digits := fixed
	if neg {
		digits = digits[1:]
	}
	// The unscaled coefficient is the digits without the point and without
	// leading zeros; BigDecimal's adjusted exponent is len(coeff)-1-scale.
	var coeff [48]byte
	c := coeff[:0]
	for _, b := range digits {
		if b == '.' || (b == '0' && len(c) == 0) {
			continue
		}
		c = append(c, b)
	}
	if len(c) == 0 {
		c = append(c, '0')
	}
	adjusted := len(c) - 1 - NumericScale
	if adjusted >= -6 {
		return append(dst, fixed...)
	}
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, c[0])
	if len(c) > 1 {
		dst = append(dst, '.')
		dst = append(dst, c[1:]...)
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(adjusted), 10)
}

// appendUnscaled appends n as Daml-LF's Numeric.toUnscaledString does
// (used by ApiCodecCompressed): trailing zeros stripped, plain notation,
// and ".0" when nothing is left after the point: "10.0", "0.5".
func (n Numeric) appendUnscaled(dst []byte) []byte {
	var buf [48]byte
	fixed := n.appendFixed(buf[:0])
	end := len(fixed)
	for end > 0 && fixed[end-1] == '0' {
		end--
	}
	if fixed[end-1] == '.' {
		end++ // keep one zero: "10.0"
	}
	return append(dst, fixed[:end]...)
}

// unscaled returns n×10^10 as an integer.
func (n Numeric) unscaled() *big.Int {
	q, err := n.quantize()
	if err != nil {
		q = n // cannot happen for values built by this package
	}
	u := q.d.Coeff.MathBigInt() // a fresh copy
	if q.d.Negative {
		u.Neg(u)
	}
	return u
}

// maxUnscaled is 10^38: unscaled values must be strictly below it.
var maxUnscaled = new(big.Int).Exp(big.NewInt(10), big.NewInt(numericPrecision), nil)

// scaleFactor is 10^10.
var scaleFactor = new(big.Int).Exp(big.NewInt(10), big.NewInt(NumericScale), nil)

// numericFromUnscaled returns u×10^-10, or ErrNumericRange.
func numericFromUnscaled(u *big.Int) (Numeric, error) {
	var abs big.Int
	abs.Abs(u)
	if abs.Cmp(maxUnscaled) >= 0 {
		return Numeric{}, ErrNumericRange
	}
	var n Numeric
	n.d.Coeff.SetMathBigInt(&abs)
	n.d.Exponent = -NumericScale
	n.d.Negative = u.Sign() < 0
	return n, nil
}

// roundMode selects how divQuo rounds an inexact quotient.
type roundMode uint8

const (
	roundHalfEven roundMode = iota
	roundCeiling
)

// divRound returns num/den rounded to an integer. Working on exact
// integers is what makes Mul and Div round exactly once, like Daml's
// BigDecimal.setScale(10, HALF_EVEN); rounding through a limited-precision
// context first could round a value onto a tie and then round it again.
func divRound(num, den *big.Int, mode roundMode) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	positive := (num.Sign() < 0) == (den.Sign() < 0) // sign of the exact quotient
	switch mode {
	case roundCeiling:
		if positive {
			q.Add(q, big.NewInt(1))
		}
	default:
		var twice, absDen big.Int
		twice.Abs(r)
		twice.Lsh(&twice, 1)
		absDen.Abs(den)
		c := twice.Cmp(&absDen)
		if c > 0 || (c == 0 && q.Bit(0) == 1) {
			if positive {
				q.Add(q, big.NewInt(1))
			} else {
				q.Sub(q, big.NewInt(1))
			}
		}
	}
	return q
}

func (n Numeric) binary(op func(d, x, y *apd.Decimal) (apd.Condition, error), m Numeric) (Numeric, error) {
	var out Numeric
	if _, err := op(&out.d, &n.d, &m.d); err != nil {
		return Numeric{}, err
	}
	return out.quantize()
}

// Add returns n+m, or [ErrNumericRange] when the sum leaves Daml's range.
func (n Numeric) Add(m Numeric) (Numeric, error) { return n.binary(numericCtx.Add, m) }

// Sub returns n-m, or [ErrNumericRange] when the difference leaves Daml's range.
func (n Numeric) Sub(m Numeric) (Numeric, error) { return n.binary(numericCtx.Sub, m) }

// Mul returns n×m rounded half-even to ten decimals, or [ErrNumericRange].
func (n Numeric) Mul(m Numeric) (Numeric, error) {
	p := new(big.Int).Mul(n.unscaled(), m.unscaled())
	return numericFromUnscaled(divRound(p, scaleFactor, roundHalfEven))
}

// Div returns n÷m rounded half-even to ten decimals. Dividing by zero is an
// error, as in Daml.
func (n Numeric) Div(m Numeric) (Numeric, error) {
	return n.div(m, roundHalfEven)
}

// DivCeil returns n÷m rounded up (towards +∞) to ten decimals. Splice's
// tap rounds the amulet quantity up this way when it converts USD to CC.
func (n Numeric) DivCeil(m Numeric) (Numeric, error) {
	return n.div(m, roundCeiling)
}

func (n Numeric) div(m Numeric, mode roundMode) (Numeric, error) {
	den := m.unscaled()
	if den.Sign() == 0 {
		return Numeric{}, errDivisionByZero
	}
	num := new(big.Int).Mul(n.unscaled(), scaleFactor)
	return numericFromUnscaled(divRound(num, den, mode))
}

// Cmp compares n and m: -1, 0 or +1.
func (n Numeric) Cmp(m Numeric) int { return n.d.Cmp(&m.d) }

// Sign returns -1, 0 or +1.
func (n Numeric) Sign() int { return n.d.Sign() }

// IsZero reports whether n is zero.
func (n Numeric) IsZero() bool { return n.d.IsZero() }

// Neg returns -n.
func (n Numeric) Neg() Numeric {
	var out Numeric
	out.d.Neg(&n.d)
	if out.d.IsZero() {
		out.d.Negative = false
	}
	return out
}

// Max returns the larger of n and m.
func (n Numeric) Max(m Numeric) Numeric {
	if n.Cmp(m) >= 0 {
		return n
	}
	return m
}

// Min returns the smaller of n and m.
func (n Numeric) Min(m Numeric) Numeric {
	if n.Cmp(m) <= 0 {
		return n
	}
	return m
}

// MarshalText renders the ten-decimal string form.
func (n Numeric) MarshalText() ([]byte, error) { return n.appendFixed(nil), nil }

// UnmarshalText parses the form [ParseNumeric] accepts.
func (n *Numeric) UnmarshalText(b []byte) error {
	v, err := ParseNumeric(string(b))
	if err != nil {
		return err
	}
	*n = v
	return nil
}
