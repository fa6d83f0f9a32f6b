package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
)

// The token standard's V1 allocation APIs (splice-api-token-allocation-v1
// and splice-api-token-allocation-instruction-v1) as Go types with
// Splice's Daml type names and fields. An allocation reserves one leg of
// a settlement (a delivery-versus-payment trade, say) for its executor to
// settle, cancel with the parties, or the sender to withdraw.

// AllocationInterface is Splice.Api.Token.AllocationV1:Allocation.
var AllocationInterface = PackageTokenAllocation.Identifier(moduleTokenAllocationV1, "Allocation")

// AllocationFactoryInterface is
// Splice.Api.Token.AllocationInstructionV1:AllocationFactory.
var AllocationFactoryInterface = PackageTokenAllocationInstruction.Identifier(moduleTokenAllocationInstrV1, "AllocationFactory")

// AllocationRequestInterface is
// Splice.Api.Token.AllocationRequestV1:AllocationRequest, which apps
// implement (Amulet does not).
var AllocationRequestInterface = PackageTokenAllocationRequest.Identifier(moduleTokenAllocationReqV1, "AllocationRequest")

func allocationV1ID(entity string) daml.Identifier {
	return PackageTokenAllocation.Identifier(moduleTokenAllocationV1, entity)
}

func allocationInstrV1ID(entity string) daml.Identifier {
	return PackageTokenAllocationInstruction.Identifier(moduleTokenAllocationInstrV1, entity)
}

// Reference is Splice.Api.Token.AllocationV1:Reference: the settlement an
// allocation is for, by an id and optionally a contract.
type Reference struct {
	ID  string           `daml:"id"`
	Cid *daml.ContractID `daml:"cid"`
}

// DamlIdentifier implements daml.Identified.
func (Reference) DamlIdentifier() daml.Identifier { return allocationV1ID("Reference") }

// SettlementInfo is Splice.Api.Token.AllocationV1:SettlementInfo.
type SettlementInfo struct {
	Executor       daml.Party     `daml:"executor"`
	SettlementRef  Reference      `daml:"settlementRef"`
	RequestedAt    daml.Timestamp `daml:"requestedAt"`
	AllocateBefore daml.Timestamp `daml:"allocateBefore"`
	SettleBefore   daml.Timestamp `daml:"settleBefore"`
	Meta           Metadata       `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (SettlementInfo) DamlIdentifier() daml.Identifier { return allocationV1ID("SettlementInfo") }

// TransferLeg is Splice.Api.Token.AllocationV1:TransferLeg.
type TransferLeg struct {
	Sender       daml.Party   `daml:"sender"`
	Receiver     daml.Party   `daml:"receiver"`
	Amount       daml.Numeric `daml:"amount"`
	InstrumentID InstrumentID `daml:"instrumentId"`
	Meta         Metadata     `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferLeg) DamlIdentifier() daml.Identifier { return allocationV1ID("TransferLeg") }

// AllocationSpecification is
// Splice.Api.Token.AllocationV1:AllocationSpecification.
type AllocationSpecification struct {
	Settlement    SettlementInfo `daml:"settlement"`
	TransferLegID string         `daml:"transferLegId"`
	TransferLeg   TransferLeg    `daml:"transferLeg"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationSpecification) DamlIdentifier() daml.Identifier {
	return allocationV1ID("AllocationSpecification")
}

// AllocationView is Splice.Api.Token.AllocationV1:AllocationView.
type AllocationView struct {
	Allocation  AllocationSpecification `daml:"allocation"`
	HoldingCids []daml.ContractID       `daml:"holdingCids"`
	Meta        Metadata                `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationView) DamlIdentifier() daml.Identifier { return allocationV1ID("AllocationView") }

// AllocationExecuteTransfer is the argument of Allocation_ExecuteTransfer
// (controllers the executor, the sender and the receiver).
type AllocationExecuteTransfer struct {
	ExtraArgs ExtraArgs `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationExecuteTransfer) DamlIdentifier() daml.Identifier {
	return allocationV1ID("Allocation_ExecuteTransfer")
}

// AllocationExecuteTransferResult is Allocation_ExecuteTransfer's result.
type AllocationExecuteTransferResult struct {
	SenderHoldingCids   []daml.ContractID `daml:"senderHoldingCids"`
	ReceiverHoldingCids []daml.ContractID `daml:"receiverHoldingCids"`
	Meta                Metadata          `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationExecuteTransferResult) DamlIdentifier() daml.Identifier {
	return allocationV1ID("Allocation_ExecuteTransferResult")
}

