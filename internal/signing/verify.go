package signing

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"

	"github.com/sandnet/sandnet/internal/fault"
)

// Signature is a signature as the ledger API carries it.
type Signature struct {
	// Format is how Bytes encode the signature.
	Format SignatureFormat
	// Bytes is the signature.
	Bytes []byte
	// SignedBy is the fingerprint of the signing key.
	SignedBy string
	// Algorithm is the signing algorithm. The ledger API requires it
	// ([Signature.Check]); [PublicKey.Verify] takes the key's algorithm
	// when it is unspecified, as Canton does for its legacy signatures.
	Algorithm Algorithm
}

// Check refuses what the ledger API refuses when it reads a signature: an
// unspecified or unknown format, and an unspecified or unknown algorithm.
func (s Signature) Check() error {
	if err := s.Format.Check(); err != nil {
		return err
	}
	return s.Algorithm.Check()
}

// defaultAlgorithm is the algorithm of a key's spec, for signatures
// without one.
func defaultAlgorithm(spec KeySpec) Algorithm {
	switch spec {
	case KeySpecCurve25519:
		return AlgorithmEd25519
	case KeySpecP256, KeySpecSecp256k1:
		return AlgorithmECDSASHA256
	case KeySpecP384:
		return AlgorithmECDSASHA384
	}
	return AlgorithmUnspecified
}

// supports reports whether algorithm a signs with keys of spec s
// (Canton's supportedSigningKeySpecs).
func (a Algorithm) supports(s KeySpec) bool {
	switch a {
	case AlgorithmEd25519:
		return s == KeySpecCurve25519
	case AlgorithmECDSASHA256:
		return s == KeySpecP256 || s == KeySpecSecp256k1
	case AlgorithmECDSASHA384:
		return s == KeySpecP384
	}
	return false
}

// format is the one signature format algorithm a produces.
func (a Algorithm) format() SignatureFormat {
	if a == AlgorithmEd25519 {
		return SignatureFormatConcat
	}
	return SignatureFormatDER
}

// migrate returns the format of a signature in the legacy RAW format, as
// Canton migrates it: by the signature's algorithm, or without one by its
// size (an Ed25519 signature is 64 bytes; a DER ECDSA signature almost
// never is).
func (s Signature) migrate() SignatureFormat {
	if s.Format != SignatureFormatRaw {
		return s.Format
	}
	if s.Algorithm != AlgorithmUnspecified {
		return s.Algorithm.format()
	}
	if len(s.Bytes) == ed25519.SignatureSize {
		return SignatureFormatConcat
	}
	return SignatureFormatDER
}

// Verify checks that sig is the key's signature of msg. The signature's
// signer must be the key's fingerprint; its algorithm must suit the key's
// spec (ED25519 with CURVE25519, EC_DSA_SHA_256 with P256, EC_DSA_SHA_384
// with P384); its format, once a RAW signature is migrated, must be the
// algorithm's (CONCAT for Ed25519, DER for ECDSA). Ed25519 signs msg
// itself; ECDSA signs its SHA-256 or SHA-384 digest. Canton's topology
// and multi-hash signatures sign the 34-byte [Hash]; its prepared
// transaction signatures sign the 32-byte digest.
func (k PublicKey) Verify(sig Signature, msg []byte) error {
	fingerprint := k.Fingerprint()
	if sig.SignedBy != fingerprint {
		return fault.New(fault.InvalidArgument, "Signature signed by %s cannot be verified with key %s",
			fault.Quote(sig.SignedBy), fingerprint)
	}
	if k.Spec == KeySpecSecp256k1 {
		return fault.New(fault.InvalidArgument,
			"Signing key spec %s is not supported: this server cannot verify secp256k1 signatures", k.Spec)
	}
	if err := sig.Format.Check(); err != nil {
		return err
	}
	algorithm := sig.Algorithm
	if algorithm == AlgorithmUnspecified {
		algorithm = defaultAlgorithm(k.Spec)
	}
	if err := algorithm.Check(); err != nil {
		return err
	}
	if !algorithm.supports(k.Spec) {
		return fault.New(fault.InvalidArgument,
			"The selected signing algorithm specification, %s, is not supported for key spec %s", algorithm, k.Spec)
	}
	if format := sig.migrate(); format != algorithm.format() {
		return fault.New(fault.InvalidArgument,
			"The signature format %s is not supported by the signing algorithm specification %s (it needs %s)",
			format, algorithm, algorithm.format())
	}
	pub, err := parseSPKI(k.Spec, k.SPKI)
	if err != nil {
		return err
	}
	var ok bool
	switch algorithm {
	case AlgorithmEd25519:
		ok = len(sig.Bytes) == ed25519.SignatureSize && ed25519.Verify(pub.(ed25519.PublicKey), msg, sig.Bytes)
	case AlgorithmECDSASHA256:
		digest := sha256.Sum256(msg)
		ok = ecdsa.VerifyASN1(pub.(*ecdsa.PublicKey), digest[:], sig.Bytes)
	case AlgorithmECDSASHA384:
		digest := sha512.Sum384(msg)
		ok = ecdsa.VerifyASN1(pub.(*ecdsa.PublicKey), digest[:], sig.Bytes)
	}
	if !ok {
		return fault.New(fault.InvalidArgument, "Failed to verify %s signature by key %s", algorithm, fingerprint)
	}
	return nil
}
