package scanclient

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// decode decodes a ContractWithState's contract and checks its
// synchronizer against domain_id.
func (c *Client) decode(cw *splicewire.ContractWithState, templ ledger.TemplateID) (*ledger.Contract, error) {
	if cw == nil || cw.Contract == nil {
		return nil, fault.New(fault.Unavailable, "the Scan answered no contract")
	}
	k, err := cw.Contract.Decode(c.cfg.Registry)
	if err != nil {
		return nil, err
	}
	if k.Template.ModuleName != templ.ModuleName || k.Template.EntityName != templ.EntityName {
		return nil, fault.New(fault.Unavailable, "contract %s is a %s, not a %s", k.ID, k.Template.Identifier, templ.Identifier)
	}
	if cw.DomainID != "" && string(k.Synchronizer) != cw.DomainID {
		return nil, fault.New(fault.Unavailable, "contract %s: domain_id %s, but its blob says %s", k.ID, cw.DomainID, k.Synchronizer)
	}
	return k, nil
}

// rulesState is the cached amulet rules.
type rulesState struct {
	rules *ledger.Contract
}

// roundsState is the cached rounds, sorted by round number.
type roundsState struct {
	open, issuing []*ledger.Contract
}

// amuletRulesRequest is the body of POST /v0/amulet-rules.
type amuletRulesRequest struct {
	CachedAmuletRulesContractID string `json:"cached_amulet_rules_contract_id,omitempty"`
	CachedAmuletRulesDomainID   string `json:"cached_amulet_rules_domain_id,omitempty"`
}

// amuletRulesResponse is the answer of POST /v0/amulet-rules.
type amuletRulesResponse struct {
	AmuletRulesUpdate *splicewire.ContractWithState `json:"amulet_rules_update"`
}

// AmuletRules returns the DSO's AmuletRules contract, decoded from its
// created_event_blob so that it can be disclosed to a command. It is
// served from a cache for up to Config.CacheTTL; the refresh sends the
// cached contract id, so the Scan resends the contract only when it
// changed. The contract is shared: do not modify it.
func (c *Client) AmuletRules(ctx context.Context) (*ledger.Contract, error) {
	if v, ok := c.rules.get(time.Now()); ok {
		return v.rules, nil
	}
	if err := c.rules.lock(ctx); err != nil {
		return nil, err
	}
	defer c.rules.unlock()
	if v, ok := c.rules.get(time.Now()); ok {
		return v.rules, nil // refreshed while this caller waited
	}
	prev, has, gen := c.rules.last()
	started := time.Now()
	rules, err := first(ctx, c, "amulet rules", func(ctx context.Context, base string) (*ledger.Contract, error) {
		var req amuletRulesRequest
		if has {
			req = amuletRulesRequest{CachedAmuletRulesContractID: string(prev.rules.ID), CachedAmuletRulesDomainID: string(prev.rules.Synchronizer)}
		}
		var resp amuletRulesResponse
		if err := c.call(ctx, base, http.MethodPost, "/v0/amulet-rules", nil, req, &resp); err != nil {
			return nil, err
		}
		if has && resp.AmuletRulesUpdate != nil && resp.AmuletRulesUpdate.Contract == nil {
			return prev.rules, nil // unchanged
		}
		return c.decode(resp.AmuletRulesUpdate, splice.AmuletRules{}.TemplateID())
	})
	if err != nil {
		return nil, err
	}
	c.rules.put(rulesState{rules: rules}, gen, started.Add(c.cfg.CacheTTL))
	return rules, nil
}

// ansRulesResponse is the answer of POST /v0/ans-rules.
type ansRulesResponse struct {
	AnsRulesUpdate *splicewire.ContractWithState `json:"ans_rules_update"`
}

// AnsRules returns the name service's AnsRules contract, decoded from its
// created_event_blob so that it can be disclosed to the command that
// requests a name. It is not cached: it is read once per name requested.
func (c *Client) AnsRules(ctx context.Context) (*ledger.Contract, error) {
	return first(ctx, c, "ans rules", func(ctx context.Context, base string) (*ledger.Contract, error) {
		var resp ansRulesResponse
		if err := c.call(ctx, base, http.MethodPost, "/v0/ans-rules", nil, struct{}{}, &resp); err != nil {
			return nil, err
		}
		return c.decode(resp.AnsRulesUpdate, splice.AnsRules{}.TemplateID())
	})
}

// miningRoundsRequest is the body of POST
// /v0/open-and-issuing-mining-rounds.
type miningRoundsRequest struct {
	CachedOpenMiningRoundContractIDs []string `json:"cached_open_mining_round_contract_ids"`
	CachedIssuingRoundContractIDs    []string `json:"cached_issuing_round_contract_ids"`
}

