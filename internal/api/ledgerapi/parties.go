package ledgerapi

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Party management, as Canton's PartyManagementService answers it over
// JSON: the parties the participant knows, one party's details, the
// participant's id, allocating a party, and updating a party's
// participant-local metadata.
//
// A participant knows every party of the topology of the synchronizers it
// is connected to, not only the ones it hosts, as Canton's listing does.
// sandnet's participants all connect to the one global synchronizer, so
// each knows every party of the network; isLocal marks those it hosts.
// Besides the topology a participant keeps a record of some parties (every
// party allocated through this API, and every party whose metadata was
// updated): their identity provider, annotations and resource version.
// Details are shown as Canton shows them to a request naming an identity
// provider (the default one, "", when none is named): a party whose record
// is of that identity provider with its metadata and identity provider; a
// party without one, for the default identity provider, with empty
// metadata; and otherwise as not local.
//
// Listing parties and updating them needs ParticipantAdmin; reading a
// party's details, ParticipantAdmin or the right to act, read or execute
// as each party asked for; allocating one, ParticipantAdmin (Canton also
// lets a user allocate a party for itself within a quota that is 0 by
// default). The participant id is public to any authenticated user.
// sandnet has no identity provider admins: IdentityProviderAdmin grants
// nothing here, as in user management.

// maxPartiesPageSize is partyManagement.maxPartiesPageSize of /v2/version.
const maxPartiesPageSize = 10000

// Canton's party management error codes.
const (
	codePartyNotFound              = "PARTY_NOT_FOUND"
	codeInvalidPartyDetailsUpdate  = "INVALID_PARTY_DETAILS_UPDATE_REQUEST"
	codeConcurrentPartyUpdate      = "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED"
	codeMaxPartyAnnotationsSize    = "MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED"
	codeNotConnectedToSynchronizer = "NOT_CONNECTED_TO_SYNCHRONIZER"
	resourceParty                  = "PARTY"
)

// The fields of PartyDetails an update mask may name.
const (
	pathParty              = "party"
	pathIsLocal            = "is_local"
	pathPartyAnnotations   = "local_metadata.annotations"
	pathPartyVersion       = "local_metadata.resource_version"
	pathIdentityProviderID = "identity_provider_id"
)

// PartyDetails is one party as the participant knows it.
type PartyDetails struct {
	Party              string     `json:"party"`
	IsLocal            bool       `json:"isLocal"`
	LocalMetadata      ObjectMeta `json:"localMetadata"`
	IdentityProviderID string     `json:"identityProviderId"`
}

// The responses of party management.
type (
	ListKnownPartiesResponse struct {
		PartyDetails  []PartyDetails `json:"partyDetails"`
		NextPageToken string         `json:"nextPageToken"`
	}
	GetPartiesResponse struct {
		PartyDetails []PartyDetails `json:"partyDetails"`
	}
	GetParticipantIDResponse struct {
		ParticipantID string `json:"participantId"`
	}
	AllocatePartyResponse struct {
		PartyDetails PartyDetails `json:"partyDetails"`
	}
	UpdatePartyDetailsResponse struct {
		PartyDetails PartyDetails `json:"partyDetails"`
	}
)

// PartyDirectory is what party and identity provider management need of
// the ledger besides the topology: allocation, and the participant-local
// records of parties and identity providers.
type PartyDirectory interface {
	// AllocateParty allocates a party (ledger.Network.AllocateParty).
	AllocateParty(ctx context.Context, spec ledger.PartySpec) (daml.Party, error)
	// PartyRecords returns a participant's records of the parties from
	// first to last, inclusive.
	PartyRecords(ctx context.Context, p ledger.ParticipantID, first, last daml.Party) ([]ledger.PartyRecord, error)
	// UpdatePartyRecord changes a participant's record of a party
	// atomically (ledger.Network.UpdatePartyRecord).
	UpdatePartyRecord(ctx context.Context, p ledger.ParticipantID, party daml.Party, change func(r *ledger.PartyRecord, exists bool) error) (*ledger.PartyRecord, error)
	// IdentityProviders returns a participant's identity provider
	// configurations.
	IdentityProviders(ctx context.Context, p ledger.ParticipantID) ([]ledger.IdentityProvider, error)
	// UpdateIdentityProviders changes them atomically
	// (ledger.Network.UpdateIdentityProviders).
	UpdateIdentityProviders(ctx context.Context, p ledger.ParticipantID, change func([]ledger.IdentityProvider) ([]ledger.IdentityProvider, error)) ([]ledger.IdentityProvider, error)
}

