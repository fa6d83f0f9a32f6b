package scanapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// holdingsPosts are the holdings endpoints whose bodies
// FuzzHoldingsRequests decodes.
var holdingsPosts = []string{"/v0/holdings/state", "/v1/holdings/state", "/v0/holdings/summary", "/v1/holdings/summary"}

// FuzzHoldingsRequests sends arbitrary bodies to the holdings endpoints:
// they must never panic nor answer 5xx.
func FuzzHoldingsRequests(f *testing.F) {
	for i, body := range []string{
		`{"migration_id":0,"record_time":"2026-01-05T12:00:59.999999Z","page_size":2,"owner_party_ids":["alice::1220"]}`,
		`{"migration_id":0,"record_time":"2026-01-05T12:00:00Z","record_time_match":"at_or_before","page_size":1,"after":40,"owner_party_ids":["a::1","b::2"]}`,
		`{"migration_id":0,"record_time":"9999-01-01T00:00:00Z","record_time_match":"at_or_before","owner_party_ids":["a::1"],"as_of_round":-9223372036854775808}`,
		`{"migration_id":0,"record_time":"2026-01-05T12:00:00Z","owner_party_ids":[],"as_of_round":9223372036854775807}`,
		`{"migration_id":0,"record_time":"2026-01-05T12:00:00Z","page_size":0,"owner_party_ids":null}`,
		`{"owner_party_ids":[1]}`, `null`, `[]`, `{"after":1e400}`, `{"migration_id":0,"record_time":"noon"}`,
	} {
		f.Add(uint8(i), body)
	}
	f.Fuzz(func(t *testing.T, endpoint uint8, body string) {
		e := holdingsShared(t)
		req := httptest.NewRequest(http.MethodPost, baseURL+holdingsPosts[int(endpoint)%len(holdingsPosts)], strings.NewReader(body))
		rec := httptest.NewRecorder()
		e.ScanHandler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q: %d %s", req.URL, body, rec.Code, rec.Body)
		}
	})
}
