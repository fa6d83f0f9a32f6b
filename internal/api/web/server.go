package web

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Timeouts bound how long a client may hold a connection without making
// progress. Responses have no bound: websocket streams and open-ended
// lists run as long as their clients read them.
type Timeouts struct {
	// ReadHeader bounds the request line and headers.
	ReadHeader time.Duration
	// Body bounds a request's body: the request, headers and body, must
	// have arrived within ReadHeader + Body of its start. The bound
	// ends with the body, so it never ends a long response.
	Body time.Duration
	// Idle bounds the wait for the next request on a keep-alive
	// connection.
	Idle time.Duration
}

// DefaultTimeouts are the timeouts of every server of the binary (see
// docs/architecture.md): headers are small, so 10 s is generous; a body is
// at most MaxBodyBytes, which 60 s carries even over a slow link; and a
// keep-alive connection is kept for 120 s, longer than clients keep their
// idle connections (Go's 90 s), so that a client never sends a request on a
// connection the server is just closing.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Body: time.Minute, Idle: 2 * time.Minute}

// MaxHeaderBytes bounds a request's line and headers: a bearer token is a
// few KiB at most.
const MaxHeaderBytes = 64 << 10

// NewServer returns the HTTP server of a handler with the timeouts, the
// header bound, and paths with repeated slashes served as their clean
// form (CleanSlashes). Every server of the binary is built here, so that
// none is left without bounds.
//
// The body's bound is ReadTimeout, which counts from the start of the
// request and so covers the headers too. It bounds reading only: net/http
// lifts the read deadline once the body has been read (and a hijacked
// websocket connection has none), so it never ends a long response, and
// there is no WriteTimeout, which would.
func NewServer(h http.Handler, t Timeouts, log *slog.Logger) *http.Server {
	srv := &http.Server{
		Handler:           CleanSlashes(answerBodyTimeout(h)),
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.ReadHeader + t.Body,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
	if log != nil {
		srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	}
	return srv
}

// CleanSlashes serves a path with repeated slashes as the path with single
// slashes. net/http's ServeMux would answer it with a redirect, which a
// websocket client cannot follow (the wallet SDK opens
// ws://host//v2/updates). Dot segments still get the mux's redirect.
func CleanSlashes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "//") {
			next.ServeHTTP(w, r)
			return
		}
		escaped := collapseSlashes(r.URL.EscapedPath())
		path, err := url.PathUnescape(escaped)
		if err != nil {
			next.ServeHTTP(w, r) // EscapedPath always unescapes; keep the mux's answer if not
			return
		}
		u := *r.URL
		u.Path, u.RawPath = path, escaped
		clean := *r
		clean.URL = &u
		next.ServeHTTP(w, &clean)
	})
}

// collapseSlashes replaces every run of slashes with one.
func collapseSlashes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '/' && i > 0 && s[i-1] == '/' {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// answerBodyTimeout answers a request whose body did not arrive within
// the server's ReadTimeout. The failed read cancels the request's context,
// so the handlers, taking the client for gone, answer nothing, which
// net/http would send as an empty 200; the answer is instead a 408 that
// closes the connection, in plain text as net/http answers other broken
// requests. A handler that did answer the failed read keeps its answer.
func answerBodyTimeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body := &timedBody{ReadCloser: r.Body}
		r.Body = body
		rec := &writeRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if body.timedOut && !rec.wrote {
			w.Header().Set("Connection", "close")
			http.Error(w, "The request body did not arrive in time.", http.StatusRequestTimeout)
		}
	})
}

// timedBody notes a read that failed with the read deadline, and says so
// in the error.
type timedBody struct {
	io.ReadCloser
	timedOut bool
}

// errBodyTimeout is the error of reading a request body that did not
// arrive within Timeouts.Body.
var errBodyTimeout = errors.New("the request body did not arrive in time")

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		b.timedOut = true
		err = errBodyTimeout
	}
	return n, err
}

// writeRecorder notes whether a handler answered.
type writeRecorder struct {
	http.ResponseWriter
	wrote bool
}

func (w *writeRecorder) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *writeRecorder) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushing,
// hijacking for websockets).
func (w *writeRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
