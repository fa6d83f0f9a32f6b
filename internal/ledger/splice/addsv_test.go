package splice_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// TestAddSV adds a third SV to a two-SV network: it is a member of the
// DSO with its node published, its participant hosts the DSO party, and
// the stored description has it. An AddSV that a crash interrupted after
// the DSO confirmed the onboarding completes when run again.
func TestAddSV(t *testing.T) {
	t.Parallel()
	for _, interrupted := range []bool{false, true} {
		name := "fresh"
		if interrupted {
			name = "after a crash past the confirmation"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := seedNetwork(t, splice.SeedConfig{SVs: 2})
			if interrupted {
				// What AddSV had done before the crash: the participant,
				// the party, the DSO hosting and the DSO's confirmation.
				p, err := s.net.AddParticipant(ctx, "sv-3")
				if err != nil {
					t.Fatal(err)
				}
				party, err := s.net.AllocateParty(ctx, ledger.PartySpec{Hint: "Digital-Asset-Eng-3",
					Hosts: []ledger.Hosting{{Participant: p.ID, Synchronizer: s.Synchronizer, Permission: ledger.PermissionSubmission}}})
				if err != nil {
					t.Fatal(err)
				}
				rules, err := splice.Active[splice.DsoRules](ctx, s.net.Store(), s.DSOParty)
				if err != nil || len(rules) != 1 {
					t.Fatalf("DsoRules: %v (%d)", err, len(rules))
				}
				sv1 := s.SVs[0]
				if _, err := s.net.Submit(ctx, ledger.Command{
					Participant: sv1.Participant, UserID: sv1.OperatorUser, ActAs: []daml.Party{s.DSOParty}, CommandID: "confirm",
					Run: func(tx *ledger.Tx) error {
						_, err := ledger.Exercise[splice.DsoRulesConfirmSvOnboardingResult](tx, rules[0].ID, "DsoRules_ConfirmSvOnboarding",
							splice.DsoRulesConfirmSvOnboarding{NewSvParty: party, NewSvName: "Digital-Asset-Eng-3",
								NewParticipantID: string(p.ID), NewSvRewardWeight: 10_000, Reason: "before the crash"})
						return err
					},
				}); err != nil {
					t.Fatal(err)
				}
			}
			next, sv, err := splice.AddSV(ctx, s.net, s.Seeded)
			if err != nil {
				t.Fatalf("AddSV: %v", err)
			}
			if len(next.SVs) != 3 || next.SVs[2] != sv || len(s.SVs) != 2 {
				t.Fatalf("AddSV: %d SVs, the new one %+v; the original description has %d", len(next.SVs), sv, len(s.SVs))
			}
			rules, err := splice.Active[splice.DsoRules](ctx, s.net.Store(), s.DSOParty)
			if err != nil || len(rules) != 1 {
				t.Fatalf("DsoRules: %v (%d)", err, len(rules))
			}
			if _, ok := rules[0].Payload.Svs.Get(sv.Party); !ok || len(rules[0].Payload.Svs) != 3 {
				t.Errorf("the DSO's SVs are %d, the new one among them: %v", len(rules[0].Payload.Svs), ok)
			}
			states, err := splice.Active[splice.SvNodeState](ctx, s.net.Store(), s.DSOParty)
			if err != nil {
				t.Fatal(err)
			}
			published := slices.ContainsFunc(states, func(c splice.Contract[splice.SvNodeState]) bool {
				_, ok := c.Payload.State.SynchronizerNodes.Get(string(s.Synchronizer))
				return c.Payload.Sv == sv.Party && ok
			})
			if !published || sv.Sequencer.ID == "" {
				t.Errorf("the new SV's nodes are not published (sequencer %q)", sv.Sequencer.ID)
			}
			hosted := slices.ContainsFunc(s.net.HostingsOf(s.DSOParty), func(h ledger.Hosting) bool { return h.Participant == sv.Participant })
			if !hosted {
				t.Errorf("the DSO party is not hosted on %s", sv.Participant)
			}
			again, err := splice.Seed(ctx, s.net, splice.SeedConfig{})
			if err != nil || len(again.SVs) != 3 || again.SVs[2].Party != sv.Party {
				t.Errorf("the stored description: %v, %+v", err, again)
			}
		})
	}
}
