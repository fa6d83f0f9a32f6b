package splice

import (
	"strconv"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// executeTransfer is Splice's executeTransfer (Splice.AmuletRules) as of
// CIP-78: validate the context, spend the sender's inputs, create the
// outputs and return the change to the sender. Transfers charge no fees:
// an input counts with its initial amount (holding fees are only charged
// when the DSO expires a dust amulet), outputs cost nothing. It fails like
// Splice with failWithStatus when the inputs do not cover the outputs.
//
// Reward coupons are not implemented: sandnet issues none, so only amulet
// inputs can be spent (a coupon input fails as its fetch would, with the
// contract not found or of another template). Splice also records each
// holdings change in the token standard's V2 event log
// (EventLog_HoldingsChange exercises on the rules); sandnet does not.
func executeTransfer(tx *ledger.Tx, dso daml.Party, context TransferContext, t Transfer) (TransferResult, error) {
	return executeTransferIssuing(tx, dso, context, t, true)
}

// executeTransferIssuing is executeTransfer with Splice's
// RewardsIssuanceConfig reduced to what sandnet issues: whether the
// transfer records app activity (FeaturedAppActivityMarkers). Splice's
// splitAndBurn turns it off, as the burn's own ValidatorRewardCoupon
// stands for the activity.
func executeTransferIssuing(tx *ledger.Tx, dso daml.Party, context TransferContext, t Transfer, issueAppRewards bool) (TransferResult, error) {
	csum, err := summarizeContext(tx, dso, context, t)
	if err != nil {
		return TransferResult{}, err
	}
	return executeSummarizedTransfer(tx, dso, csum, t, issueAppRewards)
}

// executeSummarizedTransfer is Splice's executeTransfer': the transfer
// given its validated context.
func executeSummarizedTransfer(tx *ledger.Tx, dso daml.Party, csum transferContextSummary, t Transfer, issueAppRewards bool) (TransferResult, error) {
	var res TransferResult
	var a arith

	// Consume the inputs (Splice's summarizeAndConsumeInputs).
	var totalAmulet, archivedAsOfRound0, rateChange daml.Numeric
	for _, in := range t.Inputs {
		switch {
		case in.InputAmulet != nil:
			amulet, err := fetchAndArchive(tx, forOwner{dso, t.Sender}, *in.InputAmulet, ownerOf)
			if err != nil {
				return res, err
			}
			totalAmulet = a.add(totalAmulet, amulet.Amount.InitialAmount)
			archivedAsOfRound0 = a.add(archivedAsOfRound0, a.add(amulet.Amount.InitialAmount,
				a.mul(amulet.Amount.RatePerRound.Rate, a.fromInt(amulet.Amount.CreatedAt.Number))))
			rateChange = a.sub(rateChange, amulet.Amount.RatePerRound.Rate)
		case in.ExtTransferInput != nil:
			if c := in.ExtTransferInput.OptInputValidatorFaucetCoupon; c != nil {
				return res, fetchUnimplemented(tx, *c, moduleValidatorLic, "ValidatorFaucetCoupon")
			}
		default:
			cid, module, entity := unimplementedInput(in)
			return res, fetchUnimplemented(tx, cid, module, entity)
		}
	}

	// Preprocess the outputs (Splice's preprocessOutputs).
	outs := make([]TransferOutput, len(t.Outputs))
	for i, o := range t.Outputs {
		o = dedupLockHolders(o)
		if o.ReceiverFeeRatio.Sign() < 0 || o.ReceiverFeeRatio.Cmp(num("1.0")) > 0 {
			return res, abort("Receiver fee ratio " + showDecimal(o.ReceiverFeeRatio) + " is not between 0.0 and 1.0")
		}
		if o.Lock != nil {
			if err := assertWithinDeadline(tx, "lock.expiresAt", o.Lock.ExpiresAt); err != nil {
				return res, err
			}
			if err := require(tx, "Fewer than the allowed number of lock holders", int64(len(o.Lock.Holders)) <= csum.config.MaxNumLockHolders); err != nil {
				return res, err
			}
		}
		if err := require(tx, "Amount is positive", o.Amount.Sign() > 0); err != nil {
			return res, err
		}
		outs[i] = o
	}

	// Summarize (Splice's summarizeTransfer).
	adjust := a.mul(a.fromInt(csum.round.Number), csum.config.HoldingFee.Rate)
	outputFees := make([]daml.Numeric, len(outs))
	changes := map[daml.Party]BalanceChange{}
	addChange := func(p daml.Party, c BalanceChange) {
		prev := changes[p]
		changes[p] = BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: a.add(prev.ChangeToInitialAmountAsOfRoundZero, c.ChangeToInitialAmountAsOfRoundZero),
			ChangeToHoldingFeesRate:            a.add(prev.ChangeToHoldingFeesRate, c.ChangeToHoldingFeesRate),
		}
	}
	totalOut := zero
	for i, o := range outs {
		outputFees[i] = zero
		totalOut = a.add(totalOut, o.Amount)
	}
	leftOver := a.sub(totalAmulet, totalOut)
	if leftOver.Sign() > 0 {
		addChange(t.Sender, BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: a.sub(a.add(leftOver, adjust), archivedAsOfRound0),
			ChangeToHoldingFeesRate:            a.add(csum.config.HoldingFee.Rate, rateChange),
		})
	} else {
		addChange(t.Sender, BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: archivedAsOfRound0.Neg(),
			ChangeToHoldingFeesRate:            rateChange,
		})
	}
	for _, o := range outs {
		addChange(o.Receiver, BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: a.add(o.Amount, adjust),
			ChangeToHoldingFeesRate:            csum.config.HoldingFee.Rate,
		})
	}
	if a.err != nil {
		return res, a.err
	}
	summary := TransferSummary{
		InputAppRewardAmount:               zero,
		InputValidatorRewardAmount:         zero,
		InputSvRewardAmount:                zero,
		InputAmuletAmount:                  totalAmulet,
		BalanceChanges:                     mapOf(changes),
		HoldingFees:                        zero,
		OutputFees:                         outputFees,
		SenderChangeFee:                    zero.Min(leftOver),
		SenderChangeAmount:                 leftOver,
		AmuletPrice:                        csum.amuletPrice,
		InputValidatorFaucetAmount:         ptr(zero),
		InputUnclaimedActivityRecordAmount: ptr(zero),
		InputDevelopmentFundAmount:         ptr(zero),
	}

	// Check the transfer's constraints (Splice's checkTransferConstraints).
	switch {
	case int64(len(t.Inputs)) > csum.config.MaxNumInputs:
		return res, failWithStatus(FailureStatus{ErrorID: spliceErrorID("maximum-inputs-exceeded"),
			Category: InvalidIndependentOfSystemState, Message: "More than the maximum number of inputs"})
	case int64(len(t.Outputs)) > csum.config.MaxNumOutputs:
		return res, failWithStatus(FailureStatus{ErrorID: spliceErrorID("maximum-outputs-exceeded"),
			Category: InvalidIndependentOfSystemState, Message: "More than the maximum number of outputs"})
	case summary.SenderChangeFee.Sign() < 0:
		missing := showDecimal(summary.SenderChangeFee.Neg())
		return res, failWithStatus(FailureStatus{ErrorID: spliceErrorID("insufficient-funds"),
			Category: InvalidGivenCurrentSystemStateOther,
			Message:  "Insufficient funds: you are missing " + missing + " to complete this transfer.",
			Meta:     map[string]string{"requiredAmount": missing}})
	}

	if issueAppRewards {
		if err := issueRewards(tx, csum, t); err != nil {
			return res, err
		}
	} else if useFeaturedAppMarkers(csum.rewardConfig) {
		if err := require(tx, "beneficiaries are unset if issueAppRewards is false", t.Beneficiaries == nil || len(*t.Beneficiaries) == 0); err != nil {
			return res, err
		}
	}

	// Create the outputs and the sender's change.
	created := make([]CreatedAmulet, len(outs))
	for i, o := range outs {
		amulet := Amulet{DSO: dso, Owner: o.Receiver, Amount: ExpiringAmount{
			InitialAmount: o.Amount, CreatedAt: csum.round, RatePerRound: csum.config.HoldingFee,
		}}
		if o.Lock == nil {
			cid, err := ledger.Create(tx, amulet)
			if err != nil {
				return res, err
			}
			created[i] = CreatedAmulet{TransferResultAmulet: &cid}
			continue
		}
		cid, err := ledger.Create(tx, LockedAmulet{Amulet: amulet, Lock: *o.Lock})
		if err != nil {
			return res, err
		}
		created[i] = CreatedAmulet{TransferResultLockedAmulet: &cid}
	}
	if leftOver.Sign() > 0 {
		cid, err := ledger.Create(tx, Amulet{DSO: dso, Owner: t.Sender, Amount: ExpiringAmount{
			InitialAmount: leftOver, CreatedAt: csum.round, RatePerRound: csum.config.HoldingFee,
		}})
		if err != nil {
			return res, err
		}
		res.SenderChangeAmulet = &cid
	}

	kind, sender := txKindMergeSplit, (*daml.Party)(nil)
	for _, o := range t.Outputs {
		retains := o.Receiver == t.Sender
		if o.Lock != nil {
			for _, h := range o.Lock.Holders {
				retains = retains && h == t.Sender
			}
		}
		if !retains {
			kind, sender = txKindTransfer, &t.Sender
			break
		}
	}
	burned, err := summary.Burned()
	if err != nil {
		return res, err
	}
	res.Round = csum.round
	res.Summary = summary
	res.CreatedAmulets = created
	res.Meta = holdingTxMeta(kind, nil, sender, &burned)
	return res, nil
}

