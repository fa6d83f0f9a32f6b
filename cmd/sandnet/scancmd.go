package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/builtin"
	"github.com/sandnet/sandnet/internal/ledgerclient"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// ScanCmd runs a Scan in its own process against a running sandnet: it
// reads an SV participant's stream over the JSON Ledger API, as a Splice
// Scan reads its participant, and keeps its own database.
type ScanCmd struct {
	URL         string        `default:"http://127.0.0.1:7575" env:"SANDNET_URL" help:"Base URL of the sandnet to read: SV k's ledger API at <url>/sv/k, the admin API at <url>/api/sandnet/v0."`
	SV          int           `name:"sv" default:"1" env:"SANDNET_SCAN_SV" help:"Which SV's participant to read (1-based)."`
	Listen      string        `default:"127.0.0.1:7576" env:"SANDNET_SCAN_LISTEN" help:"Address to serve the Scan API (/api/scan) and the token-standard registry (/registry) on."`
	DataDir     string        `default:"./.sandnet-scan" env:"SANDNET_SCAN_DATA_DIR" type:"path" help:"Directory of the Scan's SQLite database."`
	DatabaseURL string        `env:"SANDNET_SCAN_DATABASE_URL" placeholder:"postgres://…" help:"Keep the Scan's data in PostgreSQL instead (schema <prefix>_scan)."`
	DBSchema    string        `name:"database-schema" default:"sandnet_remote" env:"SANDNET_SCAN_DATABASE_SCHEMA" help:"Prefix of the Scan's PostgreSQL schema."`
	Period      time.Duration `name:"scan-snapshot-period" default:"3h" env:"SANDNET_SCAN_SNAPSHOT_PERIOD" help:"Time between ACS snapshots (multiples of it since midnight UTC)."`
	Peers       []string      `name:"peer" env:"SANDNET_SCAN_PEERS" placeholder:"URL" help:"A Scan to backfill from when the SV joined late (repeat the flag; at least f+1 of n must agree). Default: the other SVs' Scans, <url>/sv/j/api/scan."`
	Batch       int           `name:"backfill-batch" default:"500" hidden:"" help:"Updates asked of the peers at a time while backfilling (tests make it small)."`
	AnsAcronym  string        `name:"ans-acronym" default:"cns" env:"SANDNET_ANS_ACRONYM" help:"The name service's acronym (names end in .<acronym>)."`
	Token       string        `env:"SANDNET_TOKEN" help:"Token of the SV's operator user (participant_admin). Default: minted from --sandnet-data-dir's secret."`
	SandnetDir  string        `name:"sandnet-data-dir" default:"./.sandnet" env:"SANDNET_DATA_DIR" type:"path" help:"Data directory of the sandnet whose secret signs the default token."`
	AuthSecret  string        `env:"SANDNET_AUTH_SECRET" help:"HS256 secret, when the sandnet was started with --auth-secret."`
	AuthAud     string        `name:"auth-audience" env:"SANDNET_AUTH_AUDIENCE" help:"Audience to put in the minted token."`
	LogFormat   string        `default:"text" enum:"text,json" env:"SANDNET_LOG_FORMAT" help:"Log format: text or json."`
	LogLevel    string        `default:"info" enum:"debug,info,warn,error" env:"SANDNET_LOG_LEVEL" help:"Log level."`
}

