package ledgerapi

import (
	"context"
	"encoding/base64"
	"net/http"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/topology"
)

// External party onboarding (/v2/parties/external): the participant
// generates the topology transactions that host a party whose key its
// owner holds (generate-topology); the owner signs them and hands them
// back (allocate), and the participant checks the signatures and hosts
// the party. The checks and the transactions' bytes are Canton's
// (internal/topology).

// GenerateExternalPartyTopologyResponse answers generate-topology.
type GenerateExternalPartyTopologyResponse struct {
	PartyID              string   `json:"partyId"`
	PublicKeyFingerprint string   `json:"publicKeyFingerprint"`
	TopologyTransactions []string `json:"topologyTransactions"`
	MultiHash            string   `json:"multiHash"`
}

func (h *Handler) generateExternalPartyTopology(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "GenerateExternalPartyTopologyRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	sync := d.requiredString(obj, "synchronizer")
	hint := d.requiredString(obj, "partyHint")
	keyObj, hasKey := d.member("", obj, "publicKey")
	var format, keyData, keySpec string
	if hasKey {
		format = d.requiredString(keyObj, "format")
		keyData = d.requiredString(keyObj, "keyData")
		keySpec = d.requiredString(keyObj, "keySpec")
	} else if d.err == nil {
		d.fail("publicKey", "missing required field")
	}
	observationOnly, _ := d.boolMember("", obj, "localParticipantObservationOnly")
	others := d.stringList("", obj, "otherConfirmingParticipantUids")
	threshold, _ := d.int64Member("", obj, "confirmationThreshold")
	observers := d.stringList("", obj, "observingParticipantUids")
	if d.err != nil {
		return d.err
	}
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	if _, err := h.connectedSynchronizer(r.Context(), sync); err != nil {
		return invalidArgument("Unknown or not connected synchronizer %s", fault.Quote(sync))
	}
	key, err := parsePublicKey(format, keyData, keySpec)
	if err != nil {
		return err
	}
	if threshold < 0 || threshold > 1<<31-1 {
		return invalidArgument("Invalid confirmation threshold %d", threshold)
	}
	g, err := topology.Generate(topology.GenerateRequest{
		PartyHint: hint, PublicKey: key, LocalParticipantUID: h.cfg.Participant.UID(),
		LocalObservationOnly: observationOnly, OtherConfirmingUIDs: others,
		ConfirmationThreshold: int(threshold), ObservingUIDs: observers,
	})
	if err != nil {
		return topologyError(err)
	}
	resp := GenerateExternalPartyTopologyResponse{
		PartyID: g.PartyID, PublicKeyFingerprint: g.Fingerprint,
		MultiHash: base64.StdEncoding.EncodeToString(g.MultiHash),
	}
	for _, t := range g.Serialized {
		resp.TopologyTransactions = append(resp.TopologyTransactions, base64.StdEncoding.EncodeToString(t))
	}
	return writeJSON(w, resp)
}

// parsePublicKey decodes a SigningPublicKey's fields.
func parsePublicKey(format, keyData, keySpec string) (signing.PublicKey, error) {
	f, err := signing.ParseKeyFormat(format)
	if err != nil {
		return signing.PublicKey{}, invalidArgument("%v", err)
	}
	spec, err := signing.ParseKeySpec(keySpec)
	if err != nil {
		return signing.PublicKey{}, invalidArgument("%v", err)
	}
	b, err := base64.StdEncoding.DecodeString(keyData)
	if err != nil || len(b) == 0 {
		return signing.PublicKey{}, invalidArgument("the public key's key_data is not base64")
	}
	k, err := signing.ParsePublicKey(f, b, spec)
	if err != nil {
		return signing.PublicKey{}, invalidArgument("%v", err)
	}
	return k, nil
}

// topologyError answers a refusal of internal/topology: its invalid
// arguments and fields get the ledger API's causes, the topology
// manager's own codes pass as they are.
func topologyError(err error) error {
	fe, ok := fault.As(err)
	switch {
	case !ok:
		return invalidArgument("%v", err)
	case fe.Code == topology.CodeInvalidField:
		return fault.WithCode(fault.InvalidArgument, codeInvalidField, "The submitted command has a field with invalid value: %s", fe.Message)
	case fe.Code == "" || fe.Code == topology.CodeInvalidArgument:
		return invalidArgument("%s", fe.Message)
	}
	return fe
}

