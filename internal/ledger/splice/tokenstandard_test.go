package splice_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The token standard's transfers of Amulet: TransferFactory_Transfer on
// the ExternalPartyAmuletRules (self, offer and direct transfers), and the
// AmuletTransferInstruction an offer creates, with each of Splice's checks
// refusing what Splice refuses. Transfers charge no fees, so every
// successful one conserves the amulet supply.

// factory is the DSO's ExternalPartyAmuletRules and its newest config
// state, with the contracts a sender must be disclosed.
type factory struct {
	rules, state splice.Contract[splice.ExternalPartyAmuletRules]
	config       splice.Contract[splice.ExternalPartyConfigState]
	disclosed    []*ledger.Contract
}

func (s seeded) factory(t testing.TB) factory {
	t.Helper()
	rules, err := splice.Active[splice.ExternalPartyAmuletRules](context.Background(), s.net.Store(), s.DSOParty)
	if err != nil || len(rules) != 1 {
		t.Fatalf("external-party amulet rules: %v, %v", rules, err)
	}
	states := s.configStates(t)
	config := states[len(states)-1]
	return factory{rules: rules[0], config: config,
		disclosed: []*ledger.Contract{s.contract(t, rules[0].ID), s.contract(t, config.ID)}}
}

func cidValue(cid daml.ContractID) splice.AnyValue { return splice.AnyValue{AVContractID: &cid} }

// contextOf is a choice context of contract ids (and an expire-lock flag
// when set).
func contextOf(cids map[string]daml.ContractID, expireLock *bool) splice.ExtraArgs {
	values := map[string]splice.AnyValue{}
	for k, cid := range cids {
		values[k] = cidValue(cid)
	}
	if expireLock != nil {
		values[splice.ContextKeyExpireLock] = splice.AnyValue{AVBool: expireLock}
	}
	return splice.ExtraArgs{Context: splice.ChoiceContext{Values: values}, Meta: splice.Metadata{Values: map[string]string{}}}
}

// transferArg is the SDK's transfer: requested a minute ago, to execute
// within a day, with a reason.
func (s seeded) transferArg(f factory, sender, receiver daml.Party, amount string, inputs []daml.ContractID) splice.TransferFactoryTransfer {
	now := s.now()
	return splice.TransferFactoryTransfer{
		ExpectedAdmin: s.DSOParty,
		Transfer: splice.TokenTransfer{
			Sender: sender, Receiver: receiver, Amount: num(amount), InstrumentID: splice.AmuletInstrumentID(s.DSOParty),
			RequestedAt: after(now, -time.Minute), ExecuteBefore: after(now, 24*time.Hour), InputHoldingCids: inputs,
			Meta: splice.Metadata{Values: map[string]string{splice.MetaReason: "invoice 42"}},
		},
		ExtraArgs: contextOf(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.config.ID}, nil),
	}
}

