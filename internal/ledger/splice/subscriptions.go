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

// SubscriptionArchive is the argument of Subscription_Archive.
type SubscriptionArchive struct{}

// DamlIdentifier implements daml.Identified.
func (SubscriptionArchive) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "Subscription_Archive")
}

// SubscriptionArchiveResult is Subscription_Archive's result.
type SubscriptionArchiveResult struct {
	TerminatedSubscription daml.ContractID `daml:"terminatedSubscription"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionArchiveResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "Subscription_ArchiveResult")
}

// SubscriptionRequestAcceptAndMakePayment is the argument of
// SubscriptionRequest_AcceptAndMakePayment: the sender's inputs, the
// transfer context and the sender's validator.
type SubscriptionRequestAcceptAndMakePayment struct {
	Inputs         []TransferInput        `daml:"inputs"`
	Context        PaymentTransferContext `daml:"context"`
	WalletProvider daml.Party             `daml:"walletProvider"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionRequestAcceptAndMakePayment) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionRequest_AcceptAndMakePayment")
}

// SubscriptionRequestAcceptAndMakePaymentResult is the choice's result.
type SubscriptionRequestAcceptAndMakePaymentResult struct {
	SubscriptionPayment daml.ContractID  `daml:"subscriptionPayment"`
	SenderChange        *daml.ContractID `daml:"senderChange"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionRequestAcceptAndMakePaymentResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionRequest_AcceptAndMakePaymentResult")
}

// SubscriptionRequestWithdraw is the argument of SubscriptionRequest_Withdraw.
type SubscriptionRequestWithdraw struct{}

// DamlIdentifier implements daml.Identified.
func (SubscriptionRequestWithdraw) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionRequest_Withdraw")
}

// SubscriptionRequestWithdrawResult is the choice's result.
type SubscriptionRequestWithdrawResult struct {
	TerminatedSubscription daml.ContractID `daml:"terminatedSubscription"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionRequestWithdrawResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionRequest_WithdrawResult")
}

// SubscriptionRequestReject is the argument of SubscriptionRequest_Reject.
type SubscriptionRequestReject struct{}

// DamlIdentifier implements daml.Identified.
func (SubscriptionRequestReject) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionRequest_Reject")
}

// SubscriptionRequestRejectResult is the choice's result.
type SubscriptionRequestRejectResult struct {
	TerminatedSubscription daml.ContractID `daml:"terminatedSubscription"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionRequestRejectResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionRequest_RejectResult")
}

// SubscriptionInitialPaymentCollect is the argument of
// SubscriptionInitialPayment_Collect.
type SubscriptionInitialPaymentCollect struct {
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionInitialPaymentCollect) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionInitialPayment_Collect")
}

// SubscriptionInitialPaymentCollectResult is the choice's result.
type SubscriptionInitialPaymentCollectResult struct {
	Subscription      daml.ContractID `daml:"subscription"`
	SubscriptionState daml.ContractID `daml:"subscriptionState"`
	Amulet            daml.ContractID `daml:"amulet"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionInitialPaymentCollectResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionInitialPayment_CollectResult")
}

// SubscriptionInitialPaymentReject is the argument of
// SubscriptionInitialPayment_Reject.
type SubscriptionInitialPaymentReject struct {
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionInitialPaymentReject) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionInitialPayment_Reject")
}

// SubscriptionInitialPaymentRejectResult is the choice's result.
type SubscriptionInitialPaymentRejectResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionInitialPaymentRejectResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionInitialPayment_RejectResult")
}

// SubscriptionInitialPaymentExpire is the argument of
// SubscriptionInitialPayment_Expire.
type SubscriptionInitialPaymentExpire struct {
	Actor           daml.Party         `daml:"actor"`
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionInitialPaymentExpire) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionInitialPayment_Expire")
}

// SubscriptionInitialPaymentExpireResult is the choice's result.
type SubscriptionInitialPaymentExpireResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionInitialPaymentExpireResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionInitialPayment_ExpireResult")
}

// SubscriptionIdleStateMakePayment is the argument of
// SubscriptionIdleState_MakePayment.
type SubscriptionIdleStateMakePayment struct {
	Inputs         []TransferInput        `daml:"inputs"`
	Context        PaymentTransferContext `daml:"context"`
	WalletProvider daml.Party             `daml:"walletProvider"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionIdleStateMakePayment) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionIdleState_MakePayment")
}

// SubscriptionIdleStateMakePaymentResult is the choice's result.
type SubscriptionIdleStateMakePaymentResult struct {
	SubscriptionPayment daml.ContractID  `daml:"subscriptionPayment"`
	SenderChange        *daml.ContractID `daml:"senderChange"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionIdleStateMakePaymentResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionIdleState_MakePaymentResult")
}

