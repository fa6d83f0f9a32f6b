package main

import (
	"time"

	"github.com/sandnet/sandnet/internal/auth"
)

// dashboardTokenTTL is how long the operator token in the printed
// dashboard link lasts: a working day, as `sandnet token`'s default.
const dashboardTokenTTL = 24 * time.Hour

// dashboardLink is the dashboard's address as `sandnet start` prints it:
// with an operator token in the fragment (#token=…, which the browser
// keeps to itself and the page moves to its session storage) when this
// process signs tokens, so that the link opens a working dashboard.
// Without a minter (--auth jwks or none) it is the bare address.
func dashboardLink(minter *auth.HMAC, addr string) string {
	base := adminURL(addr) + "/"
	if minter == nil {
		return base
	}
	tok, err := minter.Mint(OperatorUser, dashboardTokenTTL, time.Now())
	if err != nil {
		return base
	}
	return base + "#token=" + tok
}
