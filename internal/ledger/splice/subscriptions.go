package splice

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Splice.Wallet.Subscriptions: recurring payments, which the name service
// uses. The sender pays by locking amulet to the receiver and provider
// (SubscriptionInitialPayment, SubscriptionPayment); the receiver collects
// by unlocking and transferring it to itself.

// SubscriptionData is Splice.Wallet.Subscriptions:SubscriptionData.
type SubscriptionData struct {
	Sender      daml.Party `daml:"sender"`
	Receiver    daml.Party `daml:"receiver"`
	Provider    daml.Party `daml:"provider"`
	DSO         daml.Party `daml:"dso"`
	Description string     `daml:"description"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionData) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionData")
}

func (d SubscriptionData) signatories() []daml.Party {
	return []daml.Party{d.Sender, d.Receiver, d.Provider}
}

// SubscriptionPayData is Splice.Wallet.Subscriptions:SubscriptionPayData.
type SubscriptionPayData struct {
	PaymentAmount   PaymentAmount `daml:"paymentAmount"`
	PaymentInterval RelTime       `daml:"paymentInterval"`
	PaymentDuration RelTime       `daml:"paymentDuration"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionPayData) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionPayData")
}

func (p SubscriptionPayData) valid() error {
	if p.PaymentAmount.Amount.Sign() <= 0 || p.PaymentInterval.Microseconds <= 0 || p.PaymentDuration.Microseconds <= 0 {
		return errorf("invalid subscription pay data")
	}
	return nil
}

// Subscription is Splice.Wallet.Subscriptions:Subscription.
type Subscription struct {
	SubscriptionData SubscriptionData `daml:"subscriptionData"`
	Reference        daml.ContractID  `daml:"reference"`
}

// TemplateID implements ledger.Template.
func (Subscription) TemplateID() ledger.TemplateID {
	return PackageWalletPayments.Template(moduleSubscriptions, "Subscription")
}

// DamlIdentifier implements daml.Identified.
func (s Subscription) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s Subscription) Signatories() []daml.Party { return s.SubscriptionData.signatories() }

// Observers implements ledger.Template.
func (Subscription) Observers() []daml.Party { return nil }

// TerminatedSubscription is Splice.Wallet.Subscriptions:TerminatedSubscription.
type TerminatedSubscription struct {
	SubscriptionData SubscriptionData `daml:"subscriptionData"`
	Reference        daml.ContractID  `daml:"reference"`
}

// TemplateID implements ledger.Template.
func (TerminatedSubscription) TemplateID() ledger.TemplateID {
	return PackageWalletPayments.Template(moduleSubscriptions, "TerminatedSubscription")
}

// DamlIdentifier implements daml.Identified.
func (s TerminatedSubscription) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s TerminatedSubscription) Signatories() []daml.Party { return s.SubscriptionData.signatories() }

// Observers implements ledger.Template.
func (TerminatedSubscription) Observers() []daml.Party { return nil }

// SubscriptionRequest is Splice.Wallet.Subscriptions:SubscriptionRequest.
type SubscriptionRequest struct {
	SubscriptionData SubscriptionData    `daml:"subscriptionData"`
	PayData          SubscriptionPayData `daml:"payData"`
}

// TemplateID implements ledger.Template.
func (SubscriptionRequest) TemplateID() ledger.TemplateID {
	return PackageWalletPayments.Template(moduleSubscriptions, "SubscriptionRequest")
}

// DamlIdentifier implements daml.Identified.
func (s SubscriptionRequest) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s SubscriptionRequest) Signatories() []daml.Party { return s.SubscriptionData.signatories() }

// Observers implements ledger.Template.
func (SubscriptionRequest) Observers() []daml.Party { return nil }

// Ensure checks the pay data.
func (s SubscriptionRequest) Ensure() error { return s.PayData.valid() }

