package topology

import (
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
)

// GenerateRequest is a request of /v2/parties/external/generate-topology
// once the HTTP layer has decoded it and resolved the synchronizer.
type GenerateRequest struct {
	// PartyHint is the identifier of the party id to be.
	PartyHint string
	// PublicKey is the party's key, as [signing.ParsePublicKey] returned
	// it.
	PublicKey signing.PublicKey
	// LocalParticipantUID is the unique identifier of the participant the
	// request came to, "participant1::1220…".
	LocalParticipantUID string
	// LocalObservationOnly makes the local participant an observer
	// rather than a confirmer.
	LocalObservationOnly bool
	// OtherConfirmingUIDs are further confirming participants.
	OtherConfirmingUIDs []string
	// ConfirmationThreshold is the number of confirmations a transaction
	// of the party needs; 0 means all confirming participants.
	ConfirmationThreshold int
	// ObservingUIDs are further observing participants.
	ObservingUIDs []string
}

// Generated is what generate-topology answers.
type Generated struct {
	// PartyID is "hint::fingerprint".
	PartyID string
	// Fingerprint is the key's fingerprint, the party's namespace.
	Fingerprint string
	// Transactions are the topology transactions to sign.
	Transactions []*Transaction
	// Serialized are the transactions' bytes, in order.
	Serialized [][]byte
	// Hashes are the transactions' hashes, in order.
	Hashes [][]byte
	// MultiHash is the hash one signature of the party's key signs to
	// authorize all the transactions.
	MultiHash []byte
}

// generatedKeyUsage is the usage generate-topology gives the party's key,
// in the order Canton writes it (its Set3's insertion order).
var generatedKeyUsage = []signing.Usage{
	signing.UsageNamespace, signing.UsageProofOfOwnership, signing.UsageProtocol,
}

// Generate builds the topology Canton 3.5 (and 3.4.8+) generates for a new
// external party: one PartyToParticipant, operation ADD_REPLACE, serial
// 1, hosting the party on the local participant (confirming, or observing
// if LocalObservationOnly), then on the other confirming participants,
// then on the observing ones, with the party's key as its one signing key
// (threshold 1, usage NAMESPACE, PROOF_OF_OWNERSHIP, PROTOCOL). The
// request is checked as Canton checks it; failures are INVALID_ARGUMENT.
func Generate(req GenerateRequest) (*Generated, error) {
	p, err := newGeneration(req)
	if err != nil {
		return nil, err
	}
	ptp := p.partyToParticipant()
	ptp.SigningKeys = &PartySigningKeys{Keys: []SigningPublicKey{p.key}, Threshold: 1}
	return NewGenerated(p.party, p.fingerprint, []*Transaction{replace(ptp)}), nil
}

// GenerateLegacy builds the topology Canton 3.4.0 to 3.4.7 generates for
// a new external party, after the same checks as [Generate]: a root
// NamespaceDelegation of the key's namespace to the key (restriction
// CanSignAllMappings), a PartyToKeyMapping with the key (threshold 1),
// and the PartyToParticipant of [Generate] without signing keys, in that
// order. Splice's validator, whose external-party endpoints predate the
// keys in the PartyToParticipant, onboards parties with this set.
func GenerateLegacy(req GenerateRequest) (*Generated, error) {
	p, err := newGeneration(req)
	if err != nil {
		return nil, err
	}
	nsd := &NamespaceDelegation{Namespace: p.fingerprint, TargetKey: p.key, Restriction: RestrictionCanSignAllMappings}
	p2k := &PartyToKeyMapping{Party: p.party, Threshold: 1, SigningKeys: []SigningPublicKey{p.key}}
	return NewGenerated(p.party, p.fingerprint, []*Transaction{replace(nsd), replace(p2k), replace(p.partyToParticipant())}), nil
}

// NewGenerated serializes and hashes transactions built in memory, for
// callers that compose their own onboarding set. It records each
// transaction's bytes in it: its [Transaction.Bytes] no longer follow
// later changes to the model.
func NewGenerated(party, fingerprint string, txs []*Transaction) *Generated {
	g := &Generated{PartyID: party, Fingerprint: fingerprint, Transactions: txs}
	for _, t := range txs {
		if t.raw == nil {
			t.raw = Marshal(t)
		}
		g.Serialized = append(g.Serialized, t.raw)
		g.Hashes = append(g.Hashes, t.Hash())
	}
	g.MultiHash = MultiHash(g.Hashes)
	return g
}

