package validator

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// maxConcurrentSenders bounds how many senders' accepted offers one
// automation step completes at once.
const maxConcurrentSenders = 32

// Automation is the wallet automation of every wallet on the validator, as
// Splice's wallet triggers do it: the sender's wallet completes accepted
// transfer offers (or aborts them when it lacks the coins), both wallets
// expire offers and accepted offers once ledger time is past their expiry,
// an owner's wallet pays a subscription (a name entry's renewal) once it
// is in its payment window, every wallet merges its amulets (merge.go),
// the validator accepts and renews the transfer pre-approvals its
// operator provides (preapproval.go), and it sends the transfer commands
// its external parties signed (externalsend.go).
// It wakes at every commit, every clock advance, and the next expiry or
// payment window, never by polling.
type Automation struct {
	v      *Validator
	log    *slog.Logger
	merges mergeMemo
}

// Automation returns the validator's wallet automation.
func (v *Validator) Automation() *Automation { return &Automation{v: v, log: v.log} }

// Run acts until ctx ends.
func (a *Automation) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		committed, advanced := a.v.net.Committed(), a.v.net.Clock().Advanced()
		next, err := a.Step(ctx)
		if err != nil && ctx.Err() == nil {
			a.log.Warn("wallet automation failed; retrying", "err", err)
			next = a.v.net.Clock().Now() + daml.Timestamp(time.Second.Microseconds())
		}
		var timer *time.Timer
		var fire <-chan time.Time
		if next != 0 {
			d := time.Duration(next-a.v.net.Clock().Now()) * time.Microsecond
			timer = time.NewTimer(max(d, time.Millisecond))
			fire = timer.C
		}
		select {
		case <-committed:
		case <-advanced:
		case <-fire:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
	}
	return nil
}

// wallets maps the parties with a wallet on this validator to their
// wallets.
func (a *Automation) wallets(ctx context.Context) (map[daml.Party]Wallet, error) {
	installs, err := splice.Active[splice.WalletAppInstall](ctx, a.v.net.Store(), a.v.cfg.Party)
	if err != nil {
		return nil, err
	}
	m := map[daml.Party]Wallet{}
	for _, w := range installs {
		if w.Payload.ValidatorParty == a.v.cfg.Party {
			m[w.Payload.EndUserParty] = Wallet{User: w.Payload.EndUserName, Party: w.Payload.EndUserParty, Install: w.ID}
		}
	}
	return m, nil
}

// Step does what is due now and returns when something next falls due (0:
// nothing is scheduled). A failure of one contract's action is logged and
// retried at the next step; it does not stop the others.
func (a *Automation) Step(ctx context.Context) (next daml.Timestamp, err error) {
	v := a.v
	wallets, err := a.wallets(ctx)
	if err != nil {
		return 0, err
	}
	now := v.net.Clock().Now()
	due := func(t daml.Timestamp) {
		if t > now && (next == 0 || t < next) {
			next = t
		}
	}
	s := v.net.Store()
	accepted, err := activeAll[splice.AcceptedTransferOffer](ctx, s)
	if err != nil {
		return 0, err
	}
	// Each sender's accepted offers are completed one after the other, so
	// that two completions never pick the same amulets or count the same
	// balance twice; different senders' go concurrently, so that their
	// commits share the sequencer's group commits.
	bySender := map[daml.Party][]splice.Contract[splice.AcceptedTransferOffer]{}
	for _, o := range accepted {
		p := o.Payload
		if p.ExpiresAt < now {
			a.expire(ctx, wallets, o.ID, p.Sender, p.Receiver, true)
			continue
		}
		due(p.ExpiresAt + 1)
		if _, ok := wallets[p.Sender]; ok {
			bySender[p.Sender] = append(bySender[p.Sender], o)
		}
	}
	var wg sync.WaitGroup
	limit := make(chan struct{}, maxConcurrentSenders)
	for sender, os := range bySender {
		w := wallets[sender]
		limit <- struct{}{}
		wg.Go(func() {
			defer func() { <-limit }()
			for _, o := range os {
				if err := a.complete(ctx, w, o); err != nil && ctx.Err() == nil {
					a.log.Warn("completing an accepted transfer offer failed", "offer", o.ID, "tracking_id", o.Payload.TrackingID, "err", err)
				}
			}
		})
	}
	wg.Wait()
	offers, err := activeAll[splice.TransferOffer](ctx, s)
	if err != nil {
		return 0, err
	}
	for _, o := range offers {
		if o.Payload.ExpiresAt < now {
			a.expire(ctx, wallets, o.ID, o.Payload.Sender, o.Payload.Receiver, false)
		} else {
			due(o.Payload.ExpiresAt + 1)
		}
	}
	idles, err := activeAll[splice.SubscriptionIdleState](ctx, s)
	if err != nil {
		return 0, err
	}
	for _, i := range idles {
		w, ok := wallets[i.Payload.SubscriptionData.Sender]
		if !ok {
			continue
		}
		window := i.Payload.NextPaymentDueAt - daml.Timestamp(i.Payload.PayData.PaymentDuration.Microseconds)
		if now < window {
			due(window)
			continue
		}
		if now > i.Payload.NextPaymentDueAt {
			continue // too late: the DSO expires the subscription
		}
		if _, err := v.pay(ctx, w, "renew", func(tx *ledger.Tx, args splice.SubscriptionRequestAcceptAndMakePayment) error {
			_, err := ledger.Exercise[splice.SubscriptionIdleStateMakePaymentResult](tx, i.ID, "SubscriptionIdleState_MakePayment",
				splice.SubscriptionIdleStateMakePayment(args))
			return err
		}); err != nil && ctx.Err() == nil {
			// Without the funds the subscription is not renewed; the
			// entry expires. Try again at the next commit (a tap).
			a.log.Info("subscription payment not made", "user", w.User, "subscription", i.ID, "err", err)
		}
	}
	if t := a.merge(ctx, wallets, now); t != 0 {
		due(t)
	}
	if t := a.preapprovals(ctx, now); t != 0 {
		due(t)
	}
	if t := a.transferCommands(ctx, now); t != 0 {
		due(t)
	}
	return next, nil
}

