package splice

import (
	"slices"
	"unicode/utf8"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Splice.Wallet.*: wallet installs and direct transfer offers.

// Unit is Splice.Wallet.Payment:Unit, the unit of a payment amount.
type Unit string

// The payment units.
const (
	USDUnit    Unit = "USDUnit"
	AmuletUnit Unit = "AmuletUnit"
)

// DamlEnum marks Unit as a Daml enum.
func (Unit) DamlEnum() {}

// DamlEnumConstructors lists the constructors in declaration order.
func (Unit) DamlEnumConstructors() []string { return []string{"USDUnit", "AmuletUnit", "ExtUnit"} }

// DamlIdentifier implements daml.Identified.
func (Unit) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier("Splice.Wallet.Payment", "Unit")
}

// PaymentAmount is Splice.Wallet.Payment:PaymentAmount.
type PaymentAmount struct {
	Amount daml.Numeric `daml:"amount"`
	Unit   Unit         `daml:"unit"`
}

// DamlIdentifier implements daml.Identified.
func (PaymentAmount) DamlIdentifier() daml.Identifier {
	return PackageWalletPayments.Identifier("Splice.Wallet.Payment", "PaymentAmount")
}

// Amulets is a payment amount in amulet.
func Amulets(amount daml.Numeric) PaymentAmount {
	return PaymentAmount{Amount: amount, Unit: AmuletUnit}
}

// paymentAmountToAmulet is Splice's paymentAmountToAmulet: USD amounts are
// converted at the round's price.
func paymentAmountToAmulet(tx *ledger.Tx, dso daml.Party, round OpenMiningRound, p PaymentAmount) (daml.Numeric, error) {
	switch p.Unit {
	case USDUnit:
		if err := require(tx, "matching DSO party", round.DSO == dso); err != nil {
			return daml.Numeric{}, err
		}
		var a arith
		v := a.div(p.Amount, round.AmuletPrice)
		return v, a.err
	case AmuletUnit:
		return p.Amount, nil
	}
	return daml.Numeric{}, abort("ExtUnit: bare extension constructors are not allowed at runtime")
}

// WalletAppInstall is Splice.Wallet.Install:WalletAppInstall: a user's
// wallet, operated by the validator.
type WalletAppInstall struct {
	DSOParty       daml.Party `daml:"dsoParty"`
	ValidatorParty daml.Party `daml:"validatorParty"`
	EndUserName    string     `daml:"endUserName"`
	EndUserParty   daml.Party `daml:"endUserParty"`
}

// TemplateID implements ledger.Template.
func (WalletAppInstall) TemplateID() ledger.TemplateID {
	return PackageWallet.Template(moduleInstall, "WalletAppInstall")
}

// DamlIdentifier implements daml.Identified.
func (w WalletAppInstall) DamlIdentifier() daml.Identifier { return w.TemplateID().Identifier }

// Signatories implements ledger.Template: the user and the validator.
func (w WalletAppInstall) Signatories() []daml.Party {
	return []daml.Party{w.EndUserParty, w.ValidatorParty}
}

// Observers implements ledger.Template.
func (WalletAppInstall) Observers() []daml.Party { return nil }

// TransferOffer is Splice.Wallet.TransferOffer:TransferOffer, an offer to
// transfer an amount directly to the receiver.
type TransferOffer struct {
	Sender      daml.Party     `daml:"sender"`
	Receiver    daml.Party     `daml:"receiver"`
	DSO         daml.Party     `daml:"dso"`
	Amount      PaymentAmount  `daml:"amount"`
	Description string         `daml:"description"`
	ExpiresAt   daml.Timestamp `daml:"expiresAt"`
	TrackingID  string         `daml:"trackingId"`
}

// TemplateID implements ledger.Template.
func (TransferOffer) TemplateID() ledger.TemplateID {
	return PackageWallet.Template(moduleTransferOffer, "TransferOffer")
}

// DamlIdentifier implements daml.Identified.
func (o TransferOffer) DamlIdentifier() daml.Identifier { return o.TemplateID().Identifier }

