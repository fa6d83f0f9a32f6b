package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Splice's legacy flow for external parties, from before the token
// standard allowed a day between signing and execution:
//
//   - a validator proposes to host an external party
//     (AmuletRules_CreateExternalPartySetupProposal, paying the
//     pre-approval's fee up front), and the party accepts by signing
//     ExternalPartySetupProposal_Accept, which creates its ValidatorRight
//     and a TransferPreapproval the validator provides;
//   - to send amulet, the party signs a TransferCommand
//     (ExternalPartyAmuletRules_CreateTransferCommand) naming a delegate
//     (its validator), a receiver with a pre-approval, an amount and a
//     nonce; the delegate's automation later exercises TransferCommand_Send,
//     which spends the nonce of the sender's TransferCommandCounter
//     whatever the outcome, and transfers through the receiver's
//     pre-approval. The DSO creates a sender's counter the first time it
//     sees a command of that sender (DsoRules_CreateTransferCommandCounter).

// ExternalPartySetupProposal is Splice.AmuletRules:ExternalPartySetupProposal:
// a validator's offer to host user, whose pre-approval it has already paid
// for.
type ExternalPartySetupProposal struct {
	Validator            daml.Party     `daml:"validator"`
	User                 daml.Party     `daml:"user"`
	DSO                  daml.Party     `daml:"dso"`
	CreatedAt            daml.Timestamp `daml:"createdAt"`
	PreapprovalExpiresAt daml.Timestamp `daml:"preapprovalExpiresAt"`
}

// TemplateID implements ledger.Template.
func (ExternalPartySetupProposal) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmuletRules, "ExternalPartySetupProposal")
}

// DamlIdentifier implements daml.Identified.
func (p ExternalPartySetupProposal) DamlIdentifier() daml.Identifier {
	return p.TemplateID().Identifier
}

// Signatories implements ledger.Template: the validator and the DSO.
func (p ExternalPartySetupProposal) Signatories() []daml.Party {
	return []daml.Party{p.Validator, p.DSO}
}

// Observers implements ledger.Template: the user.
func (p ExternalPartySetupProposal) Observers() []daml.Party { return []daml.Party{p.User} }

// Ensure implements ledger.Template: the template has no ensure clause.
func (ExternalPartySetupProposal) Ensure() error { return nil }

func (p ExternalPartySetupProposal) dsoParty() daml.Party { return p.DSO }

// AmuletRulesCreateExternalPartySetupProposal is the argument of
// AmuletRules_CreateExternalPartySetupProposal.
type AmuletRulesCreateExternalPartySetupProposal struct {
	Context PaymentTransferContext `daml:"context"`
	// Inputs pay the pre-approval's fee, charged only beyond the
	// configuration's transferPreapprovalBaseDuration.
	Inputs               []TransferInput `daml:"inputs"`
	User                 daml.Party      `daml:"user"`
	Validator            daml.Party      `daml:"validator"`
	PreapprovalExpiresAt daml.Timestamp  `daml:"preapprovalExpiresAt"`
	ExpectedDso          *daml.Party     `daml:"expectedDso"`
	OptCreatedAt         *daml.Timestamp `daml:"optCreatedAt"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesCreateExternalPartySetupProposal) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_CreateExternalPartySetupProposal")
}

// AmuletRulesCreateExternalPartySetupProposalResult is the choice's result.
type AmuletRulesCreateExternalPartySetupProposalResult struct {
	ProposalCid    daml.ContractID `daml:"proposalCid"`
	User           daml.Party      `daml:"user"`
	Validator      daml.Party      `daml:"validator"`
	TransferResult TransferResult  `daml:"transferResult"`
	AmuletPaid     daml.Numeric    `daml:"amuletPaid"`
	Meta           *Metadata       `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesCreateExternalPartySetupProposalResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_CreateExternalPartySetupProposalResult")
}

// ExternalPartySetupProposalAccept is the (empty) argument of
// ExternalPartySetupProposal_Accept.
type ExternalPartySetupProposalAccept struct{}

// DamlIdentifier implements daml.Identified.
func (ExternalPartySetupProposalAccept) DamlIdentifier() daml.Identifier {
	return amuletRulesID("ExternalPartySetupProposal_Accept")
}

