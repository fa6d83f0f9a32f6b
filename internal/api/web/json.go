package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"sync"

	"github.com/sandnet/sandnet/internal/fault"
)

// MaxBodyBytes bounds request bodies; anything larger is refused before it
// is read into memory.
const MaxBodyBytes = 4 << 20

// WriteJSON writes v as a JSON response with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	// Encoded into a pooled buffer, which the response has copied or sent
	// by the time Write returns: the same bytes as json.Marshal and a
	// newline, without a fresh slice per answer.
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer putJSONBuffer(buf)
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		slog.Error("encode response", "err", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"An unexpected error occurred."}` + "\n"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// jsonBuffers hold WriteJSON's buffers between answers.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putJSONBuffer returns buf to the pool unless an outsized answer grew it.
func putJSONBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 256<<10 {
		jsonBuffers.Put(buf)
	}
}

// WriteJSONBytes answers with a JSON document already encoded.
func WriteJSONBytes(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// statusOf maps fault kinds to HTTP statuses as Splice's HttpErrorHandler
// maps gRPC codes (DIGEST §0 of reference/splice).
var statusOf = map[fault.Kind]int{
	fault.Internal:           http.StatusInternalServerError,
	fault.InvalidArgument:    http.StatusBadRequest,
	fault.NotFound:           http.StatusNotFound,
	fault.AlreadyExists:      http.StatusConflict,
	fault.FailedPrecondition: http.StatusBadRequest,
	fault.DamlPrecondition:   http.StatusConflict,
	fault.Aborted:            http.StatusTooManyRequests,
	fault.Unauthenticated:    http.StatusUnauthorized,
	fault.PermissionDenied:   http.StatusForbidden,
	fault.Unavailable:        http.StatusServiceUnavailable,
	fault.OutOfRange:         http.StatusBadRequest,
}

// ErrorResponse is the error body of the Splice APIs.
type ErrorResponse struct {
	Error string `json:"error"`
}

// WriteError answers err as {"error": "…"} with the status of its fault
// kind. Errors that are not faults are internal: they are logged and
// answered with a fixed message, so no internals leak.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r, err) {
		return
	}
	kind := fault.KindOf(err)
	status, known := statusOf[kind]
	if !known {
		// A kind added to package fault but not mapped here is a bug; answer
		// it as internal rather than with status 0, which panics.
		kind, status = fault.Internal, http.StatusInternalServerError
	}
	msg := "An unexpected error occurred."
	if f, ok := fault.As(err); ok && kind != fault.Internal {
		msg = f.Message
	}
	if kind == fault.Internal {
		slog.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	WriteJSON(w, status, ErrorResponse{Error: msg})
}

// clientGone reports whether err is only the end of a request whose
// client went away (it closed the connection, or a BFT read that had its
// answer cancelled the rest): nobody reads an answer then, and it is no
// server error. It is logged at debug level.
func clientGone(r *http.Request, err error) bool {
	if r.Context().Err() == nil || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	slog.DebugContext(r.Context(), "request ended by its client", "method", r.Method, "path", r.URL.Path, "err", err)
	return true
}

// DecodeJSON reads a JSON request body into v. A malformed body is a
// fault.InvalidArgument naming the problem, as Splice's decoders answer
// 400 with the reason.
func DecodeJSON(r *http.Request, v any) error {
	body := http.MaxBytesReader(nil, r.Body, MaxBodyBytes)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fault.New(fault.InvalidArgument, "Failed to decode: the request body is empty")
		}
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return fault.New(fault.InvalidArgument, "Failed to decode: the request body is larger than %d bytes", MaxBodyBytes)
		}
		return fault.New(fault.InvalidArgument, "Failed to decode: %s", jsonMessage(err))
	}
	// Anything but blanks after the value is refused. dec.More alone would
	// let a stray '}' or ']' through.
	var rest json.RawMessage
	if err := dec.Decode(&rest); !errors.Is(err, io.EOF) {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return fault.New(fault.InvalidArgument, "Failed to decode: the request body is larger than %d bytes", MaxBodyBytes)
		}
		return fault.New(fault.InvalidArgument, "Failed to decode: unexpected data after the JSON value")
	}
	return nil
}

func jsonMessage(err error) string {
	if e, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		// Value is "number <literal>" for a number: clip the literal, which
		// may be as long as the body.
		value := fault.Clip(e.Value)
		if e.Field == "" {
			return fmt.Sprintf("the request body must be a JSON %s, not a JSON %s", jsonType(e.Type), value)
		}
		return fmt.Sprintf("field %s must be a JSON %s, not a JSON %s", fault.Quote(e.Field), jsonType(e.Type), value)
	}
	return err.Error()
}

// jsonType names the JSON type a Go type decodes from, so that messages
// speak JSON rather than naming Go types.
func jsonType(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	default:
		return "value"
	}
}

// NotFound answers unmatched routes with the JSON error shape instead of
// net/http's plain text.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteJSON(w, http.StatusNotFound, ErrorResponse{Error: "The requested resource could not be found."})
}
