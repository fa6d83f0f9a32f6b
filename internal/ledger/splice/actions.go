package splice

import "github.com/sandnet/sandnet/internal/daml"

// The actions an SV vote (VoteRequest) or confirmation decides on:
// Splice.DsoRules' ActionRequiringConfirmation and the choice arguments its
// constructors carry. sandnet records votes but does not execute their
// actions, so the choices only some of these name are not implemented;
// their arguments are here for the vote's payload.

// ActionRequiringConfirmation is Splice.DsoRules:ActionRequiringConfirmation.
type ActionRequiringConfirmation struct {
	ARCDsoRules                    *ARCDsoRules        `daml:"ARC_DsoRules"`
	ARCAmuletRules                 *ARCAmuletRules     `daml:"ARC_AmuletRules"`
	ARCAnsEntryContext             *ARCAnsEntryContext `daml:"ARC_AnsEntryContext"`
	ExtActionRequiringConformation *ExtARCDummy        `daml:"ExtActionRequiringConformation"` // sic, as Splice spells it
}

// DamlVariant marks ActionRequiringConfirmation as a Daml variant.
func (ActionRequiringConfirmation) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (ActionRequiringConfirmation) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "ActionRequiringConfirmation")
}

// DsoRulesActionRequiringConfirmation is
// Splice.DsoRules:DsoRules_ActionRequiringConfirmation.
type DsoRulesActionRequiringConfirmation struct {
	SRARCAddSv                                              *DsoRulesAddSv                                              `daml:"SRARC_AddSv"`
	SRARCOffboardSv                                         *DsoRulesOffboardSv                                         `daml:"SRARC_OffboardSv"`
	SRARCConfirmSvOnboarding                                *DsoRulesConfirmSvOnboarding                                `daml:"SRARC_ConfirmSvOnboarding"`
	SRARCGrantFeaturedAppRight                              *DsoRulesGrantFeaturedAppRight                              `daml:"SRARC_GrantFeaturedAppRight"`
	SRARCRevokeFeaturedAppRight                             *DsoRulesRevokeFeaturedAppRight                             `daml:"SRARC_RevokeFeaturedAppRight"`
	SRARCSetConfig                                          *DsoRulesSetConfig                                          `daml:"SRARC_SetConfig"`
	SRARCUpdateSvRewardWeight                               *DsoRulesUpdateSvRewardWeight                               `daml:"SRARC_UpdateSvRewardWeight"`
	SRARCCreateExternalPartyAmuletRules                     *DsoRulesCreateExternalPartyAmuletRules                     `daml:"SRARC_CreateExternalPartyAmuletRules"`
	SRARCCreateTransferCommandCounter                       *DsoRulesCreateTransferCommandCounter                       `daml:"SRARC_CreateTransferCommandCounter"`
	SRARCCreateUnallocatedUnclaimedActivityRecord           *DsoRulesCreateUnallocatedUnclaimedActivityRecord           `daml:"SRARC_CreateUnallocatedUnclaimedActivityRecord"`
	SRARCCreateBootstrapExternalPartyConfigStateInstruction *DsoRulesCreateBootstrapExternalPartyConfigStateInstruction `daml:"SRARC_CreateBootstrapExternalPartyConfigStateInstruction"`
	SRARCUpdateFeaturedAppRight                             *DsoRulesUpdateFeaturedAppRight                             `daml:"SRARC_UpdateFeaturedAppRight"`
}

// DamlVariant marks DsoRulesActionRequiringConfirmation as a Daml variant.
func (DsoRulesActionRequiringConfirmation) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (DsoRulesActionRequiringConfirmation) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_ActionRequiringConfirmation")
}

// AmuletRulesActionRequiringConfirmation is
// Splice.DsoRules:AmuletRules_ActionRequiringConfirmation.
type AmuletRulesActionRequiringConfirmation struct {
	CRARCMiningRoundStartIssuing          *AmuletRulesMiningRoundStartIssuing          `daml:"CRARC_MiningRound_StartIssuing"`
	CRARCMiningRoundArchive               *AmuletRulesMiningRoundArchive               `daml:"CRARC_MiningRound_Archive"`
	CRARCAddFutureAmuletConfigSchedule    *AmuletRulesAddFutureAmuletConfigSchedule    `daml:"CRARC_AddFutureAmuletConfigSchedule"`
	CRARCRemoveFutureAmuletConfigSchedule *AmuletRulesRemoveFutureAmuletConfigSchedule `daml:"CRARC_RemoveFutureAmuletConfigSchedule"`
	CRARCUpdateFutureAmuletConfigSchedule *AmuletRulesUpdateFutureAmuletConfigSchedule `daml:"CRARC_UpdateFutureAmuletConfigSchedule"`
	CRARCSetConfig                        *AmuletRulesSetConfig                        `daml:"CRARC_SetConfig"`
	CRARCStartProcessingRewardsV2         *AmuletRulesStartProcessingRewardsV2         `daml:"CRARC_StartProcessingRewardsV2"`
}

