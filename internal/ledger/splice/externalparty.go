package splice

import (
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The DSO's contracts for transactions an external party signs: the
// ExternalPartyAmuletRules, which the token standard's factories are
// exercised on, and the ExternalPartyConfigState pair, which carries the
// round data (holding-fee round, price, transfer limits) such a
// transaction needs. A config state lives about two ticks (48 h by
// default) and a new one is created every tick, so that a transaction
// prepared against one can still be executed a day later, long after the
// mining round it would otherwise name has closed.

const (
	moduleExternalPartyAmuletRules = "Splice.ExternalPartyAmuletRules"
	moduleExternalPartyConfigState = "Splice.ExternalPartyConfigState"
)

// defaultExternalPartyConfigStateTick is Splice's default for
// externalPartyConfigStateTickDuration.
const defaultExternalPartyConfigStateTick = 24 * time.Hour

// externalPartyConfigStateTick is Splice's
// getExternalPartyConfigStateTickDuration.
func externalPartyConfigStateTick(c AmuletConfig) RelTime {
	if c.ExternalPartyConfigStateTickDuration != nil {
		return *c.ExternalPartyConfigStateTickDuration
	}
	return Rel(defaultExternalPartyConfigStateTick)
}

// ExternalPartyAmuletRules is
// Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules, the rules
// contract external parties' transactions use. It is meant to be archived
// and recreated as rarely as possible. It implements the token
// standard's V1 TransferFactory (transferfactory.go); its other choices
// (allocation factories, expiring allocations, transfer commands) need
// contracts sandnet does not have yet.
type ExternalPartyAmuletRules struct {
	DSO daml.Party `daml:"dso"`
}

// TemplateID implements ledger.Template.
func (ExternalPartyAmuletRules) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleExternalPartyAmuletRules, "ExternalPartyAmuletRules")
}

// DamlIdentifier implements daml.Identified.
func (r ExternalPartyAmuletRules) DamlIdentifier() daml.Identifier { return r.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (r ExternalPartyAmuletRules) Signatories() []daml.Party { return []daml.Party{r.DSO} }

// Observers implements ledger.Template.
func (ExternalPartyAmuletRules) Observers() []daml.Party { return nil }

// Ensure implements ledger.Template: the template has no ensure clause.
func (ExternalPartyAmuletRules) Ensure() error { return nil }

func (r ExternalPartyAmuletRules) dsoParty() daml.Party { return r.DSO }

// TransferConfigV2 is Splice.AmuletConfig:TransferConfigV2, the transfer
// configuration stripped of the fees CIP-78 removed.
type TransferConfigV2 struct {
	HoldingFee          RatePerRound `daml:"holdingFee"`
	MaxNumInputs        int64        `daml:"maxNumInputs"`
	MaxNumOutputs       int64        `daml:"maxNumOutputs"`
	MaxNumLockHolders   int64        `daml:"maxNumLockHolders"`
	TokenStandardMaxTTL *RelTime     `daml:"tokenStandardMaxTTL"`
}

// DamlIdentifier implements daml.Identified.
func (TransferConfigV2) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.AmuletConfig", "TransferConfigV2")
}

// transferConfigV2 is Splice's transferConfigToTransferConfigV2.
func transferConfigV2(c TransferConfig) TransferConfigV2 {
	return TransferConfigV2{
		HoldingFee: c.HoldingFee, MaxNumInputs: c.MaxNumInputs, MaxNumOutputs: c.MaxNumOutputs,
		MaxNumLockHolders: c.MaxNumLockHolders, TokenStandardMaxTTL: c.TokenStandardMaxTTL,
	}
}

// ExternalPartyConfigState is
// Splice.ExternalPartyConfigState:ExternalPartyConfigState: the subset of
// an open round's data that external parties' transfers, allocations and
// taps need, kept alive much longer than a round. Splice also uses it as
// the token standard's V2 event log (TransferEventsV2.EventLog), an
// interface sandnet does not declare.
type ExternalPartyConfigState struct {
	DSO                        daml.Party       `daml:"dso"`
	HoldingFeesOpenRoundNumber Round            `daml:"holdingFeesOpenRoundNumber"`
	AmuletPrice                daml.Numeric     `daml:"amuletPrice"`
	TransferConfig             TransferConfigV2 `daml:"transferConfig"`
	TargetArchiveAfter         daml.Timestamp   `daml:"targetArchiveAfter"`
	RewardCalculationVersion   *RewardVersion   `daml:"rewardCalculationVersion"`
}

