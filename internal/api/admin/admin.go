// Package admin serves sandnet's own admin API under /api/sandnet/v0: the
// knobs a real network turns by itself or its operators turn (users and
// parties, coin, time, pruning), exposed so that tests and scripts can
// drive a local network deterministically. It needs an operator token: a user with the
// ParticipantAdmin right on the validator participant.
package admin

import (
	"cmp"
	"context"
	_ "embed"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/operator"
	"github.com/sandnet/sandnet/internal/scan"
)

// Prefix is where the admin API is mounted.
const Prefix = "/api/sandnet/v0"

// openAPI is the admin API's OpenAPI 3.0 document, served at
// Prefix+"/openapi.yaml". The handler tests validate every request and
// response against it, so it cannot drift from the handlers.
//
//go:embed openapi.yaml
var openAPI []byte

// Operator is what the admin API drives.
type Operator interface {
	Network(ctx context.Context) (*operator.NetworkInfo, error)
	CreateUser(ctx context.Context, name, partyHint string) (*operator.UserInfo, error)
	Tap(ctx context.Context, user string, amount daml.Numeric) (daml.ContractID, error)
	// Clock reads the ledger clock; it is cheap, unlike Network.
	Clock(ctx context.Context) operator.Clock
	// AdvanceClock moves ledger time forward by at least 1µs and returns
	// the clock after the move.
	AdvanceClock(ctx context.Context, d time.Duration) (operator.Clock, error)
	// Prune prunes a participant's update stream up to and including upTo;
	// an empty participant means the validator participant.
	Prune(ctx context.Context, participant ledger.ParticipantID, upTo ledger.Offset) (operator.Pruned, error)
	// Migrate runs a hard synchronizer migration and returns the new
	// migration id.
	Migrate(ctx context.Context) (int64, error)
	// AddSynchronizer adds a synchronizer to the current migration.
	AddSynchronizer(ctx context.Context, alias string) (ledger.Synchronizer, error)
	// Reassign moves a contract to another synchronizer: an unassignment
	// on its current one, then an assignment on the target.
	Reassign(ctx context.Context, cid daml.ContractID, target ledger.SynchronizerID) (operator.Reassigned, error)
	// AddSV adds a super validator to the running network and serves it;
	// it returns the SV and its number.
	AddSV(ctx context.Context) (operator.SVInfo, int, error)
	// IsOperator reports whether a user may use the admin API.
	IsOperator(ctx context.Context, user string) (bool, error)
	// Hostings lists the participants hosting a party, on every
	// synchronizer, as the committed topology holds them.
	Hostings(ctx context.Context, party daml.Party) ([]ledger.Hosting, error)
	// HostParty hosts an existing party on a participant at a permission,
	// or changes the permission it is hosted at there.
	HostParty(ctx context.Context, party daml.Party, participant ledger.ParticipantID, perm ledger.Permission) (operator.HostingChange, error)
	// UnhostParty revokes a party's hosting on a participant.
	UnhostParty(ctx context.Context, party daml.Party, participant ledger.ParticipantID) (operator.HostingChange, error)
}

// Snapshotter takes a Scan's ACS snapshot on demand.
type Snapshotter interface {
	TakeNow(ctx context.Context) (scan.Snapshot, error)
}

// Handler serves the admin API.
type Handler struct {
	op        Operator
	auth      *web.Authenticator
	snapshots Snapshotter
}

// New returns the admin API handler. snapshots, when not nil, is the Scan
// whose snapshots POST /scan/snapshots takes: in sandnet start, SV 1's
// (the one at /api/scan).
func New(op Operator, a *web.Authenticator, snapshots Snapshotter) *Handler {
	return &Handler{op: op, auth: a, snapshots: snapshots}
}

