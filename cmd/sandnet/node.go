package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sandnet/sandnet/internal/api/admin"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/builtin"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/operator"
)

// node is the network this process serves, on its data: the stores, the
// engine, every SV's Scan, the validator, the automation and the API
// handlers over them. The process (Main.Run) outlives it: a restore closes
// the node and opens another on the restored data, behind the same
// listener (see server). Everything a node registers (routes, metrics) is
// its own, so that opening one again registers nothing twice.
type node struct {
	log *slog.Logger
	// ctx ends when the node closes; its cause (see closeNode) ends the
	// requests and streams the node is serving with a clear message.
	ctx    context.Context
	cancel context.CancelCauseFunc

	store      ledger.Store
	leader     leaderStore
	network    *ledger.Network
	seeded     *splice.Seeded
	svs        *svNodes
	validators *validatorNodes
	admin      *admin.Handler
	op         *busyOperator
	// reg holds the node's own metrics (Scans, automation leadership);
	// the process's /metrics gathers it beside its own.
	reg *prometheus.Registry
	// mux holds the node's routes; handle serves them.
	mux *http.ServeMux

	// gate orders request admission against close: once closing is set no
	// request enters, and close waits for those inside (inflight).
	gate     sync.Mutex
	closing  bool
	inflight sync.WaitGroup

	// pg is set on PostgreSQL; leading while this process runs the
	// automation.
	pg      bool
	leading atomic.Bool

	// closers run in reverse order at close.
	closers []func()
}

// nodeDeps is what a node takes from the process: shared for the process's
// life, whatever node it serves.
type nodeDeps struct {
	main  *Main
	authn *web.Authenticator
	// addr is the main listener's address (host:port).
	addr string
	// engineMetrics observe every node's engine: counters keep counting
	// across restores.
	engineMetrics ledger.Observer
	// seedCfg seeds a new network (its genesis is set at open).
	seedCfg splice.SeedConfig
	// resumeAt, when not zero, is the ledger time the node's clock resumes
	// at (a restore: the saved network's time, see docs/decisions.md).
	resumeAt daml.Timestamp
}

