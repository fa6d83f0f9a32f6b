package ledgerapi

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Identity provider configurations, as Canton's
// IdentityProviderConfigService answers them over JSON: list, create,
// get, update (with an update mask) and delete, each needing
// ParticipantAdmin. A participant keeps at most maxIdentityProviders
// besides the default one (id ""), with distinct ids and issuers.
//
// sandnet stores the configurations persistently, validates them as
// Canton does and lets parties be allocated and recorded under them; the
// tokens it accepts are still those of its own auth configuration
// (sandnet start --auth): a configuration does not make sandnet fetch its
// JWKS or trust its issuer.

// maxIdentityProviders is Canton's default limit of identity provider
// configurations per participant.
const maxIdentityProviders = 10

// Canton's identity provider error codes.
const (
	codeIDPNotFound             = "IDP_CONFIG_NOT_FOUND"
	codeIDPAlreadyExists        = "IDP_CONFIG_ALREADY_EXISTS"
	codeIDPIssuerAlreadyExists  = "IDP_CONFIG_ISSUER_ALREADY_EXISTS"
	codeTooManyIDPs             = "TOO_MANY_IDENTITY_PROVIDER_CONFIGS"
	codeInvalidIDPUpdateRequest = "INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST"
	resourceIDP                 = "IDENTITY_PROVIDER_CONFIG"
)

// The fields of IdentityProviderConfig an update mask may name.
const (
	pathIDPID          = "identity_provider_id"
	pathIDPDeactivated = "is_deactivated"
	pathIDPJWKSURL     = "jwks_url"
	pathIDPIssuer      = "issuer"
	pathIDPAudience    = "audience"
)

// IdentityProviderConfig is an identity provider's configuration.
type IdentityProviderConfig struct {
	IdentityProviderID string `json:"identityProviderId"`
	IsDeactivated      bool   `json:"isDeactivated"`
	Issuer             string `json:"issuer"`
	JWKSURL            string `json:"jwksUrl"`
	Audience           string `json:"audience"`
}

// The responses of identity provider management.
type (
	ListIdentityProviderConfigsResponse struct {
		IdentityProviderConfigs []IdentityProviderConfig `json:"identityProviderConfigs"`
	}
	// IdentityProviderConfigResponse is the response of create, get and
	// update.
	IdentityProviderConfigResponse struct {
		IdentityProviderConfig IdentityProviderConfig `json:"identityProviderConfig"`
	}
	DeleteIdentityProviderConfigResponse struct{}
)

func idpJSON(p ledger.IdentityProvider) IdentityProviderConfig {
	return IdentityProviderConfig{IdentityProviderID: p.ID, IsDeactivated: p.Deactivated, Issuer: p.Issuer, JWKSURL: p.JWKSURL, Audience: p.Audience}
}

func idpNotFound(operation, id string) *fault.Error {
	e := fault.WithCode(fault.NotFound, codeIDPNotFound, "%s failed for unknown identity provider id=%q", operation, id)
	e.Resources = [][2]string{{resourceIDP, id}}
	return e
}

// identityProviderExists refuses an identity provider id the participant
// has no configuration of; "" is the default identity provider, which
// always exists.
func (h *Handler) identityProviderExists(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	idps, err := h.cfg.Ledger.IdentityProviders(ctx, h.cfg.Participant)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(idps, func(p ledger.IdentityProvider) bool { return p.ID == id }) {
		return invalidArgument("Provided identity_provider_id %s has not been found.", id)
	}
	return nil
}

// checkJWKSURL checks a JWKS URL as Canton does: an absolute URL of a
// protocol Java knows.
func checkJWKSURL(field, s string) error {
	if s == "" {
		return missingField(field)
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return invalidField(field, "Malformed URL: %s", fault.Clip(err.Error()))
	case !u.IsAbs():
		return invalidField(field, "Malformed URL: URI is not absolute")
	}
	switch u.Scheme {
	case "http", "https", "ftp", "file", "jar":
		return nil
	}
	return invalidField(field, "Malformed URL: unknown protocol: %s", fault.Clip(u.Scheme))
}

