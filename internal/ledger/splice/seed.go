package splice

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// SeedConfig shapes the network Seed builds. The zero value is sandnet's
// default network.
type SeedConfig struct {
	// SVs is the number of super validators (default 4).
	SVs int
	// Users are the wallet users of the default validator, each with a
	// party, a ledger API user and a wallet (default "alice" and "bob"),
	// when Validators is empty.
	Users []string
	// Validators are the network's validators, in order. Empty means one,
	// [DefaultValidatorName], with Users: the network sandnet has always
	// seeded. The first is the default validator, served at the root of
	// the main address. See [ValidatorConfig].
	Validators []ValidatorConfig
	// AnsAcronym is the name service's acronym: names end in
	// ".unverified.<acronym>" (default "cns", the Canton Name Service).
	AnsAcronym string
	// AmuletPrice is the price of one amulet in USD (default 0.005).
	AmuletPrice daml.Numeric
	// TickDuration is the round tick (default 10 minutes).
	TickDuration time.Duration
	// TapAmount is the amulet every wallet user and the validator operator
	// get from the DevNet faucet (default 2000).
	TapAmount daml.Numeric
	// NoAnsEntries skips registering "<user>.unverified.<acronym>" for
	// every user.
	NoAnsEntries bool
	// BaseURL is where the SVs' Scans and sequencers are published in their
	// node configuration (default http://127.0.0.1:7575): SV k's Scan is
	// <BaseURL>/sv-k, its sequencer <BaseURL>/sv-k/sequencer.
	BaseURL string
	// Preapprovals gives every user a transfer pre-approval that the
	// validator operator provides, valid for the free base duration (90
	// days) from seeding, as the validator's automation grants a user's
	// proposal. Off by default, as in Splice's LocalNet, where a user asks
	// for one through the wallet.
	Preapprovals bool
	// Genesis, when set and in the past, is the ledger time the seeding
	// transactions run at (ledger time returns to the clock afterwards), so
	// that a new network's history can start before the previous ACS
	// snapshot boundary.
	Genesis daml.Timestamp
	// Synchronizers are the aliases of synchronizers added beside the
	// global one once the network is seeded (as the admin API's POST
	// /synchronizers adds them).
	Synchronizers []string
	// ClockStart, when set, is the ledger time the network starts at: Seed
	// first moves the clock forward to it (ledger time never moves back,
	// so it must not be in the past). Genesis, when also set, should be
	// computed from it.
	ClockStart daml.Timestamp
}

func (c *SeedConfig) defaults() {
	if c.SVs <= 0 {
		c.SVs = 4
	}
	if c.Users == nil {
		c.Users = DefaultValidator().Users
	}
	if len(c.Validators) == 0 {
		c.Validators = []ValidatorConfig{{Name: DefaultValidatorName, Users: c.Users}}
	}
	for i := range c.Validators {
		v := &c.Validators[i]
		if v.OperatorUser == "" {
			v.OperatorUser = OperatorUser
		}
		if v.PartyHint == "" {
			v.PartyHint = v.Name
		}
	}
	if c.AnsAcronym == "" {
		c.AnsAcronym = "cns"
	}
	if c.AmuletPrice.IsZero() {
		c.AmuletPrice = num("0.005")
	}
	if c.TickDuration <= 0 {
		c.TickDuration = DefaultTickDuration
	}
	if c.TapAmount.IsZero() {
		c.TapAmount = num("2000.0")
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://127.0.0.1:7575"
	}
}

// Seeded describes a seeded network: its ids, parties and users. Seed
// stores it in the network's metadata, so a restarted sandnet gets it back.
type Seeded struct {
	Synchronizer ledger.SynchronizerID `json:"synchronizer"`
	DSOParty     daml.Party            `json:"dsoParty"`
	SVs          []SeededSV            `json:"svs"`
	// Validators are the network's validators, the default one first (see
	// ValidatorConfig). Set them with SetValidators.
	Validators   []SeededValidator `json:"validators"`
	AnsAcronym   string            `json:"ansAcronym"`
	TickDuration time.Duration     `json:"tickDuration"`
	// Validator is the default validator (Validators[0]) and Users its
	// wallet users with parties of their own, for the many callers that
	// know one validator; SetValidators and loading keep them in step
	// with Validators, which alone is stored.
	Validator SeededValidator `json:"-"`
	Users     []SeededUser    `json:"-"`
}

