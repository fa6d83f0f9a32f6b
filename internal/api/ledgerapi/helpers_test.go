package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
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

func openEnv(ctx context.Context, dir string) (*env, error) {
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return nil, err
	}
	net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: "test", Wall: func() time.Time { return epoch }})
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
	return openEnv(context.Background(), dir)
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
	e, err := openEnv(context.Background(), t.TempDir())
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
}

var discard = slog.New(slog.DiscardHandler)

// handler serves the validator participant's ledger API at the root and
// the first SV's under /sv/1, behind the trace-context middleware as
// sandnet start serves them.
func (e *env) handler(o options) http.Handler {
	a := &web.Authenticator{Verifier: verifier}
	if o.authNone {
		a = &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true}
	}
	mux := http.NewServeMux()
	cfg := ledgerapi.Config{
		Participant: e.seeded.Validator.Participant, ParticipantName: e.seeded.Validator.ParticipantName,
		Ledger: ledgerapi.NetworkLedger(e.net), Registry: e.net.Registry(), Auth: a,
		MaxListElements: o.max, ListWaitTime: o.wait, ListBufferBytes: o.buffer, Logger: discard,
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
	withBody := method == http.MethodPost || method == http.MethodPatch
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

// The OpenAPI document and validation.

type spec struct {
	doc    *openapi3.T
	router routers.Router
}

var loadSpec = sync.OnceValues(func() (*spec, error) {
	b, err := os.ReadFile("openapi.yaml")
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	return &spec{doc: doc, router: router}, nil
})

func mustSpec(t testing.TB) *spec {
	t.Helper()
	s, err := loadSpec()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return s
}

func validationOptions() *openapi3filter.Options {
	return &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            false,
		AuthenticationFunc: func(_ context.Context, in *openapi3filter.AuthenticationInput) error {
			if s := in.SecurityScheme; s.Type != "http" || s.Scheme != "bearer" {
				return fmt.Errorf("unexpected security scheme %s %s", s.Type, s.Scheme)
			}
			if _, ok := auth.BearerToken(in.RequestValidationInput.Request.Header.Get("Authorization")); !ok {
				return errors.New("no bearer token")
			}
			return nil
		},
	}
}

// validate checks a request and its response against the document and
// returns the request's validation error for the caller to judge; the
// response must always conform. An SV's route is checked as the
// validator's, which the document describes (the prefix is the only
// difference).
func (s *spec) validate(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) (requestErr error) {
	t.Helper()
	if rest, ok := strings.CutPrefix(req.URL.Path, "/sv/1"); ok {
		req.URL.Path = rest
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s is not in the document: %v", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: validationOptions()}
	requestErr = openapi3filter.ValidateRequest(t.Context(), in)
	resp := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: rec.Code, Header: rec.Header(), Options: validationOptions(),
	}
	resp.SetBodyBytes(rec.Body.Bytes())
	if err := openapi3filter.ValidateResponse(t.Context(), resp); err != nil {
		t.Errorf("response does not conform to the document: %v\nbody: %.2000s", err, rec.Body)
	}
	return requestErr
}

// Golden files map each case to its status, content type and body.

type goldenEntry struct {
	Status      int             `json:"status"`
	ContentType string          `json:"contentType"`
	Body        json.RawMessage `json:"body"`
}

type goldenFile struct {
	path string
	mu   sync.Mutex
	want map[string]goldenEntry
	got  map[string]goldenEntry
}

func openGolden(t *testing.T, name string) *goldenFile {
	t.Helper()
	g := &goldenFile{path: filepath.Join("testdata", name+".golden.json"), got: map[string]goldenEntry{}}
	b, err := os.ReadFile(g.path)
	if *update && errors.Is(err, os.ErrNotExist) {
		return g
	}
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if err := json.Unmarshal(b, &g.want); err != nil {
		t.Fatalf("%s: %v", g.path, err)
	}
	return g
}

func compact(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("not JSON: %v: %.500s", err, b)
	}
	return buf.Bytes()
}

// entryOf records a response: a JSON body as it is, any other body as a
// JSON string.
func entryOf(t testing.TB, rec *httptest.ResponseRecorder) goldenEntry {
	t.Helper()
	ct := rec.Header().Get("Content-Type")
	body := rec.Body.Bytes()
	if ct != "application/json" {
		b, err := json.Marshal(rec.Body.String())
		if err != nil {
			t.Fatal(err)
		}
		body = b
	}
	return goldenEntry{Status: rec.Code, ContentType: ct, Body: compact(t, body)}
}

func (g *goldenFile) check(t *testing.T, name string, rec *httptest.ResponseRecorder) {
	t.Helper()
	g.checkEntry(t, name, entryOf(t, rec))
}

// checkEntry compares an entry that is not an HTTP response, such as a
// websocket exchange.
func (g *goldenFile) checkEntry(t *testing.T, name string, got goldenEntry) {
	t.Helper()
	got.Body = compact(t, got.Body)
	g.mu.Lock()
	g.got[name] = got
	want, ok := g.want[name]
	g.mu.Unlock()
	if *update {
		return
	}
	if !ok {
		t.Fatalf("%s has no entry %q (run go test -update)", g.path, name)
	}
	if want.Status != got.Status || want.ContentType != got.ContentType || !bytes.Equal(compact(t, want.Body), got.Body) {
		t.Errorf("response differs from %s:\n got %d %s %.3000s\nwant %d %s %.3000s", g.path,
			got.Status, got.ContentType, got.Body, want.Status, want.ContentType, compact(t, want.Body))
	}
}

// finish writes the file under -update, and otherwise reports entries no
// case produced. When -run left cases out (complete is false), their
// entries are kept.
func (g *goldenFile) finish(t *testing.T, complete bool) {
	t.Helper()
	if !*update {
		if !complete || t.Failed() {
			return
		}
		for name := range g.want {
			if _, ok := g.got[name]; !ok {
				t.Errorf("%s: stale entry %q: no case has that name (run go test -update)", g.path, name)
			}
		}
		return
	}
	entries := g.got
	if !complete {
		entries = maps.Clone(g.want)
		if entries == nil {
			entries = map[string]goldenEntry{}
		}
		maps.Copy(entries, g.got)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(g.path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g.path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
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
