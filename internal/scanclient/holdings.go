package scanclient

import (
	"context"
	"encoding/json"
	"net/http"
)

// HoldingsSummaryRequest is the body of the Scan's POST
// /v0/holdings/summary and /v1/holdings/summary (which ignores
// AsOfRound).
type HoldingsSummaryRequest struct {
	MigrationID     int64    `json:"migration_id"`
	RecordTime      string   `json:"record_time"`
	RecordTimeMatch string   `json:"record_time_match,omitempty"`
	OwnerPartyIDs   []string `json:"owner_party_ids"`
	AsOfRound       *int64   `json:"as_of_round,omitempty"`
}

// HoldingsSummary returns the Scan's answer to POST /v0/holdings/summary
// as f+1 of the Scans agree on it, undecoded, so that a scan-proxy serves
// it unchanged. The Scan's refusals (400, 404) come back as its faults.
func (c *Client) HoldingsSummary(ctx context.Context, req HoldingsSummaryRequest) (json.RawMessage, error) {
	return c.holdingsSummary(ctx, "/v0/holdings/summary", req)
}

// HoldingsSummaryV1 is HoldingsSummary for POST /v1/holdings/summary,
// without holding fees; req.AsOfRound is not sent.
func (c *Client) HoldingsSummaryV1(ctx context.Context, req HoldingsSummaryRequest) (json.RawMessage, error) {
	req.AsOfRound = nil
	return c.holdingsSummary(ctx, "/v1/holdings/summary", req)
}

func (c *Client) holdingsSummary(ctx context.Context, path string, req HoldingsSummaryRequest) (json.RawMessage, error) {
	if req.OwnerPartyIDs == nil {
		req.OwnerPartyIDs = []string{}
	}
	return bft(ctx, c, "holdings summary", func(ctx context.Context, base string) (json.RawMessage, error) {
		var resp json.RawMessage
		err := c.call(ctx, base, http.MethodPost, path, nil, req, &resp)
		return resp, err
	})
}
