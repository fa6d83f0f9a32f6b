package ledgerapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Point lookups: an update by its id or by its offset in the participant's
// stream (and their deprecated transaction and transaction-tree twins), a
// contract's created and archived events, and a contract by its id. Each
// renders what it finds with the updates list's projector, through the
// request's format, so a lookup shows exactly what the list shows at that
// offset; an update (or a contract's events) the format selects nothing
// of is not found, as on Canton. Updates at or before the participant's
// pruned offset are not found either: Canton no longer has them.

// Canton's lookup error codes and resource kinds.
const (
	codeUpdateNotFound          = "UPDATE_NOT_FOUND"
	codeContractEventsNotFound  = "CONTRACT_EVENTS_NOT_FOUND"
	codeContractPayloadNotFound = "CONTRACT_PAYLOAD_NOT_FOUND"
	resourceUpdateID            = "UPDATE_ID"
	resourceOffset              = "OFFSET"
	resourceContractID          = "CONTRACT_ID"
)

// UpdateLookup is what the point lookups need of the ledger besides the
// update stream.
type UpdateLookup interface {
	// UpdateByID returns an update of a participant's stream by its id
	// (ledger.Store.UpdateByID).
	UpdateByID(ctx context.Context, p ledger.ParticipantID, updateID string) (*ledger.ParticipantUpdate, error)
	// Contract returns a contract, active or archived, and whether it is
	// active (ledger.Store.Contract).
	Contract(ctx context.Context, id daml.ContractID) (*ledger.Contract, bool, error)
	// ArchivedBy returns the update that archived a contract, "" while it
	// is active (ledger.Store.ArchivedBy).
	ArchivedBy(ctx context.Context, id daml.ContractID) (string, error)
}

func (l networkLedger) UpdateByID(ctx context.Context, p ledger.ParticipantID, updateID string) (*ledger.ParticipantUpdate, error) {
	return l.n.Store().UpdateByID(ctx, p, updateID)
}
func (l networkLedger) Contract(ctx context.Context, id daml.ContractID) (*ledger.Contract, bool, error) {
	return l.n.Store().Contract(ctx, id)
}
func (l networkLedger) ArchivedBy(ctx context.Context, id daml.ContractID) (string, error) {
	return l.n.Store().ArchivedBy(ctx, id)
}

// The responses of the lookups.
type (
	JsGetUpdateResponse struct {
		Update Update `json:"update"`
	}
	JsGetTransactionResponse struct {
		Transaction JsTransaction `json:"transaction"`
	}
	JsGetTransactionTreeResponse struct {
		Transaction JsTransactionTree `json:"transaction"`
	}
	JsGetEventsByContractIDResponse struct {
		Created  *JsCreated  `json:"created"`
		Archived *JsArchived `json:"archived"`
	}
	// JsCreated is a contract's creation and the synchronizer that
	// sequenced it.
	JsCreated struct {
		CreatedEvent   *CreatedEvent `json:"createdEvent"`
		SynchronizerID string        `json:"synchronizerId"`
	}
	// JsArchived is a contract's archival and the synchronizer of its
	// creation, which Canton names.
	JsArchived struct {
		ArchivedEvent  *ArchivedEvent `json:"archivedEvent"`
		SynchronizerID string         `json:"synchronizerId"`
	}
	GetContractResponse struct {
		CreatedEvent *CreatedEvent `json:"createdEvent"`
	}
)

func updateNotFoundByID(id string) *fault.Error {
	e := fault.WithCode(fault.NotFound, codeUpdateNotFound, "Update not found, or not visible.")
	e.Resources = [][2]string{{resourceUpdateID, id}}
	return e
}

func updateNotFoundAt(offset int64) *fault.Error {
	e := fault.WithCode(fault.NotFound, codeUpdateNotFound, "Update not found, or not visible.")
	e.Resources = [][2]string{{resourceOffset, strconv.FormatInt(offset, 10)}}
	return e
}

func contractNotFound(code, what string, id daml.ContractID) *fault.Error {
	e := fault.WithCode(fault.NotFound, code, "Contract %s not found, or not visible.", what)
	e.Resources = [][2]string{{resourceContractID, string(id)}}
	return e
}

