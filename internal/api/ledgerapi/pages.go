package ledgerapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The paged reads Canton 3.5 added beside the lists: a page of the active
// contracts at an offset (POST /v2/state/active-contracts-page) and a page
// of the updates between two offsets (POST /v2/updates/get-updates-page).
// Each page is read and rendered as the lists read and render theirs
// (the snapshot of the active contracts list, the updates list's reader
// and projector), and comes with an opaque token for the next page. A
// token holds where the next page starts, bound to the participant and to
// the request it came from: one used with other parameters, or on another
// participant, is refused, as Canton refuses it.

// Canton's page limits and codes.
const (
	// maxACSPageSize and defaultACSPageSize are Canton's defaults for
	// GetActiveContractsPage.
	maxACSPageSize     = 10000
	defaultACSPageSize = 500
	// maxUpdatesPageSize and defaultUpdatesPageSize are Canton's defaults
	// for GetUpdatesPage.
	maxUpdatesPageSize     = 2000
	defaultUpdatesPageSize = 100

	codeInvalidACSPageToken     = "INVALID_ACS_PAGE_TOKEN"
	codeInvalidUpdatesPageToken = "INVALID_UPDATES_PAGE_TOKEN"
	pageTokenVersion            = 1
)

// The responses of the paged reads.
type (
	JsGetActiveContractsPageResponse struct {
		ActiveContracts []json.RawMessage `json:"activeContracts"`
		ActiveAtOffset  int64             `json:"activeAtOffset"`
		NextPageToken   *string           `json:"nextPageToken"`
	}
	JsGetUpdatesPageResponse struct {
		Updates                    []JsGetUpdateResponse `json:"updates"`
		LowestPageOffsetExclusive  int64                 `json:"lowestPageOffsetExclusive"`
		HighestPageOffsetInclusive int64                 `json:"highestPageOffsetInclusive"`
		NextPageToken              *string               `json:"nextPageToken"`
	}
)

// pageToken is the content of a page token: the version, checksums of
// the participant and of the request, and the position of the next page
// (ActiveAt, Offset and Node for the active contracts; Low and High for
// the updates).
type pageTokenData struct {
	Version     int    `json:"v"`
	Participant string `json:"p"`
	Request     string `json:"r"`
	ActiveAt    int64  `json:"at,omitempty"`
	Offset      int64  `json:"o,omitempty"`
	Node        int32  `json:"n,omitempty"`
	Low         int64  `json:"lo,omitempty"`
	High        int64  `json:"hi,omitempty"`
}