// Register adds the admin routes to mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.Handle("GET "+Prefix+"/network", h.operatorOnly(h.network))
	mux.Handle("POST "+Prefix+"/users", h.operatorOnly(h.createUser))
	mux.Handle("POST "+Prefix+"/tap", h.operatorOnly(h.tap))
	mux.Handle("GET "+Prefix+"/clock", h.operatorOnly(h.clock))
	mux.Handle("POST "+Prefix+"/clock/advance", h.operatorOnly(h.advanceClock))
	mux.Handle("POST "+Prefix+"/prune", h.operatorOnly(h.prune))
	mux.Handle("POST "+Prefix+"/migrations", h.operatorOnly(h.migrate))
	mux.Handle("POST "+Prefix+"/synchronizers", h.operatorOnly(h.addSynchronizer))
	mux.Handle("POST "+Prefix+"/reassignments", h.operatorOnly(h.reassign))
	mux.Handle("POST "+Prefix+"/svs", h.operatorOnly(h.addSV))
	mux.Handle("GET "+Prefix+"/parties/{party}/hostings", h.operatorOnly(h.hostings))
	mux.Handle("POST "+Prefix+"/parties/{party}/hostings", h.operatorOnly(h.hostParty))
	mux.Handle("DELETE "+Prefix+"/parties/{party}/hostings/{participant_id}", h.operatorOnly(h.unhostParty))
	if h.snapshots != nil {
		mux.Handle("POST "+Prefix+"/scan/snapshots", h.operatorOnly(h.takeSnapshot))
	}
	mux.HandleFunc("GET "+Prefix+"/openapi.yaml", serveOpenAPI)
	mux.HandleFunc(Prefix+"/", web.NotFound)
}

// serveOpenAPI serves the API's description; it needs no token, so that
// tools can discover the API before they have one.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPI)))
	_, _ = w.Write(openAPI)
}

type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// operatorOnly authenticates the caller as an operator and answers any
// error the handler returns in the API's one error shape.
func (h *Handler) operatorOnly(fn handlerFunc) http.Handler { return guarded(h.authorize, fn) }

// guarded runs fn once authorize accepts the request, and answers either's
// error in the API's one error shape.
func guarded(authorize func(*http.Request) error, fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := authorize(r)
		if err == nil {
			err = fn(w, r)
		}
		if err != nil {
			web.WriteError(w, r, err)
		}
	})
}

func (h *Handler) authorize(r *http.Request) error {
	user, err := h.auth.Subject(r)
	if err != nil {
		return err
	}
	if user == "" && h.auth.Disabled {
		return nil
	}
	ok, err := h.op.IsOperator(r.Context(), user)
	if err != nil {
		return err
	}
	if !ok {
		return fault.New(fault.PermissionDenied, "Authorization Failed for %s", fault.Clip(user))
	}
	return nil
}

// NetworkResponse describes the network.
type NetworkResponse struct {
	DSOPartyID    string            `json:"dso_party_id"`
	MigrationID   int64             `json:"migration_id"`
	Now           string            `json:"now"`
	ClockOffsetUs int64             `json:"clock_offset_us"`
	Synchronizers []SynchronizerOut `json:"synchronizers"`
	// Migrations says where each migration starts in the participants'
	// streams: the JSON Ledger API carries no migration id, so that a
	// client of it tells the migration of an update by its offset.
	Migrations   []MigrationOut   `json:"migrations"`
	Participants []ParticipantOut `json:"participants"`
	SVs          []SVOut          `json:"svs"`
	Users        []UserOut        `json:"users"`
	Validators   []ValidatorOut   `json:"validators"`
}

// SynchronizerOut is a synchronizer.
type SynchronizerOut struct {
	ID          string `json:"synchronizer_id"`
	Alias       string `json:"alias"`
	MigrationID int64  `json:"migration_id"`
}

// MigrationOut is where a hard migration starts.
type MigrationOut struct {
	MigrationID int64 `json:"migration_id"`
	// StartOffsets holds, per participant, its last offset before the
	// migration: its updates after it belong to this migration or a
	// later one. A participant not listed had no update before it.
	StartOffsets []StartOffsetOut `json:"start_offsets"`
}

// StartOffsetOut is a participant's offset at the start of a migration.
type StartOffsetOut struct {
	ParticipantID string `json:"participant_id"`
	Offset        int64  `json:"offset"`
}

// ParticipantOut is a participant.
type ParticipantOut struct {
	ID        string   `json:"participant_id"`
	Name      string   `json:"name"`
	Parties   []string `json:"parties"`
	LedgerEnd int64    `json:"ledger_end"`
	// PrunedUpTo is the offset the participant's stream is pruned up to,
	// inclusive (0: nothing pruned).
	PrunedUpTo int64 `json:"pruned_up_to"`
}

