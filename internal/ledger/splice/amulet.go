package splice

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Splice.Amulet: the coin, its locked form and the rights around it.

// Amulet is Splice.Amulet:Amulet, a holding of the network's coin. Its
// amount expires over time: every round after the round it was created in
// costs the holding fee.
type Amulet struct {
	DSO    daml.Party     `daml:"dso"`
	Owner  daml.Party     `daml:"owner"`
	Amount ExpiringAmount `daml:"amount"`
}

// TemplateID implements ledger.Template.
func (Amulet) TemplateID() ledger.TemplateID { return PackageAmulet.Template(moduleAmulet, "Amulet") }

// DamlIdentifier implements daml.Identified.
func (a Amulet) DamlIdentifier() daml.Identifier { return a.TemplateID().Identifier }

// Signatories implements ledger.Template: the DSO and the owner.
func (a Amulet) Signatories() []daml.Party { return []daml.Party{a.DSO, a.Owner} }

// Observers implements ledger.Template.
func (Amulet) Observers() []daml.Party { return nil }

// Ensure is Splice's validExpiringAmount.
func (a Amulet) Ensure() error { return validExpiringAmount(a.Amount) }

func validExpiringAmount(e ExpiringAmount) error {
	switch {
	case e.InitialAmount.Sign() <= 0:
		return fault.New(fault.DamlPrecondition, "amulet amount %s is not positive", e.InitialAmount)
	case e.RatePerRound.Rate.Sign() < 0:
		return fault.New(fault.DamlPrecondition, "negative holding fee rate %s", e.RatePerRound.Rate)
	case e.CreatedAt.Number < 0:
		return fault.New(fault.DamlPrecondition, "negative round %d", e.CreatedAt.Number)
	}
	return nil
}

// HoldingFee returns the holding fee an amount has accrued as of round r:
// ratePerRound for every round since it was created, at most the whole
// amount. Splice charges the difference of round numbers; sandnet treats a
// round before the creation round (possible while two rounds are open) as
// no fee rather than a negative one.
func HoldingFee(e ExpiringAmount, r Round) (daml.Numeric, error) {
	var a arith
	fee := holdingFee(&a, e, r)
	return fee, a.err
}

func holdingFee(a *arith, e ExpiringAmount, r Round) daml.Numeric {
	rounds := r.Number - e.CreatedAt.Number
	if rounds <= 0 {
		return zero
	}
	fee := a.mul(e.RatePerRound.Rate, a.fromInt(rounds))
	return fee.Min(e.InitialAmount)
}

// EffectiveAmount is what an amount is worth as of round r: the initial
// amount less the holding fee, never below zero.
func EffectiveAmount(e ExpiringAmount, r Round) (daml.Numeric, error) {
	var a arith
	v := a.sub(e.InitialAmount, holdingFee(&a, e, r))
	return v, a.err
}

// LockedAmulet is Splice.Amulet:LockedAmulet, an amulet its owner cannot
// spend until the lock holders release it or the lock expires.
type LockedAmulet struct {
	Amulet Amulet   `daml:"amulet"`
	Lock   TimeLock `daml:"lock"`
}

// TemplateID implements ledger.Template.
func (LockedAmulet) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmulet, "LockedAmulet")
}

// DamlIdentifier implements daml.Identified.
func (l LockedAmulet) DamlIdentifier() daml.Identifier { return l.TemplateID().Identifier }

// Signatories implements ledger.Template: the lock holders and the
// amulet's signatories.
func (l LockedAmulet) Signatories() []daml.Party {
	return append(slices.Clone(l.Lock.Holders), l.Amulet.Signatories()...)
}

// Observers implements ledger.Template.
func (LockedAmulet) Observers() []daml.Party { return nil }

