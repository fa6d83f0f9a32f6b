package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
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

	"github.com/coder/websocket"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
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
		return postCommand(client, srv.URL, token, createPing(fmt.Sprintf("bench-%d", seq.Add(1)), string(alice), string(alice), string(bob)))
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
	reportPercentiles(b, lat)
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

// reportPercentiles sorts durations and reports their p50 and p99.
func reportPercentiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(ms(ds[len(ds)/2]), "p50-ms")
	b.ReportMetric(ms(ds[len(ds)*99/100]), "p99-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// batchCounter observes the sequencer's batches.
type batchCounter struct {
	mu      sync.Mutex
	counts  batchCounts
	commits chan time.Time
}

type batchCounts struct{ batches, committed int }

func (c *batchCounter) BatchCommitted(committed, _ int, _ time.Duration, _ error) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts.batches++
	c.counts.committed += committed
	if c.commits != nil {
		c.commits <- now
	}
}

// timeCommits has the counter send the time of each batch's report to the
// channel it returns from now on (the seeding's are not). Each must be
// received: the sequencer waits for a full channel.
func (c *batchCounter) timeCommits() <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.commits = make(chan time.Time, 16)
	return c.commits
}

func (c *batchCounter) snapshot() batchCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}

// BenchmarkStreamLag measures how long after its commit a command's
// completion reaches a client of the completion stream's websocket
// (GET /v2/commands/completions), and its transaction a client of the
// updates stream's (GET /v2/updates): from the engine's report of the
// batch's commit (ledger.Observer, called once the database transaction
// committed) to the frame read by the client, over a loopback server.
// One client submits one-create commands over HTTP, one at a time, each
// once the stream delivered the last:
//
//	go test -run '^$' -bench BenchmarkStreamLag -benchtime 2000x ./internal/api/ledgerapi/
func BenchmarkStreamLag(b *testing.B) {
	batches := &batchCounter{}
	e := newObservedEnv(b, batches)
	commits := batches.timeCommits()
	alice, bob := e.party("alice"), e.party("bob")
	srv := httptest.NewServer(e.handler(options{}))
	b.Cleanup(srv.Close)
	client := &http.Client{}
	token := bearer(b, "alice")
	var seq atomic.Int64
	for _, stream := range []struct{ name, path, request string }{
		{"completions", "/v2/commands/completions", `{"parties":["{alice}"],"beginExclusive":%d}`},
		{"updates", "/v2/updates", `{"beginExclusive":%d,"filter":{"filtersByParty":{"{alice}":{}}}}`},
	} {
		b.Run(stream.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			head, err := e.net.Store().Head(ctx)
			if err != nil {
				b.Fatal(err)
			}
			conn, _, err := wsHandshake(ctx, srv, nil, stream.path, token, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.CloseNow()
			request := e.expand(fmt.Sprintf(stream.request, head.Offsets[e.seeded.Validator.Participant]))
			if err := conn.Write(ctx, websocket.MessageText, []byte(request)); err != nil {
				b.Fatal(err)
			}
			for len(commits) > 0 {
				<-commits // commits of an earlier run
			}
			lag := make([]time.Duration, 0, b.N)
			for range b.N {
				id := fmt.Sprintf("lag-%d", seq.Add(1))
				if err := postCommand(client, srv.URL, token, createPing(id, string(alice), string(alice), string(bob))); err != nil {
					b.Fatal(err)
				}
				// Frames up to the command's: checkpoints come between.
				want := []byte(`"commandId":"` + id + `"`)
				for {
					_, frame, err := conn.Read(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if bytes.Contains(frame, want) {
						break
					}
				}
				delivered := time.Now()
				lag = append(lag, delivered.Sub(<-commits))
			}
			reportPercentiles(b, lag)
			b.ReportMetric(ms(lag[len(lag)-1]), "max-ms")
		})
	}
}

// postCommand posts a JsCommands to submit-and-wait and reads the answer,
// which must be 200.
func postCommand(client *http.Client, url, token, body string) error {
	_, err := postJSON(client, url+"/v2/commands/submit-and-wait", token, body)
	return err
}

// postJSON posts a JSON body to url as token's bearer and returns the
// answer, which must be 200.
func postJSON(client *http.Client, url, token, body string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	// Read to the end, as a client does, so that the connection is
	// reused: one closed unread costs a new connection per command.
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: status %d: %s", req.URL.Path, resp.StatusCode, answer)
	}
	return answer, nil
}