// SubscriptionInitialPayment is Splice.Wallet.Subscriptions:SubscriptionInitialPayment.
type SubscriptionInitialPayment struct {
	SubscriptionData SubscriptionData    `daml:"subscriptionData"`
	PayData          SubscriptionPayData `daml:"payData"`
	TargetAmount     daml.Numeric        `daml:"targetAmount"`
	LockedAmulet     daml.ContractID     `daml:"lockedAmulet"`
	Round            Round               `daml:"round"`
	Reference        daml.ContractID     `daml:"reference"`
}

// TemplateID implements ledger.Template.
func (SubscriptionInitialPayment) TemplateID() ledger.TemplateID {
	return PackageWalletPayments.Template(moduleSubscriptions, "SubscriptionInitialPayment")
}

// DamlIdentifier implements daml.Identified.
func (s SubscriptionInitialPayment) DamlIdentifier() daml.Identifier {
	return s.TemplateID().Identifier
}

// Signatories implements ledger.Template.
func (s SubscriptionInitialPayment) Signatories() []daml.Party {
	return s.SubscriptionData.signatories()
}

// Observers implements ledger.Template.
func (SubscriptionInitialPayment) Observers() []daml.Party { return nil }

// Ensure checks the pay data.
func (s SubscriptionInitialPayment) Ensure() error { return s.PayData.valid() }

// SubscriptionIdleState is Splice.Wallet.Subscriptions:SubscriptionIdleState:
// a live subscription waiting for its next payment.
type SubscriptionIdleState struct {
	Subscription     daml.ContractID     `daml:"subscription"`
	SubscriptionData SubscriptionData    `daml:"subscriptionData"`
	PayData          SubscriptionPayData `daml:"payData"`
	NextPaymentDueAt daml.Timestamp      `daml:"nextPaymentDueAt"`
	Reference        daml.ContractID     `daml:"reference"`
}

// TemplateID implements ledger.Template.
func (SubscriptionIdleState) TemplateID() ledger.TemplateID {
	return PackageWalletPayments.Template(moduleSubscriptions, "SubscriptionIdleState")
}

// DamlIdentifier implements daml.Identified.
func (s SubscriptionIdleState) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s SubscriptionIdleState) Signatories() []daml.Party { return s.SubscriptionData.signatories() }

// Observers implements ledger.Template.
func (SubscriptionIdleState) Observers() []daml.Party { return nil }

// Ensure checks the pay data.
func (s SubscriptionIdleState) Ensure() error { return s.PayData.valid() }

// SubscriptionPayment is Splice.Wallet.Subscriptions:SubscriptionPayment: a
// renewal payment in flight.
type SubscriptionPayment struct {
	Subscription     daml.ContractID     `daml:"subscription"`
	SubscriptionData SubscriptionData    `daml:"subscriptionData"`
	PayData          SubscriptionPayData `daml:"payData"`
	ThisPaymentDueAt daml.Timestamp      `daml:"thisPaymentDueAt"`
	TargetAmount     daml.Numeric        `daml:"targetAmount"`
	LockedAmulet     daml.ContractID     `daml:"lockedAmulet"`
	Round            Round               `daml:"round"`
	Reference        daml.ContractID     `daml:"reference"`
}

// TemplateID implements ledger.Template.
func (SubscriptionPayment) TemplateID() ledger.TemplateID {
	return PackageWalletPayments.Template(moduleSubscriptions, "SubscriptionPayment")
}

// DamlIdentifier implements daml.Identified.
func (s SubscriptionPayment) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s SubscriptionPayment) Signatories() []daml.Party { return s.SubscriptionData.signatories() }

// Observers implements ledger.Template.
func (SubscriptionPayment) Observers() []daml.Party { return nil }

// Ensure checks the pay data.
func (s SubscriptionPayment) Ensure() error { return s.PayData.valid() }

// Choice arguments and results
// ============================

// SubscriptionPaymentArgs is the argument of
// SubscriptionRequest_AcceptAndMakePayment and
// SubscriptionIdleState_MakePayment: the sender's inputs, the transfer
// context and the sender's validator.
type SubscriptionPaymentArgs struct {
	Inputs         []TransferInput        `daml:"inputs"`
	Context        PaymentTransferContext `daml:"context"`
	WalletProvider daml.Party             `daml:"walletProvider"`
}

