package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// The package preferences: the deprecated GET of one package name and the
// POST of several, their answers, and their refusals in Canton's order.
func TestPreferredPackages(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "preferred", *update)
	const (
		pp = "/v2/interactive-submission/preferred-packages"
		pv = "/v2/interactive-submission/preferred-package-version"
	)
	sync := string(e.seeded.Synchronizer)
	otherSync := "other::" + strings.Repeat("12", 34)
	nobody := "nobody::" + strings.Repeat("12", 34)
	reqs := func(rs ...string) string { return `{"packageVettingRequirements":[` + strings.Join(rs, ",") + `]}` }
	rq := func(name string, parties ...string) string {
		if parties == nil {
			parties = []string{}
		}
		b, err := json.Marshal(map[string]any{"parties": parties, "packageName": name})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// want checks a 200 of either endpoint: the built-in package of
	// each name, in order, chosen for the seeded synchronizer.
	want := func(names ...string) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			var got ledgerapi.GetPreferredPackagesResponse
			if strings.Contains(rec.Body.String(), `"packagePreference"`) {
				var one ledgerapi.GetPreferredPackageVersionResponse
				if err := strictJSON(rec.Body.Bytes(), &one); err != nil || one.PackagePreference == nil {
					t.Fatalf("no preference in %s (%v)", rec.Body, err)
				}
				got.PackageReferences = []ledgerapi.PackageReference{one.PackagePreference.PackageReference}
				got.SynchronizerID = one.PackagePreference.SynchronizerID
			} else if err := strictJSON(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			var refs []ledgerapi.PackageReference
			for _, n := range names {
				for _, p := range e.net.Registry().Packages() {
					if p.Name == n {
						refs = append(refs, ledgerapi.PackageReference{PackageID: p.ID, PackageName: p.Name, PackageVersion: p.Version})
					}
				}
			}
			if !slices.Equal(got.PackageReferences, refs) || got.SynchronizerID != sync {
				t.Errorf("preferences %s, want %+v on %s", rec.Body, refs, sync)
			}
		}
	}
	unknownInformees := func(want string) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			if got := decodeError(t, rec).Context["unknownInformees"]; got != want {
				t.Errorf("unknownInformees = %q, want %q", got, want)
			}
		}
	}
	type prefCase struct {
		name    string
		method  string
		path    string
		body    string
		user    string
		noToken bool
		offSpec bool
		status  int
		code    string // of a JsCantonError; "" for a 200 or a text/plain 400
		check   func(t *testing.T, rec *httptest.ResponseRecorder)
	}
	cases := []prefCase{
		{name: "preferred: one name", method: "POST", path: pp, user: "alice", status: 200,
			body: reqs(rq("splice-amulet", "{alice}")), check: want("splice-amulet")},
		{name: "preferred: several requirements", method: "POST", path: pp, user: "alice", status: 200,
			body:  reqs(rq("splice-wallet", "{alice}", "{bob}"), rq("splice-amulet", "{dso}"), rq("splice-api-token-holding-v1", "{sv1}", "{validator}"), rq("splice-wallet", "{bob}")),
			check: want("splice-wallet", "splice-amulet", "splice-api-token-holding-v1")},
		{name: "preferred: the synchronizer and a validity time", method: "POST", path: pp, user: "alice", status: 200,
			body:  `{"packageVettingRequirements":[` + rq("splice-amulet", "{alice}") + `],"synchronizerId":"` + sync + `","vettingValidAt":"2026-01-05T09:00:00Z"}`,
			check: want("splice-amulet")},
		{name: "preferred: a user without party rights", method: "POST", path: pp, user: userAdminOnly, status: 200,
			body: reqs(rq("splice-amulet", "{bob}")), check: want("splice-amulet")},
		{name: "preferred: an SV's participant", method: "POST", path: "/sv/1" + pp, user: admin, status: 200,
			body: reqs(rq("splice-dso-governance", "{dso}", "{sv1}")), check: want("splice-dso-governance")},
		{name: "preferred: no requirements", method: "POST", path: pp, user: "alice", status: 400, code: "MISSING_FIELD",
			body: reqs()},
		{name: "preferred: an empty object", method: "POST", path: pp, user: "alice", status: 400, code: "MISSING_FIELD", offSpec: true,
			body: `{}`},
		{name: "preferred: no parties", method: "POST", path: pp, user: "alice", status: 400, code: "MISSING_FIELD",
			body: reqs(rq("splice-amulet"))},
		{name: "preferred: no package name", method: "POST", path: pp, user: "alice", status: 400, code: "MISSING_FIELD", offSpec: true,
			body: reqs(`{"parties":["{alice}"]}`)},
		{name: "preferred: an empty package name", method: "POST", path: pp, user: "alice", status: 400, code: "MISSING_FIELD",
			body: reqs(rq("", "{alice}"))},
		{name: "preferred: a malformed package name", method: "POST", path: pp, user: "alice", status: 400, code: "INVALID_FIELD",
			body: reqs(rq("splice.amulet", "{alice}"))},
		{name: "preferred: a malformed party", method: "POST", path: pp, user: "alice", status: 400, code: "INVALID_ARGUMENT",
			body: reqs(rq("splice-amulet", "{alice}", "al/ice"))},
		{name: "preferred: a malformed synchronizer id", method: "POST", path: pp, user: "alice", status: 400, code: "INVALID_FIELD",
			body: `{"packageVettingRequirements":[` + rq("splice-amulet", "{alice}") + `],"synchronizerId":"global-domain"}`},
		{name: "preferred: unknown package names", method: "POST", path: pp, user: "alice", status: 404, code: "PACKAGE_NAMES_NOT_FOUND",
			body: reqs(rq("no-such-package", "{alice}"), rq("splice-amulet", "{alice}"), rq("nor-this", "{alice}"))},
		{name: "preferred: unknown parties", method: "POST", path: pp, user: "alice", status: 404, code: "UNKNOWN_INFORMEES",
			body: reqs(rq("splice-amulet", "{alice}", nobody, "carol")), check: unknownInformees("Set(" + nobody + ", carol)")},
		{name: "preferred: an unknown synchronizer", method: "POST", path: pp, user: "alice", status: 400, code: "INVALID_PRESCRIBED_SYNCHRONIZER_ID",
			body: `{"packageVettingRequirements":[` + rq("splice-amulet", "{alice}") + `],"synchronizerId":"` + otherSync + `"}`},
		{name: "preferred: malformed JSON", method: "POST", path: pp, user: "alice", status: 400, offSpec: true,
			body: `{"packageVettingRequirements":[`},
		{name: "preferred: a null requirement", method: "POST", path: pp, user: "alice", status: 400, offSpec: true,
			body: reqs(`null`)},
		{name: "preferred: parties not an array", method: "POST", path: pp, user: "alice", status: 400, offSpec: true,
			body: reqs(`{"parties":"{alice}","packageName":"splice-amulet"}`)},
		{name: "preferred: a malformed validity time", method: "POST", path: pp, user: "alice", status: 400,
			body: `{"packageVettingRequirements":[` + rq("splice-amulet", "{alice}") + `],"vettingValidAt":"yesterday"}`},
		{name: "preferred: no token", method: "POST", path: pp, noToken: true, status: 401, offSpec: true,
			body: reqs(rq("splice-amulet", "{alice}"))},

		{name: "version: found", method: "GET", path: pv + "?parties={alice}&parties={dso}&package-name=splice-amulet", user: "alice", status: 200,
			check: want("splice-amulet")},
		{name: "version: the synchronizer and a validity time", method: "GET", user: "alice", status: 200,
			path:  pv + "?parties={bob}&package-name=splice-wallet&vetting_valid_at=2026-01-05T09:00:00.5Z&synchronizer-id=" + sync,
			check: want("splice-wallet")},
		{name: "version: an empty synchronizer id", method: "GET", path: pv + "?parties={bob}&package-name=splice-wallet&synchronizer-id=", user: "bob", status: 200,
			check: want("splice-wallet")},
		{name: "version: no parties", method: "GET", path: pv + "?package-name=splice-amulet", user: "alice", status: 400, code: "MISSING_FIELD"},
		{name: "version: no package name", method: "GET", path: pv + "?parties={alice}", user: "alice", status: 400, offSpec: true},
		{name: "version: an empty package name", method: "GET", path: pv + "?parties={alice}&package-name=", user: "alice", status: 400, code: "MISSING_FIELD"},
		{name: "version: the package name twice", method: "GET", path: pv + "?parties={alice}&package-name=splice-amulet&package-name=splice-wallet", user: "alice", status: 400},
		{name: "version: a malformed validity time", method: "GET", path: pv + "?parties={alice}&package-name=splice-amulet&vetting_valid_at=yesterday", user: "alice", status: 400, offSpec: true},
		{name: "version: a malformed party", method: "GET", path: pv + "?parties=al%2Fice&package-name=splice-amulet", user: "alice", status: 400, code: "INVALID_ARGUMENT"},
		{name: "version: an unknown package name", method: "GET", path: pv + "?parties={alice}&package-name=no-such-package", user: "alice", status: 404, code: "PACKAGE_NAMES_NOT_FOUND"},
		{name: "version: an unknown party", method: "GET", path: pv + "?parties=" + nobody + "&package-name=splice-amulet", user: "alice", status: 404, code: "UNKNOWN_INFORMEES",
			check: unknownInformees("Set(" + nobody + ")")},
		{name: "version: an unknown synchronizer", method: "GET", path: pv + "?parties={alice}&package-name=splice-amulet&synchronizer-id=" + otherSync, user: "alice", status: 400,
			code: "INVALID_PRESCRIBED_SYNCHRONIZER_ID"},
		{name: "version: no token", method: "GET", path: pv + "?parties={alice}&package-name=splice-amulet", noToken: true, status: 401, offSpec: true},
	}
	var ran atomic.Int32
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				authz := caseToken(t, tc.noToken, tc.user)
				path, body := e.expand(tc.path), e.expand(tc.body)
				rec := e.answerCase(t, options{}, newRequest(tc.method, path, authz, body), tc.status, tc.code, &ran)
				golden.Check(t, tc.name, entryOf(t, rec))
				checkConformance(t, s, newRequest(tc.method, path, authz, body), rec, tc.offSpec)
				if tc.check != nil {
					tc.check(t, rec)
				}
			})
		}
	})
	golden.Finish(t, int(ran.Load()) == len(cases))
}