// lookupKey is an update to look up: by id, or (id "") by offset.
type lookupKey struct {
	id     string
	offset int64
}

func (k lookupKey) notFound() *fault.Error {
	if k.id != "" {
		return updateNotFoundByID(k.id)
	}
	return updateNotFoundAt(k.offset)
}

// checkUpdateID validates an update id as Canton does: a LedgerString
// that is a SHA-256 multihash in hex ("1220" and 64 hex digits).
func checkUpdateID(id string) error {
	if id == "" {
		return missingField("update_id")
	}
	if msg := checkLedgerString(id); msg != "" {
		return invalidArgument("%s", msg)
	}
	if len(id)%2 != 0 || !isHex(id) {
		return invalidArgument("Failed to parse hex string: %s", fault.Clip(id))
	}
	if len(id) != 68 || id[:4] != "1220" {
		return invalidArgument("Failed to parse the update id %s: want a SHA-256 multihash, 1220 and 64 hex digits", fault.Clip(id))
	}
	return nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// checkLookupOffset validates the offset of a lookup: positive.
func checkLookupOffset(offset int64) error {
	if offset <= 0 {
		return fault.WithCode(fault.InvalidArgument, codeNonPositiveOffset,
			"Offset %d in offset is not a positive integer: the offset has to be a positive integer (>0)", offset)
	}
	return nil
}

// authorizeLookup authenticates the caller and authorizes it for what the
// lookup's update format reads (nothing when the format is missing, which
// validation then refuses).
func (h *Handler) authorizeLookup(r *http.Request, uf *updateFormat) error {
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if uf == nil {
		return nil
	}
	return authorize(c, uf)
}

// compileLookup compiles a validated request's update format (missing:
// MISSING_FIELD update_format) and resolves its names.
func (h *Handler) compileLookup(uf *updateFormat) (*updatePlan, error) {
	if uf == nil {
		return nil, missingField("update_format")
	}
	p := &updatePlan{}
	if err := p.compileFormat(uf); err != nil {
		return nil, err
	}
	return p, p.resolve(h.cfg.Registry)
}

// lookupUpdate finds the update of key in the participant's stream and
// renders what plan selects of it; an update it selects nothing of, one
// at or before the pruned offset, or one the stream does not have is not
// found.
func (h *Handler) lookupUpdate(ctx context.Context, plan *updatePlan, key lookupKey) (Update, error) {
	var u *ledger.ParticipantUpdate
	if key.id != "" {
		var err error
		if u, err = h.cfg.Ledger.UpdateByID(ctx, h.cfg.Participant, key.id); err != nil {
			if fault.Is(err, fault.NotFound) {
				return Update{}, key.notFound()
			}
			return Update{}, err
		}
	} else {
		page, err := h.cfg.Ledger.Updates(ctx, ledger.UpdateQuery{
			Participant: h.cfg.Participant, After: ledger.Offset(key.offset - 1), Until: ledger.Offset(key.offset), Limit: 1,
		})
		if err != nil {
			return Update{}, err
		}
		if len(page) == 0 || page[0].Offset != ledger.Offset(key.offset) {
			return Update{}, key.notFound()
		}
		u = &page[0]
	}
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return Update{}, err
	}
	if u.Offset <= head.Pruned[h.cfg.Participant] {
		return Update{}, key.notFound()
	}
	upd, ok, err := h.projector(plan).update(u)
	if err != nil {
		return Update{}, err
	}
	if !ok {
		return Update{}, key.notFound()
	}
	return upd, nil
}

// projector renders the participant's updates through plan.
func (h *Handler) projector(plan *updatePlan) *projector {
	return &projector{plan: plan, reg: h.cfg.Registry, participant: h.cfg.Participant, hosted: h.cfg.Ledger.HostedParties(h.cfg.Participant)}
}

// lookupKey decodes the updateId (byID) or the offset of a lookup.
func (d *decoder) lookupKey(obj map[string]any, byID bool) lookupKey {
	if byID {
		return lookupKey{id: d.requiredString(obj, "updateId")}
	}
	return lookupKey{offset: d.requiredInt64(obj, "offset")}
}

// getUpdateRequest is GetUpdateByIdRequest and GetUpdateByOffsetRequest.
type getUpdateRequest struct {
	key    lookupKey
	format *updateFormat
}

