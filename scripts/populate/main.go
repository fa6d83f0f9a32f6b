// Command populate fills a sandnet data directory (or PostgreSQL schema)
// with active contracts through the real engine, so that restart and query
// benchmarks run on a store shaped like a busy network's: it opens the
// store as `sandnet start` does, seeds the network (splice.Seed), onboards
// a few wallet users of the validator (operator.CreateUser) and then
// commits transactions that each tap the DevNet faucet --per-tx times
// (AmuletRules_DevNet_Tap, one new Amulet each), from --submitters
// concurrent submitters acting as those users.
//
//	go run ./scripts/populate --data-dir /tmp/sandnet-1m --contracts 1000000
//	go run ./scripts/populate --database-url postgres://… --contracts 1000000
//
// --contracts is the number of active contracts the store should end with,
// seeded ones included; a store that already has them is left alone, so
// running it again is cheap. Stop it with Ctrl-C: what is committed stays.
//
// With --time-startup it instead opens an existing store the way
// `sandnet start` does and prints how long each step takes (store open and
// migrations, engine open, seed check, and optionally the first DSO
// automation pass), which is where a slow restart would show.
//
// With --drop-planner-stats it deletes SQLite's planner statistics
// (sqlite_stat1) and exits, leaving the store as a sandnet that never shut
// down cleanly leaves it (the store runs PRAGMA optimize when it closes).
// Nothing may have the store open meanwhile.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/builtin"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/operator"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"

	_ "modernc.org/sqlite" // for --drop-planner-stats
)

type config struct {
	dataDir     string
	databaseURL string
	schema      string
	seed        string
	svs         int
	contracts   int64
	perTx       int
	submitters  int
	users       int
	amount      string
	cpuProfile  string
	timeStartup bool
	dropStats   bool
	automation  bool
	verbose     bool
}

