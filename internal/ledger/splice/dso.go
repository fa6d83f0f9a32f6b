package splice

import (
	"slices"
	"time"
	"unicode/utf8"

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

// svNamed is Splice's lookupSvInfoByName: the current SV of that name.
func (d DsoRules) svNamed(name string) (daml.Party, bool) {
	for _, e := range d.Svs {
		if e.Value.Name == name {
			return e.Key, true
		}
	}
	return "", false
}

// hasSvNamed is Splice's svHasBeenOnboardedBefore: an SV of that name is
// or was onboarded.
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

// maxIdentifierLength bounds a validator license's version and contact
// point.
const maxIdentifierLength = 255

// Ensure is Splice's validValidatorLicense.
func (v ValidatorLicense) Ensure() error {
	if m := v.Metadata; m != nil && (utf8.RuneCountInString(m.ContactPoint) > maxIdentifierLength || utf8.RuneCountInString(m.Version) > maxIdentifierLength) {
		return errorf("validator license metadata is longer than %d characters", maxIdentifierLength)
	}
	return nil
}

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

// VoteRequest is Splice.DsoRules:VoteRequest. sandnet records votes but
// does not execute their actions.
type VoteRequest struct {
	DSO               daml.Party                  `daml:"dso"`
	Requester         string                      `daml:"requester"`
	Action            ActionRequiringConfirmation `daml:"action"`
	Reason            Reason                      `daml:"reason"`
	VoteBefore        daml.Timestamp              `daml:"voteBefore"`
	Votes             daml.Map[string, Vote]      `daml:"votes"`
	TrackingCid       *daml.ContractID            `daml:"trackingCid"`
	TargetEffectiveAt *daml.Timestamp             `daml:"targetEffectiveAt"`
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

// DamlIdentifier implements daml.Identified.
func (DsoRulesAddSv) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_AddSv")
}

// DsoRulesAddSvResult is DsoRules_AddSv's result.
type DsoRulesAddSvResult struct {
	NewDsoRules daml.ContractID `daml:"newDsoRules"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesAddSvResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_AddSvResult")
}

// DsoRulesConfirmSvOnboarding is the argument of DsoRules_ConfirmSvOnboarding.
type DsoRulesConfirmSvOnboarding struct {
	NewSvParty        daml.Party `daml:"newSvParty"`
	NewSvName         string     `daml:"newSvName"`
	NewParticipantID  string     `daml:"newParticipantId"`
	NewSvRewardWeight int64      `daml:"newSvRewardWeight"`
	Reason            string     `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesConfirmSvOnboarding) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_ConfirmSvOnboarding")
}

// DsoRulesConfirmSvOnboardingResult is the choice's result.
type DsoRulesConfirmSvOnboardingResult struct {
	OnboardingConfirmed daml.ContractID `daml:"onboardingConfirmed"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesConfirmSvOnboardingResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_ConfirmSvOnboardingResult")
}

// DsoRulesAddConfirmedSv is the argument of DsoRules_AddConfirmedSv, by
// which a confirmed SV adds itself. AmuletRulesCid is no longer used, but
// kept for upgrading's sake (as in Splice).
type DsoRulesAddConfirmedSv struct {
	Sv                       daml.Party      `daml:"sv"`
	SvOnboardingConfirmedCid daml.ContractID `daml:"svOnboardingConfirmedCid"`
	EarliestRoundCid         daml.ContractID `daml:"earliestRoundCid"`
	MiddleRoundCid           daml.ContractID `daml:"middleRoundCid"`
	LatestRoundCid           daml.ContractID `daml:"latestRoundCid"`
	AmuletRulesCid           daml.ContractID `daml:"amuletRulesCid"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesAddConfirmedSv) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_AddConfirmedSv")
}