func (l networkLedger) AllocateParty(ctx context.Context, spec ledger.PartySpec) (daml.Party, error) {
	return l.n.AllocateParty(ctx, spec)
}
func (l networkLedger) PartyRecords(ctx context.Context, p ledger.ParticipantID, first, last daml.Party) ([]ledger.PartyRecord, error) {
	return l.n.Store().PartyRecords(ctx, p, first, last)
}
func (l networkLedger) UpdatePartyRecord(ctx context.Context, p ledger.ParticipantID, party daml.Party, change func(*ledger.PartyRecord, bool) error) (*ledger.PartyRecord, error) {
	return l.n.UpdatePartyRecord(ctx, p, party, change)
}
func (l networkLedger) IdentityProviders(ctx context.Context, p ledger.ParticipantID) ([]ledger.IdentityProvider, error) {
	return l.n.IdentityProviders(ctx, p)
}
func (l networkLedger) UpdateIdentityProviders(ctx context.Context, p ledger.ParticipantID, change func([]ledger.IdentityProvider) ([]ledger.IdentityProvider, error)) ([]ledger.IdentityProvider, error) {
	return l.n.UpdateIdentityProviders(ctx, p, change)
}

// knownParty is a party of the topology and whether this participant
// hosts it.
type knownParty struct {
	party daml.Party
	local bool
}

// knownParties returns every party of the network's topology, sorted,
// each with whether this participant hosts it.
func (h *Handler) knownParties(ctx context.Context) ([]knownParty, error) {
	hs, err := h.cfg.Ledger.Hostings(ctx)
	if err != nil {
		return nil, err
	}
	local := map[daml.Party]bool{}
	for _, x := range hs {
		local[x.Party] = local[x.Party] || x.Participant == h.cfg.Participant
	}
	out := make([]knownParty, 0, len(local))
	for p, isLocal := range local {
		out = append(out, knownParty{p, isLocal})
	}
	slices.SortFunc(out, func(a, b knownParty) int { return strings.Compare(string(a.party), string(b.party)) })
	return out, nil
}

// knownParty returns one party of the topology; ok is false when the
// network does not know it.
func (h *Handler) knownParty(ctx context.Context, party daml.Party) (kp knownParty, ok bool, err error) {
	all, err := h.knownParties(ctx)
	if err != nil {
		return kp, false, err
	}
	i, found := slices.BinarySearchFunc(all, party, func(k knownParty, p daml.Party) int { return strings.Compare(string(k.party), string(p)) })
	if !found {
		return kp, false, nil
	}
	return all[i], true, nil
}

// details renders known parties (sorted) with their records, as a request
// naming identity provider idp sees them.
func (h *Handler) details(ctx context.Context, parties []knownParty, idp string) ([]PartyDetails, error) {
	out := make([]PartyDetails, 0, len(parties))
	if len(parties) == 0 {
		return out, nil
	}
	recs, err := h.cfg.Ledger.PartyRecords(ctx, h.cfg.Participant, parties[0].party, parties[len(parties)-1].party)
	if err != nil {
		return nil, err
	}
	byParty := make(map[daml.Party]*ledger.PartyRecord, len(recs))
	for i := range recs {
		byParty[recs[i].Party] = &recs[i]
	}
	for _, p := range parties {
		out = append(out, partyDetailsFor(p, byParty[p.party], idp))
	}
	return out, nil
}

// partyDetailsFor renders a party as a request naming identity provider
// idp sees it: with its record when the record is of idp; without one
// (empty metadata) for the default identity provider; and not local for
// another one.
func partyDetailsFor(p knownParty, r *ledger.PartyRecord, idp string) PartyDetails {
	d := PartyDetails{Party: string(p.party), IsLocal: p.local, LocalMetadata: ObjectMeta{Annotations: map[string]string{}}}
	switch {
	case r != nil && r.IdentityProviderID == idp:
		return withRecord(d, r)
	case idp == "":
		return d
	default:
		d.IsLocal = false
		return d
	}
}

