package scanapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
)

// The registry's allocation APIs (v1): the allocation-factory
// (allocation-instruction-v1) and the choice contexts of an allocation
// (allocations-v1). The answers are computed by scan.Service.

// AllocationFactoryWithChoiceContext is the answer of the
// allocation-factory endpoint.
type AllocationFactoryWithChoiceContext struct {
	FactoryID     string        `json:"factoryId"`
	ChoiceContext ChoiceContext `json:"choiceContext"`
}

// DecodeAllocationFactoryRequest reads the body of POST
// /registry/allocation-instruction/v1/allocation-factory. choiceArguments
// must be a JSON object; as Splice's Scan, the registry does not read the
// AllocationFactory_Allocate in it (its answer is the same for every
// allocation), leaving every check to the ledger.
func DecodeAllocationFactoryRequest(r *http.Request) (GetFactoryRequest, error) {
	var req GetFactoryRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return req, err
	}
	args := bytes.TrimSpace(req.ChoiceArguments)
	if len(args) == 0 || string(args) == "null" {
		return req, missing("choiceArguments")
	}
	var obj map[string]json.RawMessage
	if args[0] != '{' || json.Unmarshal(args, &obj) != nil {
		return req, badRequest("Failed to decode: field \"choiceArguments\" must be a JSON object")
	}
	return req, nil
}

func (h *Handler) allocationFactory(w http.ResponseWriter, r *http.Request) error {
	req, err := DecodeAllocationFactoryRequest(r)
	if err != nil {
		return err
	}
	f, err := h.svc.AllocationFactory(r.Context())
	if err != nil {
		return err
	}
	cc, err := choiceContextOf(&h.blobs, f.Context, req.ExcludeDebugFields != nil && *req.ExcludeDebugFields)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, AllocationFactoryWithChoiceContext{FactoryID: string(f.Factory.ID), ChoiceContext: cc})
	return nil
}