// supply is the total initial amount of every amulet, locked or not.
func (s seeded) supply(t testing.TB) daml.Numeric {
	t.Helper()
	ctx := context.Background()
	var total daml.Numeric
	amulets, err := splice.Active[splice.Amulet](ctx, s.net.Store(), s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range amulets {
		total, _ = total.Add(a.Payload.Amount.InitialAmount)
	}
	locked, err := splice.Active[splice.LockedAmulet](ctx, s.net.Store(), s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locked {
		total, _ = total.Add(l.Payload.Amulet.Amount.InitialAmount)
	}
	return total
}

// conserved runs f and checks the amulet supply is the same after it
// succeeded.
func (s seeded) conserved(t *testing.T, f func() error) error {
	t.Helper()
	before := s.supply(t)
	err := f()
	if err == nil {
		if after := s.supply(t); after.Cmp(before) != 0 {
			t.Errorf("supply %s before, %s after", before, after)
		}
		// The network's accounting agrees: a token-standard transfer
		// burns nothing, its inputs are all in its outputs.
		sup, err := splice.ComputeSupply(context.Background(), s.net.Store(), s.SVs[0].Participant, s.DSOParty)
		if err != nil {
			t.Fatal(err)
		}
		if total, _ := sup.Holdings.Add(sup.Burned); total.Cmp(sup.Minted) != 0 {
			t.Errorf("minted %s ≠ holdings %s + burned %s", sup.Minted, sup.Holdings, sup.Burned)
		}
	}
	return err
}

// transferThroughFactory exercises TransferFactory_Transfer through the
// interface and returns its committed result (whose contract ids carry
// their suffixes).
func (s seeded) transferThroughFactory(t testing.TB, f factory, actAs []daml.Party, arg splice.TransferFactoryTransfer, disclosed ...*ledger.Contract) (splice.TransferInstructionResult, *ledger.Transaction, error) {
	t.Helper()
	tx, err := s.submit(t, actAs, append(append([]*ledger.Contract{}, f.disclosed...), disclosed...), func(tx *ledger.Tx) error {
		_, err := ledger.ExerciseInterface[splice.TransferInstructionResult](tx, f.rules.ID, splice.TransferFactoryInterface, "TransferFactory_Transfer", arg)
		return err
	})
	if err != nil {
		return splice.TransferInstructionResult{}, tx, err
	}
	return committedResult[splice.TransferInstructionResult](t, tx, "TransferFactory_Transfer"), tx, nil
}

// committedResult is the result of the first exercise of choice in a
// committed transaction.
func committedResult[T any](t testing.TB, tx *ledger.Transaction, choice string) T {
	t.Helper()
	var out T
	x := exerciseOf(tx, choice)
	if x == nil {
		t.Fatalf("no %s in the transaction", choice)
	}
	if err := daml.ToGo(x.ExerciseResult, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// biggest is the largest of p's amulets.
func (s seeded) biggest(t testing.TB, p daml.Party) daml.ContractID {
	t.Helper()
	hs := s.holdings(t, p)
	best := hs[0]
	for _, h := range hs[1:] {
		if h.Payload.Amount.InitialAmount.Cmp(best.Payload.Amount.InitialAmount) > 0 {
			best = h
		}
	}
	return best.ID
}

func (s seeded) amulet(t testing.TB, cid daml.ContractID) splice.Amulet {
	t.Helper()
	c, err := splice.Decode[splice.Amulet](s.contract(t, cid))
	if err != nil {
		t.Fatal(err)
	}
	return c.Payload
}

func TestTransferFactoryTransfer(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true, Users: []string{"alice", "bob", "carol"}})
	alice, bob, carol := s.user(t, "alice").Party, s.user(t, "bob").Party, s.user(t, "carol").Party
	dso := s.DSOParty
	other := daml.Party("other::1220" + strings.Repeat("ab", 32))
	f := s.factory(t)
	round := f.config.Payload.HoldingFeesOpenRoundNumber
	// carol pre-approves transfers, bob providing.
	_, created, err := s.createPreapproval(t, []daml.Party{carol, bob}, s.createPreapprovalArg(t, carol, bob, after(s.now(), 30*day)))
	if err != nil {
		t.Fatal(err)
	}
	preapproval := createdPreapproval(t, created)
	withPreapproval := func(arg *splice.TransferFactoryTransfer, cid daml.ContractID) {
		arg.ExtraArgs.Context.Values[splice.ContextKeyTransferPreapproval] = cidValue(cid)
	}
	for _, tc := range []struct {
		name     string
		receiver daml.Party
		edit     func(t *testing.T, arg *splice.TransferFactoryTransfer)
		actAs    []daml.Party
		want     failure
		check    func(t *testing.T, arg splice.TransferFactoryTransfer, res splice.TransferInstructionResult, tx *ledger.Transaction)
	}{
		{name: "a self transfer merges and splits", receiver: alice, check: func(t *testing.T, arg splice.TransferFactoryTransfer, res splice.TransferInstructionResult, tx *ledger.Transaction) {
			if res.Output.Completed == nil || len(res.Output.Completed.ReceiverHoldingCids) != 1 || len(res.SenderChangeCids) != 1 {
				t.Fatalf("result %+v", res)
			}
			if m := res.Meta.Values; m[splice.MetaTxKind] != "merge-split" || m[splice.MetaSender] != "" {
				t.Errorf("meta %v", m)
			}
			out := s.amulet(t, res.Output.Completed.ReceiverHoldingCids[0])
			if out.Owner != alice || out.Amount.InitialAmount.Cmp(num("1.5")) != 0 || out.Amount.CreatedAt != round {
				t.Errorf("output %+v, want 1.5 of alice's created in %v", out, round)
			}
		}},
		{name: "an offer locks the amount for the receiver", receiver: bob, check: func(t *testing.T, arg splice.TransferFactoryTransfer, res splice.TransferInstructionResult, tx *ledger.Transaction) {
			if res.Output.Pending == nil || len(res.SenderChangeCids) != 1 {
				t.Fatalf("result %+v", res)
			}
			if m := res.Meta.Values; m[splice.MetaTxKind] != "transfer" || m[splice.MetaSender] != string(alice) {
				t.Errorf("meta %v", m)
			}
			instrs := splice.CreatedIn(tx, splice.AmuletTransferInstruction{}.TemplateID())
			if len(instrs) != 1 {
				t.Fatalf("instructions %v", instrs)
			}
			instr, err := splice.Decode[splice.AmuletTransferInstruction](s.contract(t, instrs[0]))
			if err != nil {
				t.Fatal(err)
			}
			locked, err := splice.Decode[splice.LockedAmulet](s.contract(t, instr.Payload.LockedAmulet))
			if err != nil {
				t.Fatal(err)
			}
			wantTransfer := arg.Transfer
			wantTransfer.InputHoldingCids = []daml.ContractID{instr.Payload.LockedAmulet}
			if !sameTransfer(instr.Payload.Transfer, wantTransfer) {
				t.Errorf("instruction's transfer %+v, want %+v", instr.Payload.Transfer, wantTransfer)
			}
			l := locked.Payload
			if l.Amulet.Owner != alice || l.Amulet.Amount.InitialAmount.Cmp(num("1.5")) != 0 || len(l.Lock.Holders) != 1 || l.Lock.Holders[0] != dso ||
				l.Lock.ExpiresAt != arg.Transfer.ExecuteBefore || l.Lock.OptContext == nil || *l.Lock.OptContext != "transfer to '"+string(bob)+"'" ||
				l.Amulet.Amount.CreatedAt != round {
				t.Errorf("locked amulet %+v", l)
			}
			view, err := s.net.Registry().InterfaceView(s.contract(t, instrs[0]), splice.TransferInstructionInterface)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := daml.LedgerJSON.Encode(view)
			if err != nil || !strings.Contains(string(enc), `"status":{"tag":"TransferPendingReceiverAcceptance","value":{}}`) || !strings.Contains(string(enc), `"originalInstructionCid":null`) {
				t.Errorf("view %s %v", enc, err)
			}
		}},
		{name: "a direct transfer through the receiver's pre-approval", receiver: carol, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			withPreapproval(arg, preapproval)
		}, check: func(t *testing.T, arg splice.TransferFactoryTransfer, res splice.TransferInstructionResult, tx *ledger.Transaction) {
			if res.Output.Completed == nil || len(res.Output.Completed.ReceiverHoldingCids) != 1 {
				t.Fatalf("result %+v", res)
			}
			if m := res.Meta.Values; m[splice.MetaTxKind] != "transfer" || m[splice.MetaSender] != string(alice) || m[splice.MetaReason] != "invoice 42" {
				t.Errorf("meta %v", m)
			}
			out := s.amulet(t, res.Output.Completed.ReceiverHoldingCids[0])
			if out.Owner != carol || out.Amount.InitialAmount.Cmp(num("1.5")) != 0 || out.Amount.CreatedAt != round {
				t.Errorf("output %+v", out)
			}
			if !hasExercise(tx, "TransferPreapproval_SendV2") {
				t.Errorf("no TransferPreapproval_SendV2 node")
			}
		}},
		{name: "an unexpired locked input", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			arg.Transfer.InputHoldingCids = []daml.ContractID{lockFor(t, s, alice, alice, time.Hour)}
			arg.Transfer.Amount = num("0.5")
		}, want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'Lock.expiresAt'")},
		{name: "another admin expected", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) { arg.ExpectedAdmin = other },
			want: requirement("Expected admin '" + string(other) + "' matches actual admin '" + string(dso) + "'")},
		{name: "a pre-approval of another receiver", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			withPreapproval(arg, preapproval)
		}, want: aborted("Contract group identifier mismatch: expected ForOwner {dso = '" + string(dso) + "', owner = '" + string(bob) + "'}")},
		{name: "another instrument", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			arg.Transfer.InstrumentID.ID = "USD"
		}, want: requirement(`Expected instrumentId InstrumentId {admin = '` + string(dso) + `', id = \"Amulet\"} matches actual instrumentId InstrumentId {admin = '` + string(dso) + `', id = \"USD\"}`)},
		{name: "nothing to transfer", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) { arg.Transfer.Amount = num("0.0") },
			want: requirement("Amount must be positive")},
		{name: "requested in the future", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			arg.Transfer.RequestedAt = after(s.now(), time.Minute)
		}, want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'transfer.requestedAt'")},
		{name: "to execute before now", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			arg.Transfer.ExecuteBefore = s.now()
		}, want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'transfer.executeBefore'")},
		{name: "no config state in the context", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			delete(arg.ExtraArgs.Context.Values, splice.ContextKeyExternalPartyConfigState)
		}, want: aborted("Missing context entry for: external-party-config-state")},
		{name: "a config state that is no contract id", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			flag := true
			arg.ExtraArgs.Context.Values[splice.ContextKeyExternalPartyConfigState] = splice.AnyValue{AVBool: &flag}
		}, want: aborted("Failed to decode context value for 'external-party-config-state': expected contract id, got: AV_Bool True")},
		{name: "a lifetime beyond the maximum TTL", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			arg.Transfer.ExecuteBefore = after(arg.Transfer.RequestedAt, 90*day+time.Microsecond)
		}, want: aborted(`'transferLifetime' is greater than 'tokenStandardMaxTTL'.\ntransferLifetime: RelTime {microseconds = 7776000000001}\ntokenStandardMaxTTL: RelTime {microseconds = 7776000000000}\n`)},
		{name: "exactly the maximum TTL", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			arg.Transfer.ExecuteBefore = after(arg.Transfer.RequestedAt, 90*day)
		}},
		{name: "no inputs", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) { arg.Transfer.InputHoldingCids = nil },
			want: requirement("At least one holding must be provided")},
		{name: "account metadata", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			arg.Transfer.Meta.Values["cip-112/receiver.id"] = "acct"
		}, want: aborted(`Unexpected account information in metadata of 'transfer' in metadata key 'cip-112/receiver.id': \"acct\"`)},
		{name: "another owner's holding", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			arg.Transfer.InputHoldingCids = ids(s.holdings(t, bob))[:1]
		}, want: aborted("Contract group identifier mismatch: expected ForOwner {dso = '" + string(dso) + "', owner = '" + string(alice) + "'}")},
		{name: "not enough funds", receiver: bob, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) { arg.Transfer.Amount = num("100000.0") },
			want: damlFailure("splice.lfdecentralizedtrust.org/insufficient-funds", "Insufficient funds: you are missing ")},
		{name: "not enough funds for a direct transfer", receiver: carol, edit: func(t *testing.T, arg *splice.TransferFactoryTransfer) {
			withPreapproval(arg, preapproval)
			arg.Transfer.Amount = num("100000.0")
		}, want: damlFailure("splice.lfdecentralizedtrust.org/insufficient-funds", "Insufficient funds: you are missing ")},
		{name: "not the sender's authority", receiver: bob, actAs: []daml.Party{bob}, want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := s.transferArg(f, alice, tc.receiver, "1.5", []daml.ContractID{s.biggest(t, alice)})
			if tc.edit != nil {
				tc.edit(t, &arg)
			}
			actAs := tc.actAs
			if actAs == nil {
				actAs = []daml.Party{alice}
			}
			var res splice.TransferInstructionResult
			var tx *ledger.Transaction
			err := s.conserved(t, func() (err error) {
				res, tx, err = s.transferThroughFactory(t, f, actAs, arg, s.contract(t, preapproval))
				return err
			})
			if err != nil {
				t.Logf("error: %v", err)
			}
			tc.want.check(t, err)
			if err == nil && tc.check != nil {
				tc.check(t, arg, res, tx)
			}
		})
	}
}

