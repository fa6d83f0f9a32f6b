package scanclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/sandnet/sandnet/internal/fault"
)

// scanAPIPath is the Scan API's place on its host; the registry is beside
// it, at the host's root.
const scanAPIPath = "/api/scan"

// registryRoot is the registry's URL of the Scan whose API root is base:
// http://host/api/scan serves it at http://host/registry, SV k's
// http://host/sv/k/api/scan at http://host/sv/k/registry.
func registryRoot(base string) string { return strings.TrimSuffix(base, scanAPIPath) + "/registry" }

// registryAnswer is one Scan's answer to a registry read: its JSON, or a
// failure it answered (a 404, say), which ends the read.
type registryAnswer struct {
	body json.RawMessage
	err  error
}

// Registry GETs path of the token-standard registry (under /registry:
// "/metadata/v1/info"), with query, from the first Scan that answers, and
// returns its JSON as it came, for a scan-proxy to serve again. A failure
// the Scan answers (a 404 for an unknown instrument) is returned with the
// Scan's message and kind, without asking the other Scans; only a Scan
// that does not answer (unreachable, 5xx, not JSON) makes it try the next.
func (c *Client) Registry(ctx context.Context, path string, query url.Values) (json.RawMessage, error) {
	return c.registry(ctx, http.MethodGet, path, query, nil)
}

// RegistryPost POSTs body (JSON, sent as it is) to path of the
// token-standard registry ("/transfer-instruction/v1/transfer-factory")
// and returns the answering Scan's JSON as it came, as Registry does:
// the first Scan that answers decides, a failure it answers included
// (a 400 for a body it cannot read, a 404 for an unknown instruction).
// The choice contexts it serves are read fresh every time: they name the
// current rounds and config states.
func (c *Client) RegistryPost(ctx context.Context, path string, body json.RawMessage) (json.RawMessage, error) {
	if !json.Valid(body) {
		return nil, fault.New(fault.InvalidArgument, "Failed to decode: the request body is not JSON")
	}
	return c.registry(ctx, http.MethodPost, path, nil, body)
}

func (c *Client) registry(ctx context.Context, method, path string, query url.Values, body json.RawMessage) (json.RawMessage, error) {
	var reqBody any
	if body != nil {
		reqBody = body
	}
	ans, err := first(ctx, c, "registry "+path, func(ctx context.Context, base string) (registryAnswer, error) {
		var raw []byte
		err := c.call(ctx, registryRoot(base), method, path, query, reqBody, &raw)
		if err != nil {
			if f, ok := fault.As(err); ok && f.Kind != fault.Unavailable {
				return registryAnswer{err: err}, nil
			}
			return registryAnswer{}, err // unanswered, or ctx ended
		}
		if !json.Valid(raw) {
			return registryAnswer{}, fault.New(fault.Unavailable, "Scan %s: the registry's answer to %s %s is not JSON", base, method, path)
		}
		return registryAnswer{body: raw}, nil
	})
	if err != nil {
		return nil, err
	}
	return ans.body, ans.err
}