// AllocateExternalPartyResponse answers allocate.
type AllocateExternalPartyResponse struct {
	PartyID string `json:"partyId"`
}

func (h *Handler) allocateExternalParty(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "AllocateExternalPartyRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	sync := d.requiredString(obj, "synchronizer")
	type signedTx struct {
		tx   string
		sigs []jsSignature
	}
	var txs []signedTx
	d.list("", obj, "onboardingTransactions", func(ip string, item any) {
		o, ok := d.object(ip, item)
		if !ok {
			return
		}
		var st signedTx
		st.tx, _ = d.stringMember(ip, o, "transaction")
		st.sigs = d.signatures(ip, o, "signatures")
		txs = append(txs, st)
	})
	multiSigs := d.signatures("", obj, "multiHashSignatures")
	idp, _ := d.stringMember("", obj, "identityProviderId")
	userID, _ := d.stringMember("", obj, "userId")
	// The allocation is ordered before the answer, whatever
	// waitForAllocation asks: it is only checked.
	d.boolMember("", obj, "waitForAllocation")
	if d.err != nil {
		return d.err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if err := mayAllocate(c, userID); err != nil {
		return err
	}
	if err := checkIdentityProviderID("identity_provider_id", idp, false); err != nil {
		return err
	}
	if userID != "" && !ledger.ValidUserID(userID) {
		return checkUserID("user_id", userID)
	}
	ctx := r.Context()
	syncID, err := h.connectedSynchronizer(ctx, sync)
	if err != nil {
		return invalidArgument("This node is not connected to the requested synchronizer %s.", fault.Quote(sync))
	}
	if len(txs) == 0 {
		return missingField("onboarding_transactions")
	}
	req := topology.OnboardingRequest{LocalParticipantUID: h.cfg.Participant.UID()}
	for i, st := range txs {
		raw, err := base64.StdEncoding.DecodeString(st.tx)
		if err != nil || len(raw) == 0 {
			return invalidArgument("Invalid transaction: onboarding transaction %d is not base64", i)
		}
		s := topology.SignedTransaction{Transaction: raw}
		for _, js := range st.sigs {
			sig, err := decodeSignature(js)
			if err != nil {
				return err
			}
			s.Signatures = append(s.Signatures, sig)
		}
		req.Transactions = append(req.Transactions, s)
	}
	for _, js := range multiSigs {
		sig, err := decodeSignature(js)
		if err != nil {
			return err
		}
		req.MultiHashSignatures = append(req.MultiHashSignatures, sig)
	}
	ob, err := topology.ValidateOnboarding(req)
	if err != nil {
		return topologyError(err)
	}
	if err := h.identityProviderExists(ctx, idp); err != nil {
		return err
	}
	party := daml.Party(ob.Party)
	if err := h.checkRecordIdentityProvider(ctx, party, idp); err != nil {
		return err
	}
	spec := ledger.ExternalPartySpecOf(ob, h.cfg.Participant, syncID)
	known, err := h.participants(ctx)
	if err != nil {
		return err
	}
	for _, host := range spec.Hosts {
		if !known[host.Participant] {
			return invalidArgument("Unknown participant %s in the party-to-participant mapping", fault.Quote(host.Participant.UID()))
		}
	}
	authorized, err := h.cfg.Ledger.AllocateExternalParty(ctx, spec)
	if err != nil {
		return err
	}
	if authorized {
		if _, err := h.cfg.Ledger.UpdatePartyRecord(ctx, h.cfg.Participant, party, func(rec *ledger.PartyRecord, exists bool) error {
			if !exists {
				rec.IdentityProviderID = idp
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if err := h.grantActAs(ctx, userID, party); err != nil {
		return err
	}
	return writeJSON(w, AllocateExternalPartyResponse{PartyID: string(party)})
}

// participants returns the network's participants as a set.
func (h *Handler) participants(ctx context.Context) (map[ledger.ParticipantID]bool, error) {
	hs, err := h.cfg.Ledger.Participants(ctx)
	if err != nil {
		return nil, err
	}
	out := map[ledger.ParticipantID]bool{}
	for _, p := range hs {
		out[p.ID] = true
	}
	return out, nil
}
