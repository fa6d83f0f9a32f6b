package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// executeTransfer is Splice's executeTransfer (Splice.AmuletRules): spend
// the sender's inputs, charge holding fees on them, create the outputs and
// return the change to the sender. It fails like Splice's InvalidTransfer
// when the inputs do not cover the outputs and fees.
//
// Reward coupons are not implemented: sandnet issues none, so only amulet
// inputs are accepted, and fees (zero in the default configuration) are
// burned without issuing app or validator reward coupons for them.
func executeTransfer(tx *ledger.Tx, dso daml.Party, context TransferContext, t Transfer) (TransferResult, error) {
	var res TransferResult
	round, err := fetchDsoContract[OpenMiningRound](tx, context.OpenMiningRound, dso)
	if err != nil {
		return res, err
	}
	now := tx.Now()
	if err := tx.Require(round.OpensAt <= now, "openRound.opensAt %s is in the future", round.OpensAt); err != nil {
		return res, err
	}
	if context.FeaturedAppRight != nil {
		right, err := fetchDsoContract[FeaturedAppRight](tx, *context.FeaturedAppRight, dso)
		if err != nil {
			return res, err
		}
		if err := tx.Require(right.Provider == t.Provider, "featured app right is for %s, not provider %s", right.Provider, t.Provider); err != nil {
			return res, err
		}
	}
	cfg, err := round.TransferConfigAmulet()
	if err != nil {
		return res, err
	}
	var a arith

	// Consume the inputs.
	var totalAmulet, holdingFees, archivedAsOfRound0, rateChange daml.Numeric
	for _, in := range t.Inputs {
		if in.InputAmulet == nil {
			return res, fault.WithCode(fault.DamlPrecondition, "DAML_INTERPRETATION_ERROR",
				"Interpretation error: unsupported transfer input: sandnet issues no reward coupons, only InputAmulet can be spent")
		}
		amulet, err := ledger.Fetch[Amulet](tx, *in.InputAmulet)
		if err != nil {
			return res, err
		}
		if err := tx.Require(amulet.DSO == dso && amulet.Owner == t.Sender,
			"amulet %s is owned by %s, not the sender %s", *in.InputAmulet, amulet.Owner, t.Sender); err != nil {
			return res, err
		}
		if err := tx.Archive(*in.InputAmulet); err != nil {
			return res, err
		}
		fee := holdingFee(&a, amulet.Amount, round.Round)
		totalAmulet = a.add(totalAmulet, amulet.Amount.InitialAmount)
		holdingFees = a.add(holdingFees, fee)
		archivedAsOfRound0 = a.add(archivedAsOfRound0, a.add(amulet.Amount.InitialAmount,
			a.mul(amulet.Amount.RatePerRound.Rate, a.fromInt(amulet.Amount.CreatedAt.Number))))
		rateChange = a.sub(rateChange, amulet.Amount.RatePerRound.Rate)
	}

	// Preprocess the outputs.
	type preprocessed struct {
		owner       daml.Party
		fee, amount daml.Numeric
		lock        *TimeLock
	}
	outs := make([]preprocessed, len(t.Outputs))
	for i, o := range t.Outputs {
		o = dedupLockHolders(o)
		if err := tx.Require(o.ReceiverFeeRatio.Sign() >= 0 && o.ReceiverFeeRatio.Cmp(num("1.0")) <= 0,
			"Receiver fee ratio %s is not between 0.0 and 1.0", o.ReceiverFeeRatio); err != nil {
			return res, err
		}
		if o.Lock != nil {
			if err := tx.Require(now < o.Lock.ExpiresAt, "lock.expiresAt %s is not in the future", o.Lock.ExpiresAt); err != nil {
				return res, err
			}
			if err := tx.Require(int64(len(o.Lock.Holders)) <= cfg.MaxNumLockHolders, "Fewer than the allowed number of lock holders"); err != nil {
				return res, err
			}
		}
		fee := outputFee(&a, cfg, t.Sender, o)
		receiverFee := a.mul(fee, o.ReceiverFeeRatio)
		if err := tx.Require(receiverFee.Cmp(o.Amount) < 0, "Amount is larger than receiver output fee"); err != nil {
			return res, err
		}
		outs[i] = preprocessed{owner: o.Receiver, fee: fee, amount: a.sub(o.Amount, receiverFee), lock: o.Lock}
	}

	// Summarize.
	adjust := a.mul(a.fromInt(round.Round.Number), cfg.HoldingFee.Rate)
	outputFees := make([]daml.Numeric, len(outs))
	totalOut, totalFees := zero, zero
	changes := map[daml.Party]BalanceChange{}
	addChange := func(p daml.Party, c BalanceChange) {
		prev := changes[p]
		changes[p] = BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: a.add(prev.ChangeToInitialAmountAsOfRoundZero, c.ChangeToInitialAmountAsOfRoundZero),
			ChangeToHoldingFeesRate:            a.add(prev.ChangeToHoldingFeesRate, c.ChangeToHoldingFeesRate),
		}
	}
	for i, o := range outs {
		outputFees[i] = o.fee
		totalOut = a.add(totalOut, o.amount)
		totalFees = a.add(totalFees, o.fee)
	}
	leftOver := a.sub(a.sub(a.sub(totalAmulet, holdingFees), totalOut), totalFees)
	changeFee := cfg.CreateFee.Fee.Min(leftOver)
	changeAmount := a.sub(leftOver, changeFee)
	if changeAmount.Sign() > 0 {
		addChange(t.Sender, BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: a.sub(a.add(changeAmount, adjust), archivedAsOfRound0),
			ChangeToHoldingFeesRate:            a.add(cfg.HoldingFee.Rate, rateChange),
		})
	} else {
		addChange(t.Sender, BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: archivedAsOfRound0.Neg(),
			ChangeToHoldingFeesRate:            rateChange,
		})
	}
	for _, o := range outs {
		addChange(o.owner, BalanceChange{
			ChangeToInitialAmountAsOfRoundZero: a.add(o.amount, adjust),
			ChangeToHoldingFeesRate:            cfg.HoldingFee.Rate,
		})
	}
	if a.err != nil {
		return res, a.err
	}
	summary := TransferSummary{
		InputAppRewardAmount:       zero,
		InputValidatorRewardAmount: zero,
		InputSvRewardAmount:        zero,
		InputAmuletAmount:          totalAmulet,
		BalanceChanges:             mapOf(changes),
		HoldingFees:                holdingFees,
		OutputFees:                 outputFees,
		SenderChangeFee:            changeFee,
		SenderChangeAmount:         changeAmount,
		AmuletPrice:                round.AmuletPrice,
		InputValidatorFaucetAmount: ptr(zero),
	}

	// Check the transfer's constraints (Splice's checkTransferConstraints).
	switch {
	case int64(len(t.Inputs)) > cfg.MaxNumInputs:
		return res, invalidTransfer("ITR_Other", "More than the maximum number of inputs")
	case int64(len(t.Outputs)) > cfg.MaxNumOutputs:
		return res, invalidTransfer("ITR_Other", "More than the maximum number of outputs")
	case changeFee.Sign() < 0:
		return res, invalidTransfer("ITR_InsufficientFunds", "missingAmount = "+showDecimal(changeFee.Neg()))
	}

	// Create the outputs and the sender's change.
	created := make([]CreatedAmulet, len(outs))
	for i, o := range outs {
		amulet := Amulet{DSO: dso, Owner: o.owner, Amount: ExpiringAmount{
			InitialAmount: o.amount, CreatedAt: round.Round, RatePerRound: cfg.HoldingFee,
		}}
		if o.lock == nil {
			cid, err := ledger.Create(tx, amulet)
			if err != nil {
				return res, err
			}
			created[i] = CreatedAmulet{TransferResultAmulet: &cid}
			continue
		}
		cid, err := ledger.Create(tx, LockedAmulet{Amulet: amulet, Lock: *o.lock})
		if err != nil {
			return res, err
		}
		created[i] = CreatedAmulet{TransferResultLockedAmulet: &cid}
	}
	if changeAmount.Sign() > 0 {
		cid, err := ledger.Create(tx, Amulet{DSO: dso, Owner: t.Sender, Amount: ExpiringAmount{
			InitialAmount: changeAmount, CreatedAt: round.Round, RatePerRound: cfg.HoldingFee,
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
	res.Round = round.Round
	res.Summary = summary
	res.CreatedAmulets = created
	res.Meta = holdingTxMeta(kind, nil, sender, &burned)
	return res, nil
}

// invalidTransfer is Splice's InvalidTransfer exception, which the ledger
// reports as an unhandled exception, a failed Daml precondition (409).
func invalidTransfer(reason, detail string) error {
	return fault.WithCode(fault.DamlPrecondition, ledger.CodeUnhandledException,
		"Interpretation error: Error: Unhandled Daml exception: Splice.AmuletRules:InvalidTransfer@%s{reason = %s {%s}}",
		PackageAmulet.ID[:8], reason, detail)
}

func errorf(format string, args ...any) error {
	return fault.New(fault.DamlPrecondition, format, args...)
}
