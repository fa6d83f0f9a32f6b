package ledgerapi

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The user management endpoints, as Canton's UserManagementService
// answers them over JSON. Managing users needs ParticipantAdmin; a user
// may read itself and its own rights. sandnet has one identity provider,
// the default one (id ""), so identityProviderId is always empty and
// IdentityProviderAdmin grants nothing here.

// Limits of user management, as /v2/version reports them.
const (
	maxUsersPageSize        = 1000
	maxRightsPerUser        = 1000
	userRightPartyFieldName = "party"
)

func userNotFound(operation, id string) *fault.Error {
	return fault.WithCode(fault.NotFound, codeUserNotFound, "%s failed for unknown user %s", operation, fault.Quote(id))
}

// userFault turns the engine's not-found and already-exists into the
// user management codes.
func userFault(err error, operation, id string) error {
	switch fault.KindOf(err) {
	case fault.NotFound:
		return userNotFound(operation, id)
	case fault.AlreadyExists:
		return fault.WithCode(fault.AlreadyExists, codeUserAlreadyExists, "%s failed, as user %s already exists", operation, fault.Quote(id))
	}
	return err
}

// JsUser is a ledger API user.
type JsUser struct {
	ID                         string     `json:"id"`
	PrimaryParty               string     `json:"primaryParty"`
	IsDeactivated              bool       `json:"isDeactivated"`
	Metadata                   ObjectMeta `json:"metadata"`
	IdentityProviderID         string     `json:"identityProviderId"`
	PrimaryPartyAuthentication bool       `json:"primaryPartyAuthentication"`
}

// ObjectMeta is a resource's version and annotations.
type ObjectMeta struct {
	ResourceVersion string            `json:"resourceVersion"`
	Annotations     map[string]string `json:"annotations"`
}

// JsRight is a user right: {"kind": {"<Kind>": {"value": {…}}}}.
type JsRight struct {
	Kind map[string]RightValue `json:"kind"`
}

// RightValue is the value wrapper of a right's kind; Party is set for
// the party rights.
type RightValue struct {
	Value RightParty `json:"value"`
}

// RightParty holds the party of a party right.
type RightParty struct {
	Party string `json:"party,omitempty"`
}

// The responses of user management.
type (
	UserResponse struct {
		User JsUser `json:"user"`
	}
	ListUsersResponse struct {
		Users         []JsUser `json:"users"`
		NextPageToken string   `json:"nextPageToken"`
	}
	ListUserRightsResponse struct {
		Rights []JsRight `json:"rights"`
	}
	GrantUserRightsResponse struct {
		NewlyGrantedRights []JsRight `json:"newlyGrantedRights"`
	}
	RevokeUserRightsResponse struct {
		NewlyRevokedRights []JsRight `json:"newlyRevokedRights"`
	}
)

func userJSON(u *ledger.User) JsUser {
	ann := u.Annotations
	if ann == nil {
		ann = map[string]string{}
	}
	return JsUser{
		ID: u.ID, PrimaryParty: string(u.PrimaryParty), IsDeactivated: u.Deactivated,
		Metadata: ObjectMeta{ResourceVersion: strconv.FormatInt(u.ResourceVersion, 10), Annotations: ann},
	}
}

func rightsJSON(rs []ledger.Right) []JsRight {
	out := make([]JsRight, 0, len(rs))
	for _, r := range rs {
		out = append(out, JsRight{Kind: map[string]RightValue{string(r.Kind): {Value: RightParty{Party: string(r.Party)}}}})
	}
	return out
}

// requireAdmin refuses callers without ParticipantAdmin.
func requireAdmin(c caller) error {
	if c.wildcard || c.user.IsAdmin() {
		return nil
	}
	return permissionDenied(false, "the request needs the ParticipantAdmin right")
}

// requireSelfOrAdmin lets a user read itself.
func requireSelfOrAdmin(c caller, id string) error {
	if c.user != nil && c.user.ID == id {
		return nil
	}
	return requireAdmin(c)
}

// authenticateAdmin authenticates the caller and requires ParticipantAdmin.
func (h *Handler) authenticateAdmin(r *http.Request) (caller, error) {
	c, err := h.authenticate(r)
	if err != nil {
		return c, err
	}
	return c, requireAdmin(c)
}

// selfOrAdmin returns the user id of the request's path once the caller is
// shown to be that user or a participant admin: a user may read itself and
// its own rights.
func (h *Handler) selfOrAdmin(r *http.Request) (string, error) {
	id, err := pathUserID(r)
	if err != nil {
		return "", err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return "", err
	}
	return id, requireSelfOrAdmin(c, id)
}

