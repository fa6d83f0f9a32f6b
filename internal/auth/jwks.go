package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Defaults for JWKS refreshing.
const (
	// jwksRefreshInterval re-reads the key set periodically so that a
	// removed (revoked) key stops verifying even if no unknown kid is seen.
	jwksRefreshInterval = 5 * time.Minute
	// jwksMinRefreshGap rate-limits refreshes caused by unknown kids, which
	// anyone can put in a token: at most one fetch per gap.
	jwksMinRefreshGap = 10 * time.Second
	// jwksFetchTimeout bounds one fetch, whatever the client's timeout.
	jwksFetchTimeout = 10 * time.Second
	// maxJWKSBody bounds the key set document. Real ones are a few KiB.
	maxJWKSBody = 1 << 20
)

// errRefreshLimited is returned internally when an unknown kid arrives too
// soon after the last fetch.
var errRefreshLimited = errors.New("key set refresh rate-limited")

// JWKS verifies tokens signed by an identity provider (Keycloak, Auth0, …)
// against the public keys it publishes as a JSON Web Key Set, for setups
// that mirror a production validator. It accepts RS256, RS384, RS512, ES256
// and ES384 only: never HMAC (the key set is public, so an HMAC "secret"
// taken from it would let anyone sign) and never `none`.
//
// Keys are cached by `kid`. The set is re-fetched in the background every
// few minutes, and on demand when a token names a kid that is not cached
// (a provider rotated its keys), at most once every ten seconds. If a
// refresh fails, the cached keys stay in use; if it succeeds, the set it
// fetched replaces the cache, so removed keys stop verifying.
type JWKS struct {
	url    string
	shown  string // url with any password redacted, for messages
	client *http.Client
	policy policy

	now    func() time.Time // the clock for rate limiting; tests replace it
	minGap time.Duration

	mu   sync.RWMutex
	keys map[string][]publicKey

	// fetching serialises fetches (a one-slot semaphore, so waiting for it
	// honours a request's context); lastFetch is guarded by it.
	fetching  chan struct{}
	lastFetch time.Time
}

// NewJWKS fetches the key set at rawURL and returns a JWKS that keeps it
// fresh until ctx is done. It fails if the set cannot be fetched or has no
// usable signing key, so a misconfigured `--auth-jwks-url` is reported at
// start rather than as 401s later.
//
// When audience is non-empty, `aud` must contain it. Tokens must carry
// `exp`: provider-issued tokens always do, and a token that never expires
// cannot be revoked by rotating keys quickly enough. client is used for
// fetching; nil means a client with a 10 s timeout.
func NewJWKS(ctx context.Context, rawURL string, audience string, client *http.Client) (*JWKS, error) {
	return newJWKS(ctx, rawURL, audience, client, jwksRefreshInterval, time.Now)
}

// newJWKS is NewJWKS with the refresh interval and clock exposed for tests.
func newJWKS(ctx context.Context, rawURL, audience string, client *http.Client, interval time.Duration, now func() time.Time) (*JWKS, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errors.New("auth: JWKS URL is not an absolute http(s) URL")
	}
	if client == nil {
		client = &http.Client{Timeout: jwksFetchTimeout}
	}
	j := &JWKS{
		url:      u.String(),
		shown:    u.Redacted(),
		client:   client,
		policy:   newPolicy(jwksAlgs, audience, true),
		now:      now,
		minGap:   jwksMinRefreshGap,
		fetching: make(chan struct{}, 1),
	}
	if err := j.refresh(ctx); err != nil {
		return nil, err
	}
	j.mu.RLock()
	n := len(j.keys)
	j.mu.RUnlock()
	if n == 0 {
		return nil, fmt.Errorf("auth: JWKS at %s has no usable signing key (RSA ≥ %d bits or EC P-256/P-384, with a kid)", j.shown, minRSABits)
	}
	go j.refreshEvery(ctx, interval)
	return j, nil
}

// Verify checks a token against the cached keys: alg in the allowed set,
// a `kid` naming a key of the matching type (and curve), the signature,
// exp (required), nbf and iat with a few seconds of leeway, audience when
// configured, and a non-empty `sub`. An unknown kid triggers a
// rate-limited refresh of the key set before the token is refused.
func (j *JWKS) Verify(ctx context.Context, token string) (Claims, error) {
	return j.policy.verify(token, func(t *jwt.Token) (any, error) {
		// The parser has already refused algs outside jwksAlgs.
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, invalid(ReasonUnknownKey)
		}
		alg := t.Method.Alg()
		if ks := j.lookup(kid, alg); ks != nil {
			return ks, nil
		}
		if err := j.refreshFor(ctx, kid, alg); err != nil {
			return nil, invalid(ReasonUnknownKey)
		}
		if ks := j.lookup(kid, alg); ks != nil {
			return ks, nil
		}
		return nil, invalid(ReasonUnknownKey)
	})
}

// lookup returns the cached keys with kid that may verify alg, or nil.
func (j *JWKS) lookup(kid, alg string) any {
	j.mu.RLock()
	defer j.mu.RUnlock()
	var set jwt.VerificationKeySet
	for _, k := range j.keys[kid] {
		if k.accepts(alg) {
			set.Keys = append(set.Keys, k.key)
		}
	}
	if len(set.Keys) == 0 {
		return nil
	}
	return set
}

// refreshFor refreshes the key set because kid/alg was not found, unless a
// concurrent refresh already brought it or the last fetch was too recent.
func (j *JWKS) refreshFor(ctx context.Context, kid, alg string) error {
	select {
	case j.fetching <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-j.fetching }()
	if j.lookup(kid, alg) != nil {
		return nil // fetched while we waited
	}
	if j.now().Sub(j.lastFetch) < j.minGap {
		return errRefreshLimited
	}
	return j.fetchLocked(ctx)
}

// refresh fetches the key set unconditionally (at start and periodically).
func (j *JWKS) refresh(ctx context.Context) error {
	select {
	case j.fetching <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-j.fetching }()
	return j.fetchLocked(ctx)
}

// refreshEvery refreshes the key set every interval until ctx is done.
// Failures keep the cached keys: a provider that is briefly down should
// not log everyone out.
func (j *JWKS) refreshEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = j.refresh(ctx)
		}
	}
}

// fetchLocked fetches and installs the key set. The caller holds fetching.
// A fetch attempt counts for rate limiting whether or not it succeeds, so
// an unreachable provider is not hammered.
func (j *JWKS) fetchLocked(ctx context.Context) error {
	j.lastFetch = j.now()
	keys, err := j.fetch(ctx)
	if err != nil {
		return err
	}
	j.mu.Lock()
	j.keys = keys
	j.mu.Unlock()
	return nil
}

// fetch downloads and parses the key set.
func (j *JWKS) fetch(ctx context.Context) (map[string][]publicKey, error) {
	ctx, cancel := context.WithTimeout(ctx, jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return nil, fmt.Errorf("auth: fetching JWKS: %w", err)
	}
	req.Header.Set("Accept", "application/json, application/jwk-set+json")
	resp, err := j.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: fetching JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("auth: fetching JWKS from %s: HTTP %d", j.shown, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBody+1))
	if err != nil {
		return nil, fmt.Errorf("auth: reading JWKS from %s: %w", j.shown, err)
	}
	if len(body) > maxJWKSBody {
		return nil, fmt.Errorf("auth: JWKS from %s is larger than %d bytes", j.shown, maxJWKSBody)
	}
	keys, err := parseKeySet(body)
	if err != nil {
		return nil, fmt.Errorf("auth: JWKS from %s: %w", j.shown, err)
	}
	return keys, nil
}