// SeededSV is a super validator: its node (participant) hosts its party and
// the DSO party.
type SeededSV struct {
	Name            string               `json:"name"`
	Party           daml.Party           `json:"party"`
	Participant     ledger.ParticipantID `json:"participant"`
	ParticipantName string               `json:"participantName"`
	// OperatorUser is the SV node's ledger API user (participant admin,
	// acting as the SV party, reading as the DSO).
	OperatorUser string       `json:"operatorUser"`
	RewardWeight int64        `json:"rewardWeight"`
	ScanURL      string       `json:"scanUrl"`
	Sequencer    BftSequencer `json:"sequencer"`
}

// BftSequencer is an SV's BFT sequencer as Scan's /v0/sv-bft-sequencers
// reports it. Splice reads it from the sequencer's admin API, which sandnet
// does not have: the SV publishes its sequencer in its SvNodeState (as
// Splice's SVs do), and BftSequencerOf derives the entry from that, so a
// Scan can serve it from what it ingests.
type BftSequencer struct {
	SerialID int64  `json:"serialId"`
	ID       string `json:"id"`
	P2PURL   string `json:"p2pUrl"`
}

// BftSequencerOf returns the BFT sequencer an SV's node state publishes for
// a synchronizer: its id, the synchronizer serial (sandnet's synchronizers
// are not upgraded in place, so 0) and the peer-to-peer endpoint, which
// sandnet places at the public sequencer URL plus "-p2p".
func BftSequencerOf(state SvNodeState, synchronizerID string) (BftSequencer, bool) {
	cfg, ok := state.State.SynchronizerNodes.Get(synchronizerID)
	if !ok || cfg.Sequencer == nil {
		return BftSequencer{}, false
	}
	return BftSequencer{SerialID: 0, ID: cfg.Sequencer.SequencerID, P2PURL: cfg.Sequencer.URL + "-p2p"}, true
}

// SeededValidator is a validator node: its operator party runs the
// users' wallets.
type SeededValidator struct {
	// Name names the validator (ValidatorConfig.Name).
	Name            string               `json:"name"`
	Participant     ledger.ParticipantID `json:"participant"`
	ParticipantName string               `json:"participantName"`
	Party           daml.Party           `json:"party"`
	// OperatorUser is the validator's ledger API user: participant admin,
	// reading as any party, acting as the operator party. It is also the
	// wallet user of the operator.
	OperatorUser string `json:"operatorUser"`
	// OperatorWalletUsers are further wallet users of the operator party
	// (ValidatorConfig.OperatorWalletUsers).
	OperatorWalletUsers []string `json:"operatorWalletUsers,omitempty"`
	// SV is k when the validator runs on SV k's node, 0 when it has a
	// participant of its own.
	SV int `json:"sv,omitempty"`
	// Users are its wallet users with parties of their own.
	Users []SeededUser `json:"users"`
}

// SeededUser is a wallet user of a validator.
type SeededUser struct {
	// Name is the ledger API user id and the wallet's end-user name.
	Name  string     `json:"name"`
	Party daml.Party `json:"party"`
	// AnsName is the user's registered name, if any.
	AnsName string `json:"ansName,omitempty"`
}

// AutomationConfig returns the configuration of the DSO automation, run
// by the founding SV's node.
func (s *Seeded) AutomationConfig() AutomationConfig {
	sv := s.SVs[0]
	return AutomationConfig{DSO: s.DSOParty, SV: sv.Party, Participant: sv.Participant, UserID: sv.OperatorUser}
}

// User returns the default validator's seeded wallet user with the given
// name.
func (s *Seeded) User(name string) (SeededUser, bool) {
	for _, u := range s.Users {
		if u.Name == name {
			return u, true
		}
	}
	return SeededUser{}, false
}

// GlobalSynchronizerAlias is the alias of the seeded network's global
// synchronizer.
const GlobalSynchronizerAlias = "global-domain"

// SeededMetaKey is the network setting holding the Seeded description.
const SeededMetaKey = "splice/seeded"

// OperatorUser is the ledger API user id of every node's operator, Canton's
// default administrator.
const OperatorUser = "participant_admin"

// svName names the k-th SV (from 1) as Splice's DevNet does.
func svName(k int) string {
	if k == 1 {
		return "Digital-Asset-2"
	}
	return fmt.Sprintf("Digital-Asset-Eng-%d", k)
}

