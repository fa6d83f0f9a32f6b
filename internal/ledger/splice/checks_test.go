package splice_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Every check a Splice choice makes refuses what Splice refuses, with
// Splice's error: the tests below run each check's refusal next to a
// command it accepts.

// failure is the error a case expects: the code of the fault and a piece
// of its message, and for a DAML_FAILURE the error id in its context.
type failure struct {
	code, text, errorID string
}

// check asserts err is the expected failure, or nil when want is empty.
func (want failure) check(t *testing.T, err error) {
	t.Helper()
	if want == (failure{}) {
		if err != nil {
			t.Fatalf("want success, got %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("want %s (%s), got success", want.code, want.text)
	}
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("want %s, got %v", want.code, err)
	}
	if f.Code != want.code || !strings.Contains(f.Message, want.text) {
		t.Errorf("got %s %q, want %s containing %q", f.Code, f.Message, want.code, want.text)
	}
	if want.errorID != "" && f.Context["error_id"] != want.errorID {
		t.Errorf("error_id %q, want %q (context %v)", f.Context["error_id"], want.errorID, f.Context)
	}
	if want.code != "DAML_AUTHORIZATION_ERROR" && want.code != "CONTRACT_NOT_FOUND" && f.Kind != fault.DamlPrecondition {
		t.Errorf("kind %s, want %s", f.Kind, fault.DamlPrecondition)
	}
}

func requirement(msg string) failure {
	return failure{code: ledger.CodeUnhandledException, text: "The requirement '" + msg + "' was not met."}
}

func aborted(msg string) failure {
	return failure{code: ledger.CodeUnhandledException, text: "GeneralError{ message = \"" + msg}
}

func damlFailure(errorID, text string) failure {
	return failure{code: splice.CodeDamlFailure, text: text, errorID: errorID}
}

var unauthorized = failure{code: "DAML_AUTHORIZATION_ERROR", text: "requires authorizers"}

// asDSO submits a command as the DSO's automation does: from the first
// SV's node, acting as that SV and the DSO party.
func (s seeded) asDSO(t testing.TB, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) (*ledger.Transaction, error) {
	t.Helper()
	sv := s.SVs[0]
	return s.net.Submit(context.Background(), ledger.Command{
		Participant: sv.Participant, UserID: sv.OperatorUser, ActAs: []daml.Party{sv.Party, s.DSOParty},
		ReadAs: []daml.Party{s.DSOParty}, Disclosed: disclosed, Run: run,
	})
}

func (s seeded) contract(t testing.TB, cid daml.ContractID) *ledger.Contract {
	t.Helper()
	c, _, err := s.net.Store().Contract(context.Background(), cid)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTransferChecks(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	dso := s.DSOParty
	other := daml.Party("other::1220" + strings.Repeat("ab", 32))

	// bob's app is featured; alice's is not.
	ac := s.amuletContext(t)
	featured, err := s.submit(t, []daml.Party{bob}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.AmuletRulesDevNetFeatureAppResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_FeatureApp",
			splice.AmuletRulesDevNetFeatureApp{Provider: bob})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	bobRight := splice.CreatedIn(featured, splice.FeaturedAppRight{}.TemplateID())[0]
	rights, err := splice.Active[splice.ValidatorRight](context.Background(), s.net.Store(), alice)
	if err != nil || len(rights) != 1 {
		t.Fatalf("alice's validator rights: %v %v", rights, err)
	}

	type transfer struct {
		arg       splice.AmuletRulesTransfer
		actAs     []daml.Party
		disclosed []*ledger.Contract
	}
	// pay is alice paying bob 1 CC from her amulets, in the latest round.
	pay := func(t *testing.T) transfer {
		ac := s.amuletContext(t)
		return transfer{
			arg: splice.AmuletRulesTransfer{
				Transfer: splice.Transfer{Sender: alice, Provider: alice, Inputs: splice.InputAmulets(ids(s.holdings(t, alice))...),
					Outputs: []splice.TransferOutput{splice.Pay(bob, num("1.0"))}},
				Context:     splice.AmuletTransferContext(ac.OpenRound.ID),
				ExpectedDso: &dso,
			},
			actAs: []daml.Party{alice, bob}, disclosed: ac.Disclosed(),
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T, tr *transfer)
		want  failure
		check func(t *testing.T, tx *ledger.Transaction)
	}{
		{name: "a payment", edit: func(*testing.T, *transfer) {}},
		{name: "no expected DSO", edit: func(_ *testing.T, tr *transfer) { tr.arg.ExpectedDso = nil },
			want: aborted("Expected DSO party not set by caller")},
		{name: "another expected DSO", edit: func(_ *testing.T, tr *transfer) { tr.arg.ExpectedDso = &other },
			want: aborted("DSO party expected by caller '" + string(other) + "' does not match actual DSO party '" + string(dso) + "'")},
		{name: "a zero output", edit: func(_ *testing.T, tr *transfer) { tr.arg.Transfer.Outputs[0].Amount = num("0.0") },
			want: requirement("Amount is positive")},
		{name: "a negative output", edit: func(_ *testing.T, tr *transfer) { tr.arg.Transfer.Outputs[0].Amount = num("-5.0") },
			want: requirement("Amount is positive")},
		{name: "a receiver fee ratio above 1", edit: func(_ *testing.T, tr *transfer) { tr.arg.Transfer.Outputs[0].ReceiverFeeRatio = num("1.5") },
			want: aborted("Receiver fee ratio 1.5 is not between 0.0 and 1.0")},
		{name: "a lock that has expired", edit: func(_ *testing.T, tr *transfer) {
			tr.arg.Transfer.Outputs[0].Lock = &splice.TimeLock{Holders: []daml.Party{alice}, ExpiresAt: s.now()}
		}, want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'lock.expiresAt'")},
		{name: "a lock in the future", edit: func(_ *testing.T, tr *transfer) {
			tr.arg.Transfer.Outputs[0].Lock = &splice.TimeLock{Holders: []daml.Party{alice}, ExpiresAt: s.now() + 1}
		}, check: func(t *testing.T, tx *ledger.Transaction) {
			if len(splice.CreatedIn(tx, splice.LockedAmulet{}.TemplateID())) != 1 {
				t.Error("no locked amulet")
			}
		}},
		{name: "insufficient funds", edit: func(_ *testing.T, tr *transfer) { tr.arg.Transfer.Outputs[0].Amount = num("1000000.0") },
			want: damlFailure("splice.lfdecentralizedtrust.org/insufficient-funds", "Insufficient funds: you are missing ")},
		{name: "more outputs than allowed", edit: func(_ *testing.T, tr *transfer) {
			tr.arg.Transfer.Outputs = slices.Repeat([]splice.TransferOutput{splice.Pay(alice, num("0.01"))}, 101)
		}, want: damlFailure("splice.lfdecentralizedtrust.org/maximum-outputs-exceeded", "More than the maximum number of outputs")},
		{name: "another party's amulet", edit: func(t *testing.T, tr *transfer) {
			tr.arg.Transfer.Inputs = splice.InputAmulets(ids(s.holdings(t, bob))...)
		}, want: aborted("Contract group identifier mismatch: expected ForOwner {dso = '" + string(dso) + "', owner = '" + string(alice) + "'}")},
		{name: "a coupon input", edit: func(t *testing.T, tr *transfer) {
			cid := ids(s.holdings(t, alice))[0]
			tr.arg.Transfer.Inputs = []splice.TransferInput{{InputAppRewardCoupon: &cid}}
		}, want: failure{code: "WRONGLY_TYPED_CONTRACT", text: "Splice.Amulet:AppRewardCoupon"}},
		{name: "a validator right that is not the sender's", edit: func(_ *testing.T, tr *transfer) {
			tr.arg.Context.ValidatorRights = daml.Map[daml.Party, daml.ContractID]{{Key: alice, Value: rights[0].ID}}
		}, want: aborted("Contract mismatch: expected ValidatorRight")},
		{name: "beneficiaries that do not add up", edit: func(_ *testing.T, tr *transfer) {
			tr.arg.Transfer.Beneficiaries = &[]splice.AppRewardBeneficiary{{Beneficiary: alice, Weight: num("0.5")}}
		}, want: requirement("Beneficiary weights add up to 1.0")},
		{name: "a beneficiary weight above 1", edit: func(_ *testing.T, tr *transfer) {
			tr.arg.Transfer.Beneficiaries = &[]splice.AppRewardBeneficiary{{Beneficiary: alice, Weight: num("1.5")}, {Beneficiary: bob, Weight: num("-0.5")}}
		}, want: requirement("Beneficiary weights are between 0.0 and 1.0")},
		{name: "another provider's featured app right", edit: func(t *testing.T, tr *transfer) {
			tr.arg.Context.FeaturedAppRight = &bobRight
			tr.disclosed = append(tr.disclosed, s.contract(t, bobRight))
		}, want: aborted("Contract group identifier mismatch: expected ForOwner {dso = '" + string(dso) + "', owner = '" + string(alice) + "'}")},
		{name: "through a featured app", edit: func(_ *testing.T, tr *transfer) {
			tr.arg.Transfer.Provider = bob
			tr.arg.Context.FeaturedAppRight = &bobRight
			tr.arg.Transfer.Beneficiaries = &[]splice.AppRewardBeneficiary{{Beneficiary: bob, Weight: num("0.75")}, {Beneficiary: alice, Weight: num("0.25")}}
		}, check: func(t *testing.T, tx *ledger.Transaction) {
			if got := len(splice.CreatedIn(tx, splice.FeaturedAppActivityMarker{}.TemplateID())); got != 2 {
				t.Errorf("%d activity markers, want one per beneficiary", got)
			}
		}},
		{name: "a receiver that does not authorize", edit: func(_ *testing.T, tr *transfer) { tr.actAs = []daml.Party{alice} },
			want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := pay(t)
			tc.edit(t, &tr)
			rules := s.amuletContext(t).AmuletRules.ID
			tx, err := s.submit(t, tr.actAs, tr.disclosed, func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.TransferResult](tx, rules, "AmuletRules_Transfer", tr.arg)
				return err
			})
			tc.want.check(t, err)
			if err == nil && tc.check != nil {
				tc.check(t, tx)
			}
		})
	}
}

