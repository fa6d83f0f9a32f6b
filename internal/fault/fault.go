// Package fault is sandnet's one error type. Domain packages return
// *Error values with a neutral [Kind]; each HTTP surface maps kinds to its
// own status codes and body shapes in exactly one place. Any other error
// reaching an API is an internal error whose details are logged, not served.
package fault

import (
	"errors"
	"fmt"
)

// Kind classifies an error independently of any transport. The kinds follow
// the gRPC codes Canton and Splice map to HTTP statuses.
type Kind uint8

// The error kinds. Their numbering is stored (the status of a rejected
// completion, see ledger.EncodeCompletion): append new kinds, never
// reorder.
const (
	// Internal is a bug or an infrastructure failure.
	Internal Kind = iota
	// InvalidArgument is a request that can never succeed as written.
	InvalidArgument
	// NotFound is a reference to something that does not exist.
	NotFound
	// AlreadyExists is a duplicate (a tracking id used twice, say).
	AlreadyExists
	// FailedPrecondition is a request the current state refuses.
	FailedPrecondition
	// DamlPrecondition is a failed Daml `require` or `ensure` while running
	// a choice; Splice answers it with 409.
	DamlPrecondition
	// Aborted is contention: a contract consumed concurrently, a command
	// already in flight. Retrying may succeed.
	Aborted
	// Unauthenticated is a missing or invalid credential.
	Unauthenticated
	// PermissionDenied is a valid credential without the needed rights.
	PermissionDenied
	// Unavailable is a temporary condition (not ready, backfilling).
	Unavailable
	// OutOfRange is a position beyond what exists (an offset after the
	// ledger end).
	OutOfRange
)

var kindNames = [...]string{
	Internal: "internal", InvalidArgument: "invalid argument", NotFound: "not found",
	AlreadyExists: "already exists", FailedPrecondition: "failed precondition",
	DamlPrecondition: "daml precondition failed", Aborted: "aborted",
	Unauthenticated: "unauthenticated", PermissionDenied: "permission denied",
	Unavailable: "unavailable", OutOfRange: "out of range",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Error is a classified error with a message fit for the caller.
type Error struct {
	Kind Kind
	// Code is the upstream error code id when one applies, such as
	// "CONTRACT_NOT_FOUND" or "OFFSET_AFTER_LEDGER_END".
	Code string
	// Message is served to the caller as is.
	Message string
	// Context holds upstream error context entries (Canton's
	// JsCantonError.context), if any.
	Context map[string]string
	// Resources names the resources the error is about, as (kind, name)
	// pairs (Canton's JsCantonError.resources: ("PARTY", "alice::1220…")).
	Resources [][2]string
	// Err is the underlying cause, for logs; never served.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error of the given kind with a formatted message.
func New(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// WithCode returns an error of the given kind and upstream code.
func WithCode(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap classifies err, keeping it as the cause.
func Wrap(kind Kind, err error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Err: err}
}

// KindOf returns the kind of err: the kind of the first *Error in its
// chain, or Internal.
func KindOf(err error) Kind {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is an *Error of the given kind.
func Is(err error, kind Kind) bool {
	e, ok := errors.AsType[*Error](err)
	return ok && e.Kind == kind
}

// As returns the first *Error in err's chain.
func As(err error) (*Error, bool) {
	return errors.AsType[*Error](err)
}