// withRecord sets a party's metadata and identity provider from its
// record.
func withRecord(d PartyDetails, r *ledger.PartyRecord) PartyDetails {
	d.LocalMetadata = ObjectMeta{ResourceVersion: strconv.FormatInt(r.ResourceVersion, 10), Annotations: r.Annotations}
	if d.LocalMetadata.Annotations == nil {
		d.LocalMetadata.Annotations = map[string]string{}
	}
	d.IdentityProviderID = r.IdentityProviderID
	return d
}

// identityProviderQuery reads the identity-provider-id query parameter:
// "" for the default identity provider. Only its syntax is checked: a
// request naming an identity provider the participant does not know sees
// every party as not local, as on Canton.
func identityProviderQuery(r *http.Request) (string, error) {
	vs := r.URL.Query()["identity-provider-id"]
	if len(vs) > 1 {
		return "", undecodable("Invalid value for: query parameter identity-provider-id (expected a single value, got %d)", len(vs))
	}
	if len(vs) == 0 || vs[0] == "" {
		return "", nil
	}
	return vs[0], checkIdentityProviderID("identity_provider_id", vs[0], false)
}

// checkIdentityProviderID checks the syntax of an identity provider id (a
// LedgerString); "" is the default one unless required.
func checkIdentityProviderID(field, id string, required bool) error {
	if id == "" {
		if required {
			return missingField(field)
		}
		return nil
	}
	if msg := checkLedgerString(id); msg != "" {
		return invalidField(field, "%s", msg)
	}
	return nil
}

// GET /v2/parties: the known parties by id, a page at a time, optionally
// only those whose id starts with filter-party.
func (h *Handler) listParties(w http.ResponseWriter, r *http.Request) error {
	size, after, err := pageParams(r, maxPartiesPageSize)
	if err != nil {
		return err
	}
	idp, err := identityProviderQuery(r)
	if err != nil {
		return err
	}
	prefix := r.URL.Query().Get("filter-party")
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	all, err := h.knownParties(r.Context())
	if err != nil {
		return err
	}
	var page []knownParty
	next := ""
	for _, p := range all {
		if string(p.party) <= after && after != "" || !strings.HasPrefix(string(p.party), prefix) {
			continue
		}
		if len(page) == size {
			next = pageToken(string(page[size-1].party))
			break
		}
		page = append(page, p)
	}
	ds, err := h.details(r.Context(), page, idp)
	if err != nil {
		return err
	}
	return writeJSON(w, ListKnownPartiesResponse{PartyDetails: ds, NextPageToken: next})
}

