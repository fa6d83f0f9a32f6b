package validator

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// TxLog builds the validator's transaction log from its participant's
// update stream: every step of every transfer offer its users send or
// receive. It stores each batch with the stream cursor in one transaction
// (compare-and-swap), so after a crash it resumes where its last commit
// ended and the log never disagrees with the ledger.
type TxLog struct {
	Network     *ledger.Network
	Participant ledger.ParticipantID
	Store       Store
	// BatchSize is the most updates read per step (500 when 0).
	BatchSize int
	Logger    *slog.Logger

	// mu makes the steps of this process take turns: requests that need
	// the log current (a status, a new offer) and the background loop
	// would otherwise read and decode the same updates and all but one
	// lose the cursor's compare-and-swap.
	mu sync.Mutex
}

var (
	transferOfferID         = splice.TransferOffer{}.TemplateID()
	acceptedTransferOfferID = splice.AcceptedTransferOffer{}.TemplateID()
	amuletID                = splice.Amulet{}.TemplateID()
)

// Step ingests the participant's stream up to its current end.
func (l *TxLog) Step(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	size := l.BatchSize
	if size <= 0 {
		size = 500
	}
	for {
		cur, err := l.Store.Cursor(ctx)
		if err != nil {
			return err
		}
		head, err := l.Network.Store().Head(ctx)
		if err != nil {
			return err
		}
		end := head.Offsets[l.Participant]
		if end <= cur {
			return nil
		}
		ups, err := l.Network.Store().Updates(ctx, ledger.UpdateQuery{Participant: l.Participant, After: cur, Until: end, Limit: size})
		if err != nil {
			return err
		}
		next := end
		if len(ups) == size {
			next = ups[len(ups)-1].Offset
		}
		var events []TransferEvent
		hosted := l.Network.HostedParties(l.Participant)
		for _, u := range ups {
			if u.Transaction == nil {
				continue
			}
			t := u.Transaction.Project(hosted)
			if t == nil {
				continue
			}
			evs, err := l.transferEvents(ctx, t)
			if err != nil {
				return err
			}
			events = append(events, evs...)
		}
		if err := l.Store.Ingest(ctx, cur, next, events); err != nil && !fault.Is(err, fault.Aborted) {
			return err
		}
		// Aborted: another ingester moved the cursor; read it again.
	}
}

