package signing

import (
	"strconv"

	"github.com/sandnet/sandnet/internal/fault"
)

// The enums below carry Canton's numbers. Their String methods give the
// ledger API's JSON names (the protobuf enum value names); a number
// without a name prints as scalapb prints it, "Unrecognized(n)", which is
// what Canton's messages quote. Their Parse functions accept exactly those
// names, the *_UNSPECIFIED ones included: an unspecified value is a valid
// enum value that the checks ([Signature.Check], [ParsePublicKey],
// [PublicKey.Verify]) refuse with Canton's message, not a decoding error.

// KeySpec is Canton's SigningKeySpec, the curve of a signing key. Its
// numbers are the same in the ledger API and in crypto.v30.
type KeySpec int32

// The signing key specs.
const (
	KeySpecUnspecified KeySpec = 0
	KeySpecCurve25519  KeySpec = 1
	KeySpecP256        KeySpec = 2
	KeySpecP384        KeySpec = 3
	// KeySpecSecp256k1 keys are refused by [ParsePublicKey].
	KeySpecSecp256k1 KeySpec = 4
)

var keySpecs = enum[KeySpec]{"SigningKeySpec", map[KeySpec]string{
	KeySpecUnspecified: "SIGNING_KEY_SPEC_UNSPECIFIED",
	KeySpecCurve25519:  "SIGNING_KEY_SPEC_EC_CURVE25519",
	KeySpecP256:        "SIGNING_KEY_SPEC_EC_P256",
	KeySpecP384:        "SIGNING_KEY_SPEC_EC_P384",
	KeySpecSecp256k1:   "SIGNING_KEY_SPEC_EC_SECP256K1",
}}

// String returns the JSON name of s, such as
// "SIGNING_KEY_SPEC_EC_CURVE25519".
func (s KeySpec) String() string { return keySpecs.nameOf(s) }

// ParseKeySpec returns the key spec named name.
func ParseKeySpec(name string) (KeySpec, error) { return keySpecs.parse(name) }

// KeyFormat is the ledger API's CryptoKeyFormat, the format a client gives
// a public key in. Its numbers differ from crypto.v30's ([ProtoKeyFormat]),
// which topology transactions use.
type KeyFormat int32

// The ledger API's key formats.
const (
	KeyFormatUnspecified KeyFormat = 0
	// KeyFormatDER is the legacy DER format: for ECDSA keys, DER
	// SubjectPublicKeyInfo under another name.
	KeyFormatDER KeyFormat = 1
	// KeyFormatRaw is the raw key; only Ed25519 keys (32 bytes) have one.
	KeyFormatRaw KeyFormat = 2
	// KeyFormatSPKI is DER-encoded X.509 SubjectPublicKeyInfo.
	KeyFormatSPKI KeyFormat = 3
)

var keyFormats = enum[KeyFormat]{"CryptoKeyFormat", map[KeyFormat]string{
	KeyFormatUnspecified: "CRYPTO_KEY_FORMAT_UNSPECIFIED",
	KeyFormatDER:         "CRYPTO_KEY_FORMAT_DER",
	KeyFormatRaw:         "CRYPTO_KEY_FORMAT_RAW",
	KeyFormatSPKI:        "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
}}

// String returns the JSON name of f, such as "CRYPTO_KEY_FORMAT_RAW".
func (f KeyFormat) String() string { return keyFormats.nameOf(f) }

// ParseKeyFormat returns the ledger API key format named name.
func ParseKeyFormat(name string) (KeyFormat, error) { return keyFormats.parse(name) }

// Proto returns the crypto.v30 number of f, the number a topology
// transaction carries. A number without a ledger API name maps to
// ProtoKeyFormatUnspecified.
func (f KeyFormat) Proto() ProtoKeyFormat {
	return protoOfKeyFormat[f] // the zero value, unspecified, when absent
}

// protoOfKeyFormat pairs every ledger API key format with its crypto.v30
// number; [KeyFormat.Proto] reads it one way, [ProtoKeyFormat.Ledger] the
// other.
var protoOfKeyFormat = map[KeyFormat]ProtoKeyFormat{
	KeyFormatUnspecified: ProtoKeyFormatUnspecified,
	KeyFormatDER:         ProtoKeyFormatDER,
	KeyFormatRaw:         ProtoKeyFormatRaw,
	KeyFormatSPKI:        ProtoKeyFormatSPKI,
}

