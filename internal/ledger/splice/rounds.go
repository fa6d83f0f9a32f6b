package splice

import (
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Splice.Round: the mining rounds. A round is opened (OpenMiningRound),
// transfers and taps happen against it while it is open, then the DSO
// summarizes it (SummarizingMiningRound), issues its rewards
// (IssuingMiningRound) and closes it (ClosedMiningRound). Three rounds are
// open at a time, each opening one tick after the previous one.

// OpenMiningRound is Splice.Round:OpenMiningRound.
type OpenMiningRound struct {
	DSO               daml.Party     `daml:"dso"`
	Round             Round          `daml:"round"`
	AmuletPrice       daml.Numeric   `daml:"amuletPrice"`
	OpensAt           daml.Timestamp `daml:"opensAt"`
	TargetClosesAt    daml.Timestamp `daml:"targetClosesAt"`
	IssuingFor        RelTime        `daml:"issuingFor"`
	TransferConfigUSD TransferConfig `daml:"transferConfigUsd"`
	IssuanceConfig    IssuanceConfig `daml:"issuanceConfig"`
	TickDuration      RelTime        `daml:"tickDuration"`
	TrafficPrice      *daml.Numeric  `daml:"trafficPrice"`
	RewardConfig      *RewardConfig  `daml:"rewardConfig"`
}

// TemplateID implements ledger.Template.
func (OpenMiningRound) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleRound, "OpenMiningRound")
}

// DamlIdentifier implements daml.Identified.
func (r OpenMiningRound) DamlIdentifier() daml.Identifier { return r.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (r OpenMiningRound) Signatories() []daml.Party { return []daml.Party{r.DSO} }

// Observers implements ledger.Template.
func (OpenMiningRound) Observers() []daml.Party { return nil }

// Ensure is Splice's isDefinedRound.
func (r OpenMiningRound) Ensure() error { return definedRound(r.Round) }

func (r OpenMiningRound) dsoParty() daml.Party { return r.DSO }

// IsOpen reports whether the round has opened at time now.
func (r OpenMiningRound) IsOpen(now daml.Timestamp) bool { return r.OpensAt <= now }

// TransferConfigAmulet is the round's transfer configuration scaled from
// USD to amulet by the round's price (Splice's transferConfigAmuletFromOpenRound).
func (r OpenMiningRound) TransferConfigAmulet() (TransferConfig, error) {
	var a arith
	s := a.div(num("1.0"), r.AmuletPrice)
	c := r.TransferConfigUSD
	steps := make([]Tuple2[daml.Numeric, daml.Numeric], len(c.TransferFee.Steps))
	for i, st := range c.TransferFee.Steps {
		steps[i] = Tuple2[daml.Numeric, daml.Numeric]{First: a.mul(s, st.First), Second: st.Second}
	}
	out := TransferConfig{
		CreateFee:                    FixedFee{Fee: a.mul(s, c.CreateFee.Fee)},
		HoldingFee:                   RatePerRound{Rate: a.mul(s, c.HoldingFee.Rate)},
		TransferFee:                  SteppedRate{InitialRate: c.TransferFee.InitialRate, Steps: steps},
		LockHolderFee:                FixedFee{Fee: a.mul(s, c.LockHolderFee.Fee)},
		ExtraFeaturedAppRewardAmount: a.mul(s, c.ExtraFeaturedAppRewardAmount),
		MaxNumInputs:                 c.MaxNumInputs,
		MaxNumOutputs:                c.MaxNumOutputs,
		MaxNumLockHolders:            c.MaxNumLockHolders,
		TokenStandardMaxTTL:          c.TokenStandardMaxTTL,
	}
	return out, a.err
}

func definedRound(r Round) error {
	if r.Number < 0 {
		return fault.New(fault.DamlPrecondition, "round %d is negative", r.Number)
	}
	return nil
}

// SummarizingMiningRound is Splice.Round:SummarizingMiningRound.
type SummarizingMiningRound struct {
	DSO            daml.Party     `daml:"dso"`
	Round          Round          `daml:"round"`
	AmuletPrice    daml.Numeric   `daml:"amuletPrice"`
	IssuanceConfig IssuanceConfig `daml:"issuanceConfig"`
	TickDuration   RelTime        `daml:"tickDuration"`
	TrafficPrice   *daml.Numeric  `daml:"trafficPrice"`
	RewardConfig   *RewardConfig  `daml:"rewardConfig"`
}

// TemplateID implements ledger.Template.
func (SummarizingMiningRound) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleRound, "SummarizingMiningRound")
}

