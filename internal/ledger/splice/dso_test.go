package splice_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

func (s seeded) dsoRules(t testing.TB) splice.Contract[splice.DsoRules] {
	t.Helper()
	cs, err := splice.Active[splice.DsoRules](context.Background(), s.net.Store(), s.DSOParty)
	if err != nil || len(cs) != 1 {
		t.Fatalf("DsoRules: %d, %v", len(cs), err)
	}
	return cs[0]
}

// asSV submits a command from an SV's node, acting as the given parties and
// reading as the DSO.
func (s seeded) asSV(t testing.TB, sv splice.SeededSV, actAs daml.Party, run func(tx *ledger.Tx) error) (*ledger.Transaction, error) {
	t.Helper()
	return s.net.Submit(context.Background(), ledger.Command{
		Participant: sv.Participant, UserID: sv.OperatorUser, ActAs: []daml.Party{actAs}, ReadAs: []daml.Party{s.DSOParty}, Run: run,
	})
}

func TestRequestVote(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	sv2 := s.SVs[1]
	week := splice.Rel(7 * 24 * time.Hour)
	zero := splice.RelTime{}
	for _, tc := range []struct {
		name      string
		requester daml.Party
		reason    splice.Reason
		timeout   *splice.RelTime
		want      fault.Kind
	}{
		{name: "by an SV", requester: sv2.Party, reason: splice.Reason{URL: "https://x", Body: "why not"}, timeout: &week},
		{name: "by the DSO itself", requester: s.DSOParty, reason: splice.Reason{Body: "b"}, want: fault.DamlPrecondition},
		{name: "reason too long", requester: sv2.Party, reason: splice.Reason{Body: strings.Repeat("x", 1025)}, want: fault.DamlPrecondition},
		{name: "no time to vote", requester: sv2.Party, reason: splice.Reason{Body: "b"}, timeout: &zero, want: fault.DamlPrecondition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := s.dsoRules(t)
			tx, err := s.asSV(t, sv2, tc.requester, func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.DsoRulesRequestVoteResult](tx, rules.ID, "DsoRules_RequestVote", splice.DsoRulesRequestVote{
					Requester: tc.requester, Action: splice.ActionUpdateSvRewardWeight(sv2.Party, 1), Reason: tc.reason,
					VoteRequestTimeout: tc.timeout,
				})
				return err
			})
			if tc.want != 0 {
				wantKind(t, err, tc.want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := tx.Created()[0]
			req, err := splice.Decode[splice.VoteRequest](c)
			if err != nil {
				t.Fatal(err)
			}
			vote, ok := req.Payload.Votes.Get(sv2.Name)
			if req.Payload.Requester != sv2.Name || !ok || !vote.Accept || len(req.Payload.Votes) != 1 ||
				req.Payload.VoteBefore != s.now()+daml.Timestamp(week.Microseconds) {
				t.Errorf("vote request %+v", req.Payload)
			}
			if a := req.Payload.Action.ARCDsoRules; a == nil || a.DsoAction.SRARCUpdateSvRewardWeight == nil ||
				a.DsoAction.SRARCUpdateSvRewardWeight.SvParty != sv2.Party {
				t.Errorf("action %+v", req.Payload.Action)
			}
		})
	}
}

func TestCastVote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	sv3 := s.SVs[2]
	requests, err := splice.Active[splice.VoteRequest](ctx, s.net.Store(), s.DSOParty)
	if err != nil || len(requests) != 1 {
		t.Fatalf("seeded vote requests: %d, %v", len(requests), err)
	}
	request := requests[0].ID
	cast := func(accept bool) (daml.ContractID, error) {
		rules := s.dsoRules(t)
		tx, err := s.asSV(t, sv3, sv3.Party, func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.DsoRulesCastVoteResult](tx, rules.ID, "DsoRules_CastVote", splice.DsoRulesCastVote{
				RequestCid: request, Vote: splice.Vote{Sv: sv3.Party, Accept: accept, Reason: splice.Reason{Body: "ok"}},
			})
			return err
		})
		if err != nil {
			return "", err
		}
		return tx.Created()[0].ID, nil
	}
	first := request
	var err2 error
	if request, err2 = cast(false); err2 != nil {
		t.Fatal(err2)
	}
	_, err = cast(true)
	wantKind(t, err, fault.DamlPrecondition) // the cooldown
	s.advance(t, 2*time.Minute)
	if request, err = cast(true); err != nil {
		t.Fatal(err)
	}
	c, _, _ := s.net.Store().Contract(ctx, request)
	req, _ := splice.Decode[splice.VoteRequest](c)
	vote, _ := req.Payload.Votes.Get(sv3.Name)
	if len(req.Payload.Votes) != 2 || !vote.Accept || req.Payload.TrackingCid == nil || *req.Payload.TrackingCid != first {
		t.Errorf("vote request after votes: %+v", req.Payload)
	}
}

