package ledger

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sandnet/sandnet/internal/daml"
)

// PartyRecord returns participant p's record of a party; ok is false when
// it has none.
func (n *Network) PartyRecord(ctx context.Context, p ParticipantID, party daml.Party) (r *PartyRecord, ok bool, err error) {
	rs, err := n.store.PartyRecords(ctx, p, party, party)
	if err != nil || len(rs) == 0 {
		return nil, false, err
	}
	return &rs[0], true, nil
}

// UpdatePartyRecord changes participant p's record of a party in one write
// transaction: change gets the stored record, or a new one (exists false)
// when there is none, and edits it; the result is stored (a new record at
// resource version 0, a replaced one at the next version) unless change
// fails. It returns the record as stored.
func (n *Network) UpdatePartyRecord(ctx context.Context, p ParticipantID, party daml.Party, change func(r *PartyRecord, exists bool) error) (*PartyRecord, error) {
	err := n.store.Write(ctx, func(w WriteTx) error {
		r, exists, err := n.PartyRecord(ctx, p, party)
		if err != nil {
			return err
		}
		if !exists {
			r = &PartyRecord{}
		}
		if err := change(r, exists); err != nil {
			return err
		}
		r.Participant, r.Party = p, party
		return w.PutPartyRecord(ctx, *r)
	})
	if err != nil {
		return nil, err
	}
	r, _, err := n.PartyRecord(ctx, p, party)
	return r, err
}

// IdentityProvider is the configuration of an identity provider a
// participant's ledger API knows besides the default one: Canton's
// IdentityProviderConfig. sandnet stores and serves these configurations;
// the tokens it accepts are still those of its own auth configuration.
type IdentityProvider struct {
	ID          string `json:"id"`
	Deactivated bool   `json:"deactivated"`
	Issuer      string `json:"issuer"`
	JWKSURL     string `json:"jwksUrl"`
	Audience    string `json:"audience"`
}

// identityProvidersKey is the network setting holding a participant's
// identity providers, as a JSON array: there are few (Canton allows ten),
// and they change rarely.
func identityProvidersKey(p ParticipantID) string { return "identity-providers/" + string(p) }

// IdentityProviders returns participant p's identity provider
// configurations, in creation order.
func (n *Network) IdentityProviders(ctx context.Context, p ParticipantID) ([]IdentityProvider, error) {
	v, ok, err := n.store.Meta(ctx, identityProvidersKey(p))
	if err != nil || !ok {
		return nil, err
	}
	var out []IdentityProvider
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return nil, fmt.Errorf("decode the identity providers of %s: %w", p, err)
	}
	return out, nil
}

// UpdateIdentityProviders changes participant p's identity provider
// configurations in one write transaction: change gets the stored list and
// returns the new one, which is stored unless change fails. It returns
// the list as stored.
func (n *Network) UpdateIdentityProviders(ctx context.Context, p ParticipantID, change func([]IdentityProvider) ([]IdentityProvider, error)) ([]IdentityProvider, error) {
	var out []IdentityProvider
	err := n.store.Write(ctx, func(w WriteTx) error {
		cur, err := n.IdentityProviders(ctx, p)
		if err != nil {
			return err
		}
		if out, err = change(cur); err != nil {
			return err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		return w.SetMeta(ctx, identityProvidersKey(p), string(b))
	})
	return out, err
}
