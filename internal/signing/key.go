package signing

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/hex"
	"math/big"
	"slices"

	"github.com/sandnet/sandnet/internal/fault"
)

// PublicKey is a signing public key as Canton holds it once it has
// migrated and validated it.
type PublicKey struct {
	// Spec is the key's curve.
	Spec KeySpec
	// SPKI is the key as DER SubjectPublicKeyInfo: Canton migrates an
	// Ed25519 RAW key and a legacy DER ECDSA key to it, and validates
	// only this form.
	SPKI []byte
	// Usage is what the key may sign, as [NormalizeUsage] reads a key's
	// usage list. [ParsePublicKey] leaves it empty: the ledger API's key
	// has no usage, the topology transaction that carries it has.
	Usage []Usage
}

// ed25519SPKIPrefix is the DER SubjectPublicKeyInfo of an Ed25519 key up
// to the raw key: SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING
// (33 bytes, no unused bits) }.
var ed25519SPKIPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

// The names Canton's key messages give the formats (CryptoKeyFormat.name).
const (
	formatNameDER  = "DER"
	formatNameRaw  = "Raw"
	formatNameSPKI = "DER-encoded X.509 SubjectPublicKeyInfo"
)

func keyFormatName(f KeyFormat) string {
	switch f {
	case KeyFormatDER:
		return formatNameDER
	case KeyFormatRaw:
		return formatNameRaw
	}
	return formatNameSPKI
}

// ParsePublicKey validates a public key given in the ledger API's terms
// and returns it migrated to SubjectPublicKeyInfo, as Canton's
// SigningPublicKey.create does: an Ed25519 RAW key (32 bytes) is wrapped
// in an SPKI; a P-256 or P-384 key in the legacy DER format is taken as
// the SPKI it is; SPKI is accepted for every spec. The key must be of the
// given spec. secp256k1 keys are refused.
func ParsePublicKey(format KeyFormat, data []byte, spec KeySpec) (PublicKey, error) {
	switch format {
	case KeyFormatDER, KeyFormatRaw, KeyFormatSPKI:
	case KeyFormatUnspecified:
		return PublicKey{}, fault.New(fault.InvalidArgument, "Field `format` is not set")
	default:
		return PublicKey{}, fault.New(fault.InvalidArgument, "Unrecognized value `%d` in enum field `format`", int32(format))
	}
	switch spec {
	case KeySpecCurve25519, KeySpecP256, KeySpecP384:
	case KeySpecUnspecified:
		// Canton falls back to the deprecated scheme field, which the
		// ledger API's key does not have, and names both.
		return PublicKey{}, fault.New(fault.InvalidArgument, "Field `key_spec and scheme` is not set")
	case KeySpecSecp256k1:
		return PublicKey{}, fault.New(fault.InvalidArgument,
			"Signing key spec %s is not supported: this server cannot verify secp256k1 signatures", spec)
	default:
		return PublicKey{}, fault.New(fault.InvalidArgument, "Unrecognized value `%d` in enum field `key_spec`", int32(spec))
	}
	var spki []byte
	switch {
	case format == KeyFormatSPKI:
		spki = bytes.Clone(data)
	case format == KeyFormatRaw && spec == KeySpecCurve25519:
		if len(data) != ed25519.PublicKeySize {
			return PublicKey{}, keyError(KeyFormatSPKI, "Ed25519 public key must be %d bytes, not %d", ed25519.PublicKeySize, len(data))
		}
		spki = append(bytes.Clone(ed25519SPKIPrefix), data...)
	case format == KeyFormatDER && spec != KeySpecCurve25519:
		// Canton's legacy DER for ECDSA keys is already an SPKI: the
		// migration relabels it.
		spki = bytes.Clone(data)
	default:
		return PublicKey{}, keyError(format, "Invalid format for public key: %s", keyFormatName(format))
	}
	if err := checkSPKI(spec, spki); err != nil {
		return PublicKey{}, err
	}
	return PublicKey{Spec: spec, SPKI: spki}, nil
}

// keyError is Canton's message for a key that fails validation.
func keyError(format KeyFormat, reason string, args ...any) *fault.Error {
	return fault.New(fault.InvalidArgument, "Failed to deserialize or validate %s public key: "+reason,
		append([]any{keyFormatName(format)}, args...)...)
}

// checkSPKI checks that spki is a well-formed SubjectPublicKeyInfo of a
// key of the given spec.
func checkSPKI(spec KeySpec, spki []byte) error {
	pub, err := parseSPKI(spec, spki)
	if err != nil {
		return err
	}
	if k, ok := pub.(ed25519.PublicKey); ok && !ed25519PointValid(k) {
		return keyError(KeyFormatSPKI, "Ed25519 public key validation failed: the key is not a point of the curve")
	}
	return nil
}

// parseSPKI parses spki as a key of the given spec: an ed25519.PublicKey
// or an *ecdsa.PublicKey on the spec's curve. x509 checks that an ECDSA
// point is on its curve and refuses trailing data; its errors name no key
// material.
func parseSPKI(spec KeySpec, spki []byte) (any, error) {
	pub, err := x509.ParsePKIXPublicKey(spki)
	if err != nil {
		return nil, keyError(KeyFormatSPKI, "%s", err.Error())
	}
	switch spec {
	case KeySpecCurve25519:
		if _, ok := pub.(ed25519.PublicKey); !ok {
			return nil, keyError(KeyFormatSPKI, "Public key is not an ED25519 public key")
		}
	case KeySpecP256, KeySpecP384:
		k, ok := pub.(*ecdsa.PublicKey)
		if !ok {
			return nil, keyError(KeyFormatSPKI, "Public key is not an EC public key")
		}
		curve, name := elliptic.P256(), "secp256r1"
		if spec == KeySpecP384 {
			curve, name = elliptic.P384(), "secp384r1"
		}
		if k.Curve != curve {
			return nil, keyError(KeyFormatSPKI, "EC key not in curve '%s'.", name)
		}
	default:
		return nil, fault.New(fault.InvalidArgument, "Signing key spec %s is not supported", spec)
	}
	return pub, nil
}

