// Package signing is Canton's cryptography for external parties: its
// purpose-tagged hashes, signing keys and their fingerprints, and the
// verification of the signatures external parties send over the ledger
// API.
//
// The enums carry Canton's numbers and the ledger API's JSON names. Keys
// are held the way Canton holds them after its key migration: as DER
// SubjectPublicKeyInfo ([PublicKey.SPKI]), whatever format the client
// chose. Signatures are checked the way Canton checks them: the key's
// fingerprint must be the signature's signer, the algorithm must suit the
// key, and a legacy RAW signature is first migrated to the format its
// algorithm uses.
//
// Ed25519, ECDSA P-256 (SHA-256) and ECDSA P-384 (SHA-384) are
// supported. secp256k1 keys are refused: Go's standard library cannot
// verify them, and the project takes no dependency for it.
//
// Errors are *fault.Error values of kind fault.InvalidArgument whose
// messages follow Canton's; they never quote key material beyond a
// fingerprint. The package imports neither SQL nor HTTP.
package signing
