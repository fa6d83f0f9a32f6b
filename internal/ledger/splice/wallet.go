package splice

import (
	"slices"
	"unicode/utf8"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
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
		if err := tx.Require(round.DSO == dso, "matching DSO party"); err != nil {
			return daml.Numeric{}, err
		}
		var a arith
		v := a.div(p.Amount, round.AmuletPrice)
		return v, a.err
	case AmuletUnit:
		return p.Amount, nil
	}
	return daml.Numeric{}, fault.New(fault.DamlPrecondition, "ExtUnit: bare extension constructors are not allowed at runtime")
}

// fetchOpenRound is Splice's fetchPublicReferenceData for open rounds: the
// round is read through OpenMiningRound_Fetch, which any party may
// exercise on a round disclosed to it.
func fetchOpenRound(tx *ledger.Tx, cid daml.ContractID, by daml.Party) (OpenMiningRound, error) {
	return ledger.Exercise[OpenMiningRound](tx, cid, "OpenMiningRound_Fetch", OpenMiningRoundFetch{P: by})
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

// TrackingInfoResult is the result of the choices that end an offer
// without a transfer (reject, withdraw, abort, expire), directly or
// through the wallet install.
type TrackingInfoResult struct {
	TrackingInfo TransferOfferTrackingInfo `daml:"trackingInfo"`
}

// ReasonArg is the argument of the withdraw and abort choices.
type ReasonArg struct {
	Reason string `daml:"reason"`
}

// Actor is the argument of the expire choices: the stakeholder expiring.
type Actor struct {
	Actor daml.Party `daml:"actor"`
}

// TransferOfferAcceptResult is TransferOffer_Accept's result.
type TransferOfferAcceptResult struct {
	AcceptedTransferOffer daml.ContractID `daml:"acceptedTransferOffer"`
}

// AcceptedTransferOfferComplete is the argument of
// AcceptedTransferOffer_Complete.
type AcceptedTransferOfferComplete struct {
	Inputs          []TransferInput        `daml:"inputs"`
	TransferContext PaymentTransferContext `daml:"transferContext"`
	WalletProvider  daml.Party             `daml:"walletProvider"`
}

// AcceptedTransferOfferCompleteResult is the choice's result.
type AcceptedTransferOfferCompleteResult struct {
	TransferResult     TransferResult            `daml:"transferResult"`
	TrackingInfo       TransferOfferTrackingInfo `daml:"trackingInfo"`
	SenderChangeAmulet *daml.ContractID          `daml:"senderChangeAmulet"`
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

// WalletCreateTransferOfferResult is the choice's result.
type WalletCreateTransferOfferResult struct {
	TransferOffer daml.ContractID `daml:"transferOffer"`
}

// WalletCid is the argument of the wallet-install choices that act on one
// contract.
type WalletCid struct {
	Cid daml.ContractID `daml:"cid"`
}

// WalletCidReason is the argument of the wallet-install choices that act
// on one contract with a reason.
type WalletCidReason struct {
	Cid    daml.ContractID `daml:"cid"`
	Reason string          `daml:"reason"`
}

func requireStakeholder(tx *ledger.Tx, actor daml.Party, t ledger.Template) error {
	return tx.Require(slices.Contains(t.Signatories(), actor) || slices.Contains(t.Observers(), actor), "Actor is a stakeholder")
}

// requireNotExpired is the offers' `now < expiresAt` with sandnet's
// decision that an offer can still be used exactly at its expiry time.
func requireNotExpired(tx *ledger.Tx, expiresAt daml.Timestamp) error {
	return tx.Require(tx.Now() <= expiresAt, "Offer has not expired")
}

// requireExpired is the expire choices' check. Upstream allows expiring at
// expiresAt; sandnet only once expiresAt has passed, so that nothing can
// both accept and expire an offer at the same instant.
func requireExpired(tx *ledger.Tx, expiresAt daml.Timestamp) error {
	return tx.Require(expiresAt < tx.Now(), "Contract has expired")
}

func registerWallet(r *ledger.Registry) {
	ledger.RegisterTemplate[TransferOffer](r)
	receiver := func(o TransferOffer) []daml.Party { return []daml.Party{o.Receiver} }
	ledger.AddChoice(r, "TransferOffer_Accept", true,
		func(o TransferOffer, _ Empty) []daml.Party { return receiver(o) },
		func(tx *ledger.Tx, _ daml.ContractID, o TransferOffer, _ Empty) (TransferOfferAcceptResult, error) {
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
		func(o TransferOffer, _ Empty) []daml.Party { return receiver(o) },
		func(_ *ledger.Tx, _ daml.ContractID, o TransferOffer, _ Empty) (TrackingInfoResult, error) {
			return TrackingInfoResult{TrackingInfo: o.trackingInfo()}, nil
		})
	ledger.AddChoice(r, "TransferOffer_Withdraw", true,
		func(o TransferOffer, _ ReasonArg) []daml.Party { return []daml.Party{o.Sender} },
		func(_ *ledger.Tx, _ daml.ContractID, o TransferOffer, _ ReasonArg) (TrackingInfoResult, error) {
			return TrackingInfoResult{TrackingInfo: o.trackingInfo()}, nil
		})
	ledger.AddChoice(r, "TransferOffer_Expire", true,
		func(_ TransferOffer, arg Actor) []daml.Party { return []daml.Party{arg.Actor} },
		func(tx *ledger.Tx, _ daml.ContractID, o TransferOffer, arg Actor) (TrackingInfoResult, error) {
			if err := requireExpired(tx, o.ExpiresAt); err != nil {
				return TrackingInfoResult{}, err
			}
			if err := requireStakeholder(tx, arg.Actor, o); err != nil {
				return TrackingInfoResult{}, err
			}
			return TrackingInfoResult{TrackingInfo: o.trackingInfo()}, nil
		})

	ledger.RegisterTemplate[AcceptedTransferOffer](r)
	ledger.AddChoice(r, "AcceptedTransferOffer_Complete", true,
		func(o AcceptedTransferOffer, arg AcceptedTransferOfferComplete) []daml.Party {
			return []daml.Party{o.Sender, arg.WalletProvider}
		},
		completeAcceptedTransferOffer)
	ledger.AddChoice(r, "AcceptedTransferOffer_Withdraw", true,
		func(o AcceptedTransferOffer, _ ReasonArg) []daml.Party { return []daml.Party{o.Receiver} },
		func(_ *ledger.Tx, _ daml.ContractID, o AcceptedTransferOffer, _ ReasonArg) (TrackingInfoResult, error) {
			return TrackingInfoResult{TrackingInfo: o.trackingInfo()}, nil
		})
	ledger.AddChoice(r, "AcceptedTransferOffer_Abort", true,
		func(o AcceptedTransferOffer, _ ReasonArg) []daml.Party { return []daml.Party{o.Sender} },
		func(_ *ledger.Tx, _ daml.ContractID, o AcceptedTransferOffer, _ ReasonArg) (TrackingInfoResult, error) {
			return TrackingInfoResult{TrackingInfo: o.trackingInfo()}, nil
		})
	ledger.AddChoice(r, "AcceptedTransferOffer_Expire", true,
		func(_ AcceptedTransferOffer, arg Actor) []daml.Party { return []daml.Party{arg.Actor} },
		func(tx *ledger.Tx, _ daml.ContractID, o AcceptedTransferOffer, arg Actor) (TrackingInfoResult, error) {
			if err := requireExpired(tx, o.ExpiresAt); err != nil {
				return TrackingInfoResult{}, err
			}
			if err := requireStakeholder(tx, arg.Actor, o); err != nil {
				return TrackingInfoResult{}, err
			}
			return TrackingInfoResult{TrackingInfo: o.trackingInfo()}, nil
		})

	registerWalletInstall(r)
}

// completeAcceptedTransferOffer is AcceptedTransferOffer_Complete: the
// amount is converted to amulet at the context round's price and
// transferred from the sender's inputs, with the sender's validator as
// provider and the sender paying all fees.
func completeAcceptedTransferOffer(tx *ledger.Tx, _ daml.ContractID, o AcceptedTransferOffer, arg AcceptedTransferOfferComplete) (AcceptedTransferOfferCompleteResult, error) {
	var res AcceptedTransferOfferCompleteResult
	if err := requireNotExpired(tx, o.ExpiresAt); err != nil {
		return res, err
	}
	round, err := fetchOpenRound(tx, arg.TransferContext.Context.OpenMiningRound, o.Sender)
	if err != nil {
		return res, err
	}
	if err := tx.Require(round.DSO == o.DSO, "open round belongs to DSO %s", o.DSO); err != nil {
		return res, err
	}
	amount, err := paymentAmountToAmulet(tx, o.DSO, round, o.Amount)
	if err != nil {
		return res, err
	}
	result, err := ledger.Exercise[TransferResult](tx, arg.TransferContext.AmuletRules, "AmuletRules_Transfer", AmuletRulesTransfer{
		Transfer: Transfer{
			Sender: o.Sender, Provider: arg.WalletProvider, Inputs: arg.Inputs,
			Outputs: []TransferOutput{{Receiver: o.Receiver, Amount: amount, ReceiverFeeRatio: zero}},
		},
		Context: arg.TransferContext.Context,
	})
	if err != nil {
		return res, err
	}
	return AcceptedTransferOfferCompleteResult{
		TransferResult: result, TrackingInfo: o.trackingInfo(), SenderChangeAmulet: result.SenderChangeAmulet,
	}, nil
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
		func(w WalletAppInstall, _ WalletCid) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletCid) (TransferOfferAcceptResult, error) {
			return ledger.Exercise[TransferOfferAcceptResult](tx, arg.Cid, "TransferOffer_Accept", Empty{})
		})
	ledger.AddChoice(r, "WalletAppInstall_TransferOffer_Reject", false,
		func(w WalletAppInstall, _ WalletCid) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletCid) (TrackingInfoResult, error) {
			return ledger.Exercise[TrackingInfoResult](tx, arg.Cid, "TransferOffer_Reject", Empty{})
		})
	ledger.AddChoice(r, "WalletAppInstall_TransferOffer_Withdraw", false,
		func(w WalletAppInstall, _ WalletCidReason) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletCidReason) (TrackingInfoResult, error) {
			return ledger.Exercise[TrackingInfoResult](tx, arg.Cid, "TransferOffer_Withdraw", ReasonArg{Reason: arg.Reason})
		})
	ledger.AddChoice(r, "WalletAppInstall_TransferOffer_Expire", false,
		func(w WalletAppInstall, _ WalletCid) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, w WalletAppInstall, arg WalletCid) (TrackingInfoResult, error) {
			return ledger.Exercise[TrackingInfoResult](tx, arg.Cid, "TransferOffer_Expire", Actor{Actor: w.EndUserParty})
		})
	ledger.AddChoice(r, "WalletAppInstall_AcceptedTransferOffer_Abort", false,
		func(w WalletAppInstall, _ WalletCidReason) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletCidReason) (TrackingInfoResult, error) {
			return ledger.Exercise[TrackingInfoResult](tx, arg.Cid, "AcceptedTransferOffer_Abort", ReasonArg{Reason: arg.Reason})
		})
	ledger.AddChoice(r, "WalletAppInstall_AcceptedTransferOffer_Withdraw", false,
		func(w WalletAppInstall, _ WalletCidReason) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, _ WalletAppInstall, arg WalletCidReason) (TrackingInfoResult, error) {
			return ledger.Exercise[TrackingInfoResult](tx, arg.Cid, "AcceptedTransferOffer_Withdraw", ReasonArg{Reason: arg.Reason})
		})
	ledger.AddChoice(r, "WalletAppInstall_AcceptedTransferOffer_Expire", false,
		func(w WalletAppInstall, _ WalletCid) []daml.Party { return validator(w) },
		func(tx *ledger.Tx, _ daml.ContractID, w WalletAppInstall, arg WalletCid) (TrackingInfoResult, error) {
			return ledger.Exercise[TrackingInfoResult](tx, arg.Cid, "AcceptedTransferOffer_Expire", Actor{Actor: w.EndUserParty})
		})
}
