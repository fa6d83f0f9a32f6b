package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sandnet/sandnet/internal/api/admin"
	"github.com/sandnet/sandnet/internal/api/dashboard"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// StartCmd runs a network. Every flag has an environment-variable twin.
type StartCmd struct {
	Config           ConfigFile    `name:"config" env:"SANDNET_CONFIG" placeholder:"FILE" help:"Network file (YAML; sandnet init writes an example): the network a first start seeds and the other settings, which flags and environment override."`
	Listen           string        `default:"127.0.0.1:7575" env:"SANDNET_LISTEN" help:"Address to serve every API on."`
	DataDir          string        `default:"./.sandnet" env:"SANDNET_DATA_DIR" type:"path" help:"Directory for the SQLite databases and the auth secret."`
	DatabaseURL      string        `env:"SANDNET_DATABASE_URL" placeholder:"postgres://…" help:"Keep the data in PostgreSQL instead of SQLite (one schema per component)."`
	DBSchema         string        `name:"database-schema" default:"sandnet" env:"SANDNET_DATABASE_SCHEMA" help:"Prefix of the PostgreSQL schemas (<prefix>_ledger, …); processes sharing one network use the same prefix."`
	NetworkSeed      string        `default:"sandnet" env:"SANDNET_NETWORK_SEED" help:"Seed for every id of the seeded network: the same seed gives the same ids."`
	SVs              int           `name:"svs" env:"SANDNET_SVS" help:"Number of super validators in a newly seeded network (default 4; 1 with --localnet)."`
	SeedPreapprovals bool          `name:"seed-preapprovals" env:"SANDNET_SEED_PREAPPROVALS" help:"Give the seeded users alice and bob transfer pre-approvals provided by the validator operator (90 days, renewed by the validator) in a newly seeded network. Off by default, as in Splice's LocalNet."`
	SVListen         string        `name:"sv-listen" env:"SANDNET_SV_LISTEN" placeholder:"HOST:PORT" help:"Also serve each SV on an address of its own: SV k's Scan at /api/scan and ledger API at the root of HOST:PORT+k-1 (port 0: a port of its own each, named in the log; they are always under /sv/k on --listen)."`
	Validators       []string      `name:"validator" sep:";" env:"SANDNET_VALIDATORS" placeholder:"NAME[:USER,…]" help:"Seed a further validator, with a participant of its own, in a newly seeded network (repeatable; in the environment, separated by ;): NAME is 1-40 of a-z, 0-9, -, the USERs its wallet users. Served under /validators/NAME (its validator API at /api/validator, its ledger API at /v2)."`
	ValidatorListen  string        `name:"validator-listen" env:"SANDNET_VALIDATOR_LISTEN" placeholder:"HOST:PORT" help:"Also serve each validator on an address of its own: validator i's (the default first) validator API at /api/validator and ledger API at the root of HOST:PORT+i-1 (port 0: a port of its own each, named in the log; they are always under /validators/NAME on --listen)."`
	Auth             string        `default:"hs256" enum:"hs256,jwks,none" env:"SANDNET_AUTH" help:"Token verification: hs256 (shared secret), jwks (RS256/ES256 keys from --auth-jwks-url) or none (throwaway use only)."`
	AuthSecret       string        `env:"SANDNET_AUTH_SECRET" help:"HS256 secret (at least 32 bytes). Default: generated at first start and kept in <data-dir>/auth-secret."`
	AuthAud          string        `name:"auth-audience" env:"SANDNET_AUTH_AUDIENCE" help:"Audience that tokens must carry in aud."`
	AuthJWKSURL      string        `name:"auth-jwks-url" env:"SANDNET_AUTH_JWKS_URL" help:"JWKS URL for --auth jwks."`
	CORSOrigins      []string      `name:"cors-origins" env:"SANDNET_CORS_ORIGINS" help:"Origins allowed to call the APIs from a browser; * allows any, without credentials."`
	SnapshotPeriod   time.Duration `name:"scan-snapshot-period" default:"3h" env:"SANDNET_SCAN_SNAPSHOT_PERIOD" help:"Time between the Scan's ACS snapshots; they are taken at multiples of it since midnight UTC (3h: 00:00, 03:00, …)."`
	ListLimit        int           `name:"http-list-max-elements-limit" default:"200" env:"SANDNET_HTTP_LIST_MAX_ELEMENTS_LIMIT" help:"Most elements a ledger API list (POST /v2/updates) returns; a longer list is refused with 413."`
	ForkFrom         string        `name:"fork-from" env:"SANDNET_FORK_FROM" placeholder:"SCAN_URL" help:"Start a new network from the latest ACS snapshot of this Scan (http://host:port/api/scan), as a fork; needs an empty data directory or schema. A forked network restarts as any other."`
	LogFormat        string        `default:"text" enum:"text,json" env:"SANDNET_LOG_FORMAT" help:"Log format: text or json."`
	LogLevel         string        `default:"info" enum:"debug,info,warn,error" env:"SANDNET_LOG_LEVEL" help:"Log level."`
	LocalNetFlags    `embed:""`
}

