// Package web is the HTTP plumbing the API packages share: JSON responses,
// the Splice-style error body and its status mapping, bearer-token
// authentication, CORS, request metrics and W3C trace context.
//
// The Splice APIs (Scan, validator) and sandnet's admin API answer errors as
// {"error": "…"}; [WriteError] is the one place their fault kinds become
// statuses. The ledger API has its own error shape and mapping in its
// package.
package web
