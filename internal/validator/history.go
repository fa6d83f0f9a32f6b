package validator

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The wallet's transaction history (POST /v0/wallet/transactions). Splice's
// wallet keeps it as a per-user log its parser fills from the user's
// transaction trees; sandnet reads the same trees from the participant's
// stream when asked, newest first, with the party's view of each (what it
// witnesses), so the history never disagrees with the ledger and needs no
// store of its own. Each recognised action (a tap, a transfer, a
// token-standard choice) is one item; the amounts are the net changes of
// the parties' unlocked amulet under the action.

// HistoryType is what kind of item a history entry is.
type HistoryType string

// The item types, as Splice's API names them.
const (
	HistoryTransfer      HistoryType = "transfer"
	HistoryBalanceChange HistoryType = "balance_change"
	HistoryNotification  HistoryType = "notification"
	HistoryUnknown       HistoryType = "unknown"
)

// HistorySubtype names the action of an entry: the template and choice
// exercised (and the interface, for a token-standard choice).
type HistorySubtype struct {
	Template  daml.Identifier
	Choice    string
	Interface *daml.Identifier
}

// PartyAmount is a party's net change of unlocked amulet, in CC.
type PartyAmount struct {
	Party  daml.Party
	Amount daml.Numeric
}

// HistoryItem is one entry of a wallet's history.
type HistoryItem struct {
	Type    HistoryType
	Subtype HistorySubtype
	// EventID is "#<update id>:<node id>" of the action, Splice's form.
	EventID string
	Date    daml.Timestamp
	// Sender is set for transfers; Receivers never include it. A balance
	// change has the wallet's party as its one receiver.
	Sender    *PartyAmount
	Receivers []PartyAmount
	// The fees paid and rewards spent by the transfers under the action.
	HoldingFees, AppRewardsUsed, ValidatorRewardsUsed, SvRewardsUsed, DevelopmentFundCouponsUsed daml.Numeric
	// Set for the creation of a token-standard transfer instruction.
	TransferInstructionReceiver daml.Party
	TransferInstructionAmount   *daml.Numeric
	// TransferInstructionCid is the instruction created, accepted,
	// rejected or withdrawn.
	TransferInstructionCid daml.ContractID
	Description            string
}

// MaxHistoryPage is the most items one history page holds.
const MaxHistoryPage = 1000

// historyBatch is how many updates a history read fetches at a time.
const historyBatch = 200

