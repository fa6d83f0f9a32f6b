package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/sandnet/sandnet/internal/api/web"
)

// listenNth opens the k-th (from 1) of a run of addresses a flag such as
// --sv-listen or --validator-listen names by its first, HOST:PORT: the
// port plus k-1, or, with port 0, a port the system picks for each (the
// caller logs it), so that tests and scripts never have to guess a run of
// free ports. what names the node in the error.
func listenNth(flag, spec string, k int, what string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(spec)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", flag, spec, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 {
		return nil, fmt.Errorf("%s %q: the port must be a number", flag, spec)
	}
	if p > 0 {
		p += k - 1
	}
	addr := net.JoinHostPort(host, strconv.Itoa(p))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for %s: %w", addr, what, err)
	}
	return ln, nil
}

// serveOwn serves a node's routes on an address of its own, with the
// main server's recovery, CORS and trace handling; the caller shuts the
// server down.
func serveOwn(ln net.Listener, mux *http.ServeMux, corsOrigins []string, log *slog.Logger) *http.Server {
	srv := web.NewServer(web.Chain(mux, web.Recover, web.CORS(corsOrigins), web.TraceContext), web.DefaultTimeouts, log)
	go func() { _ = srv.Serve(ln) }()
	return srv
}

// shutdownOwn shuts down the servers serveOwn started, giving each five
// seconds to finish its requests.
func shutdownOwn(servers []*http.Server) {
	for _, srv := range servers {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = srv.Shutdown(ctx)
		cancel()
	}
}