// Run starts the network and serves until ctx is cancelled (SIGINT,
// SIGTERM).
func (c *StartCmd) Run(ctx context.Context) error {
	m := &Main{Config: *c, Logger: newLogger(c.LogFormat, c.LogLevel)}
	if c.LogFormat == "text" {
		// JSON logs are for machines, which read the log lines instead.
		m.Banner = os.Stderr
	}
	return m.Run(ctx)
}

func newLogger(format, level string) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lvl}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// Main is a running sandnet: its configuration, stores, engine and servers.
// End-to-end tests build the binary and run it as users do; the property
// test runs it in-process (under -race) through Listener and OnReady.
type Main struct {
	Config StartCmd
	Logger *slog.Logger
	// Listener, when not nil, is served instead of listening on
	// Config.Listen, so that an in-process test serves on a port the kernel
	// chose rather than guessing a free one. Run closes it.
	Listener net.Listener
	// OnReady, when not nil, is called once the network is ready, with its
	// engine and seeded network: an in-process test reads the ledger's
	// store through them (the amulet supply, say), which no API serves.
	// It is called again, with the new engine, after each restore.
	OnReady func(*ledger.Network, *splice.Seeded)
	// Banner, when not nil, gets the start-up banner for a person: where
	// every API is, how to get a token, where the data lives.
	Banner io.Writer

	ready atomic.Bool
}

