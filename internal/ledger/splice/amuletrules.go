package splice

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Splice.AmuletRules: the DSO's rules for minting, transferring and
// advancing rounds.

// AmuletRules is Splice.AmuletRules:AmuletRules.
type AmuletRules struct {
	DSO daml.Party `daml:"dso"`
	// ConfigSchedule's future values are no longer used (the ensure
	// requires none): only the initial value counts.
	ConfigSchedule Schedule[daml.Timestamp, AmuletConfig] `daml:"configSchedule"`
	IsDevNet       bool                                   `daml:"isDevNet"`
	// ContractStateSchemaVersion is reserved by Splice for bootstrapping
	// new contracts; unset.
	ContractStateSchemaVersion *int64 `daml:"contractStateSchemaVersion"`
}

// TemplateID implements ledger.Template.
func (AmuletRules) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmuletRules, "AmuletRules")
}

// DamlIdentifier implements daml.Identified.
func (r AmuletRules) DamlIdentifier() daml.Identifier { return r.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (r AmuletRules) Signatories() []daml.Party { return []daml.Party{r.DSO} }

// Observers implements ledger.Template.
func (AmuletRules) Observers() []daml.Party { return nil }

// Ensure is the template's ensure: a valid configuration, no future
// values, and no negative schema version.
func (r AmuletRules) Ensure() error {
	if !validAmuletConfig(r.ConfigSchedule.InitialValue) || len(r.ConfigSchedule.FutureValues) > 0 ||
		r.ContractStateSchemaVersion != nil && *r.ContractStateSchemaVersion < 0 {
		return errorf("amulet configuration is invalid")
	}
	return nil
}

func (r AmuletRules) dsoParty() daml.Party { return r.DSO }

// config is getValueAsOf now over the configuration schedule.
func (r AmuletRules) config(now daml.Timestamp) AmuletConfig {
	c := r.ConfigSchedule.InitialValue
	for _, fv := range r.ConfigSchedule.FutureValues {
		if now < fv.First {
			break
		}
		c = fv.Second
	}
	return c
}

// Transfers
// =========

// TransferInput is Splice.AmuletRules:TransferInput. sandnet issues no
// reward coupons and runs no development fund, so only InputAmulet (and
// an ExtTransferInput without a faucet coupon) can be spent; the other
// constructors keep the variant's shape.
type TransferInput struct {
	InputAppRewardCoupon                 *daml.ContractID  `daml:"InputAppRewardCoupon"`
	InputValidatorRewardCoupon           *daml.ContractID  `daml:"InputValidatorRewardCoupon"`
	InputSvRewardCoupon                  *daml.ContractID  `daml:"InputSvRewardCoupon"`
	InputAmulet                          *daml.ContractID  `daml:"InputAmulet"`
	ExtTransferInput                     *ExtTransferInput `daml:"ExtTransferInput"`
	InputValidatorLivenessActivityRecord *daml.ContractID  `daml:"InputValidatorLivenessActivityRecord"`
	InputUnclaimedActivityRecord         *daml.ContractID  `daml:"InputUnclaimedActivityRecord"`
	InputDevelopmentFundCoupon           *daml.ContractID  `daml:"InputDevelopmentFundCoupon"`
	InputRewardCouponV2                  *daml.ContractID  `daml:"InputRewardCouponV2"`
}

// DamlVariant marks TransferInput as a Daml variant.
func (TransferInput) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (TransferInput) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "TransferInput")
}

// ExtTransferInput is the argument of TransferInput's extension
// constructor, which since CIP-3 carries an optional validator faucet
// coupon.
type ExtTransferInput struct {
	DummyUnitField                daml.Unit        `daml:"dummyUnitField"`
	OptInputValidatorFaucetCoupon *daml.ContractID `daml:"optInputValidatorFaucetCoupon"`
}

// DamlIdentifier implements daml.Identified.
func (ExtTransferInput) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "TransferInput.ExtTransferInput")
}

// InputAmulet spends an amulet in a transfer.
func InputAmulet(cid daml.ContractID) TransferInput { return TransferInput{InputAmulet: &cid} }

// InputAmulets spends amulets in a transfer.
func InputAmulets(cids ...daml.ContractID) []TransferInput {
	out := make([]TransferInput, len(cids))
	for i, c := range cids {
		out[i] = InputAmulet(c)
	}
	return out
}

// AppRewardBeneficiary is Splice.Api.FeaturedAppRightV1:AppRewardBeneficiary.
type AppRewardBeneficiary struct {
	Beneficiary daml.Party   `daml:"beneficiary"`
	Weight      daml.Numeric `daml:"weight"`
}

// DamlIdentifier implements daml.Identified.
func (AppRewardBeneficiary) DamlIdentifier() daml.Identifier {
	return PackageFeaturedApp.Identifier("Splice.Api.FeaturedAppRightV1", "AppRewardBeneficiary")
}

