package scanapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/testnet"
)

// Alice has two pre-approvals, the older one (by validFrom) created
// last; bob's has expired; the validator's party provides them but
// receives through none.
func TestTransferPreapprovalGolden(t *testing.T) {
	t.Parallel()
	n := testnet.Seed(t)
	alice, bob, validator := n.Party("alice"), n.Party("bob"), n.Seeded.Validator.Party
	now := n.Network.Clock().Now()
	hour := daml.Timestamp(time.Hour.Microseconds())
	newest := n.Preapprove(t, alice, nil, now+24*hour)
	earlier := now - hour
	n.Preapprove(t, alice, &earlier, now+48*hour)
	n.Preapprove(t, bob, nil, now+hour)
	if _, err := n.Network.AdvanceClock(context.Background(), 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Ingester.Step(context.Background()); err != nil {
		t.Fatal(err)
	}

	rec := do(t, n.ScanHandler, http.MethodGet, "/v0/transfer-preapprovals/by-party/"+url.PathEscape(string(alice)), "", false)
	var got scanapi.TransferPreapprovalResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.TransferPreapproval == nil || got.TransferPreapproval.Contract == nil {
		t.Fatalf("%d %s (%v)", rec.Code, rec.Body, err)
	}
	if id := got.TransferPreapproval.Contract.ContractID; id != string(newest) {
		t.Errorf("alice's pre-approval is %s, want the latest valid %s", id, newest)
	}

	q := url.PathEscape
	runGolden(t, "preapproval", n.ScanHandler, []goldenCase{
		get("alice: the latest validFrom", "/v0/transfer-preapprovals/by-party/"+q(string(alice)), 200),
		get("bob: expired but not archived", "/v0/transfer-preapprovals/by-party/"+q(string(bob)), 200),
		get("the provider", "/v0/transfer-preapprovals/by-party/"+q(string(validator)), 404),
		get("an unknown party", "/v0/transfer-preapprovals/by-party/nobody::122000", 404),
	})
}
