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

// triple is the DSO's open rounds, oldest first, as an
// OpenMiningRoundTriple.
func (s seeded) triple(t testing.TB) (splice.OpenMiningRoundTriple, []splice.Contract[splice.OpenMiningRound]) {
	t.Helper()
	cs, err := splice.Active[splice.OpenMiningRound](context.Background(), s.net.Store(), s.DSOParty)
	if err != nil || len(cs) != 3 {
		t.Fatalf("open rounds: %d, %v", len(cs), err)
	}
	slices.SortFunc(cs, func(a, b splice.Contract[splice.OpenMiningRound]) int {
		return int(a.Payload.Round.Number - b.Payload.Round.Number)
	})
	return splice.OpenMiningRoundTriple{Round0Cid: cs[0].ID, Round1Cid: cs[1].ID, Round2Cid: cs[2].ID}, cs
}

// configStates is the DSO's live config states, the one to archive first
// first.
func (s seeded) configStates(t testing.TB) []splice.Contract[splice.ExternalPartyConfigState] {
	t.Helper()
	cs, err := splice.Active[splice.ExternalPartyConfigState](context.Background(), s.net.Store(), s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(cs, func(a, b splice.Contract[splice.ExternalPartyConfigState]) int {
		return int(a.Payload.TargetArchiveAfter - b.Payload.TargetArchiveAfter)
	})
	return cs
}

func (s seeded) created(t testing.TB, tx *ledger.Transaction) []splice.Contract[splice.ExternalPartyConfigState] {
	t.Helper()
	var out []splice.Contract[splice.ExternalPartyConfigState]
	for _, cid := range splice.CreatedIn(tx, splice.ExternalPartyConfigState{}.TemplateID()) {
		c, err := splice.Decode[splice.ExternalPartyConfigState](s.contract(t, cid))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// wantState checks a config state against the rounds it was made from.
func wantState(t *testing.T, got splice.ExternalPartyConfigState, dso daml.Party, rounds []splice.Contract[splice.OpenMiningRound], latestUsable int, archiveAfter daml.Timestamp) {
	t.Helper()
	r := rounds[latestUsable].Payload
	tc := r.TransferConfigUSD
	want := splice.ExternalPartyConfigState{
		DSO: dso, HoldingFeesOpenRoundNumber: rounds[0].Payload.Round, AmuletPrice: r.AmuletPrice,
		TransferConfig: splice.TransferConfigV2{
			HoldingFee: tc.HoldingFee, MaxNumInputs: tc.MaxNumInputs, MaxNumOutputs: tc.MaxNumOutputs,
			MaxNumLockHolders: tc.MaxNumLockHolders, TokenStandardMaxTTL: tc.TokenStandardMaxTTL,
		},
		TargetArchiveAfter: archiveAfter,
	}
	if got.DSO != want.DSO || got.HoldingFeesOpenRoundNumber != want.HoldingFeesOpenRoundNumber ||
		got.AmuletPrice.String() != want.AmuletPrice.String() || got.TargetArchiveAfter != want.TargetArchiveAfter ||
		got.RewardCalculationVersion != nil || got.TransferConfig.HoldingFee.Rate.String() != want.TransferConfig.HoldingFee.Rate.String() ||
		got.TransferConfig.MaxNumInputs != want.TransferConfig.MaxNumInputs || got.TransferConfig.MaxNumOutputs != want.TransferConfig.MaxNumOutputs ||
		got.TransferConfig.MaxNumLockHolders != want.TransferConfig.MaxNumLockHolders {
		t.Errorf("config state %+v, want %+v", got, want)
	}
}

// bootstrapConfigStates has the DSO bootstrap a config-state pair as
// Splice's SV automation does on a network that has none: the confirmed
// instruction, then DsoRules_BootstrapExternalPartyConfigState.
func (s seeded) bootstrapConfigStates(t testing.TB) []splice.Contract[splice.ExternalPartyConfigState] {
	t.Helper()
	dsoRules := s.dsoRules(t).ID
	tx, err := s.asDSO(t, nil, func(tx *ledger.Tx) error {
		res, err := ledger.Exercise[splice.DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult](tx, dsoRules,
			"DsoRules_CreateBootstrapExternalPartyConfigStateInstruction", splice.DsoRulesCreateBootstrapExternalPartyConfigStateInstruction{})
		if err != nil {
			return err
		}
		triple, _ := s.triple(t)
		_, err = ledger.Exercise[splice.DsoRulesBootstrapExternalPartyConfigStateResult](tx, dsoRules, "DsoRules_BootstrapExternalPartyConfigState",
			splice.DsoRulesBootstrapExternalPartyConfigState{
				AmuletRulesCid: s.amuletContext(t).AmuletRules.ID, InstructionCid: res.InstructionCid,
				OpenMiningRoundTriple: triple, Sv: s.SVs[0].Party,
			})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	created := s.created(t, tx)
	if len(created) != 2 {
		t.Fatalf("%d config states created", len(created))
	}
	if n := len(splice.CreatedIn(tx, splice.BootstrapExternalPartyConfigStateInstruction{}.TemplateID())); n != 1 {
		t.Errorf("%d instructions created", n)
	}
	if n := count[splice.BootstrapExternalPartyConfigStateInstruction](t, s); n != 0 {
		t.Errorf("%d instructions left", n)
	}
	return created
}

// AmuletRules_BootstrapExternalPartyConfigState creates two config states
// from the open rounds, one to archive a tick (24 h) from now, the other
// two ticks from now; it checks the expected DSO and the rounds.
func TestBootstrapExternalPartyConfigState(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	triple, rounds := s.triple(t)
	rules := s.amuletContext(t).AmuletRules.ID
	alice := s.user(t, "alice").Party
	bootstrap := func(arg splice.AmuletRulesBootstrapExternalPartyConfigState) func(tx *ledger.Tx) error {
		return func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.AmuletRulesBootstrapExternalPartyConfigStateResult](tx, rules, "AmuletRules_BootstrapExternalPartyConfigState", arg)
			return err
		}
	}
	for _, tc := range []struct {
		name string
		arg  splice.AmuletRulesBootstrapExternalPartyConfigState
		want failure
	}{
		{"another DSO", splice.AmuletRulesBootstrapExternalPartyConfigState{OpenMiningRoundTriple: triple, ExpectedDso: alice},
			aborted("DSO party expected by caller")},
		{"rounds out of order", splice.AmuletRulesBootstrapExternalPartyConfigState{
			OpenMiningRoundTriple: splice.OpenMiningRoundTriple{Round0Cid: triple.Round1Cid, Round1Cid: triple.Round0Cid, Round2Cid: triple.Round2Cid},
			ExpectedDso:           s.DSOParty}, requirement("round1 = round0 + 1")},
		{"rounds not consecutive", splice.AmuletRulesBootstrapExternalPartyConfigState{
			OpenMiningRoundTriple: splice.OpenMiningRoundTriple{Round0Cid: triple.Round0Cid, Round1Cid: triple.Round1Cid, Round2Cid: triple.Round1Cid},
			ExpectedDso:           s.DSOParty}, requirement("round2 = round1 + 1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.asDSO(t, nil, bootstrap(tc.arg))
			tc.want.check(t, err)
		})
	}
	t.Run("by a user", func(t *testing.T) {
		_, err := s.submit(t, []daml.Party{alice}, []*ledger.Contract{s.amuletContext(t).AmuletRules.Contract},
			bootstrap(splice.AmuletRulesBootstrapExternalPartyConfigState{OpenMiningRoundTriple: triple, ExpectedDso: s.DSOParty}))
		unauthorized.check(t, err)
	})

	before := len(s.configStates(t))
	now := s.now()
	tx, err := s.asDSO(t, nil, bootstrap(splice.AmuletRulesBootstrapExternalPartyConfigState{OpenMiningRoundTriple: triple, ExpectedDso: s.DSOParty}))
	if err != nil {
		t.Fatal(err)
	}
	created := s.created(t, tx)
	if len(created) != 2 || len(s.configStates(t)) != before+2 {
		t.Fatalf("%d config states created", len(created))
	}
	// The seeded network's rounds 0 and 1 are open, round 2 opens later:
	// the latest usable round is round 1.
	latest := 1
	if rounds[2].Payload.OpensAt <= now {
		latest = 2
	}
	wantState(t, created[0].Payload, s.DSOParty, rounds, latest, now+daml.Timestamp(day.Microseconds()))
	wantState(t, created[1].Payload, s.DSOParty, rounds, latest, now+daml.Timestamp(2*day.Microseconds()))
}

// The DSO creates its ExternalPartyAmuletRules through DsoRules; nobody
// else can.
func TestCreateExternalPartyAmuletRules(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	dsoRules := s.dsoRules(t)
	create := func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.DsoRulesCreateExternalPartyAmuletRulesResult](tx, dsoRules.ID,
			"DsoRules_CreateExternalPartyAmuletRules", splice.DsoRulesCreateExternalPartyAmuletRules{})
		return err
	}
	_, err := s.asSV(t, s.SVs[0], s.SVs[0].Party, create)
	unauthorized.check(t, err)
	_, err = s.asSV(t, s.SVs[0], s.SVs[0].Party, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult](tx, dsoRules.ID,
			"DsoRules_CreateBootstrapExternalPartyConfigStateInstruction", splice.DsoRulesCreateBootstrapExternalPartyConfigStateInstruction{})
		return err
	})
	unauthorized.check(t, err)

	before := count[splice.ExternalPartyAmuletRules](t, s)
	tx, err := s.asDSO(t, nil, create)
	if err != nil {
		t.Fatal(err)
	}
	cids := splice.CreatedIn(tx, splice.ExternalPartyAmuletRules{}.TemplateID())
	if len(cids) != 1 || count[splice.ExternalPartyAmuletRules](t, s) != before+1 {
		t.Fatalf("created %v", cids)
	}
	c, err := splice.Decode[splice.ExternalPartyAmuletRules](s.contract(t, cids[0]))
	if err != nil || c.Payload.DSO != s.DSOParty || !slices.Equal(c.Contract.Signatories, []daml.Party{s.DSOParty}) {
		t.Errorf("rules %+v, %v", c, err)
	}
}

