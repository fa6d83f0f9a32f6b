package scanapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/fault"
)

// writeError answers err as {"error": "…"}, with Splice's statuses
// ([web.WriteSpliceError]): the one place the scan API turns fault kinds
// into statuses.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	web.WriteSpliceError(w, r, h.log, "scan API", err)
}

// badRequest is a 400 with a message.
func badRequest(format string, args ...any) error {
	return fault.New(fault.InvalidArgument, format, args...)
}