// A fifth SV joins an existing network, as an SV node does.
func TestAddConfirmedSv(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	p, err := s.net.AddParticipant(ctx, "sv-5")
	if err != nil {
		t.Fatal(err)
	}
	host := ledger.Hosting{Participant: p.ID, Synchronizer: s.Synchronizer, Permission: ledger.PermissionSubmission}
	if _, err := s.net.AllocateParty(ctx, ledger.PartySpec{Hint: "DSO", Namespace: strings.TrimPrefix(string(s.DSOParty), "DSO::"), Hosts: []ledger.Hosting{host}}); err != nil {
		t.Fatal(err)
	}
	party, err := s.net.AllocateParty(ctx, ledger.PartySpec{Hint: "Newcomer", Hosts: []ledger.Hosting{host}})
	if err != nil {
		t.Fatal(err)
	}
	sv5 := splice.SeededSV{Name: "Newcomer", Party: party, Participant: p.ID, OperatorUser: splice.OperatorUser}
	sv1 := s.SVs[0]

	confirm := func() daml.ContractID {
		rules := s.dsoRules(t)
		tx, err := s.asSV(t, sv1, s.DSOParty, func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.DsoRulesConfirmSvOnboardingResult](tx, rules.ID, "DsoRules_ConfirmSvOnboarding", splice.DsoRulesConfirmSvOnboarding{
				NewSvParty: party, NewSvName: sv5.Name, NewParticipantID: string(p.ID), NewSvRewardWeight: 5, Reason: "welcome",
			})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return tx.Created()[0].ID
	}
	join := func(as splice.SeededSV, sv daml.Party, confirmation daml.ContractID) error {
		rules := s.dsoRules(t)
		ac := s.amuletContext(t)
		rounds := openRounds(t, s)
		var cids []daml.ContractID
		all, _ := splice.Active[splice.OpenMiningRound](ctx, s.net.Store(), s.DSOParty)
		for _, r := range rounds {
			for _, c := range all {
				if c.Payload.Round == r.Round {
					cids = append(cids, c.ID)
				}
			}
		}
		_, err := s.asSV(t, as, as.Party, func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.DsoRulesAddConfirmedSvResult](tx, rules.ID, "DsoRules_AddConfirmedSv", splice.DsoRulesAddConfirmedSv{
				Sv: sv, SvOnboardingConfirmedCid: confirmation, EarliestRoundCid: cids[0], MiddleRoundCid: cids[1],
				LatestRoundCid: cids[2], AmuletRulesCid: ac.AmuletRules.ID,
			})
			return err
		})
		return err
	}

	// A confirmation only works for its party, and only until it expires.
	stolen := confirm()
	wantKind(t, join(s.SVs[3], s.SVs[3].Party, stolen), fault.DamlPrecondition)
	s.advance(t, 2*time.Hour)
	wantKind(t, join(sv5, party, stolen), fault.DamlPrecondition)
	// Joining requires a confirmation, ...
	wantKind(t, join(sv5, party, daml.ContractID("00"+strings.Repeat("ab", 32)+"ca111220"+strings.Repeat("cd", 32))), fault.NotFound)

	// ... and with a fresh one the SV joins.
	if err := join(sv5, party, confirm()); err != nil {
		t.Fatal(err)
	}
	rules := s.dsoRules(t).Payload
	info, ok := rules.Svs.Get(party)
	if len(rules.Svs) != 5 || !ok || info.Name != "Newcomer" || info.SvRewardWeight != 5 || info.JoinedAsOfRound != openRounds(t, s)[0].Round {
		t.Errorf("DsoRules after joining: %d SVs, %+v", len(rules.Svs), info)
	}
	if rules.RequiredNumVotes() != 4 {
		t.Errorf("5 SVs need %d votes", rules.RequiredNumVotes())
	}
	// The new SV's per-SV contracts exist and the automation still runs.
	votes, _ := splice.Active[splice.AmuletPriceVote](ctx, s.net.Store(), s.DSOParty)
	if !slices.ContainsFunc(votes, func(v splice.Contract[splice.AmuletPriceVote]) bool { return v.Payload.Sv == party }) {
		t.Error("no price vote for the new SV")
	}
	s.advance(t, s.TickDuration)
	if res := s.runAutomation(t); res.Transactions != 1 {
		t.Errorf("automation after joining: %+v", res)
	}
}

func TestRequiredNumVotes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 4, 6: 4, 7: 5, 10: 7} {
		var d splice.DsoRules
		for i := range n {
			d.Svs = append(d.Svs, daml.MapEntry[daml.Party, splice.SvInfo]{Key: daml.Party(fmt.Sprint(i))})
		}
		if got := d.RequiredNumVotes(); got != want {
			t.Errorf("%d SVs: %d votes, want %d", n, got, want)
		}
	}
}
