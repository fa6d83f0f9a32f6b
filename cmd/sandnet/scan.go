package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// scanNode is an SV's Scan: its own store, the reads it serves, and the
// background work that fills it (ingestion and ACS snapshots).
type scanNode struct {
	store     scan.Store
	service   *scan.Service
	ingester  *scan.Ingester
	snapshots *scan.Snapshotter
	// backfiller fills a late-joining SV's history from its peers (its
	// Peers are set by the caller); for the others it has nothing to do.
	backfiller *scan.Backfiller
}

// scanStoreName is the name of SV k's Scan database: scan for SV 1 (as
// before there was a Scan per SV), scan_sv<k> for the others.
func scanStoreName(k int) string {
	if k == 1 {
		return "scan"
	}
	return fmt.Sprintf("scan_sv%d", k)
}

// openScanStore opens a Scan's database called name: <dataDir>/<name>.db
// (with - for _: scan-sv2.db), or the schema <prefix>_<name> on PostgreSQL
// when databaseURL is set.
func openScanStore(ctx context.Context, dataDir, databaseURL, prefix, name string) (scan.Store, error) {
	if databaseURL != "" {
		s, err := pgstore.OpenScan(ctx, databaseURL, prefix+"_"+name)
		if err != nil {
			return nil, fmt.Errorf("open the scan's PostgreSQL schema: %w", err)
		}
		return s, nil
	}
	s, err := sqlitestore.OpenScan(ctx, filepath.Join(dataDir, strings.ReplaceAll(name, "_", "-")+".db"))
	if err != nil {
		return nil, fmt.Errorf("open the scan's SQLite database: %w", err)
	}
	return s, nil
}

// newScanNode builds SV k's Scan over a source. Its metrics carry the
// label sv="<k>", so that the Scans of several SVs share a registry.
func newScanNode(st scan.Store, src scan.Source, cfg scan.Config, k int, period time.Duration, reg prometheus.Registerer, log *slog.Logger) *scanNode {
	ingested := ledger.NewSignal()
	log = log.With("scan_sv", k)
	labels := prometheus.Labels{"sv": strconv.Itoa(k)}
	snapshotSeconds := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "sandnet_scan_snapshot_seconds", Help: "Time to build an ACS snapshot.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), ConstLabels: labels,
	})
	snapshotContracts := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sandnet_scan_snapshot_contracts", Help: "Contracts in the latest ACS snapshot.", ConstLabels: labels,
	})
	backfilled := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sandnet_scan_backfilled_updates_total", Help: "Updates a late-joining Scan has backfilled from its peers, by kind (update, import).",
		ConstLabels: labels,
	}, []string{"kind"})
	complete := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "sandnet_scan_backfilling_complete", Help: "1 once the Scan's history is complete (GET /v0/backfilling/status), 0 while it backfills.",
		ConstLabels: labels,
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if b, err := st.Backfilling(ctx); err == nil && b.Complete && b.ImportUpdatesComplete {
			return 1
		}
		return 0
	})
	reg.MustRegister(snapshotSeconds, snapshotContracts, backfilled, complete)
	// The registry's cache follows this process's ingester; on PostgreSQL
	// other processes may ingest into the same schema, so it also checks
	// the store's cursor.
	registry := scan.NewRegistryCache()
	_, registry.Shared = st.(*pgstore.Scan)
	return &scanNode{
		store:   st,
		service: &scan.Service{Config: cfg, Store: st, Source: src, Registry: registry},
		ingester: &scan.Ingester{
			Source: src, Store: st, Logger: log, Ingested: ingested, DSO: cfg.DSO, SV: cfg.SV, Observer: registry,
		},
		backfiller: &scan.Backfiller{
			Store: st, DSO: cfg.DSO, Logger: log, Ingested: ingested,
			Stored: func(updates, imports int) {
				backfilled.WithLabelValues("update").Add(float64(updates))
				backfilled.WithLabelValues("import").Add(float64(imports))
			},
		},
		snapshots: &scan.Snapshotter{
			Store: st, Period: period, Ingested: ingested, Logger: log,
			Taken: func(s scan.Snapshot, d time.Duration) {
				snapshotSeconds.Observe(d.Seconds())
				snapshotContracts.Set(float64(s.Contracts()))
				log.Info("ACS snapshot taken", "migration", s.Migration, "record_time", s.RecordTime, "contracts", s.Contracts(), "took", d.Round(time.Millisecond))
			},
		},
	}
}

// catchUp ingests what the ledger has and takes the snapshots that are
// due, so that a network served as ready has its history and its first
// snapshot in Scan. Several processes may do it at once: ingestion
// compare-and-swaps its cursor and snapshots are idempotent.
func (s *scanNode) catchUp(ctx context.Context) error {
	if _, err := s.ingester.Step(ctx); err != nil {
		return fmt.Errorf("scan ingestion: %w", err)
	}
	if _, err := s.snapshots.Step(ctx); err != nil {
		return fmt.Errorf("ACS snapshot: %w", err)
	}
	return nil
}

// run ingests and snapshots until ctx ends. The two run apart, so that a
// long snapshot build never holds up ingestion.
func (s *scanNode) run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.ingester.Run(ctx, s.snapshots.Wake) })
	wg.Go(func() { _ = s.snapshots.Run(ctx) })
	if s.backfiller.Peers != nil {
		wg.Go(func() {
			// Once the history is complete, the snapshots due meanwhile
			// are taken at once rather than at the next ingested batch.
			if s.backfiller.Run(ctx) == nil {
				s.ingester.Ingested.Notify()
			}
		})
	}
	wg.Wait()
	return nil
}
