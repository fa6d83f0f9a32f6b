package splice

import (
	"time"

	"github.com/sandnet/sandnet/internal/daml"
)

// The configuration records the DSO keeps on its rules contracts. Field
// names, types and order are Splice's (Splice.AmuletConfig, Splice.Issuance,
// Splice.DecentralizedSynchronizer, Splice.DSO.DecentralizedSynchronizer,
// Splice.CometBft, Splice.DsoRules); the default values follow the
// parameters Splice's scripts bootstrap a DevNet with.

// TransferConfig is Splice.AmuletConfig:TransferConfig: the fees and limits
// of amulet transfers. On OpenMiningRound it is in USD; transfers scale it
// to amulet by the round's price.
type TransferConfig struct {
	CreateFee                    FixedFee     `daml:"createFee"`
	HoldingFee                   RatePerRound `daml:"holdingFee"`
	TransferFee                  SteppedRate  `daml:"transferFee"`
	LockHolderFee                FixedFee     `daml:"lockHolderFee"`
	ExtraFeaturedAppRewardAmount daml.Numeric `daml:"extraFeaturedAppRewardAmount"`
	MaxNumInputs                 int64        `daml:"maxNumInputs"`
	MaxNumOutputs                int64        `daml:"maxNumOutputs"`
	MaxNumLockHolders            int64        `daml:"maxNumLockHolders"`
	TokenStandardMaxTTL          *RelTime     `daml:"tokenStandardMaxTTL"`
}

// DamlIdentifier implements daml.Identified.
func (TransferConfig) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.AmuletConfig", "TransferConfig")
}

// IssuanceConfig is Splice.Issuance:IssuanceConfig, one point of the
// issuance curve.
type IssuanceConfig struct {
	AmuletToIssuePerYear         daml.Numeric  `daml:"amuletToIssuePerYear"`
	ValidatorRewardPercentage    daml.Numeric  `daml:"validatorRewardPercentage"`
	AppRewardPercentage          daml.Numeric  `daml:"appRewardPercentage"`
	ValidatorRewardCap           daml.Numeric  `daml:"validatorRewardCap"`
	FeaturedAppRewardCap         daml.Numeric  `daml:"featuredAppRewardCap"`
	UnfeaturedAppRewardCap       daml.Numeric  `daml:"unfeaturedAppRewardCap"`
	OptValidatorFaucetCap        *daml.Numeric `daml:"optValidatorFaucetCap"`
	OptDevelopmentFundPercentage *daml.Numeric `daml:"optDevelopmentFundPercentage"`
}

// DamlIdentifier implements daml.Identified.
func (IssuanceConfig) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Issuance", "IssuanceConfig")
}

// BaseRateTrafficLimits is Splice.DecentralizedSynchronizer's free traffic
// allowance.
type BaseRateTrafficLimits struct {
	BurstAmount int64   `daml:"burstAmount"`
	BurstWindow RelTime `daml:"burstWindow"`
}

// DamlIdentifier implements daml.Identified.
func (BaseRateTrafficLimits) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.DecentralizedSynchronizer", "BaseRateTrafficLimits")
}

// SynchronizerFeesConfig is Splice.DecentralizedSynchronizer's traffic
// pricing.
type SynchronizerFeesConfig struct {
	BaseRateTrafficLimits    BaseRateTrafficLimits `daml:"baseRateTrafficLimits"`
	ExtraTrafficPrice        daml.Numeric          `daml:"extraTrafficPrice"`
	ReadVsWriteScalingFactor int64                 `daml:"readVsWriteScalingFactor"`
	MinTopupAmount           int64                 `daml:"minTopupAmount"`
}

// DamlIdentifier implements daml.Identified.
func (SynchronizerFeesConfig) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.DecentralizedSynchronizer", "SynchronizerFeesConfig")
}

