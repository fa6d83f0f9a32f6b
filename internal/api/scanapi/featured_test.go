package scanapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/testnet"
)

// TestFeaturedAppsGolden serves the featured-app lookup (bob featured,
// alice not) and a member's traffic status, compared with
// testdata/featured.golden.json and validated against the document.
func TestFeaturedAppsGolden(t *testing.T) {
	t.Parallel()
	n := testnet.Seed(t)
	alice, bob := n.Party("alice"), n.Party("bob")
	right := n.FeatureApp(t, bob)
	if _, err := n.Ingester.Step(context.Background()); err != nil {
		t.Fatal(err)
	}

	rec := do(t, n.ScanHandler, http.MethodGet, "/v0/featured-apps/"+url.PathEscape(string(bob)), "", false)
	var got scanapi.FeaturedAppRightResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.FeaturedAppRight == nil {
		t.Fatalf("%d %s (%v)", rec.Code, rec.Body, err)
	}
	if got.FeaturedAppRight.ContractID != string(right) {
		t.Errorf("bob's right is %s, want %s", got.FeaturedAppRight.ContractID, right)
	}

	q := url.PathEscape
	sync := q(string(n.Seeded.Synchronizer))
	participant := q(string(n.Seeded.Validator.Participant))
	runGolden(t, "featured", n.ScanHandler, []goldenCase{
		get("featured: bob", "/v0/featured-apps/"+q(string(bob)), 200),
		get("featured: alice has none", "/v0/featured-apps/"+q(string(alice)), 200),
		get("featured: an unknown party", "/v0/featured-apps/nobody::122000", 200),
		get("featured: not a party id", "/v0/featured-apps/nobody", 400),
		get("traffic: a participant", "/v0/domains/"+sync+"/members/"+participant+"/traffic-status", 200),
		get("traffic: a mediator", "/v0/domains/"+sync+"/members/MED::mediator::1220ab/traffic-status", 200),
		get("traffic: no member code", "/v0/domains/"+sync+"/members/participant::1220ab/traffic-status", 400),
		get("traffic: an unknown code", "/v0/domains/"+sync+"/members/XYZ::p::1220ab/traffic-status", 400),
		get("traffic: a bad synchronizer", "/v0/domains/global/members/"+participant+"/traffic-status", 400),
	})
}
