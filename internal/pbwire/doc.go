// Package pbwire writes and reads single protobuf fields, for the
// messages sandnet encodes by hand because their bytes are hashed and
// signed: prepared transactions (package interactive) and topology
// transactions (package topology).
//
// The Append functions write a field as Canton's protobuf-java writes a
// proto3 field: a scalar or string with its default value (0, false,
// empty) is left out, a message field is written whenever it is set, and
// so is every element of a repeated field. [Next] splits a message into
// its fields, leaving what a field must hold to the caller, which knows
// the message: each package words its own errors and decides what an
// unknown field or a group means.
//
// The package is pure encoding: no SQL, no HTTP, no knowledge of Canton's
// messages.
package pbwire
