package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/api/validatorapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scanclient"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/validator"
)

// validatorNode is a validator app: its own store, the Scan client it
// reads the DSO's contracts with, and its background work (the
// transaction log and the wallet automation).
type validatorNode struct {
	name      string
	store     validator.Store
	scan      *scanclient.Client
	validator *validator.Validator
}

// validatorPathPrefix is where validator name's APIs are served on the
// main address: its validator API at <prefix>/api/validator, its
// participant's ledger API at <prefix>/v2 (as SV k's are under /sv/k).
func validatorPathPrefix(name string) string { return "/validators/" + name }

// validatorStoreName names validator i's (from 1) store: the first,
// the default validator, keeps the name sandnet has always used
// (validator.db, <prefix>_validator), so that existing data loads; the
// others add their name (validator-<name>.db,
// <prefix>_validator_<name> with "-" as "_", as PostgreSQL spells
// identifiers).
func validatorStoreName(i int, name string) (file, schema string) {
	if i == 1 {
		return "validator.db", "validator"
	}
	return "validator-" + name + ".db", "validator_" + strings.ReplaceAll(name, "-", "_")
}

// openValidatorStore opens validator i's database: <dataDir>/<file>, or
// the schema <prefix>_<schema> on PostgreSQL (see validatorStoreName).
func openValidatorStore(ctx context.Context, dataDir, databaseURL, prefix string, i int, name string) (validator.Store, error) {
	file, schema := validatorStoreName(i, name)
	if databaseURL != "" {
		s, err := pgstore.OpenValidator(ctx, databaseURL, prefix+"_"+schema)
		if err != nil {
			return nil, fmt.Errorf("open validator %s's PostgreSQL schema: %w", name, err)
		}
		return s, nil
	}
	s, err := sqlitestore.OpenValidator(ctx, filepath.Join(dataDir, file))
	if err != nil {
		return nil, fmt.Errorf("open validator %s's SQLite database: %w", name, err)
	}
	return s, nil
}

// newValidatorNode builds a validator of a seeded network. It reads the
// Scan at scanURL over HTTP, as a real validator reads the SVs' Scans.
func newValidatorNode(st validator.Store, net *ledger.Network, seeded *splice.Seeded, v splice.SeededValidator, scanURL string, log *slog.Logger) (*validatorNode, error) {
	sc, err := scanclient.New(scanclient.Config{
		URLs: []string{scanURL}, HTTP: &http.Client{Timeout: 30 * time.Second}, Registry: net.Registry(), Logger: log,
	})
	if err != nil {
		return nil, err
	}
	val := validator.New(validator.Config{
		Participant: v.Participant, Party: v.Party, OperatorUser: v.OperatorUser,
		DSO: seeded.DSOParty, AnsAcronym: seeded.AnsAcronym,
	}, net, sc, st, log)
	return &validatorNode{name: v.Name, store: st, scan: sc, validator: val}, nil
}

// scanURLOf is the base URL of the Scan served on a listener address.
func scanURLOf(addr string) string { return "http://" + addr + scanapi.Prefix }

// run keeps the transaction log current and runs the wallet automation
// until ctx ends.
func (n *validatorNode) run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { _ = n.validator.TxLog().Run(ctx) })
	wg.Go(func() { _ = n.validator.Automation().Run(ctx) })
	wg.Wait()
	return nil
}

// validatorNodes are the network's validators this process serves, one
// validator node each (Seeded.Validators, in order): validator <name>'s
// APIs under /validators/<name> on the main listener, the first's also
// at the root, and, with --validator-listen, each on an address of its
// own.
type validatorNodes struct {
	nodes   []*validatorNode
	servers []*http.Server
	log     *slog.Logger
}

// validatorDeps is what the validators' wiring takes from Main.Run.
type validatorDeps struct {
	cfg      StartCmd
	network  *ledger.Network
	seeded   *splice.Seeded
	registry *ledger.Registry
	authn    *web.Authenticator
	mux      *http.ServeMux
	// scanURL is the Scan the validators read (SV 1's, over HTTP).
	scanURL string
	log     *slog.Logger
}

