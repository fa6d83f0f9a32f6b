package splice

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// splice-dso-governance: the DSO's rules, its SVs' per-node state and
// on-ledger voting.

// SvInfo is Splice.DsoRules:SvInfo.
type SvInfo struct {
	Name            string `daml:"name"`
	JoinedAsOfRound Round  `daml:"joinedAsOfRound"`
	SvRewardWeight  int64  `daml:"svRewardWeight"`
	ParticipantID   string `daml:"participantId"`
}

// DamlIdentifier implements daml.Identified.
func (SvInfo) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "SvInfo")
}

// OffboardedSvInfo is Splice.DsoRules:OffboardedSvInfo.
type OffboardedSvInfo struct {
	Name          string `daml:"name"`
	ParticipantID string `daml:"participantId"`
}

// DamlIdentifier implements daml.Identified.
func (OffboardedSvInfo) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "OffboardedSvInfo")
}

// DsoRules is Splice.DsoRules:DsoRules, the DSO's membership and
// configuration. It is replaced whenever an SV joins or leaves.
type DsoRules struct {
	DSO                 daml.Party                             `daml:"dso"`
	Epoch               int64                                  `daml:"epoch"`
	Svs                 daml.Map[daml.Party, SvInfo]           `daml:"svs"`
	OffboardedSvs       daml.Map[daml.Party, OffboardedSvInfo] `daml:"offboardedSvs"`
	DsoDelegate         daml.Party                             `daml:"dsoDelegate"`
	Config              DsoRulesConfig                         `daml:"config"`
	InitialTrafficState daml.Map[string, TrafficState]         `daml:"initialTrafficState"`
	IsDevNet            bool                                   `daml:"isDevNet"`
}

// TemplateID implements ledger.Template.
func (DsoRules) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleDsoRules, "DsoRules")
}

// DamlIdentifier implements daml.Identified.
func (d DsoRules) DamlIdentifier() daml.Identifier { return d.TemplateID().Identifier }

// Signatories implements ledger.Template. The SVs are not signatories:
// they act for the DSO party, which their participants host.
func (d DsoRules) Signatories() []daml.Party { return []daml.Party{d.DSO} }

// Observers implements ledger.Template.
func (DsoRules) Observers() []daml.Party { return nil }

// Ensure is DsoRules' ensure clause.
func (d DsoRules) Ensure() error {
	if d.Config.NumUnclaimedRewardsThreshold <= 0 {
		return errorf("numUnclaimedRewardsThreshold must be positive")
	}
	return nil
}

func (d DsoRules) dsoParty() daml.Party { return d.DSO }

// RequiredNumVotes is Splice's summarizeDso threshold: with n SVs and
// f = ⌊(n−1)/3⌋ faulty ones, ⌈(n+f+1)/2⌉ votes decide.
func (d DsoRules) RequiredNumVotes() int {
	n := len(d.Svs)
	f := (n - 1) / 3
	return (n + f + 2) / 2
}

func (d DsoRules) hasSvNamed(name string) bool {
	for _, e := range d.Svs {
		if e.Value.Name == name {
			return true
		}
	}
	for _, e := range d.OffboardedSvs {
		if e.Value.Name == name {
			return true
		}
	}
	return false
}

// SvOnboardingConfirmed is Splice.SvOnboarding:SvOnboardingConfirmed: the
// DSO agreed that a party may join as an SV.
type SvOnboardingConfirmed struct {
	SvParty         daml.Party     `daml:"svParty"`
	SvName          string         `daml:"svName"`
	SvRewardWeight  int64          `daml:"svRewardWeight"`
	SvParticipantID string         `daml:"svParticipantId"`
	Reason          string         `daml:"reason"`
	DSO             daml.Party     `daml:"dso"`
	ExpiresAt       daml.Timestamp `daml:"expiresAt"`
}

// TemplateID implements ledger.Template.
func (SvOnboardingConfirmed) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleSvOnboarding, "SvOnboardingConfirmed")
}

// DamlIdentifier implements daml.Identified.
func (s SvOnboardingConfirmed) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s SvOnboardingConfirmed) Signatories() []daml.Party { return []daml.Party{s.DSO} }

// Observers implements ledger.Template.
func (s SvOnboardingConfirmed) Observers() []daml.Party { return []daml.Party{s.SvParty} }

func (s SvOnboardingConfirmed) dsoParty() daml.Party { return s.DSO }

// RewardState is Splice.DSO.SvState:RewardState.
type RewardState struct {
	NumRoundsMissed    int64 `daml:"numRoundsMissed"`
	NumRoundsCollected int64 `daml:"numRoundsCollected"`
	LastRoundCollected Round `daml:"lastRoundCollected"`
	NumCouponsIssued   int64 `daml:"numCouponsIssued"`
}

// DamlIdentifier implements daml.Identified.
func (RewardState) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleSvState, "RewardState")
}

// SvRewardState is Splice.DSO.SvState:SvRewardState.
type SvRewardState struct {
	DSO    daml.Party  `daml:"dso"`
	SvName string      `daml:"svName"`
	State  RewardState `daml:"state"`
}

// TemplateID implements ledger.Template.
func (SvRewardState) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleSvState, "SvRewardState")
}

// DamlIdentifier implements daml.Identified.
func (s SvRewardState) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s SvRewardState) Signatories() []daml.Party { return []daml.Party{s.DSO} }

// Observers implements ledger.Template.
func (SvRewardState) Observers() []daml.Party { return nil }

// NodeState is Splice.DSO.SvState:NodeState.
type NodeState struct {
	SynchronizerNodes daml.Map[string, SynchronizerNodeConfig] `daml:"synchronizerNodes"`
}

// DamlIdentifier implements daml.Identified.
func (NodeState) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleSvState, "NodeState")
}

