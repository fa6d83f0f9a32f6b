package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestLocalNetRoutes checks where each LocalNet address sends a request
// on the main handler: by port, Host header and path, as LocalNet's nginx
// and ports do, and never to the main handler's other paths.
func TestLocalNetRoutes(t *testing.T) {
	t.Parallel()
	l := &localNet{nodes: localNetNodes(), ports: map[int]*swapHandler{}}
	for _, n := range l.nodes {
		for _, s := range []int{localNetProxyPort, localNetJSONAPIPort, localNetValidatorPort} {
			l.ports[n.port(s)] = &swapHandler{}
		}
	}
	mainHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "main "+r.URL.Path) })
	l.route(mainHandler)
	// nginx answers OPTIONS on the ledger API hosts itself.
	for _, at := range []struct {
		port int
		host string
	}{{2000, "json-ledger-api.localhost"}, {3000, "canton.localhost"}, {4000, "canton.localhost"}} {
		r := httptest.NewRequest("OPTIONS", "/v2/version", nil)
		r.Host = at.host
		w := httptest.NewRecorder()
		l.ports[at.port].ServeHTTP(w, r)
		if w.Code != http.StatusNoContent {
			t.Errorf("OPTIONS :%d %s: %d, want 204", at.port, at.host, w.Code)
		}
	}
	const nf = "404"
	for _, tc := range []struct {
		port       int
		host, path string
		want       string
	}{
		{2975, "", "/v2/version", "main /v2/version"},
		{2975, "", "/docs/openapi", "main /docs/openapi"},
		{2975, "", "/readyz", "main /readyz"},
		{2975, "", "/api/validator/v0/validator-user", nf},
		{2975, "", "/", nf},
		{3975, "", "/v2/users", "main /validators/app-provider/v2/users"},
		{4975, "", "/v2/users", "main /sv/1/v2/users"},
		{4975, "", "/docs/asyncapi", "main /sv/1/docs/asyncapi"},
		{2903, "", "/api/validator/v0/wallet/balance", "main /api/validator/v0/wallet/balance"},
		{2903, "", "/api/validator/readyz", "main /readyz"},
		{2903, "", "/api/scan/v0/dso", nf},
		{3903, "", "/api/validator/v0/validator-user", "main /validators/app-provider/api/validator/v0/validator-user"},
		{3903, "", "/api/validator/livez", "main /livez"},
		{4903, "", "/api/validator/v0/validator-user", "main /validators/sv/api/validator/v0/validator-user"},
		{2000, "localhost:2000", "/api/validator/v0/validator-user", "main /api/validator/v0/validator-user"},
		{2000, "127.0.0.1:2000", "/api/validator/v0/validator-user", "main /api/validator/v0/validator-user"},
		{2000, "wallet.localhost", "/api/validator/readyz", "main /readyz"},
		{2000, "ans.localhost", "/api/validator/v0/entry/all", "main /api/validator/v0/entry/all"},
		{2000, "json-ledger-api.localhost", "/v2/version", "main /v2/version"},
		{2000, "canton.localhost", "/docs/asyncapi", "main /docs/asyncapi"},
		{2000, "localhost", "/", nf},
		{2000, "localhost", "/api/sandnet/v0/network", nf},
		{2000, "localhost", "/metrics", nf},
		{2000, "json-ledger-api.localhost", "/api/validator/v0/validator-user", nf},
		{3000, "localhost", "/api/validator/v0/validator-user", "main /validators/app-provider/api/validator/v0/validator-user"},
		{3000, "canton.localhost", "/v2/parties", "main /validators/app-provider/v2/parties"},
		{4000, "scan.localhost", "/api/scan/v0/dso", "main /api/scan/v0/dso"},
		{4000, "scan.localhost", "/api/scan/readyz", "main /readyz"},
		{4000, "scan.localhost", "/registry/metadata/v1/info", "main /registry/metadata/v1/info"},
		{4000, "scan.localhost", "/", nf},
		{4000, "wallet.localhost", "/api/validator/v0/wallet/balance", "main /validators/sv/api/validator/v0/wallet/balance"},
		{4000, "sv.localhost", "/api/sv/readyz", "main /readyz"},
		{4000, "sv.localhost", "/api/sv/v0/dso", nf},
		{4000, "canton.localhost", "/v2/version", "main /sv/1/v2/version"},
		{4000, "canton.localhost", "/docs/openapi", "main /sv/1/docs/openapi"},
		{4000, "canton.localhost", "/docs/asyncapi", nf},
		{4000, "localhost", "/api/scan/v0/dso", nf},
		{4000, "", "/", nf},
	} {
		t.Run(fmt.Sprintf(":%d %s %s", tc.port, tc.host, tc.path), func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", tc.path, nil)
			r.Host = tc.host
			w := httptest.NewRecorder()
			l.ports[tc.port].ServeHTTP(w, r)
			got := w.Body.String()
			if w.Code == http.StatusNotFound {
				got = nf
			}
			if got != tc.want {
				t.Errorf(":%d Host %q %s: %q, want %q", tc.port, tc.host, tc.path, got, tc.want)
			}
		})
	}
}
