package fork

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// SourceMetaKey is the network setting that records, next to
// splice.SeededMetaKey, which snapshot a forked network was built from.
const SourceMetaKey = "fork/source"

// Origin is what SourceMetaKey holds.
type Origin struct {
	// Seed is the fork's network seed (see NetworkSeed).
	Seed       string         `json:"seed"`
	URL        string         `json:"url"`
	DSO        daml.Party     `json:"dso"`
	Migration  int64          `json:"migration"`
	RecordTime daml.Timestamp `json:"recordTime"`
	Contracts  int            `json:"contracts"`
}

// Config shapes the local part of a fork. The zero value is Seed's
// defaults.
type Config struct {
	// Users are the local validator's wallet users (default "alice" and
	// "bob"), each with a party, a ledger API user, a wallet and a tap.
	Users []string
	// TapAmount is what each wallet taps (Seed's default when zero).
	TapAmount daml.Numeric
	// BaseURL is where the SVs' Scans are published, as in
	// splice.SeedConfig (default http://127.0.0.1:7575).
	BaseURL string
	// ImportChunk is how many contracts each import transaction holds
	// (ledger.DefaultImportChunk when 0).
	ImportChunk int
}

func (c *Config) defaults() {
	if c.Users == nil {
		c.Users = []string{"alice", "bob"}
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://127.0.0.1:7575"
	}
}

