package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/builtin"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// epoch is the pinned wall clock: record times are epoch plus a
// microsecond per transaction, so responses are reproducible.
var epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// Every request carries this trace context, so that error bodies (which
// name the trace id) are reproducible.
const (
	traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	traceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
)

// baseURL is where requests are addressed: the document's server.
const baseURL = "http://127.0.0.1:7575"

var testSecret = []byte("ledgerapi-test-secret-of-32-bytes-or-more")

var verifier = func() *auth.HMAC {
	h, err := auth.NewHMAC(testSecret, "")
	if err != nil {
		panic(err)
	}
	return h
}()

func mustHMAC(t testing.TB, secret []byte) *auth.HMAC {
	t.Helper()
	h, err := auth.NewHMAC(secret, "")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mint(t testing.TB, m *auth.HMAC, subject string, ttl time.Duration, now time.Time) string {
	t.Helper()
	tok, err := m.Mint(subject, ttl, now)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func bearer(t testing.TB, user string) string {
	return "Bearer " + mint(t, verifier, user, time.Hour, time.Now())
}

// Users the tests add to the validator participant, besides the seeded
// participant_admin, alice and bob.
const (
	userReader    = "reader"     // CanReadAs alice
	userExecutor  = "executor"   // CanExecuteAs alice: may not read
	userAdminOnly = "admin-only" // ParticipantAdmin: may not read party data
	userAnyReader = "any-reader" // CanReadAsAnyParty
	userRetired   = "retired"    // deactivated, CanReadAsAnyParty
)

// env is a seeded network on SQLite.
type env struct {
	net    *ledger.Network
	seeded *splice.Seeded
	store  io.Closer
}

// openEnv opens a seeded network in dir; obs, when not nil, observes the
// sequencer's batches (the benchmarks count them).
func openEnv(ctx context.Context, dir string, obs ledger.Observer) (*env, error) {
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return nil, err
	}
	net, err := ledger.Open(ctx, st, builtin.NewRegistry(), ledger.Config{Seed: "test", Wall: func() time.Time { return epoch }, Observer: obs})
	if err != nil {
		st.Close()
		return nil, err
	}
	e := &env{net: net, store: st}
	if e.seeded, err = splice.Seed(ctx, net, splice.SeedConfig{}); err != nil {
		e.close()
		return nil, err
	}
	alice := e.party("alice")
	v := e.seeded.Validator.Participant
	for _, u := range []ledger.User{
		{ID: userReader, Participant: v, Rights: []ledger.Right{{Kind: ledger.CanReadAs, Party: alice}}},
		{ID: userExecutor, Participant: v, Rights: []ledger.Right{{Kind: ledger.CanExecuteAs, Party: alice}}},
		{ID: userAdminOnly, Participant: v, Rights: []ledger.Right{{Kind: ledger.ParticipantAdmin}}},
		{ID: userAnyReader, Participant: v, Rights: []ledger.Right{{Kind: ledger.CanReadAsAnyParty}}},
		{ID: userRetired, Participant: v, Deactivated: true, Rights: []ledger.Right{{Kind: ledger.CanReadAsAnyParty}}},
	} {
		if err := net.PutUser(ctx, u); err != nil {
			e.close()
			return nil, err
		}
	}
	return e, nil
}

func (e *env) close() {
	e.net.Close()
	e.store.Close()
}

// party returns a seeded user's party.
func (e *env) party(user string) daml.Party {
	u, ok := e.seeded.User(user)
	if !ok {
		panic("no seeded user " + user)
	}
	return u.Party
}

// sharedDir holds the shared network; TestMain removes it.
var sharedDir string

// sharedEnv is one seeded network that no test changes, read by the
// golden tests.
var sharedEnv = sync.OnceValues(func() (*env, error) {
	dir, err := os.MkdirTemp("", "ledgerapi-test-")
	if err != nil {
		return nil, err
	}
	sharedDir = dir
	return openEnv(context.Background(), dir, nil)
})

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedDir != "" {
		if e, err := sharedEnv(); err == nil {
			e.close()
		}
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

func shared(t testing.TB) *env {
	t.Helper()
	e, err := sharedEnv()
	if err != nil {
		t.Fatalf("shared network: %v", err)
	}
	return e
}

// newEnv is a network of the test's own, for tests that commit.
func newEnv(t testing.TB) *env {
	t.Helper()
	return newObservedEnv(t, nil)
}

// newObservedEnv is newEnv with an observer of the sequencer's batches.
func newObservedEnv(t testing.TB, obs ledger.Observer) *env {
	t.Helper()
	e, err := openEnv(context.Background(), t.TempDir(), obs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.close)
	return e
}

// options tune the handlers a test builds.
type options struct {
	authNone bool
	max      int
	wait     time.Duration
	// buffer is the list buffer in bytes (Config.ListBufferBytes).
	buffer int
	// frame is the wait for a stream's request frame
	// (Config.RequestFrameTimeout).
	frame time.Duration
}

var discard = slog.New(slog.DiscardHandler)

// handler serves the validator participant's ledger API at the root and
// the first SV's under /sv/1, behind the trace-context middleware as
// sandnet start serves them.
func (e *env) handler(o options) http.Handler {
	// As sandnet start serves it: accepted tokens are remembered.
	a := &web.Authenticator{Verifier: auth.Cached(verifier, time.Minute, 1000, nil)}
	if o.authNone {
		a = &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true}
	}
	mux := http.NewServeMux()
	cfg := ledgerapi.Config{
		Participant: e.seeded.Validator.Participant, ParticipantName: e.seeded.Validator.ParticipantName,
		Ledger: ledgerapi.NetworkLedger(e.net), Registry: e.net.Registry(), Auth: a,
		MaxListElements: o.max, ListWaitTime: o.wait, ListBufferBytes: o.buffer, RequestFrameTimeout: o.frame, Logger: discard,
	}
	ledgerapi.New(cfg).Register(mux, "")
	sv := e.seeded.SVs[0]
	cfg.Participant, cfg.ParticipantName = sv.Participant, sv.ParticipantName
	ledgerapi.New(cfg).Register(mux, "/sv/1")
	return web.TraceContext(mux)
}

// expand replaces the placeholders of a case's body with the network's
// ids.
func (e *env) expand(s string) string {
	return strings.NewReplacer(
		"{alice}", string(e.party("alice")),
		"{bob}", string(e.party("bob")),
		"{validator}", string(e.seeded.Validator.Party),
		"{dso}", string(e.seeded.DSOParty),
		"{sv1}", string(e.seeded.SVs[0].Party),
	).Replace(s)
}

func newRequest(method, target, authz, body string) *http.Request {
	var rd io.Reader
	withBody := method == http.MethodPost || method == http.MethodPatch || body != ""
	if withBody {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, baseURL+target, rd)
	if withBody {
		req.Header.Set("Content-Type", "application/json")
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	req.Header.Set("traceparent", traceParent)
	return req
}

// The OpenAPI document and validation. An SV's route is checked as the
// validator's, which the document describes (the prefix is the only
// difference).

var loadSpec = sync.OnceValues(func() (*apitest.Spec, error) {
	b, err := os.ReadFile("openapi.yaml")
	if err != nil {
		return nil, err
	}
	s, err := apitest.LoadSpec(b)
	if err != nil {
		return nil, err
	}
	s.StripPrefix = "/sv/1"
	return s, nil
})

func mustSpec(t testing.TB) *apitest.Spec {
	t.Helper()
	s, err := loadSpec()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return s
}

// decodeList decodes a 200 updates list.
func decodeList(t testing.TB, rec *httptest.ResponseRecorder) []ledgerapi.JsGetUpdatesResponse {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %.2000s", rec.Code, rec.Body)
	}
	var out []ledgerapi.JsGetUpdatesResponse
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("decode the list: %v", err)
	}
	if out == nil {
		t.Fatalf("the list is null, want an array")
	}
	return out
}