// More inputs than the config state allows fail as Splice's transfers do.
func TestTransferFactoryMaximumInputs(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	f := s.factory(t)
	max := int(f.config.Payload.TransferConfig.MaxNumInputs)
	ac := s.amuletContext(t)
	outs := make([]splice.TransferOutput, max)
	for i := range outs {
		outs[i] = splice.Pay(alice, num("1.0"))
	}
	if _, err := s.submit(t, []daml.Party{alice}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := splice.TransferAmulet(tx, ac, alice, alice, ids(s.holdings(t, alice)), outs...)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	holdings := ids(s.holdings(t, alice))
	if len(holdings) <= max {
		t.Fatalf("alice holds %d amulets, want more than %d", len(holdings), max)
	}
	_, _, err := s.transferThroughFactory(t, f, []daml.Party{alice}, s.transferArg(f, alice, bob, "1.0", holdings))
	damlFailure("splice.lfdecentralizedtrust.org/maximum-inputs-exceeded", "More than the maximum number of inputs").check(t, err)
	_, _, err = s.transferThroughFactory(t, f, []daml.Party{alice}, s.transferArg(f, alice, bob, "1.0", holdings[:max]))
	failure{}.check(t, err)
}

// The AmuletTransferInstruction's choices, each on a fresh offer of 1.5
// from alice to bob executable within an hour; the cases after the clock
// advanced run on expired offers.
func TestAmuletTransferInstruction(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	f := s.factory(t)
	yes, no := true, false
	withState := func(expireLock *bool) splice.ExtraArgs {
		return contextOf(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.config.ID}, expireLock)
	}
	type call struct {
		choice string
		arg    any
		actAs  []daml.Party
		asDSO  bool
	}
	receiverGets := func(amount string) func(t *testing.T, instr splice.AmuletTransferInstruction, res splice.TransferInstructionResult, tx *ledger.Transaction) {
		return func(t *testing.T, instr splice.AmuletTransferInstruction, res splice.TransferInstructionResult, tx *ledger.Transaction) {
			if res.Output.Completed == nil || len(res.Output.Completed.ReceiverHoldingCids) != 1 || len(res.SenderChangeCids) != 0 {
				t.Fatalf("result %+v", res)
			}
			if m := res.Meta.Values; m[splice.MetaTxKind] != "transfer" || m[splice.MetaSender] != string(alice) {
				t.Errorf("meta %v", m)
			}
			out := s.amulet(t, res.Output.Completed.ReceiverHoldingCids[0])
			if out.Owner != bob || out.Amount.InitialAmount.Cmp(num(amount)) != 0 || out.Amount.CreatedAt != f.config.Payload.HoldingFeesOpenRoundNumber {
				t.Errorf("output %+v", out)
			}
			if !hasExercise(tx, "LockedAmulet_UnlockV2") {
				t.Errorf("no unlock")
			}
		}
	}
	senderGetsBack := func(t *testing.T, instr splice.AmuletTransferInstruction, res splice.TransferInstructionResult, tx *ledger.Transaction) {
		if res.Output.Failed == nil || len(res.SenderChangeCids) != 1 || len(res.Meta.Values) != 0 {
			t.Fatalf("result %+v", res)
		}
		back := s.amulet(t, res.SenderChangeCids[0])
		if back.Owner != alice || back.Amount.InitialAmount.Cmp(num("1.5")) != 0 {
			t.Errorf("returned %+v", back)
		}
		v, err := daml.FromGo(res)
		if err != nil {
			t.Fatal(err)
		}
		enc, _ := daml.LedgerJSON.Encode(v)
		if !strings.Contains(string(enc), `"output":{"tag":"TransferInstructionResult_Failed","value":{}}`) {
			t.Errorf("result JSON %s", enc)
		}
	}
	lockStays := func(t *testing.T, instr splice.AmuletTransferInstruction, res splice.TransferInstructionResult, tx *ledger.Transaction) {
		if res.Output.Failed == nil || len(res.SenderChangeCids) != 0 {
			t.Fatalf("result %+v", res)
		}
		if _, active, err := s.net.Store().Contract(context.Background(), instr.LockedAmulet); err != nil || !active {
			t.Errorf("the locked amulet is gone: %v %v", active, err)
		}
	}
	for _, tc := range []struct {
		name  string
		wait  time.Duration
		call  call
		want  failure
		check func(t *testing.T, instr splice.AmuletTransferInstruction, res splice.TransferInstructionResult, tx *ledger.Transaction)
	}{
		{name: "accepted by the receiver", call: call{choice: "TransferInstruction_Accept", arg: splice.TransferInstructionAccept{ExtraArgs: withState(&yes)}, actAs: []daml.Party{bob}},
			check: receiverGets("1.5")},
		{name: "accepted without the config state", call: call{choice: "TransferInstruction_Accept", arg: splice.TransferInstructionAccept{ExtraArgs: contextOf(nil, nil)}, actAs: []daml.Party{bob}},
			want: aborted("Missing context entry for: external-party-config-state")},
		{name: "accepted by the sender", call: call{choice: "TransferInstruction_Accept", arg: splice.TransferInstructionAccept{ExtraArgs: withState(nil)}, actAs: []daml.Party{alice}},
			want: unauthorized},
		{name: "rejected by the receiver", call: call{choice: "TransferInstruction_Reject", arg: splice.TransferInstructionReject{ExtraArgs: contextOf(nil, nil)}, actAs: []daml.Party{bob}},
			check: senderGetsBack},
		{name: "rejected by the sender", call: call{choice: "TransferInstruction_Reject", arg: splice.TransferInstructionReject{ExtraArgs: contextOf(nil, nil)}, actAs: []daml.Party{alice}},
			want: unauthorized},
		{name: "withdrawn by the sender", call: call{choice: "TransferInstruction_Withdraw", arg: splice.TransferInstructionWithdraw{ExtraArgs: withState(&yes)}, actAs: []daml.Party{alice}},
			check: senderGetsBack},
		{name: "withdrawn keeping the lock before it expired", call: call{choice: "TransferInstruction_Withdraw", arg: splice.TransferInstructionWithdraw{ExtraArgs: contextOf(nil, &no)}, actAs: []daml.Party{alice}},
			want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'lockedAmulet.lockExpiresAt'")},
		{name: "withdrawn with an expire-lock that is no Bool", call: call{choice: "TransferInstruction_Withdraw", arg: splice.TransferInstructionWithdraw{ExtraArgs: func() splice.ExtraArgs {
			a := contextOf(nil, nil)
			text := "yes"
			a.Context.Values[splice.ContextKeyExpireLock] = splice.AnyValue{AVText: &text}
			return a
		}()}, actAs: []daml.Party{alice}},
			want: aborted(`Failed to decode context value for 'expire-lock': expected bool, got: AV_Text \"yes\"`)},
		{name: "withdrawn by the receiver", call: call{choice: "TransferInstruction_Withdraw", arg: splice.TransferInstructionWithdraw{ExtraArgs: contextOf(nil, nil)}, actAs: []daml.Party{bob}},
			want: unauthorized},
		{name: "updated by the DSO before it expired", call: call{choice: "TransferInstruction_Update", arg: splice.TransferInstructionUpdate{ExtraArgs: contextOf(nil, nil)}, asDSO: true},
			want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'Transfer.executeBefore'")},
		{name: "updated with extra actors", call: call{choice: "TransferInstruction_Update", arg: splice.TransferInstructionUpdate{ExtraActors: []daml.Party{s.SVs[0].Party}, ExtraArgs: contextOf(nil, nil)}, asDSO: true},
			want: requirement("No extra actors on transfer expiry")},
		// The clock moves on: the offers below have expired.
		{name: "accepted once expired", wait: 2 * time.Hour, call: call{choice: "TransferInstruction_Accept", arg: splice.TransferInstructionAccept{ExtraArgs: withState(nil)}, actAs: []daml.Party{bob}},
			want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'Transfer.executeBefore'")},
		{name: "rejected once expired", wait: 2 * time.Hour, call: call{choice: "TransferInstruction_Reject", arg: splice.TransferInstructionReject{ExtraArgs: contextOf(nil, nil)}, actAs: []daml.Party{bob}},
			check: senderGetsBack},
		{name: "withdrawn keeping the lock once expired", wait: 2 * time.Hour, call: call{choice: "TransferInstruction_Withdraw", arg: splice.TransferInstructionWithdraw{ExtraArgs: contextOf(nil, &no)}, actAs: []daml.Party{alice}},
			check: lockStays},
		{name: "updated by the DSO once expired", wait: 2 * time.Hour, call: call{choice: "TransferInstruction_Update", arg: splice.TransferInstructionUpdate{ExtraActors: []daml.Party{}, ExtraArgs: contextOf(nil, nil)}, asDSO: true},
			check: senderGetsBack},
		{name: "updated by the sender once expired", wait: 2 * time.Hour, call: call{choice: "TransferInstruction_Update", arg: splice.TransferInstructionUpdate{ExtraArgs: contextOf(nil, nil)}, actAs: []daml.Party{alice}},
			want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := s.transferArg(f, alice, bob, "1.5", []daml.ContractID{s.biggest(t, alice)})
			arg.Transfer.ExecuteBefore = after(s.now(), time.Hour)
			res, _, err := s.transferThroughFactory(t, f, []daml.Party{alice}, arg)
			if err != nil || res.Output.Pending == nil {
				t.Fatalf("offer: %+v %v", res, err)
			}
			cid := res.Output.Pending.TransferInstructionCid
			instr, err := splice.Decode[splice.AmuletTransferInstruction](s.contract(t, cid))
			if err != nil {
				t.Fatal(err)
			}
			if tc.wait > 0 {
				s.advance(t, tc.wait)
			}
			var tx *ledger.Transaction
			run := func(tx *ledger.Tx) (err error) {
				_, err = ledger.ExerciseInterface[splice.TransferInstructionResult](tx, cid, splice.TransferInstructionInterface, tc.call.choice, tc.call.arg)
				return err
			}
			disclosed := append(append([]*ledger.Contract{}, f.disclosed...), s.contract(t, cid))
			err = s.conserved(t, func() (err error) {
				if tc.call.asDSO {
					tx, err = s.asDSO(t, disclosed, run)
				} else {
					tx, err = s.submit(t, tc.call.actAs, disclosed, run)
				}
				return err
			})
			if err != nil {
				t.Logf("error: %v", err)
			}
			tc.want.check(t, err)
			if err != nil {
				return
			}
			if tc.check != nil {
				tc.check(t, instr.Payload, committedResult[splice.TransferInstructionResult](t, tx, tc.call.choice), tx)
			}
			if _, active, err := s.net.Store().Contract(context.Background(), cid); err != nil || active {
				t.Errorf("the instruction is still active: %v", err)
			}
			if x := exerciseOf(tx, tc.call.choice); x == nil || x.Interface == nil || *x.Interface != splice.TransferInstructionInterface {
				t.Errorf("the exercise does not name the interface: %+v", x)
			}
		})
	}
}

// The DSO expires transfer instructions past their executeBefore through
// AmuletRules_Amulet_ExpireTransferInstructions.
func TestExpireTransferInstructions(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	f := s.factory(t)
	var instrs []daml.ContractID
	for range 2 {
		arg := s.transferArg(f, alice, bob, "1.0", []daml.ContractID{s.biggest(t, alice)})
		arg.Transfer.ExecuteBefore = after(s.now(), time.Hour)
		res, _, err := s.transferThroughFactory(t, f, []daml.Party{alice}, arg)
		if err != nil {
			t.Fatal(err)
		}
		instrs = append(instrs, res.Output.Pending.TransferInstructionCid)
	}
	ac := s.amuletContext(t)
	expire := func(expectedDso daml.Party) (splice.AmuletRulesAmuletExpireTransferInstructionsResult, error) {
		var res splice.AmuletRulesAmuletExpireTransferInstructionsResult
		err := s.conserved(t, func() error {
			_, err := s.asDSO(t, ac.Disclosed(), func(tx *ledger.Tx) (err error) {
				res, err = ledger.Exercise[splice.AmuletRulesAmuletExpireTransferInstructionsResult](tx, ac.AmuletRules.ID, "AmuletRules_Amulet_ExpireTransferInstructions",
					splice.AmuletRulesAmuletExpireTransferInstructions{ExpectedDso: expectedDso, Inputs: []splice.AmuletRulesExpireTransferInstructionInput{
						{TransferInstructionCid: instrs[0], ExpireLock: true}, {TransferInstructionCid: instrs[1], ExpireLock: false},
					}})
				return err
			})
			return err
		})
		return res, err
	}
	_, err := expire(s.DSOParty)
	damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'Transfer.executeBefore'").check(t, err)
	s.advance(t, 2*time.Hour)
	_, err = expire(alice)
	requirement("The expectedDso must match the AmuletDso").check(t, err)
	res, err := expire(s.DSOParty)
	failure{}.check(t, err)
	if len(res.Results) != 2 || res.Results[0].Output.Failed == nil || len(res.Results[0].SenderChangeCids) != 1 || len(res.Results[1].SenderChangeCids) != 0 {
		t.Errorf("results %+v", res.Results)
	}
}

// The factory's view and public fetch.
func TestTransferFactoryPublicFetch(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	f := s.factory(t)
	var view splice.TransferFactoryView
	_, err := s.submit(t, []daml.Party{alice}, f.disclosed, func(tx *ledger.Tx) (err error) {
		// Splice does not check expectedAdmin here.
		view, err = ledger.ExerciseInterface[splice.TransferFactoryView](tx, f.rules.ID, splice.TransferFactoryInterface, "TransferFactory_PublicFetch",
			splice.TransferFactoryPublicFetch{ExpectedAdmin: alice, Actor: alice})
		return err
	})
	if err != nil || view.Admin != s.DSOParty || len(view.Meta.Values) != 0 {
		t.Fatalf("view %+v, %v", view, err)
	}
	// Named with the template id, the inherited choice still runs through
	// the interface, as Daml's engine resolves it.
	arg, err := daml.FromGo(splice.TransferFactoryPublicFetch{ExpectedAdmin: s.DSOParty, Actor: alice})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := s.submit(t, []daml.Party{alice}, f.disclosed, func(tx *ledger.Tx) error {
		_, err := tx.ExerciseValue(f.rules.Payload.TemplateID().Identifier, f.rules.ID, "TransferFactory_PublicFetch", arg)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if x := exerciseOf(tx, "TransferFactory_PublicFetch"); x == nil || x.Interface == nil || *x.Interface != splice.TransferFactoryInterface {
		t.Errorf("the exercise does not name the interface: %+v", x)
	}
	v, err := s.net.Registry().InterfaceView(s.contract(t, f.rules.ID), splice.TransferFactoryInterface)
	if err != nil {
		t.Fatal(err)
	}
	if enc, _ := daml.LedgerJSON.Encode(v); string(enc) != `{"admin":"`+string(s.DSOParty)+`","meta":{"values":{}}}` {
		t.Errorf("view %s", enc)
	}
}

func sameTransfer(a, b splice.TokenTransfer) bool {
	va, err1 := daml.FromGo(a)
	vb, err2 := daml.FromGo(b)
	return err1 == nil && err2 == nil && daml.Equal(va, vb)
}

func exerciseOf(tx *ledger.Transaction, choice string) *ledger.Exercised {
	for _, e := range tx.Events {
		if x := e.Exercised; x != nil && x.Choice == choice {
			return x
		}
	}
	return nil
}

func hasExercise(tx *ledger.Transaction, choice string) bool { return exerciseOf(tx, choice) != nil }

// A LockedAmulet input whose lock expired is unlocked by its owner within
// the transfer (LockedAmulet_OwnerExpireLockV2), as the SDK's input
// selection relies on.
func TestTransferFactoryExpiredLockedInput(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	locked := lockFor(t, s, alice, alice, time.Minute)
	s.advance(t, 2*time.Minute)
	f := s.factory(t)
	var res splice.TransferInstructionResult
	var tx *ledger.Transaction
	err := s.conserved(t, func() (err error) {
		res, tx, err = s.transferThroughFactory(t, f, []daml.Party{alice}, s.transferArg(f, alice, bob, "0.25", []daml.ContractID{locked}))
		return err
	})
	failure{}.check(t, err)
	if res.Output.Pending == nil || len(res.SenderChangeCids) != 1 {
		t.Fatalf("result %+v", res)
	}
	unlocked := committedResult[splice.LockedAmuletOwnerExpireLockV2Result](t, tx, "LockedAmulet_OwnerExpireLockV2")
	if unlocked.Meta.Values[splice.MetaReason] != "lock expired" {
		t.Errorf("unlock meta %v", unlocked.Meta)
	}
	if change := s.amulet(t, res.SenderChangeCids[0]); change.Amount.InitialAmount.Cmp(num("0.75")) != 0 {
		t.Errorf("change %+v", change)
	}
}

// The token standard's choice arguments, as clients send them in JSON,
// decode into the Go types or fail, never panic; a decoded argument
// encodes back to the same value.
func FuzzTokenStandardArguments(f *testing.F) {
	reg := splice.NewRegistry()
	transfer := `{"expectedAdmin":"dso::1220aa","transfer":{"sender":"alice::1220aa","receiver":"bob::1220aa","amount":"1.5",` +
		`"instrumentId":{"admin":"dso::1220aa","id":"Amulet"},"requestedAt":"2026-01-05T09:00:00Z","executeBefore":"2026-01-06T09:00:00Z",` +
		`"inputHoldingCids":["00aa"],"meta":{"values":{"splice.lfdecentralizedtrust.org/reason":"x"}}},` +
		`"extraArgs":{"context":{"values":{"external-party-config-state":{"tag":"AV_ContractId","value":"00bb"},` +
		`"n":{"tag":"AV_List","value":[{"tag":"AV_Map","value":{"k":{"tag":"AV_Bool","value":true}}},{"tag":"AV_RelTime","value":{"microseconds":"5"}}]}}},"meta":{"values":{}}}}`
	accept := `{"extraArgs":{"context":{"values":{"expire-lock":{"tag":"AV_Bool","value":false}}},"meta":{"values":{}}}}`
	allocate := `{"expectedAdmin":"dso::1220aa","allocation":{"settlement":{"executor":"venue::1220aa","settlementRef":{"id":"t","cid":null},` +
		`"requestedAt":"2026-01-05T09:00:00Z","allocateBefore":"2026-01-05T10:00:00Z","settleBefore":"2026-01-06T09:00:00Z","meta":{"values":{}}},` +
		`"transferLegId":"leg-0","transferLeg":{"sender":"alice::1220aa","receiver":"bob::1220aa","amount":"1.5",` +
		`"instrumentId":{"admin":"dso::1220aa","id":"Amulet"},"meta":{"values":{}}}},"requestedAt":"2026-01-05T09:00:00Z",` +
		`"inputHoldingCids":["00aa"],"extraArgs":{"context":{"values":{}},"meta":{"values":{}}}}`
	for i, seed := range []string{transfer, accept, `{}`, `{"extraArgs":null}`, `[`} {
		f.Add(uint8(i), []byte(seed))
	}
	// Targets 3 to 5 are the allocation choices.
	f.Add(uint8(3), []byte(allocate))
	f.Add(uint8(4), []byte(accept))
	f.Add(uint8(5), []byte(accept))
	type target struct {
		iface  daml.Identifier
		choice string
		out    func() any
	}
	targets := []target{
		{splice.TransferFactoryInterface, "TransferFactory_Transfer", func() any { return new(splice.TransferFactoryTransfer) }},
		{splice.TransferInstructionInterface, "TransferInstruction_Accept", func() any { return new(splice.TransferInstructionAccept) }},
		{splice.TransferInstructionInterface, "TransferInstruction_Update", func() any { return new(splice.TransferInstructionUpdate) }},
		{splice.AllocationFactoryInterface, "AllocationFactory_Allocate", func() any { return new(splice.AllocationFactoryAllocate) }},
		{splice.AllocationInterface, "Allocation_ExecuteTransfer", func() any { return new(splice.AllocationExecuteTransfer) }},
		{splice.AllocationInterface, "Allocation_Withdraw", func() any { return new(splice.AllocationWithdraw) }},
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tg := targets[int(which)%len(targets)]
		it, ok := reg.InterfaceType(tg.iface)
		if !ok {
			t.Fatal("interface not declared")
		}
		ch, ok := it.Choice(tg.choice)
		if !ok {
			t.Fatal("choice not declared")
		}
		v, err := daml.LedgerJSON.Decode(data, ch.Argument)
		if err != nil {
			return
		}
		out := tg.out()
		if err := daml.ToGo(v, out); err != nil {
			return
		}
		back, err := daml.FromGo(out)
		if err != nil {
			t.Fatalf("decoded %s argument does not encode: %v", tg.choice, err)
		}
		if !daml.Equal(back, v) {
			t.Fatalf("round trip of %s changed the value", tg.choice)
		}
	})
}

// A direct transfer through the pre-approval of a featured provider
// records the provider's activity when the context proves the featuring;
// an offer ignores the featured app right (its sender is its own,
// unfeatured, provider).
func TestTransferFactoryFeaturedProvider(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true, Users: []string{"alice", "bob", "carol"}})
	alice, bob, carol := s.user(t, "alice").Party, s.user(t, "bob").Party, s.user(t, "carol").Party
	ac := s.amuletContext(t)
	featured, err := s.submit(t, []daml.Party{bob}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.AmuletRulesDevNetFeatureAppResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_FeatureApp",
			splice.AmuletRulesDevNetFeatureApp{Provider: bob})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	right := splice.CreatedIn(featured, splice.FeaturedAppRight{}.TemplateID())[0]
	_, created, err := s.createPreapproval(t, []daml.Party{carol, bob}, s.createPreapprovalArg(t, carol, bob, after(s.now(), 30*day)))
	if err != nil {
		t.Fatal(err)
	}
	preapproval := createdPreapproval(t, created)
	f := s.factory(t)
	for _, tc := range []struct {
		name        string
		receiver    daml.Party
		preapproval bool
		markers     int
	}{
		{name: "direct", receiver: carol, preapproval: true, markers: 1},
		{name: "offer", receiver: bob, markers: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := s.transferArg(f, alice, tc.receiver, "1.0", []daml.ContractID{s.biggest(t, alice)})
			arg.ExtraArgs.Context.Values[splice.ContextKeyFeaturedAppRight] = cidValue(right)
			if tc.preapproval {
				arg.ExtraArgs.Context.Values[splice.ContextKeyTransferPreapproval] = cidValue(preapproval)
			}
			var tx *ledger.Transaction
			err := s.conserved(t, func() (err error) {
				_, tx, err = s.transferThroughFactory(t, f, []daml.Party{alice}, arg, s.contract(t, preapproval), s.contract(t, right))
				return err
			})
			failure{}.check(t, err)
			markers := splice.CreatedIn(tx, splice.FeaturedAppActivityMarker{}.TemplateID())
			if len(markers) != tc.markers {
				t.Fatalf("markers %v, want %d", markers, tc.markers)
			}
			for _, m := range markers {
				marker, err := splice.Decode[splice.FeaturedAppActivityMarker](s.contract(t, m))
				if err != nil || marker.Payload.Provider != bob || marker.Payload.Beneficiary != bob {
					t.Errorf("marker %+v %v", marker.Payload, err)
				}
			}
		})
	}
}

