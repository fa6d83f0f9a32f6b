package splice

import (
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The token standard's V1 transfer-instruction API
// (splice-api-token-transfer-instruction-v1) and the metadata types it
// uses (splice-api-token-metadata-v1), as Go types with Splice's Daml type
// names and fields. The interfaces' choices are declared on the registry
// (registerTokenStandard); templates implementing an interface register a
// choice of the same name and types, which an exercise through the
// interface runs.

// TransferFactoryInterface is Splice.Api.Token.TransferInstructionV1:TransferFactory.
var TransferFactoryInterface = PackageTokenTransferInstruction.Identifier(moduleTokenTransferInstrV1, "TransferFactory")

// TransferInstructionInterface is Splice.Api.Token.TransferInstructionV1:TransferInstruction.
var TransferInstructionInterface = PackageTokenTransferInstruction.Identifier(moduleTokenTransferInstrV1, "TransferInstruction")

func metadataV1ID(entity string) daml.Identifier {
	return PackageTokenMetadata.Identifier(moduleTokenMetadataV1, entity)
}

func transferInstrV1ID(entity string) daml.Identifier {
	return PackageTokenTransferInstruction.Identifier(moduleTokenTransferInstrV1, entity)
}

// AnyValue is Splice.Api.Token.MetadataV1:AnyValue, the values of a
// choice context. Exactly one constructor is set.
type AnyValue struct {
	AVText       *string              `daml:"AV_Text"`
	AVInt        *int64               `daml:"AV_Int"`
	AVDecimal    *daml.Numeric        `daml:"AV_Decimal"`
	AVBool       *bool                `daml:"AV_Bool"`
	AVDate       *daml.Date           `daml:"AV_Date"`
	AVTime       *daml.Timestamp      `daml:"AV_Time"`
	AVRelTime    *RelTime             `daml:"AV_RelTime"`
	AVParty      *daml.Party          `daml:"AV_Party"`
	AVContractID *daml.ContractID     `daml:"AV_ContractId"`
	AVList       *[]AnyValue          `daml:"AV_List"`
	AVMap        *map[string]AnyValue `daml:"AV_Map"`
}

// DamlVariant marks AnyValue as a Daml variant.
func (AnyValue) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (AnyValue) DamlIdentifier() daml.Identifier { return metadataV1ID("AnyValue") }

// show is Daml's show of the value, for the messages of context
// lookups that find a value of the wrong kind.
func (v AnyValue) show() string {
	switch {
	case v.AVText != nil:
		return "AV_Text " + strconv.Quote(*v.AVText)
	case v.AVInt != nil:
		return "AV_Int " + itoa(*v.AVInt)
	case v.AVDecimal != nil:
		return "AV_Decimal " + showDecimal(*v.AVDecimal)
	case v.AVBool != nil:
		if *v.AVBool {
			return "AV_Bool True"
		}
		return "AV_Bool False"
	case v.AVDate != nil:
		return "AV_Date " + v.AVDate.String()
	case v.AVTime != nil:
		return "AV_Time " + v.AVTime.String()
	case v.AVRelTime != nil:
		return "AV_RelTime (RelTime {microseconds = " + itoa(v.AVRelTime.Microseconds) + "})"
	case v.AVParty != nil:
		return "AV_Party " + showParty(*v.AVParty)
	case v.AVContractID != nil:
		return "AV_ContractId " + string(*v.AVContractID)
	case v.AVList != nil:
		parts := make([]string, len(*v.AVList))
		for i, e := range *v.AVList {
			parts[i] = e.show()
		}
		return "AV_List [" + strings.Join(parts, ",") + "]"
	case v.AVMap != nil:
		return "AV_Map (TextMap.fromList [..])"
	}
	return "?"
}

// ChoiceContext is Splice.Api.Token.MetadataV1:ChoiceContext: the
// registry-provided values a choice reads, by key.
type ChoiceContext struct {
	Values map[string]AnyValue `daml:"values"`
}

// DamlIdentifier implements daml.Identified.
func (ChoiceContext) DamlIdentifier() daml.Identifier { return metadataV1ID("ChoiceContext") }

// ExtraArgs is Splice.Api.Token.MetadataV1:ExtraArgs: the choice context
// from the registry and metadata from the caller.
type ExtraArgs struct {
	Context ChoiceContext `daml:"context"`
	Meta    Metadata      `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (ExtraArgs) DamlIdentifier() daml.Identifier { return metadataV1ID("ExtraArgs") }

// TokenTransfer is Splice.Api.Token.TransferInstructionV1:Transfer, a
// transfer as the token standard specifies it (Splice.AmuletRules has a
// Transfer of its own, hence the Go name).
type TokenTransfer struct {
	Sender           daml.Party        `daml:"sender"`
	Receiver         daml.Party        `daml:"receiver"`
	Amount           daml.Numeric      `daml:"amount"`
	InstrumentID     InstrumentID      `daml:"instrumentId"`
	RequestedAt      daml.Timestamp    `daml:"requestedAt"`
	ExecuteBefore    daml.Timestamp    `daml:"executeBefore"`
	InputHoldingCids []daml.ContractID `daml:"inputHoldingCids"`
	Meta             Metadata          `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TokenTransfer) DamlIdentifier() daml.Identifier { return transferInstrV1ID("Transfer") }

// TransferInstructionResult is
// Splice.Api.Token.TransferInstructionV1:TransferInstructionResult, the
// result of every transfer-instruction choice and of the factory's
// transfer.
type TransferInstructionResult struct {
	Output           TransferInstructionResultOutput `daml:"output"`
	SenderChangeCids []daml.ContractID               `daml:"senderChangeCids"`
	Meta             Metadata                        `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionResult) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstructionResult")
}

// TransferInstructionResultOutput is
// Splice.Api.Token.TransferInstructionV1:TransferInstructionResult_Output:
// the transfer is pending (an instruction was created), completed (the
// receiver's holdings) or failed (fieldless: "value":{} in JSON).
type TransferInstructionResultOutput struct {
	Pending   *TransferInstructionResultPending   `daml:"TransferInstructionResult_Pending"`
	Completed *TransferInstructionResultCompleted `daml:"TransferInstructionResult_Completed"`
	Failed    *daml.Unit                          `daml:"TransferInstructionResult_Failed"`
}

// DamlVariant marks TransferInstructionResultOutput as a Daml variant.
func (TransferInstructionResultOutput) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionResultOutput) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstructionResult_Output")
}

// TransferInstructionResultPending is the TransferInstructionResult_Pending
// constructor's record.
type TransferInstructionResultPending struct {
	TransferInstructionCid daml.ContractID `daml:"transferInstructionCid"`
}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionResultPending) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstructionResult_Output.TransferInstructionResult_Pending")
}

// TransferInstructionResultCompleted is the
// TransferInstructionResult_Completed constructor's record.
type TransferInstructionResultCompleted struct {
	ReceiverHoldingCids []daml.ContractID `daml:"receiverHoldingCids"`
}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionResultCompleted) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstructionResult_Output.TransferInstructionResult_Completed")
}

// TransferInstructionStatus is
// Splice.Api.Token.TransferInstructionV1:TransferInstructionStatus.
type TransferInstructionStatus struct {
	TransferPendingReceiverAcceptance *daml.Unit                       `daml:"TransferPendingReceiverAcceptance"`
	TransferPendingInternalWorkflow   *TransferPendingInternalWorkflow `daml:"TransferPendingInternalWorkflow"`
}

// DamlVariant marks TransferInstructionStatus as a Daml variant.
func (TransferInstructionStatus) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionStatus) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstructionStatus")
}

// TransferPendingInternalWorkflow is the TransferPendingInternalWorkflow
// constructor's record.
type TransferPendingInternalWorkflow struct {
	PendingActions daml.Map[daml.Party, string] `daml:"pendingActions"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPendingInternalWorkflow) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstructionStatus.TransferPendingInternalWorkflow")
}

