package validator

import (
	"context"
	"encoding/hex"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/topology"
)

// The validator's external-party onboarding: what Splice's validator does
// through its participant's admin API for a wallet that holds an Ed25519
// key. It generates three topology transactions (a root namespace
// delegation for the key, a party-to-participant mapping hosting the party
// on the validator's participant with confirmation rights, a
// party-to-key mapping making the key the party's signing key), the owner
// signs each one's hash, and the validator submits them: the participant
// hosts the party and the validator's operator user may act as it.

// TopologyTx is a generated topology transaction and its hash, which the
// owner signs.
type TopologyTx struct {
	Transaction []byte
	Hash        []byte
}

// SignedTopologyTx is a generated topology transaction with the owner's
// Ed25519 signature of its hash.
type SignedTopologyTx struct {
	Transaction []byte
	Signature   []byte
}

// externalKey parses the hex of a raw Ed25519 public key, as the
// validator's endpoints take it. Splice's key carries no usage, which
// Canton reads as every usage.
func externalKey(publicKeyHex string) (signing.PublicKey, error) {
	raw, err := hex.DecodeString(publicKeyHex)
	if err != nil {
		return signing.PublicKey{}, fault.New(fault.InvalidArgument, "public_key is not hex: %v", err)
	}
	k, err := signing.ParsePublicKey(signing.KeyFormatRaw, raw, signing.KeySpecCurve25519)
	if err != nil {
		return signing.PublicKey{}, fault.New(fault.InvalidArgument, "public_key is not an Ed25519 public key: %v", err)
	}
	return k, nil
}

// GenerateExternalPartyTopology builds the topology transactions that
// onboard an external party with hint and the Ed25519 key given in hex,
// hosted on the validator's participant: in Splice's order, the root
// namespace delegation, the party-to-participant mapping (confirming,
// threshold 1, no keys) and the party-to-key mapping (threshold 1).
// Nothing is recorded.
func (v *Validator) GenerateExternalPartyTopology(hint, publicKeyHex string) (daml.Party, []TopologyTx, error) {
	if !ledger.ValidHint(hint) {
		return "", nil, fault.New(fault.InvalidArgument, "invalid party hint %s", fault.Quote(hint))
	}
	k, err := externalKey(publicKeyHex)
	if err != nil {
		return "", nil, err
	}
	fp := k.Fingerprint()
	party := ledger.PartyID(hint, fp)
	key := topology.NewSigningPublicKey(k, nil)
	txs := []*topology.Transaction{
		{Operation: topology.OperationAddReplace, Serial: 1, Mapping: &topology.NamespaceDelegation{
			Namespace: fp, TargetKey: key, Restriction: topology.RestrictionCanSignAllMappings,
		}},
		{Operation: topology.OperationAddReplace, Serial: 1, Mapping: &topology.PartyToParticipant{
			Party: string(party), Threshold: 1,
			Participants: []topology.HostingParticipant{{UID: v.cfg.Participant.UID(), Permission: topology.PermissionConfirmation}},
		}},
		{Operation: topology.OperationAddReplace, Serial: 1, Mapping: &topology.PartyToKeyMapping{
			Party: string(party), Threshold: 1, SigningKeys: []topology.SigningPublicKey{key},
		}},
	}
	g := topology.NewGenerated(string(party), fp, txs)
	out := make([]TopologyTx, len(txs))
	for i := range txs {
		out[i] = TopologyTx{Transaction: g.Serialized[i], Hash: g.Hashes[i]}
	}
	return party, out, nil
}

// SubmitExternalPartyTopology checks the generated transactions and the
// owner's signatures of their hashes (RAW Ed25519 signatures, as Splice
// takes them), hosts the party on the validator's participant and lets
// the validator's operator user act as it.
func (v *Validator) SubmitExternalPartyTopology(ctx context.Context, publicKeyHex string, signed []SignedTopologyTx) (daml.Party, error) {
	k, err := externalKey(publicKeyHex)
	if err != nil {
		return "", err
	}
	if len(signed) == 0 {
		return "", fault.New(fault.InvalidArgument, "signed_topology_txs must not be empty")
	}
	req := topology.OnboardingRequest{LocalParticipantUID: v.cfg.Participant.UID()}
	for _, s := range signed {
		req.Transactions = append(req.Transactions, topology.SignedTransaction{
			Transaction: s.Transaction,
			Signatures: []signing.Signature{{
				Format: signing.SignatureFormatRaw, Bytes: s.Signature,
				SignedBy: k.Fingerprint(), Algorithm: signing.AlgorithmEd25519,
			}},
		})
	}
	ob, err := topology.ValidateOnboarding(req)
	if err != nil {
		return "", err
	}
	party := daml.Party(ob.Party)
	spec := ledger.ExternalPartySpecOf(ob, v.cfg.Participant, "")
	if _, err := v.net.AllocateExternalParty(ctx, spec); err != nil {
		return "", err
	}
	right := ledger.Right{Kind: ledger.CanActAs, Party: party}
	if _, err := v.net.UpdateUser(ctx, v.cfg.Participant, v.cfg.OperatorUser, func(u *ledger.User) error {
		if !u.Has(right) {
			u.Rights = append(u.Rights, right)
		}
		return nil
	}); err != nil {
		return "", err
	}
	return party, nil
}