// The choices only the DSO's automation may exercise need the DSO party's
// authority, and those an SV's automation exercises need an SV: a user
// who sees the contracts (disclosed, as Scan serves them) gets Daml's
// authorization failure or Splice's SV check.
func TestDsoChoicesNeedTheDso(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	ac := s.amuletContext(t)
	dsoRules := s.dsoRules(t)
	ansRules, err := splice.Active[splice.AnsRules](ctx, s.net.Store(), s.DSOParty)
	if err != nil || len(ansRules) != 1 {
		t.Fatal(len(ansRules), err)
	}
	disclosed := append(ac.Disclosed(), dsoRules.Contract, ansRules[0].Contract)
	round, rules := ac.OpenRound.ID, ac.AmuletRules.ID
	bogus := daml.ContractID("00" + strings.Repeat("ab", 32) + "ca111220" + strings.Repeat("cd", 32))
	exercise := func(cid daml.ContractID, choice string, arg any) func(tx *ledger.Tx) error {
		return func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[any](tx, cid, choice, arg)
			return err
		}
	}
	reason := "why not"
	for _, tc := range []struct {
		name string
		run  func(tx *ledger.Tx) error
		want failure
	}{
		{"AmuletRules_Mint", exercise(rules, "AmuletRules_Mint", splice.AmuletRulesMint{Receiver: alice, Amount: num("1.0"), OpenRound: round, Reason: &reason}), unauthorized},
		{"AmuletRules_Bootstrap_Rounds", exercise(rules, "AmuletRules_Bootstrap_Rounds", splice.AmuletRulesBootstrapRounds{AmuletPrice: num("1.0"), Round0Duration: splice.Rel(time.Hour)}), unauthorized},
		{"AmuletRules_AdvanceOpenMiningRounds", exercise(rules, "AmuletRules_AdvanceOpenMiningRounds", splice.AmuletRulesAdvanceOpenMiningRounds{AmuletPrice: num("1.0"), RoundToArchiveCid: round, MiddleRoundCid: round, LatestRoundCid: round}), unauthorized},
		{"AmuletRules_MiningRound_StartIssuing", exercise(rules, "AmuletRules_MiningRound_StartIssuing", splice.AmuletRulesMiningRoundStartIssuing{MiningRoundCid: bogus}), unauthorized},
		{"AmuletRules_MiningRound_Close", exercise(rules, "AmuletRules_MiningRound_Close", splice.AmuletRulesMiningRoundClose{IssuingRoundCid: bogus}), unauthorized},
		{"AmuletRules_MiningRound_Archive", exercise(rules, "AmuletRules_MiningRound_Archive", splice.AmuletRulesMiningRoundArchive{ClosedRoundCid: bogus}), unauthorized},
		{"AnsRules_CollectInitialEntryPayment", exercise(ansRules[0].ID, "AnsRules_CollectInitialEntryPayment", splice.AnsRulesCollectInitialEntryPayment{User: alice, EntryContext: bogus, PaymentCid: bogus}), unauthorized},
		{"AnsRules_RejectEntryInitialPayment", exercise(ansRules[0].ID, "AnsRules_RejectEntryInitialPayment", splice.AnsRulesRejectEntryInitialPayment{PaymentCid: bogus}), unauthorized},
		{"DsoRules_AddSv", exercise(dsoRules.ID, "DsoRules_AddSv", splice.DsoRulesAddSv{NewSvParty: alice, NewSvName: "Alice"}), unauthorized},
		{"DsoRules_ConfirmSvOnboarding", exercise(dsoRules.ID, "DsoRules_ConfirmSvOnboarding", splice.DsoRulesConfirmSvOnboarding{NewSvParty: alice, NewSvName: "Alice"}), unauthorized},
		{"DsoRules_AdvanceOpenMiningRounds as a user", exercise(dsoRules.ID, "DsoRules_AdvanceOpenMiningRounds", splice.DsoRulesAdvanceOpenMiningRounds{AmuletRulesCid: rules, Sv: &alice}), requirement("SV party is an actual SV")},
		{"DsoRules_AdvanceOpenMiningRounds without an SV", exercise(dsoRules.ID, "DsoRules_AdvanceOpenMiningRounds", splice.DsoRulesAdvanceOpenMiningRounds{AmuletRulesCid: rules}), aborted("no SV party provided")},
		{"DsoRules_MiningRound_Close as a user", exercise(dsoRules.ID, "DsoRules_MiningRound_Close", splice.DsoRulesMiningRoundClose{AmuletRulesCid: rules, IssuingRoundCid: bogus, Sv: &alice}), requirement("SV party is an actual SV")},
		{"DsoRules_ExpireAnsEntry as a user", exercise(dsoRules.ID, "DsoRules_ExpireAnsEntry", splice.DsoRulesExpireAnsEntry{AnsEntryCid: bogus, Sv: &alice}), requirement("SV party is an actual SV")},
		{"DsoRules_CollectEntryRenewalPayment as a user", exercise(dsoRules.ID, "DsoRules_CollectEntryRenewalPayment", splice.DsoRulesCollectEntryRenewalPayment{AnsEntryContextCid: bogus, Sv: &alice}), requirement("SV party is an actual SV")},
		{"DsoRules_ExpireSubscription as a user", exercise(dsoRules.ID, "DsoRules_ExpireSubscription", splice.DsoRulesExpireSubscription{AnsEntryContextCid: bogus, SubscriptionIdleStateCid: bogus, Sv: &alice}), requirement("SV party is an actual SV")},
		{"DsoRules_OnboardValidator by a user", exercise(dsoRules.ID, "DsoRules_OnboardValidator", splice.DsoRulesOnboardValidator{Sponsor: alice, Validator: alice}), requirement("Sponsor is an SV")},
		{"DsoRules_RequestVote by a user", exercise(dsoRules.ID, "DsoRules_RequestVote", splice.DsoRulesRequestVote{Requester: alice, Action: splice.ActionUpdateSvRewardWeight(alice, 1)}), aborted("Requester is not an SV")},
		{"DsoRules_CastVote by a user", exercise(dsoRules.ID, "DsoRules_CastVote", splice.DsoRulesCastVote{RequestCid: bogus, Vote: splice.Vote{Sv: alice}}), aborted("Voter is not an SV")},
		{"DsoRules_SetSynchronizerNodeConfig by a user", exercise(dsoRules.ID, "DsoRules_SetSynchronizerNodeConfig", splice.DsoRulesSetSynchronizerNodeConfig{Sv: alice, SynchronizerID: string(s.Synchronizer), NodeStateCid: bogus}), aborted("Not a sv")},
		{"DsoRules_AddConfirmedSv by a user", exercise(dsoRules.ID, "DsoRules_AddConfirmedSv", splice.DsoRulesAddConfirmedSv{Sv: alice, SvOnboardingConfirmedCid: bogus}), failure{code: "CONTRACT_NOT_FOUND", text: string(bogus)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.submit(t, []daml.Party{alice}, disclosed, tc.run)
			tc.want.check(t, err)
		})
	}
}

