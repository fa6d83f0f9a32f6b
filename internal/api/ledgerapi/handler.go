// Package ledgerapi serves a participant's JSON Ledger API v2 as Canton 3.5
// does: the updates list (POST /v2/updates, its deprecated twin
// /v2/updates/flats and the deprecated trees list /v2/updates/trees), the
// active contracts at an offset, the command submission and completion
// services (/v2/commands), their websocket streams, the ledger end,
// the connected synchronizers, the version, user management (/v2/users),
// party management (/v2/parties), identity provider configurations
// (/v2/idps), point lookups of updates and contracts, the paged reads,
// the packages surface and the package preferences of interactive
// submission, with Canton's request rules, response encodings,
// errors and authorization, so that unmodified Canton clients work against
// sandnet. A path under /v2 that no route
// serves is answered with Canton's 404 for unknown routes.
//
// One Handler serves one participant. cmd/sandnet mounts the validator's
// at the root of the listener and each SV's under /sv/<k>.
package ledgerapi

import (
	"context"
	_ "embed"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// openAPI is this API's OpenAPI 3.0 document, served at /docs/openapi. The
// handler tests validate every request and response against it.
//
//go:embed openapi.yaml
var openAPI []byte

// Ledger is what the API reads: the network engine's committed state, as
// seen by every participant.
type Ledger interface {
	// Head returns the committed tip, with every participant's ledger end.
	Head(ctx context.Context) (ledger.Head, error)
	// Updates returns a range of a participant's stream, each update a
	// whole transaction (not projected).
	Updates(ctx context.Context, q ledger.UpdateQuery) ([]ledger.ParticipantUpdate, error)
	// Completions returns a range of a participant's completion stream.
	Completions(ctx context.Context, q ledger.CompletionQuery) ([]ledger.Completion, error)
	// User returns a participant's user; an unknown one is a
	// fault.NotFound.
	User(ctx context.Context, p ledger.ParticipantID, id string) (*ledger.User, error)
	// CachedUser is User from the engine's cache of the users that
	// authorize requests (ledger.Network.CachedUser): current for changes
	// made through this process, at most a second old for changes made by
	// another process sharing the database.
	CachedUser(ctx context.Context, p ledger.ParticipantID, id string) (*ledger.User, error)
	// HostedParties returns the parties a participant hosts, sorted.
	HostedParties(p ledger.ParticipantID) []daml.Party
	// Hostings lists the network's topology: who hosts which party.
	Hostings(ctx context.Context) ([]ledger.Hosting, error)
	// Synchronizers lists the network's synchronizers, of every
	// migration, in creation order.
	Synchronizers(ctx context.Context) ([]ledger.Synchronizer, error)
	// Committed returns a channel closed at the next commit.
	Committed() <-chan struct{}
	// Watermark returns a participant's ledger end and the synchronizer
	// time there: a record time that every update sequenced after that
	// end will be later than. Offset checkpoints at the ledger end carry
	// it, as Canton's carry their synchronizers' times.
	Watermark(ctx context.Context, p ledger.ParticipantID) (ledger.Offset, daml.Timestamp, error)

	// Users lists a participant's users by id, after a cursor.
	Users(ctx context.Context, p ledger.ParticipantID, after string, limit int) ([]ledger.User, error)
	// CreateUser adds a user; an existing one is a fault.AlreadyExists.
	CreateUser(ctx context.Context, u ledger.User) error
	// UpdateUser changes a user atomically; an unknown one is a
	// fault.NotFound.
	UpdateUser(ctx context.Context, p ledger.ParticipantID, id string, change func(*ledger.User) error) (*ledger.User, error)
	// DeleteUser removes a user; an unknown one is a fault.NotFound.
	DeleteUser(ctx context.Context, p ledger.ParticipantID, id string) error

	// SubmitAndWait runs a command through the engine's one submission
	// path and returns the committed transaction and its completion.
	SubmitAndWait(ctx context.Context, cmd ledger.Command) (*ledger.Transaction, *ledger.Completion, error)
	// SubmitAsync runs a command through the same path and returns once
	// the sequencer has taken it; its outcome is its completion.
	SubmitAsync(ctx context.Context, cmd ledger.Command) error
	// Reassign moves a contract to another synchronizer: its
	// unassignment and then its assignment.
	Reassign(ctx context.Context, spec ledger.ReassignSpec) (unassigned, assigned *ledger.Reassignment, err error)
	// Prepare interprets a command for an interactive submission without
	// committing it (ledger.Network.Prepare).
	Prepare(ctx context.Context, cmd ledger.Command, maxRecordTime daml.Timestamp) (*ledger.Prepared, error)
	// ExecuteAndWait checks, re-interprets and commits a prepared
	// transaction with its signatures (ledger.Network.ExecuteAndWait).
	ExecuteAndWait(ctx context.Context, spec ledger.ExecuteSpec) (*ledger.Transaction, *ledger.Completion, error)
	// ExecuteAsync is ExecuteAndWait returning once the sequencer has
	// taken the transaction.
	ExecuteAsync(ctx context.Context, spec ledger.ExecuteSpec) error
	// Participants lists the network's participants.
	Participants(ctx context.Context) ([]ledger.Participant, error)
	// AllocateExternalParty records a participant's approval of hosting
	// an external party (ledger.Network.AllocateExternalParty).
	AllocateExternalParty(ctx context.Context, spec ledger.ExternalPartySpec) (authorized bool, err error)
	PartyDirectory
	UpdateLookup
}

// NetworkLedger is the Ledger of a network engine.
func NetworkLedger(n *ledger.Network) Ledger { return networkLedger{n} }

type networkLedger struct{ n *ledger.Network }

func (l networkLedger) Head(ctx context.Context) (ledger.Head, error) { return l.n.Store().Head(ctx) }
func (l networkLedger) Prepare(ctx context.Context, cmd ledger.Command, maxRecordTime daml.Timestamp) (*ledger.Prepared, error) {
	return l.n.Prepare(ctx, cmd, maxRecordTime)
}
func (l networkLedger) ExecuteAndWait(ctx context.Context, spec ledger.ExecuteSpec) (*ledger.Transaction, *ledger.Completion, error) {
	return l.n.ExecuteAndWait(ctx, spec)
}
func (l networkLedger) ExecuteAsync(ctx context.Context, spec ledger.ExecuteSpec) error {
	return l.n.ExecuteAsync(ctx, spec)
}
func (l networkLedger) Participants(ctx context.Context) ([]ledger.Participant, error) {
	return l.n.Store().Participants(ctx)
}
func (l networkLedger) AllocateExternalParty(ctx context.Context, spec ledger.ExternalPartySpec) (bool, error) {
	return l.n.AllocateExternalParty(ctx, spec)
}
func (l networkLedger) Updates(ctx context.Context, q ledger.UpdateQuery) ([]ledger.ParticipantUpdate, error) {
	return l.n.Store().Updates(ctx, q)
}
func (l networkLedger) Completions(ctx context.Context, q ledger.CompletionQuery) ([]ledger.Completion, error) {
	return l.n.Store().Completions(ctx, q)
}
func (l networkLedger) User(ctx context.Context, p ledger.ParticipantID, id string) (*ledger.User, error) {
	return l.n.Store().User(ctx, p, id)
}
func (l networkLedger) CachedUser(ctx context.Context, p ledger.ParticipantID, id string) (*ledger.User, error) {
	return l.n.CachedUser(ctx, p, id)
}
func (l networkLedger) HostedParties(p ledger.ParticipantID) []daml.Party {
	return l.n.HostedParties(p)
}
func (l networkLedger) Hostings(ctx context.Context) ([]ledger.Hosting, error) {
	return l.n.Store().Hostings(ctx, "")
}
func (l networkLedger) Synchronizers(ctx context.Context) ([]ledger.Synchronizer, error) {
	return l.n.Store().Synchronizers(ctx)
}
func (l networkLedger) Committed() <-chan struct{} { return l.n.Committed() }
func (l networkLedger) Watermark(ctx context.Context, p ledger.ParticipantID) (ledger.Offset, daml.Timestamp, error) {
	return l.n.Watermark(ctx, p)
}
func (l networkLedger) Users(ctx context.Context, p ledger.ParticipantID, after string, limit int) ([]ledger.User, error) {
	return l.n.Store().Users(ctx, p, after, limit)
}
func (l networkLedger) CreateUser(ctx context.Context, u ledger.User) error {
	return l.n.CreateUser(ctx, u)
}
func (l networkLedger) UpdateUser(ctx context.Context, p ledger.ParticipantID, id string, change func(*ledger.User) error) (*ledger.User, error) {
	return l.n.UpdateUser(ctx, p, id, change)
}
func (l networkLedger) SubmitAndWait(ctx context.Context, cmd ledger.Command) (*ledger.Transaction, *ledger.Completion, error) {
	return l.n.SubmitAndWait(ctx, cmd)
}
func (l networkLedger) Reassign(ctx context.Context, spec ledger.ReassignSpec) (*ledger.Reassignment, *ledger.Reassignment, error) {
	return l.n.Reassign(ctx, spec)
}
func (l networkLedger) SubmitAsync(ctx context.Context, cmd ledger.Command) error {
	return l.n.SubmitAsync(ctx, cmd)
}
func (l networkLedger) DeleteUser(ctx context.Context, p ledger.ParticipantID, id string) error {
	return l.n.DeleteUser(ctx, p, id)
}

// Defaults of Canton's JSON API list settings.
const (
	// DefaultMaxListElements is http-list-max-elements-limit.
	DefaultMaxListElements = 200
	// DefaultListWaitTime is http-list-wait-time.
	DefaultListWaitTime = 500 * time.Millisecond
)

// DefaultRequestFrameTimeout is how long a websocket stream waits for its
// request frame, which a client sends right after the handshake.
const DefaultRequestFrameTimeout = 30 * time.Second

// Version is the Canton version sandnet's ledger API reports.
const Version = "3.5.14"

// Config configures a Handler.
type Config struct {
	// Participant is the participant served; ParticipantName is its name,
	// reported in errors.
	Participant     ledger.ParticipantID
	ParticipantName string
	Ledger          Ledger
	Registry        *ledger.Registry
	Auth            *web.Authenticator
	// MaxListElements is http-list-max-elements-limit: a list with more
	// elements is refused with 413 (DefaultMaxListElements when 0).
	MaxListElements int
	// ListWaitTime is http-list-wait-time: an open-ended list is complete
	// once no element arrived for this long (DefaultListWaitTime when 0).
	ListWaitTime time.Duration
	// ListBufferBytes is how much of a bounded list response is held
	// before it is streamed (DefaultListBufferBytes when 0): a smaller
	// list is sent whole, with a Content-Length.
	ListBufferBytes int
	// RequestFrameTimeout bounds the wait for a websocket stream's request
	// frame (DefaultRequestFrameTimeout when 0).
	RequestFrameTimeout time.Duration
	// Logger records why requests were refused (slog.Default when nil).
	Logger *slog.Logger
}

// Handler serves one participant's ledger API.
type Handler struct {
	cfg Config
	// disclosedCache remembers checked disclosed contracts.
	disclosedCache disclosedCache
}

// New returns a handler. Ledger, Registry and Auth are required.
func New(cfg Config) *Handler {
	if cfg.Ledger == nil || cfg.Registry == nil || cfg.Auth == nil {
		panic("ledgerapi: Config needs Ledger, Registry and Auth")
	}
	if cfg.MaxListElements <= 0 {
		cfg.MaxListElements = DefaultMaxListElements
	}
	if cfg.ListWaitTime <= 0 {
		cfg.ListWaitTime = DefaultListWaitTime
	}
	if cfg.ListBufferBytes <= 0 {
		cfg.ListBufferBytes = DefaultListBufferBytes
	}
	if cfg.RequestFrameTimeout <= 0 {
		cfg.RequestFrameTimeout = DefaultRequestFrameTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Handler{cfg: cfg}
}

// Register adds the routes to mux under prefix ("" for the root, "/sv/1"
// for an SV's participant).
func (h *Handler) Register(mux *http.ServeMux, prefix string) {
	mux.Handle("POST "+prefix+"/v2/updates", h.serve(h.updates))
	mux.Handle("POST "+prefix+"/v2/updates/flats", h.serve(h.updates))
	mux.Handle("POST "+prefix+"/v2/updates/trees", h.serve(h.updateTrees))
	mux.Handle("GET "+prefix+"/v2/state/connected-synchronizers", h.serve(h.connectedSynchronizers))
	mux.Handle("GET "+prefix+"/v2/state/ledger-end", h.serve(h.ledgerEnd))
	mux.Handle("GET "+prefix+"/v2/state/latest-pruned-offsets", h.serve(h.latestPrunedOffsets))
	mux.Handle("POST "+prefix+"/v2/state/active-contracts", h.serve(h.activeContractsList))
	mux.Handle("GET "+prefix+"/v2/version", h.serve(h.version))
	mux.HandleFunc("GET "+prefix+"/v2/updates", h.updatesStream)
	mux.HandleFunc("GET "+prefix+"/v2/updates/flats", h.updatesStream)
	mux.HandleFunc("GET "+prefix+"/v2/state/active-contracts", h.activeContractsStream)
	mux.Handle("POST "+prefix+"/v2/commands/completions", h.serve(h.completionsList(true)))
	mux.Handle("POST "+prefix+"/v2/commands/command-completions", h.serve(h.completionsList(false)))
	mux.HandleFunc("GET "+prefix+"/v2/commands/completions", h.completionsStream(true))
	mux.HandleFunc("GET "+prefix+"/v2/commands/command-completions", h.completionsStream(false))
	mux.Handle("GET "+prefix+"/v2/users", h.serve(h.listUsers))
	mux.Handle("POST "+prefix+"/v2/users", h.serve(h.createUser))
	mux.Handle("GET "+prefix+"/v2/users/{user}", h.serve(h.getUser))
	mux.Handle("DELETE "+prefix+"/v2/users/{user}", h.serve(h.deleteUser))
	mux.Handle("PATCH "+prefix+"/v2/users/{user}", h.serve(h.updateUser))
	mux.Handle("GET "+prefix+"/v2/users/{user}/rights", h.serve(h.listUserRights))
	mux.Handle("POST "+prefix+"/v2/users/{user}/rights", h.serve(h.changeUserRights(true)))
	mux.Handle("PATCH "+prefix+"/v2/users/{user}/rights", h.serve(h.changeUserRights(false)))
	mux.Handle("GET "+prefix+"/v2/authenticated-user", h.serve(h.authenticatedUser))
	mux.Handle("GET "+prefix+"/v2/parties", h.serve(h.listParties))
	mux.Handle("GET "+prefix+"/v2/parties/participant-id", h.serve(h.participantID))
	mux.Handle("GET "+prefix+"/v2/parties/{party}", h.serve(h.getParties))
	mux.Handle("POST "+prefix+"/v2/commands/submit-and-wait", h.serve(h.submitAndWait))
	mux.Handle("POST "+prefix+"/v2/commands/submit-and-wait-for-transaction", h.serve(h.submitAndWaitForTransaction))
	mux.Handle("POST "+prefix+"/v2/commands/submit-and-wait-for-transaction-tree", h.serve(h.submitAndWaitForTransactionTree))
	mux.Handle("POST "+prefix+"/v2/commands/async/submit", h.serve(h.submitAsync))
	mux.Handle("POST "+prefix+"/v2/commands/submit-and-wait-for-reassignment", h.serve(h.submitAndWaitForReassignment))
	mux.Handle("POST "+prefix+"/v2/commands/async/submit-reassignment", h.serve(h.submitReassignmentAsync))
	mux.Handle("POST "+prefix+"/v2/interactive-submission/prepare", h.serve(h.prepare))
	mux.Handle("POST "+prefix+"/v2/interactive-submission/execute", h.serve(h.execute))
	mux.Handle("POST "+prefix+"/v2/interactive-submission/executeAndWait", h.serve(h.executeAndWait))
	mux.Handle("POST "+prefix+"/v2/interactive-submission/executeAndWaitForTransaction", h.serve(h.executeAndWaitForTransaction))
	mux.Handle("POST "+prefix+"/v2/parties/external/generate-topology", h.serve(h.generateExternalPartyTopology))
	mux.Handle("POST "+prefix+"/v2/parties/external/allocate", h.serve(h.allocateExternalParty))
	h.registerNeighbours(mux, prefix)
	mux.HandleFunc("GET "+prefix+"/docs/openapi", serveOpenAPI)
	mux.HandleFunc("GET "+prefix+"/docs/asyncapi", serveAsyncAPI)
	nf := notFound(mux, prefix+"/v2")
	mux.Handle(prefix+"/v2", nf)
	mux.Handle(prefix+"/v2/", nf)
}

// notFound answers the paths under a ledger API prefix that no route
// serves as Canton does, with a 404 in the old JSON API's error shape,
// {"errors":["<method>, uri: <uri>"],"status":404}, rather than net/http's
// plain text. A path that a route serves with another method keeps
// net/http's 405, with its Allow header.
func notFound(mux *http.ServeMux, root string) http.Handler {
	own := map[string]bool{root: true, root + "/": true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "" && !own[pattern] {
				allow = append(allow, m)
				if m == http.MethodGet {
					allow = append(allow, http.MethodHead)
				}
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
			return
		}
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		uri := scheme + "://" + r.Host + r.URL.RequestURI()
		b, err := marshal(notFoundResponse{Errors: []string{"HttpMethod(" + r.Method + "), uri: " + uri}, Status: http.StatusNotFound})
		if err != nil {
			panic(err) // strings and a number always encode
		}
		writeBody(w, http.StatusNotFound, b)
	})
}

// notFoundResponse is the old JSON API's error body, which Canton still
// answers unknown routes with.
type notFoundResponse struct {
	Errors []string `json:"errors"`
	Status int      `json:"status"`
}

// serveOpenAPI serves the document without a token, so that tools can
// discover the API first.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPI)))
	_, _ = w.Write(openAPI)
}

