package validatorapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/validator"
)

// The wallet's token-standard allocations (wallet-internal):
// POST/GET /v0/allocations, POST /v0/allocations/{contract_id}/withdraw and
// GET /v0/wallet/token-standard/allocation-requests. The v2 variants are
// not served.

// The operation ids of the allocation endpoints, which name the call in
// the 404 of a user without a wallet.
const (
	opAllocateAmulet           = "allocateAmulet"
	opListAmuletAllocations    = "listAmuletAllocations"
	opWithdrawAmuletAllocation = "withdrawAmuletAllocation"
	opListAllocationRequests   = "listAllocationRequests"
)

// registerAllocations adds the allocation routes under prefix.
func (h *Handler) registerAllocations(mux *http.ServeMux, prefix string) {
	mux.Handle("POST "+prefix+"/v0/allocations", h.wallet(opAllocateAmulet, h.allocateAmulet))
	mux.Handle("GET "+prefix+"/v0/allocations", h.wallet(opListAmuletAllocations, h.listAllocations))
	mux.Handle("POST "+prefix+"/v0/allocations/{contract_id}/withdraw", h.wallet(opWithdrawAmuletAllocation, h.withdrawAllocation))
	mux.Handle("GET "+prefix+"/v0/wallet/token-standard/allocation-requests", h.wallet(opListAllocationRequests, h.listAllocationRequests))
}

// AllocateAmuletRequest is the body of POST /v0/allocations: one leg of a
// settlement the wallet's party sends. Times are unix timestamps in
// microseconds.
type AllocateAmuletRequest struct {
	Settlement *struct {
		Executor      *string `json:"executor"`
		SettlementRef *struct {
			ID  *string `json:"id"`
			Cid *string `json:"cid"`
		} `json:"settlement_ref"`
		RequestedAt    *int64            `json:"requested_at"`
		AllocateBefore *int64            `json:"allocate_before"`
		SettleBefore   *int64            `json:"settle_before"`
		Meta           map[string]string `json:"meta"`
	} `json:"settlement"`
	TransferLegID *string `json:"transfer_leg_id"`
	TransferLeg   *struct {
		Receiver *string           `json:"receiver"`
		Amount   *string           `json:"amount"`
		Meta     map[string]string `json:"meta"`
	} `json:"transfer_leg"`
}

// timestampField reads a required microsecond timestamp.
func timestampField(name string, us *int64) (daml.Timestamp, error) {
	if us == nil {
		return 0, missing(name)
	}
	t := daml.Timestamp(*us)
	if !t.Valid() {
		return 0, badRequest("Failed to decode: %s %d is outside the range of Daml timestamps", name, *us)
	}
	return t, nil
}

// allocateRequest checks a request and turns it into the domain's.
func (req *AllocateAmuletRequest) allocateRequest() (validator.AllocateRequest, error) {
	var out validator.AllocateRequest
	s, leg := req.Settlement, req.TransferLeg
	switch {
	case s == nil:
		return out, missing("settlement")
	case req.TransferLegID == nil:
		return out, missing("transfer_leg_id")
	case leg == nil:
		return out, missing("transfer_leg")
	case s.Executor == nil:
		return out, missing("settlement.executor")
	case s.SettlementRef == nil:
		return out, missing("settlement.settlement_ref")
	case s.SettlementRef.ID == nil:
		return out, missing("settlement.settlement_ref.id")
	case leg.Receiver == nil:
		return out, missing("transfer_leg.receiver")
	case leg.Amount == nil:
		return out, missing("transfer_leg.amount")
	}
	var err error
	if out.RequestedAt, err = timestampField("settlement.requested_at", s.RequestedAt); err != nil {
		return out, err
	}
	if out.AllocateBefore, err = timestampField("settlement.allocate_before", s.AllocateBefore); err != nil {
		return out, err
	}
	if out.SettleBefore, err = timestampField("settlement.settle_before", s.SettleBefore); err != nil {
		return out, err
	}
	if out.Amount, err = parseDecimal(*leg.Amount); err != nil {
		return out, err
	}
	out.Executor, out.SettlementRefID, out.SettlementMeta = daml.Party(*s.Executor), *s.SettlementRef.ID, s.Meta
	if s.SettlementRef.Cid != nil {
		cid := daml.ContractID(*s.SettlementRef.Cid)
		out.SettlementRefCid = &cid
	}
	out.TransferLegID, out.Receiver, out.LegMeta = *req.TransferLegID, daml.Party(*leg.Receiver), leg.Meta
	return out, nil
}