// Seed builds a fresh network through the engine, every step a topology
// change or a transaction in the update log, as Splice's bootstrap would
// produce it:
//
//  1. the global synchronizer, a participant per SV and one for each
//     validator that does not run on an SV's node; the DSO party (its own
//     namespace) hosted on every SV participant; the SV, validator
//     operator and user parties; ledger API users;
//  2. the founding transaction: the first SV creates DsoBootstrap and
//     exercises DsoBootstrap_Bootstrap (AmuletRules, AnsRules, DsoRules,
//     the first three open rounds, the SV's node state with its sequencer);
//  3. every other SV joins: the DSO confirms its onboarding
//     (DsoRules_ConfirmSvOnboarding), the SV adds itself
//     (DsoRules_AddConfirmedSv) and publishes its nodes
//     (DsoRules_SetSynchronizerNodeConfig);
//  4. each validator, in order, is onboarded (DsoRules_OnboardValidator)
//     and installs a wallet (ValidatorRight, WalletAppInstall) for its
//     operator and each user, who tap the faucet;
//  5. each user of each validator registers "<user>.unverified.<acronym>" through the real
//     request, pay and collect flow;
//  6. the first SV requests a vote (to change the second SV's reward
//     weight), which stays open.
//
// Ids derive from the network seed and the order of these steps, so the
// same seed gives the same network. Seed on a store that was already
// seeded changes nothing and returns its description; on a store with
// other data it fails.
func Seed(ctx context.Context, net *ledger.Network, cfg SeedConfig) (*Seeded, error) {
	s := net.Store()
	if seeded, err := Load(ctx, s); err == nil || !fault.Is(err, fault.NotFound) {
		return seeded, err
	}
	head, err := s.Head(ctx)
	if err != nil {
		return nil, err
	}
	if head.Sequence > 0 {
		return nil, fault.New(fault.FailedPrecondition, "the ledger has transactions but was not seeded by sandnet; use an empty data directory")
	}
	cfg.defaults()
	if err := cfg.checkValidators(); err != nil {
		return nil, err
	}
	if cfg.ClockStart != 0 {
		now := net.Clock().Now()
		if cfg.ClockStart < now {
			return nil, fault.New(fault.InvalidArgument, "the clock start %s is in the past: ledger time only moves forward", cfg.ClockStart)
		}
		if _, err := net.AdvanceClock(ctx, time.Duration(cfg.ClockStart-now)*time.Microsecond); err != nil {
			return nil, err
		}
	}
	if cfg.Genesis != 0 {
		restore := net.Clock().Backdate(cfg.Genesis)
		defer restore()
	}
	sd := &seeder{ctx: ctx, net: net, cfg: cfg}
	if err := sd.run(); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	raw, err := json.Marshal(sd.out)
	if err != nil {
		return nil, err
	}
	if err := s.Write(ctx, func(w ledger.WriteTx) error { return w.SetMeta(ctx, SeededMetaKey, string(raw)) }); err != nil {
		return nil, err
	}
	return sd.out, nil
}

// Load returns the network description stored with the ledger (by Seed,
// a fork or AddSV): as it is now, whichever process last changed it. A
// ledger without one is a fault.NotFound.
func Load(ctx context.Context, s ledger.Store) (*Seeded, error) {
	raw, ok, err := s.Meta(ctx, SeededMetaKey)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fault.New(fault.NotFound, "the ledger holds no network description")
	}
	var seeded Seeded
	if err := json.Unmarshal([]byte(raw), &seeded); err != nil {
		return nil, fmt.Errorf("read seeded network: %w", err)
	}
	return &seeded, nil
}

type seeder struct {
	ctx context.Context
	net *ledger.Network
	cfg SeedConfig
	out *Seeded
	seq int
	// parties are the parties allocated for the validators' users and
	// ValidatorConfig.Parties, by validator name and hint, for the users'
	// further rights and the parties' taps.
	parties map[string]map[string]daml.Party
}