// DsoRules_BootstrapExternalPartyConfigState is an SV's, consumes the
// instruction and bootstraps the pair.
func TestDsoRulesBootstrapExternalPartyConfigState(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	dsoRules := s.dsoRules(t)
	triple, _ := s.triple(t)
	_, err := s.asDSO(t, nil, func(tx *ledger.Tx) error {
		res, err := ledger.Exercise[splice.DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult](tx, dsoRules.ID,
			"DsoRules_CreateBootstrapExternalPartyConfigStateInstruction", splice.DsoRulesCreateBootstrapExternalPartyConfigStateInstruction{})
		if err != nil {
			return err
		}
		_, err = ledger.Exercise[splice.DsoRulesBootstrapExternalPartyConfigStateResult](tx, dsoRules.ID, "DsoRules_BootstrapExternalPartyConfigState",
			splice.DsoRulesBootstrapExternalPartyConfigState{
				AmuletRulesCid: s.amuletContext(t).AmuletRules.ID, InstructionCid: res.InstructionCid, OpenMiningRoundTriple: triple, Sv: alice,
			})
		return err
	})
	unauthorized.check(t, err) // alice's authority is missing, before the SV check
	before := len(s.configStates(t))
	s.bootstrapConfigStates(t)
	if got := len(s.configStates(t)); got != before+2 {
		t.Errorf("%d config states, want %d", got, before+2)
	}
}

