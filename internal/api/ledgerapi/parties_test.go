package ledgerapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/daml"
)

// The parties the participant knows, and its id. Lists are in party id
// order.
func TestParties(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "parties", *update)
	type partiesCase = getCase
	decode := func(t *testing.T, rec *httptest.ResponseRecorder) ledgerapi.ListKnownPartiesResponse {
		t.Helper()
		var out ledgerapi.ListKnownPartiesResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// The whole topology, as the store holds it.
	hostings, err := e.net.Store().Hostings(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	local := map[string]bool{}
	for _, h := range hostings {
		all = append(all, string(h.Party))
		local[string(h.Party)] = local[string(h.Party)] || h.Participant == e.seeded.Validator.Participant
	}
	slices.Sort(all)
	all = slices.Compact(all)
	checkAll := func(t *testing.T, rec *httptest.ResponseRecorder) {
		got := decode(t, rec)
		var ids []string
		for _, d := range got.PartyDetails {
			ids = append(ids, d.Party)
			if d.IsLocal != local[d.Party] {
				t.Errorf("%s: isLocal %v", d.Party, d.IsLocal)
			}
		}
		if !slices.Equal(ids, all) || got.NextPageToken != "" {
			t.Errorf("parties %v (next %q), want %v", ids, got.NextPageToken, all)
		}
		if !local[string(e.party("alice"))] || local[string(e.seeded.DSOParty)] {
			t.Error("alice must be local to the validator participant and the DSO party not")
		}
	}
	wantParties := func(want ...daml.Party) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			var got []string
			for _, d := range decode(t, rec).PartyDetails {
				got = append(got, d.Party)
			}
			var ws []string
			for _, p := range want {
				ws = append(ws, string(p))
			}
			if !slices.Equal(got, ws) {
				t.Errorf("parties %v, want %v", got, ws)
			}
		}
	}
	noneLocal := func(t *testing.T, rec *httptest.ResponseRecorder) {
		for _, d := range decode(t, rec).PartyDetails {
			if d.IsLocal || d.IdentityProviderID != "" {
				t.Errorf("%s: isLocal %v, identity provider %q; want neither", d.Party, d.IsLocal, d.IdentityProviderID)
			}
		}
	}
	alice, dso := e.party("alice"), e.seeded.DSOParty
	esc := url.PathEscape
	cases := []partiesCase{
		{name: "list: every known party", path: "/v2/parties", user: admin, status: 200, check: checkAll},
		{name: "list: of an SV participant", path: "/sv/1/v2/parties", user: admin, status: 200},
		{name: "list: the default identity provider", path: "/v2/parties?identity-provider-id=", user: admin, status: 200, check: checkAll},
		{name: "list: filter-party is a prefix", path: "/v2/parties?filter-party=" + url.QueryEscape(string(alice)[:8]), user: admin, status: 200, check: wantParties(alice)},
		{name: "list: filter-party matching nothing", path: "/v2/parties?filter-party=zzz", user: admin, status: 200, check: wantParties()},
		{name: "list: two per page", path: "/v2/parties?pageSize=2", user: admin, status: 200, check: func(t *testing.T, rec *httptest.ResponseRecorder) {
			// Walking the pages gives every party once.
			var got []string
			page := decode(t, rec)
			for {
				for _, d := range page.PartyDetails {
					got = append(got, d.Party)
				}
				if page.NextPageToken == "" {
					break
				}
				if len(page.PartyDetails) != 2 {
					t.Fatalf("a page that is not the last has %d parties", len(page.PartyDetails))
				}
				next := httptest.NewRecorder()
				e.handler(options{}).ServeHTTP(next, newRequest(http.MethodGet, "/v2/parties?pageSize=2&pageToken="+page.NextPageToken, bearer(t, admin), ""))
				if next.Code != 200 {
					t.Fatalf("next page: %d %s", next.Code, next.Body)
				}
				page = decode(t, next)
			}
			if !slices.Equal(got, all) {
				t.Errorf("pages hold %v, want %v", got, all)
			}
		}},
		{name: "list: another identity provider sees no party as local", path: "/v2/parties?identity-provider-id=idp1", user: admin, status: 200, check: noneLocal},
		{name: "list: a malformed identity provider id", path: "/v2/parties?identity-provider-id=idp%2A", user: admin, status: 400, code: "INVALID_FIELD"},
		{name: "list: a bad page token", path: "/v2/parties?pageToken=!!", user: admin, status: 400, code: "INVALID_ARGUMENT"},
		{name: "list: a negative page size", path: "/v2/parties?pageSize=-1", user: admin, offSpec: true, status: 400, code: "INVALID_ARGUMENT"},
		{name: "list: a page size that is no number", path: "/v2/parties?pageSize=x", user: admin, offSpec: true, status: 400},
		{name: "list: not an admin", path: "/v2/parties", user: "alice", status: 403},
		{name: "list: any-party reader is no admin", path: "/v2/parties", user: userAnyReader, status: 403},
		{name: "list: no token", path: "/v2/parties", noToken: true, offSpec: true, status: 401},
		{name: "list: auth none", path: "/v2/parties", noToken: true, opts: options{authNone: true}, offSpec: true, status: 200, check: checkAll},
		{name: "get: a local party", path: "/v2/parties/" + esc(string(alice)), user: admin, status: 200, check: wantParties(alice)},
		{name: "get: a party hosted elsewhere", path: "/v2/parties/" + esc(string(dso)), user: admin, status: 200, check: wantParties(dso)},
		{name: "get: more parties, unknown ones left out", path: "/v2/parties/" + esc(string(alice)) + "?parties=" + url.QueryEscape(string(dso)) + "&parties=nobody::1220ab", user: admin, status: 200, check: wantParties(dso, alice)},
		{name: "get: an unknown party", path: "/v2/parties/nobody::1220ab", user: admin, status: 200, check: wantParties()},
		{name: "get: a malformed party", path: "/v2/parties/alice@example", user: admin, status: 400, code: "INVALID_ARGUMENT"},
		{name: "get: another identity provider", path: "/v2/parties/" + esc(string(alice)) + "?identity-provider-id=idp1", user: admin, status: 200, check: noneLocal},
		{name: "get: by a user who acts as the party", path: "/v2/parties/" + esc(string(alice)), user: "alice", status: 200, check: wantParties(alice)},
		{name: "get: by a user who reads as the party", path: "/v2/parties/" + esc(string(alice)), user: userReader, status: 200, check: wantParties(alice)},
		{name: "get: by a user who executes as the party", path: "/v2/parties/" + esc(string(alice)), user: userExecutor, status: 200, check: wantParties(alice)},
		{name: "get: a party the user has no right for", path: "/v2/parties/" + esc(string(alice)) + "?parties=" + url.QueryEscape(string(e.party("bob"))), user: "alice", status: 403},
		{name: "get: not an admin, an unknown party", path: "/v2/parties/nobody::1220ab", user: userAdminOnly, status: 200, check: wantParties()},
		{name: "participant id", path: "/v2/parties/participant-id", user: "alice", status: 200, check: func(t *testing.T, rec *httptest.ResponseRecorder) {
			var got ledgerapi.GetParticipantIDResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.ParticipantID != string(e.seeded.Validator.Participant) {
				t.Errorf("participant id %s, want %s", rec.Body, e.seeded.Validator.Participant)
			}
		}},
		{name: "participant id of an SV participant", path: "/sv/1/v2/parties/participant-id", user: admin, status: 200, check: func(t *testing.T, rec *httptest.ResponseRecorder) {
			var got ledgerapi.GetParticipantIDResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.ParticipantID != string(e.seeded.SVs[0].Participant) {
				t.Errorf("participant id %s, want %s", rec.Body, e.seeded.SVs[0].Participant)
			}
		}},
		{name: "participant id: no token", path: "/v2/parties/participant-id", noToken: true, offSpec: true, status: 401},
		{name: "participant id: unknown user", path: "/v2/parties/participant-id", user: "mallory", status: 403},
	}
	runGetCases(t, e, s, golden, cases)
}