// Signatories implements ledger.Template: the sender.
func (o TransferOffer) Signatories() []daml.Party { return []daml.Party{o.Sender} }

// Observers implements ledger.Template: the receiver.
func (o TransferOffer) Observers() []daml.Party { return []daml.Party{o.Receiver} }

// MaxOfferTextLength bounds a transfer offer's description and tracking id:
// both must be shorter (in characters).
const MaxOfferTextLength = 280

// Ensure is the template's ensure clause.
func (o TransferOffer) Ensure() error {
	if utf8.RuneCountInString(o.Description) >= MaxOfferTextLength || utf8.RuneCountInString(o.TrackingID) >= MaxOfferTextLength {
		return errorf("description and trackingId must be shorter than %d characters", MaxOfferTextLength)
	}
	return nil
}

func (o TransferOffer) trackingInfo() TransferOfferTrackingInfo {
	return TransferOfferTrackingInfo{TrackingID: o.TrackingID, Sender: o.Sender, Receiver: o.Receiver}
}

// AcceptedTransferOffer is Splice.Wallet.TransferOffer:AcceptedTransferOffer:
// the receiver agreed; the sender's wallet completes it.
type AcceptedTransferOffer struct {
	Sender     daml.Party     `daml:"sender"`
	Receiver   daml.Party     `daml:"receiver"`
	DSO        daml.Party     `daml:"dso"`
	Amount     PaymentAmount  `daml:"amount"`
	ExpiresAt  daml.Timestamp `daml:"expiresAt"`
	TrackingID string         `daml:"trackingId"`
}

// TemplateID implements ledger.Template.
func (AcceptedTransferOffer) TemplateID() ledger.TemplateID {
	return PackageWallet.Template(moduleTransferOffer, "AcceptedTransferOffer")
}

// DamlIdentifier implements daml.Identified.
func (o AcceptedTransferOffer) DamlIdentifier() daml.Identifier { return o.TemplateID().Identifier }

// Signatories implements ledger.Template: sender and receiver.
func (o AcceptedTransferOffer) Signatories() []daml.Party { return []daml.Party{o.Sender, o.Receiver} }

// Observers implements ledger.Template.
func (AcceptedTransferOffer) Observers() []daml.Party { return nil }

func (o AcceptedTransferOffer) trackingInfo() TransferOfferTrackingInfo {
	return TransferOfferTrackingInfo{TrackingID: o.TrackingID, Sender: o.Sender, Receiver: o.Receiver}
}

// TransferOfferTrackingInfo is what the wallet's transaction log needs to
// report an offer's fate.
type TransferOfferTrackingInfo struct {
	TrackingID string     `daml:"trackingId"`
	Sender     daml.Party `daml:"sender"`
	Receiver   daml.Party `daml:"receiver"`
}

// DamlIdentifier implements daml.Identified.
func (TransferOfferTrackingInfo) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOfferTrackingInfo")
}

// TransferOfferAccept is the argument of TransferOffer_Accept.
type TransferOfferAccept struct{}

// DamlIdentifier implements daml.Identified.
func (TransferOfferAccept) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOffer_Accept")
}

// TransferOfferAcceptResult is TransferOffer_Accept's result.
type TransferOfferAcceptResult struct {
	AcceptedTransferOffer daml.ContractID `daml:"acceptedTransferOffer"`
}

// DamlIdentifier implements daml.Identified.
func (TransferOfferAcceptResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOffer_AcceptResult")
}

// TransferOfferReject is the argument of TransferOffer_Reject.
type TransferOfferReject struct{}

// DamlIdentifier implements daml.Identified.
func (TransferOfferReject) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOffer_Reject")
}

// TransferOfferRejectResult is TransferOffer_Reject's result.
type TransferOfferRejectResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (TransferOfferRejectResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOffer_RejectResult")
}

