package scanapi_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/testnet"
)

// TestReassignmentGolden moves a DSO contract (an open mining round) to a
// second synchronizer and reads the move back from the history: v1 and v2
// pages holding the unassignment and the assignment, each by id,
// updates-before on each synchronizer, and migration-info's ranges.
func TestReassignmentGolden(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testnet.Seed(t)
	if _, err := n.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	hist, err := n.Scan.History(ctx, nil, scan.MaxPageSize, false)
	if err != nil || len(hist) == 0 {
		t.Fatalf("history before the move: %v (%d)", err, len(hist))
	}
	lastTx := hist[len(hist)-1].Transaction
	other, err := n.Network.AddSynchronizer(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := splice.Active[splice.OpenMiningRound](ctx, n.Network.Store(), n.Seeded.DSOParty)
	if err != nil || len(rounds) == 0 {
		t.Fatalf("open rounds: %v (%d)", err, len(rounds))
	}
	un, as, err := n.Network.Reassign(ctx, ledger.ReassignSpec{Contract: rounds[0].ID, Target: other.ID, CommandID: "move-round"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	after := fmt.Sprintf(`{"after":{"after_migration_id":0,"after_record_time":%q},"page_size":10}`, lastTx.RecordTime.MicrosString())
	before := func(sync ledger.SynchronizerID) string {
		return fmt.Sprintf(`{"migration_id":0,"synchronizer_id":%q,"before":%q,"count":1}`, sync, (as.RecordTime + 1).String())
	}
	runGolden(t, "reassignment", n.ScanHandler, []goldenCase{
		post("v2 updates: the move", "/v2/updates", after, 200),
		post("v1 updates: the move", "/v1/updates", after, 200),
		get("v2 update: the unassignment", "/v2/updates/"+un.UpdateID, 200),
		get("v2 update: the assignment", "/v2/updates/"+as.UpdateID, 200),
		get("v1 update: the assignment, protobuf_json", "/v1/updates/"+as.UpdateID+"?daml_value_encoding=protobuf_json", 200),
		get("v1 update: the unassignment", "/v1/updates/"+un.UpdateID, 200),
		post("updates-before: the source", "/v0/backfilling/updates-before", before(n.Seeded.Synchronizer), 200),
		post("updates-before: the target", "/v0/backfilling/updates-before", before(other.ID), 200),
		post("migration-info: 0", "/v0/backfilling/migration-info", `{"migration_id":0}`, 200),
	})
}
