package scanapi

import (
	"net/http"
	"strings"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// FeaturedAppRightResponse is GET /v0/featured-apps/{provider_party_id}:
// the provider's FeaturedAppRight, left out when it has none (Splice's
// Option, which its JSON encoder drops when empty).
type FeaturedAppRightResponse struct {
	FeaturedAppRight *splicewire.Contract `json:"featured_app_right,omitempty"`
}

// featuredAppRight answers a provider's FeaturedAppRight. A provider
// without one is a 200 with no contract, as Splice's Scan answers (the
// wallet SDK reads an empty answer as "not featured"); a party id that
// does not parse is a 400.
func (h *Handler) featuredAppRight(w http.ResponseWriter, r *http.Request) error {
	party := r.PathValue("provider_party_id")
	if !ledger.ValidPartyID(party) {
		return badRequest("Could not decode party ID: %s is not of the form <identifier>::<namespace>", fault.Quote(party))
	}
	c, err := h.svc.FeaturedAppRight(r.Context(), daml.Party(party))
	if err != nil {
		return err
	}
	var out FeaturedAppRightResponse
	if c != nil {
		if out.FeaturedAppRight, err = splicewire.ContractOf(c); err != nil {
			return err
		}
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// MemberTrafficStatusResponse is GET
// /v0/domains/{domain_id}/members/{member_id}/traffic-status.
type MemberTrafficStatusResponse struct {
	TrafficStatus MemberTrafficStatus `json:"traffic_status"`
}

// MemberTrafficStatus is a member's extra traffic: what the sequencer
// reports (Actual) and what was bought for it (Target).
type MemberTrafficStatus struct {
	Actual ActualMemberTrafficState `json:"actual"`
	Target TargetMemberTrafficState `json:"target"`
}

// ActualMemberTrafficState is the extra traffic a member consumed and
// its limit, in bytes.
type ActualMemberTrafficState struct {
	TotalConsumed int64 `json:"total_consumed"`
	TotalLimit    int64 `json:"total_limit"`
}

// TargetMemberTrafficState is the extra traffic bought for a member, in
// bytes.
type TargetMemberTrafficState struct {
	TotalPurchased int64 `json:"total_purchased"`
}

// memberCodes are the member kinds a Canton member id may name:
// participant, mediator, sequencer.
var memberCodes = []string{"PAR::", "MED::", "SEQ::"}

// validMemberID reports whether s is "<code>::<identifier>::<namespace>"
// with a known code.
func validMemberID(s string) bool {
	for _, code := range memberCodes {
		if rest, ok := strings.CutPrefix(s, code); ok {
			return ledger.ValidPartyID(rest)
		}
	}
	return false
}

// memberTrafficStatus answers a member's traffic status. sandnet's
// synchronizer has no traffic control (docs/decisions.md): no member
// ever consumes extra traffic and none can be bought, so every member
// is in the state Splice reports for one that bought none and used
// none: all zero. Ids are checked as Splice's Scan checks them (400 for
// one that does not parse).
func (h *Handler) memberTrafficStatus(w http.ResponseWriter, r *http.Request) error {
	domain, member := r.PathValue("domain_id"), r.PathValue("member_id")
	if !validMemberID(member) {
		return badRequest("Could not decode member ID: %s is not of the form <PAR|MED|SEQ>::<identifier>::<namespace>", fault.Quote(member))
	}
	if !ledger.ValidPartyID(domain) {
		return badRequest("Could not decode domain ID: %s is not of the form <identifier>::<namespace>", fault.Quote(domain))
	}
	web.WriteJSON(w, http.StatusOK, MemberTrafficStatusResponse{})
	return nil
}
