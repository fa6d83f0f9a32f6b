package validatorapi_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestErrorsQuoteAShortPrefix sends 1 MiB values in every field, path
// segment and query parameter an error message could quote: each answer
// is a 4xx whose body quotes at most 256 bytes of the value.
func TestErrorsQuoteAShortPrefix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := strings.Repeat("x", 1<<20)
	digits := strings.Repeat("1", 1<<20)
	bob := string(e.Party("bob"))
	op := e.Seeded.Validator.OperatorUser
	offer := func(receiver, amount, expires, tracking string) string {
		return fmt.Sprintf(`{"receiver_party_id":%q,"amount":%q,"description":"d","expires_at":%s,"tracking_id":%q}`,
			receiver, amount, expires, tracking)
	}
	future := fmt.Sprint(int64(e.now() + hour))
	tests := []struct {
		name string
		req  request
	}{
		{"tap: amount", post("/v0/wallet/tap", "alice", `{"amount":"`+digits+`"}`)},
		{"tap: amount a JSON number", post("/v0/wallet/tap", "alice", `{"amount":`+digits+`}`)},
		{"offer: receiver", post("/v0/wallet/transfer-offers", "alice", offer(big, "1.0", future, "t"))},
		{"offer: amount", post("/v0/wallet/transfer-offers", "alice", offer(bob, digits, future, "t"))},
		{"offer: expires_at", post("/v0/wallet/transfer-offers", "alice", offer(bob, "1.0", digits, "t"))},
		{"offer: tracking id", post("/v0/wallet/transfer-offers", "alice", offer(bob, "1.0", future, big))},
		{"offer: unknown receiver", post("/v0/wallet/transfer-offers", "alice", offer("nobody::1220"+big, "1.0", future, "t"))},
		{"offer status", post("/v0/wallet/transfer-offers/"+big+"/status", "alice", "")},
		{"offer accept", post("/v0/wallet/transfer-offers/"+big+"/accept", "bob", "")},
		{"offer reject", post("/v0/wallet/transfer-offers/"+big+"/reject", "bob", "")},
		{"offer withdraw", post("/v0/wallet/transfer-offers/"+big+"/withdraw", "alice", "")},
		{"subscription accept", post("/v0/wallet/subscription-requests/"+big+"/accept", "alice", "")},
		{"unknown user", get("/v0/wallet/balance", big)},
		{"register", post("/v0/register", big, "")},
		{"onboard: name", post("/v0/admin/users", op, `{"name":"`+big+`"}`)},
		{"onboard: party", post("/v0/admin/users", op, `{"name":"zed","party_id":"`+big+`"}`)},
		{"onboard: party well-formed", post("/v0/admin/users", op, `{"name":"zed","party_id":"zed::1220`+big+`"}`)},
		{"entry: name", post("/v0/entry/create", "alice", `{"name":"`+big+`","url":"","description":""}`)},
		{"entry: url", post("/v0/entry/create", "alice", `{"name":"a.unverified.cns","url":"ftp://`+big[:200]+`","description":""}`)},
		{"scan-proxy: page_size", get("/v0/scan-proxy/ans-entries?page_size="+digits, "")},
		{"scan-proxy: by-name", get("/v0/scan-proxy/ans-entries/by-name/"+big, "")},
		{"scan-proxy: by-party", get("/v0/scan-proxy/ans-entries/by-party/"+big, "")},
		{"scan-proxy: transfer pre-approval by party", get("/v0/scan-proxy/transfer-preapprovals/by-party/"+big, "")},
		{"scan-proxy: featured apps", get("/v0/scan-proxy/featured-apps/"+big, "")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			e.handler.ServeHTTP(rec, tc.req.new(t))
			if rec.Code < 400 || rec.Code >= 500 {
				t.Errorf("status %d, want 4xx: %.300s", rec.Code, rec.Body)
			}
			if limit := 256 + 300; rec.Body.Len() > limit {
				t.Errorf("body of %d bytes, more than %d: %.400s", rec.Body.Len(), limit, rec.Body)
			}
		})
	}
}
