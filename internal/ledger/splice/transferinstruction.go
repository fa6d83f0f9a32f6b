package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

const moduleAmuletTransferInstruction = "Splice.AmuletTransferInstruction"

// AmuletTransferInstruction is
// Splice.AmuletTransferInstruction:AmuletTransferInstruction: a transfer
// offered to the receiver, its amount locked (to the DSO, until the
// transfer's executeBefore) in lockedAmulet. It implements the token
// standard's TransferInstruction.
type AmuletTransferInstruction struct {
	LockedAmulet daml.ContractID `daml:"lockedAmulet"`
	Transfer     TokenTransfer   `daml:"transfer"`
}

// TemplateID implements ledger.Template.
func (AmuletTransferInstruction) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmuletTransferInstruction, "AmuletTransferInstruction")
}

// DamlIdentifier implements daml.Identified.
func (i AmuletTransferInstruction) DamlIdentifier() daml.Identifier { return i.TemplateID().Identifier }

// Signatories implements ledger.Template: the instrument's admin (the
// DSO) and the sender.
func (i AmuletTransferInstruction) Signatories() []daml.Party {
	return []daml.Party{i.Transfer.InstrumentID.Admin, i.Transfer.Sender}
}

// Observers implements ledger.Template: the receiver.
func (i AmuletTransferInstruction) Observers() []daml.Party { return []daml.Party{i.Transfer.Receiver} }

// AmuletTransferInstructionView is the TransferInstruction view of an
// AmuletTransferInstruction: pending the receiver's acceptance.
func AmuletTransferInstructionView(i AmuletTransferInstruction) TransferInstructionView {
	return TransferInstructionView{
		Transfer: i.Transfer,
		Status:   TransferInstructionStatus{TransferPendingReceiverAcceptance: &daml.Unit{}},
		Meta:     emptyMetadata(),
	}
}

// abortTransferInstruction is Splice's abortAmuletTransferInstruction.
func abortTransferInstruction(tx *ledger.Tx, i AmuletTransferInstruction, extra ExtraArgs) (TransferInstructionResult, error) {
	change, err := abortTwoStepTransfer(tx, i.Transfer.ExecuteBefore, i.LockedAmulet, extra)
	if err != nil {
		return TransferInstructionResult{}, err
	}
	return TransferInstructionResult{
		Output:           TransferInstructionResultOutput{Failed: &daml.Unit{}},
		SenderChangeCids: change,
		Meta:             emptyMetadata(),
	}, nil
}

// AmuletRulesExpireTransferInstructionInput is
// Splice.AmuletRules:AmuletRules_ExpireTransferInstructionInput.
type AmuletRulesExpireTransferInstructionInput struct {
	TransferInstructionCid daml.ContractID `daml:"transferInstructionCid"`
	ExpireLock             bool            `daml:"expireLock"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesExpireTransferInstructionInput) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_ExpireTransferInstructionInput")
}

// AmuletRulesAmuletExpireTransferInstructions is the argument of
// AmuletRules_Amulet_ExpireTransferInstructions.
type AmuletRulesAmuletExpireTransferInstructions struct {
	ExpectedDso daml.Party                                  `daml:"expectedDso"`
	Inputs      []AmuletRulesExpireTransferInstructionInput `daml:"inputs"`
	Observers   []daml.Party                                `daml:"observers"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesAmuletExpireTransferInstructions) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_Amulet_ExpireTransferInstructions")
}

