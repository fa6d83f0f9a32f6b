package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sandnet/sandnet/internal/api/validatorapi"
	"github.com/sandnet/sandnet/internal/api/vhost"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Splice LocalNet's defaults, which `sandnet start --localnet` takes
// unless a flag says otherwise: every node verifies HS256 tokens signed
// with the well-known secret "unsafe" for this audience, with or without
// exp; the user ledger-api-user is every node's validator operator.
const (
	localNetSecret       = "unsafe"
	localNetAudience     = "https://canton.network.global"
	localNetOperatorUser = "ledger-api-user"
	localNetPartyHint    = "localnet-localparty-1"
)

// LocalNet's port suffixes: a node's ports are its digit (2 app-user, 3
// app-provider, 4 sv) followed by these.
const (
	localNetProxyPort     = 0   // nginx: x000
	localNetJSONAPIPort   = 975 // the participant's JSON Ledger API
	localNetValidatorPort = 903 // the validator app's admin API
)

// LocalNetFlags are `sandnet start`'s LocalNet flags, embedded in
// StartCmd.
type LocalNetFlags struct {
	LocalNet          bool   `name:"localnet" env:"SANDNET_LOCALNET" help:"Also serve Splice LocalNet's addresses (app-user 2000/2975/2903, sv 4000/4975, routed by Host as LocalNet's nginx does), with its defaults: HS256 secret unsafe, audience https://canton.network.global, user ledger-api-user, one SV. Flags given explicitly win."`
	LocalNetHost      string `name:"localnet-host" default:"127.0.0.1" env:"SANDNET_LOCALNET_HOST" help:"Address the --localnet ports are bound on: another loopback address (127.0.0.2, …) when 127.0.0.1's are taken."`
	LocalNetPartyHint string `name:"localnet-party-hint" default:"localnet-localparty-1" env:"SANDNET_LOCALNET_PARTY_HINT" help:"LocalNet's PARTY_HINT: a network newly seeded with --localnet names its validator parties app_user_<hint> and app_provider_<hint>."`
}

// applyLocalNetDefaults gives the flags left at their zero value
// LocalNet's values, under --localnet: flags given explicitly win. One
// SV, as LocalNet has; without --localnet, four.
func (c *StartCmd) applyLocalNetDefaults() {
	if !c.LocalNet {
		if c.SVs == 0 {
			c.SVs = 4
		}
		return
	}
	if c.SVs == 0 {
		c.SVs = 1
	}
	if c.Auth == "hs256" && c.AuthSecret == "" {
		c.AuthSecret = localNetSecret
	}
	if c.AuthAud == "" && c.Auth != "none" {
		c.AuthAud = localNetAudience
	}
}

// localNetNode is one of LocalNet's nodes as sandnet serves it: where its
// APIs are on the main listener's handler.
type localNetNode struct {
	// name is LocalNet's: app-user, app-provider or sv. It is also the
	// wallet user of the node's validator party.
	name string
	// digit is the first digit of the node's ports.
	digit int
	// ledger is the path prefix of the node's JSON Ledger API ("" for the
	// validator's, /sv/1 for SV 1's).
	ledger string
	// validator is the path of the node's validator app (/api/validator),
	// or "" when sandnet runs none there.
	validator string
	// scan says the node serves the network's Scan and registry (SV 1's,
	// at /api/scan and /registry), at scan.localhost on its proxy port.
	scan bool
}

// localNetNodes are the nodes LocalNet runs, as this sandnet serves them:
// the validators --localnet seeds (app-user, the default one, at the root
// of the main listener; the others under /validators/<name>) and SV 1
// (participant, Scan, registry, and the validator on its node).
func localNetNodes() []localNetNode {
	return []localNetNode{
		{name: "app-user", digit: 2, ledger: "", validator: validatorapi.Prefix},
		{name: "app-provider", digit: 3, ledger: validatorPathPrefix("app-provider"), validator: validatorPathPrefix("app-provider") + validatorapi.Prefix},
		{name: "sv", digit: 4, ledger: "/sv/1", validator: validatorPathPrefix("sv") + validatorapi.Prefix, scan: true},
	}
}

// withLocalNetValidators makes LocalNet's validators those of a network
// newly seeded with --localnet, before the further ones --validator names.
func (c *StartCmd) withLocalNetValidators(sc *splice.SeedConfig) error {
	if !c.LocalNet {
		return nil
	}
	var extra []splice.ValidatorConfig
	if len(sc.Validators) > 1 {
		extra = sc.Validators[1:] // after the default one
	}
	sc.Validators = append(c.localNetValidators(), extra...)
	if err := sc.Check(); err != nil {
		return fmt.Errorf("--localnet: %w", err)
	}
	return nil
}

