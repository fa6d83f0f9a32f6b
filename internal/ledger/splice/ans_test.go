package splice_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

const day = 24 * time.Hour

func (s seeded) entries(t testing.TB, user daml.Party) []splice.Contract[splice.AnsEntry] {
	t.Helper()
	cs, err := splice.Active[splice.AnsEntry](context.Background(), s.net.Store(), user)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func (s seeded) idleState(t testing.TB, user daml.Party) splice.Contract[splice.SubscriptionIdleState] {
	t.Helper()
	cs, err := splice.Active[splice.SubscriptionIdleState](context.Background(), s.net.Store(), user)
	if err != nil || len(cs) != 1 {
		t.Fatalf("idle states of %s: %d, %v", user, len(cs), err)
	}
	return cs[0]
}

// payRenewal makes the next subscription payment from the user's wallet.
func (s seeded) payRenewal(t testing.TB, user daml.Party) error {
	t.Helper()
	ac := s.amuletContext(t)
	idle := s.idleState(t, user)
	_, err := s.submit(t, []daml.Party{user, s.Validator.Party}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.SubscriptionIdleStateMakePaymentResult](tx, idle.ID, "SubscriptionIdleState_MakePayment", splice.SubscriptionIdleStateMakePayment{
			Inputs: splice.InputAmulets(ids(s.holdings(t, user))...), Context: ac.PaymentContext(), WalletProvider: s.Validator.Party,
		})
		return err
	})
	return err
}

