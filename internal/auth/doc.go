// Package auth verifies and mints the JWT bearer tokens that sandnet's
// Ledger API, Validator, wallet and ANS endpoints accept.
//
// As on a real Canton participant, a token's `sub` claim names the Ledger
// API user the request acts for; what that user may do is decided elsewhere
// (user rights live with the ledger). This package only answers "is this
// token genuine, current and meant for us, and whose is it?" through the
// [Verifier] interface, which the HTTP layers call with the token they took
// from an Authorization header ([BearerToken]) or from a websocket
// subprotocol ([WebSocketToken]).
//
// There is one Verifier per `--auth` mode, and each accepts exactly one
// family of algorithms so that a key of one kind can never be used to check
// a signature of another (algorithm confusion):
//
//   - [HMAC]: HS256 with a shared secret, the default for local development.
//     It can also [HMAC.Mint] tokens, which is how `sandnet token` works. The
//     secret is made at first start by [LoadOrCreateSecret].
//   - [JWKS]: RS256/RS384/RS512/ES256/ES384 against the public keys an
//     identity provider publishes, for setups that mirror production.
//   - [Unverified]: `--auth none`; reads the user from any token without
//     checking it. Insecure by design.
//
// Verification failures are reported as [ErrMissingToken] (nothing was sent)
// or as an [*Error] that matches [ErrInvalidToken] and carries a [Reason];
// both mean HTTP 401. Error messages never contain key material.
//
// Only jwks.go imports net/http (it fetches key sets); the rest is pure domain
// code.
package auth
