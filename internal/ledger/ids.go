package ledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"strings"
	"sync"

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

// participantPrefix is what a participant id has and its unique
// identifier, as topology transactions name the participant, does not.
const participantPrefix = "PAR::"

// NewParticipantID names a participant: "PAR::name::1220…".
func NewParticipantID(name, fingerprint string) ParticipantID {
	return ParticipantID(participantPrefix + name + "::" + fingerprint)
}

// UID returns the participant's unique identifier, as topology
// transactions name it: "name::1220…".
func (p ParticipantID) UID() string { return strings.TrimPrefix(string(p), participantPrefix) }

// ParticipantOfUID is the participant a topology transaction names by its
// unique identifier.
func ParticipantOfUID(uid string) ParticipantID { return ParticipantID(participantPrefix + uid) }

// Namespace returns the namespace fingerprint of a participant id
// ("1220…" of "PAR::name::1220…"), and false when the id has no namespace.
// A party allocated on a participant lives in its namespace.
func (p ParticipantID) Namespace() (string, bool) {
	_, fp, ok := strings.Cut(p.UID(), "::")
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

// ProtocolVersion is the Canton protocol version sandnet emulates: 34,
// the stable version of Canton 3.4 and 3.5, whose synchronizers have
// logical ids. It fixes what depends on it: contract ids are V1 ids with
// the suffix version Canton uses on it (ContractIDSuffixPrefix), and
// prepared transactions name the logical synchronizer id (35 would name
// the physical "<id>::35-0") and are hashed with scheme V2.
const ProtocolVersion = 34

// ContractIDSuffixPrefix starts the suffix Canton adds to a contract id at
// commit on protocol version 34: the version bytes ca 12 of its
// authenticated contract ids (AuthenticatedContractIdVersionV12, the
// newest V1 version, which Canton 3.4 and 3.5 use from protocol version
// 34 on), then the 34-byte unicum, a multihash ("1220" and 32 bytes).
const ContractIDSuffixPrefix = "ca12"

// Seed is a 32-byte seed of Daml-LF's contract id scheme: a transaction
// seed, or the seed of one node.
type Seed [32]byte

// NodeSeed is the seed of one node of a transaction, as a prepared
// transaction lists them (node_seeds).
type NodeSeed struct {
	NodeID int32
	Seed   Seed
}

// The seeds and discriminators follow Daml-LF's scheme (crypto.Hash in
// the Daml repository), byte for byte: each is HMAC-SHA256 keyed by the
// parent seed over a fixed encoding, where an int is 4 bytes big-endian,
// a long 8 bytes big-endian, a string its UTF-8 bytes after their length
// as an int, and a set of strings its size as an int then its members
// sorted.
//
//   - transaction seed = HMAC(submission seed; participant id, ledger
//     time µs), Canton's deriveTransactionSeed;
//   - node seed = HMAC(parent; child index): a root's parent is the
//     transaction seed and its index its position among the roots; a
//     child's parent is its exercise's seed and its index its position
//     among the exercise's children (deriveNodeSeed);
//   - discriminator = HMAC(node seed; ledger time µs, the stakeholders as
//     a set) (deriveContractDiscriminator).
//
// A contract id made during interpretation is "00" and the hex of the
// discriminator (Canton's unsuffixed V1 id, what a prepared transaction
// shows); the commit adds the suffix.

type hmacWriter struct{ h hash.Hash }

func newHMAC(key Seed) hmacWriter { return hmacWriter{hmac.New(sha256.New, key[:])} }

func (w hmacWriter) int32(i int32) hmacWriter {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(i))
	w.h.Write(b[:])
	return w
}

func (w hmacWriter) int64(i int64) hmacWriter {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(i))
	w.h.Write(b[:])
	return w
}

func (w hmacWriter) string(s string) hmacWriter {
	w.int32(int32(len(s)))
	w.h.Write([]byte(s))
	return w
}

// parties adds a set of parties, which must be sorted and distinct (as
// union returns them).
func (w hmacWriter) parties(ps []daml.Party) hmacWriter {
	w.int32(int32(len(ps)))
	for _, p := range ps {
		w.string(string(p))
	}
	return w
}

func (w hmacWriter) sum() Seed {
	var s Seed
	w.h.Sum(s[:0])
	return s
}

