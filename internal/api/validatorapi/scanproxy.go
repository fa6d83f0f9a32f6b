package validatorapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// DSOPartyIDResponse is GET /v0/scan-proxy/dso-party-id.
type DSOPartyIDResponse struct {
	DSOPartyID string `json:"dso_party_id"`
}

func (h *Handler) dsoPartyID(w http.ResponseWriter, r *http.Request) error {
	resp := h.dso.Load()
	if resp == nil {
		dso, err := h.proxy.DSOPartyID(r.Context())
		if err != nil {
			return err
		}
		resp = &DSOPartyIDResponse{DSOPartyID: string(dso)}
		h.dso.Store(resp)
	}
	web.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// ansEntries lists the live entries as the Scans agree on them; the Scan
// checks page_size's range.
func (h *Handler) ansEntries(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if !q.Has("page_size") {
		return badRequest("Missing required query parameter %q", "page_size")
	}
	pageSize, err := strconv.ParseInt(q.Get("page_size"), 10, 32)
	if err != nil {
		return badRequest("Invalid value for query parameter %q: %s is not a 32-bit integer", "page_size", fault.Quote(q.Get("page_size")))
	}
	entries, err := h.proxy.AnsEntries(r.Context(), q.Get("name_prefix"), int(pageSize))
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []scanclient.AnsEntry{}
	}
	web.WriteJSON(w, http.StatusOK, scanclient.AnsEntriesResponse{Entries: entries})
	return nil
}

func (h *Handler) ansEntryByName(w http.ResponseWriter, r *http.Request) error {
	e, err := h.proxy.AnsEntryByName(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, scanclient.AnsEntryResponse{Entry: e})
	return nil
}

func (h *Handler) ansEntryByParty(w http.ResponseWriter, r *http.Request) error {
	e, err := h.proxy.AnsEntryByParty(r.Context(), daml.Party(r.PathValue("party")))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, scanclient.AnsEntryResponse{Entry: e})
	return nil
}

// TransferPreapprovalProxyResponse is GET
// /v0/scan-proxy/transfer-preapprovals/by-party/{party}: the Scans'
// answer, always with the contract (senders disclose it).
type TransferPreapprovalProxyResponse struct {
	TransferPreapproval *splicewire.FullContractWithState `json:"transfer_preapproval"`
}

// transferPreapprovalByParty answers the party's pre-approval as the
// Scans agree on it. A party with none gets the Scans' 404, whose text
// the wallet SDK matches on, spelled here so that it does not depend on
// the Scans' wording.
func (h *Handler) transferPreapprovalByParty(w http.ResponseWriter, r *http.Request) error {
	party := r.PathValue("party")
	c, err := h.proxy.TransferPreapprovalByParty(r.Context(), daml.Party(party))
	if fault.Is(err, fault.NotFound) {
		return fault.New(fault.NotFound, "No TransferPreapproval found for party: %s", fault.Clip(party))
	}
	if err != nil {
		return err
	}
	cws, err := splicewire.WithState[splicewire.FullContractWithState](c)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, TransferPreapprovalProxyResponse{TransferPreapproval: cws})
	return nil
}

// AmuletRulesProxyResponse is GET /v0/scan-proxy/amulet-rules: the amulet
// rules as the Scan has them, always with the contract (wallets submit it
// as a disclosed contract).
type AmuletRulesProxyResponse struct {
	AmuletRules *splicewire.FullContractWithState `json:"amulet_rules"`
}

func (h *Handler) proxyAmuletRules(w http.ResponseWriter, r *http.Request) error {
	rules, err := h.proxy.AmuletRules(r.Context())
	if err != nil {
		return err
	}
	// The rules change rarely: their answer is rendered once per contract.
	body, ok := h.answers.get("amulet-rules", string(rules.ID))
	if !ok {
		cws, err := splicewire.WithState[splicewire.FullContractWithState](rules)
		if err != nil {
			return err
		}
		if body, err = encodeAnswer(AmuletRulesProxyResponse{AmuletRules: cws}); err != nil {
			return err
		}
		h.answers.put("amulet-rules", string(rules.ID), body, time.Time{})
	}
	web.WriteJSONBytes(w, http.StatusOK, body)
	return nil
}

// encodeAnswer encodes an answer as web.WriteJSON writes it.
func encodeAnswer(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode the answer")
	}
	return append(b, '\n'), nil
}

// answerCache keeps rendered scan-proxy answers that cannot have changed:
// by key, with a tag naming what they were rendered from (a contract id)
// and, when not zero, a time after which they are asked for again. It is
// bounded: when full, it starts over.
type answerCache struct {
	mu sync.Mutex
	m  map[string]cachedAnswer
}

type cachedAnswer struct {
	tag   string
	body  []byte
	until time.Time
}

// maxCachedAnswers bounds the cache; keys come from clients (a registry
// query string), so their number is theirs to choose.
const maxCachedAnswers = 1024

func (c *answerCache) get(key, tag string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[key]
	if !ok || a.tag != tag || (!a.until.IsZero() && time.Now().After(a.until)) {
		return nil, false
	}
	return a.body, true
}