// featuredAppProvider is the provider if the transfer is featured: a
// featured app right in the context counts only where featured-app
// markers are in use, and must then be the provider's.
func featuredAppProvider(tx *ledger.Tx, dso daml.Party, rc *RewardConfig, right *daml.ContractID, provider daml.Party) (*daml.Party, error) {
	if !useFeaturedAppMarkers(rc) || right == nil {
		return nil, nil
	}
	if _, err := fetchChecked(tx, forOwner{dso, provider}, *right,
		func(f FeaturedAppRight) forOwner { return forOwner{f.DSO, f.Provider} }); err != nil {
		return nil, err
	}
	return &provider, nil
}

// transferContextSummary is what Splice's summarizeAndValidateContext
// reads from a transfer's context.
type transferContextSummary struct {
	dso                 daml.Party
	config              TransferConfig // in amulet
	round               Round
	amuletPrice         daml.Numeric
	featuredAppProvider *daml.Party
	rewardConfig        *RewardConfig
}

// summarizeContext is Splice's summarizeAndValidateContext: the open round
// must have opened, the featured app right (if any) must be the
// provider's, the issuing rounds must be the DSO's and open, and the
// validator rights must be the sender's.
func summarizeContext(tx *ledger.Tx, dso daml.Party, context TransferContext, t Transfer) (transferContextSummary, error) {
	var csum transferContextSummary
	round, err := fetchDsoContract[OpenMiningRound](tx, context.OpenMiningRound, dso)
	if err != nil {
		return csum, err
	}
	if err := assertDeadlineExceeded(tx, "openRound.opensAt", round.OpensAt); err != nil {
		return csum, err
	}
	if csum.featuredAppProvider, err = featuredAppProvider(tx, dso, round.RewardConfig, context.FeaturedAppRight, t.Provider); err != nil {
		return csum, err
	}
	for _, e := range context.IssuingMiningRounds {
		issuing, err := fetchChecked(tx, forRound{dso, e.Key}, e.Value,
			func(r IssuingMiningRound) forRound { return forRound{r.DSO, r.Round} })
		if err != nil {
			return csum, err
		}
		if err := assertDeadlineExceeded(tx, "issuingRound["+itoa(e.Key.Number)+"].opensAt", issuing.OpensAt); err != nil {
			return csum, err
		}
	}
	for _, e := range context.ValidatorRights {
		if err := requireMatchingContract(tx, e.Value, ValidatorRight{DSO: dso, User: e.Key, Validator: t.Sender}); err != nil {
			return csum, err
		}
	}
	cfg, err := round.TransferConfigAmulet()
	if err != nil {
		return csum, err
	}
	csum.dso, csum.config, csum.round, csum.amuletPrice, csum.rewardConfig = round.DSO, cfg, round.Round, round.AmuletPrice, round.RewardConfig
	return csum, nil
}