// SVOut is a super validator.
type SVOut struct {
	Name          string `json:"name"`
	PartyID       string `json:"party_id"`
	ParticipantID string `json:"participant_id"`
}

// ValidatorOut is a validator node.
type ValidatorOut struct {
	Name          string `json:"name"`
	PartyID       string `json:"party_id"`
	ParticipantID string `json:"participant_id"`
	OperatorUser  string `json:"operator_user"`
	// SV is k when the validator runs on SV k's node (absent: a
	// participant of its own).
	SV          int             `json:"sv,omitempty"`
	WalletUsers []WalletUserOut `json:"wallet_users"`
}

// WalletUserOut is a validator's wallet user.
type WalletUserOut struct {
	UserID  string `json:"user_id"`
	PartyID string `json:"party_id"`
}

// UserOut is a ledger API user.
type UserOut struct {
	ID            string     `json:"user_id"`
	ParticipantID string     `json:"participant_id"`
	PartyID       string     `json:"party_id,omitempty"`
	Rights        []RightOut `json:"rights"`
	Deactivated   bool       `json:"deactivated"`
}

// RightOut is a user right.
type RightOut struct {
	Kind    string `json:"kind"`
	PartyID string `json:"party_id,omitempty"`
}

func (h *Handler) network(w http.ResponseWriter, r *http.Request) error {
	info, err := h.op.Network(r.Context())
	if err != nil {
		return err
	}
	out := NetworkResponse{
		DSOPartyID: string(info.DSOParty), MigrationID: info.MigrationID,
		Now: FormatTime(info.Now), ClockOffsetUs: info.ClockOffset,
		Synchronizers: []SynchronizerOut{}, Migrations: []MigrationOut{}, Participants: []ParticipantOut{}, SVs: []SVOut{}, Users: []UserOut{},
		Validators: []ValidatorOut{},
	}
	for _, s := range info.Synchronizers {
		out.Synchronizers = append(out.Synchronizers, SynchronizerOut{string(s.ID), s.Alias, s.MigrationID})
	}
	for _, m := range info.Migrations {
		mo := MigrationOut{MigrationID: m.ID, StartOffsets: []StartOffsetOut{}}
		for _, p := range slices.Sorted(maps.Keys(m.Offsets)) {
			mo.StartOffsets = append(mo.StartOffsets, StartOffsetOut{string(p), int64(m.Offsets[p])})
		}
		out.Migrations = append(out.Migrations, mo)
	}
	for _, p := range info.Participants {
		po := ParticipantOut{ID: string(p.ID), Name: p.Name, Parties: []string{},
			LedgerEnd: int64(p.LedgerEnd), PrunedUpTo: int64(p.PrunedUpTo)}
		for _, party := range p.Parties {
			po.Parties = append(po.Parties, string(party))
		}
		out.Participants = append(out.Participants, po)
	}
	for _, sv := range info.SVs {
		out.SVs = append(out.SVs, SVOut{sv.Name, string(sv.Party), string(sv.Participant)})
	}
	for _, u := range info.Users {
		out.Users = append(out.Users, userOut(u))
	}
	for _, v := range info.Validators {
		vo := ValidatorOut{Name: v.Name, PartyID: string(v.Party), ParticipantID: string(v.Participant), OperatorUser: v.OperatorUser, SV: v.SV, WalletUsers: []WalletUserOut{}}
		for _, u := range v.WalletUsers {
			vo.WalletUsers = append(vo.WalletUsers, WalletUserOut{UserID: u.Name, PartyID: string(u.Party)})
		}
		out.Validators = append(out.Validators, vo)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

func userOut(u operator.UserInfo) UserOut {
	out := UserOut{ID: u.ID, ParticipantID: string(u.Participant), PartyID: string(u.PrimaryParty), Rights: []RightOut{}, Deactivated: u.Deactivated}
	for _, r := range u.Rights {
		out.Rights = append(out.Rights, RightOut{Kind: string(r.Kind), PartyID: string(r.Party)})
	}
	return out
}

// CreateUserRequest creates a user with a new party.
type CreateUserRequest struct {
	Name string `json:"name"`
	// PartyHint defaults to the name.
	PartyHint string `json:"party_hint,omitempty"`
}

func (h *Handler) createUser(w http.ResponseWriter, r *http.Request) error {
	var req CreateUserRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	u, err := h.op.CreateUser(r.Context(), req.Name, req.PartyHint)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, userOut(*u))
	return nil
}

// TapRequest mints coin for a user.
type TapRequest struct {
	User string `json:"user"`
	// Amount is in CC (Amulet), a Decimal string.
	Amount string `json:"amount"`
}

// TapResponse names the new Amulet.
type TapResponse struct {
	ContractID string `json:"contract_id"`
}

func (h *Handler) tap(w http.ResponseWriter, r *http.Request) error {
	var req TapRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	amount, err := daml.ParseNumeric(req.Amount)
	if err != nil {
		return fault.New(fault.InvalidArgument, "Failed to decode: %v", err)
	}
	if amount.Sign() <= 0 {
		return fault.New(fault.InvalidArgument, "amount must be positive")
	}
	cid, err := h.op.Tap(r.Context(), req.User, amount)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, TapResponse{ContractID: string(cid)})
	return nil
}