// AmuletRules_UpdateExternalPartyConfigStates archives the older state once
// its targetArchiveAfter has passed and creates one to archive two ticks
// later, from the oldest round's number and the latest usable round's data.
func TestUpdateExternalPartyConfigStates(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	pair := s.bootstrapConfigStates(t)
	older, newer := pair[0], pair[1]
	if older.Payload.TargetArchiveAfter > newer.Payload.TargetArchiveAfter {
		older, newer = newer, older
	}
	rules := s.amuletContext(t).AmuletRules.ID
	dsoRules := s.dsoRules(t).ID
	update := func(cid0, cid1 daml.ContractID) func(tx *ledger.Tx) error {
		return func(tx *ledger.Tx) error {
			triple, _ := s.triple(t)
			_, err := ledger.Exercise[splice.AmuletRulesUpdateExternalPartyConfigStatesResult](tx, rules, "AmuletRules_UpdateExternalPartyConfigStates",
				splice.AmuletRulesUpdateExternalPartyConfigStates{ExternalPartyConfigStateCid0: cid0, ExternalPartyConfigStateCid1: cid1, OpenMiningRoundTriple: triple})
			return err
		}
	}

	s.advance(t, day-time.Microsecond)
	_, err := s.asDSO(t, nil, update(older.ID, newer.ID))
	damlFailure("stdlib.daml.com/deadline-not-exceeded",
		"Ledger time is before deadline 'ExternalPartyConfigState0.targetArchiveAfter' at "+older.Payload.TargetArchiveAfter.String()).check(t, err)

	s.advance(t, day+time.Microsecond)
	_, err = s.asDSO(t, nil, update(newer.ID, older.ID))
	requirement("ExternalPartyConfigState0.targetArchiveAfter <= ExternalPartyConfigState1.targetArchiveAfter").check(t, err)

	_, err = s.asSV(t, s.SVs[0], s.SVs[0].Party, update(older.ID, newer.ID))
	unauthorized.check(t, err)

	// Through DsoRules, as Splice's SV automation does; an SV's only.
	viaDsoRules := func(sv daml.Party) func(tx *ledger.Tx) error {
		return func(tx *ledger.Tx) error {
			triple, _ := s.triple(t)
			_, err := ledger.Exercise[splice.DsoRulesUpdateExternalPartyConfigStatesResult](tx, dsoRules, "DsoRules_UpdateExternalPartyConfigStates",
				splice.DsoRulesUpdateExternalPartyConfigStates{
					AmuletRulesCid: rules, ExternalPartyConfigStateCid0: older.ID, ExternalPartyConfigStateCid1: newer.ID,
					OpenMiningRoundTriple: triple, Sv: sv,
				})
			return err
		}
	}
	alice := s.user(t, "alice").Party
	_, err = s.submit(t, []daml.Party{alice}, []*ledger.Contract{s.dsoRules(t).Contract}, viaDsoRules(alice))
	requirement("SV party is an actual SV").check(t, err)

	now := s.now()
	_, rounds := s.triple(t)
	tx, err := s.asDSO(t, nil, viaDsoRules(s.SVs[0].Party))
	if err != nil {
		t.Fatal(err)
	}
	created := s.created(t, tx)
	if len(created) != 1 {
		t.Fatalf("%d created", len(created))
	}
	wantState(t, created[0].Payload, s.DSOParty, rounds, 2, now+daml.Timestamp(2*day.Microseconds()))
	live := s.configStates(t)
	for _, c := range live {
		if c.ID == older.ID {
			t.Error("the older state is still live")
		}
	}
	if !slices.ContainsFunc(live, func(c splice.Contract[splice.ExternalPartyConfigState]) bool { return c.ID == newer.ID }) {
		t.Error("the newer state is gone")
	}
}

