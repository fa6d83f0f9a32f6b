package validatorapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/validator"
)

// CreateTransferPreapprovalResponse is POST /v0/wallet/transfer-preapproval:
// the wallet's pre-approval, new (200) or the one it already had (409).
type CreateTransferPreapprovalResponse struct {
	TransferPreapprovalContractID string `json:"transfer_preapproval_contract_id"`
}

func (h *Handler) createPreapproval(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	cid, existed, err := h.v.CreatePreapproval(r.Context(), wallet)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if existed {
		status = http.StatusConflict
	}
	web.WriteJSON(w, status, CreateTransferPreapprovalResponse{TransferPreapprovalContractID: string(cid)})
	return nil
}

// TransferPreapprovalSendRequest is the body of POST
// /v0/wallet/transfer-preapproval/send; description is optional.
type TransferPreapprovalSendRequest struct {
	ReceiverPartyID *string `json:"receiver_party_id"`
	Amount          *string `json:"amount"`
	DeduplicationID *string `json:"deduplication_id"`
	Description     *string `json:"description"`
}

// sendRequest checks a request and turns it into the domain's.
func (req *TransferPreapprovalSendRequest) sendRequest() (validator.PreapprovalSend, error) {
	switch {
	case req.ReceiverPartyID == nil:
		return validator.PreapprovalSend{}, missing("receiver_party_id")
	case req.Amount == nil:
		return validator.PreapprovalSend{}, missing("amount")
	case req.DeduplicationID == nil:
		return validator.PreapprovalSend{}, missing("deduplication_id")
	}
	amount, err := parseDecimal(*req.Amount)
	if err != nil {
		return validator.PreapprovalSend{}, err
	}
	return validator.PreapprovalSend{
		Receiver: daml.Party(*req.ReceiverPartyID), Amount: amount, DeduplicationID: *req.DeduplicationID, Description: req.Description,
	}, nil
}

func (h *Handler) sendPreapproval(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	var req TransferPreapprovalSendRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	send, err := req.sendRequest()
	if err != nil {
		return err
	}
	if err := h.v.SendThroughPreapproval(r.Context(), wallet, send); err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, Empty{})
	return nil
}

// LookupTransferPreapprovalByPartyResponse is GET
// /v0/admin/transfer-preapprovals/by-party/{receiver-party}.
type LookupTransferPreapprovalByPartyResponse struct {
	TransferPreapproval *splicewire.FullContractWithState `json:"transfer_preapproval"`
}

// ListTransferPreapprovalsResponse is GET /v0/admin/transfer-preapprovals:
// every pre-approval the operator provides.
type ListTransferPreapprovalsResponse struct {
	Contracts []*splicewire.FullContractWithState `json:"contracts"`
}

func (h *Handler) lookupPreapproval(w http.ResponseWriter, r *http.Request) error {
	p, err := h.v.Preapproval(r.Context(), daml.Party(r.PathValue("receiver_party")))
	if err != nil {
		return err
	}
	cws, err := splicewire.WithState[splicewire.FullContractWithState](p.Contract)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, LookupTransferPreapprovalByPartyResponse{TransferPreapproval: cws})
	return nil
}

func (h *Handler) cancelPreapproval(w http.ResponseWriter, r *http.Request) error {
	if err := h.v.CancelPreapproval(r.Context(), daml.Party(r.PathValue("receiver_party"))); err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, Empty{})
	return nil
}

func (h *Handler) listPreapprovals(w http.ResponseWriter, r *http.Request) error {
	ps, err := h.v.Preapprovals(r.Context())
	if err != nil {
		return err
	}
	cs, err := fullContracts(ps)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, ListTransferPreapprovalsResponse{Contracts: cs})
	return nil
}
