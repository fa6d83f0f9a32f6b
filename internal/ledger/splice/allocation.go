package splice

import (
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Amulet's V1 allocations (splice-amulet 0.1.22, Splice.AmuletAllocation):
// the ExternalPartyAmuletRules' AllocationFactory locks a transfer leg's
// amount to the DSO in a LockedAmulet and records it in an
// AmuletAllocation, which the settlement's executor settles (with the
// sender and the receiver) through the Allocation interface, or which is
// cancelled, withdrawn, or expired by the DSO once past its deadline.
//
// Splice runs the V1 factory through the V2 factory's core, upcasting the
// V1 specification; sandnet runs the same checks in the same order on the
// V1 values, with the V2 field names Splice's messages carry.

const moduleAmuletAllocation = "Splice.AmuletAllocation"

// MetaExpiresAt is the metadata key an AmuletAllocation's view reports its
// early expiry under (the token standard's cip-112 namespace), as
// microseconds since the epoch.
const MetaExpiresAt = "cip-112/expiresAt"

// The metadata keys through which an executor names the app-reward
// beneficiaries of a featured settlement: comma-separated parties and
// their weights.
const (
	MetaAppRewardBeneficiaries      = amuletPrefix + "app-reward-beneficiaries"
	MetaAppRewardBeneficiaryWeights = amuletPrefix + "app-reward-beneficiary-weights"
)

// amuletInstrumentIDName is the instrument id of Amulet.
const amuletInstrumentIDName = "Amulet"

// AmuletAllocation is Splice.AmuletAllocation:AmuletAllocation: a V1
// allocation of amulet, its amount locked in lockedAmulet until expiresAt
// (which may come before the settlement's deadline). It implements the
// token standard's Allocation.
type AmuletAllocation struct {
	LockedAmulet daml.ContractID         `daml:"lockedAmulet"`
	Allocation   AllocationSpecification `daml:"allocation"`
	ExpiresAt    *daml.Timestamp         `daml:"expiresAt"`
}

// TemplateID implements ledger.Template.
func (AmuletAllocation) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmuletAllocation, "AmuletAllocation")
}

// DamlIdentifier implements daml.Identified.
func (a AmuletAllocation) DamlIdentifier() daml.Identifier { return a.TemplateID().Identifier }

// Signatories implements ledger.Template: the instrument's admin (the DSO)
// and the sender.
func (a AmuletAllocation) Signatories() []daml.Party {
	return []daml.Party{a.Allocation.TransferLeg.InstrumentID.Admin, a.Allocation.TransferLeg.Sender}
}

// Observers implements ledger.Template: the settlement's executor.
func (a AmuletAllocation) Observers() []daml.Party {
	return []daml.Party{a.Allocation.Settlement.Executor}
}

// Ensure is the template's ensure (Splice's
// isValidAllocationSpecificationV1 and the instrument's id): requestedAt ≤
// allocateBefore ≤ settleBefore, a positive amount, and Amulet.
func (a AmuletAllocation) Ensure() error {
	s, leg := a.Allocation.Settlement, a.Allocation.TransferLeg
	switch {
	case s.RequestedAt > s.AllocateBefore:
		return errorf("settlement.requestedAt %s is after allocateBefore %s", s.RequestedAt, s.AllocateBefore)
	case s.AllocateBefore > s.SettleBefore:
		return errorf("settlement.allocateBefore %s is after settleBefore %s", s.AllocateBefore, s.SettleBefore)
	case leg.Amount.Sign() <= 0:
		return errorf("transferLeg.amount %s is not positive", leg.Amount)
	case leg.InstrumentID.ID != amuletInstrumentIDName:
		return errorf("transferLeg.instrumentId.id %q is not %q", leg.InstrumentID.ID, amuletInstrumentIDName)
	}
	return nil
}

func (a AmuletAllocation) dsoParty() daml.Party { return a.Allocation.TransferLeg.InstrumentID.Admin }

// lockExpiresAt is when the allocation's lock expires: expiresAt, or the
// settlement's deadline for an allocation without one.
func (a AmuletAllocation) lockExpiresAt() daml.Timestamp {
	if a.ExpiresAt != nil {
		return *a.ExpiresAt
	}
	return a.Allocation.Settlement.SettleBefore
}