// issueRewards is Splice's issueRewards for AmuletRules_Transfer: the
// beneficiaries (the provider alone by default) must be valid, and a
// transfer through a featured app records its activity in
// FeaturedAppActivityMarkers, one per beneficiary.
func issueRewards(tx *ledger.Tx, csum transferContextSummary, t Transfer) error {
	if !useFeaturedAppMarkers(csum.rewardConfig) {
		return nil
	}
	beneficiaries := []AppRewardBeneficiary{{Beneficiary: t.Provider, Weight: num("1.0")}}
	if t.Beneficiaries != nil {
		beneficiaries = *t.Beneficiaries
	}
	if err := validateAppRewardBeneficiaries(tx, beneficiaries); err != nil {
		return err
	}
	if csum.featuredAppProvider == nil || *csum.featuredAppProvider != t.Provider {
		return nil
	}
	var a arith
	weights := map[daml.Party]daml.Numeric{}
	for _, b := range beneficiaries {
		weights[b.Beneficiary] = a.add(weights[b.Beneficiary], b.Weight)
	}
	if a.err != nil {
		return a.err
	}
	for _, e := range mapOf(weights) {
		if _, err := ledger.Create(tx, FeaturedAppActivityMarker{DSO: csum.dso, Provider: t.Provider, Beneficiary: e.Key, Weight: e.Value}); err != nil {
			return err
		}
	}
	return nil
}

