package web

import (
	"log/slog"
	"net/http"

	"github.com/sandnet/sandnet/internal/fault"
)

// WriteSpliceError answers err as the Splice APIs served here (Scan,
// validator) do, after Splice's HttpErrorHandler: {"error": "…"} with the
// status of its fault kind. The mapping is [WriteError]'s statusOf: a
// fault.Internal, a kind it does not list and an error that is not a fault
// are internal, logged on log as "<api> internal error" and answered 500
// "An unexpected error occurred." so that no internals leak. It differs
// from WriteError only in the logger and the log message.
func WriteSpliceError(w http.ResponseWriter, r *http.Request, log *slog.Logger, api string, err error) {
	if clientGone(r, err) {
		return
	}
	f, ok := fault.As(err)
	status, known := 0, false
	if ok && f.Kind != fault.Internal {
		status, known = statusOf[f.Kind]
	}
	if !known {
		log.ErrorContext(r.Context(), api+" internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		WriteJSON(w, http.StatusInternalServerError, ErrorResponse{Error: "An unexpected error occurred."})
		return
	}
	WriteJSON(w, status, ErrorResponse{Error: f.Message})
}