func decodeGetUpdateRequest(r *http.Request, byID bool) (*getUpdateRequest, error) {
	what := "GetUpdateByOffsetRequest"
	if byID {
		what = "GetUpdateByIdRequest"
	}
	obj, err := decodeBody(r, what)
	if err != nil {
		return nil, err
	}
	d := &decoder{}
	req := &getUpdateRequest{key: d.lookupKey(obj, byID)}
	if u, ok := d.member("", obj, "updateFormat"); ok {
		req.format = d.updateFormat("updateFormat", u)
	}
	if d.err != nil {
		return nil, d.err
	}
	return req, nil
}

// POST /v2/updates/update-by-id and update-by-offset: the update as the
// request's update format shows it.
func (h *Handler) getUpdate(byID bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		req, err := decodeGetUpdateRequest(r, byID)
		if err != nil {
			return err
		}
		if err := h.authorizeLookup(r, req.format); err != nil {
			return err
		}
		if byID {
			err = checkUpdateID(req.key.id)
		} else {
			err = checkLookupOffset(req.key.offset)
		}
		if err != nil {
			return err
		}
		plan, err := h.compileLookup(req.format)
		if err != nil {
			return err
		}
		upd, err := h.lookupUpdate(r.Context(), plan, req.key)
		if err != nil {
			return err
		}
		return writeJSON(w, JsGetUpdateResponse{Update: upd})
	}
}

// wildcardFormat is the format the deprecated lookups stand for when they
// name requesting parties: a template wildcard for each party, verbose,
// transactions only, of the given shape.
func wildcardFormat(parties []string, shape string) *updateFormat {
	ef := &eventFormat{ByParty: map[string]filters{}, Verbose: true}
	for _, p := range parties {
		if _, dup := ef.ByParty[p]; !dup {
			ef.Parties = append(ef.Parties, p)
		}
		ef.ByParty[p] = filters{Cumulative: []cumulativeFilter{{Kind: filterWildcard}}}
	}
	return &updateFormat{Transactions: &transactionFormat{EventFormat: ef, Shape: shape}}
}

// getTransactionRequest is the deprecated GetTransactionByIdRequest and
// GetTransactionByOffsetRequest.
type getTransactionRequest struct {
	key     lookupKey
	parties []string
	format  *transactionFormat
}

func decodeGetTransactionRequest(r *http.Request, byID bool) (*getTransactionRequest, error) {
	what := "GetTransactionByOffsetRequest"
	if byID {
		what = "GetTransactionByIdRequest"
	}
	obj, err := decodeBody(r, what)
	if err != nil {
		return nil, err
	}
	d := &decoder{}
	req := &getTransactionRequest{key: d.lookupKey(obj, byID)}
	req.parties = d.stringList("", obj, "requestingParties")
	if t, ok := d.member("", obj, "transactionFormat"); ok {
		req.format = d.transactionFormat("transactionFormat", t)
	}
	if d.err != nil {
		return nil, d.err
	}
	return req, nil
}

// POST /v2/updates/transaction-by-id and transaction-by-offset
// (deprecated): the transaction as a transaction format shows it, or, for
// requesting parties, as the ACS_DELTA shape shows it to them.
func (h *Handler) getTransaction(byID bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		req, err := decodeGetTransactionRequest(r, byID)
		if err != nil {
			return err
		}
		var uf *updateFormat
		switch {
		case len(req.parties) == 0 && req.format == nil:
			return invalidArgument("Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.")
		case len(req.parties) > 0 && req.format != nil:
			return invalidArgument("Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format but not both.")
		case req.format != nil:
			uf = &updateFormat{Transactions: req.format}
		default:
			uf = wildcardFormat(req.parties, shapeACSDelta)
		}
		if err := h.authorizeLookup(r, uf); err != nil {
			return err
		}
		if byID {
			err = checkUpdateID(req.key.id)
		} else {
			err = checkLookupOffset(req.key.offset)
		}
		if err != nil {
			return err
		}
		plan, err := h.compileLookup(uf)
		if err != nil {
			return err
		}
		upd, err := h.lookupUpdate(r.Context(), plan, req.key)
		if err != nil {
			return err
		}
		return writeJSON(w, JsGetTransactionResponse{Transaction: upd.Transaction.Value})
	}
}