// ExternalPartySetupProposalAcceptResult is the choice's result.
type ExternalPartySetupProposalAcceptResult struct {
	ValidatorRightCid      daml.ContractID `daml:"validatorRightCid"`
	TransferPreapprovalCid daml.ContractID `daml:"transferPreapprovalCid"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartySetupProposalAcceptResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("ExternalPartySetupProposal_AcceptResult")
}

// ExternalPartySetupProposalReject is the argument of
// ExternalPartySetupProposal_Reject.
type ExternalPartySetupProposalReject struct {
	Reason string `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartySetupProposalReject) DamlIdentifier() daml.Identifier {
	return amuletRulesID("ExternalPartySetupProposal_Reject")
}

// ExternalPartySetupProposalWithdraw is the argument of
// ExternalPartySetupProposal_Withdraw.
type ExternalPartySetupProposalWithdraw struct {
	Reason string `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartySetupProposalWithdraw) DamlIdentifier() daml.Identifier {
	return amuletRulesID("ExternalPartySetupProposal_Withdraw")
}

// ExternalPartySetupProposalRejectResult is ExternalPartySetupProposal_Reject's
// result, a record with a unit field so that it can be upgraded.
type ExternalPartySetupProposalRejectResult struct {
	DummyArg daml.Unit `daml:"dummyArg"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartySetupProposalRejectResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("ExternalPartySetupProposal_RejectResult")
}

// ExternalPartySetupProposalWithdrawResult is
// ExternalPartySetupProposal_Withdraw's result.
type ExternalPartySetupProposalWithdrawResult struct {
	DummyArg daml.Unit `daml:"dummyArg"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartySetupProposalWithdrawResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("ExternalPartySetupProposal_WithdrawResult")
}

// TransferCommandCounter is
// Splice.ExternalPartyAmuletRules:TransferCommandCounter: the next nonce
// of a sender's transfer commands, which counts the commands the delegate
// has completed, sent or failed.
type TransferCommandCounter struct {
	DSO       daml.Party `daml:"dso"`
	Sender    daml.Party `daml:"sender"`
	NextNonce int64      `daml:"nextNonce"`
}

// TemplateID implements ledger.Template.
func (TransferCommandCounter) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleExternalPartyAmuletRules, "TransferCommandCounter")
}

// DamlIdentifier implements daml.Identified.
func (c TransferCommandCounter) DamlIdentifier() daml.Identifier { return c.TemplateID().Identifier }

// Signatories implements ledger.Template: the DSO.
func (c TransferCommandCounter) Signatories() []daml.Party { return []daml.Party{c.DSO} }

// Observers implements ledger.Template: the sender.
func (c TransferCommandCounter) Observers() []daml.Party { return []daml.Party{c.Sender} }

// Ensure implements ledger.Template: the template has no ensure clause.
func (TransferCommandCounter) Ensure() error { return nil }

// TransferCommand is Splice.ExternalPartyAmuletRules:TransferCommand, a
// sender's one-time delegation of a transfer to a pre-approved receiver.
// The DSO signs too, so that the SVs see the sender's signature.
type TransferCommand struct {
	DSO      daml.Party `daml:"dso"`
	Sender   daml.Party `daml:"sender"`
	Receiver daml.Party `daml:"receiver"`
	// Delegate executes the transfer.
	Delegate daml.Party   `daml:"delegate"`
	Amount   daml.Numeric `daml:"amount"`
	// ExpiresAt is when TransferCommand_Send must have run by.
	ExpiresAt daml.Timestamp `daml:"expiresAt"`
	// Nonce orders and deduplicates the sender's commands: it must equal
	// the counter's nextNonce when the command is sent.
	Nonce       int64   `daml:"nonce"`
	Description *string `daml:"description"`
}

// TemplateID implements ledger.Template.
func (TransferCommand) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleExternalPartyAmuletRules, "TransferCommand")
}

// DamlIdentifier implements daml.Identified.
func (c TransferCommand) DamlIdentifier() daml.Identifier { return c.TemplateID().Identifier }

// Signatories implements ledger.Template: the sender and the DSO.
func (c TransferCommand) Signatories() []daml.Party { return []daml.Party{c.Sender, c.DSO} }

// Observers implements ledger.Template: the delegate.
func (c TransferCommand) Observers() []daml.Party { return []daml.Party{c.Delegate} }

// Ensure implements ledger.Template: the template has no ensure clause.
func (TransferCommand) Ensure() error { return nil }

func (c TransferCommand) dsoParty() daml.Party { return c.DSO }

// ExternalPartyAmuletRulesCreateTransferCommand is the argument of
// ExternalPartyAmuletRules_CreateTransferCommand.
type ExternalPartyAmuletRulesCreateTransferCommand struct {
	Sender      daml.Party     `daml:"sender"`
	Receiver    daml.Party     `daml:"receiver"`
	Delegate    daml.Party     `daml:"delegate"`
	Amount      daml.Numeric   `daml:"amount"`
	ExpiresAt   daml.Timestamp `daml:"expiresAt"`
	Nonce       int64          `daml:"nonce"`
	Description *string        `daml:"description"`
	ExpectedDso *daml.Party    `daml:"expectedDso"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartyAmuletRulesCreateTransferCommand) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "ExternalPartyAmuletRules_CreateTransferCommand")
}