// openValidators opens every validator's store, builds its validator app
// and serves its APIs. What it opened is closed by close, also when it
// fails half-way.
func openValidators(ctx context.Context, d validatorDeps) (*validatorNodes, error) {
	vs := &validatorNodes{log: d.log}
	for i, v := range d.seeded.Validators {
		k := i + 1
		var own net.Listener
		if d.cfg.ValidatorListen != "" {
			ln, err := listenNth("--validator-listen", d.cfg.ValidatorListen, k, "validator "+v.Name)
			if err != nil {
				return vs, err
			}
			own = ln
		}
		st, err := openValidatorStore(ctx, d.cfg.DataDir, d.cfg.DatabaseURL, d.cfg.DBSchema, k, v.Name)
		if err != nil {
			if own != nil {
				own.Close()
			}
			return vs, err
		}
		n, err := newValidatorNode(st, d.network, d.seeded, v, d.scanURL, d.log.With("validator", v.Name))
		if err != nil {
			st.Close()
			if own != nil {
				own.Close()
			}
			return vs, err
		}
		vs.nodes = append(vs.nodes, n)

		api := validatorapi.New(validatorapi.Config{Validator: n.validator, Auth: d.authn, ScanProxy: n.scan, Logger: d.log})
		ledgerAPI := ledgerapi.New(ledgerapi.Config{
			Participant: v.Participant, ParticipantName: v.ParticipantName,
			Ledger: ledgerapi.NetworkLedger(d.network), Registry: d.registry, Auth: d.authn, MaxListElements: d.cfg.ListLimit, Logger: d.log,
		})
		prefix := validatorPathPrefix(v.Name)
		api.Register(d.mux, prefix+validatorapi.Prefix)
		ledgerAPI.Register(d.mux, prefix)
		if k == 1 {
			// The default validator and its participant's ledger API are
			// also at the root (the SVs' are under /sv/k).
			api.Register(d.mux, validatorapi.Prefix)
			ledgerAPI.Register(d.mux, "")
		}
		if own != nil {
			mux := http.NewServeMux()
			api.Register(mux, validatorapi.Prefix)
			ledgerAPI.Register(mux, "")
			vs.servers = append(vs.servers, serveOwn(own, mux, d.cfg.CORSOrigins, d.log))
			d.log.Info("validator served on its own address", "validator", v.Name, "url", "http://"+own.Addr().String())
		}
	}
	return vs, nil
}

// run runs every validator's transaction log and wallet automation until
// ctx ends.
func (vs *validatorNodes) run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, n := range vs.nodes {
		wg.Go(func() { _ = n.run(ctx) })
	}
	wg.Wait()
}

// close stops the validators' own servers and closes their stores, once
// nothing runs on them.
func (vs *validatorNodes) close() {
	shutdownOwn(vs.servers)
	for _, n := range vs.nodes {
		n.store.Close()
	}
}

// seedConfig is the configuration a new network is seeded with from the
// flags (but its genesis): the default network, plus the validators
// --validator names after the default one. It is checked before anything
// is opened, so that a bad --validator fails at once, also on a restart
// (when the stored network wins).
func seedConfig(cfg StartCmd) (splice.SeedConfig, error) {
	sc := splice.SeedConfig{SVs: cfg.SVs, Preapprovals: cfg.SeedPreapprovals}
	var extra []splice.ValidatorConfig
	for _, spec := range cfg.Validators {
		if strings.TrimSpace(spec) == "" {
			continue
		}
		extra = append(extra, parseValidatorFlag(spec))
	}
	if len(extra) == 0 {
		return sc, nil
	}
	if cfg.ForkFrom != "" {
		return sc, fmt.Errorf("--validator: a fork has one validator; drop --validator or --fork-from")
	}
	sc.Validators = append([]splice.ValidatorConfig{splice.DefaultValidator()}, extra...)
	if err := sc.Check(); err != nil {
		return sc, fmt.Errorf("--validator: %w", err)
	}
	return sc, nil
}

// parseValidatorFlag reads one --validator: NAME, or NAME:USER,USER,…
// (its wallet users, each with a party of its own). The names are checked
// with the rest of the configuration (splice.SeedConfig.Check).
func parseValidatorFlag(spec string) splice.ValidatorConfig {
	name, users, _ := strings.Cut(strings.TrimSpace(spec), ":")
	v := splice.ValidatorConfig{Name: name, Users: []string{}}
	for u := range strings.SplitSeq(users, ",") {
		if u = strings.TrimSpace(u); u != "" {
			v.Users = append(v.Users, u)
		}
	}
	return v
}
