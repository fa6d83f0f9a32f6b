package ledgerapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Open-ended requests follow the ledger: they list what is committed while
// they wait, woken by the engine's commit signal.

// tap commits a tap of 10 CC for party on participant, with a fixed command
// id and trace context.
func (e *env) tap(t *testing.T, participant ledger.ParticipantID, user string, party daml.Party, commandID string) *ledger.Transaction {
	t.Helper()
	tx, err := e.net.Submit(context.Background(), e.tapCommand(t, participant, user, party, commandID))
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// tapCommand is the command of tap, for a test to adjust before it
// submits it.
func (e *env) tapCommand(t *testing.T, participant ledger.ParticipantID, user string, party daml.Party, commandID string) ledger.Command {
	t.Helper()
	amount, err := daml.ParseNumeric("10.0")
	if err != nil {
		t.Fatal(err)
	}
	ac, err := splice.LoadAmuletContext(context.Background(), e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	return ledger.Command{
		Participant: participant, UserID: user, ActAs: []daml.Party{party},
		CommandID: commandID, WorkflowID: "ledgerapi-test", Disclosed: ac.Disclosed(),
		TraceContext: ledger.TraceContext{TraceParent: "00-0123456789abcdef0123456789abcdef-0123456789abcdef-01", TraceState: "sandnet=test"},
		Run: func(tx *ledger.Tx) error {
			_, err := splice.Tap(tx, ac, party, amount)
			return err
		},
	}
}

// serveAsync serves a request in the background.
func serveAsync(h http.Handler, req *http.Request) (<-chan *httptest.ResponseRecorder, time.Time) {
	done := make(chan *httptest.ResponseRecorder, 1)
	start := time.Now()
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		done <- rec
	}()
	return done, start
}

func wait(t *testing.T, done <-chan *httptest.ResponseRecorder, within time.Duration) *httptest.ResponseRecorder {
	t.Helper()
	select {
	case rec := <-done:
		return rec
	case <-time.After(within):
		t.Fatalf("no response within %s", within)
		return nil
	}
}

func TestOpenEndedFollowsCommits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "tail", *update)
	alice := e.party("alice")
	// A long idle timeout, and a limit of the transaction and its
	// checkpoint: the response comes as soon as the commit is seen.
	target := "/v2/updates?limit=2&stream_idle_timeout_ms=60000"
	body := e.expand(`{"beginExclusive":15,"filter":{"filtersByParty":{"{alice}":{}}}}`)
	authz := bearer(t, "alice")
	done, start := serveAsync(e.handler(options{}), newRequest(http.MethodPost, target, authz, body))
	time.Sleep(50 * time.Millisecond)
	tx := e.tap(t, e.seeded.Validator.Participant, "alice", alice, "tail-test-tap")
	rec := wait(t, done, 30*time.Second)
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("the commit took %s to reach the request", elapsed)
	}
	txs, cps := transactions(decodeList(t, rec))
	if len(txs) != 1 || len(cps) != 1 {
		t.Fatalf("%d transactions and %d checkpoints, want 1 and 1: %s", len(txs), len(cps), rec.Body)
	}
	got := txs[0]
	if got.UpdateID != tx.UpdateID || got.Offset != 16 || got.CommandID != "tail-test-tap" || got.WorkflowID != "ledgerapi-test" {
		t.Errorf("transaction %+v", got)
	}
	if tc := got.TraceContext; tc == nil || tc.TraceParent == nil || *tc.TraceParent != tx.TraceContext.TraceParent ||
		tc.TraceState == nil || *tc.TraceState != "sandnet=test" {
		t.Errorf("trace context %+v, want the submission's", got.TraceContext)
	}
	if cps[0].Offset != 16 || cps[0].SynchronizerTimes[0].RecordTime != tx.RecordTime.String() {
		t.Errorf("checkpoint %+v", cps[0])
	}
	golden.Check(t, "alice's tap while she waits", apitest.EntryOf(t, rec))
	if err := s.Validate(t, newRequest(http.MethodPost, target, authz, body), rec); err != nil {
		t.Errorf("request does not conform: %v", err)
	}

	// Bob does not see alice's tap: his request waits out its idle
	// timeout, and gets no checkpoint either, since the validator's
	// ledger end has not moved since he started.
	bobBody := e.expand(`{"beginExclusive":16,"filter":{"filtersByParty":{"{bob}":{}}}}`)
	rec = httptest.NewRecorder()
	e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, "/v2/updates?stream_idle_timeout_ms=0", bearer(t, "bob"), bobBody))
	if list := decodeList(t, rec); len(list) != 0 {
		t.Errorf("bob got %s", rec.Body)
	}

	// Alice's tap is on the SV participants' streams too (the DSO signs
	// amulets): offset 23 of sv-1's.
	//
	// A commit only SV participants see wakes the validator's request,
	// which finds its ledger end unmoved: no element, no checkpoint, and
	// the request ends at its idle timeout.
	idle := 400 * time.Millisecond
	done, start = serveAsync(e.handler(options{wait: idle}), newRequest(http.MethodPost, "/v2/updates", authz,
		e.expand(`{"beginExclusive":16,"filter":{"filtersByParty":{"{alice}":{}}}}`)))
	svDone, _ := serveAsync(e.handler(options{}), newRequest(http.MethodPost, "/sv/1/v2/updates?limit=2&stream_idle_timeout_ms=60000", bearer(t, admin),
		e.expand(`{"beginExclusive":23,"filter":{"filtersByParty":{"{dso}":{}}}}`)))
	time.Sleep(50 * time.Millisecond)
	sv := e.seeded.SVs[0]
	svTx := e.tap(t, sv.Participant, sv.OperatorUser, sv.Party, "sv-tap")
	rec = wait(t, done, 30*time.Second)
	if list := decodeList(t, rec); len(list) != 0 {
		t.Errorf("the validator's request got %s", rec.Body)
	}
	if elapsed := time.Since(start); elapsed < idle {
		t.Errorf("the request ended after %s, before its idle timeout of %s", elapsed, idle)
	}
	svRec := wait(t, svDone, 30*time.Second)
	svTxs, svCps := transactions(decodeList(t, svRec))
	if len(svTxs) != 1 || svTxs[0].UpdateID != svTx.UpdateID || svTxs[0].Offset != 24 || len(svCps) != 1 || svCps[0].Offset != 24 {
		t.Errorf("the SV's request got %s", svRec.Body)
	}
	// The DSO reads as a party other than the submitter: no command id.
	if len(svTxs) == 1 && svTxs[0].CommandID != "" {
		t.Errorf("commandId %q shown to a party that did not submit", svTxs[0].CommandID)
	}
	golden.Finish(t, true)
}