// openNode opens the stores on cfg's data, opens (or seeds, or forks) the
// network, and builds and starts everything serving it. On failure it
// closes what it opened.
func openNode(ctx context.Context, d nodeDeps) (_ *node, err error) {
	m, cfg, log := d.main, d.main.Config, d.main.Logger
	n := &node{log: log, reg: prometheus.NewRegistry(), mux: http.NewServeMux(), pg: cfg.DatabaseURL != ""}
	n.ctx, n.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	n.closers = append(n.closers, func() { n.cancel(errNodeClosed) })
	defer func() {
		if err != nil {
			n.close(errNodeClosed)
		}
	}()
	// The process's context still ends the node (SIGTERM while it
	// starts); once started, Main.Run closes it in order.
	stopWithProcess := context.AfterFunc(ctx, func() { n.cancel(errNodeClosed) })
	n.closers = append(n.closers, func() { stopWithProcess() })
	ctx = n.ctx

	if n.store, n.leader, err = m.openLedgerStore(ctx); err != nil {
		return nil, err
	}
	n.closers = append(n.closers, func() { n.store.Close() })
	if d.resumeAt != 0 {
		if err := resumeClock(ctx, n.store, d.resumeAt); err != nil {
			return nil, err
		}
	}
	registry := builtin.NewRegistry()
	seed, forkFrom, err := m.prepareFork(ctx, n.store, registry)
	if err != nil {
		return nil, err
	}
	if n.network, err = ledger.Open(ctx, n.store, registry, ledger.Config{
		Seed: seed, Logger: log, Observer: d.engineMetrics,
	}); err != nil {
		return nil, err
	}
	n.closers = append(n.closers, func() { n.network.Close() })

	// The network file (or the flags) and the ledger's recorded network;
	// a new network's genesis.
	seedCfg, err := m.networkSeedConfig(ctx, n.network, forkFrom != nil, d.seedCfg)
	if err != nil {
		return nil, err
	}
	_, wasSeeded, err := n.network.Store().Meta(ctx, splice.SeededMetaKey)
	if err != nil {
		return nil, err
	}
	if n.seeded, err = seedOrFork(ctx, n.network, n.leader, forkFrom, seedCfg); err != nil {
		return nil, fmt.Errorf("seed the network: %w", err)
	}
	// Every SV has its own Scan, with its own store, reading its own
	// participant: SV 1's in <data-dir>/scan.db (or <prefix>_scan), SV k's
	// in scan-sv<k>.db (or <prefix>_scan_sv<k>). The stores close after
	// the servers have shut down.
	n.svs = &svNodes{
		cfg: cfg, network: n.network, seeded: n.seeded, registry: registry, authn: d.authn, reg: n.reg, log: log, mux: n.mux,
		base: "http://" + d.addr,
	}
	n.closers = append(n.closers, n.svs.close)
	for i, sv := range n.seeded.SVs {
		if _, err := n.svs.add(ctx, i+1, sv); err != nil {
			return nil, err
		}
	}
	scanNode := n.svs.first()
	if !wasSeeded {
		// A new network is ready once SV 1's Scan has its history and
		// first snapshot, so a new user can page the ACS at once. A
		// restart does not wait, nor do the other SVs' Scans: what they
		// have to catch up on (a snapshot of a large ACS, say) happens in
		// the background.
		if err := scanNode.catchUp(ctx); err != nil {
			return nil, err
		}
	}
	// One validator node per validator, each with its own store.
	n.validators, err = openValidators(ctx, validatorDeps{
		cfg: cfg, network: n.network, seeded: n.seeded, registry: registry, authn: d.authn, mux: n.mux,
		scanURL: scanURLOf(d.addr), log: log,
	})
	if n.validators != nil {
		n.closers = append(n.closers, n.validators.close)
	}
	if err != nil {
		return nil, err
	}
	op := operator.New(n.network, n.seeded)
	op.OnSVAdded(func(ctx context.Context, k int, sv splice.SeededSV) error {
		_, err := n.svs.add(ctx, k, sv)
		return err
	})
	n.op = &busyOperator{Operator: op}
	// Other processes sharing a PostgreSQL database may add SVs too.
	if cfg.DatabaseURL != "" {
		followCtx, stopFollowing := context.WithCancel(ctx)
		following := make(chan struct{})
		go func() {
			defer close(following)
			n.svs.follow(followCtx, 2*time.Second)
		}()
		n.closers = append(n.closers, func() {
			stopFollowing()
			<-following
		})
	}
	// The on-demand snapshot is SV 1's Scan's.
	n.admin = admin.New(n.op, d.authn, scanNode.snapshots)
	n.admin.Register(n.mux)

	n.startAutomation()
	return n, nil
}

// startAutomation runs the DSO's and the validator's automation and every
// Scan's ingestion while this process leads: one lease covers all of it,
// so that with several processes on one PostgreSQL database exactly one
// runs it.
func (n *node) startAutomation() {
	automation := splice.NewDSOAutomation(n.network, n.seeded, n.log)
	leading := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sandnet_automation_leader", Help: "1 while this process runs the network's automation.",
	})
	n.reg.MustRegister(leading)
	autoCtx, stopAutomation := context.WithCancel(n.ctx)
	var automationDone sync.WaitGroup
	automationDone.Go(func() {
		runWhileLeader(autoCtx, n.leader, n.log, leading, func(ctx context.Context) error {
			n.leading.Store(true)
			defer n.leading.Store(false)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var wg sync.WaitGroup
			wg.Go(func() { n.svs.run(ctx) })
			wg.Go(func() { n.validators.run(ctx) })
			err := automation.Run(ctx)
			cancel() // automation ended: the scan's loops end with it
			wg.Wait()
			return err
		})
	})
	// Stop automation before the engine and the store close under it.
	n.closers = append(n.closers, func() {
		stopAutomation()
		automationDone.Wait()
	})
}

// errNodeClosed is the cause of a node's context when the process stops.
var errNodeClosed = fault.New(fault.Unavailable, "sandnet is shutting down")

// inflightWait bounds how long close waits for the requests inside the
// node: a stream ends as soon as its context does, a command within its
// own timeout.
const inflightWait = 10 * time.Second

// close ends the node's requests and streams with cause, waits (bounded)
// for them, stops automation and closes everything in reverse order of
// opening. It is called once.
func (n *node) close(cause error) {
	n.gate.Lock()
	n.closing = true
	n.gate.Unlock()
	n.cancel(cause)
	done := make(chan struct{})
	go func() {
		n.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(inflightWait):
		n.log.Warn("requests still running while the network closes", "waited", inflightWait)
	}
	for i := len(n.closers) - 1; i >= 0; i-- {
		n.closers[i]()
	}
}

