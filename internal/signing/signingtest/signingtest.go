// Package signingtest holds what the tests of external-party signing
// share: Ed25519 keys from fixed seeds (the key of the signing and
// topology test vectors among them), fresh ECDSA keys, the ledger API
// signatures they make, and readers of the test vectors' fields. Only
// tests import it.
package signingtest

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/sandnet/sandnet/internal/signing"
)

// Ed25519 is an Ed25519 key pair with its public key as package signing
// holds it.
type Ed25519 struct {
	Private ed25519.PrivateKey
	Public  signing.PublicKey
}

// NewEd25519 returns the key of a 32-byte seed; the same seed gives the
// same key, so that what it signs can be compared byte for byte.
func NewEd25519(tb testing.TB, seed []byte) Ed25519 {
	tb.Helper()
	if len(seed) != ed25519.SeedSize {
		tb.Fatalf("an Ed25519 seed of %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub, err := signing.ParsePublicKey(signing.KeyFormatRaw, priv.Public().(ed25519.PublicKey), signing.KeySpecCurve25519)
	if err != nil {
		tb.Fatal(err)
	}
	return Ed25519{Private: priv, Public: pub}
}

// SeqEd25519 returns the key whose seed is the 32 bytes first, first+1,
// …; SeqEd25519(tb, 0) is the key of the signing and topology vectors.
func SeqEd25519(tb testing.TB, first byte) Ed25519 {
	tb.Helper()
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = first + byte(i)
	}
	return NewEd25519(tb, seed)
}

// Fingerprint is the fingerprint of k's public key.
func (k Ed25519) Fingerprint() string { return k.Public.Fingerprint() }

// Sign signs msg as an external party's Ed25519 key does in the ledger
// API: CONCAT format, SIGNING_ALGORITHM_SPEC_ED25519.
func (k Ed25519) Sign(msg []byte) signing.Signature {
	return signing.Signature{Format: signing.SignatureFormatConcat, Bytes: ed25519.Sign(k.Private, msg),
		SignedBy: k.Fingerprint(), Algorithm: signing.AlgorithmEd25519}
}

// ECDSA is an ECDSA key pair of P-256 or P-384, with its public key as
// x509 marshals it and as package signing holds it.
type ECDSA struct {
	Private *ecdsa.PrivateKey
	// SPKI is the public key as DER X.509 SubjectPublicKeyInfo, as
	// x509.MarshalPKIXPublicKey writes it (not as signing read it).
	SPKI   []byte
	Public signing.PublicKey
}

// NewECDSA returns a new random key of the curve, P-256 or P-384.
func NewECDSA(tb testing.TB, curve elliptic.Curve) ECDSA {
	tb.Helper()
	var spec signing.KeySpec
	switch curve {
	case elliptic.P256():
		spec = signing.KeySpecP256
	case elliptic.P384():
		spec = signing.KeySpecP384
	default:
		tb.Fatalf("no signing key spec for the curve %s", curve.Params().Name)
	}
	priv, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	spki, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		tb.Fatal(err)
	}
	pub, err := signing.ParsePublicKey(signing.KeyFormatSPKI, spki, spec)
	if err != nil {
		tb.Fatal(err)
	}
	return ECDSA{Private: priv, SPKI: spki, Public: pub}
}

// Fingerprint is the fingerprint of k's public key.
func (k ECDSA) Fingerprint() string { return k.Public.Fingerprint() }

// Sign signs msg as Canton signs with an ECDSA key: DER format,
// SHA256withECDSA on P-256 and SHA384withECDSA on P-384.
func (k ECDSA) Sign(tb testing.TB, msg []byte) signing.Signature {
	tb.Helper()
	var digest []byte
	algorithm := signing.AlgorithmECDSASHA256
	if k.Public.Spec == signing.KeySpecP384 {
		d := sha512.Sum384(msg)
		digest, algorithm = d[:], signing.AlgorithmECDSASHA384
	} else {
		d := sha256.Sum256(msg)
		digest = d[:]
	}
	der, err := ecdsa.SignASN1(rand.Reader, k.Private, digest)
	if err != nil {
		tb.Fatal(err)
	}
	return signing.Signature{Format: signing.SignatureFormatDER, Bytes: der, SignedBy: k.Fingerprint(), Algorithm: algorithm}
}

// LoadVectors reads the test vectors of the package under test,
// testdata/vectors.json, into v.
func LoadVectors(tb testing.TB, v any) {
	tb.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatal(err)
	}
}

// DecodeHex decodes a hex field of the vectors.
func DecodeHex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// DecodeBase64 decodes a standard base64 field of the vectors.
func DecodeBase64(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