// Run serves the Scan until ctx ends.
func (c *ScanCmd) Run(ctx context.Context) error {
	log := newLogger(c.LogFormat, c.LogLevel)
	if c.Period < time.Minute {
		return fmt.Errorf("--scan-snapshot-period must be at least 1m, not %s", c.Period)
	}
	if c.DatabaseURL == "" {
		if err := ensureDataDir(c.DataDir); err != nil {
			return err
		}
	}
	base := strings.TrimRight(c.URL, "/")
	token := c.tokenSource()

	// Who the DSO and the SV are, from the admin API.
	var info struct {
		DSO string `json:"dso_party_id"`
		SVs []struct {
			Name  string `json:"name"`
			Party string `json:"party_id"`
		} `json:"svs"`
	}
	adm := &nodeConn{URL: base, Token: c.Token, DataDir: c.SandnetDir, AuthSecret: c.AuthSecret, AuthAud: c.AuthAud}
	if err := adm.call(ctx, http.MethodGet, "/network", nil, &info); err != nil {
		return fmt.Errorf("read the network from %s: %w", base, err)
	}
	if c.SV < 1 || c.SV > len(info.SVs) {
		return fmt.Errorf("--sv %d: the network has SVs 1 to %d", c.SV, len(info.SVs))
	}
	sv := info.SVs[c.SV-1]
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.Listen, err)
	}
	defer ln.Close()
	st, err := openScanStore(ctx, c.DataDir, c.DatabaseURL, c.DBSchema, "scan")
	if err != nil {
		return err
	}
	defer st.Close()

	src := ledgerclient.New(ledgerclient.Config{
		BaseURL: fmt.Sprintf("%s/sv/%d", base, c.SV), HTTP: &http.Client{Timeout: time.Minute},
		Token: token, Party: daml.Party(info.DSO), Registry: builtin.NewRegistry(),
		AdminURL: base, AdminToken: token,
	})
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	node := newScanNode(st, src, scan.Config{
		DSO: daml.Party(info.DSO), SV: daml.Party(sv.Party), SVName: sv.Name, AnsAcronym: c.AnsAcronym,
	}, c.SV, c.Period, reg, log)
	if len(c.Peers) > 0 {
		node.backfiller.Peers, err = scanclient.NewPeers(scanclient.Config{URLs: c.Peers, Logger: log})
	} else {
		node.backfiller.Peers, err = scanPeers(base, c.SV, len(info.SVs), log)
	}
	if err != nil {
		return fmt.Errorf("the Scans to backfill from: %w", err)
	}
	node.backfiller.Batch = c.Batch

	var ready atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !ready.Load() {
			http.Error(w, "not ready: the scan is catching up", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	api := scanapi.New(scanapi.Config{Service: node.service, Logger: log, SVUser: OperatorUser})
	api.Register(mux, scanapi.Prefix)
	api.RegisterRegistry(mux, "")
	srv := web.NewServer(web.Chain(mux, web.NewMetrics(reg).Middleware, web.Recover, web.TraceContext), web.DefaultTimeouts, log)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()

	if err := node.catchUp(ctx); err != nil {
		return err
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = node.run(runCtx)
	}()
	defer func() {
		stop()
		<-done
	}()
	ready.Store(true)
	log.Info("scan is ready", "url", "http://"+ln.Addr().String()+scanapi.Prefix, "ledger", fmt.Sprintf("%s/sv/%d", base, c.SV), "sv", sv.Name)
	select {
	case <-ctx.Done():
		return nil
	case err := <-serveErr:
		return err
	}
}

// tokenSource returns the operator token: the one given, or one minted
// from the sandnet's secret, renewed before it expires.
func (c *ScanCmd) tokenSource() func(context.Context) (string, error) {
	if c.Token != "" {
		return func(context.Context) (string, error) { return c.Token, nil }
	}
	var (
		cached  atomic.Value // string
		expires atomic.Int64
	)
	return func(context.Context) (string, error) {
		if t, ok := cached.Load().(string); ok && time.Now().Unix() < expires.Load() {
			return t, nil
		}
		t, err := mintToken(c.SandnetDir, c.AuthSecret, c.AuthAud, OperatorUser, time.Hour)
		if err != nil {
			// No secret to sign with: send no token. A sandnet started
			// with --auth none needs none; any other answers 401.
			return "", nil
		}
		cached.Store(t)
		expires.Store(time.Now().Add(50 * time.Minute).Unix())
		return t, nil
	}
}
