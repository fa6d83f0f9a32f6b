package validatorapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/validator"
)

// CreateTransferOfferRequest is the body of POST /v0/wallet/transfer-offers;
// every field is required.
type CreateTransferOfferRequest struct {
	ReceiverPartyID *string `json:"receiver_party_id"`
	Amount          *string `json:"amount"`
	Description     *string `json:"description"`
	// ExpiresAt is a unix timestamp in microseconds.
	ExpiresAt  *int64  `json:"expires_at"`
	TrackingID *string `json:"tracking_id"`
}

// offerRequest checks a request and turns it into the domain's.
func (req *CreateTransferOfferRequest) offerRequest() (validator.OfferRequest, error) {
	switch {
	case req.ReceiverPartyID == nil:
		return validator.OfferRequest{}, missing("receiver_party_id")
	case req.Amount == nil:
		return validator.OfferRequest{}, missing("amount")
	case req.Description == nil:
		return validator.OfferRequest{}, missing("description")
	case req.ExpiresAt == nil:
		return validator.OfferRequest{}, missing("expires_at")
	case req.TrackingID == nil:
		return validator.OfferRequest{}, missing("tracking_id")
	}
	amount, err := parseDecimal(*req.Amount)
	if err != nil {
		return validator.OfferRequest{}, err
	}
	expires := daml.Timestamp(*req.ExpiresAt)
	if !expires.Valid() {
		return validator.OfferRequest{}, badRequest("Failed to decode: expires_at %d is outside the range of Daml timestamps", *req.ExpiresAt)
	}
	return validator.OfferRequest{
		Receiver: daml.Party(*req.ReceiverPartyID), Amount: amount, Description: *req.Description,
		ExpiresAt: expires, TrackingID: *req.TrackingID,
	}, nil
}

// CreateTransferOfferResponse is the new offer.
type CreateTransferOfferResponse struct {
	OfferContractID string `json:"offer_contract_id"`
}

func (h *Handler) createOffer(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	var req CreateTransferOfferRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	offer, err := req.offerRequest()
	if err != nil {
		return err
	}
	cid, err := h.v.CreateOffer(r.Context(), wallet, offer)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, CreateTransferOfferResponse{OfferContractID: string(cid)})
	return nil
}

// ListTransferOffersResponse is GET /v0/wallet/transfer-offers.
type ListTransferOffersResponse struct {
	Offers []*splicewire.Contract `json:"offers"`
}

func (h *Handler) listOffers(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	offers, err := h.v.Offers(r.Context(), wallet)
	if err != nil {
		return err
	}
	out, err := contractsOf(offers)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, ListTransferOffersResponse{Offers: out})
	return nil
}

// TransferOfferStatusResponse is where a transfer offer stands, discriminated
// by status: created, accepted and completed carry the transaction and
// contract ids; failed carries failure_kind, and withdrawn_reason when
// the sender withdrew.
type TransferOfferStatusResponse struct {
	Status          string `json:"status"`
	TransactionID   string `json:"transaction_id,omitempty"`
	ContractID      string `json:"contract_id,omitempty"`
	FailureKind     string `json:"failure_kind,omitempty"`
	WithdrawnReason string `json:"withdrawn_reason,omitempty"`
}

func statusOfTransfer(ev validator.TransferEvent) TransferOfferStatusResponse {
	out := TransferOfferStatusResponse{Status: string(ev.State)}
	if ev.State == validator.TransferFailed {
		out.FailureKind = string(ev.FailureKind)
		if ev.FailureKind == validator.FailureWithdrawn {
			out.WithdrawnReason = ev.Reason
		}
		return out
	}
	out.TransactionID, out.ContractID = ev.UpdateID, string(ev.ContractID)
	return out
}

func (h *Handler) offerStatus(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	ev, err := h.v.TransferStatus(r.Context(), wallet, r.PathValue("tracking_id"))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, statusOfTransfer(ev))
	return nil
}