// settle runs the DSO automation until it has nothing left to do.
func (s seeded) settle(t testing.TB) {
	t.Helper()
	for range 10 {
		if res := s.runAutomation(t); res.Actions == 0 {
			return
		}
	}
	t.Fatal("the automation does not settle")
}

// The DSO automation keeps two config states alive, about a tick apart,
// each living two ticks: it creates the missing contracts, rotates the
// older state once its time is up, and after a clock jump of two days
// leaves two valid states.
func TestAutomationRotatesExternalPartyConfigStates(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	s.settle(t)
	if n := count[splice.ExternalPartyAmuletRules](t, s); n != 1 {
		t.Fatalf("%d ExternalPartyAmuletRules", n)
	}
	states := s.configStates(t)
	if len(states) != 2 {
		t.Fatalf("%d config states", len(states))
	}
	tick := daml.Timestamp(day.Microseconds())
	if gap := states[1].Payload.TargetArchiveAfter - states[0].Payload.TargetArchiveAfter; gap != tick {
		t.Errorf("the states are %d µs apart", gap)
	}
	if res := s.runAutomation(t); res.Actions != 0 || res.Next > states[0].Payload.TargetArchiveAfter+1 {
		t.Errorf("nothing is due before the older state's time: %+v", res)
	}

	// A tick later the older one is replaced by one living two ticks.
	s.advance(t, time.Duration(states[0].Payload.TargetArchiveAfter-s.now()+1)*time.Microsecond)
	s.settle(t)
	after := s.configStates(t)
	if len(after) != 2 || after[0].ID != states[1].ID {
		t.Fatalf("after a tick: %+v", after)
	}
	if want := s.now() + 2*tick; after[1].Payload.TargetArchiveAfter != want {
		t.Errorf("the new state is archived after %s, want %s", after[1].Payload.TargetArchiveAfter, want)
	}

	// After the clock jumps 49 hours, two valid states remain.
	s.advance(t, 49*time.Hour)
	s.settle(t)
	jumped := s.configStates(t)
	if len(jumped) != 2 {
		t.Fatalf("%d config states after the jump", len(jumped))
	}
	_, rounds := s.triple(t)
	for _, c := range jumped {
		if c.Payload.TargetArchiveAfter <= s.now() {
			t.Errorf("state %s is due at %s, before now %s", c.ID, c.Payload.TargetArchiveAfter, s.now())
		}
		if c.Payload.HoldingFeesOpenRoundNumber != rounds[0].Payload.Round {
			t.Errorf("state for round %d, the oldest open round is %d", c.Payload.HoldingFeesOpenRoundNumber.Number, rounds[0].Payload.Round.Number)
		}
		if c.ID == after[0].ID || c.ID == after[1].ID {
			t.Errorf("state %s outlived the jump", c.ID)
		}
	}
}

