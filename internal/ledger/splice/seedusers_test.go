package splice_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// TestSeedUserSeeds seeds what a network file can ask for beyond the
// default network (per-user party hints, balances, pre-approvals, names
// and rights, users without a wallet, further parties with balances,
// synchronizers, a clock start) and checks each on the ledger.
func TestSeedUserSeeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	five, zero := daml.MustNumeric("500"), daml.MustNumeric("0")
	start := daml.Timestamp(time.Now().Add(30 * 24 * time.Hour).UnixMicro()) // the test clock runs from now
	cfg := splice.SeedConfig{
		SVs: 1, Synchronizers: []string{"private-1"}, ClockStart: start,
		Validators: []splice.ValidatorConfig{
			{Name: splice.DefaultValidatorName, Users: []string{"alice", "bob", "auditor"},
				Parties: []splice.PartySeed{{Hint: "treasury", Balance: daml.MustNumeric("123")}},
				UserSeeds: map[string]splice.UserSeed{
					"alice":   {PartyHint: "alice-party", Balance: &five, Preapproval: true, AnsNames: []string{"al.unverified.cns", "ally.unverified.cns"}, ActAs: []string{"treasury"}},
					"bob":     {Balance: &zero, AnsNames: []string{}},
					"auditor": {NoWallet: true, ReadAs: []string{"alice-party", "bob"}, PrimaryParty: "treasury", ReadAsAnyParty: true},
				}},
			{Name: "second", Users: []string{"carol"}, UserSeeds: map[string]splice.UserSeed{"carol": {Preapproval: true}}},
		},
	}
	s := seedNetwork(t, cfg)
	st := s.net.Store()
	if now := s.net.Clock().Now(); now < start {
		t.Errorf("ledger time %s is before the clock start %s", now, start)
	}
	syncs, err := st.Synchronizers(ctx)
	if err != nil || len(syncs) != 2 {
		t.Errorf("synchronizers %+v, %v; want the global one and private-1", syncs, err)
	}

	v := s.Validators[0]
	if len(v.Users) != 2 {
		t.Fatalf("wallet users %+v, want alice and bob (auditor has no wallet)", v.Users)
	}
	alice, bob := v.Users[0], v.Users[1]
	if ledger.PartyHint(alice.Party) != "alice-party" || alice.AnsName != "al.unverified.cns" || bob.AnsName != "" {
		t.Errorf("alice %+v, bob %+v", alice, bob)
	}
	treasury := partyByHint(t, s, v.Participant, "treasury")
	balance := func(p daml.Party) daml.Numeric {
		t.Helper()
		hs, err := splice.Holdings(ctx, st, p)
		if err != nil {
			t.Fatal(err)
		}
		sum := daml.Numeric{}
		for _, h := range hs {
			sum, _ = sum.Add(h.Payload.Amount.InitialAmount)
		}
		return sum
	}
	if b := balance(treasury); b.Cmp(daml.MustNumeric("123")) != 0 {
		t.Errorf("treasury holds %s, want 123", b)
	}
	if b := balance(bob.Party); !b.IsZero() {
		t.Errorf("bob holds %s, want nothing", b)
	}
	// alice tapped 500 and paid two names from it.
	if b := balance(alice.Party); b.Cmp(five) >= 0 || b.Sign() <= 0 {
		t.Errorf("alice holds %s, want less than 500 (two names paid) but some", b)
	}
	entries, err := splice.Active[splice.AnsEntry](ctx, st, alice.Party)
	if err != nil || len(entries) != 2 {
		t.Errorf("alice's names: %d, %v; want 2", len(entries), err)
	}
	for _, who := range []splice.SeededUser{alice, s.Validators[1].Users[0]} {
		pre, err := splice.Active[splice.TransferPreapproval](ctx, st, who.Party)
		if err != nil || len(pre) != 1 {
			t.Errorf("%s's pre-approvals: %d, %v; want 1", who.Name, len(pre), err)
		}
	}
	if pre, _ := splice.Active[splice.TransferPreapproval](ctx, st, bob.Party); len(pre) != 0 {
		t.Errorf("bob has %d pre-approvals, want none", len(pre))
	}

	au, err := st.User(ctx, v.Participant, "alice")
	if err != nil || !au.CanAct(treasury) || !au.CanAct(alice.Party) || au.PrimaryParty != alice.Party {
		t.Errorf("alice's rights: %+v, %v", au, err)
	}
	aud, err := st.User(ctx, v.Participant, "auditor")
	if err != nil || aud.PrimaryParty != treasury || !aud.Has(ledger.Right{Kind: ledger.CanReadAs, Party: alice.Party}) ||
		!aud.Has(ledger.Right{Kind: ledger.CanReadAs, Party: bob.Party}) || !aud.Has(ledger.Right{Kind: ledger.CanReadAsAnyParty}) || aud.IsAdmin() {
		t.Errorf("auditor's rights: %+v, %v", aud, err)
	}
}

// partyByHint finds a party hosted on a participant by its hint.
func partyByHint(t *testing.T, s seeded, p ledger.ParticipantID, hint string) daml.Party {
	t.Helper()
	hs, err := s.net.Store().Hostings(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(hs, func(h ledger.Hosting) bool { return h.Participant == p && ledger.PartyHint(h.Party) == hint })
	if i < 0 {
		t.Fatalf("no party %s on %s", hint, p)
	}
	return hs[i].Party
}

// Seed refuses a clock start in the past.
func TestSeedClockStartInThePast(t *testing.T) {
	t.Parallel()
	net := openNetwork(t, "test-"+t.Name())
	_, err := splice.Seed(context.Background(), net, splice.SeedConfig{SVs: 1, ClockStart: net.Clock().Now() - daml.Timestamp(time.Hour.Microseconds())})
	if err == nil {
		t.Fatal("seeded with a clock start in the past")
	}
}