// idpInput is a decoded IdentityProviderConfig.
type idpInput struct {
	given                         bool
	id, issuer, jwksURL, audience string
	deactivated                   bool
}

func (d *decoder) idpConfig(obj map[string]any) idpInput {
	var in idpInput
	c, ok := d.member("", obj, "identityProviderConfig")
	if !ok {
		return in
	}
	const p = "identityProviderConfig"
	in.given = true
	in.id, _ = d.stringMember(p, c, "identityProviderId")
	in.deactivated, _ = d.boolMember(p, c, "isDeactivated")
	in.issuer, _ = d.stringMember(p, c, "issuer")
	in.jwksURL, _ = d.stringMember(p, c, "jwksUrl")
	in.audience, _ = d.stringMember(p, c, "audience")
	return in
}

// checkIssuerFree refuses an issuer another configuration than id's has.
func checkIssuerFree(idps []ledger.IdentityProvider, id, issuer, operation string) error {
	for _, p := range idps {
		if p.Issuer == issuer && p.ID != id {
			e := fault.WithCode(fault.AlreadyExists, codeIDPIssuerAlreadyExists,
				"%s failed, as identity provider with issuer %s already exists", operation, fault.Quote(issuer))
			e.Resources = [][2]string{{resourceIDP, issuer}}
			return e
		}
	}
	return nil
}

// GET /v2/idps.
func (h *Handler) listIDPs(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	idps, err := h.cfg.Ledger.IdentityProviders(r.Context(), h.cfg.Participant)
	if err != nil {
		return err
	}
	resp := ListIdentityProviderConfigsResponse{IdentityProviderConfigs: []IdentityProviderConfig{}}
	for _, p := range idps {
		resp.IdentityProviderConfigs = append(resp.IdentityProviderConfigs, idpJSON(p))
	}
	return writeJSON(w, resp)
}

