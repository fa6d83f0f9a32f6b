package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Helpers that exercise the common choices inside a command, for the
// validator, the admin API and tests. A command using an AmuletContext must
// disclose its contracts (AmuletContext.Disclosed) unless it acts as a
// party that sees them.

// Tap mints amount amulet for receiver from the DevNet faucet
// (AmuletRules_DevNet_Tap). The command must act as receiver.
func Tap(tx *ledger.Tx, ac AmuletContext, receiver daml.Party, amount daml.Numeric) (AmuletRulesDevNetTapResult, error) {
	return ledger.Exercise[AmuletRulesDevNetTapResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_Tap",
		AmuletRulesDevNetTap{Receiver: receiver, Amount: amount, OpenRound: ac.OpenRound.ID})
}

// TransferAmulet spends the sender's amulets in inputs (AmuletRules_Transfer)
// to pay amount to each receiver, returning the change to the sender. The
// command must act as the sender, the provider and every receiver.
func TransferAmulet(tx *ledger.Tx, ac AmuletContext, sender, provider daml.Party, inputs []daml.ContractID, outputs ...TransferOutput) (TransferResult, error) {
	return ledger.Exercise[TransferResult](tx, ac.AmuletRules.ID, "AmuletRules_Transfer", AmuletRulesTransfer{
		Transfer:    Transfer{Sender: sender, Provider: provider, Inputs: InputAmulets(inputs...), Outputs: outputs},
		Context:     AmuletTransferContext(ac.OpenRound.ID),
		ExpectedDso: &ac.AmuletRules.Payload.DSO,
	})
}

// Pay is a transfer output of amount to receiver, the sender paying the
// fees.
func Pay(receiver daml.Party, amount daml.Numeric) TransferOutput {
	return TransferOutput{Receiver: receiver, Amount: amount, ReceiverFeeRatio: daml.Numeric{}}
}

// CompleteAcceptedTransferOffer is what the sender's wallet automation does
// with an accepted offer (AcceptedTransferOffer_Complete): pay the receiver
// from inputs, with the sender's validator as wallet provider. It fails with
// a Daml precondition error when the inputs do not cover the amount. The
// command must act as the sender and the validator.
func CompleteAcceptedTransferOffer(tx *ledger.Tx, ac AmuletContext, offer daml.ContractID, inputs []daml.ContractID, walletProvider daml.Party) (AcceptedTransferOfferCompleteResult, error) {
	return ledger.Exercise[AcceptedTransferOfferCompleteResult](tx, offer, "AcceptedTransferOffer_Complete", AcceptedTransferOfferComplete{
		Inputs: InputAmulets(inputs...), TransferContext: ac.PaymentContext(), WalletProvider: walletProvider,
	})
}
