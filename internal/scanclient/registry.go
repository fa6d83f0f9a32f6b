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
	ans, err := first(ctx, c, "registry "+path, func(ctx context.Context, base string) (registryAnswer, error) {
		var raw []byte
		err := c.call(ctx, registryRoot(base), http.MethodGet, path, query, nil, &raw)
		if err != nil {
			if f, ok := fault.As(err); ok && f.Kind != fault.Unavailable {
				return registryAnswer{err: err}, nil
			}
			return registryAnswer{}, err // unanswered, or ctx ended
		}
		if !json.Valid(raw) {
			return registryAnswer{}, fault.New(fault.Unavailable, "Scan %s: the registry's answer to GET %s is not JSON", base, path)
		}
		return registryAnswer{body: raw}, nil
	})
	if err != nil {
		return nil, err
	}
	return ans.body, ans.err
}