// ProtoKeyFormat is crypto.v30's CryptoKeyFormat, the key format inside
// topology transactions.
type ProtoKeyFormat int32

// The crypto.v30 key formats.
const (
	ProtoKeyFormatUnspecified ProtoKeyFormat = 0
	ProtoKeyFormatDER         ProtoKeyFormat = 2
	ProtoKeyFormatRaw         ProtoKeyFormat = 3
	ProtoKeyFormatSPKI        ProtoKeyFormat = 4
	// ProtoKeyFormatPKCS8 is a private key format; no public key has it.
	ProtoKeyFormatPKCS8 ProtoKeyFormat = 5
	// ProtoKeyFormatSymbolic is Canton's test-only format.
	ProtoKeyFormatSymbolic ProtoKeyFormat = 10000
)

var protoKeyFormats = enum[ProtoKeyFormat]{"CryptoKeyFormat", map[ProtoKeyFormat]string{
	ProtoKeyFormatUnspecified: "CRYPTO_KEY_FORMAT_UNSPECIFIED",
	ProtoKeyFormatDER:         "CRYPTO_KEY_FORMAT_DER",
	ProtoKeyFormatRaw:         "CRYPTO_KEY_FORMAT_RAW",
	ProtoKeyFormatSPKI:        "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
	ProtoKeyFormatPKCS8:       "CRYPTO_KEY_FORMAT_DER_PKCS8_PRIVATE_KEY_INFO",
	ProtoKeyFormatSymbolic:    "CRYPTO_KEY_FORMAT_SYMBOLIC",
}}

// String returns the protobuf name of f.
func (f ProtoKeyFormat) String() string { return protoKeyFormats.nameOf(f) }

// Ledger returns the ledger API format of f, and false for the formats
// the ledger API has no name for (PKCS #8, symbolic, unknown numbers).
func (f ProtoKeyFormat) Ledger() (KeyFormat, bool) {
	for l, p := range protoOfKeyFormat {
		if p == f {
			return l, true
		}
	}
	return KeyFormatUnspecified, false
}

// Usage is Canton's SigningKeyUsage: what a key may sign.
type Usage int32

// The key usages.
const (
	UsageUnspecified Usage = 0
	// UsageNamespace keys sign namespace delegations and whatever their
	// namespace authorizes.
	UsageNamespace Usage = 1
	// UsageIdentityDelegation is deprecated; Canton drops it when it
	// reads a key.
	UsageIdentityDelegation Usage = 2
	// UsageSequencerAuthentication keys authenticate members to a
	// sequencer.
	UsageSequencerAuthentication Usage = 3
	// UsageProtocol keys sign protocol messages, such as an external
	// party's prepared transactions.
	UsageProtocol Usage = 4
	// UsageProofOfOwnership keys sign the topology transactions that
	// register them, proving their owner holds the private key.
	UsageProofOfOwnership Usage = 5
)

var usages = enum[Usage]{"SigningKeyUsage", map[Usage]string{
	UsageUnspecified:             "SIGNING_KEY_USAGE_UNSPECIFIED",
	UsageNamespace:               "SIGNING_KEY_USAGE_NAMESPACE",
	UsageIdentityDelegation:      "SIGNING_KEY_USAGE_IDENTITY_DELEGATION",
	UsageSequencerAuthentication: "SIGNING_KEY_USAGE_SEQUENCER_AUTHENTICATION",
	UsageProtocol:                "SIGNING_KEY_USAGE_PROTOCOL",
	UsageProofOfOwnership:        "SIGNING_KEY_USAGE_PROOF_OF_OWNERSHIP",
}}

// String returns the protobuf name of u, such as
// "SIGNING_KEY_USAGE_PROTOCOL".
func (u Usage) String() string { return usages.nameOf(u) }

// ParseUsage returns the key usage named name.
func ParseUsage(name string) (Usage, error) { return usages.parse(name) }

// SignatureFormat is Canton's SignatureFormat.
type SignatureFormat int32

// The signature formats.
const (
	SignatureFormatUnspecified SignatureFormat = 0
	// SignatureFormatRaw is the legacy format: Canton migrates it to DER
	// or CONCAT by the signature's algorithm.
	SignatureFormatRaw SignatureFormat = 1
	// SignatureFormatDER is ASN.1 DER of (r, s), for ECDSA.
	SignatureFormatDER SignatureFormat = 2
	// SignatureFormatConcat is R ‖ S (64 bytes), for Ed25519.
	SignatureFormatConcat SignatureFormat = 3
	// SignatureFormatSymbolic is Canton's test-only format; it never
	// verifies here.
	SignatureFormatSymbolic SignatureFormat = 10000
)