// TransferOutput is Splice.AmuletRules:TransferOutput.
type TransferOutput struct {
	Receiver         daml.Party   `daml:"receiver"`
	ReceiverFeeRatio daml.Numeric `daml:"receiverFeeRatio"`
	Amount           daml.Numeric `daml:"amount"`
	Lock             *TimeLock    `daml:"lock"`
	// Meta is token-standard metadata for the transfer's event log.
	Meta *Metadata `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferOutput) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "TransferOutput")
}

// Transfer is Splice.AmuletRules:Transfer, a batch transfer.
type Transfer struct {
	Sender        daml.Party              `daml:"sender"`
	Provider      daml.Party              `daml:"provider"`
	Inputs        []TransferInput         `daml:"inputs"`
	Outputs       []TransferOutput        `daml:"outputs"`
	Beneficiaries *[]AppRewardBeneficiary `daml:"beneficiaries"`
}

// DamlIdentifier implements daml.Identified.
func (Transfer) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "Transfer")
}

// TransferContext is Splice.AmuletRules:TransferContext: the DSO contracts
// a transfer refers to.
type TransferContext struct {
	OpenMiningRound     daml.ContractID                       `daml:"openMiningRound"`
	IssuingMiningRounds daml.Map[Round, daml.ContractID]      `daml:"issuingMiningRounds"`
	ValidatorRights     daml.Map[daml.Party, daml.ContractID] `daml:"validatorRights"`
	FeaturedAppRight    *daml.ContractID                      `daml:"featuredAppRight"`
}

// DamlIdentifier implements daml.Identified.
func (TransferContext) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "TransferContext")
}

// AmuletTransferContext is Splice's amuletTransferContext: a context for
// transfers with amulet inputs only.
func AmuletTransferContext(openRound daml.ContractID) TransferContext {
	return TransferContext{
		OpenMiningRound:     openRound,
		IssuingMiningRounds: daml.Map[Round, daml.ContractID]{},
		ValidatorRights:     daml.Map[daml.Party, daml.ContractID]{},
	}
}

// PaymentTransferContext is Splice.AmuletRules:PaymentTransferContext.
type PaymentTransferContext struct {
	AmuletRules daml.ContractID `daml:"amuletRules"`
	Context     TransferContext `daml:"context"`
}

// DamlIdentifier implements daml.Identified.
func (PaymentTransferContext) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "PaymentTransferContext")
}

// AppTransferContext is Splice.AmuletRules:AppTransferContext.
type AppTransferContext struct {
	AmuletRules      daml.ContractID  `daml:"amuletRules"`
	OpenMiningRound  daml.ContractID  `daml:"openMiningRound"`
	FeaturedAppRight *daml.ContractID `daml:"featuredAppRight"`
}

// DamlIdentifier implements daml.Identified.
func (AppTransferContext) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "AppTransferContext")
}

// CreatedAmulet is Splice.AmuletRules:CreatedAmulet, an output of a
// transfer.
type CreatedAmulet struct {
	TransferResultAmulet       *daml.ContractID `daml:"TransferResultAmulet"`
	TransferResultLockedAmulet *daml.ContractID `daml:"TransferResultLockedAmulet"`
	ExtCreatedAmulet           *ExtDummy        `daml:"ExtCreatedAmulet"`
}

// DamlVariant marks CreatedAmulet as a Daml variant.
func (CreatedAmulet) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (CreatedAmulet) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "CreatedAmulet")
}

// ExtDummy is the argument of CreatedAmulet's extension constructor.
type ExtDummy struct {
	DummyUnitField daml.Unit `daml:"dummyUnitField"`
}

// DamlIdentifier implements daml.Identified.
func (ExtDummy) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "CreatedAmulet.ExtCreatedAmulet")
}

// BalanceChange is Splice.AmuletRules:BalanceChange.
type BalanceChange struct {
	ChangeToInitialAmountAsOfRoundZero daml.Numeric `daml:"changeToInitialAmountAsOfRoundZero"`
	ChangeToHoldingFeesRate            daml.Numeric `daml:"changeToHoldingFeesRate"`
}

// DamlIdentifier implements daml.Identified.
func (BalanceChange) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "BalanceChange")
}

// TransferSummary is Splice.AmuletRules:TransferSummary: the amounts in
// and out of a transfer and the fees paid. Since CIP-78 transfers charge
// no fees: HoldingFees and OutputFees are zero, and SenderChangeFee too
// unless the inputs fall short (then the transfer fails).
type TransferSummary struct {
	InputAppRewardAmount               daml.Numeric                        `daml:"inputAppRewardAmount"`
	InputValidatorRewardAmount         daml.Numeric                        `daml:"inputValidatorRewardAmount"`
	InputSvRewardAmount                daml.Numeric                        `daml:"inputSvRewardAmount"`
	InputAmuletAmount                  daml.Numeric                        `daml:"inputAmuletAmount"`
	BalanceChanges                     daml.Map[daml.Party, BalanceChange] `daml:"balanceChanges"`
	HoldingFees                        daml.Numeric                        `daml:"holdingFees"`
	OutputFees                         []daml.Numeric                      `daml:"outputFees"`
	SenderChangeFee                    daml.Numeric                        `daml:"senderChangeFee"`
	SenderChangeAmount                 daml.Numeric                        `daml:"senderChangeAmount"`
	AmuletPrice                        daml.Numeric                        `daml:"amuletPrice"`
	InputValidatorFaucetAmount         *daml.Numeric                       `daml:"inputValidatorFaucetAmount"`
	InputUnclaimedActivityRecordAmount *daml.Numeric                       `daml:"inputUnclaimedActivityRecordAmount"`
	InputDevelopmentFundAmount         *daml.Numeric                       `daml:"inputDevelopmentFundAmount"`
}

// DamlIdentifier implements daml.Identified.
func (TransferSummary) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "TransferSummary")
}

// Burned is what the transfer destroyed: holding fees, output fees and the
// fee for returning change (Splice's totalBurnFromSummary).
func (s TransferSummary) Burned() (daml.Numeric, error) {
	var a arith
	total := a.add(a.add(s.HoldingFees, a.sum(s.OutputFees...)), s.SenderChangeFee)
	return total, a.err
}

// TransferResult is Splice.AmuletRules:TransferResult.
type TransferResult struct {
	Round              Round            `daml:"round"`
	Summary            TransferSummary  `daml:"summary"`
	CreatedAmulets     []CreatedAmulet  `daml:"createdAmulets"`
	SenderChangeAmulet *daml.ContractID `daml:"senderChangeAmulet"`
	Meta               *Metadata        `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "TransferResult")
}