// DsoRulesAddConfirmedSvResult is the choice's result.
type DsoRulesAddConfirmedSvResult struct {
	NewDsoRules daml.ContractID `daml:"newDsoRules"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesAddConfirmedSvResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_AddConfirmedSvResult")
}

// DsoRulesSetSynchronizerNodeConfig is the argument of
// DsoRules_SetSynchronizerNodeConfig.
type DsoRulesSetSynchronizerNodeConfig struct {
	Sv             daml.Party             `daml:"sv"`
	SynchronizerID string                 `daml:"synchronizerId"`
	NewNodeConfig  SynchronizerNodeConfig `daml:"newNodeConfig"`
	NodeStateCid   daml.ContractID        `daml:"nodeStateCid"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesSetSynchronizerNodeConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_SetSynchronizerNodeConfig")
}

// DsoRulesSetSynchronizerNodeConfigResult is the choice's result.
type DsoRulesSetSynchronizerNodeConfigResult struct {
	SvNodeState daml.ContractID `daml:"svNodeState"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesSetSynchronizerNodeConfigResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_SetSynchronizerNodeConfigResult")
}

// DsoRulesOnboardValidator is the argument of DsoRules_OnboardValidator.
type DsoRulesOnboardValidator struct {
	Sponsor      daml.Party `daml:"sponsor"`
	Validator    daml.Party `daml:"validator"`
	Version      *string    `daml:"version"`
	ContactPoint *string    `daml:"contactPoint"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesOnboardValidator) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_OnboardValidator")
}

// DsoRulesOnboardValidatorResult is the choice's result.
type DsoRulesOnboardValidatorResult struct {
	ValidatorLicense daml.ContractID `daml:"validatorLicense"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesOnboardValidatorResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_OnboardValidatorResult")
}

// DsoRulesRequestVote is the argument of DsoRules_RequestVote.
type DsoRulesRequestVote struct {
	Requester          daml.Party                  `daml:"requester"`
	Action             ActionRequiringConfirmation `daml:"action"`
	Reason             Reason                      `daml:"reason"`
	VoteRequestTimeout *RelTime                    `daml:"voteRequestTimeout"`
	TargetEffectiveAt  *daml.Timestamp             `daml:"targetEffectiveAt"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesRequestVote) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_RequestVote")
}

// DsoRulesRequestVoteResult is DsoRules_RequestVote's result.
type DsoRulesRequestVoteResult struct {
	VoteRequest daml.ContractID `daml:"voteRequest"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesRequestVoteResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_RequestVoteResult")
}

// DsoRulesCastVote is the argument of DsoRules_CastVote.
type DsoRulesCastVote struct {
	RequestCid daml.ContractID `daml:"requestCid"`
	Vote       Vote            `daml:"vote"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCastVote) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CastVote")
}

// DsoRulesCastVoteResult is DsoRules_CastVote's result.
type DsoRulesCastVoteResult struct {
	VoteRequest daml.ContractID `daml:"voteRequest"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCastVoteResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CastVoteResult")
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

// DamlIdentifier implements daml.Identified.
func (DsoRulesAdvanceOpenMiningRounds) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_AdvanceOpenMiningRounds")
}

// DsoRulesAdvanceOpenMiningRoundsResult is the choice's result.
type DsoRulesAdvanceOpenMiningRoundsResult struct {
	SummarizingRound daml.ContractID `daml:"summarizingRound"`
	OpenRound        daml.ContractID `daml:"openRound"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesAdvanceOpenMiningRoundsResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_AdvanceOpenMiningRoundsResult")
}

// DsoRulesMiningRoundClose is the argument of DsoRules_MiningRound_Close.
type DsoRulesMiningRoundClose struct {
	AmuletRulesCid  daml.ContractID `daml:"amuletRulesCid"`
	IssuingRoundCid daml.ContractID `daml:"issuingRoundCid"`
	Sv              *daml.Party     `daml:"sv"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesMiningRoundClose) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_MiningRound_Close")
}

// DsoRulesMiningRoundCloseResult is the choice's result.
type DsoRulesMiningRoundCloseResult struct {
	ClosedRound daml.ContractID `daml:"closedRound"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesMiningRoundCloseResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_MiningRound_CloseResult")
}

