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

// setupExternal runs the setup proposal flow: the validator proposes to
// host user, paying from its amulets, and user accepts. It returns the
// pre-approval created.
func (s seeded) setupExternal(t *testing.T, user daml.Party, expiresAt daml.Timestamp) (daml.ContractID, error) {
	t.Helper()
	v := s.Validator.Party
	ac := s.amuletContext(t)
	var proposal splice.AmuletRulesCreateExternalPartySetupProposalResult
	tx, err := s.submit(t, []daml.Party{v}, ac.Disclosed(), func(tx *ledger.Tx) (err error) {
		proposal, err = ledger.Exercise[splice.AmuletRulesCreateExternalPartySetupProposalResult](tx, ac.AmuletRules.ID,
			"AmuletRules_CreateExternalPartySetupProposal", splice.AmuletRulesCreateExternalPartySetupProposal{
				Context: ac.PaymentContext(), Inputs: splice.InputAmulets(ids(s.holdings(t, v))...),
				User: user, Validator: v, PreapprovalExpiresAt: expiresAt, ExpectedDso: &s.DSOParty,
			})
		return err
	})
	if err != nil {
		return "", err
	}
	cids := splice.CreatedIn(tx, splice.ExternalPartySetupProposal{}.TemplateID())
	if len(cids) != 1 || proposal.User != user {
		t.Fatalf("proposals %v, result %+v", cids, proposal)
	}
	tx, err = s.submit(t, []daml.Party{user}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.ExternalPartySetupProposalAcceptResult](tx, cids[0], "ExternalPartySetupProposal_Accept",
			splice.ExternalPartySetupProposalAccept{})
		return err
	})
	if err != nil {
		return "", err
	}
	if n := len(splice.CreatedIn(tx, splice.ValidatorRight{}.TemplateID())); n != 1 {
		t.Fatalf("%d validator rights created", n)
	}
	return createdPreapproval(t, tx), nil
}

func (s seeded) externalRules(t *testing.T) splice.Contract[splice.ExternalPartyAmuletRules] {
	t.Helper()
	rules, err := splice.Active[splice.ExternalPartyAmuletRules](context.Background(), s.net.Store(), s.DSOParty)
	if err != nil || len(rules) != 1 {
		t.Fatalf("external party amulet rules %v: %v", rules, err)
	}
	return rules[0]
}

// createCommand has sender sign a transfer command to receiver.
func (s seeded) createCommand(t *testing.T, sender, receiver daml.Party, amount string, nonce int64, expiresAt daml.Timestamp) (daml.ContractID, error) {
	t.Helper()
	rules := s.externalRules(t)
	desc := "rent"
	tx, err := s.submit(t, []daml.Party{sender}, []*ledger.Contract{rules.Contract}, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.ExternalPartyAmuletRulesCreateTransferCommandResult](tx, rules.ID,
			"ExternalPartyAmuletRules_CreateTransferCommand", splice.ExternalPartyAmuletRulesCreateTransferCommand{
				Sender: sender, Receiver: receiver, Delegate: s.Validator.Party, Amount: num(amount),
				ExpiresAt: expiresAt, Nonce: nonce, Description: &desc, ExpectedDso: &s.DSOParty,
			})
		return err
	})
	if err != nil {
		return "", err
	}
	return splice.CreatedIn(tx, splice.TransferCommand{}.TemplateID())[0], nil
}

func (s seeded) counter(t *testing.T, sender daml.Party) splice.Contract[splice.TransferCommandCounter] {
	t.Helper()
	cs, err := splice.Active[splice.TransferCommandCounter](context.Background(), s.net.Store(), sender)
	if err != nil || len(cs) != 1 {
		t.Fatalf("counters of %s: %v %v", sender, cs, err)
	}
	return cs[0]
}

// send runs TransferCommand_Send as the delegate (the validator), reading
// as the sender as Splice's trigger does.
func (s seeded) send(t *testing.T, cmd daml.ContractID, sender daml.Party, preapproval *daml.ContractID) (splice.TransferCommandSendResult, error) {
	t.Helper()
	ac := s.amuletContext(t)
	counter := s.counter(t, sender)
	disclosed := ac.Disclosed()
	var res splice.TransferCommandSendResult
	_, err := s.net.Submit(context.Background(), ledger.Command{
		Participant: s.Validator.Participant, UserID: splice.OperatorUser,
		ActAs: []daml.Party{s.Validator.Party}, ReadAs: []daml.Party{sender}, Disclosed: disclosed,
		Run: func(tx *ledger.Tx) (err error) {
			res, err = ledger.Exercise[splice.TransferCommandSendResult](tx, cmd, "TransferCommand_Send", splice.TransferCommandSend{
				Context: ac.PaymentContext(), Inputs: splice.InputAmulets(ids(s.holdings(t, sender))...),
				TransferPreapprovalCidO: preapproval, TransferCounterCid: counter.ID,
			})
			return err
		},
	})
	return res, err
}

func TestTransferCommandFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	s.runAutomation(t)

	preapproval, err := s.setupExternal(t, alice, after(s.now(), 90*day))
	if err != nil {
		t.Fatal(err)
	}
	p := s.preapproval(t, preapproval)
	if p.Receiver != alice || p.Provider != s.Validator.Party {
		t.Fatalf("pre-approval %+v", p)
	}

	// bob's first command: the DSO creates his counter.
	cmd, err := s.createCommand(t, bob, alice, "10.0", 0, after(s.now(), time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	s.runAutomation(t)
	if c := s.counter(t, bob); c.Payload.NextNonce != 0 {
		t.Fatalf("counter %+v", c.Payload)
	}
	aliceBefore := s.balance(t, alice)
	res, err := s.send(t, cmd, bob, &preapproval)
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.TransferCommandResultSuccess == nil || res.Nonce != 0 || res.Sender != bob {
		t.Fatalf("send result %+v", res)
	}
	if got, _ := s.balance(t, alice).Sub(aliceBefore); got.Cmp(num("10.0")) != 0 {
		t.Errorf("alice received %s, want 10", got)
	}
	if c := s.counter(t, bob); c.Payload.NextNonce != 1 {
		t.Fatalf("counter after send %+v", c.Payload)
	}

	// A nonce ahead of the counter aborts and leaves the command.
	ahead, err := s.createCommand(t, bob, alice, "1.0", 5, after(s.now(), time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.send(t, ahead, bob, &preapproval)
	aborted("Expected nonce 5 is bigger than current counter 1").check(t, err)

	// A spent nonce fails and archives the command, the counter unchanged.
	stale, err := s.createCommand(t, bob, alice, "1.0", 0, after(s.now(), time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.send(t, stale, bob, &preapproval)
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Result.TransferCommandResultFailure; f == nil || f.Reason.String() != "ITR_Other(Expected nonce 0 is smaller than current counter 1)" {
		t.Fatalf("stale send %+v", res.Result)
	}
	if c := s.counter(t, bob); c.Payload.NextNonce != 1 {
		t.Fatalf("counter after stale send %+v", c.Payload)
	}

	// No pre-approval: the nonce is spent, nothing moves.
	noPre, err := s.createCommand(t, bob, s.Validator.Party, "1.0", 1, after(s.now(), time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.send(t, noPre, bob, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "ITR_Other(No TransferPreapproval for receiver '" + string(s.Validator.Party) + "')"
	if f := res.Result.TransferCommandResultFailure; f == nil || f.Reason.String() != want {
		t.Fatalf("send without pre-approval %+v", res.Result)
	}
	if c := s.counter(t, bob); c.Payload.NextNonce != 2 {
		t.Fatalf("counter %+v", c.Payload)
	}

	// Withdraw, and expire once past expiresAt.
	w, err := s.createCommand(t, bob, alice, "1.0", 2, after(s.now(), time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.submit(t, []daml.Party{bob}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.TransferCommandWithdrawResult](tx, w, "TransferCommand_Withdraw", splice.TransferCommandWithdraw{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e, err := s.createCommand(t, bob, alice, "1.0", 2, after(s.now(), time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	expire := func() error {
		_, err := s.submit(t, []daml.Party{bob}, nil, func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.TransferCommandExpireResult](tx, e, "TransferCommand_Expire", splice.TransferCommandExpire{P: bob})
			return err
		})
		return err
	}
	damlFailure("stdlib.daml.com/deadline-not-exceeded", "TransferCommand.expiresAt").check(t, expire())
	s.advance(t, 2*time.Hour)
	s.runAutomation(t)
	// Sending an expired command fails the transaction.
	_, err = s.send(t, e, bob, &preapproval)
	damlFailure("stdlib.daml.com/deadline-exceeded", "TransferCommand.expiresAt").check(t, err)
	if err := expire(); err != nil {
		t.Fatal(err)
	}

	sup, err := splice.ComputeSupply(ctx, s.net.Store(), s.SVs[0].Participant, s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	assertSupply(t, sup, sup.Minted)
}

func TestTransferCommandChecks(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	other := daml.Party("other::1220" + strings.Repeat("ab", 32))
	s.runAutomation(t)
	rules := s.externalRules(t)
	for _, tc := range []struct {
		name  string
		edit  func(*splice.ExternalPartyAmuletRulesCreateTransferCommand)
		actAs daml.Party
		want  failure
	}{
		{name: "ok", edit: func(*splice.ExternalPartyAmuletRulesCreateTransferCommand) {}},
		{name: "expired", edit: func(a *splice.ExternalPartyAmuletRulesCreateTransferCommand) {
			a.ExpiresAt = after(s.now(), -time.Second)
		},
			want: damlFailure("stdlib.daml.com/deadline-exceeded", "ExternalPartyAmuletRules_CreateTransferCommand.expiresAt")},
		{name: "no expected DSO", edit: func(a *splice.ExternalPartyAmuletRulesCreateTransferCommand) { a.ExpectedDso = nil },
			want: aborted("Expected DSO party not set by caller")},
		{name: "another DSO", edit: func(a *splice.ExternalPartyAmuletRulesCreateTransferCommand) { a.ExpectedDso = &other },
			want: aborted("DSO party expected by caller")},
		{name: "not the sender", actAs: alice, edit: func(*splice.ExternalPartyAmuletRulesCreateTransferCommand) {},
			want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := splice.ExternalPartyAmuletRulesCreateTransferCommand{
				Sender: bob, Receiver: alice, Delegate: s.Validator.Party, Amount: num("1.0"),
				ExpiresAt: after(s.now(), time.Hour), Nonce: 0, ExpectedDso: &s.DSOParty,
			}
			tc.edit(&arg)
			actAs := bob
			if tc.actAs != "" {
				actAs = tc.actAs
			}
			_, err := s.submit(t, []daml.Party{actAs}, []*ledger.Contract{rules.Contract}, func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.ExternalPartyAmuletRulesCreateTransferCommandResult](tx, rules.ID,
					"ExternalPartyAmuletRules_CreateTransferCommand", arg)
				return err
			})
			tc.want.check(t, err)
		})
	}

	// A setup proposal whose pre-approval expired cannot be accepted.
	if _, err := s.setupExternal(t, alice, after(s.now(), -time.Second)); err == nil {
		t.Fatal("setup with a past expiry succeeded")
	}
}