// Choice arguments and results
// ============================

// amuletRulesID names a record of Splice.AmuletRules.
func amuletRulesID(entity string) daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, entity)
}

// AmuletRulesTransfer is the argument of AmuletRules_Transfer.
type AmuletRulesTransfer struct {
	Transfer Transfer        `daml:"transfer"`
	Context  TransferContext `daml:"context"`
	// ExpectedDso is the DSO the caller expects the rules to be of; a
	// transfer without it fails.
	ExpectedDso *daml.Party `daml:"expectedDso"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesTransfer) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_Transfer")
}

// AmuletRulesComputeFees is the argument of AmuletRules_ComputeFees,
// deprecated since splice-amulet 0.1.17.
type AmuletRulesComputeFees struct {
	Context     TransferContext  `daml:"context"`
	Sender      daml.Party       `daml:"sender"`
	Outputs     []TransferOutput `daml:"outputs"`
	ExpectedDso *daml.Party      `daml:"expectedDso"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesComputeFees) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_ComputeFees")
}

// AmuletRulesComputeFeesResult is AmuletRules_ComputeFees's result.
type AmuletRulesComputeFeesResult struct {
	Fees []daml.Numeric `daml:"fees"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesComputeFeesResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_ComputeFeesResult")
}

// AmuletRulesMint is the argument of AmuletRules_Mint, which only the DSO
// and the receiver together may exercise, on a DevNet.
type AmuletRulesMint struct {
	Receiver  daml.Party      `daml:"receiver"`
	Amount    daml.Numeric    `daml:"amount"`
	OpenRound daml.ContractID `daml:"openRound"`
	Reason    *string         `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesMint) DamlIdentifier() daml.Identifier { return amuletRulesID("AmuletRules_Mint") }

// AmuletRulesMintResult is AmuletRules_Mint's result.
type AmuletRulesMintResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesMintResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_MintResult")
}

// AmuletRulesDevNetTap is the argument of AmuletRules_DevNet_Tap: the
// amount is in amulet.
type AmuletRulesDevNetTap struct {
	Receiver  daml.Party      `daml:"receiver"`
	Amount    daml.Numeric    `daml:"amount"`
	OpenRound daml.ContractID `daml:"openRound"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesDevNetTap) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_DevNet_Tap")
}

// AmuletRulesDevNetTapResult is AmuletRules_DevNet_Tap's result.
type AmuletRulesDevNetTapResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
	Meta      *Metadata           `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesDevNetTapResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_DevNet_TapResult")
}