// SubscriptionMakePaymentResult is the result of the two payment choices.
type SubscriptionMakePaymentResult struct {
	SubscriptionPayment daml.ContractID  `daml:"subscriptionPayment"`
	SenderChange        *daml.ContractID `daml:"senderChange"`
}

// CollectArgs is the argument of the collect and reject choices.
type CollectArgs struct {
	TransferContext AppTransferContext `daml:"transferContext"`
}

// SubscriptionInitialPaymentCollectResult is the result of
// SubscriptionInitialPayment_Collect.
type SubscriptionInitialPaymentCollectResult struct {
	Subscription      daml.ContractID `daml:"subscription"`
	SubscriptionState daml.ContractID `daml:"subscriptionState"`
	Amulet            daml.ContractID `daml:"amulet"`
}

// SubscriptionPaymentCollectResult is the result of
// SubscriptionPayment_Collect.
type SubscriptionPaymentCollectResult struct {
	SubscriptionState daml.ContractID `daml:"subscriptionState"`
	Amulet            daml.ContractID `daml:"amulet"`
}

// AmuletSumResult is the result of the choices that return the sender's
// unlocked amulet (rejecting a payment).
type AmuletSumResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
}

// TerminatedSubscriptionResult is the result of the choices that end a
// subscription.
type TerminatedSubscriptionResult struct {
	TerminatedSubscription daml.ContractID `daml:"terminatedSubscription"`
}