func TestAnsRequestPayCollect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	name := "wonderland.unverified.cns"
	if err := splice.ValidateAnsEntryRequest(s.AnsAcronym, name, "", "rabbit hole"); err != nil {
		t.Fatal(err)
	}
	ansRules, err := splice.Active[splice.AnsRules](ctx, s.net.Store(), s.DSOParty)
	if err != nil || len(ansRules) != 1 {
		t.Fatal(len(ansRules), err)
	}
	tx, err := s.submit(t, []daml.Party{alice}, []*ledger.Contract{ansRules[0].Contract}, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.AnsRulesRequestEntryResult](tx, ansRules[0].ID, "AnsRules_RequestEntry",
			splice.AnsRulesRequestEntry{Name: name, Description: "rabbit hole", User: alice})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	request := splice.CreatedIn(tx, splice.SubscriptionRequest{}.TemplateID())[0]
	if len(splice.CreatedIn(tx, splice.AnsEntryContext{}.TemplateID())) != 1 {
		t.Fatal("no entry context")
	}
	ac := s.amuletContext(t)
	if _, err := s.submit(t, []daml.Party{alice, s.Validator.Party}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.SubscriptionRequestAcceptAndMakePaymentResult](tx, request, "SubscriptionRequest_AcceptAndMakePayment", splice.SubscriptionRequestAcceptAndMakePayment{
			Inputs: splice.InputAmulets(ids(s.holdings(t, alice))...), Context: ac.PaymentContext(), WalletProvider: s.Validator.Party,
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// The payment is locked to the DSO until it collects.
	locked, _ := splice.Active[splice.LockedAmulet](ctx, s.net.Store(), alice)
	if len(locked) != 1 || locked[0].Payload.Amulet.Amount.InitialAmount.Cmp(num("200.0")) != 0 {
		t.Fatalf("locked %+v", locked)
	}
	if res := s.runAutomation(t); res.Actions != 1 {
		t.Fatalf("automation %+v", res)
	}
	es := s.entries(t, alice)
	if len(es) != 1 || es[0].Payload.Name != name || es[0].Payload.ExpiresAt != s.now()+daml.Timestamp((90*day).Microseconds()) {
		t.Fatalf("entries %+v", es)
	}
	if got := s.balance(t, alice); got.Cmp(num("1800.0")) != 0 {
		t.Errorf("alice holds %s", got)
	}
	if hs := s.holdings(t, s.DSOParty); len(hs) != 0 {
		t.Errorf("the DSO kept the fee: %v", hs)
	}
	sup, err := splice.ComputeSupply(ctx, s.net.Store(), s.SVs[0].Participant, s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	assertSupply(t, sup, num("6000.0"))
	if sup.Burned.Cmp(num("200.0")) != 0 {
		t.Errorf("burned %s, want the 200 CC fee", sup.Burned)
	}
}

func TestAnsPaymentRejectedWhenItsRoundIsGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	ansRules, _ := splice.Active[splice.AnsRules](ctx, s.net.Store(), s.DSOParty)
	tx, err := s.submit(t, []daml.Party{alice}, []*ledger.Contract{ansRules[0].Contract}, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.AnsRulesRequestEntryResult](tx, ansRules[0].ID, "AnsRules_RequestEntry",
			splice.AnsRulesRequestEntry{Name: "late.unverified.cns", User: alice})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	request := splice.CreatedIn(tx, splice.SubscriptionRequest{}.TemplateID())[0]
	ac := s.amuletContext(t)
	if _, err := s.submit(t, []daml.Party{alice, s.Validator.Party}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.SubscriptionRequestAcceptAndMakePaymentResult](tx, request, "SubscriptionRequest_AcceptAndMakePayment", splice.SubscriptionRequestAcceptAndMakePayment{
			Inputs: splice.InputAmulets(ids(s.holdings(t, alice))...), Context: ac.PaymentContext(), WalletProvider: s.Validator.Party,
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// The DSO is down for two days: the payment's round closes meanwhile.
	s.advance(t, 2*day)
	s.runAutomation(t)
	s.runAutomation(t)
	if es := s.entries(t, alice); len(es) != 0 {
		t.Fatalf("entries %+v", es)
	}
	var back daml.Numeric
	for _, h := range s.holdings(t, alice) {
		back, _ = back.Add(h.Payload.Amount.InitialAmount)
	}
	if back.Cmp(num("2000.0")) != 0 {
		t.Errorf("alice holds amulets of %s, want her 2000 back", back)
	}
	terminated, _ := splice.Active[splice.TerminatedSubscription](ctx, s.net.Store(), alice)
	if len(terminated) != 1 {
		t.Errorf("%d terminated subscriptions", len(terminated))
	}
}

func TestAnsRenewalAndExpiry(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	old := s.entries(t, alice)[0]

	// Too early to pay: only within 30 days of the due date.
	wantKind(t, s.payRenewal(t, alice), fault.DamlPrecondition)

	s.advance(t, 61*day)
	s.runAutomation(t)
	s.runAutomation(t)
	if err := s.payRenewal(t, alice); err != nil {
		t.Fatal(err)
	}
	if res := s.runAutomation(t); res.Actions != 1 {
		t.Fatalf("automation %+v", res)
	}
	es := s.entries(t, alice)
	if len(es) != 1 || es[0].ID == old.ID || es[0].Payload.ExpiresAt != old.Payload.ExpiresAt+daml.Timestamp((90*day).Microseconds()) {
		t.Fatalf("renewed entry %+v (was %+v)", es, old)
	}
	if active[splice.AnsEntry](t, s, old.ID) {
		t.Error("the old entry is still active")
	}
	if got := s.idleState(t, alice).Payload.NextPaymentDueAt; got != es[0].Payload.ExpiresAt {
		t.Errorf("next payment due %s, entry expires %s", got, es[0].Payload.ExpiresAt)
	}

	// Bob did not renew: exactly at expiry the entry is still there, a
	// microsecond later the DSO archives it and ends the subscription.
	bobs := s.entries(t, bob)[0]
	s.advance(t, time.Duration(bobs.Payload.ExpiresAt-s.now())*time.Microsecond)
	if s.now() != bobs.Payload.ExpiresAt {
		t.Fatalf("clock at %s, want %s", s.now(), bobs.Payload.ExpiresAt)
	}
	s.runAutomation(t)
	if len(s.entries(t, bob)) != 1 {
		t.Fatal("expired at expiresAt")
	}
	s.advance(t, time.Microsecond)
	s.runAutomation(t)
	if len(s.entries(t, bob)) != 0 {
		t.Error("bob's entry survived its expiry")
	}
	if len(s.entries(t, alice)) != 1 {
		t.Error("alice's renewed entry expired")
	}
	idle, _ := splice.Active[splice.SubscriptionIdleState](context.Background(), s.net.Store(), bob)
	contexts, _ := splice.Active[splice.AnsEntryContext](context.Background(), s.net.Store(), bob)
	if len(idle) != 0 || len(contexts) != 0 {
		t.Errorf("bob's subscription is left: %d idle states, %d contexts", len(idle), len(contexts))
	}
}

func TestValidateAnsEntryRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, entry, url, description string
		ok                            bool
	}{
		{"valid", "alice.unverified.cns", "https://alice.example.com", "me", true},
		{"empty url", "alice.unverified.cns", "", "", true},
		{"wrong suffix", "alice.cns", "", "", false},
		{"another acronym", "alice.unverified.ans", "", "", false},
		{"only the suffix", ".unverified.cns", "", "", false},
		{"upper case", "Alice.unverified.cns", "", "", false},
		{"a dot", "a.b.unverified.cns", "", "", false},
		{"longest name", strings.Repeat("n", 45) + ".unverified.cns", "", "", true},
		{"name too long", strings.Repeat("n", 46) + ".unverified.cns", "", "", false},
		{"url too long", "a.unverified.cns", "https://" + strings.Repeat("x", 250), "", false},
		{"not a url", "a.unverified.cns", "ftp://x", "", false},
		{"description too long", "a.unverified.cns", "", strings.Repeat("d", 141), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := splice.ValidateAnsEntryRequest("cns", tc.entry, tc.url, tc.description)
			if tc.ok != (err == nil) {
				t.Fatalf("got %v", err)
			}
			if err != nil && !fault.Is(err, fault.InvalidArgument) {
				t.Errorf("kind %v", err)
			}
		})
	}
}