// AmuletCreateSummary is Splice.Amulet:AmuletCreateSummary.
type AmuletCreateSummary struct {
	Amulet      daml.ContractID `daml:"amulet"`
	AmuletPrice daml.Numeric    `daml:"amuletPrice"`
	Round       Round           `daml:"round"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletCreateSummary) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "AmuletCreateSummary")
}

// LockedAmuletUnlock is the argument of LockedAmulet_Unlock, deprecated
// since splice-amulet 0.1.17.
type LockedAmuletUnlock struct {
	OpenRoundCid daml.ContractID `daml:"openRoundCid"`
}

// DamlIdentifier implements daml.Identified.
func (LockedAmuletUnlock) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "LockedAmulet_Unlock")
}

// LockedAmuletUnlockResult is LockedAmulet_Unlock's result.
type LockedAmuletUnlockResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
	Meta      *Metadata           `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (LockedAmuletUnlockResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "LockedAmulet_UnlockResult")
}

// LockedAmuletUnlockV2 is the argument of LockedAmulet_UnlockV2.
type LockedAmuletUnlockV2 struct{}

// DamlIdentifier implements daml.Identified.
func (LockedAmuletUnlockV2) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "LockedAmulet_UnlockV2")
}

// LockedAmuletUnlockV2Result is LockedAmulet_UnlockV2's result.
type LockedAmuletUnlockV2Result struct {
	AmuletCid daml.ContractID `daml:"amuletCid"`
	Meta      Metadata        `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (LockedAmuletUnlockV2Result) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "LockedAmulet_UnlockV2Result")
}

// LockedAmuletOwnerExpireLock is the argument of
// LockedAmulet_OwnerExpireLock, deprecated since splice-amulet 0.1.17.
type LockedAmuletOwnerExpireLock struct {
	OpenRoundCid daml.ContractID `daml:"openRoundCid"`
}

// DamlIdentifier implements daml.Identified.
func (LockedAmuletOwnerExpireLock) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "LockedAmulet_OwnerExpireLock")
}

// LockedAmuletOwnerExpireLockResult is LockedAmulet_OwnerExpireLock's
// result.
type LockedAmuletOwnerExpireLockResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
	Meta      *Metadata           `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (LockedAmuletOwnerExpireLockResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "LockedAmulet_OwnerExpireLockResult")
}

// LockedAmuletOwnerExpireLockV2 is the argument of
// LockedAmulet_OwnerExpireLockV2.
type LockedAmuletOwnerExpireLockV2 struct{}

// DamlIdentifier implements daml.Identified.
func (LockedAmuletOwnerExpireLockV2) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "LockedAmulet_OwnerExpireLockV2")
}

