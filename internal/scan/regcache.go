package scan

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// IngestObserver learns of every batch an Ingester stores: BeginIngest
// just before the store's transaction starts, EndIngest once it has
// ended (err nil when it committed). Calls never overlap: one Ingester
// stores one batch at a time.
type IngestObserver interface {
	BeginIngest()
	EndIngest(prev, next Cursor, updates []Update, err error)
}

// RegistryCache keeps what the token-standard registry reads (the DSO's
// AmuletRules, open mining rounds, ExternalPartyConfigStates and
// ExternalPartyAmuletRules, the TransferPreapprovals and FeaturedAppRights),
// decoded, so that the transfer-factory, allocation-factory and
// choice-context answers need no store read in the steady state.
//
// It is exactly as fresh as the Scan's store. It is built from the store
// and labelled with the store's cursor, and the Ingester that fills the
// store tells it of every batch (it is the Ingester's Observer): a batch
// that creates, archives or moves none of those contracts only moves the
// label on; any other batch, a failed one, or one that does not start at
// the label (another process stored the batches in between) drops it,
// and the next read builds it again. While a batch is being stored the
// cache is used only after one small read has found the store's cursor
// still where the build was made (the batch is not visible yet), so no
// read sees the cache older than the store. It is built only once the
// Scan's history is complete: backfilling writes the past into the
// active contract set without moving the cursor.
//
// A Scan whose store other processes write too (a shared PostgreSQL
// database) sets Shared: every read then compares the store's cursor with
// the label, one small read, and builds the cache again when it moved.
type RegistryCache struct {
	// Shared says that other processes may ingest into the store.
	Shared bool

	// state is the current build, nil when there is none or while a
	// batch is being stored.
	state atomic.Pointer[registryState]

	mu sync.Mutex
	// held is the build taken out of state while a batch is stored.
	held *registryState
	// pending is true while a batch is being stored.
	pending bool
	// gen counts batches begun and ended: a build installs itself only
	// when no batch began or ended while it read the store.
	gen uint64
	// builds counts the builds installed (tests read it).
	builds atomic.Int64
}

// NewRegistryCache returns an empty cache.
func NewRegistryCache() *RegistryCache { return &RegistryCache{} }

// Builds returns how many times the cache has been built from the store.
func (c *RegistryCache) Builds() int64 { return c.builds.Load() }

// BeginIngest takes the build out of use until EndIngest.
func (c *RegistryCache) BeginIngest() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = true
	c.gen++
	if st := c.state.Swap(nil); st != nil {
		c.held = st
	}
}

// EndIngest keeps the build, labelled with next, when the batch committed,
// started at its label and touched none of its contracts; otherwise it
// drops it.
func (c *RegistryCache) EndIngest(prev, next Cursor, updates []Update, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.held
	c.held, c.pending = nil, false
	c.gen++
	if err != nil || st == nil || st.cursor != prev.Offset || st.touchedBy(updates) {
		return
	}
	moved := *st
	moved.cursor = next.Offset
	c.state.Store(&moved)
}

// registryKeys are the templates the cache holds, in the order a build
// reads them.
var registryKeys = []TemplateKey{
	KeyOfTemplate[splice.AmuletRules](),
	KeyOfTemplate[splice.OpenMiningRound](),
	KeyOfTemplate[splice.ExternalPartyConfigState](),
	KeyOfTemplate[splice.ExternalPartyAmuletRules](),
	KeyOfTemplate[splice.TransferPreapproval](),
	KeyOfTemplate[splice.FeaturedAppRight](),
}

func isRegistryKey(k TemplateKey) bool { return slices.Contains(registryKeys, k) }

// round is an open mining round, decoded.
type round struct {
	contract *ledger.Contract
	opensAt  daml.Timestamp
	number   int64
}

// registryState is what the registry reads, as of the store's cursor.
// Its contracts are shared by every answer: nothing may modify them.
type registryState struct {
	// cursor is the store's cursor offset the state was read at.
	cursor ledger.Offset
	// ids are the contracts the state holds, to find the archives that
	// concern it.
	ids map[daml.ContractID]struct{}

	rules      *ledger.Contract // the last created AmuletRules, or nil
	rulesValue splice.AmuletRules
	rounds     []round
	// configState is the newer of exactly two ExternalPartyConfigStates,
	// or nil.
	configState *ledger.Contract
	// factory is the last created ExternalPartyAmuletRules, or nil.
	factory *ledger.Contract
	// preapprovals maps a receiver to its TransferPreapproval with the
	// latest validFrom (the later created on a tie).
	preapprovals map[daml.Party]*splice.Contract[splice.TransferPreapproval]
	// featured maps a provider to its first created FeaturedAppRight.
	featured map[daml.Party]*ledger.Contract
}

