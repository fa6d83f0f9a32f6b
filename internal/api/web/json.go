package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/sandnet/sandnet/internal/fault"
)

// MaxBodyBytes bounds request bodies; anything larger is refused before it
// is read into memory.
const MaxBodyBytes = 4 << 20

// WriteJSON writes v as a JSON response with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		slog.Error("encode response", "err", err)
		http.Error(w, `{"error":"An unexpected error occurred."}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
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
	kind := fault.KindOf(err)
	msg := "An unexpected error occurred."
	if f, ok := fault.As(err); ok && kind != fault.Internal {
		msg = f.Message
	}
	if kind == fault.Internal {
		slog.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	WriteJSON(w, statusOf[kind], ErrorResponse{Error: msg})
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
	if dec.More() {
		return fault.New(fault.InvalidArgument, "Failed to decode: unexpected data after the JSON value")
	}
	return nil
}

func jsonMessage(err error) string {
	if e, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Sprintf("field %q must be a %s, not a JSON %s", e.Field, e.Type, e.Value)
	}
	return err.Error()
}

// NotFound answers unmatched routes with the JSON error shape instead of
// net/http's plain text.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteJSON(w, http.StatusNotFound, ErrorResponse{Error: "The requested resource could not be found."})
}
