package validator

import (
	"context"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Transfer pre-approvals the validator operator provides. Splice's
// validator runs them through its own wallet's WalletAppInstall_ExecuteBatch
// (CO_AcceptTransferPreapprovalProposal, CO_RenewTransferPreapproval);
// sandnet does not model ExecuteBatch (docs/packages.md), so the operator
// exercises TransferPreapprovalProposal_Accept and TransferPreapproval_Renew
// itself, paying from its own amulets as the batch would.

// The validator's pre-approval settings, Splice's defaults
// (TransferPreapprovalConfig).
const (
	// PreapprovalLifetime is how long a pre-approval the validator creates
	// or renews lasts: the free base duration of the amulet configuration,
	// so neither costs the operator anything by default.
	PreapprovalLifetime = 90 * 24 * time.Hour
	// PreapprovalRenewal is how long before its expiry the validator
	// renews a pre-approval it provides.
	PreapprovalRenewal = 30 * 24 * time.Hour
)

func micros(d time.Duration) daml.Timestamp { return daml.Timestamp(d.Microseconds()) }

// NoPreapproval is the 404 of a party without a pre-approval, in Splice's
// words, which clients match on.
func NoPreapproval(party daml.Party) error {
	return fault.New(fault.NotFound, "No TransferPreapproval found for party: %s", fault.Clip(string(party)))
}

// Preapprovals lists the active pre-approvals the validator operator
// provides on its DSO's network, expired ones included until the DSO
// archives them.
func (v *Validator) Preapprovals(ctx context.Context) ([]splice.Contract[splice.TransferPreapproval], error) {
	all, err := splice.Active[splice.TransferPreapproval](ctx, v.net.Store(), v.cfg.Party)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, p := range all {
		if p.Payload.Provider == v.cfg.Party && p.Payload.DSO == v.cfg.DSO {
			out = append(out, p)
		}
	}
	return out, nil
}

// Preapproval returns the pre-approval the operator provides receiver
// (the latest valid one when there are several); NoPreapproval when none.
func (v *Validator) Preapproval(ctx context.Context, receiver daml.Party) (splice.Contract[splice.TransferPreapproval], error) {
	all, err := v.Preapprovals(ctx)
	if err != nil {
		return splice.Contract[splice.TransferPreapproval]{}, err
	}
	best := latestPreapproval(all, receiver)
	if best == nil {
		return splice.Contract[splice.TransferPreapproval]{}, NoPreapproval(receiver)
	}
	return *best, nil
}

// CancelPreapproval cancels the pre-approval the operator provides
// receiver, as its provider (TransferPreapproval_Cancel); NoPreapproval
// when there is none. An expired one cannot be cancelled (the choice's
// deadline, a 409): the DSO expires it.
func (v *Validator) CancelPreapproval(ctx context.Context, receiver daml.Party) error {
	p, err := v.Preapproval(ctx, receiver)
	if err != nil {
		return err
	}
	_, err = v.submit(ctx, "cancel-preapproval", nil, nil, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.TransferPreapprovalCancelResult](tx, p.ID, "TransferPreapproval_Cancel",
			splice.TransferPreapprovalCancel{P: v.cfg.Party})
		return err
	})
	return err
}

// receiverPreapproval returns an active pre-approval of receiver on the
// validator's DSO, whoever provides it (nil: none), as a wallet sees its
// own.
func (v *Validator) receiverPreapproval(ctx context.Context, receiver daml.Party) (*splice.Contract[splice.TransferPreapproval], error) {
	all, err := splice.Active[splice.TransferPreapproval](ctx, v.net.Store(), receiver)
	if err != nil {
		return nil, err
	}
	ours := all[:0]
	for _, p := range all {
		if p.Payload.DSO == v.cfg.DSO {
			ours = append(ours, p)
		}
	}
	return latestPreapproval(ours, receiver), nil
}