// TransferInstructionView is
// Splice.Api.Token.TransferInstructionV1:TransferInstructionView.
type TransferInstructionView struct {
	OriginalInstructionCid *daml.ContractID          `daml:"originalInstructionCid"`
	Transfer               TokenTransfer             `daml:"transfer"`
	Status                 TransferInstructionStatus `daml:"status"`
	Meta                   Metadata                  `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionView) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstructionView")
}

// TransferFactoryView is
// Splice.Api.Token.TransferInstructionV1:TransferFactoryView.
type TransferFactoryView struct {
	Admin daml.Party `daml:"admin"`
	Meta  Metadata   `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferFactoryView) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferFactoryView")
}

// TransferFactoryTransfer is the argument of TransferFactory_Transfer
// (nonconsuming, controller transfer.sender).
type TransferFactoryTransfer struct {
	ExpectedAdmin daml.Party    `daml:"expectedAdmin"`
	Transfer      TokenTransfer `daml:"transfer"`
	ExtraArgs     ExtraArgs     `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (TransferFactoryTransfer) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferFactory_Transfer")
}

// TransferFactoryPublicFetch is the argument of TransferFactory_PublicFetch
// (nonconsuming, controller actor).
type TransferFactoryPublicFetch struct {
	ExpectedAdmin daml.Party `daml:"expectedAdmin"`
	Actor         daml.Party `daml:"actor"`
}

// DamlIdentifier implements daml.Identified.
func (TransferFactoryPublicFetch) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferFactory_PublicFetch")
}

// TransferInstructionAccept is the argument of TransferInstruction_Accept
// (controller the receiver).
type TransferInstructionAccept struct {
	ExtraArgs ExtraArgs `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionAccept) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstruction_Accept")
}

