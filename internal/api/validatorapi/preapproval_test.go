package validatorapi_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/daml"
)

// The scan-proxy serves the Scans' answer on a party's pre-approval:
// alice's newest by validFrom (the older one created last), bob's expired
// one, and Splice's 404 for a party with none.
func TestTransferPreapprovalProxyGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob := e.Party("alice"), e.Party("bob")
	hour := daml.Timestamp(time.Hour.Microseconds())
	now := e.now()
	newest := e.Preapprove(t, alice, nil, now+24*hour)
	earlier := now - hour
	e.Preapprove(t, alice, &earlier, now+48*hour)
	e.Preapprove(t, bob, nil, now+hour)
	e.advance(t, 2*time.Hour)

	path := func(p daml.Party) string {
		return "/v0/scan-proxy/transfer-preapprovals/by-party/" + url.PathEscape(string(p))
	}
	got := decode[struct {
		TransferPreapproval struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
		} `json:"transfer_preapproval"`
	}](t, e.do(t, get(path(alice), "")).Body.Bytes())
	if got.TransferPreapproval.Contract.ContractID != string(newest) {
		t.Errorf("alice's pre-approval is %s, want the latest valid %s", got.TransferPreapproval.Contract.ContractID, newest)
	}

	cases := []goldenCase{
		{"alice: the latest validFrom", get(path(alice), ""), http.StatusOK},
		{"alice: with a token", get(path(alice), "alice"), http.StatusOK},
		{"bob: expired but not archived", get(path(bob), ""), http.StatusOK},
		{"the provider", get(path(e.Seeded.Validator.Party), ""), http.StatusNotFound},
		{"an unknown party", get("/v0/scan-proxy/transfer-preapprovals/by-party/nobody::122000", ""), http.StatusNotFound},
	}
	g := apitest.OpenGolden(t, "preapproval", *update)
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