// LockedAmuletOwnerExpireLockV2Result is LockedAmulet_OwnerExpireLockV2's
// result.
type LockedAmuletOwnerExpireLockV2Result struct {
	AmuletCid daml.ContractID `daml:"amuletCid"`
	Meta      Metadata        `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (LockedAmuletOwnerExpireLockV2Result) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "LockedAmulet_OwnerExpireLockV2Result")
}

// ValidatorRight is Splice.Amulet:ValidatorRight: the right of a validator
// to claim rewards for its user's activity. Splice's validator creates one
// for every user it onboards.
type ValidatorRight struct {
	DSO       daml.Party `daml:"dso"`
	User      daml.Party `daml:"user"`
	Validator daml.Party `daml:"validator"`
}

// TemplateID implements ledger.Template.
func (ValidatorRight) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmulet, "ValidatorRight")
}

// DamlIdentifier implements daml.Identified.
func (v ValidatorRight) DamlIdentifier() daml.Identifier { return v.TemplateID().Identifier }

// Signatories implements ledger.Template: the user and the validator.
func (v ValidatorRight) Signatories() []daml.Party { return []daml.Party{v.User, v.Validator} }

// Observers implements ledger.Template.
func (ValidatorRight) Observers() []daml.Party { return nil }

// FeaturedAppRight is Splice.Amulet:FeaturedAppRight, the right of an app
// provider to featured app rewards.
type FeaturedAppRight struct {
	DSO      daml.Party `daml:"dso"`
	Provider daml.Party `daml:"provider"`
	// ActivityWeight weighs the provider's activity in traffic-based app
	// rewards; None is the default weight 1.0.
	ActivityWeight *daml.Numeric `daml:"activityWeight"`
}

// TemplateID implements ledger.Template.
func (FeaturedAppRight) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmulet, "FeaturedAppRight")
}

// DamlIdentifier implements daml.Identified.
func (f FeaturedAppRight) DamlIdentifier() daml.Identifier { return f.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (f FeaturedAppRight) Signatories() []daml.Party { return []daml.Party{f.DSO} }

// Observers implements ledger.Template.
func (f FeaturedAppRight) Observers() []daml.Party { return []daml.Party{f.Provider} }

// defaultAppActivityWeight is Splice's defaultAppActivityWeight.
var defaultAppActivityWeight = num("1.0")

// Ensure is the template's ensure: the weight is not negative.
func (f FeaturedAppRight) Ensure() error {
	if f.ActivityWeight != nil && f.ActivityWeight.Sign() < 0 {
		return errorf("activityWeight %s is negative", f.ActivityWeight)
	}
	return nil
}

// FeaturedAppActivityMarker is Splice.Amulet:FeaturedAppActivityMarker, a
// record of activity by a featured app, which the DSO converts into app
// reward coupons. A transfer with a featured app right creates them.
type FeaturedAppActivityMarker struct {
	DSO         daml.Party   `daml:"dso"`
	Provider    daml.Party   `daml:"provider"`
	Beneficiary daml.Party   `daml:"beneficiary"`
	Weight      daml.Numeric `daml:"weight"`
}

// TemplateID implements ledger.Template.
func (FeaturedAppActivityMarker) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmulet, "FeaturedAppActivityMarker")
}

// DamlIdentifier implements daml.Identified.
func (m FeaturedAppActivityMarker) DamlIdentifier() daml.Identifier { return m.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (m FeaturedAppActivityMarker) Signatories() []daml.Party { return []daml.Party{m.DSO} }

// Observers implements ledger.Template.
func (m FeaturedAppActivityMarker) Observers() []daml.Party {
	return []daml.Party{m.Provider, m.Beneficiary}
}

// Ensure is the template's ensure: 0 < weight <= 10000.
func (m FeaturedAppActivityMarker) Ensure() error {
	if m.Weight.Sign() <= 0 || m.Weight.Cmp(num("10000.0")) > 0 {
		return errorf("marker weight %s is not in (0, 10000]", m.Weight)
	}
	return nil
}

// UnclaimedReward is Splice.Amulet:UnclaimedReward: issuance nobody
// claimed, at the DSO's disposal.
type UnclaimedReward struct {
	DSO    daml.Party   `daml:"dso"`
	Amount daml.Numeric `daml:"amount"`
}

// TemplateID implements ledger.Template.
func (UnclaimedReward) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmulet, "UnclaimedReward")
}

// DamlIdentifier implements daml.Identified.
func (u UnclaimedReward) DamlIdentifier() daml.Identifier { return u.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (u UnclaimedReward) Signatories() []daml.Party { return []daml.Party{u.DSO} }

// Observers implements ledger.Template.
func (UnclaimedReward) Observers() []daml.Party { return nil }

// Ensure is the template's ensure: the amount is positive.
func (u UnclaimedReward) Ensure() error { return positiveAmount(u.Amount) }

// UnclaimedDevelopmentFundCoupon is
// Splice.Amulet:UnclaimedDevelopmentFundCoupon: a round's issuance for the
// development fund (CIP-82), not yet allocated to a beneficiary.
type UnclaimedDevelopmentFundCoupon struct {
	DSO    daml.Party   `daml:"dso"`
	Amount daml.Numeric `daml:"amount"`
}

// TemplateID implements ledger.Template.
func (UnclaimedDevelopmentFundCoupon) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmulet, "UnclaimedDevelopmentFundCoupon")
}

// DamlIdentifier implements daml.Identified.
func (u UnclaimedDevelopmentFundCoupon) DamlIdentifier() daml.Identifier {
	return u.TemplateID().Identifier
}

// Signatories implements ledger.Template.
func (u UnclaimedDevelopmentFundCoupon) Signatories() []daml.Party { return []daml.Party{u.DSO} }

// Observers implements ledger.Template.
func (UnclaimedDevelopmentFundCoupon) Observers() []daml.Party { return nil }

// Ensure is the template's ensure: the amount is positive.
func (u UnclaimedDevelopmentFundCoupon) Ensure() error { return positiveAmount(u.Amount) }

func positiveAmount(n daml.Numeric) error {
	if n.Sign() <= 0 {
		return errorf("amount %s is not positive", n)
	}
	return nil
}

// The token standard's Holding interface
// ======================================

// InstrumentID is Splice.Api.Token.HoldingV1:InstrumentId.
type InstrumentID struct {
	Admin daml.Party `daml:"admin"`
	ID    string     `daml:"id"`
}

// DamlIdentifier implements daml.Identified.
func (InstrumentID) DamlIdentifier() daml.Identifier {
	return PackageTokenHolding.Identifier(moduleTokenHoldingV1, "InstrumentId")
}

// HoldingLock is Splice.Api.Token.HoldingV1:Lock.
type HoldingLock struct {
	Holders      []daml.Party    `daml:"holders"`
	ExpiresAt    *daml.Timestamp `daml:"expiresAt"`
	ExpiresAfter *RelTime        `daml:"expiresAfter"`
	Context      *string         `daml:"context"`
}

// DamlIdentifier implements daml.Identified.
func (HoldingLock) DamlIdentifier() daml.Identifier {
	return PackageTokenHolding.Identifier(moduleTokenHoldingV1, "Lock")
}

// HoldingView is Splice.Api.Token.HoldingV1:HoldingView, the interface
// view the ledger API serves for holdings.
type HoldingView struct {
	Owner        daml.Party   `daml:"owner"`
	InstrumentID InstrumentID `daml:"instrumentId"`
	Amount       daml.Numeric `daml:"amount"`
	Lock         *HoldingLock `daml:"lock"`
	Meta         Metadata     `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (HoldingView) DamlIdentifier() daml.Identifier {
	return PackageTokenHolding.Identifier(moduleTokenHoldingV1, "HoldingView")
}

// The metadata keys Splice puts on amulet holdings
// (Splice.Amulet.TokenApiUtils).
const (
	splicePrefix          = "splice.lfdecentralizedtrust.org/"
	amuletPrefix          = "amulet." + splicePrefix
	MetaCreatedInRound    = amuletPrefix + "created-in-round"
	MetaRatePerRound      = amuletPrefix + "rate-per-round"
	MetaTxKind            = splicePrefix + "tx-kind"
	MetaSender            = splicePrefix + "sender"
	MetaReason            = splicePrefix + "reason"
	MetaBurned            = splicePrefix + "burned"
	amuletInstrumentIDStr = "Amulet"
)

// AmuletInstrumentID is the token-standard instrument of a DSO's amulet.
func AmuletInstrumentID(dso daml.Party) InstrumentID {
	return InstrumentID{Admin: dso, ID: amuletInstrumentIDStr}
}

func amuletMetadata(a Amulet) Metadata {
	return Metadata{Values: map[string]string{
		MetaCreatedInRound: itoa(a.Amount.CreatedAt.Number),
		MetaRatePerRound:   showDecimal(a.Amount.RatePerRound.Rate),
	}}
}

// AmuletHoldingView is the Holding view of an Amulet. As in Splice, the
// amount is the initial amount: holding fees are not deducted.
func AmuletHoldingView(a Amulet) HoldingView {
	return HoldingView{
		Owner:        a.Owner,
		InstrumentID: AmuletInstrumentID(a.DSO),
		Amount:       a.Amount.InitialAmount,
		Meta:         amuletMetadata(a),
	}
}

// LockedAmuletHoldingView is the Holding view of a LockedAmulet.
func LockedAmuletHoldingView(l LockedAmulet) HoldingView {
	v := AmuletHoldingView(l.Amulet)
	v.Lock = &HoldingLock{
		Holders:   slices.Clone(l.Lock.Holders),
		ExpiresAt: ptr(l.Lock.ExpiresAt),
		Context:   l.Lock.OptContext,
	}
	return v
}

// Transaction metadata (Splice.Amulet.TokenApiUtils.holdingTxMeta).

type txKind string

const (
	txKindTransfer   txKind = "transfer"
	txKindUnlock     txKind = "unlock"
	txKindMergeSplit txKind = "merge-split"
	txKindMint       txKind = "mint"
	txKindBurn       txKind = "burn"
)

func holdingTxMeta(kind txKind, reason *string, sender *daml.Party, burned *daml.Numeric) *Metadata {
	values := map[string]string{MetaTxKind: string(kind)}
	if reason != nil {
		values[MetaReason] = *reason
	}
	if sender != nil {
		values[MetaSender] = string(*sender)
	}
	if burned != nil && !burned.IsZero() {
		values[MetaBurned] = showDecimal(*burned)
	}
	return &Metadata{Values: values}
}

// Empty choice arguments and results of Splice.Amulet. Daml names each
// choice's argument record after the choice and most results after it
// too, so every one is a type of its own.
type (
	// ValidatorRightArchiveAsValidator is the argument of
	// ValidatorRight_ArchiveAsValidator.
	ValidatorRightArchiveAsValidator struct{}
	// ValidatorRightArchiveAsValidatorResult is its result.
	ValidatorRightArchiveAsValidatorResult struct{}
	// ValidatorRightArchiveAsUser is the argument of
	// ValidatorRight_ArchiveAsUser.
	ValidatorRightArchiveAsUser struct{}
	// ValidatorRightArchiveAsUserResult is its result.
	ValidatorRightArchiveAsUserResult struct{}
	// FeaturedAppRightWithdrawResult is FeaturedAppRight_Withdraw's result.
	FeaturedAppRightWithdrawResult struct{}
	// FeaturedAppRightCancel is the argument of FeaturedAppRight_Cancel.
	FeaturedAppRightCancel struct{}
	// FeaturedAppRightCancelResult is its result.
	FeaturedAppRightCancelResult struct{}
)

// DamlIdentifier implements daml.Identified.
func (ValidatorRightArchiveAsValidator) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "ValidatorRight_ArchiveAsValidator")
}