// miningRoundsResponse is its answer.
type miningRoundsResponse struct {
	TimeToLiveInMicroseconds int64                                    `json:"time_to_live_in_microseconds"`
	OpenMiningRounds         map[string]*splicewire.ContractWithState `json:"open_mining_rounds"`
	IssuingMiningRounds      map[string]*splicewire.ContractWithState `json:"issuing_mining_rounds"`
}

// OpenAndIssuingRounds returns the DSO's open and issuing mining rounds,
// each sorted by round number and decoded from their created_event_blob.
// They are served from a cache for up to Config.CacheTTL or the
// time_to_live_in_microseconds the Scan returned (when positive),
// whichever is shorter;
// the refresh sends the cached contract ids, so the Scan resends only new
// rounds. The contracts are shared: do not modify them.
func (c *Client) OpenAndIssuingRounds(ctx context.Context) (open, issuing []*ledger.Contract, err error) {
	if v, ok := c.rounds.get(time.Now()); ok {
		return slices.Clone(v.open), slices.Clone(v.issuing), nil
	}
	if err := c.rounds.lock(ctx); err != nil {
		return nil, nil, err
	}
	defer c.rounds.unlock()
	if v, ok := c.rounds.get(time.Now()); ok {
		return slices.Clone(v.open), slices.Clone(v.issuing), nil
	}
	prev, _, gen := c.rounds.last()
	started := time.Now()
	type result struct {
		state roundsState
		ttl   time.Duration
	}
	res, err := first(ctx, c, "mining rounds", func(ctx context.Context, base string) (result, error) {
		req := miningRoundsRequest{CachedOpenMiningRoundContractIDs: ids(prev.open), CachedIssuingRoundContractIDs: ids(prev.issuing)}
		var resp miningRoundsResponse
		if err := c.call(ctx, base, http.MethodPost, "/v0/open-and-issuing-mining-rounds", nil, req, &resp); err != nil {
			return result{}, err
		}
		open, err := c.decodeRounds(resp.OpenMiningRounds, prev.open, splice.OpenMiningRound{}.TemplateID(), openNumber)
		if err != nil {
			return result{}, err
		}
		issuing, err := c.decodeRounds(resp.IssuingMiningRounds, prev.issuing, splice.IssuingMiningRound{}.TemplateID(), issuingNumber)
		if err != nil {
			return result{}, err
		}
		return result{roundsState{open: open, issuing: issuing}, time.Duration(resp.TimeToLiveInMicroseconds) * time.Microsecond}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	ttl := c.cfg.CacheTTL
	if res.ttl > 0 {
		ttl = min(ttl, res.ttl)
	}
	c.rounds.put(res.state, gen, started.Add(ttl))
	return slices.Clone(res.state.open), slices.Clone(res.state.issuing), nil
}

func ids(cs []*ledger.Contract) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c.ID)
	}
	return out
}

func openNumber(c *ledger.Contract) (int64, error) {
	d, err := splice.Decode[splice.OpenMiningRound](c)
	return d.Payload.Round.Number, err
}

func issuingNumber(c *ledger.Contract) (int64, error) {
	d, err := splice.Decode[splice.IssuingMiningRound](c)
	return d.Payload.Round.Number, err
}

// decodeRounds decodes the rounds of an answer, taking those the answer leaves
// out (cached by the caller) from cached, and sorts them by round number.
func (c *Client) decodeRounds(m map[string]*splicewire.ContractWithState, cached []*ledger.Contract, templ ledger.TemplateID, number func(*ledger.Contract) (int64, error)) ([]*ledger.Contract, error) {
	type round struct {
		c *ledger.Contract
		n int64
	}
	out := make([]round, 0, len(m))
	for id, cw := range m {
		var k *ledger.Contract
		if cw != nil && cw.Contract == nil {
			i := slices.IndexFunc(cached, func(c *ledger.Contract) bool { return string(c.ID) == id })
			if i < 0 {
				return nil, fault.New(fault.Unavailable, "the Scan left out round %s, which the client had not cached", id)
			}
			k = cached[i]
		} else {
			var err error
			if k, err = c.decode(cw, templ); err != nil {
				return nil, err
			}
			if string(k.ID) != id {
				return nil, fault.New(fault.Unavailable, "the Scan answered contract %s under %s", k.ID, id)
			}
		}
		n, err := number(k)
		if err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "decode round %s", id)
		}
		out = append(out, round{k, n})
	}
	slices.SortFunc(out, func(a, b round) int {
		return cmp.Or(cmp.Compare(a.n, b.n), cmp.Compare(a.c.ID, b.c.ID))
	})
	cs := make([]*ledger.Contract, len(out))
	for i, r := range out {
		cs[i] = r.c
	}
	return cs, nil
}