func registerSubscriptions(r *ledger.Registry) {
	ledger.RegisterTemplate[Subscription](r)
	ledger.AddChoice(r, "Subscription_Archive", true,
		func(s Subscription, _ Empty) []daml.Party { return s.Signatories() },
		func(tx *ledger.Tx, _ daml.ContractID, s Subscription, _ Empty) (TerminatedSubscriptionResult, error) {
			cid, err := ledger.Create(tx, TerminatedSubscription(s))
			return TerminatedSubscriptionResult{TerminatedSubscription: cid}, err
		})
	ledger.RegisterTemplate[TerminatedSubscription](r)

	ledger.RegisterTemplate[SubscriptionRequest](r)
	ledger.AddChoice(r, "SubscriptionRequest_AcceptAndMakePayment", true,
		func(s SubscriptionRequest, arg SubscriptionPaymentArgs) []daml.Party {
			return []daml.Party{s.SubscriptionData.Sender, arg.WalletProvider}
		},
		func(tx *ledger.Tx, self daml.ContractID, s SubscriptionRequest, arg SubscriptionPaymentArgs) (SubscriptionMakePaymentResult, error) {
			locked, change, target, round, err := lockAndMakeChange(tx, arg, s.SubscriptionData, s.PayData)
			if err != nil {
				return SubscriptionMakePaymentResult{}, err
			}
			cid, err := ledger.Create(tx, SubscriptionInitialPayment{
				SubscriptionData: s.SubscriptionData, PayData: s.PayData, TargetAmount: target,
				LockedAmulet: locked, Round: round, Reference: self,
			})
			return SubscriptionMakePaymentResult{SubscriptionPayment: cid, SenderChange: change}, err
		})
	ledger.AddChoice(r, "SubscriptionRequest_Reject", true,
		func(s SubscriptionRequest, _ Empty) []daml.Party { return []daml.Party{s.SubscriptionData.Sender} },
		func(tx *ledger.Tx, self daml.ContractID, s SubscriptionRequest, _ Empty) (TerminatedSubscriptionResult, error) {
			cid, err := ledger.Create(tx, TerminatedSubscription{SubscriptionData: s.SubscriptionData, Reference: self})
			return TerminatedSubscriptionResult{TerminatedSubscription: cid}, err
		})
	ledger.AddChoice(r, "SubscriptionRequest_Withdraw", true,
		func(s SubscriptionRequest, _ Empty) []daml.Party { return []daml.Party{s.SubscriptionData.Receiver} },
		func(tx *ledger.Tx, self daml.ContractID, s SubscriptionRequest, _ Empty) (TerminatedSubscriptionResult, error) {
			cid, err := ledger.Create(tx, TerminatedSubscription{SubscriptionData: s.SubscriptionData, Reference: self})
			return TerminatedSubscriptionResult{TerminatedSubscription: cid}, err
		})

	ledger.RegisterTemplate[SubscriptionInitialPayment](r)
	ledger.AddChoice(r, "SubscriptionInitialPayment_Collect", true,
		func(p SubscriptionInitialPayment, _ CollectArgs) []daml.Party { return p.Signatories() },
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionInitialPayment, arg CollectArgs) (SubscriptionInitialPaymentCollectResult, error) {
			var res SubscriptionInitialPaymentCollectResult
			if err := requireSameRound(tx, arg.TransferContext.OpenMiningRound, p.SubscriptionData.Provider, p.Round); err != nil {
				return res, err
			}
			var err error
			if res.Subscription, err = ledger.Create(tx, Subscription{SubscriptionData: p.SubscriptionData, Reference: p.Reference}); err != nil {
				return res, err
			}
			if res.SubscriptionState, err = ledger.Create(tx, SubscriptionIdleState{
				Subscription: res.Subscription, SubscriptionData: p.SubscriptionData, PayData: p.PayData,
				NextPaymentDueAt: addRel(tx.Now(), p.PayData.PaymentInterval), Reference: p.Reference,
			}); err != nil {
				return res, err
			}
			res.Amulet, err = unlockAndTransfer(tx, arg.TransferContext, p.SubscriptionData, p.TargetAmount, p.LockedAmulet)
			return res, err
		})
	ledger.AddChoice(r, "SubscriptionInitialPayment_Reject", true,
		func(p SubscriptionInitialPayment, _ CollectArgs) []daml.Party {
			return []daml.Party{p.SubscriptionData.Receiver}
		},
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionInitialPayment, arg CollectArgs) (AmuletSumResult, error) {
			if _, err := ledger.Create(tx, TerminatedSubscription{SubscriptionData: p.SubscriptionData, Reference: p.Reference}); err != nil {
				return AmuletSumResult{}, err
			}
			res, err := ledger.Exercise[LockedAmuletUnlockResult](tx, p.LockedAmulet, "LockedAmulet_Unlock",
				LockedAmuletUnlock{OpenRoundCid: arg.TransferContext.OpenMiningRound})
			return AmuletSumResult{AmuletSum: res.AmuletSum}, err
		})

	ledger.RegisterTemplate[SubscriptionIdleState](r)
	ledger.AddChoice(r, "SubscriptionIdleState_MakePayment", true,
		func(s SubscriptionIdleState, arg SubscriptionPaymentArgs) []daml.Party {
			return []daml.Party{s.SubscriptionData.Sender, arg.WalletProvider}
		},
		func(tx *ledger.Tx, _ daml.ContractID, s SubscriptionIdleState, arg SubscriptionPaymentArgs) (SubscriptionMakePaymentResult, error) {
			if err := requireMatchingSubscription(tx, s.Subscription, s.SubscriptionData, s.Reference); err != nil {
				return SubscriptionMakePaymentResult{}, err
			}
			if err := tx.Require(addRel(tx.Now(), s.PayData.PaymentDuration) >= s.NextPaymentDueAt,
				"The next due date is close enough to make the next payment."); err != nil {
				return SubscriptionMakePaymentResult{}, err
			}
			locked, change, target, round, err := lockAndMakeChange(tx, arg, s.SubscriptionData, s.PayData)
			if err != nil {
				return SubscriptionMakePaymentResult{}, err
			}
			cid, err := ledger.Create(tx, SubscriptionPayment{
				Subscription: s.Subscription, SubscriptionData: s.SubscriptionData, PayData: s.PayData,
				ThisPaymentDueAt: s.NextPaymentDueAt, TargetAmount: target, LockedAmulet: locked,
				Round: round, Reference: s.Reference,
			})
			return SubscriptionMakePaymentResult{SubscriptionPayment: cid, SenderChange: change}, err
		})
	ledger.AddChoice(r, "SubscriptionIdleState_ExpireSubscription", true,
		func(_ SubscriptionIdleState, arg Actor) []daml.Party { return []daml.Party{arg.Actor} },
		func(tx *ledger.Tx, _ daml.ContractID, s SubscriptionIdleState, arg Actor) (TerminatedSubscriptionResult, error) {
			if err := tx.Require(slices.Contains(s.Signatories(), arg.Actor), "Actor %s is a signatory", arg.Actor); err != nil {
				return TerminatedSubscriptionResult{}, err
			}
			if err := requireMatchingSubscription(tx, s.Subscription, s.SubscriptionData, s.Reference); err != nil {
				return TerminatedSubscriptionResult{}, err
			}
			if err := tx.Require(s.NextPaymentDueAt < tx.Now(), "Last subscription payment was missed"); err != nil {
				return TerminatedSubscriptionResult{}, err
			}
			return ledger.Exercise[TerminatedSubscriptionResult](tx, s.Subscription, "Subscription_Archive", Empty{})
		})
	ledger.AddChoice(r, "SubscriptionIdleState_CancelSubscription", true,
		func(s SubscriptionIdleState, _ Empty) []daml.Party { return []daml.Party{s.SubscriptionData.Sender} },
		func(tx *ledger.Tx, _ daml.ContractID, s SubscriptionIdleState, _ Empty) (TerminatedSubscriptionResult, error) {
			if err := requireMatchingSubscription(tx, s.Subscription, s.SubscriptionData, s.Reference); err != nil {
				return TerminatedSubscriptionResult{}, err
			}
			return ledger.Exercise[TerminatedSubscriptionResult](tx, s.Subscription, "Subscription_Archive", Empty{})
		})

	ledger.RegisterTemplate[SubscriptionPayment](r)
	ledger.AddChoice(r, "SubscriptionPayment_Collect", true,
		func(p SubscriptionPayment, _ CollectArgs) []daml.Party { return p.Signatories() },
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionPayment, arg CollectArgs) (SubscriptionPaymentCollectResult, error) {
			var res SubscriptionPaymentCollectResult
			if err := requireSameRound(tx, arg.TransferContext.OpenMiningRound, p.SubscriptionData.Provider, p.Round); err != nil {
				return res, err
			}
			if err := requireMatchingSubscription(tx, p.Subscription, p.SubscriptionData, p.Reference); err != nil {
				return res, err
			}
			var err error
			if res.SubscriptionState, err = ledger.Create(tx, SubscriptionIdleState{
				Subscription: p.Subscription, SubscriptionData: p.SubscriptionData, PayData: p.PayData,
				NextPaymentDueAt: addRel(p.ThisPaymentDueAt, p.PayData.PaymentInterval), Reference: p.Reference,
			}); err != nil {
				return res, err
			}
			res.Amulet, err = unlockAndTransfer(tx, arg.TransferContext, p.SubscriptionData, p.TargetAmount, p.LockedAmulet)
			return res, err
		})
}

