package validator_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/validator"
)

// BenchmarkDirectTransfer measures the three steps of a direct transfer
// with the wallet automation running as in sandnet start: the sender
// creates an offer, the receiver accepts it, and the time runs until the
// sender's automation has completed it (the accepted offer is archived by
// AcceptedTransferOffer_Complete). It reports p50 and p99 of that
// end-to-end latency and the completed transfers per second, for one pair
// of users and for 16 pairs transferring concurrently. The DSO contracts
// come from the ledger (ledgerScan), not over HTTP.
//
//	go test -run '^$' -bench BenchmarkDirectTransfer -benchtime 1000x ./internal/validator/
func BenchmarkDirectTransfer(b *testing.B) {
	if testing.Short() {
		b.Skip("load benchmark: not in -short")
	}
	for _, pairs := range []int{1, 16} {
		b.Run(fmt.Sprintf("pairs=%d", pairs), func(b *testing.B) { benchTransfers(b, pairs) })
	}
}

func benchTransfers(b *testing.B, pairs int) {
	ctx, cancel := context.WithCancel(context.Background())
	e := newEnvAt(b, time.Now)
	var loops sync.WaitGroup
	loops.Go(func() { _ = e.v.TxLog().Run(ctx) })
	loops.Go(func() { _ = e.v.Automation().Run(ctx) })
	defer func() {
		cancel()
		loops.Wait()
	}()
	type pair struct{ from, to validator.Wallet }
	ps := make([]pair, pairs)
	for i := range ps {
		for j, name := range []string{fmt.Sprint("s", i), fmt.Sprint("r", i)} {
			if _, err := e.v.Onboard(ctx, name, ""); err != nil {
				b.Fatal(err)
			}
			w := e.wallet(b, name)
			if j == 0 {
				ps[i].from = w
				if _, err := e.v.Tap(ctx, w, num("1000.0"), ""); err != nil {
					b.Fatal(err)
				}
			} else {
				ps[i].to = w
			}
		}
	}
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	var next int
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Go(func() {
			for {
				mu.Lock()
				if next == b.N {
					mu.Unlock()
					return
				}
				next++
				n := next
				mu.Unlock()
				start := time.Now()
				cid, err := e.v.CreateOffer(ctx, p.from, validator.OfferRequest{
					Receiver: p.to.Party, Amount: num("1.0"), ExpiresAt: e.now() + daml.Timestamp(time.Hour.Microseconds()), TrackingID: fmt.Sprint("t", n),
				})
				if err != nil {
					b.Error(err)
					return
				}
				acc, err := e.v.AcceptOffer(ctx, p.to, cid)
				if err != nil {
					b.Error(err)
					return
				}
				for {
					committed := e.net.Committed()
					_, active, err := e.net.Store().Contract(ctx, acc)
					if err != nil {
						b.Error(err)
						return
					}
					if !active {
						break
					}
					<-committed
				}
				d := time.Since(start)
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "ms-p50")
	b.ReportMetric(pct(0.99), "ms-p99")
	b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "transfers/s")
}