// strictJSON decodes b into v, refusing members v does not have.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// FuzzPreferredPackages sends arbitrary bodies to the POST and arbitrary
// query strings to the deprecated GET, with authentication off. Whatever
// the input, the handler must not panic, must answer no 5xx, and must
// answer in a documented shape: the response JSON, a text/plain 400, or a
// JsCantonError.
func FuzzPreferredPackages(f *testing.F) {
	e := shared(f)
	seeds := []struct {
		get   bool
		input string
	}{
		{false, `{"packageVettingRequirements":[{"parties":["{alice}"],"packageName":"splice-amulet"}]}`},
		{false, `{"packageVettingRequirements":[{"parties":["{alice}","{dso}"],"packageName":"splice-wallet"},{"parties":["{bob}"],"packageName":"splice-amulet"}],"synchronizerId":"` + string(e.seeded.Synchronizer) + `","vettingValidAt":"2026-01-05T09:00:00Z"}`},
		{false, `{"packageVettingRequirements":[{"parties":[],"packageName":""},null]}`},
		{false, `{"packageVettingRequirements":[{"parties":["x::1"],"packageName":"nope"}],"synchronizerId":"a::b"}`},
		{false, `{"vettingValidAt":"+10000-01-01T00:00:00Z"}`},
		{false, `null`}, {false, `[]`}, {false, ``},
		{true, `parties={alice}&package-name=splice-amulet`},
		{true, `parties={alice}&package-name=splice-amulet&vetting_valid_at=2026-01-05T09:00:00Z&synchronizer-id=` + string(e.seeded.Synchronizer)},
		{true, `parties=&package-name=&synchronizer-id=x`},
		{true, `package-name=a&package-name=b&vetting_valid_at=%zz`},
		{true, ``},
	}
	for _, s := range seeds {
		f.Add(s.get, e.expand(s.input))
	}
	h := e.handler(options{authNone: true})
	f.Fuzz(func(t *testing.T, get bool, input string) {
		var req *http.Request
		if get {
			req = newRequest(http.MethodGet, "/v2/interactive-submission/preferred-package-version", "", "")
			req.URL.RawQuery = input
		} else {
			req = newRequest(http.MethodPost, "/v2/interactive-submission/preferred-packages", "", input)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		ct := rec.Header().Get("Content-Type")
		switch {
		case rec.Code == http.StatusOK:
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%q: 200 that is not JSON: %s", input, rec.Body)
			}
		case strings.HasPrefix(ct, "text/plain"):
			if rec.Code != http.StatusBadRequest || !strings.HasPrefix(rec.Body.String(), "Invalid value for: ") {
				t.Fatalf("%q: text/plain %d: %s", input, rec.Code, rec.Body)
			}
		default:
			var je ledgerapi.JsCantonError
			if err := strictJSON(rec.Body.Bytes(), &je); err != nil || je.Code == "" || je.Cause == "" {
				t.Fatalf("%q: %d that is not a JsCantonError: %v: %s", input, rec.Code, err, rec.Body)
			}
			if rec.Code >= 500 {
				t.Fatalf("%q: status %d: %s", input, rec.Code, rec.Body)
			}
		}
	})
}
