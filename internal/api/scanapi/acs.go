package scanapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/scan"
)

// SnapshotTimestampResponse names a snapshot by its record time.
type SnapshotTimestampResponse struct {
	RecordTime string `json:"record_time"`
}

// snapshotQuery reads the required time parameter and migration_id.
func snapshotQuery(r *http.Request, timeParam string) (daml.Timestamp, int64, error) {
	q := r.URL.Query()
	if !q.Has(timeParam) {
		return 0, 0, badRequest("Missing required query parameter %q", timeParam)
	}
	if !q.Has("migration_id") {
		return 0, 0, badRequest("Missing required query parameter %q", "migration_id")
	}
	t, err := daml.ParseTimestamp(q.Get(timeParam))
	if err != nil {
		return 0, 0, badRequest("Invalid value for query parameter %q: %s", timeParam, err)
	}
	m, err := strconv.ParseInt(q.Get("migration_id"), 10, 64)
	if err != nil {
		return 0, 0, badRequest("Invalid value for query parameter %q: %s is not an integer", "migration_id", fault.Quote(q.Get("migration_id")))
	}
	return t, m, nil
}

func (h *Handler) snapshotTimestamp(w http.ResponseWriter, r *http.Request) error {
	before, migration, err := snapshotQuery(r, "before")
	if err != nil {
		return err
	}
	t, err := h.svc.SnapshotTimestamp(r.Context(), migration, before)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, SnapshotTimestampResponse{RecordTime: t.String()})
	return nil
}

func (h *Handler) snapshotTimestampAfter(w http.ResponseWriter, r *http.Request) error {
	after, migration, err := snapshotQuery(r, "after")
	if err != nil {
		return err
	}
	snap, err := h.svc.SnapshotTimestampAfter(r.Context(), migration, after)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, SnapshotTimestampResponse{RecordTime: snap.RecordTime.String()})
	return nil
}

// AcsRequest is the body of POST /v0/state/acs and /v1/state/acs, whose
// page token is a row number.
type AcsRequest struct {
	MigrationID     *int64   `json:"migration_id"`
	RecordTime      *string  `json:"record_time"`
	RecordTimeMatch *string  `json:"record_time_match,omitempty"`
	After           *int64   `json:"after,omitempty"`
	PageSize        *int64   `json:"page_size"`
	PartyIDs        []string `json:"party_ids,omitempty"`
	Templates       []string `json:"templates,omitempty"`
}

// AcsRequestV2 is the body of POST /v2/state/acs, whose page token is an
// opaque string.
type AcsRequestV2 struct {
	MigrationID     *int64   `json:"migration_id"`
	RecordTime      *string  `json:"record_time"`
	RecordTimeMatch *string  `json:"record_time_match,omitempty"`
	After           *string  `json:"after,omitempty"`
	PageSize        *int64   `json:"page_size"`
	PartyIDs        []string `json:"party_ids,omitempty"`
	Templates       []string `json:"templates,omitempty"`
}

// acsCommon turns the fields the ACS versions share into a request.
func acsCommon(migration *int64, recordTime, match *string, pageSize *int64, partyIDs, templates []string) (scan.AcsRequest, error) {
	var req scan.AcsRequest
	switch {
	case migration == nil:
		return req, missing("migration_id")
	case recordTime == nil:
		return req, missing("record_time")
	case pageSize == nil:
		return req, missing("page_size")
	}
	if err := scan.CheckLimit(*pageSize); err != nil {
		return req, err
	}
	t, err := parseTime("record_time", *recordTime)
	if err != nil {
		return req, err
	}
	req = scan.AcsRequest{Migration: *migration, RecordTime: t, PageSize: *pageSize}
	if req.AtOrBefore, err = atOrBefore(match); err != nil {
		return req, err
	}
	for _, p := range partyIDs {
		req.Parties = append(req.Parties, daml.Party(p))
	}
	for _, s := range templates {
		k, err := scan.ParseTemplateKey(s)
		if err != nil {
			return req, err
		}
		req.Templates = append(req.Templates, k)
	}
	return req, nil
}

// atOrBefore reads record_time_match: absent or "exact" asks for the
// snapshot at record_time, "at_or_before" for the latest one up to it.
func atOrBefore(match *string) (bool, error) {
	if match == nil {
		return false, nil
	}
	switch *match {
	case "exact":
		return false, nil
	case "at_or_before":
		return true, nil
	}
	return false, badRequest("Failed to decode: record_time_match must be \"exact\" or \"at_or_before\", not %s", fault.Quote(*match))
}

func decodeAcs(r *http.Request) (scan.AcsRequest, error) {
	var body AcsRequest
	if err := web.DecodeJSON(r, &body); err != nil {
		return scan.AcsRequest{}, err
	}
	req, err := acsCommon(body.MigrationID, body.RecordTime, body.RecordTimeMatch, body.PageSize, body.PartyIDs, body.Templates)
	if err != nil {
		return req, err
	}
	if body.After != nil {
		if *body.After <= 0 {
			return req, badRequest("Invalid after token, it must be positive: %d", *body.After)
		}
		req.After = *body.After
	}
	return req, nil
}