// TransferOfferWithdraw is the argument of TransferOffer_Withdraw.
type TransferOfferWithdraw struct {
	Reason string `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (TransferOfferWithdraw) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOffer_Withdraw")
}

// TransferOfferWithdrawResult is TransferOffer_Withdraw's result.
type TransferOfferWithdrawResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (TransferOfferWithdrawResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOffer_WithdrawResult")
}

// TransferOfferExpire is the argument of TransferOffer_Expire: the stakeholder
// expiring the offer.
type TransferOfferExpire struct {
	Actor daml.Party `daml:"actor"`
}

// DamlIdentifier implements daml.Identified.
func (TransferOfferExpire) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOffer_Expire")
}

// TransferOfferExpireResult is TransferOffer_Expire's result.
type TransferOfferExpireResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (TransferOfferExpireResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "TransferOffer_ExpireResult")
}

// AcceptedTransferOfferComplete is the argument of
// AcceptedTransferOffer_Complete.
type AcceptedTransferOfferComplete struct {
	Inputs          []TransferInput        `daml:"inputs"`
	TransferContext PaymentTransferContext `daml:"transferContext"`
	WalletProvider  daml.Party             `daml:"walletProvider"`
}

// DamlIdentifier implements daml.Identified.
func (AcceptedTransferOfferComplete) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "AcceptedTransferOffer_Complete")
}

// AcceptedTransferOfferCompleteResult is the choice's result.
type AcceptedTransferOfferCompleteResult struct {
	TransferResult     TransferResult            `daml:"transferResult"`
	TrackingInfo       TransferOfferTrackingInfo `daml:"trackingInfo"`
	SenderChangeAmulet *daml.ContractID          `daml:"senderChangeAmulet"`
}

// DamlIdentifier implements daml.Identified.
func (AcceptedTransferOfferCompleteResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "AcceptedTransferOffer_CompleteResult")
}

// AcceptedTransferOfferWithdraw is the argument of
// AcceptedTransferOffer_Withdraw.
type AcceptedTransferOfferWithdraw struct {
	Reason string `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (AcceptedTransferOfferWithdraw) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "AcceptedTransferOffer_Withdraw")
}

// AcceptedTransferOfferWithdrawResult is the choice's result.
type AcceptedTransferOfferWithdrawResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (AcceptedTransferOfferWithdrawResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "AcceptedTransferOffer_WithdrawResult")
}

// AcceptedTransferOfferAbort is the argument of AcceptedTransferOffer_Abort.
type AcceptedTransferOfferAbort struct {
	Reason string `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (AcceptedTransferOfferAbort) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "AcceptedTransferOffer_Abort")
}

// AcceptedTransferOfferAbortResult is the choice's result.
type AcceptedTransferOfferAbortResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (AcceptedTransferOfferAbortResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "AcceptedTransferOffer_AbortResult")
}

// AcceptedTransferOfferExpire is the argument of
// AcceptedTransferOffer_Expire.
type AcceptedTransferOfferExpire struct {
	Actor daml.Party `daml:"actor"`
}

// DamlIdentifier implements daml.Identified.
func (AcceptedTransferOfferExpire) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "AcceptedTransferOffer_Expire")
}

// AcceptedTransferOfferExpireResult is the choice's result.
type AcceptedTransferOfferExpireResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (AcceptedTransferOfferExpireResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferOffer, "AcceptedTransferOffer_ExpireResult")
}

// WalletCreateTransferOffer is the argument of
// WalletAppInstall_CreateTransferOffer.
type WalletCreateTransferOffer struct {
	Receiver    daml.Party     `daml:"receiver"`
	Amount      PaymentAmount  `daml:"amount"`
	Description string         `daml:"description"`
	ExpiresAt   daml.Timestamp `daml:"expiresAt"`
	TrackingID  string         `daml:"trackingId"`
}

// DamlIdentifier implements daml.Identified.
func (WalletCreateTransferOffer) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_CreateTransferOffer")
}

// WalletCreateTransferOfferResult is the choice's result.
type WalletCreateTransferOfferResult struct {
	TransferOffer daml.ContractID `daml:"transferOffer"`
}

// DamlIdentifier implements daml.Identified.
func (WalletCreateTransferOfferResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_CreateTransferOfferResult")
}

// WalletTransferOfferAccept is the argument of WalletAppInstall_TransferOffer_Accept, by which
// the validator accepts a transfer offer to
// the user.
type WalletTransferOfferAccept struct {
	Cid daml.ContractID `daml:"cid"`
}

// DamlIdentifier implements daml.Identified.
func (WalletTransferOfferAccept) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_TransferOffer_Accept")
}

// WalletTransferOfferAcceptResult is the choice's result.
type WalletTransferOfferAcceptResult struct {
	AcceptedTransferOffer daml.ContractID `daml:"acceptedTransferOffer"`
}

// DamlIdentifier implements daml.Identified.
func (WalletTransferOfferAcceptResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_TransferOffer_AcceptResult")
}

// WalletTransferOfferReject is the argument of WalletAppInstall_TransferOffer_Reject, by which
// the validator rejects a transfer offer to
// the user.
type WalletTransferOfferReject struct {
	Cid daml.ContractID `daml:"cid"`
}

// DamlIdentifier implements daml.Identified.
func (WalletTransferOfferReject) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_TransferOffer_Reject")
}

// WalletTransferOfferRejectResult is the choice's result.
type WalletTransferOfferRejectResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (WalletTransferOfferRejectResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_TransferOffer_RejectResult")
}

// WalletTransferOfferWithdraw is the argument of WalletAppInstall_TransferOffer_Withdraw, by which
// the validator withdraws the user's
// transfer offer.
type WalletTransferOfferWithdraw struct {
	Cid    daml.ContractID `daml:"cid"`
	Reason string          `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (WalletTransferOfferWithdraw) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_TransferOffer_Withdraw")
}