// activeAll lists every active contract of a template on the ledger the
// validator's participant reads.
func activeAll[T ledger.Template](ctx context.Context, s ledger.Store) ([]splice.Contract[T], error) {
	return splice.Active[T](ctx, s, "")
}

// expire runs an expiry choice (WalletAppInstall_AcceptedTransferOffer_Expire
// when accepted, else WalletAppInstall_TransferOffer_Expire) through the
// wallet of whichever party of the offer has one here, acting as that party.
func (a *Automation) expire(ctx context.Context, wallets map[daml.Party]Wallet, cid daml.ContractID, sender, receiver daml.Party, accepted bool) {
	w, ok := wallets[sender]
	if !ok {
		if w, ok = wallets[receiver]; !ok {
			return
		}
	}
	_, err := a.v.submit(ctx, "expire-"+string(cid), []daml.Party{w.Party}, nil, func(tx *ledger.Tx) error {
		if accepted {
			_, err := ledger.Exercise[splice.WalletAcceptedTransferOfferExpireResult](tx, w.Install, "WalletAppInstall_AcceptedTransferOffer_Expire",
				splice.WalletAcceptedTransferOfferExpire{Cid: cid})
			return err
		}
		_, err := ledger.Exercise[splice.WalletTransferOfferExpireResult](tx, w.Install, "WalletAppInstall_TransferOffer_Expire",
			splice.WalletTransferOfferExpire{Cid: cid})
		return err
	})
	if err != nil && ctx.Err() == nil && !fault.Is(err, fault.Aborted) {
		a.log.Warn("expiring a transfer offer failed", "offer", cid, "err", err)
	}
}

// complete pays an accepted offer from the sender's wallet, or aborts it
// when the wallet lacks the coins, as Splice's AcceptedTransferOfferTrigger
// does ("out of funds (missing X CC)"). A wallet that has the coins, but
// in more amulets than one transfer may spend, waits for the merge
// automation instead. An offer of a non-positive amount (made through the
// ledger API: the wallet API refuses it) is aborted with that reason,
// rather than retried forever against a transfer that can never succeed.
func (a *Automation) complete(ctx context.Context, w Wallet, o splice.Contract[splice.AcceptedTransferOffer]) error {
	v := a.v
	defer v.spending.lock(w.Party)()
	_, hs, err := v.Holdings(ctx, w)
	if err != nil {
		return err
	}
	ac, err := v.amuletContext(ctx)
	if err != nil {
		return err
	}
	amount := o.Payload.Amount.Amount
	if o.Payload.Amount.Unit == splice.USDUnit {
		if amount, err = amount.Div(ac.OpenRound.Payload.AmuletPrice); err != nil {
			return err
		}
	}
	if err := CheckAmount("Transfer amount in CC", amount); err != nil {
		return a.abort(ctx, w, o.ID, err.Error())
	}
	sel := selectInputs(hs, maxInputs(ac), &amount)
	if !sel.Covered {
		if sel.Available.Cmp(amount) >= 0 {
			return nil // merged by this step's merge automation, paid at a later step
		}
		available, err := sel.Available.Numeric() // less than amount: a Numeric
		if err != nil {
			return err
		}
		missing, err := amount.Sub(available)
		if err != nil {
			return err
		}
		return a.abort(ctx, w, o.ID, fmt.Sprintf("out of funds (missing %s CC)", missing))
	}
	_, err = v.withAmulet(ctx, "complete-"+string(o.ID), []daml.Party{w.Party}, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		_, err := splice.CompleteAcceptedTransferOffer(tx, ac, o.ID, sel.IDs, v.cfg.Party)
		return err
	})
	return err
}

// abort ends an accepted offer the sender's wallet cannot complete, with
// the reason its transfer status reports.
func (a *Automation) abort(ctx context.Context, w Wallet, offer daml.ContractID, reason string) error {
	_, err := a.v.submit(ctx, "abort-"+string(offer), []daml.Party{w.Party}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.WalletAcceptedTransferOfferAbortResult](tx, w.Install, "WalletAppInstall_AcceptedTransferOffer_Abort", splice.WalletAcceptedTransferOfferAbort{
			Cid: offer, Reason: reason,
		})
		return err
	})
	return err
}
