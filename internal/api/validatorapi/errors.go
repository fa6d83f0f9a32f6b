package validatorapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/fault"
)

// statusOf is Splice's HttpErrorHandler mapping of failures to statuses
// (a failed Daml require/ensure is a 409), the one place the validator API
// turns fault kinds into statuses. Kinds not listed are internal.
var statusOf = map[fault.Kind]int{
	fault.InvalidArgument:    http.StatusBadRequest,
	fault.FailedPrecondition: http.StatusBadRequest,
	fault.OutOfRange:         http.StatusBadRequest,
	fault.NotFound:           http.StatusNotFound,
	fault.AlreadyExists:      http.StatusConflict,
	fault.DamlPrecondition:   http.StatusConflict,
	fault.Aborted:            http.StatusTooManyRequests,
	fault.Unavailable:        http.StatusServiceUnavailable,
	fault.Unauthenticated:    http.StatusUnauthorized,
	fault.PermissionDenied:   http.StatusForbidden,
}

// unexpected is the message of every internal error; the detail goes to
// the log only.
const unexpected = "An unexpected error occurred."

// writeError answers err as {"error": "…"}.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	f, ok := fault.As(err)
	status, known := 0, false
	if ok {
		status, known = statusOf[f.Kind]
	}
	if !known {
		h.log.ErrorContext(r.Context(), "validator API internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		web.WriteJSON(w, http.StatusInternalServerError, web.ErrorResponse{Error: unexpected})
		return
	}
	web.WriteJSON(w, status, web.ErrorResponse{Error: f.Message})
}

// badRequest is a 400 with a message.
func badRequest(format string, args ...any) error {
	return fault.New(fault.InvalidArgument, format, args...)
}

// missing is the 400 of a required field left out.
func missing(field string) error {
	return badRequest("Failed to decode: missing required field %q", field)
}
