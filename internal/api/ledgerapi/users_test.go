package ledgerapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
)

// User management, step by step on a network of the test's own: each
// step is a request whose response is golden and conforms to the
// document, and may depend on the steps before it.
func TestUsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "users", *update)
	const carol = "carol"
	type step struct {
		name    string
		method  string
		path    string
		user    string // the token's subject; "" sends no token
		body    string
		opts    options
		offSpec bool
		status  int
		code    string
		check   func(t *testing.T, rec *httptest.ResponseRecorder)
	}
	userOf := func(rec *httptest.ResponseRecorder) map[string]any {
		var out struct{ User map[string]any }
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out.User
	}
	wantField := func(field string, want any) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			t.Helper()
			if got := userOf(rec)[field]; got != want {
				t.Errorf("%s = %v, want %v", field, got, want)
			}
		}
	}
	steps := []step{
		{name: "authenticated user", method: "GET", path: "/v2/authenticated-user", user: "alice", status: 200, check: wantField("id", "alice")},
		{name: "authenticated user: auth none", method: "GET", path: "/v2/authenticated-user", opts: options{authNone: true}, offSpec: true, status: 400, code: "INVALID_ARGUMENT"},
		{name: "list: admin", method: "GET", path: "/v2/users", user: admin, status: 200},
		{name: "list: two per page", method: "GET", path: "/v2/users?pageSize=2", user: admin, status: 200, check: func(t *testing.T, rec *httptest.ResponseRecorder) {
			var page struct {
				Users         []map[string]any
				NextPageToken string
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || len(page.Users) != 2 || page.NextPageToken == "" {
				t.Fatalf("page %s", rec.Body)
			}
			// The next page starts after the last user of this one.
			next := httptest.NewRecorder()
			e.handler(options{}).ServeHTTP(next, newRequest("GET", "/v2/users?pageSize=2&pageToken="+page.NextPageToken, bearer(t, admin), ""))
			if next.Code != 200 || strings.Contains(next.Body.String(), `"id":"`+page.Users[1]["id"].(string)+`"`) {
				t.Errorf("next page %s", next.Body)
			}
		}},
		{name: "list: a bad page token", method: "GET", path: "/v2/users?pageToken=!!", user: admin, status: 400, code: "INVALID_ARGUMENT"},
		{name: "list: a negative page size", method: "GET", path: "/v2/users?pageSize=-1", user: admin, offSpec: true, status: 400, code: "INVALID_ARGUMENT"},
		{name: "list: a page size that is no number", method: "GET", path: "/v2/users?pageSize=x", user: admin, offSpec: true, status: 400},
		{name: "list: not an admin", method: "GET", path: "/v2/users", user: "alice", status: 403},
		{name: "list: no token", method: "GET", path: "/v2/users", offSpec: true, status: 401},
		{name: "create", method: "POST", path: "/v2/users", user: admin, status: 200,
			body:  `{"user":{"id":"carol","primaryParty":"{alice}","metadata":{"annotations":{"team":"blue"}}},"rights":[{"kind":{"CanReadAs":{"value":{"party":"{alice}"}}}},{"kind":{"CanReadAsAnyParty":{"value":{}}}}]}`,
			check: wantField("isDeactivated", false)},
		{name: "create: it exists", method: "POST", path: "/v2/users", user: admin, body: `{"user":{"id":"carol"}}`, status: 409, code: "USER_ALREADY_EXISTS"},
		{name: "create: not an admin", method: "POST", path: "/v2/users", user: "alice", body: `{"user":{"id":"dave"}}`, status: 403},
		{name: "create: an empty id", method: "POST", path: "/v2/users", user: admin, body: `{"user":{"id":""}}`, status: 400, code: "MISSING_FIELD"},
		{name: "create: a bad id", method: "POST", path: "/v2/users", user: admin, body: `{"user":{"id":"no spaces"}}`, status: 400, code: "INVALID_FIELD"},
		{name: "create: a bad party", method: "POST", path: "/v2/users", user: admin, body: `{"user":{"id":"dave"},"rights":[{"kind":{"CanActAs":{"value":{"party":"a@b"}}}}]}`, status: 400, code: "INVALID_FIELD"},
		{name: "create: an unknown right", method: "POST", path: "/v2/users", user: admin, body: `{"user":{"id":"dave"},"rights":[{"kind":{"CanFly":{"value":{}}}}]}`, offSpec: true, status: 400},
		{name: "create: no user", method: "POST", path: "/v2/users", user: admin, body: `{}`, offSpec: true, status: 400},
		{name: "get: admin", method: "GET", path: "/v2/users/carol", user: admin, status: 200, check: wantField("primaryParty", string(e.party("alice")))},
		{name: "get: itself", method: "GET", path: "/v2/users/carol", user: carol, status: 200},
		{name: "get: another user", method: "GET", path: "/v2/users/carol", user: "bob", status: 403},
		{name: "get: unknown", method: "GET", path: "/v2/users/nobody", user: admin, status: 404, code: "USER_NOT_FOUND"},
		{name: "rights: itself", method: "GET", path: "/v2/users/carol/rights", user: carol, status: 200},
		{name: "rights: another user", method: "GET", path: "/v2/users/carol/rights", user: "alice", status: 403},
		{name: "rights: unknown", method: "GET", path: "/v2/users/nobody/rights", user: admin, status: 404, code: "USER_NOT_FOUND"},
		{name: "grant", method: "POST", path: "/v2/users/carol/rights", user: admin, status: 200,
			body: `{"userId":"carol","rights":[{"kind":{"CanActAs":{"value":{"party":"{alice}"}}}},{"kind":{"CanReadAsAnyParty":{"value":{}}}}]}`},
		{name: "grant: nothing new", method: "POST", path: "/v2/users/carol/rights", user: admin, status: 200,
			body: `{"rights":[{"kind":{"CanActAs":{"value":{"party":"{alice}"}}}}]}`},
		{name: "grant: another user id", method: "POST", path: "/v2/users/carol/rights", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"userId":"bob","rights":[]}`},
		{name: "grant: not an admin", method: "POST", path: "/v2/users/carol/rights", user: carol, status: 403, body: `{"rights":[{"kind":{"ParticipantAdmin":{"value":{}}}}]}`},
		{name: "grant: unknown", method: "POST", path: "/v2/users/nobody/rights", user: admin, status: 404, code: "USER_NOT_FOUND", body: `{"rights":[]}`},
		{name: "revoke", method: "PATCH", path: "/v2/users/carol/rights", user: admin, status: 200,
			body: `{"rights":[{"kind":{"CanReadAsAnyParty":{"value":{}}}},{"kind":{"ParticipantAdmin":{"value":{}}}}]}`},
		{name: "rights after grant and revoke", method: "GET", path: "/v2/users/carol/rights", user: admin, status: 200},
		{name: "update: annotations and primary party", method: "PATCH", path: "/v2/users/carol", user: admin, status: 200,
			body:  `{"user":{"id":"carol","primaryParty":"{bob}","metadata":{"annotations":{"team":"","room":"7"}}},"updateMask":{"paths":["primary_party","metadata.annotations"]}}`,
			check: wantField("primaryParty", string(e.party("bob")))},
		{name: "update: a stale resource version", method: "PATCH", path: "/v2/users/carol", user: admin, status: 409, code: "CONCURRENT_USER_UPDATE_DETECTED",
			body: `{"user":{"id":"carol","isDeactivated":true,"metadata":{"resourceVersion":"1"}},"updateMask":{"paths":["is_deactivated"]}}`},
		{name: "update: an empty mask", method: "PATCH", path: "/v2/users/carol", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"user":{"id":"carol"},"updateMask":{"paths":[]}}`},
		{name: "update: an unknown path", method: "PATCH", path: "/v2/users/carol", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"user":{"id":"carol"},"updateMask":{"paths":["rights"]}}`},
		{name: "update: another id", method: "PATCH", path: "/v2/users/carol", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"user":{"id":"bob"},"updateMask":{"paths":["is_deactivated"]}}`},
		{name: "update: self-deactivation", method: "PATCH", path: "/v2/users/participant_admin", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"user":{"id":"participant_admin","isDeactivated":true},"updateMask":{"paths":["is_deactivated"]}}`},
		{name: "update: not an admin", method: "PATCH", path: "/v2/users/carol", user: carol, status: 403, body: `{"user":{"id":"carol","isDeactivated":true},"updateMask":{"paths":["is_deactivated"]}}`},
		{name: "update: unknown", method: "PATCH", path: "/v2/users/nobody", user: admin, status: 404, code: "USER_NOT_FOUND", body: `{"user":{"id":"nobody","isDeactivated":true},"updateMask":{"paths":["is_deactivated"]}}`},
		{name: "deactivate", method: "PATCH", path: "/v2/users/carol", user: admin, status: 200,
			body:  `{"user":{"id":"carol","isDeactivated":true,"metadata":{"resourceVersion":"5"}},"updateMask":{"paths":["is_deactivated"]}}`,
			check: wantField("isDeactivated", true)},
		{name: "a deactivated user is refused", method: "GET", path: "/v2/authenticated-user", user: carol, status: 403},
		{name: "delete: not an admin", method: "DELETE", path: "/v2/users/carol", user: "alice", status: 403},
		{name: "delete", method: "DELETE", path: "/v2/users/carol", user: admin, status: 200},
		{name: "delete: gone", method: "DELETE", path: "/v2/users/carol", user: admin, status: 404, code: "USER_NOT_FOUND"},
		{name: "get: deleted", method: "GET", path: "/v2/users/carol", user: admin, status: 404, code: "USER_NOT_FOUND"},
		{name: "an SV participant has its own users", method: "GET", path: "/sv/1/v2/users/alice", user: admin, status: 404, code: "USER_NOT_FOUND"},
	}
	ran := 0
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			authz := ""
			if st.user != "" {
				authz = bearer(t, st.user)
			}
			body := e.expand(st.body)
			rec := httptest.NewRecorder()
			e.handler(st.opts).ServeHTTP(rec, newRequest(st.method, st.path, authz, body))
			ran++
			if rec.Code != st.status {
				t.Fatalf("status = %d, want %d: %s", rec.Code, st.status, rec.Body)
			}
			checkRefusal(t, rec, st.code)
			golden.Check(t, st.name, apitest.EntryOf(t, rec))
			checkConformance(t, s, newRequest(st.method, st.path, authz, body), rec, st.offSpec)
			if st.check != nil {
				st.check(t, rec)
			}
		})
		if !ok {
			break // later steps depend on this one
		}
	}
	golden.Finish(t, ran == len(steps))
}