// serve answers the error a handler returns, in the API's error shapes.
func (h *Handler) serve(fn func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			if r.Context().Err() != nil {
				return // the client is gone
			}
			h.writeError(w, r, err)
		}
	})
}

// caller is an authenticated request's rights.
type caller struct {
	// wildcard is every right, as Canton grants without authentication.
	wildcard bool
	user     *ledger.User
}

func (c caller) canRead(p daml.Party) bool { return c.wildcard || c.user.CanRead(p) }
func (c caller) canAct(p daml.Party) bool  { return c.wildcard || c.user.CanAct(p) }

// canExecute reports whether the caller may execute a prepared
// transaction acting as p: CanExecuteAs, CanExecuteAsAnyParty or
// CanActAs, as Canton's ExecuteAs claims.
func (c caller) canExecute(p daml.Party) bool {
	return c.wildcard || c.user.CanAct(p) || c.user.Has(ledger.Right{Kind: ledger.CanExecuteAs, Party: p}) ||
		c.user.Has(ledger.Right{Kind: ledger.CanExecuteAsAnyParty})
}

func (c caller) canReadAnyParty() bool {
	return c.wildcard || c.user.Has(ledger.Right{Kind: ledger.CanReadAsAnyParty})
}

// authenticate resolves the caller. With authentication disabled every
// request has every right and its token, if any, is ignored, as on a Canton
// participant without an auth service. Otherwise the bearer token's
// subject must be an active user of the participant. The user comes from
// the engine's user cache, as Canton's comes from its own: reading it from
// the store took a fifth of the CPU of a submit-and-wait.
func (h *Handler) authenticate(r *http.Request) (caller, error) {
	if h.cfg.Auth.Disabled {
		return caller{wildcard: true}, nil
	}
	sub, err := h.cfg.Auth.Subject(r)
	if err != nil {
		return caller{}, unauthenticated(err)
	}
	if sub == "" {
		return caller{}, unauthenticated(nil)
	}
	u, err := h.cfg.Ledger.CachedUser(r.Context(), h.cfg.Participant, sub)
	if err != nil {
		if fault.Is(err, fault.NotFound) {
			return caller{}, permissionDenied(true, "user %s does not exist on %s", fault.Quote(sub), h.cfg.ParticipantName)
		}
		return caller{}, err
	}
	if u.Deactivated {
		return caller{}, permissionDenied(true, "user %s is deactivated", fault.Quote(sub))
	}
	return caller{user: u}, nil
}