// TransferPreapproval_SendV2 exercised directly by the sender, as an
// external party's wallet may: the description becomes the reason.
func TestTransferPreapprovalSendV2(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true, Users: []string{"alice", "bob", "carol"}})
	alice, bob, carol := s.user(t, "alice").Party, s.user(t, "bob").Party, s.user(t, "carol").Party
	_, created, err := s.createPreapproval(t, []daml.Party{carol, bob}, s.createPreapprovalArg(t, carol, bob, after(s.now(), time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	preapproval := createdPreapproval(t, created)
	f := s.factory(t)
	description := "for lunch"
	for _, tc := range []struct {
		name        string
		wait        time.Duration
		description *string
		meta        *splice.Metadata
		actAs       daml.Party
		want        failure
		reason      string
	}{
		{name: "with a description", description: &description, meta: &splice.Metadata{Values: map[string]string{splice.MetaReason: "overridden", "k": "v"}}, actAs: alice, reason: description},
		{name: "without a description", meta: &splice.Metadata{Values: map[string]string{splice.MetaReason: "kept"}}, actAs: alice, reason: "kept"},
		{name: "without metadata", actAs: alice},
		{name: "not the sender's authority", actAs: bob, want: unauthorized},
		{name: "once expired", wait: 2 * time.Hour, actAs: alice,
			want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'TransferPreapproval.expiresAt'")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wait > 0 {
				s.advance(t, tc.wait)
			}
			arg := splice.TransferPreapprovalSendV2{
				Context: splice.ExternalPartyTransferContext{ExternalPartyConfigState: f.config.ID},
				Inputs:  splice.InputAmulets(s.biggest(t, alice)), Amount: num("2.0"), Sender: alice,
				Description: tc.description, Meta: tc.meta,
			}
			var tx *ledger.Transaction
			err := s.conserved(t, func() (err error) {
				tx, err = s.submit(t, []daml.Party{tc.actAs}, append(append([]*ledger.Contract{}, f.disclosed...), s.contract(t, preapproval)), func(tx *ledger.Tx) error {
					_, err := ledger.Exercise[splice.TransferPreapprovalSendV2Result](tx, preapproval, "TransferPreapproval_SendV2", arg)
					return err
				})
				return err
			})
			tc.want.check(t, err)
			if err != nil {
				return
			}
			res := committedResult[splice.TransferPreapprovalSendV2Result](t, tx, "TransferPreapproval_SendV2")
			m := res.Meta.Values
			if res.Result.Meta != nil || m[splice.MetaTxKind] != "transfer" || m[splice.MetaSender] != string(alice) || m[splice.MetaReason] != tc.reason {
				t.Errorf("result meta %v, meta %v", res.Result.Meta, m)
			}
			if tc.meta != nil && tc.meta.Values["k"] != "" && m["k"] != "v" {
				t.Errorf("the caller's metadata is lost: %v", m)
			}
			if len(res.Result.CreatedAmulets) != 1 || res.Result.CreatedAmulets[0].TransferResultAmulet == nil {
				t.Fatalf("created %+v", res.Result.CreatedAmulets)
			}
			out := s.amulet(t, *res.Result.CreatedAmulets[0].TransferResultAmulet)
			if out.Owner != carol || out.Amount.InitialAmount.Cmp(num("2.0")) != 0 || out.Amount.CreatedAt != f.config.Payload.HoldingFeesOpenRoundNumber {
				t.Errorf("output %+v", out)
			}
		})
	}
}