// AmuletAllocationView is the Allocation view of an AmuletAllocation: the
// specification, its LockedAmulet as the holding, and its expiry in the
// metadata (Splice's expiresAtToMeta).
func AmuletAllocationView(a AmuletAllocation) AllocationView {
	meta := emptyMetadata()
	if a.ExpiresAt != nil {
		meta.Values[MetaExpiresAt] = itoa(int64(*a.ExpiresAt))
	}
	return AllocationView{Allocation: a.Allocation, HoldingCids: []daml.ContractID{a.LockedAmulet}, Meta: meta}
}

// allocationLockContext is Splice's mkAllocationLockContext.
func allocationLockContext(ref Reference) string { return "allocation for settlement of " + ref.ID }

// allocationControllers is the token standard's allocationControllers:
// who settles or cancels an allocation.
func allocationControllers(s AllocationSpecification) []daml.Party {
	return []daml.Party{s.Settlement.Executor, s.TransferLeg.Sender, s.TransferLeg.Receiver}
}

// requireQuoted is the token standard's require': it fails (with Daml's
// fail, a GeneralError) with the two values on lines of their own.
func requireQuoted(cond bool, desc1, what, desc2, v1, v2 string) error {
	if cond {
		return nil
	}
	return abort("'" + desc1 + "' " + what + " '" + desc2 + "'.\n" + desc1 + ": " + v1 + "\n" + desc2 + ": " + v2 + "\n")
}

// requireMatchExpected is the token standard's requireMatchExpected.
func requireMatchExpected(desc string, ok bool, actual, expected string) error {
	return requireQuoted(ok, desc, "is not equal to", "expected value", actual, expected)
}

// showAccount is Daml's show of the HoldingV2 Account that the token
// standard's upcast makes of a V1 party and the cip-112 account metadata.
func showAccount(owner daml.Party, meta Metadata, field string) (string, bool) {
	provider, hasProvider := meta.Values["cip-112/"+field+".provider"]
	id := meta.Values["cip-112/"+field+".id"]
	if !hasProvider && id == "" {
		return "", true
	}
	p := "None"
	if hasProvider {
		p = "Some " + showParty(daml.Party(provider))
	}
	return "Account {owner = Some " + showParty(owner) + ", provider = " + p + ", id = " + showText(id) + "}", false
}

// ensureBasicAccount is the token standard's ensureBasicAccount over the
// account the upcast makes of a V1 party and its leg's metadata.
func ensureBasicAccount(field string, owner daml.Party, meta Metadata, metaField string) error {
	if shown, basic := showAccount(owner, meta, metaField); !basic {
		return abort("Expected a basic account for field '" + field + "', but got: " + shown)
	}
	return nil
}

// computeAllocationExpiry is Splice's computeAllocationExpiry: the
// settlement's deadline, or earlier requestedAt plus the token standard's
// maximum lifetime; it must be in the future.
func computeAllocationExpiry(tx *ledger.Tx, cfg TransferConfig, requestedAt, settleBefore daml.Timestamp) (daml.Timestamp, error) {
	maxTTL := tokenStandardMaxTTL(cfg).Microseconds
	candidate := daml.MaxTimestamp
	if int64(daml.MaxTimestamp)-int64(requestedAt) > maxTTL {
		candidate = requestedAt + daml.Timestamp(maxTTL)
	}
	expiresAt := min(settleBefore, candidate)
	return expiresAt, assertWithinDeadline(tx, "allocation.expiresAt", expiresAt)
}