// Run listens, opens the network (a node: stores, engine, Scans,
// validator, automation, API handlers; see node.go), serves, and shuts
// everything down in reverse order when ctx ends. What lives for the whole
// process is here: the listener, the HTTP server, /livez, /readyz,
// /metrics and the save routes; a restore replaces the node behind them.
func (m *Main) Run(ctx context.Context) error {
	start := time.Now()
	log := m.Logger
	slog.SetDefault(log)
	m.Config.applyLocalNetDefaults()
	cfg := m.Config

	if cfg.SnapshotPeriod < time.Minute {
		return fmt.Errorf("--scan-snapshot-period must be at least 1m, not %s", cfg.SnapshotPeriod)
	}
	if cfg.ListLimit <= 0 {
		return fmt.Errorf("--http-list-max-elements-limit must be positive, not %d", cfg.ListLimit)
	}
	seedCfg, err := seedConfig(cfg)
	if err == nil {
		err = cfg.withLocalNetValidators(&seedCfg)
	}
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" || cfg.Auth == "hs256" && cfg.AuthSecret == "" {
		if err := ensureDataDir(cfg.DataDir); err != nil {
			return err
		}
	}
	verifier, minter, err := m.verifier(ctx)
	if err != nil {
		return err
	}
	// Listen before the slow parts so that a taken port fails at once and
	// /livez answers while the network is being seeded.
	ln := m.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", cfg.Listen); err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
		}
	}
	defer ln.Close()
	localNet, err := openLocalNet(cfg, log)
	if err != nil {
		return err
	}
	defer localNet.close()

	// The process's metrics; each node registers its own in a registry of
	// its own, gathered beside these while it serves.
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Clients send the same token with every request: its signature is
	// checked once a minute, not per request.
	authn := &web.Authenticator{Verifier: auth.Cached(verifier, time.Minute, 100_000, nil), Disabled: cfg.Auth == "none"}

	srvState := newServer(m)
	mux := srvState.mux
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !m.ready.Load() {
			http.Error(w, "not ready: "+srvState.notReadyReason(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(prometheus.Gatherers{reg, prometheus.GathererFunc(srvState.gatherNode)}, promhttp.HandlerOpts{}))
	saver, err := newSaver(ctx, m, srvState)
	if err != nil {
		return err
	}
	defer saver.close()
	admin.NewSaves(saver, srvState.authorize).Register(mux)
	// Routes that live as long as the process go on mux; a "GET /" here
	// (a dashboard) answers only what the network's routes do not (see
	// server.ServeHTTP).
	dashboard.Register(mux)

	handler := web.Chain(srvState, web.NewMetrics(reg).Middleware, web.Recover, web.CORS(cfg.CORSOrigins), web.TraceContext)
	srv := web.NewServer(handler, web.DefaultTimeouts, log)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	defer localNet.close() // before the stores close, as the main server

	deps := nodeDeps{main: m, authn: authn, addr: ln.Addr().String(), engineMetrics: newEngineMetrics(reg), seedCfg: seedCfg}
	n, err := openNode(ctx, deps)
	if err != nil {
		return err
	}
	srvState.deps = deps
	// The node closes first: its streams end, then its automation and
	// stores, before the server shuts down.
	defer srvState.closeNode(errNodeClosed)
	if localNet != nil {
		if err := checkLocalNet(cfg, n.seeded); err != nil {
			return err
		}
		// LocalNet's addresses serve the process's handler: they follow
		// the node across restores as the main address does.
		localNet.route(handler)
		log.Info("serving Splice LocalNet's addresses", localNet.urls()...)
	}
	srvState.setNode(n)

	// The hints come before the ready line, so whoever waits for that
	// line (scripts, the e2e tests) finds them already written.
	tokenHint, adminHint, statusHint := startHints(cfg, ln.Addr().String())
	if minter != nil && tokenHint != "" {
		log.Info("mint a token with: " + tokenHint)
	}
	log.Info("drive it with: " + adminHint)
	dashboardURL := dashboardLink(minter, ln.Addr().String())
	log.Info("open the dashboard: " + dashboardURL)
	startup := time.Since(start)
	log.Info("sandnet is ready",
		"url", "http://"+ln.Addr().String(),
		"startup", startup.Round(time.Millisecond),
		"store", storeName(cfg),
		"dso_party", n.seeded.DSOParty,
	)
	if m.Banner != nil {
		b := banner{
			base: adminURL(ln.Addr().String()), startup: startup, store: dataPlace(cfg), seeded: n.seeded,
			dashboard: dashboardURL, adminHint: adminHint, statusHint: statusHint,
		}
		if minter != nil {
			b.tokenHint = tokenHint
		}
		if localNet != nil {
			b.localNet = localNet.urls()
		}
		if err := b.write(m.Banner); err != nil {
			log.Warn("could not print the start-up banner", "err", err)
		}
	}

	select {
	case <-ctx.Done():
		log.Info("shutting down")
		return nil
	case err := <-serveErr:
		return err
	}
}

func storeName(cfg StartCmd) string {
	if cfg.DatabaseURL != "" {
		return "postgres"
	}
	return "sqlite " + filepath.Join(cfg.DataDir, "ledger.db")
}

// ensureDataDir creates the data directory, and checks that it is a
// writable directory, so that a bad path fails with one clear line.
func ensureDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory %s: %w", dir, errors.Unwrap(err))
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("data directory %s is not writable: %w", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

func (m *Main) verifier(ctx context.Context) (auth.Verifier, *auth.HMAC, error) {
	cfg := m.Config
	switch cfg.Auth {
	case "none":
		m.Logger.Warn("authentication is off (--auth none): anyone who can reach the port can act as any user")
		return auth.Unverified{}, nil, nil
	case "jwks":
		if cfg.AuthJWKSURL == "" {
			return nil, nil, errors.New("--auth jwks needs --auth-jwks-url")
		}
		j, err := auth.NewJWKS(ctx, cfg.AuthJWKSURL, cfg.AuthAud, &http.Client{Timeout: 10 * time.Second})
		if err != nil {
			return nil, nil, fmt.Errorf("load JWKS: %w", err)
		}
		return j, nil, nil
	default:
		secret, err := loadSecret(cfg.DataDir, cfg.AuthSecret)
		if err != nil {
			return nil, nil, err
		}
		h, err := newHMAC(secret, cfg.AuthAud, m.Logger)
		if err != nil {
			return nil, nil, err
		}
		return h, h, nil
	}
}

// loadSecret returns the configured secret, or the one kept in the data
// directory (made at first start).
func loadSecret(dataDir, secret string) ([]byte, error) {
	if secret != "" {
		return []byte(secret), nil
	}
	b, err := auth.LoadOrCreateSecret(filepath.Join(dataDir, "auth-secret"))
	if err != nil {
		return nil, fmt.Errorf("auth secret: %w", err)
	}
	return b, nil
}

// leaderStore is a ledger store that can elect the process running
// automation.
type leaderStore interface {
	ledger.Store
	TryLead(ctx context.Context) (lost <-chan struct{}, ok bool, err error)
}

func (m *Main) openLedgerStore(ctx context.Context) (ledger.Store, leaderStore, error) {
	cfg := m.Config
	if cfg.DatabaseURL != "" {
		if !strings.HasPrefix(cfg.DatabaseURL, "postgres://") && !strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
			return nil, nil, errors.New("--database-url must be a postgres:// URL")
		}
		s, err := pgstore.OpenLedger(ctx, cfg.DatabaseURL, cfg.DBSchema+"_ledger")
		if err != nil {
			return nil, nil, fmt.Errorf("open PostgreSQL: %w", err)
		}
		return s, s, nil
	}
	s, err := sqlitestore.OpenLedger(ctx, filepath.Join(cfg.DataDir, "ledger.db"))
	if err != nil {
		return nil, nil, fmt.Errorf("open SQLite: %w", err)
	}
	return s, s, nil
}

// runWhileLeader runs fn whenever this process leads, so that with several
// processes on one PostgreSQL database exactly one runs automation.
func runWhileLeader(ctx context.Context, l leaderStore, log *slog.Logger, leading prometheus.Gauge, fn func(context.Context) error) {
	for ctx.Err() == nil {
		lctx, cancel := context.WithCancel(ctx)
		lost, ok, err := l.TryLead(lctx)
		if err != nil || !ok {
			cancel()
			if err != nil {
				log.Warn("leader election failed", "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
			continue
		}
		log.Info("this process runs automation")
		leading.Set(1)
		go func() {
			<-lost
			cancel()
		}()
		if err := fn(lctx); err != nil && lctx.Err() == nil {
			log.Error("automation stopped", "err", err)
		}
		cancel()
		<-lost
		leading.Set(0)
	}
}

// seedOnce seeds a new network, or loads the seeded one. With several
// processes starting together on one PostgreSQL database, only the leader
// seeds; the others wait until it is done.
func seedOnce(ctx context.Context, net *ledger.Network, l leaderStore, cfg splice.SeedConfig) (*splice.Seeded, error) {
	return loadOrBuild(ctx, net, l, cfg, func(ctx context.Context) (*splice.Seeded, error) {
		return splice.Seed(ctx, net, cfg)
	})
}

// loadOrBuild loads the network the ledger holds or, when it holds none,
// has the leader build it (the others wait until it is done and load it).
func loadOrBuild(ctx context.Context, net *ledger.Network, l leaderStore, cfg splice.SeedConfig, build func(context.Context) (*splice.Seeded, error)) (*splice.Seeded, error) {
	for {
		if _, ok, err := net.Store().Meta(ctx, splice.SeededMetaKey); err != nil {
			return nil, err
		} else if ok {
			return splice.Seed(ctx, net, cfg) // loads what is stored
		}
		lctx, cancel := context.WithCancel(ctx)
		lost, ok, err := l.TryLead(lctx)
		if err != nil {
			cancel()
			return nil, err
		}
		if ok {
			seeded, err := build(lctx)
			cancel()
			<-lost
			return seeded, err
		}
		cancel()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