// latestPreapproval returns receiver's pre-approval in all with the latest
// validFrom, the first listed on a tie (nil: none).
func latestPreapproval(all []splice.Contract[splice.TransferPreapproval], receiver daml.Party) *splice.Contract[splice.TransferPreapproval] {
	var best *splice.Contract[splice.TransferPreapproval]
	for i, p := range all {
		if p.Payload.Receiver == receiver && (best == nil || p.Payload.ValidFrom > best.Payload.ValidFrom) {
			best = &all[i]
		}
	}
	return best
}

// CreatePreapproval gives the wallet's party a pre-approval provided by
// the validator operator, as Splice's wallet does: the user proposes it
// (a TransferPreapprovalProposal, unless one is pending) and the
// validator's automation accepts it. Where Splice's wallet waits for the
// automation, sandnet runs the acceptance at once, so the answer never
// depends on timing. existed reports a pre-approval the party already had
// (Splice's 409, which carries its contract id); a second request while
// the first is being submitted is a 429.
func (v *Validator) CreatePreapproval(ctx context.Context, w Wallet) (cid daml.ContractID, existed bool, err error) {
	release, err := v.flight.begin("preapproval/"+string(w.Party), "Transfer pre-approval creation for "+fault.Clip(string(w.Party)))
	if err != nil {
		return "", false, err
	}
	defer release()
	if p, err := v.receiverPreapproval(ctx, w.Party); err != nil || p != nil {
		if p != nil {
			return p.ID, true, nil
		}
		return "", false, err
	}
	proposal, err := v.proposalOf(ctx, w.Party)
	if err != nil {
		return "", false, err
	}
	if proposal == "" {
		dso := v.cfg.DSO
		t, err := v.submit(ctx, "preapproval-proposal", []daml.Party{w.Party}, nil, func(tx *ledger.Tx) error {
			var err error
			proposal, err = ledger.Create(tx, splice.TransferPreapprovalProposal{Receiver: w.Party, Provider: v.cfg.Party, ExpectedDso: &dso})
			return err
		})
		if err != nil {
			return "", false, err
		}
		proposal = t.Final(proposal)
	}
	cid, err = v.acceptProposal(ctx, proposal, w.Party)
	if err != nil {
		if fault.Is(err, fault.Internal) || !isFault(err) {
			return "", false, err
		}
		return "", false, fault.Wrap(fault.Aborted, err, "The validator could not create the transfer pre-approval (its operator may lack the funds for the fee); retry later")
	}
	return cid, false, nil
}

func isFault(err error) bool { _, ok := fault.As(err); return ok }

// proposalOf returns receiver's pending proposal to the operator ("":
// none).
func (v *Validator) proposalOf(ctx context.Context, receiver daml.Party) (daml.ContractID, error) {
	ps, err := splice.Active[splice.TransferPreapprovalProposal](ctx, v.net.Store(), receiver)
	if err != nil {
		return "", err
	}
	for _, p := range ps {
		if p.Payload.Receiver == receiver && p.Payload.Provider == v.cfg.Party {
			return p.ID, nil
		}
	}
	return "", nil
}

// operatorInputs are the operator wallet's amulets a fee may be paid
// from, as many as one transfer takes.
func (v *Validator) operatorInputs(ctx context.Context, ac splice.AmuletContext) ([]splice.TransferInput, error) {
	_, hs, err := v.Holdings(ctx, Wallet{Party: v.cfg.Party})
	if err != nil {
		return nil, err
	}
	return splice.InputAmulets(selectInputs(hs, maxInputs(ac), nil).IDs...), nil
}

