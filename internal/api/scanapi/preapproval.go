package scanapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// TransferPreapprovalResponse is GET
// /v0/transfer-preapprovals/by-party/{party}.
type TransferPreapprovalResponse struct {
	TransferPreapproval *splicewire.ContractWithState `json:"transfer_preapproval"`
}

// noTransferPreapproval is the error of a lookup that finds none; clients
// (the wallet SDK) match its text to tell "none" from a failure.
func noTransferPreapproval(party string) error {
	return fault.New(fault.NotFound, "No TransferPreapproval found for party: %s", fault.Clip(party))
}

// transferPreapprovalByParty answers the receiver's pre-approval with the
// latest validFrom (a later one in creation order on a tie), as Splice's
// Scan does: expired ones count too, until the DSO expires them.
func (h *Handler) transferPreapprovalByParty(w http.ResponseWriter, r *http.Request) error {
	party := r.PathValue("party")
	best, err := h.svc.TransferPreapproval(r.Context(), daml.Party(party))
	if err != nil {
		return err
	}
	if best == nil {
		return noTransferPreapproval(party)
	}
	cws, err := splicewire.WithState[splicewire.ContractWithState](best.Contract)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, TransferPreapprovalResponse{TransferPreapproval: cws})
	return nil
}
