package scanclient_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/scanclient"
	"github.com/sandnet/sandnet/internal/testnet"
)

// env is a seeded network on SQLite whose SV 1 Scan has ingested it all
// and taken a snapshot.
type env struct{ *testnet.Net }

func openEnv(ctx context.Context, dir string) (*env, error) {
	n, err := testnet.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	if _, err := n.Ingester.Step(ctx); err != nil {
		n.Close()
		return nil, err
	}
	if _, err := (&scan.Snapshotter{Store: n.ScanStore}).TakeNow(ctx); err != nil {
		n.Close()
		return nil, err
	}
	return &env{n}, nil
}

// sharedEnv is one network that no test changes.
var sharedEnv = testnet.NewShared("scanclient", openEnv, (*env).Close)

func TestMain(m *testing.M) {
	code := m.Run()
	sharedEnv.Close()
	historyShared.Close()
	os.Exit(code)
}

func shared(t testing.TB) *env {
	t.Helper()
	return sharedEnv.Get(t)
}

// scanServer is an httptest Scan over the shared network's handler that
// counts requests and may rewrite answers.
type scanServer struct {
	*httptest.Server
	requests atomic.Int64
	// bodies records the request bodies, by path.
	mu     sync.Mutex
	bodies map[string][]string
}

// URL returns the Scan API root of the server.
func (s *scanServer) url() string { return s.Server.URL + scanapi.Prefix }

func (s *scanServer) count() int64 { return s.requests.Load() }

func (s *scanServer) bodiesOf(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies[scanapi.Prefix+path]...)
}

// rewrite alters an answer: it gets the request path and the answer's
// status and body and returns the ones to send.
type rewrite func(path string, status int, body []byte) (int, []byte)

// serve starts a Scan serving h, its answers passed through rw when set.
func serve(t *testing.T, h http.Handler, rw rewrite) *scanServer {
	t.Helper()
	s := &scanServer{bodies: map[string][]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		s.mu.Lock()
		s.bodies[r.URL.Path] = append(s.bodies[r.URL.Path], body.String())
		s.mu.Unlock()
		r.Body = http.NoBody
		if body.Len() > 0 {
			r.Body = readCloser{bytes.NewReader(body.Bytes())}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		status, out := rec.Code, rec.Body.Bytes()
		if rw != nil {
			status, out = rw(r.URL.Path, status, out)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(out)
	}))
	t.Cleanup(s.Close)
	return s
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// replace returns a rewrite that replaces old by new in the answers to
// paths ending in suffix.
func replace(suffix, old, new string) rewrite {
	return func(path string, status int, body []byte) (int, []byte) {
		if len(path) >= len(suffix) && path[len(path)-len(suffix):] == suffix {
			body = bytes.ReplaceAll(body, []byte(old), []byte(new))
		}
		return status, body
	}
}

// fixed returns a rewrite that answers every request with status and body.
func fixed(status int, body string) rewrite {
	return func(string, int, []byte) (int, []byte) { return status, []byte(body) }
}

func newClient(t *testing.T, cfg scanclient.Config) *scanclient.Client {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c, err := scanclient.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// deadURL is a Scan URL nothing listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.NotFoundHandler())
	u := s.URL
	s.Close()
	return u + scanapi.Prefix
}

func mustEncode(t *testing.T, c *ledger.Contract) []byte {
	t.Helper()
	b, err := ledger.EncodeContract(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func describe(cs []*ledger.Contract) string {
	var b bytes.Buffer
	for _, c := range cs {
		fmt.Fprintf(&b, "%s ", c.ID)
	}
	return b.String()
}
