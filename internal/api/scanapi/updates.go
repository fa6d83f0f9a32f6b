package scanapi

import (
	"errors"
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// UpdateHistoryRequest is the body of POST /v1/updates and /v2/updates.
type UpdateHistoryRequest struct {
	After             *UpdateHistoryRequestAfter `json:"after,omitempty"`
	PageSize          *int64                     `json:"page_size"`
	DamlValueEncoding *string                    `json:"daml_value_encoding,omitempty"`
}

// UpdateHistoryRequestAfter is the position a history page starts after.
type UpdateHistoryRequestAfter struct {
	AfterMigrationID *int64  `json:"after_migration_id"`
	AfterRecordTime  *string `json:"after_record_time"`
}

// UpdateHistoryResponse is a page of the update history.
type UpdateHistoryResponse struct {
	// Each item is an *UpdateItem or a *ReassignmentItem.
	Transactions []any `json:"transactions"`
}

// decodeHistoryRequest reads and checks a v1/v2 history request.
func decodeHistoryRequest(r *http.Request) (after *scan.HistoryPosition, pageSize int64, codec daml.Codec, err error) {
	var req UpdateHistoryRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return nil, 0, nil, err
	}
	if req.PageSize == nil {
		return nil, 0, nil, missing("page_size")
	}
	if err := scan.CheckLimit(*req.PageSize); err != nil {
		return nil, 0, nil, err
	}
	if codec, err = valueEncoding(req.DamlValueEncoding); err != nil {
		return nil, 0, nil, err
	}
	if a := req.After; a != nil {
		if a.AfterMigrationID == nil {
			return nil, 0, nil, missing("after.after_migration_id")
		}
		if a.AfterRecordTime == nil {
			return nil, 0, nil, missing("after.after_record_time")
		}
		t, err := daml.ParseTimestamp(*a.AfterRecordTime)
		if err != nil {
			return nil, 0, nil, badRequest("Invalid timestamp %s: %v", fault.Quote(*a.AfterRecordTime), errors.Unwrap(err))
		}
		after = &scan.HistoryPosition{Migration: *a.AfterMigrationID, RecordTime: t}
	}
	return after, *req.PageSize, codec, nil
}

// missing is the 400 of a required field left out.
func missing(field string) error {
	return badRequest("Failed to decode: missing required field %q", field)
}

// valueEncoding reads daml_value_encoding (compact_json by default).
func valueEncoding(name *string) (daml.Codec, error) {
	if name == nil {
		return daml.CompactJSON, nil
	}
	switch *name {
	case "compact_json", "protobuf_json":
		c, _ := daml.CodecByName(*name)
		return c, nil
	}
	return nil, badRequest("Failed to decode: daml_value_encoding must be \"compact_json\" or \"protobuf_json\", not %s", fault.Quote(*name))
}

func (h *Handler) updates(w http.ResponseWriter, r *http.Request, v historyVersion) error {
	after, pageSize, codec, err := decodeHistoryRequest(r)
	if err != nil {
		return err
	}
	ups, err := h.svc.History(r.Context(), after, pageSize, false)
	if err != nil {
		return err
	}
	return writeItems(w, ups, v, codec)
}

func writeItems(w http.ResponseWriter, ups []scan.Update, v historyVersion, codec daml.Codec) error {
	out := UpdateHistoryResponse{Transactions: make([]any, 0, len(ups))}
	for i := range ups {
		item, err := renderUpdate(&ups[i], v, codec)
		if err != nil {
			return err
		}
		out.Transactions = append(out.Transactions, item)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) updatesV1(w http.ResponseWriter, r *http.Request) error {
	return h.updates(w, r, historyV1)
}

func (h *Handler) updatesV2(w http.ResponseWriter, r *http.Request) error {
	return h.updates(w, r, historyV2)
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request, v historyVersion) error {
	var enc *string
	if q := r.URL.Query(); q.Has("daml_value_encoding") {
		s := q.Get("daml_value_encoding")
		enc = &s
	}
	codec, err := valueEncoding(enc)
	if err != nil {
		return err
	}
	u, err := h.svc.Update(r.Context(), r.PathValue("update_id"))
	if err != nil {
		return err
	}
	item, err := renderUpdate(u, v, codec)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, item)
	return nil
}

func (h *Handler) updateV1(w http.ResponseWriter, r *http.Request) error {
	return h.update(w, r, historyV1)
}

func (h *Handler) updateV2(w http.ResponseWriter, r *http.Request) error {
	return h.update(w, r, historyV2)
}

