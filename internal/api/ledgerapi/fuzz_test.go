package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// shortListQuery parses a fuzzed query string, and skips the input when
// it cannot be parsed or makes an open-ended list wait long: a list
// waits for its idle timeout, which must stay short.
func shortListQuery(t *testing.T, query string) url.Values {
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Skip()
	}
	for _, v := range q["stream_idle_timeout_ms"] {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 5 {
			t.Skip()
		}
	}
	return q
}

// FuzzGetUpdates sends arbitrary bodies and query strings to POST
// /v2/updates of a seeded network (with authentication off, so that every
// request reaches the decoder, the validation and the reads). Whatever the
// input, the handler must not panic, must not answer 5xx, and must answer
// in one of the documented shapes: a JSON list, a text/plain 400, or a
// JsCantonError.
func FuzzGetUpdates(f *testing.F) {
	e := shared(f)
	seeds := []string{
		aliceWildcard,
		aliceLegacyOpen,
		txFormat("0", "12", "LEDGER_EFFECTS", byParty("{alice}", interfaceFilter(holdingID, true, true))),
		txFormat("0", "12", "ACS_DELTA", byParty("{alice}", templateFilter(amuletID, true))),
		txFormat("11", "12", "ACS_DELTA", `{"filtersForAnyParty":{"cumulative":[{"identifierFilter":{"Empty":{}}},{"identifierFilter":{"WildcardFilter":{"value":{"includeCreatedEventBlob":true}}}}]}}`),
		`{"beginExclusive":"3","endInclusive":"9","descendingOrder":true,"verbose":false,"filter":{"filtersForAnyParty":{}}}`,
		`{"beginExclusive":0,"updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":["a::b"]}},"includeReassignments":{"filtersByParty":{"x":{}}}}}`,
		txFormat("0", "12", "ACS_DELTA", byParty("{alice}", templateFilter("#nope:A:B", false))),
		`{"beginExclusive":-1,"endInclusive":0}`,
		`{"beginExclusive":1e400}`,
		`[{"beginExclusive":0}]`,
		``,
	}
	for _, s := range seeds {
		f.Add(e.expand(s), "")
	}
	f.Add(e.expand(aliceWildcard), "limit=3")
	f.Add(e.expand(aliceWildcard), "limit=-1&stream_idle_timeout_ms=0")
	f.Add(e.expand(aliceWildcard), "limit=x")
	h := e.handler(options{authNone: true, max: 5, wait: time.Millisecond})
	f.Fuzz(func(t *testing.T, body, query string) {
		q := shortListQuery(t, query)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest(http.MethodPost, "/v2/updates?"+q.Encode(), "", body))
		if rec.Code >= 500 {
			t.Fatalf("status %d for %q ? %q: %s", rec.Code, body, query, rec.Body)
		}
		ct := rec.Header().Get("Content-Type")
		switch {
		case rec.Code == http.StatusOK:
			var list []ledgerapi.JsGetUpdatesResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || list == nil {
				t.Fatalf("200 that is not a list: %v: %s", err, rec.Body)
			}
		case strings.HasPrefix(ct, "text/plain"):
			if rec.Code != http.StatusBadRequest || !strings.HasPrefix(rec.Body.String(), "Invalid value for: ") {
				t.Fatalf("text/plain %d: %s", rec.Code, rec.Body)
			}
		default:
			var je ledgerapi.JsCantonError
			dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&je); err != nil || je.Code == "" || je.Cause == "" || je.ErrorCategory == 4 {
				t.Fatalf("%d that is not a JsCantonError: %v: %s", rec.Code, err, rec.Body)
			}
		}
	})
}