// allocationFactoryAllocate is ExternalPartyAmuletRules'
// AllocationFactory_Allocate (Splice's
// amulet_allocationFactoryV1_allocateImpl and the V2 core it calls): the
// checks, then the leg's amount locked to the DSO until the allocation
// expires, and the AmuletAllocation.
func allocationFactoryAllocate(tx *ledger.Tx, _ daml.ContractID, rules ExternalPartyAmuletRules, arg AllocationFactoryAllocate) (AllocationInstructionResult, error) {
	var none AllocationInstructionResult
	dso := rules.DSO
	spec := arg.Allocation
	settlement, leg := spec.Settlement, spec.TransferLeg
	if err := require(tx, "Expected admin "+showParty(arg.ExpectedAdmin)+" matches actual admin "+showParty(dso), arg.ExpectedAdmin == dso); err != nil {
		return none, err
	}
	if err := assertWithinDeadline(tx, "allocation.settlement.allocateBefore", settlement.AllocateBefore); err != nil {
		return none, err
	}
	// Splice allows allocateBefore == settleBefore.
	if err := requireQuoted(settlement.AllocateBefore <= settlement.SettleBefore,
		"allocation.settlement.allocateBefore", "is greater than", "allocation.settlement.settleBefore",
		settlement.AllocateBefore.String(), settlement.SettleBefore.String()); err != nil {
		return none, err
	}
	// The lock to self is never featured.
	ctx, err := transferContextFromChoiceContext(tx, dso, arg.ExtraArgs.Context, false)
	if err != nil {
		return none, err
	}
	// The upcast turns the sender and the leg's cip-112 sender metadata
	// into the V2 authorizer, which must be a basic account; the
	// authorizer is then the sender, the choice's one actor.
	if err := ensureBasicAccount("allocation.authorizer", leg.Sender, leg.Meta, "sender"); err != nil {
		return none, err
	}
	if err := assertWithinDeadline(tx, "Allocation.settlementDeadline", settlement.SettleBefore); err != nil {
		return none, err
	}
	if err := requireMatchExpected("allocation.admin", leg.InstrumentID.Admin == dso, showParty(leg.InstrumentID.Admin), showParty(dso)); err != nil {
		return none, err
	}
	// validateAmuletTransferLegSides on the leg's one (sender) side.
	if err := ensureBasicAccount("transferLeg.otherside", leg.Receiver, leg.Meta, "receiver"); err != nil {
		return none, err
	}
	if err := requireQuoted(leg.Amount.Sign() > 0, "transferLeg.amount", "is not greater than", "zero", showDecimal(leg.Amount), "0.0"); err != nil {
		return none, err
	}
	if err := requireMatchExpected("transferLeg.instrumentId", leg.InstrumentID.ID == amuletInstrumentIDName,
		showText(leg.InstrumentID.ID), showText(amuletInstrumentIDName)); err != nil {
		return none, err
	}
	if err := assertDeadlineExceeded(tx, "requestedAt", arg.RequestedAt); err != nil {
		return none, err
	}
	_, state, err := configStateFromContext(tx, dso, arg.ExtraArgs.Context)
	if err != nil {
		return none, err
	}
	cfg, err := transferConfigAmuletFromConfigState(state)
	if err != nil {
		return none, err
	}
	expiresAt, err := computeAllocationExpiry(tx, cfg, arg.RequestedAt, settlement.SettleBefore)
	if err != nil {
		return none, err
	}
	if err := require(tx, "At least one input holding must be provided for allocations that require funding", len(arg.InputHoldingCids) > 0); err != nil {
		return none, err
	}
	locked, change, meta, err := prepareTwoStepTransfer(tx, twoStepTransfer{
		dso: dso, sender: leg.Sender, receiver: leg.Sender, provider: leg.Sender, amount: leg.Amount,
		lockContext: allocationLockContext(settlement.SettlementRef), transferBefore: expiresAt, transferBeforeDeadline: "allocation.expiresAt",
	}, arg.RequestedAt, arg.InputHoldingCids, ctx)
	if err != nil {
		return none, err
	}
	cid, err := ledger.Create(tx, AmuletAllocation{LockedAmulet: locked, Allocation: spec, ExpiresAt: &expiresAt})
	if err != nil {
		return none, err
	}
	return AllocationInstructionResult{
		Output:           AllocationInstructionResultOutput{Completed: &AllocationInstructionResultCompleted{AllocationCid: cid}},
		SenderChangeCids: change,
		Meta:             meta,
	}, nil
}

