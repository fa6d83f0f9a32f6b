package ledgerapi_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestErrorsQuoteAShortPrefix sends a 1 MiB value in each place a client
// fills in (path, query, body fields, the token's subject) and checks that
// the error answered, JsCantonError or text/plain, quotes at most a short
// prefix of it: a body under 1 KiB.
func TestErrorsQuoteAShortPrefix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := e.handler(options{})
	big := strings.Repeat("x", 1<<20)
	bigNumber := strings.Repeat("9", 1<<20)
	p := url.PathEscape
	q := url.QueryEscape
	updates := func(filter string) string {
		return `{"beginExclusive":0,"endInclusive":15,"filter":` + filter + `}`
	}
	for _, tc := range []struct {
		name, user, method, path, body string
	}{
		{"updates: beginExclusive as a long number", "alice", "POST", "/v2/updates", `{"beginExclusive":` + bigNumber + `,"filter":{"filtersByParty":{"{alice}":{}}}}`},
		{"updates: beginExclusive as a long string", "alice", "POST", "/v2/updates", fmt.Sprintf(`{"beginExclusive":%q,"filter":{"filtersByParty":{"{alice}":{}}}}`, big)},
		{"updates: a long member name", "alice", "POST", "/v2/updates", fmt.Sprintf(`{"beginExclusive":0,%q:true}`, big)},
		{"updates: a party", "alice", "POST", "/v2/updates", updates(byParty(big, `{}`))},
		{"updates: a party with colons", admin, "POST", "/v2/updates", updates(byParty("a::"+big, `{}`))},
		{"updates: a template id", "alice", "POST", "/v2/updates", updates(byParty("{alice}", templateFilter(big, false)))},
		{"updates: a package name", "alice", "POST", "/v2/updates", updates(byParty("{alice}", templateFilter("#"+big+":A:B", false)))},
		{"updates: a module name", "alice", "POST", "/v2/updates", updates(byParty("{alice}", templateFilter("#a:"+big+"!:B", false)))},
		{"updates: a package id", "alice", "POST", "/v2/updates", updates(byParty("{alice}", templateFilter(big+":A:B", false)))},
		{"updates: a topology party", admin, "POST", "/v2/updates", fmt.Sprintf(`{"beginExclusive":0,"endInclusive":15,"updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":[%q]}}}}`, big)},
		{"updates: limit", "alice", "POST", "/v2/updates?limit=" + q(big), updates(byParty("{alice}", `{}`))},
		{"updates: stream_idle_timeout_ms", "alice", "POST", "/v2/updates?stream_idle_timeout_ms=" + q(big), updates(byParty("{alice}", `{}`))},
		{"active contracts: continuation token", "alice", "POST", "/v2/state/active-contracts", fmt.Sprintf(`{"activeAtOffset":15,"streamContinuationToken":%q,"filter":{"filtersByParty":{"{alice}":{}}}}`, big)},
		{"active contracts: activeAtOffset", "alice", "POST", "/v2/state/active-contracts", fmt.Sprintf(`{"activeAtOffset":%q,"filter":{"filtersByParty":{"{alice}":{}}}}`, big)},
		{"connected synchronizers: party", admin, "GET", "/v2/state/connected-synchronizers?party=" + q(big), ""},
		{"connected synchronizers: identity provider", admin, "GET", "/v2/state/connected-synchronizers?party={alice}&identityProviderId=" + q(big), ""},
		{"latest pruned offsets: none", admin, "GET", "/v2/state/latest-pruned-offsets?x=" + q(big), "-"},
		{"users: page size", admin, "GET", "/v2/users?pageSize=" + q(big), ""},
		{"users: page token", admin, "GET", "/v2/users?pageToken=" + q(big), "-"},
		{"user: id", admin, "GET", "/v2/users/" + p(big), ""},
		{"user: unknown id", admin, "GET", "/v2/users/" + p("u"+strings.Repeat("a", 100)), "-"},
		{"user: delete", admin, "DELETE", "/v2/users/" + p(big), ""},
		{"user: rights", admin, "GET", "/v2/users/" + p(big) + "/rights", ""},
		{"create user: id", admin, "POST", "/v2/users", fmt.Sprintf(`{"user":{"id":%q}}`, big)},
		{"create user: a bad character", admin, "POST", "/v2/users", fmt.Sprintf(`{"user":{"id":"a b%s"}}`, big)},
		{"create user: primary party", admin, "POST", "/v2/users", fmt.Sprintf(`{"user":{"id":"zed","primaryParty":%q}}`, big)},
		{"create user: a right's party", admin, "POST", "/v2/users", fmt.Sprintf(`{"user":{"id":"zed"},"rights":[{"kind":{"CanActAs":{"value":{"party":%q}}}}]}`, big)},
		{"update user: id mismatch", admin, "PATCH", "/v2/users/alice", fmt.Sprintf(`{"user":{"id":%q},"updateMask":{"paths":["primary_party"]}}`, big)},
		{"update user: a path", admin, "PATCH", "/v2/users/alice", fmt.Sprintf(`{"user":{"id":"alice"},"updateMask":{"paths":[%q]}}`, big)},
		{"grant rights: user id", admin, "POST", "/v2/users/alice/rights", fmt.Sprintf(`{"userId":%q,"rights":[]}`, big)},
		{"parties: identity provider", admin, "GET", "/v2/parties?identity-provider-id=" + q(big), ""},
		{"parties: page token", admin, "GET", "/v2/parties?pageToken=" + q(big), "-"},
		{"parties: a party", admin, "GET", "/v2/parties/" + p(big), ""},
		{"parties: more parties", admin, "GET", "/v2/parties/{alice}?parties=" + q(big), ""},
		{"a token for a long user", "u" + strings.Repeat("a", 8<<10), "GET", "/v2/authenticated-user", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := e.expand(tc.body)
			if body == "-" {
				body = ""
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, newRequest(tc.method, e.expand(tc.path), bearer(t, tc.user), body))
			if tc.body == "-" && rec.Code < 400 {
				return // no error to look at
			}
			if rec.Code < 400 || rec.Code >= 500 {
				t.Errorf("status %d, want 4xx: %.300s", rec.Code, rec.Body)
			}
			if n := rec.Body.Len(); n >= 1<<10 {
				t.Errorf("error body of %d bytes: %.300s…", n, rec.Body)
			}
		})
	}
}
