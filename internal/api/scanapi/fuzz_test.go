package scanapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fuzzPosts are the endpoints whose bodies the fuzz target decodes.
var fuzzPosts = []string{
	"/v2/updates", "/v1/updates", "/v0/backfilling/updates-before", "/v0/backfilling/migration-info",
	"/v0/backfilling/import-updates", "/v0/transactions", "/v0/state/acs", "/v1/state/acs", "/v2/state/acs",
	"/v0/voterequest", "/v0/amulet-rules", "/v0/open-and-issuing-mining-rounds",
	"/v0/external-party-amulet-rules",
}

// fuzzGets are the endpoints whose query strings (and, for the ones with
// a {}, path segment) the fuzz target varies.
var fuzzGets = []string{
	"/v0/state/acs/snapshot-timestamp", "/v0/state/acs/snapshot-timestamp-after", "/v0/ans-entries",
	"/v2/updates/{}", "/v1/updates/{}", "/v0/voterequests/{}", "/v0/ans-entries/by-name/{}",
	"/v0/ans-entries/by-party/{}", "/v1/domains/{}/parties/{}/participant-id",
	"/v0/transfer-preapprovals/by-party/{}",
	"/v0/transfer-command-counter/{}", "/v0/transfer-command/status",
	"/v0/featured-apps/{}", "/v0/domains/global-domain::1220ab/members/{}/traffic-status",
}

// FuzzRequests sends arbitrary bodies, query strings and path segments to
// the Scan API: it must never panic nor answer 5xx.
func FuzzRequests(f *testing.F) {
	for i, body := range []string{
		`{"page_size":2}`,
		`{"after":{"after_migration_id":0,"after_record_time":"2026-01-05T09:00:00.000010Z"},"page_size":2,"daml_value_encoding":"protobuf_json"}`,
		`{"migration_id":0,"synchronizer_id":"global-domain::1220","before":"2026-01-05T12:00:00Z","at_or_after":"2026-01-05T09:00:00Z","count":2}`,
		`{"migration_id":0}`,
		`{"migration_id":0,"after_update_id":"","limit":10}`,
		`{"page_size":3,"sort_order":"desc","page_end_event_id":"#x:1"}`,
		`{"migration_id":0,"record_time":"2026-01-05T12:00:00Z","page_size":2,"after":40}`,
		`{"migration_id":0,"record_time":"2026-01-05T12:00:00Z","record_time_match":"at_or_before","page_size":2,"party_ids":["a::1"],"templates":["a:B:C"]}`,
		`{"migration_id":0,"record_time":"2026-01-05T12:00:00Z","page_size":2,"after":"MzguZGY1YWMzODQ"}`,
		`{"vote_request_contract_ids":["00","01"]}`,
		`{"cached_amulet_rules_contract_id":"00"}`,
		`{"cached_open_mining_round_contract_ids":["x"],"cached_issuing_round_contract_ids":[]}`,
		`null`, `[]`, `{"page_size":1e400}`, `{"page_size":-9223372036854775808}`,
	} {
		f.Add(uint8(i), body, "")
	}
	for i, p := range fuzzPosts {
		if p == "/v0/external-party-amulet-rules" {
			f.Add(uint8(i), `{"cached_external_party_amulet_rules_contract_id":"00","cached_external_party_amulet_rules_domain_id":7}`, "")
		}
	}
	for i, p := range fuzzGets {
		if p == "/v0/transfer-command/status" {
			f.Add(uint8(len(fuzzPosts)+i), "", "sender=alice::1220&nonce=0")
			f.Add(uint8(len(fuzzPosts)+i), "", "sender=&nonce=99999999999999999999")
		}
	}
	for i, p := range fuzzGets {
		if strings.Contains(p, "/traffic-status") {
			f.Add(uint8(len(fuzzPosts)+i), "PAR::p::1220ab", "")
			f.Add(uint8(len(fuzzPosts)+i), "MED::", "")
			f.Add(uint8(len(fuzzPosts)+i), "SEQ::a::b::c", "")
		}
	}
	for i := range fuzzGets {
		f.Add(uint8(len(fuzzPosts)+i), "", "migration_id=0&before=2026-01-05T12:00:00Z&after=x&page_size=3&name_prefix=a&daml_value_encoding=protobuf_json")
		f.Add(uint8(len(fuzzPosts)+i), "alice::1220", "page_size=-1")
	}
	f.Fuzz(func(t *testing.T, endpoint uint8, body, query string) {
		e := shared(t)
		var req *http.Request
		n := int(endpoint) % (len(fuzzPosts) + len(fuzzGets))
		if n < len(fuzzPosts) {
			req = httptest.NewRequest(http.MethodPost, baseURL+fuzzPosts[n], strings.NewReader(body))
		} else {
			path := strings.ReplaceAll(fuzzGets[n-len(fuzzPosts)], "{}", url.PathEscape(body))
			u, err := url.Parse(baseURL + path)
			if err != nil {
				return
			}
			u.RawQuery = query
			req = httptest.NewRequest(http.MethodGet, baseURL+"/", nil)
			req.URL = u
		}
		rec := httptest.NewRecorder()
		e.ScanHandler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", req.Method, req.URL, body, rec.Code, rec.Body)
		}
	})
}