// TransferInstructionReject is the argument of TransferInstruction_Reject
// (controller the receiver).
type TransferInstructionReject struct {
	ExtraArgs ExtraArgs `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionReject) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstruction_Reject")
}

// TransferInstructionWithdraw is the argument of
// TransferInstruction_Withdraw (controller the sender).
type TransferInstructionWithdraw struct {
	ExtraArgs ExtraArgs `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionWithdraw) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstruction_Withdraw")
}

// TransferInstructionUpdate is the argument of TransferInstruction_Update
// (controllers the instrument's admin and the extra actors).
type TransferInstructionUpdate struct {
	ExtraActors []daml.Party `daml:"extraActors"`
	ExtraArgs   ExtraArgs    `daml:"extraArgs"`
}

// DamlIdentifier implements daml.Identified.
func (TransferInstructionUpdate) DamlIdentifier() daml.Identifier {
	return transferInstrV1ID("TransferInstruction_Update")
}

// The choice-context keys Amulet reads (Splice.Amulet.TokenApiUtils).
const (
	ContextKeyExternalPartyConfigState = "external-party-config-state"
	ContextKeyFeaturedAppRight         = "featured-app-right"
	ContextKeyTransferPreapproval      = "transfer-preapproval"
	ContextKeyExpireLock               = "expire-lock"
)

// registerTokenStandard declares the V1 transfer-instruction interfaces'
// choices (Daml's interface choices, with their controllers given by the
// implementing templates' choices of the same names).
func registerTokenStandard(r *ledger.Registry) {
	ledger.AddInterfaceChoice[TransferFactoryTransfer, TransferInstructionResult](r, TransferFactoryInterface, "TransferFactory_Transfer", false)
	ledger.AddInterfaceChoice[TransferFactoryPublicFetch, TransferFactoryView](r, TransferFactoryInterface, "TransferFactory_PublicFetch", false)
	ledger.AddInterfaceChoice[TransferInstructionAccept, TransferInstructionResult](r, TransferInstructionInterface, "TransferInstruction_Accept", true)
	ledger.AddInterfaceChoice[TransferInstructionReject, TransferInstructionResult](r, TransferInstructionInterface, "TransferInstruction_Reject", true)
	ledger.AddInterfaceChoice[TransferInstructionWithdraw, TransferInstructionResult](r, TransferInstructionInterface, "TransferInstruction_Withdraw", true)
	ledger.AddInterfaceChoice[TransferInstructionUpdate, TransferInstructionResult](r, TransferInstructionInterface, "TransferInstruction_Update", true)
}

// lookupContext is Splice's lookupFromContextU: the value under key, if
// any, decoded by get (which reports whether the value has the right
// kind; want names the kind for the failure).
func lookupContext[T any](ctx ChoiceContext, key, want string, get func(AnyValue) (T, bool)) (*T, error) {
	v, ok := ctx.Values[key]
	if !ok {
		return nil, nil
	}
	out, ok := get(v)
	if !ok {
		return nil, abort("Failed to decode context value for '" + key + "': expected " + want + ", got: " + v.show())
	}
	return &out, nil
}

// lookupContextCid looks a contract id up in a choice context.
func lookupContextCid(ctx ChoiceContext, key string) (*daml.ContractID, error) {
	return lookupContext(ctx, key, "contract id", func(v AnyValue) (daml.ContractID, bool) {
		if v.AVContractID == nil {
			return "", false
		}
		return *v.AVContractID, true
	})
}

// getContextCid is Splice's getFromContextU for a contract id: the key
// must be present.
func getContextCid(ctx ChoiceContext, key string) (daml.ContractID, error) {
	cid, err := lookupContextCid(ctx, key)
	if err != nil {
		return "", err
	}
	if cid == nil {
		return "", abort("Missing context entry for: " + key)
	}
	return *cid, nil
}

// lookupContextBool looks a Bool up in a choice context.
func lookupContextBool(ctx ChoiceContext, key string) (*bool, error) {
	return lookupContext(ctx, key, "bool", func(v AnyValue) (bool, bool) {
		if v.AVBool == nil {
			return false, false
		}
		return *v.AVBool, true
	})
}
