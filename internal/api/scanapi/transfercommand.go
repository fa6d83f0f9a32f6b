package scanapi

import (
	"net/http"
	"strconv"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/scan"
)

// The Scan's endpoints for external parties' legacy transfer commands: a
// sender's TransferCommandCounter, the status of its commands with a
// nonce, and the ExternalPartyAmuletRules a command is created through.

// TransferCommandCounterResponse is GET
// /v0/transfer-command-counter/{party}.
type TransferCommandCounterResponse struct {
	TransferCommandCounter *splicewire.ContractWithState `json:"transfer_command_counter"`
}

// NoTransferCommandCounter is the 404 of a sender without a counter, in
// Splice's words: such a sender's next nonce is 0.
func NoTransferCommandCounter(party string) error {
	return fault.New(fault.NotFound, "No TransferCommandCounter found for party: %s, use 0 for the nonce", fault.Clip(party))
}

func (h *Handler) transferCommandCounter(w http.ResponseWriter, r *http.Request) error {
	party := r.PathValue("party")
	c, err := h.svc.TransferCommandCounter(r.Context(), daml.Party(party))
	if err != nil {
		return err
	}
	if c == nil {
		return NoTransferCommandCounter(party)
	}
	cws, err := splicewire.WithState[splicewire.ContractWithState](c)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, TransferCommandCounterResponse{TransferCommandCounter: cws})
	return nil
}

// TransferCommandStatus is a command's status: created or sent, or failed
// with a failure kind (failed, expired, withdrawn) and a reason.
type TransferCommandStatus struct {
	Status      string `json:"status"`
	FailureKind string `json:"failure_kind,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// TransferCommandWithStatus is a transfer command and its status.
type TransferCommandWithStatus struct {
	Contract *splicewire.Contract  `json:"contract"`
	Status   TransferCommandStatus `json:"status"`
}

// TransferCommandStatusResponse is GET /v0/transfer-command/status.
type TransferCommandStatusResponse struct {
	TransferCommandsByContractID map[string]TransferCommandWithStatus `json:"transfer_commands_by_contract_id"`
}

// TransferCommandQuery reads the sender and nonce query parameters of a
// status lookup, both required.
func TransferCommandQuery(r *http.Request) (daml.Party, int64, error) {
	q := r.URL.Query()
	for _, p := range []string{"sender", "nonce"} {
		if !q.Has(p) {
			return "", 0, badRequest("Missing required query parameter %q", p)
		}
	}
	nonce, err := strconv.ParseInt(q.Get("nonce"), 10, 64)
	if err != nil {
		return "", 0, badRequest("Invalid value for query parameter %q: %s is not an integer", "nonce", fault.Quote(q.Get("nonce")))
	}
	return daml.Party(q.Get("sender")), nonce, nil
}

func (h *Handler) transferCommandStatus(w http.ResponseWriter, r *http.Request) error {
	sender, nonce, err := TransferCommandQuery(r)
	if err != nil {
		return err
	}
	statuses, err := h.svc.TransferCommandStatuses(r.Context(), sender, nonce)
	if err != nil {
		return err
	}
	resp, err := RenderTransferCommandStatuses(sender, nonce, statuses)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// RenderTransferCommandStatuses renders a status lookup; none found is
// Splice's 404.
func RenderTransferCommandStatuses(sender daml.Party, nonce int64, statuses map[daml.ContractID]*scan.TransferCommandStatus) (TransferCommandStatusResponse, error) {
	if len(statuses) == 0 {
		return TransferCommandStatusResponse{}, fault.New(fault.NotFound,
			"Couldn't find transfer command for sender %s with nonce %d created in the last 24h", fault.Clip(string(sender)), nonce)
	}
	resp := TransferCommandStatusResponse{TransferCommandsByContractID: map[string]TransferCommandWithStatus{}}
	for cid, st := range statuses {
		c, err := splicewire.ContractOf(st.Contract)
		if err != nil {
			return resp, err
		}
		resp.TransferCommandsByContractID[string(cid)] = TransferCommandWithStatus{
			Contract: c, Status: TransferCommandStatus{Status: st.Status, FailureKind: st.FailureKind, Reason: st.Reason},
		}
	}
	return resp, nil
}

// ExternalPartyAmuletRulesRequest is the body of POST
// /v0/external-party-amulet-rules: the contract the caller has cached, if
// any.
type ExternalPartyAmuletRulesRequest struct {
	CachedContractID string `json:"cached_external_party_amulet_rules_contract_id,omitempty"`
	CachedDomainID   string `json:"cached_external_party_amulet_rules_domain_id,omitempty"`
}

// ExternalPartyAmuletRulesResponse carries the rules with their state,
// without the contract when the caller has it cached.
type ExternalPartyAmuletRulesResponse struct {
	Update *splicewire.ContractWithState `json:"external_party_amulet_rules_update"`
}

func (h *Handler) externalPartyAmuletRules(w http.ResponseWriter, r *http.Request) error {
	var req ExternalPartyAmuletRulesRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	rules, err := h.svc.ExternalPartyAmuletRules(r.Context())
	if err != nil {
		return err
	}
	upd, err := cachedUpdate(rules, req.CachedContractID)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, ExternalPartyAmuletRulesResponse{Update: upd})
	return nil
}