// replace is an onboarding transaction: ADD_REPLACE, serial 1.
func replace(m Mapping) *Transaction {
	return &Transaction{Operation: OperationAddReplace, Serial: 1, Mapping: m}
}

// generation is a checked generate request.
type generation struct {
	party, fingerprint string
	key                SigningPublicKey
	threshold          uint32
	hosts              []HostingParticipant
}

func (p *generation) partyToParticipant() *PartyToParticipant {
	return &PartyToParticipant{Party: p.party, Threshold: p.threshold, Participants: slices.Clone(p.hosts)}
}

// newGeneration checks a generate request in Canton's order, with its
// messages.
func newGeneration(req GenerateRequest) (*generation, error) {
	key, err := signing.ParsePublicKey(signing.KeyFormatSPKI, req.PublicKey.SPKI, req.PublicKey.Spec)
	if err != nil {
		return nil, invalidArgument("%s", causeOf(err))
	}
	if _, _, err := parseUID(req.LocalParticipantUID); err != nil {
		// The server's own identity: not the client's mistake.
		return nil, fault.Wrap(fault.Internal, err, "invalid local participant uid")
	}
	if req.PartyHint == "" {
		return nil, invalidArgument("Party hint is empty")
	}
	if err := checkIdentifier(req.PartyHint); err != nil {
		return nil, invalidArgument("party_hint: %s", causeOf(err))
	}
	if req.ConfirmationThreshold < 0 {
		return nil, invalidArgument("Negative confirmation threshold observed")
	}
	for _, uids := range [][]string{req.OtherConfirmingUIDs, req.ObservingUIDs} {
		for _, uid := range uids {
			if _, _, err := parseUID(uid); err != nil {
				return nil, invalidArgument("%s", causeOf(err))
			}
		}
	}
	local := participantName(req.LocalParticipantUID)
	for _, list := range []struct {
		name string
		uids []string
	}{{"otherConfirmingParticipantUids", req.OtherConfirmingUIDs}, {"observingParticipantUids", req.ObservingUIDs}} {
		if slices.Contains(list.uids, req.LocalParticipantUID) {
			return nil, invalidArgument("This participant node (%s) is also listed in '%s'. By sending the request to this node, "+
				"it is de facto a hosting node and must not be listed in '%s'.", local, list.name, list.name)
		}
	}
	if dups := duplicates(slices.Concat(req.OtherConfirmingUIDs, req.ObservingUIDs)); len(dups) > 0 {
		return nil, invalidArgument("The following participant IDs are referenced multiple times in the request: %s. "+
			"Please ensure all IDs are referenced only once across 'otherConfirmingParticipantUids' and 'observingParticipantUids' fields.",
			strings.Join(dups, ", "))
	}
	available := len(req.OtherConfirmingUIDs)
	if !req.LocalObservationOnly {
		available++
	}
	if req.ConfirmationThreshold > available {
		return nil, invalidArgument("Confirmation threshold exceeds number of confirming participants")
	}
	threshold := req.ConfirmationThreshold
	if threshold == 0 {
		threshold = available
	}
	if threshold == 0 {
		// Canton fails here with an internal error (a threshold of 0 is
		// no PositiveInt); a party nobody confirms for is refused.
		return nil, invalidArgument("The party must have at least one confirming participant")
	}
	localPermission := PermissionConfirmation
	if req.LocalObservationOnly {
		localPermission = PermissionObservation
	}
	hosts := []HostingParticipant{{UID: req.LocalParticipantUID, Permission: localPermission}}
	for _, uid := range req.OtherConfirmingUIDs {
		hosts = append(hosts, HostingParticipant{UID: uid, Permission: PermissionConfirmation})
	}
	for _, uid := range req.ObservingUIDs {
		hosts = append(hosts, HostingParticipant{UID: uid, Permission: PermissionObservation})
	}
	fingerprint := key.Fingerprint()
	return &generation{
		party:       req.PartyHint + uidDelimiter + fingerprint,
		fingerprint: fingerprint,
		key:         NewSigningPublicKey(key, slices.Clone(generatedKeyUsage)),
		threshold:   uint32(threshold),
		hosts:       hosts,
	}, nil
}

// duplicates returns the strings that occur more than once in ss, in the
// order of their second occurrence.
func duplicates(ss []string) []string {
	seen := map[string]int{}
	var dups []string
	for _, s := range ss {
		seen[s]++
		if seen[s] == 2 {
			dups = append(dups, s)
		}
	}
	return dups
}
