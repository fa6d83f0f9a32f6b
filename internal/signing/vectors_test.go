package signing_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
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

// vectorPrivateKey is the Ed25519 private key of the vectors' seed.
func vectorPrivateKey(tb testing.TB) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(unhex(tb, loadVectors(tb).Ed25519.SeedHex))
}
