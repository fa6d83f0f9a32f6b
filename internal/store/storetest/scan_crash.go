package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// The SQL of a half-built snapshot, as a crash in the middle of
// BuildSnapshot leaves it: the header unpublished (complete false, in the
// adapter's spelling), two rows written for the one contract.
const (
	interruptedBuildHeader = `INSERT INTO acs_snapshots (migration_id, record_time, first_row, last_row, complete) VALUES (0, 200, 1, 0, %s)`
	interruptedBuildRows   = `INSERT INTO acs_snapshot_rows (row_id, snapshot_id, contract_seq, template_id) VALUES (1, 1, 1, 1), (2, 1, 1, 1);
INSERT INTO acs_snapshot_parties (party_id, row_id, template_id) VALUES (1, 1, 1), (1, 2, 1);`
)

// ExerciseScanInterruptedBuild stores one contract, leaves a half-built
// snapshot behind with exec (the adapter's own statement runner; falseSQL
// is its spelling of false), and checks that readers do not see it and
// that the next build discards it and builds the snapshot again from
// scratch. count returns how many rows a table holds.
func ExerciseScanInterruptedBuild(t *testing.T, s scan.Store, falseSQL string,
	exec func(ctx context.Context, sql string) error, count func(ctx context.Context, table string) (int, error)) {
	t.Helper()
	ctx := t.Context()
	c := &ledger.Contract{
		ID:          "00aa",
		Template:    ledger.TemplateID{Identifier: daml.Identifier{PackageID: "p", ModuleName: "M", EntityName: "T"}, PackageName: "pkg"},
		Argument:    &daml.Record{},
		Signatories: []daml.Party{"dso::1220"},
		CreatedAt:   50,
	}
	tx := &ledger.Transaction{UpdateID: "u1", RecordTime: 100, EffectiveAt: 50,
		Events: []ledger.Event{{Created: c, Witnesses: []daml.Party{"dso::1220"}}}, Roots: []int32{0}}
	if err := s.Ingest(ctx, scan.Cursor{}, scan.Cursor{Offset: 1, Watermark: 100},
		[]scan.Update{{Offset: 1, Transaction: tx, Created: []*ledger.Contract{c}}}); err != nil {
		t.Fatal(err)
	}
	if err := exec(ctx, fmt.Sprintf(interruptedBuildHeader, falseSQL)+";\n"+interruptedBuildRows); err != nil {
		t.Fatal(err)
	}
	if snap, err := s.LatestSnapshot(ctx); !fault.Is(err, fault.NotFound) {
		t.Errorf("LatestSnapshot = %+v, %v; want NotFound while the build is unpublished", snap, err)
	}
	if snap, err := s.SnapshotAtOrBefore(ctx, 0, 200); !fault.Is(err, fault.NotFound) {
		t.Errorf("SnapshotAtOrBefore = %+v, %v; want NotFound", snap, err)
	}
	if snap, err := s.SnapshotAfter(ctx, 0, 0); !fault.Is(err, fault.NotFound) {
		t.Errorf("SnapshotAfter = %+v, %v; want NotFound", snap, err)
	}
	snap, err := s.BuildSnapshot(ctx, 0, 200, 10)
	if err != nil {
		t.Fatal(err)
	}
	if snap.FirstRow != 1 || snap.LastRow != 1 {
		t.Errorf("rebuilt snapshot %+v; want rows 1..1", snap)
	}
	rows, err := s.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: snap, Limit: 10, Parties: []daml.Party{"dso::1220"}})
	if err != nil || len(rows) != 1 || rows[0].Contract.ID != c.ID {
		t.Errorf("rebuilt snapshot's rows = %+v, %v; want the one contract", rows, err)
	}
	for _, table := range []string{"acs_snapshot_rows", "acs_snapshot_parties", "acs_snapshots"} {
		if n, err := count(ctx, table); err != nil || n != 1 {
			t.Errorf("%s has %d rows, %v; want 1", table, n, err)
		}
	}
	if latest, err := s.LatestSnapshot(ctx); err != nil || latest != snap {
		t.Errorf("LatestSnapshot = %+v, %v; want %+v", latest, err, snap)
	}
}
