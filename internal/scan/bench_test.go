package scan_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// BenchmarkIngestionLag measures how long a committed transaction takes to
// be readable in Scan's history (what POST /api/scan/v2/updates reads)
// while submitters keep the ledger busy: the time from the commit's return
// to the first moment the Scan's store answers the update by id. The
// ingester and snapshotter run as they do in sandnet start; the wall clock
// is real.
//
//	go test -run '^$' -bench BenchmarkIngestionLag -benchtime 2000x ./internal/scan/
func BenchmarkIngestionLag(b *testing.B) {
	if testing.Short() {
		b.Skip("load benchmark: not in -short")
	}
	for _, submitters := range []int{1, 8} {
		b.Run(fmt.Sprintf("submitters=%d", submitters), func(b *testing.B) {
			benchLag(b, submitters)
		})
	}
}

func benchLag(b *testing.B, submitters int) {
	e := newEnvAt(b, time.Now)
	e.ing.BatchSize, e.snaps.Chunk = 0, 0 // the defaults sandnet runs with
	ctx, cancel := context.WithCancel(context.Background())
	var loops sync.WaitGroup
	loops.Go(func() { _ = e.ing.Run(ctx, e.snaps.Wake) })
	loops.Go(func() { _ = e.snaps.Run(ctx) })
	defer func() {
		cancel()
		loops.Wait()
	}()
	alice, _ := e.seeded.User("alice")
	type commit struct {
		id string
		at time.Time
	}
	commits := make(chan commit, 1024)
	lags := make([]time.Duration, 0, b.N)
	var watcher sync.WaitGroup
	watcher.Go(func() {
		for c := range commits {
			for {
				// The ingester signals every stored batch: check, then
				// wait for the next one, without spinning.
				ingested := e.ing.Ingested.C()
				if _, err := e.store.Update(ctx, c.id); err == nil {
					lags = append(lags, time.Since(c.at))
					break
				}
				<-ingested
			}
		}
	})
	var next sync.Mutex
	n := 0
	b.ResetTimer()
	var subs sync.WaitGroup
	for range submitters {
		subs.Go(func() {
			for {
				next.Lock()
				if n == b.N {
					next.Unlock()
					return
				}
				n++
				next.Unlock()
				cid, err := splice.TapFor(ctx, e.net, e.seeded, alice.Name, alice.Party, daml.MustNumeric("1.0"))
				at := time.Now()
				if err != nil {
					b.Error(err)
					return
				}
				c, _, err := e.net.Store().Contract(ctx, cid)
				if err != nil {
					b.Error(err)
					return
				}
				commits <- commit{id: c.CreatedBy, at: at}
			}
		})
	}
	subs.Wait()
	close(commits)
	watcher.Wait()
	b.StopTimer()
	slices.Sort(lags)
	if len(lags) == 0 {
		return
	}
	pct := func(p float64) float64 { return float64(lags[int(p*float64(len(lags)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "µs-p50-lag")
	b.ReportMetric(pct(0.99), "µs-p99-lag")
	b.ReportMetric(float64(len(lags))/b.Elapsed().Seconds(), "commits/s")
}