// DamlVariant marks AmuletRulesActionRequiringConfirmation as a Daml variant.
func (AmuletRulesActionRequiringConfirmation) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesActionRequiringConfirmation) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "AmuletRules_ActionRequiringConfirmation")
}

// AnsEntryContextActionRequiringConfirmation is
// Splice.DsoRules:AnsEntryContext_ActionRequiringConfirmation.
type AnsEntryContextActionRequiringConfirmation struct {
	ANSRARCCollectInitialEntryPayment *AnsEntryContextCollectInitialEntryPayment `daml:"ANSRARC_CollectInitialEntryPayment"`
	ANSRARCRejectEntryInitialPayment  *AnsEntryContextRejectEntryInitialPayment  `daml:"ANSRARC_RejectEntryInitialPayment"`
}

// DamlVariant marks AnsEntryContextActionRequiringConfirmation as a Daml
// variant.
func (AnsEntryContextActionRequiringConfirmation) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextActionRequiringConfirmation) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "AnsEntryContext_ActionRequiringConfirmation")
}

// ActionUpdateSvRewardWeight is the action
// ARC_DsoRules{dsoAction = SRARC_UpdateSvRewardWeight{svParty, newRewardWeight}},
// the vote Splice's SV UI proposes to change an SV's reward weight.
func ActionUpdateSvRewardWeight(sv daml.Party, weight int64) ActionRequiringConfirmation {
	return ActionRequiringConfirmation{ARCDsoRules: &ARCDsoRules{DsoAction: DsoRulesActionRequiringConfirmation{
		SRARCUpdateSvRewardWeight: &DsoRulesUpdateSvRewardWeight{SvParty: sv, NewRewardWeight: weight},
	}}}
}

// ARCDsoRules is the argument of ActionRequiringConfirmation's ARC_DsoRules.
type ARCDsoRules struct {
	DsoAction DsoRulesActionRequiringConfirmation `daml:"dsoAction"`
}

// DamlIdentifier implements daml.Identified.
func (ARCDsoRules) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "ActionRequiringConfirmation.ARC_DsoRules")
}

// ARCAmuletRules is the argument of ActionRequiringConfirmation's
// ARC_AmuletRules.
type ARCAmuletRules struct {
	AmuletRulesAction AmuletRulesActionRequiringConfirmation `daml:"amuletRulesAction"`
}

// DamlIdentifier implements daml.Identified.
func (ARCAmuletRules) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "ActionRequiringConfirmation.ARC_AmuletRules")
}

// ARCAnsEntryContext is the argument of ActionRequiringConfirmation's
// ARC_AnsEntryContext.
type ARCAnsEntryContext struct {
	AnsEntryContextCid    daml.ContractID                            `daml:"ansEntryContextCid"`
	AnsEntryContextAction AnsEntryContextActionRequiringConfirmation `daml:"ansEntryContextAction"`
}

// DamlIdentifier implements daml.Identified.
func (ARCAnsEntryContext) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "ActionRequiringConfirmation.ARC_AnsEntryContext")
}

// ExtARCDummy is the argument of ActionRequiringConfirmation's extension
// constructor.
type ExtARCDummy struct {
	DummyUnitField daml.Unit `daml:"dummyUnitField"`
}

// DamlIdentifier implements daml.Identified.
func (ExtARCDummy) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "ActionRequiringConfirmation.ExtActionRequiringConformation")
}

// DsoRulesOffboardSv is the argument of DsoRules_OffboardSv.
type DsoRulesOffboardSv struct {
	Sv daml.Party `daml:"sv"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesOffboardSv) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_OffboardSv")
}

// DsoRulesGrantFeaturedAppRight is the argument of
// DsoRules_GrantFeaturedAppRight.
type DsoRulesGrantFeaturedAppRight struct {
	Provider       daml.Party    `daml:"provider"`
	ActivityWeight *daml.Numeric `daml:"activityWeight"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesGrantFeaturedAppRight) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_GrantFeaturedAppRight")
}

// DsoRulesRevokeFeaturedAppRight is the argument of
// DsoRules_RevokeFeaturedAppRight.
type DsoRulesRevokeFeaturedAppRight struct {
	RightCid daml.ContractID `daml:"rightCid"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesRevokeFeaturedAppRight) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_RevokeFeaturedAppRight")
}

// DsoRulesSetConfig is the argument of DsoRules_SetConfig.
type DsoRulesSetConfig struct {
	NewConfig  DsoRulesConfig  `daml:"newConfig"`
	BaseConfig *DsoRulesConfig `daml:"baseConfig"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesSetConfig) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_SetConfig")
}

