package scanclient

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// bftGet is bft for a plain GET of path whose JSON answer decodes into a
// T: the shape most of the Scan's by-party lookups share.
func bftGet[T any](ctx context.Context, c *Client, what, path string) (T, error) {
	return bft(ctx, c, what, func(ctx context.Context, base string) (T, error) {
		var resp T
		err := c.call(ctx, base, http.MethodGet, path, nil, nil, &resp)
		return resp, err
	})
}

// dsoPartyIDResponse is the answer of GET /v0/dso-party-id.
type dsoPartyIDResponse struct {
	DsoPartyID string `json:"dso_party_id"`
}

// DSOPartyID returns the DSO party, as f+1 of the Scans agree (GET
// /v0/dso-party-id).
func (c *Client) DSOPartyID(ctx context.Context) (daml.Party, error) {
	id, err := bft(ctx, c, "the DSO party id", func(ctx context.Context, base string) (string, error) {
		var resp dsoPartyIDResponse
		if err := c.call(ctx, base, http.MethodGet, "/v0/dso-party-id", nil, nil, &resp); err != nil {
			return "", err
		}
		if !ledger.ValidPartyID(resp.DsoPartyID) {
			return "", fault.New(fault.Unavailable, "Scan %s: dso_party_id %q is not a party id", base, resp.DsoPartyID)
		}
		return resp.DsoPartyID, nil
	})
	return daml.Party(id), err
}

// AnsEntry is a name-service entry exactly as the Scan serves it, so that
// a scan-proxy can serve it again unchanged. The DSO's and the SVs'
// entries have no contract id and no expiry.
type AnsEntry struct {
	ContractID  string `json:"contract_id,omitempty"`
	User        string `json:"user"`
	Name        string `json:"name"`
	URL         string `json:"url"`
	Description string `json:"description"`
	ExpiresAt   string `json:"expires_at,omitempty"`
}

// AnsEntriesResponse is the answer of GET /v0/ans-entries.
type AnsEntriesResponse struct {
	Entries []AnsEntry `json:"entries"`
}

// AnsEntryResponse is the answer of the by-name and by-party lookups.
type AnsEntryResponse struct {
	Entry AnsEntry `json:"entry"`
}

// AnsEntries returns up to pageSize live name-service entries whose names
// start with namePrefix ("" for all), as f+1 of the Scans agree (GET
// /v0/ans-entries). The Scan refuses a pageSize outside 1…1000 with
// InvalidArgument.
func (c *Client) AnsEntries(ctx context.Context, namePrefix string, pageSize int) ([]AnsEntry, error) {
	q := url.Values{"page_size": {strconv.Itoa(pageSize)}}
	if namePrefix != "" {
		q.Set("name_prefix", namePrefix)
	}
	resp, err := bft(ctx, c, "ans entries", func(ctx context.Context, base string) (AnsEntriesResponse, error) {
		var resp AnsEntriesResponse
		err := c.call(ctx, base, http.MethodGet, "/v0/ans-entries", q, nil, &resp)
		if resp.Entries == nil {
			resp.Entries = []AnsEntry{}
		}
		return resp, err
	})
	return resp.Entries, err
}

// AnsEntryByName returns the entry of a name, as f+1 of the Scans agree
// (GET /v0/ans-entries/by-name/{name}); an unknown name is NotFound with
// the Scan's message.
func (c *Client) AnsEntryByName(ctx context.Context, name string) (AnsEntry, error) {
	return c.ansEntry(ctx, "/v0/ans-entries/by-name/"+url.PathEscape(name))
}

// AnsEntryByParty returns the first entry of a party, as f+1 of the Scans
// agree (GET /v0/ans-entries/by-party/{party}); a party without one is
// NotFound with the Scan's message.
func (c *Client) AnsEntryByParty(ctx context.Context, party daml.Party) (AnsEntry, error) {
	return c.ansEntry(ctx, "/v0/ans-entries/by-party/"+url.PathEscape(string(party)))
}

