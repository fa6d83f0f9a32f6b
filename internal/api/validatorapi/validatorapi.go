// Package validatorapi serves the validator app's HTTP API under
// /api/validator, as Splice's validator serves it: onboarding
// (validator-internal, with the transfer pre-approvals its operator
// provides), the wallet (wallet-internal and wallet-external: balances,
// taps, direct transfer offers, subscriptions, pre-approvals), the name service
// (ans-external) and the scan-proxy, which answers from the configured
// Scans over HTTP, the token-standard registry's metadata included
// (/v0/scan-proxy/registry/…, passed through from the Scans' /registry).
// The domain is [validator.Validator].
//
// Every endpoint but GET /v0/validator-user takes a bearer JWT whose
// subject is the ledger API user; the scan-proxy accepts requests without
// one (a token that is present must still be valid). Errors are
// {"error": "…"} with Splice's status mapping, applied in one place
// (writeError). The API's OpenAPI document is embedded and served at
// <prefix>/openapi.yaml; the tests validate every exchange against it.
package validatorapi

import (
	"context"
	_ "embed"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scanclient"
	"github.com/sandnet/sandnet/internal/validator"
)

// Prefix is where the validator API is mounted.
const Prefix = "/api/validator"

// openAPI is the validator API's OpenAPI 3.0 document, served at
// <prefix>/openapi.yaml.
//
//go:embed openapi.yaml
var openAPI []byte

// OpenAPI returns the API's OpenAPI document.
func OpenAPI() []byte { return openAPI }

// ScanProxy is what the scan-proxy endpoints read from the DSO's Scans.
// *scanclient.Client implements it with BFT reads over HTTP; its wire
// types are re-served unchanged.
type ScanProxy interface {
	DSOPartyID(ctx context.Context) (daml.Party, error)
	AnsEntries(ctx context.Context, namePrefix string, pageSize int) ([]scanclient.AnsEntry, error)
	AnsEntryByName(ctx context.Context, name string) (scanclient.AnsEntry, error)
	AnsEntryByParty(ctx context.Context, party daml.Party) (scanclient.AnsEntry, error)
	TransferPreapprovalByParty(ctx context.Context, party daml.Party) (*ledger.Contract, error)
	// FeaturedAppRight returns the provider's FeaturedAppRight, nil when
	// it has none.
	FeaturedAppRight(ctx context.Context, provider daml.Party) (*ledger.Contract, error)
	// TransferCommandCounter returns a sender's counter; fault.NotFound
	// when it has none.
	TransferCommandCounter(ctx context.Context, sender daml.Party) (*ledger.Contract, error)
	// TransferCommandStatus returns the Scan's JSON answer to a status
	// lookup as it came.
	TransferCommandStatus(ctx context.Context, sender daml.Party, nonce int64) (json.RawMessage, error)
	AmuletRules(ctx context.Context) (*ledger.Contract, error)
	OpenAndIssuingRounds(ctx context.Context) (open, issuing []*ledger.Contract, err error)
	DsoInfo(ctx context.Context) (*scanclient.DsoInfo, error)
	// Registry GETs a path of the token-standard registry (under
	// /registry) and returns the Scan's JSON as it came.
	Registry(ctx context.Context, path string, query url.Values) (json.RawMessage, error)
	// RegistryPost POSTs a JSON body to a path of the registry and returns
	// the Scan's JSON as it came.
	RegistryPost(ctx context.Context, path string, body json.RawMessage) (json.RawMessage, error)
	HoldingsSummary(ctx context.Context, req scanclient.HoldingsSummaryRequest) (json.RawMessage, error)
	HoldingsSummaryV1(ctx context.Context, req scanclient.HoldingsSummaryRequest) (json.RawMessage, error)
}

var _ ScanProxy = (*scanclient.Client)(nil)

