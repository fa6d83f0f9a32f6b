package ledgerapi

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/fault"
)

// asyncAPI is this API's AsyncAPI 2.6 document, describing the websocket
// channels, served at /docs/asyncapi.
//
//go:embed asyncapi.yaml
var asyncAPI []byte

// serveAsyncAPI serves the document without a token.
func serveAsyncAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Length", strconv.Itoa(len(asyncAPI)))
	_, _ = w.Write(asyncAPI)
}

// updatesStream serves GET /v2/updates and /v2/updates/flats, the
// websocket twins of the lists. The client sends one GetUpdatesRequest
// text frame; later frames are read and ignored. The request goes through
// the list's checks (prepareUpdates), then the server sends each element
// as a text frame: the updates up to endInclusive, after which it closes
// the stream, or, open-ended, the updates up to the ledger end and then as
// they are committed, with an offset checkpoint each time it catches up,
// until the client leaves. There is no node limit and no idle timeout,
// but the request frame must come within Config.RequestFrameTimeout. A
// failure at any point is sent as a JsCantonError frame, after which the
// stream is closed; an undecodable request frame is an INVALID_ARGUMENT.
//
// The token is the upgrade request's bearer header or, when it has none
// (browsers cannot set one), the subprotocol jwt.token.<JWT>; it is
// checked before the upgrade, and a bad one is refused with 401 or 403.
// The server answers the subprotocol daml.ws.auth to any client that
// offers subprotocols, as Canton does.
//
// A running stream is re-authorized (see streamGuard): when its token
// expires the stream ends with ACCESS_TOKEN_EXPIRED, and when the user's
// rights no longer cover its format with STALE_STREAM_AUTHORIZATION.
func (h *Handler) updatesStream(w http.ResponseWriter, r *http.Request) {
	h.stream(w, r, updatesReads, h.streamUpdates)
}

// updatesReads is what a GetUpdatesRequest frame reads, for the stream's
// re-authorization; nil when the frame is not a valid request (the
// stream then fails before its first element).
func updatesReads(body []byte) *updateFormat {
	req, err := decodeGetUpdatesRequest(body)
	if err != nil {
		return nil
	}
	uf, err := effectiveFormat(req, false)
	if err != nil {
		return nil
	}
	return uf
}

// activeContractsReads is updatesReads for a GetActiveContractsRequest
// frame: its eventFormat, or its legacy filter.
func activeContractsReads(body []byte) *updateFormat {
	req, err := decodeGetActiveContractsRequest(body)
	if err != nil {
		return nil
	}
	ef := req.EventFormat
	if ef == nil {
		ef = req.Filter
	}
	if ef == nil {
		return nil
	}
	return &updateFormat{Transactions: &transactionFormat{EventFormat: ef, Shape: shapeACSDelta}}
}

// activeContractsStream serves GET /v2/state/active-contracts, the
// websocket twin of the active contracts list: one GetActiveContractsRequest
// frame, then each active contract as a frame, without the node limit,
// then a normal close; errors as for updatesStream.
func (h *Handler) activeContractsStream(w http.ResponseWriter, r *http.Request) {
	h.stream(w, r, activeContractsReads, func(ctx context.Context, r *http.Request, typ websocket.MessageType, body []byte, send func(json.RawMessage) error) error {
		if typ != websocket.MessageText {
			return undecodable("Invalid value for: body (expected a text frame holding a GetActiveContractsRequest, got a binary frame)")
		}
		q, err := h.prepareActiveContracts(r, body)
		if err != nil {
			return err
		}
		snap, err := h.activeContracts(ctx, q)
		if err != nil {
			return err
		}
		return snap.emit(math.MaxInt, send)
	})
}

// streamFunc checks a stream's request frame and sends its elements.
type streamFunc func(ctx context.Context, r *http.Request, typ websocket.MessageType, body []byte, send func(json.RawMessage) error) error

