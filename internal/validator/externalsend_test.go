package validator_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// A transfer command whose sender is a local party, not an external one
// the validator onboarded, is left alone by the validator's automation,
// as Splice's trigger skips senders without an external-party wallet.
func TestTransferCommandOfALocalPartyIsNotSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	dso := splice.NewDSOAutomation(e.net, e.seeded, slog.New(slog.DiscardHandler))
	if _, err := dso.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	if _, _, err := e.v.CreatePreapproval(ctx, bob); err != nil {
		t.Fatal(err)
	}
	rules, err := splice.Active[splice.ExternalPartyAmuletRules](ctx, e.net.Store(), e.seeded.DSOParty)
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules %v: %v", rules, err)
	}
	d := e.seeded.DSOParty
	tr, err := e.net.Submit(ctx, ledger.Command{
		Participant: e.seeded.Validator.Participant, UserID: "alice", ActAs: []daml.Party{alice.Party},
		Disclosed: []*ledger.Contract{rules[0].Contract}, CommandID: "local-command",
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.ExternalPartyAmuletRulesCreateTransferCommandResult](tx, rules[0].ID,
				"ExternalPartyAmuletRules_CreateTransferCommand", splice.ExternalPartyAmuletRulesCreateTransferCommand{
					Sender: alice.Party, Receiver: bob.Party, Delegate: e.seeded.Validator.Party, Amount: num("1.0"),
					ExpiresAt: e.now() + daml.Timestamp(time.Hour.Microseconds()), ExpectedDso: &d,
				})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := splice.CreatedIn(tr, splice.TransferCommand{}.TemplateID())[0]
	if _, err := dso.RunOnce(ctx); err != nil { // the DSO creates alice's counter
		t.Fatal(err)
	}
	e.step(t)
	if _, active, err := e.net.Store().Contract(ctx, cmd); err != nil || !active {
		t.Fatalf("the command of a local party was consumed (active %t, %v)", active, err)
	}
	counters, err := splice.Active[splice.TransferCommandCounter](ctx, e.net.Store(), alice.Party)
	if err != nil || len(counters) != 1 || counters[0].Payload.NextNonce != 0 {
		t.Fatalf("counters %v: %v", counters, err)
	}
	e.checkSupply(t)
}
