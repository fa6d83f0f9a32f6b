package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// The neighbours of the updates list: the ledger end and the version.
func TestStateAndVersion(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "state", *update)
	type stateCase = getCase
	wantEnd := func(want int64) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			var got ledgerapi.GetLedgerEndResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.Offset != want {
				t.Errorf("ledger end %s, want %d", rec.Body, want)
			}
		}
	}
	head, err := e.net.Store().Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	validatorEnd := int64(head.Offsets[e.seeded.Validator.Participant])
	svEnd := int64(head.Offsets[e.seeded.SVs[0].Participant])
	cases := []stateCase{
		{name: "ledger end", path: "/v2/state/ledger-end", user: "alice", status: 200, check: wantEnd(validatorEnd)},
		{name: "ledger end of an SV participant", path: "/sv/1/v2/state/ledger-end", user: admin, status: 200, check: wantEnd(svEnd)},
		{name: "ledger end: no token", path: "/v2/state/ledger-end", noToken: true, offSpec: true, status: 401},
		{name: "ledger end: unknown user", path: "/v2/state/ledger-end", user: "mallory", status: 403},
		{name: "ledger end: deactivated user", path: "/v2/state/ledger-end", user: userRetired, status: 403},
		{name: "ledger end: auth none", path: "/v2/state/ledger-end", noToken: true, opts: options{authNone: true}, offSpec: true, status: 200, check: wantEnd(validatorEnd)},
		{name: "version", path: "/v2/version", user: "bob", status: 200, check: func(t *testing.T, rec *httptest.ResponseRecorder) {
			var got ledgerapi.GetLedgerAPIVersionResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.Version != "3.5.14" || !got.Features.UserManagement.Supported {
				t.Errorf("version %s", rec.Body)
			}
		}},
		{name: "version of an SV participant", path: "/sv/1/v2/version", user: admin, status: 200},
		{name: "version: no token", path: "/v2/version", noToken: true, offSpec: true, status: 401},
		{name: "version: unknown user", path: "/v2/version", user: "mallory", status: 403},
	}
	runGetCases(t, e, s, golden, cases)
}

// The document is valid, describes exactly the routes served, and is
// served as it is in the repository, without a token.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	if got := s.Doc.OpenAPI; !strings.HasPrefix(got, "3.0.") {
		t.Errorf("openapi = %q, want 3.0.x", got)
	}
	var ops []string
	for path, item := range s.Doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, method+" "+path)
		}
	}
	slices.Sort(ops)
	want := []string{
		"DELETE /v2/idps/{idp-id}", "DELETE /v2/users/{user-id}", "GET /docs/asyncapi", "GET /docs/openapi", "GET /v2/authenticated-user",
		"GET /v2/idps", "GET /v2/idps/{idp-id}", "GET /v2/state/active-contracts-page", "GET /v2/package-vetting", "GET /v2/packages", "GET /v2/packages/{package-id}", "GET /v2/packages/{package-id}/status",
		"GET /v2/parties", "GET /v2/parties/participant-id", "GET /v2/parties/{party}", "GET /v2/state/connected-synchronizers", "GET /v2/state/latest-pruned-offsets", "GET /v2/state/ledger-end",
		"GET /v2/updates/transaction-tree-by-id/{update-id}", "GET /v2/updates/transaction-tree-by-offset/{offset}",
		"GET /v2/users", "GET /v2/users/{user-id}", "GET /v2/users/{user-id}/rights", "GET /v2/version",
		"PATCH /v2/idps/{idp-id}", "PATCH /v2/parties/{party}", "PATCH /v2/users/{user-id}",
		"PATCH /v2/users/{user-id}/rights", "POST /v2/contracts/contract-by-id", "POST /v2/dars", "POST /v2/dars/validate", "POST /v2/events/events-by-contract-id", "POST /v2/idps",
		"POST /v2/package-vetting", "POST /v2/package-vetting/list", "POST /v2/package-vetting/update", "POST /v2/packages", "POST /v2/parties",
		"POST /v2/state/active-contracts", "POST /v2/state/active-contracts-page", "POST /v2/updates", "POST /v2/updates/flats", "POST /v2/updates/get-updates-page",
		"POST /v2/updates/transaction-by-id", "POST /v2/updates/transaction-by-offset", "POST /v2/updates/trees",
		"POST /v2/updates/update-by-id", "POST /v2/updates/update-by-offset", "POST /v2/users", "POST /v2/users/{user-id}/rights",
		"POST /v2/commands/async/submit", "POST /v2/commands/async/submit-reassignment", "POST /v2/commands/submit-and-wait-for-reassignment", "POST /v2/commands/submit-and-wait", "POST /v2/commands/submit-and-wait-for-transaction", "POST /v2/commands/submit-and-wait-for-transaction-tree",
		"POST /v2/commands/command-completions", "POST /v2/commands/completions",
		"GET /v2/interactive-submission/preferred-package-version", "POST /v2/interactive-submission/preferred-packages",
		"POST /v2/interactive-submission/prepare", "POST /v2/interactive-submission/execute",
		"POST /v2/interactive-submission/executeAndWait", "POST /v2/interactive-submission/executeAndWaitForTransaction",
		"POST /v2/parties/external/generate-topology", "POST /v2/parties/external/allocate",
	}
	slices.Sort(want)
	if !slices.Equal(ops, want) {
		t.Errorf("the document's operations are %q, want %q", ops, want)
	}
	// The SV's prefix is stripped before matching, and nothing else.
	for _, op := range want {
		method, path, _ := strings.Cut(op, " ")
		path = strings.NewReplacer("{user-id}", "alice", "{party}", "alice", "{idp-id}", "idp1", "{update-id}", "1220", "{offset}", "1", "{package-id}", "ab").Replace(path)
		if !s.Describes(httptest.NewRequest(method, baseURL+path, nil)) {
			t.Errorf("Describes(%s %s) = false", method, path)
		}
	}
	if s.Describes(httptest.NewRequest(http.MethodGet, baseURL+"/v2/no-such-route", nil)) {
		t.Error("Describes(GET /v2/no-such-route) = true")
	}
	if sec := s.Doc.Paths.Value("/docs/openapi").Get.Security; sec == nil || len(*sec) != 0 {
		t.Error("GET /docs/openapi must declare security: [] (no token needed)")
	}

	onDisk, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := shared(t)
	for _, path := range []string{"/docs/openapi", "/sv/1/docs/openapi"} {
		for _, authz := range []string{"", "Bearer not-a-jwt"} {
			rec := httptest.NewRecorder()
			e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodGet, path, authz, ""))
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/yaml" ||
				rec.Header().Get("Content-Length") != strconv.Itoa(len(onDisk)) || !bytes.Equal(rec.Body.Bytes(), onDisk) {
				t.Errorf("GET %s with %q: %d %q, or the body differs from openapi.yaml", path, authz, rec.Code, rec.Header().Get("Content-Type"))
			}
			if path == "/docs/openapi" {
				if err := s.Validate(t, newRequest(http.MethodGet, path, authz, ""), rec); err != nil {
					t.Errorf("request does not conform: %v", err)
				}
			}
		}
	}
}