// GET /v2/parties/{party}: the details of the party of the path and of
// the parties query parameters, those the participant knows; unknown
// parties are left out, so an unknown party alone gives an empty list.
func (h *Handler) getParties(w http.ResponseWriter, r *http.Request) error {
	idp, err := identityProviderQuery(r)
	if err != nil {
		return err
	}
	want := append([]string{r.PathValue("party")}, r.URL.Query()["parties"]...)
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if requireAdmin(c) != nil {
		for _, p := range want {
			if !c.canOperateAs(daml.Party(p)) {
				return permissionDenied(false, "the request needs the ParticipantAdmin right or a right to act, read or execute as %s", fault.Clip(p))
			}
		}
	}
	for _, p := range want {
		if msg := checkPartySyntax(p); msg != "" {
			return invalidArgument("%s", msg)
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	all, err := h.knownParties(r.Context())
	if err != nil {
		return err
	}
	var found []knownParty
	for _, p := range all {
		if _, ok := slices.BinarySearch(want, string(p.party)); ok {
			found = append(found, p)
		}
	}
	ds, err := h.details(r.Context(), found, idp)
	if err != nil {
		return err
	}
	return writeJSON(w, GetPartiesResponse{PartyDetails: ds})
}

// GET /v2/parties/participant-id.
func (h *Handler) participantID(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	return writeJSON(w, GetParticipantIDResponse{ParticipantID: string(h.cfg.Participant)})
}

// allocatePartyRequest is AllocatePartyRequest.
type allocatePartyRequest struct {
	hint, idp, synchronizer, userID string
	resourceVersion                 string
	annotations                     map[string]string
}

// POST /v2/parties: allocate a party on this participant (hosted with
// submission permission, in the participant's namespace), create its
// record with the request's identity provider and annotations, and grant
// the request's user CanActAs on it. Steps in Canton's order: decoding,
// authorization, validation of every field, the identity provider's and
// the user's existence, the allocation (a party the participant already
// hosts is refused), the record, the user's right.
func (h *Handler) allocateParty(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "AllocatePartyRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	var in allocatePartyRequest
	in.hint, _ = d.stringMember("", obj, "partyIdHint")
	in.resourceVersion, in.annotations = d.objectMeta("", obj, "localMetadata")
	in.idp, _ = d.stringMember("", obj, "identityProviderId")
	in.synchronizer, _ = d.stringMember("", obj, "synchronizerId")
	in.userID, _ = d.stringMember("", obj, "userId")
	if d.err != nil {
		return d.err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if err := mayAllocate(c, in.userID); err != nil {
		return err
	}
	hint := in.hint
	if hint != "" {
		if msg := checkPartySyntax(hint); msg != "" {
			return invalidArgument("%s", msg)
		}
	}
	if in.resourceVersion != "" {
		return invalidArgument("field local_metadata.resource_version must be not set")
	}
	if err := checkAnnotations("local_metadata.annotations", in.annotations, false); err != nil {
		return err
	}
	if err := checkIdentityProviderID("identity_provider_id", in.idp, false); err != nil {
		return err
	}
	if in.synchronizer != "" {
		if msg := checkSynchronizerID(in.synchronizer); msg != "" {
			return invalidField("synchronizer_id", "%s", msg)
		}
	}
	if in.userID != "" && !ledger.ValidUserID(in.userID) {
		return checkUserID("user_id", in.userID)
	}
	if hint == "" {
		hint = "party-" + randomUUID()
	}
	if strings.Contains(hint, "::") {
		return invalidArgument("Invalid party ID: String contains reserved delimiter `::`.")
	}
	if len(hint) > ledger.MaxHintLen {
		return invalidArgument("Invalid party ID: The given string has a maximum length of %d but a string of length %d ('%s') was given",
			ledger.MaxHintLen, len(hint), shorten(hint))
	}
	ctx := r.Context()
	if err := h.identityProviderExists(ctx, in.idp); err != nil {
		return err
	}
	if in.userID != "" {
		// The user must be of the request's identity provider; sandnet's
		// users are all of the default one.
		if _, err := h.cfg.Ledger.User(ctx, h.cfg.Participant, in.userID); err != nil || in.idp != "" {
			if err == nil {
				err = fault.New(fault.NotFound, "user %s is not of identity provider %s", in.userID, in.idp)
			}
			return userFault(err, "checking user's existence", in.userID)
		}
	}
	ns, _ := h.cfg.Participant.Namespace()
	party := ledger.PartyID(hint, ns)
	if err := h.checkRecordIdentityProvider(ctx, party, in.idp); err != nil {
		return err
	}
	host := ledger.Hosting{Participant: h.cfg.Participant}
	if in.synchronizer != "" {
		if host.Synchronizer, err = h.connectedSynchronizer(ctx, in.synchronizer); err != nil {
			return err
		}
	}
	if _, err := h.cfg.Ledger.AllocateParty(ctx, ledger.PartySpec{Hint: hint, Hosts: []ledger.Hosting{host}, Fresh: true}); err != nil {
		if fault.Is(err, fault.AlreadyExists) {
			// Canton answers the topology's refusal as an invalid
			// argument.
			return invalidArgument("Party already exists: party %s is already allocated on this node", party)
		}
		return err
	}
	rec, err := h.cfg.Ledger.UpdatePartyRecord(ctx, h.cfg.Participant, party, func(rec *ledger.PartyRecord, exists bool) error {
		if !exists {
			rec.IdentityProviderID = in.idp
		}
		rec.Annotations = mergeAnnotations(rec.Annotations, in.annotations)
		if annotationsBytes(rec.Annotations) > maxAnnotationsBytes {
			return maxPartyAnnotations(party)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := h.grantActAs(ctx, in.userID, party); err != nil {
		return err
	}
	return writeJSON(w, AllocatePartyResponse{PartyDetails: withRecord(PartyDetails{Party: string(party), IsLocal: true}, rec)})
}

// randomUUID returns a random (version 4) UUID, which names a party
// allocated without a hint as Canton names it: "party-<uuid>".
// mayAllocate refuses a party allocation (local or external) by a caller
// without ParticipantAdmin: Canton lets a user allocate for itself within
// its quota of self-allocated parties (max-self-allocated-parties), which
// is 0 by default.
func mayAllocate(c caller, userID string) error {
	if requireAdmin(c) == nil {
		return nil
	}
	if c.user == nil || userID != c.user.ID {
		return permissionDenied(false, "allocating a party needs the ParticipantAdmin right, or a request for the caller's own user")
	}
	return permissionDenied(false, "User quota of party allocations exhausted")
}

// grantActAs gives the user an allocation names (if any) the right to act
// as the new party.
func (h *Handler) grantActAs(ctx context.Context, userID string, party daml.Party) error {
	if userID == "" {
		return nil
	}
	right := ledger.Right{Kind: ledger.CanActAs, Party: party}
	_, err := h.cfg.Ledger.UpdateUser(ctx, h.cfg.Participant, userID, func(u *ledger.User) error {
		if !u.Has(right) {
			u.Rights = append(u.Rights, right)
		}
		return nil
	})
	if err != nil {
		return userFault(err, "granting user rights for a new party", userID)
	}
	return nil
}

func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// checkSynchronizerID checks the syntax of a synchronizer id: a unique
// identifier, "<identifier>::<namespace>". It returns the complaint, or "".
func checkSynchronizerID(s string) string {
	id, ns, ok := strings.Cut(s, "::")
	if !ok || id == "" || ns == "" || strings.Contains(ns, "::") {
		return fmt.Sprintf("Invalid unique identifier `%s`: it must be <identifier>::<namespace>", shorten(s))
	}
	if msg := checkPartySyntax(s); msg != "" {
		return msg
	}
	return ""
}

// connectedSynchronizer resolves a synchronizer the participant is
// connected to: one of the current migration.
func (h *Handler) connectedSynchronizer(ctx context.Context, id string) (ledger.SynchronizerID, error) {
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return "", err
	}
	syncs, err := h.cfg.Ledger.Synchronizers(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range syncs {
		if string(s.ID) == id && s.MigrationID == head.MigrationID {
			return s.ID, nil
		}
	}
	return "", fault.WithCode(fault.FailedPrecondition, codeNotConnectedToSynchronizer,
		"This participant is not connected to synchronizer %s.", fault.Clip(id))
}

// checkRecordIdentityProvider refuses a change of a party whose record is
// of another identity provider than the request's, as Canton does.
func (h *Handler) checkRecordIdentityProvider(ctx context.Context, party daml.Party, idp string) error {
	recs, err := h.cfg.Ledger.PartyRecords(ctx, h.cfg.Participant, party, party)
	if err != nil {
		return err
	}
	if len(recs) == 1 && recs[0].IdentityProviderID != idp {
		return permissionDenied(false, "Party %s belongs to an identity provider that differs from the one specified in the request", party)
	}
	return nil
}

func maxPartyAnnotations(party daml.Party) *fault.Error {
	e := fault.WithCode(fault.FailedPrecondition, codeMaxPartyAnnotationsSize, "Maximum annotations size for party '%s' has been exceeded", party)
	e.Resources = [][2]string{{resourceParty, string(party)}}
	return e
}

func partyNotFound(operation string, party daml.Party) *fault.Error {
	e := fault.WithCode(fault.NotFound, codePartyNotFound, "Party: '%s' was not found when %s", party, operation)
	e.Resources = [][2]string{{resourceParty, string(party)}}
	return e
}

func invalidPartyUpdate(party daml.Party, reason string) *fault.Error {
	e := fault.WithCode(fault.InvalidArgument, codeInvalidPartyDetailsUpdate, "Update operation for party '%s' failed due to: %s", party, reason)
	e.Resources = [][2]string{{resourceParty, string(party)}}
	return e
}

// canOperateAs reports whether the caller may act, read or execute as
// party p: what Canton asks of a non-admin reading a party's details.
func (c caller) canOperateAs(p daml.Party) bool {
	if c.wildcard || c.user.CanRead(p) {
		return true
	}
	return c.user.Has(ledger.Right{Kind: ledger.CanExecuteAs, Party: p}) || c.user.Has(ledger.Right{Kind: ledger.CanExecuteAsAnyParty})
}

// updatePartyRequest is UpdatePartyDetailsRequest.
type updatePartyRequest struct {
	hasDetails                    bool
	party, idp                    string
	isLocal                       bool
	resourceVersion               string
	annotations                   map[string]string
	paths                         []string
	hasMask                       bool
	bodyPartyGiven, isLocalExists bool
}

// PATCH /v2/parties/{party}: update the participant's local metadata of a
// party, the fields the update mask names: local_metadata.annotations (or
// local_metadata: the annotations are merged, an empty value removes a
// key), and is_local, which may only be given as it is. A resource version
// in the request must be the stored one. A party hosted here that has no
// record gets one; a party hosted elsewhere without one is not found.
func (h *Handler) updateParty(w http.ResponseWriter, r *http.Request) error {
	ofPath := r.PathValue("party")
	obj, err := decodeBody(r, "UpdatePartyDetailsRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	var in updatePartyRequest
	if pd, ok := d.member("", obj, "partyDetails"); ok {
		in.hasDetails = true
		in.party, in.bodyPartyGiven = d.stringMember("partyDetails", pd, "party")
		in.isLocal, in.isLocalExists = d.boolMember("partyDetails", pd, "isLocal")
		in.resourceVersion, in.annotations = d.objectMeta("partyDetails", pd, "localMetadata")
		in.idp, _ = d.stringMember("partyDetails", pd, "identityProviderId")
	}
	in.paths, in.hasMask = d.maskPaths(obj, "updateMask")
	if d.err != nil {
		return d.err
	}
	if !in.hasDetails {
		return invalidArgument("%s does not match party in body None", fault.Clip(ofPath))
	}
	if in.party != ofPath {
		return invalidArgument("%s does not match party in body %s", fault.Clip(ofPath), fault.Quote(in.party))
	}
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	if msg := checkPartySyntax(in.party); msg != "" {
		return invalidArgument("%s", msg)
	}
	party := daml.Party(in.party)
	version, versionGiven, err := parseResourceVersion("party_details.local_metadata", in.resourceVersion)
	if err != nil {
		return err
	}
	if err := checkAnnotations("party_details.local_metadata.annotations", in.annotations, true); err != nil {
		return err
	}
	if !in.hasMask {
		return missingField("update_mask")
	}
	if err := checkIdentityProviderID("identity_provider_id", in.idp, false); err != nil {
		return err
	}
	ctx := r.Context()
	if err := h.identityProviderExists(ctx, in.idp); err != nil {
		return err
	}
	mask, reason := parseFieldMask(in.paths, pathParty, pathIsLocal, pathPartyAnnotations, pathPartyVersion, pathIdentityProviderID)
	if reason != "" {
		return invalidPartyUpdate(party, reason)
	}
	var newAnnotations map[string]string
	updateAnnotations := false
	if matched, exact := mask.match(pathPartyAnnotations); matched && (exact || len(in.annotations) > 0) {
		newAnnotations, updateAnnotations = in.annotations, true
	}
	kp, known, err := h.knownParty(ctx, party)
	if err != nil {
		return err
	}
	if !known {
		return partyNotFound("updating a party record", party)
	}
	if matched, _ := mask.match(pathIsLocal); matched && in.isLocal != kp.local {
		return invalidPartyUpdate(party, "Update request attempted to modify not-modifiable 'is_local' attribute")
	}
	if err := h.checkRecordIdentityProvider(ctx, party, in.idp); err != nil {
		return err
	}
	rec, err := h.cfg.Ledger.UpdatePartyRecord(ctx, h.cfg.Participant, party, func(rec *ledger.PartyRecord, exists bool) error {
		if !exists {
			if !kp.local {
				return partyNotFound("updating a participant party record", party)
			}
			rec.IdentityProviderID = in.idp
		} else if versionGiven && version != rec.ResourceVersion {
			e := fault.WithCode(fault.Aborted, codeConcurrentPartyUpdate,
				"Update operation for party '%s' failed due to a concurrent update to the same party", party)
			e.Resources = [][2]string{{resourceParty, string(party)}}
			return e
		}
		if updateAnnotations {
			rec.Annotations = mergeAnnotations(rec.Annotations, newAnnotations)
			if annotationsBytes(rec.Annotations) > maxAnnotationsBytes {
				return maxPartyAnnotations(party)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, UpdatePartyDetailsResponse{PartyDetails: withRecord(PartyDetails{Party: in.party, IsLocal: kp.local}, rec)})
}