func (sd *seeder) run() error {
	ctx, net, cfg := sd.ctx, sd.net, sd.cfg
	sync, err := net.AddSynchronizer(ctx, GlobalSynchronizerAlias)
	if err != nil {
		return err
	}
	out := &Seeded{Synchronizer: sync.ID, AnsAcronym: cfg.AnsAcronym, TickDuration: cfg.TickDuration}
	sd.out = out

	// Topology: participants and parties.
	var dsoHosts []ledger.Hosting
	for k := 1; k <= cfg.SVs; k++ {
		p, err := net.AddParticipant(ctx, fmt.Sprintf("sv-%d", k))
		if err != nil {
			return err
		}
		out.SVs = append(out.SVs, SeededSV{
			Name: svName(k), Participant: p.ID, ParticipantName: p.Name, OperatorUser: OperatorUser, RewardWeight: 10_000,
		})
		dsoHosts = append(dsoHosts, ledger.Hosting{Participant: p.ID, Synchronizer: sync.ID, Permission: ledger.PermissionSubmission})
	}
	if out.DSOParty, err = net.AllocateParty(ctx, ledger.PartySpec{Hint: "DSO", Namespace: net.Fingerprint("namespace/DSO"), Hosts: dsoHosts}); err != nil {
		return err
	}
	for i := range out.SVs {
		sv := &out.SVs[i]
		host := ledger.Hosting{Participant: sv.Participant, Synchronizer: sync.ID, Permission: ledger.PermissionSubmission}
		if sv.Party, err = net.AllocateParty(ctx, ledger.PartySpec{Hint: sv.Name, Hosts: []ledger.Hosting{host}}); err != nil {
			return err
		}
		sv.ScanURL = fmt.Sprintf("%s/%s", cfg.BaseURL, sv.ParticipantName)
		sv.Sequencer, _ = BftSequencerOf(SvNodeState{State: NodeState{
			SynchronizerNodes: daml.Map[string, SynchronizerNodeConfig]{{Key: string(sync.ID), Value: sd.nodeConfig(*sv)}},
		}}, string(sync.ID))
		if err := net.PutUser(ctx, ledger.User{
			ID: OperatorUser, Participant: sv.Participant, PrimaryParty: sv.Party,
			Rights: svOperatorRights(sv.Party, out.DSOParty),
		}); err != nil {
			return err
		}
	}
	// The validators, in order; the default network's one comes out as it
	// always has (participant "validator", party hint "validator").
	for _, vc := range cfg.Validators {
		v, err := sd.addValidator(vc)
		if err != nil {
			return fmt.Errorf("add validator %s: %w", vc.Name, err)
		}
		out.Validators = append(out.Validators, v)
		if err := sd.addParties(vc, v); err != nil {
			return fmt.Errorf("validator %s: %w", vc.Name, err)
		}
	}
	out.SetValidators(out.Validators)

	if err := sd.found(); err != nil {
		return fmt.Errorf("found the DSO: %w", err)
	}
	for i := 1; i < len(out.SVs); i++ {
		if err := sd.join(i); err != nil {
			return fmt.Errorf("add SV %s: %w", out.SVs[i].Name, err)
		}
	}
	for _, v := range out.Validators {
		if err := sd.onboardValidator(v); err != nil {
			return fmt.Errorf("onboard %s: %w", v.describe(), err)
		}
	}
	if err := sd.registerNames(); err != nil {
		return fmt.Errorf("register names: %w", err)
	}
	if err := sd.requestVote(); err != nil {
		return fmt.Errorf("request a vote: %w", err)
	}
	for _, v := range out.Validators {
		if err := sd.preapprove(v); err != nil {
			return fmt.Errorf("pre-approve the users of %s: %w", v.describe(), err)
		}
	}
	for _, alias := range cfg.Synchronizers {
		if _, err := net.AddSynchronizer(ctx, alias); err != nil {
			return fmt.Errorf("add synchronizer %s: %w", alias, err)
		}
	}
	return nil
}

