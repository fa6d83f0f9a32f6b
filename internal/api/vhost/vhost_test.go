package vhost

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// echo answers with the name it was given, the path it received and its
// raw form, so that a test sees which handler served a request and where.
func echo(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, name+" "+r.URL.Path+" "+r.URL.RawPath+" "+r.RequestURI)
	})
}

func TestName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"scan.localhost:4000", "scan.localhost"},
		{"Scan.LOCALHOST", "scan.localhost"},
		{"wallet.localhost.:2000", "wallet.localhost"},
		{"127.0.0.1:2000", "127.0.0.1"},
		{"[::1]:2000", "::1"},
		{"[::1]", "::1"},
		{"", ""},
	} {
		if got := Name(tc.in); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHosts(t *testing.T) {
	t.Parallel()
	hs := NewHosts(echo("fallback"))
	hs.Handle(echo("scan"), "scan.localhost")
	hs.Handle(echo("ledger"), "json-ledger-api.localhost", "Canton.localhost")
	for _, tc := range []struct{ host, want string }{
		{"scan.localhost:4000", "scan"},
		{"SCAN.localhost", "scan"},
		{"canton.localhost:2000", "ledger"},
		{"json-ledger-api.localhost:2000", "ledger"},
		{"localhost:2000", "fallback"},
		{"127.0.0.1:2000", "fallback"},
		{"wallet.example.com", "fallback"},
		{"", "fallback"},
	} {
		t.Run(tc.host, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			r.Host = tc.host
			w := httptest.NewRecorder()
			hs.ServeHTTP(w, r)
			if got, _, _ := strings.Cut(w.Body.String(), " "); got != tc.want {
				t.Errorf("Host %q: served by %q, want %q", tc.host, got, tc.want)
			}
		})
	}
}

func TestMounts(t *testing.T) {
	t.Parallel()
	h := Mounts(echo("next"), echo("other"),
		Mount{From: "/v2", To: "/sv/1/v2"},
		Mount{From: "/docs/openapi", To: "/sv/1/docs/openapi"},
		Mount{From: "/api/validator", To: "/validators/app-user/api/validator"},
		Mount{From: "/api/validator/readyz", To: "/readyz"},
		Same("/registry", "/api/scan")[0],
		Same("/registry", "/api/scan")[1],
	)
	for _, tc := range []struct{ target, want string }{
		{"/v2", "next /sv/1/v2  /sv/1/v2"},
		{"/v2/updates?x=1", "next /sv/1/v2/updates  /sv/1/v2/updates?x=1"},
		{"/v2/", "next /sv/1/v2/  /sv/1/v2/"},
		{"/v2x", "other /v2x  /v2x"},
		{"/docs/openapi", "next /sv/1/docs/openapi  /sv/1/docs/openapi"},
		{"/docs/asyncapi", "other /docs/asyncapi  /docs/asyncapi"},
		{"/api/validator/v0/validator-user", "next /validators/app-user/api/validator/v0/validator-user  /validators/app-user/api/validator/v0/validator-user"},
		// the longest prefix wins, whatever the order given
		{"/api/validator/readyz", "next /readyz  /readyz"},
		{"/api/validator/readyzz", "next /validators/app-user/api/validator/readyzz  /validators/app-user/api/validator/readyzz"},
		{"/registry/metadata/v1/info", "next /registry/metadata/v1/info  /registry/metadata/v1/info"},
		{"/api/scan/v0/dso", "next /api/scan/v0/dso  /api/scan/v0/dso"},
		// dot segments and doubled slashes cannot leave a mount
		{"/v2/../api/sandnet/v0/network", "other /v2/../api/sandnet/v0/network  /v2/../api/sandnet/v0/network"},
		{"/v2//updates", "next /sv/1/v2/updates  /sv/1/v2/updates"},
		{"/", "other /  /"},
		{"/api/sandnet/v0/network", "other /api/sandnet/v0/network  /api/sandnet/v0/network"},
		// an escaped path keeps its escapes under the new prefix
		{"/v2/parties/a%2Fb", "next /sv/1/v2/parties/a/b /sv/1/v2/parties/a%2Fb /sv/1/v2/parties/a%2Fb"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", tc.target, nil))
			if got := w.Body.String(); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.target, got, tc.want)
			}
		})
	}
}

// TestMountsPattern checks that the route the mux matched reaches the
// request outer middlewares hold, so that metrics label it.
func TestMountsPattern(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("GET /sv/1/v2/version", echo("mux"))
	h := Mounts(mux, echo("other"), Mount{From: "/v2", To: "/sv/1/v2"})
	r := httptest.NewRequest("GET", "/v2/version", nil)
	h.ServeHTTP(httptest.NewRecorder(), r)
	if r.Pattern != "GET /sv/1/v2/version" {
		t.Errorf("pattern %q", r.Pattern)
	}
}

// FuzzMounts checks, for any request path and Host, that Name and Mounts
// do not panic and that a request reaches next only at a path under one
// of the mounts' targets: no path (dot segments, slashes, escapes) leaves
// its mount.
func FuzzMounts(f *testing.F) {
	for _, s := range []string{"/v2/updates", "/v2/../api/sandnet", "//v2", "/v2/%2e%2e/x", "/docs", "/", "/api/validator/readyz"} {
		f.Add(s, "scan.localhost:4000")
	}
	f.Fuzz(func(t *testing.T, p, host string) {
		_ = Name(host)
		var got string
		next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.URL.Path })
		h := Mounts(next, http.NotFoundHandler(), Mount{From: "/v2", To: "/sv/1/v2"}, Mount{From: "/api/validator/readyz", To: "/readyz"})
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.Path = p
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got != "" && got != "/readyz" && got != "/sv/1/v2" && !strings.HasPrefix(got, "/sv/1/v2/") {
			t.Errorf("path %q reached %q", p, got)
		}
		if strings.Contains(got, "/../") || strings.HasSuffix(got, "/..") {
			t.Errorf("path %q reached %q, with a dot segment", p, got)
		}
	})
}
