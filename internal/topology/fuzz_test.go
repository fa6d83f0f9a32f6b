package topology_test

import (
	"bytes"
	"crypto/ed25519"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
	"github.com/sandnet/sandnet/internal/topology"
)

// FuzzUnmarshal checks that no bytes make Unmarshal panic, that every
// failure is an invalid argument, and that what it reads keeps its bytes
// and marshals to bytes it reads back to the same marshaling.
func FuzzUnmarshal(f *testing.F) {
	v := loadVectors(f)
	for _, set := range []txVectors{v.V35, v.V340} {
		for _, b := range set.transactions(f) {
			f.Add(b)
			f.Add(b[:len(b)/2])
		}
	}
	f.Add([]byte{})
	f.Add(transaction(replaceOp, serial1, mapping(5, stringField(1, "x"))))
	f.Add(transaction(replaceOp, serial1, mapping(3, slices.Concat(stringField(1, "1220dd"), varintField(2, 1), stringField(3, "1220aa")))))
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := topology.Unmarshal(b)
		if err != nil {
			if !fault.Is(err, fault.InvalidArgument) {
				t.Fatalf("error %v is not an invalid argument", err)
			}
			return
		}
		if !bytes.Equal(tx.Bytes(), b) || len(tx.Hash()) != signing.HashLen {
			t.Fatal("the transaction does not keep its bytes")
		}
		m := topology.Marshal(tx)
		back, err := topology.Unmarshal(m)
		if err != nil {
			t.Fatalf("the marshaled transaction does not read back: %v", err)
		}
		if !bytes.Equal(topology.Marshal(back), m) {
			t.Fatal("Marshal is not stable")
		}
	})
}

// FuzzValidateOnboarding checks that no transactions and signature make
// ValidateOnboarding panic, that every failure carries one of Canton's
// codes, and that it accepts a set only if the one signature given, by
// the vector key, is that key's signature of the set's multi-hash or of
// the transaction it is attached to.
func FuzzValidateOnboarding(f *testing.F) {
	v := loadVectors(f)
	key := vectorKey(f)
	v35 := v.V35.transactions(f)
	v340 := v.V340.transactions(f)
	sig35 := signingtest.DecodeBase64(f, v.V35.MultiHashSignatureB64)
	sig340 := signingtest.DecodeBase64(f, v.V340.MultiHashSignatureB64)
	concat, ed := int32(signing.SignatureFormatConcat), int32(signing.AlgorithmEd25519)
	f.Add(v35[0], []byte{}, []byte{}, sig35, concat, ed, true)
	f.Add(v35[0], []byte{}, []byte{}, sig35, int32(signing.SignatureFormatRaw), int32(0), true)
	f.Add(v340[0], v340[1], v340[2], sig340, concat, ed, true)
	f.Add(v340[2], v340[0], v340[1], sig340, concat, ed, true)
	f.Add(v35[0], v35[0], []byte{}, sig35, concat, ed, false)
	f.Add(v35[0], v340[0], []byte{}, sig35, concat, ed, true)
	f.Add([]byte{}, []byte{}, []byte{}, []byte{}, int32(0), int32(0), false)
	codes := []string{topology.CodeInvalidArgument, topology.CodeInvalidField, topology.CodeInvalidSignature,
		topology.CodeUnauthorizedTransaction, topology.CodeMultiTransactionHashMismatch}
	f.Fuzz(func(t *testing.T, tx1, tx2, tx3, sigBytes []byte, format, algorithm int32, multi bool) {
		req := topology.OnboardingRequest{LocalParticipantUID: v.ParticipantUID}
		for _, b := range [][]byte{tx1, tx2, tx3} {
			if len(b) > 0 {
				req.Transactions = append(req.Transactions, topology.SignedTransaction{Transaction: b})
			}
		}
		sig := signing.Signature{Format: signing.SignatureFormat(format), Bytes: sigBytes, SignedBy: key.Fingerprint(),
			Algorithm: signing.Algorithm(algorithm)}
		switch {
		case multi:
			req.MultiHashSignatures = []signing.Signature{sig}
		case len(req.Transactions) > 0:
			req.Transactions[0].Signatures = []signing.Signature{sig}
		}
		o, err := topology.ValidateOnboarding(req)
		if err != nil {
			e, ok := fault.As(err)
			if !ok || !slices.Contains(codes, e.Code) {
				t.Fatalf("error %v carries no Canton code", err)
			}
			return
		}
		signed := o.MultiHash
		if !multi {
			signed = o.Parsed[0].Hash()
		}
		if !ed25519.Verify(key.Private.Public().(ed25519.PublicKey), signed, sigBytes) {
			t.Fatal("accepted a set its signature does not sign")
		}
		if o.Party == "" || o.Namespace != key.Fingerprint() || len(o.SigningKeys) == 0 || len(o.Hosts) == 0 {
			t.Fatalf("onboarding %+v", o)
		}
	})
}
