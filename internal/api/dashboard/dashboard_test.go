package dashboard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/dashboard"
)

func TestRegister(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	dashboard.Register(mux)
	// Another route, as the APIs beside the dashboard: "/" must not
	// shadow it, nor answer paths nobody serves.
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		method, path string
		status       int
		contentType  string
		body         string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", `<script type="module" src="/ui/app.js">`},
		{"GET", "/?x=1", 200, "text/html; charset=utf-8", "<title>sandnet dashboard</title>"},
		{"HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/ui/app.js", 200, "text/javascript; charset=utf-8", "function el("},
		{"GET", "/ui/app.css", 200, "text/css; charset=utf-8", ":root"},
		{"GET", "/ui/", 404, "", ""},
		{"GET", "/ui/index.html", 404, "", ""},
		{"GET", "/ui/nope.js", 404, "", ""},
		{"GET", "/index.html", 404, "", ""},
		{"GET", "/livez", 200, "", "ok"},
		{"POST", "/", 405, "", ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.contentType != "" && resp.Header.Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), tc.contentType)
			}
			if !strings.Contains(string(body), tc.body) {
				t.Errorf("body lacks %q", tc.body)
			}
			if tc.status == 200 && tc.path != "/livez" {
				csp := resp.Header.Get("Content-Security-Policy")
				if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
					t.Errorf("Content-Security-Policy %q", csp)
				}
			}
		})
	}
}

// TestNoMarkupFromData keeps the page's scripts free of the DOM sinks that
// parse strings as HTML: everything they render from the ledger goes
// through text nodes (the browser test checks the result).
func TestNoMarkupFromData(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	dashboard.Register(mux)
	for _, path := range []string{"/ui/app.js"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			if strings.Contains(rec.Body.String(), sink) {
				t.Errorf("%s uses %s", path, sink)
			}
		}
	}
}