// writeJSON writes v as the 200 response, without escaping HTML
// characters, as Canton's encoder does not.
func writeJSON(w http.ResponseWriter, v any) error {
	// Encoded into a pooled buffer: the answer is written before this
	// returns.
	p := getBuffer()
	b, err := appendMarshal((*p)[:0], v)
	if err != nil {
		return err
	}
	writeBody(w, http.StatusOK, b)
	putBuffer(p, b)
	return nil
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func marshal(v any) ([]byte, error) { return appendMarshal(nil, v) }

// appendMarshal is marshal appending to dst.
func appendMarshal(dst []byte, v any) ([]byte, error) {
	buf := jsonBuffer{b: dst}
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode a response")
	}
	// Encode appends a newline; the elements of a list are joined by
	// commas, so drop it.
	return buf.b[:len(buf.b)-1], nil
}

type jsonBuffer struct{ b []byte }

func (j *jsonBuffer) Write(p []byte) (int, error) {
	j.b = append(j.b, p...)
	return len(p), nil
}

// GetLedgerEndResponse is the ledger end.
type GetLedgerEndResponse struct {
	Offset int64 `json:"offset"`
}

func (h *Handler) ledgerEnd(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	head, err := h.cfg.Ledger.Head(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, GetLedgerEndResponse{Offset: int64(head.Offsets[h.cfg.Participant])})
}

