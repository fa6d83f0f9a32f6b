// Package dashboard serves sandnet's browser dashboard: one HTML page at
// "/" and its scripts and styles under AssetPrefix, all embedded in the
// binary, so that `go build` alone builds it and it needs no network
// access at run time. The page is a client of sandnet's public APIs (the
// ledger API, the Scan, the validator and the admin API) with the token
// its user gives it; this package serves files only and reads nothing.
package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
)

// AssetPrefix is where the page's scripts and styles are served.
const AssetPrefix = "/ui/"

//go:embed assets
var assets embed.FS

// securityHeaders keep the page and its assets from running anything but
// the embedded scripts: the page renders ledger data (party hints,
// descriptions, names) that anyone may have written, and the policy is the
// second line of defence behind rendering it as text. connect-src 'self'
// covers the same-origin websocket of the live feed.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	// Assets change with the binary, which has no version in their names:
	// revalidate rather than serve a stale script after an upgrade.
	"Cache-Control": "no-cache",
}

// Register adds GET / (the page only: "/{$}" shadows no other route) and
// the assets under AssetPrefix to mux.
func Register(mux *http.ServeMux) {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	page, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		panic(err)
	}
	files := http.StripPrefix(AssetPrefix[:len(AssetPrefix)-1], http.FileServerFS(sub))
	mux.Handle("GET /{$}", withHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})))
	mux.Handle("GET "+AssetPrefix, withHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == AssetPrefix || r.URL.Path == AssetPrefix+"index.html" {
			http.NotFound(w, r) // no directory listing; the page is at /
			return
		}
		files.ServeHTTP(w, r)
	})))
}

func withHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range securityHeaders {
			w.Header().Set(k, v)
		}
		next.ServeHTTP(w, r)
	})
}
