package scanapi

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The transaction log's entries for the token standard's transfers, as
// Splice's Scan reports them:
//
//   - TransferFactory_Transfer that completes is a self transfer (no
//     pre-approval node below it: a transfer without fees from the sender
//     to itself, without a kind) or a direct one, which the
//     TransferPreapproval_SendV2 below it reports;
//   - TransferFactory_Transfer that leaves an instruction pending is
//     create_transfer_instruction: the sender locking the amount to itself,
//     with the instruction's receiver, amount and id;
//   - TransferPreapproval_Send and _SendV2 are preapproval_send;
//   - TransferInstruction_Accept is transfer_instruction_accept, from the
//     sender to the holder of the receiver's new amulet;
//   - TransferInstruction_Reject and _Withdraw are
//     abort_transfer_instruction; _Update (the DSO's expiry) is not logged;
//   - AllocationFactory_Allocate is a transfer of the leg's amount from the
//     sender to itself (the lock), and Allocation_ExecuteTransfer one from
//     the sender (from the result's metadata) to the owner of the
//     receiver's new amulet, both without a kind; an allocation's
//     cancellation, withdrawal or expiry releases a lock and is not
//     logged.
//
// Under the factory and the instruction choices, a transfer the children
// report (AmuletRules_Transfer, in older Splice versions) is kept;
// otherwise the entry is made from the choice, without fees: token-standard
// transfers charge none.

// The token standard's transfer kinds and abort kinds in the log.
const (
	kindCreateTransferInstruction = "create_transfer_instruction"
	kindTransferInstructionAccept = "transfer_instruction_accept"
	kindPreapprovalSend           = "preapproval_send"
	abortWithdraw                 = "withdraw"
	abortReject                   = "reject"
)

// isInterfaceChoice reports whether x is choice exercised through the
// interface iface on a contract of template tid.
func isInterfaceChoice(x *ledger.Exercised, iface daml.Identifier, tid ledger.TemplateID, choice string) bool {
	return x.Choice == choice && x.Interface != nil && x.Interface.ModuleName == iface.ModuleName &&
		x.Interface.EntityName == iface.EntityName && isTemplate(x, tid)
}

// tokenStandard returns the entries of a token-standard node, and whether
// e is one.
func (w txLogWalk) tokenStandard(e *ledger.Event) ([]*TxLogItem, bool) {
	x := e.Exercised
	factory, instruction := splice.ExternalPartyAmuletRules{}.TemplateID(), splice.AmuletTransferInstruction{}.TemplateID()
	switch {
	case isInterfaceChoice(x, splice.TransferFactoryInterface, factory, "TransferFactory_Transfer"):
		return w.factoryTransfer(e)
	case isTemplate(x, splice.TransferPreapproval{}.TemplateID()) && x.Choice == "TransferPreapproval_SendV2":
		return w.sendV2(e)
	case isTemplate(x, splice.TransferPreapproval{}.TemplateID()) && x.Choice == "TransferPreapproval_Send":
		var arg splice.TransferPreapprovalSend
		if daml.ToGo(x.ChoiceArgument, &arg) != nil {
			return nil, false
		}
		items := w.children(x)
		for _, it := range transfers(items) {
			it.EventID = v0EventID(w.u.Transaction.UpdateID, e.NodeID)
			it.Transfer.Description, it.Transfer.TransferKind = deref(arg.Description), kindPreapprovalSend
		}
		return items, true
	case isInterfaceChoice(x, splice.TransferInstructionInterface, instruction, "TransferInstruction_Accept"):
		return w.accept(e)
	case isInterfaceChoice(x, splice.TransferInstructionInterface, instruction, "TransferInstruction_Reject"):
		return []*TxLogItem{w.abort(e, abortReject)}, true
	case isInterfaceChoice(x, splice.TransferInstructionInterface, instruction, "TransferInstruction_Withdraw"):
		return []*TxLogItem{w.abort(e, abortWithdraw)}, true
	case isInterfaceChoice(x, splice.AllocationFactoryInterface, factory, "AllocationFactory_Allocate"):
		return w.allocate(e)
	case isInterfaceChoice(x, splice.AllocationInterface, splice.AmuletAllocation{}.TemplateID(), "Allocation_ExecuteTransfer"):
		return w.executeAllocation(e)
	}
	return nil, false
}

