package splice

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// AddSV adds a super validator to a running network as a joining SV node
// does: a participant of its own (sv-<k>) hosting its new SV party and, from
// now on, the DSO party (a topology transaction in that participant's
// stream); then the DSO confirms its onboarding, the SV adds itself with
// DsoRules_AddConfirmedSv and publishes its nodes. Its participant sees
// the DSO party's updates from its hosting on, so its Scan's history
// starts at the joining transaction and the rest is backfilled from the
// other SVs' Scans.
//
// It returns the network description with the new SV last, and stores it
// in the network's metadata (a restart serves the new SV too). s itself
// is not changed: other goroutines may be reading it.
func AddSV(ctx context.Context, net *ledger.Network, s *Seeded) (*Seeded, SeededSV, error) {
	if len(s.SVs) == 0 {
		return nil, SeededSV{}, fault.New(fault.FailedPrecondition, "the network has no SV to confirm a new one")
	}
	out := *s
	out.SVs = append([]SeededSV(nil), s.SVs...)
	k := len(out.SVs) + 1
	p, err := net.AddParticipant(ctx, fmt.Sprintf("sv-%d", k))
	if err != nil {
		return nil, SeededSV{}, err
	}
	sv := SeededSV{Name: svName(k), Participant: p.ID, ParticipantName: p.Name, OperatorUser: OperatorUser, RewardWeight: 10_000}
	sv1 := out.SVs[0]
	base := strings.TrimSuffix(sv1.ScanURL, "/"+sv1.ParticipantName)
	sv.ScanURL = base + "/" + sv.ParticipantName
	host := ledger.Hosting{Participant: p.ID, Synchronizer: out.Synchronizer, Permission: ledger.PermissionSubmission}
	if sv.Party, err = net.AllocateParty(ctx, ledger.PartySpec{Hint: sv.Name, Hosts: []ledger.Hosting{host}}); err != nil {
		return nil, SeededSV{}, err
	}
	if err := net.PutUser(ctx, ledger.User{
		ID: OperatorUser, Participant: p.ID, PrimaryParty: sv.Party,
		Rights: []ledger.Right{
			{Kind: ledger.ParticipantAdmin}, {Kind: ledger.CanReadAsAnyParty},
			{Kind: ledger.CanActAs, Party: sv.Party}, {Kind: ledger.CanReadAs, Party: out.DSOParty},
		},
	}); err != nil {
		return nil, SeededSV{}, err
	}
	if _, err := net.ChangeHosting(ctx, out.DSOParty, p.ID, ledger.PermissionSubmission); err != nil {
		return nil, SeededSV{}, fmt.Errorf("host the DSO party on %s: %w", p.Name, err)
	}
	node := nodeConfig(net, base, sv)
	sv.Sequencer, _ = BftSequencerOf(SvNodeState{State: NodeState{
		SynchronizerNodes: daml.Map[string, SynchronizerNodeConfig]{{Key: string(out.Synchronizer), Value: node}},
	}}, string(out.Synchronizer))
	submit := func(participant ledger.ParticipantID, user string, actAs, readAs []daml.Party, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) error {
		_, err := net.Submit(ctx, ledger.Command{
			Participant: participant, UserID: user, ActAs: actAs, ReadAs: readAs,
			CommandID: CommandID("sandnet-add-sv"), WorkflowID: "sandnet-add-sv", Disclosed: disclosed, Run: run,
		})
		return err
	}
	// The DSO's automation exercises DsoRules too: a step may lose the
	// race for it (a contention loss, or the rules it read archived before
	// it ran). joinSV reads again and skips what is done, so run it again,
	// as a client retries a contended command.
	for attempt := 1; ; attempt++ {
		err := joinSV(ctx, net, &out, sv, node, "sandnet: "+sv.Name+" joins", submit)
		if err == nil {
			break
		}
		if attempt == 5 || !contended(err) {
			return nil, SeededSV{}, fmt.Errorf("add SV %s: %w", sv.Name, err)
		}
	}
	out.SVs = append(out.SVs, sv)
	raw, err := json.Marshal(&out)
	if err != nil {
		return nil, SeededSV{}, err
	}
	if err := net.Store().Write(ctx, func(w ledger.WriteTx) error { return w.SetMeta(ctx, SeededMetaKey, string(raw)) }); err != nil {
		return nil, SeededSV{}, err
	}
	return &out, sv, nil
}

// contended reports whether a command lost a race for a contract another
// command consumed: worth running again on what the ledger holds now.
func contended(err error) bool {
	f, ok := fault.As(err)
	return ok && (f.Kind == fault.Aborted || f.Code == "CONTRACT_NOT_FOUND")
}