// The choices Splice deprecated are still in the package, and abort.
func TestDeprecatedChoicesAbort(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	ac := s.amuletContext(t)
	locked := lockFor(t, s, alice, bob, time.Hour)
	deprecated := func(choice string) failure {
		return aborted(`Choice \"` + choice + `\" is no longer supported since \"splice-amulet\"-\"0.1.17\"`)
	}
	for _, tc := range []struct {
		choice string
		cid    daml.ContractID
		actAs  []daml.Party
		arg    any
	}{
		{"AmuletRules_ComputeFees", ac.AmuletRules.ID, []daml.Party{alice}, splice.AmuletRulesComputeFees{
			Context: splice.AmuletTransferContext(ac.OpenRound.ID), Sender: alice, Outputs: []splice.TransferOutput{splice.Pay(bob, num("1.0"))}}},
		{"LockedAmulet_Unlock", locked, []daml.Party{alice, bob}, splice.LockedAmuletUnlock{OpenRoundCid: ac.OpenRound.ID}},
		{"LockedAmulet_OwnerExpireLock", locked, []daml.Party{alice}, splice.LockedAmuletOwnerExpireLock{OpenRoundCid: ac.OpenRound.ID}},
	} {
		t.Run(tc.choice, func(t *testing.T) {
			_, err := s.submit(t, tc.actAs, ac.Disclosed(), func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[any](tx, tc.cid, tc.choice, tc.arg)
				return err
			})
			deprecated(tc.choice).check(t, err)
		})
	}
}

