package ledgerapi_test

import (
	"encoding/json"
	"maps"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Allocating parties and updating their participant-local metadata, and
// identity provider configurations, step by step on a network of the
// test's own.
func TestPartyManagement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "partymanagement", *update)
	ns, _ := e.seeded.Validator.Participant.Namespace()
	carol := string(ledger.PartyID("carol", ns))
	dave := string(ledger.PartyID("dave", ns))
	details := func(t *testing.T, rec *httptest.ResponseRecorder) ledgerapi.PartyDetails {
		t.Helper()
		var out struct{ PartyDetails ledgerapi.PartyDetails }
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out.PartyDetails
	}
	listed := func(t *testing.T, rec *httptest.ResponseRecorder, party string) ledgerapi.PartyDetails {
		t.Helper()
		var out struct{ PartyDetails []ledgerapi.PartyDetails }
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		for _, d := range out.PartyDetails {
			if d.Party == party {
				return d
			}
		}
		t.Fatalf("%s is not listed: %s", party, rec.Body)
		return ledgerapi.PartyDetails{}
	}
	wantMeta := func(party, version string, isLocal bool, idp string, annotations map[string]string, list bool) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			t.Helper()
			var d ledgerapi.PartyDetails
			if list {
				d = listed(t, rec, party)
			} else {
				d = details(t, rec)
			}
			want := ledgerapi.PartyDetails{Party: party, IsLocal: isLocal, IdentityProviderID: idp,
				LocalMetadata: ledgerapi.ObjectMeta{ResourceVersion: version, Annotations: annotations}}
			if d.Party != want.Party || d.IsLocal != want.IsLocal || d.IdentityProviderID != want.IdentityProviderID ||
				d.LocalMetadata.ResourceVersion != version || !maps.Equal(d.LocalMetadata.Annotations, annotations) {
				t.Errorf("details %+v, want %+v", d, want)
			}
		}
	}
	// The engine agrees: the party is hosted here, and the user holds the
	// right the request granted.
	hostedWithRight := func(party, user string) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			t.Helper()
			if !slices.ContainsFunc(e.net.HostingsOf(daml.Party(party)), func(h ledger.Hosting) bool {
				return h.Participant == e.seeded.Validator.Participant && h.Permission == ledger.PermissionSubmission
			}) {
				t.Errorf("%s is not hosted on the validator participant with submission", party)
			}
			if user == "" {
				return
			}
			u, err := e.net.Store().User(t.Context(), e.seeded.Validator.Participant, user)
			if err != nil || !u.CanAct(daml.Party(party)) {
				t.Errorf("user %s may not act as %s: %v %v", user, party, u, err)
			}
		}
	}
	randomParty := regexp.MustCompile(`^party-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}::` + ns + `$`)
	long := strings.Repeat("x", ledger.MaxHintLen+1)
	const (
		idp1   = `{"identityProviderConfig":{"identityProviderId":"idp1","issuer":"https://issuer.example/1","jwksUrl":"https://issuer.example/1/jwks","audience":"sandnet"}}`
		carolP = "/v2/parties/{carol}"
	)
	steps := []step{
		// Allocation.
		{name: "allocate", method: "POST", path: "/v2/parties", user: admin, status: 200,
			body:  `{"partyIdHint":"carol","localMetadata":{"annotations":{"team":"blue","example.com/owner":"ops"}},"userId":"bob"}`,
			check: all(wantMeta(carol, "0", true, "", map[string]string{"team": "blue", "example.com/owner": "ops"}, false), hostedWithRight(carol, "bob"))},
		{name: "allocate: already allocated", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"partyIdHint":"carol"}`},
		{name: "allocate: on the connected synchronizer", method: "POST", path: "/v2/parties", user: admin, status: 200,
			body: `{"partyIdHint":"erin","synchronizerId":"` + string(e.seeded.Synchronizer) + `"}`},
		{name: "allocate: a synchronizer not connected", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "NOT_CONNECTED_TO_SYNCHRONIZER",
			body: `{"partyIdHint":"frank","synchronizerId":"other::1220ab"}`},
		{name: "allocate: a malformed synchronizer id", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_FIELD",
			body: `{"partyIdHint":"frank","synchronizerId":"no-namespace"}`},
		{name: "allocate: a hint with a bad character", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"partyIdHint":"a@b"}`},
		{name: "allocate: a hint with the delimiter", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"partyIdHint":"a::b"}`},
		{name: "allocate: a hint too long", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_ARGUMENT", body: `{"partyIdHint":"{long}"}`},
		{name: "allocate: a resource version", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_ARGUMENT",
			body: `{"partyIdHint":"frank","localMetadata":{"resourceVersion":"1"}}`},
		{name: "allocate: an annotation key with two slashes", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_ARGUMENT",
			body: `{"partyIdHint":"frank","localMetadata":{"annotations":{"a/b/c":"x"}}}`},
		{name: "allocate: an empty annotation value", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_ARGUMENT",
			body: `{"partyIdHint":"frank","localMetadata":{"annotations":{"team":""}}}`},
		{name: "allocate: an unknown user", method: "POST", path: "/v2/parties", user: admin, status: 404, code: "USER_NOT_FOUND",
			body: `{"partyIdHint":"frank","userId":"nobody"}`},
		{name: "allocate: a malformed user id", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_FIELD",
			body: `{"partyIdHint":"frank","userId":"no spaces"}`},
		{name: "allocate: an unknown identity provider", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_ARGUMENT",
			body: `{"partyIdHint":"frank","identityProviderId":"idp1"}`},
		{name: "allocate: a malformed identity provider id", method: "POST", path: "/v2/parties", user: admin, status: 400, code: "INVALID_FIELD",
			body: `{"partyIdHint":"frank","identityProviderId":"idp*"}`},
		{name: "allocate: not an admin", method: "POST", path: "/v2/parties", user: "alice", status: 403, body: `{"partyIdHint":"frank"}`},
		{name: "allocate: for oneself, over the quota", method: "POST", path: "/v2/parties", user: "alice", status: 403, body: `{"partyIdHint":"frank","userId":"alice"}`},
		{name: "allocate: no token", method: "POST", path: "/v2/parties", status: 401, offSpec: true, body: `{"partyIdHint":"frank"}`},
		{name: "allocate: undecodable", method: "POST", path: "/v2/parties", user: admin, status: 400, offSpec: true, body: `{"partyIdHint":7}`},
		{name: "allocated party in the list", method: "GET", path: "/v2/parties", user: admin, status: 200,
			check: wantMeta(carol, "0", true, "", map[string]string{"team": "blue", "example.com/owner": "ops"}, true)},
		{name: "allocated party's details", method: "GET", path: carolP, user: admin, status: 200,
			check: wantMeta(carol, "0", true, "", map[string]string{"team": "blue", "example.com/owner": "ops"}, true)},
		{name: "the user granted the right", method: "GET", path: "/v2/users/bob/rights", user: admin, status: 200},

		// Updates of the local metadata.
		{name: "update: annotations", method: "PATCH", path: carolP, user: admin, status: 200,
			body:  `{"partyDetails":{"party":"{carol}","localMetadata":{"resourceVersion":"0","annotations":{"team":"","room":"7"}}},"updateMask":{"paths":["local_metadata.annotations"]}}`,
			check: wantMeta(carol, "1", true, "", map[string]string{"example.com/owner": "ops", "room": "7"}, false)},
		{name: "update: the parent path with no annotations changes none", method: "PATCH", path: carolP, user: admin, status: 200,
			body:  `{"partyDetails":{"party":"{carol}"},"updateMask":{"paths":["local_metadata"]}}`,
			check: wantMeta(carol, "2", true, "", map[string]string{"example.com/owner": "ops", "room": "7"}, false)},
		{name: "update: is_local as it is", method: "PATCH", path: carolP, user: admin, status: 200,
			body: `{"partyDetails":{"party":"{carol}","isLocal":true},"updateMask":{"paths":["is_local","party"]}}`},
		{name: "update: a stale resource version", method: "PATCH", path: carolP, user: admin, status: 409, code: "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED",
			body: `{"partyDetails":{"party":"{carol}","localMetadata":{"resourceVersion":"1"}},"updateMask":{"paths":["local_metadata.annotations"]}}`},
		{name: "update: a resource version that is no number", method: "PATCH", path: carolP, user: admin, status: 400, code: "INVALID_FIELD",
			body: `{"partyDetails":{"party":"{carol}","localMetadata":{"resourceVersion":"x"}},"updateMask":{"paths":["local_metadata.annotations"]}}`},
		{name: "update: is_local changed", method: "PATCH", path: carolP, user: admin, status: 400, code: "INVALID_PARTY_DETAILS_UPDATE_REQUEST",
			body: `{"partyDetails":{"party":"{carol}","isLocal":false},"updateMask":{"paths":["is_local"]}}`},
		{name: "update: an empty mask", method: "PATCH", path: carolP, user: admin, status: 400, code: "INVALID_PARTY_DETAILS_UPDATE_REQUEST",
			body: `{"partyDetails":{"party":"{carol}"},"updateMask":{"paths":[]}}`},
		{name: "update: an unknown path", method: "PATCH", path: carolP, user: admin, status: 400, code: "INVALID_PARTY_DETAILS_UPDATE_REQUEST",
			body: `{"partyDetails":{"party":"{carol}"},"updateMask":{"paths":["localMetadata.annotations"]}}`},
		{name: "update: a path twice", method: "PATCH", path: carolP, user: admin, status: 400, code: "INVALID_PARTY_DETAILS_UPDATE_REQUEST",
			body: `{"partyDetails":{"party":"{carol}"},"updateMask":{"paths":["party","party"]}}`},
		{name: "update: no mask", method: "PATCH", path: carolP, user: admin, status: 400, code: "MISSING_FIELD", offSpec: true,
			body: `{"partyDetails":{"party":"{carol}"}}`},
		{name: "update: another party in the body", method: "PATCH", path: carolP, user: admin, status: 400, code: "INVALID_ARGUMENT",
			body: `{"partyDetails":{"party":"{alice}"},"updateMask":{"paths":["party"]}}`},
		{name: "update: no party details", method: "PATCH", path: carolP, user: admin, status: 400, code: "INVALID_ARGUMENT", offSpec: true,
			body: `{"updateMask":{"paths":["party"]}}`},
		{name: "update: an empty annotation key", method: "PATCH", path: carolP, user: admin, status: 400, code: "INVALID_ARGUMENT",
			body: `{"partyDetails":{"party":"{carol}","localMetadata":{"annotations":{"":"x"}}},"updateMask":{"paths":["local_metadata.annotations"]}}`},
		{name: "update: an unknown party", method: "PATCH", path: "/v2/parties/nobody::1220ab", user: admin, status: 404, code: "PARTY_NOT_FOUND",
			body: `{"partyDetails":{"party":"nobody::1220ab"},"updateMask":{"paths":["local_metadata"]}}`},
		{name: "update: a party hosted elsewhere", method: "PATCH", path: "/v2/parties/{dso}", user: admin, status: 404, code: "PARTY_NOT_FOUND",
			body: `{"partyDetails":{"party":"{dso}","localMetadata":{"annotations":{"a":"b"}}},"updateMask":{"paths":["local_metadata"]}}`},
		{name: "update: a local party without a record gets one", method: "PATCH", path: "/v2/parties/{alice}", user: admin, status: 200,
			body:  `{"partyDetails":{"party":"{alice}","localMetadata":{"resourceVersion":"5","annotations":{"wallet":"yes"}}},"updateMask":{"paths":["local_metadata.annotations"]}}`,
			check: wantMeta(string(e.party("alice")), "0", true, "", map[string]string{"wallet": "yes"}, false)},
		{name: "update: not an admin", method: "PATCH", path: carolP, user: "bob", status: 403,
			body: `{"partyDetails":{"party":"{carol}"},"updateMask":{"paths":["local_metadata"]}}`},

		// Identity providers.
		{name: "idps: none", method: "GET", path: "/v2/idps", user: admin, status: 200},
		{name: "idps: create", method: "POST", path: "/v2/idps", user: admin, status: 200, body: idp1},
		{name: "idps: create, the id in use", method: "POST", path: "/v2/idps", user: admin, status: 409, code: "IDP_CONFIG_ALREADY_EXISTS", body: idp1},
		{name: "idps: create, the issuer in use", method: "POST", path: "/v2/idps", user: admin, status: 409, code: "IDP_CONFIG_ISSUER_ALREADY_EXISTS",
			body: `{"identityProviderConfig":{"identityProviderId":"idp2","issuer":"https://issuer.example/1","jwksUrl":"https://issuer.example/2/jwks"}}`},
		{name: "idps: create, no issuer", method: "POST", path: "/v2/idps", user: admin, status: 400, code: "MISSING_FIELD",
			body: `{"identityProviderConfig":{"identityProviderId":"idp2","jwksUrl":"https://issuer.example/2/jwks"}}`},
		{name: "idps: create, a relative JWKS URL", method: "POST", path: "/v2/idps", user: admin, status: 400, code: "INVALID_FIELD",
			body: `{"identityProviderConfig":{"identityProviderId":"idp2","issuer":"i2","jwksUrl":"/jwks"}}`},
		{name: "idps: create, an empty id", method: "POST", path: "/v2/idps", user: admin, status: 400, code: "MISSING_FIELD",
			body: `{"identityProviderConfig":{"identityProviderId":"","issuer":"i2","jwksUrl":"https://issuer.example/2/jwks"}}`},
		{name: "idps: create, a malformed id", method: "POST", path: "/v2/idps", user: admin, status: 400, code: "INVALID_FIELD",
			body: `{"identityProviderConfig":{"identityProviderId":"idp*2","issuer":"i2","jwksUrl":"https://issuer.example/2/jwks"}}`},
		{name: "idps: create, no config", method: "POST", path: "/v2/idps", user: admin, status: 400, code: "MISSING_FIELD", offSpec: true, body: `{}`},
		{name: "idps: create, not an admin", method: "POST", path: "/v2/idps", user: "alice", status: 403, body: idp1},
		{name: "idps: list", method: "GET", path: "/v2/idps", user: admin, status: 200},
		{name: "idps: list, not an admin", method: "GET", path: "/v2/idps", user: "alice", status: 403},
		{name: "idps: an SV participant has its own", method: "GET", path: "/sv/1/v2/idps", user: admin, status: 200},
		{name: "idps: get", method: "GET", path: "/v2/idps/idp1", user: admin, status: 200},
		{name: "idps: get, unknown", method: "GET", path: "/v2/idps/idp9", user: admin, status: 404, code: "IDP_CONFIG_NOT_FOUND"},
		{name: "idps: get, not an admin", method: "GET", path: "/v2/idps/idp1", user: "alice", status: 403},
		{name: "idps: update", method: "PATCH", path: "/v2/idps/idp1", user: admin, status: 200,
			body: `{"identityProviderConfig":{"identityProviderId":"idp1","issuer":"https://issuer.example/one","audience":"","isDeactivated":true},"updateMask":{"paths":["issuer","audience","is_deactivated","jwks_url"]}}`},
		{name: "idps: update, another id in the body", method: "PATCH", path: "/v2/idps/idp1", user: admin, status: 400, code: "INVALID_ARGUMENT",
			body: `{"identityProviderConfig":{"identityProviderId":"idp2"},"updateMask":{"paths":["issuer"]}}`},
		{name: "idps: update, an unknown path", method: "PATCH", path: "/v2/idps/idp1", user: admin, status: 400, code: "INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST",
			body: `{"identityProviderConfig":{"identityProviderId":"idp1"},"updateMask":{"paths":["jwksUrl"]}}`},
		{name: "idps: update, unknown", method: "PATCH", path: "/v2/idps/idp9", user: admin, status: 404, code: "IDP_CONFIG_NOT_FOUND",
			body: `{"identityProviderConfig":{"identityProviderId":"idp9"},"updateMask":{"paths":["audience"]}}`},
		{name: "idps: update, not an admin", method: "PATCH", path: "/v2/idps/idp1", user: "alice", status: 403,
			body: `{"identityProviderConfig":{"identityProviderId":"idp1"},"updateMask":{"paths":["audience"]}}`},

		// Parties of an identity provider.
		{name: "allocate: under an identity provider", method: "POST", path: "/v2/parties", user: admin, status: 200,
			body:  `{"partyIdHint":"dave","identityProviderId":"idp1","localMetadata":{"annotations":{"k":"v"}}}`,
			check: wantMeta(dave, "0", true, "idp1", map[string]string{"k": "v"}, false)},
		{name: "details: shown to the default identity provider", method: "GET", path: "/v2/parties/{dave}", user: admin, status: 200,
			check: wantMeta(dave, "", true, "", map[string]string{}, true)},
		{name: "details: shown to its identity provider", method: "GET", path: "/v2/parties/{dave}?identity-provider-id=idp1", user: admin, status: 200,
			check: wantMeta(dave, "0", true, "idp1", map[string]string{"k": "v"}, true)},
		{name: "details: another party shown to that identity provider", method: "GET", path: carolP + "?identity-provider-id=idp1", user: admin, status: 200,
			check: wantMeta(carol, "", false, "", map[string]string{}, true)},
		{name: "update: the record is another identity provider's", method: "PATCH", path: "/v2/parties/{dave}", user: admin, status: 403,
			body: `{"partyDetails":{"party":"{dave}"},"updateMask":{"paths":["local_metadata"]}}`},
		{name: "update: under its identity provider", method: "PATCH", path: "/v2/parties/{dave}", user: admin, status: 200,
			body:  `{"partyDetails":{"party":"{dave}","identityProviderId":"idp1","localMetadata":{"annotations":{"k":"w"}}},"updateMask":{"paths":["local_metadata"]}}`,
			check: wantMeta(dave, "1", true, "idp1", map[string]string{"k": "w"}, false)},

		{name: "idps: delete", method: "DELETE", path: "/v2/idps/idp1", user: admin, status: 200},
		{name: "idps: delete, gone", method: "DELETE", path: "/v2/idps/idp1", user: admin, status: 404, code: "IDP_CONFIG_NOT_FOUND"},
		{name: "idps: delete, not an admin", method: "DELETE", path: "/v2/idps/idp1", user: "alice", status: 403},
	}
	// Last: the random party would be in every later list.
	steps = append(steps, []step{
		{name: "allocate: without a hint", method: "POST", path: "/v2/parties", user: admin, status: 200, body: `{}`, noGolden: true,
			check: func(t *testing.T, rec *httptest.ResponseRecorder) {
				d := details(t, rec)
				if !randomParty.MatchString(d.Party) || !d.IsLocal || d.LocalMetadata.ResourceVersion != "0" {
					t.Errorf("details %+v, want party-<uuid>::%s, local, at version 0", d, ns)
				}
			}},
	}...)
	for i := range 10 {
		id := string(rune('a' + i))
		steps = append(steps, step{name: "idps: fill, " + id, method: "POST", path: "/v2/idps", user: admin, status: 200,
			body: `{"identityProviderConfig":{"identityProviderId":"` + id + `","issuer":"issuer-` + id + `","jwksUrl":"https://issuer.example/` + id + `"}}`})
	}
	steps = append(steps, step{name: "idps: too many", method: "POST", path: "/v2/idps", user: admin, status: 400, code: "TOO_MANY_IDENTITY_PROVIDER_CONFIGS",
		body: `{"identityProviderConfig":{"identityProviderId":"k","issuer":"issuer-k","jwksUrl":"https://issuer.example/k"}}`})
	runSteps(t, e, s, golden, steps, "{carol}", carol, "{dave}", dave, "{long}", long)
}

// all runs several checks.
func all(checks ...func(t *testing.T, rec *httptest.ResponseRecorder)) func(t *testing.T, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, rec *httptest.ResponseRecorder) {
		t.Helper()
		for _, c := range checks {
			c(t, rec)
		}
	}
}
