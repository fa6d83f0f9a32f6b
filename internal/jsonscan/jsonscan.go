// Package jsonscan holds the pieces of JSON's grammar that sandnet's
// hand-written JSON parsers share (internal/daml's parser for Daml values
// and the ledger API's request parser): whitespace and numbers, whose
// rules are the same whatever the parser builds from them.
package jsonscan

// SkipSpace returns the index of the first byte of d at or after i that is
// not JSON whitespace, or len(d).
func SkipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// NumberFault says which part of a number Number found malformed.
type NumberFault uint8

const (
	// NumberOK is a well-formed number.
	NumberOK NumberFault = iota
	// NoIntegerDigit is a number (after its optional minus) that does not
	// start with a digit.
	NoIntegerDigit
	// NoFractionDigit is a '.' not followed by a digit.
	NoFractionDigit
	// NoExponentDigit is an exponent without a digit.
	NoExponentDigit
)

// Number scans the JSON number starting at d[i], whose grammar is
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and returns the index
// just past it with NumberOK; for a malformed number it returns the index
// where the grammar failed and what is missing there. What follows the
// number is the caller's to check.
func Number(d []byte, i int) (int, NumberFault) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		return i, NoIntegerDigit
	}
	if i < len(d) && d[i] == '.' {
		i++
		n := i
		if i = digits(d, i); i == n {
			return i, NoFractionDigit
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		n := i
		if i = digits(d, i); i == n {
			return i, NoExponentDigit
		}
	}
	return i, NumberOK
}

// digits returns the index of the first byte of d at or after i that is
// not a decimal digit.
func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}
