package ledgerapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// BenchmarkInteractiveSubmission measures interactive submission
// (docs/performance.md, "Interactive submission"): a one-create command
// (a Ping from an external party to bob) prepared over HTTP
// (POST /v2/interactive-submission/prepare) on a loopback server, its
// answer decoded and its 32-byte hash signed with the party's Ed25519 key
// in the client, and executed with POST
// /v2/interactive-submission/executeAndWait. By one client (latency: p50
// and p99 per command, prepare to the execution's answer) and by 16
// concurrent clients (throughput).
//
// The 16 clients act as one external party, as an exchange's withdrawal
// workers act as its one treasury party (the token standard's exchange
// integration credits deposits to one party by their memo tags), each
// command with its own id. One party is also the harder case: every
// execution checks its signature against the same topology entry.
//
// The same run measures submit-and-wait of the same Ping (from the local
// party alice) over HTTP on the same network, and the interactive
// throughput reports its ratio to that one as ratio-to-submit-and-wait.
// The client does not re-hash the prepared transaction (a client that
// checks what it signs would); it signs the hash it is given.
//
//	go test -run '^$' -bench BenchmarkInteractiveSubmission -benchtime 500x ./internal/api/ledgerapi/
func BenchmarkInteractiveSubmission(b *testing.B) {
	batches := &batchCounter{}
	e := newObservedEnv(b, batches)
	x := e.onboard(b, "exchange") // user alice may act as it
	alice, bob := e.party("alice"), e.party("bob")
	srv := httptest.NewServer(e.handler(options{}))
	b.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	token := bearer(b, "alice")
	var seq atomic.Int64

	submitAndWait := func() error {
		return postCommand(client, srv.URL, token, createPing(fmt.Sprintf("bench-%d", seq.Add(1)), string(alice), string(alice), string(bob)))
	}
	interactive := func() error {
		id := fmt.Sprintf("bench-%d", seq.Add(1))
		answer, err := postJSON(client, srv.URL+"/v2/interactive-submission/prepare", token, e.expand(pingBody(x, id)))
		if err != nil {
			return err
		}
		p, err := decodePrepared(answer)
		if err != nil {
			return err
		}
		_, err = postJSON(client, srv.URL+"/v2/interactive-submission/executeAndWait", token, executeBody(b, p, x, id))
		return err
	}
	var submitRate float64 // the submit-and-wait throughput of this run
	for _, bc := range []struct {
		name string
		run  func() error
	}{{"submit-and-wait", submitAndWait}, {"interactive", interactive}} {
		b.Run(bc.name+"/1-client", func(b *testing.B) {
			latencies(b, bc.run)
		})
		b.Run(bc.name+"/16-clients", func(b *testing.B) {
			rate := throughput(b, 16, batches, bc.run)
			if bc.name == "submit-and-wait" {
				submitRate = rate
			} else if submitRate > 0 {
				b.ReportMetric(rate/submitRate, "ratio-to-submit-and-wait")
			}
		})
	}
}

// BenchmarkExternalPartyOnboarding measures onboarding an external party
// over HTTP on a loopback server, one client, p50 and p99 per onboarding:
// POST /v2/parties/external/generate-topology for a new key, the
// multi-hash of the answer's transactions signed with it (Ed25519) in the
// client, and POST /v2/parties/external/allocate as participant_admin.
// Every onboarding has its own hint and key. The allocation names no
// user to grant the party to: Canton caps a user's rights (1,000 by
// default), so a wallet provider onboarding its customers' parties does
// not grant them all to one user.
//
//	go test -run '^$' -bench BenchmarkExternalPartyOnboarding -benchtime 500x ./internal/api/ledgerapi/
func BenchmarkExternalPartyOnboarding(b *testing.B) {
	e := newEnv(b)
	srv := httptest.NewServer(e.handler(options{}))
	b.Cleanup(srv.Close)
	client := &http.Client{}
	userToken, adminToken := bearer(b, "alice"), bearer(b, "participant_admin")
	var seq atomic.Int64
	latencies(b, func() error {
		hint := fmt.Sprintf("bench-%d", seq.Add(1))
		answer, err := postJSON(client, srv.URL+"/v2/parties/external/generate-topology", userToken, e.generateBody(hint, hint, ""))
		if err != nil {
			return err
		}
		var g ledgerapi.GenerateExternalPartyTopologyResponse
		if err := json.Unmarshal(answer, &g); err != nil {
			return err
		}
		_, err = postJSON(client, srv.URL+"/v2/parties/external/allocate", adminToken, e.allocateBody(b, g, keyOf(hint), ""))
		return err
	})
}