// AmuletDecentralizedSynchronizerConfig is the synchronizer part of the
// amulet configuration.
type AmuletDecentralizedSynchronizerConfig struct {
	RequiredSynchronizers Set[string]            `daml:"requiredSynchronizers"`
	ActiveSynchronizer    string                 `daml:"activeSynchronizer"`
	Fees                  SynchronizerFeesConfig `daml:"fees"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletDecentralizedSynchronizerConfig) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.DecentralizedSynchronizer", "AmuletDecentralizedSynchronizerConfig")
}

// PackageConfig is Splice.AmuletConfig:PackageConfig, the package versions
// the apps submit commands with.
type PackageConfig struct {
	Amulet             string `daml:"amulet"`
	AmuletNameService  string `daml:"amuletNameService"`
	DsoGovernance      string `daml:"dsoGovernance"`
	ValidatorLifecycle string `daml:"validatorLifecycle"`
	Wallet             string `daml:"wallet"`
	WalletPayments     string `daml:"walletPayments"`
}

// DamlIdentifier implements daml.Identified.
func (PackageConfig) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.AmuletConfig", "PackageConfig")
}

// RewardVersion is Splice.AmuletConfig:RewardVersion, the scheme rewards
// are minted with.
type RewardVersion string

// The reward versions.
const (
	RewardVersionFeaturedAppMarkers     RewardVersion = "RewardVersion_FeaturedAppMarkers"
	RewardVersionTrafficBasedAppRewards RewardVersion = "RewardVersion_TrafficBasedAppRewards"
)

// DamlEnum marks RewardVersion as a Daml enum.
func (RewardVersion) DamlEnum() {}

// DamlEnumConstructors lists the constructors in declaration order.
func (RewardVersion) DamlEnumConstructors() []string {
	return []string{string(RewardVersionFeaturedAppMarkers), string(RewardVersionTrafficBasedAppRewards)}
}

// DamlIdentifier implements daml.Identified.
func (RewardVersion) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.AmuletConfig", "RewardVersion")
}

// RewardConfig is Splice.AmuletConfig:RewardConfig, the configuration of
// CIP-104's off-ledger reward calculation. sandnet's networks leave it
// unset (rewards the pre-CIP-104 way, which sandnet does not issue).
type RewardConfig struct {
	MintingVersion           RewardVersion  `daml:"mintingVersion"`
	DryRunVersion            *RewardVersion `daml:"dryRunVersion"`
	BatchSize                int64          `daml:"batchSize"`
	RewardCouponTimeToLive   RelTime        `daml:"rewardCouponTimeToLive"`
	AppRewardCouponThreshold daml.Numeric   `daml:"appRewardCouponThreshold"`
}

// DamlIdentifier implements daml.Identified.
func (RewardConfig) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.AmuletConfig", "RewardConfig")
}

// useFeaturedAppMarkers is Splice's useFeaturedAppMarkers: every version
// but traffic-based app rewards records featured app activity as markers.
func useFeaturedAppMarkers(c *RewardConfig) bool {
	return c == nil || c.MintingVersion != RewardVersionTrafficBasedAppRewards
}

// AmuletConfig is Splice.AmuletConfig:AmuletConfig USD.
type AmuletConfig struct {
	TransferConfig                       TransferConfig                        `daml:"transferConfig"`
	IssuanceCurve                        Schedule[RelTime, IssuanceConfig]     `daml:"issuanceCurve"`
	DecentralizedSynchronizer            AmuletDecentralizedSynchronizerConfig `daml:"decentralizedSynchronizer"`
	TickDuration                         RelTime                               `daml:"tickDuration"`
	PackageConfig                        PackageConfig                         `daml:"packageConfig"`
	TransferPreapprovalFee               *daml.Numeric                         `daml:"transferPreapprovalFee"`
	FeaturedAppActivityMarkerAmount      *daml.Numeric                         `daml:"featuredAppActivityMarkerAmount"`
	OptDevelopmentFundManager            *daml.Party                           `daml:"optDevelopmentFundManager"`
	ExternalPartyConfigStateTickDuration *RelTime                              `daml:"externalPartyConfigStateTickDuration"`
	RewardConfig                         *RewardConfig                         `daml:"rewardConfig"`
	TransferPreapprovalBaseDuration      *RelTime                              `daml:"transferPreapprovalBaseDuration"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletConfig) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.AmuletConfig", "AmuletConfig")
}

// DefaultTickDuration is Splice's tick: half a round's lifetime as the open
// round, and the spacing of round openings.
const DefaultTickDuration = 10 * time.Minute

