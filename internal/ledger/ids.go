package ledger

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
)

// ParticipantID is a participant's id: "PAR::name::1220<64 hex>".
type ParticipantID string

// SynchronizerID is a synchronizer's id: "global-domain::1220<64 hex>".
type SynchronizerID string

// Offset is a position in one participant's update stream. Offsets are
// strictly increasing per participant and not comparable across
// participants; 0 is the start of the ledger.
type Offset int64

// Fingerprint derives a Canton-style key fingerprint ("1220" and 64 hex
// digits, a multihash of SHA-256) from the network seed and a purpose, so
// that a network seeded twice with the same seed has the same ids.
func Fingerprint(seed, purpose string) string {
	h := sha256.Sum256([]byte("sandnet/fingerprint\x00" + seed + "\x00" + purpose))
	return "1220" + hex.EncodeToString(h[:])
}

// PartyID joins a party hint and a namespace fingerprint: "hint::1220…".
func PartyID(hint, fingerprint string) daml.Party {
	return daml.Party(hint + "::" + fingerprint)
}

// NewParticipantID names a participant: "PAR::name::1220…".
func NewParticipantID(name, fingerprint string) ParticipantID {
	return ParticipantID("PAR::" + name + "::" + fingerprint)
}

// Namespace returns the namespace fingerprint of a participant id
// ("1220…" of "PAR::name::1220…"), and false when the id has no namespace.
// A party allocated on a participant lives in its namespace.
func (p ParticipantID) Namespace() (string, bool) {
	_, fp, ok := strings.Cut(strings.TrimPrefix(string(p), "PAR::"), "::")
	return fp, ok && fp != ""
}

// NewSynchronizerID names a synchronizer: "alias::1220…".
func NewSynchronizerID(alias, fingerprint string) SynchronizerID {
	return SynchronizerID(alias + "::" + fingerprint)
}

// ValidPartyID reports whether s has the shape of a party id: a non-empty
// hint, "::", and a non-empty namespace, with no whitespace.
func ValidPartyID(s string) bool {
	hint, ns, ok := strings.Cut(s, "::")
	if !ok || hint == "" || ns == "" || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r > '~' {
			return false
		}
	}
	return true
}

// MaxHintLen is the longest hint of a party or synchronizer id: Canton's
// identifiers are at most 185 characters (String185), which also keeps
// "hint::1220<64 hex>" within the 255 of [ValidPartyID].
const MaxHintLen = 185

// ValidHint reports whether s can be the hint of a party or synchronizer
// id: 1 to MaxHintLen printable ASCII characters, without "::", so that
// the id it makes is a [ValidPartyID].
func ValidHint(s string) bool {
	if s == "" || len(s) > MaxHintLen || strings.Contains(s, "::") {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r > '~' {
			return false
		}
	}
	return true
}

// MaxUserIDLength is the longest ledger API user id Canton accepts.
const MaxUserIDLength = 128

// UserIDSymbols are the characters besides ASCII letters and digits that
// Canton allows in a ledger API user id.
const UserIDSymbols = "@^$.!`-#+'~_|:()"

// ValidUserIDRune reports whether r may appear in a ledger API user id.
func ValidUserIDRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r < 128 && strings.ContainsRune(UserIDSymbols, r)
}

// ValidUserID reports whether s is a ledger API user id as Canton accepts
// one: 1 to MaxUserIDLength characters, each a [ValidUserIDRune]. Every
// API that names users (ledger, admin, validator onboarding) checks this
// one rule, so no API can create a user another cannot serve.
func ValidUserID(s string) bool {
	if len(s) == 0 || len(s) > MaxUserIDLength {
		return false
	}
	for _, r := range s {
		if !ValidUserIDRune(r) {
			return false
		}
	}
	return true
}

// PartyHint returns the hint of a party id ("alice" of "alice::1220…").
func PartyHint(p daml.Party) string {
	hint, _, _ := strings.Cut(string(p), "::")
	return hint
}

// updateID derives the id of the n-th update of a network: "1220" and 64 hex
// digits, as Canton's update ids look. It depends only on the seed and the
// position, so a replayed network has the same ids.
func updateID(seed string, migration int64, seq int64) string {
	var buf [16]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(migration))
	binary.BigEndian.PutUint64(buf[8:], uint64(seq))
	h := sha256.Sum256(append([]byte("sandnet/update\x00"+seed+"\x00"), buf[:]...))
	return "1220" + hex.EncodeToString(h[:])
}

// contractID derives the id of the contract created by node n of an update,
// in the shape of a Canton V1 contract id: "00", a 32-byte discriminator and
// a 35-byte suffix, all hex.
func contractID(updateID string, node int32) daml.ContractID {
	var buf [4]byte
	binary.BigEndian.PutUint32(buf[:], uint32(node))
	d := sha256.Sum256(append([]byte("sandnet/discriminator\x00"+updateID+"\x00"), buf[:]...))
	s := sha256.Sum256(append([]byte("sandnet/suffix\x00"+updateID+"\x00"), buf[:]...))
	return daml.ContractID("00" + hex.EncodeToString(d[:]) + "ca111220" + hex.EncodeToString(s[:]))
}
