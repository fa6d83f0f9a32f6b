// Package vhost routes HTTP requests as a reverse proxy's virtual hosts
// do: by the name in the Host header, then by path prefix, each prefix
// served by a handler under a path of its own. sandnet's LocalNet
// compatibility (`sandnet start --localnet`) uses it to answer on Splice
// LocalNet's nginx ports, where scan.localhost:4000 and
// wallet.localhost:4000 are different services, from the one handler that
// serves every API on the main listener.
package vhost

import (
	"net"
	"net/http"
	"path"
	"slices"
	"strings"
)

// Hosts serves each request with the handler of its Host header's name
// (the port left out, case ignored), or with the fallback for a name it
// does not know, as nginx's default server does.
type Hosts struct {
	byName   map[string]http.Handler
	fallback http.Handler
}

// NewHosts returns Hosts serving unknown names (a bare IP address among
// them) with fallback.
func NewHosts(fallback http.Handler) *Hosts {
	return &Hosts{byName: map[string]http.Handler{}, fallback: fallback}
}

// Handle serves the requests for the host names with h.
func (hs *Hosts) Handle(h http.Handler, names ...string) {
	for _, n := range names {
		hs.byName[Name(n)] = h
	}
}

// ServeHTTP implements http.Handler.
func (hs *Hosts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := hs.byName[Name(r.Host)]; ok {
		h.ServeHTTP(w, r)
		return
	}
	hs.fallback.ServeHTTP(w, r)
}

// Name is the host name a Host header names: without its port, in lower
// case and without a trailing dot, so that "Scan.Localhost.:4000" is
// "scan.localhost".
func Name(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// Mount is a path prefix (From) served by a handler at another one (To):
// a request for From+rest reaches it as To+rest. Both start with a slash
// and do not end with one.
type Mount struct {
	From, To string
}

// Same mounts each prefix at itself.
func Same(prefixes ...string) []Mount {
	ms := make([]Mount, len(prefixes))
	for i, p := range prefixes {
		ms[i] = Mount{From: p, To: p}
	}
	return ms
}

// Mounts serves the paths under the mounts' prefixes with next, each path
// moved to its mount's To, and every other path with other. A path is
// under a prefix when it is the prefix or continues it after a slash
// ("/v2" covers "/v2" and "/v2/updates", not "/v2x"); the longest prefix
// wins. Paths are matched in their clean form (no dot segments, no
// repeated slashes), so "/v2/../api" is not under "/v2".
func Mounts(next, other http.Handler, mounts ...Mount) http.Handler {
	ms := slices.Clone(mounts)
	slices.SortStableFunc(ms, func(a, b Mount) int { return len(b.From) - len(a.From) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := cleanPath(r.URL.Path)
		for _, m := range ms {
			rest, ok := under(p, m.From)
			if !ok {
				continue
			}
			r2 := r.Clone(r.Context())
			r2.URL.Path = m.To + rest
			r2.URL.RawPath = ""
			if raw := r.URL.RawPath; raw != "" && p == r.URL.Path {
				if rawRest, ok := under(raw, m.From); ok {
					r2.URL.RawPath = m.To + rawRest
				}
			}
			r2.RequestURI = r2.URL.RequestURI()
			next.ServeHTTP(w, r2)
			// The mux records the route it matched on the request it
			// served; outer middlewares (metrics) read it from theirs.
			if r2.Pattern != "" {
				r.Pattern = r2.Pattern
			}
			return
		}
		other.ServeHTTP(w, r)
	})
}

// under returns what follows prefix in p when p is under it.
func under(p, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(p, prefix)
	if !ok || rest != "" && rest[0] != '/' {
		return "", false
	}
	return rest, true
}

// cleanPath is p without dot segments and repeated slashes, keeping a
// trailing slash.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}