// lockFor locks 1 CC of owner's to holder for d, and returns the
// LockedAmulet.
func lockFor(t *testing.T, s seeded, owner, holder daml.Party, d time.Duration) daml.ContractID {
	t.Helper()
	ac := s.amuletContext(t)
	tx, err := s.submit(t, []daml.Party{owner, holder}, ac.Disclosed(), func(tx *ledger.Tx) error {
		out := splice.Pay(owner, num("1.0"))
		out.Lock = &splice.TimeLock{Holders: []daml.Party{holder}, ExpiresAt: s.now() + daml.Timestamp(d.Microseconds())}
		_, err := splice.TransferAmulet(tx, ac, owner, owner, ids(s.holdings(t, owner)), out)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return splice.CreatedIn(tx, splice.LockedAmulet{}.TemplateID())[0]
}

func TestLockedAmuletChoices(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	for _, tc := range []struct {
		name   string
		wait   time.Duration
		choice string
		actAs  []daml.Party
		want   failure
		reason string
	}{
		{name: "unlocked by owner and holder", choice: "LockedAmulet_UnlockV2", actAs: []daml.Party{alice, bob}, reason: "holders released lock"},
		{name: "unlocked by the owner alone", choice: "LockedAmulet_UnlockV2", actAs: []daml.Party{alice}, want: unauthorized},
		{name: "expired by its owner before the lock expires", choice: "LockedAmulet_OwnerExpireLockV2", actAs: []daml.Party{alice},
			want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'Lock.expiresAt'")},
		{name: "expired by its owner when the lock expires", wait: time.Hour, choice: "LockedAmulet_OwnerExpireLockV2", actAs: []daml.Party{alice}, reason: "lock expired"},
		{name: "expired by the holder", wait: time.Hour, choice: "LockedAmulet_OwnerExpireLockV2", actAs: []daml.Party{bob}, want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			locked := lockFor(t, s, alice, bob, time.Hour)
			if tc.wait > 0 {
				s.advance(t, tc.wait)
			}
			var res splice.LockedAmuletUnlockV2Result
			tx, err := s.submit(t, tc.actAs, nil, func(tx *ledger.Tx) (err error) {
				if tc.choice == "LockedAmulet_UnlockV2" {
					res, err = ledger.Exercise[splice.LockedAmuletUnlockV2Result](tx, locked, tc.choice, splice.LockedAmuletUnlockV2{})
					return err
				}
				r, err := ledger.Exercise[splice.LockedAmuletOwnerExpireLockV2Result](tx, locked, tc.choice, splice.LockedAmuletOwnerExpireLockV2{})
				res = splice.LockedAmuletUnlockV2Result(r)
				return err
			})
			tc.want.check(t, err)
			if err != nil {
				return
			}
			if created := splice.CreatedIn(tx, splice.Amulet{}.TemplateID()); len(created) != 1 {
				t.Errorf("created %v", created)
			}
			if got := res.Meta.Values[splice.MetaReason]; got != tc.reason || res.Meta.Values[splice.MetaTxKind] != "unlock" {
				t.Errorf("meta %v", res.Meta.Values)
			}
		})
	}
}

func TestAmuletRulesChecks(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	dso := s.DSOParty
	reason := "for the test"
	negative := num("-1.0")
	for _, tc := range []struct {
		name  string
		asDSO bool
		actAs daml.Party
		run   func(tx *ledger.Tx, ac splice.AmuletContext) error
		want  failure
	}{
		{name: "the DSO mints to itself", asDSO: true, run: func(tx *ledger.Tx, ac splice.AmuletContext) error {
			_, err := ledger.Exercise[splice.AmuletRulesMintResult](tx, ac.AmuletRules.ID, "AmuletRules_Mint",
				splice.AmuletRulesMint{Receiver: dso, Amount: num("5.0"), OpenRound: ac.OpenRound.ID, Reason: &reason})
			return err
		}},
		{name: "any party fetches the rules", actAs: bob, run: func(tx *ledger.Tx, ac splice.AmuletContext) error {
			rules, err := ledger.Exercise[splice.AmuletRules](tx, ac.AmuletRules.ID, "AmuletRules_Fetch", splice.AmuletRulesFetch{P: bob})
			if err == nil && rules.DSO != dso {
				t.Errorf("fetched %+v", rules)
			}
			return err
		}},
		{name: "fetching the rules as another party", actAs: bob, run: func(tx *ledger.Tx, ac splice.AmuletContext) error {
			_, err := ledger.Exercise[splice.AmuletRules](tx, ac.AmuletRules.ID, "AmuletRules_Fetch", splice.AmuletRulesFetch{P: alice})
			return err
		}, want: unauthorized},
		{name: "a provider features its app", actAs: alice, run: func(tx *ledger.Tx, ac splice.AmuletContext) error {
			_, err := ledger.Exercise[splice.AmuletRulesDevNetFeatureAppResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_FeatureApp",
				splice.AmuletRulesDevNetFeatureApp{Provider: alice})
			return err
		}},
		{name: "a negative activity weight", actAs: alice, run: func(tx *ledger.Tx, ac splice.AmuletContext) error {
			_, err := ledger.Exercise[splice.AmuletRulesDevNetFeatureAppResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_FeatureApp",
				splice.AmuletRulesDevNetFeatureApp{Provider: alice, ActivityWeight: &negative})
			return err
		}, want: failure{code: ledger.CodeTemplatePreconditionViolated, text: "Splice.Amulet:FeaturedAppRight"}},
		{name: "featuring another party's app", actAs: alice, run: func(tx *ledger.Tx, ac splice.AmuletContext) error {
			_, err := ledger.Exercise[splice.AmuletRulesDevNetFeatureAppResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_FeatureApp",
				splice.AmuletRulesDevNetFeatureApp{Provider: bob})
			return err
		}, want: unauthorized},
		{name: "fetching a round as any party", actAs: alice, run: func(tx *ledger.Tx, ac splice.AmuletContext) error {
			_, err := ledger.Exercise[splice.OpenMiningRound](tx, ac.OpenRound.ID, "OpenMiningRound_Fetch", splice.OpenMiningRoundFetch{P: alice})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ac := s.amuletContext(t)
			run := func(tx *ledger.Tx) error { return tc.run(tx, ac) }
			var err error
			if tc.asDSO {
				_, err = s.asDSO(t, nil, run)
			} else {
				_, err = s.submit(t, []daml.Party{tc.actAs}, ac.Disclosed(), run)
			}
			tc.want.check(t, err)
		})
	}
}

func TestFeaturedAppRightChoices(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	feature := func(t *testing.T) daml.ContractID {
		ac := s.amuletContext(t)
		tx, err := s.submit(t, []daml.Party{alice}, ac.Disclosed(), func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.AmuletRulesDevNetFeatureAppResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_FeatureApp",
				splice.AmuletRulesDevNetFeatureApp{Provider: alice})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return splice.CreatedIn(tx, splice.FeaturedAppRight{}.TemplateID())[0]
	}
	for _, tc := range []struct {
		name       string
		asDSO      bool
		choice     string
		arg        any
		want       failure
		wantWeight string // the updated right's activity weight ("" for None)
	}{
		{name: "the provider cancels", choice: "FeaturedAppRight_Cancel", arg: splice.FeaturedAppRightCancel{}},
		{name: "the provider withdraws", choice: "FeaturedAppRight_Withdraw", arg: splice.FeaturedAppRightWithdraw{Reason: "mine"}, want: unauthorized},
		{name: "the DSO withdraws", asDSO: true, choice: "FeaturedAppRight_Withdraw", arg: splice.FeaturedAppRightWithdraw{Reason: "vote"}},
		{name: "the DSO sets a weight", asDSO: true, choice: "FeaturedAppRight_Update", arg: splice.FeaturedAppRightUpdate{Reason: "vote", NewActivityWeight: num("2.5")}, wantWeight: "2.5000000000"},
		{name: "the DSO sets the default weight", asDSO: true, choice: "FeaturedAppRight_Update", arg: splice.FeaturedAppRightUpdate{Reason: "vote", NewActivityWeight: num("1.0")}},
		{name: "the DSO sets a negative weight", asDSO: true, choice: "FeaturedAppRight_Update", arg: splice.FeaturedAppRightUpdate{Reason: "vote", NewActivityWeight: num("-2.0")},
			want: failure{code: ledger.CodeTemplatePreconditionViolated, text: "FeaturedAppRight"}},
		{name: "the provider sets a weight", choice: "FeaturedAppRight_Update", arg: splice.FeaturedAppRightUpdate{Reason: "me", NewActivityWeight: num("2.0")}, want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			right := feature(t)
			run := func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[any](tx, right, tc.choice, tc.arg)
				return err
			}
			var tx *ledger.Transaction
			var err error
			if tc.asDSO {
				tx, err = s.asDSO(t, nil, run)
			} else {
				tx, err = s.submit(t, []daml.Party{alice}, nil, run)
			}
			tc.want.check(t, err)
			if err != nil || tc.choice != "FeaturedAppRight_Update" {
				return
			}
			c := s.contract(t, splice.CreatedIn(tx, splice.FeaturedAppRight{}.TemplateID())[0])
			updated, err := splice.Decode[splice.FeaturedAppRight](c)
			if err != nil {
				t.Fatal(err)
			}
			if w := updated.Payload.ActivityWeight; (w == nil) != (tc.wantWeight == "") || w != nil && w.String() != tc.wantWeight {
				t.Errorf("activity weight %v, want %q", w, tc.wantWeight)
			}
		})
	}
}