// UpdatesBeforeRequest is the body of POST /v0/backfilling/updates-before.
type UpdatesBeforeRequest struct {
	MigrationID    *int64  `json:"migration_id"`
	SynchronizerID *string `json:"synchronizer_id"`
	Before         *string `json:"before"`
	AtOrAfter      *string `json:"at_or_after,omitempty"`
	Count          *int64  `json:"count"`
}

func parseTime(field, s string) (daml.Timestamp, error) {
	t, err := daml.ParseTimestamp(s)
	if err != nil {
		return 0, badRequest("Failed to decode: %s: %s", field, err)
	}
	return t, nil
}

func (h *Handler) updatesBefore(w http.ResponseWriter, r *http.Request) error {
	var req UpdatesBeforeRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.MigrationID == nil:
		return missing("migration_id")
	case req.SynchronizerID == nil:
		return missing("synchronizer_id")
	case req.Before == nil:
		return missing("before")
	case req.Count == nil:
		return missing("count")
	}
	if err := scan.CheckLimit(*req.Count); err != nil {
		return err
	}
	q := scan.BeforeQuery{Migration: *req.MigrationID, Synchronizer: ledger.SynchronizerID(*req.SynchronizerID), Limit: int(*req.Count)}
	var err error
	if q.Before, err = parseTime("before", *req.Before); err != nil {
		return err
	}
	if req.AtOrAfter != nil {
		t, err := parseTime("at_or_after", *req.AtOrAfter)
		if err != nil {
			return err
		}
		q.AtOrAfter = &t
	}
	ups, err := h.svc.UpdatesBefore(r.Context(), q)
	if err != nil {
		return err
	}
	return writeItems(w, ups, historyV1, daml.ProtobufJSON)
}

// BackfillingStatusResponse says whether the history is complete.
type BackfillingStatusResponse struct {
	Complete bool `json:"complete"`
}

func (h *Handler) backfillingStatus(w http.ResponseWriter, r *http.Request) error {
	ok, err := h.svc.BackfillingComplete(r.Context())
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, BackfillingStatusResponse{Complete: ok})
	return nil
}

// MigrationInfoRequest is the body of POST /v0/backfilling/migration-info.
type MigrationInfoRequest struct {
	MigrationID *int64 `json:"migration_id"`
}

// RecordTimeRange is the record-time range of a synchronizer's updates.
type RecordTimeRange struct {
	SynchronizerID string `json:"synchronizer_id"`
	Min            string `json:"min"`
	Max            string `json:"max"`
}

// MigrationInfoResponse is what the Scan holds of a migration.
type MigrationInfoResponse struct {
	PreviousMigrationID   *int64            `json:"previous_migration_id,omitempty"`
	RecordTimeRange       []RecordTimeRange `json:"record_time_range"`
	LastImportUpdateID    string            `json:"last_import_update_id,omitempty"`
	Complete              bool              `json:"complete"`
	ImportUpdatesComplete bool              `json:"import_updates_complete"`
}

func (h *Handler) migrationInfo(w http.ResponseWriter, r *http.Request) error {
	var req MigrationInfoRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.MigrationID == nil {
		return missing("migration_id")
	}
	info, err := h.svc.MigrationInfo(r.Context(), *req.MigrationID)
	if err != nil {
		return err
	}
	out := MigrationInfoResponse{
		PreviousMigrationID: info.Previous, RecordTimeRange: []RecordTimeRange{},
		LastImportUpdateID: info.LastImportUpdateID, Complete: info.Complete, ImportUpdatesComplete: info.ImportUpdatesComplete,
	}
	for _, rg := range info.Ranges {
		out.RecordTimeRange = append(out.RecordTimeRange, RecordTimeRange{
			SynchronizerID: string(rg.Synchronizer), Min: rg.Min.String(), Max: rg.Max.String(),
		})
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// ImportUpdatesRequest is the body of POST /v0/backfilling/import-updates.
type ImportUpdatesRequest struct {
	MigrationID   *int64  `json:"migration_id"`
	AfterUpdateID *string `json:"after_update_id"`
	Limit         *int64  `json:"limit"`
}

func (h *Handler) importUpdates(w http.ResponseWriter, r *http.Request) error {
	var req ImportUpdatesRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.MigrationID == nil:
		return missing("migration_id")
	case req.AfterUpdateID == nil:
		return missing("after_update_id")
	case req.Limit == nil:
		return missing("limit")
	}
	ups, err := h.svc.ImportUpdates(r.Context(), *req.MigrationID, *req.AfterUpdateID, *req.Limit)
	if err != nil {
		return err
	}
	return writeItems(w, ups, historyV1, daml.ProtobufJSON)
}
