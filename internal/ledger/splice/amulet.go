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

// LockedAmuletUnlock is the argument of LockedAmulet_Unlock.
type LockedAmuletUnlock struct {
	OpenRoundCid daml.ContractID `daml:"openRoundCid"`
}

// LockedAmuletUnlockResult is LockedAmulet_Unlock's result.
type LockedAmuletUnlockResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
	Meta      *Metadata           `daml:"meta"`
}

// LockedAmuletOwnerExpireLock is the argument of
// LockedAmulet_OwnerExpireLock.
type LockedAmuletOwnerExpireLock struct {
	OpenRoundCid daml.ContractID `daml:"openRoundCid"`
}

// LockedAmuletOwnerExpireLockResult is LockedAmulet_OwnerExpireLock's
// result.
type LockedAmuletOwnerExpireLockResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
	Meta      *Metadata           `daml:"meta"`
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

// Empty is a record without fields, the argument or result of choices
// that carry nothing.
type Empty struct{}

// FeaturedAppRight is Splice.Amulet:FeaturedAppRight, the right of an app
// provider to featured app rewards.
type FeaturedAppRight struct {
	DSO      daml.Party `daml:"dso"`
	Provider daml.Party `daml:"provider"`
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

func registerAmulet(r *ledger.Registry) {
	ledger.RegisterTemplate[Amulet](r, HoldingInterface)
	ledger.AddInterfaceView(r, HoldingInterface, func(a Amulet) (HoldingView, error) { return AmuletHoldingView(a), nil })

	ledger.RegisterTemplate[LockedAmulet](r, HoldingInterface)
	ledger.AddInterfaceView(r, HoldingInterface, func(l LockedAmulet) (HoldingView, error) { return LockedAmuletHoldingView(l), nil })
	ledger.AddChoice(r, "LockedAmulet_Unlock", true,
		func(l LockedAmulet, _ LockedAmuletUnlock) []daml.Party {
			return append([]daml.Party{l.Amulet.Owner}, l.Lock.Holders...)
		},
		func(tx *ledger.Tx, _ daml.ContractID, l LockedAmulet, arg LockedAmuletUnlock) (LockedAmuletUnlockResult, error) {
			sum, err := unlock(tx, l, arg.OpenRoundCid)
			reason := "holders released lock"
			return LockedAmuletUnlockResult{AmuletSum: sum, Meta: holdingTxMeta(txKindUnlock, &reason, nil, nil)}, err
		})
	ledger.AddChoice(r, "LockedAmulet_OwnerExpireLock", true,
		func(l LockedAmulet, _ LockedAmuletOwnerExpireLock) []daml.Party { return []daml.Party{l.Amulet.Owner} },
		func(tx *ledger.Tx, _ daml.ContractID, l LockedAmulet, arg LockedAmuletOwnerExpireLock) (LockedAmuletOwnerExpireLockResult, error) {
			if err := tx.Require(l.Lock.ExpiresAt < tx.Now(), "Lock.expiresAt %s is in the future", l.Lock.ExpiresAt); err != nil {
				return LockedAmuletOwnerExpireLockResult{}, err
			}
			sum, err := unlock(tx, l, arg.OpenRoundCid)
			reason := "lock expired"
			return LockedAmuletOwnerExpireLockResult{AmuletSum: sum, Meta: holdingTxMeta(txKindUnlock, &reason, nil, nil)}, err
		})

	ledger.RegisterTemplate[ValidatorRight](r)
	ledger.AddChoice(r, "ValidatorRight_ArchiveAsValidator", true,
		func(v ValidatorRight, _ Empty) []daml.Party { return []daml.Party{v.Validator} },
		func(*ledger.Tx, daml.ContractID, ValidatorRight, Empty) (Empty, error) { return Empty{}, nil })
	ledger.AddChoice(r, "ValidatorRight_ArchiveAsUser", true,
		func(v ValidatorRight, _ Empty) []daml.Party { return []daml.Party{v.User} },
		func(*ledger.Tx, daml.ContractID, ValidatorRight, Empty) (Empty, error) { return Empty{}, nil })

	ledger.RegisterTemplate[FeaturedAppRight](r)
}

// unlock recreates a locked amulet unlocked, reporting the round it was
// unlocked in.
func unlock(tx *ledger.Tx, l LockedAmulet, openRoundCid daml.ContractID) (AmuletCreateSummary, error) {
	round, err := fetchDsoContract[OpenMiningRound](tx, openRoundCid, l.Amulet.DSO)
	if err != nil {
		return AmuletCreateSummary{}, err
	}
	cid, err := ledger.Create(tx, l.Amulet)
	if err != nil {
		return AmuletCreateSummary{}, err
	}
	return AmuletCreateSummary{Amulet: cid, AmuletPrice: round.AmuletPrice, Round: round.Round}, nil
}
