package signing_test

import (
	"testing"

	"github.com/sandnet/sandnet/internal/signing/signingtest"
)

// vectors is testdata/vectors.json: Canton's Ed25519 test key and what it
// signed, and topology transactions with their hashes.
type vectors struct {
	Ed25519 struct {
		SeedHex      string `json:"seedHex"`
		PublicKeyHex string `json:"publicKeyHex"`
		SPKIHex      string `json:"spkiHex"`
		Fingerprint  string `json:"fingerprint"`
	} `json:"ed25519"`
	Signatures []struct {
		Name         string `json:"name"`
		MessageHex   string `json:"messageHex"`
		SignatureB64 string `json:"signatureB64"`
	} `json:"signatures"`
	Hashes []struct {
		Name    string `json:"name"`
		Purpose int32  `json:"purpose"`
		DataB64 string `json:"dataB64"`
		HashHex string `json:"hashHex"`
	} `json:"hashes"`
}

func loadVectors(tb testing.TB) vectors {
	tb.Helper()
	var v vectors
	signingtest.LoadVectors(tb, &v)
	return v
}

// vectorKey is the Ed25519 key of the vectors' seed.
func vectorKey(tb testing.TB) signingtest.Ed25519 {
	tb.Helper()
	return signingtest.NewEd25519(tb, signingtest.DecodeHex(tb, loadVectors(tb).Ed25519.SeedHex))
}
