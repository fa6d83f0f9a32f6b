package storetest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// ScanBenchContracts returns how many contracts the Scan benchmarks hold:
// SANDNET_BENCH_CONTRACTS, 100 000 by default. It skips the benchmark in
// -short.
func ScanBenchContracts(b *testing.B) int {
	b.Helper()
	if testing.Short() {
		b.Skip("benchmark at scale: not in -short")
	}
	n := 100_000
	if s := os.Getenv("SANDNET_BENCH_CONTRACTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1000 {
			b.Fatalf("SANDNET_BENCH_CONTRACTS=%q: want a number of at least 1000", s)
		}
		n = v
	}
	return n
}

// scanBenchOwners is how many owner parties the benchmark's contracts are
// spread over.
const scanBenchOwners = 100

func scanBenchOwner(i int) daml.Party {
	return ledger.PartyID(fmt.Sprintf("owner%d", i), ledger.Fingerprint("storetest", "owners"))
}

// scanBenchUpdate is the i-th update of the benchmark's history: one create
// of an Amulet (a LockedAmulet for one in ten) owned by one of the owners,
// the DSO party an observer, at record time rt.
func scanBenchUpdate(i int, rt daml.Timestamp) scan.Update {
	tmpl := amulet
	if i%10 == 0 {
		tmpl = locked
	}
	return scanUpd(ledger.Offset(i+1), supd{rt: rt, tag: strconv.Itoa(i),
		creates: []create{{tmpl: tmpl, sig: []daml.Party{scanBenchOwner(i % scanBenchOwners)}, amount: strconv.Itoa(i)}}})
}

// scanBenchEnd is the record time after the history of n updates.
func scanBenchEnd(n int) daml.Timestamp { return t0 + daml.Timestamp(n)*1000 }

// FillScan ingests the benchmark's history into an empty store: n updates
// of one contract each, one millisecond apart, in batches of 1000.
func FillScan(tb testing.TB, s scan.Store, n int) {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	var cur scan.Cursor
	const batch = 1000
	for i := 0; i < n; i += batch {
		us := make([]scan.Update, 0, batch)
		for j := i; j < min(i+batch, n); j++ {
			us = append(us, scanBenchUpdate(j, t0+daml.Timestamp(j)*1000))
		}
		next := scan.Cursor{Offset: ledger.Offset(i + len(us)), Watermark: us[len(us)-1].Transaction.RecordTime}
		if err := s.Ingest(ctx, cur, next, us); err != nil {
			tb.Fatal(err)
		}
		cur = next
	}
	tb.Logf("ingested %d contracts in %v", n, time.Since(start).Round(time.Millisecond))
}

