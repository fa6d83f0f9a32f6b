package main

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/fault"
)

// server is what the process serves on its listener: its own routes (mux:
// /livez, /readyz, /metrics, the save routes, and whatever else lives as
// long as the process) and the routes of the node it currently serves.
// A request goes to mux when mux has a route of its own for it (not its
// catch-all "GET /" or "/"), else to the node, else to mux's catch-all,
// else to the node's 404 or 405.
// While a restore replaces the node, node requests wait for the new one
// (up to nodeWait) rather than fail.
type server struct {
	main *Main
	mux  *http.ServeMux
	// deps opens a node again after a restore.
	deps nodeDeps

	mu sync.Mutex
	// cur is the node served (nil while a restore replaces it).
	cur *node
	// changed is closed (and replaced) whenever cur changes.
	changed chan struct{}
	// why says why no node is served, for /readyz and waiting requests.
	why string
}

// nodeWait bounds how long a request waits for the node while a restore
// replaces it; past it, it is answered 503 with Retry-After.
const nodeWait = 30 * time.Second

func newServer(m *Main) *server {
	return &server{main: m, mux: http.NewServeMux(), changed: make(chan struct{}), why: "the network is starting"}
}

// setNode serves n, marks the process ready and tells OnReady.
func (s *server) setNode(n *node) {
	s.mu.Lock()
	s.cur = n
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	s.main.ready.Store(true)
	if s.main.OnReady != nil {
		s.main.OnReady(n.network, n.seeded)
	}
}

// takeNode stops serving the current node (marking the process not ready
// for why) and returns it, for the caller to close.
func (s *server) takeNode(why string) *node {
	s.main.ready.Store(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.cur
	s.cur, s.why = nil, why
	return n
}

// closeNode closes the node served, if any, with cause.
func (s *server) closeNode(cause error) {
	if n := s.takeNode("the network is shutting down"); n != nil {
		n.close(cause)
	}
}

// current returns the node served (nil during a restore) and a channel
// closed when that changes.
func (s *server) current() (*node, <-chan struct{}, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, s.changed, s.why
}

func (s *server) notReadyReason() string {
	_, _, why := s.current()
	return why
}

// awaitNode returns the node served, waiting up to nodeWait for one.
func (s *server) awaitNode(ctx context.Context) (*node, error) {
	timeout := time.NewTimer(nodeWait)
	defer timeout.Stop()
	for {
		n, changed, why := s.current()
		if n != nil {
			return n, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timeout.C:
			return nil, fault.New(fault.Unavailable, "sandnet is not serving a network: %s", why)
		}
	}
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, pattern := s.mux.Handler(r); pattern != "" && pattern != "/" && pattern != "GET /" {
		s.mux.ServeHTTP(w, r)
		return
	}
	for {
		n, err := s.awaitNode(r.Context())
		if err != nil {
			w.Header().Set("Retry-After", strconv.Itoa(int(nodeWait.Seconds())))
			web.WriteError(w, r, err)
			return
		}
		served, closing := n.serve(w, r, false)
		if served {
			return
		}
		if closing {
			// A restore took the node out of service: the next
			// awaitNode waits for the one that replaces it.
			continue
		}
		// No route of the network's: the process's catch-all if it has
		// one, else the network's own 404 (or 405), as before.
		if _, pattern := s.mux.Handler(r); pattern != "" {
			s.mux.ServeHTTP(w, r)
			return
		}
		if served, closing = n.serve(w, r, true); served || !closing {
			return
		}
	}
}

// authorize checks that r carries an operator's token, against the users
// of the network served.
func (s *server) authorize(r *http.Request) error {
	n, err := s.awaitNode(r.Context())
	if err != nil {
		return err
	}
	return n.admin.Authorize(r)
}

// gatherNode gathers the metrics of the node served.
func (s *server) gatherNode() ([]*dto.MetricFamily, error) {
	n, _, _ := s.current()
	if n == nil {
		return nil, nil
	}
	return n.reg.Gather()
}

// failed records why no node is served after a restore that failed.
func (s *server) failed(why string) {
	s.mu.Lock()
	s.why = why
	s.mu.Unlock()
}
