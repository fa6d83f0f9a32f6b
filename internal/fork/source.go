// Package fork starts a new local network from another network's state,
// as Ethereum tooling forks mainnet: it reads a Scan's latest ACS
// snapshot through the Scan's public endpoints ([Read]), refuses a source
// that runs Daml packages sandnet does not know ([CheckPackages]) — both
// in [Prepare], before anything local exists — and builds a network of the engine around the snapshot's contracts
// ([Build]): the source's synchronizer, DSO and SV parties with their ids,
// every other stakeholder hosted on the local validator, the contracts
// imported with their ids and payloads, and a local validator with its
// users onboarded through the imported DsoRules. From then on the fork is
// a sandnet network like a seeded one, with its own clock.
//
// The package knows nothing of SQL or HTTP: it reads the source through
// internal/scanclient and writes through the engine.
package fork

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// DefaultPageSize is how many contracts Read asks the source for per page
// of its snapshot: Scan's largest page.
const DefaultPageSize = 1000

// Source is what a fork takes from its source Scan: the DSO, the SV that
// answered, and every contract of the latest ACS snapshot, as the Scan
// served them (decoded by [Decode] once [CheckPackages] accepts them).
type Source struct {
	// URL is the Scan read.
	URL string
	// DSO is the DSO party.
	DSO daml.Party
	// SV is the party of the SV whose Scan answered: the fork's first SV,
	// which runs the DSO automation.
	SV daml.Party
	// Migration and RecordTime name the snapshot.
	Migration  int64
	RecordTime daml.Timestamp
	// Contracts are the snapshot's contracts in the Scan's order
	// (creation time, then contract id).
	Contracts []*scanclient.AcsContract
	// Exact holds, by contract id, the protobuf_json create_arguments of
	// the contracts whose payload compact_json cannot type (see
	// ReadExact).
	Exact map[string]json.RawMessage
}

// farFuture is the latest time Read looks for a snapshot before: any
// snapshot a source can have, whatever its ledger clock says.
var farFuture = daml.Timestamp(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).UnixMicro())

// Read takes the latest ACS snapshot of the Scan c reads: the DSO party
// (/v0/dso-party-id, checked against /v0/dso), the latest migration the
// Scan knows (/v0/backfilling/migration-info, asked for 0, 1, … until it
// knows no more), the latest snapshot of the latest migration that has
// one (/v0/state/acs/snapshot-timestamp), and every page of it
// (/v2/state/acs). pageSize <= 0 means DefaultPageSize.
func Read(ctx context.Context, c *scanclient.Client, pageSize int) (*Source, error) {
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	src := &Source{URL: c.URLs()[0]}
	dso, err := c.DSOPartyID(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the DSO party of %s: %w", src.URL, err)
	}
	info, err := c.DsoSummary(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the DSO of %s: %w", src.URL, err)
	}
	if info.DsoPartyID != string(dso) {
		return nil, fault.New(fault.FailedPrecondition, "the Scan at %s names two DSO parties: %s and %s", src.URL, dso, info.DsoPartyID)
	}
	src.DSO, src.SV = dso, daml.Party(info.SvPartyID)

	latest := int64(-1)
	for m := int64(0); ; m++ {
		if _, err := c.MigrationInfo(ctx, m); fault.Is(err, fault.NotFound) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read migration %d of %s: %w", m, src.URL, err)
		}
		latest = m
	}
	if latest < 0 {
		return nil, fault.New(fault.FailedPrecondition, "the Scan at %s has no migration to fork", src.URL)
	}
	// A migration that has just started may have no snapshot yet: its
	// predecessor's latest is then the latest state the Scan serves.
	found := false
	for m := latest; m >= 0 && !found; m-- {
		t, err := c.SnapshotTimestamp(ctx, m, farFuture)
		if fault.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find the latest snapshot of %s: %w", src.URL, err)
		}
		src.Migration, src.RecordTime, found = m, t, true
	}
	if !found {
		return nil, fault.New(fault.FailedPrecondition,
			"the Scan at %s has no ACS snapshot yet; take one (sandnet admin snapshot) or wait for the next", src.URL)
	}
	after := ""
	for {
		page, err := c.Acs(ctx, src.Migration, src.RecordTime, after, pageSize)
		if err != nil {
			return nil, fmt.Errorf("read the snapshot of migration %d at %s from %s: %w", src.Migration, src.RecordTime, src.URL, err)
		}
		src.Contracts = append(src.Contracts, page.CreatedEvents...)
		if page.NextPageToken == "" {
			return src, nil
		}
		after = page.NextPageToken
	}
}

// Prepare reads the latest ACS snapshot of the Scan c reads and decodes
// it for Build: Read, CheckPackages, ReadExact, Decode. It creates
// nothing, so a source sandnet cannot fork is refused before any local
// state exists.
func Prepare(ctx context.Context, c *scanclient.Client, reg *ledger.Registry) (*Source, []*ledger.Contract, error) {
	src, err := Read(ctx, c, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := CheckPackages(reg, src.Contracts); err != nil {
		return src, nil, err
	}
	if err := ReadExact(ctx, c, reg, src); err != nil {
		return src, nil, err
	}
	contracts, err := Decode(reg, src)
	if err != nil {
		return src, nil, err
	}
	return src, contracts, nil
}

// NetworkSeed is the network seed of a fork of src made with the seed
// base: the engine derives update and contract ids from its seed and its
// sequence, so a fork with its source's seed (sandnet's default, say)
// would give its own contracts the ids of imported ones. The snapshot
// makes the seed the fork's own; Build records it (Origin.Seed) for
// restarts.
func NetworkSeed(base string, src *Source) string {
	return fmt.Sprintf("%s/fork/%s/%d/%s", base, src.DSO, src.Migration, src.RecordTime)
}
