package splice

import (
	"strconv"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// How a Splice choice fails, and what a Canton participant answers:
//
//   - Splice.Util's require and DA.Assert's assertMsg throw AssertionFailed,
//     which nothing catches: UNHANDLED_EXCEPTION, with Daml's message.
//   - abort, fail and error throw GeneralError: UNHANDLED_EXCEPTION too.
//   - failWithStatus (insufficient funds, deadlines, the maximum number of
//     inputs…) fails the transaction with a FailureStatus: DAML_FAILURE,
//     whose context carries the status's error_id, its category and its
//     metadata.
//   - a failed template `ensure` is TEMPLATE_PRECONDITION_VIOLATED (the
//     engine reports it, see ledger.Tx).
//
// All of them are fault.DamlPrecondition, which Splice's APIs answer with
// 409. The messages are Splice's own, so that a client matching on them
// sees what Splice says.

// CodeDamlFailure is Canton's error code for a transaction that failed
// with Daml's failWithStatus.
const CodeDamlFailure = "DAML_FAILURE"

// require is Splice.Util's require.
func require(tx *ledger.Tx, msg string, cond bool) error {
	if cond {
		// Most requirements hold: the message is built only for one
		// that fails.
		return nil
	}
	return assertMsg(tx, "The requirement '"+msg+"' was not met.", cond)
}

// assertMsg is DA.Assert's assertMsg.
func assertMsg(tx *ledger.Tx, msg string, cond bool) error {
	if cond {
		return nil
	}
	return tx.Require(cond, "Interpretation error: Error: Unhandled Daml exception: DA.Exception.AssertionFailed:AssertionFailed{ message = %s }", strconv.Quote(msg))
}

// abort is Daml's abort (and fail, and error): a GeneralError nothing
// catches.
func abort(msg string) error {
	return fault.WithCode(fault.DamlPrecondition, ledger.CodeUnhandledException,
		"Interpretation error: Error: Unhandled Daml exception: DA.Exception.GeneralError:GeneralError{ message = %s }", strconv.Quote(msg))
}

// deprecatedChoice is Splice.Util's deprecatedChoice: the choice is still
// in the package, for upgrading's sake, but always aborts.
func deprecatedChoice(pkg, version, choice string) error {
	return abort("Choice " + strconv.Quote(choice) + " is no longer supported since " + strconv.Quote(pkg) + "-" + strconv.Quote(version))
}

// FailureCategory is DA.Fail's FailureCategory, as the Canton error
// category it maps to.
type FailureCategory int

// The failure categories Splice uses, with Canton's category numbers.
const (
	InvalidIndependentOfSystemState     FailureCategory = 8
	InvalidGivenCurrentSystemStateOther FailureCategory = 9
)

// FailureStatus is DA.Fail's FailureStatus: what failWithStatus fails a
// transaction with.
type FailureStatus struct {
	ErrorID  string
	Category FailureCategory
	Message  string
	Meta     map[string]string
}

// failWithStatus is DA.Fail's failWithStatus. The fault's context holds
// error_id, category (Canton's category number) and the status's
// metadata, as Canton's DAML_FAILURE context does.
func failWithStatus(s FailureStatus) error {
	e := fault.WithCode(fault.DamlPrecondition, CodeDamlFailure, "%s", s.Message)
	e.Context = map[string]string{"error_id": s.ErrorID, "category": strconv.Itoa(int(s.Category))}
	for k, v := range s.Meta {
		e.Context[k] = v
	}
	return e
}

// spliceErrorID is Splice.AmuletRules' spliceErrorId.
func spliceErrorID(name string) string { return splicePrefix + name }

// assertWithinDeadline is DA.Time's assertWithinDeadline: ledger time must
// be before the deadline.
func assertWithinDeadline(tx *ledger.Tx, name string, deadline daml.Timestamp) error {
	if tx.Now() < deadline {
		return nil
	}
	return failWithStatus(FailureStatus{
		ErrorID: "stdlib.daml.com/deadline-exceeded", Category: InvalidGivenCurrentSystemStateOther,
		Message: "Ledger time is at or past deadline '" + name + "' at " + deadline.String(),
		Meta:    map[string]string{"deadline": deadline.String()},
	})
}

// assertDeadlineExceeded is DA.Time's assertDeadlineExceeded: ledger time
// must be at or after the deadline.
func assertDeadlineExceeded(tx *ledger.Tx, name string, deadline daml.Timestamp) error {
	if tx.Now() >= deadline {
		return nil
	}
	return failWithStatus(FailureStatus{
		ErrorID: "stdlib.daml.com/deadline-not-exceeded", Category: InvalidGivenCurrentSystemStateOther,
		Message: "Ledger time is before deadline '" + name + "' at " + deadline.String(),
		Meta:    map[string]string{"deadline": deadline.String()},
	})
}

// checkExpectedDso is Splice.AmuletRules' checkExpectedDso: a caller names
// the DSO it expects, so that a delegate cannot swap in rules of a DSO
// under its control.
func checkExpectedDso(actual daml.Party, expected *daml.Party) error {
	switch {
	case expected == nil:
		return abort("Expected DSO party not set by caller. Please change your code to set it as a prudent security measure.")
	case *expected != actual:
		return abort("DSO party expected by caller " + showParty(*expected) + " does not match actual DSO party " + showParty(actual))
	}
	return nil
}
