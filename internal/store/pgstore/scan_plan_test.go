package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// TestScanQueryPlans pins the plans of the Scan's paged reads and of the
// snapshot build's walk on a schema with enough rows (20 000 updates on
// two synchronizers and two migrations, one in a hundred of migration 1
// an import; 20 000 contracts of 3 templates, one in ten archived, the
// DSO and one of 3 owners the stakeholders; 20 000 orphaned archives; a
// snapshot of the contracts) and fresh statistics: each read is an index
// range in the order asked for, and each lookup of Ingest and Backfill an
// index probe, so a page costs the same at the end of a snapshot as at
// its start.
//
// A filtered page walks either its own index (acs_snapshot_parties_pkey,
// acs_snapshot_rows_template, acs_snapshot_parties_template) or, for a
// filter that matches a large share of the rows, acs_snapshot_rows_pkey
// with the filter: both deliver rows in order and stop at the page size,
// and which is cheaper depends on the statistics and on the visibility
// map (which VACUUM cannot set while other tests hold transactions open),
// so the test asks for an ordered walk, not for one index. Filters match
// many rows here: for one that matches fewer rows than a page PostgreSQL
// rightly reads them all (a bitmap scan) and sorts them.
func TestScanQueryPlans(t *testing.T) {
	t.Parallel()
	url, schema := newSchema(t)
	s, err := OpenScan(t.Context(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	_, err = s.pool.Exec(ctx, `
INSERT INTO updates (update_id, migration_id, record_time, synchronizer, ledger_offset, is_import, body)
  SELECT 'u' || i, i / 10000, CASE WHEN i >= 10000 AND i % 100 = 0 THEN -9223372036854775808 ELSE i END,
         's' || (i % 2), i, i >= 10000 AND i % 100 = 0, '\x00'
  FROM generate_series(1, 20000) i;
INSERT INTO templates (template_key) SELECT 'splice-amulet:Splice.Amulet:T' || i FROM generate_series(0, 2) i;
INSERT INTO parties (party) VALUES ('dso::1220');
INSERT INTO parties (party) SELECT 'owner' || i || '::1220' FROM generate_series(0, 2) i;
INSERT INTO contracts (contract_id, template_id, created_at, created_migration, created_record_time,
                       archived_migration, archived_record_time, imported, body)
  SELECT 'c' || i, 1 + i % 3, i, 0, i,
         CASE WHEN i % 10 = 5 THEN 0 END, CASE WHEN i % 10 = 5 THEN i + 1 END, false, '\x00'
  FROM generate_series(1, 20000) i;
INSERT INTO contract_stakeholders (seq, party_id) SELECT seq, 1 FROM contracts;
INSERT INTO contract_stakeholders (seq, party_id) SELECT seq, 2 + seq % 3 FROM contracts;
INSERT INTO orphans (contract_id, archived_migration, archived_record_time)
  SELECT 'o' || i, 0, i FROM generate_series(1, 20000) i;
INSERT INTO acs_snapshots (migration_id, record_time, first_row, last_row, complete) VALUES (0, 30000, 1, 20000, true);
INSERT INTO acs_snapshot_rows (row_id, snapshot_id, contract_seq, template_id)
  SELECT seq, 1, seq, template_id FROM contracts;
INSERT INTO acs_snapshot_parties (party_id, row_id, template_id)
  SELECT s.party_id, d.row_id, d.template_id FROM acs_snapshot_rows d JOIN contract_stakeholders s ON s.seq = d.contract_seq;`)
	if err != nil {
		t.Fatal(err)
	}
	// As autovacuum keeps it in use: statistics, and the visibility map
	// that lets covering indexes be read without the heap.
	if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE parties, templates, updates, contracts, orphans, contract_stakeholders, acs_snapshots, acs_snapshot_rows, acs_snapshot_parties`); err != nil {
		t.Fatal(err)
	}
	snap := scan.Snapshot{ID: 1, Migration: 0, RecordTime: 30000, FirstRow: 1, LastRow: 20000}
	key := func(i int) scan.TemplateKey {
		return scan.TemplateKey{PackageName: "splice-amulet", Module: "Splice.Amulet", Entity: "T" + string(rune('0'+i))}
	}
	type plan struct {
		name  string
		query string
		args  []any
		want  []string // substrings of the plan, in order
		sorts bool     // the plan may sort
	}
	page := func(name string, q scan.SnapshotQuery, want ...string) plan {
		q.Snapshot, q.Limit = snap, 100
		query, args := snapshotPageQuery(q)
		return plan{name: name, query: query, args: args, want: want}
	}
	history := func(name string, q scan.HistoryQuery) plan {
		query, args := historyQuery(q)
		return plan{name: name, query: query, args: args, want: []string{"Index Scan using updates_history on updates"}}
	}
	active := func(name string, q scan.ContractQuery, want ...string) plan {
		query, args := activeContractsQuery(q)
		return plan{name: name, query: query, args: args, want: want}
	}
	const (
		byRow      = "Index Scan using acs_snapshot_rows_pkey on acs_snapshot_rows d"
		byContract = "Index Scan using contracts_pkey on contracts c"
		byID       = "Index Scan using contracts_contract_id_key on contracts"
	)
	dso, owner := daml.Party("dso::1220"), daml.Party("owner1::1220")
	// Four arms, each cut at the page size: PostgreSQL may merge them or
	// hash and sort at most 4 × 100 row ids; either reads a bounded amount.
	fourArms := page("page, parties and templates", scan.SnapshotQuery{Parties: []daml.Party{dso, owner}, Templates: []scan.TemplateKey{key(1), key(2)}},
		"Limit", "Index", "Limit", "Index", "Limit", "Index", "Limit", "Index", byRow, byContract)
	fourArms.sorts = true
	plans := []plan{
		page("page", scan.SnapshotQuery{After: 1000}, "Index Scan using acs_snapshot_rows_pkey on acs_snapshot_rows", byContract),
		page("page, one party", scan.SnapshotQuery{After: 1000, Parties: []daml.Party{owner}}, byRow, byContract),
		page("page, the DSO party", scan.SnapshotQuery{After: 1000, Parties: []daml.Party{dso}}, byRow, byContract),
		page("page, two parties", scan.SnapshotQuery{After: 1000, Parties: []daml.Party{owner, dso}},
			"Unique", "Merge Append", byRow, byContract),
		page("page, one template", scan.SnapshotQuery{After: 1000, Templates: []scan.TemplateKey{key(1)}}, byRow, byContract),
		page("page, two templates", scan.SnapshotQuery{After: 1000, Templates: []scan.TemplateKey{key(1), key(2)}},
			"Unique", "Merge Append", byRow, byContract),
		page("page, party and template", scan.SnapshotQuery{After: 1000, Parties: []daml.Party{dso}, Templates: []scan.TemplateKey{key(1)}},
			byRow, byContract),
		fourArms,
		history("history", scan.HistoryQuery{Limit: 100}),
		history("history, after", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: 5000}, Limit: 100}),
		history("history, imports", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: 5000}, Limit: 100, Imports: true}),
		{name: "before", query: sqlBefore, args: []any{int64(1), "s0", int64(15000), int64(-9223372036854775807), int64(100)},
			want: []string{"Index Scan Backward using updates_before on updates"}},
		{name: "before, imports", query: sqlBeforeImports, args: []any{int64(1), "s0", int64(-9223372036854775808), int64(100)},
			want: []string{"Index Scan Backward using updates_before on updates"}},
		{name: "import updates", query: sqlImportUpdates, args: []any{int64(1), "u15000", int64(100)},
			want: []string{"Index Scan using updates_import on updates"}},
		{name: "snapshot chunk", query: sqlSnapChunk, args: []any{int64(0), int64(30000), int64(5000), "c5000", 1000, int64(20000), int64(2)},
			want: []string{"Scan using contracts_created on contracts"}},
		{name: "snapshot chunk parties", query: sqlSnapChunkParties, args: []any{int64(0), int64(1000)},
			want: []string{"acs_snapshot_rows_pkey", "contract_stakeholders_pkey"}},
		active("active", scan.ContractQuery{Limit: 100}, "Index Scan using contracts_active on contracts"),
		// A template filter walks contracts_active_template or, for a
		// template of a large share of the contracts (a third here),
		// contracts_active with the filter: either in order, stopped at
		// the limit.
		active("active, one template", scan.ContractQuery{Templates: []scan.TemplateKey{key(1)}, Limit: 100},
			"Index Scan using contracts_active"),
		active("active, two templates", scan.ContractQuery{Templates: []scan.TemplateKey{key(1), key(2)}, Limit: 100},
			"Merge Append", "Index Scan using contracts_active", "Index Scan using contracts_active"),
		// The lookups of Ingest and Backfill: one contract, or one orphaned
		// archive, by id.
		{name: "archive", query: sqlScanArchive, args: []any{int64(0), int64(5000), "c5"}, want: []string{byID}},
		{name: "orphan", query: sqlScanOrphan, args: []any{int64(0), int64(5000), "c5"}, want: []string{"Index Only Scan using contracts_contract_id_key on contracts"}},
		{name: "adopt orphan", query: sqlScanAdoptOrphan, args: []any{"c5"}, want: []string{"Index Scan using orphans_pkey on orphans"}},
		{name: "assign", query: sqlScanAssign, args: []any{[]byte{0}, int64(0), int64(5000), "c5"}, want: []string{byID}},
		{name: "held", query: sqlScanHeld, args: []any{"c5"}, want: []string{byID}},
		{name: "take over", query: sqlScanTakeOver, args: []any{int64(0), int64(5000), "c5"}, want: []string{byID}},
		{name: "earlier", query: sqlScanEarlier, args: []any{int64(0), int64(5000), "c5"}, want: []string{byID}},
	}
	for _, p := range plans {
		t.Run(p.name, func(t *testing.T) {
			tx, err := s.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			rows, err := tx.Query(ctx, "EXPLAIN "+p.query, p.args...)
			if err != nil {
				t.Fatal(err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(lines, "\n")
			rest := got
			for _, w := range p.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("plan lacks %q:\n%s", w, got)
					return
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(got, "Sort  (") && !p.sorts {
				t.Errorf("plan sorts:\n%s", got)
			}
			if strings.Contains(got, "Bitmap") && !p.sorts {
				t.Errorf("plan reads every matching row (a bitmap scan):\n%s", got)
			}
			for _, table := range []string{"updates", "contracts", "orphans", "contract_stakeholders", "acs_snapshot_rows", "acs_snapshot_parties"} {
				if strings.Contains(got, "Seq Scan on "+table+" ") {
					t.Errorf("plan scans %s:\n%s", table, got)
				}
			}
		})
	}
}

// TestScanInterruptedBuild leaves a half-built snapshot behind, as a crash
// in the middle of BuildSnapshot does (its header unpublished, some rows
// written): readers do not see it, and the next build discards it and
// builds the snapshot again from scratch.
func TestScanInterruptedBuild(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url, schema := newSchema(t)
	s, err := OpenScan(ctx, url, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.ExerciseScanInterruptedBuild(t, s, "false",
		func(ctx context.Context, sql string) error { _, err := s.pool.Exec(ctx, sql); return err },
		func(ctx context.Context, table string) (n int, err error) {
			err = s.pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n)
			return n, err
		})
}