// SubscriptionIdleStateExpireSubscription is the argument of
// SubscriptionIdleState_ExpireSubscription.
type SubscriptionIdleStateExpireSubscription struct {
	Actor daml.Party `daml:"actor"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionIdleStateExpireSubscription) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionIdleState_ExpireSubscription")
}

// SubscriptionIdleStateExpireSubscriptionResult is the choice's result.
type SubscriptionIdleStateExpireSubscriptionResult struct {
	TerminatedSubscription daml.ContractID `daml:"terminatedSubscription"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionIdleStateExpireSubscriptionResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionIdleState_ExpireSubscriptionResult")
}

// SubscriptionIdleStateCancelSubscription is the argument of
// SubscriptionIdleState_CancelSubscription.
type SubscriptionIdleStateCancelSubscription struct{}

// DamlIdentifier implements daml.Identified.
func (SubscriptionIdleStateCancelSubscription) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionIdleState_CancelSubscription")
}

// SubscriptionIdleStateCancelSubscriptionResult is the choice's result.
type SubscriptionIdleStateCancelSubscriptionResult struct {
	TerminatedSubscription daml.ContractID `daml:"terminatedSubscription"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionIdleStateCancelSubscriptionResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionIdleState_CancelSubscriptionResult")
}

// SubscriptionPaymentCollect is the argument of SubscriptionPayment_Collect.
type SubscriptionPaymentCollect struct {
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionPaymentCollect) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionPayment_Collect")
}

// SubscriptionPaymentCollectResult is the choice's result.
type SubscriptionPaymentCollectResult struct {
	SubscriptionState daml.ContractID `daml:"subscriptionState"`
	Amulet            daml.ContractID `daml:"amulet"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionPaymentCollectResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionPayment_CollectResult")
}

// SubscriptionPaymentReject is the argument of SubscriptionPayment_Reject.
type SubscriptionPaymentReject struct {
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionPaymentReject) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionPayment_Reject")
}

