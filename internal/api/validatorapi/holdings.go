package validatorapi

import (
	"encoding/json"
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// HoldingsSummaryProxyRequest is the body of POST
// /v0/scan-proxy/holdings/summary and /v1/scan-proxy/holdings/summary,
// the Scan's holdings summary request (v1 has no as_of_round).
type HoldingsSummaryProxyRequest struct {
	MigrationID     *int64    `json:"migration_id"`
	RecordTime      *string   `json:"record_time"`
	RecordTimeMatch *string   `json:"record_time_match,omitempty"`
	OwnerPartyIDs   *[]string `json:"owner_party_ids"`
	AsOfRound       *int64    `json:"as_of_round,omitempty"`
}

// decodeHoldingsSummary reads a scan-proxy holdings summary body into the
// request the Scans are sent: the fields the Scan requires must be there
// and well-formed, what they mean is the Scan's to check.
func decodeHoldingsSummary(r *http.Request) (scanclient.HoldingsSummaryRequest, error) {
	var body HoldingsSummaryProxyRequest
	if err := web.DecodeJSON(r, &body); err != nil {
		return scanclient.HoldingsSummaryRequest{}, err
	}
	switch {
	case body.MigrationID == nil:
		return scanclient.HoldingsSummaryRequest{}, missing("migration_id")
	case body.RecordTime == nil:
		return scanclient.HoldingsSummaryRequest{}, missing("record_time")
	case body.OwnerPartyIDs == nil:
		return scanclient.HoldingsSummaryRequest{}, missing("owner_party_ids")
	}
	t, err := daml.ParseTimestamp(*body.RecordTime)
	if err != nil {
		return scanclient.HoldingsSummaryRequest{}, badRequest("Failed to decode: record_time: %s", err)
	}
	req := scanclient.HoldingsSummaryRequest{
		MigrationID: *body.MigrationID, RecordTime: t.String(), OwnerPartyIDs: *body.OwnerPartyIDs, AsOfRound: body.AsOfRound,
	}
	if m := body.RecordTimeMatch; m != nil {
		if *m != "exact" && *m != "at_or_before" {
			return req, badRequest("Failed to decode: record_time_match must be \"exact\" or \"at_or_before\", not %s", fault.Quote(*m))
		}
		req.RecordTimeMatch = *m
	}
	return req, nil
}

// proxyHoldingsSummaryV0 answers with the Scans' v0 holdings summary.
func (h *Handler) proxyHoldingsSummaryV0(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeHoldingsSummary(r)
	if err != nil {
		return err
	}
	return writeSummary(w, func() (json.RawMessage, error) { return h.proxy.HoldingsSummary(r.Context(), req) })
}

// proxyHoldingsSummaryV1 answers with the Scans' v1 holdings summary.
func (h *Handler) proxyHoldingsSummaryV1(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeHoldingsSummary(r)
	if err != nil {
		return err
	}
	return writeSummary(w, func() (json.RawMessage, error) { return h.proxy.HoldingsSummaryV1(r.Context(), req) })
}

// writeSummary serves the Scans' summary as it came. A Scan's 404 (no
// such snapshot) is Splice's validator's own 404, whose message does not
// pass the Scan's on; other refusals pass through.
func writeSummary(w http.ResponseWriter, read func() (json.RawMessage, error)) error {
	raw, err := read()
	if fault.Is(err, fault.NotFound) {
		return fault.New(fault.NotFound, "Summary not found for given parameters")
	}
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, raw)
	return nil
}