// defaultHoldingFeeUSD is $1 per year per amulet, charged per 10-minute
// round (1 / (365 × 24 × 6)), as Splice's DevNet parameters set it.
var defaultHoldingFeeUSD = num("0.0000190259")

// DefaultTransferConfig is the fee-free transfer configuration Splice runs
// with since CIP-78 (only the holding fee remains).
func DefaultTransferConfig() TransferConfig {
	return TransferConfig{
		CreateFee:                    FixedFee{Fee: num("0.0")},
		HoldingFee:                   RatePerRound{Rate: defaultHoldingFeeUSD},
		TransferFee:                  SteppedRate{InitialRate: num("0.0"), Steps: []Tuple2[daml.Numeric, daml.Numeric]{}},
		LockHolderFee:                FixedFee{Fee: num("0.0")},
		ExtraFeaturedAppRewardAmount: num("1.0"),
		MaxNumInputs:                 100,
		MaxNumOutputs:                100,
		MaxNumLockHolders:            50,
	}
}

// DefaultIssuanceCurve is Splice's issuance schedule: 40 bn amulet in the
// first half year, then decreasing, with growing shares for validators and
// apps.
func DefaultIssuanceCurve() Schedule[RelTime, IssuanceConfig] {
	point := func(perYear, validator, app string) IssuanceConfig {
		return IssuanceConfig{
			AmuletToIssuePerYear:      num(perYear),
			ValidatorRewardPercentage: num(validator),
			AppRewardPercentage:       num(app),
			ValidatorRewardCap:        num("0.2"),
			FeaturedAppRewardCap:      num("100.0"),
			UnfeaturedAppRewardCap:    num("0.6"),
			OptValidatorFaucetCap:     ptr(num("2.85")),
		}
	}
	year := 365 * 24 * time.Hour
	return Schedule[RelTime, IssuanceConfig]{
		InitialValue: point("40000000000.0", "0.05", "0.15"),
		FutureValues: []Tuple2[RelTime, IssuanceConfig]{
			{Rel(year / 2), point("20000000000.0", "0.12", "0.4")},
			{Rel(year + year/2), point("10000000000.0", "0.18", "0.62")},
			{Rel(5 * year), point("5000000000.0", "0.21", "0.69")},
			{Rel(10 * year), point("2500000000.0", "0.2", "0.75")},
		},
	}
}

// issuanceAt is getValueAsOf over the issuance curve.
func issuanceAt(curve Schedule[RelTime, IssuanceConfig], at RelTime) IssuanceConfig {
	v := curve.InitialValue
	for _, fv := range curve.FutureValues {
		if at.Microseconds < fv.First.Microseconds {
			break
		}
		v = fv.Second
	}
	return v
}

// DefaultPackageConfig names the package versions of the one table.
func DefaultPackageConfig() PackageConfig {
	return PackageConfig{
		Amulet:             PackageAmulet.Version,
		AmuletNameService:  PackageAmuletNameService.Version,
		DsoGovernance:      PackageDsoGovernance.Version,
		ValidatorLifecycle: PackageValidatorLifecycle.Version,
		Wallet:             PackageWallet.Version,
		WalletPayments:     PackageWalletPayments.Version,
	}
}

// DefaultAmuletConfig is the amulet configuration of a fresh DevNet whose
// active synchronizer is synchronizerID.
func DefaultAmuletConfig(synchronizerID string, tick time.Duration) AmuletConfig {
	return AmuletConfig{
		TransferConfig: DefaultTransferConfig(),
		IssuanceCurve:  DefaultIssuanceCurve(),
		DecentralizedSynchronizer: AmuletDecentralizedSynchronizerConfig{
			RequiredSynchronizers: TextSet(synchronizerID),
			ActiveSynchronizer:    synchronizerID,
			Fees: SynchronizerFeesConfig{
				BaseRateTrafficLimits:    BaseRateTrafficLimits{BurstAmount: 400_000, BurstWindow: Rel(20 * time.Minute)},
				ExtraTrafficPrice:        num("16.67"),
				ReadVsWriteScalingFactor: 4,
				MinTopupAmount:           200_000,
			},
		},
		TickDuration:                    Rel(tick),
		PackageConfig:                   DefaultPackageConfig(),
		TransferPreapprovalFee:          nil,
		FeaturedAppActivityMarkerAmount: ptr(num("1.0")),
	}
}

