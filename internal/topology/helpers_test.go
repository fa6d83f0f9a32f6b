package topology_test

import (
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
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
	var v vectors
	signingtest.LoadVectors(tb, &v)
	return v
}

func (v txVectors) transactions(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, s := range v.TransactionsB64 {
		out = append(out, signingtest.DecodeBase64(tb, s))
	}
	return out
}

// signature is the vectors' multi-hash signature by the vector key.
func (v txVectors) signature(tb testing.TB, fingerprint string) signing.Signature {
	tb.Helper()
	return signing.Signature{Format: signing.SignatureFormatConcat, Bytes: signingtest.DecodeBase64(tb, v.MultiHashSignatureB64),
		SignedBy: fingerprint, Algorithm: signing.AlgorithmEd25519}
}

// vectorKey is the key of the vectors (seed 00 01 … 1f).
func vectorKey(tb testing.TB) signingtest.Ed25519 { return signingtest.SeqEd25519(tb, 0) }

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