// DamlIdentifier implements daml.Identified.
func (ValidatorRightArchiveAsValidatorResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "ValidatorRight_ArchiveAsValidatorResult")
}

// DamlIdentifier implements daml.Identified.
func (ValidatorRightArchiveAsUser) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "ValidatorRight_ArchiveAsUser")
}

// DamlIdentifier implements daml.Identified.
func (ValidatorRightArchiveAsUserResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "ValidatorRight_ArchiveAsUserResult")
}

// DamlIdentifier implements daml.Identified.
func (FeaturedAppRightWithdrawResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "FeaturedAppRight_WithdrawResult")
}

// DamlIdentifier implements daml.Identified.
func (FeaturedAppRightCancel) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "FeaturedAppRight_Cancel")
}

// DamlIdentifier implements daml.Identified.
func (FeaturedAppRightCancelResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "FeaturedAppRight_CancelResult")
}

// FeaturedAppRightUpdate is the argument of FeaturedAppRight_Update.
type FeaturedAppRightUpdate struct {
	Reason            string       `daml:"reason"`
	NewActivityWeight daml.Numeric `daml:"newActivityWeight"`
}

// DamlIdentifier implements daml.Identified.
func (FeaturedAppRightUpdate) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "FeaturedAppRight_Update")
}