// A network seeded before sandnet had the external-party contracts (here:
// one whose contracts were archived) gains them from the DSO automation,
// through the DSO's own commands; a pending bootstrap instruction is used,
// not duplicated.
func TestAutomationCreatesMissingExternalPartyContracts(t *testing.T) {
	t.Parallel()
	for _, pending := range []bool{false, true} {
		t.Run(map[bool]string{false: "fresh", true: "pending instruction"}[pending], func(t *testing.T) {
			t.Parallel()
			s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
			rules, err := splice.Active[splice.ExternalPartyAmuletRules](context.Background(), s.net.Store(), s.DSOParty)
			if err != nil || len(rules) != 1 {
				t.Fatal(len(rules), err)
			}
			dsoRules := s.dsoRules(t).ID
			_, err = s.asDSO(t, nil, func(tx *ledger.Tx) error {
				for _, cid := range []daml.ContractID{rules[0].ID, s.configStates(t)[0].ID, s.configStates(t)[1].ID} {
					if _, err := ledger.Exercise[daml.Unit](tx, cid, "Archive", daml.Unit{}); err != nil {
						return err
					}
				}
				if pending {
					_, err := ledger.Exercise[splice.DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult](tx, dsoRules,
						"DsoRules_CreateBootstrapExternalPartyConfigStateInstruction", splice.DsoRulesCreateBootstrapExternalPartyConfigStateInstruction{})
					return err
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := count[splice.ExternalPartyAmuletRules](t, s) + len(s.configStates(t)); n != 0 {
				t.Fatalf("%d contracts left", n)
			}
			s.settle(t)
			if n := count[splice.ExternalPartyAmuletRules](t, s); n != 1 {
				t.Errorf("%d ExternalPartyAmuletRules", n)
			}
			if n := count[splice.BootstrapExternalPartyConfigStateInstruction](t, s); n != 0 {
				t.Errorf("%d instructions left", n)
			}
			states := s.configStates(t)
			if len(states) != 2 || states[0].Payload.TargetArchiveAfter != s.now()+daml.Timestamp(day.Microseconds()) {
				t.Errorf("config states %+v", states)
			}
		})
	}
}