// WalletTransferOfferWithdrawResult is the choice's result.
type WalletTransferOfferWithdrawResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (WalletTransferOfferWithdrawResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_TransferOffer_WithdrawResult")
}

// WalletTransferOfferExpire is the argument of WalletAppInstall_TransferOffer_Expire, by which
// the validator expires a transfer offer
// as the user.
type WalletTransferOfferExpire struct {
	Cid daml.ContractID `daml:"cid"`
}

// DamlIdentifier implements daml.Identified.
func (WalletTransferOfferExpire) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_TransferOffer_Expire")
}

// WalletTransferOfferExpireResult is the choice's result.
type WalletTransferOfferExpireResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (WalletTransferOfferExpireResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_TransferOffer_ExpireResult")
}

// WalletAcceptedTransferOfferAbort is the argument of WalletAppInstall_AcceptedTransferOffer_Abort, by which
// the validator aborts the user's
// accepted offer.
type WalletAcceptedTransferOfferAbort struct {
	Cid    daml.ContractID `daml:"cid"`
	Reason string          `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (WalletAcceptedTransferOfferAbort) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_AcceptedTransferOffer_Abort")
}

// WalletAcceptedTransferOfferAbortResult is the choice's result.
type WalletAcceptedTransferOfferAbortResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (WalletAcceptedTransferOfferAbortResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_AcceptedTransferOffer_AbortResult")
}

// WalletAcceptedTransferOfferWithdraw is the argument of WalletAppInstall_AcceptedTransferOffer_Withdraw, by which
// the validator withdraws the
// acceptance of an offer to the user.
type WalletAcceptedTransferOfferWithdraw struct {
	Cid    daml.ContractID `daml:"cid"`
	Reason string          `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (WalletAcceptedTransferOfferWithdraw) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_AcceptedTransferOffer_Withdraw")
}

// WalletAcceptedTransferOfferWithdrawResult is the choice's result.
type WalletAcceptedTransferOfferWithdrawResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (WalletAcceptedTransferOfferWithdrawResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_AcceptedTransferOffer_WithdrawResult")
}

// WalletAcceptedTransferOfferExpire is the argument of WalletAppInstall_AcceptedTransferOffer_Expire, by which
// the validator expires an
// accepted offer as the user.
type WalletAcceptedTransferOfferExpire struct {
	Cid daml.ContractID `daml:"cid"`
}