// preapprove gives every user of a validator a pre-approval from its
// operator: the user proposes it and the operator accepts it for the free
// base duration, the two steps of Splice's wallet and validator
// automation.
func (sd *seeder) preapprove(v SeededValidator) error {
	out := sd.out
	dso := out.DSOParty
	for _, u := range v.Users {
		if !sd.cfg.Preapprovals && !sd.userSeed(v.Name, u.Name).Preapproval {
			continue
		}
		t, err := sd.submitTx(v.Participant, u.Name, []daml.Party{u.Party}, nil, nil, func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, TransferPreapprovalProposal{Receiver: u.Party, Provider: v.Party, ExpectedDso: &dso})
			return err
		})
		if err != nil {
			return err
		}
		proposal := CreatedIn(t, TransferPreapprovalProposal{}.TemplateID())
		if len(proposal) != 1 {
			return fmt.Errorf("%s's proposal was not created", u.Name)
		}
		ac, err := LoadAmuletContext(sd.ctx, sd.net.Store(), dso, sd.net.Clock().Now())
		if err != nil {
			return err
		}
		if err := sd.submit(v.Participant, v.OperatorUser, []daml.Party{v.Party}, nil, ac.Disclosed(), func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[TransferPreapprovalProposalAcceptResult](tx, proposal[0], "TransferPreapprovalProposal_Accept", TransferPreapprovalProposalAccept{
				Context: ac.PaymentContext(), Inputs: []TransferInput{}, ExpiresAt: tx.Now() + daml.Timestamp(defaultTransferPreapprovalBaseDuration.Microseconds),
			})
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// submit runs a seeding command with a deterministic command id.
func (sd *seeder) submit(participant ledger.ParticipantID, user string, actAs, readAs []daml.Party, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) error {
	_, err := sd.submitTx(participant, user, actAs, readAs, disclosed, run)
	return err
}

func (sd *seeder) submitTx(participant ledger.ParticipantID, user string, actAs, readAs []daml.Party, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) (*ledger.Transaction, error) {
	sd.seq++
	return sd.net.Submit(sd.ctx, ledger.Command{
		Participant: participant, UserID: user, ActAs: actAs, ReadAs: readAs,
		CommandID: fmt.Sprintf("sandnet-seed-%d", sd.seq), WorkflowID: "sandnet-seed",
		Disclosed: disclosed, Run: run,
	})
}

// CreatedIn returns the ids of the contracts of template tid that a
// committed transaction created, in node order. Commands only see
// unsuffixed ids; the committed transaction has the suffixed ones.
func CreatedIn(t *ledger.Transaction, tid ledger.TemplateID) []daml.ContractID {
	var out []daml.ContractID
	for _, c := range t.Created() {
		if sameTemplate(c.Template, tid) {
			out = append(out, c.ID)
		}
	}
	return out
}

// nodeConfig is the node configuration an SV publishes: its sequencer,
// mediator and Scan, with ids derived from the network seed.
func (sd *seeder) nodeConfig(sv SeededSV) SynchronizerNodeConfig {
	return nodeConfig(sd.net, sd.cfg.BaseURL, sv)
}

func nodeConfig(net *ledger.Network, baseURL string, sv SeededSV) SynchronizerNodeConfig {
	now := net.Clock().Now()
	name := sv.ParticipantName
	return SynchronizerNodeConfig{
		CometBft: CometBftConfig{Nodes: daml.Map[string, CometBftNodeConfig]{}, GovernanceKeys: []GovernanceKeyConfig{}, SequencingKeys: []SequencingKeyConfig{}},
		Sequencer: &SequencerConfig{
			MigrationID: 0, SequencerID: "SEQ::" + name + "::" + net.Fingerprint("sequencer/"+name),
			URL: fmt.Sprintf("%s/%s/sequencer", baseURL, name), AvailableAfter: &now,
		},
		Mediator: &MediatorConfig{MediatorID: "MED::" + name + "::" + net.Fingerprint("mediator/"+name)},
		Scan:     &ScanConfig{PublicURL: sv.ScanURL},
	}
}

func (sd *seeder) found() error {
	out, cfg := sd.out, sd.cfg
	sv1 := out.SVs[0]
	syncID := string(out.Synchronizer)
	boot := DsoBootstrap{
		DSO: out.DSOParty, Sv1Party: sv1.Party, Sv1Name: sv1.Name, Sv1RewardWeight: sv1.RewardWeight,
		Sv1ParticipantID:     string(sv1.Participant),
		Sv1SynchronizerNodes: daml.Map[string, SynchronizerNodeConfig]{{Key: syncID, Value: sd.nodeConfig(sv1)}},
		Round0Duration:       Rel(cfg.TickDuration),
		AmuletConfig:         DefaultAmuletConfig(syncID, cfg.TickDuration),
		AmuletPrice:          cfg.AmuletPrice,
		AnsRulesConfig:       DefaultAnsRulesConfig(cfg.AnsAcronym),
		Config:               DefaultDsoRulesConfig(syncID),
		InitialTrafficState:  daml.Map[string, TrafficState]{},
		IsDevNet:             true,
	}
	return sd.submit(sv1.Participant, sv1.OperatorUser, []daml.Party{out.DSOParty}, nil, nil, func(tx *ledger.Tx) error {
		cid, err := ledger.Create(tx, boot)
		if err != nil {
			return err
		}
		_, err = ledger.Exercise[DsoBootstrapBootstrapResult](tx, cid, "DsoBootstrap_Bootstrap", DsoBootstrapBootstrap{})
		return err
	})
}

// join adds the i-th SV (from 0) the way a joining SV node does.
func (sd *seeder) join(i int) error {
	sv := sd.out.SVs[i]
	return joinSV(sd.ctx, sd.net, sd.out, sv, sd.nodeConfig(sv), "sandnet seed: "+sv.Name+" joins", sd.submit)
}

// submitFunc submits a command as a user of a participant.
type submitFunc func(participant ledger.ParticipantID, user string, actAs, readAs []daml.Party, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) error

// joinSV makes sv a member of the DSO the way a joining SV node does: the
// DSO confirms its onboarding (DsoRules_ConfirmSvOnboarding, through the
// first SV), the SV adds itself (DsoRules_AddConfirmedSv) and publishes
// its nodes (DsoRules_SetSynchronizerNodeConfig).
//
// Each step is skipped when the ledger shows it done, so a join that a
// crash interrupted completes when run again.
func joinSV(ctx context.Context, net *ledger.Network, out *Seeded, sv SeededSV, node SynchronizerNodeConfig, reason string, submit submitFunc) error {
	s := net.Store()
	sv1 := out.SVs[0]
	rules, err := only[DsoRules](ctx, s, out.DSOParty)
	if err != nil {
		return err
	}
	confirmed, err := Active[SvOnboardingConfirmed](ctx, s, sv.Party)
	if err != nil {
		return err
	}
	_, member := rules.Payload.Svs.Get(sv.Party)
	if !member && len(confirmed) == 0 {
		if err := submit(sv1.Participant, sv1.OperatorUser, []daml.Party{out.DSOParty}, nil, nil, func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[DsoRulesConfirmSvOnboardingResult](tx, rules.ID, "DsoRules_ConfirmSvOnboarding", DsoRulesConfirmSvOnboarding{
				NewSvParty: sv.Party, NewSvName: sv.Name, NewParticipantID: string(sv.Participant),
				NewSvRewardWeight: sv.RewardWeight, Reason: reason,
			})
			return err
		}); err != nil {
			return err
		}
		if confirmed, err = Active[SvOnboardingConfirmed](ctx, s, sv.Party); err != nil {
			return err
		}
	}
	if !member {
		if err := addConfirmedSV(ctx, net, out, sv, rules.ID, confirmed, submit); err != nil {
			return err
		}
	}
	return setNodeConfig(ctx, net, out, sv, node, submit)
}

