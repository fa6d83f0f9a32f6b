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
	DSO            daml.Party                             `daml:"dso"`
	ConfigSchedule Schedule[daml.Timestamp, AmuletConfig] `daml:"configSchedule"`
	IsDevNet       bool                                   `daml:"isDevNet"`
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

// Ensure is Splice's validSchedule over validAmuletConfig.
func (r AmuletRules) Ensure() error {
	for _, c := range append([]AmuletConfig{r.ConfigSchedule.InitialValue}, scheduleValues(r.ConfigSchedule)...) {
		if !validAmuletConfig(c) {
			return errInvalidConfig
		}
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

func scheduleValues[T, A any](s Schedule[T, A]) []A {
	out := make([]A, len(s.FutureValues))
	for i, fv := range s.FutureValues {
		out[i] = fv.Second
	}
	return out
}

// Transfers
// =========

// TransferInput is Splice.AmuletRules:TransferInput. sandnet issues no
// reward coupons, so only InputAmulet is spendable; the other constructors
// keep the variant's shape.
type TransferInput struct {
	InputAppRewardCoupon                 *daml.ContractID  `daml:"InputAppRewardCoupon"`
	InputValidatorRewardCoupon           *daml.ContractID  `daml:"InputValidatorRewardCoupon"`
	InputSvRewardCoupon                  *daml.ContractID  `daml:"InputSvRewardCoupon"`
	InputAmulet                          *daml.ContractID  `daml:"InputAmulet"`
	ExtTransferInput                     *ExtTransferInput `daml:"ExtTransferInput"`
	InputValidatorLivenessActivityRecord *daml.ContractID  `daml:"InputValidatorLivenessActivityRecord"`
}

// DamlVariant marks TransferInput as a Daml variant.
func (TransferInput) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (TransferInput) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletRules, "TransferInput")
}