// acceptProposal accepts a proposal naming the operator as provider, for
// PreapprovalLifetime from ledger time now, unless the receiver has had a
// pre-approval from the operator meanwhile (then that one is returned).
// It holds the operator wallet's spending lock, so the automation and a
// wallet request never accept the same proposal twice.
func (v *Validator) acceptProposal(ctx context.Context, proposal daml.ContractID, receiver daml.Party) (daml.ContractID, error) {
	defer v.spending.lock(v.cfg.Party)()
	if p, err := v.Preapproval(ctx, receiver); err == nil {
		return p.ID, nil
	} else if !fault.Is(err, fault.NotFound) {
		return "", err
	}
	var cid daml.ContractID
	t, err := v.withAmulet(ctx, "accept-preapproval-proposal", nil, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		inputs, err := v.operatorInputs(ctx, ac)
		if err != nil {
			return err
		}
		// The lifetime counts from the transaction's ledger time, which
		// the choice takes as the pre-approval's creation: from the clock
		// read a moment later it would exceed the free base duration by
		// that moment, and cost the operator a fee of next to nothing
		// (which the burn refuses as not positive).
		res, err := ledger.Exercise[splice.TransferPreapprovalProposalAcceptResult](tx, proposal, "TransferPreapprovalProposal_Accept",
			splice.TransferPreapprovalProposalAccept{
				Context: ac.PaymentContext(), Inputs: inputs, ExpiresAt: tx.Now() + micros(PreapprovalLifetime),
			})
		cid = res.TransferPreapprovalCid
		return err
	})
	if err != nil {
		return "", err
	}
	return t.Final(cid), nil
}

// renewPreapproval extends a pre-approval the operator provides by
// PreapprovalLifetime beyond its expiry (TransferPreapproval_Renew).
func (v *Validator) renewPreapproval(ctx context.Context, p splice.Contract[splice.TransferPreapproval]) error {
	defer v.spending.lock(v.cfg.Party)()
	_, err := v.withAmulet(ctx, "renew-preapproval", nil, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		inputs, err := v.operatorInputs(ctx, ac)
		if err != nil {
			return err
		}
		_, err = ledger.Exercise[splice.TransferPreapprovalRenewResult](tx, p.ID, "TransferPreapproval_Renew",
			splice.TransferPreapprovalRenew{Context: ac.PaymentContext(), Inputs: inputs, NewExpiresAt: p.Payload.ExpiresAt + micros(PreapprovalLifetime)})
		return err
	})
	return err
}

// hostedHere reports whether the validator's participant hosts p.
func (v *Validator) hostedHere(ctx context.Context, p daml.Party) (bool, error) {
	hs := v.net.HostingsOf(p)
	if len(hs) == 0 {
		var err error
		if hs, err = v.net.Store().Hostings(ctx, p); err != nil {
			return false, err
		}
	}
	for _, h := range hs {
		if h.Participant == v.cfg.Participant {
			return true, nil
		}
	}
	return false, nil
}

// preapprovals is the validator's pre-approval automation, Splice's
// AcceptTransferPreapprovalProposalTrigger and
// RenewTransferPreapprovalTrigger: it accepts the proposals naming the
// operator as provider whose receiver its participant hosts and has no
// pre-approval from it yet, and renews the operator's pre-approvals that
// expire within PreapprovalRenewal (not those already expired, which the
// DSO expires). It returns when a renewal next falls due (0: none).
func (a *Automation) preapprovals(ctx context.Context, now daml.Timestamp) daml.Timestamp {
	v := a.v
	var next daml.Timestamp
	proposals, err := activeAll[splice.TransferPreapprovalProposal](ctx, v.net.Store())
	if err != nil {
		if ctx.Err() == nil { // not the automation stopping
			a.log.Warn("listing transfer pre-approval proposals failed", "err", err)
		}
		return 0
	}
	ps, err := v.Preapprovals(ctx)
	if err != nil {
		a.log.Warn("listing transfer pre-approvals failed", "err", err)
		return 0
	}
	has := map[daml.Party]bool{}
	for _, p := range ps {
		has[p.Payload.Receiver] = true
	}
	accepted := false
	for _, p := range proposals {
		receiver := p.Payload.Receiver
		if p.Payload.Provider != v.cfg.Party || has[receiver] {
			continue // a receiver that has one keeps its proposal, as in Splice
		}
		if ok, err := v.hostedHere(ctx, receiver); err != nil || !ok {
			if err != nil {
				a.log.Warn("looking up a pre-approval receiver's hosting failed", "receiver", receiver, "err", err)
			}
			continue
		}
		has[receiver] = true // a second proposal of the same receiver waits for the next step
		accepted = true
		if _, err := v.acceptProposal(ctx, p.ID, receiver); err != nil && ctx.Err() == nil {
			a.log.Info("transfer pre-approval proposal not accepted", "proposal", p.ID, "receiver", receiver, "err", err)
		}
	}
	if accepted {
		// The new ones are due for renewal long after the others.
		if ps, err = v.Preapprovals(ctx); err != nil {
			a.log.Warn("listing transfer pre-approvals failed", "err", err)
			return 0
		}
	}
	for _, p := range ps {
		renewAt := p.Payload.ExpiresAt - micros(PreapprovalRenewal)
		switch {
		case now < renewAt:
			if next == 0 || renewAt < next {
				next = renewAt
			}
		case now <= p.Payload.ExpiresAt:
			if err := v.renewPreapproval(ctx, p); err != nil && ctx.Err() == nil {
				a.log.Info("transfer pre-approval not renewed", "preapproval", p.ID, "receiver", p.Payload.Receiver, "err", err)
			}
		}
	}
	return next
}