// serve serves r if the node has a route for it and is not closing, and
// reports whether it did, and whether the node was closing. The request's
// context ends with the node's, with its cause, so that a stream open
// across a restore ends with a message saying so.
//
// With always, it serves r even without a route: its mux answers 404, or
// 405 for a route of another method.
func (n *node) serve(w http.ResponseWriter, r *http.Request, always bool) (served, closing bool) {
	// Handler only finds the route: ServeHTTP sets the path values.
	if _, pattern := n.mux.Handler(r); pattern == "" && !always {
		return false, false
	}
	n.gate.Lock()
	if n.closing {
		n.gate.Unlock()
		return false, true
	}
	n.inflight.Add(1)
	n.gate.Unlock()
	defer n.inflight.Done()
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	stop := context.AfterFunc(n.ctx, func() { cancel(context.Cause(n.ctx)) })
	defer stop()
	r2 := r.WithContext(ctx)
	n.mux.ServeHTTP(w, r2)
	// The process's metrics label requests by the route that served them.
	r.Pattern = r2.Pattern
	return true, false
}

// busyOperator is the admin API's operator, counting the operations that
// a save or a restore must not run across (a hard migration, adding an
// SV), so that they are refused while one runs.
type busyOperator struct {
	*operator.Operator
	running atomic.Int32
	// what names the operation running, for the refusal's message.
	what atomic.Value
}

// Migrate runs a hard migration, marked as running.
func (o *busyOperator) Migrate(ctx context.Context) (int64, error) {
	defer o.mark("a hard synchronizer migration")()
	return o.Operator.Migrate(ctx)
}

// AddSV adds an SV, marked as running.
func (o *busyOperator) AddSV(ctx context.Context) (operator.SVInfo, int, error) {
	defer o.mark("adding an SV")()
	return o.Operator.AddSV(ctx)
}

func (o *busyOperator) mark(what string) func() {
	o.what.Store(what)
	o.running.Add(1)
	return func() { o.running.Add(-1) }
}

// busy returns what runs that a save or a restore must wait for, or "".
func (n *node) busy(ctx context.Context) (string, error) {
	if n.op.running.Load() > 0 {
		what, _ := n.op.what.Load().(string)
		return what, nil
	}
	for k := 1; ; k++ {
		sn, ok := n.svs.served(k)
		if !ok {
			return "", nil
		}
		b, err := sn.store.Backfilling(ctx)
		if err != nil {
			return "", err
		}
		if !b.Complete || !b.ImportUpdatesComplete {
			return fmt.Sprintf("SV %d's Scan backfilling its history", k), nil
		}
	}
}

// stores returns the node's open stores: the ledger's, every Scan's and
// every validator's.
func (n *node) stores() []any {
	out := []any{n.store}
	for _, v := range n.validators.nodes {
		out = append(out, v.store)
	}
	for k := 1; ; k++ {
		sn, ok := n.svs.served(k)
		if !ok {
			return out
		}
		out = append(out, sn.store)
	}
}

// resumeClock sets the stored clock so that ledger time resumes at at
// (never before the ledger's last record time).
func resumeClock(ctx context.Context, st ledger.Store, at daml.Timestamp) error {
	return st.Write(ctx, func(w ledger.WriteTx) error {
		head, err := w.Head(ctx)
		if err != nil {
			return err
		}
		at = max(at, head.LastRecordTime)
		return w.SetClockOffset(ctx, int64(at)-time.Now().UnixMicro())
	})
}

// restorable refuses a restore that this process cannot do alone: with
// several processes on one PostgreSQL database, only the one running the
// automation may restore, and the others must be stopped first (they
// would go on with what they had read of the network before). A node
// just opened (a restore right after a restore) takes the lead within
// moments: it is waited for.
func (n *node) restorable(ctx context.Context) error {
	if !n.pg {
		return nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for !n.leading.Load() {
		if time.Now().After(deadline) {
			return fault.New(fault.FailedPrecondition, "this process does not run the network's automation: another sandnet process shares the database; stop the others and restore from the one left")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}
