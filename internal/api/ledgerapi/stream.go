package ledgerapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/sandnet/sandnet/internal/fault"
)

// Lists are streamed. A list response is an array built in a buffer; a
// small list (the usual case) is sent whole, with a Content-Length, when
// it is complete, exactly as if it had been collected. A list that
// outgrows the buffer (Config.ListBufferBytes) is sent as it is rendered:
// once the 413 is ruled out, the status line and what the buffer holds go
// out, then each element as the store's pages are read, flushed every
// flushBytes. Every check that can refuse a request — decoding, auth,
// validation, the ledger end, names, the pruned offset, and the node limit
// — is decided before the first byte. A prune that lands after the pruned
// offset was checked deletes no entries, so the pages stay whole; the
// defensive check at a page that starts after a gap (see lister.pages) is
// before the first byte the request's error, after it the response is
// aborted as below.
//
// After the first byte the status cannot change. A failure then (a store
// read or an encoding error; a client that left is not one) aborts the
// response with http.ErrAbortHandler: net/http closes the connection (or
// resets the HTTP/2 stream) without the final chunk, so the client sees a
// truncated transfer and never a shorter array that looks complete.

// DefaultListBufferBytes is how much of a list response is held before it
// starts streaming.
const DefaultListBufferBytes = 1 << 20

// flushBytes is how much a streaming response accumulates between writes.
const flushBytes = 64 << 10

// errOverBudget stops the first pass of a list when the buffer is full.
var errOverBudget = errors.New("ledgerapi: the list outgrew its buffer")

// listBody is a list response being written.
type listBody struct {
	w http.ResponseWriter
	// budget is how many bytes add holds before reporting errOverBudget;
	// it is only checked until the response has started.
	budget  int
	buf     []byte
	n       int  // elements added
	started bool // the status and the first bytes are sent
}

func newListBody(w http.ResponseWriter, budget int) *listBody {
	return &listBody{w: w, budget: budget, buf: append(make([]byte, 0, min(budget, flushBytes)+1), '[')}
}

// add appends an element. Before the response has started it reports
// errOverBudget once the buffer holds more than the budget (the element
// is kept); afterwards it writes whenever flushBytes have accumulated.
func (b *listBody) add(e json.RawMessage) error {
	if b.n > 0 {
		b.buf = append(b.buf, ',')
	}
	b.buf = append(b.buf, e...)
	b.n++
	if b.started {
		if len(b.buf) >= flushBytes {
			return b.flush()
		}
		return nil
	}
	if len(b.buf) > b.budget {
		return errOverBudget
	}
	return nil
}

// start sends the 200 and what the buffer holds: from here on the list
// is streamed, without a Content-Length.
func (b *listBody) start() error {
	b.w.Header().Set("Content-Type", "application/json")
	b.w.WriteHeader(http.StatusOK)
	b.started = true
	return b.flush()
}

func (b *listBody) flush() error {
	if _, err := b.w.Write(b.buf); err != nil {
		return err
	}
	b.buf = b.buf[:0]
	// The writer is net/http's, possibly wrapped by middleware that
	// unwraps; a writer that cannot flush is written to on its own terms.
	if err := http.NewResponseController(b.w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// finish closes the array: a list that never started is sent whole.
func (b *listBody) finish() error {
	b.buf = append(b.buf, ']')
	if !b.started {
		writeBody(b.w, http.StatusOK, b.buf)
		return nil
	}
	return b.flush()
}

// readList reads a list request: its query parameters (limit,
// stream_idle_timeout_ms) and its body, which prepare checks; take is how
// many elements the list may hold (see Handler.listTake). A list that can
// hold none (a limit of 0 or less) is answered here, as [], after every
// check: take is then 0 and the caller is done.
func readList[Q any](h *Handler, w http.ResponseWriter, r *http.Request, prepare func(r *http.Request, body []byte) (Q, error)) (q Q, params listParams, take int, err error) {
	if params, err = parseListParams(r.URL.Query()); err != nil {
		return q, params, 0, err
	}
	body, err := readBody(r)
	if err != nil {
		return q, params, 0, err
	}
	if q, err = prepare(r, body); err != nil {
		return q, params, 0, err
	}
	take, ok := h.listTake(params)
	if !ok {
		return q, params, 0, writeList(w, nil)
	}
	return q, params, take, nil
}

// overLimit is the 413 of a list with more than nodeLimit elements.
func overLimit(n, nodeLimit int) error {
	return fault.WithCode(fault.Aborted, codeMaxListElements,
		"The number of matching elements (%d) is greater than the node limit (%d).", n, nodeLimit)
}

// abort ends a started response that failed: nothing when the client is
// gone, otherwise the connection is cut (see above).
func (h *Handler) abort(ctx context.Context, r *http.Request, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	h.cfg.Logger.ErrorContext(ctx, "list response aborted after it started", "method", r.Method, "path", r.URL.Path, "error", err)
	panic(http.ErrAbortHandler)
}