// History returns up to pageSize items of the wallet's history, newest
// first, starting after the item beginAfter ("" for the newest). An id
// that is not an item of the history gives an empty page.
func (v *Validator) History(ctx context.Context, w Wallet, beginAfter string, pageSize int64) ([]HistoryItem, error) {
	if pageSize < 1 || pageSize > MaxHistoryPage {
		return nil, fault.New(fault.InvalidArgument, "page_size must be between 1 and %d, got %d", MaxHistoryPage, pageSize)
	}
	q := ledger.UpdateQuery{Participant: v.cfg.Participant, Parties: []daml.Party{w.Party}, Limit: historyBatch, Descending: true}
	skipping := beginAfter != ""
	if skipping {
		updateID, _, ok := parseEventID(beginAfter)
		if !ok {
			return []HistoryItem{}, nil
		}
		u, err := v.net.Store().UpdateByID(ctx, v.cfg.Participant, updateID)
		if fault.Is(err, fault.NotFound) {
			return []HistoryItem{}, nil
		}
		if err != nil {
			return nil, err
		}
		q.Until = u.Offset
	} else {
		head, err := v.net.Store().Head(ctx)
		if err != nil {
			return nil, err
		}
		q.Until = head.Offsets[v.cfg.Participant]
	}
	out := []HistoryItem{}
	for q.Until > 0 {
		ups, err := v.net.Store().Updates(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, u := range ups {
			if u.Transaction == nil {
				continue
			}
			t := u.Transaction.Project([]daml.Party{w.Party})
			if t == nil {
				continue
			}
			items, err := v.historyOf(ctx, t, w.Party)
			if err != nil {
				return nil, err
			}
			for i := len(items) - 1; i >= 0; i-- {
				if skipping {
					skipping = items[i].EventID != beginAfter
					continue
				}
				out = append(out, items[i])
				if int64(len(out)) == pageSize {
					return out, nil
				}
			}
		}
		if skipping {
			return out, nil // the id names no item of the history
		}
		if len(ups) < q.Limit {
			break
		}
		q.Until = ups[len(ups)-1].Offset - 1
	}
	return out, nil
}

// parseEventID splits "#<update id>:<node id>".
func parseEventID(id string) (updateID string, node int32, ok bool) {
	rest, found := strings.CutPrefix(id, "#")
	if !found {
		return "", 0, false
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(rest[i+1:], 10, 32)
	// Only the canonical form: the ids this history hands out.
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != rest[i+1:] {
		return "", 0, false
	}
	return rest[:i], int32(n), true
}

// eventID is Splice's id of a node of a transaction.
func eventID(t *ledger.Transaction, node int32) string {
	return "#" + t.UpdateID + ":" + strconv.Itoa(int(node))
}

// historyOf reads the items of one transaction as party sees it, in node
// order.
func (v *Validator) historyOf(ctx context.Context, t *ledger.Transaction, party daml.Party) ([]HistoryItem, error) {
	p := historyParser{v: v, t: t, party: party}
	for _, root := range t.Roots {
		if err := p.walk(ctx, root); err != nil {
			return nil, err
		}
	}
	return p.items, nil
}

type historyParser struct {
	v     *Validator
	t     *ledger.Transaction
	party daml.Party
	items []HistoryItem
}

// The templates the history recognises actions on.
var (
	amuletRulesID               = splice.AmuletRules{}.TemplateID()
	externalPartyAmuletRulesID  = splice.ExternalPartyAmuletRules{}.TemplateID()
	transferPreapprovalID       = splice.TransferPreapproval{}.TemplateID()
	lockedAmuletID              = splice.LockedAmulet{}.TemplateID()
	createTransferInstructionST = HistorySubtype{Template: externalPartyAmuletRulesID.Identifier, Choice: "TransferFactory_Transfer", Interface: &splice.TransferFactoryInterface}
	plainTransferST             = HistorySubtype{Template: amuletRulesID.Identifier, Choice: "AmuletRules_Transfer"}
)

// walk reads the node id: a recognised action becomes an item (its
// subtree is its own); any other exercise is looked into.
func (p *historyParser) walk(ctx context.Context, id int32) error {
	e := p.t.Event(id)
	if e == nil {
		return nil
	}
	if c := e.Created; c != nil {
		// The receiver of a pending transfer sees only the instruction's
		// creation; Splice shows it as the transfer's creation, with
		// nothing moved yet.
		if sameTemplate(c.Template, transferInstructionID) {
			ti, err := splice.Decode[splice.AmuletTransferInstruction](c)
			if err == nil && ti.Payload.Transfer.Receiver == p.party && ti.Payload.Transfer.Sender != p.party {
				tr := ti.Payload.Transfer
				amount := tr.Amount
				p.add(HistoryItem{
					Type: HistoryTransfer, Subtype: createTransferInstructionST, EventID: eventID(p.t, id),
					Sender:                      &PartyAmount{Party: tr.Sender},
					Receivers:                   []PartyAmount{{Party: tr.Receiver}},
					TransferInstructionReceiver: tr.Receiver, TransferInstructionAmount: &amount,
					TransferInstructionCid: c.ID, Description: tr.Meta.Values[splice.MetaReason],
				})
			}
		}
		return nil
	}
	x := e.Exercised
	if x == nil {
		return nil
	}
	done, err := p.action(ctx, id, x)
	if err != nil || done {
		return err
	}
	for _, child := range x.Children {
		if err := p.walk(ctx, child); err != nil {
			return err
		}
	}
	return nil
}

// add keeps an item when it concerns the party, as Splice's log keeps
// only its user's entries.
func (p *historyParser) add(it HistoryItem) {
	it.Date = p.t.EffectiveAt
	switch it.Type {
	case HistoryTransfer:
		if it.Sender.Party != p.party && !slices.ContainsFunc(it.Receivers, func(r PartyAmount) bool { return r.Party == p.party }) {
			return
		}
	case HistoryBalanceChange:
		if len(it.Receivers) != 1 || it.Receivers[0].Party != p.party {
			return
		}
	}
	p.items = append(p.items, it)
}

// action turns a recognised exercise into an item; false for one it does
// not recognise.
func (p *historyParser) action(ctx context.Context, id int32, x *ledger.Exercised) (bool, error) {
	tmpl := x.Template
	var it HistoryItem
	switch {
	case sameTemplate(tmpl, amuletRulesID) && (x.Choice == "AmuletRules_DevNet_Tap" || x.Choice == "AmuletRules_Mint"):
		it = HistoryItem{Type: HistoryBalanceChange, Subtype: HistorySubtype{Template: tmpl.Identifier, Choice: x.Choice}}
	case sameTemplate(tmpl, amuletRulesID) && x.Choice == "AmuletRules_Transfer":
		var arg splice.AmuletRulesTransfer
		if err := daml.ToGo(x.ChoiceArgument, &arg); err != nil {
			return false, nil
		}
		it = HistoryItem{Type: HistoryTransfer, Subtype: plainTransferST, Sender: &PartyAmount{Party: arg.Transfer.Sender}}
		if p.t.Submission.UserID == p.v.cfg.OperatorUser && strings.HasPrefix(p.t.Submission.CommandID, mergeCommandPrefix) {
			// The merge automation's, which Splice tags as the wallet's
			// batch to tell it from a transfer the user made.
			it.Subtype = walletAutomationST
		}
	case paymentChoices[x.Choice]:
		// An app, subscription or name-service payment, a pre-approval's
		// purchase or renewal, traffic: Splice names the transfer after
		// the workflow's choice, whose sender pays through AmuletRules.
		sender, ok := p.transferSender(x)
		if !ok {
			return false, nil
		}
		it = HistoryItem{Type: HistoryTransfer, Subtype: HistorySubtype{Template: tmpl.Identifier, Choice: x.Choice}, Sender: &PartyAmount{Party: sender}}
	case sameTemplate(tmpl, acceptedTransferOfferID) && x.Choice == "AcceptedTransferOffer_Complete":
		c, _, err := p.v.net.Store().Contract(ctx, x.ContractID)
		if err != nil {
			return false, ignoreNotFound(err)
		}
		o, err := splice.Decode[splice.AcceptedTransferOffer](c)
		if err != nil {
			return false, nil
		}
		it = HistoryItem{Type: HistoryTransfer, Subtype: HistorySubtype{Template: tmpl.Identifier, Choice: x.Choice}, Sender: &PartyAmount{Party: o.Payload.Sender}}
	case sameTemplate(tmpl, transferPreapprovalID) && (x.Choice == "TransferPreapproval_Send" || x.Choice == "TransferPreapproval_SendV2"):
		var sender daml.Party
		var description *string
		if x.Choice == "TransferPreapproval_Send" {
			var arg splice.TransferPreapprovalSend
			if err := daml.ToGo(x.ChoiceArgument, &arg); err != nil {
				return false, nil
			}
			sender, description = arg.Sender, arg.Description
		} else {
			var arg splice.TransferPreapprovalSendV2
			if err := daml.ToGo(x.ChoiceArgument, &arg); err != nil {
				return false, nil
			}
			sender, description = arg.Sender, arg.Description
		}
		// Splice reports both versions as TransferPreapproval_Send.
		it = HistoryItem{Type: HistoryTransfer, Subtype: HistorySubtype{Template: tmpl.Identifier, Choice: "TransferPreapproval_Send"}, Sender: &PartyAmount{Party: sender}}
		if description != nil {
			it.Description = *description
		}
	case sameTemplate(tmpl, externalPartyAmuletRulesID) && x.Choice == "TransferFactory_Transfer":
		return true, p.factoryTransfer(ctx, id, x)
	case sameTemplate(tmpl, transferInstructionID) && x.Choice == "TransferInstruction_Accept":
		return true, p.instructionAccept(ctx, id, x)
	case sameTemplate(tmpl, transferInstructionID) && (x.Choice == "TransferInstruction_Reject" || x.Choice == "TransferInstruction_Withdraw"):
		net, err := p.net(ctx, x)
		if err != nil {
			return false, err
		}
		p.add(HistoryItem{
			Type: HistoryBalanceChange, Subtype: HistorySubtype{Template: tmpl.Identifier, Choice: x.Choice, Interface: &splice.TransferInstructionInterface},
			EventID: eventID(p.t, id), Receivers: []PartyAmount{{Party: p.party, Amount: net.of(p.party)}}, TransferInstructionCid: x.ContractID,
		})
		return true, nil
	default:
		return false, nil
	}
	it.EventID = eventID(p.t, id)
	net, err := p.net(ctx, x)
	if err != nil {
		return false, err
	}
	if it.Type == HistoryBalanceChange {
		it.Receivers = []PartyAmount{{Party: p.party, Amount: net.of(p.party)}}
	} else {
		p.fill(&it, x, net)
	}
	p.add(it)
	return true, nil
}

// paymentChoices are the workflow choices whose amulet transfer Splice's
// history names after them.
var paymentChoices = map[string]bool{
	"AppPaymentRequest_Accept": true, "AcceptedAppPayment_Collect": true,
	"SubscriptionRequest_AcceptAndMakePayment": true, "SubscriptionInitialPayment_Collect": true,
	"SubscriptionIdleState_MakePayment": true, "SubscriptionPayment_Collect": true,
	"AnsRules_CollectInitialEntryPayment": true, "AnsRules_CollectEntryRenewalPayment": true,
	"AmuletRules_CreateTransferPreapproval": true, "TransferPreapproval_Renew": true,
	"AmuletRules_BuyMemberTraffic": true,
}

// mergeCommandPrefix starts the command ids of the merge automation.
const mergeCommandPrefix = "merge-"

// walletAutomationST is Splice's subtype of the wallet automation's
// transfers.
var walletAutomationST = HistorySubtype{Template: splice.WalletAppInstall{}.TemplateID().Identifier, Choice: "WalletAppInstall_ExecuteBatch"}

// transferSender is the sender of the first amulet transfer at or under
// x.
func (p *historyParser) transferSender(x *ledger.Exercised) (daml.Party, bool) {
	if x.Choice == "AmuletRules_Transfer" {
		var arg splice.AmuletRulesTransfer
		if daml.ToGo(x.ChoiceArgument, &arg) == nil {
			return arg.Transfer.Sender, true
		}
	}
	for _, c := range x.Children {
		if e := p.t.Event(c); e != nil && e.Exercised != nil {
			if s, ok := p.transferSender(e.Exercised); ok {
				return s, true
			}
		}
	}
	return "", false
}

// fill sets a transfer's amounts: the sender's and the receivers' net
// changes, and the fees and rewards of the transfers under x.
func (p *historyParser) fill(it *HistoryItem, x *ledger.Exercised, net netChanges) {
	it.Sender.Amount = net.of(it.Sender.Party)
	for _, party := range net.order {
		if party != it.Sender.Party {
			it.Receivers = append(it.Receivers, PartyAmount{Party: party, Amount: net.of(party)})
		}
	}
	p.fees(it, x)
}

// fees sums the summaries of the amulet transfers at and under x.
func (p *historyParser) fees(it *HistoryItem, x *ledger.Exercised) {
	add := func(to *daml.Numeric, n *daml.Numeric) {
		if n == nil {
			return
		}
		if s, err := to.Add(*n); err == nil {
			*to = s
		}
	}
	var visit func(x *ledger.Exercised)
	visit = func(x *ledger.Exercised) {
		var sum *splice.TransferSummary
		switch x.Choice {
		case "AmuletRules_Transfer":
			var r splice.TransferResult
			if daml.ToGo(x.ExerciseResult, &r) == nil {
				sum = &r.Summary
			}
		case "TransferPreapproval_Send":
			var r splice.TransferPreapprovalSendResult
			if daml.ToGo(x.ExerciseResult, &r) == nil {
				sum = &r.Result.Summary
			}
		case "TransferPreapproval_SendV2":
			var r splice.TransferPreapprovalSendV2Result
			if daml.ToGo(x.ExerciseResult, &r) == nil {
				sum = &r.Result.Summary
			}
		}
		if sum != nil {
			add(&it.HoldingFees, &sum.HoldingFees)
			add(&it.AppRewardsUsed, &sum.InputAppRewardAmount)
			add(&it.ValidatorRewardsUsed, &sum.InputValidatorRewardAmount)
			add(&it.SvRewardsUsed, &sum.InputSvRewardAmount)
			add(&it.DevelopmentFundCouponsUsed, sum.InputDevelopmentFundAmount)
			return // the summary covers what its choice did below it
		}
		for _, c := range x.Children {
			if e := p.t.Event(c); e != nil && e.Exercised != nil {
				visit(e.Exercised)
			}
		}
	}
	visit(x)
}

// factoryTransfer reads TransferFactory_Transfer: a pending transfer
// locks the amount in a new instruction; a completed one (self, or direct
// through a pre-approval) moved it.
func (p *historyParser) factoryTransfer(ctx context.Context, id int32, x *ledger.Exercised) error {
	var arg splice.TransferFactoryTransfer
	var res splice.TransferInstructionResult
	if daml.ToGo(x.ChoiceArgument, &arg) != nil || daml.ToGo(x.ExerciseResult, &res) != nil {
		return nil
	}
	tr := arg.Transfer
	it := HistoryItem{Type: HistoryTransfer, EventID: eventID(p.t, id), Description: tr.Meta.Values[splice.MetaReason]}
	if pending := res.Output.Pending; pending != nil {
		amount := tr.Amount
		it.Subtype = createTransferInstructionST
		it.Sender = &PartyAmount{Party: tr.Sender, Amount: amount.Neg()}
		it.Receivers = []PartyAmount{} // nothing has moved yet: the amount is locked
		it.TransferInstructionReceiver, it.TransferInstructionAmount = tr.Receiver, &amount
		it.TransferInstructionCid = p.t.Final(pending.TransferInstructionCid)
		p.fees(&it, x)
		p.add(it)
		return nil
	}
	net, err := p.net(ctx, x)
	if err != nil {
		return err
	}
	it.Subtype, it.Sender = plainTransferST, &PartyAmount{Party: tr.Sender}
	p.fill(&it, x, net)
	p.add(it)
	return nil
}

// instructionAccept reads TransferInstruction_Accept: the locked amount
// goes from the instruction's sender to its receiver.
func (p *historyParser) instructionAccept(ctx context.Context, id int32, x *ledger.Exercised) error {
	c, _, err := p.v.net.Store().Contract(ctx, x.ContractID)
	if err != nil {
		return ignoreNotFound(err)
	}
	ti, err := splice.Decode[splice.AmuletTransferInstruction](c)
	if err != nil {
		return nil
	}
	tr := ti.Payload.Transfer
	it := HistoryItem{
		Type: HistoryTransfer, Subtype: HistorySubtype{Template: x.Template.Identifier, Choice: x.Choice, Interface: &splice.TransferInstructionInterface},
		EventID: eventID(p.t, id), Sender: &PartyAmount{Party: tr.Sender, Amount: tr.Amount.Neg()},
		Receivers:              []PartyAmount{{Party: tr.Receiver, Amount: tr.Amount}},
		TransferInstructionCid: x.ContractID, Description: tr.Meta.Values[splice.MetaReason],
	}
	p.fees(&it, x)
	p.add(it)
	return nil
}

func ignoreNotFound(err error) error {
	if fault.Is(err, fault.NotFound) {
		return nil
	}
	return err
}

// netChanges are parties' net changes of unlocked amulet, in the order
// the parties first appear.
type netChanges struct {
	by    map[daml.Party]daml.Numeric
	order []daml.Party
}

func (n *netChanges) add(p daml.Party, amount daml.Numeric, neg bool) {
	if n.by == nil {
		n.by = map[daml.Party]daml.Numeric{}
	}
	if _, ok := n.by[p]; !ok {
		n.order = append(n.order, p)
	}
	cur := n.by[p]
	var err error
	if neg {
		cur, err = cur.Sub(amount)
	} else {
		cur, err = cur.Add(amount)
	}
	if err == nil {
		n.by[p] = cur
	}
}

func (n netChanges) of(p daml.Party) daml.Numeric { return n.by[p] }

// net sums the amulets created (plus) and archived (minus) at and under
// x, by owner, at their initial amounts: what the action moved.
func (p *historyParser) net(ctx context.Context, x *ledger.Exercised) (netChanges, error) {
	var n netChanges
	var visit func(x *ledger.Exercised) error
	visit = func(x *ledger.Exercised) error {
		if x.Consuming && sameTemplate(x.Template, amuletID) {
			c, _, err := p.v.net.Store().Contract(ctx, x.ContractID)
			if err != nil {
				return ignoreNotFound(err)
			}
			if a, err := splice.Decode[splice.Amulet](c); err == nil {
				n.add(a.Payload.Owner, a.Payload.Amount.InitialAmount, true)
			}
		}
		for _, id := range x.Children {
			e := p.t.Event(id)
			switch {
			case e == nil:
			case e.Created != nil && sameTemplate(e.Created.Template, amuletID):
				if a, err := splice.Decode[splice.Amulet](e.Created); err == nil {
					n.add(a.Payload.Owner, a.Payload.Amount.InitialAmount, false)
				}
			case e.Exercised != nil:
				if err := visit(e.Exercised); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return n, visit(x)
}