// checksum is a short digest of parts, for a token to name what it
// belongs to.
func checksum(parts ...any) string {
	b, err := json.Marshal(parts)
	if err != nil {
		panic(err) // numbers, strings and the decoded formats always encode
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

func (h *Handler) participantChecksum() string { return checksum("participant", h.cfg.Participant) }

func encodePageToken(t pageTokenData) string {
	b, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// decodePageToken reads a page token and checks that it is this
// participant's and this request's; reject builds the refusal with
// Canton's reason.
func (h *Handler) decodePageToken(token, request, what string, reject func(reason string) error) (pageTokenData, error) {
	var t pageTokenData
	b, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		return t, undecodable("Invalid value for: body (the page token is not base64 at 'pageToken')")
	}
	if err := json.Unmarshal(b, &t); err != nil || t.Participant == "" {
		return t, invalidField("page_token", "Invalid page token for %s", what)
	}
	switch {
	case t.Version != pageTokenVersion:
		return t, reject("The page token was prepared with different page API version.")
	case t.Participant != h.participantChecksum():
		return t, reject("The page token was prepared by a different participant.")
	case t.Request != request:
		return t, reject("The page token was prepared with different request parameters.")
	}
	return t, nil
}

// checkPageSize validates a requested page size as Canton does: absent is
// the default, and it must be positive and at most the limit.
func checkPageSize(size *int64, limit, def int) (int, error) {
	switch {
	case size == nil:
		return def, nil
	case *size <= 0:
		return 0, invalidArgument("Requested page size must be positive, but got %d", *size)
	case *size > int64(limit):
		return 0, invalidArgument("Requested page size must not exceed %d, but got %d", limit, *size)
	}
	return int(*size), nil
}

// optionalInt64 reads an optional int64 member.
func (d *decoder) optionalInt64(obj map[string]any, name string) *int64 {
	if v, ok := d.int64Member("", obj, name); ok {
		return &v
	}
	return nil
}

// optionalInt32 reads an optional int32 member.
func (d *decoder) optionalInt32(obj map[string]any, name string) *int64 {
	v := d.optionalInt64(obj, name)
	if v != nil && (*v < -1<<31 || *v >= 1<<31) {
		d.fail(name, "expected an int32, got %d", *v)
	}
	return v
}

// getActiveContractsPageRequest is GetActiveContractsPageRequest.
type getActiveContractsPageRequest struct {
	ActiveAtOffset *int64
	EventFormat    *eventFormat
	MaxPageSize    *int64
	PageToken      string
}

// POST /v2/state/active-contracts-page (and its deprecated GET with a
// body): a page of the active contracts at activeAtOffset (the ledger end
// when absent), in the snapshot's order, at most maxPageSize of them.
func (h *Handler) activeContractsPage(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "GetActiveContractsPageRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	req := getActiveContractsPageRequest{}
	req.ActiveAtOffset = d.optionalInt64(obj, "activeAtOffset")
	if f, ok := d.member("", obj, "eventFormat"); ok {
		req.EventFormat = d.eventFormat("eventFormat", f, true)
	}
	req.MaxPageSize = d.optionalInt32(obj, "maxPageSize")
	req.PageToken, _ = d.stringMember("", obj, "pageToken")
	if d.err != nil {
		return d.err
	}
	var uf *updateFormat
	if req.EventFormat != nil {
		uf = &updateFormat{Transactions: &transactionFormat{EventFormat: req.EventFormat, Shape: shapeACSDelta}}
	}
	if err := h.authorizeLookup(r, uf); err != nil {
		return err
	}
	if req.EventFormat == nil {
		return missingField("event_format")
	}
	sel, err := compileSelector(req.EventFormat)
	if err != nil {
		return err
	}
	size, err := checkPageSize(req.MaxPageSize, maxACSPageSize, defaultACSPageSize)
	if err != nil {
		return err
	}
	var from *pageTokenData
	if req.PageToken != "" {
		t, err := h.decodePageToken(req.PageToken, checksum("acs", req.ActiveAtOffset, req.EventFormat), "GetActiveContractsPageRequest", func(reason string) error {
			return fault.WithCode(fault.InvalidArgument, codeInvalidACSPageToken,
				"The submitted command contains an invalid page token. Tokens used in ACS requests must be taken from a valid "+
					"GetActiveContractsPageResponse and used with the same EventFormat settings, with the same Canton participant "+
					"running the same Canton version. %s", reason)
		})
		if err != nil {
			return err
		}
		from = &t
	}
	if req.ActiveAtOffset != nil && *req.ActiveAtOffset < 0 {
		return fault.WithCode(fault.InvalidArgument, codeNegativeOffset,
			"Offset %d in active_at_offset is a negative integer: the offset in active_at_offset field has to be a non-negative integer (>=0)", *req.ActiveAtOffset)
	}
	ctx := r.Context()
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return err
	}
	end := head.Offsets[h.cfg.Participant]
	at := end
	switch {
	case from != nil:
		at = ledger.Offset(from.ActiveAt)
	case req.ActiveAtOffset != nil:
		at = ledger.Offset(*req.ActiveAtOffset)
	}
	if at > end {
		return fault.WithCode(fault.OutOfRange, codeOffsetAfterLedgerEnd, "Active contracts offset (%d) is after ledger end (%d)", at, end)
	}
	plan := &updatePlan{end: at, transactions: sel, shape: acsDelta}
	if err := plan.resolve(h.cfg.Registry); err != nil {
		return err
	}
	if pruned := head.Pruned[h.cfg.Participant]; at < pruned {
		return acsPruned(at, pruned)
	}
	snap, err := h.activeContracts(ctx, &acsQuery{plan: plan, at: at})
	if err != nil {
		return err
	}
	resp := JsGetActiveContractsPageResponse{ActiveContracts: []json.RawMessage{}, ActiveAtOffset: int64(at)}
	for _, a := range snap.entries {
		if a == nil || from != nil && (int64(a.offset) < from.Offset || int64(a.offset) == from.Offset && a.node < from.Node) {
			continue
		}
		if len(resp.ActiveContracts) == size {
			// The next page starts at this contract.
			t := encodePageToken(pageTokenData{
				Version: pageTokenVersion, Participant: h.participantChecksum(),
				Request:  checksum("acs", req.ActiveAtOffset, req.EventFormat),
				ActiveAt: int64(at), Offset: int64(a.offset), Node: a.node,
			})
			resp.NextPageToken = &t
			break
		}
		b, err := snap.render(a)
		if err != nil {
			return err
		}
		resp.ActiveContracts = append(resp.ActiveContracts, b)
	}
	return writeJSON(w, resp)
}

// getUpdatesPageRequest is GetUpdatesPageRequest.
type getUpdatesPageRequest struct {
	Begin, End  *int64
	MaxPageSize *int64
	Format      *updateFormat
	Descending  bool
	PageToken   string
}

// checksum binds a token to the request's parameters.
func (req *getUpdatesPageRequest) checksum() string {
	return checksum("updates", req.Begin, req.End, req.MaxPageSize, req.Format, req.Descending)
}

// POST /v2/updates/get-updates-page: a page of at most maxPageSize
// updates of (beginOffsetExclusive, endOffsetInclusive] as updateFormat
// shows them, in either order, as Canton pages them:
//
//   - ascending, a page that is full ends just before the first update of
//     the next page (highestPageOffsetInclusive), and its token continues
//     from there; the last page ends at endOffsetInclusive, or without one
//     at the ledger end read for the request, and then carries a token
//     too, to poll for what comes next;
//   - descending, from endOffsetInclusive (or the ledger end) down: a
//     full page's lowestPageOffsetExclusive is the offset of the next
//     page's first update, and the last page has no token.
//
// A lower bound of 0 or none starts at the pruned offset; one below it
// is refused as PARTICIPANT_PRUNED_DATA_ACCESSED.
func (h *Handler) updatesPage(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "GetUpdatesPageRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	req := &getUpdatesPageRequest{}
	req.Begin = d.optionalInt64(obj, "beginOffsetExclusive")
	req.End = d.optionalInt64(obj, "endOffsetInclusive")
	req.MaxPageSize = d.optionalInt32(obj, "maxPageSize")
	if u, ok := d.member("", obj, "updateFormat"); ok {
		req.Format = d.updateFormat("updateFormat", u)
	}
	req.Descending, _ = d.boolMember("", obj, "descendingOrder")
	req.PageToken, _ = d.stringMember("", obj, "pageToken")
	if d.err != nil {
		return d.err
	}
	if err := h.authorizeLookup(r, req.Format); err != nil {
		return err
	}
	var token *pageTokenData
	if req.PageToken != "" {
		t, err := h.decodePageToken(req.PageToken, req.checksum(), "GetUpdatesPageRequest", func(reason string) error {
			return fault.WithCode(fault.InvalidArgument, codeInvalidUpdatesPageToken,
				"The submitted command contains an invalid page token. Tokens used in GetUpdatesPage requests must "+
					"be taken from a valid GetUpdatesPageResponse and used with the same EventFormat settings, the same "+
					"begin and end with the same Canton participant running the same Canton version. %s", reason)
		})
		if err != nil {
			return err
		}
		token = &t
	}
	if req.End != nil && *req.End <= 0 {
		return fault.WithCode(fault.InvalidArgument, codeNonPositiveOffset,
			"Offset %d in endOffsetInclusive is not a positive integer: the offset has to be a positive integer (>0)", *req.End)
	}
	if req.Begin != nil && *req.Begin < 0 {
		return fault.WithCode(fault.InvalidArgument, codeNegativeOffset,
			"Offset %d in beginOffsetExclusive is a negative integer: the offset in beginOffsetExclusive field has to be a non-negative integer (>=0)", *req.Begin)
	}
	size, err := checkPageSize(req.MaxPageSize, maxUpdatesPageSize, defaultUpdatesPageSize)
	if err != nil {
		return err
	}
	ctx := r.Context()
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return err
	}
	ledgerEnd := head.Offsets[h.cfg.Participant]
	if req.End != nil && ledger.Offset(*req.End) > ledgerEnd {
		return fault.WithCode(fault.OutOfRange, codeOffsetAfterLedgerEnd, "endOffsetInclusive offset (%d) is after ledger end (%d)", *req.End, ledgerEnd)
	}
	if req.Begin != nil && req.End != nil && *req.Begin > *req.End {
		return invalidArgument("beginOffsetExclusive is after endOffsetInclusive")
	}
	if req.Format == nil {
		return missingField("update_format")
	}
	plan := &updatePlan{descending: req.Descending}
	if err := plan.compileFormat(req.Format); err != nil {
		return err
	}
	// Where the page continues from: ascending, after the token's upper
	// bound; descending, down from its lower bound.
	var continueFrom ledger.Offset
	if token != nil {
		if req.Descending {
			if token.Low == 0 {
				return fault.WithCode(fault.InvalidArgument, codeInvalidUpdatesPageToken, "Page token not from descendingOrder=true request")
			}
			continueFrom = ledger.Offset(token.Low)
		} else {
			if req.End != nil && token.High >= *req.End {
				return fault.WithCode(fault.InvalidArgument, codeInvalidUpdatesPageToken, "Page token not from descendingOrder=false request")
			}
			continueFrom = ledger.Offset(token.High + 1)
		}
	}
	if err := plan.resolve(h.cfg.Registry); err != nil {
		return err
	}
	pruned := head.Pruned[h.cfg.Participant]
	explicitBegin := req.Begin != nil && *req.Begin > 0
	begin := pruned
	if explicitBegin {
		begin = ledger.Offset(*req.Begin)
	}
	end := ledgerEnd
	if req.End != nil {
		end = ledger.Offset(*req.End)
	}
	after, until := begin, end
	if token != nil {
		if req.Descending {
			until = continueFrom
		} else {
			after = continueFrom - 1
		}
	}
	// A first page without a lower bound starts at the pruned offset; any
	// other read below it is refused.
	if (explicitBegin || token != nil) && after < pruned {
		return updatesPruned(after, until, pruned)
	}
	after = max(after, pruned)
	items, err := h.readPage(ctx, plan, after, until, size+1)
	if err != nil {
		return err
	}
	resp := JsGetUpdatesPageResponse{Updates: []JsGetUpdateResponse{}}
	full := len(items) > size
	for _, it := range items[:min(len(items), size)] {
		resp.Updates = append(resp.Updates, JsGetUpdateResponse{Update: it.update})
	}
	next := pageTokenData{Version: pageTokenVersion, Participant: h.participantChecksum(), Request: req.checksum()}
	if req.Descending {
		resp.LowestPageOffsetExclusive, resp.HighestPageOffsetInclusive = int64(after), int64(until)
		if full {
			resp.LowestPageOffsetExclusive = int64(items[size].offset)
			next.Low, next.High = resp.LowestPageOffsetExclusive, resp.HighestPageOffsetInclusive
			t := encodePageToken(next)
			resp.NextPageToken = &t
		}
	} else {
		resp.LowestPageOffsetExclusive, resp.HighestPageOffsetInclusive = int64(after), int64(until)
		if full {
			resp.HighestPageOffsetInclusive = int64(items[size].offset) - 1
		}
		if full || req.End == nil {
			next.Low, next.High = resp.LowestPageOffsetExclusive, resp.HighestPageOffsetInclusive
			t := encodePageToken(next)
			resp.NextPageToken = &t
		}
	}
	return writeJSON(w, resp)
}

// pageItem is an update of a page and its offset.
type pageItem struct {
	offset ledger.Offset
	update Update
}

// readPage reads the updates of (after, until] that plan selects, in the
// plan's order, at most take of them.
func (h *Handler) readPage(ctx context.Context, plan *updatePlan, after, until ledger.Offset, take int) ([]pageItem, error) {
	var items []pageItem
	if until <= after {
		return items, nil
	}
	l := &lister{h: h, plan: plan, take: take}
	pr := l.projector()
	err := l.pages(ctx, after, until, plan.descending, func(u *ledger.ParticipantUpdate) (bool, error) {
		upd, ok, err := pr.update(u)
		if err != nil {
			return false, err
		}
		if ok {
			items = append(items, pageItem{u.Offset, upd})
		}
		return len(items) < take, nil
	})
	return items, err
}