// CheckScanFilled fails unless s holds the history FillScan makes of n
// updates (a cached store from an interrupted or other run).
func CheckScanFilled(tb testing.TB, s scan.Store, n int) {
	tb.Helper()
	c, err := s.Cursor(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if int(c.Offset) != n {
		tb.Fatalf("the cached Scan store holds %d updates, want %d (delete it to rebuild)", c.Offset, n)
	}
}

// BenchmarkScanSnapshot measures, on a store FillScan filled with n
// contracts, the time of BuildSnapshot (chunks of 1000) per iteration, and
// reports once:
//   - first-page-µs and last-page-µs: SnapshotPage of 1000 rows at the start
//     and at the end of the snapshot (medians), and last/first, which a
//     keyset page keeps near 1;
//   - walk-contracts/s: the whole snapshot in pages of 1000, and
//     walk-party-contracts/s the same with a one-party filter (one owner
//     of 100);
//   - ingest-idle-p50/p99-µs and ingest-build1000/100-p50/p99-µs: an Ingest
//     of one update every millisecond, while nothing else runs and while a
//     BuildSnapshot in chunks of 1000 or 100 runs, to show that a build
//     does not stall ingestion (an Ingest waits for at most one chunk).
func BenchmarkScanSnapshot(b *testing.B, s scan.Store, n int) {
	ctx := context.Background()
	end := scanBenchEnd(n)
	var snap scan.Snapshot
	i := 0
	for b.Loop() {
		i++
		var err error
		if snap, err = s.BuildSnapshot(ctx, 0, end+daml.Timestamp(i), 1000); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if snap.Contracts() != int64(n) {
		b.Fatalf("snapshot holds %d contracts; want %d", snap.Contracts(), n)
	}

	page := func(after int64, parties []daml.Party) (time.Duration, []scan.SnapshotRow) {
		start := time.Now()
		rows, err := s.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: snap, After: after, Limit: 1000, Parties: parties})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start), rows
	}
	median := func(after int64) time.Duration {
		var ds []time.Duration
		for range 21 {
			d, rows := page(after, nil)
			if len(rows) != 1000 {
				b.Fatalf("page after %d has %d rows", after, len(rows))
			}
			ds = append(ds, d)
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	first, last := median(0), median(snap.LastRow-1000)
	b.ReportMetric(float64(first.Microseconds()), "first-page-µs")
	b.ReportMetric(float64(last.Microseconds()), "last-page-µs")
	b.ReportMetric(float64(last)/float64(first), "last/first")

	walk := func(parties []daml.Party) float64 {
		start := time.Now()
		total, after := 0, int64(0)
		for {
			_, rows := page(after, parties)
			total += len(rows)
			if len(rows) < 1000 {
				break
			}
			after = rows[len(rows)-1].Row
		}
		return float64(total) / time.Since(start).Seconds()
	}
	b.ReportMetric(walk(nil), "walk-contracts/s")
	b.ReportMetric(walk([]daml.Party{scanBenchOwner(7)}), "walk-party-contracts/s")

	// Ingestion, one update per millisecond, idle and during a build.
	cur, err := s.Cursor(ctx)
	if err != nil {
		b.Fatal(err)
	}
	k := 0
	ingest := func() time.Duration {
		k++
		rt := end + 1_000_000_000 + daml.Timestamp(k)*1000
		u := scanBenchUpdate(n+1_000_000+k, rt)
		u.Offset = cur.Offset + 1
		next := scan.Cursor{Offset: cur.Offset + 1, Watermark: rt}
		start := time.Now()
		if err := s.Ingest(ctx, cur, next, []scan.Update{u}); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		cur = next
		time.Sleep(time.Millisecond)
		return d
	}
	pct := func(ds []time.Duration, p float64) float64 {
		slices.Sort(ds)
		return float64(ds[int(float64(len(ds)-1)*p)].Microseconds())
	}
	var idle []time.Duration
	for range 300 {
		idle = append(idle, ingest())
	}
	b.ReportMetric(pct(idle, 0.5), "ingest-idle-p50-µs")
	b.ReportMetric(pct(idle, 0.99), "ingest-idle-p99-µs")
	// A chunk's transaction is what an Ingest may wait for: measured with
	// the chunk of the builds above and with a tenth of it.
	for _, chunk := range []int{1000, 100} {
		i++
		done := make(chan error, 1)
		go func() {
			_, err := s.BuildSnapshot(ctx, 0, end+daml.Timestamp(i), chunk)
			done <- err
		}()
		var during []time.Duration
		for building := true; building; {
			select {
			case err := <-done:
				if err != nil {
					b.Fatal(err)
				}
				building = false
			default:
				during = append(during, ingest())
			}
		}
		if len(during) > 0 {
			unit := fmt.Sprintf("ingest-build%d-", chunk)
			b.ReportMetric(pct(during, 0.5), unit+"p50-µs")
			b.ReportMetric(pct(during, 0.99), unit+"p99-µs")
		}
	}
}

// FillScanHistory ingests into an empty store a history of n updates over
// two hard migrations, as a network's Scan would hold it: the first half
// in migration 0, each creating a contract and archiving the one before
// (one in fifty stays active); then migration 1's import updates, one per
// contract still active, as the Ingester makes them; then the second half
// in migration 1, created and archived alike. Updates are one millisecond
// apart. It returns the import updates' count.
func FillScanHistory(tb testing.TB, s scan.Store, n int) (imports int) {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	var cur scan.Cursor
	const batch = 1000
	half := n / 2
	ingest := func(us []scan.Update, migration int64) {
		next := scan.Cursor{Offset: cur.Offset + ledger.Offset(len(us)), Migration: migration, Watermark: cur.Watermark}
		if last := us[len(us)-1]; !last.Import {
			next.Watermark = last.Transaction.RecordTime
		}
		if err := s.Ingest(ctx, cur, next, us); err != nil {
			tb.Fatal(err)
		}
		cur = next
	}
	// update i creates contract i and archives contract i-1 unless i-1 is
	// a multiple of 50.
	var prev daml.ContractID
	history := func(from, to int, migration int64) {
		for i := from; i < to; i += batch {
			us := make([]scan.Update, 0, batch)
			for j := i; j < min(i+batch, to); j++ {
				spec := supd{mig: migration, rt: t0 + daml.Timestamp(j)*1000, tag: strconv.Itoa(j),
					creates: []create{{tmpl: amulet, sig: []daml.Party{scanBenchOwner(j % scanBenchOwners)}, amount: strconv.Itoa(j)}}}
				if prev != "" && (j-1)%50 != 0 {
					spec.archives = []daml.ContractID{prev}
				}
				u := scanUpd(0, spec)
				prev = u.Created[0].ID
				us = append(us, u)
			}
			ingest(us, migration)
		}
	}
	history(0, half, 0)
	active, err := s.ActiveContracts(ctx, scan.ContractQuery{})
	if err != nil {
		tb.Fatal(err)
	}
	slices.SortFunc(active, func(a, b *ledger.Contract) int { return strings.Compare(string(a.ID), string(b.ID)) })
	for i := 0; i < len(active); i += batch {
		us := make([]scan.Update, 0, batch)
		for _, c := range active[i:min(i+batch, len(active))] {
			us = append(us, scan.Update{Import: true, Created: []*ledger.Contract{c}, Transaction: &ledger.Transaction{
				UpdateID: string(c.ID), WorkflowID: scan.ImportWorkflowPrefix + string(c.ID), MigrationID: 1,
				Synchronizer: c.Synchronizer, RecordTime: daml.MinTimestamp, EffectiveAt: c.CreatedAt,
				Roots: []int32{0}, Events: []ledger.Event{{NodeID: 0, Created: c, Witnesses: []daml.Party{dso}}},
			}})
		}
		ingest(us, 1)
	}
	history(half, n, 1)
	tb.Logf("ingested %d updates and %d import updates over two migrations in %v", n, len(active), time.Since(start).Round(time.Millisecond))
	return len(active)
}

// HistoryDSO is the DSO party of the histories FillScan and
// FillScanHistory make: the stakeholder a Scan's contract set is kept for.
var HistoryDSO = dso