// factoryTransfer is TransferFactory_Transfer: a pending result created an
// instruction, a completed one moved the amount (self or direct); a failed
// one (which Amulet never returns) is searched like any other node.
func (w txLogWalk) factoryTransfer(e *ledger.Event) ([]*TxLogItem, bool) {
	x := e.Exercised
	var arg splice.TransferFactoryTransfer
	var res splice.TransferInstructionResult
	if daml.ToGo(x.ChoiceArgument, &arg) != nil || daml.ToGo(x.ExerciseResult, &res) != nil {
		return nil, false
	}
	tr := arg.Transfer
	reason := tr.Meta.Values[splice.MetaReason]
	items := w.children(x)
	switch {
	case res.Output.Pending != nil:
		if len(transfers(items)) == 0 {
			// The amount moves from the sender's holdings to its own locked
			// one: Scan counts locked and unlocked amulet alike, so nothing
			// goes in and the sender receives the amount.
			items = append(items, w.noFeeTransfer(e, tr.Sender, tr.Sender, daml.NumericFromInt(0), tr.Amount))
		}
		for _, it := range transfers(items) {
			it.EventID = v0EventID(w.u.Transaction.UpdateID, e.NodeID)
			t := it.Transfer
			t.Description, t.TransferInstructionReceiver = reason, string(tr.Receiver)
			t.TransferInstructionAmount = tr.Amount.String()
			t.TransferInstructionCid = string(res.Output.Pending.TransferInstructionCid)
			t.TransferKind = kindCreateTransferInstruction
		}
		return items, true
	case res.Output.Completed != nil:
		if len(transfers(items)) > 0 {
			return items, true // a direct transfer, reported by its pre-approval's send
		}
		it := w.noFeeTransfer(e, tr.Sender, tr.Receiver, tr.Amount, tr.Amount)
		it.Transfer.Description = reason
		return append(items, it), true
	}
	return nil, false
}

// sendV2 is TransferPreapproval_SendV2: the transfer its result
// summarises, to the party whose balance changed other than the sender
// (the sender itself if none did).
func (w txLogWalk) sendV2(e *ledger.Event) ([]*TxLogItem, bool) {
	x := e.Exercised
	var arg splice.TransferPreapprovalSendV2
	var res splice.TransferPreapprovalSendV2Result
	if daml.ToGo(x.ChoiceArgument, &arg) != nil || daml.ToGo(x.ExerciseResult, &res) != nil {
		return nil, false
	}
	receiver := arg.Sender
	for _, bc := range res.Result.Summary.BalanceChanges {
		if bc.Key != arg.Sender {
			receiver = bc.Key
			break
		}
	}
	tr, ok := transferOf(splice.Transfer{Sender: arg.Sender, Outputs: []splice.TransferOutput{{
		Receiver: receiver, ReceiverFeeRatio: daml.NumericFromInt(0), Amount: arg.Amount,
	}}}, res.Result)
	if !ok {
		return nil, false
	}
	tr.Description, tr.TransferKind = res.Meta.Values[splice.MetaReason], kindPreapprovalSend
	it := newTxLogItem(w.u, e, "transfer")
	it.Round, it.Transfer = &res.Result.Round.Number, tr
	return []*TxLogItem{it}, true
}

// accept is TransferInstruction_Accept: the sender (from the result's
// metadata) paying the owner of the receiver's new amulet its amount.
func (w txLogWalk) accept(e *ledger.Event) ([]*TxLogItem, bool) {
	x := e.Exercised
	items := w.children(x)
	if len(transfers(items)) == 0 {
		var res splice.TransferInstructionResult
		if daml.ToGo(x.ExerciseResult, &res) != nil || res.Output.Completed == nil {
			return nil, false
		}
		it, ok := w.paidToNewHolding(e, res.Output.Completed.ReceiverHoldingCids, res.Meta)
		if !ok {
			return nil, false
		}
		items = append(items, it)
	}
	for _, it := range transfers(items) {
		it.Transfer.TransferInstructionCid = string(x.ContractID)
		it.Transfer.TransferKind = kindTransferInstructionAccept
	}
	return items, true
}