// ExtTransferInput is the argument of TransferInput's extension
// constructor.
type ExtTransferInput struct {
	DummyUnitField                daml.Unit        `daml:"dummyUnitField"`
	OptInputValidatorFaucetCoupon *daml.ContractID `daml:"optInputValidatorFaucetCoupon"`
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

// ExtDummy is the argument of Splice's extension constructors.
type ExtDummy struct {
	DummyUnitField daml.Unit `daml:"dummyUnitField"`
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
// and out of a transfer and the fees paid. HoldingFees, OutputFees and
// SenderChangeFee are burned.
type TransferSummary struct {
	InputAppRewardAmount       daml.Numeric                        `daml:"inputAppRewardAmount"`
	InputValidatorRewardAmount daml.Numeric                        `daml:"inputValidatorRewardAmount"`
	InputSvRewardAmount        daml.Numeric                        `daml:"inputSvRewardAmount"`
	InputAmuletAmount          daml.Numeric                        `daml:"inputAmuletAmount"`
	BalanceChanges             daml.Map[daml.Party, BalanceChange] `daml:"balanceChanges"`
	HoldingFees                daml.Numeric                        `daml:"holdingFees"`
	OutputFees                 []daml.Numeric                      `daml:"outputFees"`
	SenderChangeFee            daml.Numeric                        `daml:"senderChangeFee"`
	SenderChangeAmount         daml.Numeric                        `daml:"senderChangeAmount"`
	AmuletPrice                daml.Numeric                        `daml:"amuletPrice"`
	InputValidatorFaucetAmount *daml.Numeric                       `daml:"inputValidatorFaucetAmount"`
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

// AmuletRulesTransfer is the argument of AmuletRules_Transfer.
type AmuletRulesTransfer struct {
	Transfer Transfer        `daml:"transfer"`
	Context  TransferContext `daml:"context"`
}

// AmuletRulesComputeFees is the argument of AmuletRules_ComputeFees.
type AmuletRulesComputeFees struct {
	Context TransferContext  `daml:"context"`
	Sender  daml.Party       `daml:"sender"`
	Outputs []TransferOutput `daml:"outputs"`
}

// AmuletRulesComputeFeesResult is AmuletRules_ComputeFees's result.
type AmuletRulesComputeFeesResult struct {
	Fees []daml.Numeric `daml:"fees"`
}

// AmuletRulesMint is the argument of AmuletRules_Mint.
type AmuletRulesMint struct {
	Receiver  daml.Party      `daml:"receiver"`
	Amount    daml.Numeric    `daml:"amount"`
	OpenRound daml.ContractID `daml:"openRound"`
}

// AmuletRulesMintResult is AmuletRules_Mint's result.
type AmuletRulesMintResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
}

// AmuletRulesDevNetTap is the argument of AmuletRules_DevNet_Tap: the
// amount is in amulet.
type AmuletRulesDevNetTap struct {
	Receiver  daml.Party      `daml:"receiver"`
	Amount    daml.Numeric    `daml:"amount"`
	OpenRound daml.ContractID `daml:"openRound"`
}

// AmuletRulesDevNetTapResult is AmuletRules_DevNet_Tap's result.
type AmuletRulesDevNetTapResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
	Meta      *Metadata           `daml:"meta"`
}

// AmuletRulesBootstrapRounds is the argument of AmuletRules_Bootstrap_Rounds.
type AmuletRulesBootstrapRounds struct {
	AmuletPrice    daml.Numeric `daml:"amuletPrice"`
	Round0Duration RelTime      `daml:"round0Duration"`
}

// AmuletRulesBootstrapRoundsResult is AmuletRules_Bootstrap_Rounds's result.
type AmuletRulesBootstrapRoundsResult struct {
	OpenMiningRoundCid daml.ContractID `daml:"openMiningRoundCid"`
}

// AmuletRulesAdvanceOpenMiningRounds is the argument of
// AmuletRules_AdvanceOpenMiningRounds.
type AmuletRulesAdvanceOpenMiningRounds struct {
	AmuletPrice       daml.Numeric    `daml:"amuletPrice"`
	RoundToArchiveCid daml.ContractID `daml:"roundToArchiveCid"`
	MiddleRoundCid    daml.ContractID `daml:"middleRoundCid"`
	LatestRoundCid    daml.ContractID `daml:"latestRoundCid"`
}

// AmuletRulesAdvanceOpenMiningRoundsResult is the choice's result.
type AmuletRulesAdvanceOpenMiningRoundsResult struct {
	SummarizingRoundCid daml.ContractID `daml:"summarizingRoundCid"`
	OpenRoundCid        daml.ContractID `daml:"openRoundCid"`
}

// AmuletRulesMiningRoundStartIssuing is the argument of
// AmuletRules_MiningRound_StartIssuing.
type AmuletRulesMiningRoundStartIssuing struct {
	MiningRoundCid daml.ContractID        `daml:"miningRoundCid"`
	Summary        OpenMiningRoundSummary `daml:"summary"`
}

// AmuletRulesMiningRoundStartIssuingResult is the choice's result.
type AmuletRulesMiningRoundStartIssuingResult struct {
	IssuingRoundCid daml.ContractID `daml:"issuingRoundCid"`
}

// AmuletRulesMiningRoundClose is the argument of AmuletRules_MiningRound_Close.
type AmuletRulesMiningRoundClose struct {
	IssuingRoundCid daml.ContractID `daml:"issuingRoundCid"`
}

// AmuletRulesMiningRoundCloseResult is the choice's result.
type AmuletRulesMiningRoundCloseResult struct {
	ClosedRoundCid daml.ContractID `daml:"closedRoundCid"`
}

// AmuletRulesMiningRoundArchive is the argument of
// AmuletRules_MiningRound_Archive.
type AmuletRulesMiningRoundArchive struct {
	ClosedRoundCid daml.ContractID `daml:"closedRoundCid"`
}

// maxTapAmount is the most amulet one AmuletRules_DevNet_Tap mints.
var maxTapAmount = num("100000000.0")

func registerAmuletRules(r *ledger.Registry) {
	ledger.RegisterTemplate[AmuletRules](r)
	dso := func(rules AmuletRules) []daml.Party { return []daml.Party{rules.DSO} }

	ledger.AddChoice(r, "AmuletRules_ComputeFees", false,
		func(_ AmuletRules, arg AmuletRulesComputeFees) []daml.Party { return []daml.Party{arg.Sender} },
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesComputeFees) (AmuletRulesComputeFeesResult, error) {
			round, err := fetchDsoContract[OpenMiningRound](tx, arg.Context.OpenMiningRound, rules.DSO)
			if err != nil {
				return AmuletRulesComputeFeesResult{}, err
			}
			cfg, err := round.TransferConfigAmulet()
			if err != nil {
				return AmuletRulesComputeFeesResult{}, err
			}
			var a arith
			fees := make([]daml.Numeric, len(arg.Outputs))
			for i, out := range arg.Outputs {
				fees[i] = outputFee(&a, cfg, arg.Sender, dedupLockHolders(out))
			}
			return AmuletRulesComputeFeesResult{Fees: fees}, a.err
		})

	ledger.AddChoice(r, "AmuletRules_Transfer", false,
		func(_ AmuletRules, arg AmuletRulesTransfer) []daml.Party { return transferControllers(arg.Transfer) },
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesTransfer) (TransferResult, error) {
			return executeTransfer(tx, rules.DSO, arg.Context, arg.Transfer)
		})

	ledger.AddChoice(r, "AmuletRules_Mint", false,
		func(rules AmuletRules, arg AmuletRulesMint) []daml.Party {
			return []daml.Party{rules.DSO, arg.Receiver}
		},
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesMint) (AmuletRulesMintResult, error) {
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
			if err := tx.Require(rules.IsDevNet, "isDevNet flag is true"); err != nil {
				return AmuletRulesDevNetTapResult{}, err
			}
			// Splice caps a tap so that sums downstream (the total supply,
			// a wallet's balance) stay far from Decimal's range.
			if err := tx.Require(arg.Amount.Cmp(maxTapAmount) <= 0, "The requirement 'Tapped amount <= 100,000,000' was not met."); err != nil {
				return AmuletRulesDevNetTapResult{}, err
			}
			res, err := ledger.Exercise[AmuletRulesMintResult](tx, self, "AmuletRules_Mint", AmuletRulesMint(arg))
			if err != nil {
				return AmuletRulesDevNetTapResult{}, err
			}
			reason := "tapped DevNet faucet"
			return AmuletRulesDevNetTapResult{AmuletSum: res.AmuletSum, Meta: holdingTxMeta(txKindMint, &reason, nil, nil)}, nil
		})

	ledger.AddChoice(r, "AmuletRules_Bootstrap_Rounds", false,
		func(rules AmuletRules, _ AmuletRulesBootstrapRounds) []daml.Party { return dso(rules) },
		bootstrapRounds)
	ledger.AddChoice(r, "AmuletRules_AdvanceOpenMiningRounds", false,
		func(rules AmuletRules, _ AmuletRulesAdvanceOpenMiningRounds) []daml.Party { return dso(rules) },
		advanceOpenMiningRounds)

	ledger.AddChoice(r, "AmuletRules_MiningRound_StartIssuing", false,
		func(rules AmuletRules, _ AmuletRulesMiningRoundStartIssuing) []daml.Party { return dso(rules) },
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesMiningRoundStartIssuing) (AmuletRulesMiningRoundStartIssuingResult, error) {
			round, err := fetchAndArchiveDso[SummarizingMiningRound](tx, arg.MiningRoundCid, rules.DSO)
			if err != nil {
				return AmuletRulesMiningRoundStartIssuingResult{}, err
			}
			s := arg.Summary
			if err := tx.Require(s.TotalValidatorRewardCoupons.Sign() >= 0 && s.TotalFeaturedAppRewardCoupons.Sign() >= 0 &&
				s.TotalUnfeaturedAppRewardCoupons.Sign() >= 0 && (s.OptTotalValidatorFaucetCoupons == nil || *s.OptTotalValidatorFaucetCoupons >= 0),
				"summary totals are not negative"); err != nil {
				return AmuletRulesMiningRoundStartIssuingResult{}, err
			}
			p, err := computeIssuingRoundParameters(round.TickDuration, round.AmuletPrice, round.IssuanceConfig, s)
			if err != nil {
				return AmuletRulesMiningRoundStartIssuingResult{}, err
			}
			// Splice also records the unclaimed rewards in an UnclaimedReward
			// contract; sandnet registers no rewards and keeps none.
			opensAt := addRel(tx.Now(), round.TickDuration)
			cid, err := ledger.Create(tx, IssuingMiningRound{
				DSO: rules.DSO, Round: round.Round,
				IssuancePerValidatorRewardCoupon:     p.perValidatorReward,
				IssuancePerFeaturedAppRewardCoupon:   p.perFeaturedAppReward,
				IssuancePerUnfeaturedAppRewardCoupon: p.perUnfeaturedAppReward,
				IssuancePerSvRewardCoupon:            p.perSvReward,
				OpensAt:                              opensAt,
				TargetClosesAt:                       addRel(addRel(opensAt, round.TickDuration), round.TickDuration),
				OptIssuancePerValidatorFaucetCoupon:  ptr(p.perValidatorFaucet),
			})
			return AmuletRulesMiningRoundStartIssuingResult{IssuingRoundCid: cid}, err
		})

	ledger.AddChoice(r, "AmuletRules_MiningRound_Close", false,
		func(rules AmuletRules, _ AmuletRulesMiningRoundClose) []daml.Party { return dso(rules) },
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesMiningRoundClose) (AmuletRulesMiningRoundCloseResult, error) {
			round, err := fetchAndArchiveDso[IssuingMiningRound](tx, arg.IssuingRoundCid, rules.DSO)
			if err != nil {
				return AmuletRulesMiningRoundCloseResult{}, err
			}
			if err := tx.Require(round.TargetClosesAt <= tx.Now(), "Mining round is past targetClosesAt"); err != nil {
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
		func(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesMiningRoundArchive) (Empty, error) {
			_, err := fetchAndArchiveDso[ClosedMiningRound](tx, arg.ClosedRoundCid, rules.DSO)
			return Empty{}, err
		})
}