// Build makes a new network on an empty ledger from a source's snapshot
// and its decoded contracts, and stores its description under
// splice.SeededMetaKey (and the origin under SourceMetaKey), so that the
// rest of sandnet runs it as it runs a seeded network:
//
//   - the source's synchronizer, with its id (the contracts name it);
//   - a participant per source SV (sv-1, sv-2, …; the answering SV first,
//     then by name) hosting the SV's party and the DSO party, both with
//     the source's ids, and the SV's operator user;
//   - a validator participant hosting every other stakeholder of the
//     contracts, with its own id, so that a user can take it over;
//   - the contracts, imported with their ids, payloads and parties
//     (ledger.Network.Import);
//   - a local validator operator and users (alice, bob), new parties of
//     the validator participant (whose id derives from the fork's own
//     seed, so they are not the source's), onboarded through the imported
//     DsoRules with wallets and a tap, as splice.Seed does.
//
// net must run with a seed of its own, such as NetworkSeed's, so that its
// contract ids never meet the imported ones. Ledger time is the local
// clock. A snapshot later than it (a source
// whose clock was advanced) moves the local clock past the snapshot, so
// that no imported contract is created in the local future.
func Build(ctx context.Context, net *ledger.Network, src *Source, contracts []*ledger.Contract, cfg Config) (*splice.Seeded, error) {
	cfg.defaults()
	s := net.Store()
	if _, ok, err := s.Meta(ctx, splice.SeededMetaKey); err != nil {
		return nil, err
	} else if ok {
		return nil, fault.New(fault.FailedPrecondition, "the ledger already holds a network; fork into an empty data directory or schema")
	}
	if head, err := s.Head(ctx); err != nil {
		return nil, err
	} else if head.Sequence > 0 {
		return nil, fault.New(fault.FailedPrecondition, "the ledger has transactions; fork into an empty data directory or schema")
	}
	st, err := survey(src, contracts)
	if err != nil {
		return nil, err
	}
	if now := net.Clock().Now(); now <= src.RecordTime {
		if _, err := net.AdvanceClock(ctx, time.Duration(src.RecordTime-now+1)*time.Microsecond+time.Second); err != nil {
			return nil, err
		}
	}
	if _, err := net.AddSynchronizerID(ctx, st.synchronizer); err != nil {
		return nil, err
	}
	out := &splice.Seeded{
		Synchronizer: st.synchronizer, DSOParty: src.DSO, AnsAcronym: st.ansAcronym, TickDuration: st.tick,
	}
	host := func(p ledger.ParticipantID) ledger.Hosting {
		return ledger.Hosting{Participant: p, Synchronizer: st.synchronizer, Permission: ledger.PermissionSubmission}
	}
	var dsoHosts []ledger.Hosting
	for k, sv := range st.svs {
		p, err := net.AddParticipant(ctx, fmt.Sprintf("sv-%d", k+1))
		if err != nil {
			return nil, err
		}
		seq, _ := splice.BftSequencerOf(st.nodeStates[sv.Key], string(st.synchronizer))
		out.SVs = append(out.SVs, splice.SeededSV{
			Name: sv.Value.Name, Party: sv.Key, Participant: p.ID, ParticipantName: p.Name,
			OperatorUser: splice.OperatorUser, RewardWeight: sv.Value.SvRewardWeight,
			ScanURL: cfg.BaseURL + "/" + p.Name, Sequencer: seq,
		})
		dsoHosts = append(dsoHosts, host(p.ID))
	}
	if err := allocate(ctx, net, src.DSO, dsoHosts...); err != nil {
		return nil, err
	}
	for _, sv := range out.SVs {
		if err := allocate(ctx, net, sv.Party, host(sv.Participant)); err != nil {
			return nil, err
		}
		if err := net.PutUser(ctx, ledger.User{
			ID: sv.OperatorUser, Participant: sv.Participant, PrimaryParty: sv.Party,
			Rights: []ledger.Right{
				{Kind: ledger.ParticipantAdmin}, {Kind: ledger.CanReadAsAnyParty},
				{Kind: ledger.CanActAs, Party: sv.Party}, {Kind: ledger.CanReadAs, Party: src.DSO},
			},
		}); err != nil {
			return nil, err
		}
	}

	vp, err := net.AddParticipant(ctx, splice.DefaultValidatorName)
	if err != nil {
		return nil, err
	}
	vhost := host(vp.ID)
	v := splice.SeededValidator{Name: splice.DefaultValidatorName, Participant: vp.ID, ParticipantName: vp.Name, OperatorUser: splice.OperatorUser, Users: []splice.SeededUser{}}
	if v.Party, err = net.AllocateParty(ctx, ledger.PartySpec{Hint: splice.DefaultValidatorName, Hosts: []ledger.Hosting{vhost}}); err != nil {
		return nil, err
	}
	if err := net.PutUser(ctx, ledger.User{
		ID: splice.OperatorUser, Participant: vp.ID, PrimaryParty: v.Party,
		Rights: []ledger.Right{
			{Kind: ledger.ParticipantAdmin}, {Kind: ledger.CanReadAsAnyParty},
			{Kind: ledger.CanActAs, Party: v.Party},
		},
	}); err != nil {
		return nil, err
	}
	for _, name := range cfg.Users {
		party, err := net.AllocateParty(ctx, ledger.PartySpec{Hint: name, Hosts: []ledger.Hosting{vhost}})
		if err != nil {
			return nil, err
		}
		if err := net.PutUser(ctx, ledger.User{
			ID: name, Participant: vp.ID, PrimaryParty: party,
			Rights: []ledger.Right{{Kind: ledger.CanActAs, Party: party}, {Kind: ledger.CanReadAs, Party: party}},
		}); err != nil {
			return nil, err
		}
		v.Users = append(v.Users, splice.SeededUser{Name: name, Party: party})
	}
	out.SetValidators([]splice.SeededValidator{v})
	// Every other stakeholder: the source's validators and users, hosted
	// on the local validator under their own ids.
	for _, p := range st.others(out) {
		if err := allocate(ctx, net, p, vhost); err != nil {
			return nil, err
		}
	}

	if _, err := net.Import(ctx, contracts, cfg.ImportChunk); err != nil {
		return nil, fmt.Errorf("import the snapshot: %w", err)
	}
	if err := splice.OnboardValidator(ctx, net, out, cfg.TapAmount); err != nil {
		return nil, fmt.Errorf("onboard the local validator: %w", err)
	}

	seeded, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	origin, err := json.Marshal(Origin{Seed: net.Seed(), URL: src.URL, DSO: src.DSO, Migration: src.Migration, RecordTime: src.RecordTime, Contracts: len(contracts)})
	if err != nil {
		return nil, err
	}
	if err := s.Write(ctx, func(w ledger.WriteTx) error {
		if err := w.SetMeta(ctx, SourceMetaKey, string(origin)); err != nil {
			return err
		}
		return w.SetMeta(ctx, splice.SeededMetaKey, string(seeded))
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// StoredOrigin returns the origin a forked network's ledger records, and
// false for a ledger that was not forked (or is empty).
func StoredOrigin(ctx context.Context, s ledger.Store) (*Origin, bool, error) {
	raw, ok, err := s.Meta(ctx, SourceMetaKey)
	if err != nil || !ok {
		return nil, false, err
	}
	var o Origin
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return nil, false, fault.Wrap(fault.Internal, err, "read the fork's origin")
	}
	return &o, true, nil
}

// allocate hosts an existing party id (the source's) on participants: its
// hint and namespace are the id's.
func allocate(ctx context.Context, net *ledger.Network, party daml.Party, hosts ...ledger.Hosting) error {
	hint, ns, ok := strings.Cut(string(party), "::")
	if !ok || !ledger.ValidPartyID(string(party)) {
		return fault.New(fault.FailedPrecondition, "the source names an invalid party %q", party)
	}
	got, err := net.AllocateParty(ctx, ledger.PartySpec{Hint: hint, Namespace: ns, Hosts: hosts})
	if err != nil {
		return fmt.Errorf("allocate party %s: %w", party, err)
	}
	if got != party {
		return fault.New(fault.Internal, "allocated %s for the source's party %s", got, party)
	}
	return nil
}

// snapshotSurvey is what Build reads from the snapshot's contracts before
// it creates anything.
type snapshotSurvey struct {
	synchronizer ledger.SynchronizerID
	// svs are the DsoRules' SVs in the fork's order.
	svs        []daml.MapEntry[daml.Party, splice.SvInfo]
	nodeStates map[daml.Party]splice.SvNodeState
	ansAcronym string
	tick       time.Duration
	// stakeholders are every party of the contracts.
	stakeholders []daml.Party
}

// survey reads the DsoRules (exactly one), the SVs' node states, the
// name service's acronym and the round tick from the snapshot.
func survey(src *Source, contracts []*ledger.Contract) (*snapshotSurvey, error) {
	st := &snapshotSurvey{nodeStates: map[daml.Party]splice.SvNodeState{}, ansAcronym: "cns", tick: splice.DefaultTickDuration}
	var rules []splice.DsoRules
	for _, c := range contracts {
		st.stakeholders = append(st.stakeholders, c.Signatories...)
		st.stakeholders = append(st.stakeholders, c.Observers...)
		switch c.Template.Identifier {
		case splice.DsoRules{}.TemplateID().Identifier:
			var r splice.DsoRules
			if err := daml.ToGo(c.Argument, &r); err != nil {
				return nil, fault.Wrap(fault.FailedPrecondition, err, "decode the DsoRules %s", c.ID)
			}
			rules = append(rules, r)
		case splice.SvNodeState{}.TemplateID().Identifier:
			var s splice.SvNodeState
			if err := daml.ToGo(c.Argument, &s); err != nil {
				return nil, fault.Wrap(fault.FailedPrecondition, err, "decode the SvNodeState %s", c.ID)
			}
			st.nodeStates[s.Sv] = s
		case splice.AnsRules{}.TemplateID().Identifier:
			var a splice.AnsRules
			if err := daml.ToGo(c.Argument, &a); err == nil {
				if acr := strings.ToLower(strings.TrimSuffix(a.Config.DescriptionPrefix, " entry: ")); acr != "" && !strings.ContainsAny(acr, " :") {
					st.ansAcronym = acr
				}
			}
		case splice.OpenMiningRound{}.TemplateID().Identifier:
			var r splice.OpenMiningRound
			if err := daml.ToGo(c.Argument, &r); err == nil && r.TickDuration.Microseconds > 0 {
				st.tick = time.Duration(r.TickDuration.Microseconds) * time.Microsecond
			}
		}
	}
	slices.Sort(st.stakeholders)
	st.stakeholders = slices.Compact(st.stakeholders)
	if len(rules) != 1 {
		return nil, fault.New(fault.FailedPrecondition, "the source's snapshot has %d DsoRules contracts; a fork needs exactly one", len(rules))
	}
	r := rules[0]
	if r.DSO != src.DSO {
		return nil, fault.New(fault.FailedPrecondition, "the snapshot's DsoRules belong to %s, not to the DSO party %s", r.DSO, src.DSO)
	}
	if len(r.Svs) == 0 {
		return nil, fault.New(fault.FailedPrecondition, "the snapshot's DsoRules have no SV")
	}
	st.synchronizer = ledger.SynchronizerID(r.Config.DecentralizedSynchronizer.ActiveSynchronizerID)
	if st.synchronizer == "" {
		return nil, fault.New(fault.FailedPrecondition, "the snapshot's DsoRules name no active synchronizer")
	}
	// The answering SV first: it runs the fork's DSO automation and its
	// Scan is the one at /api/scan, as the source's was.
	st.svs = slices.Clone(r.Svs)
	slices.SortStableFunc(st.svs, func(a, b daml.MapEntry[daml.Party, splice.SvInfo]) int {
		if (a.Key == src.SV) != (b.Key == src.SV) {
			if a.Key == src.SV {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Value.Name, b.Value.Name), cmp.Compare(a.Key, b.Key))
	})
	return st, nil
}

// others returns the stakeholders Build hosts on the validator: all but
// the DSO, the SVs and the fork's own parties.
func (st *snapshotSurvey) others(out *splice.Seeded) []daml.Party {
	mine := map[daml.Party]bool{out.DSOParty: true, out.Validator.Party: true}
	for _, sv := range out.SVs {
		mine[sv.Party] = true
	}
	for _, u := range out.Users {
		mine[u.Party] = true
	}
	var rest []daml.Party
	for _, p := range st.stakeholders {
		if !mine[p] {
			rest = append(rest, p)
		}
	}
	return rest
}
