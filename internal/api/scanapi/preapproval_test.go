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
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/testnet"
)

// preapprove has the validator's party provide receiver a free
// pre-approval until expiresAt, valid from createdAt (ledger time when
// nil), and returns its id.
func preapprove(t *testing.T, n *testnet.Net, receiver daml.Party, createdAt *daml.Timestamp, expiresAt daml.Timestamp) daml.ContractID {
	t.Helper()
	ctx := context.Background()
	v := n.Seeded.Validator
	ac, err := splice.LoadAmuletContext(ctx, n.Network.Store(), n.Seeded.DSOParty, n.Network.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := n.Network.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{receiver, v.Party}, Disclosed: ac.Disclosed(),
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.AmuletRulesCreateTransferPreapprovalResult](tx, ac.AmuletRules.ID, "AmuletRules_CreateTransferPreapproval",
				splice.AmuletRulesCreateTransferPreapproval{
					Context: ac.PaymentContext(), Receiver: receiver, Provider: v.Party, ExpiresAt: expiresAt,
					ExpectedDso: &n.Seeded.DSOParty, OptCreatedAt: createdAt,
				})
			return err
		},
	})
	if err != nil {
		t.Fatalf("pre-approve %s: %v", receiver, err)
	}
	return splice.CreatedIn(tx, splice.TransferPreapproval{}.TemplateID())[0]
}

// Alice has two pre-approvals, the older one (by validFrom) created
// last; bob's has expired; the validator's party provides them but
// receives through none.
func TestTransferPreapprovalGolden(t *testing.T) {
	t.Parallel()
	n := testnet.Seed(t)
	alice, bob, validator := n.Party("alice"), n.Party("bob"), n.Seeded.Validator.Party
	now := n.Network.Clock().Now()
	hour := daml.Timestamp(time.Hour.Microseconds())
	newest := preapprove(t, n, alice, nil, now+24*hour)
	earlier := now - hour
	preapprove(t, n, alice, &earlier, now+48*hour)
	preapprove(t, n, bob, nil, now+hour)
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
