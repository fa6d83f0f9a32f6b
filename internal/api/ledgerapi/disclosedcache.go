package ledgerapi

import (
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/ledger"
)

// disclosedCache remembers disclosed contracts that were checked: by
// created-event blob, the stored contract the blob was found to be. A
// wallet discloses the same few DSO contracts (AmuletRules, the open
// round, the transfer factory, a pre-approval) with every transfer, and
// checking one costs a decode of the blob, a store read and a decode of
// the stored contract.
//
// A hit stands for exactly the check it skips: the blob decoded, and the
// store held a contract with its id, template, argument and parties. Of a
// stored contract only archival (which disclosure ignores; the commit
// checks activeness) and a reassignment (its synchronizer and counter)
// change it, so an entry is used only while the ledger's contract epoch
// (ledger.Network.ContractEpoch) is the one noted before the store read,
// and for at most disclosedCacheTTL, which bounds how long a reassignment
// made by another process sharing the database goes unseen (as the
// engine's user cache does).
type disclosedCache struct {
	mu      sync.Mutex
	entries map[string]disclosedEntry
}

type disclosedEntry struct {
	stored *ledger.Contract
	epoch  uint64
	at     time.Time
}

const (
	// disclosedCacheSize bounds the entries; when full the cache starts
	// over, which in the steady state (a handful of hot contracts)
	// happens rarely and costs one miss per contract.
	disclosedCacheSize = 1024
	disclosedCacheTTL  = time.Second
)

// contractEpocher is the part of a Ledger that says when stored contracts
// changed (ledger.Network.ContractEpoch). A Ledger without it gets no
// caching of disclosed contracts.
type contractEpocher interface {
	ContractEpoch() uint64
}

func (l networkLedger) ContractEpoch() uint64 { return l.n.ContractEpoch() }

// get returns the stored contract checked for blob, or nil.
func (c *disclosedCache) get(blob string, epoch uint64, now time.Time) *ledger.Contract {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[blob]
	if !ok || e.epoch != epoch || now.Sub(e.at) >= disclosedCacheTTL || now.Before(e.at) {
		return nil
	}
	return e.stored
}

// put remembers that blob is the stored contract, as of epoch (read
// before the store was) and now.
func (c *disclosedCache) put(blob string, stored *ledger.Contract, epoch uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= disclosedCacheSize {
		c.entries = make(map[string]disclosedEntry, 16)
	}
	c.entries[blob] = disclosedEntry{stored: stored, epoch: epoch, at: now}
}
