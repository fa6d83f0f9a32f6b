package ledger_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	neturl "net/url"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/pgstore"
)

// Engine benchmarks on PostgreSQL. BenchmarkSubmit (network_test.go) is the
// SQLite figure; the benchmarks here run the same workload through the same
// engine on pgstore, so that
//
//	go test -run '^$' -bench BenchmarkSubmit -benchtime 3s ./internal/ledger/
//
// prints both side by side. The server is SANDNET_TEST_DATABASE_URL
// (default below); each benchmark works in a fresh schema that it drops
// afterwards, and skips when no server answers.

const defaultBenchDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// benchDatabaseURL returns the PostgreSQL server to benchmark on, or skips:
// SANDNET_TEST_DATABASE_URL=skip, or no server answering (a failure under
// CI=true, as for the store suite).
func benchDatabaseURL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv("SANDNET_TEST_DATABASE_URL")
	if url == "skip" {
		tb.Skip("SANDNET_TEST_DATABASE_URL=skip")
	}
	if url == "" {
		url = defaultBenchDatabaseURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err == nil {
		err = conn.Ping(ctx)
		conn.Close(ctx)
	}
	if err != nil {
		shown := url // never print a password
		if u, perr := neturl.Parse(url); perr == nil {
			shown = u.Redacted()
		}
		if os.Getenv("CI") == "true" {
			tb.Fatalf("PostgreSQL at %s is unreachable: %v", shown, err)
		}
		tb.Skipf("PostgreSQL at %s is unreachable (%v); set SANDNET_TEST_DATABASE_URL", shown, err)
	}
	return url
}

// openPostgres opens a PostgreSQL store in a fresh schema, dropped when tb
// ends.
func openPostgres(tb testing.TB) ledger.Store {
	tb.Helper()
	ctx := context.Background()
	url := benchDatabaseURL(tb)
	var r [8]byte
	rand.Read(r[:])
	schema := "sandnet_bench_" + hex.EncodeToString(r[:])
	// Registered first, so it runs last: after the network and the store
	// are closed.
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	store, err := pgstore.OpenLedger(ctx, url, schema)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	return store
}

// countingStore counts Write calls: the sequencer makes one per batch, so
// transactions per Write is its group-commit batch size.
type countingStore struct {
	ledger.Store
	writes atomic.Int64
}

func (c *countingStore) Write(ctx context.Context, fn func(ledger.WriteTx) error) error {
	c.writes.Add(1)
	return c.Store.Write(ctx, fn)
}

// setupOn opens a network on store with setup's topology: p1 hosts the
// bank and alice, p2 hosts bob. It is setup without the SQLite store.
func setupOn(tb testing.TB, store ledger.Store) *bundle {
	tb.Helper()
	ctx := context.Background()
	wall := &atomic.Int64{}
	wall.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro())
	net, err := ledger.Open(ctx, store, testRegistry(), ledger.Config{
		Seed: "test", Wall: func() time.Time { return time.UnixMicro(wall.Load()) },
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { net.Close() })
	b := &bundle{net: net, wall: wall}
	p1, err := net.AddParticipant(ctx, "p1")
	if err != nil {
		tb.Fatal(err)
	}
	p2, err := net.AddParticipant(ctx, "p2")
	if err != nil {
		tb.Fatal(err)
	}
	b.p1, b.p2 = p1.ID, p2.ID
	if _, err := net.AddSynchronizer(ctx, "global-domain"); err != nil {
		tb.Fatal(err)
	}
	alloc := func(hint string, on ledger.ParticipantID) daml.Party {
		p, err := net.AllocateParty(ctx, ledger.PartySpec{Hint: hint, Hosts: []ledger.Hosting{{Participant: on}}})
		if err != nil {
			tb.Fatal(err)
		}
		return p
	}
	b.bank, b.alice, b.bob = alloc("bank", b.p1), alloc("alice", b.p1), alloc("bob", b.p2)
	return b
}

// BenchmarkSubmitPostgres is BenchmarkSubmit on PostgreSQL: commit
// throughput of simple transactions (one create) through the whole engine,
// sequential and with 16 concurrent submitters group-committed by the
// sequencer. It also reports the sequencer's mean batch ("tx/commit").
func BenchmarkSubmitPostgres(b *testing.B) {
	for _, par := range []int{1, 16} {
		b.Run(fmt.Sprintf("submitters=%d", par), func(b *testing.B) {
			store := &countingStore{Store: openPostgres(b)}
			bb := setupOn(b, store)
			before := store.writes.Load()
			benchSubmit(b, bb, par)
			b.ReportMetric(float64(b.N)/float64(store.writes.Load()-before), "tx/commit")
		})
	}
}

// benchSubmit is the body of BenchmarkSubmit: par submitters each commit
// transactions that create one Iou, and it reports transactions per second.
// Each command has a command id of its own, as a ledger API client's has,
// so that the sequencer checks and records its deduplication too.
func benchSubmit(b *testing.B, bb *bundle, par int) {
	var seq atomic.Int64
	next := func() ledger.Command {
		return ledger.Command{
			Participant: bb.p1, UserID: "bench", ActAs: []daml.Party{bb.bank}, CommandID: "bench-" + strconv.FormatInt(seq.Add(1), 10),
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Create(tx, Iou{Issuer: bb.bank, Owner: bb.alice, Amount: daml.MustNumeric("1")})
				return err
			},
		}
	}
	// RunParallel starts parallelism×GOMAXPROCS goroutines.
	b.SetParallelism(max(1, par/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	start := time.Now()
	if par == 1 {
		for b.Loop() {
			if _, err := bb.net.Submit(context.Background(), next()); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := bb.net.Submit(context.Background(), next()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tx/s")
}
