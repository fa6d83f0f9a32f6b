package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// ValidatorRewardCoupon is Splice.Amulet:ValidatorRewardCoupon: the
// receipt of a burn that entitles the user's validator to part of the
// round's validator issuance. sandnet creates it only where Splice's
// splitAndBurn does (a paid transfer pre-approval); no transfer spends it
// yet, and the DSO's round summaries do not count it.
type ValidatorRewardCoupon struct {
	DSO    daml.Party   `daml:"dso"`
	User   daml.Party   `daml:"user"`
	Amount daml.Numeric `daml:"amount"`
	Round  Round        `daml:"round"`
}

// TemplateID implements ledger.Template.
func (ValidatorRewardCoupon) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmulet, "ValidatorRewardCoupon")
}

// DamlIdentifier implements daml.Identified.
func (c ValidatorRewardCoupon) DamlIdentifier() daml.Identifier { return c.TemplateID().Identifier }

// Signatories implements ledger.Template: the DSO alone, so that the
// user's node being down does not hold up issuance.
func (c ValidatorRewardCoupon) Signatories() []daml.Party { return []daml.Party{c.DSO} }

// Observers implements ledger.Template: the user.
func (c ValidatorRewardCoupon) Observers() []daml.Party { return []daml.Party{c.User} }

// Ensure is the template's ensure: a positive amount.
func (c ValidatorRewardCoupon) Ensure() error {
	if c.Amount.Sign() <= 0 {
		return errorf("validator reward coupon amount %s is not positive", c.Amount)
	}
	return nil
}

// ValidatorRewardCouponDsoExpire is the argument of
// ValidatorRewardCoupon_DsoExpire: the closed round proves the coupon's
// round is over.
type ValidatorRewardCouponDsoExpire struct {
	ClosedRoundCid daml.ContractID `daml:"closedRoundCid"`
}

// DamlIdentifier implements daml.Identified.
func (ValidatorRewardCouponDsoExpire) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "ValidatorRewardCoupon_DsoExpire")
}

// ValidatorRewardCouponDsoExpireResult is its result.
type ValidatorRewardCouponDsoExpireResult struct {
	Amount daml.Numeric `daml:"amount"`
}

// DamlIdentifier implements daml.Identified.
func (ValidatorRewardCouponDsoExpireResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "ValidatorRewardCoupon_DsoExpireResult")
}

// ValidatorRewardCouponArchiveAsValidator is the argument of
// ValidatorRewardCoupon_ArchiveAsValidator.
type ValidatorRewardCouponArchiveAsValidator struct {
	Validator daml.Party      `daml:"validator"`
	RightCid  daml.ContractID `daml:"rightCid"`
}

// DamlIdentifier implements daml.Identified.
func (ValidatorRewardCouponArchiveAsValidator) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "ValidatorRewardCoupon_ArchiveAsValidator")
}

// ValidatorRewardCouponArchiveAsValidatorResult is its (empty) result.
type ValidatorRewardCouponArchiveAsValidatorResult struct{}

// DamlIdentifier implements daml.Identified.
func (ValidatorRewardCouponArchiveAsValidatorResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmulet, "ValidatorRewardCoupon_ArchiveAsValidatorResult")
}

func registerCoupons(r *ledger.Registry) {
	ledger.RegisterTemplate[ValidatorRewardCoupon](r)
	ledger.AddChoice(r, "ValidatorRewardCoupon_DsoExpire", true,
		func(c ValidatorRewardCoupon, _ ValidatorRewardCouponDsoExpire) []daml.Party {
			return []daml.Party{c.DSO}
		},
		func(tx *ledger.Tx, _ daml.ContractID, c ValidatorRewardCoupon, arg ValidatorRewardCouponDsoExpire) (ValidatorRewardCouponDsoExpireResult, error) {
			// Rounds go through their phases at their own pace: only a
			// closed round of the coupon's number proves it is over.
			_, err := fetchChecked(tx, forRound{c.DSO, c.Round}, arg.ClosedRoundCid,
				func(r ClosedMiningRound) forRound { return forRound{r.DSO, r.Round} })
			return ValidatorRewardCouponDsoExpireResult{Amount: c.Amount}, err
		})
	ledger.AddChoice(r, "ValidatorRewardCoupon_ArchiveAsValidator", true,
		func(c ValidatorRewardCoupon, arg ValidatorRewardCouponArchiveAsValidator) []daml.Party {
			return []daml.Party{c.DSO, arg.Validator}
		},
		func(tx *ledger.Tx, _ daml.ContractID, c ValidatorRewardCoupon, arg ValidatorRewardCouponArchiveAsValidator) (ValidatorRewardCouponArchiveAsValidatorResult, error) {
			err := requireMatchingContract(tx, arg.RightCid, ValidatorRight{DSO: c.DSO, User: c.User, Validator: arg.Validator})
			return ValidatorRewardCouponArchiveAsValidatorResult{}, err
		})
}
