package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// neighbourRoutes are the write path's neighbours that take a body; the
// fuzzer picks one by index.
var neighbourRoutes = []struct{ method, path string }{
	{"POST", "/v2/parties"},
	{"PATCH", "/v2/parties/{alice}"},
	{"POST", "/v2/idps"},
	{"PATCH", "/v2/idps/idp1"},
	{"POST", "/v2/updates/update-by-id"},
	{"POST", "/v2/updates/update-by-offset"},
	{"POST", "/v2/updates/transaction-by-id"},
	{"POST", "/v2/updates/transaction-by-offset"},
	{"POST", "/v2/events/events-by-contract-id"},
	{"POST", "/v2/contracts/contract-by-id"},
	{"POST", "/v2/state/active-contracts-page"},
	{"POST", "/v2/updates/get-updates-page"},
	{"POST", "/v2/package-vetting/list"},
	{"POST", "/v2/package-vetting/update"},
}

// FuzzNeighbours sends arbitrary bodies to the endpoints beside command
// submission, on a network of its own with authentication off, so that
// every request reaches decoding, validation, reads and writes. Whatever
// the input, the handler must not panic, must answer no 5xx but the
// documented 501 of an unsupported package operation, and must answer in
// one of the documented shapes: JSON, a text/plain 400, or a
// JsCantonError.
func FuzzNeighbours(f *testing.F) {
	e := newEnv(f)
	seeds := []string{
		`{"partyIdHint":"fuzz","localMetadata":{"annotations":{"a":"b"}},"userId":"alice"}`,
		`{"partyDetails":{"party":"{alice}","localMetadata":{"resourceVersion":"0","annotations":{"k":""}}},"updateMask":{"paths":["local_metadata"]}}`,
		`{"identityProviderConfig":{"identityProviderId":"idp1","issuer":"i","jwksUrl":"https://x/jwks"}}`,
		`{"identityProviderConfig":{"identityProviderId":"idp1","audience":"a"},"updateMask":{"paths":["audience","is_deactivated"]}}`,
		`{"updateId":"1220` + strings.Repeat("ab", 32) + `","updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersForAnyParty":{}}}}}`,
		`{"offset":"3","updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{}}}}`,
		`{"updateId":"x","requestingParties":["{alice}"]}`,
		`{"offset":2,"transactionFormat":{"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS","eventFormat":{"filtersByParty":{"{alice}":{}}}}}`,
		`{"contractId":"00` + strings.Repeat("cd", 32) + `","eventFormat":{"filtersByParty":{"{alice}":{}}}}`,
		`{"contractId":"01ab","queryingParties":["{alice}","x"]}`,
		`{"activeAtOffset":3,"eventFormat":{"filtersForAnyParty":{}},"maxPageSize":1,"pageToken":"e30="}`,
		`{"beginOffsetExclusive":1,"endOffsetInclusive":5,"maxPageSize":2,"descendingOrder":true,"updateFormat":{"includeReassignments":{"filtersForAnyParty":{}}}}`,
		`{"packageMetadataFilter":{"packageNamePrefixes":["splice"]},"pageSize":1,"pageToken":"!"}`,
		`{"changes":[]}`,
		`null`, `[]`, ``,
	}
	for i, s := range seeds {
		f.Add(uint8(i), e.expand(s))
	}
	h := e.handler(options{authNone: true})
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		r := neighbourRoutes[int(route)%len(neighbourRoutes)]
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest(r.method, e.expand(r.path), "", body))
		ct := rec.Header().Get("Content-Type")
		switch {
		case rec.Code == http.StatusOK:
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s %s: 200 that is not JSON: %s", r.method, r.path, rec.Body)
			}
		case strings.HasPrefix(ct, "text/plain"):
			if rec.Code != http.StatusBadRequest || !strings.HasPrefix(rec.Body.String(), "Invalid value for: ") {
				t.Fatalf("%s %s: text/plain %d: %s", r.method, r.path, rec.Code, rec.Body)
			}
		default:
			var je ledgerapi.JsCantonError
			dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&je); err != nil || je.Code == "" || je.Cause == "" || je.ErrorCategory == 4 {
				t.Fatalf("%s %s: %d that is not a JsCantonError: %v: %s", r.method, r.path, rec.Code, err, rec.Body)
			}
			if rec.Code >= 500 && (rec.Code != http.StatusNotImplemented || je.Code != "UNSUPPORTED_PACKAGE_OPERATION") {
				t.Fatalf("%s %s: status %d for %q: %s", r.method, r.path, rec.Code, body, rec.Body)
			}
		}
	})
}
