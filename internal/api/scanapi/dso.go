package scanapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// keyOf returns the Scan template key of a Splice template.
func keyOf[T ledger.Template]() scan.TemplateKey { return scan.KeyOfTemplate[T]() }

// active returns the DSO's active contracts of template T, decoded.
func active[T ledger.Template](ctx context.Context, svc *scan.Service) ([]splice.Contract[T], error) {
	return scan.ActiveDecoded[T](ctx, svc)
}

// only returns the one active contract of T; none is a 404.
func only[T ledger.Template](ctx context.Context, svc *scan.Service, what string) (splice.Contract[T], error) {
	cs, err := active[T](ctx, svc)
	if err != nil {
		return splice.Contract[T]{}, err
	}
	if len(cs) == 0 {
		return splice.Contract[T]{}, fault.New(fault.NotFound, "No active %s contract", what)
	}
	return cs[len(cs)-1], nil
}

// VoteRequestResponse is one vote request.
type VoteRequestResponse struct {
	DsoRulesVoteRequest *splicewire.Contract `json:"dso_rules_vote_request"`
}

func (h *Handler) voteRequest(w http.ResponseWriter, r *http.Request) error {
	c, err := h.svc.VoteRequest(r.Context(), daml.ContractID(r.PathValue("vote_request_contract_id")), keyOf[splice.VoteRequest]())
	if err != nil {
		return err
	}
	k, err := splicewire.ContractOf(c)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, VoteRequestResponse{DsoRulesVoteRequest: k})
	return nil
}

// VoteRequestsRequest is the body of POST /v0/voterequest.
type VoteRequestsRequest struct {
	VoteRequestContractIDs []string `json:"vote_request_contract_ids"`
}

// VoteRequestsResponse lists the vote requests found of those asked for.
type VoteRequestsResponse struct {
	VoteRequests []*splicewire.Contract `json:"vote_requests"`
}

func (h *Handler) voteRequests(w http.ResponseWriter, r *http.Request) error {
	var req VoteRequestsRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.VoteRequestContractIDs == nil {
		return missing("vote_request_contract_ids")
	}
	if err := scan.CheckLimit(int64(max(len(req.VoteRequestContractIDs), 1))); err != nil {
		return err
	}
	out := VoteRequestsResponse{VoteRequests: []*splicewire.Contract{}}
	seen := map[string]bool{}
	for _, id := range req.VoteRequestContractIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		c, err := h.svc.VoteRequest(r.Context(), daml.ContractID(id), keyOf[splice.VoteRequest]())
		if fault.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return err
		}
		k, err := splicewire.ContractOf(c)
		if err != nil {
			return err
		}
		out.VoteRequests = append(out.VoteRequests, k)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// ListVoteRequestsResponse lists the active vote requests.
type ListVoteRequestsResponse struct {
	DsoRulesVoteRequests []*splicewire.Contract `json:"dso_rules_vote_requests"`
}

