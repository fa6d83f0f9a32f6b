package validatorapi_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/api/validatorapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scanclient"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/testnet"
	"github.com/sandnet/sandnet/internal/validator"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// baseURL is where requests are addressed: the document's server.
const baseURL = "http://127.0.0.1:7575" + validatorapi.Prefix

// secret signs the tests' tokens.
var secret = []byte("validatorapi-test-secret-of-32-bytes!")

var hs256 = func() *auth.HMAC {
	h, err := auth.NewHMAC(secret, "")
	if err != nil {
		panic(err)
	}
	return h
}()

// token mints a bearer token for a user.
func token(t testing.TB, user string) string {
	t.Helper()
	tok, err := hs256.Mint(user, time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// env is a seeded network on SQLite, SV 1's Scan on an httptest server
// (ingesting before every request, so it is never behind), and the
// validator and its API over them.
type env struct {
	*testnet.Net
	validator *validator.Validator
	handler   http.Handler
	// noWallet is a user of the validator participant with a party but no
	// wallet.
	noWallet string
}

// newEnv builds an env in t's temporary directory.
func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, -1)
}

// newEnvWith is newEnv with the scan-proxy's client caching the amulet
// rules and rounds for cacheTTL (negative: not at all, which makes the
// tests' reads deterministic; 0: the default, as sandnet start runs it).
func newEnvWith(t testing.TB, cacheTTL time.Duration) *env {
	t.Helper()
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	n := testnet.Seed(t)
	if _, err := n.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	sc, err := scanclient.New(scanclient.Config{URLs: []string{n.ScanServer(t).URL + scanapi.Prefix}, Registry: n.Network.Registry(), Logger: log, CacheTTL: cacheTTL})
	if err != nil {
		t.Fatal(err)
	}
	vst, err := sqlitestore.OpenValidator(ctx, filepath.Join(t.TempDir(), "validator.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vst.Close() })
	seeded := n.Seeded
	v := validator.New(validator.Config{
		Participant: seeded.Validator.Participant, Party: seeded.Validator.Party, OperatorUser: seeded.Validator.OperatorUser,
		DSO: seeded.DSOParty, AnsAcronym: seeded.AnsAcronym,
	}, n.Network, sc, vst, log)
	mux := http.NewServeMux()
	validatorapi.New(validatorapi.Config{
		Validator: v, Auth: &web.Authenticator{Verifier: hs256}, ScanProxy: sc, Logger: log,
	}).Register(mux, validatorapi.Prefix)
	e := &env{Net: n, validator: v, handler: mux, noWallet: "carol"}
	// carol: a party and the right to act as it, but no wallet.
	party, err := n.Network.AllocateParty(ctx, ledger.PartySpec{Hint: "carol", Hosts: []ledger.Hosting{{Participant: seeded.Validator.Participant}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Network.CreateUser(ctx, ledger.User{ID: "carol", Participant: seeded.Validator.Participant, PrimaryParty: party,
		Rights: []ledger.Right{{Kind: ledger.CanActAs, Party: party}}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// step runs the wallet automation once.
func (e *env) step(t testing.TB) {
	t.Helper()
	if _, err := e.validator.Automation().Step(context.Background()); err != nil {
		t.Fatalf("wallet automation: %v", err)
	}
}

// advance moves ledger time forward.
func (e *env) advance(t testing.TB, d time.Duration) {
	t.Helper()
	if _, err := e.Network.AdvanceClock(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

// directOffer creates an offer from one user's party to another's on the
// ledger directly, with the template's checks only (testnet.DirectOffer).
func (e *env) directOffer(t testing.TB, sender, receiver, amount, trackingID string) daml.ContractID {
	t.Helper()
	return testnet.DirectOffer(t, e.Network, e.Seeded.Validator.Participant, sender, splice.TransferOffer{
		Sender: e.Party(sender), Receiver: e.Party(receiver), DSO: e.Seeded.DSOParty,
		Amount: splice.Amulets(daml.MustNumeric(amount)), Description: "direct", ExpiresAt: e.now() + 3600_000_000, TrackingID: trackingID,
	})
}

// now is ledger time.
func (e *env) now() daml.Timestamp { return e.Network.Clock().Now() }

var specOnce = sync.OnceValues(func() (*apitest.Spec, error) { return apitest.LoadSpec(validatorapi.OpenAPI()) })

func spec(t testing.TB) *apitest.Spec {
	t.Helper()
	s, err := specOnce()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return s
}

// request is one call to the API.
type request struct {
	method, path, body string
	// user is the token's subject; "" sends no token, and authHeader, when
	// set, is sent as the Authorization header as it is.
	user       string
	authHeader string
	// offSpec marks requests the document does not allow, sent on purpose.
	offSpec bool
}

func (rq request) new(t testing.TB) *http.Request {
	var rd io.Reader
	if rq.body != "" {
		rd = bytes.NewBufferString(rq.body)
	}
	req := httptest.NewRequest(rq.method, baseURL+rq.path, rd)
	if rq.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case rq.authHeader != "":
		req.Header.Set("Authorization", rq.authHeader)
	case rq.user != "":
		req.Header.Set("Authorization", "Bearer "+token(t, rq.user))
	}
	return req
}

// do serves a request and validates the exchange against the document.
func (e *env) do(t *testing.T, rq request) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, rq.new(t))
	reqErr := spec(t).Validate(t, rq.new(t), rec)
	if reqErr != nil && !rq.offSpec {
		t.Errorf("request does not conform to the document: %v", reqErr)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: content type %q", rq.method, rq.path, ct)
	}
	return rec
}

func get(path, user string) request { return request{method: http.MethodGet, path: path, user: user} }

func post(path, user, body string) request {
	return request{method: http.MethodPost, path: path, user: user, body: body}
}

func (rq request) off() request {
	rq.offSpec = true
	return rq
}

func (rq request) withAuth(header string) request {
	rq.authHeader = header
	return rq
}

// offerBody is the body of a transfer offer.
func offerBody(receiver daml.Party, amount string, expires daml.Timestamp, tracking string) string {
	return fmt.Sprintf(`{"receiver_party_id":%q,"amount":%q,"description":"lunch","expires_at":%d,"tracking_id":%q}`,
		receiver, amount, int64(expires), tracking)
}

// doUnlisted is do, except that a path the document does not list (sent
// on purpose) is served without validation.
func (e *env) doUnlisted(t *testing.T, rq request) *httptest.ResponseRecorder {
	t.Helper()
	if spec(t).Describes(rq.new(t)) {
		return e.do(t, rq)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, rq.new(t))
	return rec
}
