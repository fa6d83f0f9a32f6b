package daml

import (
	"errors"
	"strconv"
	"strings"
)

// MaxNesting is Daml-LF's limit on how deeply values nest (Canton rejects
// deeper values). Every record, variant, list, map and Optional counts as
// one level. Encoders and decoders enforce it, which also bounds their
// recursion on hostile or cyclic input.
const MaxNesting = 100

// Error is the error every encoder, decoder and Go conversion of this
// package returns for a bad value or bad input. It says where (a JSON-path
// like "$.amount.initialAmount", or "$" for the root) and why.
type Error struct {
	// Op is what failed: "encode", "decode", "validate", "FromGo" or "ToGo".
	Op string
	// Format is the wire format ("ledger_json", "compact_json",
	// "protobuf_json", "payload_json"), empty when none is involved.
	Format string
	// Path locates the offending value.
	Path string
	// Msg says what is wrong with it.
	Msg string
	// Kind classifies the failure, so that an API can answer each kind
	// with its own error code.
	Kind ErrorKind
	// Fields are the record fields an ErrMissingFields or
	// ErrUnexpectedFields error names, in the order Msg lists them.
	Fields []string
}

// ErrorKind classifies an [Error].
type ErrorKind uint8

// The kinds of [Error]. Canton's JSON Ledger API answers an unexpected
// field with INVALID_ARGUMENT and a missing one (or a value of the wrong
// shape) with COMMAND_PREPROCESSING_FAILED; the kinds let an API do the
// same without parsing messages.
const (
	// ErrInvalid is any other failure: a value of the wrong shape, bad
	// syntax, a value nesting too deep.
	ErrInvalid ErrorKind = iota
	// ErrMissingFields is a record lacking non-Optional fields.
	ErrMissingFields
	// ErrUnexpectedFields is a record with fields its type lacks.
	ErrUnexpectedFields
)

// String names the kind: "invalid", "missing fields" or "unexpected
// fields".
func (k ErrorKind) String() string {
	switch k {
	case ErrMissingFields:
		return "missing fields"
	case ErrUnexpectedFields:
		return "unexpected fields"
	}
	return "invalid"
}

// Error renders "daml: <op> <format> at <path>: <msg>".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("daml: ")
	b.WriteString(e.Op)
	if e.Format != "" {
		b.WriteByte(' ')
		b.WriteString(e.Format)
	}
	b.WriteString(" at ")
	b.WriteString(e.Path)
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// pathError carries a message up the call stack while each level adds its
// step of the path. Building the path only on the way out keeps the
// success path free of allocations.
type pathError struct {
	steps  []string // innermost first
	msg    string
	kind   ErrorKind
	fields []string
}

func (e *pathError) Error() string { return e.msg }

func errorf(msg string) error { return &pathError{msg: msg} }

// fieldsError is an error naming record fields: prefix and the fields,
// comma-separated.
func fieldsError(kind ErrorKind, prefix string, fields []string) error {
	return &pathError{msg: prefix + strings.Join(fields, ", "), kind: kind, fields: fields}
}

// atKey prefixes err's path with an object key.
func atKey(err error, key string) error {
	if pe, ok := err.(*pathError); ok {
		if isIdent(key) {
			pe.steps = append(pe.steps, "."+key)
		} else {
			pe.steps = append(pe.steps, "["+strconv.Quote(key)+"]")
		}
	}
	return err
}

// atIndex prefixes err's path with an array index.
func atIndex(err error, i int) error {
	if pe, ok := err.(*pathError); ok {
		pe.steps = append(pe.steps, "["+strconv.Itoa(i)+"]")
	}
	return err
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// finish turns an internal error into an *Error.
func finish(op, format string, err error) error {
	if err == nil {
		return nil
	}
	var pe *pathError
	if !errors.As(err, &pe) {
		return &Error{Op: op, Format: format, Path: "$", Msg: err.Error()}
	}
	var b strings.Builder
	b.WriteByte('$')
	for i := len(pe.steps) - 1; i >= 0; i-- {
		b.WriteString(pe.steps[i])
	}
	return &Error{Op: op, Format: format, Path: b.String(), Msg: pe.msg, Kind: pe.kind, Fields: pe.fields}
}

var errTooDeep = "value nests deeper than Daml's limit of " + strconv.Itoa(MaxNesting)
