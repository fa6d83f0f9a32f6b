package scanclient_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/scanclient"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// BenchmarkBackfill measures a late-joining Scan backfilling a history of
// SANDNET_BENCH_UPDATES updates (default 100 000) over two hard migrations
// from three peers over loopback HTTP, with f+1 agreement on every read,
// into its own SQLite store: the rate is updates (import updates
// included) stored per second, from the first request to the complete
// history. The three peers serve one filled store, built once and kept in
// SANDNET_BENCH_DIR (default $TMPDIR/sandnet-backfill-bench). Skipped in
// -short.
//
//	SANDNET_BENCH_UPDATES=1000000 go test -run '^$' -bench BenchmarkBackfill -benchtime 1x -timeout 60m ./internal/scanclient/
func BenchmarkBackfill(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark at scale: not in -short")
	}
	n := 100_000
	if s := os.Getenv("SANDNET_BENCH_UPDATES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1000 {
			b.Fatalf("SANDNET_BENCH_UPDATES=%q: want a number of at least 1000", s)
		}
		n = v
	}
	src, imports := benchHistory(b, n)
	svc := &scan.Service{Store: src}
	mux := http.NewServeMux()
	scanapi.New(scanapi.Config{Service: svc}).Register(mux, scanapi.Prefix)
	var urls []string
	for range 3 {
		srv := httptest.NewServer(mux)
		b.Cleanup(srv.Close)
		urls = append(urls, srv.URL+scanapi.Prefix)
	}
	peers, err := scanclient.NewPeers(scanclient.Config{URLs: urls, Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	// The late Scan's own history: the newest update, its joining point.
	info, err := svc.MigrationInfo(b.Context(), 1)
	if err != nil || len(info.Ranges) != 1 {
		b.Fatalf("migration-info of the peers' migration 1: %+v, %v", info, err)
	}
	newest, err := src.UpdatesBefore(b.Context(), scan.BeforeQuery{Migration: 1, Synchronizer: info.Ranges[0].Synchronizer, Before: daml.MaxTimestamp, Limit: 1})
	if err != nil || len(newest) != 1 {
		b.Fatalf("the newest update: %v", err)
	}
	joined := newest[0]
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dst, err := sqlitestore.OpenScan(b.Context(), filepath.Join(b.TempDir(), "late.db"))
		if err != nil {
			b.Fatal(err)
		}
		start := scan.HistoryPosition{Migration: 1, RecordTime: joined.RecordTime()}
		if err := dst.BeginHistory(b.Context(), false, start); err != nil {
			b.Fatal(err)
		}
		live := joined
		scan.Effects(&live, storetest.HistoryDSO)
		if err := dst.Ingest(b.Context(), scan.Cursor{}, scan.Cursor{Offset: 1, Migration: 1, Watermark: start.RecordTime}, []scan.Update{live}); err != nil {
			b.Fatal(err)
		}
		bf := &scan.Backfiller{Store: dst, Peers: peers, DSO: storetest.HistoryDSO, Batch: scan.MaxPageSize}
		b.StartTimer()
		began, steps := time.Now(), 0
		for {
			st, err := bf.Step(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			steps++
			if st.Done {
				break
			}
		}
		took := time.Since(began)
		b.StopTimer()
		total := n - 1 + imports
		b.ReportMetric(float64(total)/took.Seconds(), "updates/s")
		b.ReportMetric(float64(steps), "steps")
		b.Logf("backfilled %d updates and %d import updates from 3 peers in %v (%.0f/s)", n-1, imports, took.Round(time.Millisecond), float64(total)/took.Seconds())
		dst.Close()
	}
}

// benchHistory returns a Scan store holding FillScanHistory's n updates,
// built once per n and kept for later runs (a copy is never needed: the
// benchmark only reads it).
func benchHistory(b *testing.B, n int) (*sqlitestore.Scan, int) {
	b.Helper()
	dir := os.Getenv("SANDNET_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sandnet-backfill-bench")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("history-%d.db", n))
	if _, err := os.Stat(path); err != nil {
		// Built under another name and renamed once complete, so an
		// interrupted build is never taken for a finished one.
		tmp := path + ".building"
		for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			os.Remove(p)
		}
		s, err := sqlitestore.OpenScan(b.Context(), tmp)
		if err != nil {
			b.Fatal(err)
		}
		storetest.FillScanHistory(b, s, n)
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			b.Fatal(err)
		}
	}
	s, err := sqlitestore.OpenScan(b.Context(), path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	imports, err := s.ImportUpdates(b.Context(), 1, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	return s, len(imports)
}
