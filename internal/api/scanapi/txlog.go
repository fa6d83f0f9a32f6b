package scanapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// The choices the deprecated transaction log reports.
const (
	choiceTransfer = "AmuletRules_Transfer"
	choiceMint     = "AmuletRules_Mint"
	choiceTap      = "AmuletRules_DevNet_Tap"
)

// TransactionHistoryRequest is the body of POST /v0/transactions.
type TransactionHistoryRequest struct {
	PageEndEventID string  `json:"page_end_event_id,omitempty"`
	SortOrder      *string `json:"sort_order,omitempty"`
	PageSize       *int64  `json:"page_size"`
}

// TransactionHistoryResponse is a page of the transaction log.
type TransactionHistoryResponse struct {
	Transactions []*TxLogItem `json:"transactions"`
}

// TxLogItem is one entry of the transaction log: a transfer, a mint, a
// DevNet tap or the abort of a token-standard transfer instruction.
type TxLogItem struct {
	TransactionType          string                    `json:"transaction_type"`
	EventID                  string                    `json:"event_id"`
	Offset                   string                    `json:"offset,omitempty"`
	Date                     string                    `json:"date"`
	DomainID                 string                    `json:"domain_id"`
	Round                    *int64                    `json:"round,omitempty"`
	Transfer                 *TxTransfer               `json:"transfer,omitempty"`
	Mint                     *AmuletAmount             `json:"mint,omitempty"`
	Tap                      *AmuletAmount             `json:"tap,omitempty"`
	AbortTransferInstruction *AbortTransferInstruction `json:"abort_transfer_instruction,omitempty"`
}

// TxTransfer is a (batch) transfer: one sender, several receivers. The
// token standard's transfers also carry their kind and, for the creation
// of a transfer instruction, the instruction's receiver, amount and id
// (Splice spells these three in camel case).
type TxTransfer struct {
	Sender                      SenderAmount     `json:"sender"`
	Receivers                   []ReceiverAmount `json:"receivers"`
	BalanceChanges              []BalanceChange  `json:"balance_changes"`
	Description                 string           `json:"description,omitempty"`
	TransferInstructionReceiver string           `json:"transferInstructionReceiver,omitempty"`
	TransferInstructionAmount   string           `json:"transferInstructionAmount,omitempty"`
	TransferInstructionCid      string           `json:"transferInstructionCid,omitempty"`
	TransferKind                string           `json:"transfer_kind,omitempty"`
}

// AbortTransferInstruction is a transfer instruction rejected by its
// receiver or withdrawn by its sender.
type AbortTransferInstruction struct {
	AbortKind              string `json:"abort_kind"`
	TransferInstructionCid string `json:"transfer_instruction_cid"`
}

// SenderAmount is what the sender of a transfer put in and paid.
type SenderAmount struct {
	Party                      string `json:"party"`
	InputAmuletAmount          string `json:"input_amulet_amount"`
	InputAppRewardAmount       string `json:"input_app_reward_amount"`
	InputValidatorRewardAmount string `json:"input_validator_reward_amount"`
	InputSvRewardAmount        string `json:"input_sv_reward_amount"`
	InputValidatorFaucetAmount string `json:"input_validator_faucet_amount,omitempty"`
	SenderChangeFee            string `json:"sender_change_fee"`
	SenderChangeAmount         string `json:"sender_change_amount"`
	SenderFee                  string `json:"sender_fee"`
	HoldingFees                string `json:"holding_fees"`
}

// ReceiverAmount is what a receiver of a transfer got and paid.
type ReceiverAmount struct {
	Party       string `json:"party"`
	Amount      string `json:"amount"`
	ReceiverFee string `json:"receiver_fee"`
}

// BalanceChange is a party's balance change, normalised to round zero.
type BalanceChange struct {
	Party                              string `json:"party"`
	ChangeToInitialAmountAsOfRoundZero string `json:"change_to_initial_amount_as_of_round_zero"`
	ChangeToHoldingFeesRate            string `json:"change_to_holding_fees_rate"`
}

// AmuletAmount is an amount of amulet and its owner.
type AmuletAmount struct {
	AmuletOwner  string `json:"amulet_owner"`
	AmuletAmount string `json:"amulet_amount"`
}

// txLogBatch is how many updates a transaction-log read takes per store
// read.
const txLogBatch = scan.MaxPageSize

func (h *Handler) transactions(w http.ResponseWriter, r *http.Request) error {
	var req TransactionHistoryRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.PageSize == nil {
		return missing("page_size")
	}
	if err := scan.CheckLimit(*req.PageSize); err != nil {
		return err
	}
	desc := false
	if req.SortOrder != nil {
		switch *req.SortOrder {
		case "asc":
		case "desc":
			desc = true
		default:
			return badRequest("Failed to decode: sort_order must be \"asc\" or \"desc\", not %s", fault.Quote(*req.SortOrder))
		}
	}
	var end *eventRef
	if req.PageEndEventID != "" {
		ref, ok := parseEventID(req.PageEndEventID)
		if !ok {
			return badRequest("Invalid page_end_event_id %s: pass the event_id of an earlier response", fault.Quote(req.PageEndEventID))
		}
		end = &ref
	}
	items, err := h.txLog(r.Context(), end, int(*req.PageSize), desc)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, TransactionHistoryResponse{Transactions: items})
	return nil
}