// DamlIdentifier implements daml.Identified.
func (r SummarizingMiningRound) DamlIdentifier() daml.Identifier { return r.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (r SummarizingMiningRound) Signatories() []daml.Party { return []daml.Party{r.DSO} }

// Observers implements ledger.Template.
func (SummarizingMiningRound) Observers() []daml.Party { return nil }

// Ensure is Splice's isDefinedRound.
func (r SummarizingMiningRound) Ensure() error { return definedRound(r.Round) }

func (r SummarizingMiningRound) dsoParty() daml.Party { return r.DSO }

// IssuingMiningRound is Splice.Round:IssuingMiningRound.
type IssuingMiningRound struct {
	DSO                                  daml.Party     `daml:"dso"`
	Round                                Round          `daml:"round"`
	IssuancePerValidatorRewardCoupon     daml.Numeric   `daml:"issuancePerValidatorRewardCoupon"`
	IssuancePerFeaturedAppRewardCoupon   daml.Numeric   `daml:"issuancePerFeaturedAppRewardCoupon"`
	IssuancePerUnfeaturedAppRewardCoupon daml.Numeric   `daml:"issuancePerUnfeaturedAppRewardCoupon"`
	IssuancePerSvRewardCoupon            daml.Numeric   `daml:"issuancePerSvRewardCoupon"`
	OpensAt                              daml.Timestamp `daml:"opensAt"`
	TargetClosesAt                       daml.Timestamp `daml:"targetClosesAt"`
	OptIssuancePerValidatorFaucetCoupon  *daml.Numeric  `daml:"optIssuancePerValidatorFaucetCoupon"`
}

// TemplateID implements ledger.Template.
func (IssuingMiningRound) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleRound, "IssuingMiningRound")
}

// DamlIdentifier implements daml.Identified.
func (r IssuingMiningRound) DamlIdentifier() daml.Identifier { return r.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (r IssuingMiningRound) Signatories() []daml.Party { return []daml.Party{r.DSO} }

// Observers implements ledger.Template.
func (IssuingMiningRound) Observers() []daml.Party { return nil }

// Ensure is Splice's isDefinedRound.
func (r IssuingMiningRound) Ensure() error { return definedRound(r.Round) }

func (r IssuingMiningRound) dsoParty() daml.Party { return r.DSO }

// ClosedMiningRound is Splice.Round:ClosedMiningRound.
type ClosedMiningRound struct {
	DSO                                  daml.Party    `daml:"dso"`
	Round                                Round         `daml:"round"`
	IssuancePerValidatorRewardCoupon     daml.Numeric  `daml:"issuancePerValidatorRewardCoupon"`
	IssuancePerFeaturedAppRewardCoupon   daml.Numeric  `daml:"issuancePerFeaturedAppRewardCoupon"`
	IssuancePerUnfeaturedAppRewardCoupon daml.Numeric  `daml:"issuancePerUnfeaturedAppRewardCoupon"`
	IssuancePerSvRewardCoupon            daml.Numeric  `daml:"issuancePerSvRewardCoupon"`
	OptIssuancePerValidatorFaucetCoupon  *daml.Numeric `daml:"optIssuancePerValidatorFaucetCoupon"`
}

// TemplateID implements ledger.Template.
func (ClosedMiningRound) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleRound, "ClosedMiningRound")
}

// DamlIdentifier implements daml.Identified.
func (r ClosedMiningRound) DamlIdentifier() daml.Identifier { return r.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (r ClosedMiningRound) Signatories() []daml.Party { return []daml.Party{r.DSO} }

// Observers implements ledger.Template.
func (ClosedMiningRound) Observers() []daml.Party { return nil }

// Ensure is Splice's isDefinedRound.
func (r ClosedMiningRound) Ensure() error { return definedRound(r.Round) }

func (r ClosedMiningRound) dsoParty() daml.Party { return r.DSO }

// OpenMiningRoundFetch is the argument of OpenMiningRound_Fetch, by which a
// party that sees a disclosed round reads it inside a choice.
type OpenMiningRoundFetch struct {
	P daml.Party `daml:"p"`
}

// DamlIdentifier implements daml.Identified.
func (OpenMiningRoundFetch) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleRound, "OpenMiningRound_Fetch")
}

// OpenMiningRoundSummary is Splice.Issuance:OpenMiningRoundSummary: the
// reward coupons registered against a round. sandnet issues no coupons,
// so the DSO's summaries are all zero.
type OpenMiningRoundSummary struct {
	TotalValidatorRewardCoupons     daml.Numeric `daml:"totalValidatorRewardCoupons"`
	TotalFeaturedAppRewardCoupons   daml.Numeric `daml:"totalFeaturedAppRewardCoupons"`
	TotalUnfeaturedAppRewardCoupons daml.Numeric `daml:"totalUnfeaturedAppRewardCoupons"`
	TotalSvRewardWeight             int64        `daml:"totalSvRewardWeight"`
	OptTotalValidatorFaucetCoupons  *int64       `daml:"optTotalValidatorFaucetCoupons"`
}

// DamlIdentifier implements daml.Identified.
func (OpenMiningRoundSummary) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Issuance", "OpenMiningRoundSummary")
}

// issuingRoundParameters is Splice.Issuance's IssuingRoundParameters, the
// issuance per coupon of a round and what it leaves unclaimed.
type issuingRoundParameters struct {
	perValidatorReward, perFeaturedAppReward, perUnfeaturedAppReward, perSvReward daml.Numeric
	perValidatorFaucet                                                            daml.Numeric
	unclaimedAppRewards, unclaimedValidatorRewards, unclaimedSvRewards            daml.Numeric
	toDevelopmentFund                                                             daml.Numeric
}