// Fingerprint returns the key's fingerprint, the hex of
// Hash(PurposePublicKeyFingerprint, …) over the raw 32-byte key for
// Ed25519 (Canton keeps the fingerprints keys had before their migration
// to SPKI) and over the DER SPKI for ECDSA: 68 hex characters "1220…".
// Every signature's SignedBy names its key this way.
func (k PublicKey) Fingerprint() string {
	data := k.SPKI
	if raw, ok := k.ed25519Raw(); ok {
		data = raw
	}
	return hex.EncodeToString(Hash(PurposePublicKeyFingerprint, data))
}

// ed25519Raw returns the raw key inside an Ed25519 SPKI.
func (k PublicKey) ed25519Raw() ([]byte, bool) {
	if k.Spec != KeySpecCurve25519 || len(k.SPKI) != len(ed25519SPKIPrefix)+ed25519.PublicKeySize ||
		!bytes.HasPrefix(k.SPKI, ed25519SPKIPrefix) {
		return nil, false
	}
	return k.SPKI[len(ed25519SPKIPrefix):], true
}

// HasUsage reports whether the key's usage includes u.
func (k PublicKey) HasUsage(u Usage) bool { return slices.Contains(k.Usage, u) }

// allUsages is what Canton grants a key whose usage list is empty: the
// keys of topology transactions from before usages existed.
var allUsages = []Usage{UsageNamespace, UsageSequencerAuthentication, UsageProtocol, UsageProofOfOwnership}

// NormalizeUsage reads a key's usage list as Canton does: the deprecated
// identity delegation is dropped, an empty list means every usage, and
// proof of ownership is added to every key that is not a namespace-only
// key (such a key may sign the mappings that register it). Unspecified or
// unknown usages, and the combinations Canton forbids (proof of
// ownership alone or with namespace only), are refused. The result is in
// ascending order, without duplicates.
func NormalizeUsage(usage []Usage) ([]Usage, error) {
	var set [UsageProofOfOwnership + 1]bool
	n := 0
	for _, u := range usage {
		switch u {
		case UsageNamespace, UsageSequencerAuthentication, UsageProtocol, UsageProofOfOwnership:
			if !set[u] {
				set[u] = true
				n++
			}
		case UsageIdentityDelegation:
		case UsageUnspecified:
			return nil, fault.New(fault.InvalidArgument, "Field `usage` is not set")
		default:
			return nil, fault.New(fault.InvalidArgument, "Unrecognized value `%d` in enum field `usage`", int32(u))
		}
	}
	if n == 0 {
		return slices.Clone(allUsages), nil
	}
	namespaceOnly := n == 1 && set[UsageNamespace]
	if set[UsageProofOfOwnership] && (n == 1 || n == 2 && set[UsageNamespace]) {
		return nil, fault.New(fault.InvalidArgument,
			"Invalid key usage: proof of ownership must come with a usage other than namespace")
	}
	if !namespaceOnly {
		set[UsageProofOfOwnership] = true
	}
	out := make([]Usage, 0, len(set))
	for u, ok := range set {
		if ok {
			out = append(out, Usage(u))
		}
	}
	return out, nil
}

// ed25519 curve constants: p = 2^255 - 19 and d = -121665/121666 mod p.
var (
	ed25519P = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	ed25519D = func() *big.Int {
		d := new(big.Int).ModInverse(big.NewInt(121666), ed25519P)
		d.Mul(d, big.NewInt(-121665))
		return d.Mod(d, ed25519P)
	}()
)

// ed25519PointValid reports whether k is the canonical encoding of a point
// of the Ed25519 curve: y < p, and x² = (y² - 1) / (d·y² + 1) has a root
// of the encoded sign. Go's ed25519 does not check this when it takes a
// key, and a key that is no point could never verify a signature; Canton
// refuses it when it reads the key.
func ed25519PointValid(k []byte) bool {
	if len(k) != ed25519.PublicKeySize {
		return false
	}
	be := make([]byte, len(k))
	for i, b := range k {
		be[len(k)-1-i] = b
	}
	sign := be[0] >> 7
	be[0] &= 0x7f
	y := new(big.Int).SetBytes(be)
	if y.Cmp(ed25519P) >= 0 {
		return false
	}
	y2 := new(big.Int).Mul(y, y)
	y2.Mod(y2, ed25519P)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	u.Mod(u, ed25519P)
	v := new(big.Int).Mul(ed25519D, y2)
	v.Add(v, big.NewInt(1))
	v.Mod(v, ed25519P)
	vInv := new(big.Int).ModInverse(v, ed25519P)
	if vInv == nil {
		return false
	}
	x2 := u.Mul(u, vInv)
	x2.Mod(x2, ed25519P)
	if x2.Sign() == 0 {
		// x = 0 has no negative: its sign bit must be clear.
		return sign == 0
	}
	return big.Jacobi(x2, ed25519P) == 1
}