// submissionSeeds derives the seed of every submission a network
// interprets. Canton takes a random nonce (its SeedService) and derives
// the submission seed from it, the user, the command id and the first
// submitter (deriveSubmissionSeed); sandnet derives the nonce instead, so
// that the same network seed and the same sequence of submissions give
// the same seeds, hence the same contract ids. The command id is left out
// of the derivation (Canton hashes it in), since clients and the wallet
// make it random, which would make the ids of a replayed sequence differ.
// The nonce hashes the
// network seed, the ledger's update count when the network opened (so
// that a restarted network does not repeat its seeds), the submitter's
// identity (participant, user, acting parties) and how many submissions
// that identity made before. Counting per identity keeps the seeds of one
// client's submissions independent of what other clients and the
// automation submit meanwhile, which the engine interprets concurrently.
// Ids stay unique even where two processes sharing a database derive the
// same seed: the suffix added at commit comes from the update id.
type submissionSeeds struct {
	networkSeed string
	opened      int64
	mu          sync.Mutex
	counts      map[string]int64
}

func newSubmissionSeeds(networkSeed string, opened int64) *submissionSeeds {
	return &submissionSeeds{networkSeed: networkSeed, opened: opened, counts: map[string]int64{}}
}

// next returns the seed of the next submission of a command.
func (s *submissionSeeds) next(cmd *Command) Seed {
	actAs := union(cmd.ActAs)
	var id strings.Builder
	id.WriteString(string(cmd.Participant))
	id.WriteByte(0)
	id.WriteString(cmd.UserID)
	for _, p := range actAs {
		id.WriteByte(0)
		id.WriteString(string(p))
	}
	key := id.String()
	s.mu.Lock()
	n := s.counts[key]
	s.counts[key] = n + 1
	s.mu.Unlock()
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(s.opened))
	binary.BigEndian.PutUint64(b[8:], uint64(n))
	h := sha256.New()
	h.Write([]byte("sandnet/submission-nonce\x00" + s.networkSeed + "\x00" + key + "\x00"))
	h.Write(b[:])
	var nonce Seed
	h.Sum(nonce[:0])
	var submitter string
	if len(cmd.ActAs) > 0 {
		submitter = string(cmd.ActAs[0])
	}
	return newHMAC(nonce).string(cmd.UserID).string(submitter).sum()
}

// transactionSeed is Daml-LF's deriveTransactionSeed.
func transactionSeed(submission Seed, participant ParticipantID, ledgerTime daml.Timestamp) Seed {
	return newHMAC(submission).string(string(participant)).int64(int64(ledgerTime)).sum()
}

// DeriveNodeSeed is Daml-LF's deriveNodeSeed: the seed of the index-th
// root of a transaction whose seed is parent, or of the index-th child of
// an exercise whose node seed is parent.
func DeriveNodeSeed(parent Seed, index int32) Seed { return nodeSeed(parent, index) }

// DeriveDiscriminator is Daml-LF's deriveContractDiscriminator: the
// discriminator of the contract a create node with seed node makes at
// ledger time at, with the given stakeholders (any order).
func DeriveDiscriminator(node Seed, at daml.Timestamp, stakeholders []daml.Party) Seed {
	return discriminator(node, at, union(stakeholders))
}

func nodeSeed(parent Seed, index int32) Seed {
	return newHMAC(parent).int32(index).sum()
}

// discriminator is Daml-LF's deriveContractDiscriminator.
func discriminator(node Seed, ledgerTime daml.Timestamp, stakeholders []daml.Party) Seed {
	return newHMAC(node).int64(int64(ledgerTime)).parties(stakeholders).sum()
}

// unsuffixedID is the contract id of a discriminator before commit: "00"
// and the discriminator in hex.
func unsuffixedID(d Seed) daml.ContractID {
	return daml.ContractID("00" + hex.EncodeToString(d[:]))
}

// unsuffixedLen is the length of an unsuffixed contract id.
const unsuffixedLen = 2 + 2*len(Seed{})

// isUnsuffixed reports whether id is a contract id without its suffix.
func isUnsuffixed(id daml.ContractID) bool {
	return len(id) == unsuffixedLen && strings.HasPrefix(string(id), "00")
}

// suffixed adds to an unsuffixed contract id created by update updateID
// the suffix of a committed id on protocol version 34:
// ContractIDSuffixPrefix and a multihash of the update id and the
// discriminator (Canton's unicum hashes the contract's salt and metadata;
// any value unique per update and discriminator serves sandnet).
func suffixed(id daml.ContractID, updateID string) daml.ContractID {
	s := sha256.Sum256([]byte("sandnet/suffix\x00" + updateID + "\x00" + string(id)))
	return daml.ContractID(string(id) + ContractIDSuffixPrefix + "1220" + hex.EncodeToString(s[:]))
}