// eventRef is a parsed v0 event id "#<update_id>:<node>".
type eventRef struct {
	updateID string
	node     int32
}

func parseEventID(s string) (eventRef, bool) {
	rest, ok := strings.CutPrefix(s, "#")
	if !ok {
		return eventRef{}, false
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 {
		return eventRef{}, false
	}
	n, err := strconv.ParseInt(rest[i+1:], 10, 32)
	if err != nil || n < 0 {
		return eventRef{}, false
	}
	return eventRef{updateID: rest[:i], node: int32(n)}, true
}

func v0EventID(updateID string, node int32) string {
	return "#" + updateID + ":" + strconv.Itoa(int(node))
}

// txLog reads the log from the Scan's history. Ascending pages resume
// after the page end's update; descending ones read the history through
// (the endpoint is deprecated; sandnet keeps no separate log for it).
func (h *Handler) txLog(ctx context.Context, end *eventRef, limit int, desc bool) ([]*TxLogItem, error) {
	out := []*TxLogItem{}
	var after *scan.HistoryPosition
	if end != nil && !desc {
		u, err := h.svc.Update(ctx, end.updateID)
		if err != nil {
			return nil, badRequest("Invalid page_end_event_id %s: no such update", fault.Quote(v0EventID(end.updateID, end.node)))
		}
		for _, it := range txLogItems(u) {
			if ref, _ := parseEventID(it.EventID); ref.node > end.node && len(out) < limit {
				out = append(out, it)
			}
		}
		after = &scan.HistoryPosition{Migration: u.MigrationID(), RecordTime: u.RecordTime()}
	}
	var all []*TxLogItem
	for len(out) < limit || desc {
		// Import updates are read too (they carry no transfers), so that
		// the log is served while the Scan backfills, as in Splice.
		ups, err := h.svc.History(ctx, after, txLogBatch, true)
		if err != nil {
			return nil, err
		}
		for i := range ups {
			items := txLogItems(&ups[i])
			if desc {
				all = append(all, items...)
				continue
			}
			for _, it := range items {
				if len(out) < limit {
					out = append(out, it)
				}
			}
		}
		if len(ups) < txLogBatch {
			break
		}
		// Paging on by position skips the rest of a run of import updates
		// that share a record time; they hold no log entries.
		last := &ups[len(ups)-1]
		after = &scan.HistoryPosition{Migration: last.MigrationID(), RecordTime: last.RecordTime()}
	}
	if !desc {
		return out, nil
	}
	slices.Reverse(all)
	i := 0
	if end != nil {
		i = slices.IndexFunc(all, func(it *TxLogItem) bool { return it.EventID == v0EventID(end.updateID, end.node) })
		if i < 0 {
			return nil, badRequest("Invalid page_end_event_id %s: no such event", fault.Quote(v0EventID(end.updateID, end.node)))
		}
		i++
	}
	for ; i < len(all) && len(out) < limit; i++ {
		out = append(out, all[i])
	}
	return out, nil
}

// txLogItems returns the log entries of an update, in node order. A
// matched exercise's children are not searched (a tap's inner mint is part
// of the tap), except under the token standard's choices, whose transfers
// Splice reads from their children when there are any (see txlogts.go).
func txLogItems(u *scan.Update) []*TxLogItem {
	if u.Transaction == nil {
		return nil // a reassignment: no transfer, mint or tap
	}
	w := txLogWalk{u: u}
	var out []*TxLogItem
	for _, r := range u.Transaction.Roots {
		out = append(out, w.node(r)...)
	}
	return out
}

// txLogWalk finds the log entries in the tree of one transaction.
type txLogWalk struct{ u *scan.Update }

// node returns the entries of the subtree at id.
func (w txLogWalk) node(id int32) []*TxLogItem {
	e := w.u.Transaction.Event(id)
	if e == nil || e.Exercised == nil {
		return nil
	}
	x := e.Exercised
	if isTemplate(x, splice.AmuletRules{}.TemplateID()) {
		if it := txLogItem(w.u, e); it != nil {
			return []*TxLogItem{it}
		}
	}
	if items, ok := w.tokenStandard(e); ok {
		return items
	}
	return w.children(x)
}

// children returns the entries of an exercise's children, in order.
func (w txLogWalk) children(x *ledger.Exercised) []*TxLogItem {
	var out []*TxLogItem
	for _, c := range x.Children {
		out = append(out, w.node(c)...)
	}
	return out
}

// isTemplate reports whether x exercises a contract of template tid (by
// module and entity, as every package version of it counts).
func isTemplate(x *ledger.Exercised, tid ledger.TemplateID) bool {
	return x.Template.ModuleName == tid.ModuleName && x.Template.EntityName == tid.EntityName
}

// newTxLogItem is an entry of type typ for the node e, without its
// content.
func newTxLogItem(u *scan.Update, e *ledger.Event, typ string) *TxLogItem {
	t := u.Transaction
	it := &TxLogItem{
		TransactionType: typ, EventID: v0EventID(t.UpdateID, e.NodeID), Date: t.EffectiveAt.String(), DomainID: string(t.Synchronizer),
	}
	if u.Offset != 0 {
		it.Offset = scan.FormatOffset(u.Offset)
	}
	return it
}

func txLogItem(u *scan.Update, e *ledger.Event) *TxLogItem {
	x := e.Exercised
	it := newTxLogItem(u, e, "")
	switch x.Choice {
	case choiceTransfer:
		var arg splice.AmuletRulesTransfer
		var res splice.TransferResult
		if daml.ToGo(x.ChoiceArgument, &arg) != nil || daml.ToGo(x.ExerciseResult, &res) != nil {
			return nil
		}
		tr, ok := transferOf(arg.Transfer, res)
		if !ok {
			return nil
		}
		it.TransactionType, it.Round, it.Transfer = "transfer", &res.Round.Number, tr
	case choiceMint:
		var arg splice.AmuletRulesMint
		var res splice.AmuletRulesMintResult
		if daml.ToGo(x.ChoiceArgument, &arg) != nil || daml.ToGo(x.ExerciseResult, &res) != nil {
			return nil
		}
		it.TransactionType, it.Round = "mint", &res.AmuletSum.Round.Number
		it.Mint = &AmuletAmount{AmuletOwner: string(arg.Receiver), AmuletAmount: arg.Amount.String()}
	case choiceTap:
		var arg splice.AmuletRulesDevNetTap
		var res splice.AmuletRulesDevNetTapResult
		if daml.ToGo(x.ChoiceArgument, &arg) != nil || daml.ToGo(x.ExerciseResult, &res) != nil {
			return nil
		}
		it.TransactionType, it.Round = "devnet_tap", &res.AmuletSum.Round.Number
		it.Tap = &AmuletAmount{AmuletOwner: string(arg.Receiver), AmuletAmount: arg.Amount.String()}
	default:
		return nil
	}
	return it
}

// transferOf derives a transfer's amounts: the summary's inputs and fees,
// and each output's fee split between sender and receiver by the output's
// receiver fee ratio.
func transferOf(tr splice.Transfer, res splice.TransferResult) (*TxTransfer, bool) {
	s := res.Summary
	senderFee := daml.NumericFromInt(0)
	out := &TxTransfer{Receivers: []ReceiverAmount{}, BalanceChanges: []BalanceChange{}}
	for i, o := range tr.Outputs {
		fee := daml.NumericFromInt(0)
		if i < len(s.OutputFees) {
			fee = s.OutputFees[i]
		}
		recvFee, err := fee.Mul(o.ReceiverFeeRatio)
		if err != nil {
			return nil, false
		}
		sendFee, err := fee.Sub(recvFee)
		if err != nil {
			return nil, false
		}
		if senderFee, err = senderFee.Add(sendFee); err != nil {
			return nil, false
		}
		out.Receivers = append(out.Receivers, ReceiverAmount{Party: string(o.Receiver), Amount: o.Amount.String(), ReceiverFee: recvFee.String()})
	}
	out.Sender = SenderAmount{
		Party: string(tr.Sender), InputAmuletAmount: s.InputAmuletAmount.String(),
		InputAppRewardAmount: s.InputAppRewardAmount.String(), InputValidatorRewardAmount: s.InputValidatorRewardAmount.String(),
		InputSvRewardAmount: s.InputSvRewardAmount.String(), SenderChangeFee: s.SenderChangeFee.String(),
		SenderChangeAmount: s.SenderChangeAmount.String(), SenderFee: senderFee.String(), HoldingFees: s.HoldingFees.String(),
	}
	if s.InputValidatorFaucetAmount != nil {
		out.Sender.InputValidatorFaucetAmount = s.InputValidatorFaucetAmount.String()
	}
	for _, bc := range s.BalanceChanges {
		out.BalanceChanges = append(out.BalanceChanges, BalanceChange{
			Party: string(bc.Key), ChangeToInitialAmountAsOfRoundZero: bc.Value.ChangeToInitialAmountAsOfRoundZero.String(),
			ChangeToHoldingFeesRate: bc.Value.ChangeToHoldingFeesRate.String(),
		})
	}
	return out, true
}