// allocationTwoStepTransfer is Splice's allocationToTwoStepTransfer: the
// executor is the provider, and the transfer may be featured.
func allocationTwoStepTransfer(s AllocationSpecification) twoStepTransfer {
	return twoStepTransfer{
		dso: s.TransferLeg.InstrumentID.Admin, sender: s.TransferLeg.Sender, receiver: s.TransferLeg.Receiver,
		provider: s.Settlement.Executor, amount: s.TransferLeg.Amount,
		transferBefore: s.Settlement.SettleBefore, transferBeforeDeadline: "allocation.settlement.settleBefore",
		allowFeaturing: true, lockContext: allocationLockContext(s.Settlement.SettlementRef),
	}
}

// beneficiariesFromMetadata is Splice's beneficiariesFromMetadata: the
// app-reward beneficiaries an executor names in its choice's metadata,
// both keys or neither.
func beneficiariesFromMetadata(meta Metadata) (*[]AppRewardBeneficiary, error) {
	bs, hasBs := meta.Values[MetaAppRewardBeneficiaries]
	ws, hasWs := meta.Values[MetaAppRewardBeneficiaryWeights]
	switch {
	case !hasBs && !hasWs:
		return nil, nil
	case !hasBs || !hasWs:
		show := func(v string, ok bool) string {
			if !ok {
				return "None"
			}
			return "Some " + showText(v)
		}
		return nil, abort("Expected both beneficiaries and weights to be present, but got: (" + show(bs, hasBs) + "," + show(ws, hasWs) + ")")
	}
	parties := strings.Split(bs, ",")
	for _, p := range parties {
		if !ledger.ValidPartyID(p) {
			return nil, abort("Failed to parse beneficiaries: " + showText(bs))
		}
	}
	weightTexts := strings.Split(ws, ",")
	weights := make([]daml.Numeric, len(weightTexts))
	for i, w := range weightTexts {
		n, err := daml.ParseNumeric(w)
		if err != nil {
			return nil, abort("Failed to parse weights: " + showText(ws))
		}
		weights[i] = n
	}
	if len(parties) != len(weights) {
		return nil, abort("Number of beneficiaries (" + itoa(int64(len(parties))) + ") does not match number of weights (" + itoa(int64(len(weights))) + ")")
	}
	out := make([]AppRewardBeneficiary, len(parties))
	for i := range parties {
		out[i] = AppRewardBeneficiary{Beneficiary: daml.Party(parties[i]), Weight: weights[i]}
	}
	return &out, nil
}

// unlockAmuletAllocation is Splice's unlockAmuletAllocation.
func unlockAmuletAllocation(tx *ledger.Tx, a AmuletAllocation, extra ExtraArgs) ([]daml.ContractID, error) {
	return abortTwoStepTransfer(tx, a.lockExpiresAt(), a.LockedAmulet, extra)
}

// AmuletAllocationDsoExpire is the argument of AmuletAllocation_DsoExpire
// (controller the instrument's admin).
type AmuletAllocationDsoExpire struct {
	ExpireLock bool `daml:"expireLock"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletAllocationDsoExpire) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletAllocation, "AmuletAllocation_DsoExpire")
}

// AmuletAllocationDsoExpireResult is AmuletAllocation_DsoExpire's result.
type AmuletAllocationDsoExpireResult struct {
	SenderHoldingCids []daml.ContractID `daml:"senderHoldingCids"`
	Meta              Metadata          `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletAllocationDsoExpireResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleAmuletAllocation, "AmuletAllocation_DsoExpireResult")
}

// ExternalPartyAmuletRulesExpireAmuletAllocationInput is
// Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules_ExpireAmuletAllocationInput.
type ExternalPartyAmuletRulesExpireAmuletAllocationInput struct {
	AllocationCid daml.ContractID `daml:"allocationCid"`
	ExpireLock    bool            `daml:"expireLock"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartyAmuletRulesExpireAmuletAllocationInput) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "ExternalPartyAmuletRules_ExpireAmuletAllocationInput")
}

// ExternalPartyAmuletRulesExpireAmuletAllocations is the argument of
// ExternalPartyAmuletRules_ExpireAmuletAllocations (nonconsuming,
// controller the DSO, observers the parties told).
type ExternalPartyAmuletRulesExpireAmuletAllocations struct {
	ExpectedDso daml.Party                                            `daml:"expectedDso"`
	Inputs      []ExternalPartyAmuletRulesExpireAmuletAllocationInput `daml:"inputs"`
	Observers   []daml.Party                                          `daml:"observers"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartyAmuletRulesExpireAmuletAllocations) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "ExternalPartyAmuletRules_ExpireAmuletAllocations")
}

