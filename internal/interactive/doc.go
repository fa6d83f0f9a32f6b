// Package interactive is Canton's interactive submission data model: the
// PreparedTransaction protobuf message (com.daml.ledger.api.v2.interactive,
// the Canton 3.4 fields plus the 3.5 ones sandnet must recognise) as Go
// types, its binary codec, and the transaction hashing schemes V2 and V3
// whose final hash an external party signs.
//
// [Marshal] writes exactly the bytes Canton's protobuf-java writes for the
// same message, so a prepared transaction served by sandnet is the one a
// Canton participant would serve. [Unmarshal] reads what any protobuf
// writer produces, skips unknown fields like protobuf does, and refuses
// malformed input with a *fault.Error of kind fault.InvalidArgument.
//
// Daml values are sandnet's [daml.Value]s. Contract keys are not modelled:
// sandnet does not use them, so the 3.5 key fields and the QueryByKey node
// are refused rather than silently dropped (dropping them would change the
// hash).
//
// The package is pure domain code: no SQL, no HTTP.
package interactive