// validAmuletConfig is Splice's validAmuletConfig: since CIP-78 every fee
// but the holding fee must be zero, and the featured-app marker amount
// must equal the extra featured-app reward.
func validAmuletConfig(c AmuletConfig) bool {
	nonNegative := func(n *daml.Numeric) bool { return n == nil || n.Sign() >= 0 }
	return validTransferConfig(c.TransferConfig) &&
		validIssuanceCurve(c.IssuanceCurve) &&
		c.DecentralizedSynchronizer.RequiredSynchronizers.Has(c.DecentralizedSynchronizer.ActiveSynchronizer) &&
		c.TickDuration.Microseconds > 0 &&
		nonNegative(c.TransferPreapprovalFee) &&
		nonNegative(c.FeaturedAppActivityMarkerAmount) &&
		c.FeaturedAppActivityMarkerAmount != nil && c.FeaturedAppActivityMarkerAmount.Cmp(c.TransferConfig.ExtraFeaturedAppRewardAmount) == 0
}

// validTransferConfig is Splice's validTransferConfig.
func validTransferConfig(c TransferConfig) bool {
	for _, st := range c.TransferFee.Steps {
		if !st.Second.IsZero() {
			return false
		}
	}
	return c.CreateFee.Fee.IsZero() && c.LockHolderFee.Fee.IsZero() && c.TransferFee.InitialRate.IsZero() &&
		c.HoldingFee.Rate.Sign() >= 0 && c.ExtraFeaturedAppRewardAmount.Sign() >= 0 &&
		c.MaxNumInputs >= 1 && c.MaxNumOutputs >= 1 && c.MaxNumLockHolders >= 0
}

// validIssuanceCurve is Splice's validIssuanceCurve: the schedule's times
// strictly ascending and every point a valid IssuanceConfig.
func validIssuanceCurve(s Schedule[RelTime, IssuanceConfig]) bool {
	if !validIssuanceConfig(s.InitialValue) {
		return false
	}
	for i, fv := range s.FutureValues {
		if i > 0 && fv.First.Microseconds <= s.FutureValues[i-1].First.Microseconds || !validIssuanceConfig(fv.Second) {
			return false
		}
	}
	return true
}

// validIssuanceConfig is Splice's validIssuanceConfig.
func validIssuanceConfig(c IssuanceConfig) bool {
	var a arith
	faucetCap := num("2.85")
	if c.OptValidatorFaucetCap != nil {
		faucetCap = *c.OptValidatorFaucetCap
	}
	fund := c.OptDevelopmentFundPercentage
	ok := c.AmuletToIssuePerYear.Sign() > 0 && c.ValidatorRewardPercentage.Sign() >= 0 && c.AppRewardPercentage.Sign() >= 0 &&
		a.add(c.ValidatorRewardPercentage, c.AppRewardPercentage).Cmp(num("1.0")) <= 0 &&
		c.ValidatorRewardCap.Sign() >= 0 && c.FeaturedAppRewardCap.Sign() >= 0 && c.UnfeaturedAppRewardCap.Sign() >= 0 &&
		faucetCap.Sign() >= 0 && (fund == nil || fund.Sign() >= 0 && fund.Cmp(num("1.0")) <= 0)
	return ok && a.err == nil
}

// DSO configuration
// =================

// CometBftConfigLimits is Splice.CometBft:CometBftConfigLimits.
type CometBftConfigLimits struct {
	MaxNumCometBftNodes  int64 `daml:"maxNumCometBftNodes"`
	MaxNumGovernanceKeys int64 `daml:"maxNumGovernanceKeys"`
	MaxNumSequencingKeys int64 `daml:"maxNumSequencingKeys"`
	MaxNodeIDLength      int64 `daml:"maxNodeIdLength"`
	MaxPubKeyLength      int64 `daml:"maxPubKeyLength"`
}

// DamlIdentifier implements daml.Identified.
func (CometBftConfigLimits) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.CometBft", "CometBftConfigLimits")
}

// SynchronizerNodeConfigLimits is Splice.DSO.DecentralizedSynchronizer's
// limit on an SV's node configuration.
type SynchronizerNodeConfigLimits struct {
	CometBft CometBftConfigLimits `daml:"cometBft"`
}

