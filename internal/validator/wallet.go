package validator

import (
	"context"
	"slices"
	"sync"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// amuletContext reads the amulet rules and the open round to transact in
// from Scan: the latest round that has opened by ledger time now, as
// Splice's wallet picks it.
func (v *Validator) amuletContext(ctx context.Context) (splice.AmuletContext, error) {
	rulesC, err := v.scan.AmuletRules(ctx)
	if err != nil {
		return splice.AmuletContext{}, err
	}
	rules, err := decoded[splice.AmuletRules](&v.decoded, rulesC)
	if err != nil {
		return splice.AmuletContext{}, err
	}
	open, _, err := v.scan.OpenAndIssuingRounds(ctx)
	if err != nil {
		return splice.AmuletContext{}, err
	}
	now := v.net.Clock().Now()
	var best *splice.Contract[splice.OpenMiningRound]
	for _, c := range open {
		r, err := decoded[splice.OpenMiningRound](&v.decoded, c)
		if err != nil {
			return splice.AmuletContext{}, err
		}
		if r.Payload.OpensAt <= now && (best == nil || r.Payload.Round.Number > best.Payload.Round.Number) {
			best = &r
		}
	}
	if best == nil {
		return splice.AmuletContext{}, fault.New(fault.Unavailable, "no open mining round has opened yet; retry shortly")
	}
	return splice.AmuletContext{AmuletRules: rules, OpenRound: *best}, nil
}

// decodeCache keeps the decoded payloads of the DSO contracts every
// command discloses (the amulet rules' payload is large): a contract never
// changes, so its id is the key. It holds the few contracts seen last.
type decodeCache struct {
	mu sync.Mutex
	m  map[daml.ContractID]any
}

// decoded decodes a contract's payload, once per contract id.
func decoded[T ledger.Template](c *decodeCache, k *ledger.Contract) (splice.Contract[T], error) {
	c.mu.Lock()
	if d, ok := c.m[k.ID].(splice.Contract[T]); ok {
		c.mu.Unlock()
		return d, nil
	}
	c.mu.Unlock()
	d, err := splice.Decode[T](k)
	if err != nil {
		return d, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= 64 {
		c.m = map[daml.ContractID]any{} // rounds come and go: start afresh
	}
	c.m[k.ID] = d
	c.mu.Unlock()
	return d, nil
}

// withAmulet runs a command that uses the amulet rules and an open round
// from Scan, disclosed, under a command id made unique from prefix. When
// the command finds them stale (archived since Scan's answer), it
// refreshes them once and retries.
func (v *Validator) withAmulet(ctx context.Context, prefix string, actAs []daml.Party, run func(tx *ledger.Tx, ac splice.AmuletContext) error) (*ledger.Transaction, error) {
	return v.withAmuletID(ctx, splice.CommandID(prefix), actAs, run)
}

// withAmuletID is withAmulet under a given command id. A retry keeps it:
// a rejected submission does not count for deduplication.
func (v *Validator) withAmuletID(ctx context.Context, commandID string, actAs []daml.Party, run func(tx *ledger.Tx, ac splice.AmuletContext) error) (*ledger.Transaction, error) {
	return v.withAmuletDisclosing(ctx, commandID, actAs, nil, run)
}

// withAmuletDisclosing is withAmuletID disclosing extra contracts too (a
// receiver's pre-approval, which its sender cannot see).
func (v *Validator) withAmuletDisclosing(ctx context.Context, commandID string, actAs []daml.Party, extra []*ledger.Contract, run func(tx *ledger.Tx, ac splice.AmuletContext) error) (*ledger.Transaction, error) {
	for attempt := 0; ; attempt++ {
		ac, err := v.amuletContext(ctx)
		if err != nil {
			return nil, err
		}
		t, err := v.submitID(ctx, commandID, actAs, slices.Concat(ac.Disclosed(), extra), func(tx *ledger.Tx) error { return run(tx, ac) })
		if err != nil && attempt == 0 && stale(err) {
			v.scan.Invalidate()
			continue
		}
		return t, err
	}
}

// stale reports whether a command failed on a contract that is no longer
// active: a disclosed DSO contract Scan had not yet seen archived, or one a
// command sequenced with it consumed.
func stale(err error) bool {
	f, ok := fault.As(err)
	return ok && (f.Code == ledger.CodeInactiveContracts || f.Code == ledger.CodeLockedContracts || f.Code == "CONTRACT_NOT_FOUND")
}

// tapMethod is the method name of Splice's wallet tap command ids.
const tapMethod = "org.lfdecentralizedtrust.splice.wallet.tap"

// Tap mints coin for a wallet from the DevNet faucet. amountUSD is in USD,
// as Splice's wallet takes it; it is converted to CC at the open round's
// price, rounding up. It returns the new amulet.
//
// A commandID makes the tap idempotent, as in Splice's wallet: the ledger
// command id derives from it and the wallet's party, and the ledger
// deduplicates it, so a second tap with the same commandID within the
// participant's deduplication period fails with DUPLICATE_COMMAND
// (fault.AlreadyExists) and one while the first is still being submitted
// with SUBMISSION_ALREADY_IN_FLIGHT (fault.Aborted). Without one, every
// tap is new.
func (v *Validator) Tap(ctx context.Context, w Wallet, amountUSD daml.Numeric, commandID string) (daml.ContractID, error) {
	if err := CheckAmount("Tap amount", amountUSD); err != nil {
		return "", err
	}
	id := splice.CommandID("tap-" + w.User)
	if commandID != "" {
		id = splice.DedupCommandID(tapMethod, []daml.Party{w.Party}, commandID)
	}
	var cid daml.ContractID
	t, err := v.withAmuletID(ctx, id, []daml.Party{w.Party}, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		cc, err := amountUSD.DivCeil(ac.OpenRound.Payload.AmuletPrice)
		if err != nil {
			return fault.Wrap(fault.InvalidArgument, err, "convert %s USD to CC", amountUSD)
		}
		res, err := splice.Tap(tx, ac, w.Party, cc)
		cid = res.AmuletSum.Amulet
		return err
	})
	if err != nil {
		return "", err
	}
	return t.Final(cid), nil
}

// Holding is an amulet of a wallet with its value at the current round.
type Holding struct {
	Contract *ledger.Contract
	// Round is the round the values are computed at.
	Round           int64
	AccruedFee      daml.Numeric
	EffectiveAmount daml.Numeric
	// InitialAmount is what a transfer spending the amulet sums.
	InitialAmount daml.Numeric
	// Locked is set for a LockedAmulet.
	Locked bool
}

// Holdings returns a wallet's amulets and locked amulets, valued at the
// latest open round.
func (v *Validator) Holdings(ctx context.Context, w Wallet) (round int64, hs []Holding, err error) {
	ac, err := v.amuletContext(ctx)
	if err != nil {
		return 0, nil, err
	}
	r := ac.OpenRound.Payload.Round
	amulets, err := splice.Active[splice.Amulet](ctx, v.net.Store(), w.Party)
	if err != nil {
		return 0, nil, err
	}
	for _, a := range amulets {
		if a.Payload.Owner != w.Party {
			continue
		}
		h, err := holding(a.Contract, a.Payload.Amount, r, false)
		if err != nil {
			return 0, nil, err
		}
		hs = append(hs, h)
	}
	locked, err := splice.Active[splice.LockedAmulet](ctx, v.net.Store(), w.Party)
	if err != nil {
		return 0, nil, err
	}
	for _, l := range locked {
		if l.Payload.Amulet.Owner != w.Party {
			continue
		}
		h, err := holding(l.Contract, l.Payload.Amulet.Amount, r, true)
		if err != nil {
			return 0, nil, err
		}
		hs = append(hs, h)
	}
	return r.Number, hs, nil
}

func holding(c *ledger.Contract, amount splice.ExpiringAmount, r splice.Round, locked bool) (Holding, error) {
	fee, err := splice.HoldingFee(amount, r)
	if err != nil {
		return Holding{}, err
	}
	eff, err := splice.EffectiveAmount(amount, r)
	if err != nil {
		return Holding{}, err
	}
	return Holding{Contract: c, Round: r.Number, AccruedFee: fee, EffectiveAmount: eff, InitialAmount: amount.InitialAmount, Locked: locked}, nil
}

// Balance is a wallet's balance at the latest open round. Its totals are
// exact sums, which may exceed a Numeric's range: however many amulets a
// wallet holds, its balance is served, never an overflow.
type Balance struct {
	Round            int64
	Unlocked, Locked daml.Sum
	HoldingFees      daml.Sum
}

// Balance sums a wallet's holdings.
func (v *Validator) Balance(ctx context.Context, w Wallet) (Balance, error) {
	round, hs, err := v.Holdings(ctx, w)
	if err != nil {
		return Balance{}, err
	}
	b := Balance{Round: round}
	for _, h := range hs {
		if h.Locked {
			b.Locked.Add(h.EffectiveAmount)
		} else {
			b.Unlocked.Add(h.EffectiveAmount)
		}
		b.HoldingFees.Add(h.AccruedFee)
	}
	return b, nil
}