// stream runs a websocket stream: the handshake and its token, the
// request frame, run under a streamGuard built from reads(request frame),
// and the error frame and close.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, reads func(body []byte) *updateFormat, run streamFunc) {
	authReq := r
	if r.Header.Get("Authorization") == "" {
		if token, ok := auth.WebSocketToken(r.Header.Values("Sec-WebSocket-Protocol")); ok {
			authReq = r.Clone(r.Context())
			authReq.Header.Set("Authorization", "Bearer "+token)
		}
	}
	// Credentials that come with the handshake are checked before the
	// upgrade, so that a bad token is answered as on the lists (401 or
	// 403) and holds no connection. A handshake without any is upgraded:
	// its request frame then fails as a list without a token does.
	if authReq.Header.Get("Authorization") != "" {
		if _, err := h.authenticate(authReq); err != nil {
			h.writeError(w, r, err)
			return
		}
	}
	if len(r.Header.Values("Sec-WebSocket-Protocol")) > 0 {
		// Canton answers daml.ws.auth whatever else was offered. A client
		// that offered no subprotocol gets none: it would have to refuse
		// the connection otherwise.
		w.Header().Set("Sec-WebSocket-Protocol", auth.WebSocketAuthProtocol)
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// Tokens, not cookies, authenticate: a page of another origin
		// gains nothing it could not do itself, and browser dApps of any
		// origin must be able to connect, as to Canton.
		InsecureSkipVerify: true,
	})
	if err != nil {
		return // Accept has answered the handshake's failure
	}
	defer conn.CloseNow()
	ctx := r.Context()
	conn.SetReadLimit(maxBodyBytes)
	// A client that never sends its request frame would hold the
	// connection for ever; past the bound the read's context ends, which
	// closes the connection.
	frameCtx, frameDone := context.WithTimeout(ctx, h.cfg.RequestFrameTimeout)
	typ, body, err := conn.Read(frameCtx)
	frameDone()
	if err != nil {
		return // the client left, sent more than a request may hold, or nothing in time
	}
	conn.SetReadLimit(-1)
	// Read and drop later frames, which ends ctx when the client leaves.
	// The reads run until the handler returns, not until ctx ends: a read
	// whose context ends closes the connection at once, and a stream that
	// the server ends (a restore) still sends its error and close frames.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	readCtx, stopReading := context.WithCancel(context.WithoutCancel(ctx))
	defer stopReading()
	go func() {
		defer cancel()
		for {
			_, rd, err := conn.Reader(readCtx)
			if err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, rd); err != nil {
				return
			}
		}
	}()

	// The guard ends run through runCtx. Frames are written under
	// writeCtx, which outlives ctx by a moment: a write whose context ends
	// closes the connection at once, so a stream the server ends (a
	// restore) while a frame is on its way would lose its error and close
	// frames; a client that stops reading still cannot hold a write for
	// longer than that.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	writeCtx, endWrites := context.WithCancel(context.WithoutCancel(ctx))
	defer endWrites()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(writeGrace, endWrites) })()
	g := h.guard(runCtx, authReq, reads(body))
	if g != nil {
		go g.watch(runCtx, stop)
	}
	err = run(runCtx, authReq.WithContext(runCtx), typ, body, func(b json.RawMessage) error {
		if g != nil {
			if err := g.beforeSend(runCtx); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return conn.Write(writeCtx, websocket.MessageText, b)
	})
	if g != nil {
		if gerr := g.failure(); gerr != nil {
			err = gerr
		}
	}
	if ctx.Err() != nil {
		h.closeWithCause(ctx, r, conn)
		return
	}
	if err != nil {
		if f, ok := fault.As(err); ok && f.Code == codeUndecodable {
			err = invalidArgument("%s", f.Message)
		}
		_, jsErr, _ := h.errorResponse(r, err)
		b, merr := marshal(jsErr)
		if merr != nil || conn.Write(ctx, websocket.MessageText, b) != nil {
			return
		}
	}
	_ = conn.Close(websocket.StatusNormalClosure, "")
}