// DamlIdentifier implements daml.Identified.
func (WalletAcceptedTransferOfferExpire) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_AcceptedTransferOffer_Expire")
}

// WalletAcceptedTransferOfferExpireResult is the choice's result.
type WalletAcceptedTransferOfferExpireResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// DamlIdentifier implements daml.Identified.
func (WalletAcceptedTransferOfferExpireResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_AcceptedTransferOffer_ExpireResult")
}

// WalletSubscriptionRequestReject is the argument of WalletAppInstall_SubscriptionRequest_Reject, by which
// the validator rejects a
// subscription request to the user.
type WalletSubscriptionRequestReject struct {
	Cid daml.ContractID `daml:"cid"`
}

// DamlIdentifier implements daml.Identified.
func (WalletSubscriptionRequestReject) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_SubscriptionRequest_Reject")
}

// WalletSubscriptionRequestRejectResult is the choice's result.
type WalletSubscriptionRequestRejectResult struct {
	TerminatedSubscription daml.ContractID `daml:"terminatedSubscription"`
}

// DamlIdentifier implements daml.Identified.
func (WalletSubscriptionRequestRejectResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_SubscriptionRequest_RejectResult")
}

// WalletSubscriptionIdleStateCancelSubscription is the argument of WalletAppInstall_SubscriptionIdleState_CancelSubscription, by which
// the validator cancels the user's subscription.
type WalletSubscriptionIdleStateCancelSubscription struct {
	Cid daml.ContractID `daml:"cid"`
}

// DamlIdentifier implements daml.Identified.
func (WalletSubscriptionIdleStateCancelSubscription) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_SubscriptionIdleState_CancelSubscription")
}

// WalletSubscriptionIdleStateCancelSubscriptionResult is the choice's result.
type WalletSubscriptionIdleStateCancelSubscriptionResult struct {
	TerminatedSubscription daml.ContractID `daml:"terminatedSubscription"`
}

// DamlIdentifier implements daml.Identified.
func (WalletSubscriptionIdleStateCancelSubscriptionResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleInstall, "WalletAppInstall_SubscriptionIdleState_CancelSubscriptionResult")
}

// requireStakeholder is the expire choices' "Actor is a stakeholder".
func requireStakeholder(tx *ledger.Tx, actor daml.Party, t ledger.Template) error {
	return require(tx, "Actor is a stakeholder", slices.Contains(t.Signatories(), actor) || slices.Contains(t.Observers(), actor))
}

// requireNotExpired is the offers' `now < expiresAt` with sandnet's
// decision that an offer can still be used exactly at its expiry time.
func requireNotExpired(tx *ledger.Tx, expiresAt daml.Timestamp) error {
	return require(tx, "Offer has not expired", tx.Now() <= expiresAt)
}

// requireExpired is the expire choices' check. Upstream allows expiring at
// expiresAt; sandnet only once expiresAt has passed, so that nothing can
// both accept and expire an offer at the same instant.
func requireExpired(tx *ledger.Tx, expiresAt daml.Timestamp) error {
	return require(tx, "Contract has expired", expiresAt < tx.Now())
}