// ExternalPartyAmuletRulesCreateTransferCommandResult is the choice's
// result.
type ExternalPartyAmuletRulesCreateTransferCommandResult struct {
	TransferCommandCid daml.ContractID `daml:"transferCommandCid"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartyAmuletRulesCreateTransferCommandResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "ExternalPartyAmuletRules_CreateTransferCommandResult")
}

// InvalidTransferReason is Splice.AmuletRules:InvalidTransferReason.
type InvalidTransferReason struct {
	ITRInsufficientFunds       *ITRInsufficientFunds       `daml:"ITR_InsufficientFunds"`
	ITRUnknownSynchronizer     *ITRUnknownSynchronizer     `daml:"ITR_UnknownSynchronizer"`
	ITRInsufficientTopupAmount *ITRInsufficientTopupAmount `daml:"ITR_InsufficientTopupAmount"`
	ITROther                   *ITROther                   `daml:"ITR_Other"`
	ExtInvalidTransferReason   *ExtInvalidTransferReason   `daml:"ExtInvalidTransferReason"`
}

// DamlVariant marks InvalidTransferReason as a Daml variant.
func (InvalidTransferReason) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (InvalidTransferReason) DamlIdentifier() daml.Identifier {
	return amuletRulesID("InvalidTransferReason")
}

// String is the reason as Splice's Java bindings print it (Scan reports a
// failed transfer command's reason so), for the reasons sandnet produces.
func (r InvalidTransferReason) String() string {
	switch {
	case r.ITROther != nil:
		return "ITR_Other(" + r.ITROther.Description + ")"
	case r.ITRInsufficientFunds != nil:
		return "ITR_InsufficientFunds(" + r.ITRInsufficientFunds.MissingAmount.String() + ")"
	case r.ITRUnknownSynchronizer != nil:
		return "ITR_UnknownSynchronizer(" + r.ITRUnknownSynchronizer.SynchronizerID + ")"
	}
	return "InvalidTransferReason"
}

// ITRInsufficientFunds is InvalidTransferReason's ITR_InsufficientFunds.
type ITRInsufficientFunds struct {
	MissingAmount daml.Numeric `daml:"missingAmount"`
}

// DamlIdentifier implements daml.Identified.
func (ITRInsufficientFunds) DamlIdentifier() daml.Identifier {
	return amuletRulesID("InvalidTransferReason.ITR_InsufficientFunds")
}

// ITRUnknownSynchronizer is InvalidTransferReason's ITR_UnknownSynchronizer.
type ITRUnknownSynchronizer struct {
	SynchronizerID string `daml:"synchronizerId"`
}

// DamlIdentifier implements daml.Identified.
func (ITRUnknownSynchronizer) DamlIdentifier() daml.Identifier {
	return amuletRulesID("InvalidTransferReason.ITR_UnknownSynchronizer")
}

// ITRInsufficientTopupAmount is InvalidTransferReason's
// ITR_InsufficientTopupAmount.
type ITRInsufficientTopupAmount struct {
	RequestedTopupAmount int64 `daml:"requestedTopupAmount"`
	MinTopupAmount       int64 `daml:"minTopupAmount"`
}

// DamlIdentifier implements daml.Identified.
func (ITRInsufficientTopupAmount) DamlIdentifier() daml.Identifier {
	return amuletRulesID("InvalidTransferReason.ITR_InsufficientTopupAmount")
}

// ITROther is InvalidTransferReason's ITR_Other.
type ITROther struct {
	Description string `daml:"description"`
}

// DamlIdentifier implements daml.Identified.
func (ITROther) DamlIdentifier() daml.Identifier {
	return amuletRulesID("InvalidTransferReason.ITR_Other")
}

// ExtInvalidTransferReason is InvalidTransferReason's extension
// constructor.
type ExtInvalidTransferReason struct {
	DummyUnitField daml.Unit `daml:"dummyUnitField"`
}

// DamlIdentifier implements daml.Identified.
func (ExtInvalidTransferReason) DamlIdentifier() daml.Identifier {
	return amuletRulesID("InvalidTransferReason.ExtInvalidTransferReason")
}

// TransferCommandResult is
// Splice.ExternalPartyAmuletRules:TransferCommandResult: the transfer, or
// why it was not made.
type TransferCommandResult struct {
	TransferCommandResultFailure *TransferCommandResultFailure `daml:"TransferCommandResultFailure"`
	TransferCommandResultSuccess *TransferCommandResultSuccess `daml:"TransferCommandResultSuccess"`
}

// DamlVariant marks TransferCommandResult as a Daml variant.
func (TransferCommandResult) DamlVariant() {}

// DamlIdentifier implements daml.Identified.
func (TransferCommandResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommandResult")
}

// TransferCommandResultFailure is TransferCommandResult's failure.
type TransferCommandResultFailure struct {
	Reason InvalidTransferReason `daml:"reason"`
}

// DamlIdentifier implements daml.Identified.
func (TransferCommandResultFailure) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommandResult.TransferCommandResultFailure")
}

// TransferCommandResultSuccess is TransferCommandResult's success.
type TransferCommandResultSuccess struct {
	Result TransferResult `daml:"result"`
}

// DamlIdentifier implements daml.Identified.
func (TransferCommandResultSuccess) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommandResult.TransferCommandResultSuccess")
}

// TransferCommandSend is the argument of TransferCommand_Send.
type TransferCommandSend struct {
	Context PaymentTransferContext `daml:"context"`
	// Inputs are the sender's, picked by the delegate to cover the
	// amount.
	Inputs []TransferInput `daml:"inputs"`
	// TransferPreapprovalCidO is the receiver's pre-approval, None when
	// the receiver has none (the command then fails).
	TransferPreapprovalCidO *daml.ContractID `daml:"transferPreapprovalCidO"`
	TransferCounterCid      daml.ContractID  `daml:"transferCounterCid"`
}

// DamlIdentifier implements daml.Identified.
func (TransferCommandSend) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommand_Send")
}

// TransferCommandSendResult is TransferCommand_Send's result.
type TransferCommandSendResult struct {
	Result TransferCommandResult `daml:"result"`
	Sender daml.Party            `daml:"sender"`
	Nonce  int64                 `daml:"nonce"`
}

// DamlIdentifier implements daml.Identified.
func (TransferCommandSendResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommand_SendResult")
}

// TransferCommandWithdraw is the (empty) argument of
// TransferCommand_Withdraw.
type TransferCommandWithdraw struct{}

// DamlIdentifier implements daml.Identified.
func (TransferCommandWithdraw) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommand_Withdraw")
}

// TransferCommandWithdrawResult is TransferCommand_Withdraw's result.
type TransferCommandWithdrawResult struct {
	Sender daml.Party `daml:"sender"`
	Nonce  int64      `daml:"nonce"`
}

// DamlIdentifier implements daml.Identified.
func (TransferCommandWithdrawResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommand_WithdrawResult")
}

// TransferCommandExpire is the argument of TransferCommand_Expire.
type TransferCommandExpire struct {
	P daml.Party `daml:"p"`
}

// DamlIdentifier implements daml.Identified.
func (TransferCommandExpire) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommand_Expire")
}

// TransferCommandExpireResult is TransferCommand_Expire's result.
type TransferCommandExpireResult struct {
	Sender daml.Party `daml:"sender"`
	Nonce  int64      `daml:"nonce"`
}

// DamlIdentifier implements daml.Identified.
func (TransferCommandExpireResult) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier(moduleExternalPartyAmuletRules, "TransferCommand_ExpireResult")
}

// DsoRulesCreateTransferCommandCounterResult is the result of
// DsoRules_CreateTransferCommandCounter.
type DsoRulesCreateTransferCommandCounterResult struct {
	TransferCommandCounterCid daml.ContractID `daml:"transferCommandCounterCid"`
}

// DamlIdentifier implements daml.Identified.
func (DsoRulesCreateTransferCommandCounterResult) DamlIdentifier() daml.Identifier {
	return PackageDsoGovernance.Identifier(moduleDsoRules, "DsoRules_CreateTransferCommandCounterResult")
}

// counterOwner is the ForOwner group of a TransferCommandCounter.
func counterOwner(c TransferCommandCounter) forOwner { return forOwner{c.DSO, c.Sender} }

// preapprovalOwner is the ForOwner group of a TransferPreapproval.
func preapprovalOwner(p TransferPreapproval) forOwner { return forOwner{p.DSO, p.Receiver} }

// transferCommandFailure is a TransferCommand_Send outcome that spends the
// nonce without transferring anything.
func transferCommandFailure(c TransferCommand, description string) TransferCommandSendResult {
	return TransferCommandSendResult{
		Result: TransferCommandResult{TransferCommandResultFailure: &TransferCommandResultFailure{
			Reason: InvalidTransferReason{ITROther: &ITROther{Description: description}},
		}},
		Sender: c.Sender, Nonce: c.Nonce,
	}
}

func registerTransferCommands(r *ledger.Registry) {
	ledger.RegisterTemplate[ExternalPartySetupProposal](r)
	ledger.AddChoice(r, "AmuletRules_CreateExternalPartySetupProposal", false,
		func(_ AmuletRules, arg AmuletRulesCreateExternalPartySetupProposal) []daml.Party {
			return []daml.Party{arg.Validator}
		},
		createExternalPartySetupProposal)
	ledger.AddChoice(r, "ExternalPartySetupProposal_Accept", true,
		func(p ExternalPartySetupProposal, _ ExternalPartySetupProposalAccept) []daml.Party {
			return []daml.Party{p.User}
		},
		acceptExternalPartySetupProposal)
	ledger.AddChoice(r, "ExternalPartySetupProposal_Reject", true,
		func(p ExternalPartySetupProposal, _ ExternalPartySetupProposalReject) []daml.Party {
			return []daml.Party{p.User}
		},
		func(*ledger.Tx, daml.ContractID, ExternalPartySetupProposal, ExternalPartySetupProposalReject) (ExternalPartySetupProposalRejectResult, error) {
			return ExternalPartySetupProposalRejectResult{}, nil
		})
	ledger.AddChoice(r, "ExternalPartySetupProposal_Withdraw", true,
		func(p ExternalPartySetupProposal, _ ExternalPartySetupProposalWithdraw) []daml.Party {
			return []daml.Party{p.Validator}
		},
		func(*ledger.Tx, daml.ContractID, ExternalPartySetupProposal, ExternalPartySetupProposalWithdraw) (ExternalPartySetupProposalWithdrawResult, error) {
			return ExternalPartySetupProposalWithdrawResult{}, nil
		})

	ledger.RegisterTemplate[TransferCommandCounter](r)
	ledger.RegisterTemplate[TransferCommand](r)
	ledger.AddChoice(r, "ExternalPartyAmuletRules_CreateTransferCommand", false,
		func(_ ExternalPartyAmuletRules, arg ExternalPartyAmuletRulesCreateTransferCommand) []daml.Party {
			return []daml.Party{arg.Sender}
		},
		createTransferCommand)
	ledger.AddChoice(r, "TransferCommand_Send", true,
		func(c TransferCommand, _ TransferCommandSend) []daml.Party { return []daml.Party{c.Delegate} },
		sendTransferCommand)
	ledger.AddChoice(r, "TransferCommand_Withdraw", true,
		func(c TransferCommand, _ TransferCommandWithdraw) []daml.Party { return []daml.Party{c.Sender} },
		func(_ *ledger.Tx, _ daml.ContractID, c TransferCommand, _ TransferCommandWithdraw) (TransferCommandWithdrawResult, error) {
			return TransferCommandWithdrawResult{Sender: c.Sender, Nonce: c.Nonce}, nil
		})
	ledger.AddChoice(r, "TransferCommand_Expire", true,
		func(_ TransferCommand, arg TransferCommandExpire) []daml.Party { return []daml.Party{arg.P} },
		func(tx *ledger.Tx, _ daml.ContractID, c TransferCommand, arg TransferCommandExpire) (TransferCommandExpireResult, error) {
			var none TransferCommandExpireResult
			stakeholder := arg.P == c.Sender || arg.P == c.DSO || arg.P == c.Delegate
			if err := require(tx, "Controller is a stakeholder", stakeholder); err != nil {
				return none, err
			}
			if err := assertDeadlineExceeded(tx, "TransferCommand.expiresAt", c.ExpiresAt); err != nil {
				return none, err
			}
			return TransferCommandExpireResult{Sender: c.Sender, Nonce: c.Nonce}, nil
		})

	ledger.AddChoice(r, "DsoRules_CreateTransferCommandCounter", false,
		func(d DsoRules, _ DsoRulesCreateTransferCommandCounter) []daml.Party { return []daml.Party{d.DSO} },
		func(tx *ledger.Tx, _ daml.ContractID, d DsoRules, arg DsoRulesCreateTransferCommandCounter) (DsoRulesCreateTransferCommandCounterResult, error) {
			cid, err := ledger.Create(tx, TransferCommandCounter{DSO: d.DSO, Sender: arg.Sender, NextNonce: 0})
			return DsoRulesCreateTransferCommandCounterResult{TransferCommandCounterCid: cid}, err
		})
}

// createExternalPartySetupProposal is
// AmuletRules_CreateExternalPartySetupProposal: the validator pays for the
// user's pre-approval now (nothing within the free base duration), and
// the proposal records the period paid for.
func createExternalPartySetupProposal(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesCreateExternalPartySetupProposal) (AmuletRulesCreateExternalPartySetupProposalResult, error) {
	var none AmuletRulesCreateExternalPartySetupProposalResult
	if err := checkExpectedDso(rules.DSO, arg.ExpectedDso); err != nil {
		return none, err
	}
	createdAt, err := getAndValidateCreatedAt(tx, arg.OptCreatedAt)
	if err != nil {
		return none, err
	}
	if err := assertWithinDeadline(tx, "preapprovalExpiresAt", arg.PreapprovalExpiresAt); err != nil {
		return none, err
	}
	paid, result, meta, err := payForTransferPreapproval(tx, "create ExternalPartySetupProposal", rules.DSO, arg.Validator,
		arg.Context, arg.Inputs, createdAt, arg.PreapprovalExpiresAt)
	if err != nil {
		return none, err
	}
	cid, err := ledger.Create(tx, ExternalPartySetupProposal{
		Validator: arg.Validator, User: arg.User, DSO: rules.DSO,
		CreatedAt: createdAt, PreapprovalExpiresAt: arg.PreapprovalExpiresAt,
	})
	if err != nil {
		return none, err
	}
	return AmuletRulesCreateExternalPartySetupProposalResult{
		ProposalCid: cid, User: arg.User, Validator: arg.Validator,
		TransferResult: result, AmuletPaid: paid, Meta: meta,
	}, nil
}

// acceptExternalPartySetupProposal is ExternalPartySetupProposal_Accept:
// the user's ValidatorRight for the validator, and the pre-approval the
// proposal paid for, valid from the proposal's creation.
func acceptExternalPartySetupProposal(tx *ledger.Tx, _ daml.ContractID, p ExternalPartySetupProposal, _ ExternalPartySetupProposalAccept) (ExternalPartySetupProposalAcceptResult, error) {
	var none ExternalPartySetupProposalAcceptResult
	if err := assertWithinDeadline(tx, "ExternalPartySetupProposal.preapprovalExpiresAt", p.PreapprovalExpiresAt); err != nil {
		return none, err
	}
	right, err := ledger.Create(tx, ValidatorRight{DSO: p.DSO, Validator: p.Validator, User: p.User})
	if err != nil {
		return none, err
	}
	preapproval, err := ledger.Create(tx, TransferPreapproval{
		DSO: p.DSO, Receiver: p.User, Provider: p.Validator,
		ValidFrom: p.CreatedAt, LastRenewedAt: p.CreatedAt, ExpiresAt: p.PreapprovalExpiresAt,
	})
	if err != nil {
		return none, err
	}
	return ExternalPartySetupProposalAcceptResult{ValidatorRightCid: right, TransferPreapprovalCid: preapproval}, nil
}

// createTransferCommand is ExternalPartyAmuletRules_CreateTransferCommand.
// Nothing but the submission's traffic guards it; the nonce is checked
// only when the command is sent.
func createTransferCommand(tx *ledger.Tx, _ daml.ContractID, rules ExternalPartyAmuletRules, arg ExternalPartyAmuletRulesCreateTransferCommand) (ExternalPartyAmuletRulesCreateTransferCommandResult, error) {
	var none ExternalPartyAmuletRulesCreateTransferCommandResult
	if err := checkExpectedDso(rules.DSO, arg.ExpectedDso); err != nil {
		return none, err
	}
	if err := assertWithinDeadline(tx, "ExternalPartyAmuletRules_CreateTransferCommand.expiresAt", arg.ExpiresAt); err != nil {
		return none, err
	}
	cid, err := ledger.Create(tx, TransferCommand{
		DSO: rules.DSO, Sender: arg.Sender, Receiver: arg.Receiver, Delegate: arg.Delegate,
		Amount: arg.Amount, ExpiresAt: arg.ExpiresAt, Nonce: arg.Nonce, Description: arg.Description,
	})
	return ExternalPartyAmuletRulesCreateTransferCommandResult{TransferCommandCid: cid}, err
}

// sendTransferCommand is TransferCommand_Send. A nonce below the counter's
// (a command superseded) fails and archives the command; one above it
// aborts, leaving the command for a later try. Otherwise the nonce is
// spent whatever happens next, so that commands run promptly in order:
// without a pre-approval the command fails, with one the amount goes
// through it (TransferPreapproval_Send), and a failing transfer aborts the
// whole transaction.
func sendTransferCommand(tx *ledger.Tx, _ daml.ContractID, c TransferCommand, arg TransferCommandSend) (TransferCommandSendResult, error) {
	var none TransferCommandSendResult
	counter, err := fetchChecked(tx, forOwner{c.DSO, c.Sender}, arg.TransferCounterCid, counterOwner)
	if err != nil {
		return none, err
	}
	switch {
	case counter.NextNonce > c.Nonce:
		return transferCommandFailure(c, "Expected nonce "+itoa(c.Nonce)+" is smaller than current counter "+itoa(counter.NextNonce)), nil
	case counter.NextNonce < c.Nonce:
		return none, abort("Expected nonce " + itoa(c.Nonce) + " is bigger than current counter " + itoa(counter.NextNonce))
	}
	if err := tx.Archive(arg.TransferCounterCid); err != nil {
		return none, err
	}
	bumped := counter
	bumped.NextNonce++
	if _, err := ledger.Create(tx, bumped); err != nil {
		return none, err
	}
	if arg.TransferPreapprovalCidO == nil {
		// Daml cannot check that the receiver has no pre-approval: the
		// delegate is trusted to say so.
		return transferCommandFailure(c, "No TransferPreapproval for receiver "+showParty(c.Receiver)), nil
	}
	preapproval := *arg.TransferPreapprovalCidO
	if _, err := fetchChecked(tx, forOwner{c.DSO, c.Receiver}, preapproval, preapprovalOwner); err != nil {
		return none, err
	}
	if err := assertWithinDeadline(tx, "TransferCommand.expiresAt", c.ExpiresAt); err != nil {
		return none, err
	}
	sent, err := ledger.Exercise[TransferPreapprovalSendResult](tx, preapproval, "TransferPreapproval_Send", TransferPreapprovalSend{
		Context: arg.Context, Inputs: arg.Inputs, Amount: c.Amount, Sender: c.Sender, Description: c.Description,
	})
	if err != nil {
		return none, err
	}
	return TransferCommandSendResult{
		Result: TransferCommandResult{TransferCommandResultSuccess: &TransferCommandResultSuccess{Result: sent.Result}},
		Sender: c.Sender, Nonce: c.Nonce,
	}, nil
}
