package ledgerapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// The party management endpoints that read: the parties the participant
// knows, one party's details, and the participant's id.
//
// A participant knows every party of the topology of the synchronizers it
// is connected to, not only the ones it hosts, as Canton's listing does.
// sandnet's participants all connect to the one global synchronizer, so
// each knows every party of the network; isLocal marks those it hosts.
// sandnet keeps no participant-local party records, so every party's
// localMetadata is empty (no resource version, no annotations), and it
// has only the default identity provider, whose id is "".
//
// Listing and reading parties needs ParticipantAdmin (Canton also lets an
// identity provider's admin list its own parties; sandnet has none). The
// participant id is public to any authenticated user.

// maxPartiesPageSize is partyManagement.maxPartiesPageSize of /v2/version.
const maxPartiesPageSize = 10000

// PartyDetails is one party as the participant knows it.
type PartyDetails struct {
	Party              string     `json:"party"`
	IsLocal            bool       `json:"isLocal"`
	LocalMetadata      ObjectMeta `json:"localMetadata"`
	IdentityProviderID string     `json:"identityProviderId"`
}

// The responses of party management.
type (
	ListKnownPartiesResponse struct {
		PartyDetails  []PartyDetails `json:"partyDetails"`
		NextPageToken string         `json:"nextPageToken"`
	}
	GetPartiesResponse struct {
		PartyDetails []PartyDetails `json:"partyDetails"`
	}
	GetParticipantIDResponse struct {
		ParticipantID string `json:"participantId"`
	}
)

// knownParties returns every party of the network's topology, sorted,
// each with whether this participant hosts it.
func (h *Handler) knownParties(r *http.Request) ([]PartyDetails, error) {
	hs, err := h.cfg.Ledger.Hostings(r.Context())
	if err != nil {
		return nil, err
	}
	local := map[daml.Party]bool{}
	for _, x := range hs {
		local[x.Party] = local[x.Party] || x.Participant == h.cfg.Participant
	}
	out := make([]PartyDetails, 0, len(local))
	for p, isLocal := range local {
		out = append(out, partyDetails(p, isLocal))
	}
	slices.SortFunc(out, func(a, b PartyDetails) int { return strings.Compare(a.Party, b.Party) })
	return out, nil
}

func partyDetails(p daml.Party, isLocal bool) PartyDetails {
	return PartyDetails{Party: string(p), IsLocal: isLocal, LocalMetadata: ObjectMeta{Annotations: map[string]string{}}}
}

// checkIdentityProvider accepts the default identity provider only.
func checkIdentityProvider(r *http.Request) error {
	vs := r.URL.Query()["identity-provider-id"]
	if len(vs) > 1 {
		return undecodable("Invalid value for: query parameter identity-provider-id (expected a single value, got %d)", len(vs))
	}
	if len(vs) == 1 && vs[0] != "" {
		return invalidArgument("Provided identity_provider_id %s is not known: sandnet has only the default identity provider (\"\")", fault.Quote(vs[0]))
	}
	return nil
}

// GET /v2/parties: the known parties by id, a page at a time, optionally
// only those whose id starts with filter-party.
func (h *Handler) listParties(w http.ResponseWriter, r *http.Request) error {
	size, after, err := pageParams(r, maxPartiesPageSize)
	if err != nil {
		return err
	}
	if err := checkIdentityProvider(r); err != nil {
		return err
	}
	prefix := r.URL.Query().Get("filter-party")
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	all, err := h.knownParties(r)
	if err != nil {
		return err
	}
	resp := ListKnownPartiesResponse{PartyDetails: []PartyDetails{}}
	for _, d := range all {
		if d.Party <= after && after != "" || !strings.HasPrefix(d.Party, prefix) {
			continue
		}
		if len(resp.PartyDetails) == size {
			resp.NextPageToken = pageToken(resp.PartyDetails[size-1].Party)
			break
		}
		resp.PartyDetails = append(resp.PartyDetails, d)
	}
	return writeJSON(w, resp)
}

// GET /v2/parties/{party}: the details of the party of the path and of
// the parties query parameters, those the participant knows; unknown
// parties are left out, so an unknown party alone gives an empty list.
func (h *Handler) getParties(w http.ResponseWriter, r *http.Request) error {
	if err := checkIdentityProvider(r); err != nil {
		return err
	}
	want := append([]string{r.PathValue("party")}, r.URL.Query()["parties"]...)
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	for _, p := range want {
		if msg := checkPartySyntax(p); msg != "" {
			return invalidArgument("%s", msg)
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	all, err := h.knownParties(r)
	if err != nil {
		return err
	}
	resp := GetPartiesResponse{PartyDetails: []PartyDetails{}}
	for _, d := range all {
		if _, found := slices.BinarySearch(want, d.Party); found {
			resp.PartyDetails = append(resp.PartyDetails, d)
		}
	}
	return writeJSON(w, resp)
}

// GET /v2/parties/participant-id.
func (h *Handler) participantID(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	return writeJSON(w, GetParticipantIDResponse{ParticipantID: string(h.cfg.Participant)})
}