func registerWallet(r *ledger.Registry) {
	ledger.RegisterTemplate[TransferOffer](r)
	receiver := func(o TransferOffer) []daml.Party { return []daml.Party{o.Receiver} }
	ledger.AddChoice(r, "TransferOffer_Accept", true,
		func(o TransferOffer, _ TransferOfferAccept) []daml.Party { return receiver(o) },
		func(tx *ledger.Tx, _ daml.ContractID, o TransferOffer, _ TransferOfferAccept) (TransferOfferAcceptResult, error) {
			if err := requireNotExpired(tx, o.ExpiresAt); err != nil {
				return TransferOfferAcceptResult{}, err
			}
			cid, err := ledger.Create(tx, AcceptedTransferOffer{
				Sender: o.Sender, Receiver: o.Receiver, DSO: o.DSO, Amount: o.Amount,
				ExpiresAt: o.ExpiresAt, TrackingID: o.TrackingID,
			})
			return TransferOfferAcceptResult{AcceptedTransferOffer: cid}, err
		})
	ledger.AddChoice(r, "TransferOffer_Reject", true,
		func(o TransferOffer, _ TransferOfferReject) []daml.Party { return receiver(o) },
		func(_ *ledger.Tx, _ daml.ContractID, o TransferOffer, _ TransferOfferReject) (TransferOfferRejectResult, error) {
			return TransferOfferRejectResult{TrackingInfo: o.trackingInfo()}, nil
		})
	ledger.AddChoice(r, "TransferOffer_Withdraw", true,
		func(o TransferOffer, _ TransferOfferWithdraw) []daml.Party { return []daml.Party{o.Sender} },
		func(_ *ledger.Tx, _ daml.ContractID, o TransferOffer, _ TransferOfferWithdraw) (TransferOfferWithdrawResult, error) {
			return TransferOfferWithdrawResult{TrackingInfo: o.trackingInfo()}, nil
		})
	ledger.AddChoice(r, "TransferOffer_Expire", true,
		func(_ TransferOffer, arg TransferOfferExpire) []daml.Party { return []daml.Party{arg.Actor} },
		func(tx *ledger.Tx, _ daml.ContractID, o TransferOffer, arg TransferOfferExpire) (TransferOfferExpireResult, error) {
			if err := requireExpired(tx, o.ExpiresAt); err != nil {
				return TransferOfferExpireResult{}, err
			}
			if err := requireStakeholder(tx, arg.Actor, o); err != nil {
				return TransferOfferExpireResult{}, err
			}
			return TransferOfferExpireResult{TrackingInfo: o.trackingInfo()}, nil
		})

	ledger.RegisterTemplate[AcceptedTransferOffer](r)
	ledger.AddChoice(r, "AcceptedTransferOffer_Complete", true,
		func(o AcceptedTransferOffer, arg AcceptedTransferOfferComplete) []daml.Party {
			return []daml.Party{o.Sender, arg.WalletProvider}
		},
		completeAcceptedTransferOffer)
	ledger.AddChoice(r, "AcceptedTransferOffer_Withdraw", true,
		func(o AcceptedTransferOffer, _ AcceptedTransferOfferWithdraw) []daml.Party {
			return []daml.Party{o.Receiver}
		},
		func(_ *ledger.Tx, _ daml.ContractID, o AcceptedTransferOffer, _ AcceptedTransferOfferWithdraw) (AcceptedTransferOfferWithdrawResult, error) {
			return AcceptedTransferOfferWithdrawResult{TrackingInfo: o.trackingInfo()}, nil
		})
	ledger.AddChoice(r, "AcceptedTransferOffer_Abort", true,
		func(o AcceptedTransferOffer, _ AcceptedTransferOfferAbort) []daml.Party {
			return []daml.Party{o.Sender}
		},
		func(_ *ledger.Tx, _ daml.ContractID, o AcceptedTransferOffer, _ AcceptedTransferOfferAbort) (AcceptedTransferOfferAbortResult, error) {
			return AcceptedTransferOfferAbortResult{TrackingInfo: o.trackingInfo()}, nil
		})
	ledger.AddChoice(r, "AcceptedTransferOffer_Expire", true,
		func(_ AcceptedTransferOffer, arg AcceptedTransferOfferExpire) []daml.Party {
			return []daml.Party{arg.Actor}
		},
		func(tx *ledger.Tx, _ daml.ContractID, o AcceptedTransferOffer, arg AcceptedTransferOfferExpire) (AcceptedTransferOfferExpireResult, error) {
			if err := requireExpired(tx, o.ExpiresAt); err != nil {
				return AcceptedTransferOfferExpireResult{}, err
			}
			if err := requireStakeholder(tx, arg.Actor, o); err != nil {
				return AcceptedTransferOfferExpireResult{}, err
			}
			return AcceptedTransferOfferExpireResult{TrackingInfo: o.trackingInfo()}, nil
		})

	registerWalletInstall(r)
}

