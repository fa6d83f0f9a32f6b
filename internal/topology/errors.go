package topology

import (
	"fmt"

	"github.com/sandnet/sandnet/internal/fault"
)

// Canton's error codes of this package's errors.
const (
	// CodeInvalidArgument is a request Canton refuses as a whole (category
	// 8, INVALID_ARGUMENT). The message is the part after "The submitted
	// request has invalid arguments: ".
	CodeInvalidArgument = "INVALID_ARGUMENT"
	// CodeInvalidField is a request field Canton refuses (category 8,
	// INVALID_ARGUMENT). The message is "Invalid field <field>: <reason>",
	// the part after "The submitted command has a field with invalid
	// value: ".
	CodeInvalidField = "INVALID_FIELD"
	// CodeInvalidSignature is a signature that does not verify. Canton
	// raises it as an alarm (category 5, security alert, INVALID_ARGUMENT),
	// whose details it redacts from the response.
	CodeInvalidSignature = "TOPOLOGY_INVALID_TX_SIGNATURE"
	// CodeUnauthorizedTransaction is a transaction its signatures do not
	// authorize; an alarm too (category 5).
	CodeUnauthorizedTransaction = "TOPOLOGY_UNAUTHORIZED_TRANSACTION"
	// CodeMultiTransactionHashMismatch is a multi-transaction signature
	// whose hashes do not include the transaction's (category 9,
	// FAILED_PRECONDITION).
	CodeMultiTransactionHashMismatch = "TOPOLOGY_MULTI_TRANSACTION_HASH_MISMATCH"
)

// The messages of the topology manager's errors.
const (
	msgInvalidSignature = "Transaction signature verification failed"
	msgNoNamespaceAuth  = "Topology transaction is not properly authorized by any namespace key"
)

func invalidArgument(format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, CodeInvalidArgument, format, args...)
}

func invalidField(field, format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, CodeInvalidField, "Invalid field %s: %s", field, fmt.Sprintf(format, args...))
}

// invalidSignature is TOPOLOGY_INVALID_TX_SIGNATURE, keeping the
// verification failure as the cause for logs.
func invalidSignature(cause error) *fault.Error {
	e := fault.WithCode(fault.InvalidArgument, CodeInvalidSignature, msgInvalidSignature)
	e.Err = cause
	return e
}

func unauthorized(format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, CodeUnauthorizedTransaction, format, args...)
}

// causeOf is the message of err without its wrapped causes, for
// embedding in another message.
func causeOf(err error) string {
	if e, ok := fault.As(err); ok {
		return e.Message
	}
	return err.Error()
}
