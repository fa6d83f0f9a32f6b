package scanapi_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestErrorsQuoteAShortPrefix sends a 1 MiB value in each place a client
// fills in (path, query, body fields) and checks that the error answered
// quotes at most a short prefix of it: a body under 1 KiB, never the
// value back whole.
func TestErrorsQuoteAShortPrefix(t *testing.T) {
	t.Parallel()
	e := shared(t)
	f := fixtureOf(t, e)
	big := strings.Repeat("x", 1<<20)
	bigParty := "p::" + big
	bigNumber := strings.Repeat("9", 1<<20)
	snap := e.snapshot.RecordTime.String()
	q := url.QueryEscape
	p := url.PathEscape
	acs := func(fields string) string {
		return `{"migration_id":0,"page_size":2,` + fields + `}`
	}
	rt := fmt.Sprintf(`"record_time":%q`, snap)
	for _, tc := range []struct {
		name, method, path, body string
	}{
		{"snapshot-timestamp: before", "GET", "/v0/state/acs/snapshot-timestamp?migration_id=0&before=" + q(big), ""},
		{"snapshot-timestamp: migration_id", "GET", "/v0/state/acs/snapshot-timestamp?migration_id=" + q(big) + "&before=" + q(snap), ""},
		{"snapshot-timestamp-after: after", "GET", "/v0/state/acs/snapshot-timestamp-after?migration_id=0&after=" + q(big), ""},
		{"v0 acs: record_time", "POST", "/v0/state/acs", acs(fmt.Sprintf(`"record_time":%q`, big))},
		{"v1 acs: record_time_match", "POST", "/v1/state/acs", acs(rt + fmt.Sprintf(`,"record_time_match":%q`, big))},
		{"v1 acs: after as a long number", "POST", "/v1/state/acs", acs(rt + `,"after":` + bigNumber)},
		{"v2 acs: record_time", "POST", "/v2/state/acs", acs(fmt.Sprintf(`"record_time":%q`, big))},
		{"v2 acs: record_time_match", "POST", "/v2/state/acs", acs(rt + fmt.Sprintf(`,"record_time_match":%q`, big))},
		{"v2 acs: after", "POST", "/v2/state/acs", acs(rt + fmt.Sprintf(`,"after":%q`, big))},
		{"v2 acs: template", "POST", "/v2/state/acs", acs(rt + fmt.Sprintf(`,"templates":[%q]`, big))},
		{"v2 acs: template with colons", "POST", "/v2/state/acs", acs(rt + fmt.Sprintf(`,"templates":["a:b:c:%s"]`, big))},
		{"v2 acs: migration_id as a long number", "POST", "/v2/state/acs", `{"migration_id":` + bigNumber + `,"page_size":2,` + rt + `}`},
		{"v2 acs: page_size as a string", "POST", "/v2/state/acs", fmt.Sprintf(`{"migration_id":0,"page_size":%q,%s}`, big, rt)},
		{"v2 acs: unknown field type", "POST", "/v2/state/acs", acs(rt + `,"party_ids":` + bigNumber)},
		{"v2 updates: after_record_time", "POST", "/v2/updates", fmt.Sprintf(`{"page_size":1,"after":{"after_migration_id":0,"after_record_time":%q}}`, big)},
		{"v2 updates: daml_value_encoding", "POST", "/v2/updates", fmt.Sprintf(`{"page_size":1,"daml_value_encoding":%q}`, big)},
		{"v1 updates: daml_value_encoding", "POST", "/v1/updates", fmt.Sprintf(`{"page_size":1,"daml_value_encoding":%q}`, big)},
		{"v2 update: id", "GET", "/v2/updates/" + p(big), ""},
		{"v1 update: id", "GET", "/v1/updates/" + p(big), ""},
		{"v2 update: daml_value_encoding", "GET", "/v2/updates/" + p(f.updates[0].UpdateID()) + "?daml_value_encoding=" + q(big), ""},
		{"updates-before: before", "POST", "/v0/backfilling/updates-before", fmt.Sprintf(`{"migration_id":0,"synchronizer_id":%q,"before":%q,"count":1}`, f.sync, big)},
		{"updates-before: at_or_after", "POST", "/v0/backfilling/updates-before", fmt.Sprintf(`{"migration_id":0,"synchronizer_id":%q,"before":%q,"at_or_after":%q,"count":1}`, f.sync, snap, big)},
		{"migration-info: migration_id as a long number", "POST", "/v0/backfilling/migration-info", `{"migration_id":` + bigNumber + `}`},
		{"import-updates: migration", "POST", "/v0/backfilling/import-updates", fmt.Sprintf(`{"migration_id":7,"after_update_id":%q,"limit":1}`, big)},
		{"transactions: sort_order", "POST", "/v0/transactions", fmt.Sprintf(`{"page_size":1,"sort_order":%q}`, big)},
		{"transactions: page_end_event_id", "POST", "/v0/transactions", fmt.Sprintf(`{"page_size":1,"page_end_event_id":%q}`, big)},
		{"transactions: page_end_event_id of no update", "POST", "/v0/transactions", fmt.Sprintf(`{"page_size":1,"page_end_event_id":"#%s:0"}`, big)},
		{"vote request: id", "GET", "/v0/voterequests/" + p(big), ""},
		{"participant-id v0: synchronizer", "GET", "/v0/domains/" + p(big) + "/parties/" + p(f.alice) + "/participant-id", ""},
		{"participant-id v0: party", "GET", "/v0/domains/" + p(f.sync) + "/parties/" + p(big) + "/participant-id", ""},
		{"participant-id v0: unknown party", "GET", "/v0/domains/" + p(f.sync) + "/parties/" + p(bigParty) + "/participant-id", ""},
		{"participant-id v1: unknown party", "GET", "/v1/domains/" + p(f.sync) + "/parties/" + p(bigParty) + "/participant-id", ""},
		{"ans-entries: page_size", "GET", "/v0/ans-entries?page_size=" + q(big), ""},
		{"ans-entry by name", "GET", "/v0/ans-entries/by-name/" + p(big), ""},
		{"ans-entry by party", "GET", "/v0/ans-entries/by-party/" + p(bigParty), ""},
		{"transfer pre-approval by party", "GET", "/v0/transfer-preapprovals/by-party/" + p(bigParty), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			e.ScanHandler.ServeHTTP(rec, newRequest(tc.method, tc.path, tc.body))
			if rec.Code < 400 || rec.Code >= 500 {
				t.Errorf("status %d, want 4xx: %.300s", rec.Code, rec.Body)
			}
			if n := rec.Body.Len(); n >= 1<<10 {
				t.Errorf("error body of %d bytes: %.300s…", n, rec.Body)
			}
			if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
				t.Errorf("content type %q", rec.Header().Get("Content-Type"))
			}
		})
	}
}