// closeWithCause ends a stream whose context ended. When the server ended
// it with a reason (a fault.Unavailable cause: the network was restored
// from a save, say), the client gets that reason twice: as an error frame
// in the API's error shape and as the close frame's reason (going away).
// Otherwise the client left, and there is no one to tell.
func (h *Handler) closeWithCause(ctx context.Context, r *http.Request, conn *websocket.Conn) {
	f, ok := fault.As(context.Cause(ctx))
	if !ok || f.Kind != fault.Unavailable {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_, jsErr, _ := h.errorResponse(r, f)
	if b, err := marshal(jsErr); err == nil {
		_ = conn.Write(wctx, websocket.MessageText, b)
	}
	reason := f.Message
	if len(reason) > maxCloseReason {
		reason = reason[:maxCloseReason]
	}
	_ = conn.Close(websocket.StatusGoingAway, reason)
}

// writeGrace is how long a frame being written when a stream's context
// ends may still take before the connection is closed under it.
const writeGrace = time.Second

// maxCloseReason is the most bytes a close frame's reason may hold (125
// bytes of payload less the status code).
const maxCloseReason = 123

// streamUpdates checks the request frame and sends its elements.
func (h *Handler) streamUpdates(ctx context.Context, r *http.Request, typ websocket.MessageType, body []byte, send func(json.RawMessage) error) error {
	if typ != websocket.MessageText {
		return undecodable("Invalid value for: body (expected a text frame holding a GetUpdatesRequest, got a binary frame)")
	}
	q, err := h.prepareUpdates(r, body, false)
	if err != nil {
		return err
	}
	l := &lister{h: h, plan: q.plan, take: math.MaxInt, emit: send}
	if q.plan.openEnded {
		err = h.follow(ctx, l, q.plan.begin, q.ledgerEnd, q.committed, -1)
	} else {
		err = l.bounded(ctx)
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// streamRecheck is how often a running stream's user is resolved again
// when no commit wakes it, so that an idle stream notices a rights change.
const streamRecheck = time.Second

// streamGuard re-authorizes a running stream, as Canton does: the token's
// expiry ends it with ACCESS_TOKEN_EXPIRED, and a user that no longer
// exists, is deactivated, or has lost a right the stream's format reads
// with ends it with STALE_STREAM_AUTHORIZATION. The user is resolved
// again before an element is sent after a commit and every
// streamRecheck, from the engine's user cache (so a change made by
// another process sharing the database is noticed within two seconds);
// the expiry is a timer, and is also checked before each element, so none
// is sent after it.
type streamGuard struct {
	h       *Handler
	sub     string
	expires time.Time // zero: the token has no exp
	reads   *updateFormat

	mu        sync.Mutex
	err       error
	committed <-chan struct{} // the commit signal beforeSend last checked after
}

// guard returns the guard of a stream whose request frame reads what
// reads says, or nil when there is nothing to guard: authentication is
// disabled, or the request's token or rights already fail, which run
// reports as it would without a guard.
func (h *Handler) guard(ctx context.Context, r *http.Request, reads *updateFormat) *streamGuard {
	if h.cfg.Auth.Disabled || reads == nil {
		return nil
	}
	token, ok := auth.BearerToken(r.Header.Get("Authorization"))
	if !ok {
		return nil
	}
	claims, err := h.cfg.Auth.Verifier.Verify(ctx, token)
	if err != nil {
		return nil
	}
	g := &streamGuard{h: h, sub: claims.Subject, expires: claims.ExpiresAt, reads: reads}
	// The signal is taken before the check, so that a change committed
	// with or after it is seen by the check after the next commit.
	g.committed = h.cfg.Ledger.Committed()
	if g.check(ctx) != nil {
		return nil
	}
	return g
}

// check re-authorizes the stream now: nil, or the error that ends it.
func (g *streamGuard) check(ctx context.Context) error {
	if now := time.Now(); !g.expires.IsZero() && !now.Before(g.expires) {
		return accessTokenExpired(g.expires, now)
	}
	u, err := g.h.cfg.Ledger.CachedUser(ctx, g.h.cfg.Participant, g.sub)
	switch {
	case err != nil && fault.Is(err, fault.NotFound):
		return staleStreamAuthorization()
	case err != nil:
		return err
	case u.Deactivated:
		return staleStreamAuthorization()
	}
	if authorize(caller{user: u}, g.reads) != nil {
		return staleStreamAuthorization()
	}
	return nil
}

// fail records the stream's first failure and returns it.
func (g *streamGuard) fail(err error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil {
		g.err = err
	}
	return g.err
}

// failure is the error that ended the stream, if the guard ended it.
func (g *streamGuard) failure() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// beforeSend runs before each element: it fails once the guard has
// failed or the token has expired, and resolves the user again when a
// commit happened since it last did.
func (g *streamGuard) beforeSend(ctx context.Context) error {
	if err := g.failure(); err != nil {
		return err
	}
	if now := time.Now(); !g.expires.IsZero() && !now.Before(g.expires) {
		return g.fail(accessTokenExpired(g.expires, now))
	}
	select {
	case <-g.committed:
	default:
		return nil
	}
	g.committed = g.h.cfg.Ledger.Committed()
	if err := g.check(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return g.fail(err)
	}
	return nil
}

// watch re-authorizes the stream every streamRecheck and at the token's
// expiry, until ctx ends; a failure is recorded and stops the stream.
func (g *streamGuard) watch(ctx context.Context, stop context.CancelFunc) {
	tick := time.NewTicker(streamRecheck)
	defer tick.Stop()
	var expiry <-chan time.Time
	if !g.expires.IsZero() {
		t := time.NewTimer(time.Until(g.expires))
		defer t.Stop()
		expiry = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-expiry:
		}
		if err := g.check(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			g.fail(err)
			stop()
			return
		}
	}
}

// accessTokenExpired ends a stream whose token expired at exp.
func accessTokenExpired(exp, now time.Time) *fault.Error {
	return fault.WithCode(fault.Aborted, codeAccessTokenExpired, "Claims were valid until %s, current time is %s",
		exp.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano))
}

// staleStreamAuthorization ends a stream whose user's rights changed so
// that its authorization no longer holds.
func staleStreamAuthorization() *fault.Error {
	return fault.WithCode(fault.Aborted, codeStaleStreamAuth, "Stale stream authorization. Retry quickly.")
}