// TemplateID implements ledger.Template.
func (ExternalPartyConfigState) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleExternalPartyConfigState, "ExternalPartyConfigState")
}

// DamlIdentifier implements daml.Identified.
func (s ExternalPartyConfigState) DamlIdentifier() daml.Identifier { return s.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (s ExternalPartyConfigState) Signatories() []daml.Party { return []daml.Party{s.DSO} }

// Observers implements ledger.Template.
func (ExternalPartyConfigState) Observers() []daml.Party { return nil }

// Ensure implements ledger.Template: the template has no ensure clause.
func (ExternalPartyConfigState) Ensure() error { return nil }

func (s ExternalPartyConfigState) dsoParty() daml.Party { return s.DSO }

// OpenMiningRoundTriple is Splice.AmuletRules:OpenMiningRoundTriple: the
// three open rounds, oldest first.
type OpenMiningRoundTriple struct {
	Round0Cid daml.ContractID `daml:"round0Cid"`
	Round1Cid daml.ContractID `daml:"round1Cid"`
	Round2Cid daml.ContractID `daml:"round2Cid"`
}

// DamlIdentifier implements daml.Identified.
func (OpenMiningRoundTriple) DamlIdentifier() daml.Identifier {
	return amuletRulesID("OpenMiningRoundTriple")
}

// validatedRounds is Splice's ValidatedOpenMiningRounds.
type validatedRounds struct {
	oldest, latestUsable OpenMiningRound
}

// validateOpenMiningRoundTriple is Splice's validateOpenMiningRoundTriple:
// the three rounds are the DSO's, consecutive, and the latest usable one
// is the newest that has opened.
func validateOpenMiningRoundTriple(tx *ledger.Tx, dso daml.Party, t OpenMiningRoundTriple) (validatedRounds, error) {
	var rounds [3]OpenMiningRound
	for i, cid := range []daml.ContractID{t.Round0Cid, t.Round1Cid, t.Round2Cid} {
		r, err := fetchDsoContract[OpenMiningRound](tx, cid, dso)
		if err != nil {
			return validatedRounds{}, err
		}
		rounds[i] = r
	}
	if err := require(tx, "round1 = round0 + 1", rounds[1].Round.Number == rounds[0].Round.Number+1); err != nil {
		return validatedRounds{}, err
	}
	if err := require(tx, "round2 = round1 + 1", rounds[2].Round.Number == rounds[1].Round.Number+1); err != nil {
		return validatedRounds{}, err
	}
	now := tx.Now()
	found := false
	var latest OpenMiningRound
	for _, r := range rounds {
		if r.OpensAt <= now && (!found || r.Round.Number > latest.Round.Number) {
			latest, found = r, true
		}
	}
	if !found {
		// DA.Foldable's maximumOn over no usable round.
		return validatedRounds{}, abort("maximumOn: empty list")
	}
	return validatedRounds{oldest: rounds[0], latestUsable: latest}, nil
}

// newConfigState is the config state Splice derives from validated rounds:
// holding fees from the oldest round (so that, should rounds stop
// advancing while config states still rotate, fees stay underestimated),
// price, limits and reward version from the latest usable one.
func newConfigState(dso daml.Party, v validatedRounds, targetArchiveAfter daml.Timestamp) ExternalPartyConfigState {
	var version *RewardVersion
	if c := v.latestUsable.RewardConfig; c != nil {
		version = ptr(c.MintingVersion)
	}
	return ExternalPartyConfigState{
		DSO: dso, HoldingFeesOpenRoundNumber: v.oldest.Round, AmuletPrice: v.latestUsable.AmuletPrice,
		TransferConfig: transferConfigV2(v.latestUsable.TransferConfigUSD), TargetArchiveAfter: targetArchiveAfter,
		RewardCalculationVersion: version,
	}
}

// AmuletRulesBootstrapExternalPartyConfigState is the argument of
// AmuletRules_BootstrapExternalPartyConfigState.
type AmuletRulesBootstrapExternalPartyConfigState struct {
	OpenMiningRoundTriple OpenMiningRoundTriple `daml:"openMiningRoundTriple"`
	ExpectedDso           daml.Party            `daml:"expectedDso"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesBootstrapExternalPartyConfigState) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_BootstrapExternalPartyConfigState")
}

// AmuletRulesBootstrapExternalPartyConfigStateResult is the choice's
// (empty) result.
type AmuletRulesBootstrapExternalPartyConfigStateResult struct{}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesBootstrapExternalPartyConfigStateResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_BootstrapExternalPartyConfigStateResult")
}

// AmuletRulesUpdateExternalPartyConfigStates is the argument of
// AmuletRules_UpdateExternalPartyConfigStates: the older config state (to
// archive), the newer one, and the open rounds.
type AmuletRulesUpdateExternalPartyConfigStates struct {
	ExternalPartyConfigStateCid0 daml.ContractID       `daml:"externalPartyConfigStateCid0"`
	ExternalPartyConfigStateCid1 daml.ContractID       `daml:"externalPartyConfigStateCid1"`
	OpenMiningRoundTriple        OpenMiningRoundTriple `daml:"openMiningRoundTriple"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesUpdateExternalPartyConfigStates) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_UpdateExternalPartyConfigStates")
}

