package signingtest_test

import (
	"crypto/elliptic"
	"testing"

	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
)

// TestSign checks that what each key signs verifies with its public key
// as package signing verifies it, under the algorithm Canton uses.
func TestSign(t *testing.T) {
	t.Parallel()
	msg := signing.Hash(signing.PurposeTopologyTransactionSignature, []byte("a message"))
	type signed struct {
		key signing.PublicKey
		sig signing.Signature
	}
	for _, tc := range []struct {
		name      string
		sign      func(t *testing.T) signed
		algorithm signing.Algorithm
	}{
		{"Ed25519", func(t *testing.T) signed {
			k := signingtest.SeqEd25519(t, 0x20)
			return signed{k.Public, k.Sign(msg)}
		}, signing.AlgorithmEd25519},
		{"P-256", func(t *testing.T) signed {
			k := signingtest.NewECDSA(t, elliptic.P256())
			return signed{k.Public, k.Sign(t, msg)}
		}, signing.AlgorithmECDSASHA256},
		{"P-384", func(t *testing.T) signed {
			k := signingtest.NewECDSA(t, elliptic.P384())
			return signed{k.Public, k.Sign(t, msg)}
		}, signing.AlgorithmECDSASHA384},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := tc.sign(t)
			if s.sig.Algorithm != tc.algorithm || s.sig.SignedBy != s.key.Fingerprint() {
				t.Fatalf("signature %+v, want algorithm %s by %s", s.sig, tc.algorithm, s.key.Fingerprint())
			}
			if err := s.key.Verify(s.sig, msg); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSeqEd25519 checks that the seed 00 01 … 1f gives the vectors' key,
// whose fingerprint Canton computed.
func TestSeqEd25519(t *testing.T) {
	t.Parallel()
	const want = "1220247136781190caa1cebb2562a63effa0e79e4bbffc9a55a61f9bbe2650000685"
	if got := signingtest.SeqEd25519(t, 0).Fingerprint(); got != want {
		t.Fatalf("fingerprint = %s, want %s", got, want)
	}
	if a, b := signingtest.SeqEd25519(t, 7), signingtest.SeqEd25519(t, 7); !a.Private.Equal(b.Private) {
		t.Fatal("the same seed gives two keys")
	}
}