// addConfirmedSV has the SV add itself to the DSO (DsoRules_AddConfirmedSv)
// with its onboarding confirmation.
func addConfirmedSV(ctx context.Context, net *ledger.Network, out *Seeded, sv SeededSV, rulesID daml.ContractID, confirmed []Contract[SvOnboardingConfirmed], submit submitFunc) error {
	s := net.Store()
	if len(confirmed) != 1 {
		return fmt.Errorf("find the onboarding confirmation: %d found", len(confirmed))
	}
	amuletRules, err := only[AmuletRules](ctx, s, out.DSOParty)
	if err != nil {
		return err
	}
	rounds, err := Active[OpenMiningRound](ctx, s, out.DSOParty)
	if err != nil {
		return err
	}
	slices.SortFunc(rounds, func(x, y Contract[OpenMiningRound]) int {
		return cmpInt(x.Payload.Round.Number, y.Payload.Round.Number)
	})
	if len(rounds) < 3 {
		return fmt.Errorf("expected three open rounds, found %d", len(rounds))
	}
	return submit(sv.Participant, sv.OperatorUser, []daml.Party{sv.Party}, []daml.Party{out.DSOParty}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[DsoRulesAddConfirmedSvResult](tx, rulesID, "DsoRules_AddConfirmedSv", DsoRulesAddConfirmedSv{
			Sv: sv.Party, SvOnboardingConfirmedCid: confirmed[0].ID,
			EarliestRoundCid: rounds[0].ID, MiddleRoundCid: rounds[1].ID, LatestRoundCid: rounds[2].ID,
			AmuletRulesCid: amuletRules.ID,
		})
		return err
	})
}

