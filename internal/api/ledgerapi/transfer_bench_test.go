package ledgerapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// transferFactoryInterface is the token standard's TransferFactory
// interface, as wallets name it in the exercise.
const transferFactoryInterface = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"

// BenchmarkTokenStandardTransfer measures a direct token-standard transfer
// (docs/performance.md, "Token-standard transfers") from an external
// sender to a pre-approved receiver (bob), as an exchange's withdrawal
// does it: POST the registry's /registry/transfer-instruction/v1/
// transfer-factory on the Scan's server (transferKind must be "direct"),
// prepare TransferFactory_Transfer on the factory it names (the context
// spliced into extraArgs.context, its contracts disclosed), sign the hash
// with the sender's Ed25519 key and execute. By one client (p50 and p99
// per transfer, factory request to the execution's answer) and by 16
// concurrent senders (transfers/s), each its own external party with its
// own holdings: a transfer consumes its input, so each sender spends one
// holding per transfer and keeps the change.
//
// The execution is executeAndWaitForTransaction rather than executeAndWait:
// it is the same execution and wait, with the transaction in the answer,
// which is how the sender learns its change's contract id without a
// second request (executeAndWait answers only the update id).
//
// It runs here rather than on internal/testnet's network so that it
// mirrors sandnet start: the ledger API (with its token cache) and the
// Scan on their own servers over one network, and the Scan ingesting in
// the background as it commits (Ingester.Run), not on demand. Its CPU
// is in the run (and in a -cpuprofile). The same run measures one-create
// submit-and-wait with 16 clients (as BenchmarkSubmitAndWait's http
// case) and reports the ratio as ratio-to-submit-and-wait.
//
//	go test -run '^$' -bench BenchmarkTokenStandardTransfer -benchtime 1000x ./internal/api/ledgerapi/
func BenchmarkTokenStandardTransfer(b *testing.B) {
	const senders = 16
	batches := &batchCounter{}
	e := newObservedEnv(b, batches)
	alice, bob := e.party("alice"), e.party("bob")
	dso := e.seeded.DSOParty
	ledgerSrv := httptest.NewServer(e.handler(options{}))
	b.Cleanup(ledgerSrv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	token := bearer(b, "alice")
	var seq atomic.Int64

	// bob's pre-approval, then the Scan over the network, caught up.
	preapprove(b, e, bob)
	scanSrv, ingesting := startScan(b, e)
	defer ingesting()

	// The senders: sender 0 is the one client's; each is tapped two
	// large amulets (a few: one in use, one spare).
	xs := make([]*sender, senders)
	for i := range xs {
		x := e.onboard(b, fmt.Sprintf("sender-%d", i))
		s := &sender{external: x}
		for j := range 2 {
			cid, err := tap(client, ledgerSrv.URL, token, e, b, x, fmt.Sprintf("tap-%d-%d", i, j))
			if err != nil {
				b.Fatal(err)
			}
			s.holdings = append(s.holdings, cid)
		}
		xs[i] = s
	}
	// The time spent in each step, summed over the transfers of the
	// sub-benchmark that runs (reported per transfer).
	var phases [3]atomic.Int64 // factory, prepare, execute (ns)
	step := func(i int, start time.Time) { phases[i].Add(int64(time.Since(start))) }
	reportSteps := func(b *testing.B) {
		for i, name := range []string{"factory", "prepare", "execute"} {
			b.ReportMetric(ms(time.Duration(phases[i].Swap(0)))/float64(b.N), name+"-ms/op")
		}
	}
	transfer := func(s *sender) error {
		id := fmt.Sprintf("transfer-%d", seq.Add(1))
		start := time.Now()
		input := s.holdings[0]
		args := transferArgument(dso, daml.Party(s.party), bob, input)
		answer, err := postJSON(client, scanSrv.URL+"/registry/transfer-instruction/v1/transfer-factory", "",
			`{"choiceArguments":`+args+`,"excludeDebugFields":true}`)
		if err != nil {
			return err
		}
		var f scanapi.TransferFactoryWithChoiceContext
		if err := json.Unmarshal(answer, &f); err != nil {
			return err
		}
		step(0, start)
		start = time.Now()
		if f.TransferKind != "direct" {
			return fmt.Errorf("transfer kind %q, want direct", f.TransferKind)
		}
		// The wallet's splice: the registry's context replaces the
		// argument's empty extraArgs.context.
		args = strings.Replace(args, `"extraArgs":{"context":{"values":{}}`, `"extraArgs":{"context":`+string(f.ChoiceContext.ChoiceContextData), 1)
		disclosed, err := json.Marshal(f.ChoiceContext.DisclosedContracts)
		if err != nil {
			return err
		}
		answer, err = postJSON(client, ledgerSrv.URL+"/v2/interactive-submission/prepare", token,
			`{"commands":[{"ExerciseCommand":{"templateId":"`+transferFactoryInterface+`","contractId":"`+f.FactoryID+
				`","choice":"TransferFactory_Transfer","choiceArgument":`+args+`}}],"commandId":"`+id+`","actAs":["`+s.party+
				`"],"disclosedContracts":`+string(disclosed)+`}`)
		if err != nil {
			return err
		}
		p, err := decodePrepared(answer)
		if err != nil {
			return err
		}
		step(1, start)
		start = time.Now()
		answer, err = postJSON(client, ledgerSrv.URL+"/v2/interactive-submission/executeAndWaitForTransaction", token, executeBody(b, p, s.external, id))
		if err != nil {
			return err
		}
		step(2, start)
		change, err := createdAmulet(answer, s.party)
		if err != nil {
			return err
		}
		s.holdings[0] = change
		return nil
	}

	submitAndWait := func() error {
		return postCommand(client, ledgerSrv.URL, token, createPing(fmt.Sprintf("bench-%d", seq.Add(1)), string(alice), string(alice), string(bob)))
	}
	var submitRate float64 // the submit-and-wait throughput of this run
	b.Run("submit-and-wait/16-clients", func(b *testing.B) {
		submitRate = throughput(b, senders, batches, submitAndWait)
	})
	b.Run("direct/1-client", func(b *testing.B) {
		latencies(b, func() error { return transfer(xs[0]) })
		reportSteps(b)
	})
	b.Run("direct/16-senders", func(b *testing.B) {
		// Each transfer takes a sender no other is using: a sender's
		// transfers are sequential, as each spends the last's change.
		free := make(chan *sender, senders)
		for _, s := range xs {
			free <- s
		}
		rate := throughput(b, senders, batches, func() error {
			s := <-free
			defer func() { free <- s }()
			return transfer(s)
		})
		reportSteps(b)
		if submitRate > 0 {
			b.ReportMetric(rate/submitRate, "ratio-to-submit-and-wait")
		}
	})
}

// sender is an external party sending transfers, with the contract ids of
// its amulets; holdings[0] is the one it spends.
type sender struct {
	external
	holdings []string
}

// transferArgument is a TransferFactory_Transfer argument of 10 Amulet
// from sender to receiver spending input, as the wallet SDK builds it
// (requested a minute before the network's pinned clock, to execute
// within a day, the reason meta present and empty) with an empty
// extraArgs.context for the registry's to replace.
func transferArgument(dso, from, to daml.Party, input string) string {
	return `{"expectedAdmin":"` + string(dso) + `","transfer":{"sender":"` + string(from) + `","receiver":"` + string(to) +
		`","amount":"10.0","instrumentId":{"admin":"` + string(dso) + `","id":"Amulet"},"requestedAt":"` +
		epoch.Add(-time.Minute).Format(time.RFC3339Nano) + `","executeBefore":"` + epoch.Add(24*time.Hour).Format(time.RFC3339Nano) +
		`","inputHoldingCids":["` + input + `"],"meta":{"values":{"splice.lfdecentralizedtrust.org/reason":""}}},` +
		`"extraArgs":{"context":{"values":{}},"meta":{"values":{}}}}`
}

// createdAmulet is the contract id of the one Amulet owned by owner that
// an executeAndWaitForTransaction answer's transaction creates.
func createdAmulet(answer []byte, owner string) (string, error) {
	var resp struct {
		Transaction struct {
			Events []struct {
				CreatedEvent *struct {
					ContractID     string `json:"contractId"`
					TemplateID     string `json:"templateId"`
					CreateArgument struct {
						Owner string `json:"owner"`
					} `json:"createArgument"`
				} `json:"CreatedEvent"`
			} `json:"events"`
		} `json:"transaction"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		return "", err
	}
	for _, ev := range resp.Transaction.Events {
		if c := ev.CreatedEvent; c != nil && strings.HasSuffix(c.TemplateID, ":Splice.Amulet:Amulet") && c.CreateArgument.Owner == owner {
			return c.ContractID, nil
		}
	}
	return "", fmt.Errorf("no Amulet of %s created in %.300s", owner, answer)
}

// tap taps x an amulet of 1,000,000 over HTTP (prepare, sign, execute) and
// returns its contract id.
func tap(client *http.Client, url, token string, e *env, b *testing.B, x external, id string) (string, error) {
	answer, err := postJSON(client, url+"/v2/interactive-submission/prepare", token, e.tapBody(b, x, id, "1000000.0"))
	if err != nil {
		return "", err
	}
	p, err := decodePrepared(answer)
	if err != nil {
		return "", err
	}
	answer, err = postJSON(client, url+"/v2/interactive-submission/executeAndWaitForTransaction", token, executeBody(b, p, x, id))
	if err != nil {
		return "", err
	}
	return createdAmulet(answer, x.party)
}

// preapprove has the validator's party pre-approve transfers to receiver
// for 90 days, as testnet.Preapprove does: AmuletRules_CreateTransferPreapproval
// without inputs (free within the base duration).
func preapprove(b *testing.B, e *env, receiver daml.Party) {
	b.Helper()
	ctx := context.Background()
	v := e.seeded.Validator
	ac, err := splice.LoadAmuletContext(ctx, e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
	if err != nil {
		b.Fatal(err)
	}
	expires := e.net.Clock().Now() + daml.Timestamp((90 * 24 * time.Hour).Microseconds())
	if _, err := e.net.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{receiver, v.Party}, Disclosed: ac.Disclosed(),
		CommandID: "preapprove",
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.AmuletRulesCreateTransferPreapprovalResult](tx, ac.AmuletRules.ID, "AmuletRules_CreateTransferPreapproval",
				splice.AmuletRulesCreateTransferPreapproval{
					Context: ac.PaymentContext(), Receiver: receiver, Provider: v.Party, ExpiresAt: expires, ExpectedDso: &e.seeded.DSOParty,
				})
			return err
		},
	}); err != nil {
		b.Fatalf("pre-approve %s: %v", receiver, err)
	}
}

// startScan builds SV 1's Scan over e's network as sandnet start does
// (its own SQLite database and server, the registry at the root), catches
// it up, and runs its ingestion in the background until the returned
// function is called.
func startScan(b *testing.B, e *env) (*httptest.Server, func()) {
	b.Helper()
	ctx := context.Background()
	st, err := sqlitestore.OpenScan(ctx, filepath.Join(b.TempDir(), "scan.db"))
	if err != nil {
		b.Fatal(err)
	}
	sv := e.seeded.SVs[0]
	src := &scan.NetworkSource{Network: e.net, Participant: sv.Participant, DSO: e.seeded.DSOParty}
	// The registry's cache, as sandnet start has it;
	// SANDNET_BENCH_UNCACHED_REGISTRY=1 leaves it out, to compare.
	var registry *scan.RegistryCache
	if os.Getenv("SANDNET_BENCH_UNCACHED_REGISTRY") != "1" {
		registry = scan.NewRegistryCache()
	}
	svc := &scan.Service{
		Config: scan.Config{DSO: e.seeded.DSOParty, SV: sv.Party, SVName: sv.Name, AnsAcronym: e.seeded.AnsAcronym},
		Store:  st, Source: src, Registry: registry,
	}
	ing := &scan.Ingester{Source: src, Store: st, DSO: e.seeded.DSOParty, SV: sv.Party, Logger: discard}
	if registry != nil {
		ing.Observer = registry
	}
	if _, err := ing.Step(ctx); err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	api := scanapi.New(scanapi.Config{Service: svc, Registry: e.net.Registry(), Logger: discard, SVUser: sv.OperatorUser})
	api.Register(mux, scanapi.Prefix)
	api.RegisterRegistry(mux, "")
	srv := httptest.NewServer(mux)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ing.Run(runCtx, nil)
	}()
	return srv, func() {
		srv.Close()
		cancel()
		<-done
		st.Close()
	}
}