// GetLatestPrunedOffsetsResponse is how far the participant's stream is
// pruned, inclusive; 0 when it is not. sandnet has no divulged contracts
// to prune apart from the rest, so both offsets are the same.
type GetLatestPrunedOffsetsResponse struct {
	ParticipantPrunedUpToInclusive          int64 `json:"participantPrunedUpToInclusive"`
	AllDivulgedContractsPrunedUpToInclusive int64 `json:"allDivulgedContractsPrunedUpToInclusive"`
}

func (h *Handler) latestPrunedOffsets(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	head, err := h.cfg.Ledger.Head(r.Context())
	if err != nil {
		return err
	}
	p := int64(head.Pruned[h.cfg.Participant])
	return writeJSON(w, GetLatestPrunedOffsetsResponse{ParticipantPrunedUpToInclusive: p, AllDivulgedContractsPrunedUpToInclusive: p})
}

// GetLedgerAPIVersionResponse is the version and the features.
type GetLedgerAPIVersionResponse struct {
	Version  string   `json:"version"`
	Features Features `json:"features"`
}

// Features is Canton's FeaturesDescriptor.
type Features struct {
	Experimental     ExperimentalFeatures `json:"experimental"`
	UserManagement   UserManagement       `json:"userManagement"`
	PartyManagement  PartyManagement      `json:"partyManagement"`
	OffsetCheckpoint OffsetCheckpointInfo `json:"offsetCheckpoint"`
	PackageFeature   PackageFeature       `json:"packageFeature"`
}

