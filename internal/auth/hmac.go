package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MinSecretLen is the shortest HS256 secret [NewHMAC] accepts: 32 bytes,
// the SHA-256 output size RFC 7518 §3.2 asks for. Shorter secrets can be
// brute-forced from a single token.
const MinSecretLen = 32

// LedgerAPIScope is the `scope` value [HMAC.Mint] writes. Canton accepts a
// token without a target audience only if its scope contains it, so
// clients and tools that check tokens the Canton way accept sandnet's.
const LedgerAPIScope = "daml_ledger_api"

// hmacAlgs is the only algorithm an HMAC verifier accepts. HS384/HS512 add
// nothing for a local secret, and a single alg keeps the check obvious.
var hmacAlgs = []string{jwt.SigningMethodHS256.Alg()}

// HMAC verifies and mints HS256 tokens with one shared secret. It is the
// default `--auth` mode: a developer (or `sandnet token`) can mint tokens
// for any user without an identity provider. Anyone holding the secret can
// act as any user, so it belongs on a developer machine, not in production.
type HMAC struct {
	secret   []byte
	audience string
	policy   policy
}

// NewHMAC returns an HMAC for secret, which must be at least [MinSecretLen]
// bytes. When audience is non-empty, Verify requires `aud` to contain it
// and Mint writes it, as Canton does with a target audience; when empty,
// `aud` is neither checked nor written. `exp` is optional on verification
// (scripts often mint long-lived tokens without one) but checked when
// present.
func NewHMAC(secret []byte, audience string) (*HMAC, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("auth: HS256 secret is %d bytes; it must be at least %d", len(secret), MinSecretLen)
	}
	return NewWeakHMAC(secret, audience)
}

// NewWeakHMAC is [NewHMAC] without the length check. LocalNet's scripts
// sign their tokens with a short well-known secret ("unsafe"); a user who
// names such a secret with --auth-secret has chosen it on purpose, and
// sandnet must accept the tokens those scripts mint. Only a non-empty
// secret is required.
func NewWeakHMAC(secret []byte, audience string) (*HMAC, error) {
	if len(secret) == 0 {
		return nil, errors.New("auth: HS256 secret is empty")
	}
	return &HMAC{
		secret:   bytes.Clone(secret), // callers may wipe or reuse theirs
		audience: audience,
		policy:   newPolicy(hmacAlgs, audience, false),
	}, nil
}

// Verify checks an HS256 token: signature, exp/nbf/iat (with a few seconds
// of leeway), audience when configured, and a non-empty `sub`. Any other alg,
// including `none`, is refused.
func (h *HMAC) Verify(_ context.Context, token string) (Claims, error) {
	return h.policy.verify(token, func(*jwt.Token) (any, error) {
		return h.secret, nil
	})
}

// Mint returns an HS256 token for subject that Verify accepts from now
// until now+ttl. It sets sub, iat, exp, scope, and aud when an audience is
// configured. now is a parameter so that callers and tests control the
// clock; pass time.Now() for a usable token.
func (h *HMAC) Mint(subject string, ttl time.Duration, now time.Time) (string, error) {
	if subject == "" {
		return "", errors.New("auth: cannot mint a token without a subject")
	}
	if ttl <= 0 {
		return "", fmt.Errorf("auth: token lifetime must be positive, got %v", ttl)
	}
	c := tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   subject,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
		Scope: LedgerAPIScope,
	}
	if h.audience != "" {
		c.Audience = jwt.ClaimStrings{h.audience}
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(h.secret)
	if err != nil {
		// Signing with a []byte key cannot fail; keep the message generic
		// anyway so nothing about the key can leak.
		return "", errors.New("auth: signing token failed")
	}
	return s, nil
}