// POST /v2/idps: a new configuration; its id and its issuer must be new.
func (h *Handler) createIDP(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "CreateIdentityProviderConfigRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	in := d.idpConfig(obj)
	if d.err != nil {
		return d.err
	}
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	if !in.given {
		return missingField("identity_provider_config")
	}
	if err := checkIdentityProviderID("identity_provider_id", in.id, true); err != nil {
		return err
	}
	if err := checkJWKSURL("jwks_url", in.jwksURL); err != nil {
		return err
	}
	if in.issuer == "" {
		return missingField("issuer")
	}
	const operation = "creating identity provider config"
	created := ledger.IdentityProvider{ID: in.id, Deactivated: in.deactivated, Issuer: in.issuer, JWKSURL: in.jwksURL, Audience: in.audience}
	_, err = h.cfg.Ledger.UpdateIdentityProviders(r.Context(), h.cfg.Participant, func(idps []ledger.IdentityProvider) ([]ledger.IdentityProvider, error) {
		if slices.ContainsFunc(idps, func(p ledger.IdentityProvider) bool { return p.ID == in.id }) {
			e := fault.WithCode(fault.AlreadyExists, codeIDPAlreadyExists, "%s failed, as identity provider %q already exists", operation, in.id)
			e.Resources = [][2]string{{resourceIDP, in.id}}
			return nil, e
		}
		if err := checkIssuerFree(idps, in.id, in.issuer, operation); err != nil {
			return nil, err
		}
		if len(idps)+1 > maxIdentityProviders {
			return nil, fault.WithCode(fault.FailedPrecondition, codeTooManyIDPs, "%s failed.", operation)
		}
		return append(idps, created), nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, IdentityProviderConfigResponse{IdentityProviderConfig: idpJSON(created)})
}

// pathIDP reads and checks the {idp-id} path segment.
func pathIDP(r *http.Request) (string, error) {
	id := r.PathValue("idp")
	return id, checkIdentityProviderID("identity_provider_id", id, true)
}

// GET /v2/idps/{idp-id}.
func (h *Handler) getIDP(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	id, err := pathIDP(r)
	if err != nil {
		return err
	}
	idps, err := h.cfg.Ledger.IdentityProviders(r.Context(), h.cfg.Participant)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(idps, func(p ledger.IdentityProvider) bool { return p.ID == id })
	if i < 0 {
		return idpNotFound("getting identity provider config", id)
	}
	return writeJSON(w, IdentityProviderConfigResponse{IdentityProviderConfig: idpJSON(idps[i])})
}

// DELETE /v2/idps/{idp-id}.
func (h *Handler) deleteIDP(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	id, err := pathIDP(r)
	if err != nil {
		return err
	}
	_, err = h.cfg.Ledger.UpdateIdentityProviders(r.Context(), h.cfg.Participant, func(idps []ledger.IdentityProvider) ([]ledger.IdentityProvider, error) {
		i := slices.IndexFunc(idps, func(p ledger.IdentityProvider) bool { return p.ID == id })
		if i < 0 {
			return nil, idpNotFound("deleting identity provider config", id)
		}
		return slices.Delete(idps, i, i+1), nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, DeleteIdentityProviderConfigResponse{})
}

// PATCH /v2/idps/{idp-id}: change the fields the update mask names:
// is_deactivated, issuer and jwks_url (an empty value leaves them as they
// are), audience (an empty value clears it).
func (h *Handler) updateIDP(w http.ResponseWriter, r *http.Request) error {
	pathID := r.PathValue("idp")
	obj, err := decodeBody(r, "UpdateIdentityProviderConfigRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	in := d.idpConfig(obj)
	paths, hasMask := d.maskPaths(obj, "updateMask")
	if d.err != nil {
		return d.err
	}
	if !in.given || in.id != pathID {
		body := "None"
		if in.given {
			body = fault.Quote(in.id)
		}
		return invalidArgument("%s does not match idp in body: %s", fault.Clip(pathID), body)
	}
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	if err := checkIdentityProviderID("identity_provider_id", in.id, true); err != nil {
		return err
	}
	if in.jwksURL != "" {
		if err := checkJWKSURL("jwks_url", in.jwksURL); err != nil {
			return err
		}
	}
	if !hasMask {
		return missingField("update_mask")
	}
	mask, reason := parseFieldMask(paths, pathIDPID, pathIDPDeactivated, pathIDPJWKSURL, pathIDPIssuer, pathIDPAudience)
	if reason != "" {
		e := fault.WithCode(fault.InvalidArgument, codeInvalidIDPUpdateRequest,
			"Update operation for identity provider config '%s' failed due to: %s", in.id, reason)
		e.Resources = [][2]string{{resourceIDP, in.id}}
		return e
	}
	const operation = "updating identity provider config"
	var updated ledger.IdentityProvider
	_, err = h.cfg.Ledger.UpdateIdentityProviders(r.Context(), h.cfg.Participant, func(idps []ledger.IdentityProvider) ([]ledger.IdentityProvider, error) {
		i := slices.IndexFunc(idps, func(p ledger.IdentityProvider) bool { return p.ID == in.id })
		if i < 0 {
			return nil, idpNotFound(operation, in.id)
		}
		p := &idps[i]
		if matched, _ := mask.match(pathIDPIssuer); matched && in.issuer != "" {
			if err := checkIssuerFree(idps, in.id, in.issuer, operation); err != nil {
				return nil, err
			}
			p.Issuer = in.issuer
		}
		if matched, _ := mask.match(pathIDPJWKSURL); matched && in.jwksURL != "" {
			p.JWKSURL = in.jwksURL
		}
		if matched, _ := mask.match(pathIDPAudience); matched {
			p.Audience = in.audience
		}
		if matched, _ := mask.match(pathIDPDeactivated); matched {
			p.Deactivated = in.deactivated
		}
		updated = *p
		return idps, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, IdentityProviderConfigResponse{IdentityProviderConfig: idpJSON(updated)})
}