// setNodeConfig has the SV publish its nodes
// (DsoRules_SetSynchronizerNodeConfig), unless its node state already
// holds them.
func setNodeConfig(ctx context.Context, net *ledger.Network, out *Seeded, sv SeededSV, node SynchronizerNodeConfig, submit submitFunc) error {
	s := net.Store()
	rules, err := only[DsoRules](ctx, s, out.DSOParty)
	if err != nil {
		return err
	}
	var nodeState daml.ContractID
	states, err := Active[SvNodeState](ctx, s, out.DSOParty)
	if err != nil {
		return err
	}
	for _, st := range states {
		if st.Payload.Sv == sv.Party {
			nodeState = st.ID
			if _, ok := st.Payload.State.SynchronizerNodes.Get(string(out.Synchronizer)); ok {
				return nil
			}
		}
	}
	actAs, readAs := []daml.Party{sv.Party}, []daml.Party{out.DSOParty}
	return submit(sv.Participant, sv.OperatorUser, actAs, readAs, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[DsoRulesSetSynchronizerNodeConfigResult](tx, rules.ID, "DsoRules_SetSynchronizerNodeConfig", DsoRulesSetSynchronizerNodeConfig{
			Sv: sv.Party, SynchronizerID: string(out.Synchronizer), NewNodeConfig: node, NodeStateCid: nodeState,
		})
		return err
	})
}

// onboardValidator onboards a validator through the DsoRules
// (DsoRules_OnboardValidator, sponsored by the first SV) and installs the
// wallets of its operator, its operator's further wallet users and its
// users, who then tap (the operator's further wallet users share the
// operator's coin).
func (sd *seeder) onboardValidator(v SeededValidator) error {
	ctx, s, out := sd.ctx, sd.net.Store(), sd.out
	sv1 := out.SVs[0]
	rules, err := only[DsoRules](ctx, s, out.DSOParty)
	if err != nil {
		return err
	}
	version, contact := "sandnet", ""
	if err := sd.submit(sv1.Participant, sv1.OperatorUser, []daml.Party{sv1.Party}, []daml.Party{out.DSOParty}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[DsoRulesOnboardValidatorResult](tx, rules.ID, "DsoRules_OnboardValidator", DsoRulesOnboardValidator{
			Sponsor: sv1.Party, Validator: v.Party, Version: &version, ContactPoint: &contact,
		})
		return err
	}); err != nil {
		return err
	}

	// Wallets: the operator's own, then one per user, each with the
	// ValidatorRight Splice's validator creates on onboarding.
	wallets := append([]SeededUser{{Name: v.OperatorUser, Party: v.Party}}, v.Users...)
	for i, u := range wallets {
		if err := sd.submit(v.Participant, v.OperatorUser, slices.Compact([]daml.Party{v.Party, u.Party}), nil, nil, func(tx *ledger.Tx) error {
			return InstallWallet(tx, out.DSOParty, v.Party, u.Name, u.Party)
		}); err != nil {
			return err
		}
		if i > 0 {
			continue
		}
		// The operator's further wallet users: a WalletAppInstall each on
		// the operator's party, whose ValidatorRight exists already.
		for _, name := range v.OperatorWalletUsers {
			if err := sd.submit(v.Participant, v.OperatorUser, []daml.Party{v.Party}, nil, nil, func(tx *ledger.Tx) error {
				_, err := ledger.Create(tx, WalletAppInstall{DSOParty: out.DSOParty, ValidatorParty: v.Party, EndUserName: name, EndUserParty: v.Party})
				return err
			}); err != nil {
				return err
			}
		}
	}
	for _, u := range wallets {
		amount := sd.cfg.TapAmount
		if b := sd.userSeed(v.Name, u.Name).Balance; b != nil && u.Name != v.OperatorUser {
			amount = *b
		}
		if amount.IsZero() {
			continue
		}
		if err := sd.tap(v.Participant, u.Name, u.Party, amount); err != nil {
			return fmt.Errorf("tap for %s: %w", u.Name, err)
		}
	}
	return sd.tapParties(v)
}

// OnboardValidator runs Seed's validator steps on a network whose DSO
// already exists, such as a fork's, whose DSO was imported from another
// network: for every validator of seeded, the first SV sponsors it through
// the DsoRules (DsoRules_OnboardValidator), and the validator installs a
// wallet (ValidatorRight, WalletAppInstall) for its operator and each of
// its users, each of whom taps tapAmount (Seed's default when zero). The
// parties, participants and ledger API users seeded names must exist.
func OnboardValidator(ctx context.Context, net *ledger.Network, seeded *Seeded, tapAmount daml.Numeric) error {
	cfg := SeedConfig{TapAmount: tapAmount}
	cfg.defaults()
	sd := &seeder{ctx: ctx, net: net, cfg: cfg, out: seeded}
	for _, v := range seeded.Validators {
		if err := sd.onboardValidator(v); err != nil {
			return fmt.Errorf("%s: %w", v.describe(), err)
		}
	}
	return nil
}

