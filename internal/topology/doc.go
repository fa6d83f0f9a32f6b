// Package topology is the part of Canton's topology that external parties
// meet: the topology transactions that onboard them, byte for byte as
// Canton writes and hashes them, what /v2/parties/external/generate-topology
// generates, and the checks /v2/parties/external/allocate makes.
//
// A [Transaction] models com.digitalasset.canton.protocol.v30.TopologyTransaction
// with the mappings onboarding uses (namespace delegations, decentralized
// namespace definitions, party-to-participant and party-to-key mappings);
// other mappings are kept as an [UnsupportedMapping]. [Marshal] writes
// Canton's bytes: the transaction in an UntypedVersionedMessage of
// version 30, fields in proto3 order with defaults omitted. [Unmarshal]
// reads them back and keeps the bytes as received, because Canton hashes
// a transaction's bytes, never a re-serialization ([Transaction.Hash],
// [MultiHash]).
//
// [Generate] and [GenerateLegacy] build the transactions Canton 3.5 and
// Canton 3.4.0–3.4.7 generate for a new external party. [ValidateOnboarding]
// checks a submitted set as allocate does, verifies its signatures with
// the keys the transactions carry, and requires that the party's own
// namespace key authorizes all of it.
//
// Errors are *fault.Error values carrying Canton's error codes (the Code*
// constants). For INVALID_ARGUMENT and INVALID_FIELD the message is the
// argument of Canton's Reject, which the HTTP layer prefixes with the
// code's fixed text ("The submitted request has invalid arguments: ",
// "The submitted command has a field with invalid value: "). The package
// imports neither SQL nor HTTP.
package topology