// ExperimentalFeatures lists the experimental features.
type ExperimentalFeatures struct {
	StaticTime               Supported `json:"staticTime"`
	CommandInspectionService Supported `json:"commandInspectionService"`
}

// Supported says whether a feature is supported.
type Supported struct {
	Supported bool `json:"supported"`
}

// UserManagement describes the user management service.
type UserManagement struct {
	Supported        bool `json:"supported"`
	MaxRightsPerUser int  `json:"maxRightsPerUser"`
	MaxUsersPageSize int  `json:"maxUsersPageSize"`
}

// PartyManagement describes the party management service.
type PartyManagement struct {
	MaxPartiesPageSize int `json:"maxPartiesPageSize"`
}

// OffsetCheckpointInfo is the offset checkpoint feature.
type OffsetCheckpointInfo struct {
	MaxOffsetCheckpointEmissionDelay Duration `json:"maxOffsetCheckpointEmissionDelay"`
}

// Duration is a protobuf Duration as Canton's JSON API renders it.
type Duration struct {
	Seconds       int64           `json:"seconds"`
	Nanos         int32           `json:"nanos"`
	UnknownFields UnknownFieldSet `json:"unknownFields"`
}

// UnknownFieldSet is protobuf's unknown fields, always empty here.
type UnknownFieldSet struct {
	Fields map[string]any `json:"fields"`
}

// PackageFeature describes package listing.
type PackageFeature struct {
	MaxVettedPackagesPageSize int `json:"maxVettedPackagesPageSize"`
}

// versionResponse reports Canton's defaults: 1000 rights per user and
// users per page, 10000 parties per page, 100 vetted packages per page,
// and checkpoints at most 75 s apart (the 1 min idle checkpoint interval
// plus its 15 s tolerance). Static time and command inspection are off.
var versionResponse = GetLedgerAPIVersionResponse{
	Version: Version,
	Features: Features{
		UserManagement:   UserManagement{Supported: true, MaxRightsPerUser: 1000, MaxUsersPageSize: 1000},
		PartyManagement:  PartyManagement{MaxPartiesPageSize: 10000},
		OffsetCheckpoint: OffsetCheckpointInfo{MaxOffsetCheckpointEmissionDelay: Duration{Seconds: 75, UnknownFields: UnknownFieldSet{Fields: map[string]any{}}}},
		PackageFeature:   PackageFeature{MaxVettedPackagesPageSize: 100},
	},
}

func (h *Handler) version(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	return writeJSON(w, versionResponse)
}
