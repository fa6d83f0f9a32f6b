package scanclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// Peers are the other SVs' Scans as a late-joining Scan backfills its
// history from them (scan.Peers) over the backfilling endpoints of the
// Scan API. Every read is a BFT read (see the package documentation):
// the Scans' answers are compared on their wire JSON, before decoding, so
// that only the answer f+1 of them agree on is decoded. Peers is safe for
// concurrent use.
type Peers struct {
	c *Client
}

var _ scan.Peers = (*Peers)(nil)

// NewPeers returns the Scans cfg.URLs as a backfilling Scan's peers. Each
// URL is a Scan's API root (http://127.0.0.1:7575/sv/2/api/scan). The
// Config's URLs, HTTP, Logger and Timeout apply as for [New]; Registry and
// CacheTTL are not used. An empty list or a malformed URL is an
// InvalidArgument error.
func NewPeers(cfg Config) (*Peers, error) {
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Peers{c: c}, nil
}

// URLs returns the peers' Scan API roots, without trailing slashes.
func (p *Peers) URLs() []string { return p.c.URLs() }

// migrationInfoRequest is the body of POST /v0/backfilling/migration-info.
type migrationInfoRequest struct {
	MigrationID int64 `json:"migration_id"`
}

// migrationInfoResponse is the part of its answer a client reads.
type migrationInfoResponse struct {
	PreviousMigrationID *int64 `json:"previous_migration_id"`
	RecordTimeRange     []struct {
		SynchronizerID string `json:"synchronizer_id"`
		Min            string `json:"min"`
		Max            string `json:"max"`
	} `json:"record_time_range"`
	LastImportUpdateID string `json:"last_import_update_id"`
	Complete           bool   `json:"complete"`
}

// peerMigration is what the peers vote on of a migration: its answer
// without the ranges' max, which differs between honest Scans that ingest
// at different speeds (and without import_updates_complete, which
// scan.PeerMigration has no use for). The times stay as the Scan wrote
// them: only the winner is decoded.
type peerMigration struct {
	Previous *int64 `json:"previous"`
	// Mins are sorted by synchronizer, so that the order a Scan lists its
	// ranges in does not split the vote.
	Mins               []synchronizerMin `json:"mins"`
	LastImportUpdateID string            `json:"last_import_update_id"`
	Complete           bool              `json:"complete"`
}

type synchronizerMin struct {
	Synchronizer string `json:"synchronizer"`
	Min          string `json:"min"`
}

// MigrationInfo returns what f+1 of the peers agree they hold of a
// migration (POST /v0/backfilling/migration-info). When they agree that
// they hold nothing of it (404), it fails with their fault.NotFound.
func (p *Peers) MigrationInfo(ctx context.Context, migration int64) (scan.PeerMigration, error) {
	what := fmt.Sprintf("migration %d's info", migration)
	w, err := bft(ctx, p.c, what, func(ctx context.Context, base string) (peerMigration, error) {
		var resp migrationInfoResponse
		if err := p.c.call(ctx, base, http.MethodPost, "/v0/backfilling/migration-info", nil, migrationInfoRequest{MigrationID: migration}, &resp); err != nil {
			return peerMigration{}, err
		}
		out := peerMigration{Previous: resp.PreviousMigrationID, LastImportUpdateID: resp.LastImportUpdateID, Complete: resp.Complete, Mins: []synchronizerMin{}}
		for _, r := range resp.RecordTimeRange {
			out.Mins = append(out.Mins, synchronizerMin{Synchronizer: r.SynchronizerID, Min: r.Min})
		}
		slices.SortFunc(out.Mins, func(a, b synchronizerMin) int { return strings.Compare(a.Synchronizer, b.Synchronizer) })
		return out, nil
	})
	if err != nil {
		return scan.PeerMigration{}, err
	}
	out := scan.PeerMigration{
		Previous: w.Previous, Mins: make(map[ledger.SynchronizerID]daml.Timestamp, len(w.Mins)),
		LastImportUpdateID: w.LastImportUpdateID, Complete: w.Complete,
	}
	for _, m := range w.Mins {
		s := ledger.SynchronizerID(m.Synchronizer)
		if _, dup := out.Mins[s]; dup || s == "" {
			return scan.PeerMigration{}, agreedUndecodable(what, fmt.Errorf("synchronizer %q is empty or listed twice", s))
		}
		t, err := daml.ParseTimestamp(m.Min)
		if err != nil {
			return scan.PeerMigration{}, agreedUndecodable(what, fmt.Errorf("min of %s: %w", s, err))
		}
		out.Mins[s] = t
	}
	return out, nil
}

