package signing_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
)

func TestHashVectors(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	for _, h := range v.Hashes {
		t.Run(h.Name, func(t *testing.T) {
			t.Parallel()
			got := signing.Hash(signing.Purpose(h.Purpose), signingtest.DecodeBase64(t, h.DataB64))
			if hex.EncodeToString(got) != h.HashHex {
				t.Fatalf("Hash = %x, want %s", got, h.HashHex)
			}
			if len(got) != signing.HashLen {
				t.Fatalf("len = %d, want %d", len(got), signing.HashLen)
			}
		})
	}
}

func TestHashLayout(t *testing.T) {
	t.Parallel()
	data := []byte("abc")
	want := sha256.Sum256(append([]byte{0, 0, 0, 55}, data...))
	got := signing.Hash(signing.PurposeMultiTopologyTransaction, data)
	if !bytes.Equal(got, append([]byte{0x12, 0x20}, want[:]...)) {
		t.Fatalf("Hash = %x", got)
	}
}

// enumCase is one enum's names by number, and its String and Parse
// functions over int32.
type enumCase struct {
	name   string
	values map[int32]string
	str    func(int32) string
	parse  func(string) (int32, error)
}

// enumCases lists every enum of the package with the names Canton gives
// its values.
func enumCases() []enumCase {
	return []enumCase{
		{"KeySpec", map[int32]string{0: "SIGNING_KEY_SPEC_UNSPECIFIED", 1: "SIGNING_KEY_SPEC_EC_CURVE25519",
			2: "SIGNING_KEY_SPEC_EC_P256", 3: "SIGNING_KEY_SPEC_EC_P384", 4: "SIGNING_KEY_SPEC_EC_SECP256K1"},
			func(v int32) string { return signing.KeySpec(v).String() },
			func(n string) (int32, error) { v, err := signing.ParseKeySpec(n); return int32(v), err }},
		{"KeyFormat", map[int32]string{0: "CRYPTO_KEY_FORMAT_UNSPECIFIED", 1: "CRYPTO_KEY_FORMAT_DER",
			2: "CRYPTO_KEY_FORMAT_RAW", 3: "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO"},
			func(v int32) string { return signing.KeyFormat(v).String() },
			func(n string) (int32, error) { v, err := signing.ParseKeyFormat(n); return int32(v), err }},
		{"Usage", map[int32]string{0: "SIGNING_KEY_USAGE_UNSPECIFIED", 1: "SIGNING_KEY_USAGE_NAMESPACE",
			2: "SIGNING_KEY_USAGE_IDENTITY_DELEGATION", 3: "SIGNING_KEY_USAGE_SEQUENCER_AUTHENTICATION",
			4: "SIGNING_KEY_USAGE_PROTOCOL", 5: "SIGNING_KEY_USAGE_PROOF_OF_OWNERSHIP"},
			func(v int32) string { return signing.Usage(v).String() },
			func(n string) (int32, error) { v, err := signing.ParseUsage(n); return int32(v), err }},
		{"SignatureFormat", map[int32]string{0: "SIGNATURE_FORMAT_UNSPECIFIED", 1: "SIGNATURE_FORMAT_RAW",
			2: "SIGNATURE_FORMAT_DER", 3: "SIGNATURE_FORMAT_CONCAT", 10000: "SIGNATURE_FORMAT_SYMBOLIC"},
			func(v int32) string { return signing.SignatureFormat(v).String() },
			func(n string) (int32, error) { v, err := signing.ParseSignatureFormat(n); return int32(v), err }},
		{"Algorithm", map[int32]string{0: "SIGNING_ALGORITHM_SPEC_UNSPECIFIED", 1: "SIGNING_ALGORITHM_SPEC_ED25519",
			2: "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256", 3: "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384"},
			func(v int32) string { return signing.Algorithm(v).String() },
			func(n string) (int32, error) { v, err := signing.ParseAlgorithm(n); return int32(v), err }},
	}
}