func decodeAcsV2(r *http.Request) (scan.AcsRequest, error) {
	var body AcsRequestV2
	if err := web.DecodeJSON(r, &body); err != nil {
		return scan.AcsRequest{}, err
	}
	req, err := acsCommon(body.MigrationID, body.RecordTime, body.RecordTimeMatch, body.PageSize, body.PartyIDs, body.Templates)
	if err != nil {
		return req, err
	}
	if body.After != nil {
		pos, err := scan.ParsePageToken(*body.After)
		if err != nil {
			return req, err
		}
		req.Resume = &pos
	}
	return req, nil
}

// AcsResponse is a page of the v0 ACS: created events.
type AcsResponse struct {
	RecordTime    string          `json:"record_time"`
	MigrationID   int64           `json:"migration_id"`
	CreatedEvents []*CreatedEvent `json:"created_events"`
	NextPageToken *int64          `json:"next_page_token,omitempty"`
}

// AcsResponseV1 is a page of the v1 ACS.
type AcsResponseV1 struct {
	RecordTime    string            `json:"record_time"`
	MigrationID   int64             `json:"migration_id"`
	CreatedEvents []*ActiveContract `json:"created_events"`
	NextPageToken *int64            `json:"next_page_token,omitempty"`
}

// AcsResponseV2 is a page of the v2 ACS, with an opaque page token.
type AcsResponseV2 struct {
	RecordTime    string            `json:"record_time"`
	MigrationID   int64             `json:"migration_id"`
	CreatedEvents []*ActiveContract `json:"created_events"`
	NextPageToken string            `json:"next_page_token,omitempty"`
}

func (h *Handler) acsV0(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeAcs(r)
	if err != nil {
		return err
	}
	page, err := h.svc.Acs(r.Context(), req)
	if err != nil {
		return err
	}
	return h.writeAcsV0(w, r, page)
}

// writeAcsV0 answers with a page of a snapshot in v0's shape (the holdings
// state's too).
func (h *Handler) writeAcsV0(w http.ResponseWriter, r *http.Request, page scan.AcsPage) error {
	out := AcsResponse{RecordTime: page.Snapshot.RecordTime.String(), MigrationID: page.Snapshot.Migration, CreatedEvents: []*CreatedEvent{}}
	nodes := map[string]map[daml.ContractID]int32{}
	for _, row := range page.Rows {
		id, err := h.v0EventID(r.Context(), row, nodes)
		if err != nil {
			return err
		}
		ev, err := createdEvent(row.Contract, id, daml.CompactJSON)
		if err != nil {
			return err
		}
		out.CreatedEvents = append(out.CreatedEvents, ev)
	}
	if page.Next != 0 {
		out.NextPageToken = &page.Next
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

// v0EventID returns the v0 event id of a contract's create,
// "#<update_id>:<node>" with the participant's node id, reading the
// creating update (once per update of a page). Imported contracts have
// their import update, whose one create is node 0.
func (h *Handler) v0EventID(ctx context.Context, row scan.SnapshotRow, nodes map[string]map[daml.ContractID]int32) (string, error) {
	c := row.Contract
	if row.Imported || c.CreatedBy == "" {
		return "#" + string(c.ID) + ":0", nil
	}
	byCid, ok := nodes[c.CreatedBy]
	if !ok {
		byCid = map[daml.ContractID]int32{}
		u, err := h.svc.Update(ctx, c.CreatedBy)
		if err != nil && !fault.Is(err, fault.NotFound) {
			return "", err
		}
		if u != nil && u.Transaction != nil {
			for i := range u.Transaction.Events {
				if e := &u.Transaction.Events[i]; e.Created != nil {
					byCid[e.Created.ID] = e.NodeID
				}
			}
		}
		nodes[c.CreatedBy] = byCid
	}
	return "#" + c.CreatedBy + ":" + strconv.Itoa(int(byCid[c.ID])), nil
}

func activeContracts(page scan.AcsPage) ([]*ActiveContract, error) {
	out := make([]*ActiveContract, 0, len(page.Rows))
	for _, row := range page.Rows {
		ac, err := activeContract(row)
		if err != nil {
			return nil, err
		}
		out = append(out, ac)
	}
	return out, nil
}

func (h *Handler) acsV1(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeAcs(r)
	if err != nil {
		return err
	}
	page, err := h.svc.Acs(r.Context(), req)
	if err != nil {
		return err
	}
	return writeAcsV1(w, page)
}

// writeAcsV1 answers with a page of a snapshot in v1's shape (the holdings
// state's too).
func writeAcsV1(w http.ResponseWriter, page scan.AcsPage) error {
	events, err := activeContracts(page)
	if err != nil {
		return err
	}
	out := AcsResponseV1{RecordTime: page.Snapshot.RecordTime.String(), MigrationID: page.Snapshot.Migration, CreatedEvents: events}
	if page.Next != 0 {
		out.NextPageToken = &page.Next
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) acsV2(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeAcsV2(r)
	if err != nil {
		return err
	}
	page, err := h.svc.Acs(r.Context(), req)
	if err != nil {
		return err
	}
	events, err := activeContracts(page)
	if err != nil {
		return err
	}
	out := AcsResponseV2{RecordTime: req.RecordTime.String(), MigrationID: req.Migration, CreatedEvents: events}
	if page.Next != 0 {
		out.NextPageToken = scan.PageToken(page.Snapshot, page.Next)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}
