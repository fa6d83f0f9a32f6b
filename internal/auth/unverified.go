package auth

import (
	"context"
	"errors"

	"github.com/golang-jwt/jwt/v5"
)

// Unverified is the Verifier for `--auth none`. It reads `sub` (and `aud`
// and `exp`, for information) from a token WITHOUT checking its signature,
// algorithm, expiry or audience: anyone can act as any user by writing an
// unsigned token (`alg: none`) by hand.
//
// It is INSECURE BY DESIGN. It exists for throwaway networks where setting
// up secrets gets in the way, and mirrors Canton's wildcard auth as closely
// as a per-user ledger allows: the token still has to name a user, because
// user rights decide what the request may see. Never expose a sandnet
// started with it beyond the local machine.
//
// The zero value is ready to use.
type Unverified struct{}

// unverifiedParser decodes without validating anything. Claims are read as
// a map so that an odd type in a claim sandnet ignores cannot fail the
// request.
var unverifiedParser = jwt.NewParser(jwt.WithoutClaimsValidation())

// Verify returns the token's `sub`. An empty token is [ErrMissingToken] so
// the caller decides what an anonymous request means; a token that is not
// a JWT or has no `sub` is invalid.
func (Unverified) Verify(_ context.Context, token string) (Claims, error) {
	if token == "" {
		return Claims{}, ErrMissingToken
	}
	if len(token) > maxTokenLen {
		return Claims{}, invalid(ReasonMalformed)
	}
	m := jwt.MapClaims{}
	// ParseUnverified reports a missing or unknown alg only after decoding
	// the claims; any alg is accepted here, so only decoding errors count.
	if _, _, err := unverifiedParser.ParseUnverified(token, m); err != nil && !errors.Is(err, jwt.ErrTokenUnverifiable) {
		return Claims{}, invalid(ReasonMalformed)
	}
	sub, err := m.GetSubject()
	if err != nil {
		return Claims{}, invalid(ReasonMalformed)
	}
	if sub == "" {
		return Claims{}, invalid(ReasonMissingSubject)
	}
	out := Claims{Subject: sub}
	if aud, err := m.GetAudience(); err == nil && len(aud) > 0 {
		out.Audience = []string(aud)
	}
	if exp, err := m.GetExpirationTime(); err == nil && exp != nil {
		out.ExpiresAt = exp.Time
	}
	return out, nil
}