func (c *answerCache) put(key, tag string, body []byte, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedAnswers {
		c.m = map[string]cachedAnswer{}
	}
	c.m[key] = cachedAnswer{tag: tag, body: body, until: until}
}

// MiningRoundsProxyResponse is GET
// /v0/scan-proxy/open-and-issuing-mining-rounds: the rounds as lists,
// each sorted by round number.
type MiningRoundsProxyResponse struct {
	OpenMiningRounds    []*splicewire.FullContractWithState `json:"open_mining_rounds"`
	IssuingMiningRounds []*splicewire.FullContractWithState `json:"issuing_mining_rounds"`
}

func (h *Handler) proxyMiningRounds(w http.ResponseWriter, r *http.Request) error {
	open, issuing, err := h.proxy.OpenAndIssuingRounds(r.Context())
	if err != nil {
		return err
	}
	var out MiningRoundsProxyResponse
	if out.OpenMiningRounds, err = splicewire.WithStates[splicewire.FullContractWithState](open); err != nil {
		return err
	}
	if out.IssuingMiningRounds, err = splicewire.WithStates[splicewire.FullContractWithState](issuing); err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// proxyDso answers GET /v0/scan-proxy/dso with the Scan's GET /v0/dso as
// it came.
func (h *Handler) proxyDso(w http.ResponseWriter, r *http.Request) error {
	info, err := h.proxy.DsoInfo(r.Context())
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, info)
	return nil
}

// scanProxyRegistry is where the scan-proxy serves the token-standard
// registry, under the API's prefix.
const scanProxyRegistry = "/v0/scan-proxy/registry"

// proxyRegistry answers a registry read with the Scan's answer to the same
// path and query, its JSON as it came (Splice's scan-proxy passes the
// registry through). The path is taken escaped, so that an instrument id
// with a slash or odd bytes reaches the Scan as the client sent it.
func (h *Handler) proxyRegistry(w http.ResponseWriter, r *http.Request) error {
	_, path, ok := strings.Cut(r.URL.EscapedPath(), scanProxyRegistry)
	if !ok {
		return fault.New(fault.NotFound, "The requested resource could not be found.")
	}
	// The registry's metadata is served from memory: its info cannot
	// change while sandnet runs, and its instruments (the supply of the
	// latest ACS snapshot) are kept as long as the Scan client keeps the
	// amulet rules. Other reads go to the Scans each time.
	key := path + "?" + r.URL.RawQuery
	var until time.Time
	switch {
	case path == "/metadata/v1/info":
	case strings.HasPrefix(path, "/metadata/v1/instruments"):
		until = time.Now().Add(scanclient.DefaultCacheTTL)
	default:
		key = ""
	}
	if key != "" {
		if body, ok := h.answers.get(key, ""); ok {
			web.WriteJSONBytes(w, http.StatusOK, body)
			return nil
		}
	}
	body, err := h.proxy.Registry(r.Context(), path, r.URL.Query())
	if err != nil {
		return err
	}
	out, err := encodeAnswer(body)
	if err != nil {
		return err
	}
	if key != "" {
		h.answers.put(key, "", out, until)
	}
	web.WriteJSONBytes(w, http.StatusOK, out)
	return nil
}

// proxyRegistryPost answers a registry POST (the transfer-instruction and
// allocation APIs' factories and choice contexts) with the Scan's answer to the same
// path and body, its JSON as it came. The body must be JSON, refused here
// as the Scan would refuse it; the Scan checks the rest. Nothing is
// cached: the answers name the current rounds and config states.
func (h *Handler) proxyRegistryPost(w http.ResponseWriter, r *http.Request) error {
	_, path, ok := strings.Cut(r.URL.EscapedPath(), scanProxyRegistry)
	if !ok {
		return fault.New(fault.NotFound, "The requested resource could not be found.")
	}
	var body json.RawMessage
	if err := web.DecodeJSON(r, &body); err != nil {
		return err
	}
	ans, err := h.proxy.RegistryPost(r.Context(), path, body)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, ans)
	return nil
}

// proxyFeaturedAppRight answers GET
// /v0/scan-proxy/featured-apps/{provider_party_id} with the Scans'
// answer: the provider's FeaturedAppRight, or an empty answer when it has
// none (a 200, as Splice's scan-proxy passes the Scan's on).
func (h *Handler) proxyFeaturedAppRight(w http.ResponseWriter, r *http.Request) error {
	party := r.PathValue("provider_party_id")
	if !ledger.ValidPartyID(party) {
		return fault.New(fault.InvalidArgument, "Could not decode party ID: %s is not of the form <identifier>::<namespace>", fault.Quote(party))
	}
	c, err := h.proxy.FeaturedAppRight(r.Context(), daml.Party(party))
	if err != nil {
		return err
	}
	var out scanapi.FeaturedAppRightResponse
	if c != nil {
		if out.FeaturedAppRight, err = splicewire.ContractOf(c); err != nil {
			return err
		}
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}