func TestEnumNames(t *testing.T) {
	t.Parallel()
	for _, e := range enumCases() {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			for v, name := range e.values {
				if got := e.str(v); got != name {
					t.Errorf("String(%d) = %q, want %q", v, got, name)
				}
				got, err := e.parse(name)
				if err != nil || got != v {
					t.Errorf("Parse(%q) = %d, %v; want %d", name, got, err, v)
				}
			}
			if got := e.str(77); got != "Unrecognized(77)" {
				t.Errorf("String(77) = %q", got)
			}
			for _, bad := range []string{"", "NOPE", "1", strings.ToLower(e.values[1]), e.values[1] + " "} {
				if _, err := e.parse(bad); !fault.Is(err, fault.InvalidArgument) {
					t.Errorf("Parse(%q) error = %v, want an invalid argument", bad, err)
				}
			}
		})
	}
}

func TestKeyFormatConversions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ledger signing.KeyFormat
		proto  signing.ProtoKeyFormat
	}{
		{signing.KeyFormatUnspecified, signing.ProtoKeyFormatUnspecified},
		{signing.KeyFormatDER, 2},
		{signing.KeyFormatRaw, 3},
		{signing.KeyFormatSPKI, 4},
	} {
		if got := tc.ledger.Proto(); got != tc.proto {
			t.Errorf("%s.Proto() = %d, want %d", tc.ledger, got, tc.proto)
		}
		if got, ok := tc.proto.Ledger(); !ok || got != tc.ledger {
			t.Errorf("%s.Ledger() = %s, %v; want %s", tc.proto, got, ok, tc.ledger)
		}
	}
	for _, f := range []signing.ProtoKeyFormat{signing.ProtoKeyFormatPKCS8, signing.ProtoKeyFormatSymbolic, 1, 6} {
		if _, ok := f.Ledger(); ok {
			t.Errorf("%s.Ledger() ok, want no ledger API format", f)
		}
	}
	if got := signing.KeyFormat(9).Proto(); got != signing.ProtoKeyFormatUnspecified {
		t.Errorf("KeyFormat(9).Proto() = %s", got)
	}
	if got := signing.ProtoKeyFormatSPKI.String(); got != "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO" {
		t.Errorf("ProtoKeyFormatSPKI = %q", got)
	}
}

func TestParsePublicKeyVector(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	raw := signingtest.DecodeHex(t, v.Ed25519.PublicKeyHex)
	spki := signingtest.DecodeHex(t, v.Ed25519.SPKIHex)
	for _, tc := range []struct {
		name   string
		format signing.KeyFormat
		data   []byte
	}{
		{"raw", signing.KeyFormatRaw, raw},
		{"spki", signing.KeyFormatSPKI, spki},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, err := signing.ParsePublicKey(tc.format, tc.data, signing.KeySpecCurve25519)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(k.SPKI, spki) {
				t.Errorf("SPKI = %x, want %x", k.SPKI, spki)
			}
			if got := k.Fingerprint(); got != v.Ed25519.Fingerprint {
				t.Errorf("Fingerprint = %s, want %s", got, v.Ed25519.Fingerprint)
			}
			if k.Spec != signing.KeySpecCurve25519 || len(k.Usage) != 0 {
				t.Errorf("key = %+v", k)
			}
		})
	}
	if pub := vectorKey(t).Private.Public().(ed25519.PublicKey); !bytes.Equal(pub, raw) {
		t.Fatalf("seed's public key = %x, want %x", pub, raw)
	}
}

