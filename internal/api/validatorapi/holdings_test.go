package validatorapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/scan"
)

// TestHoldingsSummaryProxyGolden serves the scan-proxy's holdings
// summaries from a Scan that has taken a snapshot, and compares the
// answers with testdata/holdings.golden.json.
func TestHoldingsSummaryProxyGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	snap, err := (&scan.Snapshotter{Store: e.ScanStore}).TakeNow(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rt := snap.RecordTime.String()
	both := fmt.Sprintf(`[%q,%q]`, e.Party("alice"), e.Party("bob"))
	body := func(rt, owners, extra string) string {
		return fmt.Sprintf(`{"migration_id":0,"record_time":%q,"owner_party_ids":%s%s}`, rt, owners, extra)
	}
	cases := []goldenCase{
		{"v0: alice and bob, no token", post("/v0/scan-proxy/holdings/summary", "", body(rt, both, "")), http.StatusOK},
		{"v0: alice and bob, alice's token", post("/v0/scan-proxy/holdings/summary", "alice", body(rt, both, "")), http.StatusOK},
		{"v0: as of round 7", post("/v0/scan-proxy/holdings/summary", "", body(rt, both, `,"as_of_round":7`)), http.StatusOK},
		{"v0: at or before", post("/v0/scan-proxy/holdings/summary", "", body("9999-01-01T00:00:00Z", both, `,"record_time_match":"at_or_before"`)), http.StatusOK},
		{"v0: none at or before", post("/v0/scan-proxy/holdings/summary", "", body("2000-01-01T00:00:00Z", both, `,"record_time_match":"at_or_before"`)), http.StatusNotFound},
		{"v0: not a snapshot's time", post("/v0/scan-proxy/holdings/summary", "", body("2000-01-01T00:00:00Z", both, "")), http.StatusNotFound},
		{"v0: no owners", post("/v0/scan-proxy/holdings/summary", "", body(rt, `[]`, "")).off(), http.StatusBadRequest},
		{"v0: owners missing", post("/v0/scan-proxy/holdings/summary", "", fmt.Sprintf(`{"migration_id":0,"record_time":%q}`, rt)).off(), http.StatusBadRequest},
		{"v0: bad record_time", post("/v0/scan-proxy/holdings/summary", "", body("noon", both, "")).off(), http.StatusBadRequest},
		{"v0: bad token", post("/v0/scan-proxy/holdings/summary", "", body(rt, both, "")).withAuth("Bearer not-a-jwt"), http.StatusUnauthorized},
		{"v1: alice and bob", post("/v1/scan-proxy/holdings/summary", "", body(rt, both, "")), http.StatusOK},
		{"v1: none at or before", post("/v1/scan-proxy/holdings/summary", "", body("2000-01-01T00:00:00Z", both, `,"record_time_match":"at_or_before"`)), http.StatusNotFound},
		{"v1: no owners", post("/v1/scan-proxy/holdings/summary", "", body(rt, `[]`, "")).off(), http.StatusBadRequest},
		{"v1: unknown record_time_match", post("/v1/scan-proxy/holdings/summary", "", body(rt, both, `,"record_time_match":"near"`)).off(), http.StatusBadRequest},
	}
	g := apitest.OpenGolden(t, "holdings", *update)
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

// FuzzHoldingsSummaryProxy sends arbitrary bodies to the scan-proxy's
// holdings summaries: they must never panic nor answer 5xx.
func FuzzHoldingsSummaryProxy(f *testing.F) {
	for i, body := range []string{
		`{"migration_id":0,"record_time":"1970-01-01T00:00:00Z","record_time_match":"at_or_before","owner_party_ids":["alice::1220"],"as_of_round":3}`,
		`{"migration_id":0,"record_time":"2026-01-05T09:00:00Z","owner_party_ids":[]}`,
		`{"migration_id":-1,"record_time":"9999-12-31T23:59:59.999999Z","record_time_match":"exact","owner_party_ids":["x"],"as_of_round":-9223372036854775808}`,
		`{"owner_party_ids":[1]}`, `null`, `[]`, `{"as_of_round":1e400}`, `{"migration_id":0,"record_time":"noon","owner_party_ids":[]}`,
	} {
		f.Add(uint8(i), body)
	}
	paths := []string{"/v0/scan-proxy/holdings/summary", "/v1/scan-proxy/holdings/summary"}
	f.Fuzz(func(t *testing.T, endpoint uint8, body string) {
		fuzzEnv.once.Do(func() { fuzzEnv.e = newEnv(&fuzzTB{t}) })
		e := fuzzEnv.e
		if e == nil {
			t.Skip("no network")
		}
		req := httptest.NewRequest(http.MethodPost, baseURL+paths[int(endpoint)%len(paths)], strings.NewReader(body))
		rec := httptest.NewRecorder()
		e.handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q: %d %s", req.URL, body, rec.Code, rec.Body)
		}
	})
}
