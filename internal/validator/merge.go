package validator

import (
	"context"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// inputSelection is the amulets a transfer from a wallet spends.
type inputSelection struct {
	IDs []daml.ContractID
	// Total is what the selected amulets are worth; Covered says whether
	// it reaches the amount asked for (always, when none was).
	Total   daml.Sum
	Covered bool
	// Available is what all the wallet's unlocked amulets are worth.
	Available daml.Sum
}

// selectInputs picks the amulets a transfer spends, as Splice's wallet
// does: the unlocked amulets, largest first, at most maxInputs of them (the
// open round's maxNumInputs: AmuletRules refuses a transfer with more) and,
// when amount is given, only as many as cover it. Transfers, payments and
// the merge automation all pick their inputs here. An amulet whose initial
// amount would take the selection's sum beyond a Decimal is left out,
// because the transfer sums them as Decimals and would fail.
func selectInputs(hs []Holding, maxInputs int64, amount *daml.Numeric) inputSelection {
	var sel inputSelection
	hs = slices.DeleteFunc(slices.Clone(hs), func(h Holding) bool { return h.Locked })
	slices.SortStableFunc(hs, func(a, b Holding) int { return b.EffectiveAmount.Cmp(a.EffectiveAmount) })
	var initial daml.Numeric
	for _, h := range hs {
		sel.Available.Add(h.EffectiveAmount)
		if int64(len(sel.IDs)) >= maxInputs || amount != nil && len(sel.IDs) > 0 && sel.Total.Cmp(*amount) >= 0 {
			continue
		}
		next, err := initial.Add(h.InitialAmount)
		if err != nil {
			continue
		}
		initial = next
		sel.IDs = append(sel.IDs, h.Contract.ID)
		sel.Total.Add(h.EffectiveAmount)
	}
	sel.Covered = amount == nil || sel.Total.Cmp(*amount) >= 0
	return sel
}

// maxInputs is the most inputs a transfer in the round may have.
func maxInputs(ac splice.AmuletContext) int64 {
	return ac.OpenRound.Payload.TransferConfigUSD.MaxNumInputs
}

// walletLocks serialises what spends a wallet's amulets (completing a
// transfer, paying a subscription, merging), as Splice's treasury queue
// does per wallet, so that one never picks inputs another is spending.
// Parties share a lock when their hashes meet, which only delays them.
type walletLocks struct {
	mu [64]sync.Mutex
}

func (l *walletLocks) of(p daml.Party) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(p))
	return &l.mu[h.Sum32()%uint32(len(l.mu))]
}

// lock locks p's wallet; the returned function unlocks it.
func (l *walletLocks) lock(p daml.Party) func() {
	m := l.of(p)
	m.Lock()
	return m.Unlock
}

// tryLock locks p's wallet unless it is locked.
func (l *walletLocks) tryLock(p daml.Party) (unlock func(), ok bool) {
	m := l.of(p)
	if !m.TryLock() {
		return nil, false
	}
	return m.Unlock, true
}

// mergeMemo remembers, per wallet, the last selection whose merge failed
// for a reason retrying cannot cure, so that the automation tries it
// again only once the wallet's amulets change, rather than at every
// commit.
type mergeMemo struct {
	mu     sync.Mutex
	failed map[daml.Party]uint64
}

func (m *mergeMemo) failedBefore(p daml.Party, key uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.failed[p]
	return ok && k == key
}

func (m *mergeMemo) record(p daml.Party, key uint64, failed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !failed {
		delete(m.failed, p)
		return
	}
	if m.failed == nil {
		m.failed = map[daml.Party]uint64{}
	}
	m.failed[p] = key
}

// selectionKey identifies a selection of inputs.
func selectionKey(ids []daml.ContractID) uint64 {
	h := fnv.New64a()
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

var amuletTemplate = splice.Amulet{}.TemplateID()

// mergeAge is how old (in ledger time) an amulet must be before the
// automation merges it: Splice's merge trigger runs every 30 s, so a
// client that taps or receives coin sees the new amulet before it is
// merged, here as there.
const mergeAge = 30 * time.Second

// merge consolidates the amulets of every wallet on the validator, as
// Splice's collect-rewards-and-merge trigger does: a wallet holding more
// than one amulet at least mergeAge old transfers up to maxNumInputs of
// them, largest first, to itself. Each merge is a commit that wakes the
// automation again, so a wallet with many amulets is merged down in a few
// steps, and transfers and payments, which take at most maxNumInputs
// inputs, can use all of its coin. A failed merge is logged and not
// retried until the wallet's amulets change. It returns when an amulet
// next comes of age for a merge (0: none waits).
func (a *Automation) merge(ctx context.Context, wallets map[daml.Party]Wallet, now daml.Timestamp) (next daml.Timestamp) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	limit := make(chan struct{}, maxConcurrentSenders)
	for _, w := range wallets {
		limit <- struct{}{}
		wg.Go(func() {
			defer func() { <-limit }()
			due, err := a.mergeWallet(ctx, w, now)
			if err != nil && ctx.Err() == nil {
				a.log.Warn("merging a wallet's amulets failed; retrying once they change", "user", w.User, "err", err)
			}
			mu.Lock()
			if due != 0 && (next == 0 || due < next) {
				next = due
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return next
}

// mergeWallet merges one wallet's amulets that are old enough, if it
// holds more than one, or returns when two will be.
func (a *Automation) mergeWallet(ctx context.Context, w Wallet, now daml.Timestamp) (due daml.Timestamp, _ error) {
	v := a.v
	// Most wallets hold one amulet most of the time: look at two at most
	// before reading them all.
	few, err := v.net.Store().ActiveContracts(ctx, ledger.ContractFilter{
		Templates: []ledger.TemplateID{amuletTemplate}, Stakeholder: w.Party, Limit: 2,
	})
	if err != nil || len(few) < 2 {
		return 0, err
	}
	unlock, ok := v.spending.tryLock(w.Party)
	if !ok {
		return 0, nil // the wallet is spending: its commit wakes the automation again
	}
	defer unlock()
	_, hs, err := v.Holdings(ctx, w)
	if err != nil {
		return 0, err
	}
	// Only amulets of age are merged; wake when enough young ones are.
	age := daml.Timestamp(mergeAge.Microseconds())
	var aged []Holding
	var young []daml.Timestamp
	for _, h := range hs {
		switch {
		case h.Locked:
		case h.Contract.CreatedAt+age <= now:
			aged = append(aged, h)
		default:
			young = append(young, h.Contract.CreatedAt+age)
		}
	}
	if len(aged) < 2 {
		slices.Sort(young)
		if need := 2 - len(aged); len(young) >= need {
			return young[need-1], nil
		}
		return 0, nil
	}
	ac, err := v.amuletContext(ctx)
	if err != nil {
		return 0, err
	}
	sel := selectInputs(aged, maxInputs(ac), nil)
	if len(sel.IDs) < 2 {
		return 0, nil
	}
	key := selectionKey(sel.IDs)
	if a.merges.failedBefore(w.Party, key) {
		return 0, nil
	}
	_, err = v.withAmulet(ctx, mergeCommandPrefix+w.User, []daml.Party{w.Party}, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		_, err := splice.TransferAmulet(tx, ac, w.Party, v.cfg.Party, sel.IDs)
		return err
	})
	// Contention and unavailability pass; anything else would fail the
	// same way on the same amulets.
	transient := err != nil && (fault.Is(err, fault.Aborted) || fault.Is(err, fault.Unavailable) || stale(err) || ctx.Err() != nil)
	if !transient {
		a.merges.record(w.Party, key, err != nil)
	}
	return 0, err
}
