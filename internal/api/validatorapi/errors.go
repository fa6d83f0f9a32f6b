package validatorapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/fault"
)

// writeError answers err as {"error": "…"}, with Splice's statuses
// ([web.WriteSpliceError]): the one place the validator API turns fault kinds
// into statuses.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	web.WriteSpliceError(w, r, h.log, "validator API", err)
}

// badRequest is a 400 with a message.
func badRequest(format string, args ...any) error {
	return fault.New(fault.InvalidArgument, format, args...)
}

// missing is the 400 of a required field left out.
func missing(field string) error {
	return badRequest("Failed to decode: missing required field %q", field)
}