// bootstrapRounds is AmuletRules_Bootstrap_Rounds: rounds 0 and 1 open at
// once, round 2 one round0Duration later.
func bootstrapRounds(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesBootstrapRounds) (AmuletRulesBootstrapRoundsResult, error) {
	now := tx.Now()
	cfg := rules.config(now)
	tick := cfg.TickDuration
	if err := tx.Require(tick.Microseconds <= arg.Round0Duration.Microseconds, "Round0 duration is larger or equal to tick duration"); err != nil {
		return AmuletRulesBootstrapRoundsResult{}, err
	}
	closes0 := addRel(now, arg.Round0Duration)
	opens := []daml.Timestamp{now, now, closes0}
	closes := []daml.Timestamp{closes0, addRel(closes0, tick), addRel(addRel(closes0, tick), tick)}
	var last daml.ContractID
	for i := range 3 {
		issuingFor := RelTime{Microseconds: int64(i) * tick.Microseconds}
		cid, err := ledger.Create(tx, OpenMiningRound{
			DSO: rules.DSO, Round: Round{Number: int64(i)}, AmuletPrice: arg.AmuletPrice,
			OpensAt: opens[i], TargetClosesAt: closes[i], IssuingFor: issuingFor,
			TransferConfigUSD: cfg.TransferConfig, IssuanceConfig: issuanceAt(cfg.IssuanceCurve, issuingFor),
			TickDuration: tick,
		})
		if err != nil {
			return AmuletRulesBootstrapRoundsResult{}, err
		}
		last = cid
	}
	return AmuletRulesBootstrapRoundsResult{OpenMiningRoundCid: last}, nil
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
		ok  bool
		msg string
	}{
		{middle.Round.Number == oldest.Round.Number+1, "middleRound is one after roundToArchive"},
		{latest.Round.Number == middle.Round.Number+1, "latestRound is one after middleRound"},
		{oldest.TargetClosesAt <= now, "roundToArchive is past targetCloseAt"},
		{latest.OpensAt <= now, "latestRound is open"},
		{addRel(middle.OpensAt, middle.TickDuration) <= now, "middle round has been open for >= 1 tick"},
	} {
		if err := tx.Require(check.ok, "%s", check.msg); err != nil {
			return res, err
		}
	}
	if res.SummarizingRoundCid, err = ledger.Create(tx, SummarizingMiningRound{
		DSO: rules.DSO, Round: oldest.Round, AmuletPrice: oldest.AmuletPrice,
		IssuanceConfig: oldest.IssuanceConfig, TickDuration: oldest.TickDuration,
	}); err != nil {
		return res, err
	}
	cfg := rules.config(now)
	tick := cfg.TickDuration
	opensAt := max(addRel(latest.OpensAt, tick), now-daml.Timestamp(tick.Microseconds))
	issuingFor := RelTime{Microseconds: latest.IssuingFor.Microseconds + latest.TickDuration.Microseconds}
	res.OpenRoundCid, err = ledger.Create(tx, OpenMiningRound{
		DSO: rules.DSO, Round: Round{Number: latest.Round.Number + 1}, AmuletPrice: arg.AmuletPrice,
		OpensAt: opensAt, TargetClosesAt: addRel(addRel(opensAt, tick), tick), IssuingFor: issuingFor,
		TransferConfigUSD: cfg.TransferConfig, IssuanceConfig: issuanceAt(cfg.IssuanceCurve, issuingFor),
		TickDuration: tick,
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

// dedupLockHolders stores and charges each lock holder once, and never the
// receiver (Splice's dedupOutputLockHolders).
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

// outputFee is Splice's computeOutputFee.
func outputFee(a *arith, cfg TransferConfig, sender daml.Party, o TransferOutput) daml.Numeric {
	fee := cfg.CreateFee.Fee
	if o.Lock != nil {
		fee = a.add(fee, a.mul(cfg.LockHolderFee.Fee, a.fromInt(int64(len(o.Lock.Holders)))))
	}
	if sender != o.Receiver {
		fee = a.add(fee, chargeSteppedRate(a, cfg.TransferFee, o.Amount))
	}
	return fee
}

// chargeSteppedRate is Splice's chargeSteppedRate: the initial rate up to
// the first step, each step's rate between it and the next.
func chargeSteppedRate(a *arith, r SteppedRate, amount daml.Numeric) daml.Numeric {
	charged, rate, prev := zero, r.InitialRate, zero
	remaining := amount
	for _, st := range r.Steps {
		if remaining.Sign() <= 0 {
			return charged
		}
		width := a.sub(st.First, prev)
		charged = a.add(charged, a.mul(remaining.Min(width), rate))
		remaining = a.sub(remaining, width)
		rate, prev = st.Second, st.First
	}
	if remaining.Sign() > 0 {
		charged = a.add(charged, a.mul(remaining, rate))
	}
	return charged
}

var errInvalidConfig = errorf("amulet configuration is invalid")