// GET /v2/updates/transaction-tree-by-id/{update-id} and
// transaction-tree-by-offset/{offset} (deprecated): the transaction tree
// the parties query parameters see (the LEDGER_EFFECTS shape).
func (h *Handler) getTransactionTree(byID bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		var key lookupKey
		if byID {
			key.id = r.PathValue("id")
		} else {
			s := r.PathValue("offset")
			off, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return undecodable("Invalid value for: path parameter offset (expected an int64, got %s)", fault.Quote(s))
			}
			key.offset = off
		}
		uf := wildcardFormat(r.URL.Query()["parties"], shapeLedgerEffects)
		if err := h.authorizeLookup(r, uf); err != nil {
			return err
		}
		var err error
		if byID {
			err = checkUpdateID(key.id)
		} else {
			err = checkLookupOffset(key.offset)
		}
		if err != nil {
			return err
		}
		plan, err := h.compileLookup(uf)
		if err != nil {
			return err
		}
		upd, err := h.lookupUpdate(r.Context(), plan, key)
		if err != nil {
			return err
		}
		return writeJSON(w, JsGetTransactionTreeResponse{Transaction: treeOf(&upd.Transaction.Value)})
	}
}

// checkContractID validates a contract id as Canton does: hex of a V1
// ("00", a 32-byte discriminator, at most 94 bytes of suffix) or a V2
// ("01", a 12-byte local part, at most 33 bytes of suffix) contract id.
func checkContractID(field, id string) error {
	if id == "" {
		return missingField(field)
	}
	ok := len(id)%2 == 0 && isHex(id)
	if ok {
		n := len(id) / 2
		switch id[:2] {
		case "00":
			ok = n >= 1+32 && n <= 1+32+94
		case "01":
			ok = n >= 1+12 && n <= 1+12+33
		default:
			ok = false
		}
	}
	if !ok {
		return invalidField(field, "cannot parse ContractId %s", fault.Quote(id))
	}
	return nil
}

// POST /v2/events/events-by-contract-id: a contract's create event and,
// once it is archived, its archive event, each as it appeared in its
// update in this participant's stream, under the ACS_DELTA shape of the
// request's event format. A contract the participant never saw created,
// or whose events the format selects none of, or that was archived at or
// before the pruned offset, is CONTRACT_EVENTS_NOT_FOUND.
func (h *Handler) eventsByContractID(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "GetEventsByContractIdRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	cid := d.requiredString(obj, "contractId")
	var ef *eventFormat
	if f, ok := d.member("", obj, "eventFormat"); ok {
		ef = d.eventFormat("eventFormat", f, true)
	}
	if d.err != nil {
		return d.err
	}
	var uf *updateFormat
	if ef != nil {
		uf = &updateFormat{Transactions: &transactionFormat{EventFormat: ef, Shape: shapeACSDelta}}
	}
	if err := h.authorizeLookup(r, uf); err != nil {
		return err
	}
	if err := checkContractID("contract_id", cid); err != nil {
		return err
	}
	if ef == nil {
		return missingField("event_format")
	}
	plan, err := h.compileLookup(uf)
	if err != nil {
		return err
	}
	id := daml.ContractID(cid)
	notFound := contractNotFound(codeContractEventsNotFound, "events", id)
	ctx := r.Context()
	c, err := h.contract(ctx, id, notFound)
	if err != nil {
		return err
	}
	created, err := h.cfg.Ledger.UpdateByID(ctx, h.cfg.Participant, c.CreatedBy)
	if err != nil {
		if fault.Is(err, fault.NotFound) {
			return notFound
		}
		return err
	}
	pr := h.projector(plan)
	createNode := findNode(created.Transaction, func(e *ledger.Event) bool { return e.Created != nil && e.Created.ID == id })
	if createNode == nil || !intersects(createNode.Witnesses, pr.hosted) {
		return notFound
	}
	m := pr.stakeholderMatch(c.Template, c.Stakeholders())
	if !m.ok() {
		return notFound
	}
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return err
	}
	pruned := head.Pruned[h.cfg.Participant]
	resp := JsGetEventsByContractIDResponse{}
	archivedBy, err := h.cfg.Ledger.ArchivedBy(ctx, id)
	if err != nil {
		return err
	}
	if archivedBy != "" {
		archived, err := h.cfg.Ledger.UpdateByID(ctx, h.cfg.Participant, archivedBy)
		switch {
		case fault.Is(err, fault.NotFound):
			// The participant does not see the archival.
		case err != nil:
			return err
		default:
			if archived.Offset <= pruned {
				return notFound
			}
			node := findNode(archived.Transaction, func(e *ledger.Event) bool {
				return e.Exercised != nil && e.Exercised.Consuming && e.Exercised.ContractID == id
			})
			if node != nil {
				resp.Archived = &JsArchived{
					ArchivedEvent:  pr.archived(archived.Offset, node.NodeID, node.Exercised, m),
					SynchronizerID: string(created.Transaction.Synchronizer),
				}
			}
		}
	}
	transient := archivedBy == c.CreatedBy
	ev, err := pr.created(created.Offset, createNode.NodeID, createNode.Created, m, !transient)
	if err != nil {
		return err
	}
	resp.Created = &JsCreated{CreatedEvent: ev.CreatedEvent, SynchronizerID: string(created.Transaction.Synchronizer)}
	return writeJSON(w, resp)
}

