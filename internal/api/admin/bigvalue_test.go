package admin_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/admin"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/operator"
	"github.com/sandnet/sandnet/internal/testnet"
)

// TestErrorsQuoteAShortPrefix sends a 1 MiB value in each place an
// operator fills in, to the admin API over a real network, and checks that
// the error quotes at most a short prefix of it: a body under 1 KiB.
func TestErrorsQuoteAShortPrefix(t *testing.T) {
	t.Parallel()
	n := testnet.Seed(t)
	mux := http.NewServeMux()
	admin.New(operator.New(n.Network, n.Seeded), &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true}, nil).Register(mux)
	big := strings.Repeat("x", 1<<20)
	bigNumber := strings.Repeat("9", 1<<20)
	alice := string(n.Party("alice"))
	validator := string(n.Seeded.Validator.Participant)
	sync := string(n.Seeded.Synchronizer)
	p := url.PathEscape
	for _, tc := range []struct {
		name, method, path, body string
	}{
		{"create user: name", "POST", "/users", fmt.Sprintf(`{"name":%q}`, big)},
		{"create user: name with colons", "POST", "/users", fmt.Sprintf(`{"name":"a::%s"}`, big)},
		{"create user: party hint", "POST", "/users", fmt.Sprintf(`{"name":"zed","party_hint":%q}`, big)},
		{"create user: party hint with colons", "POST", "/users", fmt.Sprintf(`{"name":"zed","party_hint":"a::%s"}`, big)},
		{"create user: existing", "POST", "/users", `{"name":"alice"}`},
		{"tap: user", "POST", "/tap", fmt.Sprintf(`{"user":%q,"amount":"1"}`, big)},
		{"tap: amount", "POST", "/tap", fmt.Sprintf(`{"user":"alice","amount":%q}`, big)},
		{"advance clock: duration", "POST", "/clock/advance", fmt.Sprintf(`{"duration":%q}`, big)},
		{"prune: participant", "POST", "/prune", fmt.Sprintf(`{"participant_id":%q,"offset":1}`, big)},
		{"prune: participant with colons", "POST", "/prune", fmt.Sprintf(`{"participant_id":"PAR::%s","offset":1}`, big)},
		{"prune: offset as a long number", "POST", "/prune", `{"offset":` + bigNumber + `}`},
		{"add synchronizer: alias", "POST", "/synchronizers", fmt.Sprintf(`{"alias":%q}`, big)},
		{"reassign: contract", "POST", "/reassignments", fmt.Sprintf(`{"contract_id":%q,"target_synchronizer_id":%q}`, big, sync)},
		{"reassign: target", "POST", "/reassignments", fmt.Sprintf(`{"contract_id":"00ab","target_synchronizer_id":%q}`, big)},
		{"hostings: party", "GET", "/parties/" + p(big) + "/hostings", ""},
		{"hostings: unknown party", "GET", "/parties/" + p("a::1220"+big) + "/hostings", ""},
		{"host: party", "POST", "/parties/" + p(big) + "/hostings", fmt.Sprintf(`{"participant_id":%q}`, validator)},
		{"host: participant", "POST", "/parties/" + p(alice) + "/hostings", fmt.Sprintf(`{"participant_id":%q}`, big)},
		{"host: participant with colons", "POST", "/parties/" + p(alice) + "/hostings", fmt.Sprintf(`{"participant_id":"PAR::x::%s"}`, big)},
		{"host: permission", "POST", "/parties/" + p(alice) + "/hostings", fmt.Sprintf(`{"participant_id":%q,"permission":%q}`, validator, big)},
		{"unhost: participant", "DELETE", "/parties/" + p(alice) + "/hostings/" + p(big), ""},
		{"unhost: participant with colons", "DELETE", "/parties/" + p(alice) + "/hostings/" + p("PAR::x::"+big), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var body *strings.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			} else {
				body = strings.NewReader("")
			}
			req := httptest.NewRequest(tc.method, admin.Prefix+tc.path, body)
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, req)
			if rec.Code < 400 || rec.Code >= 500 {
				t.Errorf("status %d, want 4xx: %.300s", rec.Code, rec.Body)
			}
			if n := rec.Body.Len(); n >= 1<<10 {
				t.Errorf("error body of %d bytes: %.300s…", n, rec.Body)
			}
		})
	}
}