// AmuletRulesAmuletExpireTransferInstructionsResult is the choice's result.
type AmuletRulesAmuletExpireTransferInstructionsResult struct {
	Results []TransferInstructionResult `daml:"results"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesAmuletExpireTransferInstructionsResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_Amulet_ExpireTransferInstructionsResult")
}

func registerTransferInstruction(r *ledger.Registry) {
	ledger.RegisterTemplate[AmuletTransferInstruction](r, TransferInstructionInterface)
	ledger.AddInterfaceView(r, TransferInstructionInterface, func(i AmuletTransferInstruction) (TransferInstructionView, error) {
		return AmuletTransferInstructionView(i), nil
	})
	ledger.AddChoice(r, "TransferInstruction_Accept", true,
		func(i AmuletTransferInstruction, _ TransferInstructionAccept) []daml.Party {
			return []daml.Party{i.Transfer.Receiver}
		},
		func(tx *ledger.Tx, _ daml.ContractID, i AmuletTransferInstruction, arg TransferInstructionAccept) (TransferInstructionResult, error) {
			change, received, meta, err := executeTwoStepTransfer(tx, twoStepTransferOf(i.Transfer), i.LockedAmulet, i.Transfer.Meta, arg.ExtraArgs)
			if err != nil {
				return TransferInstructionResult{}, err
			}
			return TransferInstructionResult{
				Output:           TransferInstructionResultOutput{Completed: &TransferInstructionResultCompleted{ReceiverHoldingCids: received}},
				SenderChangeCids: change,
				Meta:             meta,
			}, nil
		})
	ledger.AddChoice(r, "TransferInstruction_Reject", true,
		func(i AmuletTransferInstruction, _ TransferInstructionReject) []daml.Party {
			return []daml.Party{i.Transfer.Receiver}
		},
		func(tx *ledger.Tx, _ daml.ContractID, i AmuletTransferInstruction, arg TransferInstructionReject) (TransferInstructionResult, error) {
			return abortTransferInstruction(tx, i, arg.ExtraArgs)
		})
	ledger.AddChoice(r, "TransferInstruction_Withdraw", true,
		func(i AmuletTransferInstruction, _ TransferInstructionWithdraw) []daml.Party {
			return []daml.Party{i.Transfer.Sender}
		},
		func(tx *ledger.Tx, _ daml.ContractID, i AmuletTransferInstruction, arg TransferInstructionWithdraw) (TransferInstructionResult, error) {
			return abortTransferInstruction(tx, i, arg.ExtraArgs)
		})
	ledger.AddChoice(r, "TransferInstruction_Update", true,
		func(i AmuletTransferInstruction, arg TransferInstructionUpdate) []daml.Party {
			return append([]daml.Party{i.Transfer.InstrumentID.Admin}, arg.ExtraActors...)
		},
		func(tx *ledger.Tx, _ daml.ContractID, i AmuletTransferInstruction, arg TransferInstructionUpdate) (TransferInstructionResult, error) {
			if err := require(tx, "No extra actors on transfer expiry", len(arg.ExtraActors) == 0); err != nil {
				return TransferInstructionResult{}, err
			}
			if err := assertDeadlineExceeded(tx, "Transfer.executeBefore", i.Transfer.ExecuteBefore); err != nil {
				return TransferInstructionResult{}, err
			}
			return abortTransferInstruction(tx, i, arg.ExtraArgs)
		})

	ledger.AddChoice(r, "AmuletRules_Amulet_ExpireTransferInstructions", false,
		func(rules AmuletRules, _ AmuletRulesAmuletExpireTransferInstructions) []daml.Party {
			return []daml.Party{rules.DSO}
		},
		expireTransferInstructions)
}

// expireTransferInstructions is AmuletRules_Amulet_ExpireTransferInstructions:
// the DSO expires transfer instructions of its instrument through
// TransferInstruction_Update.
func expireTransferInstructions(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesAmuletExpireTransferInstructions) (AmuletRulesAmuletExpireTransferInstructionsResult, error) {
	var none AmuletRulesAmuletExpireTransferInstructionsResult
	dso := rules.DSO
	if err := require(tx, "The expectedDso must match the AmuletDso", dso == arg.ExpectedDso); err != nil {
		return none, err
	}
	results := make([]TransferInstructionResult, 0, len(arg.Inputs))
	for _, in := range arg.Inputs {
		_, v, err := ledger.FetchInterface(tx, in.TransferInstructionCid, TransferInstructionInterface)
		if err != nil {
			return none, err
		}
		view := v.(TransferInstructionView)
		admin := view.Transfer.InstrumentID.Admin
		if err := checkGroup(in.TransferInstructionCid, forDso{dso}, forDso{admin}); err != nil {
			return none, err
		}
		if err := require(tx, "The controller must be the admin of the transfer instruction's instrument", admin == dso); err != nil {
			return none, err
		}
		res, err := ledger.ExerciseInterface[TransferInstructionResult](tx, in.TransferInstructionCid, TransferInstructionInterface,
			"TransferInstruction_Update", TransferInstructionUpdate{ExtraActors: []daml.Party{}, ExtraArgs: expireLockExtraArgs(in.ExpireLock)})
		if err != nil {
			return none, err
		}
		results = append(results, res)
	}
	return AmuletRulesAmuletExpireTransferInstructionsResult{Results: results}, nil
}