// DamlIdentifier implements daml.Identified.
func (SynchronizerNodeConfigLimits) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "SynchronizerNodeConfigLimits")
}

// SynchronizerState is Splice.DSO.DecentralizedSynchronizer's enum of a
// synchronizer's lifecycle.
type SynchronizerState string

// The synchronizer states.
const (
	SynchronizerBootstrapping  SynchronizerState = "DS_Bootstrapping"
	SynchronizerOperational    SynchronizerState = "DS_Operational"
	SynchronizerDecommissioned SynchronizerState = "DS_Decomissioned" // sic, as Splice spells it
)

// DamlEnum marks SynchronizerState as a Daml enum.
func (SynchronizerState) DamlEnum() {}

// DamlEnumConstructors lists the constructors in declaration order.
func (SynchronizerState) DamlEnumConstructors() []string {
	return []string{"DS_Bootstrapping", "DS_Operational", "DS_Decomissioned", "ExtSynchronizerState"}
}

// DamlIdentifier implements daml.Identified.
func (SynchronizerState) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "SynchronizerState")
}

// SynchronizerConfig is the DSO-level configuration of one synchronizer.
type SynchronizerConfig struct {
	State                               SynchronizerState `daml:"state"`
	CometBftGenesisJSON                 string            `daml:"cometBftGenesisJson"`
	AcsCommitmentReconciliationInterval *int64            `daml:"acsCommitmentReconciliationInterval"`
}

// DamlIdentifier implements daml.Identified.
func (SynchronizerConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "SynchronizerConfig")
}

// DsoDecentralizedSynchronizerConfig is the DSO's view of its synchronizers.
type DsoDecentralizedSynchronizerConfig struct {
	Synchronizers        daml.Map[string, SynchronizerConfig] `daml:"synchronizers"`
	LastSynchronizerID   string                               `daml:"lastSynchronizerId"`
	ActiveSynchronizerID string                               `daml:"activeSynchronizerId"`
}

// DamlIdentifier implements daml.Identified.
func (DsoDecentralizedSynchronizerConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "DsoDecentralizedSynchronizerConfig")
}

// SynchronizerUpgradeSchedule is a scheduled hard synchronizer migration.
type SynchronizerUpgradeSchedule struct {
	Time        daml.Timestamp `daml:"time"`
	MigrationID int64          `daml:"migrationId"`
}

// DamlIdentifier implements daml.Identified.
func (SynchronizerUpgradeSchedule) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "SynchronizerUpgradeSchedule")
}

// DsoRulesConfig is Splice.DsoRules:DsoRulesConfig.
type DsoRulesConfig struct {
	NumUnclaimedRewardsThreshold       int64                              `daml:"numUnclaimedRewardsThreshold"`
	NumMemberTrafficContractsThreshold int64                              `daml:"numMemberTrafficContractsThreshold"`
	ActionConfirmationTimeout          RelTime                            `daml:"actionConfirmationTimeout"`
	SvOnboardingRequestTimeout         RelTime                            `daml:"svOnboardingRequestTimeout"`
	SvOnboardingConfirmedTimeout       RelTime                            `daml:"svOnboardingConfirmedTimeout"`
	VoteRequestTimeout                 RelTime                            `daml:"voteRequestTimeout"`
	DsoDelegateInactiveTimeout         RelTime                            `daml:"dsoDelegateInactiveTimeout"`
	SynchronizerNodeConfigLimits       SynchronizerNodeConfigLimits       `daml:"synchronizerNodeConfigLimits"`
	MaxTextLength                      int64                              `daml:"maxTextLength"`
	DecentralizedSynchronizer          DsoDecentralizedSynchronizerConfig `daml:"decentralizedSynchronizer"`
	NextScheduledSynchronizerUpgrade   *SynchronizerUpgradeSchedule       `daml:"nextScheduledSynchronizerUpgrade"`
	VoteCooldownTime                   *RelTime                           `daml:"voteCooldownTime"`
	// NextScheduledLogicalSynchronizerUpgrade is a scheduled logical
	// synchronizer upgrade (a new physical synchronizer).
	NextScheduledLogicalSynchronizerUpgrade *LogicalSynchronizerUpgradeSchedule `daml:"nextScheduledLogicalSynchronizerUpgrade"`
}