// SvNodeState is Splice.DSO.SvState:SvNodeState: the nodes an SV runs for
// each synchronizer, among them its sequencer, which is where sandnet's
// BFT sequencer entries live.
type SvNodeState struct {
	DSO    daml.Party `daml:"dso"`
	Sv     daml.Party `daml:"sv"`
	SvName string     `daml:"svName"`
	State  NodeState  `daml:"state"`
}

// TemplateID implements ledger.Template.
func (SvNodeState) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleSvState, "SvNodeState")
}

// DamlIdentifier implements daml.Identified.
func (s SvNodeState) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s SvNodeState) Signatories() []daml.Party { return []daml.Party{s.DSO} }

// Observers implements ledger.Template.
func (SvNodeState) Observers() []daml.Party { return nil }

func (s SvNodeState) dsoParty() daml.Party { return s.DSO }

// SvStatus is Splice.DSO.SvState:SvStatus.
type SvStatus struct {
	CreatedAt                   daml.Timestamp `daml:"createdAt"`
	CometBftHeight              int64          `daml:"cometBftHeight"`
	MediatorSynchronizerTime    daml.Timestamp `daml:"mediatorSynchronizerTime"`
	ParticipantSynchronizerTime daml.Timestamp `daml:"participantSynchronizerTime"`
	LatestOpenRound             Round          `daml:"latestOpenRound"`
}

// DamlIdentifier implements daml.Identified.
func (SvStatus) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleSvState, "SvStatus")
}

// SvStatusReport is Splice.DSO.SvState:SvStatusReport.
type SvStatusReport struct {
	DSO    daml.Party `daml:"dso"`
	Sv     daml.Party `daml:"sv"`
	SvName string     `daml:"svName"`
	Number int64      `daml:"number"`
	Status *SvStatus  `daml:"status"`
}

// TemplateID implements ledger.Template.
func (SvStatusReport) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleSvState, "SvStatusReport")
}

// DamlIdentifier implements daml.Identified.
func (s SvStatusReport) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s SvStatusReport) Signatories() []daml.Party { return []daml.Party{s.DSO} }

// Observers implements ledger.Template.
func (SvStatusReport) Observers() []daml.Party { return nil }

// AmuletPriceVote is Splice.DSO.AmuletPrice:AmuletPriceVote; new rounds
// open at the median of the SVs' votes.
type AmuletPriceVote struct {
	DSO           daml.Party     `daml:"dso"`
	Sv            daml.Party     `daml:"sv"`
	AmuletPrice   *daml.Numeric  `daml:"amuletPrice"`
	LastUpdatedAt daml.Timestamp `daml:"lastUpdatedAt"`
}

// TemplateID implements ledger.Template.
func (AmuletPriceVote) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleAmuletPrice, "AmuletPriceVote")
}

// DamlIdentifier implements daml.Identified.
func (v AmuletPriceVote) DamlIdentifier() daml.Identifier { return v.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (v AmuletPriceVote) Signatories() []daml.Party { return []daml.Party{v.DSO} }

// Observers implements ledger.Template.
func (AmuletPriceVote) Observers() []daml.Party { return nil }

// Ensure rejects non-positive prices.
func (v AmuletPriceVote) Ensure() error {
	if v.AmuletPrice != nil && v.AmuletPrice.Sign() <= 0 {
		return errorf("amulet price must be positive")
	}
	return nil
}

func (v AmuletPriceVote) dsoParty() daml.Party { return v.DSO }

// FaucetState is Splice.ValidatorLicense:FaucetState.
type FaucetState struct {
	FirstReceivedFor Round `daml:"firstReceivedFor"`
	LastReceivedFor  Round `daml:"lastReceivedFor"`
	NumCouponsMissed int64 `daml:"numCouponsMissed"`
}

// DamlIdentifier implements daml.Identified.
func (FaucetState) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleValidatorLic, "FaucetState")
}

// ValidatorLicenseMetadata is Splice.ValidatorLicense:ValidatorLicenseMetadata.
type ValidatorLicenseMetadata struct {
	LastUpdatedAt daml.Timestamp `daml:"lastUpdatedAt"`
	Version       string         `daml:"version"`
	ContactPoint  string         `daml:"contactPoint"`
}

// DamlIdentifier implements daml.Identified.
func (ValidatorLicenseMetadata) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleValidatorLic, "ValidatorLicenseMetadata")
}

// ValidatorLicense is Splice.ValidatorLicense:ValidatorLicense: what makes
// a validator an onboarded one.
type ValidatorLicense struct {
	Validator    daml.Party                `daml:"validator"`
	Sponsor      daml.Party                `daml:"sponsor"`
	DSO          daml.Party                `daml:"dso"`
	FaucetState  *FaucetState              `daml:"faucetState"`
	Metadata     *ValidatorLicenseMetadata `daml:"metadata"`
	LastActiveAt *daml.Timestamp           `daml:"lastActiveAt"`
}

// TemplateID implements ledger.Template.
func (ValidatorLicense) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleValidatorLic, "ValidatorLicense")
}

// DamlIdentifier implements daml.Identified.
func (v ValidatorLicense) DamlIdentifier() daml.Identifier { return v.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (v ValidatorLicense) Signatories() []daml.Party { return []daml.Party{v.DSO} }

// Observers implements ledger.Template.
func (v ValidatorLicense) Observers() []daml.Party { return []daml.Party{v.Validator} }

// Voting
// ======

// Reason is Splice.DsoRules:Reason, the justification of a vote request or
// a vote.
type Reason struct {
	URL  string `daml:"url"`
	Body string `daml:"body"`
}

// DamlIdentifier implements daml.Identified.
func (Reason) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "Reason")
}

// Vote is Splice.DsoRules:Vote.
type Vote struct {
	Sv        daml.Party      `daml:"sv"`
	Accept    bool            `daml:"accept"`
	Reason    Reason          `daml:"reason"`
	OptCastAt *daml.Timestamp `daml:"optCastAt"`
}