// touchedBy says whether updates create, archive or move a contract of
// the state's templates.
func (st *registryState) touchedBy(updates []Update) bool {
	for i := range updates {
		u := &updates[i]
		if r := u.Reassignment; r != nil {
			if r.Contract == nil || isRegistryKey(KeyOf(r.Contract.Template)) {
				return true
			}
			if _, held := st.ids[r.Contract.ID]; held {
				return true
			}
			continue
		}
		for _, c := range u.Created {
			if isRegistryKey(KeyOf(c.Template)) {
				return true
			}
		}
		for _, id := range u.Archived {
			if _, held := st.ids[id]; held {
				return true
			}
		}
	}
	return false
}

// readRegistryState reads the state from the store: the DSO's active
// contracts of the registry's templates, in creation order, decoded.
func readRegistryState(ctx context.Context, s *Service) (*registryState, error) {
	cs, err := s.Store.ActiveContracts(ctx, ContractQuery{Templates: registryKeys})
	if err != nil {
		return nil, err
	}
	st := &registryState{
		ids:          make(map[daml.ContractID]struct{}, len(cs)),
		preapprovals: map[daml.Party]*splice.Contract[splice.TransferPreapproval]{},
		featured:     map[daml.Party]*ledger.Contract{},
	}
	var states []splice.Contract[splice.ExternalPartyConfigState]
	for _, c := range cs {
		st.ids[c.ID] = struct{}{}
		bad := func(err error) error { return fault.Wrap(fault.Internal, err, "decode %s", c.ID) }
		switch KeyOf(c.Template) {
		case registryKeys[0]:
			d, err := splice.Decode[splice.AmuletRules](c)
			if err != nil {
				return nil, bad(err)
			}
			st.rules, st.rulesValue = c, d.Payload
		case registryKeys[1]:
			d, err := splice.Decode[splice.OpenMiningRound](c)
			if err != nil {
				return nil, bad(err)
			}
			st.rounds = append(st.rounds, round{contract: c, opensAt: d.Payload.OpensAt, number: d.Payload.Round.Number})
		case registryKeys[2]:
			d, err := splice.Decode[splice.ExternalPartyConfigState](c)
			if err != nil {
				return nil, bad(err)
			}
			states = append(states, d)
		case registryKeys[3]:
			if _, err := splice.Decode[splice.ExternalPartyAmuletRules](c); err != nil {
				return nil, bad(err)
			}
			st.factory = c
		case registryKeys[4]:
			d, err := splice.Decode[splice.TransferPreapproval](c)
			if err != nil {
				return nil, bad(err)
			}
			if best := st.preapprovals[d.Payload.Receiver]; best == nil || d.Payload.ValidFrom >= best.Payload.ValidFrom {
				st.preapprovals[d.Payload.Receiver] = &d
			}
		case registryKeys[5]:
			d, err := splice.Decode[splice.FeaturedAppRight](c)
			if err != nil {
				return nil, bad(err)
			}
			if _, ok := st.featured[d.Payload.Provider]; !ok {
				st.featured[d.Payload.Provider] = c
			}
		}
	}
	if len(states) == 2 {
		// Splice's store pairs them; a stable sort, as Splice's: on a tie
		// the later created is the newer.
		slices.SortStableFunc(states, func(a, b splice.Contract[splice.ExternalPartyConfigState]) int {
			return cmp.Compare(a.Payload.TargetArchiveAfter, b.Payload.TargetArchiveAfter)
		})
		st.configState = states[1].Contract
	}
	return st, nil
}

// registry returns the registry's state as the store has it now: the
// cache's build when it is current, else one read from the store (and
// kept when no batch was stored meanwhile and the history is complete).
func (s *Service) registry(ctx context.Context) (*registryState, error) {
	c := s.Registry
	if c == nil {
		return readRegistryState(ctx, s)
	}
	st := c.state.Load()
	if st != nil && !c.Shared {
		return st, nil
	}
	c.mu.Lock()
	gen, pending, held := c.gen, c.pending, c.held
	c.mu.Unlock()
	cur, err := s.Store.Cursor(ctx)
	if err != nil {
		return nil, err
	}
	if pending {
		// A batch is being stored. The store moves its cursor in the
		// batch's transaction: while the cursor is still the build's,
		// the batch is not visible and the build is the store's state.
		if held != nil && held.cursor == cur.Offset {
			return held, nil
		}
		return readRegistryState(ctx, s)
	}
	if st != nil && st.cursor == cur.Offset {
		return st, nil
	}
	bf, err := s.Store.Backfilling(ctx)
	if err != nil {
		return nil, err
	}
	fresh, err := readRegistryState(ctx, s)
	if err != nil || !bf.Complete || !bf.ImportUpdatesComplete {
		return fresh, err
	}
	fresh.cursor = cur.Offset
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen && !c.pending {
		// No batch of this process was stored since the cursor was read;
		// another process's batch would have moved the cursor, and the
		// label is then older than the state, which only costs a build.
		c.state.Store(fresh)
		c.builds.Add(1)
	}
	return fresh, nil
}
