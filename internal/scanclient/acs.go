package scanclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sandnet/sandnet/internal/api/splicewire"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// The reads of a Scan's ACS snapshots and migrations, as a reader of the
// whole active contract set needs them (a fork). They go to the first Scan
// that answers: a reader that must trust the answer gives one Scan.

// MigrationInfo is the answer of POST /v0/backfilling/migration-info:
// what the Scan holds of a migration.
type MigrationInfo struct {
	PreviousMigrationID *int64 `json:"previous_migration_id,omitempty"`
	RecordTimeRange     []struct {
		SynchronizerID string `json:"synchronizer_id"`
		Min            string `json:"min"`
		Max            string `json:"max"`
	} `json:"record_time_range"`
	Complete bool `json:"complete"`
}

// MigrationInfo returns what the Scan holds of a migration; a migration
// it knows nothing of is NotFound.
func (c *Client) MigrationInfo(ctx context.Context, migration int64) (*MigrationInfo, error) {
	return first(ctx, c, "migration info", func(ctx context.Context, base string) (*MigrationInfo, error) {
		var resp MigrationInfo
		err := c.call(ctx, base, http.MethodPost, "/v0/backfilling/migration-info", nil,
			map[string]int64{"migration_id": migration}, &resp)
		return &resp, err
	})
}

// SnapshotTimestamp returns the record time of the latest ACS snapshot of
// a migration at or before a time (GET /v0/state/acs/snapshot-timestamp);
// none is NotFound.
func (c *Client) SnapshotTimestamp(ctx context.Context, migration int64, before daml.Timestamp) (daml.Timestamp, error) {
	q := url.Values{"migration_id": {strconv.FormatInt(migration, 10)}, "before": {before.String()}}
	return first(ctx, c, "snapshot timestamp", func(ctx context.Context, base string) (daml.Timestamp, error) {
		var resp struct {
			RecordTime string `json:"record_time"`
		}
		if err := c.call(ctx, base, http.MethodGet, "/v0/state/acs/snapshot-timestamp", q, nil, &resp); err != nil {
			return 0, err
		}
		t, err := daml.ParseTimestamp(resp.RecordTime)
		if err != nil {
			return 0, fault.Wrap(fault.Unavailable, err, "Scan %s: snapshot-timestamp: bad record_time %q", base, resp.RecordTime)
		}
		return t, nil
	})
}

// AcsContract is a contract of an ACS snapshot as the v2 ACS serves it:
// its create_arguments in compact_json, which decode only with the
// template's type.
type AcsContract = splicewire.ActiveContract

// AcsPage is one page of a snapshot (POST /v2/state/acs). NextPageToken is
// empty on the last page.
type AcsPage struct {
	RecordTime    string         `json:"record_time"`
	MigrationID   int64          `json:"migration_id"`
	CreatedEvents []*AcsContract `json:"created_events"`
	NextPageToken string         `json:"next_page_token,omitempty"`
}

// Acs returns a page of the snapshot of a migration taken exactly at
// recordTime, after the page token after ("" for the first page), of the
// contracts the DSO party is a stakeholder of.
func (c *Client) Acs(ctx context.Context, migration int64, recordTime daml.Timestamp, after string, pageSize int) (*AcsPage, error) {
	req := map[string]any{"migration_id": migration, "record_time": recordTime.String(), "page_size": pageSize}
	if after != "" {
		req["after"] = after
	}
	return first(ctx, c, "acs", func(ctx context.Context, base string) (*AcsPage, error) {
		var resp AcsPage
		err := c.call(ctx, base, http.MethodPost, "/v2/state/acs", nil, req, &resp)
		return &resp, err
	})
}

// DsoSummary is the part of GET /v0/dso that names the DSO and the SV
// that answered, with the ids of its main contracts, read without
// decoding the contracts' created_event_blob: for a reader that takes the
// contracts themselves from elsewhere (a fork takes them from the ACS).
type DsoSummary struct {
	SvUser          string `json:"sv_user"`
	SvPartyID       string `json:"sv_party_id"`
	DsoPartyID      string `json:"dso_party_id"`
	VotingThreshold int    `json:"voting_threshold"`
	DsoRules        *struct {
		Contract *struct {
			ContractID string `json:"contract_id"`
		} `json:"contract"`
		DomainID string `json:"domain_id"`
	} `json:"dso_rules"`
}

// DsoSummary returns the DSO summary of the first Scan that answers GET
// /v0/dso.
func (c *Client) DsoSummary(ctx context.Context) (*DsoSummary, error) {
	return first(ctx, c, "dso summary", func(ctx context.Context, base string) (*DsoSummary, error) {
		var d DsoSummary
		if err := c.call(ctx, base, http.MethodGet, "/v0/dso", nil, nil, &d); err != nil {
			return nil, err
		}
		return &d, nil
	})
}

// CreateArguments returns the create_arguments of a contract in the
// update that created it, in protobuf_json (GET
// /v2/updates/{update_id}?daml_value_encoding=protobuf_json): the one
// encoding of a payload that is self-describing, for payloads whose type
// the reader does not fully know. A contract the update does not create
// is NotFound.
func (c *Client) CreateArguments(ctx context.Context, updateID, contractID string) (json.RawMessage, error) {
	q := url.Values{"daml_value_encoding": {"protobuf_json"}}
	return first(ctx, c, "update", func(ctx context.Context, base string) (json.RawMessage, error) {
		var resp struct {
			EventsByID map[string]struct {
				EventType       string          `json:"event_type"`
				ContractID      string          `json:"contract_id"`
				CreateArguments json.RawMessage `json:"create_arguments"`
			} `json:"events_by_id"`
		}
		if err := c.call(ctx, base, http.MethodGet, "/v2/updates/"+url.PathEscape(updateID), q, nil, &resp); err != nil {
			return nil, err
		}
		for _, e := range resp.EventsByID {
			if e.EventType == "created_event" && e.ContractID == contractID {
				return e.CreateArguments, nil
			}
		}
		return nil, fault.New(fault.NotFound, "update %s does not create contract %s", updateID, contractID)
	})
}
