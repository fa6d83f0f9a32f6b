package daml

// Codec is one wire format for Daml values.
//
// Encoders need no type: a [Value] carries its labels and its structure.
// Decoders of formats that are not self-describing need the value's
// [Type]; [ProtobufJSON] does not (and checks the value against t when t
// is not nil). The codecs are stateless and safe for concurrent use.
//
// [LedgerJSON], [CompactJSON] and [PayloadJSON] share one decoder: it
// accepts what any of them writes plus what the upstream decoders accept
// (Int64 as a JSON number, Numeric in any decimal notation, records as
// arrays of their fields, any ISO-8601 instant with an offset, missing
// Optional fields, unknown fields that are null). An enum type without
// Constructors accepts any constructor. The codecs do not check the syntax
// of parties and contract ids; that is the ledger's business.
type Codec interface {
	// Name is the format's name as Scan spells it: "ledger_json",
	// "compact_json", "protobuf_json" or "payload_json".
	Name() string
	// Encode renders v.
	Encode(v Value) ([]byte, error)
	// AppendEncode appends the rendering of v to dst, so that a response
	// can be built in one buffer.
	AppendEncode(dst []byte, v Value) ([]byte, error)
	// Decode parses data as a value of type t. It never panics; errors are
	// *[Error] values locating the problem.
	Decode(data []byte, t *Type) (Value, error)
}

// The wire formats. Each variable's comment records the upstream code it
// follows, since the formats differ in details clients notice.
var (
	// LedgerJSON is the Daml-LF JSON of the Canton JSON Ledger API v2
	// (createArgument, choiceArgument, exerciseResult...). It follows
	// Canton's transcode JsonCodec, which renders the gRPC value:
	// records are objects keyed by label with trailing None fields dropped;
	// Int64 and Numeric are strings, the Numeric with its ten decimals
	// ("10.0000000000", the ledger's own string); Timestamp is
	// DateTimeFormatter.ISO_DATE_TIME in UTC, whose fraction has its
	// trailing zeros removed ("2025-01-27T15:30:37.29Z",
	// "1970-01-01T00:00:00.00001Z"); Date "YYYY-MM-DD"; Optional null or
	// the value; List an array; TextMap an object; GenMap [[k,v],...];
	// Variant {"tag":C,"value":v}; Enum "C"; Unit {}.
	//
	// Nested optionals follow Daml-LF JSON as ApiCodecCompressed and the
	// Java codegen write them: Some(None) is [] and Some(Some(x)) is [x].
	// Canton's transcode codec instead makes every level of a nested
	// Optional an array (None is [], Some(None) is [[]]); that cannot be
	// produced without the type, since None looks the same at every level,
	// and Splice's models have no nested optionals.
	LedgerJSON Codec = &jsonCodec{name: "ledger_json", numeric: numericFixed, time: timeTrimmed, dropTrailingNone: true}

	// LedgerJSONStrict is LedgerJSON with the decoder Canton's JSON
	// Ledger API applies to command arguments (create arguments, choice
	// arguments): it accepts every spelling LedgerJSON's decoder accepts,
	// but a record with fields its type lacks fails with
	// [ErrUnexpectedFields] (unknown fields that are null are still
	// ignored, as Canton ignores them), and one lacking non-Optional
	// fields fails with [ErrMissingFields], each naming every such field
	// of the record. Missing Optional fields are None. It encodes exactly
	// as LedgerJSON.
	LedgerJSONStrict Codec = &jsonCodec{name: "ledger_json", numeric: numericFixed, time: timeTrimmed, dropTrailingNone: true, strict: true}

	// CompactJSON is Scan's compact_json, the default
	// daml_value_encoding of the update-history, events and ACS endpoints.
	// Splice renders it with the Java codegen's toJson (JsonLfEncoders),
	// which differs from LedgerJSON in three ways: every record field is
	// written, trailing None fields as null; a Timestamp has 0, 3 or 6
	// fraction digits ("yyyy-MM-dd'T'HH:mm:ss[.SSS|.SSSSSS]X"); and a
	// Numeric is Java's BigDecimal.toString of the scale-10 value, which
	// is "10.0000000000" for ordinary amounts but scientific below 10^-6
	// ("0E-10" for zero, "1.000E-7").
	CompactJSON Codec = &jsonCodec{name: "compact_json", numeric: numericJava, time: timeGrouped}

	// PayloadJSON is the encoding of Splice's HTTP Contract.payload (Scan's
	// amulet rules, mining rounds, ContractWithState, the wallet's
	// contracts), which Splice renders with Canton's ApiCodecCompressed:
	// like CompactJSON, except that a Numeric is Daml-LF's
	// toUnscaledString ("10.0", "0.5", "0.0").
	PayloadJSON Codec = &jsonCodec{name: "payload_json", numeric: numericUnscaled, time: timeGrouped}

	// ProtobufJSON is Scan's protobuf_json: the proto3 JSON mapping of
	// com.daml.ledger.api.v2.Value as Splice prints it (JsonFormat.printer,
	// default options). It is lossless and self-describing, so Decode
	// needs no type; sandnet also stores values in it.
	ProtobufJSON Codec = protobufJSON{}
)

// CodecByName returns the codec whose [Codec.Name] is name, for Scan's
// daml_value_encoding parameter.
func CodecByName(name string) (Codec, bool) {
	for _, c := range []Codec{LedgerJSON, CompactJSON, PayloadJSON, ProtobufJSON} {
		if c.Name() == name {
			return c, true
		}
	}
	return nil, false
}