// completeAcceptedTransferOffer is AcceptedTransferOffer_Complete: the
// amount is converted to amulet at the context round's price and
// transferred from the sender's inputs, with the sender's validator as
// provider.
func completeAcceptedTransferOffer(tx *ledger.Tx, _ daml.ContractID, o AcceptedTransferOffer, arg AcceptedTransferOfferComplete) (AcceptedTransferOfferCompleteResult, error) {
	var res AcceptedTransferOfferCompleteResult
	if err := requireNotExpired(tx, o.ExpiresAt); err != nil {
		return res, err
	}
	round, err := fetchOpenRound(tx, arg.TransferContext.Context.OpenMiningRound, o.DSO, o.Sender)
	if err != nil {
		return res, err
	}
	amount, err := paymentAmountToAmulet(tx, o.DSO, round, o.Amount)
	if err != nil {
		return res, err
	}
	result, err := ledger.Exercise[TransferResult](tx, arg.TransferContext.AmuletRules, "AmuletRules_Transfer", AmuletRulesTransfer{
		Transfer: Transfer{
			Sender: o.Sender, Provider: arg.WalletProvider, Inputs: arg.Inputs,
			Outputs: []TransferOutput{{
				Receiver: o.Receiver, Amount: amount, ReceiverFeeRatio: zero,
				Meta: reasonMeta("transfer offer accepted"),
			}},
		},
		Context:     arg.TransferContext.Context,
		ExpectedDso: &o.DSO,
	})
	if err != nil {
		return res, err
	}
	return AcceptedTransferOfferCompleteResult{
		TransferResult: result, TrackingInfo: o.trackingInfo(), SenderChangeAmulet: result.SenderChangeAmulet,
	}, nil
}

// reasonMeta is the token standard's reasonToMeta over empty metadata: the
// reason under splice.lfdecentralizedtrust.org/reason, unless it is empty.
func reasonMeta(reason string) *Metadata {
	m := &Metadata{Values: map[string]string{}}
	if reason != "" {
		m.Values[MetaReason] = reason
	}
	return m
}

