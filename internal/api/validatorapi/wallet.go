package validatorapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/validator"
)

// BalanceResponse is GET /v0/wallet/balance: the wallet's amulets valued
// at the latest open round.
type BalanceResponse struct {
	Round                int64  `json:"round"`
	EffectiveUnlockedQty string `json:"effective_unlocked_qty"`
	EffectiveLockedQty   string `json:"effective_locked_qty"`
	TotalHoldingFees     string `json:"total_holding_fees"`
}

func (h *Handler) balance(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	b, err := h.v.Balance(r.Context(), wallet)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, BalanceResponse{
		Round: b.Round, EffectiveUnlockedQty: b.Unlocked.String(),
		EffectiveLockedQty: b.Locked.String(), TotalHoldingFees: b.HoldingFees.String(),
	})
	return nil
}

// AmuletPosition is an amulet of a wallet with its value at a round.
type AmuletPosition struct {
	Contract          splicewire.FullContractWithState `json:"contract"`
	Round             int64                            `json:"round"`
	AccruedHoldingFee string                           `json:"accrued_holding_fee"`
	EffectiveAmount   string                           `json:"effective_amount"`
}

// AmuletsResponse is GET /v0/wallet/amulets.
type AmuletsResponse struct {
	Amulets       []AmuletPosition `json:"amulets"`
	LockedAmulets []AmuletPosition `json:"locked_amulets"`
}

func (h *Handler) amulets(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	_, hs, err := h.v.Holdings(r.Context(), wallet)
	if err != nil {
		return err
	}
	out := AmuletsResponse{Amulets: []AmuletPosition{}, LockedAmulets: []AmuletPosition{}}
	for _, hd := range hs {
		c, err := splicewire.WithState[splicewire.FullContractWithState](hd.Contract)
		if err != nil {
			return err
		}
		pos := AmuletPosition{
			Contract: *c,
			Round:    hd.Round, AccruedHoldingFee: hd.AccruedFee.String(), EffectiveAmount: hd.EffectiveAmount.String(),
		}
		if hd.Locked {
			out.LockedAmulets = append(out.LockedAmulets, pos)
		} else {
			out.Amulets = append(out.Amulets, pos)
		}
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// TapRequest is the body of POST /v0/wallet/tap: an amount in USD.
type TapRequest struct {
	Amount *string `json:"amount"`
	// CommandID, when given, makes the tap idempotent: a second tap with
	// the same command id within the ledger's deduplication period is
	// refused (409), as Splice's wallet deduplicates it.
	CommandID *string `json:"command_id"`
}

// TapResponse is the tapped amulet.
type TapResponse struct {
	ContractID string `json:"contract_id"`
}

func (h *Handler) tap(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	var req TapRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Amount == nil {
		return missing("amount")
	}
	amount, err := parseDecimal(*req.Amount)
	if err != nil {
		return err
	}
	commandID := ""
	if req.CommandID != nil {
		commandID = *req.CommandID
	}
	cid, err := h.v.Tap(r.Context(), wallet, amount, commandID)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, TapResponse{ContractID: string(cid)})
	return nil
}

// AcceptTransferOfferResponse is the accepted offer.
type AcceptTransferOfferResponse struct {
	AcceptedOfferContractID string `json:"accepted_offer_contract_id"`
}

// Empty is the body of the calls that answer nothing.
type Empty struct{}

func (h *Handler) acceptOffer(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	cid, err := h.v.AcceptOffer(r.Context(), wallet, daml.ContractID(r.PathValue("contract_id")))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, AcceptTransferOfferResponse{AcceptedOfferContractID: string(cid)})
	return nil
}

func (h *Handler) rejectOffer(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	if err := h.v.RejectOffer(r.Context(), wallet, daml.ContractID(r.PathValue("contract_id"))); err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, Empty{})
	return nil
}

func (h *Handler) withdrawOffer(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	if err := h.v.WithdrawOffer(r.Context(), wallet, daml.ContractID(r.PathValue("contract_id"))); err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, Empty{})
	return nil
}

// AcceptedOffersResponse is GET /v0/wallet/accepted-transfer-offers.
type AcceptedOffersResponse struct {
	AcceptedOffers []*splicewire.Contract `json:"accepted_offers"`
}

func (h *Handler) acceptedOffers(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	offers, err := h.v.AcceptedOffers(r.Context(), wallet)
	if err != nil {
		return err
	}
	out, err := contractsOf(offers)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, AcceptedOffersResponse{AcceptedOffers: out})
	return nil
}

// SubscriptionRequestsResponse is GET /v0/wallet/subscription-requests.
type SubscriptionRequestsResponse struct {
	SubscriptionRequests []*splicewire.Contract `json:"subscription_requests"`
}

func (h *Handler) subscriptionRequests(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	rs, err := h.v.SubscriptionRequests(r.Context(), wallet)
	if err != nil {
		return err
	}
	out, err := contractsOf(rs)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, SubscriptionRequestsResponse{SubscriptionRequests: out})
	return nil
}

// AcceptSubscriptionResponse is the subscription's first payment.
type AcceptSubscriptionResponse struct {
	InitialPaymentContractID string `json:"initial_payment_contract_id"`
}

func (h *Handler) acceptSubscription(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	cid, err := h.v.AcceptSubscription(r.Context(), wallet, daml.ContractID(r.PathValue("contract_id")))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, AcceptSubscriptionResponse{InitialPaymentContractID: string(cid)})
	return nil
}
