package ledgerapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/ledger"
)

// A party hosted on the validator participant, its permission changed and
// its hosting revoked: the participant's stream holds one topology
// transaction for each, rendered with Canton's three
// ParticipantAuthorization events, and conforming to the document.
func TestHostingChangeEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	ctx := context.Background()
	v := e.seeded.Validator.Participant
	sv1 := e.seeded.SVs[0].Party
	end := func() int64 {
		t.Helper()
		h, err := e.net.Store().Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int64(h.Offsets[v])
	}
	begin := end()
	if _, err := e.net.ChangeHosting(ctx, sv1, v, ledger.PermissionObservation); err != nil {
		t.Fatal(err)
	}
	if _, err := e.net.ChangeHosting(ctx, sv1, v, ledger.PermissionConfirmation); err != nil {
		t.Fatal(err)
	}
	if _, err := e.net.RevokeHosting(ctx, sv1, v); err != nil {
		t.Fatal(err)
	}
	if got := end(); got != begin+3 {
		t.Fatalf("the validator's ledger end moved from %d to %d; want three updates", begin, got)
	}
	rng := `"beginExclusive":` + strconv.FormatInt(begin, 10) + `,"endInclusive":` + strconv.FormatInt(begin+3, 10)
	topology := func(parties string) string {
		return `{` + rng + `,"updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":[` + parties + `]}}}}`
	}
	golden := apitest.OpenGolden(t, "hosting", *update)
	cases := []struct {
		name, user, body string
		want             []int64
	}{
		{"added, changed and revoked: the events about sv1", userAnyReader, topology(`"{sv1}"`), []int64{begin + 1, begin + 2, begin + 3}},
		{"all parties", admin, topology(""), []int64{begin + 1, begin + 2, begin + 3}},
		{"another party: none", userAnyReader, topology(`"{alice}"`), nil},
		{"transactions only: none", userAnyReader, txFormat(strconv.FormatInt(begin, 10), strconv.FormatInt(begin+3, 10), "ACS_DELTA", byParty("{sv1}", "{}")), nil},
	}
	for _, tc := range cases {
		body := e.expand(tc.body)
		rec := httptest.NewRecorder()
		authz := bearer(t, tc.user)
		e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, "/v2/updates", authz, body))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", tc.name, rec.Code, rec.Body)
		}
		golden.Check(t, tc.name, entryOf(t, rec))
		if err := s.Validate(t, newRequest(http.MethodPost, "/v2/updates", authz, body), rec); err != nil {
			t.Errorf("%s: the exchange does not conform to the document: %v", tc.name, err)
		}
		wantOffsets(tc.want...)(t, e, rec)
		// The three kinds, once each, in order.
		if tc.want != nil {
			b := rec.Body.String()
			a, c, r := strings.Index(b, `"ParticipantAuthorizationAdded"`), strings.Index(b, `"ParticipantAuthorizationChanged"`), strings.Index(b, `"ParticipantAuthorizationRevoked"`)
			if a < 0 || c < a || r < c {
				t.Errorf("%s: events not added, changed, revoked in order: %s", tc.name, b)
			}
		}
	}
	golden.Finish(t, true)
}
