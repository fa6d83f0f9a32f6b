package validatorapi

import (
	"net/http"
	"time"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/validator"
)

// opListTransactions is the operation id of the wallet's history.
const opListTransactions = "listTransactions"

// ListTransactionsRequest is the body of POST /v0/wallet/transactions.
type ListTransactionsRequest struct {
	// BeginAfterID is the event_id of the last item of the previous page;
	// empty or absent starts with the newest.
	BeginAfterID *string `json:"begin_after_id"`
	PageSize     *int64  `json:"page_size"`
}

// ListTransactionsResponse is a page of the wallet's history, newest
// first.
type ListTransactionsResponse struct {
	Items []TransactionItem `json:"items"`
}

// TransactionSubtype names an item's action: the template and choice
// exercised, and the interface of a token-standard choice.
type TransactionSubtype struct {
	TemplateID  string `json:"template_id"`
	Choice      string `json:"choice"`
	InterfaceID string `json:"interface_id,omitempty"`
}

// PartyAndAmount is a party's net change of unlocked amulet.
type PartyAndAmount struct {
	Party  string `json:"party"`
	Amount string `json:"amount"`
}

// TransactionItem is one item of the history, discriminated by
// transaction_type: transfer items carry sender, receivers and the fees;
// balance_change items the wallet's party as their one receiver.
type TransactionItem struct {
	TransactionType    string             `json:"transaction_type"`
	TransactionSubtype TransactionSubtype `json:"transaction_subtype"`
	EventID            string             `json:"event_id"`
	Date               string             `json:"date"`
	Sender             *PartyAndAmount    `json:"sender,omitempty"`
	Receivers          []PartyAndAmount   `json:"receivers"`

	HoldingFees                 *string `json:"holding_fees,omitempty"`
	AppRewardsUsed              *string `json:"app_rewards_used,omitempty"`
	ValidatorRewardsUsed        *string `json:"validator_rewards_used,omitempty"`
	SvRewardsUsed               *string `json:"sv_rewards_used,omitempty"`
	DevelopmentFundCouponsUsed  *string `json:"development_fund_coupons_used,omitempty"`
	TransferInstructionReceiver string  `json:"transfer_instruction_receiver,omitempty"`
	TransferInstructionAmount   string  `json:"transfer_instruction_amount,omitempty"`
	TransferInstructionCid      string  `json:"transfer_instruction_cid,omitempty"`
	Description                 string  `json:"description,omitempty"`
}

func amountOf(n daml.Numeric) string { return n.String() }

func itemOf(it validator.HistoryItem) TransactionItem {
	out := TransactionItem{
		TransactionType: string(it.Type),
		TransactionSubtype: TransactionSubtype{
			TemplateID: it.Subtype.Template.String(), Choice: it.Subtype.Choice,
		},
		EventID:   it.EventID,
		Date:      it.Date.Time().UTC().Format(time.RFC3339Nano),
		Receivers: make([]PartyAndAmount, 0, len(it.Receivers)),
	}
	if it.Subtype.Interface != nil {
		out.TransactionSubtype.InterfaceID = it.Subtype.Interface.String()
	}
	for _, r := range it.Receivers {
		out.Receivers = append(out.Receivers, PartyAndAmount{Party: string(r.Party), Amount: amountOf(r.Amount)})
	}
	out.TransferInstructionCid = string(it.TransferInstructionCid)
	if it.Type != validator.HistoryTransfer {
		return out
	}
	str := func(n daml.Numeric) *string { s := amountOf(n); return &s }
	out.Sender = &PartyAndAmount{Party: string(it.Sender.Party), Amount: amountOf(it.Sender.Amount)}
	out.HoldingFees, out.AppRewardsUsed = str(it.HoldingFees), str(it.AppRewardsUsed)
	out.ValidatorRewardsUsed, out.SvRewardsUsed = str(it.ValidatorRewardsUsed), str(it.SvRewardsUsed)
	out.DevelopmentFundCouponsUsed = str(it.DevelopmentFundCouponsUsed)
	out.TransferInstructionReceiver = string(it.TransferInstructionReceiver)
	if it.TransferInstructionAmount != nil {
		out.TransferInstructionAmount = amountOf(*it.TransferInstructionAmount)
	}
	out.Description = it.Description
	return out
}

func (h *Handler) listTransactions(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	var req ListTransactionsRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.PageSize == nil {
		return missing("page_size")
	}
	after := ""
	if req.BeginAfterID != nil {
		after = *req.BeginAfterID
	}
	items, err := h.v.History(r.Context(), wallet, after, *req.PageSize)
	if err != nil {
		return err
	}
	out := ListTransactionsResponse{Items: make([]TransactionItem, len(items))}
	for i, it := range items {
		out.Items[i] = itemOf(it)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}