// AllocationInstructionOutput is the output of an allocation: exactly one
// of the fields is set, or none for a failed one ({}).
type AllocationInstructionOutput struct {
	AllocationInstructionCid string `json:"allocation_instruction_cid,omitempty"`
	AllocationCid            string `json:"allocation_cid,omitempty"`
}

// AllocateAmuletResponse is the answer of POST /v0/allocations.
type AllocateAmuletResponse struct {
	Output           AllocationInstructionOutput `json:"output"`
	SenderChangeCids []string                    `json:"sender_change_cids"`
	Meta             map[string]string           `json:"meta"`
}

func cidStrings(cids []daml.ContractID) []string {
	out := make([]string, len(cids))
	for i, c := range cids {
		out[i] = string(c)
	}
	return out
}

func metaMap(m splice.Metadata) map[string]string {
	if m.Values == nil {
		return map[string]string{}
	}
	return m.Values
}

func (h *Handler) allocateAmulet(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	var req AllocateAmuletRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	ar, err := req.allocateRequest()
	if err != nil {
		return err
	}
	res, err := h.v.AllocateAmulet(r.Context(), wallet, ar)
	if err != nil {
		return err
	}
	out := AllocateAmuletResponse{SenderChangeCids: cidStrings(res.SenderChangeCids), Meta: metaMap(res.Meta)}
	switch o := res.Output; {
	case o.Completed != nil:
		out.Output.AllocationCid = string(o.Completed.AllocationCid)
	case o.Pending != nil:
		out.Output.AllocationInstructionCid = string(o.Pending.AllocationInstructionCid)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// ContractItem wraps a contract as the allocation lists carry it.
type ContractItem struct {
	Contract *splicewire.Contract `json:"contract"`
}

// ListAllocationsResponse is GET /v0/allocations.
type ListAllocationsResponse struct {
	Allocations []ContractItem `json:"allocations"`
}

func (h *Handler) listAllocations(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	as, err := h.v.Allocations(r.Context(), wallet)
	if err != nil {
		return err
	}
	cs, err := contractsOf(as)
	if err != nil {
		return err
	}
	out := ListAllocationsResponse{Allocations: make([]ContractItem, len(cs))}
	for i, c := range cs {
		out.Allocations[i] = ContractItem{Contract: c}
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// AmuletAllocationWithdrawResult is the answer of POST
// /v0/allocations/{contract_id}/withdraw: the sender's holdings the
// allocation's amount came back in.
type AmuletAllocationWithdrawResult struct {
	SenderHoldingCids []string          `json:"sender_holding_cids"`
	Meta              map[string]string `json:"meta"`
}

func (h *Handler) withdrawAllocation(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	res, err := h.v.WithdrawAllocation(r.Context(), wallet, daml.ContractID(r.PathValue("contract_id")))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, AmuletAllocationWithdrawResult{SenderHoldingCids: cidStrings(res.SenderHoldingCids), Meta: metaMap(res.Meta)})
	return nil
}

// ListAllocationRequestsResponse is GET
// /v0/wallet/token-standard/allocation-requests.
type ListAllocationRequestsResponse struct {
	AllocationRequests []ContractItem `json:"allocation_requests"`
}

func (h *Handler) listAllocationRequests(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error {
	reqs, err := h.v.AllocationRequests(r.Context(), wallet)
	if err != nil {
		return err
	}
	cs, err := splicewire.ContractsOf(reqs)
	if err != nil {
		return err
	}
	out := ListAllocationRequestsResponse{AllocationRequests: make([]ContractItem, len(cs))}
	for i, c := range cs {
		out.AllocationRequests[i] = ContractItem{Contract: c}
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}
