package web_test

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/sandnet/sandnet/internal/api/web"
)

func TestChainOrder(t *testing.T) {
	t.Parallel()
	var order []string
	mw := func(name string) web.Middleware {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				order = append(order, name)
				next.ServeHTTP(w, r)
			})
		}
	}
	h := web.Chain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { order = append(order, "handler") }),
		mw("outer"), mw("inner"))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if got := strings.Join(order, ","); got != "outer,inner,handler" {
		t.Errorf("order = %s, want outer,inner,handler", got)
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	const allowed = "http://localhost:3000"
	tests := []struct {
		name    string
		origins []string
		method  string
		headers map[string]string
		// wantOrigin is the Access-Control-Allow-Origin answered, "" for none.
		wantOrigin    string
		wantCreds     bool // Access-Control-Allow-Credentials: true
		wantPreflight bool // answered 204 by CORS itself, with the preflight headers
	}{
		{name: "allowed origin", origins: []string{allowed}, method: http.MethodGet,
			headers: map[string]string{"Origin": allowed}, wantOrigin: allowed, wantCreds: true},
		{name: "denied origin", origins: []string{allowed}, method: http.MethodGet,
			headers: map[string]string{"Origin": "http://evil.example"}},
		{name: "no origin header", origins: []string{allowed}, method: http.MethodGet},
		{name: "preflight from allowed origin", origins: []string{allowed}, method: http.MethodOptions,
			headers:    map[string]string{"Origin": allowed, "Access-Control-Request-Method": "POST"},
			wantOrigin: allowed, wantCreds: true, wantPreflight: true},
		{name: "preflight from denied origin reaches the handler", origins: []string{allowed}, method: http.MethodOptions,
			headers: map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}},
		{name: "OPTIONS without a request method is no preflight", origins: []string{allowed}, method: http.MethodOptions,
			headers: map[string]string{"Origin": allowed}, wantOrigin: allowed, wantCreds: true},
		{name: "wildcard answers * without credentials", origins: []string{"*"}, method: http.MethodGet,
			headers: map[string]string{"Origin": "http://anything.example"}, wantOrigin: "*"},
		{name: "wildcard and null origin", origins: []string{"*"}, method: http.MethodGet,
			headers: map[string]string{"Origin": "null"}, wantOrigin: "*"},
		{name: "wildcard preflight", origins: []string{"*"}, method: http.MethodOptions,
			headers:    map[string]string{"Origin": "http://anything.example", "Access-Control-Request-Method": "PUT"},
			wantOrigin: "*", wantPreflight: true},
		{name: "wildcard beside a listed origin: the listed one keeps credentials", origins: []string{"*", allowed}, method: http.MethodGet,
			headers: map[string]string{"Origin": allowed}, wantOrigin: allowed, wantCreds: true},
		{name: "wildcard beside a listed origin: others get *", origins: []string{allowed, "*"}, method: http.MethodGet,
			headers: map[string]string{"Origin": "http://other.example"}, wantOrigin: "*"},
		{name: "an Origin of * is no listed origin", origins: []string{"*"}, method: http.MethodGet,
			headers: map[string]string{"Origin": "*"}, wantOrigin: "*"},
		{name: "null is refused unless listed", origins: []string{allowed}, method: http.MethodGet,
			headers: map[string]string{"Origin": "null"}},
		{name: "no origins configured", origins: nil, method: http.MethodOptions,
			headers: map[string]string{"Origin": allowed, "Access-Control-Request-Method": "POST"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reached := false
			h := web.CORS(tt.origins)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached = true
				w.WriteHeader(http.StatusTeapot)
			}))
			req := httptest.NewRequest(tt.method, "/api/x", nil)
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			hdr := rec.Header()
			if got := hdr.Get("Access-Control-Allow-Origin"); got != tt.wantOrigin {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tt.wantOrigin)
			}
			if got := hdr.Get("Access-Control-Allow-Credentials"); (got == "true") != tt.wantCreds || (got != "" && got != "true") {
				t.Errorf("Access-Control-Allow-Credentials = %q, want credentials %v", got, tt.wantCreds)
			}
			if len(tt.origins) > 0 && hdr.Get("Vary") != "Origin" {
				t.Errorf("Vary = %q, want Origin", hdr.Get("Vary"))
			}
			if tt.wantPreflight {
				if reached || rec.Code != http.StatusNoContent {
					t.Errorf("preflight: reached handler = %v, status = %d, want answered 204", reached, rec.Code)
				}
				if !strings.Contains(hdr.Get("Access-Control-Allow-Methods"), "POST") ||
					!strings.Contains(hdr.Get("Access-Control-Allow-Headers"), "Authorization") ||
					hdr.Get("Access-Control-Max-Age") == "" {
					t.Errorf("preflight headers: %v", hdr)
				}
				return
			}
			if !reached || rec.Code != http.StatusTeapot {
				t.Errorf("reached handler = %v, status = %d, want the handler's 418", reached, rec.Code)
			}
			if hdr.Get("Access-Control-Allow-Methods") != "" {
				t.Errorf("not a preflight, yet Access-Control-Allow-Methods = %q", hdr.Get("Access-Control-Allow-Methods"))
			}
		})
	}
}

