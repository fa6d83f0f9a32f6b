package scanapi

import (
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/scan"
)

// HoldingsStateRequest is the body of POST /v0/holdings/state and
// /v1/holdings/state: an ACS request whose filter is the amulets' owners.
type HoldingsStateRequest struct {
	MigrationID     *int64    `json:"migration_id"`
	RecordTime      *string   `json:"record_time"`
	RecordTimeMatch *string   `json:"record_time_match,omitempty"`
	After           *int64    `json:"after,omitempty"`
	PageSize        *int64    `json:"page_size"`
	OwnerPartyIDs   *[]string `json:"owner_party_ids"`
}

// HoldingsSummaryRequest is the body of POST /v0/holdings/summary and
// /v1/holdings/summary (which has no as_of_round).
type HoldingsSummaryRequest struct {
	MigrationID     *int64    `json:"migration_id"`
	RecordTime      *string   `json:"record_time"`
	RecordTimeMatch *string   `json:"record_time_match,omitempty"`
	OwnerPartyIDs   *[]string `json:"owner_party_ids"`
	AsOfRound       *int64    `json:"as_of_round,omitempty"`
}

// decodeHoldingsState reads the body of a holdings/state request.
func decodeHoldingsState(r *http.Request) (scan.HoldingsRequest, error) {
	var body HoldingsStateRequest
	if err := web.DecodeJSON(r, &body); err != nil {
		return scan.HoldingsRequest{}, err
	}
	if body.OwnerPartyIDs == nil {
		return scan.HoldingsRequest{}, missing("owner_party_ids")
	}
	acs, err := acsCommon(body.MigrationID, body.RecordTime, body.RecordTimeMatch, body.PageSize, nil, nil)
	if err != nil {
		return scan.HoldingsRequest{}, err
	}
	req := scan.HoldingsRequest{
		Migration: acs.Migration, RecordTime: acs.RecordTime, AtOrBefore: acs.AtOrBefore,
		PageSize: acs.PageSize, Owners: ownerParties(*body.OwnerPartyIDs),
	}
	if body.After != nil {
		if *body.After <= 0 {
			return req, badRequest("Invalid after token, it must be positive: %d", *body.After)
		}
		req.After = *body.After
	}
	return req, nil
}

// decodeHoldingsSummary reads the body of a holdings/summary request;
// v0 computes holding fees (as_of_round is a v1 request's unknown field,
// ignored as other unknown fields are).
func decodeHoldingsSummary(r *http.Request, v0 bool) (scan.HoldingsSummaryRequest, error) {
	var body HoldingsSummaryRequest
	if err := web.DecodeJSON(r, &body); err != nil {
		return scan.HoldingsSummaryRequest{}, err
	}
	switch {
	case body.MigrationID == nil:
		return scan.HoldingsSummaryRequest{}, missing("migration_id")
	case body.RecordTime == nil:
		return scan.HoldingsSummaryRequest{}, missing("record_time")
	case body.OwnerPartyIDs == nil:
		return scan.HoldingsSummaryRequest{}, missing("owner_party_ids")
	}
	t, err := parseTime("record_time", *body.RecordTime)
	if err != nil {
		return scan.HoldingsSummaryRequest{}, err
	}
	req := scan.HoldingsSummaryRequest{Migration: *body.MigrationID, RecordTime: t, Owners: ownerParties(*body.OwnerPartyIDs), WithFees: v0}
	if req.AtOrBefore, err = atOrBefore(body.RecordTimeMatch); err != nil {
		return req, err
	}
	if v0 {
		req.AsOfRound = body.AsOfRound
	}
	return req, nil
}

func ownerParties(ids []string) []daml.Party {
	out := make([]daml.Party, len(ids))
	for i, p := range ids {
		out[i] = daml.Party(p)
	}
	return out
}

func (h *Handler) holdingsStateV0(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeHoldingsState(r)
	if err != nil {
		return err
	}
	page, err := h.svc.HoldingsState(r.Context(), req)
	if err != nil {
		return err
	}
	return h.writeAcsV0(w, r, page)
}