// tap mints amount for party, submitted as user of a participant.
func (sd *seeder) tap(participant ledger.ParticipantID, user string, party daml.Party, amount daml.Numeric) error {
	ac, err := LoadAmuletContext(sd.ctx, sd.net.Store(), sd.out.DSOParty, sd.net.Clock().Now())
	if err != nil {
		return err
	}
	return sd.submit(participant, user, []daml.Party{party}, nil, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := Tap(tx, ac, party, amount)
		return err
	})
}

// registerNames runs the name-service flow for every name of every user
// of every validator: the request, the wallet's first payment, and the DSO
// collecting it.
func (sd *seeder) registerNames() error {
	ctx, s, out := sd.ctx, sd.net.Store(), sd.out
	count := 0
	for _, v := range out.Validators {
		for _, u := range v.Users {
			count += len(sd.userNames(v.Name, u.Name))
		}
	}
	if count == 0 {
		return nil
	}
	ansRules, err := only[AnsRules](ctx, s, out.DSOParty)
	if err != nil {
		return err
	}
	for _, v := range out.Validators {
		for i := range v.Users {
			u := &v.Users[i] // shares out.Validators' users
			for _, name := range sd.userNames(v.Name, u.Name) {
				if err := sd.registerName(v, ansRules, *u, name); err != nil {
					return fmt.Errorf("%s: %s for %s: %w", v.describe(), name, u.Name, err)
				}
				if u.AnsName == "" {
					u.AnsName = name
				}
			}
		}
	}
	out.SetValidators(out.Validators)
	// The DSO collects the payments, creating the entries.
	res, err := NewAutomation(sd.net, out.AutomationConfig()).RunOnce(ctx)
	if err != nil {
		return err
	}
	if res.Actions < count {
		return fmt.Errorf("the DSO collected %d of %d name payments", res.Actions, count)
	}
	return nil
}

// registerName requests a name for a user of a validator and pays its
// first subscription period from the user's amulets.
func (sd *seeder) registerName(v SeededValidator, ansRules Contract[AnsRules], u SeededUser, name string) error {
	ctx, s, out := sd.ctx, sd.net.Store(), sd.out
	url := "https://" + u.Name + ".example.com"
	description := "Seeded name of " + u.Name
	if err := ValidateAnsEntryRequest(out.AnsAcronym, name, url, description); err != nil {
		return err
	}
	t, err := sd.submitTx(v.Participant, u.Name, []daml.Party{u.Party}, nil, []*ledger.Contract{ansRules.Contract}, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[AnsRulesRequestEntryResult](tx, ansRules.ID, "AnsRules_RequestEntry", AnsRulesRequestEntry{
			Name: name, URL: url, Description: description, User: u.Party,
		})
		return err
	})
	if err != nil {
		return err
	}
	request := CreatedIn(t, SubscriptionRequest{}.TemplateID())[0]
	ac, err := LoadAmuletContext(ctx, s, out.DSOParty, sd.net.Clock().Now())
	if err != nil {
		return err
	}
	amulets, err := Holdings(ctx, s, u.Party)
	if err != nil {
		return err
	}
	inputs := make([]TransferInput, len(amulets))
	for i, a := range amulets {
		inputs[i] = InputAmulet(a.ID)
	}
	return sd.submit(v.Participant, v.OperatorUser, []daml.Party{u.Party, v.Party}, nil, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[SubscriptionRequestAcceptAndMakePaymentResult](tx, request, "SubscriptionRequest_AcceptAndMakePayment", SubscriptionRequestAcceptAndMakePayment{
			Inputs: inputs, Context: ac.PaymentContext(), WalletProvider: v.Party,
		})
		return err
	})
}

func (sd *seeder) requestVote() error {
	ctx, out := sd.ctx, sd.out
	sv1 := out.SVs[0]
	target := sv1
	if len(out.SVs) > 1 {
		target = out.SVs[1]
	}
	rules, err := only[DsoRules](ctx, sd.net.Store(), out.DSOParty)
	if err != nil {
		return err
	}
	return sd.submit(sv1.Participant, sv1.OperatorUser, []daml.Party{sv1.Party}, []daml.Party{out.DSOParty}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[DsoRulesRequestVoteResult](tx, rules.ID, "DsoRules_RequestVote", DsoRulesRequestVote{
			Requester: sv1.Party,
			Action:    ActionUpdateSvRewardWeight(target.Party, 2*target.RewardWeight),
			Reason: Reason{
				URL:  "https://sandnet.example/votes/1",
				Body: "Seeded example vote: double the reward weight of " + target.Name + ".",
			},
		})
		return err
	})
}