var signatureFormats = enum[SignatureFormat]{"SignatureFormat", map[SignatureFormat]string{
	SignatureFormatUnspecified: "SIGNATURE_FORMAT_UNSPECIFIED",
	SignatureFormatRaw:         "SIGNATURE_FORMAT_RAW",
	SignatureFormatDER:         "SIGNATURE_FORMAT_DER",
	SignatureFormatConcat:      "SIGNATURE_FORMAT_CONCAT",
	SignatureFormatSymbolic:    "SIGNATURE_FORMAT_SYMBOLIC",
}}

// String returns the JSON name of f, such as "SIGNATURE_FORMAT_CONCAT".
func (f SignatureFormat) String() string { return signatureFormats.nameOf(f) }

// ParseSignatureFormat returns the signature format named name.
func ParseSignatureFormat(name string) (SignatureFormat, error) { return signatureFormats.parse(name) }

// Check refuses the formats the ledger API refuses: unspecified, and
// numbers without a name. Canton's message for the latter names the
// signing algorithm spec; it is kept as Canton has it.
func (f SignatureFormat) Check() error {
	switch f {
	case SignatureFormatUnspecified:
		return fault.New(fault.InvalidArgument, "Signature format must be specified")
	case SignatureFormatRaw, SignatureFormatDER, SignatureFormatConcat, SignatureFormatSymbolic:
		return nil
	}
	return fault.New(fault.InvalidArgument, "Signing algorithm spec %s not supported", f)
}

// Algorithm is Canton's SigningAlgorithmSpec.
type Algorithm int32

// The signing algorithms.
const (
	AlgorithmUnspecified Algorithm = 0
	// AlgorithmEd25519 is EdDSA on Curve25519; it signs with
	// SIGNING_KEY_SPEC_EC_CURVE25519 keys in CONCAT format.
	AlgorithmEd25519 Algorithm = 1
	// AlgorithmECDSASHA256 is SHA256withECDSA; it signs with P-256 (and,
	// in Canton, secp256k1) keys in DER format.
	AlgorithmECDSASHA256 Algorithm = 2
	// AlgorithmECDSASHA384 is SHA384withECDSA; it signs with P-384 keys
	// in DER format.
	AlgorithmECDSASHA384 Algorithm = 3
)

var algorithms = enum[Algorithm]{"SigningAlgorithmSpec", map[Algorithm]string{
	AlgorithmUnspecified: "SIGNING_ALGORITHM_SPEC_UNSPECIFIED",
	AlgorithmEd25519:     "SIGNING_ALGORITHM_SPEC_ED25519",
	AlgorithmECDSASHA256: "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256",
	AlgorithmECDSASHA384: "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384",
}}

// String returns the JSON name of a, such as
// "SIGNING_ALGORITHM_SPEC_ED25519".
func (a Algorithm) String() string { return algorithms.nameOf(a) }

// ParseAlgorithm returns the signing algorithm named name.
func ParseAlgorithm(name string) (Algorithm, error) { return algorithms.parse(name) }

// Check refuses the algorithms the ledger API refuses: unspecified, and
// numbers without a name.
func (a Algorithm) Check() error {
	switch a {
	case AlgorithmEd25519, AlgorithmECDSASHA256, AlgorithmECDSASHA384:
		return nil
	}
	return fault.New(fault.InvalidArgument, "Signing algorithm spec %s not supported", a)
}

// enum is the name table of one of the enums above: Canton's name of the
// enum, which Parse's error quotes, and the name of each value. Each enum
// is declared once, as this data; String and Parse read it.
type enum[T ~int32] struct {
	enum  string
	names map[T]string
}

// nameOf is the name of v, or scalapb's "Unrecognized(n)".
func (e enum[T]) nameOf(v T) string {
	if s, ok := e.names[v]; ok {
		return s
	}
	return "Unrecognized(" + strconv.Itoa(int(v)) + ")"
}

// parse finds name among the names. It is a linear search: the enums have
// at most six names, and a reverse map per enum would be one more table
// to keep in step.
func (e enum[T]) parse(name string) (T, error) {
	for v, s := range e.names {
		if s == name {
			return v, nil
		}
	}
	return 0, fault.New(fault.InvalidArgument, "Unknown value %s for enum %s", fault.Quote(name), e.enum)
}
