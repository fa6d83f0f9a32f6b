package scanapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/testnet"
)

// tsFlows drives the token standard's transfers through the engine on a
// seeded network where bob is pre-approved, as a wallet would with the
// registry's contexts: alice transfers to herself, to bob (direct) and
// three times to SV 1, who has no pre-approval (offers); SV 1 accepts the
// first and rejects the second, alice withdraws the third.
type tsFlows struct {
	n          *testnet.Net
	pre        daml.ContractID
	rules      *ledger.Contract
	state      *ledger.Contract
	offers     []daml.ContractID
	lastBefore string // the log's newest event before the flows
}

func (f *tsFlows) contract(t *testing.T, cid daml.ContractID) *ledger.Contract {
	t.Helper()
	c, _, err := f.n.Network.Store().Contract(context.Background(), cid)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *tsFlows) submit(t *testing.T, participant ledger.ParticipantID, user string, actAs daml.Party, run func(tx *ledger.Tx) error) *ledger.Transaction {
	t.Helper()
	tr, err := f.n.Network.Submit(context.Background(), ledger.Command{
		Participant: participant, UserID: user, ActAs: []daml.Party{actAs},
		Disclosed: []*ledger.Contract{f.rules, f.state}, CommandID: splice.CommandID("txlog-ts"), Run: run,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// extraArgs is a choice context of contract ids.
func extraArgs(cids map[string]daml.ContractID) splice.ExtraArgs {
	values := map[string]splice.AnyValue{}
	for k, cid := range cids {
		values[k] = splice.AnyValue{AVContractID: &cid}
	}
	return splice.ExtraArgs{Context: splice.ChoiceContext{Values: values}, Meta: splice.Metadata{Values: map[string]string{}}}
}

// transfer has alice transfer 10 to receiver from her largest holding
// through the factory, and returns the instruction it created, if any.
func (f *tsFlows) transfer(t *testing.T, receiver daml.Party, direct bool, reason string) daml.ContractID {
	t.Helper()
	ctx := context.Background()
	dso, alice := f.n.Seeded.DSOParty, f.n.Party("alice")
	hs, err := splice.Holdings(ctx, f.n.Network.Store(), alice)
	if err != nil || len(hs) == 0 {
		t.Fatalf("alice's holdings: %v", err)
	}
	best := hs[0]
	for _, h := range hs[1:] {
		if h.Payload.Amount.InitialAmount.Cmp(best.Payload.Amount.InitialAmount) > 0 {
			best = h
		}
	}
	cids := map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.state.ID}
	if direct {
		cids[splice.ContextKeyTransferPreapproval] = f.pre
	}
	now := f.n.Network.Clock().Now()
	arg := splice.TransferFactoryTransfer{
		ExpectedAdmin: dso,
		Transfer: splice.TokenTransfer{
			Sender: alice, Receiver: receiver, Amount: daml.MustNumeric("10.0"), InstrumentID: splice.AmuletInstrumentID(dso),
			RequestedAt: now - daml.Timestamp(time.Minute.Microseconds()), ExecuteBefore: now + daml.Timestamp((24 * time.Hour).Microseconds()),
			InputHoldingCids: []daml.ContractID{best.ID},
			Meta:             splice.Metadata{Values: map[string]string{splice.MetaReason: reason}},
		},
		ExtraArgs: extraArgs(cids),
	}
	var res splice.TransferInstructionResult
	v := f.n.Seeded.Validator
	tr := f.submit(t, v.Participant, v.OperatorUser, alice, func(tx *ledger.Tx) (err error) {
		res, err = ledger.ExerciseInterface[splice.TransferInstructionResult](tx, f.rules.ID, splice.TransferFactoryInterface, "TransferFactory_Transfer", arg)
		return err
	})
	if res.Output.Pending == nil {
		return ""
	}
	return tr.Final(res.Output.Pending.TransferInstructionCid)
}

// settle exercises choice on an instruction as party on participant.
func (f *tsFlows) settle(t *testing.T, participant ledger.ParticipantID, user string, party daml.Party, cid daml.ContractID, choice string, arg any) {
	t.Helper()
	f.submit(t, participant, user, party, func(tx *ledger.Tx) error {
		_, err := ledger.ExerciseInterface[splice.TransferInstructionResult](tx, cid, splice.TransferInstructionInterface, choice, arg)
		return err
	})
}

func newTSFlows(t *testing.T) *tsFlows {
	t.Helper()
	ctx := context.Background()
	n, pre := transferNet(t)
	f := &tsFlows{n: n, pre: pre}
	rules, err := splice.Active[splice.ExternalPartyAmuletRules](ctx, n.Network.Store(), "")
	if err != nil || len(rules) != 1 {
		t.Fatalf("factories: %v %d", err, len(rules))
	}
	states, err := splice.Active[splice.ExternalPartyConfigState](ctx, n.Network.Store(), "")
	if err != nil || len(states) == 0 {
		t.Fatalf("config states: %v", err)
	}
	newer := states[0]
	for _, s := range states[1:] {
		if s.Payload.TargetArchiveAfter > newer.Payload.TargetArchiveAfter {
			newer = s
		}
	}
	f.rules, f.state = f.contract(t, rules[0].ID), f.contract(t, newer.ID)
	last := logPage(t, n, `{"page_size":1,"sort_order":"desc"}`)
	if len(last) != 1 {
		t.Fatalf("the seeded log has %d entries", len(last))
	}
	f.lastBefore = last[0].EventID

	alice, bob := n.Party("alice"), n.Party("bob")
	sv, v := n.Seeded.SVs[0], n.Seeded.Validator
	f.transfer(t, alice, false, "merge")
	f.transfer(t, bob, true, "deposit 7")
	for _, reason := range []string{"offer to accept", "offer to reject", ""} {
		f.offers = append(f.offers, f.transfer(t, sv.Party, false, reason))
	}
	withState := extraArgs(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.state.ID})
	f.settle(t, sv.Participant, sv.OperatorUser, sv.Party, f.offers[0], "TransferInstruction_Accept", splice.TransferInstructionAccept{ExtraArgs: withState})
	f.settle(t, sv.Participant, sv.OperatorUser, sv.Party, f.offers[1], "TransferInstruction_Reject", splice.TransferInstructionReject{ExtraArgs: extraArgs(nil)})
	f.settle(t, v.Participant, v.OperatorUser, alice, f.offers[2], "TransferInstruction_Withdraw", splice.TransferInstructionWithdraw{ExtraArgs: extraArgs(nil)})
	if _, err := n.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

// logPage reads a page of the transaction log.
func logPage(t *testing.T, n *testnet.Net, body string) []scanapi.TxLogItem {
	t.Helper()
	rec := do(t, n.ScanHandler, http.MethodPost, "/v0/transactions", body, false)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var page struct {
		Transactions []scanapi.TxLogItem `json:"transactions"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	return page.Transactions
}

// TestTokenStandardTxLogGolden serves the log of the token standard's
// flows and compares it with testdata/txlogts.golden.json, each exchange
// validated against the document.
func TestTokenStandardTxLogGolden(t *testing.T) {
	t.Parallel()
	f := newTSFlows(t)
	runGolden(t, "txlogts", f.n.ScanHandler, []goldenCase{
		post("token-standard transfers", "/v0/transactions", fmt.Sprintf(`{"page_size":20,"page_end_event_id":%q}`, f.lastBefore), 200),
		post("token-standard transfers, newest first", "/v0/transactions", `{"page_size":3,"sort_order":"desc"}`, 200),
	})
}

// TestTokenStandardTxLog checks the entries' content: one per flow, in
// order, with Splice's kinds, amounts and instruction ids.
func TestTokenStandardTxLog(t *testing.T) {
	t.Parallel()
	f := newTSFlows(t)
	alice, bob, sv := string(f.n.Party("alice")), string(f.n.Party("bob")), string(f.n.Seeded.SVs[0].Party)
	got := logPage(t, f.n, fmt.Sprintf(`{"page_size":20,"page_end_event_id":%q}`, f.lastBefore))
	type want struct {
		typ, kind, sender, receiver, amount, description, cid string
		round                                                 bool
	}
	offer := func(i int, description string) want {
		return want{"transfer", "create_transfer_instruction", alice, alice, "10.0000000000", description, string(f.offers[i]), true}
	}
	wants := []want{
		{typ: "transfer", sender: alice, receiver: alice, amount: "10.0000000000", description: "merge", round: true},
		{typ: "transfer", kind: "preapproval_send", sender: alice, receiver: bob, amount: "10.0000000000", description: "deposit 7", round: true},
		offer(0, "offer to accept"), offer(1, "offer to reject"), offer(2, ""),
		{typ: "transfer", kind: "transfer_instruction_accept", sender: alice, receiver: sv, amount: "10.0000000000", cid: string(f.offers[0]), round: true},
		{typ: "abort_transfer_instruction", kind: "reject", cid: string(f.offers[1])},
		{typ: "abort_transfer_instruction", kind: "withdraw", cid: string(f.offers[2])},
	}
	if len(got) != len(wants) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		if g.TransactionType != w.typ || (g.Round != nil) != w.round {
			t.Errorf("entry %d: type %s round %v, want %+v", i, g.TransactionType, g.Round, w)
			continue
		}
		if w.typ == "abort_transfer_instruction" {
			if a := g.AbortTransferInstruction; a == nil || a.AbortKind != w.kind || a.TransferInstructionCid != w.cid || g.Transfer != nil {
				t.Errorf("entry %d: %+v, want %+v", i, a, w)
			}
			continue
		}
		tr := g.Transfer
		if tr == nil || tr.TransferKind != w.kind || tr.Sender.Party != w.sender || len(tr.Receivers) != 1 ||
			tr.Receivers[0].Party != w.receiver || tr.Receivers[0].Amount != w.amount || tr.Description != w.description {
			t.Errorf("entry %d: %+v, want %+v", i, tr, w)
			continue
		}
		if w.kind == "create_transfer_instruction" {
			if tr.TransferInstructionReceiver != sv || tr.TransferInstructionAmount != "10.0000000000" || tr.TransferInstructionCid != w.cid || tr.Sender.InputAmuletAmount != "0.0000000000" {
				t.Errorf("entry %d: instruction fields %+v", i, tr)
			}
		} else if tr.TransferInstructionCid != w.cid || tr.TransferInstructionReceiver != "" || tr.TransferInstructionAmount != "" {
			t.Errorf("entry %d: instruction fields %+v", i, tr)
		}
	}
}