// LogicalSynchronizerUpgradeSchedule is Splice.DsoRules:LogicalSynchronizerUpgradeSchedule.
type LogicalSynchronizerUpgradeSchedule struct {
	TopologyFreezeTime                     daml.Timestamp `daml:"topologyFreezeTime"`
	UpgradeTime                            daml.Timestamp `daml:"upgradeTime"`
	NewPhysicalSynchronizerSerial          int64          `daml:"newPhysicalSynchronizerSerial"`
	NewPhysicalSynchronizerProtocolVersion string         `daml:"newPhysicalSynchronizerProtocolVersion"`
}

// DamlIdentifier implements daml.Identified.
func (LogicalSynchronizerUpgradeSchedule) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "LogicalSynchronizerUpgradeSchedule")
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRulesConfig")
}

// DefaultDsoRulesConfig is the DSO rules configuration of a fresh DevNet
// with one operational synchronizer.
func DefaultDsoRulesConfig(synchronizerID string) DsoRulesConfig {
	return DsoRulesConfig{
		NumUnclaimedRewardsThreshold:       10,
		NumMemberTrafficContractsThreshold: 5,
		ActionConfirmationTimeout:          Rel(5 * time.Minute),
		SvOnboardingRequestTimeout:         Rel(time.Hour),
		SvOnboardingConfirmedTimeout:       Rel(time.Hour),
		VoteRequestTimeout:                 Rel(7 * 24 * time.Hour),
		DsoDelegateInactiveTimeout:         Rel(70 * time.Second),
		SynchronizerNodeConfigLimits: SynchronizerNodeConfigLimits{CometBft: CometBftConfigLimits{
			MaxNumCometBftNodes: 2, MaxNumGovernanceKeys: 2, MaxNumSequencingKeys: 2,
			MaxNodeIDLength: 50, MaxPubKeyLength: 256,
		}},
		MaxTextLength: 1024,
		DecentralizedSynchronizer: DsoDecentralizedSynchronizerConfig{
			Synchronizers: mapOf(map[string]SynchronizerConfig{synchronizerID: {
				State:                               SynchronizerOperational,
				CometBftGenesisJSON:                 "",
				AcsCommitmentReconciliationInterval: ptr(int64(1800)),
			}}),
			LastSynchronizerID:   synchronizerID,
			ActiveSynchronizerID: synchronizerID,
		},
	}
}

// CometBftNodeConfig is one CometBFT node of an SV.
type CometBftNodeConfig struct {
	ValidatorPubKey string `daml:"validatorPubKey"`
	VotingPower     int64  `daml:"votingPower"`
}

// DamlIdentifier implements daml.Identified.
func (CometBftNodeConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.CometBft", "CometBftNodeConfig")
}

// GovernanceKeyConfig is an SV's CometBFT governance key.
type GovernanceKeyConfig struct {
	PubKey string `daml:"pubKey"`
}

// DamlIdentifier implements daml.Identified.
func (GovernanceKeyConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.CometBft", "GovernanceKeyConfig")
}

// SequencingKeyConfig is an SV's CometBFT sequencing key.
type SequencingKeyConfig struct {
	PubKey string `daml:"pubKey"`
}

// DamlIdentifier implements daml.Identified.
func (SequencingKeyConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.CometBft", "SequencingKeyConfig")
}

// CometBftConfig is Splice.CometBft:CometBftConfig. sandnet's SVs run the
// BFT sequencer rather than CometBFT, so it is empty.
type CometBftConfig struct {
	Nodes          daml.Map[string, CometBftNodeConfig] `daml:"nodes"`
	GovernanceKeys []GovernanceKeyConfig                `daml:"governanceKeys"`
	SequencingKeys []SequencingKeyConfig                `daml:"sequencingKeys"`
}

// DamlIdentifier implements daml.Identified.
func (CometBftConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.CometBft", "CometBftConfig")
}

// SequencerConfig is an SV's sequencer for one migration.
type SequencerConfig struct {
	MigrationID    int64           `daml:"migrationId"`
	SequencerID    string          `daml:"sequencerId"`
	URL            string          `daml:"url"`
	AvailableAfter *daml.Timestamp `daml:"availableAfter"`
}