// DsoRulesExpireAnsEntry is the argument of DsoRules_ExpireAnsEntry.
type DsoRulesExpireAnsEntry struct {
	AnsEntryCid daml.ContractID `daml:"ansEntryCid"`
	ChoiceArg   AnsEntryExpire  `daml:"choiceArg"`
	Sv          *daml.Party     `daml:"sv"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesExpireAnsEntry) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_ExpireAnsEntry")
}

// DsoRulesExpireAnsEntryResult is the choice's (empty) result.
type DsoRulesExpireAnsEntryResult struct{}

// DamlIdentifier implements daml.Identified.
func (DsoRulesExpireAnsEntryResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_ExpireAnsEntryResult")
}

// DsoRulesCollectEntryRenewalPayment is the argument of
// DsoRules_CollectEntryRenewalPayment.
type DsoRulesCollectEntryRenewalPayment struct {
	AnsEntryContextCid daml.ContractID                           `daml:"ansEntryContextCid"`
	ChoiceArg          AnsEntryContextCollectEntryRenewalPayment `daml:"choiceArg"`
	Sv                 *daml.Party                               `daml:"sv"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCollectEntryRenewalPayment) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CollectEntryRenewalPayment")
}

// DsoRulesCollectEntryRenewalPaymentResult is the choice's result.
type DsoRulesCollectEntryRenewalPaymentResult struct {
	AnsEntry          daml.ContractID `daml:"ansEntry"`
	SubscriptionState daml.ContractID `daml:"subscriptionState"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCollectEntryRenewalPaymentResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CollectEntryRenewalPaymentResult")
}

// DsoRulesExpireSubscription is the argument of DsoRules_ExpireSubscription.
type DsoRulesExpireSubscription struct {
	AnsEntryContextCid       daml.ContractID                         `daml:"ansEntryContextCid"`
	SubscriptionIdleStateCid daml.ContractID                         `daml:"subscriptionIdleStateCid"`
	ChoiceArg                SubscriptionIdleStateExpireSubscription `daml:"choiceArg"`
	Sv                       *daml.Party                             `daml:"sv"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesExpireSubscription) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_ExpireSubscription")
}

// DsoRulesExpireSubscriptionResult is the choice's (empty) result.
type DsoRulesExpireSubscriptionResult struct{}

// DamlIdentifier implements daml.Identified.
func (DsoRulesExpireSubscriptionResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_ExpireSubscriptionResult")
}

// DsoBootstrapBootstrap is the argument of DsoBootstrap_Bootstrap.
type DsoBootstrapBootstrap struct{}

// DamlIdentifier implements daml.Identified.
func (DsoBootstrapBootstrap) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoBootstrap, "DsoBootstrap_Bootstrap")
}

// DsoBootstrapBootstrapResult is the choice's (empty) result.
type DsoBootstrapBootstrapResult struct{}

// DamlIdentifier implements daml.Identified.
func (DsoBootstrapBootstrapResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoBootstrap, "DsoBootstrap_BootstrapResult")
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
	InitialRound         *int64                                   `daml:"initialRound"`
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
	if sv == nil {
		return abort("no SV party provided")
	}
	_, ok := d.Svs.Get(*sv)
	return require(tx, "SV party is an actual SV", ok)
}

// svInfo is Splice's getSvInfo.
func svInfo(d DsoRules, sv daml.Party) (SvInfo, error) {
	info, ok := d.Svs.Get(sv)
	if !ok {
		return info, abort("Not a sv")
	}
	return info, nil
}

