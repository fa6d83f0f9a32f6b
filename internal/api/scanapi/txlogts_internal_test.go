package scanapi

import (
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// The token standard's log entries for trees a seeded network does not
// make: the deprecated pre-approval send over AmuletRules_Transfer, and
// trees Splice's Scan would refuse to parse, which the log skips.

func mustValue(t *testing.T, v any) daml.Value {
	t.Helper()
	out, err := daml.FromGo(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// zeroSummary is a transfer summary without amounts, balance changes as
// given.
func zeroSummary(changes ...daml.Party) splice.TransferSummary {
	z := daml.MustNumeric("0.0")
	s := splice.TransferSummary{
		InputAppRewardAmount: z, InputValidatorRewardAmount: z, InputSvRewardAmount: z, InputAmuletAmount: daml.MustNumeric("5.0"),
		HoldingFees: z, OutputFees: []daml.Numeric{z}, SenderChangeFee: z, SenderChangeAmount: z, AmuletPrice: daml.MustNumeric("1.0"),
	}
	for _, p := range changes {
		s.BalanceChanges = append(s.BalanceChanges, daml.MapEntry[daml.Party, splice.BalanceChange]{Key: p, Value: splice.BalanceChange{ChangeToInitialAmountAsOfRoundZero: z, ChangeToHoldingFeesRate: z}})
	}
	return s
}

func TestTokenStandardTxLogTrees(t *testing.T) {
	t.Parallel()
	const alice, bob = daml.Party("alice::1220"), daml.Party("bob::1220")
	gift := "gift"
	var bad daml.Value = &daml.Record{} // no field a choice needs
	amount := daml.MustNumeric("5.0")
	result := splice.TransferResult{Round: splice.Round{Number: 3}, Summary: zeroSummary(alice, bob), CreatedAmulets: []splice.CreatedAmulet{}}
	exercise := func(tid ledger.TemplateID, iface *daml.Identifier, choice string, arg, res daml.Value, children ...int32) *ledger.Exercised {
		return &ledger.Exercised{ContractID: "00c0", Template: tid, Interface: iface, Choice: choice, ChoiceArgument: arg, ExerciseResult: res, Children: children}
	}
	completed := func(cids ...daml.ContractID) daml.Value {
		return mustValue(t, splice.TransferInstructionResult{
			Output: splice.TransferInstructionResultOutput{Completed: &splice.TransferInstructionResultCompleted{ReceiverHoldingCids: cids}},
			Meta:   splice.Metadata{Values: map[string]string{splice.MetaSender: string(alice)}}, SenderChangeCids: []daml.ContractID{},
		})
	}
	preapproval, factory, instruction := splice.TransferPreapproval{}.TemplateID(), splice.ExternalPartyAmuletRules{}.TemplateID(), splice.AmuletTransferInstruction{}.TemplateID()
	for _, tc := range []struct {
		name  string
		nodes []*ledger.Exercised
		want  func(t *testing.T, items []*TxLogItem)
	}{
		{
			name: "the deprecated send reports the transfer below it",
			nodes: []*ledger.Exercised{
				exercise(preapproval, nil, "TransferPreapproval_Send", mustValue(t, splice.TransferPreapprovalSend{
					Context: splice.PaymentTransferContext{}, Inputs: []splice.TransferInput{}, Amount: amount, Sender: alice, Description: &gift,
				}), bad, 1),
				exercise(splice.AmuletRules{}.TemplateID(), nil, choiceTransfer, mustValue(t, splice.AmuletRulesTransfer{
					Transfer: splice.Transfer{Sender: alice, Provider: alice, Inputs: []splice.TransferInput{}, Outputs: []splice.TransferOutput{{Receiver: bob, ReceiverFeeRatio: daml.MustNumeric("0.0"), Amount: amount}}},
					Context:  splice.TransferContext{OpenMiningRound: "00a1"},
				}), mustValue(t, result)),
			},
			want: func(t *testing.T, items []*TxLogItem) {
				if len(items) != 1 || items[0].EventID != "#u:0" || *items[0].Round != 3 {
					t.Fatalf("items %+v", items)
				}
				if tr := items[0].Transfer; tr.TransferKind != kindPreapprovalSend || tr.Description != gift || tr.Receivers[0].Party != string(bob) {
					t.Errorf("transfer %+v", tr)
				}
			},
		},
		{
			name: "a send changing no other balance is to the sender",
			nodes: []*ledger.Exercised{
				exercise(preapproval, nil, "TransferPreapproval_SendV2", mustValue(t, splice.TransferPreapprovalSendV2{
					Inputs: []splice.TransferInput{}, Amount: amount, Sender: alice,
				}), mustValue(t, splice.TransferPreapprovalSendV2Result{
					Result: splice.TransferResult{Round: splice.Round{Number: 1}, Summary: zeroSummary(alice), CreatedAmulets: []splice.CreatedAmulet{}},
					Meta:   splice.Metadata{Values: map[string]string{}},
				})),
			},
			want: func(t *testing.T, items []*TxLogItem) {
				if len(items) != 1 || items[0].Transfer.Receivers[0].Party != string(alice) || items[0].Transfer.Description != "" {
					t.Fatalf("items %+v", items)
				}
			},
		},
		{
			name: "an accept whose amulet the tree lacks is skipped",
			nodes: []*ledger.Exercised{
				exercise(instruction, &splice.TransferInstructionInterface, "TransferInstruction_Accept", bad, completed("00d1")),
			},
			want: func(t *testing.T, items []*TxLogItem) {
				if len(items) != 0 {
					t.Fatalf("items %+v", items)
				}
			},
		},
		{
			name: "an accept pays the owner of the receiver's new amulet",
			nodes: []*ledger.Exercised{
				exercise(instruction, &splice.TransferInstructionInterface, "TransferInstruction_Accept", bad, completed("00d1"), 1),
				nil, // replaced by the amulet's creation below
			},
			want: func(t *testing.T, items []*TxLogItem) {
				if len(items) != 1 || *items[0].Round != 0 || items[0].EventID != "#u:0" {
					t.Fatalf("items %+v", items)
				}
				tr := items[0].Transfer
				if tr.TransferKind != kindTransferInstructionAccept || tr.TransferInstructionCid != "00c0" || tr.Sender.Party != string(alice) ||
					tr.Sender.InputAmuletAmount != "5.0000000000" || tr.Receivers[0].Party != string(bob) || tr.Receivers[0].Amount != "5.0000000000" {
					t.Errorf("transfer %+v", tr)
				}
			},
		},
		{
			name: "an accept naming no sender is skipped",
			nodes: []*ledger.Exercised{
				exercise(instruction, &splice.TransferInstructionInterface, "TransferInstruction_Accept", bad, mustValue(t, splice.TransferInstructionResult{
					Output: splice.TransferInstructionResultOutput{Completed: &splice.TransferInstructionResultCompleted{ReceiverHoldingCids: []daml.ContractID{"00d1"}}},
					Meta:   splice.Metadata{Values: map[string]string{}}, SenderChangeCids: []daml.ContractID{},
				}), 1),
				nil, // replaced by the amulet's creation below
			},
			want: func(t *testing.T, items []*TxLogItem) {
				if len(items) != 0 {
					t.Fatalf("items %+v", items)
				}
			},
		},
		{
			name: "an accept with two receiver holdings is skipped",
			nodes: []*ledger.Exercised{
				exercise(instruction, &splice.TransferInstructionInterface, "TransferInstruction_Accept", bad, completed("00d1", "00d2")),
			},
			want: func(t *testing.T, items []*TxLogItem) {
				if len(items) != 0 {
					t.Fatalf("items %+v", items)
				}
			},
		},
		{
			name: "a factory transfer that does not decode is searched like any node",
			nodes: []*ledger.Exercised{
				exercise(factory, &splice.TransferFactoryInterface, "TransferFactory_Transfer", bad, bad, 1),
				exercise(instruction, &splice.TransferInstructionInterface, "TransferInstruction_Withdraw", bad, bad),
			},
			want: func(t *testing.T, items []*TxLogItem) {
				if len(items) != 1 || items[0].AbortTransferInstruction.AbortKind != abortWithdraw || items[0].EventID != "#u:1" {
					t.Fatalf("items %+v", items)
				}
			},
		},
		{
			name: "a choice of another interface is not the factory's",
			nodes: []*ledger.Exercised{
				exercise(factory, &splice.TransferInstructionInterface, "TransferFactory_Transfer", bad, completed()),
			},
			want: func(t *testing.T, items []*TxLogItem) {
				if len(items) != 0 {
					t.Fatalf("items %+v", items)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tx := &ledger.Transaction{UpdateID: "u", Synchronizer: "global-domain::1220", Roots: []int32{0}}
			for i, x := range tc.nodes {
				e := ledger.Event{NodeID: int32(i), Exercised: x}
				if x == nil { // the receiver's amulet
					e.Created = &ledger.Contract{ID: "00d1", Template: splice.Amulet{}.TemplateID(), Argument: mustValue(t, splice.Amulet{
						DSO: "dso::1220", Owner: bob, Amount: splice.ExpiringAmount{InitialAmount: amount, RatePerRound: splice.RatePerRound{Rate: amount}},
					}).(*daml.Record)}
				}
				tx.Events = append(tx.Events, e)
			}
			tc.want(t, txLogItems(&scan.Update{Offset: 1, Transaction: tx}))
		})
	}
}