// AmuletRulesDevNetFeatureApp is the argument of
// AmuletRules_DevNet_FeatureApp, by which a provider features its own app
// on a DevNet.
type AmuletRulesDevNetFeatureApp struct {
	Provider       daml.Party    `daml:"provider"`
	ActivityWeight *daml.Numeric `daml:"activityWeight"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesDevNetFeatureApp) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_DevNet_FeatureApp")
}

// AmuletRulesDevNetFeatureAppResult is AmuletRules_DevNet_FeatureApp's
// result.
type AmuletRulesDevNetFeatureAppResult struct {
	FeaturedAppRightCid daml.ContractID `daml:"featuredAppRightCid"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesDevNetFeatureAppResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_DevNet_FeatureAppResult")
}

// AmuletRulesFetch is the argument of AmuletRules_Fetch, by which a party
// that sees disclosed rules reads them inside a transaction.
type AmuletRulesFetch struct {
	P daml.Party `daml:"p"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesFetch) DamlIdentifier() daml.Identifier { return amuletRulesID("AmuletRules_Fetch") }

// AmuletRulesBootstrapRounds is the argument of AmuletRules_Bootstrap_Rounds.
type AmuletRulesBootstrapRounds struct {
	AmuletPrice    daml.Numeric `daml:"amuletPrice"`
	Round0Duration RelTime      `daml:"round0Duration"`
	InitialRound   *int64       `daml:"initialRound"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesBootstrapRounds) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_Bootstrap_Rounds")
}

// AmuletRulesBootstrapRoundsResult is AmuletRules_Bootstrap_Rounds's result.
type AmuletRulesBootstrapRoundsResult struct {
	OpenMiningRoundCid daml.ContractID `daml:"openMiningRoundCid"`
	InitialRound       *Round          `daml:"initialRound"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesBootstrapRoundsResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_Bootstrap_RoundsResult")
}

// AmuletRulesAdvanceOpenMiningRounds is the argument of
// AmuletRules_AdvanceOpenMiningRounds.
type AmuletRulesAdvanceOpenMiningRounds struct {
	AmuletPrice       daml.Numeric    `daml:"amuletPrice"`
	RoundToArchiveCid daml.ContractID `daml:"roundToArchiveCid"`
	MiddleRoundCid    daml.ContractID `daml:"middleRoundCid"`
	LatestRoundCid    daml.ContractID `daml:"latestRoundCid"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesAdvanceOpenMiningRounds) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_AdvanceOpenMiningRounds")
}

// AmuletRulesAdvanceOpenMiningRoundsResult is the choice's result.
type AmuletRulesAdvanceOpenMiningRoundsResult struct {
	SummarizingRoundCid daml.ContractID `daml:"summarizingRoundCid"`
	OpenRoundCid        daml.ContractID `daml:"openRoundCid"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesAdvanceOpenMiningRoundsResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_AdvanceOpenMiningRoundsResult")
}

// AmuletRulesMiningRoundStartIssuing is the argument of
// AmuletRules_MiningRound_StartIssuing.
type AmuletRulesMiningRoundStartIssuing struct {
	MiningRoundCid daml.ContractID        `daml:"miningRoundCid"`
	Summary        OpenMiningRoundSummary `daml:"summary"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesMiningRoundStartIssuing) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_MiningRound_StartIssuing")
}

// AmuletRulesMiningRoundStartIssuingResult is the choice's result.
type AmuletRulesMiningRoundStartIssuingResult struct {
	IssuingRoundCid                   daml.ContractID  `daml:"issuingRoundCid"`
	UnclaimedDevelopmentFundCouponCid *daml.ContractID `daml:"unclaimedDevelopmentFundCouponCid"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesMiningRoundStartIssuingResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_MiningRound_StartIssuingResult")
}

// AmuletRulesMiningRoundClose is the argument of AmuletRules_MiningRound_Close.
type AmuletRulesMiningRoundClose struct {
	IssuingRoundCid daml.ContractID `daml:"issuingRoundCid"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesMiningRoundClose) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_MiningRound_Close")
}

// AmuletRulesMiningRoundCloseResult is the choice's result.
type AmuletRulesMiningRoundCloseResult struct {
	ClosedRoundCid daml.ContractID `daml:"closedRoundCid"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesMiningRoundCloseResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_MiningRound_CloseResult")
}

// AmuletRulesMiningRoundArchive is the argument of
// AmuletRules_MiningRound_Archive.
type AmuletRulesMiningRoundArchive struct {
	ClosedRoundCid daml.ContractID `daml:"closedRoundCid"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesMiningRoundArchive) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_MiningRound_Archive")
}

// AmuletRulesMiningRoundArchiveResult is the choice's (empty) result.
type AmuletRulesMiningRoundArchiveResult struct{}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesMiningRoundArchiveResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_MiningRound_ArchiveResult")
}

// maxTapAmount is the most amulet one AmuletRules_DevNet_Tap mints.
var maxTapAmount = num("100000000.0")