var traceParentFormat = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`)

func TestNewTraceParent(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		tp := web.NewTraceParent()
		if !traceParentFormat.MatchString(tp) || strings.Contains(tp, "-"+strings.Repeat("0", 32)+"-") {
			t.Fatalf("NewTraceParent() = %q, not a valid sampled version-00 traceparent", tp)
		}
		if seen[tp] {
			t.Fatalf("NewTraceParent() repeated %q", tp)
		}
		seen[tp] = true
	}
}

func TestTraceContext(t *testing.T) {
	t.Parallel()
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name      string
		parent    string // traceparent header; "" sends none
		state     string
		wantKept  string // the traceparent expected in the context, "" for a new one
		wantState string
	}{
		{name: "valid kept with its state", parent: valid, state: "congo=t61rcWkgMzE", wantKept: valid, wantState: "congo=t61rcWkgMzE"},
		{name: "unsampled kept", parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", wantKept: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"},
		{name: "blanks and upper case normalised", parent: "  00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01 ", wantKept: valid},
		{name: "missing", parent: ""},
		{name: "garbage, state dropped", parent: "not-a-trace", state: "congo=t61rcWkgMzE"},
		{name: "short trace id", parent: "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01"},
		{name: "non-hex", parent: "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01"},
		{name: "version ff", parent: "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		{name: "zero trace id", parent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
		{name: "zero parent id", parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got web.Trace
			h := web.TraceContext(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = web.TraceFrom(r.Context())
			}))
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.parent != "" {
				req.Header.Set("traceparent", tt.parent)
			}
			if tt.state != "" {
				req.Header.Set("tracestate", tt.state)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if tt.wantKept != "" {
				if got.TraceParent != tt.wantKept {
					t.Errorf("TraceParent = %q, want %q kept", got.TraceParent, tt.wantKept)
				}
			} else {
				if !traceParentFormat.MatchString(got.TraceParent) {
					t.Errorf("TraceParent = %q, want a new valid one", got.TraceParent)
				}
				if got.TraceParent == strings.ToLower(strings.TrimSpace(tt.parent)) {
					t.Errorf("invalid traceparent %q was kept", tt.parent)
				}
			}
			if got.TraceState != tt.wantState {
				t.Errorf("TraceState = %q, want %q", got.TraceState, tt.wantState)
			}
		})
	}
}

func TestTraceFromWithoutMiddleware(t *testing.T) {
	t.Parallel()
	if tp := web.TraceFrom(t.Context()).TraceParent; !traceParentFormat.MatchString(tp) {
		t.Errorf("TraceFrom(no trace) = %q, want a new valid traceparent", tp)
	}
}

func TestRecover(t *testing.T) {
	t.Parallel()
	t.Run("panic is a JSON 500", func(t *testing.T) {
		t.Parallel()
		h := web.Recover(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom: internal detail") }))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
		if rec.Code != http.StatusInternalServerError {
			t.Errorf("status = %d, want 500", rec.Code)
		}
		if got := errorBody(t, rec); got != internalMessage {
			t.Errorf("error = %q, want %q", got, internalMessage)
		}
	})
	t.Run("no panic passes through", func(t *testing.T) {
		t.Parallel()
		h := web.Recover(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
		if rec.Code != http.StatusAccepted {
			t.Errorf("status = %d, want 202", rec.Code)
		}
	})
	t.Run("ErrAbortHandler is re-raised for net/http", func(t *testing.T) {
		t.Parallel()
		h := web.Recover(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler re-raised", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	})
}

// requestCounts returns sandnet_http_requests_total by "route method code".
func requestCounts(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range families {
		if mf.GetName() != "sandnet_http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out[labels(m, "route", "method", "code")] = m.GetCounter().GetValue()
		}
	}
	return out
}

func labels(m *dto.Metric, names ...string) string {
	vals := make([]string, len(names))
	for i, n := range names {
		for _, l := range m.GetLabel() {
			if l.GetName() == n {
				vals[i] = l.GetValue()
			}
		}
	}
	return strings.Join(vals, " ")
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	newMux := func() *http.ServeMux {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /parties/{id}", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
		mux.HandleFunc("POST /things", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })
		mux.HandleFunc("GET /silent", func(http.ResponseWriter, *http.Request) {})
		mux.HandleFunc("GET /panics/{id}", func(http.ResponseWriter, *http.Request) { panic("boom") })
		return mux
	}
	requests := []struct{ method, path string }{
		{http.MethodGet, "/parties/alice::1220ab"},
		{http.MethodGet, "/parties/bob::1220cd"},
		{http.MethodPost, "/things"},
		{http.MethodGet, "/silent"},
		{http.MethodGet, "/nowhere"},
	}
	want := map[string]float64{
		"GET /parties/{id} GET 200": 2, // the pattern, never the raw path with its ids
		"POST /things POST 201":     1,
		"GET /silent GET 200":       1, // a handler that writes nothing answers 200
		"unmatched GET 404":         1,
	}
	tests := []struct {
		name  string
		chain func(mux http.Handler, m *web.Metrics) http.Handler
		// recovers is whether the chain recovers panics, so that a
		// panicking handler can be requested.
		recovers bool
	}{
		{name: "around the mux", chain: func(mux http.Handler, m *web.Metrics) http.Handler {
			return m.Middleware(mux)
		}},
		{name: "as sandnet start chains it", recovers: true, chain: func(mux http.Handler, m *web.Metrics) http.Handler {
			// Metrics is outermost, so that a panic Recover answers is
			// counted as the 500 it is; TraceContext replaces the request
			// between Metrics and the mux.
			return web.Chain(mux, m.Middleware, web.Recover, web.CORS([]string{"*"}), web.TraceContext)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := prometheus.NewRegistry()
			h := tt.chain(newMux(), web.NewMetrics(reg))
			requests, want := requests, maps.Clone(want)
			if tt.recovers {
				requests = append(slices.Clip(requests), struct{ method, path string }{http.MethodGet, "/panics/alice::1220ab"})
				want["GET /panics/{id} GET 500"] = 1
			}
			for _, r := range requests {
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(r.method, r.path, nil))
			}
			got := requestCounts(t, reg)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("sandnet_http_requests_total{%s} = %v, want %v", k, got[k], v)
				}
			}
			if len(got) != len(want) {
				t.Errorf("series = %v, want %v", got, want)
			}
			families, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			for _, mf := range families {
				if mf.GetName() != "sandnet_http_request_duration_seconds" {
					continue
				}
				for _, m := range mf.GetMetric() {
					if route := labels(m, "route"); strings.Contains(route, "alice") {
						t.Errorf("duration route label %q holds a raw path", route)
					}
				}
			}
		})
	}
}
