package ledgerapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// Benchmarks of the updates list at scale (docs/performance.md, "Ledger
// API"). They serve a log of SANDNET_BENCH_UPDATES stored updates
// (default 100,000) on SQLite over full HTTP (an httptest server in the
// process), with the node limit raised above the log. The log is built
// once through the engine (16 submitters, one create of a BenchIou each,
// owned alternately by alice and bob, both hosted on the participant) and
// kept in SANDNET_BENCH_DIR (default $TMPDIR/sandnet-ledgerapi-bench) for
// the next run. Skipped in -short.
//
//	SANDNET_BENCH_UPDATES=100000 go test -run '^$' -bench 'BenchmarkUpdatesList' -benchtime 3x -timeout 1h ./internal/api/ledgerapi/

// BenchIou is the benchmark's template.
type BenchIou struct {
	Issuer daml.Party   `daml:"issuer"`
	Owner  daml.Party   `daml:"owner"`
	Amount daml.Numeric `daml:"amount"`
	Note   string       `daml:"note"`
}

var benchIouID = ledger.TemplateID{
	Identifier:  daml.Identifier{PackageID: "00000000000000000000000000000000000000000000000000000000000000b1", ModuleName: "Bench.Iou", EntityName: "Iou"},
	PackageName: "bench-iou",
}

func (BenchIou) TemplateID() ledger.TemplateID { return benchIouID }
func (i BenchIou) Signatories() []daml.Party   { return []daml.Party{i.Issuer} }
func (i BenchIou) Observers() []daml.Party     { return []daml.Party{i.Owner} }
func (BenchIou) Ensure() error                 { return nil }

// benchLog is a stored log of n updates and a handler serving it.
type benchLog struct {
	n int
	// base is the number of topology updates (the party allocations)
	// before the n transactions; body() counts offsets from there.
	base         int
	net          *ledger.Network
	participant  ledger.ParticipantID
	alice, bob   daml.Party
	handler      http.Handler
	srv          *httptest.Server
	registry     *ledger.Registry
	ledgerConfig ledgerapi.Config
}

type benchMeta struct {
	Participant ledger.ParticipantID `json:"participant"`
	Bank        daml.Party           `json:"bank"`
	Alice       daml.Party           `json:"alice"`
	Bob         daml.Party           `json:"bob"`
	// Topology is how many topology updates (party allocations) precede
	// the transactions in the participant's stream.
	Topology int `json:"topology"`
}

func benchUpdates(tb testing.TB) int {
	n := 100_000
	if s := os.Getenv("SANDNET_BENCH_UPDATES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1000 {
			tb.Fatalf("SANDNET_BENCH_UPDATES=%q: want a number of at least 1000", s)
		}
		n = v
	}
	return n
}

var (
	benchLogsMu sync.Mutex
	benchLogs   = map[[2]int]*benchLog{}
)

// openBenchLog opens (building it the first time) the log of n updates,
// alice's and bob's in turn. It stays open for the process's benchmarks.
func openBenchLog(b *testing.B, n int) *benchLog {
	b.Helper()
	return openBenchLogShare(b, n, 2)
}

