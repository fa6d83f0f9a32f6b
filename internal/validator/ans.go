package validator

import (
	"context"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// EntryRequest is what POST /v0/entry/create answers: the entry's context
// and the subscription request the user accepts to pay for it.
type EntryRequest struct {
	EntryContext        daml.ContractID
	SubscriptionRequest daml.ContractID
	Name, URL           string
	Description         string
}

// RequestEntry asks the DSO for a name (AnsRules_RequestEntry, with the
// AnsRules from Scan disclosed). The entry exists once the user accepts
// the subscription request and the DSO collects the first payment.
func (v *Validator) RequestEntry(ctx context.Context, w Wallet, name, url, description string) (EntryRequest, error) {
	if err := splice.ValidateAnsEntryRequest(v.cfg.AnsAcronym, name, url, description); err != nil {
		return EntryRequest{}, err
	}
	release, err := v.flight.begin("ans/"+name, "the request for "+name)
	if err != nil {
		return EntryRequest{}, err
	}
	defer release()
	rules, err := v.scan.AnsRules(ctx)
	if err != nil {
		return EntryRequest{}, err
	}
	var res splice.AnsRulesRequestEntryResult
	t, err := v.submit(ctx, "ans-entry-"+name, []daml.Party{w.Party}, []*ledger.Contract{rules}, func(tx *ledger.Tx) error {
		var err error
		res, err = ledger.Exercise[splice.AnsRulesRequestEntryResult](tx, rules.ID, "AnsRules_RequestEntry", splice.AnsRulesRequestEntry{
			Name: name, URL: url, Description: description, User: w.Party,
		})
		return err
	})
	if err != nil {
		if stale(err) {
			v.scan.Invalidate()
		}
		return EntryRequest{}, err
	}
	return EntryRequest{EntryContext: t.Final(res.EntryCid), SubscriptionRequest: t.Final(res.RequestCid), Name: name, URL: url, Description: description}, nil
}

// SubscriptionRequests lists the subscription requests a wallet is asked
// to pay.
func (v *Validator) SubscriptionRequests(ctx context.Context, w Wallet) ([]splice.Contract[splice.SubscriptionRequest], error) {
	rs, err := splice.Active[splice.SubscriptionRequest](ctx, v.net.Store(), w.Party)
	return slices.DeleteFunc(rs, func(r splice.Contract[splice.SubscriptionRequest]) bool {
		return r.Payload.SubscriptionData.Sender != w.Party
	}), err
}

// AcceptSubscription accepts a subscription request and makes its first
// payment from the wallet's amulets (SubscriptionRequest_AcceptAndMakePayment).
// It returns the initial payment, which the DSO's automation collects.
func (v *Validator) AcceptSubscription(ctx context.Context, w Wallet, request daml.ContractID) (daml.ContractID, error) {
	c, active, err := v.net.Store().Contract(ctx, request)
	if fault.Is(err, fault.NotFound) || err == nil && (!active || !sameTemplate(c.Template, splice.SubscriptionRequest{}.TemplateID())) {
		return "", fault.New(fault.NotFound, "Subscription request %s not found", fault.Clip(string(request)))
	}
	if err != nil {
		return "", err
	}
	r, err := splice.Decode[splice.SubscriptionRequest](c)
	if err != nil {
		return "", err
	}
	if r.Payload.SubscriptionData.Sender != w.Party {
		return "", fault.New(fault.NotFound, "Subscription request %s not found", fault.Clip(string(request)))
	}
	if err := CheckAmount("Subscription payment amount", r.Payload.PayData.PaymentAmount.Amount); err != nil {
		return "", err
	}
	var payment daml.ContractID
	t, err := v.pay(ctx, w, "subscribe", func(tx *ledger.Tx, args splice.SubscriptionRequestAcceptAndMakePayment) error {
		res, err := ledger.Exercise[splice.SubscriptionRequestAcceptAndMakePaymentResult](tx, request, "SubscriptionRequest_AcceptAndMakePayment", args)
		payment = res.SubscriptionPayment
		return err
	})
	if err != nil {
		return "", err
	}
	return t.Final(payment), nil
}

// pay runs a subscription payment from the wallet's amulets, picked by
// selectInputs (the largest, at most maxNumInputs), with the amulet rules
// and open round from Scan disclosed. The arguments of the two payment
// choices have the same fields; run gets them as the initial payment's.
func (v *Validator) pay(ctx context.Context, w Wallet, prefix string, run func(tx *ledger.Tx, args splice.SubscriptionRequestAcceptAndMakePayment) error) (*ledger.Transaction, error) {
	defer v.spending.lock(w.Party)()
	_, hs, err := v.Holdings(ctx, w)
	if err != nil {
		return nil, err
	}
	return v.withAmulet(ctx, prefix+"-"+w.User, []daml.Party{w.Party}, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		sel := selectInputs(hs, maxInputs(ac), nil)
		if len(sel.IDs) == 0 {
			return fault.New(fault.DamlPrecondition, "%s has no amulet to pay with", w.User)
		}
		return run(tx, splice.SubscriptionRequestAcceptAndMakePayment{
			Inputs: splice.InputAmulets(sel.IDs...), Context: ac.PaymentContext(), WalletProvider: v.cfg.Party,
		})
	})
}