func registerDso(r *ledger.Registry) {
	ledger.RegisterTemplate[DsoBootstrap](r)
	ledger.AddChoice(r, "DsoBootstrap_Bootstrap", true,
		func(b DsoBootstrap, _ DsoBootstrapBootstrap) []daml.Party { return []daml.Party{b.DSO} },
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
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesAddSv) (DsoRulesAddSvResult, error) {
			cid, err := addSv(tx, d, arg)
			return DsoRulesAddSvResult{NewDsoRules: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_ConfirmSvOnboarding", false,
		func(d DsoRules, _ DsoRulesConfirmSvOnboarding) []daml.Party { return dso(d) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesConfirmSvOnboarding) (DsoRulesConfirmSvOnboardingResult, error) {
			if err := requireNeverOperatedNode(tx, d, arg.NewSvParty); err != nil {
				return DsoRulesConfirmSvOnboardingResult{}, err
			}
			if !d.IsDevNet {
				_, taken := d.svNamed(arg.NewSvName)
				if err := require(tx, "SV name is expected to be new unless in devnet", !taken); err != nil {
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
		func(tx *ledger.Tx, self daml.ContractID, d DsoRules, arg DsoRulesAddConfirmedSv) (DsoRulesAddConfirmedSvResult, error) {
			var res DsoRulesAddConfirmedSvResult
			confirmed, err := fetchAndArchive(tx, forOwner{d.DSO, arg.Sv}, arg.SvOnboardingConfirmedCid,
				func(c SvOnboardingConfirmed) forOwner { return forOwner{c.DSO, c.SvParty} })
			if err != nil {
				return res, err
			}
			if err := assertWithinDeadline(tx, "svOnboardingConfirmed.expiresAt", confirmed.ExpiresAt); err != nil {
				return res, err
			}
			var rounds [3]OpenMiningRound
			for i, cid := range []daml.ContractID{arg.EarliestRoundCid, arg.MiddleRoundCid, arg.LatestRoundCid} {
				if rounds[i], err = fetchDsoContract[OpenMiningRound](tx, cid, d.DSO); err != nil {
					return res, err
				}
			}
			if err := require(tx, "middleRound is one after earliestRound", rounds[1].Round.Number == rounds[0].Round.Number+1); err != nil {
				return res, err
			}
			if err := require(tx, "latestRound is one after middleRound", rounds[2].Round.Number == rounds[1].Round.Number+1); err != nil {
				return res, err
			}
			added, err := ledger.Exercise[DsoRulesAddSvResult](tx, self, "DsoRules_AddSv", DsoRulesAddSv{
				NewSvParty: arg.Sv, NewSvName: confirmed.SvName, NewSvRewardWeight: confirmed.SvRewardWeight,
				NewSvParticipantID: confirmed.SvParticipantID, JoinedAsOfRound: rounds[0].Round,
			})
			return DsoRulesAddConfirmedSvResult(added), err
		})

	ledger.AddChoice(r, "DsoRules_SetSynchronizerNodeConfig", false,
		func(_ DsoRules, arg DsoRulesSetSynchronizerNodeConfig) []daml.Party { return []daml.Party{arg.Sv} },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesSetSynchronizerNodeConfig) (DsoRulesSetSynchronizerNodeConfigResult, error) {
			var res DsoRulesSetSynchronizerNodeConfigResult
			_, known := d.Config.DecentralizedSynchronizer.Synchronizers.Get(arg.SynchronizerID)
			if err := require(tx, "Synchronizer with this id is configured", known); err != nil {
				return res, err
			}
			if err := require(tx, "Valid configuration", validNodeConfig(d.Config.SynchronizerNodeConfigLimits, arg.NewNodeConfig)); err != nil {
				return res, err
			}
			if !d.IsDevNet {
				var power int64
				for _, n := range arg.NewNodeConfig.CometBft.Nodes {
					power += n.Value.VotingPower
				}
				if err := require(tx, "CometBft voting power <= 1", power <= 1); err != nil {
					return res, err
				}
			}
			info, err := svInfo(d, arg.Sv)
			if err != nil {
				return res, err
			}
			state, err := fetchAndArchive(tx, forSvNode{d.DSO, arg.Sv, info.Name}, arg.NodeStateCid,
				func(s SvNodeState) forSvNode { return forSvNode{s.DSO, s.Sv, s.SvName} })
			if err != nil {
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
			if err := require(tx, "Sponsor is an SV", ok); err != nil {
				return DsoRulesOnboardValidatorResult{}, err
			}
			now := tx.Now()
			// Splice no longer tracks sponsoring: the validator is its own
			// sponsor.
			lic := ValidatorLicense{Validator: arg.Validator, Sponsor: arg.Validator, DSO: d.DSO, LastActiveAt: &now}
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
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesRequestVote) (DsoRulesRequestVoteResult, error) {
			info, ok := d.Svs.Get(arg.Requester)
			if !ok {
				return DsoRulesRequestVoteResult{}, abort("Requester is not an SV")
			}
			if err := requireWellformedReason(tx, d.Config, arg.Reason); err != nil {
				return DsoRulesRequestVoteResult{}, err
			}
			now := tx.Now()
			timeout := d.Config.VoteRequestTimeout
			if arg.VoteRequestTimeout != nil {
				timeout = *arg.VoteRequestTimeout
			}
			voteBefore := addRel(now, timeout)
			if err := require(tx, "There is some time to vote", now < voteBefore); err != nil {
				return DsoRulesRequestVoteResult{}, err
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
			return DsoRulesRequestVoteResult{VoteRequest: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_CastVote", false,
		func(_ DsoRules, arg DsoRulesCastVote) []daml.Party { return []daml.Party{arg.Vote.Sv} },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesCastVote) (DsoRulesCastVoteResult, error) {
			if err := requireWellformedReason(tx, d.Config, arg.Vote.Reason); err != nil {
				return DsoRulesCastVoteResult{}, err
			}
			info, ok := d.Svs.Get(arg.Vote.Sv)
			if !ok {
				return DsoRulesCastVoteResult{}, abort("Voter is not an SV")
			}
			req, err := fetchAndArchiveDso[VoteRequest](tx, arg.RequestCid, d.DSO)
			if err != nil {
				return DsoRulesCastVoteResult{}, err
			}
			// Splice's enforceCooldown: no new vote before the cooldown
			// since the SV's last one has passed.
			if past, ok := req.Votes.Get(info.Name); ok && past.OptCastAt != nil {
				cooldown := Rel(time.Minute)
				if d.Config.VoteCooldownTime != nil {
					cooldown = *d.Config.VoteCooldownTime
				}
				if err := assertDeadlineExceeded(tx, "voteCooldownTime for "+string(arg.Vote.Sv), addRel(*past.OptCastAt, cooldown)); err != nil {
					return DsoRulesCastVoteResult{}, err
				}
			}
			now := tx.Now()
			vote := arg.Vote
			vote.OptCastAt = &now
			req.Votes = mapInsert(req.Votes, info.Name, vote)
			tracking := arg.RequestCid
			if req.TrackingCid != nil {
				tracking = *req.TrackingCid
			}
			req.TrackingCid = &tracking
			cid, err := ledger.Create(tx, req)
			return DsoRulesCastVoteResult{VoteRequest: cid}, err
		})

	// The choices by which the SVs' automation drives the DSO's workflows:
	// an SV (the controller, sv) acts within the DsoRules, whose signatory
	// the DSO party authorizes what happens inside.
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
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesExpireAnsEntry) (DsoRulesExpireAnsEntryResult, error) {
			if err := requireSv(tx, d, arg.Sv); err != nil {
				return DsoRulesExpireAnsEntryResult{}, err
			}
			_, err := ledger.Exercise[AnsEntryExpireResult](tx, arg.AnsEntryCid, "AnsEntry_Expire", arg.ChoiceArg)
			return DsoRulesExpireAnsEntryResult{}, err
		})

	ledger.AddChoice(r, "DsoRules_CollectEntryRenewalPayment", false,
		func(_ DsoRules, arg DsoRulesCollectEntryRenewalPayment) []daml.Party { return optParty(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesCollectEntryRenewalPayment) (DsoRulesCollectEntryRenewalPaymentResult, error) {
			if err := requireSv(tx, d, arg.Sv); err != nil {
				return DsoRulesCollectEntryRenewalPaymentResult{}, err
			}
			res, err := ledger.Exercise[AnsEntryContextCollectEntryRenewalPaymentResult](tx, arg.AnsEntryContextCid, "AnsEntryContext_CollectEntryRenewalPayment", arg.ChoiceArg)
			return DsoRulesCollectEntryRenewalPaymentResult{AnsEntry: res.EntryCid, SubscriptionState: res.SubscriptionStateCid}, err
		})

	ledger.AddChoice(r, "DsoRules_ExpireSubscription", false,
		func(_ DsoRules, arg DsoRulesExpireSubscription) []daml.Party { return optParty(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesExpireSubscription) (DsoRulesExpireSubscriptionResult, error) {
			if err := requireSv(tx, d, arg.Sv); err != nil {
				return DsoRulesExpireSubscriptionResult{}, err
			}
			res, err := ledger.Exercise[SubscriptionIdleStateExpireSubscriptionResult](tx, arg.SubscriptionIdleStateCid, "SubscriptionIdleState_ExpireSubscription", arg.ChoiceArg)
			if err != nil {
				return DsoRulesExpireSubscriptionResult{}, err
			}
			_, err = ledger.Exercise[AnsEntryContextTerminateResult](tx, arg.AnsEntryContextCid, "AnsEntryContext_Terminate",
				AnsEntryContextTerminate{Actor: d.DSO, TerminatedSubscriptionCid: res.TerminatedSubscription})
			return DsoRulesExpireSubscriptionResult{}, err
		})
}

// bootstrapDso is DsoBootstrap_Bootstrap.
func bootstrapDso(tx *ledger.Tx, _ daml.ContractID, b DsoBootstrap, _ DsoBootstrapBootstrap) (DsoBootstrapBootstrapResult, error) {
	var none DsoBootstrapBootstrapResult
	rulesCid, err := ledger.Create(tx, AmuletRules{
		DSO: b.DSO, IsDevNet: b.IsDevNet,
		ConfigSchedule: Schedule[daml.Timestamp, AmuletConfig]{InitialValue: b.AmuletConfig, FutureValues: []Tuple2[daml.Timestamp, AmuletConfig]{}},
	})
	if err != nil {
		return none, err
	}
	if _, err := ledger.Create(tx, ExternalPartyAmuletRules{DSO: b.DSO}); err != nil {
		return none, err
	}
	if _, err := ledger.Create(tx, AnsRules{DSO: b.DSO, Config: b.AnsRulesConfig}); err != nil {
		return none, err
	}
	rounds, err := ledger.Exercise[AmuletRulesBootstrapRoundsResult](tx, rulesCid, "AmuletRules_Bootstrap_Rounds",
		AmuletRulesBootstrapRounds{AmuletPrice: b.AmuletPrice, Round0Duration: b.Round0Duration, InitialRound: b.InitialRound})
	if err != nil {
		return none, err
	}
	joined := Round{}
	if rounds.InitialRound != nil {
		joined = *rounds.InitialRound
	}
	rules := DsoRules{
		DSO: b.DSO, Epoch: 0,
		Svs: daml.Map[daml.Party, SvInfo]{{Key: b.Sv1Party, Value: SvInfo{
			Name: b.Sv1Name, JoinedAsOfRound: joined, SvRewardWeight: b.Sv1RewardWeight, ParticipantID: b.Sv1ParticipantID,
		}}},
		OffboardedSvs:       daml.Map[daml.Party, OffboardedSvInfo]{},
		DsoDelegate:         b.Sv1Party,
		Config:              b.Config,
		InitialTrafficState: b.InitialTrafficState,
		IsDevNet:            b.IsDevNet,
	}
	if _, err := ledger.Create(tx, rules); err != nil {
		return none, err
	}
	add := DsoRulesAddSv{NewSvParty: b.Sv1Party, NewSvName: b.Sv1Name, NewSvRewardWeight: b.Sv1RewardWeight,
		NewSvParticipantID: b.Sv1ParticipantID, JoinedAsOfRound: joined}
	if err := createPerSvContracts(tx, rules, add); err != nil {
		return none, err
	}
	return none, createPerSvPartyContracts(tx, rules, add, b.Sv1SynchronizerNodes, &b.AmuletPrice)
}

// addSv is Splice's dsoRules_addSv: record the SV in a new DsoRules and
// create its per-SV and per-party contracts.
func addSv(tx *ledger.Tx, d DsoRules, arg DsoRulesAddSv) (daml.ContractID, error) {
	if err := requireNeverOperatedNode(tx, d, arg.NewSvParty); err != nil {
		return "", err
	}
	previous, named := d.svNamed(arg.NewSvName)
	switch {
	case d.IsDevNet && named:
		// DevNet lets an SV change its operator party: the old one is
		// offboarded.
		info, _ := d.Svs.Get(previous)
		d.Svs = slices.DeleteFunc(slices.Clone(d.Svs), func(e daml.MapEntry[daml.Party, SvInfo]) bool { return e.Key == previous })
		d.OffboardedSvs = mapInsert(d.OffboardedSvs, previous, OffboardedSvInfo{Name: info.Name, ParticipantID: info.ParticipantID})
	case !d.IsDevNet:
		if err := require(tx, "SV is not currently onboarded", !named); err != nil {
			return "", err
		}
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
	return require(tx, "SV party has not yet operated a node", !current && !former)
}

func createPerSvContracts(tx *ledger.Tx, d DsoRules, arg DsoRulesAddSv) error {
	_, err := ledger.Create(tx, SvRewardState{DSO: d.DSO, SvName: arg.NewSvName, State: RewardState{
		LastRoundCollected: Round{Number: arg.JoinedAsOfRound.Number - 1},
	}})
	return err
}

func createPerSvPartyContracts(tx *ledger.Tx, d DsoRules, arg DsoRulesAddSv, nodes daml.Map[string, SynchronizerNodeConfig], price *daml.Numeric) error {
	cooldown := Rel(time.Minute)
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
	if err := require(tx, "Every sv voted exactly once", slices.Equal(voters, svs)); err != nil {
		return daml.Numeric{}, err
	}
	if len(prices) == 0 {
		return daml.Numeric{}, abort("median: not defined for the empty list")
	}
	slices.SortFunc(prices, daml.Numeric.Cmp)
	n := len(prices)
	var a arith
	m := a.mul(num("0.5"), a.add(prices[(n-1)/2], prices[n/2]))
	return m, a.err
}

// requireWellformedReason is Splice's requireWellformedReason.
func requireWellformedReason(tx *ledger.Tx, c DsoRulesConfig, r Reason) error {
	if err := require(tx, "Reason URL is not too long", int64(utf8.RuneCountInString(r.URL)) <= c.MaxTextLength); err != nil {
		return err
	}
	return require(tx, "Reason body is not too long", int64(utf8.RuneCountInString(r.Body)) <= c.MaxTextLength)
}

// validNodeConfig is Splice's validSynchronizerNodeConfig, that is
// validCometBftConfig.
func validNodeConfig(limits SynchronizerNodeConfigLimits, c SynchronizerNodeConfig) bool {
	l := limits.CometBft
	runes := func(s string) int64 { return int64(utf8.RuneCountInString(s)) }
	if int64(len(c.CometBft.Nodes)) > l.MaxNumCometBftNodes || int64(len(c.CometBft.GovernanceKeys)) > l.MaxNumGovernanceKeys ||
		int64(len(c.CometBft.SequencingKeys)) > l.MaxNumSequencingKeys {
		return false
	}
	for _, n := range c.CometBft.Nodes {
		if runes(n.Key) > l.MaxNodeIDLength || n.Value.VotingPower < 0 || runes(n.Value.ValidatorPubKey) > l.MaxPubKeyLength {
			return false
		}
	}
	for _, k := range c.CometBft.GovernanceKeys {
		if runes(k.PubKey) > l.MaxPubKeyLength {
			return false
		}
	}
	for _, k := range c.CometBft.SequencingKeys {
		if runes(k.PubKey) > l.MaxPubKeyLength {
			return false
		}
	}
	return true
}