func (c *Client) ansEntry(ctx context.Context, path string) (AnsEntry, error) {
	resp, err := bftGet[AnsEntryResponse](ctx, c, "ans entry "+path, path)
	return resp.Entry, err
}

// DsoInfo is GET /v0/dso: the answering SV, the DSO and its main
// contracts. The SV fields differ from Scan to Scan.
type DsoInfo struct {
	SvUser            string                          `json:"sv_user"`
	SvPartyID         string                          `json:"sv_party_id"`
	DsoPartyID        string                          `json:"dso_party_id"`
	VotingThreshold   int                             `json:"voting_threshold"`
	LatestMiningRound *splicewire.ContractWithState   `json:"latest_mining_round"`
	AmuletRules       *splicewire.ContractWithState   `json:"amulet_rules"`
	DsoRules          *splicewire.ContractWithState   `json:"dso_rules"`
	SvNodeStates      []*splicewire.ContractWithState `json:"sv_node_states"`
}

// SynchronizerID returns the global synchronizer: the one the amulet
// rules are assigned to.
func (d *DsoInfo) SynchronizerID() ledger.SynchronizerID {
	if d.AmuletRules == nil {
		return ""
	}
	return ledger.SynchronizerID(d.AmuletRules.DomainID)
}

// DsoInfo returns GET /v0/dso of the first Scan that answers it. Its
// contracts are checked to decode to what they claim to be.
func (c *Client) DsoInfo(ctx context.Context) (*DsoInfo, error) {
	return first(ctx, c, "dso info", func(ctx context.Context, base string) (*DsoInfo, error) {
		var d DsoInfo
		if err := c.call(ctx, base, http.MethodGet, "/v0/dso", nil, nil, &d); err != nil {
			return nil, err
		}
		for _, cw := range append([]*splicewire.ContractWithState{d.LatestMiningRound, d.AmuletRules, d.DsoRules}, d.SvNodeStates...) {
			if cw == nil || cw.Contract == nil {
				return nil, fault.New(fault.Unavailable, "Scan %s: /v0/dso lacks a contract", base)
			}
			if _, err := cw.Contract.Decode(c.cfg.Registry); err != nil {
				return nil, err
			}
		}
		if d.SynchronizerID() == "" {
			return nil, fault.New(fault.Unavailable, "Scan %s: /v0/dso names no synchronizer", base)
		}
		return &d, nil
	})
}

// transferPreapprovalResponse is the answer of GET
// /v0/transfer-preapprovals/by-party/{party}.
type transferPreapprovalResponse struct {
	TransferPreapproval *splicewire.ContractWithState `json:"transfer_preapproval"`
}

// TransferPreapprovalByParty returns the pre-approval the party receives
// through, as f+1 of the Scans agree (GET
// /v0/transfer-preapprovals/by-party/{party}); a party without one is
// NotFound with the Scan's message.
func (c *Client) TransferPreapprovalByParty(ctx context.Context, party daml.Party) (*ledger.Contract, error) {
	path := "/v0/transfer-preapprovals/by-party/" + url.PathEscape(string(party))
	resp, err := bftGet[transferPreapprovalResponse](ctx, c, "transfer pre-approval "+path, path)
	if err != nil {
		return nil, err
	}
	return c.decode(resp.TransferPreapproval, splice.TransferPreapproval{}.TemplateID())
}

type featuredAppRightResponse struct {
	FeaturedAppRight *splicewire.Contract `json:"featured_app_right"`
}

// FeaturedAppRight returns the provider's FeaturedAppRight as the Scans
// agree on it, or nil when they answer that it has none.
func (c *Client) FeaturedAppRight(ctx context.Context, provider daml.Party) (*ledger.Contract, error) {
	path := "/v0/featured-apps/" + url.PathEscape(string(provider))
	resp, err := bftGet[featuredAppRightResponse](ctx, c, "featured app right "+path, path)
	if err != nil {
		return nil, err
	}
	if resp.FeaturedAppRight == nil {
		return nil, nil
	}
	return c.decode(&splicewire.ContractWithState{Contract: resp.FeaturedAppRight}, splice.FeaturedAppRight{}.TemplateID())
}