// DamlIdentifier implements daml.Identified.
func (Vote) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "Vote")
}

// VoteRequest is Splice.DsoRules:VoteRequest. The action is Splice's
// ActionRequiringConfirmation variant, kept as a value: sandnet does not
// execute votes, but serves them as they are (see ActionUpdateSvRewardWeight).
type VoteRequest struct {
	DSO               daml.Party             `daml:"dso"`
	Requester         string                 `daml:"requester"`
	Action            daml.Value             `daml:"action"`
	Reason            Reason                 `daml:"reason"`
	VoteBefore        daml.Timestamp         `daml:"voteBefore"`
	Votes             daml.Map[string, Vote] `daml:"votes"`
	TrackingCid       *daml.ContractID       `daml:"trackingCid"`
	TargetEffectiveAt *daml.Timestamp        `daml:"targetEffectiveAt"`
}

// TemplateID implements ledger.Template.
func (VoteRequest) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleDsoRules, "VoteRequest")
}

// DamlIdentifier implements daml.Identified.
func (v VoteRequest) DamlIdentifier() daml.Identifier { return v.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (v VoteRequest) Signatories() []daml.Party { return []daml.Party{v.DSO} }

// Observers implements ledger.Template.
func (VoteRequest) Observers() []daml.Party { return nil }

// Ensure requires the vote to close before the action takes effect.
func (v VoteRequest) Ensure() error {
	if v.TargetEffectiveAt != nil && *v.TargetEffectiveAt < v.VoteBefore {
		return errorf("voteBefore must not be after targetEffectiveAt")
	}
	return nil
}

func (v VoteRequest) dsoParty() daml.Party { return v.DSO }

// ActionUpdateSvRewardWeight builds the ActionRequiringConfirmation value
// ARC_DsoRules{dsoAction = SRARC_UpdateSvRewardWeight{svParty, newRewardWeight}},
// the vote Splice's SV UI proposes to change an SV's reward weight.
func ActionUpdateSvRewardWeight(sv daml.Party, weight int64) daml.Value {
	id := func(entity string) *daml.Identifier {
		i := PackageDsoGovernance.Identifier(moduleDsoRules, entity)
		return &i
	}
	return &daml.Variant{
		ID: id("ActionRequiringConfirmation"), Constructor: "ARC_DsoRules",
		Value: &daml.Record{ID: id("ActionRequiringConfirmation.ARC_DsoRules"), Fields: []daml.Field{{
			Label: "dsoAction",
			Value: &daml.Variant{
				ID: id("DsoRules_ActionRequiringConfirmation"), Constructor: "SRARC_UpdateSvRewardWeight",
				Value: &daml.Record{ID: id("DsoRules_UpdateSvRewardWeight"), Fields: []daml.Field{
					{Label: "svParty", Value: sv},
					{Label: "newRewardWeight", Value: daml.Int64(weight)},
				}},
			},
		}}},
	}
}

// Choice arguments and results
// ============================

// DsoRulesAddSv is the argument of DsoRules_AddSv.
type DsoRulesAddSv struct {
	NewSvParty         daml.Party `daml:"newSvParty"`
	NewSvName          string     `daml:"newSvName"`
	NewSvRewardWeight  int64      `daml:"newSvRewardWeight"`
	NewSvParticipantID string     `daml:"newSvParticipantId"`
	JoinedAsOfRound    Round      `daml:"joinedAsOfRound"`
}

// NewDsoRulesResult is the result of the choices that replace DsoRules.
type NewDsoRulesResult struct {
	NewDsoRules daml.ContractID `daml:"newDsoRules"`
}

// DsoRulesConfirmSvOnboarding is the argument of DsoRules_ConfirmSvOnboarding.
type DsoRulesConfirmSvOnboarding struct {
	NewSvParty        daml.Party `daml:"newSvParty"`
	NewSvName         string     `daml:"newSvName"`
	NewParticipantID  string     `daml:"newParticipantId"`
	NewSvRewardWeight int64      `daml:"newSvRewardWeight"`
	Reason            string     `daml:"reason"`
}

// DsoRulesConfirmSvOnboardingResult is the choice's result.
type DsoRulesConfirmSvOnboardingResult struct {
	OnboardingConfirmed daml.ContractID `daml:"onboardingConfirmed"`
}

// DsoRulesAddConfirmedSv is the argument of DsoRules_AddConfirmedSv, by
// which a confirmed SV adds itself.
type DsoRulesAddConfirmedSv struct {
	Sv                       daml.Party      `daml:"sv"`
	SvOnboardingConfirmedCid daml.ContractID `daml:"svOnboardingConfirmedCid"`
	EarliestRoundCid         daml.ContractID `daml:"earliestRoundCid"`
	MiddleRoundCid           daml.ContractID `daml:"middleRoundCid"`
	LatestRoundCid           daml.ContractID `daml:"latestRoundCid"`
	AmuletRulesCid           daml.ContractID `daml:"amuletRulesCid"`
}

// DsoRulesSetSynchronizerNodeConfig is the argument of
// DsoRules_SetSynchronizerNodeConfig.
type DsoRulesSetSynchronizerNodeConfig struct {
	Sv             daml.Party             `daml:"sv"`
	SynchronizerID string                 `daml:"synchronizerId"`
	NewNodeConfig  SynchronizerNodeConfig `daml:"newNodeConfig"`
	NodeStateCid   daml.ContractID        `daml:"nodeStateCid"`
}

// DsoRulesSetSynchronizerNodeConfigResult is the choice's result.
type DsoRulesSetSynchronizerNodeConfigResult struct {
	SvNodeState daml.ContractID `daml:"svNodeState"`
}

// DsoRulesOnboardValidator is the argument of DsoRules_OnboardValidator.
type DsoRulesOnboardValidator struct {
	Sponsor      daml.Party `daml:"sponsor"`
	Validator    daml.Party `daml:"validator"`
	Version      *string    `daml:"version"`
	ContactPoint *string    `daml:"contactPoint"`
}

// DsoRulesOnboardValidatorResult is the choice's result.
type DsoRulesOnboardValidatorResult struct {
	ValidatorLicense daml.ContractID `daml:"validatorLicense"`
}

// DsoRulesRequestVote is the argument of DsoRules_RequestVote.
type DsoRulesRequestVote struct {
	Requester          daml.Party      `daml:"requester"`
	Action             daml.Value      `daml:"action"`
	Reason             Reason          `daml:"reason"`
	VoteRequestTimeout *RelTime        `daml:"voteRequestTimeout"`
	TargetEffectiveAt  *daml.Timestamp `daml:"targetEffectiveAt"`
}

// VoteRequestResult is the result of DsoRules_RequestVote and
// DsoRules_CastVote.
type VoteRequestResult struct {
	VoteRequest daml.ContractID `daml:"voteRequest"`
}

// DsoRulesCastVote is the argument of DsoRules_CastVote.
type DsoRulesCastVote struct {
	RequestCid daml.ContractID `daml:"requestCid"`
	Vote       Vote            `daml:"vote"`
}

// DsoRulesAdvanceOpenMiningRounds is the argument of
// DsoRules_AdvanceOpenMiningRounds.
type DsoRulesAdvanceOpenMiningRounds struct {
	AmuletRulesCid      daml.ContractID   `daml:"amuletRulesCid"`
	RoundToArchiveCid   daml.ContractID   `daml:"roundToArchiveCid"`
	MiddleRoundCid      daml.ContractID   `daml:"middleRoundCid"`
	LatestRoundCid      daml.ContractID   `daml:"latestRoundCid"`
	AmuletPriceVoteCids []daml.ContractID `daml:"amuletPriceVoteCids"`
	Sv                  *daml.Party       `daml:"sv"`
}

// DsoRulesAdvanceOpenMiningRoundsResult is the choice's result.
type DsoRulesAdvanceOpenMiningRoundsResult struct {
	SummarizingRound daml.ContractID `daml:"summarizingRound"`
	OpenRound        daml.ContractID `daml:"openRound"`
}

// DsoRulesMiningRoundClose is the argument of DsoRules_MiningRound_Close.
type DsoRulesMiningRoundClose struct {
	AmuletRulesCid  daml.ContractID `daml:"amuletRulesCid"`
	IssuingRoundCid daml.ContractID `daml:"issuingRoundCid"`
	Sv              *daml.Party     `daml:"sv"`
}

// DsoRulesMiningRoundCloseResult is the choice's result.
type DsoRulesMiningRoundCloseResult struct {
	ClosedRound daml.ContractID `daml:"closedRound"`
}

// DsoRulesExpireAnsEntry is the argument of DsoRules_ExpireAnsEntry.
type DsoRulesExpireAnsEntry struct {
	AnsEntryCid daml.ContractID `daml:"ansEntryCid"`
	ChoiceArg   Actor           `daml:"choiceArg"`
	Sv          *daml.Party     `daml:"sv"`
}

// DsoRulesCollectEntryRenewalPayment is the argument of
// DsoRules_CollectEntryRenewalPayment.
type DsoRulesCollectEntryRenewalPayment struct {
	AnsEntryContextCid daml.ContractID                           `daml:"ansEntryContextCid"`
	ChoiceArg          AnsEntryContextCollectEntryRenewalPayment `daml:"choiceArg"`
	Sv                 *daml.Party                               `daml:"sv"`
}

// DsoRulesCollectEntryRenewalPaymentResult is the choice's result.
type DsoRulesCollectEntryRenewalPaymentResult struct {
	AnsEntry          daml.ContractID `daml:"ansEntry"`
	SubscriptionState daml.ContractID `daml:"subscriptionState"`
}

// DsoRulesExpireSubscription is the argument of DsoRules_ExpireSubscription.
type DsoRulesExpireSubscription struct {
	AnsEntryContextCid       daml.ContractID `daml:"ansEntryContextCid"`
	SubscriptionIdleStateCid daml.ContractID `daml:"subscriptionIdleStateCid"`
	ChoiceArg                Actor           `daml:"choiceArg"`
	Sv                       *daml.Party     `daml:"sv"`
}

// DsoBootstrap is Splice.DsoBootstrap:DsoBootstrap. Its creation and
// DsoBootstrap_Bootstrap found the DSO: the first SV's transaction creates
// the amulet and name-service rules, the first rounds and DsoRules.
type DsoBootstrap struct {
	DSO                  daml.Party                               `daml:"dso"`
	Sv1Party             daml.Party                               `daml:"sv1Party"`
	Sv1Name              string                                   `daml:"sv1Name"`
	Sv1RewardWeight      int64                                    `daml:"sv1RewardWeight"`
	Sv1ParticipantID     string                                   `daml:"sv1ParticipantId"`
	Sv1SynchronizerNodes daml.Map[string, SynchronizerNodeConfig] `daml:"sv1SynchronizerNodes"`
	Round0Duration       RelTime                                  `daml:"round0Duration"`
	AmuletConfig         AmuletConfig                             `daml:"amuletConfig"`
	AmuletPrice          daml.Numeric                             `daml:"amuletPrice"`
	AnsRulesConfig       AnsRulesConfig                           `daml:"ansRulesConfig"`
	Config               DsoRulesConfig                           `daml:"config"`
	InitialTrafficState  daml.Map[string, TrafficState]           `daml:"initialTrafficState"`
	IsDevNet             bool                                     `daml:"isDevNet"`
}

// TemplateID implements ledger.Template.
func (DsoBootstrap) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleDsoBootstrap, "DsoBootstrap")
}

