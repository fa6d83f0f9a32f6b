package scanapi

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// TestRenderImportUpdate checks the fixed fields of an ACS import update,
// which a seeded network does not have: Splice's minimum record time, the
// import workflow id, and the one create as event 0.
func TestRenderImportUpdate(t *testing.T) {
	t.Parallel()
	c := &ledger.Contract{
		ID: "00abc", Template: splice.AmuletRules{}.TemplateID(), Argument: &daml.Record{},
		Signatories: []daml.Party{"dso::1220"}, CreatedAt: 1_700_000_000_000_000,
	}
	u := &scan.Update{Import: true, Transaction: &ledger.Transaction{
		UpdateID: "00abc", MigrationID: 1, Synchronizer: "global-domain::1220", EffectiveAt: 1_700_000_000_000_000,
		Events: []ledger.Event{{NodeID: 0, Created: c}}, Roots: []int32{0},
	}}
	for _, tc := range []struct {
		name   string
		v      historyVersion
		offset string
	}{
		{"v1", historyV1, v1Offset},
		{"v2", historyV2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			item, err := renderTransaction(u, tc.v, daml.ProtobufJSON)
			if err != nil {
				t.Fatal(err)
			}
			if item.RecordTime != "0001-01-01T00:00:00.000000Z" || item.WorkflowID != "canton-network-acs-import-00abc" ||
				item.Offset != tc.offset || !slices.Equal(item.RootEventIDs, []string{"00abc:0"}) {
				t.Errorf("import item %+v", item)
			}
			var ev CreatedEvent
			if err := json.Unmarshal(item.EventsByID["00abc:0"], &ev); err != nil || ev.EventID != "00abc:0" || ev.CreatedAt != "2023-11-14T22:13:20Z" {
				t.Errorf("import create %+v: %v", ev, err)
			}
		})
	}
}

// TestTransferFees checks how a transfer's output fees are split between
// sender and receivers by each output's receiver fee ratio.
func TestTransferFees(t *testing.T) {
	t.Parallel()
	n := daml.MustNumeric
	tr := splice.Transfer{Sender: "alice::1", Outputs: []splice.TransferOutput{
		{Receiver: "bob::1", Amount: n("10.0"), ReceiverFeeRatio: n("0.25")},
		{Receiver: "carol::1", Amount: n("5.0"), ReceiverFeeRatio: n("0.0")},
	}}
	res := splice.TransferResult{Round: splice.Round{Number: 3}, Summary: splice.TransferSummary{
		InputAmuletAmount: n("20.0"), OutputFees: []daml.Numeric{n("1.0"), n("0.5")},
		SenderChangeFee: n("0.1"), SenderChangeAmount: n("3.4"), HoldingFees: n("0.2"),
		BalanceChanges: daml.Map[daml.Party, splice.BalanceChange]{{Key: "alice::1", Value: splice.BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: n("-16.6"), ChangeToHoldingFeesRate: n("0.0"),
		}}},
	}}
	got, ok := transferOf(tr, res)
	if !ok {
		t.Fatal("transferOf failed")
	}
	if got.Sender.SenderFee != "1.2500000000" {
		t.Errorf("sender fee %s, want 0.75 + 0.5", got.Sender.SenderFee)
	}
	if got.Receivers[0].ReceiverFee != "0.2500000000" || got.Receivers[1].ReceiverFee != "0.0000000000" {
		t.Errorf("receiver fees %+v", got.Receivers)
	}
	if got.Sender.InputValidatorFaucetAmount != "" || len(got.BalanceChanges) != 1 {
		t.Errorf("transfer %+v", got)
	}
}