func registerAmuletRules(r *ledger.Registry) {
	ledger.RegisterTemplate[AmuletRules](r)
	dso := func(rules AmuletRules) []daml.Party { return []daml.Party{rules.DSO} }

	ledger.AddChoice(r, "AmuletRules_ComputeFees", false,
		func(_ AmuletRules, arg AmuletRulesComputeFees) []daml.Party { return []daml.Party{arg.Sender} },
		func(*ledger.Tx, daml.ContractID, AmuletRules, AmuletRulesComputeFees) (AmuletRulesComputeFeesResult, error) {
			return AmuletRulesComputeFeesResult{}, deprecatedChoice(PackageAmulet.Name, "0.1.17", "AmuletRules_ComputeFees")
		})

	ledger.AddChoice(r, "AmuletRules_Transfer", false,
		func(_ AmuletRules, arg AmuletRulesTransfer) []daml.Party { return transferControllers(arg.Transfer) },
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesTransfer) (TransferResult, error) {
			if err := checkExpectedDso(rules.DSO, arg.ExpectedDso); err != nil {
				return TransferResult{}, err
			}
			return executeTransfer(tx, rules.DSO, arg.Context, arg.Transfer)
		})

	ledger.AddChoice(r, "AmuletRules_Mint", false,
		func(rules AmuletRules, arg AmuletRulesMint) []daml.Party {
			return []daml.Party{rules.DSO, arg.Receiver}
		},
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesMint) (AmuletRulesMintResult, error) {
			if err := require(tx, "isDevNet flag is true", rules.IsDevNet); err != nil {
				return AmuletRulesMintResult{}, err
			}
			round, err := fetchDsoContract[OpenMiningRound](tx, arg.OpenRound, rules.DSO)
			if err != nil {
				return AmuletRulesMintResult{}, err
			}
			cfg, err := round.TransferConfigAmulet()
			if err != nil {
				return AmuletRulesMintResult{}, err
			}
			cid, err := ledger.Create(tx, Amulet{DSO: rules.DSO, Owner: arg.Receiver, Amount: ExpiringAmount{
				InitialAmount: arg.Amount, CreatedAt: round.Round, RatePerRound: cfg.HoldingFee,
			}})
			if err != nil {
				return AmuletRulesMintResult{}, err
			}
			return AmuletRulesMintResult{AmuletSum: AmuletCreateSummary{Amulet: cid, AmuletPrice: round.AmuletPrice, Round: round.Round}}, nil
		})

	ledger.AddChoice(r, "AmuletRules_DevNet_Tap", false,
		func(_ AmuletRules, arg AmuletRulesDevNetTap) []daml.Party { return []daml.Party{arg.Receiver} },
		func(tx *ledger.Tx, self daml.ContractID, rules AmuletRules, arg AmuletRulesDevNetTap) (AmuletRulesDevNetTapResult, error) {
			if err := require(tx, "isDevNet flag is true", rules.IsDevNet); err != nil {
				return AmuletRulesDevNetTapResult{}, err
			}
			// Splice caps a tap so that sums downstream (the total supply,
			// a wallet's balance) stay far from Decimal's range.
			if err := require(tx, "Tapped amount <= 100,000,000", arg.Amount.Cmp(maxTapAmount) <= 0); err != nil {
				return AmuletRulesDevNetTapResult{}, err
			}
			reason := "tapped DevNet faucet"
			res, err := ledger.Exercise[AmuletRulesMintResult](tx, self, "AmuletRules_Mint", AmuletRulesMint{
				Receiver: arg.Receiver, Amount: arg.Amount, OpenRound: arg.OpenRound, Reason: &reason,
			})
			if err != nil {
				return AmuletRulesDevNetTapResult{}, err
			}
			return AmuletRulesDevNetTapResult{AmuletSum: res.AmuletSum, Meta: holdingTxMeta(txKindMint, &reason, nil, nil)}, nil
		})

	ledger.AddChoice(r, "AmuletRules_DevNet_FeatureApp", false,
		func(_ AmuletRules, arg AmuletRulesDevNetFeatureApp) []daml.Party { return []daml.Party{arg.Provider} },
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesDevNetFeatureApp) (AmuletRulesDevNetFeatureAppResult, error) {
			if err := require(tx, "isDevNet flag is true", rules.IsDevNet); err != nil {
				return AmuletRulesDevNetFeatureAppResult{}, err
			}
			cid, err := ledger.Create(tx, FeaturedAppRight{DSO: rules.DSO, Provider: arg.Provider, ActivityWeight: arg.ActivityWeight})
			return AmuletRulesDevNetFeatureAppResult{FeaturedAppRightCid: cid}, err
		})

	ledger.AddChoice(r, "AmuletRules_Fetch", false,
		func(_ AmuletRules, arg AmuletRulesFetch) []daml.Party { return []daml.Party{arg.P} },
		func(_ *ledger.Tx, _ daml.ContractID, rules AmuletRules, _ AmuletRulesFetch) (AmuletRules, error) {
			return rules, nil
		})

	ledger.AddChoice(r, "AmuletRules_Bootstrap_Rounds", false,
		func(rules AmuletRules, _ AmuletRulesBootstrapRounds) []daml.Party { return dso(rules) },
		bootstrapRounds)
	ledger.AddChoice(r, "AmuletRules_AdvanceOpenMiningRounds", false,
		func(rules AmuletRules, _ AmuletRulesAdvanceOpenMiningRounds) []daml.Party { return dso(rules) },
		advanceOpenMiningRounds)
	ledger.AddChoice(r, "AmuletRules_MiningRound_StartIssuing", false,
		func(rules AmuletRules, _ AmuletRulesMiningRoundStartIssuing) []daml.Party { return dso(rules) },
		startIssuing)

	ledger.AddChoice(r, "AmuletRules_MiningRound_Close", false,
		func(rules AmuletRules, _ AmuletRulesMiningRoundClose) []daml.Party { return dso(rules) },
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesMiningRoundClose) (AmuletRulesMiningRoundCloseResult, error) {
			round, err := fetchAndArchiveDso[IssuingMiningRound](tx, arg.IssuingRoundCid, rules.DSO)
			if err != nil {
				return AmuletRulesMiningRoundCloseResult{}, err
			}
			if err := require(tx, "Mining round is past targetClosesAt", round.TargetClosesAt <= tx.Now()); err != nil {
				return AmuletRulesMiningRoundCloseResult{}, err
			}
			cid, err := ledger.Create(tx, ClosedMiningRound{
				DSO: rules.DSO, Round: round.Round,
				IssuancePerValidatorRewardCoupon:     round.IssuancePerValidatorRewardCoupon,
				IssuancePerFeaturedAppRewardCoupon:   round.IssuancePerFeaturedAppRewardCoupon,
				IssuancePerUnfeaturedAppRewardCoupon: round.IssuancePerUnfeaturedAppRewardCoupon,
				IssuancePerSvRewardCoupon:            round.IssuancePerSvRewardCoupon,
				OptIssuancePerValidatorFaucetCoupon:  round.OptIssuancePerValidatorFaucetCoupon,
			})
			return AmuletRulesMiningRoundCloseResult{ClosedRoundCid: cid}, err
		})

	ledger.AddChoice(r, "AmuletRules_MiningRound_Archive", false,
		func(rules AmuletRules, _ AmuletRulesMiningRoundArchive) []daml.Party { return dso(rules) },
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesMiningRoundArchive) (AmuletRulesMiningRoundArchiveResult, error) {
			_, err := fetchAndArchiveDso[ClosedMiningRound](tx, arg.ClosedRoundCid, rules.DSO)
			return AmuletRulesMiningRoundArchiveResult{}, err
		})
}

