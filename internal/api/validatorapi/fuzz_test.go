package validatorapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
)

// fuzzPosts are the endpoints whose bodies the fuzz target decodes; a {}
// is replaced by the path segment.
var fuzzPosts = []string{
	"/v0/wallet/transfer-offers", "/v0/wallet/tap", "/v0/entry/create", "/v0/register", "/v0/admin/users",
	"/v0/wallet/transfer-offers/{}/status", "/v0/wallet/transfer-offers/{}/accept",
	"/v0/wallet/subscription-requests/{}/accept",
	"/v0/admin/external-party/topology/generate", "/v0/admin/external-party/topology/submit",
	"/v0/wallet/transfer-preapproval", "/v0/wallet/transfer-preapproval/send",
	"/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory",
	"/v0/scan-proxy/registry/transfer-instruction/v1/{}/choice-contexts/accept",
	"/v0/scan-proxy/registry/transfer-instruction/v1/{}/choice-contexts/withdraw",
	"/v0/admin/external-party/setup-proposal", "/v0/admin/external-party/setup-proposal/prepare-accept",
	"/v0/admin/external-party/setup-proposal/submit-accept",
	"/v0/admin/external-party/transfer-preapproval/prepare-send", "/v0/admin/external-party/transfer-preapproval/submit-send",
	"/v0/scan-proxy/registry/allocation-instruction/v1/allocation-factory",
	"/v0/scan-proxy/registry/allocations/v1/{}/choice-contexts/execute-transfer",
	"/v0/scan-proxy/registry/allocations/v1/{}/choice-contexts/cancel",
	"/v0/allocations", "/v0/allocations/{}/withdraw",
}

// fuzzGets are the endpoints whose query strings and path segments the
// fuzz target varies.
var fuzzGets = []string{
	"/v0/scan-proxy/ans-entries", "/v0/scan-proxy/ans-entries/by-name/{}", "/v0/scan-proxy/ans-entries/by-party/{}",
	"/v0/scan-proxy/transfer-preapprovals/by-party/{}", "/v0/scan-proxy/featured-apps/{}",
	"/v0/admin/transfer-preapprovals", "/v0/admin/transfer-preapprovals/by-party/{}",
	"/v0/admin/external-party/balance", "/v0/admin/external-party/setup-proposal",
	"/v0/scan-proxy/transfer-command-counter/{}", "/v0/scan-proxy/transfer-command/status",
	"/v0/allocations", "/v0/wallet/token-standard/allocation-requests",
}

var fuzzEnv struct {
	once sync.Once
	e    *env
	dir  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fuzzEnv.dir != "" {
		os.RemoveAll(fuzzEnv.dir)
	}
	os.Exit(code)
}

