package ledgerapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// The packages surface: the built-in packages listed, their status and
// their vetting; downloads, uploads and vetting changes refused.
func TestPackages(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "packages", *update)
	var ids []string
	for _, p := range e.net.Registry().Packages() {
		ids = append(ids, p.ID)
	}
	slices.Sort(ids)
	amulet, ok := e.net.Registry().PackageID("splice-amulet")
	if !ok {
		t.Fatal("no splice-amulet package")
	}
	unknown := "0000000000000000000000000000000000000000000000000000000000000000"
	wantIDs := func(t *testing.T, rec *httptest.ResponseRecorder) {
		var got ledgerapi.ListPackagesResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || !slices.Equal(got.PackageIDs, ids) {
			t.Errorf("package ids %s, want %v", rec.Body, ids)
		}
	}
	vetted := func(t *testing.T, rec *httptest.ResponseRecorder) ledgerapi.ListVettedPackagesResponse {
		t.Helper()
		var got ledgerapi.ListVettedPackagesResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	// Every participant of the network vets every package, and the
	// pages, walked, give each (synchronizer, participant) once.
	allVetted := func(t *testing.T, rec *httptest.ResponseRecorder) {
		page := vetted(t, rec)
		seen := map[string]bool{}
		for len(page.VettedPackages) > 0 {
			for _, v := range page.VettedPackages {
				key := v.SynchronizerID + " " + v.ParticipantID
				if seen[key] || len(v.Packages) != len(ids) {
					t.Errorf("entry %s seen twice or with %d packages", key, len(v.Packages))
				}
				seen[key] = true
			}
			next := httptest.NewRecorder()
			e.handler(options{}).ServeHTTP(next, newRequest(http.MethodPost, "/v2/package-vetting/list", bearer(t, "alice"),
				`{"pageSize":2,"pageToken":"`+page.NextPageToken+`"}`))
			page = vetted(t, next)
		}
		if want := 1 + len(e.seeded.SVs); len(seen) != want {
			t.Errorf("%d entries, want one per participant (%d): %v", len(seen), want, seen)
		}
	}
	steps := []step{
		{name: "list", method: "GET", path: "/v2/packages", user: "alice", status: 200, check: wantIDs},
		{name: "list: no token", method: "GET", path: "/v2/packages", status: 401, offSpec: true},
		{name: "status: a built-in package", method: "GET", path: "/v2/packages/" + amulet + "/status", user: "alice", status: 200},
		{name: "status: another package", method: "GET", path: "/v2/packages/" + unknown + "/status", user: "alice", status: 200},
		{name: "status: a malformed id", method: "GET", path: "/v2/packages/a.b/status", user: "alice", status: 400, code: "INVALID_ARGUMENT"},
		{name: "download: a built-in package", method: "GET", path: "/v2/packages/" + amulet, user: "alice", status: 501, code: "UNSUPPORTED_PACKAGE_OPERATION"},
		{name: "download: an unknown package", method: "GET", path: "/v2/packages/" + unknown, user: "alice", status: 404, code: "PACKAGE_NOT_FOUND"},
		{name: "upload", method: "POST", path: "/v2/dars?vetAllPackages=true", user: admin, status: 501, code: "UNSUPPORTED_PACKAGE_OPERATION",
			body: "PK\x03\x04", contentType: "application/octet-stream"},
		{name: "upload: the deprecated path", method: "POST", path: "/v2/packages", user: admin, status: 501, code: "UNSUPPORTED_PACKAGE_OPERATION",
			body: "PK\x03\x04", contentType: "application/octet-stream"},
		{name: "upload: not an admin", method: "POST", path: "/v2/dars", user: "alice", status: 403, body: "PK\x03\x04", contentType: "application/octet-stream"},
		{name: "upload: a bad flag", method: "POST", path: "/v2/dars?vetAllPackages=maybe", user: admin, status: 400, offSpec: true,
			body: "PK\x03\x04", contentType: "application/octet-stream"},
		{name: "validate", method: "POST", path: "/v2/dars/validate", user: admin, status: 501, code: "UNSUPPORTED_PACKAGE_OPERATION",
			body: "PK\x03\x04", contentType: "application/octet-stream"},
		{name: "vetted", method: "POST", path: "/v2/package-vetting/list", user: "alice", status: 200, body: `{}`, check: allVetted},
		{name: "vetted: two per page", method: "POST", path: "/v2/package-vetting/list", user: "alice", status: 200, body: `{"pageSize":2}`, check: allVetted},
		{name: "vetted: the deprecated GET with a body", method: "GET", path: "/v2/package-vetting", user: "alice", status: 200, body: `{"pageSize":1}`},
		{name: "vetted: by name prefix and participant", method: "POST", path: "/v2/package-vetting/list", user: "alice", status: 200,
			body: `{"packageMetadataFilter":{"packageNamePrefixes":["splice-amulet"]},"topologyStateFilter":{"participantIds":["` + string(e.seeded.Validator.Participant) + `"]}}`},
		{name: "vetted: by package id and synchronizer", method: "POST", path: "/v2/package-vetting/list", user: "alice", status: 200,
			body: `{"packageMetadataFilter":{"packageIds":["` + amulet + `"]},"topologyStateFilter":{"synchronizerIds":["` + string(e.seeded.Synchronizer) + `"]}}`},
		{name: "vetted: no package matches", method: "POST", path: "/v2/package-vetting/list", user: "alice", status: 200,
			body: `{"packageMetadataFilter":{"packageIds":["` + unknown + `"]}}`},
		{name: "vetted: a page too large", method: "POST", path: "/v2/package-vetting/list", user: "alice", status: 400, code: "PROTO_DESERIALIZATION_FAILURE", body: `{"pageSize":101}`},
		{name: "vetted: a malformed participant", method: "POST", path: "/v2/package-vetting/list", user: "alice", status: 400, code: "PROTO_DESERIALIZATION_FAILURE",
			body: `{"topologyStateFilter":{"participantIds":["nobody"]}}`},
		{name: "vetted: a malformed page token", method: "POST", path: "/v2/package-vetting/list", user: "alice", status: 400, code: "PROTO_DESERIALIZATION_FAILURE", body: `{"pageToken":"!!"}`},
		{name: "vetted: no token", method: "POST", path: "/v2/package-vetting/list", status: 401, offSpec: true, body: `{}`},
		{name: "vetting update", method: "POST", path: "/v2/package-vetting/update", user: admin, status: 501, code: "UNSUPPORTED_PACKAGE_OPERATION",
			body: `{"changes":[{"operation":{"Unvet":{"value":{"packages":[{"packageId":"` + amulet + `"}]}}}}]}`},
		{name: "vetting update: the deprecated path", method: "POST", path: "/v2/package-vetting", user: admin, status: 501, code: "UNSUPPORTED_PACKAGE_OPERATION", body: `{"changes":[]}`},
		{name: "vetting update: not an admin", method: "POST", path: "/v2/package-vetting/update", user: "alice", status: 403, body: `{"changes":[]}`},
		{name: "vetting update: undecodable", method: "POST", path: "/v2/package-vetting/update", user: admin, status: 400, offSpec: true, body: `[`},
	}
	runSteps(t, e, s, golden, steps)
}
