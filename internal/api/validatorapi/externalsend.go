package validatorapi

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/validator"
)

// The validator's admin endpoints for the legacy external-party flow
// (validator-internal): setting a party up through an
// ExternalPartySetupProposal, sending amulet through TransferCommands the
// party signs, and the party's balance. The operator only.

// CreateExternalPartySetupProposalRequest is POST
// /v0/admin/external-party/setup-proposal.
type CreateExternalPartySetupProposalRequest struct {
	UserPartyID *string `json:"user_party_id"`
}

// CreateExternalPartySetupProposalResponse answers it with the proposal.
type CreateExternalPartySetupProposalResponse struct {
	ContractID string `json:"contract_id"`
}

func (h *Handler) createSetupProposal(w http.ResponseWriter, r *http.Request) error {
	var req CreateExternalPartySetupProposalRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.UserPartyID == nil {
		return missing("user_party_id")
	}
	cid, err := h.v.CreateExternalPartySetupProposal(r.Context(), daml.Party(*req.UserPartyID))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, CreateExternalPartySetupProposalResponse{ContractID: string(cid)})
	return nil
}

// ListExternalPartySetupProposalsResponse is GET
// /v0/admin/external-party/setup-proposal.
type ListExternalPartySetupProposalsResponse struct {
	Contracts []*splicewire.FullContractWithState `json:"contracts"`
}

func (h *Handler) listSetupProposals(w http.ResponseWriter, r *http.Request) error {
	ps, err := h.v.ExternalPartySetupProposals(r.Context())
	if err != nil {
		return err
	}
	cs, err := fullContracts(ps)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, ListExternalPartySetupProposalsResponse{Contracts: cs})
	return nil
}

// PrepareAcceptExternalPartySetupProposalRequest is POST
// /v0/admin/external-party/setup-proposal/prepare-accept.
type PrepareAcceptExternalPartySetupProposalRequest struct {
	ContractID     *string `json:"contract_id"`
	UserPartyID    *string `json:"user_party_id"`
	VerboseHashing bool    `json:"verbose_hashing"`
}

// PreparedResponse is a transaction prepared for an external party to
// sign: base64 of its PreparedTransaction, the hex of its hash, and with
// verbose hashing the hashing's trace.
type PreparedResponse struct {
	Transaction    string  `json:"transaction"`
	TxHash         string  `json:"tx_hash"`
	HashingDetails *string `json:"hashing_details,omitempty"`
}

func preparedResponse(p validator.PreparedExternal) PreparedResponse {
	return PreparedResponse{
		Transaction: base64.StdEncoding.EncodeToString(p.Transaction), TxHash: hex.EncodeToString(p.Hash),
		HashingDetails: p.HashingDetails,
	}
}

func (h *Handler) prepareAcceptSetupProposal(w http.ResponseWriter, r *http.Request) error {
	var req PrepareAcceptExternalPartySetupProposalRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.ContractID == nil:
		return missing("contract_id")
	case req.UserPartyID == nil:
		return missing("user_party_id")
	}
	p, err := h.v.PrepareAcceptExternalPartySetupProposal(r.Context(), daml.ContractID(*req.ContractID), daml.Party(*req.UserPartyID), req.VerboseHashing)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, preparedResponse(p))
	return nil
}

// ExternalPartySubmission is a prepared transaction the external party
// signed: base64 of the transaction as prepared, and the hex of the
// party's Ed25519 signature of its hash (r‖s) and of its public key.
type ExternalPartySubmission struct {
	PartyID      *string `json:"party_id"`
	Transaction  *string `json:"transaction"`
	SignedTxHash *string `json:"signed_tx_hash"`
	PublicKey    *string `json:"public_key"`
}

// SubmitExternalRequest is the body of the submit endpoints.
type SubmitExternalRequest struct {
	Submission *ExternalPartySubmission `json:"submission"`
}

// decodeSubmission reads the body of a submit endpoint and decodes the
// signed transaction in it.
func decodeSubmission(r *http.Request) (validator.ExternalSubmission, error) {
	var req SubmitExternalRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return validator.ExternalSubmission{}, err
	}
	return req.Decode()
}