// localNetValidators are the validators a network newly seeded with
// --localnet has, as LocalNet's: app-user and app-provider with
// participants of their own and the parties app_user_<hint> and
// app_provider_<hint>, and one on SV 1's node; each with the operator user
// ledger-api-user and the node's name as its wallet user. The default
// validator (app-user) keeps sandnet's seeded users alice and bob, whom
// sandnet's own docs and hints use.
func (c *StartCmd) localNetValidators() []splice.ValidatorConfig {
	if !c.LocalNet {
		return nil
	}
	return []splice.ValidatorConfig{
		{Name: "app-user", PartyHint: "app_user_" + c.LocalNetPartyHint, OperatorUser: localNetOperatorUser, OperatorWalletUsers: []string{"app-user"}, Users: []string{"alice", "bob"}},
		{Name: "app-provider", PartyHint: "app_provider_" + c.LocalNetPartyHint, OperatorUser: localNetOperatorUser, OperatorWalletUsers: []string{"app-provider"}},
		{Name: "sv", SV: 1, OperatorUser: localNetOperatorUser, OperatorWalletUsers: []string{"sv"}},
	}
}

// checkLocalNet refuses to serve LocalNet's addresses for a network that
// was not seeded with --localnet: its validators are not LocalNet's.
func checkLocalNet(cfg StartCmd, seeded *splice.Seeded) error {
	for _, n := range localNetNodes() {
		if n.name == "sv" {
			continue
		}
		if _, ok := seeded.ValidatorNamed(n.name); !ok {
			where := cfg.DataDir
			if cfg.DatabaseURL != "" {
				where = "the PostgreSQL schemas " + cfg.DBSchema + "_*"
			}
			return fmt.Errorf("--localnet: the network in %s was seeded without --localnet (it has no validator %s); start with an empty data directory", where, n.name)
		}
	}
	return nil
}

// port is the node's port with the given suffix.
func (n localNetNode) port(suffix int) int { return n.digit*1000 + suffix }

// localNet serves LocalNet's addresses: each node's nginx port (virtual
// hosts), JSON Ledger API port and validator port, all on one bind
// address (--localnet-host). The ports are bound at start, so that a taken
// one fails at once; until route installs the routes, they answer 503.
type localNet struct {
	host    string
	nodes   []localNetNode
	log     *slog.Logger
	ports   map[int]*swapHandler
	servers []*http.Server
	wg      sync.WaitGroup
	closed  sync.Once
}

// swapHandler serves with the handler last stored in it.
type swapHandler struct{ h atomic.Pointer[http.Handler] }

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

func (s *swapHandler) set(h http.Handler) { s.h.Store(&h) }

// openLocalNet binds every LocalNet port on host and serves them (503
// until route), or returns nil when --localnet is off. A port that cannot
// be bound fails with its number and what LocalNet serves there.
func openLocalNet(cfg StartCmd, log *slog.Logger) (*localNet, error) {
	if !cfg.LocalNet {
		return nil, nil
	}
	if cfg.ForkFrom != "" {
		// A fork has the source's validators, not LocalNet's.
		return nil, errors.New("--localnet and --fork-from do not go together: a fork's network is not LocalNet's")
	}
	l := &localNet{host: cfg.LocalNetHost, nodes: localNetNodes(), log: log, ports: map[int]*swapHandler{}}
	starting := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		web.WriteJSON(w, http.StatusServiceUnavailable, web.ErrorResponse{Error: "sandnet is starting"})
	})
	var lns []net.Listener
	for _, n := range l.nodes {
		suffixes := []int{localNetProxyPort, localNetJSONAPIPort}
		if n.validator != "" {
			suffixes = append(suffixes, localNetValidatorPort)
		}
		for _, s := range suffixes {
			port := n.port(s)
			addr := net.JoinHostPort(cfg.LocalNetHost, strconv.Itoa(port))
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				for _, o := range lns {
					o.Close()
				}
				return nil, localNetListenError(addr, n, s, err)
			}
			lns = append(lns, ln)
			sw := &swapHandler{}
			sw.set(starting)
			l.ports[port] = sw
			srv := web.NewServer(web.Chain(sw, web.Recover), web.DefaultTimeouts, log)
			l.servers = append(l.servers, srv)
			l.wg.Go(func() { _ = srv.Serve(ln) })
		}
	}
	return l, nil
}