func (h *Handler) holdingsStateV1(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeHoldingsState(r)
	if err != nil {
		return err
	}
	page, err := h.svc.HoldingsState(r.Context(), req)
	if err != nil {
		return err
	}
	return writeAcsV1(w, page)
}

// HoldingsSummaryResponse is the answer of POST /v0/holdings/summary.
type HoldingsSummaryResponse struct {
	RecordTime        string            `json:"record_time"`
	MigrationID       int64             `json:"migration_id"`
	ComputedAsOfRound int64             `json:"computed_as_of_round"`
	Summaries         []HoldingsSummary `json:"summaries"`
}

// HoldingsSummary is one owner's totals with their holding fees.
type HoldingsSummary struct {
	PartyID                        string `json:"party_id"`
	TotalUnlockedCoin              string `json:"total_unlocked_coin"`
	TotalLockedCoin                string `json:"total_locked_coin"`
	TotalCoinHoldings              string `json:"total_coin_holdings"`
	AccumulatedHoldingFeesUnlocked string `json:"accumulated_holding_fees_unlocked"`
	AccumulatedHoldingFeesLocked   string `json:"accumulated_holding_fees_locked"`
	AccumulatedHoldingFeesTotal    string `json:"accumulated_holding_fees_total"`
	TotalAvailableCoin             string `json:"total_available_coin"`
}

// HoldingsSummaryResponseV1 is the answer of POST /v1/holdings/summary.
type HoldingsSummaryResponseV1 struct {
	RecordTime  string              `json:"record_time"`
	MigrationID int64               `json:"migration_id"`
	Summaries   []HoldingsSummaryV1 `json:"summaries"`
}

// HoldingsSummaryV1 is one owner's totals.
type HoldingsSummaryV1 struct {
	PartyID           string `json:"party_id"`
	TotalUnlockedCoin string `json:"total_unlocked_coin"`
	TotalLockedCoin   string `json:"total_locked_coin"`
	TotalCoinHoldings string `json:"total_coin_holdings"`
}

func (h *Handler) holdingsSummaryV0(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeHoldingsSummary(r, true)
	if err != nil {
		return err
	}
	res, err := h.svc.HoldingsSummary(r.Context(), req)
	if err != nil {
		return err
	}
	out := HoldingsSummaryResponse{
		RecordTime: res.Snapshot.RecordTime.String(), MigrationID: req.Migration, ComputedAsOfRound: res.AsOfRound,
		Summaries: make([]HoldingsSummary, 0, len(res.Summaries)),
	}
	for _, s := range res.Summaries {
		out.Summaries = append(out.Summaries, HoldingsSummary{
			PartyID:                        string(s.Party),
			TotalUnlockedCoin:              s.TotalUnlockedCoin.String(),
			TotalLockedCoin:                s.TotalLockedCoin.String(),
			TotalCoinHoldings:              s.TotalCoinHoldings.String(),
			AccumulatedHoldingFeesUnlocked: s.HoldingFeesUnlocked.String(),
			AccumulatedHoldingFeesLocked:   s.HoldingFeesLocked.String(),
			AccumulatedHoldingFeesTotal:    s.HoldingFeesTotal.String(),
			TotalAvailableCoin:             s.TotalAvailableCoin.String(),
		})
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) holdingsSummaryV1(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeHoldingsSummary(r, false)
	if err != nil {
		return err
	}
	res, err := h.svc.HoldingsSummary(r.Context(), req)
	if err != nil {
		return err
	}
	out := HoldingsSummaryResponseV1{
		RecordTime: res.Snapshot.RecordTime.String(), MigrationID: req.Migration,
		Summaries: make([]HoldingsSummaryV1, 0, len(res.Summaries)),
	}
	for _, s := range res.Summaries {
		out.Summaries = append(out.Summaries, HoldingsSummaryV1{
			PartyID:           string(s.Party),
			TotalUnlockedCoin: s.TotalUnlockedCoin.String(),
			TotalLockedCoin:   s.TotalLockedCoin.String(),
			TotalCoinHoldings: s.TotalCoinHoldings.String(),
		})
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}