// Config configures a Handler.
type Config struct {
	// Validator is the validator app the endpoints drive.
	Validator *validator.Validator
	// Auth authenticates the callers' bearer tokens.
	Auth *web.Authenticator
	// ScanProxy answers the scan-proxy endpoints.
	ScanProxy ScanProxy
	// Logger receives the details of internal errors (slog.Default when
	// nil).
	Logger *slog.Logger
}

// Handler serves the validator API.
type Handler struct {
	v     *validator.Validator
	auth  *web.Authenticator
	proxy ScanProxy
	log   *slog.Logger
	// dso is the DSO party once the Scans have named it: a network's DSO
	// party never changes, so the scan-proxy asks for it once (Splice's
	// validator also learns it once, at start).
	dso atomic.Pointer[DSOPartyIDResponse]
	// answers are scan-proxy answers rendered once (scanproxy.go).
	answers answerCache
}

// New returns a validator API handler.
func New(cfg Config) *Handler {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Handler{v: cfg.Validator, auth: cfg.Auth, proxy: cfg.ScanProxy, log: log}
}

// The operation ids of Splice's OpenAPI documents, which name the call in
// the 404 of a user without a wallet.
const (
	opBalance                = "getBalance"
	opAmulets                = "list"
	opTap                    = "tap"
	opCreateTransferOffer    = "createTransferOffer"
	opListTransferOffers     = "listTransferOffers"
	opTransferOfferStatus    = "getTransferOfferStatus"
	opAcceptTransferOffer    = "acceptTransferOffer"
	opRejectTransferOffer    = "rejectTransferOffer"
	opWithdrawTransferOffer  = "withdrawTransferOffer"
	opAcceptedTransferOffers = "listAcceptedTransferOffers"
	opSubscriptionRequests   = "listSubscriptionRequests"
	opAcceptSubscription     = "acceptSubscriptionRequest"
	opCreateAnsEntry         = "createAnsEntry"
	opListAnsEntries         = "listAnsEntries"
	opCreatePreapproval      = "createTransferPreapproval"
	opPreapprovalSend        = "transferPreapprovalSend"
)

type (
	handlerFunc       func(w http.ResponseWriter, r *http.Request) error
	userHandlerFunc   func(w http.ResponseWriter, r *http.Request, user string) error
	walletHandlerFunc func(w http.ResponseWriter, r *http.Request, wallet validator.Wallet) error
)

