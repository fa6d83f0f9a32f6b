package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/netconfig"
	"github.com/sandnet/sandnet/internal/scan"
)

// ConfigFile is the start command's --config flag: a network file. Before
// kong resolves the other flags, the file is read and becomes a resolver
// beneath flags and their environment twins: kong consults resolvers only
// for flags the command line leaves unset, and the resolver itself gives
// way to a flag's environment variable, so the order is flag > env > file >
// default.
type ConfigFile string

// BeforeResolve reads the file and adds its resolver.
func (ConfigFile) BeforeResolve(ctx *kong.Context, trace *kong.Path) error {
	path := string(ctx.FlagValue(trace.Flag).(ConfigFile))
	if path == "" {
		return nil
	}
	c, err := readNetworkFile(path)
	if err != nil {
		return err
	}
	ctx.AddResolver(fileResolver{c})
	return nil
}

// readNetworkFile reads and checks a network file.
func readNetworkFile(path string) (*netconfig.Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("network file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, netconfig.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("network file %s: %w", path, err)
	}
	return netconfig.Parse(path, data)
}

// fileResolver gives the start flags the values a network file sets.
type fileResolver struct{ c *netconfig.Config }

// Validate accepts every file: Parse has checked it.
func (fileResolver) Validate(*kong.Application) error { return nil }

// Resolve returns the file's value for a flag, unless the flag's
// environment variable is set (which kong has already applied).
func (r fileResolver) Resolve(_ *kong.Context, _ *kong.Path, flag *kong.Flag) (any, error) {
	v, ok := r.c.Flags[flag.Name]
	if !ok {
		return nil, nil
	}
	for _, env := range flag.Envs {
		if _, set := os.LookupEnv(env); set {
			return nil, nil
		}
	}
	if v.IsList {
		list := make([]any, len(v.List))
		for i, s := range v.List {
			list[i] = s
		}
		return list, nil
	}
	return v.Value, nil
}

// InitCmd writes an example network file.
type InitCmd struct {
	File  string `arg:"" optional:"" default:"sandnet.yaml" help:"File to write (default sandnet.yaml)."`
	Force bool   `help:"Overwrite the file if it exists."`
}

// Run writes the example, refusing to overwrite a file unless --force.
func (c *InitCmd) Run() error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if c.Force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(c.File, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists: pass --force to overwrite it", c.File)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(netconfig.Example()); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %s; start the network it describes with: sandnet start --config %s\n", c.File, c.File)
	return nil
}

// networkSeedConfig returns how to seed the network the start command
// describes (its network file's network part, or flagged: the flags'
// network), after checking it against the one the ledger holds:
//
//   - on a ledger not yet seeded, it records the description (as a
//     netconfig.Spec), so that a restart can be checked;
//   - on a seeded ledger, a network file whose network differs from the
//     recorded one is refused, naming what differs; without a file, or on
//     a ledger with no description (a fork, or seeded before descriptions
//     were recorded), nothing is checked.
//
// The genesis (when the seeding history starts) is one minute before the
// Scan snapshot boundary preceding the network's start, so that its Scan
// has an ACS snapshot from the start.
func (m *Main) networkSeedConfig(ctx context.Context, network *ledger.Network, forking bool, flagged splice.SeedConfig) (splice.SeedConfig, error) {
	cfg := m.Config
	var file *netconfig.Config
	if cfg.Config != "" {
		var err error
		if file, err = readNetworkFile(string(cfg.Config)); err != nil {
			return splice.SeedConfig{}, err
		}
	}
	// Without a file, the flags' configuration is seeded as it is, and
	// its spec only recorded.
	spec := netconfig.FlagSpec(cfg.NetworkSeed, cfg.SVs, cfg.SeedPreapprovals, flagged.Validators)
	seed := flagged
	if file != nil {
		if len(flagged.Validators) > 0 && file.File.Network.Validators != nil {
			return splice.SeedConfig{}, fmt.Errorf("%s lists the network's validators: add further ones there, not with --validator or --localnet", file.Path)
		}
		validators := spec.Validators
		spec = file.Spec(cfg.NetworkSeed, cfg.SVs, cfg.SeedPreapprovals)
		if file.File.Network.Validators == nil {
			spec.Validators = validators
		}
		seed = spec.SeedConfig()
		if err := seed.Check(); err != nil {
			return splice.SeedConfig{}, fmt.Errorf("%s: %w", file.Path, err)
		}
	}
	store := network.Store()
	_, seeded, err := store.Meta(ctx, splice.SeededMetaKey)
	if err != nil {
		return splice.SeedConfig{}, err
	}
	if seeded {
		return splice.SeedConfig{}, m.checkNetwork(ctx, store, file, spec)
	}
	if forking {
		// A fork's network comes from the source's snapshot: there is no
		// description to record.
		if file != nil && file.DescribesNetwork() {
			return splice.SeedConfig{}, fmt.Errorf("%s: --fork-from takes the network from the source's snapshot: the file's network section (beyond its seed) does not apply; leave it out", file.Path)
		}
	} else if err := store.Write(ctx, func(w ledger.WriteTx) error { return w.SetMeta(ctx, netconfig.MetaKey, spec.Marshal()) }); err != nil {
		return splice.SeedConfig{}, err
	}
	start := network.Clock().Now()
	if seed.ClockStart = spec.ClockStartAt(time.UnixMicro(int64(start))); seed.ClockStart != 0 {
		if seed.ClockStart < start {
			return splice.SeedConfig{}, file.Errorf("network.clock.start", "%s is in the past: ledger time only moves forward", seed.ClockStart)
		}
		start = seed.ClockStart
	}
	seed.Genesis = scan.Boundary(start, cfg.SnapshotPeriod) - daml.Timestamp(time.Minute.Microseconds())
	return seed, nil
}

// checkNetwork refuses a network file that describes another network than
// the one the ledger recorded at its first start.
func (m *Main) checkNetwork(ctx context.Context, store ledger.Store, file *netconfig.Config, spec netconfig.Spec) error {
	if file == nil {
		return nil
	}
	raw, ok, err := store.Meta(ctx, netconfig.MetaKey)
	if err != nil {
		return err
	}
	if !ok {
		m.Logger.Warn("the ledger holds no description of its network (a fork, or a network seeded before sandnet recorded them): the network file's network section is not checked against it", "config", file.Path)
		return nil
	}
	stored, err := netconfig.UnmarshalSpec(raw)
	if err != nil {
		return err
	}
	diff := netconfig.Diff(stored, spec)
	if len(diff) == 0 {
		return nil
	}
	where := "data directory " + m.Config.DataDir
	if m.Config.DatabaseURL != "" {
		where = "PostgreSQL schemas " + m.Config.DBSchema + "_*"
	}
	return fmt.Errorf("%s describes another network than the one in %s (stored → file):\n  %s\nsandnet seeds a network once, at its first start: restore the file (or the flags), or start from an empty data directory (or database schema) to seed the new network",
		file.Path, where, strings.Join(diff, "\n  "))
}
