package scan

import (
	"context"
	"sync/atomic"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// Amulet as an instrument of the Canton Network token standard, as a
// Scan's registry API describes it.
const (
	// AmuletInstrumentID is Amulet's instrument id: the id of the
	// InstrumentId {admin: DSO, id} of every Amulet and LockedAmulet
	// holding view.
	AmuletInstrumentID = "Amulet"
	// AmuletDecimals is how many decimals Amulet amounts have: those of a
	// Daml Decimal.
	AmuletDecimals = 10
	// DefaultAmuletName and DefaultAmuletAcronym are the instrument's
	// name and symbol when Config leaves them empty: LocalNet's
	// (the Canton Network's are "Canton Coin" and "CC").
	DefaultAmuletName    = "Amulet"
	DefaultAmuletAcronym = "AMT"
)

// Names of the token-standard APIs, the keys of a registry's supportedApis.
const (
	APITokenMetadataV1            = "splice-api-token-metadata-v1"
	APITokenHoldingV1             = "splice-api-token-holding-v1"
	APITokenTransferInstructionV1 = "splice-api-token-transfer-instruction-v1"
	APITokenAllocationV1          = "splice-api-token-allocation-v1"
	APITokenAllocationInstrV1     = "splice-api-token-allocation-instruction-v1"
)

// RegistryAPIs returns the registry-wide token-standard APIs the Scan
// serves, each with its minor version: the metadata API only, as Splice's
// Scan reports it.
func RegistryAPIs() map[string]int { return map[string]int{APITokenMetadataV1: 1} }

// AmuletAPIs returns the token-standard APIs Amulet supports here, each
// with its minor version. Only what sandnet implements is listed: the
// metadata API it serves, the Holding interface Amulet and LockedAmulet
// implement, transfer instructions (the registry's transfer-factory and
// choice contexts, ExternalPartyAmuletRules as TransferFactory and
// AmuletTransferInstruction as TransferInstruction) and allocations (the
// allocation-factory and the allocations' choice contexts,
// ExternalPartyAmuletRules as AllocationFactory and AmuletAllocation as
// Allocation). Splice lists the v2 APIs too; they are not built, and a
// client that read them here would call endpoints that are not served.
func AmuletAPIs() map[string]int {
	return map[string]int{
		APITokenMetadataV1: 1, APITokenHoldingV1: 1, APITokenTransferInstructionV1: 1,
		APITokenAllocationV1: 1, APITokenAllocationInstrV1: 1,
	}
}

// Instrument is a token-standard instrument's metadata.
type Instrument struct {
	ID       string
	Name     string
	Symbol   string
	Decimals int
	// Supply is the total supply as of the latest ACS snapshot; nil when
	// the Scan has no snapshot.
	Supply *Supply
	// SupportedAPIs maps API names to minor versions.
	SupportedAPIs map[string]int
}

// Supply is an amount of amulet in existence at a time.
type Supply struct {
	// Total sums the initial amounts of the active Amulet and LockedAmulet
	// contracts.
	Total daml.Numeric
	// AsOf is the record time of the snapshot it was summed over.
	AsOf daml.Timestamp
}

// supplyOf is the supply summed over one snapshot, cached by the
// snapshot's id: a published snapshot never changes.
type supplyOf struct {
	snapshot int64
	supply   Supply
}

// supplyCache holds the supply of the latest snapshot summed so far.
type supplyCache = atomic.Pointer[supplyOf]

// Instruments lists the instruments the DSO administers: Amulet.
func (s *Service) Instruments(ctx context.Context) ([]Instrument, error) {
	a, err := s.amulet(ctx)
	if err != nil {
		return nil, err
	}
	return []Instrument{a}, nil
}

// Instrument returns the instrument with an id; any id but Amulet's is a
// fault.NotFound in Splice's wording.
func (s *Service) Instrument(ctx context.Context, id string) (Instrument, error) {
	if id != AmuletInstrumentID {
		return Instrument{}, fault.New(fault.NotFound, "No instrument with id %s found", fault.Clip(id))
	}
	return s.amulet(ctx)
}

func (s *Service) amulet(ctx context.Context) (Instrument, error) {
	in := Instrument{
		ID: AmuletInstrumentID, Name: s.Config.AmuletName, Symbol: s.Config.AmuletAcronym,
		Decimals: AmuletDecimals, SupportedAPIs: AmuletAPIs(),
	}
	if in.Name == "" {
		in.Name = DefaultAmuletName
	}
	if in.Symbol == "" {
		in.Symbol = DefaultAmuletAcronym
	}
	sup, ok, err := s.TotalSupply(ctx)
	if err != nil {
		return Instrument{}, err
	}
	if ok {
		in.Supply = &sup
	}
	return in, nil
}

// TotalSupply returns the amulet in the latest ACS snapshot, locked and
// unlocked (the initial amounts, holding fees not deducted), and false
// when the Scan has no snapshot yet.
func (s *Service) TotalSupply(ctx context.Context) (Supply, bool, error) {
	snap, err := s.Store.LatestSnapshot(ctx)
	if fault.Is(err, fault.NotFound) {
		return Supply{}, false, nil
	}
	if err != nil {
		return Supply{}, false, err
	}
	if c := s.supply.Load(); c != nil && c.snapshot == snap.ID {
		return c.supply, true, nil
	}
	total, err := s.sumAmulets(ctx, snap)
	if err != nil {
		return Supply{}, false, err
	}
	sup := Supply{Total: total, AsOf: snap.RecordTime}
	s.supply.Store(&supplyOf{snapshot: snap.ID, supply: sup})
	return sup, true, nil
}

// sumAmulets sums the initial amounts of a snapshot's amulets, page by
// page.
func (s *Service) sumAmulets(ctx context.Context, snap Snapshot) (daml.Numeric, error) {
	var total daml.Numeric
	for after := int64(0); ; {
		rows, err := s.Store.SnapshotPage(ctx, SnapshotQuery{
			Snapshot: snap, After: after, Limit: MaxPageSize, Parties: []daml.Party{s.Config.DSO}, Templates: HoldingTemplates,
		})
		if err != nil {
			return daml.Numeric{}, err
		}
		for _, r := range rows {
			h, err := holdingOf(r.Contract)
			if err != nil {
				return daml.Numeric{}, err
			}
			if total, err = total.Add(h.amount.InitialAmount); err != nil {
				return daml.Numeric{}, fault.Wrap(fault.Internal, err, "sum the amulet supply")
			}
		}
		if len(rows) < MaxPageSize {
			return total, nil
		}
		after = rows[len(rows)-1].Row
	}
}