// localNetListenError says which LocalNet port could not be bound, what
// it is for and how to get past it.
func localNetListenError(addr string, n localNetNode, suffix int, err error) error {
	what := map[int]string{
		localNetProxyPort:     "its nginx port (virtual hosts)",
		localNetJSONAPIPort:   "its JSON Ledger API",
		localNetValidatorPort: "its validator app",
	}[suffix]
	hint := ""
	if errors.Is(err, syscall.EADDRINUSE) {
		hint = " (is Splice's LocalNet, or another sandnet --localnet, running? stop it, or pass --localnet-host with another loopback address such as 127.0.0.2)"
	}
	return fmt.Errorf("--localnet: listen on %s, LocalNet's %s port for %s: %w%s", addr, n.name, what, err, hint)
}

// route installs the routes of every LocalNet port: each a view of main,
// the main listener's handler, with the paths LocalNet serves there moved
// to where main serves them. The readiness paths of the validator, Scan
// and SV apps answer as /readyz and /livez do. The dashboard at / and
// sandnet's own admin API are never reachable here.
func (l *localNet) route(main http.Handler) {
	if l == nil {
		return
	}
	nf := http.HandlerFunc(web.NotFound)
	health := func(prefix string) []vhost.Mount {
		return []vhost.Mount{{From: prefix + "/readyz", To: "/readyz"}, {From: prefix + "/livez", To: "/livez"}}
	}
	ledgerAt := func(prefix string, paths ...string) []vhost.Mount {
		var ms []vhost.Mount
		for _, p := range paths {
			ms = append(ms, vhost.Mount{From: p, To: prefix + p})
		}
		return ms
	}
	// Browsers call LocalNet's JSON Ledger API hosts across origins:
	// nginx adds the CORS headers there, and answers any OPTIONS with 204.
	cors := func(h http.Handler) http.Handler {
		return web.CORS([]string{"*"})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodOptions {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			h.ServeHTTP(w, r)
		}))
	}
	for _, n := range l.nodes {
		ledgerAPI := vhost.Mounts(main, nf, append(ledgerAt(n.ledger, "/v2", "/docs"), health("")...)...)
		l.ports[n.port(localNetJSONAPIPort)].set(ledgerAPI)
		validatorApp := http.Handler(nf)
		if n.validator != "" {
			validatorApp = vhost.Mounts(main, nf, append(health(validatorapi.Prefix), vhost.Mount{From: validatorapi.Prefix, To: n.validator})...)
			l.ports[n.port(localNetValidatorPort)].set(validatorApp)
		}
		var proxy *vhost.Hosts
		if n.scan {
			// The SV's port: Scan, the SV's wallet, the SV app and
			// the SV participant's ledger API, each on its own host;
			// nginx's default server there serves none of them.
			proxy = vhost.NewHosts(nf)
			proxy.Handle(vhost.Mounts(main, nf, append(health("/api/scan"), vhost.Same("/api/scan", "/registry")...)...), "scan.localhost")
			proxy.Handle(validatorApp, "wallet.localhost")
			// sandnet runs no SV app: only its readiness answers.
			proxy.Handle(vhost.Mounts(main, nf, health("/api/sv")...), "sv.localhost")
			proxy.Handle(cors(vhost.Mounts(main, nf, ledgerAt(n.ledger, "/v2", "/docs/openapi")...)), "canton.localhost")
		} else {
			// A validator's port: its wallet and name service (the
			// validator app; also for any other host, as nginx's
			// first server) and its participant's ledger API.
			proxy = vhost.NewHosts(validatorApp)
			proxy.Handle(validatorApp, "wallet.localhost", "ans.localhost")
			proxy.Handle(cors(ledgerAPI), "json-ledger-api.localhost", "canton.localhost")
		}
		l.ports[n.port(localNetProxyPort)].set(proxy)
	}
}

// urls lists what is served where, for the ready log line.
func (l *localNet) urls() []any {
	var out []any
	for _, n := range l.nodes {
		base := func(suffix int) string { return "http://" + net.JoinHostPort(l.host, strconv.Itoa(n.port(suffix))) }
		out = append(out, n.name, fmt.Sprintf("proxy %s, ledger API %s", base(localNetProxyPort), base(localNetJSONAPIPort)))
		if n.validator != "" {
			out[len(out)-1] = out[len(out)-1].(string) + ", validator " + base(localNetValidatorPort) + validatorapi.Prefix
		}
	}
	return out
}

// close shuts the LocalNet servers down; calls after the first do
// nothing.
func (l *localNet) close() {
	if l == nil {
		return
	}
	l.closed.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, srv := range l.servers {
			_ = srv.Shutdown(ctx)
		}
		l.wg.Wait()
	})
}