func (h *Handler) listVoteRequests(w http.ResponseWriter, r *http.Request) error {
	cs, err := h.svc.Active(r.Context(), keyOf[splice.VoteRequest]())
	if err != nil {
		return err
	}
	out := ListVoteRequestsResponse{DsoRulesVoteRequests: []*splicewire.Contract{}}
	for _, c := range cs {
		k, err := splicewire.ContractOf(c)
		if err != nil {
			return err
		}
		out.DsoRulesVoteRequests = append(out.DsoRulesVoteRequests, k)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// BftSequencersResponse lists this SV's BFT sequencers (camelCase, as in
// Splice).
type BftSequencersResponse struct {
	BftSequencers []splice.BftSequencer `json:"bftSequencers"`
}

func (h *Handler) bftSequencers(w http.ResponseWriter, r *http.Request) error {
	states, err := active[splice.SvNodeState](r.Context(), h.svc)
	if err != nil {
		return err
	}
	out := BftSequencersResponse{BftSequencers: []splice.BftSequencer{}}
	for _, s := range states {
		if s.Payload.Sv != h.svc.Config.SV {
			continue
		}
		for _, node := range s.Payload.State.SynchronizerNodes {
			if seq, ok := splice.BftSequencerOf(s.Payload, node.Key); ok {
				out.BftSequencers = append(out.BftSequencers, seq)
			}
		}
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// ParticipantIDResponse is the v0 answer: the one hosting participant.
type ParticipantIDResponse struct {
	ParticipantID string `json:"participant_id"`
}

// ParticipantIDsResponse is the v1 answer: every hosting participant.
type ParticipantIDsResponse struct {
	ParticipantIDs []string `json:"participant_ids"`
}

// hostingRequest reads and checks the path of the participant-id lookups.
func hostingRequest(r *http.Request) (ledger.SynchronizerID, daml.Party, error) {
	sync, party := r.PathValue("domain_id"), r.PathValue("party_id")
	if !ledger.ValidPartyID(sync) {
		return "", "", badRequest("Could not decode synchronizer ID: %s is not of the form <identifier>::<namespace>", fault.Quote(sync))
	}
	if !ledger.ValidPartyID(party) {
		return "", "", badRequest("Could not decode party ID: %s is not of the form <identifier>::<namespace>", fault.Quote(party))
	}
	return ledger.SynchronizerID(sync), daml.Party(party), nil
}

func (h *Handler) participantIDV0(w http.ResponseWriter, r *http.Request) error {
	sync, party, err := hostingRequest(r)
	if err != nil {
		return err
	}
	ps, err := h.svc.ParticipantsOf(r.Context(), sync, party)
	if fault.Is(err, fault.NotFound) {
		return fault.New(fault.NotFound, "No participant id found hosting party: %s", fault.Clip(string(party)))
	}
	if err != nil {
		return err
	}
	if len(ps) > 1 {
		// Splice's v0 fails on several hosting participants.
		return fault.New(fault.Internal, "party %s is hosted on %d participants; use /v1", fault.Clip(string(party)), len(ps))
	}
	web.WriteJSON(w, http.StatusOK, ParticipantIDResponse{ParticipantID: string(ps[0])})
	return nil
}

func (h *Handler) participantIDV1(w http.ResponseWriter, r *http.Request) error {
	sync, party, err := hostingRequest(r)
	if err != nil {
		return err
	}
	ps, err := h.svc.ParticipantsOf(r.Context(), sync, party)
	if err != nil {
		return err
	}
	out := ParticipantIDsResponse{ParticipantIDs: make([]string, len(ps))}
	for i, p := range ps {
		out.ParticipantIDs[i] = string(p)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// DsoPartyIDResponse names the DSO party.
type DsoPartyIDResponse struct {
	DsoPartyID string `json:"dso_party_id"`
}

func (h *Handler) dsoPartyID(w http.ResponseWriter, _ *http.Request) error {
	web.WriteJSON(w, http.StatusOK, DsoPartyIDResponse{DsoPartyID: string(h.svc.Config.DSO)})
	return nil
}

// DsoInfoResponse is GET /v0/dso: the SV, the DSO and its main contracts.
type DsoInfoResponse struct {
	SvUser            string                          `json:"sv_user"`
	SvPartyID         string                          `json:"sv_party_id"`
	DsoPartyID        string                          `json:"dso_party_id"`
	VotingThreshold   int                             `json:"voting_threshold"`
	LatestMiningRound *splicewire.ContractWithState   `json:"latest_mining_round"`
	AmuletRules       *splicewire.ContractWithState   `json:"amulet_rules"`
	DsoRules          *splicewire.ContractWithState   `json:"dso_rules"`
	SvNodeStates      []*splicewire.ContractWithState `json:"sv_node_states"`
}

func (h *Handler) dso(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	rules, err := only[splice.DsoRules](ctx, h.svc, "DsoRules")
	if err != nil {
		return err
	}
	amulet, err := only[splice.AmuletRules](ctx, h.svc, "AmuletRules")
	if err != nil {
		return err
	}
	rounds, err := active[splice.OpenMiningRound](ctx, h.svc)
	if err != nil {
		return err
	}
	if len(rounds) == 0 {
		return fault.New(fault.NotFound, "No active OpenMiningRound contract")
	}
	latest := slices.MaxFunc(rounds, func(a, b splice.Contract[splice.OpenMiningRound]) int {
		return compareInt(a.Payload.Round.Number, b.Payload.Round.Number)
	})
	states, err := active[splice.SvNodeState](ctx, h.svc)
	if err != nil {
		return err
	}
	user := h.cfg.SVUser
	if user == "" {
		user = h.svc.Config.SVName
	}
	out := DsoInfoResponse{
		SvUser: user, SvPartyID: string(h.svc.Config.SV), DsoPartyID: string(h.svc.Config.DSO),
		VotingThreshold: rules.Payload.RequiredNumVotes(), SvNodeStates: []*splicewire.ContractWithState{},
	}
	if out.LatestMiningRound, err = splicewire.WithState[splicewire.ContractWithState](latest.Contract); err != nil {
		return err
	}
	if out.AmuletRules, err = splicewire.WithState[splicewire.ContractWithState](amulet.Contract); err != nil {
		return err
	}
	if out.DsoRules, err = splicewire.WithState[splicewire.ContractWithState](rules.Contract); err != nil {
		return err
	}
	// One node state per current SV, in the order of the DsoRules' svs.
	for _, sv := range rules.Payload.Svs {
		i := slices.IndexFunc(states, func(s splice.Contract[splice.SvNodeState]) bool { return s.Payload.Sv == sv.Key })
		if i < 0 {
			continue
		}
		s, err := splicewire.WithState[splicewire.ContractWithState](states[i].Contract)
		if err != nil {
			return err
		}
		out.SvNodeStates = append(out.SvNodeStates, s)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// AmuletRulesRequest is the body of POST /v0/amulet-rules.
type AmuletRulesRequest struct {
	CachedAmuletRulesContractID string `json:"cached_amulet_rules_contract_id,omitempty"`
	CachedAmuletRulesDomainID   string `json:"cached_amulet_rules_domain_id,omitempty"`
}

// AmuletRulesResponse carries the amulet rules, without the contract when
// the caller has it cached.
type AmuletRulesResponse struct {
	AmuletRulesUpdate *splicewire.ContractWithState `json:"amulet_rules_update"`
}

func (h *Handler) amuletRules(w http.ResponseWriter, r *http.Request) error {
	var req AmuletRulesRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	rules, err := only[splice.AmuletRules](r.Context(), h.svc, "AmuletRules")
	if err != nil {
		return err
	}
	upd, err := cachedUpdate(rules.Contract, req.CachedAmuletRulesContractID)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, AmuletRulesResponse{AmuletRulesUpdate: upd})
	return nil
}

// cachedUpdate is a contract with its state, without the contract when
// the caller has it cached (cachedID names it).
func cachedUpdate(c *ledger.Contract, cachedID string) (*splicewire.ContractWithState, error) {
	if string(c.ID) == cachedID {
		return &splicewire.ContractWithState{DomainID: string(c.Synchronizer)}, nil
	}
	return splicewire.WithState[splicewire.ContractWithState](c)
}

// AnsRulesRequest is the body of POST /v0/ans-rules.
type AnsRulesRequest struct {
	CachedAnsRulesContractID string `json:"cached_ans_rules_contract_id,omitempty"`
	CachedAnsRulesDomainID   string `json:"cached_ans_rules_domain_id,omitempty"`
}

// AnsRulesResponse carries the name service's rules, without the contract
// when the caller has it cached. A validator submits them, disclosed, to
// request a name for a user.
type AnsRulesResponse struct {
	AnsRulesUpdate *splicewire.ContractWithState `json:"ans_rules_update"`
}

func (h *Handler) ansRules(w http.ResponseWriter, r *http.Request) error {
	var req AnsRulesRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	rules, err := only[splice.AnsRules](r.Context(), h.svc, "AnsRules")
	if err != nil {
		return err
	}
	upd, err := cachedUpdate(rules.Contract, req.CachedAnsRulesContractID)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, AnsRulesResponse{AnsRulesUpdate: upd})
	return nil
}

// MiningRoundsRequest is the body of POST
// /v0/open-and-issuing-mining-rounds: the rounds the caller has cached.
type MiningRoundsRequest struct {
	CachedOpenMiningRoundContractIDs []string `json:"cached_open_mining_round_contract_ids"`
	CachedIssuingRoundContractIDs    []string `json:"cached_issuing_round_contract_ids"`
}

// MiningRoundsResponse maps the current rounds' contract ids to the
// contracts (without the contract for those the caller has cached).
type MiningRoundsResponse struct {
	TimeToLiveInMicroseconds int64                                    `json:"time_to_live_in_microseconds"`
	OpenMiningRounds         map[string]*splicewire.ContractWithState `json:"open_mining_rounds"`
	IssuingMiningRounds      map[string]*splicewire.ContractWithState `json:"issuing_mining_rounds"`
}

func (h *Handler) miningRounds(w http.ResponseWriter, r *http.Request) error {
	var req MiningRoundsRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.CachedOpenMiningRoundContractIDs == nil {
		return missing("cached_open_mining_round_contract_ids")
	}
	if req.CachedIssuingRoundContractIDs == nil {
		return missing("cached_issuing_round_contract_ids")
	}
	open, err := h.svc.Active(r.Context(), keyOf[splice.OpenMiningRound]())
	if err != nil {
		return err
	}
	issuing, err := h.svc.Active(r.Context(), keyOf[splice.IssuingMiningRound]())
	if err != nil {
		return err
	}
	out := MiningRoundsResponse{TimeToLiveInMicroseconds: splice.DefaultTickDuration.Microseconds() / 2}
	if out.OpenMiningRounds, err = cachedMap(open, req.CachedOpenMiningRoundContractIDs); err != nil {
		return err
	}
	if out.IssuingMiningRounds, err = cachedMap(issuing, req.CachedIssuingRoundContractIDs); err != nil {
		return err
	}
	// Half the shortest tick of the open rounds: a round opens once a
	// tick, so a cache this old misses at most the opening of one.
	for _, c := range open {
		d, err := splice.Decode[splice.OpenMiningRound](c)
		if err != nil {
			return fault.Wrap(fault.Internal, err, "decode %s", c.ID)
		}
		if tick := d.Payload.TickDuration.Microseconds / 2; tick > 0 && tick < out.TimeToLiveInMicroseconds {
			out.TimeToLiveInMicroseconds = tick
		}
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

func cachedMap(cs []*ledger.Contract, cached []string) (map[string]*splicewire.ContractWithState, error) {
	out := make(map[string]*splicewire.ContractWithState, len(cs))
	for _, c := range cs {
		if slices.Contains(cached, string(c.ID)) {
			out[string(c.ID)] = &splicewire.ContractWithState{DomainID: string(c.Synchronizer)}
			continue
		}
		s, err := splicewire.WithState[splicewire.ContractWithState](c)
		if err != nil {
			return nil, err
		}
		out[string(c.ID)] = s
	}
	return out, nil
}

// AnsEntry is a name-service entry as Scan lists it.
type AnsEntry struct {
	ContractID  string `json:"contract_id,omitempty"`
	User        string `json:"user"`
	Name        string `json:"name"`
	URL         string `json:"url"`
	Description string `json:"description"`
	ExpiresAt   string `json:"expires_at,omitempty"`
}

// AnsEntriesResponse lists name-service entries.
type AnsEntriesResponse struct {
	Entries []AnsEntry `json:"entries"`
}

// AnsEntryResponse is one name-service entry.
type AnsEntryResponse struct {
	Entry AnsEntry `json:"entry"`
}

// ansEntries returns the live entries (expires_at >= now) ordered by name,
// then the DSO-provided entries of the DSO and of every SV.
func (h *Handler) ansEntries(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if !q.Has("page_size") {
		return badRequest("Missing required query parameter %q", "page_size")
	}
	pageSize, err := strconv.ParseInt(q.Get("page_size"), 10, 32)
	if err != nil {
		return badRequest("Invalid value for query parameter %q: %s is not a 32-bit integer", "page_size", fault.Quote(q.Get("page_size")))
	}
	if err := scan.CheckLimit(pageSize); err != nil {
		return err
	}
	prefix := q.Get("name_prefix")
	live, special, err := h.allAnsEntries(r.Context())
	if err != nil {
		return err
	}
	out := AnsEntriesResponse{Entries: []AnsEntry{}}
	for _, e := range append(live, special...) {
		if int64(len(out.Entries)) == pageSize {
			break
		}
		if strings.HasPrefix(e.Name, prefix) {
			out.Entries = append(out.Entries, e)
		}
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// allAnsEntries returns the entries that have not expired, in name order,
// and the DSO-provided entries: dso.<acronym> and <sv>.sv.<acronym> for
// every SV of the DsoRules, in name order.
func (h *Handler) allAnsEntries(ctx context.Context) (live, special []AnsEntry, err error) {
	now, err := h.svc.Now(ctx)
	if err != nil {
		return nil, nil, err
	}
	entries, err := active[splice.AnsEntry](ctx, h.svc)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if e.Payload.ExpiresAt < now {
			continue
		}
		live = append(live, AnsEntry{
			ContractID: string(e.ID), User: string(e.Payload.User), Name: e.Payload.Name,
			URL: e.Payload.URL, Description: e.Payload.Description, ExpiresAt: e.Payload.ExpiresAt.String(),
		})
	}
	slices.SortStableFunc(live, func(a, b AnsEntry) int { return strings.Compare(a.Name, b.Name) })
	acronym := h.svc.Config.AnsAcronym
	if acronym == "" {
		acronym = "cns"
	}
	special = append(special, AnsEntry{User: string(h.svc.Config.DSO), Name: "dso." + acronym})
	rules, err := active[splice.DsoRules](ctx, h.svc)
	if err != nil {
		return nil, nil, err
	}
	var svs []AnsEntry
	if len(rules) > 0 {
		for _, sv := range rules[len(rules)-1].Payload.Svs {
			svs = append(svs, AnsEntry{User: string(sv.Key), Name: strings.ToLower(sv.Value.Name) + ".sv." + acronym})
		}
	}
	slices.SortFunc(svs, func(a, b AnsEntry) int { return strings.Compare(a.Name, b.Name) })
	return live, append(special, svs...), nil
}

func (h *Handler) ansEntryByName(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	live, special, err := h.allAnsEntries(r.Context())
	if err != nil {
		return err
	}
	for _, e := range append(live, special...) {
		if e.Name == name {
			web.WriteJSON(w, http.StatusOK, AnsEntryResponse{Entry: e})
			return nil
		}
	}
	return fault.New(fault.NotFound, "No ans entry found for name: %s", fault.Clip(name))
}

func (h *Handler) ansEntryByParty(w http.ResponseWriter, r *http.Request) error {
	party := r.PathValue("party")
	live, special, err := h.allAnsEntries(r.Context())
	if err != nil {
		return err
	}
	for _, e := range append(live, special...) {
		if e.User == party {
			web.WriteJSON(w, http.StatusOK, AnsEntryResponse{Entry: e})
			return nil
		}
	}
	return fault.New(fault.NotFound, "No ans entry found for party: %s", fault.Clip(party))
}
