package auth

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Claims is what sandnet needs from a verified token: whose request it is,
// whom it was issued for, and until when it holds. Everything else in the
// token is ignored, so that tokens from any issuer can be used as long as
// they name a user.
type Claims struct {
	// Subject is the `sub` claim: the Ledger API user id the request acts
	// for. It is never empty in Claims returned without error.
	Subject string
	// Audience is the `aud` claim, kept so callers can log or inspect it;
	// the Verifier has already checked it against its configured audience.
	Audience []string
	// ExpiresAt is the `exp` claim, or the zero time when the token has
	// none. Streams use it to end a subscription when its token expires.
	ExpiresAt time.Time
}

// Verifier checks a bearer token and says whose it is. Handlers depend on
// this interface rather than on a concrete mode so that `--auth` can swap
// HS256, JWKS or no checking at all without touching them.
type Verifier interface {
	// Verify returns the token's claims, [ErrMissingToken] for an empty
	// token, or an error matching [ErrInvalidToken] for anything else
	// wrong with it.
	Verify(ctx context.Context, token string) (Claims, error)
}

// The package's verifiers, one per `--auth` mode.
var (
	_ Verifier = (*HMAC)(nil)
	_ Verifier = (*JWKS)(nil)
	_ Verifier = Unverified{}
)

// ErrMissingToken is returned for an empty token. It is separate from
// [ErrInvalidToken] because some callers (Scan, `--auth none`) treat a
// request without a token as anonymous instead of rejecting it.
var ErrMissingToken = errors.New("missing bearer token")

// ErrInvalidToken is matched (with errors.Is) by every [*Error], so callers
// that only need "401 or not" do not have to care about the [Reason].
var ErrInvalidToken = errors.New("invalid token")

// Reason says why a token was refused. Callers may map some reasons to
// specific upstream errors (Canton reports an expired token on a running
// stream as ACCESS_TOKEN_EXPIRED); the values are stable and safe to log.
type Reason string

// The reasons a token can be refused for.
const (
	// ReasonMalformed: not three base64url segments of JSON, or a claim of
	// the wrong type.
	ReasonMalformed Reason = "malformed"
	// ReasonAlgNotAllowed: the header's `alg` is not one the Verifier
	// accepts (for example `none`, or HS256 at a JWKS verifier).
	ReasonAlgNotAllowed Reason = "algorithm not allowed"
	// ReasonUnknownKey: no key matches the token's `kid` and `alg`.
	ReasonUnknownKey Reason = "unknown signing key"
	// ReasonBadSignature: the signature does not verify.
	ReasonBadSignature Reason = "bad signature"
	// ReasonExpired: `exp` is in the past (beyond the leeway).
	ReasonExpired Reason = "expired"
	// ReasonNotYetValid: `nbf` or `iat` is in the future (beyond the
	// leeway).
	ReasonNotYetValid Reason = "not yet valid"
	// ReasonWrongAudience: an audience is configured and `aud` does not
	// contain it.
	ReasonWrongAudience Reason = "wrong audience"
	// ReasonMissingSubject: the token has no `sub`, so it names no user.
	ReasonMissingSubject Reason = "no subject"
	// ReasonMissingExpiry: the Verifier requires `exp` and the token has
	// none.
	ReasonMissingExpiry Reason = "no expiry"
)

// Error is a refused token. It carries a [Reason] for callers that react
// differently to different failures, and matches [ErrInvalidToken] for
// those that do not. Its message is built only from the reason and fixed
// text, never from the token's contents or key material, so it is safe to
// return to clients and to log.
type Error struct {
	// Reason is why the token was refused.
	Reason Reason
}

// Error returns "invalid token: <reason>".
func (e *Error) Error() string {
	return "invalid token: " + string(e.Reason)
}

// Is makes errors.Is(err, ErrInvalidToken) true for every *Error.
func (e *Error) Is(target error) bool {
	return target == ErrInvalidToken
}

// invalid returns an *Error for r.
func invalid(r Reason) error {
	return &Error{Reason: r}
}