// bootstrapRounds is AmuletRules_Bootstrap_Rounds: the first two rounds
// open at once, the third one round0Duration later; then the
// external-party config states are bootstrapped from them
// (AmuletRules_BootstrapExternalPartyConfigState).
func bootstrapRounds(tx *ledger.Tx, self daml.ContractID, rules AmuletRules, arg AmuletRulesBootstrapRounds) (AmuletRulesBootstrapRoundsResult, error) {
	if err := require(tx, "contractStateSchemaVersion is not set", rules.ContractStateSchemaVersion == nil); err != nil {
		return AmuletRulesBootstrapRoundsResult{}, err
	}
	now := tx.Now()
	cfg := rules.config(now)
	tick := cfg.TickDuration
	var first int64
	if arg.InitialRound != nil {
		first = *arg.InitialRound
	}
	if err := require(tx, "Round0 duration is larger or equal to tick duration", tick.Microseconds <= arg.Round0Duration.Microseconds); err != nil {
		return AmuletRulesBootstrapRoundsResult{}, err
	}
	closes0 := addRel(now, arg.Round0Duration)
	opens := []daml.Timestamp{now, now, closes0}
	closes := []daml.Timestamp{closes0, addRel(closes0, tick), addRel(addRel(closes0, tick), tick)}
	var a arith
	issuingFor0 := a.mulInt(first, tick.Microseconds)
	if a.err != nil {
		return AmuletRulesBootstrapRoundsResult{}, a.err
	}
	trafficPrice := roundTrafficPrice(cfg)
	var cids [3]daml.ContractID
	for i := range 3 {
		issuingFor := RelTime{Microseconds: issuingFor0 + int64(i)*tick.Microseconds}
		cid, err := ledger.Create(tx, OpenMiningRound{
			DSO: rules.DSO, Round: Round{Number: first + int64(i)}, AmuletPrice: arg.AmuletPrice,
			OpensAt: opens[i], TargetClosesAt: closes[i], IssuingFor: issuingFor,
			TransferConfigUSD: cfg.TransferConfig, IssuanceConfig: issuanceAt(cfg.IssuanceCurve, issuingFor),
			TickDuration: tick, TrafficPrice: trafficPrice, RewardConfig: cfg.RewardConfig,
		})
		if err != nil {
			return AmuletRulesBootstrapRoundsResult{}, err
		}
		cids[i] = cid
	}
	if _, err := ledger.Exercise[AmuletRulesBootstrapExternalPartyConfigStateResult](tx, self, "AmuletRules_BootstrapExternalPartyConfigState",
		AmuletRulesBootstrapExternalPartyConfigState{
			OpenMiningRoundTriple: OpenMiningRoundTriple{Round0Cid: cids[0], Round1Cid: cids[1], Round2Cid: cids[2]},
			ExpectedDso:           rules.DSO,
		}); err != nil {
		return AmuletRulesBootstrapRoundsResult{}, err
	}
	return AmuletRulesBootstrapRoundsResult{OpenMiningRoundCid: cids[2], InitialRound: &Round{Number: first}}, nil
}