func TestParsePublicKeyECDSA(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		curve elliptic.Curve
		spec  signing.KeySpec
	}{
		{"P-256", elliptic.P256(), signing.KeySpecP256},
		{"P-384", elliptic.P384(), signing.KeySpecP384},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spki := signingtest.NewECDSA(t, tc.curve).SPKI
			for _, format := range []signing.KeyFormat{signing.KeyFormatSPKI, signing.KeyFormatDER} {
				k, err := signing.ParsePublicKey(format, spki, tc.spec)
				if err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				if !bytes.Equal(k.SPKI, spki) || k.Spec != tc.spec {
					t.Fatalf("%s: key = %+v", format, k)
				}
				want := hex.EncodeToString(signing.Hash(signing.PurposePublicKeyFingerprint, spki))
				if got := k.Fingerprint(); got != want || len(got) != 68 || !strings.HasPrefix(got, "1220") {
					t.Fatalf("%s: Fingerprint = %s, want %s", format, got, want)
				}
			}
		})
	}
}

func TestParsePublicKeyRefusals(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	raw := signingtest.DecodeHex(t, v.Ed25519.PublicKeyHex)
	spki := signingtest.DecodeHex(t, v.Ed25519.SPKIHex)
	p256 := signingtest.NewECDSA(t, elliptic.P256()).SPKI
	p384 := signingtest.NewECDSA(t, elliptic.P384()).SPKI
	// y = p (not canonical) and y = 2 (x² is not a square mod p).
	notCanonical := signingtest.DecodeHex(t, "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
	notOnCurve := append([]byte{2}, make([]byte, 31)...)
	for _, tc := range []struct {
		name   string
		format signing.KeyFormat
		data   []byte
		spec   signing.KeySpec
		want   string
	}{
		{"format unspecified", signing.KeyFormatUnspecified, raw, signing.KeySpecCurve25519, "Field `format` is not set"},
		{"format unknown", 9, raw, signing.KeySpecCurve25519, "Unrecognized value `9` in enum field `format`"},
		{"spec unspecified", signing.KeyFormatRaw, raw, signing.KeySpecUnspecified, "Field `key_spec and scheme` is not set"},
		{"spec unknown", signing.KeyFormatRaw, raw, 8, "Unrecognized value `8` in enum field `key_spec`"},
		{"secp256k1", signing.KeyFormatSPKI, p256, signing.KeySpecSecp256k1, "SIGNING_KEY_SPEC_EC_SECP256K1 is not supported"},
		{"raw too short", signing.KeyFormatRaw, raw[:31], signing.KeySpecCurve25519, "Ed25519 public key must be 32 bytes, not 31"},
		{"raw too long", signing.KeyFormatRaw, spki, signing.KeySpecCurve25519, "must be 32 bytes, not 44"},
		{"raw not canonical", signing.KeyFormatRaw, notCanonical, signing.KeySpecCurve25519, "not a point of the curve"},
		{"raw not on curve", signing.KeyFormatRaw, notOnCurve, signing.KeySpecCurve25519, "not a point of the curve"},
		{"Ed25519 as DER", signing.KeyFormatDER, spki, signing.KeySpecCurve25519, "Failed to deserialize or validate DER public key: Invalid format for public key: DER"},
		{"P-256 as raw", signing.KeyFormatRaw, p256, signing.KeySpecP256, "Invalid format for public key: Raw"},
		{"P-256 key as Ed25519", signing.KeyFormatSPKI, p256, signing.KeySpecCurve25519, "Public key is not an ED25519 public key"},
		{"Ed25519 key as P-256", signing.KeyFormatSPKI, spki, signing.KeySpecP256, "Public key is not an EC public key"},
		{"P-384 key as P-256", signing.KeyFormatSPKI, p384, signing.KeySpecP256, "EC key not in curve 'secp256r1'."},
		{"P-256 key as P-384", signing.KeyFormatDER, p256, signing.KeySpecP384, "EC key not in curve 'secp384r1'."},
		{"garbage", signing.KeyFormatSPKI, []byte("garbage"), signing.KeySpecCurve25519, "Failed to deserialize or validate DER-encoded X.509 SubjectPublicKeyInfo public key: "},
		{"empty", signing.KeyFormatSPKI, nil, signing.KeySpecP256, "Failed to deserialize or validate"},
		{"trailing data", signing.KeyFormatSPKI, append(slices.Clone(spki), 0), signing.KeySpecCurve25519, "Failed to deserialize or validate"},
		{"truncated", signing.KeyFormatSPKI, p256[:len(p256)-1], signing.KeySpecP256, "Failed to deserialize or validate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := signing.ParsePublicKey(tc.format, tc.data, tc.spec)
			if !fault.Is(err, fault.InvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want an invalid argument with %q", err, tc.want)
			}
			// Errors name no key material.
			if len(tc.data) >= 8 && strings.Contains(err.Error(), hex.EncodeToString(tc.data[len(tc.data)-8:])) {
				t.Fatalf("error %q quotes the key", err)
			}
		})
	}
}