func TestOpenEndedIdleTimeout(t *testing.T) {
	t.Parallel()
	e := shared(t)
	body := e.expand(`{"beginExclusive":15,"filter":{"filtersByParty":{"{alice}":{}}}}`)
	for _, tc := range []struct {
		name  string
		query string
		wait  time.Duration
		want  time.Duration
	}{
		{"the node's list wait time", "", 150 * time.Millisecond, 150 * time.Millisecond},
		{"the request's idle timeout", "?stream_idle_timeout_ms=200", time.Hour, 200 * time.Millisecond},
		{"an idle timeout of 0", "?stream_idle_timeout_ms=0", time.Hour, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			rec := httptest.NewRecorder()
			e.handler(options{wait: tc.wait}).ServeHTTP(rec, newRequest(http.MethodPost, "/v2/updates"+tc.query, bearer(t, "alice"), body))
			elapsed := time.Since(start)
			if list := decodeList(t, rec); len(list) != 0 {
				t.Errorf("got %s, want []", rec.Body)
			}
			if elapsed < tc.want || elapsed > tc.want+10*time.Second {
				t.Errorf("answered after %s, want %s", elapsed, tc.want)
			}
		})
	}
}

func TestOpenEndedEndsWithTheClient(t *testing.T) {
	t.Parallel()
	e := shared(t)
	ctx, cancel := context.WithCancel(context.Background())
	// The largest idle timeout, which must not overflow into none.
	req := newRequest(http.MethodPost, "/v2/updates?stream_idle_timeout_ms=9223372036854775807", bearer(t, "alice"),
		e.expand(`{"beginExclusive":15,"filter":{"filtersByParty":{"{alice}":{}}}}`)).WithContext(ctx)
	done, _ := serveAsync(e.handler(options{}), req)
	time.Sleep(50 * time.Millisecond)
	cancel()
	rec := wait(t, done, 10*time.Second)
	if rec.Body.Len() != 0 {
		t.Errorf("answered a client that left: %d %s", rec.Code, rec.Body)
	}
}
