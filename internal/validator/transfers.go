package validator

import (
	"context"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// OfferRequest is a direct transfer offer as a wallet's user makes it.
type OfferRequest struct {
	Receiver    daml.Party
	Amount      daml.Numeric // CC
	Description string
	ExpiresAt   daml.Timestamp
	TrackingID  string
}

// CreateOffer offers the receiver a direct transfer of amount CC
// (WalletAppInstall_CreateTransferOffer). A tracking id the sender has
// used before is a 409; the same request while it is being submitted is a
// 429. Coins are not locked: they move only when the sender's wallet
// automation completes the accepted offer.
//
// Beyond Splice (docs/decisions.md), a non-positive amount and an expiry
// not after ledger time now are refused (400): Splice accepts both and
// leaves an offer no one can complete, or one that expires at once.
func (v *Validator) CreateOffer(ctx context.Context, w Wallet, r OfferRequest) (daml.ContractID, error) {
	if !ledger.ValidPartyID(string(r.Receiver)) {
		return "", fault.New(fault.InvalidArgument, "Invalid receiver_party_id %s: expected a party id such as alice::1220…", fault.Quote(string(r.Receiver)))
	}
	if err := CheckTrackingID(r.TrackingID); err != nil {
		return "", err
	}
	if r.TrackingID == "." || r.TrackingID == ".." {
		// The status endpoint takes the tracking id as a path segment, and
		// HTTP clients and servers resolve "." and ".." away: such an offer
		// could never be looked up. (The log still records one made through
		// the ledger: only the wallet API refuses it.)
		return "", fault.New(fault.InvalidArgument, "tracking_id %q cannot be a path segment: its status could never be asked for", r.TrackingID)
	}
	if err := CheckAmount("Transfer offer amount", r.Amount); err != nil {
		return "", err
	}
	if now := v.net.Clock().Now(); r.ExpiresAt <= now {
		return "", fault.New(fault.InvalidArgument, "expires_at %s is not after the current ledger time %s", r.ExpiresAt, now)
	}
	if err := v.knownParty(ctx, r.Receiver); err != nil {
		return "", err
	}
	release, err := v.flight.begin("offer/"+string(w.Party)+"/"+r.TrackingID, "CreateTransferOffer with trackingId "+fault.Clip(r.TrackingID))
	if err != nil {
		return "", err
	}
	defer release()
	// The log first, then the ledger's active offers: an offer created a
	// moment ago may not be in the log yet.
	if err := v.txlog.Step(ctx); err != nil {
		return "", err
	}
	if _, err := v.store.SentTransfer(ctx, w.Party, r.TrackingID); err == nil {
		return "", fault.New(fault.AlreadyExists, "Transfer offer with trackingId %s already exists.", fault.Clip(r.TrackingID))
	} else if !fault.Is(err, fault.NotFound) {
		return "", err
	}
	var cid daml.ContractID
	t, err := v.submit(ctx, "transfer-offer-"+r.TrackingID, []daml.Party{w.Party}, nil, func(tx *ledger.Tx) error {
		res, err := ledger.Exercise[splice.WalletCreateTransferOfferResult](tx, w.Install, "WalletAppInstall_CreateTransferOffer", splice.WalletCreateTransferOffer{
			Receiver: r.Receiver, Amount: splice.Amulets(r.Amount), Description: r.Description,
			ExpiresAt: r.ExpiresAt, TrackingID: r.TrackingID,
		})
		cid = res.TransferOffer
		return err
	})
	if err != nil {
		return "", err
	}
	return t.Final(cid), nil
}

// knownParty refuses a party no participant hosts, as Canton's routing
// refuses a transaction with such an informee (UNKNOWN_INFORMEES, which
// Splice answers with 404). The network's topology cache answers for the
// parties this process has seen; the store, for the rest.
func (v *Validator) knownParty(ctx context.Context, p daml.Party) error {
	if len(v.net.HostingsOf(p)) > 0 {
		return nil
	}
	hs, err := v.net.Store().Hostings(ctx, p)
	if err != nil {
		return err
	}
	if len(hs) == 0 {
		return fault.WithCode(fault.NotFound, "UNKNOWN_INFORMEES",
			"UNKNOWN_INFORMEES: no participant hosts %s, an informee of the transaction", fault.Clip(string(p)))
	}
	return nil
}

// Offers lists the open transfer offers a wallet sends or receives.
func (v *Validator) Offers(ctx context.Context, w Wallet) ([]splice.Contract[splice.TransferOffer], error) {
	offers, err := splice.Active[splice.TransferOffer](ctx, v.net.Store(), w.Party)
	return slices.DeleteFunc(offers, func(o splice.Contract[splice.TransferOffer]) bool {
		return o.Payload.Sender != w.Party && o.Payload.Receiver != w.Party
	}), err
}

// AcceptedOffers lists the accepted offers a wallet sends or receives.
func (v *Validator) AcceptedOffers(ctx context.Context, w Wallet) ([]splice.Contract[splice.AcceptedTransferOffer], error) {
	offers, err := splice.Active[splice.AcceptedTransferOffer](ctx, v.net.Store(), w.Party)
	return slices.DeleteFunc(offers, func(o splice.Contract[splice.AcceptedTransferOffer]) bool {
		return o.Payload.Sender != w.Party && o.Payload.Receiver != w.Party
	}), err
}

// TransferStatus returns where the transfer with a tracking id that the
// wallet sends or receives stands. It reads the log after bringing it up
// to the ledger end, so a step the caller just made is there.
func (v *Validator) TransferStatus(ctx context.Context, w Wallet, trackingID string) (TransferEvent, error) {
	notFound := fault.New(fault.NotFound, "Couldn't find transfer offer with tracking id %s", fault.Clip(trackingID))
	if CheckTrackingID(trackingID) != nil {
		return TransferEvent{}, notFound // the log holds no such id
	}
	if err := v.txlog.Step(ctx); err != nil {
		return TransferEvent{}, err
	}
	ev, err := v.store.Transfer(ctx, w.Party, trackingID)
	if fault.Is(err, fault.NotFound) {
		return TransferEvent{}, notFound
	}
	return ev, err
}

// offer returns an active transfer offer the wallet takes part in; any
// other contract id is a 404.
func (v *Validator) offer(ctx context.Context, w Wallet, cid daml.ContractID) (splice.Contract[splice.TransferOffer], error) {
	c, active, err := v.net.Store().Contract(ctx, cid)
	if err == nil && active && sameTemplate(c.Template, transferOfferID) {
		o, err := splice.Decode[splice.TransferOffer](c)
		if err != nil {
			return o, err
		}
		if o.Payload.Sender == w.Party || o.Payload.Receiver == w.Party {
			return o, nil
		}
	} else if err != nil && !fault.Is(err, fault.NotFound) {
		return splice.Contract[splice.TransferOffer]{}, err
	}
	return splice.Contract[splice.TransferOffer]{}, fault.New(fault.NotFound, "Transfer offer %s not found", fault.Clip(string(cid)))
}

// AcceptOffer accepts an offer as its receiver. Ledger time must not be
// after the offer's expiry (exactly at it is allowed): a later accept
// fails the choice's precondition, a 409.
func (v *Validator) AcceptOffer(ctx context.Context, w Wallet, cid daml.ContractID) (daml.ContractID, error) {
	o, err := v.offer(ctx, w, cid)
	if err != nil {
		return "", err
	}
	if o.Payload.Receiver != w.Party {
		return "", fault.New(fault.PermissionDenied, "Only the receiver %s can accept transfer offer %s", o.Payload.Receiver, cid)
	}
	var accepted daml.ContractID
	t, err := v.submit(ctx, "accept-"+string(cid), []daml.Party{w.Party}, nil, func(tx *ledger.Tx) error {
		res, err := ledger.Exercise[splice.WalletTransferOfferAcceptResult](tx, w.Install, "WalletAppInstall_TransferOffer_Accept", splice.WalletTransferOfferAccept{Cid: cid})
		accepted = res.AcceptedTransferOffer
		return err
	})
	if err != nil {
		return "", err
	}
	return t.Final(accepted), nil
}

// RejectOffer rejects an offer as its receiver.
func (v *Validator) RejectOffer(ctx context.Context, w Wallet, cid daml.ContractID) error {
	o, err := v.offer(ctx, w, cid)
	if err != nil {
		return err
	}
	if o.Payload.Receiver != w.Party {
		return fault.New(fault.PermissionDenied, "Only the receiver %s can reject transfer offer %s", o.Payload.Receiver, cid)
	}
	_, err = v.submit(ctx, "reject-"+string(cid), []daml.Party{w.Party}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.WalletTransferOfferRejectResult](tx, w.Install, "WalletAppInstall_TransferOffer_Reject", splice.WalletTransferOfferReject{Cid: cid})
		return err
	})
	return err
}

// WithdrawReason is the reason Splice's wallet gives when a sender
// withdraws an offer.
const WithdrawReason = "Withdrawn by sender"

// WithdrawOffer withdraws an offer as its sender.
func (v *Validator) WithdrawOffer(ctx context.Context, w Wallet, cid daml.ContractID) error {
	o, err := v.offer(ctx, w, cid)
	if err != nil {
		return err
	}
	if o.Payload.Sender != w.Party {
		return fault.New(fault.PermissionDenied, "Only the sender %s can withdraw transfer offer %s", o.Payload.Sender, cid)
	}
	_, err = v.submit(ctx, "withdraw-"+string(cid), []daml.Party{w.Party}, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.WalletTransferOfferWithdrawResult](tx, w.Install, "WalletAppInstall_TransferOffer_Withdraw", splice.WalletTransferOfferWithdraw{Cid: cid, Reason: WithdrawReason})
		return err
	})
	return err
}