// registerWalletInstall adds the WalletAppInstall choices through which
// the validator operator acts for its users, as Splice's wallet backend
// does: the validator exercises them on the user's install, whose
// signatories (user and validator) authorize what happens inside.
func registerWalletInstall(r *ledger.Registry) {
	ledger.RegisterTemplate[WalletAppInstall](r)
	validator := func(w WalletAppInstall) []daml.Party { return []daml.Party{w.ValidatorParty} }

	ledger.AddChoice(r, "WalletAppInstall_CreateTransferOffer", false,
		func(w WalletAppInstall, _ WalletCreateTransferOffer) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, w WalletAppInstall, arg WalletCreateTransferOffer) (WalletCreateTransferOfferResult, error) {
			cid, err := ledger.Create(tx, TransferOffer{
				Sender: w.EndUserParty, Receiver: arg.Receiver, DSO: w.DSOParty, Amount: arg.Amount,
				Description: arg.Description, ExpiresAt: arg.ExpiresAt, TrackingID: arg.TrackingID,
			})
			return WalletCreateTransferOfferResult{TransferOffer: cid}, err
		})
	ledger.AddChoice(r, "WalletAppInstall_TransferOffer_Accept", false,
		func(w WalletAppInstall, _ WalletTransferOfferAccept) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletTransferOfferAccept) (WalletTransferOfferAcceptResult, error) {
			res, err := ledger.Exercise[TransferOfferAcceptResult](tx, arg.Cid, "TransferOffer_Accept", TransferOfferAccept{})
			return WalletTransferOfferAcceptResult{AcceptedTransferOffer: res.AcceptedTransferOffer}, err
		})
	ledger.AddChoice(r, "WalletAppInstall_TransferOffer_Reject", false,
		func(w WalletAppInstall, _ WalletTransferOfferReject) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletTransferOfferReject) (WalletTransferOfferRejectResult, error) {
			res, err := ledger.Exercise[TransferOfferRejectResult](tx, arg.Cid, "TransferOffer_Reject", TransferOfferReject{})
			return WalletTransferOfferRejectResult(res), err
		})
	ledger.AddChoice(r, "WalletAppInstall_TransferOffer_Withdraw", false,
		func(w WalletAppInstall, _ WalletTransferOfferWithdraw) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletTransferOfferWithdraw) (WalletTransferOfferWithdrawResult, error) {
			res, err := ledger.Exercise[TransferOfferWithdrawResult](tx, arg.Cid, "TransferOffer_Withdraw", TransferOfferWithdraw{Reason: arg.Reason})
			return WalletTransferOfferWithdrawResult(res), err
		})
	ledger.AddChoice(r, "WalletAppInstall_TransferOffer_Expire", false,
		func(w WalletAppInstall, _ WalletTransferOfferExpire) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, w WalletAppInstall, arg WalletTransferOfferExpire) (WalletTransferOfferExpireResult, error) {
			res, err := ledger.Exercise[TransferOfferExpireResult](tx, arg.Cid, "TransferOffer_Expire", TransferOfferExpire{Actor: w.EndUserParty})
			return WalletTransferOfferExpireResult(res), err
		})
	ledger.AddChoice(r, "WalletAppInstall_AcceptedTransferOffer_Abort", false,
		func(w WalletAppInstall, _ WalletAcceptedTransferOfferAbort) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletAcceptedTransferOfferAbort) (WalletAcceptedTransferOfferAbortResult, error) {
			res, err := ledger.Exercise[AcceptedTransferOfferAbortResult](tx, arg.Cid, "AcceptedTransferOffer_Abort", AcceptedTransferOfferAbort{Reason: arg.Reason})
			return WalletAcceptedTransferOfferAbortResult(res), err
		})
	ledger.AddChoice(r, "WalletAppInstall_AcceptedTransferOffer_Withdraw", false,
		func(w WalletAppInstall, _ WalletAcceptedTransferOfferWithdraw) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletAcceptedTransferOfferWithdraw) (WalletAcceptedTransferOfferWithdrawResult, error) {
			res, err := ledger.Exercise[AcceptedTransferOfferWithdrawResult](tx, arg.Cid, "AcceptedTransferOffer_Withdraw", AcceptedTransferOfferWithdraw{Reason: arg.Reason})
			return WalletAcceptedTransferOfferWithdrawResult(res), err
		})
	ledger.AddChoice(r, "WalletAppInstall_AcceptedTransferOffer_Expire", false,
		func(w WalletAppInstall, _ WalletAcceptedTransferOfferExpire) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, w WalletAppInstall, arg WalletAcceptedTransferOfferExpire) (WalletAcceptedTransferOfferExpireResult, error) {
			res, err := ledger.Exercise[AcceptedTransferOfferExpireResult](tx, arg.Cid, "AcceptedTransferOffer_Expire", AcceptedTransferOfferExpire{Actor: w.EndUserParty})
			return WalletAcceptedTransferOfferExpireResult(res), err
		})
	ledger.AddChoice(r, "WalletAppInstall_SubscriptionRequest_Reject", false,
		func(w WalletAppInstall, _ WalletSubscriptionRequestReject) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletSubscriptionRequestReject) (WalletSubscriptionRequestRejectResult, error) {
			res, err := ledger.Exercise[SubscriptionRequestRejectResult](tx, arg.Cid, "SubscriptionRequest_Reject", SubscriptionRequestReject{})
			return WalletSubscriptionRequestRejectResult(res), err
		})
	ledger.AddChoice(r, "WalletAppInstall_SubscriptionIdleState_CancelSubscription", false,
		func(w WalletAppInstall, _ WalletSubscriptionIdleStateCancelSubscription) []daml.Party {
			return validator(w)
		},
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletSubscriptionIdleStateCancelSubscription) (WalletSubscriptionIdleStateCancelSubscriptionResult, error) {
			res, err := ledger.Exercise[SubscriptionIdleStateCancelSubscriptionResult](tx, arg.Cid, "SubscriptionIdleState_CancelSubscription", SubscriptionIdleStateCancelSubscription{})
			return WalletSubscriptionIdleStateCancelSubscriptionResult(res), err
		})
}