// leeway is the clock skew tolerated on exp, nbf and iat: a few seconds, so
// that tokens minted by a host with a slightly different clock work, and
// not more, so that an expired token stops working promptly.
const leeway = 5 * time.Second

// maxTokenLen bounds the work done on a token. Real tokens are well under
// 4 KiB; HTTP servers cap header size anyway, but Verify can be called with
// strings from other sources.
const maxTokenLen = 16 << 10

// tokenClaims is the JSON payload sandnet reads and writes. Scope is only
// written (by Mint), so that Canton-style clients that look for
// `daml_ledger_api` accept sandnet's tokens.
type tokenClaims struct {
	jwt.RegisteredClaims
	Scope string `json:"scope,omitempty"`
}

// claims converts the verified payload to Claims.
func (c *tokenClaims) claims() Claims {
	out := Claims{Subject: c.Subject}
	if len(c.Audience) > 0 {
		out.Audience = slices.Clone([]string(c.Audience))
	}
	if c.ExpiresAt != nil {
		out.ExpiresAt = c.ExpiresAt.Time
	}
	return out
}

// policy is what a signature-checking Verifier enforces besides the
// signature itself.
type policy struct {
	parser   *jwt.Parser
	algs     []string // the only algs accepted, in the header and by the parser
	audience string   // required in aud when non-empty
}

// newPolicy returns a policy that accepts only algs, checks time claims
// (exp, nbf, and iat, which golang-jwt skips unless asked) with [leeway], checks the audience when one is given, and requires exp
// when requireExp is set.
func newPolicy(algs []string, audience string, requireExp bool) policy {
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(algs),
		jwt.WithLeeway(leeway),
		// A token issued in the future is not yet valid: without this
		// option golang-jwt ignores iat entirely.
		jwt.WithIssuedAt(),
		// Reject non-canonical base64 so that a token has one spelling.
		jwt.WithStrictDecoding(),
	}
	if audience != "" {
		opts = append(opts, jwt.WithAudience(audience))
	}
	if requireExp {
		opts = append(opts, jwt.WithExpirationRequired())
	}
	return policy{parser: jwt.NewParser(opts...), algs: algs, audience: audience}
}

// verify runs the checks every signature-checking Verifier shares: presence,
// size, parsing, alg, signature (via keyFunc), time and audience claims, and
// a non-empty subject. It maps every failure to ErrMissingToken or an *Error.
func (p policy) verify(token string, keyFunc jwt.Keyfunc) (Claims, error) {
	if token == "" {
		return Claims{}, ErrMissingToken
	}
	if len(token) > maxTokenLen {
		return Claims{}, invalid(ReasonMalformed)
	}
	var c tokenClaims
	tok, err := p.parser.ParseWithClaims(token, &c, keyFunc)
	if err != nil {
		return Claims{}, p.classify(err, tok, &c)
	}
	if c.Subject == "" {
		return Claims{}, invalid(ReasonMissingSubject)
	}
	return c.claims(), nil
}

// classify turns a golang-jwt error into an *Error. The library's own
// messages are dropped: they are not part of sandnet's contract.
func (p policy) classify(err error, tok *jwt.Token, c *tokenClaims) error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e // from a keyfunc
	}
	if errors.Is(err, jwt.ErrTokenMalformed) {
		return invalid(ReasonMalformed)
	}
	// The library reports an unknown or missing alg as "unverifiable" and
	// an alg outside WithValidMethods as a bad signature; check the header
	// ourselves so both read as what they are.
	if tok != nil {
		if alg, _ := tok.Header["alg"].(string); !slices.Contains(p.algs, alg) {
			return invalid(ReasonAlgNotAllowed)
		}
	}
	switch {
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return invalid(ReasonBadSignature)
	case errors.Is(err, jwt.ErrTokenExpired):
		return invalid(ReasonExpired)
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return invalid(ReasonNotYetValid)
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return invalid(ReasonWrongAudience)
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		// The library requires aud when an audience is configured, and
		// exp when asked to; say which one is missing.
		if p.audience != "" && len(c.Audience) == 0 {
			return invalid(ReasonWrongAudience)
		}
		return invalid(ReasonMissingExpiry)
	}
	return invalid(ReasonMalformed)
}