// openBenchLogShare opens (building it the first time) the log of n
// updates in which one in every aliceEvery is alice's and the others
// bob's.
func openBenchLogShare(b *testing.B, n, aliceEvery int) *benchLog {
	b.Helper()
	if testing.Short() {
		b.Skip("benchmark at scale: not in -short")
	}
	benchLogsMu.Lock()
	defer benchLogsMu.Unlock()
	key := [2]int{n, aliceEvery}
	if l := benchLogs[key]; l != nil {
		return l
	}
	ctx := context.Background()
	dir := os.Getenv("SANDNET_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sandnet-ledgerapi-bench")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	dbPath := filepath.Join(dir, fmt.Sprintf("ledger-%d.db", n))
	if aliceEvery != 2 {
		dbPath = filepath.Join(dir, fmt.Sprintf("ledger-%d-alice-1-in-%d.db", n, aliceEvery))
	}
	metaPath := dbPath + ".json"
	var meta benchMeta
	metaBytes, metaErr := os.ReadFile(metaPath)
	if metaErr != nil {
		for _, p := range []string{dbPath, dbPath + "-wal", dbPath + "-shm"} {
			os.Remove(p)
		}
	}
	st, err := sqlitestore.OpenLedger(ctx, dbPath)
	if err != nil {
		b.Fatal(err)
	}
	reg := ledger.NewRegistry()
	ledger.RegisterTemplate[BenchIou](reg)
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net, err := ledger.Open(ctx, st, reg, ledger.Config{Seed: "bench", Wall: func() time.Time { return wall }})
	if err != nil {
		b.Fatal(err)
	}
	if metaErr == nil {
		if err := json.Unmarshal(metaBytes, &meta); err != nil {
			b.Fatal(err)
		}
	} else {
		meta = buildBenchLog(b, net, n, aliceEvery)
		mb, _ := json.Marshal(meta)
		if err := os.WriteFile(metaPath, mb, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	head, err := net.Store().Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if got := head.Offsets[meta.Participant]; int(got) != meta.Topology+n {
		b.Fatalf("%s holds %d updates, want %d (delete it to rebuild)", dbPath, got, meta.Topology+n)
	}
	l := &benchLog{n: n, base: meta.Topology, net: net, participant: meta.Participant, alice: meta.Alice, bob: meta.Bob, registry: reg}
	l.ledgerConfig = ledgerapi.Config{
		Participant: meta.Participant, ParticipantName: "p1",
		Ledger: ledgerapi.NetworkLedger(net), Registry: reg,
		Auth:            &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true},
		MaxListElements: n + 1, Logger: discard,
	}
	mux := http.NewServeMux()
	ledgerapi.New(l.ledgerConfig).Register(mux, "")
	l.handler = mux
	l.srv = httptest.NewServer(mux)
	benchLogs[key] = l
	return l
}

func buildBenchLog(b *testing.B, net *ledger.Network, n, aliceEvery int) benchMeta {
	ctx := context.Background()
	start := time.Now()
	p, err := net.AddParticipant(ctx, "p1")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := net.AddSynchronizer(ctx, "global-domain"); err != nil {
		b.Fatal(err)
	}
	alloc := func(hint string) daml.Party {
		party, err := net.AllocateParty(ctx, ledger.PartySpec{Hint: hint, Hosts: []ledger.Hosting{{Participant: p.ID}}})
		if err != nil {
			b.Fatal(err)
		}
		return party
	}
	meta := benchMeta{Participant: p.ID, Bank: alloc("bank"), Alice: alloc("alice"), Bob: alloc("bob")}
	head, err := net.Store().Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	meta.Topology = int(head.Offsets[p.ID])
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				owner := meta.Bob
				if i%int64(aliceEvery) == 1 {
					owner = meta.Alice
				}
				_, err := net.Submit(ctx, ledger.Command{
					Participant: p.ID, ActAs: []daml.Party{meta.Bank}, CommandID: fmt.Sprintf("bench-%d", i),
					Run: func(tx *ledger.Tx) error {
						_, err := ledger.Create(tx, BenchIou{Issuer: meta.Bank, Owner: owner, Amount: daml.MustNumeric("10.5"), Note: "benchmark update " + strconv.FormatInt(i, 10)})
						return err
					},
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	b.Logf("built a log of %d updates in %s", n, time.Since(start).Round(time.Millisecond))
	return meta
}

// body is a bounded GetUpdatesRequest for alice, wildcard.
func (l *benchLog) body(begin, end int) string {
	begin, end = l.base+begin, l.base+end
	return fmt.Sprintf(`{"beginExclusive":%d,"endInclusive":%d,"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{%q:{}},"verbose":true}}}}`, begin, end, l.alice)
}

// post serves a request over HTTP and reads the body as it comes: it
// returns the time to the first byte of the body, the bytes and the
// elements (counted as top-level array members).
func (l *benchLog) post(b *testing.B, path, body string) (firstByte time.Duration, size int64, elements int) {
	b.Helper()
	start := time.Now()
	resp, err := l.srv.Client().Post(l.srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		b.Fatalf("status %d: %.500s", resp.StatusCode, msg)
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	if _, err := br.Peek(1); err != nil {
		b.Fatal(err)
	}
	firstByte = time.Since(start)
	cw := &elementCounter{}
	size, err = io.Copy(cw, br)
	if err != nil {
		b.Fatal(err)
	}
	return firstByte, size, cw.elements
}

// elementCounter counts the members of a JSON array of objects by their
// depth-1 opening braces, ignoring strings.
type elementCounter struct {
	depth    int
	inString bool
	escaped  bool
	elements int
}

func (c *elementCounter) Write(p []byte) (int, error) {
	for _, ch := range p {
		switch {
		case c.inString:
			switch {
			case c.escaped:
				c.escaped = false
			case ch == '\\':
				c.escaped = true
			case ch == '"':
				c.inString = false
			}
		case ch == '"':
			c.inString = true
		case ch == '{' || ch == '[':
			if ch == '{' && c.depth == 1 {
				c.elements++
			}
			c.depth++
		case ch == '}' || ch == ']':
			c.depth--
		}
	}
	return len(p), nil
}

// BenchmarkUpdatesListThroughput serves the whole log to alice (half of
// it: she owns every other BenchIou) as one POST /v2/updates, and, in the
// same iteration, encodes the same updates from memory (the ceiling:
// projection and JSON, no store, no HTTP). It reports both rates, in
// elements served per second, and their ratio.
func BenchmarkUpdatesListThroughput(b *testing.B) {
	l := openBenchLog(b, benchUpdates(b))
	ctx := context.Background()
	// The updates alice sees, in memory, for the ceiling.
	var mem []ledger.ParticipantUpdate
	for after := ledger.Offset(0); ; {
		page, err := l.net.Store().Updates(ctx, ledger.UpdateQuery{Participant: l.participant, After: after, Limit: 1000})
		if err != nil {
			b.Fatal(err)
		}
		for _, u := range page {
			if u.Transaction == nil {
				continue // a topology update: not asked for
			}
			if c := u.Transaction.Created(); len(c) > 0 && slices.Contains(c[0].Stakeholders(), l.alice) {
				mem = append(mem, u)
			}
		}
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1].Offset
	}
	body := l.body(0, l.n)
	h := ledgerapi.New(l.ledgerConfig)
	var httpTime, memTime time.Duration
	var served int
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		n, err := h.EncodeFromMemory([]byte(body), mem, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		memTime += time.Since(t0)
		t0 = time.Now()
		_, _, elements := l.post(b, "/v2/updates", body)
		httpTime += time.Since(t0)
		if elements != n || n != len(mem) {
			b.Fatalf("served %d elements, encoded %d, want %d", elements, n, len(mem))
		}
		served += n
	}
	b.ReportMetric(float64(served)/httpTime.Seconds(), "served/s")
	b.ReportMetric(float64(served)/memTime.Seconds(), "ceiling/s")
	b.ReportMetric(memTime.Seconds()/httpTime.Seconds(), "ratio")
	b.ReportMetric(float64(l.n)*float64(b.N)/httpTime.Seconds(), "stored-read/s")
}

// BenchmarkUpdatesListMemory serves alice's list of the first tenth of the
// log and of the whole log, and samples the heap in use and the process's
// resident memory every 5 ms while it does; it reports the peaks above
// what they were before the request (after a GC).
func BenchmarkUpdatesListMemory(b *testing.B) {
	l := openBenchLog(b, benchUpdates(b))
	for _, size := range []int{l.n / 10, l.n} {
		b.Run(fmt.Sprintf("range=%d", size), func(b *testing.B) {
			body := l.body(0, size)
			var peakHeap, peakRSS uint64
			var bytesServed int64
			for b.Loop() {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				idleHeap, idleRSS := ms.HeapInuse, rss()
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() {
					defer close(done)
					t := time.NewTicker(5 * time.Millisecond)
					defer t.Stop()
					for {
						var ms runtime.MemStats
						runtime.ReadMemStats(&ms)
						if ms.HeapInuse > idleHeap {
							peakHeap = max(peakHeap, ms.HeapInuse-idleHeap)
						}
						if r := rss(); r > idleRSS {
							peakRSS = max(peakRSS, r-idleRSS)
						}
						select {
						case <-stop:
							return
						case <-t.C:
						}
					}
				}()
				_, n, _ := l.post(b, "/v2/updates", body)
				bytesServed = n
				close(stop)
				<-done
			}
			b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(peakRSS)/(1<<20), "peak-rss-MiB")
			b.ReportMetric(float64(bytesServed)/(1<<20), "response-MiB")
		})
	}
}

// rss is the process's resident memory, from /proc (0 elsewhere).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(string(f[1]), 10, 64)
	return pages * uint64(os.Getpagesize())
}

// BenchmarkFlatsFirstByte is the time to the first byte of a bounded
// flats request of 200 updates at the start of the log and at its end.
func BenchmarkFlatsFirstByte(b *testing.B) {
	l := openBenchLog(b, benchUpdates(b))
	const span = 200
	for _, at := range []struct {
		name  string
		begin int
	}{{"start", 0}, {"end", l.n - span}} {
		b.Run(at.name, func(b *testing.B) {
			body := l.body(at.begin, at.begin+span)
			var total time.Duration
			for b.Loop() {
				fb, _, elements := l.post(b, "/v2/updates/flats", body)
				if elements != span/2 {
					b.Fatalf("%d elements, want %d", elements, span/2)
				}
				total += fb
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-first-byte")
		})
	}
}

// BenchmarkActiveContractsPage serves one page of active contracts
// (POST /v2/state/active-contracts-page at the ledger end) from a log of
// SANDNET_BENCH_UPDATES updates in which alice owns 500 BenchIous and
// bob the rest, with the request shapes the dashboard sends: one party's
// contracts of one template (a wallet's amulets, up to 1,000) and one
// template's for any party (the transfer offers, up to 100). Its time
// should follow the party's history, not the participant's:
//
//	SANDNET_BENCH_UPDATES=20000 go test -run '^$' -bench 'BenchmarkActiveContractsPage' -benchtime 5x -timeout 1h ./internal/api/ledgerapi/
func BenchmarkActiveContractsPage(b *testing.B) {
	n := benchUpdates(b)
	l := openBenchLogShare(b, n, n/500)
	filter := (`{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"#bench-iou:Bench.Iou:Iou","includeCreatedEventBlob":false}}}}]}`)
	for _, c := range []struct {
		name string
		body string
		want int
	}{
		{"one party", fmt.Sprintf(`{"maxPageSize":1000,"eventFormat":{"filtersByParty":{%q:%s},"verbose":false}}`, l.alice, filter), 500},
		{"any party", fmt.Sprintf(`{"maxPageSize":100,"eventFormat":{"filtersForAnyParty":%s,"verbose":false}}`, filter), 100},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				resp, err := l.srv.Client().Post(l.srv.URL+"/v2/state/active-contracts-page", "application/json", strings.NewReader(c.body))
				if err != nil {
					b.Fatal(err)
				}
				var page struct {
					ActiveContracts []json.RawMessage `json:"activeContracts"`
				}
				err = json.NewDecoder(resp.Body).Decode(&page)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d: %v", resp.StatusCode, err)
				}
				if len(page.ActiveContracts) != c.want {
					b.Fatalf("%d active contracts, want %d", len(page.ActiveContracts), c.want)
				}
			}
		})
	}
}
