package validatorapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/validator"
)

// The wallet's token-standard transfers. Splice serves them under /v0 and
// /v2 with the same request and response shapes; its /v2 exercises the
// token standard's V2 interfaces, which Amulet's transfer instructions and
// factory also implement. sandnet's packages declare the V1 interfaces
// only, so both versions exercise V1: the answers are the same shapes with
// the same contract ids, and a client of either sees what Splice serves.

// route is a pattern ("METHOD /path") and its handler.
type route struct {
	pattern string
	h       http.Handler
}

// The operation ids of the token-standard endpoints.
const (
	opCreateTokenTransfer   = "createTokenStandardTransfer"
	opListTokenTransfers    = "listTokenStandardTransfers"
	opAcceptTokenTransfer   = "acceptTokenStandardTransfer"
	opRejectTokenTransfer   = "rejectTokenStandardTransfer"
	opWithdrawTokenTransfer = "withdrawTokenStandardTransfer"
)

// tokenStandardRoutes are the token-standard transfer endpoints, v0 and
// v2, and the wallet's transaction history, which shows them.
func (h *Handler) tokenStandardRoutes() []route {
	var out []route
	for _, version := range []string{"/v0", "/v2"} {
		suffix := ""
		if version == "/v2" {
			suffix = "V2"
		}
		base := version + "/wallet/token-standard/transfers"
		out = append(out,
			route{"POST " + base, h.wallet(opCreateTokenTransfer+suffix, h.createTokenTransfer)},
			route{"POST " + base + "/{contract_id}/accept", h.wallet(opAcceptTokenTransfer+suffix, h.actOnTokenTransfer(validator.TokenTransferAccept))},
			route{"POST " + base + "/{contract_id}/reject", h.wallet(opRejectTokenTransfer+suffix, h.actOnTokenTransfer(validator.TokenTransferReject))},
			route{"POST " + base + "/{contract_id}/withdraw", h.wallet(opWithdrawTokenTransfer+suffix, h.actOnTokenTransfer(validator.TokenTransferWithdraw))},
		)
	}
	// Splice lists under /v0 only: the instructions are the same for both.
	return append(out,
		route{"GET /v0/wallet/token-standard/transfers", h.wallet(opListTokenTransfers, h.listTokenTransfers)},
		route{"POST /v0/wallet/transactions", h.wallet(opListTransactions, h.listTransactions)})
}

// CreateTokenStandardTransferRequest is the body of POST
// /v0/wallet/token-standard/transfers (and /v2); every field is required.
type CreateTokenStandardTransferRequest struct {
	ReceiverPartyID *string `json:"receiver_party_id"`
	Amount          *string `json:"amount"`
	Description     *string `json:"description"`
	// ExpiresAt is a unix timestamp in microseconds: the transfer's
	// executeBefore.
	ExpiresAt  *int64  `json:"expires_at"`
	TrackingID *string `json:"tracking_id"`
}

// transferRequest checks a request and turns it into the domain's.
func (req *CreateTokenStandardTransferRequest) transferRequest() (validator.TokenTransferRequest, error) {
	var none validator.TokenTransferRequest
	switch {
	case req.ReceiverPartyID == nil:
		return none, missing("receiver_party_id")
	case req.Amount == nil:
		return none, missing("amount")
	case req.Description == nil:
		return none, missing("description")
	case req.ExpiresAt == nil:
		return none, missing("expires_at")
	case req.TrackingID == nil:
		return none, missing("tracking_id")
	}
	amount, err := parseDecimal(*req.Amount)
	if err != nil {
		return none, err
	}
	expires := daml.Timestamp(*req.ExpiresAt)
	if !expires.Valid() {
		return none, badRequest("Failed to decode: expires_at %d is outside the range of Daml timestamps", *req.ExpiresAt)
	}
	return validator.TokenTransferRequest{
		Receiver: daml.Party(*req.ReceiverPartyID), Amount: amount, Description: *req.Description,
		ExpiresAt: expires, TrackingID: *req.TrackingID,
	}, nil
}

// TransferInstructionResultResponse is the result of a token-standard
// choice: the output (one of pending, completed, failed), the sender's
// change and the choice's metadata.
type TransferInstructionResultResponse struct {
	Output           any               `json:"output"`
	SenderChangeCids []string          `json:"sender_change_cids"`
	Meta             map[string]string `json:"meta"`
}

// TransferInstructionPending is the output of a transfer left for the
// receiver to accept.
type TransferInstructionPending struct {
	TransferInstructionCid string `json:"transfer_instruction_cid"`
}

// TransferInstructionCompleted is the output of a transfer that moved the
// amount: the receiver's new holdings.
type TransferInstructionCompleted struct {
	ReceiverHoldingCids []string `json:"receiver_holding_cids"`
}

// TransferInstructionFailed is the output of a transfer that did not
// happen (rejected or withdrawn); Splice sends it empty.
type TransferInstructionFailed struct{}

func resultResponse(r splice.TransferInstructionResult) TransferInstructionResultResponse {
	out := TransferInstructionResultResponse{SenderChangeCids: cidStrings(r.SenderChangeCids), Meta: metaMap(r.Meta), Output: TransferInstructionFailed{}}
	switch o := r.Output; {
	case o.Pending != nil:
		out.Output = TransferInstructionPending{TransferInstructionCid: string(o.Pending.TransferInstructionCid)}
	case o.Completed != nil:
		out.Output = TransferInstructionCompleted{ReceiverHoldingCids: cidStrings(o.Completed.ReceiverHoldingCids)}
	}
	return out
}

func (h *Handler) createTokenTransfer(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	var req CreateTokenStandardTransferRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	tr, err := req.transferRequest()
	if err != nil {
		return err
	}
	res, err := h.v.CreateTokenTransfer(r.Context(), wallet, tr)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, resultResponse(res))
	return nil
}

// ListTokenStandardTransfersResponse is GET
// /v0/wallet/token-standard/transfers: the pending transfer instructions
// the wallet's party sends or receives.
type ListTokenStandardTransfersResponse struct {
	Transfers []*splicewire.Contract `json:"transfers"`
}

func (h *Handler) listTokenTransfers(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	is, err := h.v.TokenTransfers(r.Context(), wallet)
	if err != nil {
		return err
	}
	out, err := contractsOf(is)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, ListTokenStandardTransfersResponse{Transfers: out})
	return nil
}

func (h *Handler) actOnTokenTransfer(choice validator.TokenTransferChoice) walletHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
		res, err := h.v.ActOnTokenTransfer(r.Context(), wallet, daml.ContractID(r.PathValue("contract_id")), choice)
		if err != nil {
			return err
		}
		web.WriteJSON(w, http.StatusOK, resultResponse(res))
		return nil
	}
}
