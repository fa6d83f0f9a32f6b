package storetest

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// BenchmarkAppend measures [ledger.Store.Write] calls that each append one
// transaction archiving one contract and creating one, the shape of a
// transfer, with the head read inside the write as the engine reads it.
// goroutines is the number of concurrent writers (1: sequential); each
// writer archives its own chain of contracts, so writers never conflict and
// only the store's serialisation is measured. It reports transactions per
// second as "tx/s".
func BenchmarkAppend(b *testing.B, s ledger.Store, goroutines int) {
	ctx := context.Background()
	setupNetwork(b, s)
	workers := 1
	if goroutines > 1 {
		procs := runtime.GOMAXPROCS(0)
		// RunParallel starts parallelism×GOMAXPROCS goroutines.
		par := (goroutines + procs - 1) / procs
		b.SetParallelism(par)
		workers = par * procs
	}
	seeds := make([]create, workers)
	for i := range seeds {
		seeds[i] = create{tmpl: amulet, sig: []daml.Party{alice}}
	}
	chains := ids(mustAppend(b, s, spec{creates: seeds}).Created())

	step := func(cur daml.ContractID) daml.ContractID {
		tx, err := appendTx(ctx, s, spec{
			consumes: []daml.ContractID{cur},
			creates:  []create{{tmpl: amulet, sig: []daml.Party{alice}, obs: []daml.Party{bob}, amount: "10.5"}},
			on:       []ledger.ParticipantID{par1.ID},
		})
		if err != nil {
			b.Error(err)
			return cur
		}
		return tx.Events[1].Created.ID
	}

	b.ReportAllocs()
	b.ResetTimer()
	if workers == 1 {
		cur := chains[0]
		for b.Loop() {
			cur = step(cur)
		}
	} else {
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			cur := chains[next.Add(1)-1]
			for pb.Next() {
				cur = step(cur)
			}
		})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}