// decodeError decodes a JsCantonError body.
func decodeError(t testing.TB, rec *httptest.ResponseRecorder) ledgerapi.JsCantonError {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json; body %s", ct, rec.Body)
	}
	var out ledgerapi.JsCantonError
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("decode the error: %v: %s", err, rec.Body)
	}
	return out
}

// transactions returns the transactions of a list, and its checkpoints.
func transactions(list []ledgerapi.JsGetUpdatesResponse) (txs []ledgerapi.JsTransaction, checkpoints []ledgerapi.OffsetCheckpoint) {
	for _, u := range list {
		switch {
		case u.Update.Transaction != nil:
			txs = append(txs, u.Update.Transaction.Value)
		case u.Update.OffsetCheckpoint != nil:
			checkpoints = append(checkpoints, u.Update.OffsetCheckpoint.Value)
		}
	}
	return txs, checkpoints
}

// sameStreamed serves a list request again with a one-byte list buffer,
// so that the response is streamed from its first element (after the 413
// is decided by counting), and checks that the status and body are those
// of rec.
func sameStreamed(t *testing.T, e *env, o options, target, authz, body string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusOK && rec.Code != http.StatusRequestEntityTooLarge {
		return
	}
	o.buffer = 1
	streamed := httptest.NewRecorder()
	e.handler(o).ServeHTTP(streamed, newRequest(http.MethodPost, target, authz, body))
	if streamed.Code != rec.Code || !bytes.Equal(streamed.Body.Bytes(), rec.Body.Bytes()) {
		t.Errorf("streamed response differs:\n got %d %.2000s\nwant %d %.2000s", streamed.Code, streamed.Body, rec.Code, rec.Body)
	}
	if rec.Code == http.StatusOK && rec.Body.String() != "[]" && streamed.Header().Get("Content-Length") != "" {
		t.Errorf("a streamed list has Content-Length %s", streamed.Header().Get("Content-Length"))
	}
}

