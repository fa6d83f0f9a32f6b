package validatorapi

import (
	"encoding/base64"
	"encoding/hex"
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/validator"
)

// The validator's external-party topology endpoints (validator-internal):
// generate the topology transactions of a party whose Ed25519 key a
// wallet holds, and submit them signed. The operator only.

// GenerateExternalPartyTopologyRequest is POST
// /v0/admin/external-party/topology/generate.
type GenerateExternalPartyTopologyRequest struct {
	PartyHint *string `json:"party_hint"`
	PublicKey *string `json:"public_key"`
}

// TopologyTx is a generated topology transaction: base64 of its bytes and
// the hex of its hash.
type TopologyTx struct {
	TopologyTx string `json:"topology_tx"`
	Hash       string `json:"hash"`
}

// GenerateExternalPartyTopologyResponse answers generate.
type GenerateExternalPartyTopologyResponse struct {
	PartyID     string       `json:"party_id"`
	TopologyTxs []TopologyTx `json:"topology_txs"`
}

func (h *Handler) generateExternalPartyTopology(w http.ResponseWriter, r *http.Request) error {
	var req GenerateExternalPartyTopologyRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.PartyHint == nil:
		return missing("party_hint")
	case req.PublicKey == nil:
		return missing("public_key")
	}
	party, txs, err := h.v.GenerateExternalPartyTopology(*req.PartyHint, *req.PublicKey)
	if err != nil {
		return err
	}
	resp := GenerateExternalPartyTopologyResponse{PartyID: string(party), TopologyTxs: make([]TopologyTx, len(txs))}
	for i, t := range txs {
		resp.TopologyTxs[i] = TopologyTx{TopologyTx: base64.StdEncoding.EncodeToString(t.Transaction), Hash: hex.EncodeToString(t.Hash)}
	}
	web.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// SignedTopologyTx is a generated transaction, unchanged, with the hex of
// the owner's Ed25519 signature of its hash (r‖s).
type SignedTopologyTx struct {
	TopologyTx *string `json:"topology_tx"`
	SignedHash *string `json:"signed_hash"`
}

// SubmitExternalPartyTopologyRequest is POST
// /v0/admin/external-party/topology/submit.
type SubmitExternalPartyTopologyRequest struct {
	PublicKey         *string            `json:"public_key"`
	SignedTopologyTxs []SignedTopologyTx `json:"signed_topology_txs"`
}

func (h *Handler) submitExternalPartyTopology(w http.ResponseWriter, r *http.Request) error {
	var req SubmitExternalPartyTopologyRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.PublicKey == nil {
		return missing("public_key")
	}
	if req.SignedTopologyTxs == nil {
		return missing("signed_topology_txs")
	}
	signed := make([]validator.SignedTopologyTx, len(req.SignedTopologyTxs))
	for i, s := range req.SignedTopologyTxs {
		if s.TopologyTx == nil || s.SignedHash == nil {
			return fault.New(fault.InvalidArgument, "signed_topology_txs[%d] needs topology_tx and signed_hash", i)
		}
		tx, err := base64.StdEncoding.DecodeString(*s.TopologyTx)
		if err != nil {
			return fault.New(fault.InvalidArgument, "signed_topology_txs[%d].topology_tx is not base64", i)
		}
		sig, err := hex.DecodeString(*s.SignedHash)
		if err != nil {
			return fault.New(fault.InvalidArgument, "signed_topology_txs[%d].signed_hash is not hex", i)
		}
		signed[i] = validator.SignedTopologyTx{Transaction: tx, Signature: sig}
	}
	party, err := h.v.SubmitExternalPartyTopology(r.Context(), *req.PublicKey, signed)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, PartyResponse{PartyID: string(party)})
	return nil
}
