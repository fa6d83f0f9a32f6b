package signing

import (
	"crypto/sha256"
	"encoding/binary"
)

// Purpose is Canton's HashPurpose: a number hashed before the data, so
// that a hash made for one use can never pass for a hash of another.
type Purpose int32

// The hash purposes external parties meet.
const (
	// PurposeTopologyTransactionSignature hashes a topology transaction
	// for signing.
	PurposeTopologyTransactionSignature Purpose = 11
	// PurposePublicKeyFingerprint hashes a public key into its
	// fingerprint.
	PurposePublicKeyFingerprint Purpose = 12
	// PurposePreparedSubmission hashes the parts of a prepared
	// transaction.
	PurposePreparedSubmission Purpose = 48
	// PurposeMultiTopologyTransaction hashes a set of topology transaction
	// hashes, so that one signature covers them all.
	PurposeMultiTopologyTransaction Purpose = 55
)

// HashLen is the length of a Canton hash: the two multihash prefix bytes
// and a SHA-256 digest.
const HashLen = 2 + sha256.Size

// multihash prefix: algorithm 0x12 (SHA-256), length 0x20 (32 bytes).
const (
	multihashSHA256 = 0x12
	multihashLen32  = 0x20
)

// Hash returns Canton's hash of data for purpose: the multihash
// 0x12 0x20 ‖ SHA-256(int32_be(purpose) ‖ data), HashLen bytes. Its hex
// form ("1220…") is how Canton prints hashes and fingerprints.
func Hash(purpose Purpose, data []byte) []byte {
	h := sha256.New()
	var p [4]byte
	binary.BigEndian.PutUint32(p[:], uint32(purpose))
	h.Write(p[:])
	h.Write(data)
	return h.Sum(append(make([]byte, 0, HashLen), multihashSHA256, multihashLen32))
}