func main() {
	var c config
	flag.StringVar(&c.dataDir, "data-dir", "./.sandnet", "sandnet data directory (SQLite: <data-dir>/ledger.db)")
	flag.StringVar(&c.databaseURL, "database-url", "", "postgres:// URL: populate PostgreSQL instead of SQLite")
	flag.StringVar(&c.schema, "schema", "sandnet_ledger", "PostgreSQL schema (sandnet start uses sandnet_ledger)")
	flag.StringVar(&c.seed, "network-seed", "sandnet", "network seed, as sandnet start --network-seed")
	flag.IntVar(&c.svs, "svs", 4, "super validators of a newly seeded network, as sandnet start --svs")
	flag.Int64Var(&c.contracts, "contracts", 1_000_000, "active contracts the store should hold at the end, seeded ones included")
	flag.IntVar(&c.perTx, "per-tx", 100, "faucet taps (new Amulets) per transaction")
	flag.IntVar(&c.submitters, "submitters", 4, "concurrent submitters")
	flag.IntVar(&c.users, "users", 10, "wallet users (load-01, load-02, …) the amulets are spread over")
	flag.StringVar(&c.amount, "amount", "1.0", "amulet per tap")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	flag.BoolVar(&c.timeStartup, "time-startup", false, "time the startup steps of sandnet start on the existing store, then exit")
	flag.BoolVar(&c.dropStats, "drop-planner-stats", false, "SQLite: delete the planner statistics (as after a crash), then exit")
	flag.BoolVar(&c.automation, "automation-pass", false, "with --time-startup: also time the first DSO automation pass (it may commit round advances)")
	flag.BoolVar(&c.verbose, "v", false, "log the engine's messages")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "populate:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (err error) {
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	log := slog.New(slog.DiscardHandler)
	if c.verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if c.timeStartup {
		return timeStartup(ctx, c, log)
	}
	if c.dropStats {
		return dropPlannerStats(ctx, c)
	}
	if c.perTx < 1 || c.submitters < 1 || c.users < 1 {
		return errors.New("--per-tx, --submitters and --users must be at least 1")
	}
	amount, err := daml.ParseNumeric(c.amount)
	if err != nil {
		return fmt.Errorf("--amount: %w", err)
	}

	t0 := time.Now()
	store, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	defer func() {
		t := time.Now()
		if cerr := store.Close(); cerr != nil && err == nil {
			err = cerr
		}
		fmt.Printf("store closed in %s\n", time.Since(t).Round(time.Millisecond))
	}()
	net, err := ledger.Open(ctx, store, builtin.NewRegistry(), ledger.Config{Seed: c.seed, Logger: log})
	if err != nil {
		return err
	}
	defer net.Close()
	seeded, err := splice.Seed(ctx, net, splice.SeedConfig{SVs: c.svs})
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Printf("store %s open and seeded in %s\n", storeName(c), time.Since(t0).Round(time.Millisecond))

	have, err := store.CountActiveContracts(ctx)
	if err != nil {
		return err
	}
	if have >= c.contracts {
		fmt.Printf("the store already has %d active contracts (>= %d): nothing to do\n", have, c.contracts)
		return nil
	}
	users, err := loadUsers(ctx, net, seeded, c.users)
	if err != nil {
		return err
	}
	// Onboarding users creates contracts too (ValidatorRight,
	// WalletAppInstall): count again.
	if have, err = store.CountActiveContracts(ctx); err != nil {
		return err
	}
	need := max(0, c.contracts-have)
	p := &populator{net: net, seeded: seeded, users: users, amount: amount, perTx: int64(c.perTx)}
	if err := p.reloadContext(ctx); err != nil {
		return err
	}
	p.remaining.Store(need)
	fmt.Printf("creating %d amulets (%d per transaction, %d submitters, %d users) on top of %d active contracts\n",
		need, c.perTx, c.submitters, len(users), have)

	start := time.Now()
	done := make(chan struct{})
	go p.progress(start, need, done)
	var wg sync.WaitGroup
	errs := make(chan error, c.submitters)
	for range c.submitters {
		wg.Go(func() {
			if err := p.submitter(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(done)
	close(errs)
	elapsed := time.Since(start)
	created, txs := p.created.Load(), p.txs.Load()
	fmt.Printf("created %d amulets in %d transactions in %s: %.0f contracts/s, %.1f tx/s\n",
		created, txs, elapsed.Round(time.Millisecond), float64(created)/elapsed.Seconds(), float64(txs)/elapsed.Seconds())
	if err := errors.Join(collect(errs)...); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	total, err := store.CountActiveContracts(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("the store has %d active contracts\n", total)
	if c.databaseURL == "" {
		fmt.Printf("ledger.db: %s\n", fileSizes(filepath.Join(c.dataDir, "ledger.db")))
	}
	return nil
}

func collect(errs <-chan error) []error {
	var out []error
	for err := range errs {
		out = append(out, err)
	}
	return out
}

// openStore opens the ledger store as sandnet start does.
func openStore(ctx context.Context, c config) (ledger.Store, error) {
	if c.databaseURL != "" {
		if !strings.HasPrefix(c.databaseURL, "postgres://") && !strings.HasPrefix(c.databaseURL, "postgresql://") {
			return nil, errors.New("--database-url must be a postgres:// URL")
		}
		s, err := pgstore.OpenLedger(ctx, c.databaseURL, c.schema)
		if err != nil {
			return nil, fmt.Errorf("open PostgreSQL: %w", err)
		}
		return s, nil
	}
	if err := os.MkdirAll(c.dataDir, 0o700); err != nil {
		return nil, err
	}
	s, err := sqlitestore.OpenLedger(ctx, filepath.Join(c.dataDir, "ledger.db"))
	if err != nil {
		return nil, fmt.Errorf("open SQLite: %w", err)
	}
	return s, nil
}

func storeName(c config) string {
	if c.databaseURL != "" {
		return "postgres schema " + c.schema
	}
	return "sqlite " + filepath.Join(c.dataDir, "ledger.db")
}

type loadUser struct {
	name  string
	party daml.Party
}

// loadUsers returns the wallet users load-01…load-NN, onboarding those that
// do not exist yet the way the admin API's POST users does.
func loadUsers(ctx context.Context, net *ledger.Network, seeded *splice.Seeded, n int) ([]loadUser, error) {
	op := operator.New(net, seeded)
	out := make([]loadUser, 0, n)
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("load-%02d", i)
		u, err := net.Store().User(ctx, seeded.Validator.Participant, name)
		switch {
		case err == nil:
			out = append(out, loadUser{name, u.PrimaryParty})
			continue
		case !fault.Is(err, fault.NotFound):
			return nil, err
		}
		info, err := op.CreateUser(ctx, name, "")
		if err != nil {
			return nil, fmt.Errorf("create user %s: %w", name, err)
		}
		out = append(out, loadUser{name, info.PrimaryParty})
	}
	return out, nil
}

type populator struct {
	net    *ledger.Network
	seeded *splice.Seeded
	users  []loadUser
	amount daml.Numeric
	perTx  int64

	mu sync.RWMutex
	ac splice.AmuletContext

	remaining, created, txs, seq atomic.Int64
}

// reloadContext reads the amulet rules and the open round again, which a
// running DSO automation may have replaced.
func (p *populator) reloadContext(ctx context.Context) error {
	ac, err := splice.LoadAmuletContext(ctx, p.net.Store(), p.seeded.DSOParty, p.net.Clock().Now())
	if err != nil {
		return fmt.Errorf("load the amulet rules and open round: %w", err)
	}
	p.mu.Lock()
	p.ac = ac
	p.mu.Unlock()
	return nil
}

func (p *populator) context() splice.AmuletContext {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.ac
}

// submitter claims batches of taps until none remain, and submits each as
// one transaction acting as one of the users, round robin.
func (p *populator) submitter(ctx context.Context) error {
	for ctx.Err() == nil {
		n := min(p.perTx, p.remaining.Add(-p.perTx)+p.perTx)
		if n <= 0 {
			return nil
		}
		seq := p.seq.Add(1)
		u := p.users[int(seq)%len(p.users)]
		var err error
		for attempt := 0; attempt < 3; attempt++ {
			if err = p.submit(ctx, u, seq, int(n)); err == nil || ctx.Err() != nil {
				break
			}
			// The open round or the rules changed under us (a DSO
			// automation running elsewhere): read them again and retry.
			if !fault.Is(err, fault.Aborted) && !fault.Is(err, fault.NotFound) {
				break
			}
			if rerr := p.reloadContext(ctx); rerr != nil {
				return rerr
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("transaction %d: %w", seq, err)
		}
		p.created.Add(n)
		p.txs.Add(1)
	}
	return nil
}

func (p *populator) submit(ctx context.Context, u loadUser, seq int64, n int) error {
	ac := p.context()
	_, err := p.net.Submit(ctx, ledger.Command{
		Participant: p.seeded.Validator.Participant, UserID: u.name, ActAs: []daml.Party{u.party},
		CommandID: fmt.Sprintf("sandnet-populate-%d-%d", time.Now().UnixNano(), seq), WorkflowID: "sandnet-populate",
		Disclosed: ac.Disclosed(),
		Run: func(tx *ledger.Tx) error {
			for range n {
				if _, err := splice.Tap(tx, ac, u.party, p.amount); err != nil {
					return err
				}
			}
			return nil
		},
	})
	return err
}

func (p *populator) progress(start time.Time, need int64, done <-chan struct{}) {
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	lastT, lastN := start, int64(0)
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			n := p.created.Load()
			rate := float64(n-lastN) / now.Sub(lastT).Seconds()
			avg := float64(n) / now.Sub(start).Seconds()
			eta := "?"
			if avg > 0 {
				eta = (time.Duration(float64(need-n)/avg) * time.Second).Round(time.Second).String()
			}
			fmt.Printf("%8s  %9d/%d contracts  %6.0f/s now  %6.0f/s avg  %6.1f tx/s  eta %s\n",
				now.Sub(start).Round(time.Second), n, need, rate, avg, float64(p.txs.Load())/now.Sub(start).Seconds(), eta)
			lastT, lastN = now, n
		}
	}
}

// timeStartup opens the store the way sandnet start's Main.Run does and
// prints the time of each step.
func timeStartup(ctx context.Context, c config, log *slog.Logger) error {
	step := func(name string, t time.Time) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("%-32s %8.1f ms  (heap %d MiB)\n", name, float64(time.Since(t).Microseconds())/1000, ms.HeapAlloc>>20)
	}
	total := time.Now()
	t := time.Now()
	store, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	step("open store (+ migrations)", t)
	defer func() {
		t := time.Now()
		store.Close()
		step("close store", t)
	}()
	t = time.Now()
	net, err := ledger.Open(ctx, store, builtin.NewRegistry(), ledger.Config{Seed: c.seed, Logger: log})
	if err != nil {
		return err
	}
	defer net.Close()
	step("ledger.Open (head, topology)", t)
	t = time.Now()
	seeded, err := splice.Seed(ctx, net, splice.SeedConfig{SVs: c.svs})
	if err != nil {
		return err
	}
	step("splice.Seed (already seeded?)", t)
	_ = operator.New(net, seeded)
	step("ready (sum of the above)", total)
	if c.automation {
		t = time.Now()
		res, err := splice.NewDSOAutomation(net, seeded, log).RunOnce(ctx)
		if err != nil {
			return err
		}
		step(fmt.Sprintf("first DSO automation pass (%d tx)", res.Transactions), t)
		t = time.Now()
		if _, err := splice.LoadAmuletContext(ctx, store, seeded.DSOParty, net.Clock().Now()); err != nil {
			return err
		}
		step("LoadAmuletContext (every tap)", t)
	}
	t = time.Now()
	n, err := store.CountActiveContracts(ctx)
	if err != nil {
		return err
	}
	step(fmt.Sprintf("CountActiveContracts (%d)", n), t)
	return nil
}

func fileSizes(path string) string {
	var parts []string
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			parts = append(parts, fmt.Sprintf("%s %.0f MiB", filepath.Base(p), float64(fi.Size())/(1<<20)))
		}
	}
	return strings.Join(parts, ", ")
}

// dropPlannerStats deletes sqlite_stat1 without going through sqlitestore,
// whose Close would compute the statistics again.
func dropPlannerStats(ctx context.Context, c config) error {
	if c.databaseURL != "" {
		return errors.New("--drop-planner-stats is for SQLite (PostgreSQL's autovacuum keeps its statistics)")
	}
	path := filepath.Join(c.dataDir, "ledger.db")
	if _, err := os.Stat(path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `DELETE FROM sqlite_stat1`)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	n, _ := res.RowsAffected()
	fmt.Printf("deleted %d rows of planner statistics from %s\n", n, path)
	return nil
}
