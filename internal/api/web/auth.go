package web

import (
	"errors"
	"net/http"

	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/fault"
)

// Authenticator reads the bearer token of a request and says which ledger
// API user it names.
type Authenticator struct {
	// Verifier checks tokens.
	Verifier auth.Verifier
	// Disabled is `--auth none`: a request without a token is anonymous
	// rather than refused, and any token's subject is taken on trust.
	Disabled bool
}

// Subject returns the user the request's token names. Without a token it
// returns "" when authentication is disabled and fault.Unauthenticated
// otherwise; a bad token is always fault.Unauthenticated.
func (a *Authenticator) Subject(r *http.Request) (string, error) {
	token, ok := auth.BearerToken(r.Header.Get("Authorization"))
	if !ok {
		if r.Header.Get("Authorization") != "" {
			return "", fault.New(fault.Unauthenticated, "the Authorization header must be 'Bearer <token>'")
		}
		if a.Disabled {
			return "", nil
		}
		return "", fault.New(fault.Unauthenticated, "Missing or invalid bearer token")
	}
	c, err := a.Verifier.Verify(r.Context(), token)
	if err != nil {
		if errors.Is(err, auth.ErrMissingToken) && a.Disabled {
			return "", nil
		}
		return "", fault.Wrap(fault.Unauthenticated, err, "Invalid bearer token")
	}
	return c.Subject, nil
}