// blobPattern matches a non-empty created-event blob.
var blobPattern = regexp.MustCompile(`"createdEventBlob":"[^"]+"`)

// entryOf records a response for a golden file with each non-empty
// created-event blob replaced by a marker: a blob is the store's encoding
// of the contract, which is not the API's to pin (the round-trip tests
// check that blobs decode back to their contracts).
func entryOf(t testing.TB, rec *httptest.ResponseRecorder) apitest.Entry {
	t.Helper()
	e := apitest.EntryOf(t, rec)
	e.Body = blobPattern.ReplaceAll(e.Body, []byte(`"createdEventBlob":"(blob)"`))
	return e
}

// caseToken is a table case's Authorization header: a bearer token for
// user, or none.
func caseToken(t testing.TB, none bool, user string) string {
	if none {
		return ""
	}
	return bearer(t, user)
}

// answerCase serves a table case's request, counts it in ran (for the
// golden file's Finish), and checks its status and the shape of a
// refusal (checkRefusal).
func (e *env) answerCase(t *testing.T, o options, req *http.Request, status int, code string, ran *atomic.Int32) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	e.handler(o).ServeHTTP(rec, req)
	ran.Add(1)
	if rec.Code != status {
		t.Fatalf("status = %d, want %d: %.3000s", rec.Code, status, rec.Body)
	}
	checkRefusal(t, rec, code)
	return rec
}

// checkRefusal checks the shape of a table case's answer: a 200, a
// text/plain 400 (a decode failure) when code is "", or a JsCantonError
// with code (see checkError).
func checkRefusal(t *testing.T, rec *httptest.ResponseRecorder, code string) {
	t.Helper()
	switch {
	case rec.Code == http.StatusOK:
	case rec.Code == http.StatusBadRequest && code == "":
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("Content-Type = %q, want text/plain", ct)
		}
	default:
		checkError(t, rec, code)
	}
}

// checkConformance checks that a table case's request and answer
// conform to the document, or, offSpec, that the document does not allow
// the request.
func checkConformance(t *testing.T, s *apitest.Spec, req *http.Request, rec *httptest.ResponseRecorder, offSpec bool) {
	t.Helper()
	reqErr := s.Validate(t, req, rec)
	switch {
	case offSpec && reqErr == nil:
		t.Errorf("the document allows this request, but the case says it does not")
	case !offSpec && reqErr != nil:
		t.Errorf("request does not conform to the document: %v", reqErr)
	}
}

// getCase is one GET request of a table test, with what it must answer.
type getCase struct {
	name    string
	path    string
	user    string
	noToken bool
	opts    options
	// offSpec marks a request the document does not allow.
	offSpec bool
	status  int
	// code is the JsCantonError code a refusal carries; a 400 without one
	// is a text/plain decode failure.
	code  string
	check func(t *testing.T, rec *httptest.ResponseRecorder)
}

// runGetCases serves each case, checks its status, error, golden entry and
// conformance to the document, and reports stale golden entries.
func runGetCases(t *testing.T, e *env, s *apitest.Spec, golden *apitest.Golden, cases []getCase) {
	t.Helper()
	var (
		mu  sync.Mutex
		ran int
	)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				authz := caseToken(t, tc.noToken, tc.user)
				rec := httptest.NewRecorder()
				e.handler(tc.opts).ServeHTTP(rec, newRequest(http.MethodGet, tc.path, authz, ""))
				mu.Lock()
				ran++
				mu.Unlock()
				if rec.Code != tc.status {
					t.Fatalf("status = %d, want %d: %s", rec.Code, tc.status, rec.Body)
				}
				if rec.Code != http.StatusOK && (rec.Code != http.StatusBadRequest || tc.code != "") {
					checkError(t, rec, tc.code)
				}
				golden.Check(t, tc.name, apitest.EntryOf(t, rec))
				checkConformance(t, s, newRequest(http.MethodGet, tc.path, authz, ""), rec, tc.offSpec)
				if tc.check != nil {
					tc.check(t, rec)
				}
			})
		}
	})
	golden.Finish(t, ran == len(cases))
}
