package validatorapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkScanProxyReads measures the scan-proxy's cheap reads and the
// registry's through it (docs/performance.md, "Scan-proxy and registry
// reads"): requests per second with 16 concurrent clients over loopback
// HTTP, against a bare net/http handler serving the same bytes in the same
// run (ratio-to-bare). The proxy's Scan client caches as sandnet start's
// does.
//
//	go test -run '^$' -bench BenchmarkScanProxyReads -benchtime 5000x ./internal/api/validatorapi/
func BenchmarkScanProxyReads(b *testing.B) {
	e := newEnvWith(b, 0)
	srv := httptest.NewServer(e.handler)
	b.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for _, path := range []string{
		"/api/validator/v0/scan-proxy/dso-party-id",
		"/api/validator/v0/scan-proxy/amulet-rules",
		"/api/validator/v0/scan-proxy/registry/metadata/v1/info",
		"/api/validator/v0/scan-proxy/registry/metadata/v1/instruments",
	} {
		body := get200(b, client, srv.URL+path)
		bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		}))
		var bareRate float64
		b.Run(path+"/bare", func(b *testing.B) { bareRate = rate(b, client, bare.URL+path) })
		b.Run(path+"/sandnet", func(b *testing.B) {
			if r := rate(b, client, srv.URL+path); bareRate > 0 {
				b.ReportMetric(r/bareRate, "ratio-to-bare")
			}
		})
		bare.Close()
	}
}

// rate GETs url b.N times from 16 concurrent clients and reports
// requests per second.
func rate(b *testing.B, client *http.Client, url string) float64 {
	b.SetParallelism(8) // 16 goroutines on 2 CPUs
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Get(url)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("GET %s: %d", url, resp.StatusCode)
				return
			}
		}
	})
	r := float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(r, "requests/s")
	return r
}

func get200(b *testing.B, client *http.Client, url string) []byte {
	b.Helper()
	resp, err := client.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v %s", url, resp.StatusCode, err, body)
	}
	return body
}
