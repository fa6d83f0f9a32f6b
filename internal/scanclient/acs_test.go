package scanclient_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// TestSnapshotReads reads the shared network's Scan as a fork does:
// migrations, the latest snapshot, its pages, and exact payloads.
func TestSnapshotReads(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := serve(t, e.ScanHandler, nil)
	c := newClient(t, scanclient.Config{URLs: []string{s.url()}})
	ctx := context.Background()
	far := daml.Timestamp(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro())

	t.Run("migration info", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			migration int64
			kind      fault.Kind
			ok        bool
		}{{0, 0, true}, {1, fault.NotFound, false}}
		for _, tc := range tests {
			_, err := c.MigrationInfo(ctx, tc.migration)
			if tc.ok && err != nil || !tc.ok && !fault.Is(err, tc.kind) {
				t.Errorf("MigrationInfo(%d): %v", tc.migration, err)
			}
		}
	})
	t.Run("snapshot timestamp", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name   string
			before daml.Timestamp
			found  bool
		}{{"latest", far, true}, {"before any", 1, false}}
		for _, tc := range tests {
			at, err := c.SnapshotTimestamp(ctx, 0, tc.before)
			if tc.found && (err != nil || at == 0) || !tc.found && !fault.Is(err, fault.NotFound) {
				t.Errorf("%s: SnapshotTimestamp = %s, %v", tc.name, at, err)
			}
		}
	})
	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		at, err := c.SnapshotTimestamp(ctx, 0, far)
		if err != nil {
			t.Fatal(err)
		}
		all, err := c.Acs(ctx, 0, at, "", 1000)
		if err != nil || all.NextPageToken != "" || len(all.CreatedEvents) == 0 {
			t.Fatalf("one page of 1000: %d contracts, next %q, %v", len(all.CreatedEvents), all.NextPageToken, err)
		}
		var paged []string
		for after := ""; ; {
			page, err := c.Acs(ctx, 0, at, after, 4)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range page.CreatedEvents {
				paged = append(paged, k.ContractID)
			}
			if after = page.NextPageToken; after == "" {
				break
			}
		}
		var want []string
		for _, k := range all.CreatedEvents {
			want = append(want, k.ContractID)
		}
		if strings.Join(paged, ",") != strings.Join(want, ",") {
			t.Errorf("paged by 4: %v; want %v", paged, want)
		}
		// Exact payloads come from the creating update.
		k := all.CreatedEvents[len(all.CreatedEvents)-1]
		raw, err := c.CreateArguments(ctx, k.CreatedInUpdateID, k.ContractID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := daml.ProtobufJSON.Decode(raw, nil); err != nil {
			t.Errorf("CreateArguments of %s: %s is not protobuf_json: %v", k.ContractID, raw, err)
		}
		if _, err := c.CreateArguments(ctx, k.CreatedInUpdateID, "00nosuchcontract"); !fault.Is(err, fault.NotFound) {
			t.Errorf("CreateArguments of a contract the update does not create: %v; want NotFound", err)
		}
	})
	t.Run("dso summary", func(t *testing.T) {
		t.Parallel()
		d, err := c.DsoSummary(ctx)
		if err != nil || d.DsoPartyID != string(e.Seeded.DSOParty) || d.SvPartyID != string(e.Seeded.SVs[0].Party) ||
			d.DsoRules == nil || d.DsoRules.Contract == nil || d.DsoRules.Contract.ContractID == "" {
			t.Errorf("DsoSummary = %+v, %v", d, err)
		}
	})
}