// Register adds the validator routes under prefix (Prefix by default) to
// mux.
func (h *Handler) Register(mux *http.ServeMux, prefix string) {
	routes := []struct {
		pattern string
		h       http.Handler
	}{
		// validator-internal
		{"GET /v0/validator-user", h.public(h.validatorUser)},
		{"POST /v0/register", h.user(h.register)},
		{"POST /v0/admin/users", h.operator(h.onboardUser)},
		{"GET /v0/admin/users", h.operator(h.listUsers)},
		{"POST /v0/admin/external-party/topology/generate", h.operator(h.generateExternalPartyTopology)},
		{"POST /v0/admin/external-party/topology/submit", h.operator(h.submitExternalPartyTopology)},
		{"POST /v0/admin/external-party/setup-proposal", h.operator(h.createSetupProposal)},
		{"GET /v0/admin/external-party/setup-proposal", h.operator(h.listSetupProposals)},
		{"POST /v0/admin/external-party/setup-proposal/prepare-accept", h.operator(h.prepareAcceptSetupProposal)},
		{"POST /v0/admin/external-party/setup-proposal/submit-accept", h.operator(h.submitAcceptSetupProposal)},
		{"POST /v0/admin/external-party/transfer-preapproval/prepare-send", h.operator(h.prepareTransferCommand)},
		{"POST /v0/admin/external-party/transfer-preapproval/submit-send", h.operator(h.submitTransferCommand)},
		{"GET /v0/admin/external-party/balance", h.operator(h.externalPartyBalance)},
		{"GET /v0/admin/transfer-preapprovals", h.operator(h.listPreapprovals)},
		{"GET /v0/admin/transfer-preapprovals/by-party/{receiver_party}", h.operator(h.lookupPreapproval)},
		{"DELETE /v0/admin/transfer-preapprovals/by-party/{receiver_party}", h.operator(h.cancelPreapproval)},
		// wallet-internal
		{"GET /v0/wallet/user-status", h.user(h.userStatus)},
		{"GET /v0/wallet/balance", h.wallet(opBalance, h.balance)},
		{"GET /v0/wallet/amulets", h.wallet(opAmulets, h.amulets)},
		{"POST /v0/wallet/tap", h.wallet(opTap, h.tap)},
		{"POST /v0/wallet/transfer-offers/{contract_id}/accept", h.wallet(opAcceptTransferOffer, h.acceptOffer)},
		{"POST /v0/wallet/transfer-offers/{contract_id}/reject", h.wallet(opRejectTransferOffer, h.rejectOffer)},
		{"POST /v0/wallet/transfer-offers/{contract_id}/withdraw", h.wallet(opWithdrawTransferOffer, h.withdrawOffer)},
		{"GET /v0/wallet/accepted-transfer-offers", h.wallet(opAcceptedTransferOffers, h.acceptedOffers)},
		{"GET /v0/wallet/subscription-requests", h.wallet(opSubscriptionRequests, h.subscriptionRequests)},
		{"POST /v0/wallet/subscription-requests/{contract_id}/accept", h.wallet(opAcceptSubscription, h.acceptSubscription)},
		{"POST /v0/wallet/transfer-preapproval", h.wallet(opCreatePreapproval, h.createPreapproval)},
		{"POST /v0/wallet/transfer-preapproval/send", h.wallet(opPreapprovalSend, h.sendPreapproval)},
		// wallet-external
		{"POST /v0/wallet/transfer-offers", h.wallet(opCreateTransferOffer, h.createOffer)},
		{"GET /v0/wallet/transfer-offers", h.wallet(opListTransferOffers, h.listOffers)},
		{"POST /v0/wallet/transfer-offers/{tracking_id}/status", h.wallet(opTransferOfferStatus, h.offerStatus)},
		// ans-external
		{"POST /v0/entry/create", h.wallet(opCreateAnsEntry, h.createEntry)},
		{"GET /v0/entry/all", h.wallet(opListAnsEntries, h.listEntries)},
		// scan-proxy
		{"GET /v0/scan-proxy/dso-party-id", h.scanProxy(h.dsoPartyID)},
		{"GET /v0/scan-proxy/ans-entries", h.scanProxy(h.ansEntries)},
		{"GET /v0/scan-proxy/ans-entries/by-name/{name}", h.scanProxy(h.ansEntryByName)},
		{"GET /v0/scan-proxy/ans-entries/by-party/{party}", h.scanProxy(h.ansEntryByParty)},
		{"GET /v0/scan-proxy/transfer-preapprovals/by-party/{party}", h.scanProxy(h.transferPreapprovalByParty)},
		{"GET /v0/scan-proxy/featured-apps/{provider_party_id}", h.scanProxy(h.proxyFeaturedAppRight)},
		{"GET /v0/scan-proxy/transfer-command-counter/{party}", h.scanProxy(h.proxyTransferCommandCounter)},
		{"GET /v0/scan-proxy/transfer-command/status", h.scanProxy(h.proxyTransferCommandStatus)},
		{"GET /v0/scan-proxy/amulet-rules", h.scanProxy(h.proxyAmuletRules)},
		{"GET /v0/scan-proxy/open-and-issuing-mining-rounds", h.scanProxy(h.proxyMiningRounds)},
		{"GET /v0/scan-proxy/dso", h.scanProxy(h.proxyDso)},
		{"GET /v0/scan-proxy/registry/metadata/v1/info", h.scanProxy(h.proxyRegistry)},
		{"GET /v0/scan-proxy/registry/metadata/v1/instruments", h.scanProxy(h.proxyRegistry)},
		{"GET /v0/scan-proxy/registry/metadata/v1/instruments/{id}", h.scanProxy(h.proxyRegistry)},
		{"POST /v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory", h.scanProxy(h.proxyRegistryPost)},
		{"POST /v0/scan-proxy/registry/transfer-instruction/v1/{id}/choice-contexts/accept", h.scanProxy(h.proxyRegistryPost)},
		{"POST /v0/scan-proxy/registry/transfer-instruction/v1/{id}/choice-contexts/reject", h.scanProxy(h.proxyRegistryPost)},
		{"POST /v0/scan-proxy/registry/transfer-instruction/v1/{id}/choice-contexts/withdraw", h.scanProxy(h.proxyRegistryPost)},
		{"POST /v0/scan-proxy/registry/allocation-instruction/v1/allocation-factory", h.scanProxy(h.proxyRegistryPost)},
		{"POST /v0/scan-proxy/registry/allocations/v1/{id}/choice-contexts/execute-transfer", h.scanProxy(h.proxyRegistryPost)},
		{"POST /v0/scan-proxy/registry/allocations/v1/{id}/choice-contexts/withdraw", h.scanProxy(h.proxyRegistryPost)},
		{"POST /v0/scan-proxy/registry/allocations/v1/{id}/choice-contexts/cancel", h.scanProxy(h.proxyRegistryPost)},
		{"POST /v0/scan-proxy/holdings/summary", h.scanProxy(h.proxyHoldingsSummaryV0)},
		{"POST /v1/scan-proxy/holdings/summary", h.scanProxy(h.proxyHoldingsSummaryV1)},
	}
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		mux.Handle(method+" "+prefix+path, rt.h)
	}
	for _, rt := range h.tokenStandardRoutes() {
		method, path, _ := strings.Cut(rt.pattern, " ")
		mux.Handle(method+" "+prefix+path, rt.h)
	}
	h.registerAllocations(mux, prefix)
	mux.HandleFunc("GET "+prefix+"/openapi.yaml", serveOpenAPI)
	mux.HandleFunc(prefix+"/", web.NotFound)
}

