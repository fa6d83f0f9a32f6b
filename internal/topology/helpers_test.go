package topology_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/topology"
)

// vectors is testdata/vectors.json: what Canton's generate-topology
// returns for "alice" and the Ed25519 key of a fixed seed.
type vectors struct {
	Key struct {
		SeedHex      string `json:"ed25519SeedHex"`
		PublicKeyHex string `json:"publicKeyHex"`
		Fingerprint  string `json:"fingerprint"`
	} `json:"key"`
	PartyHint      string    `json:"partyHint"`
	PartyID        string    `json:"partyId"`
	ParticipantUID string    `json:"participantUid"`
	V35            txVectors `json:"v35"`
	V340           txVectors `json:"v340"`
}

type txVectors struct {
	TransactionsB64       []string `json:"transactionsB64"`
	TxHashes              []string `json:"txHashes"`
	MultiHash             string   `json:"multiHash"`
	MultiHashSignatureB64 string   `json:"multiHashSignatureB64"`
}

func loadVectors(tb testing.TB) vectors {
	tb.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		tb.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

func (v txVectors) transactions(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, s := range v.TransactionsB64 {
		out = append(out, unb64(tb, s))
	}
	return out
}

// signature is the vectors' multi-hash signature by the vector key.
func (v txVectors) signature(tb testing.TB, fingerprint string) signing.Signature {
	tb.Helper()
	return signing.Signature{Format: signing.SignatureFormatConcat, Bytes: unb64(tb, v.MultiHashSignatureB64),
		SignedBy: fingerprint, Algorithm: signing.AlgorithmEd25519}
}

func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func unb64(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// edKey is an Ed25519 key pair and its public key as signing holds it.
type edKey struct {
	priv ed25519.PrivateKey
	pub  signing.PublicKey
	fp   string
}

// newEdKey derives a key from a seed of 32 bytes: from, from+1, …
func newEdKey(tb testing.TB, from byte) edKey {
	tb.Helper()
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = from + byte(i)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub, err := signing.ParsePublicKey(signing.KeyFormatRaw, priv.Public().(ed25519.PublicKey), signing.KeySpecCurve25519)
	if err != nil {
		tb.Fatal(err)
	}
	return edKey{priv: priv, pub: pub, fp: pub.Fingerprint()}
}

// vectorKey is the key of the vectors (seed 00 01 … 1f).
func vectorKey(tb testing.TB) edKey { return newEdKey(tb, 0) }

// sign signs msg (a 34-byte hash) in the ledger API's terms.
func (k edKey) sign(msg []byte) signing.Signature {
	return signing.Signature{Format: signing.SignatureFormatConcat, Bytes: ed25519.Sign(k.priv, msg),
		SignedBy: k.fp, Algorithm: signing.AlgorithmEd25519}
}

// wantError checks that err is a *fault.Error of the code whose message
// contains want.
func wantError(tb testing.TB, err error, code, want string) {
	tb.Helper()
	e, ok := fault.As(err)
	if !ok {
		tb.Fatalf("error = %v, want %s %q", err, code, want)
	}
	if e.Code != code || !strings.Contains(e.Message, want) {
		tb.Fatalf("error = %s %q, want %s %q", e.Code, e.Message, code, want)
	}
}

// generate is Generate, failing the test on an error.
func generate(tb testing.TB, req topology.GenerateRequest) *topology.Generated {
	tb.Helper()
	g, err := topology.Generate(req)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// ecKey is an ECDSA P-256 key pair and its public key as signing holds
// it.
type ecKey struct {
	priv *ecdsa.PrivateKey
	pub  signing.PublicKey
}

func p256Key(tb testing.TB) ecKey {
	tb.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	spki, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		tb.Fatal(err)
	}
	pub, err := signing.ParsePublicKey(signing.KeyFormatSPKI, spki, signing.KeySpecP256)
	if err != nil {
		tb.Fatal(err)
	}
	return ecKey{priv: priv, pub: pub}
}

// sign signs msg with SHA256withECDSA, in DER.
func (k ecKey) sign(tb testing.TB, msg []byte) signing.Signature {
	tb.Helper()
	digest := sha256.Sum256(msg)
	der, err := ecdsa.SignASN1(rand.Reader, k.priv, digest[:])
	if err != nil {
		tb.Fatal(err)
	}
	return signing.Signature{Format: signing.SignatureFormatDER, Bytes: der, SignedBy: k.pub.Fingerprint(),
		Algorithm: signing.AlgorithmECDSASHA256}
}