// ExternalPartyAmuletRulesExpireAmuletAllocationsResult is the choice's
// result.
type ExternalPartyAmuletRulesExpireAmuletAllocationsResult struct {
	Results []AmuletAllocationDsoExpireResult `daml:"results"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartyAmuletRulesExpireAmuletAllocationsResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "ExternalPartyAmuletRules_ExpireAmuletAllocationsResult")
}

func registerAllocations(r *ledger.Registry) {
	ledger.AddInterfaceChoice[AllocationFactoryAllocate, AllocationInstructionResult](r, AllocationFactoryInterface, "AllocationFactory_Allocate", false)
	ledger.AddInterfaceChoice[AllocationFactoryPublicFetch, AllocationFactoryView](r, AllocationFactoryInterface, "AllocationFactory_PublicFetch", false)
	ledger.AddInterfaceView(r, AllocationFactoryInterface, func(rules ExternalPartyAmuletRules) (AllocationFactoryView, error) {
		return AllocationFactoryView{Admin: rules.DSO, Meta: emptyMetadata()}, nil
	})
	ledger.AddChoice(r, "AllocationFactory_Allocate", false,
		func(_ ExternalPartyAmuletRules, arg AllocationFactoryAllocate) []daml.Party {
			return []daml.Party{arg.Allocation.TransferLeg.Sender}
		},
		allocationFactoryAllocate)
	// Splice's publicFetchDefaultImpl does not check expectedAdmin.
	ledger.AddChoice(r, "AllocationFactory_PublicFetch", false,
		func(_ ExternalPartyAmuletRules, arg AllocationFactoryPublicFetch) []daml.Party {
			return []daml.Party{arg.Actor}
		},
		func(_ *ledger.Tx, _ daml.ContractID, rules ExternalPartyAmuletRules, _ AllocationFactoryPublicFetch) (AllocationFactoryView, error) {
			return AllocationFactoryView{Admin: rules.DSO, Meta: emptyMetadata()}, nil
		})
	ledger.AddChoice(r, "ExternalPartyAmuletRules_ExpireAmuletAllocations", false,
		func(rules ExternalPartyAmuletRules, _ ExternalPartyAmuletRulesExpireAmuletAllocations) []daml.Party {
			return []daml.Party{rules.DSO}
		},
		expireAmuletAllocations)

	ledger.RegisterTemplate[AmuletAllocation](r, AllocationInterface)
	ledger.AddInterfaceChoice[AllocationExecuteTransfer, AllocationExecuteTransferResult](r, AllocationInterface, "Allocation_ExecuteTransfer", true)
	ledger.AddInterfaceChoice[AllocationCancel, AllocationCancelResult](r, AllocationInterface, "Allocation_Cancel", true)
	ledger.AddInterfaceChoice[AllocationWithdraw, AllocationWithdrawResult](r, AllocationInterface, "Allocation_Withdraw", true)
	ledger.AddInterfaceView(r, AllocationInterface, func(a AmuletAllocation) (AllocationView, error) {
		return AmuletAllocationView(a), nil
	})
	ledger.AddChoice(r, "Allocation_ExecuteTransfer", true,
		func(a AmuletAllocation, _ AllocationExecuteTransfer) []daml.Party {
			return allocationControllers(a.Allocation)
		},
		func(tx *ledger.Tx, _ daml.ContractID, a AmuletAllocation, arg AllocationExecuteTransfer) (AllocationExecuteTransferResult, error) {
			change, received, meta, err := executeTwoStepTransfer(tx, allocationTwoStepTransfer(a.Allocation), a.LockedAmulet, a.Allocation.TransferLeg.Meta, arg.ExtraArgs)
			if err != nil {
				return AllocationExecuteTransferResult{}, err
			}
			return AllocationExecuteTransferResult{SenderHoldingCids: change, ReceiverHoldingCids: received, Meta: meta}, nil
		})
	ledger.AddChoice(r, "Allocation_Cancel", true,
		func(a AmuletAllocation, _ AllocationCancel) []daml.Party { return allocationControllers(a.Allocation) },
		func(tx *ledger.Tx, _ daml.ContractID, a AmuletAllocation, arg AllocationCancel) (AllocationCancelResult, error) {
			held, err := unlockAmuletAllocation(tx, a, arg.ExtraArgs)
			if err != nil {
				return AllocationCancelResult{}, err
			}
			return AllocationCancelResult{SenderHoldingCids: held, Meta: emptyMetadata()}, nil
		})
	ledger.AddChoice(r, "Allocation_Withdraw", true,
		func(a AmuletAllocation, _ AllocationWithdraw) []daml.Party {
			return []daml.Party{a.Allocation.TransferLeg.Sender}
		},
		func(tx *ledger.Tx, _ daml.ContractID, a AmuletAllocation, arg AllocationWithdraw) (AllocationWithdrawResult, error) {
			held, err := unlockAmuletAllocation(tx, a, arg.ExtraArgs)
			if err != nil {
				return AllocationWithdrawResult{}, err
			}
			return AllocationWithdrawResult{SenderHoldingCids: held, Meta: emptyMetadata()}, nil
		})
	ledger.AddChoice(r, "AmuletAllocation_DsoExpire", true,
		func(a AmuletAllocation, _ AmuletAllocationDsoExpire) []daml.Party { return []daml.Party{a.dsoParty()} },
		func(tx *ledger.Tx, _ daml.ContractID, a AmuletAllocation, arg AmuletAllocationDsoExpire) (AmuletAllocationDsoExpireResult, error) {
			if err := assertDeadlineExceeded(tx, "AmuletAllocation.expiresAt", a.lockExpiresAt()); err != nil {
				return AmuletAllocationDsoExpireResult{}, err
			}
			held, err := unlockAmuletAllocation(tx, a, expireLockExtraArgs(arg.ExpireLock))
			if err != nil {
				return AmuletAllocationDsoExpireResult{}, err
			}
			return AmuletAllocationDsoExpireResult{SenderHoldingCids: held, Meta: *reasonMeta("cancelled expired allocation")}, nil
		})
}

// expireAmuletAllocations is ExternalPartyAmuletRules_ExpireAmuletAllocations:
// the DSO expires allocations of its instrument whose deadline passed.
func expireAmuletAllocations(tx *ledger.Tx, _ daml.ContractID, rules ExternalPartyAmuletRules, arg ExternalPartyAmuletRulesExpireAmuletAllocations) (ExternalPartyAmuletRulesExpireAmuletAllocationsResult, error) {
	var none ExternalPartyAmuletRulesExpireAmuletAllocationsResult
	dso := rules.DSO
	if err := requireMatchExpected("expectedDso", arg.ExpectedDso == dso, showParty(arg.ExpectedDso), showParty(dso)); err != nil {
		return none, err
	}
	results := make([]AmuletAllocationDsoExpireResult, 0, len(arg.Inputs))
	for _, in := range arg.Inputs {
		a, err := fetchDsoContract[AmuletAllocation](tx, in.AllocationCid, dso)
		if err != nil {
			return none, err
		}
		admin := a.Allocation.TransferLeg.InstrumentID.Admin
		if err := requireMatchExpected("allocation.transferLeg.instrumentId.admin", admin == dso, showParty(admin), showParty(dso)); err != nil {
			return none, err
		}
		res, err := ledger.Exercise[AmuletAllocationDsoExpireResult](tx, in.AllocationCid, "AmuletAllocation_DsoExpire", AmuletAllocationDsoExpire{ExpireLock: in.ExpireLock})
		if err != nil {
			return none, err
		}
		results = append(results, res)
	}
	return ExternalPartyAmuletRulesExpireAmuletAllocationsResult{Results: results}, nil
}