// issuanceTranche is Splice.Issuance's computeIssuanceTranche: as much per
// coupon as the tranche allows, up to the cap.
func issuanceTranche(a *arith, rewardsToIssue, capPerCoupon, totalCoupons daml.Numeric) (perCoupon, unclaimed daml.Numeric) {
	switch {
	case totalCoupons.Sign() <= 0:
		return capPerCoupon, rewardsToIssue
	case capPerCoupon.Sign() <= 0:
		return zero, rewardsToIssue
	}
	scaled := a.mul(capPerCoupon, totalCoupons)
	capped := rewardsToIssue.Min(scaled)
	perCoupon = a.div(a.mul(capped, capPerCoupon), scaled)
	unclaimed = a.sub(rewardsToIssue, a.mul(perCoupon, totalCoupons)).Max(zero)
	return perCoupon, unclaimed
}

// defaultDevelopmentFundPercentage is the share of each round's issuance
// that goes to the development fund (CIP-82) unless the issuance config
// says otherwise.
var defaultDevelopmentFundPercentage = num("0.05")

// computeIssuingRoundParameters is Splice.Issuance's
// computeIssuingRoundParameters.
func computeIssuingRoundParameters(tick RelTime, price daml.Numeric, c IssuanceConfig, s OpenMiningRoundSummary) (issuingRoundParameters, error) {
	var a arith
	year := Rel(365 * 24 * time.Hour).Microseconds
	roundsPerYear := a.div(a.fromInt(year), a.fromInt(tick.Microseconds))
	perRound := a.div(c.AmuletToIssuePerYear, roundsPerYear)
	fundPercentage := defaultDevelopmentFundPercentage
	if c.OptDevelopmentFundPercentage != nil {
		fundPercentage = *c.OptDevelopmentFundPercentage
	}
	toFund := a.mul(perRound, fundPercentage)
	adjusted := a.sub(perRound, toFund)

	validatorToIssue := a.mul(adjusted, c.ValidatorRewardPercentage)
	validatorPer, validatorUnclaimed := issuanceTranche(&a, validatorToIssue, c.ValidatorRewardCap, s.TotalValidatorRewardCoupons)
	faucetCap := num("2.85")
	if c.OptValidatorFaucetCap != nil {
		faucetCap = *c.OptValidatorFaucetCap
	}
	var faucets int64
	if s.OptTotalValidatorFaucetCoupons != nil {
		faucets = *s.OptTotalValidatorFaucetCoupons
	}
	faucetPer, faucetUnclaimed := issuanceTranche(&a, validatorUnclaimed, a.div(faucetCap, price), a.fromInt(faucets))
	allApps := a.add(s.TotalFeaturedAppRewardCoupons, s.TotalUnfeaturedAppRewardCoupons)
	appsToIssue := a.mul(adjusted, c.AppRewardPercentage)
	unfeaturedPer, appsUnclaimed := issuanceTranche(&a, appsToIssue, c.UnfeaturedAppRewardCap, allApps)
	featuredPer, featuredUnclaimed := issuanceTranche(&a, appsUnclaimed, a.sub(c.FeaturedAppRewardCap, c.UnfeaturedAppRewardCap), s.TotalFeaturedAppRewardCoupons)

	// The SVs get what the validator and app tranches leave, whether or not
	// those tranches were claimed.
	toSvs := a.sub(a.sub(adjusted, validatorToIssue), appsToIssue)
	svPer := toSvs
	weight := a.fromInt(s.TotalSvRewardWeight)
	if s.TotalSvRewardWeight != 0 {
		svPer = a.div(toSvs, weight)
	}
	return issuingRoundParameters{
		perValidatorReward:        validatorPer,
		perFeaturedAppReward:      a.add(unfeaturedPer, featuredPer),
		perUnfeaturedAppReward:    unfeaturedPer,
		perSvReward:               svPer,
		perValidatorFaucet:        faucetPer,
		unclaimedValidatorRewards: faucetUnclaimed,
		unclaimedAppRewards:       featuredUnclaimed,
		unclaimedSvRewards:        a.sub(toSvs, a.mul(svPer, weight)).Max(zero),
		toDevelopmentFund:         toFund,
	}, a.err
}

func registerRounds(r *ledger.Registry) {
	ledger.RegisterTemplate[OpenMiningRound](r)
	ledger.AddChoice(r, "OpenMiningRound_Fetch", false,
		func(_ OpenMiningRound, arg OpenMiningRoundFetch) []daml.Party { return []daml.Party{arg.P} },
		func(_ *ledger.Tx, _ daml.ContractID, round OpenMiningRound, _ OpenMiningRoundFetch) (OpenMiningRound, error) {
			return round, nil
		})
	ledger.RegisterTemplate[SummarizingMiningRound](r)
	ledger.RegisterTemplate[IssuingMiningRound](r)
	ledger.RegisterTemplate[ClosedMiningRound](r)
}
