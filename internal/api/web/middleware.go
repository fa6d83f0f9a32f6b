package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Middleware wraps a handler.
type Middleware func(http.Handler) http.Handler

// Chain applies middlewares so that the first one listed is the outermost.
func Chain(h http.Handler, mws ...Middleware) http.Handler {
	for _, mw := range slices.Backward(mws) {
		h = mw(h)
	}
	return h
}

// Recover turns a panicking handler into a logged 500 with the JSON error
// shape, so one bad request never takes the process down.
func Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				slog.ErrorContext(r.Context(), "handler panic", "method", r.Method, "path", r.URL.Path, "panic", v)
				WriteJSON(w, http.StatusInternalServerError, ErrorResponse{Error: "An unexpected error occurred."})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// CORS answers browser preflight requests and adds the CORS headers for the
// allowed origins. With no origins it does nothing.
//
// A listed origin is trusted: it is reflected with
// Access-Control-Allow-Credentials, so a dApp served from it may send
// cookies or HTTP auth. "*" allows any other origin, but only as the
// literal "*" and without credentials: reflecting every origin (including
// "null", which sandboxed frames and file: pages send) with credentials
// would let any web page act with the browser's credentials. Bearer tokens
// in the Authorization header still work under "*", since that header is
// allowed by the preflight rather than by credentials mode.
func CORS(origins []string) Middleware {
	wildcard := slices.Contains(origins, "*")
	return func(next http.Handler) http.Handler {
		if len(origins) == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			// The answer depends on Origin (listed or not), so caches
			// must key on it.
			h.Add("Vary", "Origin")
			origin := r.Header.Get("Origin")
			switch {
			case origin == "":
				next.ServeHTTP(w, r)
				return
			case origin != "*" && slices.Contains(origins, origin):
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Credentials", "true")
			case wildcard:
				h.Set("Access-Control-Allow-Origin", "*")
			default:
				next.ServeHTTP(w, r)
				return
			}
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, traceparent, tracestate")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Metrics counts requests and measures their latency by route pattern
// (never the raw path, which holds party and contract ids).
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewMetrics registers the HTTP metrics.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sandnet_http_requests_total", Help: "HTTP requests by route, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "sandnet_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 9),
		}, []string{"route", "method"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer
// (flushing, hijacking for websockets).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Middleware instruments a handler. The route label is filled from the
// ServeMux pattern that served the request, which the mux records on the
// request it is given: a middleware between this one and the mux that
// replaces the request (r.WithContext) must copy Pattern back, as
// TraceContext does.
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		m.requests.WithLabelValues(route, r.Method, strconv.Itoa(rec.status)).Inc()
		m.duration.WithLabelValues(route, r.Method).Observe(time.Since(start).Seconds())
	})
}

// Trace is a W3C trace context (https://www.w3.org/TR/trace-context/).
type Trace struct {
	TraceParent string
	TraceState  string
}

type traceKey struct{}

var traceParentPattern = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// TraceContext takes the caller's traceparent and tracestate headers, or
// starts a new trace when there is none or it is malformed, and stores the
// result in the request context. Updates a request causes carry it.
func TraceContext(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tp := strings.ToLower(strings.TrimSpace(r.Header.Get("traceparent")))
		t := Trace{TraceParent: tp, TraceState: r.Header.Get("tracestate")}
		if !traceParentPattern.MatchString(tp) || strings.HasPrefix(tp, "ff") ||
			tp[3:35] == strings.Repeat("0", 32) || tp[36:52] == strings.Repeat("0", 16) {
			t = Trace{TraceParent: NewTraceParent()}
		}
		inner := r.WithContext(context.WithValue(r.Context(), traceKey{}, t))
		// The ServeMux records the matched pattern on the request it is
		// given, which is now inner; copy it back so that middlewares
		// outside this one (Metrics) still see it.
		defer func() {
			if inner.Pattern != "" {
				r.Pattern = inner.Pattern
			}
		}()
		next.ServeHTTP(w, inner)
	})
}

// TraceFrom returns the request's trace context, or a new one.
func TraceFrom(ctx context.Context) Trace {
	if t, ok := ctx.Value(traceKey{}).(Trace); ok {
		return t
	}
	return Trace{TraceParent: NewTraceParent()}
}

// NewTraceParent starts a new sampled trace.
func NewTraceParent() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "00-" + hex.EncodeToString(b[:16]) + "-" + hex.EncodeToString(b[16:]) + "-01"
}
