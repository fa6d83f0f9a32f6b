package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// svNodes are the SVs this process serves: each SV's Scan (own store, own
// ingestion, snapshots and backfilling) and ledger API, under /sv/<k> on
// the main listener and, with --sv-listen, on an address of its own. SVs
// added while running (POST /api/sandnet/v0/svs) join the set, and their
// Scans start at once if this process runs the automation.
type svNodes struct {
	cfg      StartCmd
	network  *ledger.Network
	seeded   *splice.Seeded
	registry *ledger.Registry
	authn    *web.Authenticator
	reg      prometheus.Registerer
	log      *slog.Logger
	mux      *http.ServeMux
	// base is the main listener's URL: the Scans' peers are read there.
	base string

	// adding serialises add: an SV added here (the admin API) and one
	// found by sync may be the same.
	adding sync.Mutex

	mu    sync.Mutex
	nodes []*scanNode
	// running is the context the Scans run in while this process leads
	// (nil otherwise), and wg waits for them.
	running context.Context
	wg      sync.WaitGroup
	// servers are the SVs' own listeners' servers (--sv-listen).
	servers []*http.Server
}

// add opens SV k's Scan store, builds its Scan and serves its APIs. The
// store is closed by close. Adding an SV that is served already returns
// its Scan.
func (s *svNodes) add(ctx context.Context, k int, sv splice.SeededSV) (*scanNode, error) {
	s.adding.Lock()
	defer s.adding.Unlock()
	if n, ok := s.served(k); ok {
		return n, nil
	}
	if served := s.count(); k != served+1 {
		return nil, fmt.Errorf("SV %d cannot be served before SV %d", k, served+1)
	}
	// What can fail comes first, so that a failure leaves nothing behind
	// (routes and metrics cannot be taken back) and the SV can be added
	// again.
	peers, err := scanPeers(s.base, k, max(len(s.seeded.SVs), k-1), s.log.With("scan_sv", k))
	if err != nil {
		return nil, err
	}
	var own net.Listener
	if s.cfg.SVListen != "" {
		if own, err = s.listen(k); err != nil {
			return nil, err
		}
	}
	st, err := openScanStore(ctx, s.cfg.DataDir, s.cfg.DatabaseURL, s.cfg.DBSchema, scanStoreName(k))
	if err != nil {
		if own != nil {
			own.Close()
		}
		return nil, err
	}
	src := &scan.NetworkSource{Network: s.network, Participant: sv.Participant, DSO: s.seeded.DSOParty}
	sc := scan.Config{DSO: s.seeded.DSOParty, SV: sv.Party, SVName: sv.Name, AnsAcronym: s.seeded.AnsAcronym}
	n := newScanNode(st, src, sc, k, s.cfg.SnapshotPeriod, s.reg, s.log)
	n.backfiller.Peers = peers

	api := scanapi.New(scanapi.Config{Service: n.service, Registry: s.registry, Logger: s.log, SVUser: sv.OperatorUser})
	ledgerAPI := ledgerapi.New(ledgerapi.Config{
		Participant: sv.Participant, ParticipantName: sv.ParticipantName, Ledger: ledgerapi.NetworkLedger(s.network),
		Registry: s.registry, Auth: s.authn, MaxListElements: s.cfg.ListLimit, Logger: s.log,
	})
	prefix := fmt.Sprintf("/sv/%d", k)
	// The token-standard registry is at the root of the Scan's host,
	// beside /api/scan, as Splice's Scan serves it.
	if k == 1 {
		api.Register(s.mux, scanapi.Prefix) // SV 1's Scan is also the network's
		api.RegisterRegistry(s.mux, "")
	}
	api.Register(s.mux, prefix+scanapi.Prefix)
	api.RegisterRegistry(s.mux, prefix)
	ledgerAPI.Register(s.mux, prefix)
	if own != nil {
		mux := http.NewServeMux()
		api.Register(mux, scanapi.Prefix)
		api.RegisterRegistry(mux, "")
		ledgerAPI.Register(mux, "")
		s.serve(k, own, mux)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodes = append(s.nodes, n)
	if s.running != nil {
		ctx := s.running
		s.wg.Go(func() { _ = n.run(ctx) })
	}
	return n, nil
}

// scanPeers returns the Scans SV k's Scan backfills from: the other
// SVs' of a network of n, over HTTP at base (/sv/j/api/scan), as
// separate SV nodes would read them. A network of one SV has none (nil).
func scanPeers(base string, k, n int, log *slog.Logger) (scan.Peers, error) {
	var urls []string
	for j := 1; j <= n; j++ {
		if j != k {
			urls = append(urls, fmt.Sprintf("%s/sv/%d%s", base, j, scanapi.Prefix))
		}
	}
	if len(urls) == 0 {
		return nil, nil
	}
	return scanclient.NewPeers(scanclient.Config{URLs: urls, Logger: log})
}

// listen opens SV k's own address (--sv-listen, see listenNth).
func (s *svNodes) listen(k int) (net.Listener, error) {
	return listenNth("--sv-listen", s.cfg.SVListen, k, fmt.Sprintf("SV %d", k))
}

// serve serves SV k's routes on its own address; close shuts it down.
func (s *svNodes) serve(k int, ln net.Listener, mux *http.ServeMux) {
	srv := serveOwn(ln, mux, s.cfg.CORSOrigins, s.log)
	s.mu.Lock()
	s.servers = append(s.servers, srv)
	s.mu.Unlock()
	s.log.Info("SV served on its own address", "sv", k, "url", "http://"+ln.Addr().String())
}

// run runs every SV's Scan, and those added meanwhile, until ctx ends.
func (s *svNodes) run(ctx context.Context) {
	s.mu.Lock()
	s.running = ctx
	for _, n := range s.nodes {
		s.wg.Go(func() { _ = n.run(ctx) })
	}
	s.mu.Unlock()
	<-ctx.Done()
	s.mu.Lock()
	s.running = nil
	s.mu.Unlock()
	s.wg.Wait()
}

// served returns SV k's Scan if it is served.
func (s *svNodes) served(k int) (*scanNode, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k < 1 || k > len(s.nodes) {
		return nil, false
	}
	return s.nodes[k-1], true
}

// count returns how many SVs are served.
func (s *svNodes) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.nodes)
}

// follow serves, until ctx ends, the SVs that other processes sharing the
// database add: every interval it reads the network's stored description
// and serves the SVs it lists beyond those served here.
func (s *svNodes) follow(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now, err := splice.Load(ctx, s.network.Store())
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("read the network's SVs", "err", err)
			}
			continue
		}
		for k := s.count() + 1; k <= len(now.SVs); k++ {
			if _, err := s.add(ctx, k, now.SVs[k-1]); err != nil {
				s.log.Warn("serve an SV another process added", "sv", k, "err", err)
				break
			}
			s.log.Info("serving an SV another process added", "sv", k, "name", now.SVs[k-1].Name)
		}
	}
}

// first returns SV 1's Scan.
func (s *svNodes) first() *scanNode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nodes[0]
}

// close stops the SVs' own servers and closes the Scans' stores, once
// nothing runs on them.
func (s *svNodes) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	shutdownOwn(s.servers)
	// In parallel: closing a store checkpoints and syncs its files.
	var wg sync.WaitGroup
	for _, n := range s.nodes {
		wg.Go(func() { n.store.Close() })
	}
	wg.Wait()
}