// AmuletRulesUpdateExternalPartyConfigStatesResult is the choice's result.
type AmuletRulesUpdateExternalPartyConfigStatesResult struct {
	NewExternalPartyConfigStateCid daml.ContractID `daml:"newExternalPartyConfigStateCid"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesUpdateExternalPartyConfigStatesResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_UpdateExternalPartyConfigStatesResult")
}

func registerExternalParty(r *ledger.Registry) {
	ledger.RegisterTemplate[ExternalPartyAmuletRules](r, TransferFactoryInterface, AllocationFactoryInterface)
	ledger.RegisterTemplate[ExternalPartyConfigState](r)
}

// registerExternalPartyAmuletRulesChoices adds AmuletRules' choices over
// the external-party config states.
func registerExternalPartyAmuletRulesChoices(r *ledger.Registry) {
	dso := func(rules AmuletRules) []daml.Party { return []daml.Party{rules.DSO} }
	ledger.AddChoice(r, "AmuletRules_BootstrapExternalPartyConfigState", false,
		func(rules AmuletRules, _ AmuletRulesBootstrapExternalPartyConfigState) []daml.Party {
			return dso(rules)
		},
		bootstrapExternalPartyConfigState)
	ledger.AddChoice(r, "AmuletRules_UpdateExternalPartyConfigStates", false,
		func(rules AmuletRules, _ AmuletRulesUpdateExternalPartyConfigStates) []daml.Party { return dso(rules) },
		updateExternalPartyConfigStates)
}

// bootstrapExternalPartyConfigState is
// AmuletRules_BootstrapExternalPartyConfigState: two config states, one
// to be archived a tick from now, the other two ticks from now.
func bootstrapExternalPartyConfigState(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesBootstrapExternalPartyConfigState) (AmuletRulesBootstrapExternalPartyConfigStateResult, error) {
	var none AmuletRulesBootstrapExternalPartyConfigStateResult
	if err := checkExpectedDso(rules.DSO, &arg.ExpectedDso); err != nil {
		return none, err
	}
	now := tx.Now()
	tick := externalPartyConfigStateTick(rules.config(now))
	v, err := validateOpenMiningRoundTriple(tx, rules.DSO, arg.OpenMiningRoundTriple)
	if err != nil {
		return none, err
	}
	s0 := newConfigState(rules.DSO, v, addRel(now, tick))
	s1 := s0
	s1.TargetArchiveAfter = addRel(s0.TargetArchiveAfter, tick)
	if _, err := ledger.Create(tx, s0); err != nil {
		return none, err
	}
	_, err = ledger.Create(tx, s1)
	return none, err
}

// updateExternalPartyConfigStates is
// AmuletRules_UpdateExternalPartyConfigStates: once the older state's
// targetArchiveAfter has passed, it is archived and a new one created that
// is to be archived two ticks from now.
func updateExternalPartyConfigStates(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesUpdateExternalPartyConfigStates) (AmuletRulesUpdateExternalPartyConfigStatesResult, error) {
	var none AmuletRulesUpdateExternalPartyConfigStatesResult
	now := tx.Now()
	tick := externalPartyConfigStateTick(rules.config(now))
	v, err := validateOpenMiningRoundTriple(tx, rules.DSO, arg.OpenMiningRoundTriple)
	if err != nil {
		return none, err
	}
	s0, err := fetchAndArchiveDso[ExternalPartyConfigState](tx, arg.ExternalPartyConfigStateCid0, rules.DSO)
	if err != nil {
		return none, err
	}
	s1, err := fetchDsoContract[ExternalPartyConfigState](tx, arg.ExternalPartyConfigStateCid1, rules.DSO)
	if err != nil {
		return none, err
	}
	if err := assertDeadlineExceeded(tx, "ExternalPartyConfigState0.targetArchiveAfter", s0.TargetArchiveAfter); err != nil {
		return none, err
	}
	if err := require(tx, "ExternalPartyConfigState0.targetArchiveAfter <= ExternalPartyConfigState1.targetArchiveAfter",
		s0.TargetArchiveAfter <= s1.TargetArchiveAfter); err != nil {
		return none, err
	}
	cid, err := ledger.Create(tx, newConfigState(rules.DSO, v, addRel(addRel(now, tick), tick)))
	return AmuletRulesUpdateExternalPartyConfigStatesResult{NewExternalPartyConfigStateCid: cid}, err
}

// BootstrapExternalPartyConfigStateInstruction is
// Splice.DsoRules:BootstrapExternalPartyConfigStateInstruction: the SVs'
// confirmed instruction to bootstrap the config states on a network that
// has none, kept independent of the current rounds so that confirmations
// of it can be deduplicated.
type BootstrapExternalPartyConfigStateInstruction struct {
	DSO daml.Party `daml:"dso"`
}

// TemplateID implements ledger.Template.
func (BootstrapExternalPartyConfigStateInstruction) TemplateID() ledger.TemplateID {
	return PackageDsoGovernance.Template(moduleDsoRules, "BootstrapExternalPartyConfigStateInstruction")
}

// DamlIdentifier implements daml.Identified.
func (i BootstrapExternalPartyConfigStateInstruction) DamlIdentifier() daml.Identifier {
	return i.TemplateID().Identifier
}

// Signatories implements ledger.Template.
func (i BootstrapExternalPartyConfigStateInstruction) Signatories() []daml.Party {
	return []daml.Party{i.DSO}
}

// Observers implements ledger.Template.
func (BootstrapExternalPartyConfigStateInstruction) Observers() []daml.Party { return nil }

// Ensure implements ledger.Template: the template has no ensure clause.
func (BootstrapExternalPartyConfigStateInstruction) Ensure() error { return nil }

func (i BootstrapExternalPartyConfigStateInstruction) dsoParty() daml.Party { return i.DSO }

// DsoRulesCreateExternalPartyAmuletRulesResult is the result of
// DsoRules_CreateExternalPartyAmuletRules.
type DsoRulesCreateExternalPartyAmuletRulesResult struct {
	ExternalPartyAmuletRulesCid daml.ContractID `daml:"externalPartyAmuletRulesCid"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCreateExternalPartyAmuletRulesResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CreateExternalPartyAmuletRulesResult")
}

// DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult is the
// result of DsoRules_CreateBootstrapExternalPartyConfigStateInstruction.
type DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult struct {
	InstructionCid daml.ContractID `daml:"instructionCid"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CreateBootstrapExternalPartyConfigStateInstructionResult")
}

// DsoRulesBootstrapExternalPartyConfigState is the argument of
// DsoRules_BootstrapExternalPartyConfigState.
type DsoRulesBootstrapExternalPartyConfigState struct {
	AmuletRulesCid        daml.ContractID       `daml:"amuletRulesCid"`
	InstructionCid        daml.ContractID       `daml:"instructionCid"`
	OpenMiningRoundTriple OpenMiningRoundTriple `daml:"openMiningRoundTriple"`
	Sv                    daml.Party            `daml:"sv"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesBootstrapExternalPartyConfigState) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_BootstrapExternalPartyConfigState")
}

// DsoRulesBootstrapExternalPartyConfigStateResult is the choice's (empty)
// result.
type DsoRulesBootstrapExternalPartyConfigStateResult struct{}

// DamlIdentifier implements daml.Identified.
func (DsoRulesBootstrapExternalPartyConfigStateResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_BootstrapExternalPartyConfigStateResult")
}

// DsoRulesUpdateExternalPartyConfigStates is the argument of
// DsoRules_UpdateExternalPartyConfigStates, the SV automation's way to
// rotate the config states.
type DsoRulesUpdateExternalPartyConfigStates struct {
	AmuletRulesCid               daml.ContractID       `daml:"amuletRulesCid"`
	ExternalPartyConfigStateCid0 daml.ContractID       `daml:"externalPartyConfigStateCid0"`
	ExternalPartyConfigStateCid1 daml.ContractID       `daml:"externalPartyConfigStateCid1"`
	OpenMiningRoundTriple        OpenMiningRoundTriple `daml:"openMiningRoundTriple"`
	Sv                           daml.Party            `daml:"sv"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesUpdateExternalPartyConfigStates) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_UpdateExternalPartyConfigStates")
}

// DsoRulesUpdateExternalPartyConfigStatesResult is the choice's result.
type DsoRulesUpdateExternalPartyConfigStatesResult struct {
	NewExternalPartyConfigStateCid daml.ContractID `daml:"newExternalPartyConfigStateCid"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesUpdateExternalPartyConfigStatesResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_UpdateExternalPartyConfigStatesResult")
}