// SubscriptionPaymentRejectResult is the choice's result.
type SubscriptionPaymentRejectResult struct {
	SubscriptionState daml.ContractID     `daml:"subscriptionState"`
	AmuletSum         AmuletCreateSummary `daml:"amuletSum"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionPaymentRejectResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionPayment_RejectResult")
}

// SubscriptionPaymentExpire is the argument of SubscriptionPayment_Expire.
type SubscriptionPaymentExpire struct {
	Actor           daml.Party         `daml:"actor"`
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionPaymentExpire) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionPayment_Expire")
}

// SubscriptionPaymentExpireResult is the choice's result.
type SubscriptionPaymentExpireResult struct {
	SubscriptionState daml.ContractID     `daml:"subscriptionState"`
	AmuletSum         AmuletCreateSummary `daml:"amuletSum"`
}

// DamlIdentifier implements daml.Identified.
func (SubscriptionPaymentExpireResult) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier(moduleSubscriptions, "SubscriptionPayment_ExpireResult")
}

func registerSubscriptions(r *ledger.Registry) {
	ledger.RegisterTemplate[Subscription](r)
	ledger.AddChoice(r, "Subscription_Archive", true,
		func(s Subscription, _ SubscriptionArchive) []daml.Party { return s.Signatories() },
		func(tx *ledger.Tx, _ daml.ContractID, s Subscription, _ SubscriptionArchive) (SubscriptionArchiveResult, error) {
			cid, err := ledger.Create(tx, TerminatedSubscription(s))
			return SubscriptionArchiveResult{TerminatedSubscription: cid}, err
		})
	ledger.RegisterTemplate[TerminatedSubscription](r)

	ledger.RegisterTemplate[SubscriptionRequest](r)
	ledger.AddChoice(r, "SubscriptionRequest_AcceptAndMakePayment", true,
		func(s SubscriptionRequest, arg SubscriptionRequestAcceptAndMakePayment) []daml.Party {
			return []daml.Party{s.SubscriptionData.Sender, arg.WalletProvider}
		},
		func(tx *ledger.Tx, self daml.ContractID, s SubscriptionRequest, arg SubscriptionRequestAcceptAndMakePayment) (SubscriptionRequestAcceptAndMakePaymentResult, error) {
			locked, change, target, round, err := lockAndMakeChange(tx, arg.Context, s.SubscriptionData, s.PayData, arg.Inputs, arg.WalletProvider)
			if err != nil {
				return SubscriptionRequestAcceptAndMakePaymentResult{}, err
			}
			cid, err := ledger.Create(tx, SubscriptionInitialPayment{
				SubscriptionData: s.SubscriptionData, PayData: s.PayData, TargetAmount: target,
				LockedAmulet: locked, Round: round, Reference: self,
			})
			return SubscriptionRequestAcceptAndMakePaymentResult{SubscriptionPayment: cid, SenderChange: change}, err
		})
	ledger.AddChoice(r, "SubscriptionRequest_Withdraw", true,
		func(s SubscriptionRequest, _ SubscriptionRequestWithdraw) []daml.Party {
			return []daml.Party{s.SubscriptionData.Receiver}
		},
		func(tx *ledger.Tx, self daml.ContractID, s SubscriptionRequest, _ SubscriptionRequestWithdraw) (SubscriptionRequestWithdrawResult, error) {
			cid, err := ledger.Create(tx, TerminatedSubscription{SubscriptionData: s.SubscriptionData, Reference: self})
			return SubscriptionRequestWithdrawResult{TerminatedSubscription: cid}, err
		})
	ledger.AddChoice(r, "SubscriptionRequest_Reject", true,
		func(s SubscriptionRequest, _ SubscriptionRequestReject) []daml.Party {
			return []daml.Party{s.SubscriptionData.Sender}
		},
		func(tx *ledger.Tx, self daml.ContractID, s SubscriptionRequest, _ SubscriptionRequestReject) (SubscriptionRequestRejectResult, error) {
			cid, err := ledger.Create(tx, TerminatedSubscription{SubscriptionData: s.SubscriptionData, Reference: self})
			return SubscriptionRequestRejectResult{TerminatedSubscription: cid}, err
		})

	ledger.RegisterTemplate[SubscriptionInitialPayment](r)
	ledger.AddChoice(r, "SubscriptionInitialPayment_Collect", true,
		func(p SubscriptionInitialPayment, _ SubscriptionInitialPaymentCollect) []daml.Party {
			return p.Signatories()
		},
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionInitialPayment, arg SubscriptionInitialPaymentCollect) (SubscriptionInitialPaymentCollectResult, error) {
			var res SubscriptionInitialPaymentCollectResult
			if err := requireSameRound(tx, arg.TransferContext.OpenMiningRound, p.SubscriptionData, p.Round, "subscription request"); err != nil {
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
		func(p SubscriptionInitialPayment, _ SubscriptionInitialPaymentReject) []daml.Party {
			return []daml.Party{p.SubscriptionData.Receiver}
		},
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionInitialPayment, arg SubscriptionInitialPaymentReject) (SubscriptionInitialPaymentRejectResult, error) {
			if _, err := ledger.Create(tx, TerminatedSubscription{SubscriptionData: p.SubscriptionData, Reference: p.Reference}); err != nil {
				return SubscriptionInitialPaymentRejectResult{}, err
			}
			sum, err := releaseLock(tx, "LockedAmulet_UnlockV2", arg.TransferContext, p.SubscriptionData, p.LockedAmulet)
			return SubscriptionInitialPaymentRejectResult{AmuletSum: sum}, err
		})
	ledger.AddChoice(r, "SubscriptionInitialPayment_Expire", true,
		func(_ SubscriptionInitialPayment, arg SubscriptionInitialPaymentExpire) []daml.Party {
			return []daml.Party{arg.Actor}
		},
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionInitialPayment, arg SubscriptionInitialPaymentExpire) (SubscriptionInitialPaymentExpireResult, error) {
			if err := requireSignatory(tx, arg.Actor, p); err != nil {
				return SubscriptionInitialPaymentExpireResult{}, err
			}
			if _, err := ledger.Create(tx, TerminatedSubscription{SubscriptionData: p.SubscriptionData, Reference: p.Reference}); err != nil {
				return SubscriptionInitialPaymentExpireResult{}, err
			}
			sum, err := releaseLock(tx, "LockedAmulet_OwnerExpireLockV2", arg.TransferContext, p.SubscriptionData, p.LockedAmulet)
			return SubscriptionInitialPaymentExpireResult{AmuletSum: sum}, err
		})

	ledger.RegisterTemplate[SubscriptionIdleState](r)
	ledger.AddChoice(r, "SubscriptionIdleState_MakePayment", true,
		func(s SubscriptionIdleState, arg SubscriptionIdleStateMakePayment) []daml.Party {
			return []daml.Party{s.SubscriptionData.Sender, arg.WalletProvider}
		},
		func(tx *ledger.Tx, _ daml.ContractID, s SubscriptionIdleState, arg SubscriptionIdleStateMakePayment) (SubscriptionIdleStateMakePaymentResult, error) {
			if err := requireMatchingSubscription(tx, s.Subscription, s.SubscriptionData, s.Reference); err != nil {
				return SubscriptionIdleStateMakePaymentResult{}, err
			}
			// Splice deliberately does not check whether it is too late
			// to pay, so that providers can give a grace period.
			if err := require(tx, "The next due date is close enough to make the next payment.",
				addRel(tx.Now(), s.PayData.PaymentDuration) >= s.NextPaymentDueAt); err != nil {
				return SubscriptionIdleStateMakePaymentResult{}, err
			}
			locked, change, target, round, err := lockAndMakeChange(tx, arg.Context, s.SubscriptionData, s.PayData, arg.Inputs, arg.WalletProvider)
			if err != nil {
				return SubscriptionIdleStateMakePaymentResult{}, err
			}
			cid, err := ledger.Create(tx, SubscriptionPayment{
				Subscription: s.Subscription, SubscriptionData: s.SubscriptionData, PayData: s.PayData,
				ThisPaymentDueAt: s.NextPaymentDueAt, TargetAmount: target, LockedAmulet: locked,
				Round: round, Reference: s.Reference,
			})
			return SubscriptionIdleStateMakePaymentResult{SubscriptionPayment: cid, SenderChange: change}, err
		})
	ledger.AddChoice(r, "SubscriptionIdleState_ExpireSubscription", true,
		func(_ SubscriptionIdleState, arg SubscriptionIdleStateExpireSubscription) []daml.Party {
			return []daml.Party{arg.Actor}
		},
		func(tx *ledger.Tx, _ daml.ContractID, s SubscriptionIdleState, arg SubscriptionIdleStateExpireSubscription) (SubscriptionIdleStateExpireSubscriptionResult, error) {
			if err := requireSignatory(tx, arg.Actor, s); err != nil {
				return SubscriptionIdleStateExpireSubscriptionResult{}, err
			}
			if err := requireMatchingSubscription(tx, s.Subscription, s.SubscriptionData, s.Reference); err != nil {
				return SubscriptionIdleStateExpireSubscriptionResult{}, err
			}
			if err := require(tx, "Last subscription payment was missed", s.NextPaymentDueAt < tx.Now()); err != nil {
				return SubscriptionIdleStateExpireSubscriptionResult{}, err
			}
			res, err := ledger.Exercise[SubscriptionArchiveResult](tx, s.Subscription, "Subscription_Archive", SubscriptionArchive{})
			return SubscriptionIdleStateExpireSubscriptionResult(res), err
		})
	ledger.AddChoice(r, "SubscriptionIdleState_CancelSubscription", true,
		func(s SubscriptionIdleState, _ SubscriptionIdleStateCancelSubscription) []daml.Party {
			return []daml.Party{s.SubscriptionData.Sender}
		},
		func(tx *ledger.Tx, _ daml.ContractID, s SubscriptionIdleState, _ SubscriptionIdleStateCancelSubscription) (SubscriptionIdleStateCancelSubscriptionResult, error) {
			if err := requireMatchingSubscription(tx, s.Subscription, s.SubscriptionData, s.Reference); err != nil {
				return SubscriptionIdleStateCancelSubscriptionResult{}, err
			}
			res, err := ledger.Exercise[SubscriptionArchiveResult](tx, s.Subscription, "Subscription_Archive", SubscriptionArchive{})
			return SubscriptionIdleStateCancelSubscriptionResult(res), err
		})

	ledger.RegisterTemplate[SubscriptionPayment](r)
	ledger.AddChoice(r, "SubscriptionPayment_Collect", true,
		func(p SubscriptionPayment, _ SubscriptionPaymentCollect) []daml.Party { return p.Signatories() },
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionPayment, arg SubscriptionPaymentCollect) (SubscriptionPaymentCollectResult, error) {
			var res SubscriptionPaymentCollectResult
			if err := requireSameRound(tx, arg.TransferContext.OpenMiningRound, p.SubscriptionData, p.Round, "subscription payment"); err != nil {
				return res, err
			}
			if err := requireMatchingSubscription(tx, p.Subscription, p.SubscriptionData, p.Reference); err != nil {
				return res, err
			}
			var err error
			if res.SubscriptionState, err = ledger.Create(tx, p.idleState(addRel(p.ThisPaymentDueAt, p.PayData.PaymentInterval))); err != nil {
				return res, err
			}
			res.Amulet, err = unlockAndTransfer(tx, arg.TransferContext, p.SubscriptionData, p.TargetAmount, p.LockedAmulet)
			return res, err
		})
	ledger.AddChoice(r, "SubscriptionPayment_Reject", true,
		func(p SubscriptionPayment, _ SubscriptionPaymentReject) []daml.Party {
			return []daml.Party{p.SubscriptionData.Receiver}
		},
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionPayment, arg SubscriptionPaymentReject) (SubscriptionPaymentRejectResult, error) {
			var res SubscriptionPaymentRejectResult
			if err := requireMatchingSubscription(tx, p.Subscription, p.SubscriptionData, p.Reference); err != nil {
				return res, err
			}
			var err error
			if res.SubscriptionState, err = ledger.Create(tx, p.idleState(p.ThisPaymentDueAt)); err != nil {
				return res, err
			}
			res.AmuletSum, err = releaseLock(tx, "LockedAmulet_UnlockV2", arg.TransferContext, p.SubscriptionData, p.LockedAmulet)
			return res, err
		})
	ledger.AddChoice(r, "SubscriptionPayment_Expire", true,
		func(_ SubscriptionPayment, arg SubscriptionPaymentExpire) []daml.Party {
			return []daml.Party{arg.Actor}
		},
		func(tx *ledger.Tx, _ daml.ContractID, p SubscriptionPayment, arg SubscriptionPaymentExpire) (SubscriptionPaymentExpireResult, error) {
			var res SubscriptionPaymentExpireResult
			if err := requireSignatory(tx, arg.Actor, p); err != nil {
				return res, err
			}
			if err := requireMatchingSubscription(tx, p.Subscription, p.SubscriptionData, p.Reference); err != nil {
				return res, err
			}
			var err error
			if res.SubscriptionState, err = ledger.Create(tx, p.idleState(p.ThisPaymentDueAt)); err != nil {
				return res, err
			}
			res.AmuletSum, err = releaseLock(tx, "LockedAmulet_OwnerExpireLockV2", arg.TransferContext, p.SubscriptionData, p.LockedAmulet)
			return res, err
		})
}

// idleState is the subscription's idle state after this payment, with the
// next payment due at due.
func (p SubscriptionPayment) idleState(due daml.Timestamp) SubscriptionIdleState {
	return SubscriptionIdleState{
		Subscription: p.Subscription, SubscriptionData: p.SubscriptionData, PayData: p.PayData,
		NextPaymentDueAt: due, Reference: p.Reference,
	}
}

// requireSignatory is the subscriptions' and the name service's
// `require ("Actor " <> show actor <> " is a signatory")`.
func requireSignatory(tx *ledger.Tx, actor daml.Party, t ledger.Template) error {
	return require(tx, "Actor "+showParty(actor)+" is a signatory", slices.Contains(t.Signatories(), actor))
}

// requireSameRound checks that a payment is collected against the round it
// was made in, as Splice does: the round is read as the provider, through
// OpenMiningRound_Fetch.
func requireSameRound(tx *ledger.Tx, roundCid daml.ContractID, data SubscriptionData, paid Round, what string) error {
	round, err := fetchOpenRound(tx, roundCid, data.DSO, data.Provider)
	if err != nil {
		return err
	}
	return require(tx, "Round at "+what+" "+itoa(paid.Number)+" matches round at collection "+itoa(round.Round.Number),
		round.Round.Number == paid.Number)
}

// requireMatchingSubscription is Splice's requireMatchingContract on the
// subscription a state refers to.
func requireMatchingSubscription(tx *ledger.Tx, cid daml.ContractID, data SubscriptionData, ref daml.ContractID) error {
	return requireMatchingContract(tx, cid, Subscription{SubscriptionData: data, Reference: ref})
}

// releaseLock gives the sender back a locked payment (LockedAmulet_UnlockV2
// as the receiver, or LockedAmulet_OwnerExpireLockV2 once the lock
// expired) and reports the amulet as a legacy AmuletCreateSummary.
func releaseLock(tx *ledger.Tx, choice string, ctx AppTransferContext, data SubscriptionData, locked daml.ContractID) (AmuletCreateSummary, error) {
	var amulet daml.ContractID
	switch choice {
	case "LockedAmulet_UnlockV2":
		res, err := ledger.Exercise[LockedAmuletUnlockV2Result](tx, locked, choice, LockedAmuletUnlockV2{})
		if err != nil {
			return AmuletCreateSummary{}, err
		}
		amulet = res.AmuletCid
	default:
		res, err := ledger.Exercise[LockedAmuletOwnerExpireLockV2Result](tx, locked, choice, LockedAmuletOwnerExpireLockV2{})
		if err != nil {
			return AmuletCreateSummary{}, err
		}
		amulet = res.AmuletCid
	}
	return legacyAmuletCreateSummary(tx, data.DSO, data.Sender, ctx.OpenMiningRound, amulet)
}

// lockAndMakeChange is Splice's lockAndMakeChange: lock the payment amount
// to the receiver and provider until the context round can no longer be
// used, returning the change to the sender.
func lockAndMakeChange(tx *ledger.Tx, context PaymentTransferContext, data SubscriptionData, pay SubscriptionPayData, inputs []TransferInput, walletProvider daml.Party) (locked daml.ContractID, change *daml.ContractID, target daml.Numeric, round Round, err error) {
	contextRound, err := fetchOpenRound(tx, context.Context.OpenMiningRound, data.DSO, data.Sender)
	if err != nil {
		return
	}
	if target, err = paymentAmountToAmulet(tx, data.DSO, contextRound, pay.PaymentAmount); err != nil {
		return
	}
	holders := []daml.Party{data.Provider, data.Receiver}
	slices.Sort(holders)
	lockContext := "amulet-subscription: " + data.Description
	result, err := ledger.Exercise[TransferResult](tx, context.AmuletRules, "AmuletRules_Transfer", AmuletRulesTransfer{
		Transfer: Transfer{
			Sender: data.Sender, Provider: walletProvider, Inputs: inputs,
			Outputs: []TransferOutput{{
				Receiver: data.Sender, Amount: target, ReceiverFeeRatio: zero,
				Lock: &TimeLock{
					Holders:    slices.Compact(holders),
					ExpiresAt:  max(addRel(tx.Now(), contextRound.TickDuration), contextRound.TargetClosesAt),
					OptContext: &lockContext,
				},
				Meta: reasonMeta("Locking amulet for subscription payment: " + data.Description),
			}},
		},
		Context:     context.Context,
		ExpectedDso: &data.DSO,
	})
	if err != nil {
		return
	}
	if len(result.CreatedAmulets) != 1 || result.CreatedAmulets[0].TransferResultLockedAmulet == nil {
		err = abort("Irrefutable pattern match failed: expected one locked amulet")
		return
	}
	return *result.CreatedAmulets[0].TransferResultLockedAmulet, result.SenderChangeAmulet, target, result.Round, nil
}

// unlockAndTransfer is Splice's unlockAndTransfer: unlock the payment and
// transfer exactly the target amount to the receiver.
func unlockAndTransfer(tx *ledger.Tx, ctx AppTransferContext, data SubscriptionData, target daml.Numeric, locked daml.ContractID) (daml.ContractID, error) {
	unlocked, err := ledger.Exercise[LockedAmuletUnlockV2Result](tx, locked, "LockedAmulet_UnlockV2", LockedAmuletUnlockV2{})
	if err != nil {
		return "", err
	}
	context := AmuletTransferContext(ctx.OpenMiningRound)
	context.FeaturedAppRight = ctx.FeaturedAppRight
	result, err := ledger.Exercise[TransferResult](tx, ctx.AmuletRules, "AmuletRules_Transfer", AmuletRulesTransfer{
		Transfer: Transfer{
			Sender: data.Sender, Provider: data.Provider, Inputs: []TransferInput{InputAmulet(unlocked.AmuletCid)},
			Outputs: []TransferOutput{{
				Receiver: data.Receiver, Amount: target, ReceiverFeeRatio: zero,
				Meta: reasonMeta("subscription payment: " + data.Description),
			}},
		},
		Context:     context,
		ExpectedDso: &data.DSO,
	})
	if err != nil {
		return "", err
	}
	if err := require(tx, "Precomputed fees were exact", result.Summary.SenderChangeFee.IsZero()); err != nil {
		return "", err
	}
	if len(result.CreatedAmulets) != 1 || result.CreatedAmulets[0].TransferResultAmulet == nil {
		return "", abort("Irrefutable pattern match failed: expected one amulet")
	}
	return *result.CreatedAmulets[0].TransferResultAmulet, nil
}