// Entry is a name entry of a user as GET /v0/entry/all lists it.
type Entry struct {
	ContractID daml.ContractID
	Name       string
	Amount     daml.Numeric
	Unit       splice.Unit
	ExpiresAt  daml.Timestamp
	// PaymentInterval and PaymentDuration are in microseconds.
	PaymentInterval, PaymentDuration int64
}

// Entries lists a wallet's name entries that have not expired by ledger
// time, even while an expired entry's contract is still active, in
// creation order.
func (v *Validator) Entries(ctx context.Context, w Wallet) ([]Entry, error) {
	s := v.net.Store()
	entries, err := splice.Active[splice.AnsEntry](ctx, s, w.Party)
	if err != nil {
		return nil, err
	}
	contexts, err := splice.Active[splice.AnsEntryContext](ctx, s, w.Party)
	if err != nil {
		return nil, err
	}
	idles, err := splice.Active[splice.SubscriptionIdleState](ctx, s, w.Party)
	if err != nil {
		return nil, err
	}
	payments, err := splice.Active[splice.SubscriptionPayment](ctx, s, w.Party)
	if err != nil {
		return nil, err
	}
	// The pay data of each entry's subscription, found through the
	// entry's context (same name), whose reference the subscription keeps.
	payData := func(name string) (splice.SubscriptionPayData, bool) {
		for _, c := range contexts {
			if c.Payload.Name != name || c.Payload.User != w.Party {
				continue
			}
			for _, i := range idles {
				if i.Payload.Reference == c.ID || i.Payload.Reference == c.Payload.Reference {
					return i.Payload.PayData, true
				}
			}
			for _, p := range payments {
				if p.Payload.Reference == c.ID || p.Payload.Reference == c.Payload.Reference {
					return p.Payload.PayData, true
				}
			}
		}
		return splice.SubscriptionPayData{}, false
	}
	now := v.net.Clock().Now()
	var out []Entry
	for _, e := range entries {
		if e.Payload.User != w.Party || e.Payload.ExpiresAt < now {
			continue
		}
		pd, ok := payData(e.Payload.Name)
		if !ok {
			continue // not a subscription of this wallet
		}
		out = append(out, Entry{
			ContractID: e.ID, Name: e.Payload.Name, Amount: pd.PaymentAmount.Amount, Unit: pd.PaymentAmount.Unit,
			ExpiresAt: e.Payload.ExpiresAt, PaymentInterval: pd.PaymentInterval.Microseconds, PaymentDuration: pd.PaymentDuration.Microseconds,
		})
	}
	return out, nil
}

// UnitName renders a payment unit as Splice's wallet API does: the Java
// enum's name ("USDUNIT"), not the Daml constructor ("USDUnit").
func UnitName(u splice.Unit) string { return strings.ToUpper(string(u)) }
