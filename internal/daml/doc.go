// Package daml is sandnet's typed model of Daml-LF values.
//
// Every contract payload, choice argument and exercise result that sandnet
// stores or serves is a [Value]. The package has one [Codec] per wire
// format the Canton Network uses:
//
//   - the JSON Ledger API's Daml-LF JSON ([LedgerJSON]),
//   - Scan's compact_json ([CompactJSON]),
//   - the payload of Splice's HTTP Contract ([PayloadJSON]),
//   - Scan's protobuf_json ([ProtobufJSON]), which sandnet also stores.
//
// The JSON formats other than protobuf_json are not self-describing (an
// Int64 and a Text are both JSON strings), so their decoders take a
// [Type]. Encoders append to a byte slice without reflection; decoders
// never panic and report bad input as an *[Error] with a JSON path.
// [Validate] checks a value against a type.
//
// Go structs that describe Splice templates are converted to and from
// values by [FromGo] and [ToGo], using `daml:"label"` struct tags, and
// [TypeOf] derives their [Type].
//
// The package imports neither SQL nor HTTP: it is pure domain code.
package daml
