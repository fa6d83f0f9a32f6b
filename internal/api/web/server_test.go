package web_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/web"
)

// short are timeouts small enough for tests.
var short = web.Timeouts{ReadHeader: 200 * time.Millisecond, Body: 200 * time.Millisecond, Idle: 200 * time.Millisecond}

// serve runs h on a server built by web.NewServer with the timeouts.
func serve(t *testing.T, h http.Handler, to web.Timeouts) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = web.NewServer(h, to, nil)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// dial opens a raw connection whose reads give up after a few seconds, so
// that a server that never closes it fails the test rather than hangs it.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// closedBy waits for the server to close c and returns how long it took;
// it fails the test if the client's own read deadline came first.
func closedBy(t *testing.T, r *bufio.Reader, start time.Time) time.Duration {
	t.Helper()
	_, err := io.Copy(io.Discard, r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server kept the connection open for %s", time.Since(start))
	}
	return time.Since(start)
}

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	_, _ = w.Write([]byte("ok"))
})

// An idle keep-alive connection is closed after the idle timeout.
func TestServerClosesIdleConnections(t *testing.T) {
	t.Parallel()
	addr := serve(t, okHandler, short)
	c, r := dial(t, addr)
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: sandnet\r\n\r\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Close {
		t.Fatal("the server closed the connection after one request")
	}
	if d := closedBy(t, r, time.Now()); d < short.Idle/2 {
		t.Errorf("closed after %s, before the idle timeout of %s", d, short.Idle)
	}
}

// Headers and bodies that trickle in are cut off with their timeouts, with
// an answer where a request has begun; headers beyond the bound are
// refused.
func TestServerBoundsSlowRequests(t *testing.T) {
	t.Parallel()
	// The ledger API's handlers take a request whose context ended for
	// one whose client left, and answer nothing.
	silentOnCancel := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil && r.Context().Err() != nil {
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	// The Splice APIs' handlers answer a failed read with a 400.
	answering := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	tests := []struct {
		name    string
		handler http.Handler
		head    string // sent at once
		drip    string // then one byte every 50 ms
		status  int    // the answer, 0 for none
	}{
		{name: "a dripped body, silent handler", handler: silentOnCancel,
			head: "POST / HTTP/1.1\r\nHost: sandnet\r\nContent-Length: 100\r\n\r\n", drip: strings.Repeat("x", 100), status: http.StatusRequestTimeout},
		{name: "a dripped body, answering handler", handler: answering,
			head: "POST / HTTP/1.1\r\nHost: sandnet\r\nContent-Length: 100\r\n\r\n", drip: strings.Repeat("x", 100), status: http.StatusBadRequest},
		{name: "a dripped chunked body", handler: silentOnCancel,
			head: "POST / HTTP/1.1\r\nHost: sandnet\r\nTransfer-Encoding: chunked\r\n\r\n", drip: strings.Repeat("1\r\nx\r\n", 100), status: http.StatusRequestTimeout},
		{name: "dripped headers", handler: okHandler,
			head: "GET / HTTP/1.1\r\n", drip: strings.Repeat("X-Slow: y\r\n", 100)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr := serve(t, tc.handler, short)
			c, r := dial(t, addr)
			start := time.Now()
			fmt.Fprint(c, tc.head)
			go func() {
				for i := range len(tc.drip) {
					time.Sleep(50 * time.Millisecond)
					if _, err := c.Write([]byte{tc.drip[i]}); err != nil {
						return
					}
				}
			}()
			if tc.status != 0 {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("no answer after %s: %v", time.Since(start), err)
				}
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
				}
			}
			if d := closedBy(t, r, start); d > 10*short.Body {
				t.Errorf("closed after %s", d)
			}
		})
	}

	t.Run("headers beyond the bound", func(t *testing.T) {
		t.Parallel()
		addr := serve(t, okHandler, short)
		c, r := dial(t, addr)
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: sandnet\r\nX-Big: %s\r\n\r\n", strings.Repeat("y", web.MaxHeaderBytes+4096))
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("status %d, want 431", resp.StatusCode)
		}
	})
}

// The bound on bodies never ends a long response: neither a streamed
// answer to a request whose body came in time, nor one to a request
// without a body, nor a request on a reused connection.
func TestServerLetsLongResponsesRun(t *testing.T) {
	t.Parallel()
	const chunks = 15 // 50 ms apart: several times every timeout
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc := http.NewResponseController(w)
		for i := range chunks {
			select {
			case <-r.Context().Done():
				return // a cancelled request ends the stream short
			case <-time.After(50 * time.Millisecond):
			}
			fmt.Fprintf(w, "%s%d;", body, i)
			_ = rc.Flush()
		}
	})
	addr := serve(t, stream, short)
	c, r := dial(t, addr)
	if err := c.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{
		"POST / HTTP/1.1\r\nHost: sandnet\r\nContent-Length: 1\r\n\r\na",
		"GET / HTTP/1.1\r\nHost: sandnet\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: sandnet\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n",
	} {
		fmt.Fprint(c, req)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(b), ";"); resp.StatusCode != http.StatusOK || got != chunks {
			t.Errorf("%q: status %d with %d of %d chunks: %s", req, resp.StatusCode, got, chunks, b)
		}
	}
}

// A path with repeated slashes is served as its clean form, without a
// redirect; dot segments keep the mux's redirect.
func TestCleanSlashes(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/updates", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.URL.Path) })
	mux.HandleFunc("GET /api/scan/v0/dso", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.URL.Path+"?"+r.URL.RawQuery) })
	mux.HandleFunc("GET /v2/users/{user}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.PathValue("user")) })
	h := web.CleanSlashes(mux)
	tests := []struct {
		target string
		status int
		body   string
	}{
		{"/v2/updates", 200, "/v2/updates"},
		{"//v2/updates", 200, "/v2/updates"},
		{"///v2//updates", 200, "/v2/updates"},
		{"//api/scan//v0/dso?x=1", 200, "/api/scan/v0/dso?x=1"},
		{"//v2/users/a%2Fb", 200, "a/b"},
		{"//v2/users/a%2F%2Fb", 200, "a//b"},
		{"/v2/x/../updates", http.StatusTemporaryRedirect, ""},
	}
	for _, tc := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.target, nil))
		if rec.Code != tc.status || (tc.body != "" && rec.Body.String() != tc.body) {
			t.Errorf("%s: %d %q, want %d %q", tc.target, rec.Code, rec.Body, tc.status, tc.body)
		}
	}
}