// checkUserID validates a user id as Canton does.
func checkUserID(field, id string) error {
	if id == "" {
		return missingField(field)
	}
	if len(id) > ledger.MaxUserIDLength {
		return invalidField(field, "User ID %s is too long (max: %d)", fault.Quote(id), ledger.MaxUserIDLength)
	}
	for _, r := range id {
		if !ledger.ValidUserIDRune(r) {
			return invalidField(field, "User ID %s contains the character %q, which is neither alphanumeric nor one of %s", fault.Quote(id), r, ledger.UserIDSymbols)
		}
	}
	return nil
}

// pathUserID reads and checks the {user-id} path segment.
func pathUserID(r *http.Request) (string, error) {
	id := r.PathValue("user")
	return id, checkUserID("user_id", id)
}

// decodeBody reads a JSON object body.
func decodeBody(r *http.Request, what string) (map[string]any, error) {
	// The body is read into a pooled buffer: every string and number
	// parseJSON returns is a copy, so nothing refers to it afterwards.
	p := getBuffer()
	b, err := readBodyInto((*p)[:0], r)
	if err != nil {
		return nil, err
	}
	v, err := parseJSON(b)
	putBuffer(p, b)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, undecodable("Invalid value for: body (expected a %s object, got %s)", what, describe(v))
	}
	return obj, nil
}

// userInput is a decoded User: its fields and which of them were given.
type userInput struct {
	ID, PrimaryParty, ResourceVersion string
	Deactivated                       bool
	Annotations                       map[string]string
}

func (d *decoder) user(path string, obj map[string]any) userInput {
	var u userInput
	u.ID, _ = d.stringMember(path, obj, "id")
	u.PrimaryParty, _ = d.stringMember(path, obj, "primaryParty")
	u.Deactivated, _ = d.boolMember(path, obj, "isDeactivated")
	u.ResourceVersion, u.Annotations = d.objectMeta(path, obj, "metadata")
	return u
}

// rights decodes a list of Right; each must be a known kind, and party
// rights need a well-formed party.
func (d *decoder) rights(path string, obj map[string]any, name string) []ledger.Right {
	p := join(path, name)
	var out []ledger.Right
	switch v := obj[name].(type) {
	case nil:
	case []any:
		for i, item := range v {
			ip := fmt.Sprintf("%s[%d]", p, i)
			o, ok := d.object(ip, item)
			if !ok {
				d.fail(ip, "expected a Right object")
				return nil
			}
			kind, ok := d.member(ip, o, "kind")
			if !ok || len(kind) != 1 {
				d.fail(join(ip, "kind"), "expected exactly one of the right kinds")
				return nil
			}
			for k, kv := range kind {
				kp := join(join(ip, "kind"), k)
				r := ledger.Right{Kind: ledger.RightKind(k)}
				switch r.Kind {
				case ledger.CanActAs, ledger.CanReadAs, ledger.CanExecuteAs, ledger.CanReadAsAnyParty,
					ledger.CanExecuteAsAnyParty, ledger.ParticipantAdmin, ledger.IdentityProviderAdmin:
				default:
					d.fail(join(ip, "kind"), "unknown right kind %q", k)
					return nil
				}
				if r.Kind.PartyRight() {
					w, _ := d.object(kp, kv)
					val, ok := d.member(kp, w, "value")
					party, okParty := "", false
					if ok {
						party, okParty = d.stringMember(join(kp, "value"), val, userRightPartyFieldName)
					}
					if !okParty {
						d.fail(join(kp, "value.party"), "missing required field")
						return nil
					}
					r.Party = daml.Party(party)
				}
				out = append(out, r)
			}
		}
	default:
		d.fail(p, "expected an array, got %s", describe(v))
	}
	return out
}

// checkRights validates the parties of party rights.
func checkRights(rs []ledger.Right) error {
	for _, r := range rs {
		if r.Kind.PartyRight() {
			if msg := checkPartySyntax(string(r.Party)); msg != "" {
				return invalidField("party", "%s", msg)
			}
		}
	}
	return nil
}

// GET /v2/users: the participant's users by id, a page at a time.
func (h *Handler) listUsers(w http.ResponseWriter, r *http.Request) error {
	size, token, err := pageParams(r, maxUsersPageSize)
	if err != nil {
		return err
	}
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	users, err := h.cfg.Ledger.Users(r.Context(), h.cfg.Participant, token, size+1)
	if err != nil {
		return err
	}
	resp := ListUsersResponse{Users: []JsUser{}}
	if len(users) > size {
		users = users[:size]
		resp.NextPageToken = pageToken(users[size-1].ID)
	}
	for i := range users {
		resp.Users = append(resp.Users, userJSON(&users[i]))
	}
	return writeJSON(w, resp)
}