// registerExternalPartyDsoRules adds DsoRules' external-party choices and
// the bootstrap instruction template.
func registerExternalPartyDsoRules(r *ledger.Registry) {
	ledger.RegisterTemplate[BootstrapExternalPartyConfigStateInstruction](r)
	dso := func(d DsoRules) []daml.Party { return []daml.Party{d.DSO} }
	sv := func(p daml.Party) []daml.Party { return []daml.Party{p} }

	ledger.AddChoice(r, "DsoRules_CreateExternalPartyAmuletRules", false,
		func(d DsoRules, _ DsoRulesCreateExternalPartyAmuletRules) []daml.Party { return dso(d) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, _ DsoRulesCreateExternalPartyAmuletRules) (DsoRulesCreateExternalPartyAmuletRulesResult, error) {
			cid, err := ledger.Create(tx, ExternalPartyAmuletRules{DSO: d.DSO})
			return DsoRulesCreateExternalPartyAmuletRulesResult{ExternalPartyAmuletRulesCid: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_CreateBootstrapExternalPartyConfigStateInstruction", false,
		func(d DsoRules, _ DsoRulesCreateBootstrapExternalPartyConfigStateInstruction) []daml.Party {
			return dso(d)
		},
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, _ DsoRulesCreateBootstrapExternalPartyConfigStateInstruction) (DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult, error) {
			cid, err := ledger.Create(tx, BootstrapExternalPartyConfigStateInstruction{DSO: d.DSO})
			return DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult{InstructionCid: cid}, err
		})

	ledger.AddChoice(r, "DsoRules_BootstrapExternalPartyConfigState", false,
		func(_ DsoRules, arg DsoRulesBootstrapExternalPartyConfigState) []daml.Party { return sv(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesBootstrapExternalPartyConfigState) (DsoRulesBootstrapExternalPartyConfigStateResult, error) {
			var none DsoRulesBootstrapExternalPartyConfigStateResult
			if err := requireSv(tx, d, &arg.Sv); err != nil {
				return none, err
			}
			if _, err := fetchAndArchiveDso[BootstrapExternalPartyConfigStateInstruction](tx, arg.InstructionCid, d.DSO); err != nil {
				return none, err
			}
			_, err := ledger.Exercise[AmuletRulesBootstrapExternalPartyConfigStateResult](tx, arg.AmuletRulesCid,
				"AmuletRules_BootstrapExternalPartyConfigState",
				AmuletRulesBootstrapExternalPartyConfigState{OpenMiningRoundTriple: arg.OpenMiningRoundTriple, ExpectedDso: d.DSO})
			return none, err
		})

	ledger.AddChoice(r, "DsoRules_UpdateExternalPartyConfigStates", false,
		func(_ DsoRules, arg DsoRulesUpdateExternalPartyConfigStates) []daml.Party { return sv(arg.Sv) },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesUpdateExternalPartyConfigStates) (DsoRulesUpdateExternalPartyConfigStatesResult, error) {
			if err := requireSv(tx, d, &arg.Sv); err != nil {
				return DsoRulesUpdateExternalPartyConfigStatesResult{}, err
			}
			res, err := ledger.Exercise[AmuletRulesUpdateExternalPartyConfigStatesResult](tx, arg.AmuletRulesCid,
				"AmuletRules_UpdateExternalPartyConfigStates", AmuletRulesUpdateExternalPartyConfigStates{
					ExternalPartyConfigStateCid0: arg.ExternalPartyConfigStateCid0,
					ExternalPartyConfigStateCid1: arg.ExternalPartyConfigStateCid1,
					OpenMiningRoundTriple:        arg.OpenMiningRoundTriple,
				})
			return DsoRulesUpdateExternalPartyConfigStatesResult{NewExternalPartyConfigStateCid: res.NewExternalPartyConfigStateCid}, err
		})
}