// DamlIdentifier implements daml.Identified.
func (SequencerConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "SequencerConfig")
}

// LegacySequencerConfig is a paused sequencer of an earlier migration.
type LegacySequencerConfig struct {
	MigrationID int64  `daml:"migrationId"`
	SequencerID string `daml:"sequencerId"`
	URL         string `daml:"url"`
}

// DamlIdentifier implements daml.Identified.
func (LegacySequencerConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "LegacySequencerConfig")
}

// MediatorConfig is an SV's mediator.
type MediatorConfig struct {
	MediatorID string `daml:"mediatorId"`
}

// DamlIdentifier implements daml.Identified.
func (MediatorConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "MediatorConfig")
}

// ScanConfig is an SV's Scan.
type ScanConfig struct {
	PublicURL string `daml:"publicUrl"`
}

// DamlIdentifier implements daml.Identified.
func (ScanConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "ScanConfig")
}

// SequencerIdentityConfig is an SV's sequencer identity, stable across
// physical synchronizers.
type SequencerIdentityConfig struct {
	SequencerID    string          `daml:"sequencerId"`
	AvailableAfter *daml.Timestamp `daml:"availableAfter"`
}

// DamlIdentifier implements daml.Identified.
func (SequencerIdentityConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "SequencerIdentityConfig")
}

// SequencerConnectionConfig is how to reach an SV's sequencer.
type SequencerConnectionConfig struct {
	URL string `daml:"url"`
}

// DamlIdentifier implements daml.Identified.
func (SequencerConnectionConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "SequencerConnectionConfig")
}

// PhysicalSynchronizerNodeConfig is an SV's nodes on one physical
// synchronizer.
type PhysicalSynchronizerNodeConfig struct {
	Sequencer *SequencerConnectionConfig `daml:"sequencer"`
}

// DamlIdentifier implements daml.Identified.
func (PhysicalSynchronizerNodeConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "PhysicalSynchronizerNodeConfig")
}

// SynchronizerNodeConfig is the configuration of an SV's nodes for one
// synchronizer.
type SynchronizerNodeConfig struct {
	CometBft              CometBftConfig                                   `daml:"cometBft"`
	Sequencer             *SequencerConfig                                 `daml:"sequencer"`
	Mediator              *MediatorConfig                                  `daml:"mediator"`
	Scan                  *ScanConfig                                      `daml:"scan"`
	LegacySequencerConfig *LegacySequencerConfig                           `daml:"legacySequencerConfig"`
	SequencerIdentity     *SequencerIdentityConfig                         `daml:"sequencerIdentity"`
	PhysicalSynchronizers *daml.Map[int64, PhysicalSynchronizerNodeConfig] `daml:"physicalSynchronizers"`
}

// DamlIdentifier implements daml.Identified.
func (SynchronizerNodeConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier("Splice.DSO.DecentralizedSynchronizer", "SynchronizerNodeConfig")
}

// TrafficState is Splice.DsoRules:TrafficState.
type TrafficState struct {
	ConsumedTraffic int64 `daml:"consumedTraffic"`
}

// DamlIdentifier implements daml.Identified.
func (TrafficState) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "TrafficState")
}

// AnsRulesConfig is Splice.Ans:AnsRulesConfig: what a name costs and how
// long it lives.
type AnsRulesConfig struct {
	RenewalDuration   RelTime      `daml:"renewalDuration"`
	EntryLifetime     RelTime      `daml:"entryLifetime"`
	EntryFee          daml.Numeric `daml:"entryFee"`
	DescriptionPrefix string       `daml:"descriptionPrefix"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesConfig) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRulesConfig")
}

// DefaultAnsRulesConfig is Splice's name-service configuration: a 1 USD
// entry fee for 90 days, payable in the last 30 days, with the service's
// acronym (upper case) in the subscription description.
func DefaultAnsRulesConfig(acronym string) AnsRulesConfig {
	return AnsRulesConfig{
		RenewalDuration:   Rel(30 * 24 * time.Hour),
		EntryLifetime:     Rel(90 * 24 * time.Hour),
		EntryFee:          num("1.0"),
		DescriptionPrefix: upperASCII(acronym) + " entry: ",
	}
}

func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