// BenchmarkMerge measures a token-standard-sized transaction: a wallet
// party's self-merge of 10 amulets, an exercise of AmuletRules_Transfer
// with the 10 amulets as inputs and no outputs (as the wallet's merge
// automation builds it, but with the party as its own provider), the
// AmuletRules and the open round disclosed: 12 fetches, 10 archives and
// the merged amulet's create. Through the engine in the process (the
// validator's way, splice.TransferAmulet) and as a JsCommands
// ExerciseCommand to POST /v2/commands/submit-and-wait, one client, p50
// and p99; before each merge, untimed, a tap command tops alice's wallet
// up to 10 amulets:
//
//	go test -run '^$' -bench BenchmarkMerge -benchtime 1000x ./internal/api/ledgerapi/
func BenchmarkMerge(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	alice := e.party("alice")
	v := e.seeded.Validator.Participant
	srv := httptest.NewServer(e.handler(options{}))
	b.Cleanup(srv.Close)
	client := &http.Client{}
	token := bearer(b, "alice")
	ac, err := splice.LoadAmuletContext(ctx, e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
	if err != nil {
		b.Fatal(err)
	}
	var disclosed []string
	for _, c := range ac.Disclosed() {
		blob, err := ledger.EncodeContract(c)
		if err != nil {
			b.Fatal(err)
		}
		disclosed = append(disclosed, fmt.Sprintf(`{"contractId":%q,"templateId":%q,"createdEventBlob":%q}`,
			c.ID, c.Template.Identifier, base64.StdEncoding.EncodeToString(blob)))
	}
	amount := daml.MustNumeric("10.0")
	var seq atomic.Int64
	// topUp taps alice's wallet up to 10 amulets and returns them.
	topUp := func(b *testing.B) []daml.ContractID {
		amulets := func() []*ledger.Contract {
			cs, err := e.net.Store().ActiveContracts(ctx, ledger.ContractFilter{Templates: []ledger.TemplateID{splice.Amulet{}.TemplateID()}, Stakeholder: alice})
			if err != nil {
				b.Fatal(err)
			}
			return cs
		}
		if missing := 10 - len(amulets()); missing > 0 {
			_, err := e.net.Submit(ctx, ledger.Command{
				Participant: v, UserID: "alice", ActAs: []daml.Party{alice}, CommandID: fmt.Sprintf("top-up-%d", seq.Add(1)),
				Disclosed: ac.Disclosed(),
				Run: func(tx *ledger.Tx) error {
					for range missing {
						if _, err := splice.Tap(tx, ac, alice, amount); err != nil {
							return err
						}
					}
					return nil
				},
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		var ids []daml.ContractID
		for _, c := range amulets() {
			ids = append(ids, c.ID)
		}
		if len(ids) != 10 {
			b.Fatalf("alice holds %d amulets, want 10", len(ids))
		}
		return ids
	}
	inProcess := func(inputs []daml.ContractID) error {
		_, err := e.net.Submit(ctx, ledger.Command{
			Participant: v, UserID: "alice", ActAs: []daml.Party{alice}, CommandID: fmt.Sprintf("merge-%d", seq.Add(1)),
			Disclosed: ac.Disclosed(),
			Run: func(tx *ledger.Tx) error {
				res, err := splice.TransferAmulet(tx, ac, alice, alice, inputs)
				if err == nil && res.SenderChangeAmulet == nil {
					err = errors.New("the merge made no amulet")
				}
				return err
			},
		})
		return err
	}
	overHTTP := func(inputs []daml.ContractID) error {
		var in []string
		for _, id := range inputs {
			in = append(in, fmt.Sprintf(`{"tag":"InputAmulet","value":%q}`, id))
		}
		arg := fmt.Sprintf(`{"transfer":{"sender":%q,"provider":%q,"inputs":[%s],"outputs":[]},`+
			`"context":{"openMiningRound":%q,"issuingMiningRounds":[],"validatorRights":[]},"expectedDso":%q}`,
			alice, alice, strings.Join(in, ","), ac.OpenRound.ID, e.seeded.DSOParty)
		body := fmt.Sprintf(`{"commands":[{"ExerciseCommand":{"templateId":"#splice-amulet:Splice.AmuletRules:AmuletRules","contractId":%q,"choice":"AmuletRules_Transfer","choiceArgument":%s}}],`+
			`"commandId":"merge-%d","actAs":[%q],"disclosedContracts":[%s]}`,
			ac.AmuletRules.ID, arg, seq.Add(1), alice, strings.Join(disclosed, ","))
		return postCommand(client, srv.URL, token, body)
	}
	for _, bc := range []struct {
		name  string
		merge func([]daml.ContractID) error
	}{{"in-process", inProcess}, {"http", overHTTP}} {
		b.Run(bc.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for range b.N {
				b.StopTimer()
				inputs := topUp(b)
				b.StartTimer()
				start := time.Now()
				if err := bc.merge(inputs); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			reportPercentiles(b, lat)
		})
	}
}