// contract reads a contract, active or archived; an unknown one is
// notFound.
func (h *Handler) contract(ctx context.Context, id daml.ContractID, notFound error) (*ledger.Contract, error) {
	c, _, err := h.cfg.Ledger.Contract(ctx, id)
	if fault.Is(err, fault.NotFound) {
		return nil, notFound
	}
	return c, err
}

// findNode returns the first event of a transaction that is, or nil (also
// for an update that is no transaction).
func findNode(tx *ledger.Transaction, is func(*ledger.Event) bool) *ledger.Event {
	if tx == nil {
		return nil
	}
	for i := range tx.Events {
		if is(&tx.Events[i]) {
			return &tx.Events[i]
		}
	}
	return nil
}

// POST /v2/contracts/contract-by-id: a contract the participant knows (one
// of its stakeholders is hosted here), active or archived, as a created
// event seen by the querying parties among its stakeholders (by all its
// stakeholders when none are named). As on Canton, the event has no
// position (offset 1, node 0, acsDelta false) and no interface views,
// carries its created-event blob, and names the contract's own package as
// its representative package. Reading needs the right to read as every
// querying party, or as any party when none are named.
func (h *Handler) contractByID(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "GetContractRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	cid := d.requiredString(obj, "contractId")
	querying := d.stringList("", obj, "queryingParties")
	if d.err != nil {
		return d.err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if len(querying) == 0 && !c.canReadAnyParty() {
		return permissionDenied(false, "reading a contract for any party needs the CanReadAsAnyParty right")
	}
	for _, p := range querying {
		if !c.canRead(daml.Party(p)) {
			return permissionDenied(false, "no right to read as %s", fault.Clip(p))
		}
	}
	if err := checkContractID("contract_id", cid); err != nil {
		return err
	}
	for _, p := range querying {
		if msg := checkPartySyntax(p); msg != "" {
			return invalidArgument("%s", msg)
		}
	}
	id := daml.ContractID(cid)
	notFound := contractNotFound(codeContractPayloadNotFound, "payload", id)
	contract, err := h.contract(r.Context(), id, notFound)
	if err != nil {
		return err
	}
	stakeholders := contract.Stakeholders()
	pr := h.projector(&updatePlan{})
	if !intersects(stakeholders, pr.hosted) {
		return notFound
	}
	var witnesses []daml.Party
	for _, p := range stakeholders {
		if len(querying) == 0 || slices.Contains(querying, string(p)) {
			witnesses = append(witnesses, p)
		}
	}
	if len(witnesses) == 0 {
		return notFound
	}
	m := match{filters: []*partyFilter{{wildcard: true, wildcardBlob: true}}, witnesses: witnesses}
	ev, err := pr.created(1, 0, contract, m, false)
	if err != nil {
		return err
	}
	return writeJSON(w, GetContractResponse{CreatedEvent: ev.CreatedEvent})
}