// updatesBeforeRequest is the body of POST /v0/backfilling/updates-before.
type updatesBeforeRequest struct {
	MigrationID    int64   `json:"migration_id"`
	SynchronizerID string  `json:"synchronizer_id"`
	Before         string  `json:"before"`
	AtOrAfter      *string `json:"at_or_after,omitempty"`
	Count          int     `json:"count"`
}

// UpdatesBefore returns the updates f+1 of the peers agree on of one
// migration and synchronizer before q.Before, newest first, at most
// q.Limit (POST /v0/backfilling/updates-before). They carry no offset and
// no Created or Archived (see scan.Peers).
//
// q.AtOrAfter is passed on: the Scan API then adds the migration's import
// updates after the others (see scan.BeforeQuery); they come back with
// Import set. Without it, as a backfilling Scan asks, there are none.
func (p *Peers) UpdatesBefore(ctx context.Context, q scan.BeforeQuery) ([]scan.Update, error) {
	if err := scan.CheckLimit(int64(q.Limit)); err != nil {
		return nil, err // every peer would refuse it alike
	}
	req := updatesBeforeRequest{MigrationID: q.Migration, SynchronizerID: string(q.Synchronizer), Before: q.Before.MicrosString(), Count: q.Limit}
	if q.AtOrAfter != nil {
		s := q.AtOrAfter.MicrosString()
		req.AtOrAfter = &s
	}
	what := fmt.Sprintf("the updates of migration %d on %s before %s", q.Migration, q.Synchronizer, req.Before)
	return p.updates(ctx, what, "/v0/backfilling/updates-before", req, q.Limit, false)
}

// importUpdatesRequest is the body of POST /v0/backfilling/import-updates.
type importUpdatesRequest struct {
	MigrationID   int64  `json:"migration_id"`
	AfterUpdateID string `json:"after_update_id"`
	Limit         int    `json:"limit"`
}

// ImportUpdates returns the import updates f+1 of the peers agree on of a
// migration with an update id greater than after, in update id order, at
// most limit (POST /v0/backfilling/import-updates). They have Import set
// and no offset, Created or Archived.
func (p *Peers) ImportUpdates(ctx context.Context, migration int64, after string, limit int) ([]scan.Update, error) {
	if err := scan.CheckLimit(int64(limit)); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("the import updates of migration %d after %q", migration, after)
	return p.updates(ctx, what, "/v0/backfilling/import-updates", importUpdatesRequest{MigrationID: migration, AfterUpdateID: after, Limit: limit}, limit, true)
}

// historyPage is an answer of the backfilling update reads, its items as
// the Scan wrote them.
type historyPage struct {
	Transactions []json.RawMessage `json:"transactions"`
}

// rawPage is a peer's answer as it sent it. Its vote is a digest of its
// bytes: peers run the same software and render a page the same way, so
// equal answers are equal bytes, and hashing a page of up to a thousand
// updates is far cheaper than parsing it; only the winner is parsed.
type rawPage []byte

// vote is the page's digest, which the BFT read compares.
func (r rawPage) vote() string {
	sum := sha256.Sum256(r)
	return hex.EncodeToString(sum[:])
}

// updates is a BFT read of a page of history items, voted on as the
// pages' bytes and parsed and decoded once decided. imports says that
// every item must be an import update.
func (p *Peers) updates(ctx context.Context, what, path string, body any, limit int, imports bool) ([]scan.Update, error) {
	raw, err := bft(ctx, p.c, what, func(ctx context.Context, base string) (rawPage, error) {
		var data []byte
		if err := p.c.call(ctx, base, http.MethodPost, path, nil, body, &data); err != nil {
			return nil, err
		}
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	var page historyPage
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, agreedUndecodable(what, err)
	}
	switch {
	case page.Transactions == nil:
		return nil, agreedUndecodable(what, fmt.Errorf("the answer has no transactions"))
	case len(page.Transactions) > limit:
		return nil, agreedUndecodable(what, fmt.Errorf("%d items, more than the %d asked for", len(page.Transactions), limit))
	}
	out := make([]scan.Update, len(page.Transactions))
	for i, item := range page.Transactions {
		u, err := DecodeUpdate(item)
		if err != nil {
			return nil, agreedUndecodable(what, fmt.Errorf("item %d: %w", i, err))
		}
		if imports && !u.Import {
			return nil, agreedUndecodable(what, fmt.Errorf("item %d (%s) is not an import update", i, u.UpdateID()))
		}
		out[i] = u
	}
	return out, nil
}

// agreedUndecodable is the failure of an answer that f+1 Scans agree on,
// so that an honest one sent it, but that this client cannot decode: a
// version mismatch or a bug, which retrying does not cure.
func agreedUndecodable(what string, err error) error {
	return fault.Wrap(fault.Internal, err, "Scans agree on %s but their answer cannot be decoded: %v", what, err)
}