func TestNormalizeUsage(t *testing.T) {
	t.Parallel()
	const (
		ns  = signing.UsageNamespace
		id  = signing.UsageIdentityDelegation
		seq = signing.UsageSequencerAuthentication
		pr  = signing.UsageProtocol
		poo = signing.UsageProofOfOwnership
	)
	for _, tc := range []struct {
		name string
		in   []signing.Usage
		want []signing.Usage
		err  string
	}{
		{"empty means all", nil, []signing.Usage{ns, seq, pr, poo}, ""},
		{"identity delegation alone means all", []signing.Usage{id}, []signing.Usage{ns, seq, pr, poo}, ""},
		{"generate-topology's", []signing.Usage{ns, poo, pr}, []signing.Usage{ns, pr, poo}, ""},
		{"protocol gets proof of ownership", []signing.Usage{pr}, []signing.Usage{pr, poo}, ""},
		{"namespace only stays", []signing.Usage{ns}, []signing.Usage{ns}, ""},
		{"duplicates and identity delegation dropped", []signing.Usage{pr, id, pr, ns}, []signing.Usage{ns, pr, poo}, ""},
		{"proof of ownership alone", []signing.Usage{poo}, nil, "Invalid key usage"},
		{"namespace with proof of ownership", []signing.Usage{poo, ns}, nil, "Invalid key usage"},
		{"unspecified", []signing.Usage{pr, 0}, nil, "Field `usage` is not set"},
		{"unknown", []signing.Usage{6}, nil, "Unrecognized value `6` in enum field `usage`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := signing.NormalizeUsage(tc.in)
			if tc.err != "" {
				if !fault.Is(err, fault.InvalidArgument) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("NormalizeUsage = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	k := signing.PublicKey{Usage: []signing.Usage{ns, pr}}
	if !k.HasUsage(pr) || k.HasUsage(poo) {
		t.Fatal("HasUsage")
	}
}

func TestSignatureCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sig  signing.Signature
		want string
	}{
		{"ok", signing.Signature{Format: signing.SignatureFormatConcat, Algorithm: signing.AlgorithmEd25519}, ""},
		{"raw ok", signing.Signature{Format: signing.SignatureFormatRaw, Algorithm: signing.AlgorithmECDSASHA384}, ""},
		{"format unspecified", signing.Signature{Algorithm: signing.AlgorithmEd25519}, "Signature format must be specified"},
		{"format unknown", signing.Signature{Format: 4, Algorithm: signing.AlgorithmEd25519}, "Signing algorithm spec Unrecognized(4) not supported"},
		{"algorithm unspecified", signing.Signature{Format: signing.SignatureFormatDER}, "Signing algorithm spec SIGNING_ALGORITHM_SPEC_UNSPECIFIED not supported"},
		{"algorithm unknown", signing.Signature{Format: signing.SignatureFormatDER, Algorithm: 7}, "Signing algorithm spec Unrecognized(7) not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.sig.Check()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !fault.Is(err, fault.InvalidArgument) || err.Error() != tc.want {
				t.Fatalf("Check = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestVerifyVectors(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	k, err := signing.ParsePublicKey(signing.KeyFormatRaw, signingtest.DecodeHex(t, v.Ed25519.PublicKeyHex), signing.KeySpecCurve25519)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range v.Signatures {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			msg := signingtest.DecodeHex(t, s.MessageHex)
			sigBytes := signingtest.DecodeBase64(t, s.SignatureB64)
			good := signing.Signature{Format: signing.SignatureFormatConcat, Bytes: sigBytes, SignedBy: v.Ed25519.Fingerprint, Algorithm: signing.AlgorithmEd25519}
			with := func(f func(*signing.Signature)) signing.Signature {
				s := good
				s.Bytes = slices.Clone(sigBytes)
				f(&s)
				return s
			}
			for _, ok := range []struct {
				name string
				sig  signing.Signature
			}{
				{"concat", good},
				{"raw with algorithm", with(func(s *signing.Signature) { s.Format = signing.SignatureFormatRaw })},
				{"raw without algorithm", with(func(s *signing.Signature) {
					s.Format, s.Algorithm = signing.SignatureFormatRaw, signing.AlgorithmUnspecified
				})},
				{"concat without algorithm", with(func(s *signing.Signature) { s.Algorithm = signing.AlgorithmUnspecified })},
			} {
				if err := k.Verify(ok.sig, msg); err != nil {
					t.Errorf("%s: %v", ok.name, err)
				}
			}
			tamperedMsg := slices.Clone(msg)
			tamperedMsg[len(tamperedMsg)-1] ^= 1
			if err := k.Verify(good, tamperedMsg); err == nil {
				t.Error("a tampered message verifies")
			}
			for _, bad := range []struct {
				name string
				sig  signing.Signature
				want string
			}{
				{"tampered signature", with(func(s *signing.Signature) { s.Bytes[3] ^= 0x80 }), "Failed to verify SIGNING_ALGORITHM_SPEC_ED25519 signature by key " + v.Ed25519.Fingerprint},
				{"short signature", with(func(s *signing.Signature) { s.Bytes = s.Bytes[:63] }), "Failed to verify"},
				{"other signer", with(func(s *signing.Signature) { s.SignedBy = "1220ab" }), `Signature signed by "1220ab" cannot be verified with key ` + v.Ed25519.Fingerprint},
				{"no signer", with(func(s *signing.Signature) { s.SignedBy = "" }), "cannot be verified with key"},
				{"DER format", with(func(s *signing.Signature) { s.Format = signing.SignatureFormatDER }), "The signature format SIGNATURE_FORMAT_DER is not supported"},
				{"symbolic format", with(func(s *signing.Signature) { s.Format = signing.SignatureFormatSymbolic }), "SIGNATURE_FORMAT_SYMBOLIC is not supported"},
				{"format unspecified", with(func(s *signing.Signature) { s.Format = 0 }), "Signature format must be specified"},
				{"raw of another length without algorithm", with(func(s *signing.Signature) {
					s.Format, s.Algorithm, s.Bytes = signing.SignatureFormatRaw, 0, append(s.Bytes, 0)
				}), "SIGNATURE_FORMAT_DER is not supported"},
				{"ECDSA algorithm", with(func(s *signing.Signature) { s.Algorithm = signing.AlgorithmECDSASHA256 }),
					"The selected signing algorithm specification, SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256, is not supported for key spec SIGNING_KEY_SPEC_EC_CURVE25519"},
				{"unknown algorithm", with(func(s *signing.Signature) { s.Algorithm = 9 }), "Signing algorithm spec Unrecognized(9) not supported"},
			} {
				err := k.Verify(bad.sig, msg)
				if !fault.Is(err, fault.InvalidArgument) || !strings.Contains(err.Error(), bad.want) {
					t.Errorf("%s: error = %v, want %q", bad.name, err, bad.want)
				}
			}
		})
	}
}

func TestVerifyECDSA(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		curve     elliptic.Curve
		spec      signing.KeySpec
		algorithm signing.Algorithm
		other     signing.Algorithm
	}{
		{"P-256", elliptic.P256(), signing.KeySpecP256, signing.AlgorithmECDSASHA256, signing.AlgorithmECDSASHA384},
		{"P-384", elliptic.P384(), signing.KeySpecP384, signing.AlgorithmECDSASHA384, signing.AlgorithmECDSASHA256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			key := signingtest.NewECDSA(t, tc.curve)
			k := key.Public
			if k.Spec != tc.spec {
				t.Fatalf("key spec = %s, want %s", k.Spec, tc.spec)
			}
			msg := signing.Hash(signing.PurposeTopologyTransactionSignature, []byte("a topology transaction"))
			der := key.Sign(t, msg).Bytes
			sig := func(format signing.SignatureFormat, algorithm signing.Algorithm, b []byte) signing.Signature {
				return signing.Signature{Format: format, Bytes: b, SignedBy: k.Fingerprint(), Algorithm: algorithm}
			}
			for _, ok := range []struct {
				name string
				sig  signing.Signature
			}{
				{"DER", sig(signing.SignatureFormatDER, tc.algorithm, der)},
				{"RAW with algorithm", sig(signing.SignatureFormatRaw, tc.algorithm, der)},
				{"RAW without algorithm", sig(signing.SignatureFormatRaw, signing.AlgorithmUnspecified, der)},
				{"DER without algorithm", sig(signing.SignatureFormatDER, signing.AlgorithmUnspecified, der)},
			} {
				if err := k.Verify(ok.sig, msg); err != nil {
					t.Errorf("%s: %v", ok.name, err)
				}
			}
			tamperedMsg := slices.Clone(msg)
			tamperedMsg[5] ^= 1
			tampered := slices.Clone(der)
			tampered[len(tampered)-1] ^= 1
			otherDER := signingtest.NewECDSA(t, tc.curve).Sign(t, msg).Bytes
			for _, bad := range []struct {
				name string
				sig  signing.Signature
				msg  []byte
				want string
			}{
				{"tampered message", sig(signing.SignatureFormatDER, tc.algorithm, der), tamperedMsg, "Failed to verify " + tc.algorithm.String()},
				{"tampered signature", sig(signing.SignatureFormatDER, tc.algorithm, tampered), msg, "Failed to verify"},
				{"another key's signature", sig(signing.SignatureFormatDER, tc.algorithm, otherDER), msg, "Failed to verify"},
				{"concat format", sig(signing.SignatureFormatConcat, tc.algorithm, der), msg, "SIGNATURE_FORMAT_CONCAT is not supported"},
				{"other hash", sig(signing.SignatureFormatDER, tc.other, der), msg, "is not supported for key spec " + tc.spec.String()},
				{"Ed25519 algorithm", sig(signing.SignatureFormatDER, signing.AlgorithmEd25519, der), msg, "SIGNING_ALGORITHM_SPEC_ED25519, is not supported"},
			} {
				err := k.Verify(bad.sig, bad.msg)
				if !fault.Is(err, fault.InvalidArgument) || !strings.Contains(err.Error(), bad.want) {
					t.Errorf("%s: error = %v, want %q", bad.name, err, bad.want)
				}
			}
		})
	}
}

func TestVerifyRefusesBrokenKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		key  signing.PublicKey
		want string
	}{
		{"zero key", signing.PublicKey{}, "Signing algorithm spec SIGNING_ALGORITHM_SPEC_UNSPECIFIED not supported"},
		{"secp256k1", signing.PublicKey{Spec: signing.KeySpecSecp256k1}, "cannot verify secp256k1"},
		{"bad SPKI", signing.PublicKey{Spec: signing.KeySpecP256, SPKI: []byte{0x30, 0}}, "Failed to deserialize or validate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sig := signing.Signature{Format: signing.SignatureFormatDER, SignedBy: tc.key.Fingerprint()}
			err := tc.key.Verify(sig, []byte("m"))
			if !fault.Is(err, fault.InvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}
