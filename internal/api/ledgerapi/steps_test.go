package ledgerapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
)

// step is one request of a stepwise test on a network of the test's own:
// its response is golden and conforms to the document, and it may depend
// on the steps before it.
type step struct {
	name    string
	method  string
	path    string
	user    string // the token's subject; "" sends no token
	body    string
	opts    options
	offSpec bool
	status  int
	// code is the JsCantonError code a refusal carries; a 400 without one
	// is a text/plain decode failure.
	code  string
	check func(t *testing.T, rec *httptest.ResponseRecorder)
	// contentType replaces the request's application/json.
	contentType string
	// noGolden skips the golden entry of a response that differs from
	// run to run (a random party id); check must then check it.
	noGolden bool
}

// runSteps serves the steps in order, stopping at the first that fails,
// and reports stale golden entries. Bodies and paths have the network's
// placeholders ({alice}, …) expanded, then the pairs of vars (placeholder,
// value).
func runSteps(t *testing.T, e *env, s *apitest.Spec, golden *apitest.Golden, steps []step, vars ...string) {
	t.Helper()
	ran := 0
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			authz := ""
			if st.user != "" {
				authz = bearer(t, st.user)
			}
			more := strings.NewReplacer(vars...)
			body, path := more.Replace(e.expand(st.body)), more.Replace(e.expand(st.path))
			request := func() *http.Request {
				req := newRequest(st.method, path, authz, body)
				if st.contentType != "" {
					req.Header.Set("Content-Type", st.contentType)
				}
				return req
			}
			rec := httptest.NewRecorder()
			e.handler(st.opts).ServeHTTP(rec, request())
			ran++
			if rec.Code != st.status {
				t.Fatalf("status = %d, want %d: %s", rec.Code, st.status, rec.Body)
			}
			switch {
			case rec.Code == http.StatusOK:
			case rec.Code == http.StatusBadRequest && st.code == "":
				if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
					t.Errorf("Content-Type = %q, want text/plain", ct)
				}
			default:
				checkError(t, rec, st.code)
			}
			if !st.noGolden {
				golden.Check(t, st.name, entryOf(t, rec))
			}
			reqErr := s.Validate(t, request(), rec)
			switch {
			case st.offSpec && reqErr == nil:
				t.Errorf("the document allows this request, but the step says it does not")
			case !st.offSpec && reqErr != nil:
				t.Errorf("request does not conform to the document: %v", reqErr)
			}
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
