package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/sandnet/sandnet/internal/fork"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// forkTimeout bounds one request to the source Scan: a snapshot page of a
// large network is big.
const forkTimeout = time.Minute

// forkPlan is a source snapshot read and decoded, ready to build a fork
// from once the network is open.
type forkPlan struct {
	src       *fork.Source
	contracts []*ledger.Contract
}

// prepareFork returns the network seed to open the ledger with and, when a
// new network is to be forked (--fork-from on an empty ledger), the
// source's snapshot. It reads the source before the network opens because
// a fork's seed derives from the snapshot (see fork.NetworkSeed), and so
// that a source sandnet cannot fork is refused before anything is
// written. A forked ledger restarts with the seed it recorded, whatever
// the flags; a ledger that holds a network that was not forked refuses
// --fork-from.
func (m *Main) prepareFork(ctx context.Context, store ledger.Store, reg *ledger.Registry) (string, *forkPlan, error) {
	cfg, log := m.Config, m.Logger
	origin, forked, err := fork.StoredOrigin(ctx, store)
	if err != nil {
		return "", nil, err
	}
	if forked {
		if cfg.ForkFrom != "" {
			log.Info("the data directory holds a forked network: restarting it, --fork-from is not read again",
				"forked_from", origin.URL, "snapshot", origin.RecordTime)
		}
		return origin.Seed, nil, nil
	}
	if cfg.ForkFrom == "" {
		return cfg.NetworkSeed, nil, nil
	}
	if _, ok, err := store.Meta(ctx, splice.SeededMetaKey); err != nil {
		return "", nil, err
	} else if ok {
		return "", nil, errors.New("--fork-from needs an empty data directory (or database schema): this one holds a network that was not forked")
	}
	if head, err := store.Head(ctx); err != nil {
		return "", nil, err
	} else if head.Sequence > 0 {
		return "", nil, errors.New("--fork-from needs an empty data directory (or database schema): this one holds transactions of an unfinished start")
	}
	client, err := scanclient.New(scanclient.Config{
		URLs: []string{cfg.ForkFrom}, HTTP: &http.Client{}, Timeout: forkTimeout,
		// Read's probes of migrations end on a 404 by design: the
		// client's warnings would be noise; failures are returned.
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return "", nil, fmt.Errorf("--fork-from: %w", err)
	}
	log.Info("reading the source's latest ACS snapshot", "fork_from", cfg.ForkFrom)
	src, contracts, err := fork.Prepare(ctx, client, reg)
	if err != nil {
		return "", nil, fmt.Errorf("fork %s: %w", cfg.ForkFrom, err)
	}
	log.Info("forking", "fork_from", cfg.ForkFrom, "dso_party", src.DSO,
		"migration", src.Migration, "snapshot", src.RecordTime, "contracts", len(contracts))
	return fork.NetworkSeed(cfg.NetworkSeed, src), &forkPlan{src: src, contracts: contracts}, nil
}

// seedOrFork builds a new network — a fork of plan's source when plan is
// set, a seeded one otherwise — or loads the one the ledger holds. As
// with seedOnce, with several processes on one PostgreSQL database only
// the leader builds.
func seedOrFork(ctx context.Context, net *ledger.Network, l leaderStore, plan *forkPlan, cfg splice.SeedConfig) (*splice.Seeded, error) {
	if plan == nil {
		return seedOnce(ctx, net, l, cfg)
	}
	return loadOrBuild(ctx, net, l, cfg, func(ctx context.Context) (*splice.Seeded, error) {
		return fork.Build(ctx, net, plan.src, plan.contracts, fork.Config{})
	})
}