// Decode checks the request's fields and decodes the transaction.
func (req SubmitExternalRequest) Decode() (validator.ExternalSubmission, error) {
	s := req.Submission
	switch {
	case s == nil:
		return validator.ExternalSubmission{}, missing("submission")
	case s.PartyID == nil:
		return validator.ExternalSubmission{}, missing("party_id")
	case s.Transaction == nil:
		return validator.ExternalSubmission{}, missing("transaction")
	case s.SignedTxHash == nil:
		return validator.ExternalSubmission{}, missing("signed_tx_hash")
	case s.PublicKey == nil:
		return validator.ExternalSubmission{}, missing("public_key")
	}
	tx, err := base64.StdEncoding.DecodeString(*s.Transaction)
	if err != nil {
		return validator.ExternalSubmission{}, badRequest("transaction is not base64")
	}
	return validator.ExternalSubmission{
		Party: daml.Party(*s.PartyID), Transaction: tx, SignedTxHash: *s.SignedTxHash, PublicKey: *s.PublicKey,
	}, nil
}

// SubmitAcceptExternalPartySetupProposalResponse answers submit-accept
// with the party's new pre-approval.
type SubmitAcceptExternalPartySetupProposalResponse struct {
	TransferPreapprovalContractID string `json:"transfer_preapproval_contract_id"`
	UpdateID                      string `json:"update_id"`
}

func (h *Handler) submitAcceptSetupProposal(w http.ResponseWriter, r *http.Request) error {
	sub, err := decodeSubmission(r)
	if err != nil {
		return err
	}
	cid, updateID, err := h.v.SubmitAcceptExternalPartySetupProposal(r.Context(), sub)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, SubmitAcceptExternalPartySetupProposalResponse{TransferPreapprovalContractID: string(cid), UpdateID: updateID})
	return nil
}

// PrepareTransferPreapprovalSendRequest is POST
// /v0/admin/external-party/transfer-preapproval/prepare-send. The amount
// is a JSON number, kept as written.
type PrepareTransferPreapprovalSendRequest struct {
	SenderPartyID   *string         `json:"sender_party_id"`
	ReceiverPartyID *string         `json:"receiver_party_id"`
	Amount          json.RawMessage `json:"amount"`
	ExpiresAt       *string         `json:"expires_at"`
	Nonce           *int64          `json:"nonce"`
	VerboseHashing  bool            `json:"verbose_hashing"`
	Description     *string         `json:"description"`
}

// Spec checks the request's fields.
func (req PrepareTransferPreapprovalSendRequest) Spec() (validator.TransferCommandSpec, error) {
	var none validator.TransferCommandSpec
	switch {
	case req.SenderPartyID == nil:
		return none, missing("sender_party_id")
	case req.ReceiverPartyID == nil:
		return none, missing("receiver_party_id")
	case req.Amount == nil || string(req.Amount) == "null":
		return none, missing("amount")
	case req.ExpiresAt == nil:
		return none, missing("expires_at")
	case req.Nonce == nil:
		return none, missing("nonce")
	}
	// The amount is a JSON number, read as written (a float64 would round
	// it); anything else is refused without echoing it.
	if c := req.Amount[0]; c != '-' && (c < '0' || c > '9') {
		return none, badRequest("Failed to decode: amount must be a JSON number")
	}
	amount, err := parseDecimal(string(req.Amount))
	if err != nil {
		return none, err
	}
	expires, err := daml.ParseTimestamp(*req.ExpiresAt)
	if err != nil {
		return none, badRequest("Failed to decode: expires_at %s is not a timestamp", fault.Quote(*req.ExpiresAt))
	}
	return validator.TransferCommandSpec{
		Sender: daml.Party(*req.SenderPartyID), Receiver: daml.Party(*req.ReceiverPartyID), Amount: amount,
		ExpiresAt: expires, Nonce: *req.Nonce, Description: req.Description, Verbose: req.VerboseHashing,
	}, nil
}

// PrepareTransferPreapprovalSendResponse answers prepare-send: the
// transaction to sign, and the unsuffixed id of the TransferCommand it
// creates (the committed contract's id starts with it).
type PrepareTransferPreapprovalSendResponse struct {
	PreparedResponse
	TransferCommandContractIDPrefix string `json:"transfer_command_contract_id_prefix"`
}

