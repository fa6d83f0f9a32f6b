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
// until the client leaves. There is no node limit and no idle timeout. A
// failure at any point is sent as a JsCantonError frame, after which the
// stream is closed; an undecodable request frame is an INVALID_ARGUMENT.
//
// The token is the upgrade request's bearer header or, when it has none
// (browsers cannot set one), the subprotocol jwt.token.<JWT>. The server
// answers the subprotocol daml.ws.auth to any client that offers
// subprotocols, as Canton does.
func (h *Handler) updatesStream(w http.ResponseWriter, r *http.Request) {
	h.stream(w, r, h.streamUpdates)
}

// activeContractsStream serves GET /v2/state/active-contracts, the
// websocket twin of the active contracts list: one GetActiveContractsRequest
// frame, then each active contract as a frame, without the node limit,
// then a normal close; errors as for updatesStream.
func (h *Handler) activeContractsStream(w http.ResponseWriter, r *http.Request) {
	h.stream(w, r, func(ctx context.Context, r *http.Request, typ websocket.MessageType, body []byte, send func(json.RawMessage) error) error {
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
// request frame, run, and the error frame and close.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, run streamFunc) {
	authReq := r
	if r.Header.Get("Authorization") == "" {
		if token, ok := auth.WebSocketToken(r.Header.Values("Sec-WebSocket-Protocol")); ok {
			authReq = r.Clone(r.Context())
			authReq.Header.Set("Authorization", "Bearer "+token)
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
	typ, body, err := conn.Read(ctx)
	if err != nil {
		return // the client left, or sent more than a request may hold
	}
	conn.SetReadLimit(-1)
	// Read and drop later frames, which ends ctx when the client leaves.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer cancel()
		for {
			_, rd, err := conn.Reader(ctx)
			if err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, rd); err != nil {
				return
			}
		}
	}()

	err = run(ctx, authReq.WithContext(ctx), typ, body, func(b json.RawMessage) error {
		return conn.Write(ctx, websocket.MessageText, b)
	})
	if err != nil {
		if ctx.Err() != nil {
			return // the client is gone
		}
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
		err = l.tail(ctx, q.ledgerEnd, q.committed, -1)
	} else {
		err = l.bounded(ctx)
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