// requireSameRound checks that a payment is collected against the round it
// was made in, as Splice does: the locked amulet's holding fee was computed
// for that round.
func requireSameRound(tx *ledger.Tx, roundCid daml.ContractID, by daml.Party, paid Round) error {
	round, err := fetchOpenRound(tx, roundCid, by)
	if err != nil {
		return err
	}
	return tx.Require(round.Round == paid, "Round at payment %d matches round at collection %d", paid.Number, round.Round.Number)
}

// requireMatchingSubscription is Splice's requireMatchingContract on the
// subscription a state refers to.
func requireMatchingSubscription(tx *ledger.Tx, cid daml.ContractID, data SubscriptionData, ref daml.ContractID) error {
	s, err := ledger.Fetch[Subscription](tx, cid)
	if err != nil {
		return err
	}
	return tx.Require(s.SubscriptionData == data && s.Reference == ref, "subscription %s matches", cid)
}

// lockAndMakeChange is Splice's lockAndMakeChange: lock the payment amount
// plus the fees of the later transfer, to the receiver and provider, until
// the context round can no longer be used.
func lockAndMakeChange(tx *ledger.Tx, arg SubscriptionPaymentArgs, data SubscriptionData, pay SubscriptionPayData) (locked daml.ContractID, change *daml.ContractID, target daml.Numeric, round Round, err error) {
	contextRound, err := fetchOpenRound(tx, arg.Context.Context.OpenMiningRound, data.Sender)
	if err != nil {
		return
	}
	if target, err = paymentAmountToAmulet(tx, data.DSO, contextRound, pay.PaymentAmount); err != nil {
		return
	}
	fees, err := ledger.Exercise[AmuletRulesComputeFeesResult](tx, arg.Context.AmuletRules, "AmuletRules_ComputeFees", AmuletRulesComputeFees{
		Context: arg.Context.Context, Sender: data.Sender,
		Outputs: []TransferOutput{{Receiver: data.Receiver, Amount: target, ReceiverFeeRatio: zero}},
	})
	if err != nil {
		return
	}
	var a arith
	lockAmount := a.add(target, a.sum(fees.Fees...))
	if a.err != nil {
		err = a.err
		return
	}
	holders := []daml.Party{data.Provider, data.Receiver}
	slices.Sort(holders)
	context := "amulet-subscription: " + data.Description
	result, err := ledger.Exercise[TransferResult](tx, arg.Context.AmuletRules, "AmuletRules_Transfer", AmuletRulesTransfer{
		Transfer: Transfer{
			Sender: data.Sender, Provider: arg.WalletProvider, Inputs: arg.Inputs,
			Outputs: []TransferOutput{{
				Receiver: data.Sender, Amount: lockAmount, ReceiverFeeRatio: zero,
				Lock: &TimeLock{
					Holders:    slices.Compact(holders),
					ExpiresAt:  max(addRel(tx.Now(), contextRound.TickDuration), contextRound.TargetClosesAt),
					OptContext: &context,
				},
			}},
		},
		Context: arg.Context.Context,
	})
	if err != nil {
		return
	}
	if len(result.CreatedAmulets) != 1 || result.CreatedAmulets[0].TransferResultLockedAmulet == nil {
		err = errorf("expected one locked amulet")
		return
	}
	return *result.CreatedAmulets[0].TransferResultLockedAmulet, result.SenderChangeAmulet, target, result.Round, nil
}