// public serves an endpoint that needs no token.
func (h *Handler) public(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.writeError(w, r, err)
		}
	})
}

// user serves an endpoint for the token's subject, whoever it is: the
// endpoint authorizes it.
func (h *Handler) user(fn userHandlerFunc) http.Handler {
	return h.public(func(w http.ResponseWriter, r *http.Request) error {
		user, err := h.auth.Subject(r)
		if err != nil {
			return err
		}
		return fn(w, r, user)
	})
}

// wallet serves an endpoint of the token subject's wallet: a user who
// may not act is a 403, one without a wallet a 404 naming operation.
func (h *Handler) wallet(operation string, fn walletHandlerFunc) http.Handler {
	return h.user(func(w http.ResponseWriter, r *http.Request, user string) error {
		wallet, err := h.v.Wallet(r.Context(), user, operation)
		if err != nil {
			return err
		}
		return fn(w, r, wallet)
	})
}

// operator serves an endpoint of the validator operator (its operator
// user or a participant admin).
func (h *Handler) operator(fn handlerFunc) http.Handler {
	return h.user(func(w http.ResponseWriter, r *http.Request, user string) error {
		ok, err := h.v.IsOperator(r.Context(), user)
		if err != nil {
			return err
		}
		if !ok {
			return fault.New(fault.PermissionDenied, "Authorization Failed for %s", fault.Clip(user))
		}
		return fn(w, r)
	})
}

// scanProxy serves a scan-proxy endpoint: with or without a token, but a
// token that is sent must be valid.
func (h *Handler) scanProxy(fn handlerFunc) http.Handler {
	return h.public(func(w http.ResponseWriter, r *http.Request) error {
		if r.Header.Get("Authorization") != "" {
			if _, err := h.auth.Subject(r); err != nil {
				return err
			}
		}
		return fn(w, r)
	})
}

// serveOpenAPI serves the API's description; it needs no token.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPI)))
	_, _ = w.Write(openAPI)
}