// DsoRulesUpdateSvRewardWeight is the argument of
// DsoRules_UpdateSvRewardWeight.
type DsoRulesUpdateSvRewardWeight struct {
	SvParty         daml.Party `daml:"svParty"`
	NewRewardWeight int64      `daml:"newRewardWeight"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesUpdateSvRewardWeight) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_UpdateSvRewardWeight")
}

// DsoRulesCreateExternalPartyAmuletRules is the argument of
// DsoRules_CreateExternalPartyAmuletRules.
type DsoRulesCreateExternalPartyAmuletRules struct{}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCreateExternalPartyAmuletRules) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CreateExternalPartyAmuletRules")
}

// DsoRulesCreateTransferCommandCounter is the argument of
// DsoRules_CreateTransferCommandCounter.
type DsoRulesCreateTransferCommandCounter struct {
	Sender daml.Party `daml:"sender"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCreateTransferCommandCounter) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CreateTransferCommandCounter")
}

// DsoRulesCreateUnallocatedUnclaimedActivityRecord is the argument of
// DsoRules_CreateUnallocatedUnclaimedActivityRecord.
type DsoRulesCreateUnallocatedUnclaimedActivityRecord struct {
	Beneficiary daml.Party     `daml:"beneficiary"`
	Amount      daml.Numeric   `daml:"amount"`
	Reason      string         `daml:"reason"`
	ExpiresAt   daml.Timestamp `daml:"expiresAt"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCreateUnallocatedUnclaimedActivityRecord) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CreateUnallocatedUnclaimedActivityRecord")
}

// DsoRulesCreateBootstrapExternalPartyConfigStateInstruction is the argument
// of DsoRules_CreateBootstrapExternalPartyConfigStateInstruction.
type DsoRulesCreateBootstrapExternalPartyConfigStateInstruction struct{}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCreateBootstrapExternalPartyConfigStateInstruction) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CreateBootstrapExternalPartyConfigStateInstruction")
}

// DsoRulesUpdateFeaturedAppRight is the argument of
// DsoRules_UpdateFeaturedAppRight.
type DsoRulesUpdateFeaturedAppRight struct {
	RightCid daml.ContractID        `daml:"rightCid"`
	Update   FeaturedAppRightUpdate `daml:"update"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesUpdateFeaturedAppRight) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_UpdateFeaturedAppRight")
}

// AmuletRulesAddFutureAmuletConfigSchedule is the argument of
// AmuletRules_AddFutureAmuletConfigSchedule, deprecated since splice-amulet
// 0.1.12.
type AmuletRulesAddFutureAmuletConfigSchedule struct {
	NewScheduleItem Tuple2[daml.Timestamp, AmuletConfig] `daml:"newScheduleItem"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesAddFutureAmuletConfigSchedule) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "AmuletRules_AddFutureAmuletConfigSchedule")
}

// AmuletRulesRemoveFutureAmuletConfigSchedule is the argument of
// AmuletRules_RemoveFutureAmuletConfigSchedule, deprecated since
// splice-amulet 0.1.12.
type AmuletRulesRemoveFutureAmuletConfigSchedule struct {
	ScheduleTime daml.Timestamp `daml:"scheduleTime"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesRemoveFutureAmuletConfigSchedule) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "AmuletRules_RemoveFutureAmuletConfigSchedule")
}

// AmuletRulesUpdateFutureAmuletConfigSchedule is the argument of
// AmuletRules_UpdateFutureAmuletConfigSchedule, deprecated since
// splice-amulet 0.1.12.
type AmuletRulesUpdateFutureAmuletConfigSchedule struct {
	ScheduleItem Tuple2[daml.Timestamp, AmuletConfig] `daml:"scheduleItem"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesUpdateFutureAmuletConfigSchedule) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "AmuletRules_UpdateFutureAmuletConfigSchedule")
}

// AmuletRulesSetConfig is the argument of AmuletRules_SetConfig.
type AmuletRulesSetConfig struct {
	NewConfig  AmuletConfig `daml:"newConfig"`
	BaseConfig AmuletConfig `daml:"baseConfig"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesSetConfig) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "AmuletRules_SetConfig")
}

// AmuletRulesStartProcessingRewardsV2 is the argument of
// AmuletRules_StartProcessingRewardsV2.
type AmuletRulesStartProcessingRewardsV2 struct {
	CalculateRewardsCid daml.ContractID `daml:"calculateRewardsCid"`
	BatchHash           CryptoHash      `daml:"batchHash"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesStartProcessingRewardsV2) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "AmuletRules_StartProcessingRewardsV2")
}

// CryptoHash is Splice.Amulet.CryptoHash:Hash.
type CryptoHash struct {
	Value string `daml:"value"`
}

// DamlIdentifier implements daml.Identified.
func (CryptoHash) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Amulet.CryptoHash", "Hash")
}