// The payment choices of a subscription, on the renewal payment of a name
// entry: the receiver (the DSO) may reject it, and the sender may take the
// amulet back once the lock expired, never before.
func TestSubscriptionPaymentChoices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{})
	alice := s.user(t, "alice").Party
	s.advance(t, 61*day)
	s.runAutomation(t)
	s.runAutomation(t)
	var payment func(t *testing.T) splice.Contract[splice.SubscriptionPayment]
	payment = func(t *testing.T) splice.Contract[splice.SubscriptionPayment] {
		ps, err := splice.Active[splice.SubscriptionPayment](ctx, s.net.Store(), alice)
		if err != nil || len(ps) > 1 {
			t.Fatal(len(ps), err)
		}
		if len(ps) == 1 {
			return ps[0]
		}
		if err := s.payRenewal(t, alice); err != nil {
			t.Fatal(err)
		}
		return payment(t)
	}
	for _, tc := range []struct {
		name     string
		wait     time.Duration
		asDSO    bool
		actAs    daml.Party
		choice   string
		arg      func(splice.AppTransferContext) any
		want     failure
		returned bool // alice got her amulet back
	}{
		{name: "the sender expires it before the lock expires", actAs: alice, choice: "SubscriptionPayment_Expire",
			arg: func(c splice.AppTransferContext) any {
				return splice.SubscriptionPaymentExpire{Actor: alice, TransferContext: c}
			},
			want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'Lock.expiresAt'")},
		{name: "a party that is not a signatory expires it", actAs: s.Validator.Party, choice: "SubscriptionPayment_Expire",
			arg: func(c splice.AppTransferContext) any {
				return splice.SubscriptionPaymentExpire{Actor: s.Validator.Party, TransferContext: c}
			},
			want: requirement("Actor '" + string(s.Validator.Party) + "' is a signatory")},
		{name: "the sender rejects it", actAs: alice, choice: "SubscriptionPayment_Reject",
			arg: func(c splice.AppTransferContext) any { return splice.SubscriptionPaymentReject{TransferContext: c} }, want: unauthorized},
		{name: "the receiver rejects it", asDSO: true, choice: "SubscriptionPayment_Reject",
			arg: func(c splice.AppTransferContext) any { return splice.SubscriptionPaymentReject{TransferContext: c} }, returned: true},
		{name: "the sender expires it after the lock expired", wait: time.Hour, actAs: alice, choice: "SubscriptionPayment_Expire",
			arg: func(c splice.AppTransferContext) any {
				return splice.SubscriptionPaymentExpire{Actor: alice, TransferContext: c}
			}, returned: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := payment(t)
			if tc.wait > 0 {
				s.advance(t, tc.wait)
			}
			ac := s.amuletContext(t)
			disclosed := append(ac.Disclosed(), p.Contract)
			run := func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[any](tx, p.ID, tc.choice, tc.arg(ac.AppContext()))
				return err
			}
			var tx *ledger.Transaction
			var err error
			if tc.asDSO {
				tx, err = s.asDSO(t, disclosed, run)
			} else {
				tx, err = s.submit(t, []daml.Party{tc.actAs}, disclosed, run)
			}
			tc.want.check(t, err)
			if err != nil {
				return
			}
			idle := s.idleState(t, alice)
			if idle.Payload.NextPaymentDueAt != p.Payload.ThisPaymentDueAt {
				t.Errorf("next payment due at %s, want the rejected payment's %s", idle.Payload.NextPaymentDueAt, p.Payload.ThisPaymentDueAt)
			}
			if got := len(splice.CreatedIn(tx, splice.Amulet{}.TemplateID())); (got == 1) != tc.returned {
				t.Errorf("%d amulets created", got)
			}
		})
	}
}

