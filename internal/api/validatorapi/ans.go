package validatorapi

import (
	"net/http"
	"strconv"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/validator"
)

// CreateAnsEntryRequest is the body of POST /v0/entry/create; every field
// is required (url and description may be empty).
type CreateAnsEntryRequest struct {
	Name        *string `json:"name"`
	URL         *string `json:"url"`
	Description *string `json:"description"`
}

// CreateAnsEntryResponse is the entry's context and the subscription
// request the user accepts to pay for the entry (camelCase, as upstream).
type CreateAnsEntryResponse struct {
	EntryContextCid        string `json:"entryContextCid"`
	SubscriptionRequestCid string `json:"subscriptionRequestCid"`
	Name                   string `json:"name"`
	URL                    string `json:"url"`
	Description            string `json:"description"`
}

func (h *Handler) createEntry(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	var req CreateAnsEntryRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.Name == nil:
		return missing("name")
	case req.URL == nil:
		return missing("url")
	case req.Description == nil:
		return missing("description")
	}
	res, err := h.v.RequestEntry(r.Context(), wallet, *req.Name, *req.URL, *req.Description)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, CreateAnsEntryResponse{
		EntryContextCid: string(res.EntryContext), SubscriptionRequestCid: string(res.SubscriptionRequest),
		Name: res.Name, URL: res.URL, Description: res.Description,
	})
	return nil
}

// AnsEntryResponse is a name entry of the user. Every field is a string:
// amount a Decimal, unit the Java enum's name ("USDUNIT"), expiresAt in
// epoch milliseconds, the intervals in microseconds.
type AnsEntryResponse struct {
	ContractID      string `json:"contractId"`
	Name            string `json:"name"`
	Amount          string `json:"amount"`
	Unit            string `json:"unit"`
	ExpiresAt       string `json:"expiresAt"`
	PaymentInterval string `json:"paymentInterval"`
	PaymentDuration string `json:"paymentDuration"`
}

// ListAnsEntriesResponse is GET /v0/entry/all.
type ListAnsEntriesResponse struct {
	Entries []AnsEntryResponse `json:"entries"`
}

func (h *Handler) listEntries(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	entries, err := h.v.Entries(r.Context(), wallet)
	if err != nil {
		return err
	}
	out := ListAnsEntriesResponse{Entries: []AnsEntryResponse{}}
	for _, e := range entries {
		out.Entries = append(out.Entries, AnsEntryResponse{
			ContractID: string(e.ContractID), Name: e.Name, Amount: e.Amount.String(), Unit: validator.UnitName(e.Unit),
			ExpiresAt:       strconv.FormatInt(int64(e.ExpiresAt)/1000, 10),
			PaymentInterval: strconv.FormatInt(e.PaymentInterval, 10),
			PaymentDuration: strconv.FormatInt(e.PaymentDuration, 10),
		})
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}
