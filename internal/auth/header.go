package auth

import (
	"strings"
)

// WebSocketTokenPrefix marks the websocket subprotocol that carries a token.
// Browsers cannot set an Authorization header on a websocket, so Canton's
// JSON API (the `apiKeyAuth` scheme) takes the token from an offered
// subprotocol `jwt.token.<JWT>`.
const WebSocketTokenPrefix = "jwt.token."

// WebSocketAuthProtocol is the subprotocol a server answers with when it
// accepted a token from [WebSocketToken]. Canton always answers it, and
// clients refuse the connection if no offered protocol is selected.
const WebSocketAuthProtocol = "daml.ws.auth"

// BearerToken extracts the token from an Authorization header value. The
// scheme is matched case-insensitively (RFC 9110 §11.1) and surrounding
// blanks are tolerated, since clients differ in both. ok is false when the
// header is empty, uses another scheme, or has no token, so that callers
// can tell "no bearer token" from a token that fails verification.
func BearerToken(authorizationHeader string) (token string, ok bool) {
	const scheme = "bearer"
	h := strings.TrimSpace(authorizationHeader)
	if len(h) <= len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return "", false
	}
	rest := h[len(scheme):]
	if rest[0] != ' ' && rest[0] != '\t' {
		return "", false // e.g. "Bearerx"
	}
	token = strings.TrimSpace(rest)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// WebSocketToken returns the token from the first offered subprotocol that
// starts with [WebSocketTokenPrefix], as Canton does. protocols may be the
// raw Sec-WebSocket-Protocol header values: comma-separated lists are
// split, since clients send both one header with a list and several
// headers. ok is false when no such entry is offered or its token is empty.
func WebSocketToken(protocols []string) (token string, ok bool) {
	for _, v := range protocols {
		for p := range strings.SplitSeq(v, ",") {
			p = strings.TrimSpace(p)
			if t, found := strings.CutPrefix(p, WebSocketTokenPrefix); found {
				return t, t != ""
			}
		}
	}
	return "", false
}
