package validatorapi_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/daml"
)

// The scan-proxy serves the Scans' answer on a provider's
// FeaturedAppRight: bob's, and an empty 200 for alice, who has none.
func TestFeaturedAppRightProxyGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob := e.Party("alice"), e.Party("bob")
	right := e.FeatureApp(t, bob)

	path := func(p daml.Party) string {
		return "/v0/scan-proxy/featured-apps/" + url.PathEscape(string(p))
	}
	got := decode[struct {
		FeaturedAppRight struct {
			ContractID string `json:"contract_id"`
		} `json:"featured_app_right"`
	}](t, e.do(t, get(path(bob), "")).Body.Bytes())
	if got.FeaturedAppRight.ContractID != string(right) {
		t.Errorf("bob's right is %s, want %s", got.FeaturedAppRight.ContractID, right)
	}

	cases := []goldenCase{
		{"bob: featured", get(path(bob), ""), http.StatusOK},
		{"bob: with a token", get(path(bob), "alice"), http.StatusOK},
		{"alice: none", get(path(alice), ""), http.StatusOK},
		{"an unknown party", get("/v0/scan-proxy/featured-apps/nobody::122000", ""), http.StatusOK},
		{"not a party id", get("/v0/scan-proxy/featured-apps/nobody", ""), http.StatusBadRequest},
	}
	g := apitest.OpenGolden(t, "featured", *update)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				rec := e.do(t, tc.req)
				if rec.Code != tc.status {
					t.Errorf("status %d, want %d: %.500s", rec.Code, tc.status, rec.Body)
				}
				g.Check(t, tc.name, apitest.EntryOf(t, rec))
			})
		}
	})
	g.Finish(t, !t.Failed())
}
