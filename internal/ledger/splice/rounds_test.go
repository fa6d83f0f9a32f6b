package splice_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

func openRounds(t testing.TB, s seeded) []splice.OpenMiningRound {
	t.Helper()
	cs, err := splice.Active[splice.OpenMiningRound](context.Background(), s.net.Store(), s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]splice.OpenMiningRound, len(cs))
	for i, c := range cs {
		out[i] = c.Payload
	}
	slices.SortFunc(out, func(a, b splice.OpenMiningRound) int { return int(a.Round.Number - b.Round.Number) })
	return out
}

func roundNumbers(rs []splice.OpenMiningRound) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.Round.Number
	}
	return out
}

func count[T ledger.Template](t testing.TB, s seeded) int {
	t.Helper()
	cs, err := splice.Active[T](context.Background(), s.net.Store(), s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

// checkCurrent checks the shape Splice keeps the open rounds in: three
// consecutive rounds opening a tick apart, each open for two ticks, the
// middle one opened no later than now.
func checkCurrent(t *testing.T, s seeded, rs []splice.OpenMiningRound) {
	t.Helper()
	tick := daml.Timestamp(s.TickDuration.Microseconds())
	if len(rs) != 3 {
		t.Fatalf("%d open rounds", len(rs))
	}
	now := s.now()
	for i, r := range rs {
		if i > 0 && (r.Round.Number != rs[i-1].Round.Number+1 || r.OpensAt != rs[i-1].OpensAt+tick) {
			t.Errorf("rounds %v are not a tick apart", roundNumbers(rs))
		}
		if i > 0 && r.TargetClosesAt != r.OpensAt+2*tick {
			t.Errorf("round %d closes at %s, opens at %s", r.Round.Number, r.TargetClosesAt, r.OpensAt)
		}
	}
	if rs[1].OpensAt > now || rs[2].OpensAt <= now-tick || rs[0].TargetClosesAt < now {
		t.Errorf("rounds are not current at %s: %+v", now, rs)
	}
}

func TestRoundsAdvanceWithTheClock(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	if got := roundNumbers(openRounds(t, s)); !slices.Equal(got, []int64{0, 1, 2}) {
		t.Fatalf("open rounds after seeding: %v", got)
	}
	if res := s.runAutomation(t); res.Actions != 0 || res.Next != s.now()+daml.Timestamp(s.TickDuration.Microseconds()) {
		t.Fatalf("nothing is due before a tick passes, next at the tick: %+v", res)
	}

	// Each tick: the oldest open round starts summarizing, a new one opens;
	// then the summarizing round starts issuing, and three ticks later it
	// closes and is archived.
	for tick := 1; tick <= 6; tick++ {
		s.advance(t, s.TickDuration)
		if res := s.runAutomation(t); res.Transactions != 1 {
			t.Fatalf("tick %d: %+v", tick, res)
		}
		s.runAutomation(t) // start issuing what was summarized
		rs := openRounds(t, s)
		if want := []int64{int64(tick), int64(tick) + 1, int64(tick) + 2}; !slices.Equal(roundNumbers(rs), want) {
			t.Fatalf("tick %d: open rounds %v, want %v", tick, roundNumbers(rs), want)
		}
		checkCurrent(t, s, rs)
		if n := count[splice.SummarizingMiningRound](t, s); n != 0 {
			t.Errorf("tick %d: %d summarizing rounds left", tick, n)
		}
		if n := count[splice.IssuingMiningRound](t, s); n < 1 || n > 4 {
			t.Errorf("tick %d: %d issuing rounds", tick, n)
		}
	}
	if n := count[splice.ClosedMiningRound](t, s); n > 1 {
		t.Errorf("%d closed rounds are kept", n)
	}
}

func TestRoundsCatchUpAfterAClockJump(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{})
	before, _ := s.net.Store().Head(ctx)
	s.advance(t, 30*24*time.Hour)

	passes, txs := 0, 0
	for {
		res := s.runAutomation(t)
		if res.Actions == 0 {
			break
		}
		passes++
		txs += res.Transactions
		if passes > 5 {
			t.Fatal("the DSO does not settle after a jump")
		}
	}
	after, _ := s.net.Store().Head(ctx)
	t.Logf("caught up with 30 days in %d transactions", after.Sequence-before.Sequence)
	if txs > 3 || after.Sequence-before.Sequence != int64(txs) {
		t.Errorf("catching up took %d transactions", after.Sequence-before.Sequence)
	}
	rs := openRounds(t, s)
	if got := roundNumbers(rs); !slices.Equal(got, []int64{3, 4, 5}) {
		t.Errorf("open rounds %v: numbers should simply continue", got)
	}
	checkCurrent(t, s, rs)
	// The 90-day name entries are still valid, a further 70 days expire them.
	if n := count[splice.AnsEntry](t, s); n != 2 {
		t.Errorf("%d name entries", n)
	}
	s.advance(t, 70*24*time.Hour)
	s.runAutomation(t)
	s.runAutomation(t)
	if n := count[splice.AnsEntry](t, s); n != 0 {
		t.Errorf("%d name entries survived their expiry", n)
	}
	if n := count[splice.SubscriptionIdleState](t, s); n != 0 {
		t.Errorf("%d subscriptions survived their missed payment", n)
	}
	checkCurrent(t, s, openRounds(t, s))
	// Transfers work in the current round.
	alice := s.user(t, "alice").Party
	ac := s.amuletContext(t)
	if _, err := s.submit(t, []daml.Party{alice}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := splice.TransferAmulet(tx, ac, alice, alice, ids(s.holdings(t, alice)), splice.Pay(alice, num("1.0")))
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func TestAdvanceRoundsPreconditions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	st := s.net.Store()
	rules, _ := splice.Active[splice.AmuletRules](ctx, st, s.DSOParty)
	dsoRules, _ := splice.Active[splice.DsoRules](ctx, st, s.DSOParty)
	rounds, _ := splice.Active[splice.OpenMiningRound](ctx, st, s.DSOParty)
	slices.SortFunc(rounds, func(a, b splice.Contract[splice.OpenMiningRound]) int {
		return int(a.Payload.Round.Number - b.Payload.Round.Number)
	})
	votes, _ := splice.Active[splice.AmuletPriceVote](ctx, st, s.DSOParty)
	sv1 := s.SVs[0]
	advance := func(actAs daml.Party, sv *daml.Party, order ...int) error {
		_, err := s.net.Submit(ctx, ledger.Command{
			Participant: sv1.Participant, ActAs: []daml.Party{actAs}, ReadAs: []daml.Party{s.DSOParty},
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.DsoRulesAdvanceOpenMiningRoundsResult](tx, dsoRules[0].ID, "DsoRules_AdvanceOpenMiningRounds",
					splice.DsoRulesAdvanceOpenMiningRounds{
						AmuletRulesCid: rules[0].ID, RoundToArchiveCid: rounds[order[0]].ID,
						MiddleRoundCid: rounds[order[1]].ID, LatestRoundCid: rounds[order[2]].ID, Sv: sv,
						AmuletPriceVoteCids: ids(votes),
					})
				return err
			},
		})
		return err
	}
	sv1Party, dso := sv1.Party, s.DSOParty
	// Too early: the oldest round has not reached its target close.
	wantKind(t, advance(sv1Party, &sv1Party, 0, 1, 2), fault.DamlPrecondition)
	s.advance(t, s.TickDuration)
	for _, tc := range []struct {
		name  string
		actAs daml.Party
		sv    *daml.Party
		order []int
		want  fault.Kind
	}{
		{"no SV", dso, nil, []int{0, 1, 2}, fault.DamlPrecondition},
		{"the DSO is not an SV", dso, &dso, []int{0, 1, 2}, fault.DamlPrecondition},
		{"out of order", sv1Party, &sv1Party, []int{1, 0, 2}, fault.DamlPrecondition},
		{"latest twice", sv1Party, &sv1Party, []int{0, 2, 2}, fault.DamlPrecondition},
		{"another SV's name", sv1Party, &s.SVs[1].Party, []int{0, 1, 2}, fault.InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) { wantKind(t, advance(tc.actAs, tc.sv, tc.order...), tc.want) })
	}
}

// The service advances rounds by itself when the clock moves, without
// polling.
func TestAutomationServiceFollowsTheClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	auto := splice.NewAutomation(s.net, s.AutomationConfig())
	if err := auto.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer auto.Stop()
	if err := auto.Start(ctx); !fault.Is(err, fault.FailedPrecondition) {
		t.Errorf("starting twice: %v", err)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !cond() {
			select {
			case <-s.net.Committed():
			case <-time.After(50 * time.Millisecond):
			case <-deadline:
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	for tick := int64(1); tick <= 3; tick++ {
		s.advance(t, s.TickDuration)
		waitFor("the rounds to advance", func() bool {
			rs := openRounds(t, s)
			return len(rs) == 3 && rs[0].Round.Number == tick && count[splice.SummarizingMiningRound](t, s) == 0
		})
	}
	s.advance(t, 10*24*time.Hour)
	waitFor("the rounds to catch up", func() bool {
		rs := openRounds(t, s)
		return len(rs) == 3 && rs[0].Round.Number == 6 && count[splice.SummarizingMiningRound](t, s) == 0
	})
	checkCurrent(t, s, openRounds(t, s))
	auto.Stop()
	auto.Stop() // idempotent
}