// PreapprovalSend is a transfer to a receiver's pre-approval as a wallet's
// user asks for it.
type PreapprovalSend struct {
	Receiver daml.Party
	Amount   daml.Numeric // CC
	// DeduplicationID makes the send idempotent: a second send with it by
	// the same sender within the ledger's deduplication period is refused
	// (409).
	DeduplicationID string
	// Description, when set, is the transfer's description.
	Description *string
}

// SendThroughPreapproval transfers amount CC from the wallet to the
// receiver's pre-approval, found through Scan as Splice's wallet finds it
// (a receiver without one is a 400), with the pre-approval disclosed.
// Splice sends through WalletAppInstall_ExecuteBatch's
// CO_TransferPreapprovalSend (TransferPreapproval_SendV2); sandnet
// exercises the deprecated TransferPreapproval_Send, which moves the same
// amulet with the pre-approval's provider as the transfer's provider.
func (v *Validator) SendThroughPreapproval(ctx context.Context, w Wallet, r PreapprovalSend) error {
	if !ledger.ValidPartyID(string(r.Receiver)) {
		return fault.New(fault.InvalidArgument, "Invalid receiver_party_id %s: expected a party id such as alice::1220…", fault.Quote(string(r.Receiver)))
	}
	if err := CheckAmount("Transfer amount", r.Amount); err != nil {
		return err
	}
	if r.DeduplicationID == "" {
		return fault.New(fault.InvalidArgument, "deduplication_id must not be empty")
	}
	pc, err := v.scan.TransferPreapprovalByParty(ctx, r.Receiver)
	if fault.Is(err, fault.NotFound) {
		return fault.New(fault.InvalidArgument, "Receiver %s does not have a TransferPreapproval", fault.Clip(string(r.Receiver)))
	}
	if err != nil {
		return err
	}
	defer v.spending.lock(w.Party)()
	_, hs, err := v.Holdings(ctx, w)
	if err != nil {
		return err
	}
	id := splice.DedupCommandID("transferPreapprovalSend", []daml.Party{w.Party}, r.DeduplicationID)
	_, err = v.withAmuletDisclosing(ctx, id, []daml.Party{w.Party}, []*ledger.Contract{pc}, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		sel := selectInputs(hs, maxInputs(ac), &r.Amount)
		if len(sel.IDs) == 0 {
			return fault.New(fault.FailedPrecondition, "%s has no amulet to send", fault.Clip(w.User))
		}
		_, err := ledger.Exercise[splice.TransferPreapprovalSendResult](tx, pc.ID, "TransferPreapproval_Send", splice.TransferPreapprovalSend{
			Context: ac.PaymentContext(), Inputs: splice.InputAmulets(sel.IDs...), Amount: r.Amount, Sender: w.Party, Description: r.Description,
		})
		return err
	})
	return err
}
