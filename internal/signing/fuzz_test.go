package signing_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
)

// FuzzParsePublicKey checks that no key makes ParsePublicKey panic, that
// every failure is an invalid argument, and that an accepted key is an
// SPKI that parses again to itself, with a 68-character fingerprint.
func FuzzParsePublicKey(f *testing.F) {
	v := loadVectors(f)
	raw := signingtest.DecodeHex(f, v.Ed25519.PublicKeyHex)
	spki := signingtest.DecodeHex(f, v.Ed25519.SPKIHex)
	p256 := signingtest.NewECDSA(f, elliptic.P256()).SPKI
	f.Add(int32(signing.KeyFormatRaw), int32(signing.KeySpecCurve25519), raw)
	f.Add(int32(signing.KeyFormatSPKI), int32(signing.KeySpecCurve25519), spki)
	f.Add(int32(signing.KeyFormatSPKI), int32(signing.KeySpecP256), p256)
	f.Add(int32(signing.KeyFormatDER), int32(signing.KeySpecP256), p256)
	f.Add(int32(signing.KeyFormatDER), int32(signing.KeySpecP384), p256)
	f.Add(int32(0), int32(0), []byte{})
	f.Add(int32(signing.KeyFormatRaw), int32(signing.KeySpecCurve25519), bytes.Repeat([]byte{0xff}, 32))
	f.Fuzz(func(t *testing.T, format, spec int32, data []byte) {
		k, err := signing.ParsePublicKey(signing.KeyFormat(format), data, signing.KeySpec(spec))
		if err != nil {
			if !fault.Is(err, fault.InvalidArgument) {
				t.Fatalf("error %v is not an invalid argument", err)
			}
			return
		}
		fp := k.Fingerprint()
		if len(fp) != 68 || !strings.HasPrefix(fp, "1220") {
			t.Fatalf("fingerprint %q", fp)
		}
		again, err := signing.ParsePublicKey(signing.KeyFormatSPKI, k.SPKI, k.Spec)
		if err != nil {
			t.Fatalf("the migrated key does not parse: %v", err)
		}
		if !bytes.Equal(again.SPKI, k.SPKI) || again.Fingerprint() != fp {
			t.Fatalf("the migrated key parses to another key")
		}
	})
}

// FuzzVerify checks that no signature makes Verify panic, that every
// failure is an invalid argument, and that what verifies is a signature
// of the message by the key.
func FuzzVerify(f *testing.F) {
	v := loadVectors(f)
	ed := vectorKey(f)
	ec := signingtest.NewECDSA(f, elliptic.P256())
	keys := []signing.PublicKey{ed.Public, ec.Public}
	for _, s := range v.Signatures {
		sigBytes, msg := signingtest.DecodeBase64(f, s.SignatureB64), signingtest.DecodeHex(f, s.MessageHex)
		f.Add(false, int32(signing.SignatureFormatConcat), int32(signing.AlgorithmEd25519), sigBytes, msg)
		f.Add(false, int32(signing.SignatureFormatRaw), int32(0), sigBytes, msg)
	}
	msg := []byte("message")
	der := ec.Sign(f, msg).Bytes
	f.Add(true, int32(signing.SignatureFormatDER), int32(signing.AlgorithmECDSASHA256), der, msg)
	f.Add(true, int32(signing.SignatureFormatRaw), int32(0), der, msg)
	f.Add(true, int32(0), int32(9), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, ecdsaKey bool, format, algorithm int32, sigBytes, msg []byte) {
		k := keys[0]
		if ecdsaKey {
			k = keys[1]
		}
		sig := signing.Signature{Format: signing.SignatureFormat(format), Bytes: sigBytes,
			SignedBy: k.Fingerprint(), Algorithm: signing.Algorithm(algorithm)}
		err := k.Verify(sig, msg)
		if err != nil {
			if !fault.Is(err, fault.InvalidArgument) || errors.Unwrap(err) != nil {
				t.Fatalf("error %v is not a plain invalid argument", err)
			}
			return
		}
		if !ecdsaKey && !ed25519.Verify(ed.Private.Public().(ed25519.PublicKey), msg, sigBytes) {
			t.Fatal("verified what ed25519 does not")
		}
		if ecdsaKey {
			d := sha256.Sum256(msg)
			if !ecdsa.VerifyASN1(&ec.Private.PublicKey, d[:], sigBytes) {
				t.Fatal("verified what ecdsa does not")
			}
		}
	})
}