// Run keeps the log up to date until ctx ends, waking at every commit.
func (l *TxLog) Run(ctx context.Context) error {
	log := l.logger()
	for ctx.Err() == nil {
		committed := l.Network.Committed()
		if err := l.Step(ctx); err != nil && ctx.Err() == nil {
			log.Warn("validator transaction log failed; retrying", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		select {
		case <-committed:
		case <-ctx.Done():
		}
	}
	return nil
}

func (l *TxLog) logger() *slog.Logger {
	if l.Logger == nil {
		return slog.Default()
	}
	return l.Logger
}

// skip logs a step of a transaction the log cannot record. No content on
// the ledger may stop the log: an offer created through the ledger API
// with an empty tracking id, a payload of another shape, text a database
// cannot store would otherwise fail every batch after it, for every user,
// across restarts.
func (l *TxLog) skip(t *ledger.Transaction, cid daml.ContractID, err error) {
	l.logger().Warn("validator transaction log skips a transfer step it cannot record",
		"update_id", t.UpdateID, "contract_id", cid, "err", err)
}

// transferEvents reads the transfer offer steps of a transaction. What it
// cannot read or store is skipped (skip); only a failure to read the
// ledger's store is an error, retried by the caller.
func (l *TxLog) transferEvents(ctx context.Context, t *ledger.Transaction) ([]TransferEvent, error) {
	var out []TransferEvent
	add := func(cid daml.ContractID, ev TransferEvent) {
		ev.Reason = cleanText(ev.Reason, MaxReasonBytes)
		if err := ev.Check(); err != nil {
			l.skip(t, cid, err)
			return
		}
		out = append(out, ev)
	}
	for i := range t.Events {
		e := &t.Events[i]
		if c := e.Created; c != nil && sameTemplate(c.Template, transferOfferID) {
			o, err := splice.Decode[splice.TransferOffer](c)
			if err != nil {
				l.skip(t, c.ID, err)
				continue
			}
			add(c.ID, TransferEvent{
				TrackingID: o.Payload.TrackingID, Sender: o.Payload.Sender, Receiver: o.Payload.Receiver,
				State: TransferCreated, UpdateID: t.UpdateID, ContractID: c.ID, RecordTime: t.RecordTime,
			})
			continue
		}
		x := e.Exercised
		if x == nil || !x.Consuming {
			continue
		}
		var step TransferEvent
		switch {
		case sameTemplate(x.Template, transferOfferID):
			switch x.Choice {
			case "TransferOffer_Accept":
				step = TransferEvent{State: TransferAccepted, ContractID: createdIn(t, x, acceptedTransferOfferID, "")}
			case "TransferOffer_Reject":
				step = TransferEvent{State: TransferFailed, FailureKind: FailureRejected}
			case "TransferOffer_Withdraw":
				step = TransferEvent{State: TransferFailed, FailureKind: FailureWithdrawn, Reason: reasonOf(x)}
			case "TransferOffer_Expire":
				step = TransferEvent{State: TransferFailed, FailureKind: FailureExpired}
			default:
				continue
			}
		case sameTemplate(x.Template, acceptedTransferOfferID):
			switch x.Choice {
			case "AcceptedTransferOffer_Complete":
				step = TransferEvent{State: TransferCompleted}
			case "AcceptedTransferOffer_Withdraw", "AcceptedTransferOffer_Abort":
				step = TransferEvent{State: TransferFailed, FailureKind: FailureWithdrawn, Reason: reasonOf(x)}
			case "AcceptedTransferOffer_Expire":
				step = TransferEvent{State: TransferFailed, FailureKind: FailureExpired}
			default:
				continue
			}
		default:
			continue
		}
		// The exercise names only the contract: its tracking info is in
		// the payload the offer was created with.
		c, _, err := l.Network.Store().Contract(ctx, x.ContractID)
		if fault.Is(err, fault.NotFound) {
			l.skip(t, x.ContractID, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		info, err := trackingInfo(c)
		if err != nil {
			l.skip(t, x.ContractID, err)
			continue
		}
		step.TrackingID, step.Sender, step.Receiver = info.TrackingID, info.Sender, info.Receiver
		step.UpdateID, step.RecordTime = t.UpdateID, t.RecordTime
		if step.State == TransferCompleted {
			step.ContractID = createdIn(t, x, amuletID, info.Receiver)
		}
		add(x.ContractID, step)
	}
	return out, nil
}

type tracking struct {
	TrackingID       string
	Sender, Receiver daml.Party
}

func trackingInfo(c *ledger.Contract) (tracking, error) {
	if sameTemplate(c.Template, transferOfferID) {
		o, err := splice.Decode[splice.TransferOffer](c)
		return tracking{o.Payload.TrackingID, o.Payload.Sender, o.Payload.Receiver}, err
	}
	o, err := splice.Decode[splice.AcceptedTransferOffer](c)
	return tracking{o.Payload.TrackingID, o.Payload.Sender, o.Payload.Receiver}, err
}

// createdIn finds the first contract of a template created under an
// exercise (owned by owner, for amulets, when owner is set).
func createdIn(t *ledger.Transaction, x *ledger.Exercised, tid ledger.TemplateID, owner daml.Party) daml.ContractID {
	var found daml.ContractID
	var walk func(ids []int32)
	walk = func(ids []int32) {
		for _, id := range ids {
			if found != "" {
				return
			}
			e := t.Event(id)
			if e == nil {
				continue
			}
			if c := e.Created; c != nil && sameTemplate(c.Template, tid) {
				if owner == "" {
					found = c.ID
					return
				}
				if a, err := splice.Decode[splice.Amulet](c); err == nil && a.Payload.Owner == owner {
					found = c.ID
					return
				}
			}
			if e.Exercised != nil {
				walk(e.Exercised.Children)
			}
		}
	}
	walk(x.Children)
	return found
}

// reasonOf reads the reason argument of a withdraw or abort. The record
// type is left unnamed, so that it reads the argument of any of them.
func reasonOf(x *ledger.Exercised) string {
	var arg struct {
		Reason string `daml:"reason"`
	}
	if err := daml.ToGo(x.ChoiceArgument, &arg); err != nil {
		return ""
	}
	return arg.Reason
}

// sameTemplate matches templates by package name, module and entity, so
// that a package upgrade does not hide them.
func sameTemplate(a, b ledger.TemplateID) bool {
	return a.PackageName == b.PackageName && a.ModuleName == b.ModuleName && a.EntityName == b.EntityName
}