// DamlIdentifier implements daml.Identified.
func (b DsoBootstrap) DamlIdentifier() daml.Identifier { return b.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (b DsoBootstrap) Signatories() []daml.Party { return []daml.Party{b.DSO} }

// Observers implements ledger.Template.
func (b DsoBootstrap) Observers() []daml.Party { return []daml.Party{b.Sv1Party} }

func optParty(p *daml.Party) []daml.Party {
	if p == nil {
		return nil
	}
	return []daml.Party{*p}
}

// requireSv is Splice's getAndValidateSvParty.
func requireSv(tx *ledger.Tx, d DsoRules, sv *daml.Party) error {
	if err := tx.Require(sv != nil, "no SV party provided"); err != nil {
		return err
	}
	_, ok := d.Svs.Get(*sv)
	return tx.Require(ok, "SV party is an actual SV")
}

func registerDso(r *ledger.Registry) {
	ledger.RegisterTemplate[DsoBootstrap](r)
	ledger.AddChoice(r, "DsoBootstrap_Bootstrap", true,
		func(b DsoBootstrap, _ Empty) []daml.Party { return []daml.Party{b.DSO} },
		bootstrapDso)

	ledger.RegisterTemplate[SvOnboardingConfirmed](r)
	ledger.RegisterTemplate[SvRewardState](r)
	ledger.RegisterTemplate[SvNodeState](r)
	ledger.RegisterTemplate[SvStatusReport](r)
	ledger.RegisterTemplate[AmuletPriceVote](r)
	ledger.RegisterTemplate[ValidatorLicense](r)
	ledger.RegisterTemplate[VoteRequest](r)

	ledger.RegisterTemplate[DsoRules](r)
	dso := func(d DsoRules) []daml.Party { return []daml.Party{d.DSO} }

	ledger.AddChoice(r, "DsoRules_AddSv", true,
		func(d DsoRules, _ DsoRulesAddSv) []daml.Party { return dso(d) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesAddSv) (NewDsoRulesResult, error) {
			cid, err := addSv(tx, d, arg)
			return NewDsoRulesResult{NewDsoRules: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_ConfirmSvOnboarding", false,
		func(d DsoRules, _ DsoRulesConfirmSvOnboarding) []daml.Party { return dso(d) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesConfirmSvOnboarding) (DsoRulesConfirmSvOnboardingResult, error) {
			if err := requireNeverOperatedNode(tx, d, arg.NewSvParty); err != nil {
				return DsoRulesConfirmSvOnboardingResult{}, err
			}
			if !d.IsDevNet {
				if err := tx.Require(!d.hasSvNamed(arg.NewSvName), "SV name is expected to be new unless in devnet"); err != nil {
					return DsoRulesConfirmSvOnboardingResult{}, err
				}
			}
			cid, err := ledger.Create(tx, SvOnboardingConfirmed{
				SvParty: arg.NewSvParty, SvName: arg.NewSvName, SvRewardWeight: arg.NewSvRewardWeight,
				SvParticipantID: arg.NewParticipantID, Reason: arg.Reason, DSO: d.DSO,
				ExpiresAt: addRel(tx.Now(), d.Config.SvOnboardingConfirmedTimeout),
			})
			return DsoRulesConfirmSvOnboardingResult{OnboardingConfirmed: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_AddConfirmedSv", false,
		func(_ DsoRules, arg DsoRulesAddConfirmedSv) []daml.Party { return []daml.Party{arg.Sv} },
		func(tx *ledger.Tx, self daml.ContractID, d DsoRules, arg DsoRulesAddConfirmedSv) (NewDsoRulesResult, error) {
			var res NewDsoRulesResult
			confirmed, err := fetchAndArchiveDso[SvOnboardingConfirmed](tx, arg.SvOnboardingConfirmedCid, d.DSO)
			if err != nil {
				return res, err
			}
			if err := tx.Require(confirmed.SvParty == arg.Sv, "confirmation is for %s", arg.Sv); err != nil {
				return res, err
			}
			if err := tx.Require(tx.Now() < confirmed.ExpiresAt, "svOnboardingConfirmed.expiresAt has not passed"); err != nil {
				return res, err
			}
			var rounds [3]OpenMiningRound
			for i, cid := range []daml.ContractID{arg.EarliestRoundCid, arg.MiddleRoundCid, arg.LatestRoundCid} {
				if rounds[i], err = fetchDsoContract[OpenMiningRound](tx, cid, d.DSO); err != nil {
					return res, err
				}
			}
			if err := tx.Require(rounds[1].Round.Number == rounds[0].Round.Number+1, "middleRound is one after earliestRound"); err != nil {
				return res, err
			}
			if err := tx.Require(rounds[2].Round.Number == rounds[1].Round.Number+1, "latestRound is one after middleRound"); err != nil {
				return res, err
			}
			return ledger.Exercise[NewDsoRulesResult](tx, self, "DsoRules_AddSv", DsoRulesAddSv{
				NewSvParty: arg.Sv, NewSvName: confirmed.SvName, NewSvRewardWeight: confirmed.SvRewardWeight,
				NewSvParticipantID: confirmed.SvParticipantID, JoinedAsOfRound: rounds[0].Round,
			})
		})

	ledger.AddChoice(r, "DsoRules_SetSynchronizerNodeConfig", false,
		func(_ DsoRules, arg DsoRulesSetSynchronizerNodeConfig) []daml.Party { return []daml.Party{arg.Sv} },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesSetSynchronizerNodeConfig) (DsoRulesSetSynchronizerNodeConfigResult, error) {
			var res DsoRulesSetSynchronizerNodeConfigResult
			_, known := d.Config.DecentralizedSynchronizer.Synchronizers.Get(arg.SynchronizerID)
			if err := tx.Require(known, "Synchronizer with this id is configured"); err != nil {
				return res, err
			}
			if err := tx.Require(validNodeConfig(d.Config.SynchronizerNodeConfigLimits, arg.NewNodeConfig), "Valid configuration"); err != nil {
				return res, err
			}
			info, ok := d.Svs.Get(arg.Sv)
			if err := tx.Require(ok, "Not a sv"); err != nil {
				return res, err
			}
			state, err := fetchAndArchiveDso[SvNodeState](tx, arg.NodeStateCid, d.DSO)
			if err != nil {
				return res, err
			}
			if err := tx.Require(state.Sv == arg.Sv && state.SvName == info.Name, "node state belongs to %s", info.Name); err != nil {
				return res, err
			}
			state.State.SynchronizerNodes = mapInsert(state.State.SynchronizerNodes, arg.SynchronizerID, arg.NewNodeConfig)
			res.SvNodeState, err = ledger.Create(tx, state)
			return res, err
		})

	ledger.AddChoice(r, "DsoRules_OnboardValidator", false,
		func(_ DsoRules, arg DsoRulesOnboardValidator) []daml.Party { return []daml.Party{arg.Sponsor} },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesOnboardValidator) (DsoRulesOnboardValidatorResult, error) {
			_, ok := d.Svs.Get(arg.Sponsor)
			if err := tx.Require(ok, "Sponsor is an SV"); err != nil {
				return DsoRulesOnboardValidatorResult{}, err
			}
			now := tx.Now()
			lic := ValidatorLicense{Validator: arg.Validator, Sponsor: arg.Sponsor, DSO: d.DSO, LastActiveAt: &now}
			if arg.Version != nil {
				contact := ""
				if arg.ContactPoint != nil {
					contact = *arg.ContactPoint
				}
				lic.Metadata = &ValidatorLicenseMetadata{LastUpdatedAt: now, Version: *arg.Version, ContactPoint: contact}
			}
			cid, err := ledger.Create(tx, lic)
			return DsoRulesOnboardValidatorResult{ValidatorLicense: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_RequestVote", false,
		func(_ DsoRules, arg DsoRulesRequestVote) []daml.Party { return []daml.Party{arg.Requester} },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesRequestVote) (VoteRequestResult, error) {
			info, ok := d.Svs.Get(arg.Requester)
			if err := tx.Require(ok, "Requester is not an SV"); err != nil {
				return VoteRequestResult{}, err
			}
			if err := requireWellformedReason(tx, d.Config, arg.Reason); err != nil {
				return VoteRequestResult{}, err
			}
			now := tx.Now()
			timeout := d.Config.VoteRequestTimeout
			if arg.VoteRequestTimeout != nil {
				timeout = *arg.VoteRequestTimeout
			}
			voteBefore := addRel(now, timeout)
			if err := tx.Require(now < voteBefore, "There is some time to vote"); err != nil {
				return VoteRequestResult{}, err
			}
			cid, err := ledger.Create(tx, VoteRequest{
				DSO: d.DSO, Requester: info.Name, Action: arg.Action, Reason: arg.Reason, VoteBefore: voteBefore,
				Votes: daml.Map[string, Vote]{{Key: info.Name, Value: Vote{
					Sv: arg.Requester, Accept: true,
					Reason:    Reason{URL: "", Body: "I accept, as I requested the vote."},
					OptCastAt: &now,
				}}},
				TargetEffectiveAt: arg.TargetEffectiveAt,
			})
			return VoteRequestResult{VoteRequest: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_CastVote", false,
		func(_ DsoRules, arg DsoRulesCastVote) []daml.Party { return []daml.Party{arg.Vote.Sv} },
		func(tx *ledger.Tx, self daml.ContractID, d DsoRules, arg DsoRulesCastVote) (VoteRequestResult, error) {
			if err := requireWellformedReason(tx, d.Config, arg.Vote.Reason); err != nil {
				return VoteRequestResult{}, err
			}
			info, ok := d.Svs.Get(arg.Vote.Sv)
			if err := tx.Require(ok, "Voter is not an SV"); err != nil {
				return VoteRequestResult{}, err
			}
			req, err := fetchAndArchiveDso[VoteRequest](tx, arg.RequestCid, d.DSO)
			if err != nil {
				return VoteRequestResult{}, err
			}
			now := tx.Now()
			if past, ok := req.Votes.Get(info.Name); ok && past.OptCastAt != nil {
				cooldown := Rel(60e9)
				if d.Config.VoteCooldownTime != nil {
					cooldown = *d.Config.VoteCooldownTime
				}
				if err := tx.Require(addRel(*past.OptCastAt, cooldown) < now, "voteCooldownTime for %s", arg.Vote.Sv); err != nil {
					return VoteRequestResult{}, err
				}
			}
			vote := arg.Vote
			vote.OptCastAt = &now
			req.Votes = mapInsert(req.Votes, info.Name, vote)
			tracking := arg.RequestCid
			if req.TrackingCid != nil {
				tracking = *req.TrackingCid
			}
			req.TrackingCid = &tracking
			cid, err := ledger.Create(tx, req)
			return VoteRequestResult{VoteRequest: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_AdvanceOpenMiningRounds", false,
		func(_ DsoRules, arg DsoRulesAdvanceOpenMiningRounds) []daml.Party { return optParty(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesAdvanceOpenMiningRounds) (DsoRulesAdvanceOpenMiningRoundsResult, error) {
			if err := requireSv(tx, d, arg.Sv); err != nil {
				return DsoRulesAdvanceOpenMiningRoundsResult{}, err
			}
			price, err := medianAmuletPrice(tx, d, arg.AmuletPriceVoteCids)
			if err != nil {
				return DsoRulesAdvanceOpenMiningRoundsResult{}, err
			}
			res, err := ledger.Exercise[AmuletRulesAdvanceOpenMiningRoundsResult](tx, arg.AmuletRulesCid, "AmuletRules_AdvanceOpenMiningRounds",
				AmuletRulesAdvanceOpenMiningRounds{
					AmuletPrice: price, RoundToArchiveCid: arg.RoundToArchiveCid,
					MiddleRoundCid: arg.MiddleRoundCid, LatestRoundCid: arg.LatestRoundCid,
				})
			return DsoRulesAdvanceOpenMiningRoundsResult{SummarizingRound: res.SummarizingRoundCid, OpenRound: res.OpenRoundCid}, err
		})

	ledger.AddChoice(r, "DsoRules_MiningRound_Close", false,
		func(_ DsoRules, arg DsoRulesMiningRoundClose) []daml.Party { return optParty(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesMiningRoundClose) (DsoRulesMiningRoundCloseResult, error) {
			if err := requireSv(tx, d, arg.Sv); err != nil {
				return DsoRulesMiningRoundCloseResult{}, err
			}
			res, err := ledger.Exercise[AmuletRulesMiningRoundCloseResult](tx, arg.AmuletRulesCid, "AmuletRules_MiningRound_Close",
				AmuletRulesMiningRoundClose{IssuingRoundCid: arg.IssuingRoundCid})
			return DsoRulesMiningRoundCloseResult{ClosedRound: res.ClosedRoundCid}, err
		})

	ledger.AddChoice(r, "DsoRules_ExpireAnsEntry", false,
		func(_ DsoRules, arg DsoRulesExpireAnsEntry) []daml.Party { return optParty(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesExpireAnsEntry) (Empty, error) {
			if err := requireSv(tx, d, arg.Sv); err != nil {
				return Empty{}, err
			}
			_, err := ledger.Exercise[Empty](tx, arg.AnsEntryCid, "AnsEntry_Expire", arg.ChoiceArg)
			return Empty{}, err
		})

	ledger.AddChoice(r, "DsoRules_CollectEntryRenewalPayment", false,
		func(_ DsoRules, arg DsoRulesCollectEntryRenewalPayment) []daml.Party { return optParty(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesCollectEntryRenewalPayment) (DsoRulesCollectEntryRenewalPaymentResult, error) {
			if err := requireSv(tx, d, arg.Sv); err != nil {
				return DsoRulesCollectEntryRenewalPaymentResult{}, err
			}
			res, err := ledger.Exercise[AnsEntryPaymentResult](tx, arg.AnsEntryContextCid, "AnsEntryContext_CollectEntryRenewalPayment", arg.ChoiceArg)
			return DsoRulesCollectEntryRenewalPaymentResult{AnsEntry: res.EntryCid, SubscriptionState: res.SubscriptionStateCid}, err
		})

	ledger.AddChoice(r, "DsoRules_ExpireSubscription", false,
		func(_ DsoRules, arg DsoRulesExpireSubscription) []daml.Party { return optParty(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesExpireSubscription) (Empty, error) {
			if err := requireSv(tx, d, arg.Sv); err != nil {
				return Empty{}, err
			}
			res, err := ledger.Exercise[TerminatedSubscriptionResult](tx, arg.SubscriptionIdleStateCid, "SubscriptionIdleState_ExpireSubscription", arg.ChoiceArg)
			if err != nil {
				return Empty{}, err
			}
			_, err = ledger.Exercise[Empty](tx, arg.AnsEntryContextCid, "AnsEntryContext_Terminate",
				AnsEntryContextTerminate{Actor: d.DSO, TerminatedSubscriptionCid: res.TerminatedSubscription})
			return Empty{}, err
		})
}

// bootstrapDso is DsoBootstrap_Bootstrap.
func bootstrapDso(tx *ledger.Tx, _ daml.ContractID, b DsoBootstrap, _ Empty) (Empty, error) {
	rulesCid, err := ledger.Create(tx, AmuletRules{
		DSO: b.DSO, IsDevNet: b.IsDevNet,
		ConfigSchedule: Schedule[daml.Timestamp, AmuletConfig]{InitialValue: b.AmuletConfig, FutureValues: []Tuple2[daml.Timestamp, AmuletConfig]{}},
	})
	if err != nil {
		return Empty{}, err
	}
	if _, err := ledger.Create(tx, AnsRules{DSO: b.DSO, Config: b.AnsRulesConfig}); err != nil {
		return Empty{}, err
	}
	if _, err := ledger.Exercise[AmuletRulesBootstrapRoundsResult](tx, rulesCid, "AmuletRules_Bootstrap_Rounds",
		AmuletRulesBootstrapRounds{AmuletPrice: b.AmuletPrice, Round0Duration: b.Round0Duration}); err != nil {
		return Empty{}, err
	}
	rules := DsoRules{
		DSO: b.DSO, Epoch: 0,
		Svs: daml.Map[daml.Party, SvInfo]{{Key: b.Sv1Party, Value: SvInfo{
			Name: b.Sv1Name, JoinedAsOfRound: Round{}, SvRewardWeight: b.Sv1RewardWeight, ParticipantID: b.Sv1ParticipantID,
		}}},
		OffboardedSvs:       daml.Map[daml.Party, OffboardedSvInfo]{},
		DsoDelegate:         b.Sv1Party,
		Config:              b.Config,
		InitialTrafficState: b.InitialTrafficState,
		IsDevNet:            b.IsDevNet,
	}
	if _, err := ledger.Create(tx, rules); err != nil {
		return Empty{}, err
	}
	add := DsoRulesAddSv{NewSvParty: b.Sv1Party, NewSvName: b.Sv1Name, NewSvRewardWeight: b.Sv1RewardWeight, NewSvParticipantID: b.Sv1ParticipantID}
	if err := createPerSvContracts(tx, rules, add); err != nil {
		return Empty{}, err
	}
	return Empty{}, createPerSvPartyContracts(tx, rules, add, b.Sv1SynchronizerNodes, &b.AmuletPrice)
}

// addSv is Splice's dsoRules_addSv: record the SV in a new DsoRules and
// create its per-SV and per-party contracts.
func addSv(tx *ledger.Tx, d DsoRules, arg DsoRulesAddSv) (daml.ContractID, error) {
	if err := requireNeverOperatedNode(tx, d, arg.NewSvParty); err != nil {
		return "", err
	}
	var previous daml.Party
	for _, e := range d.Svs {
		if e.Value.Name == arg.NewSvName {
			previous = e.Key
		}
	}
	if previous != "" {
		// DevNet lets an SV change its operator party: the old one is
		// offboarded.
		if err := tx.Require(d.IsDevNet, "SV is not currently onboarded"); err != nil {
			return "", err
		}
		info, _ := d.Svs.Get(previous)
		d.Svs = slices.DeleteFunc(slices.Clone(d.Svs), func(e daml.MapEntry[daml.Party, SvInfo]) bool { return e.Key == previous })
		d.OffboardedSvs = mapInsert(d.OffboardedSvs, previous, OffboardedSvInfo{Name: info.Name, ParticipantID: info.ParticipantID})
	}
	if !d.hasSvNamed(arg.NewSvName) {
		if err := createPerSvContracts(tx, d, arg); err != nil {
			return "", err
		}
	}
	if err := createPerSvPartyContracts(tx, d, arg, daml.Map[string, SynchronizerNodeConfig]{}, nil); err != nil {
		return "", err
	}
	d.Svs = mapInsert(d.Svs, arg.NewSvParty, SvInfo{
		Name: arg.NewSvName, JoinedAsOfRound: arg.JoinedAsOfRound,
		SvRewardWeight: arg.NewSvRewardWeight, ParticipantID: arg.NewSvParticipantID,
	})
	return ledger.Create(tx, d)
}

func requireNeverOperatedNode(tx *ledger.Tx, d DsoRules, sv daml.Party) error {
	_, current := d.Svs.Get(sv)
	_, former := d.OffboardedSvs.Get(sv)
	return tx.Require(!current && !former, "SV party has not yet operated a node")
}

func createPerSvContracts(tx *ledger.Tx, d DsoRules, arg DsoRulesAddSv) error {
	_, err := ledger.Create(tx, SvRewardState{DSO: d.DSO, SvName: arg.NewSvName, State: RewardState{
		LastRoundCollected: Round{Number: arg.JoinedAsOfRound.Number - 1},
	}})
	return err
}

func createPerSvPartyContracts(tx *ledger.Tx, d DsoRules, arg DsoRulesAddSv, nodes daml.Map[string, SynchronizerNodeConfig], price *daml.Numeric) error {
	cooldown := Rel(60e9)
	if d.Config.VoteCooldownTime != nil {
		cooldown = *d.Config.VoteCooldownTime
	}
	if _, err := ledger.Create(tx, AmuletPriceVote{
		DSO: d.DSO, Sv: arg.NewSvParty, AmuletPrice: price,
		// Allow a vote right after onboarding.
		LastUpdatedAt: tx.Now() - daml.Timestamp(cooldown.Microseconds),
	}); err != nil {
		return err
	}
	if _, err := ledger.Create(tx, SvStatusReport{DSO: d.DSO, Sv: arg.NewSvParty, SvName: arg.NewSvName}); err != nil {
		return err
	}
	_, err := ledger.Create(tx, SvNodeState{DSO: d.DSO, Sv: arg.NewSvParty, SvName: arg.NewSvName, State: NodeState{SynchronizerNodes: nodes}})
	return err
}

// medianAmuletPrice is Splice's fetchMedianAmuletPrice: every SV votes
// exactly once; the median of the votes that name a price wins.
func medianAmuletPrice(tx *ledger.Tx, d DsoRules, voteCids []daml.ContractID) (daml.Numeric, error) {
	var voters []daml.Party
	var prices []daml.Numeric
	for _, cid := range voteCids {
		v, err := fetchDsoContract[AmuletPriceVote](tx, cid, d.DSO)
		if err != nil {
			return daml.Numeric{}, err
		}
		voters = append(voters, v.Sv)
		if v.AmuletPrice != nil {
			prices = append(prices, *v.AmuletPrice)
		}
	}
	svs := make([]daml.Party, len(d.Svs))
	for i, e := range d.Svs {
		svs[i] = e.Key
	}
	slices.Sort(voters)
	slices.Sort(svs)
	if err := tx.Require(slices.Equal(voters, svs), "Every sv voted exactly once"); err != nil {
		return daml.Numeric{}, err
	}
	if err := tx.Require(len(prices) > 0, "median: not defined for the empty list"); err != nil {
		return daml.Numeric{}, err
	}
	slices.SortFunc(prices, daml.Numeric.Cmp)
	n := len(prices)
	var a arith
	m := a.mul(num("0.5"), a.add(prices[(n-1)/2], prices[n/2]))
	return m, a.err
}

func requireWellformedReason(tx *ledger.Tx, c DsoRulesConfig, r Reason) error {
	if err := tx.Require(int64(len([]rune(r.URL))) <= c.MaxTextLength, "Reason URL is not too long"); err != nil {
		return err
	}
	return tx.Require(int64(len([]rune(r.Body))) <= c.MaxTextLength, "Reason body is not too long")
}

func validNodeConfig(limits SynchronizerNodeConfigLimits, c SynchronizerNodeConfig) bool {
	l := limits.CometBft
	if int64(len(c.CometBft.Nodes)) > l.MaxNumCometBftNodes || int64(len(c.CometBft.GovernanceKeys)) > l.MaxNumGovernanceKeys ||
		int64(len(c.CometBft.SequencingKeys)) > l.MaxNumSequencingKeys {
		return false
	}
	for _, n := range c.CometBft.Nodes {
		if int64(len([]rune(n.Key))) > l.MaxNodeIDLength || n.Value.VotingPower < 0 || int64(len([]rune(n.Value.ValidatorPubKey))) > l.MaxPubKeyLength {
			return false
		}
	}
	return true
}