// FuzzRequests sends arbitrary bodies, query strings and path segments to
// the request decoders: they must never panic nor answer 5xx.
func FuzzRequests(f *testing.F) {
	for i, body := range []string{
		`{"receiver_party_id":"bob::1220ab","amount":"1.0","description":"d","expires_at":1,"tracking_id":"t"}`,
		`{"amount":"1e3"}`, `{"amount":"-0.5","command_id":"c"}`,
		`{"name":"x.unverified.cns","url":"","description":""}`,
		`null`, `{}`, `{"name":"zed","party_id":"nobody","createPartyIfMissing":true}`,
		`[]`, `{"expires_at":1e400}`, `{"amount":"99999999999999999999999999999"}`,
		`{"party_hint":"x","public_key":"571b00d945fa69b0874481b1c2bf69a41aaa7f4e49996aa38815ab0a4d7e4cd5"}`,
		`{"public_key":"00","signed_topology_txs":[{"topology_tx":"CgA=","signed_hash":"zz"}]}`,
		`{"receiver_party_id":"bob::1220ab","amount":"1.0","deduplication_id":"d","description":"x"}`,
		`{"receiver_party_id":"","amount":"0.0000000001","deduplication_id":""}`,
		`{"settlement":{"executor":"bob::1220ab","settlement_ref":{"id":"t","cid":"00"},"requested_at":1,"allocate_before":2,"settle_before":3},"transfer_leg_id":"l","transfer_leg":{"receiver":"bob::1220ab","amount":"1.0"}}`,
		`{"settlement":{"settlement_ref":{},"requested_at":-1e30},"transfer_leg":{"meta":{"a":1}}}`,
		`{"choiceArguments":{"expectedAdmin":"d::1","transfer":{"sender":"a::1","receiver":"a::1"}},"excludeDebugFields":true}`,
		`{"meta":{"k":"v"},"excludeDebugFields":false}`,
	} {
		f.Add(uint8(i), body, "")
	}
	for i, p := range fuzzPosts {
		if strings.HasPrefix(p, "/v0/wallet/transfer-preapproval") {
			f.Add(uint8(i), `{"receiver_party_id":"bob::1220ab","amount":"1.0","deduplication_id":"d","description":"x"}`, "")
			f.Add(uint8(i), `{"receiver_party_id":7,"amount":"1e9999","deduplication_id":null}`, "")
		}
	}
	for i, p := range fuzzPosts {
		if strings.HasPrefix(p, "/v0/admin/external-party/") {
			f.Add(uint8(i), `{"user_party_id":"bob::1220ab","contract_id":"00ab","verbose_hashing":true}`, "")
			f.Add(uint8(i), `{"submission":{"party_id":"a::1","transaction":"CgA=","signed_tx_hash":"zz","public_key":"00"}}`, "")
			f.Add(uint8(i), `{"sender_party_id":"a::1","receiver_party_id":"b::1","amount":1e400,"expires_at":"2026-01-05T10:00:00Z","nonce":-1}`, "")
			f.Add(uint8(i), `{"sender_party_id":"a::1","receiver_party_id":"b::1","amount":"1.5","expires_at":3,"nonce":1.5}`, "")
		}
	}
	for i := range fuzzGets {
		f.Add(uint8(len(fuzzPosts)+i), "alice.unverified.cns", "page_size=3&name_prefix=a")
		f.Add(uint8(len(fuzzPosts)+i), "", "page_size=-1")
		f.Add(uint8(len(fuzzPosts)+i), "a::1", "party_id=a::1&sender=a::1&nonce=99999999999999999999")
	}
	f.Fuzz(func(t *testing.T, endpoint uint8, body, query string) {
		// One network for every input: the fuzz inputs that succeed (a
		// tap, an offer) only add to it.
		fuzzEnv.once.Do(func() { fuzzEnv.e = newEnv(&fuzzTB{t}) })
		e := fuzzEnv.e
		if e == nil {
			t.Skip("no network")
		}
		n := int(endpoint) % (len(fuzzPosts) + len(fuzzGets))
		var req *http.Request
		if n < len(fuzzPosts) {
			path := strings.ReplaceAll(fuzzPosts[n], "{}", url.PathEscape(query))
			u, err := url.Parse(baseURL + path)
			if err != nil {
				return
			}
			req = httptest.NewRequest(http.MethodPost, baseURL+"/", strings.NewReader(body))
			req.URL = u
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
		user := "alice"
		if n < len(fuzzPosts) && strings.HasPrefix(fuzzPosts[n], "/v0/admin/") ||
			n >= len(fuzzPosts) && strings.HasPrefix(fuzzGets[n-len(fuzzPosts)], "/v0/admin/") {
			user = e.Seeded.Validator.OperatorUser
		}
		req.Header.Set("Authorization", "Bearer "+token(t, user))
		rec := httptest.NewRecorder()
		e.handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", req.Method, req.URL, body, rec.Code, rec.Body)
		}
	})
}

// fuzzTB builds the fuzz target's network outside any one input's test:
// its cleanups never run (the process ends first), so the network outlives
// the input that built it.
type fuzzTB struct{ *testing.T }

func (fuzzTB) Cleanup(func()) {}

func (f fuzzTB) TempDir() string {
	dir, err := os.MkdirTemp("", "validatorapi-fuzz-")
	if err != nil {
		f.Fatal(err)
	}
	fuzzEnv.dir = dir
	return dir
}