func (h *Handler) prepareTransferCommand(w http.ResponseWriter, r *http.Request) error {
	var req PrepareTransferPreapprovalSendRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	spec, err := req.Spec()
	if err != nil {
		return err
	}
	p, err := h.v.PrepareTransferCommand(r.Context(), spec)
	if err != nil {
		return err
	}
	if p.Created == "" {
		return fault.New(fault.Internal, "Failed to obtain transferCommandCid from prepared transaction")
	}
	web.WriteJSON(w, http.StatusOK, PrepareTransferPreapprovalSendResponse{
		PreparedResponse: preparedResponse(p), TransferCommandContractIDPrefix: string(p.Created),
	})
	return nil
}

// SubmitTransferPreapprovalSendResponse answers submit-send with the
// update that created the TransferCommand; the transfer itself happens
// later, when the validator's automation sends the command.
type SubmitTransferPreapprovalSendResponse struct {
	UpdateID string `json:"update_id"`
}

func (h *Handler) submitTransferCommand(w http.ResponseWriter, r *http.Request) error {
	sub, err := decodeSubmission(r)
	if err != nil {
		return err
	}
	t, err := h.v.SubmitExternal(r.Context(), sub)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, SubmitTransferPreapprovalSendResponse{UpdateID: t.UpdateID})
	return nil
}

// ExternalPartyBalanceResponse is GET /v0/admin/external-party/balance.
type ExternalPartyBalanceResponse struct {
	PartyID                        string `json:"party_id"`
	TotalUnlockedCoin              string `json:"total_unlocked_coin"`
	TotalLockedCoin                string `json:"total_locked_coin"`
	TotalCoinHoldings              string `json:"total_coin_holdings"`
	AccumulatedHoldingFeesUnlocked string `json:"accumulated_holding_fees_unlocked"`
	AccumulatedHoldingFeesLocked   string `json:"accumulated_holding_fees_locked"`
	AccumulatedHoldingFeesTotal    string `json:"accumulated_holding_fees_total"`
	TotalAvailableCoin             string `json:"total_available_coin"`
	ComputedAsOfRound              int64  `json:"computed_as_of_round"`
}

func (h *Handler) externalPartyBalance(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if !q.Has("party_id") {
		return badRequest("Missing required query parameter %q", "party_id")
	}
	party := q.Get("party_id")
	b, err := h.v.ExternalPartyBalance(r.Context(), daml.Party(party))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, ExternalPartyBalanceResponse{
		PartyID: party, TotalUnlockedCoin: b.Unlocked.String(), TotalLockedCoin: b.Locked.String(),
		TotalCoinHoldings: b.Total.String(), AccumulatedHoldingFeesUnlocked: b.FeesUnlocked.String(),
		AccumulatedHoldingFeesLocked: b.FeesLocked.String(), AccumulatedHoldingFeesTotal: b.FeesTotal.String(),
		TotalAvailableCoin: b.Available.String(), ComputedAsOfRound: b.Round,
	})
	return nil
}

// TransferCommandCounterProxyResponse is GET
// /v0/scan-proxy/transfer-command-counter/{party}.
type TransferCommandCounterProxyResponse struct {
	TransferCommandCounter *splicewire.FullContractWithState `json:"transfer_command_counter"`
}

func (h *Handler) proxyTransferCommandCounter(w http.ResponseWriter, r *http.Request) error {
	party := r.PathValue("party")
	c, err := h.proxy.TransferCommandCounter(r.Context(), daml.Party(party))
	if fault.Is(err, fault.NotFound) {
		return scanapi.NoTransferCommandCounter(party)
	}
	if err != nil {
		return err
	}
	cws, err := splicewire.WithState[splicewire.FullContractWithState](c)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, TransferCommandCounterProxyResponse{TransferCommandCounter: cws})
	return nil
}

func (h *Handler) proxyTransferCommandStatus(w http.ResponseWriter, r *http.Request) error {
	sender, nonce, err := scanapi.TransferCommandQuery(r)
	if err != nil {
		return err
	}
	body, err := h.proxy.TransferCommandStatus(r.Context(), sender, nonce)
	if err != nil {
		return err
	}
	web.WriteJSONBytes(w, http.StatusOK, body)
	return nil
}