// ClockResponse is the ledger time.
type ClockResponse struct {
	Now           string `json:"now"`
	ClockOffsetUs int64  `json:"clock_offset_us"`
}

func (h *Handler) clock(w http.ResponseWriter, r *http.Request) error {
	web.WriteJSON(w, http.StatusOK, clockResponse(h.op.Clock(r.Context())))
	return nil
}

func clockResponse(c operator.Clock) ClockResponse {
	return ClockResponse{Now: FormatTime(c.Now), ClockOffsetUs: c.Offset}
}

// AdvanceClockRequest moves ledger time forward.
type AdvanceClockRequest struct {
	// Duration in Go syntax: "90s", "1h30m", "720h". It must be at least
	// 1µs, the ledger's resolution; a fraction of a microsecond beyond that
	// is dropped.
	Duration string `json:"duration"`
}

func (h *Handler) advanceClock(w http.ResponseWriter, r *http.Request) error {
	var req AdvanceClockRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	d, err := time.ParseDuration(req.Duration)
	if err != nil {
		return fault.New(fault.InvalidArgument, "invalid duration %s: use Go syntax such as 90s, 1h30m or 720h", fault.Quote(req.Duration))
	}
	if d <= 0 {
		return fault.New(fault.InvalidArgument, "the clock only moves forward: duration must be positive")
	}
	if d < time.Microsecond {
		return fault.New(fault.InvalidArgument, "the clock moves by at least 1µs, its resolution; got %s", d)
	}
	c, err := h.op.AdvanceClock(r.Context(), d)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, clockResponse(c))
	return nil
}

// PruneRequest prunes a participant's update stream.
type PruneRequest struct {
	// ParticipantID defaults to the validator participant.
	ParticipantID string `json:"participant_id,omitempty"`
	// Offset is the last offset pruned (inclusive); it must be positive and
	// at most the participant's ledger end.
	Offset int64 `json:"offset"`
}

// PruneResponse says how far the participant's stream is now pruned.
type PruneResponse struct {
	ParticipantID string `json:"participant_id"`
	PrunedUpTo    int64  `json:"pruned_up_to"`
}

func (h *Handler) prune(w http.ResponseWriter, r *http.Request) error {
	var req PruneRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Offset <= 0 {
		return fault.New(fault.InvalidArgument, "offset must be a positive ledger offset; got %d", req.Offset)
	}
	p, err := h.op.Prune(r.Context(), ledger.ParticipantID(req.ParticipantID), ledger.Offset(req.Offset))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, PruneResponse{ParticipantID: string(p.Participant), PrunedUpTo: int64(p.UpTo)})
	return nil
}

// MigrationResponse names the migration a hard synchronizer migration
// started.
type MigrationResponse struct {
	MigrationID int64 `json:"migration_id"`
}

// migrate runs a hard synchronizer migration. It takes no body.
func (h *Handler) migrate(w http.ResponseWriter, r *http.Request) error {
	id, err := h.op.Migrate(r.Context())
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, MigrationResponse{MigrationID: id})
	return nil
}

