// Package scanapi serves the Scan app's HTTP API under /api/scan: the
// update history (v1, v2 and the backfilling reads), ACS snapshots, the
// DSO's governance and amulet contracts, the name service and topology
// lookups, as Splice's Scan serves them. Every endpoint is an
// unauthenticated read of a [scan.Service].
//
// Errors are {"error": "…"} with Splice's status mapping, applied in one
// place (writeError). The API's OpenAPI document is embedded and served at
// <prefix>/openapi.yaml; the tests validate every exchange against it.
package scanapi

import (
	_ "embed"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// Prefix is where an SV's Scan API is mounted by default.
const Prefix = "/api/scan"

// openAPI is the Scan API's OpenAPI 3.0 document, served at
// <prefix>/openapi.yaml.
//
//go:embed openapi.yaml
var openAPI []byte

// OpenAPI returns the API's OpenAPI document.
func OpenAPI() []byte { return openAPI }

// Config configures a Handler.
type Config struct {
	// Service answers the reads.
	Service *scan.Service
	// Registry is the network's template registry. The handlers find the
	// Splice templates by package name, module and entity and need nothing
	// more today; it is accepted (and may be nil) so that the Scan API is
	// wired like the other APIs over the same network.
	Registry *ledger.Registry
	// Logger receives the details of internal errors (slog.Default when
	// nil).
	Logger *slog.Logger
	// SVUser is the SV's ledger API user, reported as sv_user by /v0/dso
	// (the SV's name when empty).
	SVUser string
}

// Handler serves one SV's Scan API.
type Handler struct {
	svc *scan.Service
	reg *ledger.Registry
	log *slog.Logger
	cfg Config
	// blobs caches the created-event blobs the registry discloses.
	blobs blobCache
}

// New returns a Scan API handler.
func New(cfg Config) *Handler {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Handler{svc: cfg.Service, reg: cfg.Registry, log: log, cfg: cfg}
}

type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// Register adds the Scan routes under prefix (Prefix for the default
// Scan) to mux.
func (h *Handler) Register(mux *http.ServeMux, prefix string) {
	routes := []struct {
		pattern string
		fn      handlerFunc
	}{
		{"POST /v2/updates", h.updatesV2},
		{"POST /v1/updates", h.updatesV1},
		{"GET /v2/updates/{update_id}", h.updateV2},
		{"GET /v1/updates/{update_id}", h.updateV1},
		{"POST /v0/backfilling/updates-before", h.updatesBefore},
		{"GET /v0/backfilling/status", h.backfillingStatus},
		{"POST /v0/backfilling/migration-info", h.migrationInfo},
		{"POST /v0/backfilling/import-updates", h.importUpdates},
		{"POST /v0/transactions", h.transactions},
		{"GET /v0/state/acs/snapshot-timestamp", h.snapshotTimestamp},
		{"GET /v0/state/acs/snapshot-timestamp-after", h.snapshotTimestampAfter},
		{"POST /v0/state/acs", h.acsV0},
		{"POST /v1/state/acs", h.acsV1},
		{"POST /v2/state/acs", h.acsV2},
		{"POST /v0/holdings/state", h.holdingsStateV0},
		{"POST /v1/holdings/state", h.holdingsStateV1},
		{"POST /v0/holdings/summary", h.holdingsSummaryV0},
		{"POST /v1/holdings/summary", h.holdingsSummaryV1},
		{"GET /v0/voterequests/{vote_request_contract_id}", h.voteRequest},
		{"POST /v0/voterequest", h.voteRequests},
		{"GET /v0/admin/sv/voterequests", h.listVoteRequests},
		{"GET /v0/sv-bft-sequencers", h.bftSequencers},
		{"GET /v0/domains/{domain_id}/parties/{party_id}/participant-id", h.participantIDV0},
		{"GET /v1/domains/{domain_id}/parties/{party_id}/participant-id", h.participantIDV1},
		{"GET /v0/domains/{domain_id}/members/{member_id}/traffic-status", h.memberTrafficStatus},
		{"GET /v0/featured-apps/{provider_party_id}", h.featuredAppRight},
		{"GET /v0/dso-party-id", h.dsoPartyID},
		{"GET /v0/dso", h.dso},
		{"POST /v0/amulet-rules", h.amuletRules},
		{"POST /v0/ans-rules", h.ansRules},
		{"POST /v0/open-and-issuing-mining-rounds", h.miningRounds},
		{"GET /v0/ans-entries", h.ansEntries},
		{"GET /v0/ans-entries/by-name/{name}", h.ansEntryByName},
		{"GET /v0/ans-entries/by-party/{party}", h.ansEntryByParty},
		{"GET /v0/transfer-preapprovals/by-party/{party}", h.transferPreapprovalByParty},
		{"GET /v0/transfer-command-counter/{party}", h.transferCommandCounter},
		{"GET /v0/transfer-command/status", h.transferCommandStatus},
		{"POST /v0/external-party-amulet-rules", h.externalPartyAmuletRules},
	}
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		mux.Handle(method+" "+prefix+path, h.serve(rt.fn))
	}
	mux.HandleFunc("GET "+prefix+"/openapi.yaml", serveOpenAPI)
	mux.HandleFunc(prefix+"/", web.NotFound)
}

// serve answers any error the handler returns in the API's error shape.
func (h *Handler) serve(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.writeError(w, r, err)
		}
	})
}

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPI)))
	_, _ = w.Write(openAPI)
}
