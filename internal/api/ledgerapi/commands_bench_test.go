package ledgerapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// BenchmarkSubmitAndWait measures command submission (docs/performance.md,
// "Command submission"): a one-create command (a Ping from alice to bob)
// submitted through the engine in the process, and over HTTP to
// POST /v2/commands/submit-and-wait on a loopback server, by one client
// (latency: p50 and p99 per command) and by 16 concurrent clients
// (throughput). Both run on the same seeded SQLite network, so their
// ratio is measured in one run: the HTTP throughput reports it as
// ratio-to-in-process. tx/batch is the sequencer's mean group commit;
// cpu-µs/command the process's CPU time (the HTTP client's included).
//
//	go test -run '^$' -bench BenchmarkSubmitAndWait -benchtime 2000x ./internal/api/ledgerapi/
func BenchmarkSubmitAndWait(b *testing.B) {
	batches := &batchCounter{}
	e := newObservedEnv(b, batches)
	alice, bob := e.party("alice"), e.party("bob")
	v := e.seeded.Validator.Participant
	srv := httptest.NewServer(e.handler(options{}))
	b.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	token := bearer(b, "alice")
	var seq atomic.Int64
	pingRef := daml.Identifier{PackageID: "#canton-builtin-admin-workflow-ping", ModuleName: "Canton.Internal.Ping", EntityName: "Ping"}

	inProcess := func() error {
		n := seq.Add(1)
		id := fmt.Sprintf("bench-%d", n)
		_, err := e.net.Submit(context.Background(), ledger.Command{
			Participant: v, UserID: "alice", ActAs: []daml.Party{alice}, CommandID: id,
			Run: ledger.RunCommands([]ledger.APICommand{{Create: &ledger.CreateCommand{Template: pingRef, Argument: &daml.Record{Fields: []daml.Field{
				{Label: "id", Value: daml.Text(id)}, {Label: "initiator", Value: alice}, {Label: "responder", Value: bob},
			}}}}}),
		})
		return err
	}
	overHTTP := func() error {
		n := seq.Add(1)
		body := createPing(fmt.Sprintf("bench-%d", n), string(alice), string(alice), string(bob))
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v2/commands/submit-and-wait", strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		// Read to the end, as a client does, so that the connection is
		// reused: one closed unread costs a new connection per command.
		answer, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d: %s", resp.StatusCode, answer)
		}
		return nil
	}
	var inProcessRate float64 // the in-process throughput of this run
	for _, bc := range []struct {
		name string
		run  func() error
	}{{"in-process", inProcess}, {"http", overHTTP}} {
		b.Run(bc.name+"/1-client", func(b *testing.B) {
			latencies(b, bc.run)
		})
		b.Run(bc.name+"/16-clients", func(b *testing.B) {
			rate := throughput(b, 16, batches, bc.run)
			if bc.name == "in-process" {
				inProcessRate = rate
			} else if inProcessRate > 0 {
				b.ReportMetric(rate/inProcessRate, "ratio-to-in-process")
			}
		})
	}
}

// latencies runs fn b.N times in a row and reports the p50 and p99 of its
// duration.
func latencies(b *testing.B, fn func() error) []time.Duration {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	return lat
}

// throughput runs fn b.N times from clients goroutines and reports the
// rate, the process's CPU time per command (client included), and the
// mean size of the sequencer's batches meanwhile.
func throughput(b *testing.B, clients int, batches *batchCounter, fn func() error) float64 {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	before := batches.snapshot()
	cpuBefore, cpuOK := processCPU()
	start := time.Now()
	errs := make(chan error, clients)
	for range clients {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := fn(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpuAfter, _ := processCPU()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	rate := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(rate, "commands/s")
	if cpuOK {
		b.ReportMetric(float64((cpuAfter-cpuBefore)/time.Microsecond)/float64(b.N), "cpu-µs/command")
	}
	if after := batches.snapshot(); after.batches > before.batches {
		b.ReportMetric(float64(after.committed-before.committed)/float64(after.batches-before.batches), "tx/batch")
	}
	return rate
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// batchCounter observes the sequencer's batches.
type batchCounter struct {
	mu     sync.Mutex
	counts batchCounts
}

type batchCounts struct{ batches, committed int }

func (c *batchCounter) BatchCommitted(committed, _ int, _ time.Duration, _ error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts.batches++
	c.counts.committed += committed
}

func (c *batchCounter) snapshot() batchCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}