// pageParams reads pageSize (0 or absent: max; larger: max) and
// pageToken (the last key of the previous page, opaque to clients).
func pageParams(r *http.Request, max int) (size int, after string, err error) {
	q := r.URL.Query()
	size = max
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return 0, "", undecodable("Invalid value for: query parameter pageSize (expected an int32, got %s)", fault.Quote(v))
		}
		if n < 0 {
			return 0, "", invalidArgument("Page size must be non-negative")
		}
		if n > 0 && n < int64(max) {
			size = int(n)
		}
	}
	if v := q.Get("pageToken"); v != "" {
		b, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || len(b) == 0 {
			return 0, "", invalidArgument("Invalid page token")
		}
		after = string(b)
	}
	return size, after, nil
}

func pageToken(last string) string { return base64.RawURLEncoding.EncodeToString([]byte(last)) }

// POST /v2/users: create a user with its rights.
func (h *Handler) createUser(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "CreateUserRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	uo, ok := d.member("", obj, "user")
	if !ok && d.err == nil {
		d.fail("user", "missing required field")
	}
	var in userInput
	if ok {
		in = d.user("user", uo)
	}
	rights := d.rights("", obj, "rights")
	if d.err != nil {
		return d.err
	}
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	if err := checkUserID("id", in.ID); err != nil {
		return err
	}
	if in.PrimaryParty != "" {
		if msg := checkPartySyntax(in.PrimaryParty); msg != "" {
			return invalidField("primary_party", "%s", msg)
		}
	}
	if err := checkRights(rights); err != nil {
		return err
	}
	if len(rights) > maxRightsPerUser {
		return invalidArgument("too many rights: %d (max: %d)", len(rights), maxRightsPerUser)
	}
	u := ledger.User{
		ID: in.ID, Participant: h.cfg.Participant, PrimaryParty: daml.Party(in.PrimaryParty),
		Deactivated: in.Deactivated, Rights: dedupRights(rights), Annotations: in.Annotations,
	}
	if err := h.cfg.Ledger.CreateUser(r.Context(), u); err != nil {
		return userFault(err, "creating user", u.ID)
	}
	return h.writeUser(w, r, u.ID, "creating user")
}

func (h *Handler) writeUser(w http.ResponseWriter, r *http.Request, id, operation string) error {
	u, err := h.cfg.Ledger.User(r.Context(), h.cfg.Participant, id)
	if err != nil {
		return userFault(err, operation, id)
	}
	return writeJSON(w, UserResponse{User: userJSON(u)})
}