// unlockAndTransfer is Splice's unlockAndTransfer: unlock the payment and
// transfer exactly the target amount to the receiver.
func unlockAndTransfer(tx *ledger.Tx, ctx AppTransferContext, data SubscriptionData, target daml.Numeric, locked daml.ContractID) (daml.ContractID, error) {
	unlocked, err := ledger.Exercise[LockedAmuletUnlockResult](tx, locked, "LockedAmulet_Unlock", LockedAmuletUnlock{OpenRoundCid: ctx.OpenMiningRound})
	if err != nil {
		return "", err
	}
	context := AmuletTransferContext(ctx.OpenMiningRound)
	context.FeaturedAppRight = ctx.FeaturedAppRight
	result, err := ledger.Exercise[TransferResult](tx, ctx.AmuletRules, "AmuletRules_Transfer", AmuletRulesTransfer{
		Transfer: Transfer{
			Sender: data.Sender, Provider: data.Provider, Inputs: []TransferInput{InputAmulet(unlocked.AmuletSum.Amulet)},
			Outputs: []TransferOutput{{Receiver: data.Receiver, Amount: target, ReceiverFeeRatio: zero}},
		},
		Context: context,
	})
	if err != nil {
		return "", err
	}
	if err := tx.Require(result.Summary.SenderChangeFee.IsZero(), "Precomputed fees were exact"); err != nil {
		return "", err
	}
	if len(result.CreatedAmulets) != 1 || result.CreatedAmulets[0].TransferResultAmulet == nil {
		return "", errorf("expected one amulet")
	}
	return *result.CreatedAmulets[0].TransferResultAmulet, nil
}
