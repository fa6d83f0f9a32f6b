package storetest

import (
	"context"
	"fmt"
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

// BenchmarkAppendTransfer measures appends of the shape of a token-standard
// transfer's transaction, one writer: it archives the last one's change
// and creates the receiver's amulet and the sender's change (stakeholders
// the DSO and the owner, the receiver observing the change), in the
// streams of five participants as on a network of four SVs (three more
// hosting the DSO), so that every per-participant, per-informee and
// per-stakeholder row of the write path is written several times. It
// reports transactions per second as "tx/s".
func BenchmarkAppendTransfer(b *testing.B, s ledger.Store) {
	ctx := context.Background()
	setupNetwork(b, s)
	all := []ledger.ParticipantID{par1.ID, par2.ID}
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		for i := range 3 {
			p := ledger.Participant{ID: ledger.NewParticipantID(fmt.Sprintf("sv%d", i+2), ledger.Fingerprint("storetest", fmt.Sprintf("sv%d", i+2))), Name: "sv"}
			if err := w.PutParticipant(ctx, p); err != nil {
				return err
			}
			if err := w.PutHosting(ctx, ledger.Hosting{Party: dso, Participant: p.ID, Synchronizer: sync1.ID, Permission: ledger.PermissionConfirmation}); err != nil {
				return err
			}
			all = append(all, p.ID)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	both := all
	cur := mustAppend(b, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{dso, alice}}}, on: both}).Created()[0].ID
	b.ReportAllocs()
	for b.Loop() {
		tx, err := appendTx(ctx, s, spec{
			consumes: []daml.ContractID{cur},
			creates: []create{
				{tmpl: amulet, sig: []daml.Party{dso, bob}, amount: "10.0"},
				{tmpl: amulet, sig: []daml.Party{dso, alice}, obs: []daml.Party{bob}, amount: "990.0"},
			},
			on: both,
		})
		if err != nil {
			b.Fatal(err)
		}
		cur = tx.Events[2].Created.ID
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}