// The initial payment of a subscription: collected only against the round
// it was made in; rejected by the receiver; expired by a signatory once its
// lock expired.
func TestSubscriptionInitialPaymentChoices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	ansRules, err := splice.Active[splice.AnsRules](ctx, s.net.Store(), s.DSOParty)
	if err != nil || len(ansRules) != 1 {
		t.Fatal(len(ansRules), err)
	}
	// pay requests a name entry and pays for it, returning the payment and
	// the entry's context.
	pay := func(t *testing.T, name string) (splice.Contract[splice.SubscriptionInitialPayment], daml.ContractID) {
		tx, err := s.submit(t, []daml.Party{alice}, []*ledger.Contract{ansRules[0].Contract}, func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.AnsRulesRequestEntryResult](tx, ansRules[0].ID, "AnsRules_RequestEntry",
				splice.AnsRulesRequestEntry{Name: name, User: alice})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		request := splice.CreatedIn(tx, splice.SubscriptionRequest{}.TemplateID())[0]
		context := splice.CreatedIn(tx, splice.AnsEntryContext{}.TemplateID())[0]
		ac := s.amuletContext(t)
		tx, err = s.submit(t, []daml.Party{alice, s.Validator.Party}, ac.Disclosed(), func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.SubscriptionRequestAcceptAndMakePaymentResult](tx, request, "SubscriptionRequest_AcceptAndMakePayment",
				splice.SubscriptionRequestAcceptAndMakePayment{Inputs: splice.InputAmulets(ids(s.holdings(t, alice))...), Context: ac.PaymentContext(), WalletProvider: s.Validator.Party})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		c, err := splice.Decode[splice.SubscriptionInitialPayment](s.contract(t, splice.CreatedIn(tx, splice.SubscriptionInitialPayment{}.TemplateID())[0]))
		if err != nil {
			t.Fatal(err)
		}
		return c, context
	}
	// The receiver collects as the name service does, through the entry's
	// context, whose signatories (the DSO and the user) are the payment's.
	collect := func(payment, context daml.ContractID, app splice.AppTransferContext) func(tx *ledger.Tx) error {
		return func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[any](tx, context, "AnsEntryContext_CollectInitialEntryPayment",
				splice.AnsEntryContextCollectInitialEntryPayment{PaymentCid: payment, TransferContext: app, AnsRulesCid: ansRules[0].ID})
			return err
		}
	}
	// otherRound is an open round other than the one the payment was made
	// in.
	otherRound := func(t *testing.T, paid splice.Round) *ledger.Contract {
		rounds, err := splice.Active[splice.OpenMiningRound](ctx, s.net.Store(), s.DSOParty)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rounds {
			if r.Payload.Round != paid {
				return r.Contract
			}
		}
		t.Fatal("one open round only")
		return nil
	}
	for i, tc := range []struct {
		name       string
		wait       time.Duration
		asDSO      bool
		otherRound bool
		choice     string
		arg        func(splice.AppTransferContext) any
		want       failure
	}{
		{name: "collected in another round", asDSO: true, otherRound: true, choice: "SubscriptionInitialPayment_Collect",
			want: failure{code: ledger.CodeUnhandledException, text: "matches round at collection"}},
		{name: "collected", asDSO: true, choice: "SubscriptionInitialPayment_Collect"},
		{name: "rejected by the sender", choice: "SubscriptionInitialPayment_Reject",
			arg: func(c splice.AppTransferContext) any {
				return splice.SubscriptionInitialPaymentReject{TransferContext: c}
			}, want: unauthorized},
		{name: "rejected by the receiver", asDSO: true, choice: "SubscriptionInitialPayment_Reject",
			arg: func(c splice.AppTransferContext) any {
				return splice.SubscriptionInitialPaymentReject{TransferContext: c}
			}},
		{name: "expired by the sender too early", choice: "SubscriptionInitialPayment_Expire",
			arg: func(c splice.AppTransferContext) any {
				return splice.SubscriptionInitialPaymentExpire{Actor: alice, TransferContext: c}
			},
			want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Lock.expiresAt")},
		{name: "expired by the sender", wait: time.Hour, choice: "SubscriptionInitialPayment_Expire",
			arg: func(c splice.AppTransferContext) any {
				return splice.SubscriptionInitialPaymentExpire{Actor: alice, TransferContext: c}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, context := pay(t, "name"+itoa(i)+".unverified.cns")
			if tc.wait > 0 {
				s.advance(t, tc.wait)
			}
			ac := s.amuletContext(t)
			app := ac.AppContext()
			disclosed := ac.Disclosed()
			if tc.otherRound {
				r := otherRound(t, p.Payload.Round)
				app.OpenMiningRound = r.ID
				disclosed = append(disclosed, r)
			}
			run := func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[any](tx, p.ID, tc.choice, tc.arg(app))
				return err
			}
			if tc.choice == "SubscriptionInitialPayment_Collect" {
				run = collect(p.ID, context, app)
			}
			var err error
			if tc.asDSO {
				_, err = s.asDSO(t, disclosed, run)
			} else {
				_, err = s.submit(t, []daml.Party{alice}, disclosed, run)
			}
			tc.want.check(t, err)
		})
	}
}

func TestDsoRulesChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	sv2 := s.SVs[1]
	requests, err := splice.Active[splice.VoteRequest](ctx, s.net.Store(), s.DSOParty)
	if err != nil || len(requests) != 1 {
		t.Fatal(len(requests), err)
	}
	request := requests[0].ID
	long := strings.Repeat("x", 1025)
	nodeState := func(t *testing.T) daml.ContractID {
		states, err := splice.Active[splice.SvNodeState](ctx, s.net.Store(), s.DSOParty)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range states {
			if st.Payload.Sv == sv2.Party {
				return st.ID
			}
		}
		t.Fatal("no node state")
		return ""
	}
	for _, tc := range []struct {
		name string
		wait time.Duration
		run  func(t *testing.T, tx *ledger.Tx, rules daml.ContractID) error
		want failure
	}{
		{name: "a vote", run: func(t *testing.T, tx *ledger.Tx, rules daml.ContractID) error {
			_, err := ledger.Exercise[splice.DsoRulesCastVoteResult](tx, rules, "DsoRules_CastVote", splice.DsoRulesCastVote{
				RequestCid: request, Vote: splice.Vote{Sv: sv2.Party, Accept: true}})
			return err
		}},
		{name: "a vote within the cooldown", wait: time.Minute - time.Microsecond, run: func(t *testing.T, tx *ledger.Tx, rules daml.ContractID) error {
			_, err := ledger.Exercise[splice.DsoRulesCastVoteResult](tx, rules, "DsoRules_CastVote", splice.DsoRulesCastVote{
				RequestCid: request, Vote: splice.Vote{Sv: sv2.Party, Accept: false}})
			return err
		}, want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'voteCooldownTime for "+string(sv2.Party)+"'")},
		{name: "a vote when the cooldown ends", wait: time.Microsecond, run: func(t *testing.T, tx *ledger.Tx, rules daml.ContractID) error {
			_, err := ledger.Exercise[splice.DsoRulesCastVoteResult](tx, rules, "DsoRules_CastVote", splice.DsoRulesCastVote{
				RequestCid: request, Vote: splice.Vote{Sv: sv2.Party, Accept: false}})
			return err
		}},
		{name: "a vote with too long a reason", run: func(t *testing.T, tx *ledger.Tx, rules daml.ContractID) error {
			_, err := ledger.Exercise[splice.DsoRulesCastVoteResult](tx, rules, "DsoRules_CastVote", splice.DsoRulesCastVote{
				RequestCid: request, Vote: splice.Vote{Sv: sv2.Party, Reason: splice.Reason{URL: long}}})
			return err
		}, want: requirement("Reason URL is not too long")},
		{name: "a governance key too long", run: func(t *testing.T, tx *ledger.Tx, rules daml.ContractID) error {
			config := splice.SynchronizerNodeConfig{CometBft: splice.CometBftConfig{GovernanceKeys: []splice.GovernanceKeyConfig{{PubKey: long}}}}
			_, err := ledger.Exercise[splice.DsoRulesSetSynchronizerNodeConfigResult](tx, rules, "DsoRules_SetSynchronizerNodeConfig", splice.DsoRulesSetSynchronizerNodeConfig{
				Sv: sv2.Party, SynchronizerID: string(s.Synchronizer), NewNodeConfig: config, NodeStateCid: nodeState(t)})
			return err
		}, want: requirement("Valid configuration")},
		{name: "an unknown synchronizer", run: func(t *testing.T, tx *ledger.Tx, rules daml.ContractID) error {
			_, err := ledger.Exercise[splice.DsoRulesSetSynchronizerNodeConfigResult](tx, rules, "DsoRules_SetSynchronizerNodeConfig", splice.DsoRulesSetSynchronizerNodeConfig{
				Sv: sv2.Party, SynchronizerID: "elsewhere::1220", NodeStateCid: nodeState(t)})
			return err
		}, want: requirement("Synchronizer with this id is configured")},
		{name: "a validator onboarded by an SV sponsors itself", run: func(t *testing.T, tx *ledger.Tx, rules daml.ContractID) error {
			validator := s.user(t, "alice").Party
			_, err := ledger.Exercise[splice.DsoRulesOnboardValidatorResult](tx, rules, "DsoRules_OnboardValidator", splice.DsoRulesOnboardValidator{
				Sponsor: sv2.Party, Validator: validator})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wait > 0 {
				s.advance(t, tc.wait)
			}
			rules := s.dsoRules(t)
			tx, err := s.asSV(t, sv2, sv2.Party, func(tx *ledger.Tx) error { return tc.run(t, tx, rules.ID) })
			tc.want.check(t, err)
			if err != nil {
				return
			}
			if created := splice.CreatedIn(tx, splice.VoteRequest{}.TemplateID()); len(created) == 1 {
				request = created[0]
			}
			if !strings.Contains(tc.name, "sponsors itself") {
				return
			}
			lic, err := splice.Decode[splice.ValidatorLicense](s.contract(t, splice.CreatedIn(tx, splice.ValidatorLicense{}.TemplateID())[0]))
			if err != nil {
				t.Fatal(err)
			}
			if lic.Payload.Sponsor != lic.Payload.Validator {
				t.Errorf("license %+v", lic.Payload)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// Starting a round's issuance validates the summary and records what
// nobody can claim (all of it: sandnet issues no coupons) and the
// development fund's share, which together are the round's issuance.
func TestStartIssuing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	s.advance(t, s.TickDuration)
	s.runAutomation(t) // the oldest round starts summarizing
	rounds, err := splice.Active[splice.SummarizingMiningRound](ctx, s.net.Store(), s.DSOParty)
	if err != nil || len(rounds) != 1 {
		t.Fatal(len(rounds), err)
	}
	round := rounds[0]
	minus := num("-1.0")
	negative := int64(-1)
	for _, tc := range []struct {
		name    string
		summary splice.OpenMiningRoundSummary
		want    failure
	}{
		{"negative validator coupons", splice.OpenMiningRoundSummary{TotalValidatorRewardCoupons: minus}, requirement("totalValidatorRewardCoupons >= 0.0")},
		{"negative featured app coupons", splice.OpenMiningRoundSummary{TotalFeaturedAppRewardCoupons: minus}, requirement("totalFeaturedAppRewardCoupons >= 0.0")},
		{"negative unfeatured app coupons", splice.OpenMiningRoundSummary{TotalUnfeaturedAppRewardCoupons: minus}, requirement("totalUnfeaturedAppRewardCoupons >= 0.0")},
		{"negative faucet coupons", splice.OpenMiningRoundSummary{OptTotalValidatorFaucetCoupons: &negative}, requirement("totalValidatorFaucetCoupons >= 0")},
		{"an empty summary", splice.OpenMiningRoundSummary{}, failure{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := s.amuletContext(t).AmuletRules.ID
			tx, err := s.asDSO(t, nil, func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.AmuletRulesMiningRoundStartIssuingResult](tx, rules, "AmuletRules_MiningRound_StartIssuing",
					splice.AmuletRulesMiningRoundStartIssuing{MiningRoundCid: round.ID, Summary: tc.summary})
				return err
			})
			tc.want.check(t, err)
			if err != nil {
				return
			}
			unclaimed, err := splice.Decode[splice.UnclaimedReward](s.contract(t, splice.CreatedIn(tx, splice.UnclaimedReward{}.TemplateID())[0]))
			if err != nil {
				t.Fatal(err)
			}
			fund, err := splice.Decode[splice.UnclaimedDevelopmentFundCoupon](s.contract(t, splice.CreatedIn(tx, splice.UnclaimedDevelopmentFundCoupon{}.TemplateID())[0]))
			if err != nil {
				t.Fatal(err)
			}
			// As Splice computes it: the issuance per year over the rounds
			// in a year, 5% of it to the development fund.
			roundsPerYear, _ := daml.NumericFromInt((365 * 24 * time.Hour).Microseconds()).Div(daml.NumericFromInt(round.Payload.TickDuration.Microseconds))
			perRound, _ := round.Payload.IssuanceConfig.AmuletToIssuePerYear.Div(roundsPerYear)
			wantFund, _ := perRound.Mul(num("0.05"))
			total, _ := unclaimed.Payload.Amount.Add(fund.Payload.Amount)
			if fund.Payload.Amount.Cmp(wantFund) != 0 || total.Cmp(perRound) != 0 {
				t.Errorf("unclaimed %s + fund %s, want a fund of %s and a round's issuance of %s", unclaimed.Payload.Amount, fund.Payload.Amount, wantFund, perRound)
			}
		})
	}
}