// SvResponse describes a super validator added to the network.
type SvResponse struct {
	SV            int    `json:"sv"`
	Name          string `json:"name"`
	Party         string `json:"party"`
	ParticipantID string `json:"participant_id"`
	LedgerAPIPath string `json:"ledger_api_path"`
	ScanPath      string `json:"scan_path"`
}

func (h *Handler) addSV(w http.ResponseWriter, r *http.Request) error {
	sv, k, err := h.op.AddSV(r.Context())
	if err != nil {
		return err
	}
	prefix := "/sv/" + strconv.Itoa(k)
	web.WriteJSON(w, http.StatusOK, SvResponse{
		SV: k, Name: sv.Name, Party: string(sv.Party), ParticipantID: string(sv.Participant),
		LedgerAPIPath: prefix, ScanPath: prefix + "/api/scan",
	})
	return nil
}

// SnapshotResponse describes an ACS snapshot taken on demand.
type SnapshotResponse struct {
	MigrationID int64 `json:"migration_id"`
	// RecordTime is in the date-time form Scan's snapshot-timestamp
	// reports, so it can be passed to POST /api/scan/v2/state/acs as it is.
	RecordTime string `json:"record_time"`
	Contracts  int64  `json:"contracts"`
}

func (h *Handler) takeSnapshot(w http.ResponseWriter, r *http.Request) error {
	snap, err := h.snapshots.TakeNow(r.Context())
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, SnapshotResponse{
		MigrationID: snap.Migration, RecordTime: snap.RecordTime.String(), Contracts: snap.Contracts(),
	})
	return nil
}

// HostingsResponse lists the participants hosting a party: the topology
// a Scan reads to say which participant hosts a party, which the JSON
// Ledger API does not expose.
type HostingsResponse struct {
	PartyID  string       `json:"party_id"`
	Hostings []HostingOut `json:"hostings"`
}

// HostingOut is a participant hosting the party on a synchronizer.
type HostingOut struct {
	ParticipantID  string `json:"participant_id"`
	SynchronizerID string `json:"synchronizer_id"`
	// Permission is Submission, Confirmation or Observation.
	Permission string `json:"permission"`
}

func (h *Handler) hostings(w http.ResponseWriter, r *http.Request) error {
	party, err := partyInPath(r)
	if err != nil {
		return err
	}
	hs, err := h.op.Hostings(r.Context(), party)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, hostingsResponse(party, hs))
	return nil
}

func partyInPath(r *http.Request) (daml.Party, error) {
	party := r.PathValue("party")
	if !ledger.ValidPartyID(party) {
		return "", fault.New(fault.InvalidArgument, "invalid party id %s: want <hint>::<fingerprint>", fault.Quote(party))
	}
	return daml.Party(party), nil
}

// hostingsResponse lists hostings ordered by synchronizer and participant.
func hostingsResponse(party daml.Party, hs []ledger.Hosting) HostingsResponse {
	hs = slices.Clone(hs)
	slices.SortFunc(hs, func(a, b ledger.Hosting) int {
		return cmp.Or(cmp.Compare(a.Synchronizer, b.Synchronizer), cmp.Compare(a.Participant, b.Participant))
	})
	out := HostingsResponse{PartyID: string(party), Hostings: []HostingOut{}}
	for _, x := range hs {
		out.Hostings = append(out.Hostings, HostingOut{ParticipantID: string(x.Participant), SynchronizerID: string(x.Synchronizer), Permission: string(x.Permission)})
	}
	return out
}

// HostPartyRequest hosts a party on a participant, or changes the
// permission it is hosted at there.
type HostPartyRequest struct {
	ParticipantID string `json:"participant_id"`
	// Permission is Submission (the default), Confirmation or Observation.
	Permission string `json:"permission,omitempty"`
}

// HostingChangeResponse is a party's hostings after a change, and the
// update ids of the topology transactions that made it (empty when the
// hosting was already as asked).
type HostingChangeResponse struct {
	HostingsResponse
	UpdateIDs []string `json:"update_ids"`
}