// AllocationCancel is the argument of Allocation_Cancel (controllers the
// executor, the sender and the receiver).
type AllocationCancel struct {
	ExtraArgs ExtraArgs `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationCancel) DamlIdentifier() daml.Identifier { return allocationV1ID("Allocation_Cancel") }

// AllocationCancelResult is Allocation_Cancel's result.
type AllocationCancelResult struct {
	SenderHoldingCids []daml.ContractID `daml:"senderHoldingCids"`
	Meta              Metadata          `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationCancelResult) DamlIdentifier() daml.Identifier {
	return allocationV1ID("Allocation_CancelResult")
}

// AllocationWithdraw is the argument of Allocation_Withdraw (controller
// the sender).
type AllocationWithdraw struct {
	ExtraArgs ExtraArgs `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationWithdraw) DamlIdentifier() daml.Identifier {
	return allocationV1ID("Allocation_Withdraw")
}

// AllocationWithdrawResult is Allocation_Withdraw's result.
type AllocationWithdrawResult struct {
	SenderHoldingCids []daml.ContractID `daml:"senderHoldingCids"`
	Meta              Metadata          `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationWithdrawResult) DamlIdentifier() daml.Identifier {
	return allocationV1ID("Allocation_WithdrawResult")
}

// AllocationFactoryView is
// Splice.Api.Token.AllocationInstructionV1:AllocationFactoryView.
type AllocationFactoryView struct {
	Admin daml.Party `daml:"admin"`
	Meta  Metadata   `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationFactoryView) DamlIdentifier() daml.Identifier {
	return allocationInstrV1ID("AllocationFactoryView")
}

// AllocationFactoryAllocate is the argument of AllocationFactory_Allocate
// (nonconsuming, controller the leg's sender).
type AllocationFactoryAllocate struct {
	ExpectedAdmin    daml.Party              `daml:"expectedAdmin"`
	Allocation       AllocationSpecification `daml:"allocation"`
	RequestedAt      daml.Timestamp          `daml:"requestedAt"`
	InputHoldingCids []daml.ContractID       `daml:"inputHoldingCids"`
	ExtraArgs        ExtraArgs               `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationFactoryAllocate) DamlIdentifier() daml.Identifier {
	return allocationInstrV1ID("AllocationFactory_Allocate")
}

// AllocationFactoryPublicFetch is the argument of
// AllocationFactory_PublicFetch (nonconsuming, controller actor).
type AllocationFactoryPublicFetch struct {
	ExpectedAdmin daml.Party `daml:"expectedAdmin"`
	Actor         daml.Party `daml:"actor"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationFactoryPublicFetch) DamlIdentifier() daml.Identifier {
	return allocationInstrV1ID("AllocationFactory_PublicFetch")
}

// AllocationInstructionResult is
// Splice.Api.Token.AllocationInstructionV1:AllocationInstructionResult.
type AllocationInstructionResult struct {
	Output           AllocationInstructionResultOutput `daml:"output"`
	SenderChangeCids []daml.ContractID                 `daml:"senderChangeCids"`
	Meta             Metadata                          `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationInstructionResult) DamlIdentifier() daml.Identifier {
	return allocationInstrV1ID("AllocationInstructionResult")
}

// AllocationInstructionResultOutput is
// AllocationInstructionResult_Output: pending (an instruction awaits
// more steps; Amulet never answers it), completed (the allocation) or
// failed.
type AllocationInstructionResultOutput struct {
	Pending   *AllocationInstructionResultPending   `daml:"AllocationInstructionResult_Pending"`
	Completed *AllocationInstructionResultCompleted `daml:"AllocationInstructionResult_Completed"`
	Failed    *daml.Unit                            `daml:"AllocationInstructionResult_Failed"`
}

// DamlVariant marks AllocationInstructionResultOutput as a Daml variant.
func (AllocationInstructionResultOutput) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (AllocationInstructionResultOutput) DamlIdentifier() daml.Identifier {
	return allocationInstrV1ID("AllocationInstructionResult_Output")
}

// AllocationInstructionResultPending is the
// AllocationInstructionResult_Pending constructor's record.
type AllocationInstructionResultPending struct {
	AllocationInstructionCid daml.ContractID `daml:"allocationInstructionCid"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationInstructionResultPending) DamlIdentifier() daml.Identifier {
	return allocationInstrV1ID("AllocationInstructionResult_Output.AllocationInstructionResult_Pending")
}

// AllocationInstructionResultCompleted is the
// AllocationInstructionResult_Completed constructor's record.
type AllocationInstructionResultCompleted struct {
	AllocationCid daml.ContractID `daml:"allocationCid"`
}

// DamlIdentifier implements daml.Identified.
func (AllocationInstructionResultCompleted) DamlIdentifier() daml.Identifier {
	return allocationInstrV1ID("AllocationInstructionResult_Output.AllocationInstructionResult_Completed")
}