// roundTrafficPrice is the traffic price a new round records: the
// configured one, but only once rewards are computed off-ledger, so that
// rounds stay readable by older package versions until then (as Splice
// does).
func roundTrafficPrice(cfg AmuletConfig) *daml.Numeric {
	if cfg.RewardConfig == nil {
		return nil
	}
	return ptr(cfg.DecentralizedSynchronizer.Fees.ExtraTrafficPrice)
}

// advanceOpenMiningRounds is AmuletRules_AdvanceOpenMiningRounds: the
// oldest open round starts summarizing and a new round is opened after the
// latest one, with the same preconditions as Splice.
//
// One deviation: Splice opens the new round one tick after
// max(now, latest.opensAt), which delays the schedule by however late the
// DSO acts. sandnet opens it one tick after latest.opensAt, but never more
// than one tick in the past. On schedule the two agree; after the clock
// jumps ahead, three advances in one transaction bring the open rounds
// back to a current set (opened a tick ago, opening now, opening in a
// tick) instead of one advance per tick of waiting.
func advanceOpenMiningRounds(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesAdvanceOpenMiningRounds) (AmuletRulesAdvanceOpenMiningRoundsResult, error) {
	var res AmuletRulesAdvanceOpenMiningRoundsResult
	oldest, err := fetchAndArchiveDso[OpenMiningRound](tx, arg.RoundToArchiveCid, rules.DSO)
	if err != nil {
		return res, err
	}
	middle, err := fetchDsoContract[OpenMiningRound](tx, arg.MiddleRoundCid, rules.DSO)
	if err != nil {
		return res, err
	}
	latest, err := fetchDsoContract[OpenMiningRound](tx, arg.LatestRoundCid, rules.DSO)
	if err != nil {
		return res, err
	}
	now := tx.Now()
	for _, check := range []struct {
		msg string
		ok  bool
	}{
		{"middleRound is one after roundToArchive", middle.Round.Number == oldest.Round.Number+1},
		{"latestRound is one after middleRound", latest.Round.Number == middle.Round.Number+1},
		{"roundToArchive is past targetCloseAt", oldest.TargetClosesAt <= now},
		{"latestRound is open", latest.OpensAt <= now},
		{"middle round has been open for >= 1 tick", addRel(middle.OpensAt, middle.TickDuration) <= now},
	} {
		if err := require(tx, check.msg, check.ok); err != nil {
			return res, err
		}
	}
	if res.SummarizingRoundCid, err = ledger.Create(tx, SummarizingMiningRound{
		DSO: rules.DSO, Round: oldest.Round, AmuletPrice: oldest.AmuletPrice,
		IssuanceConfig: oldest.IssuanceConfig, TickDuration: oldest.TickDuration,
		TrafficPrice: oldest.TrafficPrice, RewardConfig: oldest.RewardConfig,
	}); err != nil {
		return res, err
	}
	if oldest.RewardConfig != nil {
		// Splice starts the off-ledger reward calculation (CIP-104) here
		// (CalculateRewardsV2), which sandnet does not implement.
		return res, abort("sandnet does not implement CIP-104 reward calculation (OpenMiningRound.rewardConfig is set)")
	}
	cfg := rules.config(now)
	tick := cfg.TickDuration
	opensAt := max(addRel(latest.OpensAt, tick), now-daml.Timestamp(tick.Microseconds))
	issuingFor := RelTime{Microseconds: latest.IssuingFor.Microseconds + latest.TickDuration.Microseconds}
	res.OpenRoundCid, err = ledger.Create(tx, OpenMiningRound{
		DSO: rules.DSO, Round: Round{Number: latest.Round.Number + 1}, AmuletPrice: arg.AmuletPrice,
		OpensAt: opensAt, TargetClosesAt: addRel(addRel(opensAt, tick), tick), IssuingFor: issuingFor,
		TransferConfigUSD: cfg.TransferConfig, IssuanceConfig: issuanceAt(cfg.IssuanceCurve, issuingFor),
		TickDuration: tick, TrafficPrice: roundTrafficPrice(cfg), RewardConfig: cfg.RewardConfig,
	})
	return res, err
}

