package validator

import (
	"context"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The wallet's token-standard transfers (POST/GET
// /v0/wallet/token-standard/transfers and the accept, reject and withdraw
// of a pending one). Splice's wallet exercises the token standard's
// interface choices with the context the DSO's registry (Scan) provides;
// sandnet does the same, reading the registry over HTTP through Scan like
// the rest of the validator. The choices are exercised directly by the
// user's party (which the validator may act as), not through
// WalletAppInstall choices: the ledger effects are the same, and the
// transfer shows in the wallet's history as a TransferFactory_Transfer,
// as in Splice.

// TokenTransferRequest is a token-standard transfer as a wallet's user
// asks for it.
type TokenTransferRequest struct {
	Receiver    daml.Party
	Amount      daml.Numeric // CC
	Description string
	// ExpiresAt is the transfer's executeBefore: until when the receiver
	// may accept an offer.
	ExpiresAt  daml.Timestamp
	TrackingID string
}

// tokenTransferMethod names Splice's command ids of the wallet's
// token-standard transfers, on which the ledger deduplicates them.
const tokenTransferMethod = "org.lfdecentralizedtrust.splice.wallet.createTokenStandardTransfer"

// CreateTokenTransfer transfers amount CC from the wallet to the receiver
// through the DSO's transfer factory: at once when the receiver has a
// pre-approval (or is the sender), else as an AmuletTransferInstruction
// that locks the amount until the receiver accepts or rejects it, the
// sender withdraws it or it expires. It spends the wallet's unlocked
// amulets, largest first, as many as cover the amount.
//
// The tracking id makes it exactly-once, as in Splice: the ledger
// deduplicates the command id derived from it (a second transfer with
// it is a 409), and the same request while the first is being submitted
// is a 429. A non-positive amount, an expiry not after ledger time now
// and a malformed receiver are refused (400); an unknown receiver is
// Canton's 404.
func (v *Validator) CreateTokenTransfer(ctx context.Context, w Wallet, r TokenTransferRequest) (splice.TransferInstructionResult, error) {
	var none splice.TransferInstructionResult
	if !ledger.ValidPartyID(string(r.Receiver)) {
		return none, fault.New(fault.InvalidArgument, "Invalid receiver_party_id %s: expected a party id such as alice::1220…", fault.Quote(string(r.Receiver)))
	}
	if err := CheckTrackingID(r.TrackingID); err != nil {
		return none, err
	}
	if err := CheckAmount("Transfer amount", r.Amount); err != nil {
		return none, err
	}
	if !storable(r.Description) {
		return none, fault.New(fault.InvalidArgument, "description contains a NUL character or invalid UTF-8")
	}
	now := v.net.Clock().Now()
	if r.ExpiresAt <= now {
		return none, fault.New(fault.InvalidArgument, "expires_at %s is not after the current ledger time %s", r.ExpiresAt, now)
	}
	if err := v.knownParty(ctx, r.Receiver); err != nil {
		return none, err
	}
	release, err := v.flight.begin("ts-transfer/"+string(w.Party)+"/"+r.TrackingID, "CreateTokenStandardTransfer with trackingId "+fault.Clip(r.TrackingID))
	if err != nil {
		return none, err
	}
	defer release()
	defer v.spending.lock(w.Party)()
	_, hs, err := v.Holdings(ctx, w)
	if err != nil {
		return none, err
	}
	ac, err := v.amuletContext(ctx)
	if err != nil {
		return none, err
	}
	sel := selectInputs(hs, maxInputs(ac), &r.Amount)
	if !sel.Covered {
		return none, fault.New(fault.FailedPrecondition, "Insufficient funds: the transfer needs %s CC, the wallet's unlocked amulets hold %s CC",
			r.Amount, sel.Available)
	}
	arg := splice.TransferFactoryTransfer{
		ExpectedAdmin: v.cfg.DSO,
		Transfer: splice.TokenTransfer{
			Sender: w.Party, Receiver: r.Receiver, Amount: r.Amount, InstrumentID: splice.AmuletInstrumentID(v.cfg.DSO),
			RequestedAt: now, ExecuteBefore: r.ExpiresAt, InputHoldingCids: sel.IDs,
			Meta: splice.Metadata{Values: map[string]string{splice.MetaReason: r.Description}},
		},
		ExtraArgs: splice.RegistryContext{}.ExtraArgs(),
	}
	f, err := v.scan.TransferFactory(ctx, arg)
	if err != nil {
		return none, err
	}
	arg.ExtraArgs = f.ExtraArgs()
	var res splice.TransferInstructionResult
	id := splice.DedupCommandID(tokenTransferMethod, []daml.Party{w.Party}, r.TrackingID)
	t, err := v.submitID(ctx, id, []daml.Party{w.Party}, f.Disclosed, func(tx *ledger.Tx) error {
		res, err = ledger.ExerciseInterface[splice.TransferInstructionResult](tx, f.FactoryID, splice.TransferFactoryInterface, "TransferFactory_Transfer", arg)
		return err
	})
	if fault.Is(err, fault.AlreadyExists) {
		// The ledger's DUPLICATE_COMMAND, worded as Splice's wallet words it.
		return none, fault.New(fault.AlreadyExists, "CreateTokenStandardTransfer duplicate command")
	}
	if err != nil {
		return none, err
	}
	return finalResult(t, res), nil
}

// finalResult is a choice's result with the contract ids it names as the
// committed transaction has them.
func finalResult(t *ledger.Transaction, r splice.TransferInstructionResult) splice.TransferInstructionResult {
	final := func(ids []daml.ContractID) []daml.ContractID {
		out := make([]daml.ContractID, len(ids))
		for i, id := range ids {
			out[i] = t.Final(id)
		}
		return out
	}
	r.SenderChangeCids = final(r.SenderChangeCids)
	switch o := &r.Output; {
	case o.Pending != nil:
		o.Pending = &splice.TransferInstructionResultPending{TransferInstructionCid: t.Final(o.Pending.TransferInstructionCid)}
	case o.Completed != nil:
		o.Completed = &splice.TransferInstructionResultCompleted{ReceiverHoldingCids: final(o.Completed.ReceiverHoldingCids)}
	}
	return r
}

// TokenTransfers lists the pending transfer instructions the wallet's
// party sends or receives.
func (v *Validator) TokenTransfers(ctx context.Context, w Wallet) ([]splice.Contract[splice.AmuletTransferInstruction], error) {
	is, err := splice.Active[splice.AmuletTransferInstruction](ctx, v.net.Store(), w.Party)
	return slices.DeleteFunc(is, func(i splice.Contract[splice.AmuletTransferInstruction]) bool {
		return i.Payload.Transfer.Sender != w.Party && i.Payload.Transfer.Receiver != w.Party
	}), err
}

// TokenTransferChoice is what a wallet does with a pending transfer
// instruction.
type TokenTransferChoice string

// The choices on a pending transfer instruction, named as the registry's
// choice-context endpoints name them.
const (
	TokenTransferAccept   TokenTransferChoice = "accept"
	TokenTransferReject   TokenTransferChoice = "reject"
	TokenTransferWithdraw TokenTransferChoice = "withdraw"
)

// transferInstructionID is the template of the pending instructions.
var transferInstructionID = splice.AmuletTransferInstruction{}.TemplateID()

// ActOnTokenTransfer accepts or rejects (as receiver) or withdraws (as
// sender) a pending transfer instruction, with the registry's context.
// An instruction the wallet's party neither sends nor receives, or one no
// longer pending, is the registry's 404; the wrong side is a 403.
func (v *Validator) ActOnTokenTransfer(ctx context.Context, w Wallet, cid daml.ContractID, choice TokenTransferChoice) (splice.TransferInstructionResult, error) {
	var none splice.TransferInstructionResult
	notFound := fault.New(fault.NotFound, "AmuletTransferInstruction '%s' not found.", fault.Clip(string(cid)))
	c, active, err := v.net.Store().Contract(ctx, cid)
	if fault.Is(err, fault.NotFound) || err == nil && (!active || !sameTemplate(c.Template, transferInstructionID)) {
		return none, notFound
	}
	if err != nil {
		return none, err
	}
	ti, err := splice.Decode[splice.AmuletTransferInstruction](c)
	if err != nil {
		return none, err
	}
	tr := ti.Payload.Transfer
	if tr.Sender != w.Party && tr.Receiver != w.Party {
		return none, notFound // others' instructions are not the wallet's to know of
	}
	var choiceName string
	var arg any
	switch choice {
	case TokenTransferAccept, TokenTransferReject:
		if tr.Receiver != w.Party {
			return none, fault.New(fault.PermissionDenied, "Only the receiver %s can %s transfer instruction %s", tr.Receiver, choice, cid)
		}
	case TokenTransferWithdraw:
		if tr.Sender != w.Party {
			return none, fault.New(fault.PermissionDenied, "Only the sender %s can withdraw transfer instruction %s", tr.Sender, cid)
		}
	default:
		return none, fault.New(fault.InvalidArgument, "unknown transfer instruction choice %q", choice)
	}
	rc, err := v.scan.TransferInstructionContext(ctx, cid, string(choice))
	if err != nil {
		return none, err
	}
	switch choice {
	case TokenTransferAccept:
		choiceName, arg = "TransferInstruction_Accept", splice.TransferInstructionAccept{ExtraArgs: rc.ExtraArgs()}
	case TokenTransferReject:
		choiceName, arg = "TransferInstruction_Reject", splice.TransferInstructionReject{ExtraArgs: rc.ExtraArgs()}
	default:
		choiceName, arg = "TransferInstruction_Withdraw", splice.TransferInstructionWithdraw{ExtraArgs: rc.ExtraArgs()}
	}
	var res splice.TransferInstructionResult
	t, err := v.submit(ctx, string(choice)+"-ts-"+string(cid), []daml.Party{w.Party}, rc.Disclosed, func(tx *ledger.Tx) error {
		res, err = ledger.ExerciseInterface[splice.TransferInstructionResult](tx, cid, splice.TransferInstructionInterface, choiceName, arg)
		return err
	})
	if err != nil {
		return none, err
	}
	return finalResult(t, res), nil
}