// FeaturedAppRightUpdateResult is FeaturedAppRight_Update's result.
type FeaturedAppRightUpdateResult struct {
	FeaturedAppRightCid daml.ContractID `daml:"featuredAppRightCid"`
}

// DamlIdentifier implements daml.Identified.
func (FeaturedAppRightUpdateResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "FeaturedAppRight_UpdateResult")
}

// FeaturedAppRightWithdraw is the argument of FeaturedAppRight_Withdraw.
type FeaturedAppRightWithdraw struct {
	Reason string `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (FeaturedAppRightWithdraw) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "FeaturedAppRight_Withdraw")
}

func registerAmulet(r *ledger.Registry) {
	ledger.RegisterTemplate[Amulet](r, HoldingInterface)
	ledger.AddInterfaceView(r, HoldingInterface, func(a Amulet) (HoldingView, error) { return AmuletHoldingView(a), nil })

	ledger.RegisterTemplate[LockedAmulet](r, HoldingInterface)
	ledger.AddInterfaceView(r, HoldingInterface, func(l LockedAmulet) (HoldingView, error) { return LockedAmuletHoldingView(l), nil })
	ownerAndHolders := func(l LockedAmulet) []daml.Party { return append([]daml.Party{l.Amulet.Owner}, l.Lock.Holders...) }
	ledger.AddChoice(r, "LockedAmulet_Unlock", true,
		func(l LockedAmulet, _ LockedAmuletUnlock) []daml.Party { return ownerAndHolders(l) },
		func(*ledger.Tx, daml.ContractID, LockedAmulet, LockedAmuletUnlock) (LockedAmuletUnlockResult, error) {
			return LockedAmuletUnlockResult{}, deprecatedChoice(PackageAmulet.Name, "0.1.17", "LockedAmulet_Unlock")
		})
	ledger.AddChoice(r, "LockedAmulet_UnlockV2", true,
		func(l LockedAmulet, _ LockedAmuletUnlockV2) []daml.Party { return ownerAndHolders(l) },
		func(tx *ledger.Tx, _ daml.ContractID, l LockedAmulet, _ LockedAmuletUnlockV2) (LockedAmuletUnlockV2Result, error) {
			cid, err := ledger.Create(tx, l.Amulet)
			reason := "holders released lock"
			return LockedAmuletUnlockV2Result{AmuletCid: cid, Meta: *holdingTxMeta(txKindUnlock, &reason, nil, nil)}, err
		})
	ledger.AddChoice(r, "LockedAmulet_OwnerExpireLock", true,
		func(l LockedAmulet, _ LockedAmuletOwnerExpireLock) []daml.Party { return []daml.Party{l.Amulet.Owner} },
		func(*ledger.Tx, daml.ContractID, LockedAmulet, LockedAmuletOwnerExpireLock) (LockedAmuletOwnerExpireLockResult, error) {
			return LockedAmuletOwnerExpireLockResult{}, deprecatedChoice(PackageAmulet.Name, "0.1.17", "LockedAmulet_OwnerExpireLock")
		})
	ledger.AddChoice(r, "LockedAmulet_OwnerExpireLockV2", true,
		func(l LockedAmulet, _ LockedAmuletOwnerExpireLockV2) []daml.Party {
			return []daml.Party{l.Amulet.Owner}
		},
		func(tx *ledger.Tx, _ daml.ContractID, l LockedAmulet, _ LockedAmuletOwnerExpireLockV2) (LockedAmuletOwnerExpireLockV2Result, error) {
			if err := assertDeadlineExceeded(tx, "Lock.expiresAt", l.Lock.ExpiresAt); err != nil {
				return LockedAmuletOwnerExpireLockV2Result{}, err
			}
			cid, err := ledger.Create(tx, l.Amulet)
			reason := "lock expired"
			return LockedAmuletOwnerExpireLockV2Result{AmuletCid: cid, Meta: *holdingTxMeta(txKindUnlock, &reason, nil, nil)}, err
		})

	ledger.RegisterTemplate[ValidatorRight](r)
	ledger.AddChoice(r, "ValidatorRight_ArchiveAsValidator", true,
		func(v ValidatorRight, _ ValidatorRightArchiveAsValidator) []daml.Party {
			return []daml.Party{v.Validator}
		},
		func(*ledger.Tx, daml.ContractID, ValidatorRight, ValidatorRightArchiveAsValidator) (ValidatorRightArchiveAsValidatorResult, error) {
			return ValidatorRightArchiveAsValidatorResult{}, nil
		})
	ledger.AddChoice(r, "ValidatorRight_ArchiveAsUser", true,
		func(v ValidatorRight, _ ValidatorRightArchiveAsUser) []daml.Party { return []daml.Party{v.User} },
		func(*ledger.Tx, daml.ContractID, ValidatorRight, ValidatorRightArchiveAsUser) (ValidatorRightArchiveAsUserResult, error) {
			return ValidatorRightArchiveAsUserResult{}, nil
		})

	ledger.RegisterTemplate[FeaturedAppRight](r)
	ledger.AddChoice(r, "FeaturedAppRight_Update", true,
		func(f FeaturedAppRight, _ FeaturedAppRightUpdate) []daml.Party { return []daml.Party{f.DSO} },
		func(tx *ledger.Tx, _ daml.ContractID, f FeaturedAppRight, arg FeaturedAppRightUpdate) (FeaturedAppRightUpdateResult, error) {
			// None for the default weight, for the widest upgrade
			// compatibility (as Splice does).
			f.ActivityWeight = nil
			if arg.NewActivityWeight.Cmp(defaultAppActivityWeight) != 0 {
				f.ActivityWeight = ptr(arg.NewActivityWeight)
			}
			cid, err := ledger.Create(tx, f)
			return FeaturedAppRightUpdateResult{FeaturedAppRightCid: cid}, err
		})
	ledger.AddChoice(r, "FeaturedAppRight_Withdraw", true,
		func(f FeaturedAppRight, _ FeaturedAppRightWithdraw) []daml.Party { return []daml.Party{f.DSO} },
		func(*ledger.Tx, daml.ContractID, FeaturedAppRight, FeaturedAppRightWithdraw) (FeaturedAppRightWithdrawResult, error) {
			return FeaturedAppRightWithdrawResult{}, nil
		})
	ledger.AddChoice(r, "FeaturedAppRight_Cancel", true,
		func(f FeaturedAppRight, _ FeaturedAppRightCancel) []daml.Party { return []daml.Party{f.Provider} },
		func(*ledger.Tx, daml.ContractID, FeaturedAppRight, FeaturedAppRightCancel) (FeaturedAppRightCancelResult, error) {
			return FeaturedAppRightCancelResult{}, nil
		})

	ledger.RegisterTemplate[FeaturedAppActivityMarker](r)
	ledger.RegisterTemplate[UnclaimedReward](r)
	ledger.RegisterTemplate[UnclaimedDevelopmentFundCoupon](r)
}

// legacyAmuletCreateSummary is Splice.AmuletRules' legacyAmuletCreateSummary:
// the AmuletCreateSummary a choice still returns although the choice it
// calls no longer gives one, read from the open round as p.
func legacyAmuletCreateSummary(tx *ledger.Tx, dso, p daml.Party, roundCid, amulet daml.ContractID) (AmuletCreateSummary, error) {
	round, err := fetchOpenRound(tx, roundCid, dso, p)
	if err != nil {
		return AmuletCreateSummary{}, err
	}
	return AmuletCreateSummary{Amulet: amulet, AmuletPrice: round.AmuletPrice, Round: round.Round}, nil
}