// allocate is AllocationFactory_Allocate: the sender locking the leg's
// amount to itself, which Scan shows as a transfer to itself.
func (w txLogWalk) allocate(e *ledger.Event) ([]*TxLogItem, bool) {
	x := e.Exercised
	items := w.children(x)
	if len(transfers(items)) > 0 {
		return items, true // an older Splice's AmuletRules_Transfer below it
	}
	var arg splice.AllocationFactoryAllocate
	if daml.ToGo(x.ChoiceArgument, &arg) != nil {
		return nil, false
	}
	leg := arg.Allocation.TransferLeg
	return append(items, w.noFeeTransfer(e, leg.Sender, leg.Sender, leg.Amount, leg.Amount)), true
}

// executeAllocation is Allocation_ExecuteTransfer: the sender (from the
// result's metadata) paying the owner of the receiver's new amulet its
// amount.
func (w txLogWalk) executeAllocation(e *ledger.Event) ([]*TxLogItem, bool) {
	x := e.Exercised
	items := w.children(x)
	if len(transfers(items)) > 0 {
		return items, true
	}
	var res splice.AllocationExecuteTransferResult
	if daml.ToGo(x.ExerciseResult, &res) != nil {
		return nil, false
	}
	it, ok := w.paidToNewHolding(e, res.ReceiverHoldingCids, res.Meta)
	if !ok {
		return nil, false
	}
	return append(items, it), true
}

// paidToNewHolding is the transfer of an accepted instruction or an
// executed allocation: the sender its result's metadata names paying the
// owner of the receiver's one new amulet that amulet's amount. A result
// naming no sender, or not exactly one holding the transaction created as
// an Amulet, has none (Splice's Scan fails on it).
func (w txLogWalk) paidToNewHolding(e *ledger.Event, receiverHoldings []daml.ContractID, meta splice.Metadata) (*TxLogItem, bool) {
	if len(receiverHoldings) != 1 {
		return nil, false
	}
	amulet, ok := w.createdAmulet(receiverHoldings[0])
	sender := daml.Party(meta.Values[splice.MetaSender])
	if !ok || sender == "" {
		return nil, false
	}
	amount := amulet.Amount.InitialAmount
	return w.noFeeTransfer(e, sender, amulet.Owner, amount, amount), true
}

// abort is a rejected or withdrawn instruction. Its lock's release is no
// transfer: Scan counts locked and unlocked amulet alike.
func (w txLogWalk) abort(e *ledger.Event, kind string) *TxLogItem {
	it := newTxLogItem(w.u, e, "abort_transfer_instruction")
	it.AbortTransferInstruction = &AbortTransferInstruction{AbortKind: kind, TransferInstructionCid: string(e.Exercised.ContractID)}
	return it
}

// createdAmulet is the Amulet the transaction created as cid.
func (w txLogWalk) createdAmulet(cid daml.ContractID) (splice.Amulet, bool) {
	tid := splice.Amulet{}.TemplateID()
	for i := range w.u.Transaction.Events {
		c := w.u.Transaction.Events[i].Created
		if c == nil || c.ID != cid || c.Template.ModuleName != tid.ModuleName || c.Template.EntityName != tid.EntityName {
			continue
		}
		a, err := splice.Decode[splice.Amulet](c)
		return a.Payload, err == nil
	}
	return splice.Amulet{}, false
}

// noFeeTransfer is a transfer entry for node e in round 0 without fees,
// rewards or balance changes: sender puts in input and receiver gets
// amount.
func (w txLogWalk) noFeeTransfer(e *ledger.Event, sender, receiver daml.Party, input, amount daml.Numeric) *TxLogItem {
	zero := daml.NumericFromInt(0).String()
	it := newTxLogItem(w.u, e, "transfer")
	it.Round = new(int64)
	it.Transfer = &TxTransfer{
		Sender: SenderAmount{
			Party: string(sender), InputAmuletAmount: input.String(), InputAppRewardAmount: zero, InputValidatorRewardAmount: zero,
			InputSvRewardAmount: zero, SenderChangeFee: zero, SenderChangeAmount: zero, SenderFee: zero, HoldingFees: zero,
		},
		Receivers:      []ReceiverAmount{{Party: string(receiver), Amount: amount.String(), ReceiverFee: zero}},
		BalanceChanges: []BalanceChange{},
	}
	return it
}

// transfers returns the transfer entries of items.
func transfers(items []*TxLogItem) []*TxLogItem {
	var out []*TxLogItem
	for _, it := range items {
		if it.Transfer != nil {
			out = append(out, it)
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