// startIssuing is AmuletRules_MiningRound_StartIssuing: the summarizing
// round becomes an issuing round, with the issuance per coupon its
// summary allows; what nobody can claim becomes an UnclaimedReward and
// the development fund's share an UnclaimedDevelopmentFundCoupon.
func startIssuing(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesMiningRoundStartIssuing) (AmuletRulesMiningRoundStartIssuingResult, error) {
	var res AmuletRulesMiningRoundStartIssuingResult
	round, err := fetchAndArchiveDso[SummarizingMiningRound](tx, arg.MiningRoundCid, rules.DSO)
	if err != nil {
		return res, err
	}
	s := arg.Summary
	for _, check := range []struct {
		msg string
		ok  bool
	}{
		{"totalValidatorRewardCoupons >= 0.0", s.TotalValidatorRewardCoupons.Sign() >= 0},
		{"totalFeaturedAppRewardCoupons >= 0.0", s.TotalFeaturedAppRewardCoupons.Sign() >= 0},
		{"totalUnfeaturedAppRewardCoupons >= 0.0", s.TotalUnfeaturedAppRewardCoupons.Sign() >= 0},
		{"totalValidatorFaucetCoupons >= 0", s.OptTotalValidatorFaucetCoupons == nil || *s.OptTotalValidatorFaucetCoupons >= 0},
	} {
		if err := require(tx, check.msg, check.ok); err != nil {
			return res, err
		}
	}
	p, err := computeIssuingRoundParameters(round.TickDuration, round.AmuletPrice, round.IssuanceConfig, s)
	if err != nil {
		return res, err
	}
	var a arith
	unclaimed := a.sum(p.unclaimedValidatorRewards, p.unclaimedAppRewards, p.unclaimedSvRewards)
	if a.err != nil {
		return res, a.err
	}
	if unclaimed.Sign() > 0 {
		if _, err := ledger.Create(tx, UnclaimedReward{DSO: rules.DSO, Amount: unclaimed}); err != nil {
			return res, err
		}
	}
	if p.toDevelopmentFund.Sign() > 0 {
		cid, err := ledger.Create(tx, UnclaimedDevelopmentFundCoupon{DSO: rules.DSO, Amount: p.toDevelopmentFund})
		if err != nil {
			return res, err
		}
		res.UnclaimedDevelopmentFundCouponCid = &cid
	}
	opensAt := addRel(tx.Now(), round.TickDuration)
	res.IssuingRoundCid, err = ledger.Create(tx, IssuingMiningRound{
		DSO: rules.DSO, Round: round.Round,
		IssuancePerValidatorRewardCoupon:     p.perValidatorReward,
		IssuancePerFeaturedAppRewardCoupon:   p.perFeaturedAppReward,
		IssuancePerUnfeaturedAppRewardCoupon: p.perUnfeaturedAppReward,
		IssuancePerSvRewardCoupon:            p.perSvReward,
		OpensAt:                              opensAt,
		TargetClosesAt:                       addRel(addRel(opensAt, round.TickDuration), round.TickDuration),
		OptIssuancePerValidatorFaucetCoupon:  ptr(p.perValidatorFaucet),
	})
	return res, err
}

// transferControllers is Splice's transferControllers: the sender, the
// provider, every receiver and every lock holder.
func transferControllers(t Transfer) []daml.Party {
	ps := []daml.Party{t.Sender, t.Provider}
	for _, o := range t.Outputs {
		ps = append(ps, o.Receiver)
		if o.Lock != nil {
			ps = append(ps, o.Lock.Holders...)
		}
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

// dedupLockHolders stores each lock holder once, and never the receiver
// (Splice's dedupOutputLockHolders).
func dedupLockHolders(o TransferOutput) TransferOutput {
	if o.Lock == nil {
		return o
	}
	l := *o.Lock
	var hs []daml.Party
	for _, h := range l.Holders {
		if h != o.Receiver {
			hs = append(hs, h)
		}
	}
	slices.Sort(hs)
	l.Holders = slices.Compact(hs)
	if l.Holders == nil {
		l.Holders = []daml.Party{}
	}
	o.Lock = &l
	return o
}