// maxAppRewardBeneficiaries is how many beneficiaries a transfer or an
// activity marker may split its app reward between.
const maxAppRewardBeneficiaries = 20

// validateAppRewardBeneficiaries is Splice's validateAppRewardBeneficiaries.
func validateAppRewardBeneficiaries(tx *ledger.Tx, bs []AppRewardBeneficiary) error {
	var a arith
	inRange := true
	total := zero
	for _, b := range bs {
		inRange = inRange && b.Weight.Sign() > 0 && b.Weight.Cmp(num("1.0")) <= 0
		total = a.add(total, b.Weight)
	}
	if err := require(tx, "Beneficiary weights are between 0.0 and 1.0", inRange); err != nil {
		return err
	}
	if a.err != nil {
		return a.err
	}
	if err := require(tx, "Beneficiary weights add up to 1.0", total.Cmp(num("1.0")) == 0); err != nil {
		return err
	}
	return require(tx, "There are at most "+strconv.Itoa(maxAppRewardBeneficiaries)+" beneficiaries", len(bs) <= maxAppRewardBeneficiaries)
}

// unimplementedInput names the contract a transfer input other than an
// amulet spends, and its template.
func unimplementedInput(in TransferInput) (cid daml.ContractID, module, entity string) {
	switch {
	case in.InputAppRewardCoupon != nil:
		return *in.InputAppRewardCoupon, moduleAmulet, "AppRewardCoupon"
	case in.InputValidatorRewardCoupon != nil:
		return *in.InputValidatorRewardCoupon, moduleAmulet, "ValidatorRewardCoupon"
	case in.InputSvRewardCoupon != nil:
		return *in.InputSvRewardCoupon, moduleAmulet, "SvRewardCoupon"
	case in.InputValidatorLivenessActivityRecord != nil:
		return *in.InputValidatorLivenessActivityRecord, moduleValidatorLic, "ValidatorLivenessActivityRecord"
	case in.InputUnclaimedActivityRecord != nil:
		return *in.InputUnclaimedActivityRecord, moduleAmulet, "UnclaimedActivityRecord"
	case in.InputDevelopmentFundCoupon != nil:
		return *in.InputDevelopmentFundCoupon, moduleAmulet, "DevelopmentFundCoupon"
	case in.InputRewardCouponV2 != nil:
		return *in.InputRewardCouponV2, moduleAmulet, "RewardCouponV2"
	}
	return "", moduleAmulet, "?"
}

// fetchUnimplemented fails a fetch of a contract of a Splice template
// sandnet does not implement, as the fetch would fail on sandnet's
// ledger, where no such contract exists: the id names no contract, or one
// of another template. A contract of the template itself (the
// ValidatorRewardCoupons of pre-approval fees) is refused as unsupported.
func fetchUnimplemented(tx *ledger.Tx, cid daml.ContractID, module, entity string) error {
	c, err := tx.FetchContract(cid)
	if err != nil {
		return err
	}
	if want := PackageAmulet.Identifier(module, entity); c.Template.ModuleName == module && c.Template.EntityName == entity {
		// The ValidatorRewardCoupons a paid pre-approval's burn creates
		// exist, but sandnet does not mint their issuance.
		return fault.New(fault.FailedPrecondition, "sandnet does not spend %s inputs in transfers", want)
	}
	return fault.WithCode(fault.DamlPrecondition, "WRONGLY_TYPED_CONTRACT",
		"Contract %s has template %s, not %s", cid, c.Template.Identifier, PackageAmulet.Identifier(module, entity))
}

func errorf(format string, args ...any) error {
	return fault.New(fault.DamlPrecondition, format, args...)
}