func dedupRights(rs []ledger.Right) []ledger.Right {
	var out []ledger.Right
	for _, r := range rs {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// GET /v2/users/{user-id}.
func (h *Handler) getUser(w http.ResponseWriter, r *http.Request) error {
	id, err := h.selfOrAdmin(r)
	if err != nil {
		return err
	}
	return h.writeUser(w, r, id, "getting user")
}

// GET /v2/authenticated-user: the token's user.
func (h *Handler) authenticatedUser(w http.ResponseWriter, r *http.Request) error {
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if c.user == nil {
		return invalidArgument("the request is not authenticated as a user: the ledger API runs without authentication")
	}
	return h.writeUser(w, r, c.user.ID, "getting user")
}

// DELETE /v2/users/{user-id}.
func (h *Handler) deleteUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUserID(r)
	if err != nil {
		return err
	}
	if _, err := h.authenticateAdmin(r); err != nil {
		return err
	}
	if err := h.cfg.Ledger.DeleteUser(r.Context(), h.cfg.Participant, id); err != nil {
		return userFault(err, "deleting user", id)
	}
	return writeJSON(w, struct{}{})
}

// PATCH /v2/users/{user-id}: change the fields the update mask names:
// primary_party, is_deactivated, metadata.annotations (merged: an empty
// value removes a key) or metadata (the same). A resource version in the
// request must be the stored one.
func (h *Handler) updateUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUserID(r)
	if err != nil {
		return err
	}
	obj, err := decodeBody(r, "UpdateUserRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	var in userInput
	if uo, ok := d.member("", obj, "user"); ok {
		in = d.user("user", uo)
	} else if d.err == nil {
		d.fail("user", "missing required field")
	}
	paths, ok := d.maskPaths(obj, "updateMask")
	if !ok && d.err == nil {
		d.fail("updateMask", "missing required field")
	}
	if d.err != nil {
		return d.err
	}
	c, err := h.authenticateAdmin(r)
	if err != nil {
		return err
	}
	if in.ID != "" && in.ID != id {
		return invalidArgument("user.id %s does not match the user %s of the path", fault.Quote(in.ID), fault.Quote(id))
	}
	if len(paths) == 0 {
		return invalidArgument("The update mask contains no entries")
	}
	var setParty, setDeactivated, setAnnotations bool
	for _, p := range paths {
		switch p {
		case "primary_party", "primaryParty":
			setParty = true
		case "is_deactivated", "isDeactivated":
			setDeactivated = true
		case "metadata", "metadata.annotations":
			setAnnotations = true
		case "id", "metadata.resource_version", "metadata.resourceVersion":
		default:
			return invalidArgument("The update path: '%s' points to an unknown field", fault.Clip(p))
		}
	}
	if setParty && in.PrimaryParty != "" {
		if msg := checkPartySyntax(in.PrimaryParty); msg != "" {
			return invalidField("primary_party", "%s", msg)
		}
	}
	if setDeactivated && in.Deactivated && c.user != nil && c.user.ID == id {
		return invalidArgument("Requesting user cannot self-deactivate")
	}
	_, err = h.cfg.Ledger.UpdateUser(r.Context(), h.cfg.Participant, id, func(u *ledger.User) error {
		if in.ResourceVersion != "" && in.ResourceVersion != strconv.FormatInt(u.ResourceVersion, 10) {
			return fault.WithCode(fault.Aborted, codeConcurrentUserEdit,
				"Update operation for user id %q failed due to a concurrent update to the same user", id)
		}
		if setParty {
			u.PrimaryParty = daml.Party(in.PrimaryParty)
		}
		if setDeactivated {
			u.Deactivated = in.Deactivated
		}
		if setAnnotations {
			ann := maps.Clone(u.Annotations)
			if ann == nil {
				ann = map[string]string{}
			}
			for k, v := range in.Annotations {
				if v == "" {
					delete(ann, k)
				} else {
					ann[k] = v
				}
			}
			u.Annotations = ann
		}
		return nil
	})
	if err != nil {
		return userFault(err, "updating user", id)
	}
	return h.writeUser(w, r, id, "updating user")
}

// GET /v2/users/{user-id}/rights.
func (h *Handler) listUserRights(w http.ResponseWriter, r *http.Request) error {
	id, err := h.selfOrAdmin(r)
	if err != nil {
		return err
	}
	u, err := h.cfg.Ledger.User(r.Context(), h.cfg.Participant, id)
	if err != nil {
		return userFault(err, "listing user rights", id)
	}
	return writeJSON(w, ListUserRightsResponse{Rights: rightsJSON(u.Rights)})
}

// POST /v2/users/{user-id}/rights grants rights; PATCH revokes them. Each
// answers the rights it changed.
func (h *Handler) changeUserRights(grant bool) func(w http.ResponseWriter, r *http.Request) error {
	what, operation := "GrantUserRightsRequest", "granting user rights"
	if !grant {
		what, operation = "RevokeUserRightsRequest", "revoking user rights"
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathUserID(r)
		if err != nil {
			return err
		}
		obj, err := decodeBody(r, what)
		if err != nil {
			return err
		}
		d := &decoder{}
		bodyID, _ := d.stringMember("", obj, "userId")
		rights := d.rights("", obj, "rights")
		if d.err != nil {
			return d.err
		}
		if _, err := h.authenticateAdmin(r); err != nil {
			return err
		}
		if bodyID != "" && bodyID != id {
			return invalidArgument("userId %s does not match the user %s of the path", fault.Quote(bodyID), fault.Quote(id))
		}
		if err := checkRights(rights); err != nil {
			return err
		}
		var changed []ledger.Right
		_, err = h.cfg.Ledger.UpdateUser(r.Context(), h.cfg.Participant, id, func(u *ledger.User) error {
			for _, rt := range dedupRights(rights) {
				has := u.Has(rt)
				switch {
				case grant && !has:
					u.Rights = append(u.Rights, rt)
					changed = append(changed, rt)
				case !grant && has:
					u.Rights = slices.DeleteFunc(u.Rights, func(x ledger.Right) bool { return x == rt })
					changed = append(changed, rt)
				}
			}
			if len(u.Rights) > maxRightsPerUser {
				return invalidArgument("too many rights: %d (max: %d)", len(u.Rights), maxRightsPerUser)
			}
			return nil
		})
		if err != nil {
			return userFault(err, operation, id)
		}
		if grant {
			return writeJSON(w, GrantUserRightsResponse{NewlyGrantedRights: rightsJSON(changed)})
		}
		return writeJSON(w, RevokeUserRightsResponse{NewlyRevokedRights: rightsJSON(changed)})
	}
}