func hostingChangeResponse(party daml.Party, c operator.HostingChange) HostingChangeResponse {
	return HostingChangeResponse{HostingsResponse: hostingsResponse(party, c.Hostings), UpdateIDs: append([]string{}, c.UpdateIDs...)}
}

func (h *Handler) hostParty(w http.ResponseWriter, r *http.Request) error {
	party, err := partyInPath(r)
	if err != nil {
		return err
	}
	var req HostPartyRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.ParticipantID == "" {
		return fault.New(fault.InvalidArgument, "participant_id is required")
	}
	perm := ledger.Permission(cmp.Or(req.Permission, string(ledger.PermissionSubmission)))
	switch perm {
	case ledger.PermissionSubmission, ledger.PermissionConfirmation, ledger.PermissionObservation:
	default:
		return fault.New(fault.InvalidArgument, "invalid permission %s: want Submission, Confirmation or Observation", fault.Quote(req.Permission))
	}
	c, err := h.op.HostParty(r.Context(), party, ledger.ParticipantID(req.ParticipantID), perm)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, hostingChangeResponse(party, c))
	return nil
}

func (h *Handler) unhostParty(w http.ResponseWriter, r *http.Request) error {
	party, err := partyInPath(r)
	if err != nil {
		return err
	}
	c, err := h.op.UnhostParty(r.Context(), party, ledger.ParticipantID(r.PathValue("participant_id")))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, hostingChangeResponse(party, c))
	return nil
}

// FormatTime renders a ledger time as RFC 3339 with microseconds.
func FormatTime(t daml.Timestamp) string {
	return time.UnixMicro(int64(t)).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// AddSynchronizerRequest adds a synchronizer.
type AddSynchronizerRequest struct {
	Alias string `json:"alias"`
}

// SynchronizerResponse describes a synchronizer.
type SynchronizerResponse struct {
	SynchronizerID string `json:"synchronizer_id"`
	Alias          string `json:"alias"`
	MigrationID    int64  `json:"migration_id"`
}

func (h *Handler) addSynchronizer(w http.ResponseWriter, r *http.Request) error {
	var req AddSynchronizerRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Alias == "" {
		return fault.New(fault.InvalidArgument, "alias is required")
	}
	s, err := h.op.AddSynchronizer(r.Context(), req.Alias)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, SynchronizerResponse{SynchronizerID: string(s.ID), Alias: s.Alias, MigrationID: s.MigrationID})
	return nil
}

// ReassignRequest moves a contract to another synchronizer.
type ReassignRequest struct {
	ContractID           string `json:"contract_id"`
	TargetSynchronizerID string `json:"target_synchronizer_id"`
}

// ReassignResponse describes a reassignment: its two updates, the
// unassign id that correlates them and the contract's new reassignment
// counter.
type ReassignResponse struct {
	ContractID           string `json:"contract_id"`
	SourceSynchronizerID string `json:"source_synchronizer_id"`
	TargetSynchronizerID string `json:"target_synchronizer_id"`
	UnassignID           string `json:"unassign_id"`
	ReassignmentCounter  int64  `json:"reassignment_counter"`
	UnassignUpdateID     string `json:"unassign_update_id"`
	AssignUpdateID       string `json:"assign_update_id"`
	MigrationID          int64  `json:"migration_id"`
}

func (h *Handler) reassign(w http.ResponseWriter, r *http.Request) error {
	var req ReassignRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.ContractID == "":
		return fault.New(fault.InvalidArgument, "contract_id is required")
	case req.TargetSynchronizerID == "":
		return fault.New(fault.InvalidArgument, "target_synchronizer_id is required")
	}
	res, err := h.op.Reassign(r.Context(), daml.ContractID(req.ContractID), ledger.SynchronizerID(req.TargetSynchronizerID))
	if err != nil {
		return err
	}
	un, as := res.Unassigned, res.Assigned
	web.WriteJSON(w, http.StatusOK, ReassignResponse{
		ContractID: req.ContractID, SourceSynchronizerID: string(un.Source), TargetSynchronizerID: string(un.Target),
		UnassignID: un.UnassignID, ReassignmentCounter: un.Counter,
		UnassignUpdateID: un.UpdateID, AssignUpdateID: as.UpdateID, MigrationID: as.MigrationID,
	})
	return nil
}
