package scanapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/testnet"
)

// tcNet drives transfer commands on the ledger directly, as the external
// sender, the validator (their delegate) and the DSO would.
type tcNet struct {
	*testnet.Net
	t *testing.T
}

func (n tcNet) submit(actAs, readAs []daml.Party, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) *ledger.Transaction {
	n.t.Helper()
	tr, err := n.Network.Submit(context.Background(), ledger.Command{
		Participant: n.Seeded.Validator.Participant, UserID: n.Seeded.Validator.OperatorUser,
		ActAs: actAs, ReadAs: readAs, Disclosed: disclosed, CommandID: splice.CommandID("tc"), Run: run,
	})
	if err != nil {
		n.t.Fatal(err)
	}
	return tr
}

// command has sender sign a transfer command of 1.0 to receiver.
func (n tcNet) command(sender, receiver daml.Party, nonce int64, expiresIn time.Duration) daml.ContractID {
	n.t.Helper()
	rules, err := splice.Active[splice.ExternalPartyAmuletRules](context.Background(), n.Network.Store(), n.Seeded.DSOParty)
	if err != nil || len(rules) == 0 {
		n.t.Fatalf("rules: %v", err)
	}
	dso := n.Seeded.DSOParty
	tr := n.submit([]daml.Party{sender}, nil, []*ledger.Contract{rules[0].Contract}, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.ExternalPartyAmuletRulesCreateTransferCommandResult](tx, rules[0].ID,
			"ExternalPartyAmuletRules_CreateTransferCommand", splice.ExternalPartyAmuletRulesCreateTransferCommand{
				Sender: sender, Receiver: receiver, Delegate: n.Seeded.Validator.Party, Amount: daml.MustNumeric("1.0"),
				ExpiresAt: n.Network.Clock().Now() + daml.Timestamp(expiresIn.Microseconds()), Nonce: nonce, ExpectedDso: &dso,
			})
		return err
	})
	return splice.CreatedIn(tr, splice.TransferCommand{}.TemplateID())[0]
}

func (n tcNet) send(cmd daml.ContractID, sender daml.Party, preapproval daml.ContractID) {
	n.t.Helper()
	ctx := context.Background()
	ac, err := splice.LoadAmuletContext(ctx, n.Network.Store(), n.Seeded.DSOParty, n.Network.Clock().Now())
	if err != nil {
		n.t.Fatal(err)
	}
	counters, err := splice.Active[splice.TransferCommandCounter](ctx, n.Network.Store(), sender)
	if err != nil || len(counters) != 1 {
		n.t.Fatalf("counters %v %v", counters, err)
	}
	holdings, err := splice.Holdings(ctx, n.Network.Store(), sender)
	if err != nil {
		n.t.Fatal(err)
	}
	inputs := make([]daml.ContractID, len(holdings))
	for i, h := range holdings {
		inputs[i] = h.ID
	}
	n.submit([]daml.Party{n.Seeded.Validator.Party}, []daml.Party{sender}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.TransferCommandSendResult](tx, cmd, "TransferCommand_Send", splice.TransferCommandSend{
			Context: ac.PaymentContext(), Inputs: splice.InputAmulets(inputs...),
			TransferPreapprovalCidO: &preapproval, TransferCounterCid: counters[0].ID,
		})
		return err
	})
}

// TestTransferCommandGolden: alice's commands end sent, failed (a spent
// nonce), withdrawn, expired, or stay created; the Scan reports each, and
// alice's counter.
func TestTransferCommandGolden(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := tcNet{Net: testnet.Seed(t), t: t}
	alice, bob := n.Party("alice"), n.Party("bob")
	dsoAutomation := splice.NewDSOAutomation(n.Network, n.Seeded, slog.New(slog.DiscardHandler))
	runDSO := func() {
		if _, err := dsoAutomation.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	runDSO()
	preapproval := n.Preapprove(t, bob, nil, n.Network.Clock().Now()+daml.Timestamp((48*time.Hour).Microseconds()))
	sent := n.command(alice, bob, 0, time.Hour)
	stale := n.command(alice, bob, 0, time.Hour)
	withdrawn := n.command(alice, bob, 1, time.Hour)
	expiring := n.command(alice, bob, 2, time.Hour)
	n.command(alice, bob, 3, 4*time.Hour)
	runDSO() // alice's counter
	n.send(sent, alice, preapproval)
	n.send(stale, alice, preapproval)
	n.submit([]daml.Party{alice}, nil, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.TransferCommandWithdrawResult](tx, withdrawn, "TransferCommand_Withdraw", splice.TransferCommandWithdraw{})
		return err
	})
	if _, err := n.Network.AdvanceClock(ctx, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	n.submit([]daml.Party{alice}, nil, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.TransferCommandExpireResult](tx, expiring, "TransferCommand_Expire", splice.TransferCommandExpire{P: alice})
		return err
	})
	if _, err := n.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	rules, err := splice.Active[splice.ExternalPartyAmuletRules](ctx, n.Network.Store(), n.Seeded.DSOParty)
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules %v: %v", rules, err)
	}
	q := url.QueryEscape
	status := func(nonce string) string {
		return fmt.Sprintf("/v0/transfer-command/status?sender=%s&nonce=%s", q(string(alice)), nonce)
	}
	runGolden(t, "transfercommand", n.ScanHandler, []goldenCase{
		get("counter of alice", "/v0/transfer-command-counter/"+url.PathEscape(string(alice)), 200),
		get("counter of bob: none", "/v0/transfer-command-counter/"+url.PathEscape(string(bob)), 404),
		get("status of nonce 0: sent and failed", status("0"), 200),
		get("status of nonce 1: withdrawn", status("1"), 200),
		get("status of nonce 2: expired", status("2"), 200),
		get("status of nonce 3: created", status("3"), 200),
		get("status of an unused nonce", status("9"), 404),
		get("status of bob", fmt.Sprintf("/v0/transfer-command/status?sender=%s&nonce=0", q(string(bob))), 404),
		get("status without a nonce", "/v0/transfer-command/status?sender=x", 400).off(),
		get("status with a bad nonce", "/v0/transfer-command/status?sender=x&nonce=zero", 400).off(),
		post("external party amulet rules", "/v0/external-party-amulet-rules", `{}`, 200),
		post("external party amulet rules, cached", "/v0/external-party-amulet-rules",
			`{"cached_external_party_amulet_rules_contract_id":"`+string(rules[0].ID)+`"}`, 200),
		post("external party amulet rules, another cached", "/v0/external-party-amulet-rules",
			`{"cached_external_party_amulet_rules_contract_id":"00ab"}`, 200),
		post("external party amulet rules, bad body", "/v0/external-party-amulet-rules", `[]`, 400).off(),
	})
}
