package auth

import (
	"context"
	"sync"
	"time"
)

// Cached returns a Verifier that remembers the tokens v accepted, so that
// a client sending the same token with every request (every client does)
// has its signature checked once, not per request: verifying an HS256
// token costs about as much as a small command's interpretation.
//
// A remembered token is served until its expiry, and at most ttl after it
// was verified, so that a key withdrawn from a JWKS stops being honoured
// within ttl, as JWKS caches are refreshed. Refused tokens are not
// remembered: they are checked again each time. At most max tokens are
// kept; when full, the cache starts over. now is the clock (time.Now when
// nil).
func Cached(v Verifier, ttl time.Duration, max int, now func() time.Time) Verifier {
	if now == nil {
		now = time.Now
	}
	return &cached{v: v, ttl: ttl, max: max, now: now, seen: map[string]cachedClaims{}}
}

type cached struct {
	v   Verifier
	ttl time.Duration
	max int
	now func() time.Time

	mu   sync.Mutex
	seen map[string]cachedClaims
}

type cachedClaims struct {
	claims Claims
	until  time.Time
}

func (c *cached) Verify(ctx context.Context, token string) (Claims, error) {
	now := c.now()
	c.mu.Lock()
	hit, ok := c.seen[token]
	c.mu.Unlock()
	if ok && now.Before(hit.until) {
		return hit.claims, nil
	}
	claims, err := c.v.Verify(ctx, token)
	if err != nil {
		return claims, err
	}
	until := now.Add(c.ttl)
	if !claims.ExpiresAt.IsZero() && claims.ExpiresAt.Before(until) {
		until = claims.ExpiresAt
	}
	c.mu.Lock()
	if len(c.seen) >= c.max {
		clear(c.seen)
	}
	c.seen[token] = cachedClaims{claims: claims, until: until}
	c.mu.Unlock()
	return claims, nil
}
