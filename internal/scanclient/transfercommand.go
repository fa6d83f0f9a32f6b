package scanclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

type transferCommandCounterResponse struct {
	TransferCommandCounter *splicewire.ContractWithState `json:"transfer_command_counter"`
}

// TransferCommandCounter returns the sender's TransferCommandCounter as
// the Scans agree on it; a fault.NotFound, with the Scan's message, when
// the sender has none.
func (c *Client) TransferCommandCounter(ctx context.Context, sender daml.Party) (*ledger.Contract, error) {
	path := "/v0/transfer-command-counter/" + url.PathEscape(string(sender))
	resp, err := bftGet[transferCommandCounterResponse](ctx, c, "transfer command counter "+path, path)
	if err != nil {
		return nil, err
	}
	return c.decode(resp.TransferCommandCounter, splice.TransferCommandCounter{}.TemplateID())
}

// TransferCommandStatus returns the Scans' answer to a status lookup of
// the sender's transfer commands with the nonce, as JSON as it came, when
// the Scans agree on it; their 404 when none is found.
func (c *Client) TransferCommandStatus(ctx context.Context, sender daml.Party, nonce int64) (json.RawMessage, error) {
	path := "/v0/transfer-command/status"
	q := url.Values{"sender": {string(sender)}, "nonce": {strconv.FormatInt(nonce, 10)}}
	return bft(ctx, c, "transfer command status", func(ctx context.Context, base string) (json.RawMessage, error) {
		var raw []byte
		if err := c.call(ctx, base, http.MethodGet, path, q, nil, &raw); err != nil {
			return nil, err
		}
		if !json.Valid(raw) {
			return nil, fault.New(fault.Unavailable, "Scan %s: undecodable answer to GET %s", base, path)
		}
		return json.RawMessage(raw), nil
	})
}

type externalPartyAmuletRulesResponse struct {
	Update *splicewire.ContractWithState `json:"external_party_amulet_rules_update"`
}

// ExternalPartyAmuletRules returns the DSO's ExternalPartyAmuletRules,
// decoded from its created_event_blob so that it can be disclosed to the
// command an external party prepares. It is not cached: it is read once
// per command prepared.
func (c *Client) ExternalPartyAmuletRules(ctx context.Context) (*ledger.Contract, error) {
	return first(ctx, c, "external party amulet rules", func(ctx context.Context, base string) (*ledger.Contract, error) {
		var resp externalPartyAmuletRulesResponse
		if err := c.call(ctx, base, http.MethodPost, "/v0/external-party-amulet-rules", nil, struct{}{}, &resp); err != nil {
			return nil, err
		}
		return c.decode(resp.Update, splice.ExternalPartyAmuletRules{}.TemplateID())
	})
}
