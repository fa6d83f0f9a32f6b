package validatorapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
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
	cws, err := splicewire.WithState[splicewire.FullContractWithState](rules)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, AmuletRulesProxyResponse{AmuletRules: cws})
	return nil
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
	body, err := h.proxy.Registry(r.Context(), path, r.URL.Query())
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, body)
	return nil
}
