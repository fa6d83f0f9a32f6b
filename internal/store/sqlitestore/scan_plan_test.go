package sqlitestore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/scan"
)

// scanPlanFixture fills a Scan database with 4 000 updates (two
// synchronizers, two migrations, one in a hundred of migration 1 an
// import), 4 000 contracts (50 templates, one in ten archived, the DSO
// and one of 100 owners the stakeholders), 4 000 orphaned archives and a
// snapshot of the contracts, straight in SQL.
const scanPlanFixture = `
INSERT INTO updates (update_id, migration_id, record_time, synchronizer, ledger_offset, is_import, body)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
  SELECT 'u' || i, i / 2000, CASE WHEN i >= 2000 AND i % 100 = 0 THEN -9223372036854775808 ELSE i END,
         's' || (i % 2), i, i >= 2000 AND i % 100 = 0, x'00'
  FROM n;
INSERT INTO templates (template_key)
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 49)
  SELECT 'splice-amulet:Splice.Amulet:T' || i FROM n;
INSERT INTO parties (party) VALUES ('dso::1220');
INSERT INTO parties (party)
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
  SELECT 'owner' || i || '::1220' FROM n;
INSERT INTO contracts (contract_id, template_id, created_at, created_migration, created_record_time,
                       archived_migration, archived_record_time, imported, body)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
  SELECT 'c' || i, 1 + i % 50, i, 0, i,
         CASE WHEN i % 10 = 5 THEN 0 END, CASE WHEN i % 10 = 5 THEN i + 1 END, 0, x'00'
  FROM n;
INSERT INTO contract_stakeholders (seq, party_id) SELECT seq, 1 FROM contracts;
INSERT INTO contract_stakeholders (seq, party_id) SELECT seq, 2 + seq % 100 FROM contracts;
INSERT INTO orphans (contract_id, archived_migration, archived_record_time)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
  SELECT 'o' || i, 0, i FROM n;
INSERT INTO acs_snapshots (migration_id, record_time, first_row, last_row, complete) VALUES (0, 30000, 1, 4000, 1);
INSERT INTO acs_snapshot_rows (row_id, snapshot_id, contract_seq, template_id)
  SELECT seq, 1, seq, template_id FROM contracts;
INSERT INTO acs_snapshot_parties (party_id, row_id, template_id)
  SELECT s.party_id, d.row_id, d.template_id FROM acs_snapshot_rows d JOIN contract_stakeholders s ON s.seq = d.contract_seq;`

// TestScanQueryPlans pins the plans of the Scan's paged reads, of the
// snapshot build's walk and of the lookups of Ingest and Backfill (an
// index probe each): each read is one index range (or a merge of several)
// in the order asked for, so a page costs the same at the end of a
// snapshot or history as at its start. Checked without statistics (as a
// store that grew within one process plans), then with them.
func TestScanQueryPlans(t *testing.T) {
	t.Parallel()
	s, err := OpenScan(t.Context(), filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.w.ExecContext(t.Context(), scanPlanFixture); err != nil {
		t.Fatal(err)
	}
	snap := scan.Snapshot{ID: 1, Migration: 0, RecordTime: 30000, FirstRow: 1, LastRow: 4000}
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
		q.Snapshot, q.Limit = snap, 1000
		query, args := snapshotPageQuery(q)
		return plan{name: name, query: query, args: args, want: want}
	}
	history := func(name string, q scan.HistoryQuery) plan {
		query, args := historyQuery(q)
		return plan{name: name, query: query, args: args,
			want: []string{"SEARCH updates USING INDEX updates_history ((migration_id,record_time)>(?,?))"}}
	}
	active := func(name string, q scan.ContractQuery, want ...string) plan {
		query, args := activeContractsQuery(q)
		return plan{name: name, query: query, args: args, want: want}
	}
	const (
		byRow         = "SEARCH d USING INTEGER PRIMARY KEY (rowid=?)"
		byContract    = "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)"
		byParty       = "SEARCH acs_snapshot_parties USING PRIMARY KEY (party_id=? AND row_id>? AND row_id<?)"
		byPartyTmpl   = "SEARCH acs_snapshot_parties USING COVERING INDEX acs_snapshot_parties_template (party_id=? AND template_id=? AND row_id>? AND row_id<?)"
		byTemplate    = "SEARCH acs_snapshot_rows USING COVERING INDEX acs_snapshot_rows_template (template_id=? AND row_id>? AND row_id<?)"
		activeTmpl    = "SEARCH contracts USING INDEX contracts_active_template (template_id=?)"
		partiesMerged = "MERGE (UNION)"
		byID          = "SEARCH contracts USING INDEX sqlite_autoindex_contracts_1 (contract_id=?)"
		heldByID      = "SEARCH contracts USING COVERING INDEX sqlite_autoindex_contracts_1 (contract_id=?)"
	)
	dso, owner := daml.Party("dso::1220"), daml.Party("owner7::1220")
	twoTemplates := active("active, two templates", scan.ContractQuery{Templates: []scan.TemplateKey{key(1), key(2)}, Limit: 100},
		activeTmpl, activeTmpl)
	twoTemplates.sorts = true // merging at most 2 × 100 rows
	plans := []plan{
		page("page", scan.SnapshotQuery{After: 3000},
			"SEARCH d USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)", byContract),
		page("page, one party", scan.SnapshotQuery{After: 3000, Parties: []daml.Party{owner}}, byParty, byRow, byContract),
		page("page, the DSO party", scan.SnapshotQuery{After: 3000, Parties: []daml.Party{dso}}, byParty, byRow, byContract),
		page("page, two parties", scan.SnapshotQuery{After: 3000, Parties: []daml.Party{owner, dso}},
			partiesMerged, byParty, byParty, byRow, byContract),
		page("page, one template", scan.SnapshotQuery{After: 3000, Templates: []scan.TemplateKey{key(3)}}, byTemplate, byRow, byContract),
		page("page, two templates", scan.SnapshotQuery{After: 3000, Templates: []scan.TemplateKey{key(3), key(4)}},
			partiesMerged, byTemplate, byTemplate, byRow, byContract),
		page("page, party and template", scan.SnapshotQuery{After: 3000, Parties: []daml.Party{dso}, Templates: []scan.TemplateKey{key(3)}},
			byPartyTmpl, byRow, byContract),
		page("page, parties and templates", scan.SnapshotQuery{Parties: []daml.Party{dso, owner}, Templates: []scan.TemplateKey{key(3), key(4)}},
			partiesMerged, byPartyTmpl, byPartyTmpl, byPartyTmpl, byPartyTmpl, byRow, byContract),
		history("history", scan.HistoryQuery{Limit: 100}),
		history("history, after", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: 5000}, Limit: 100}),
		history("history, imports", scan.HistoryQuery{After: &scan.HistoryPosition{Migration: 0, RecordTime: 5000}, Limit: 100, Imports: true}),
		{name: "before", query: sqlBefore, args: []any{1, "s0", 15000, -9223372036854775807, 100},
			want: []string{"SEARCH updates USING INDEX updates_before (migration_id=? AND synchronizer=? AND record_time>? AND record_time<?)"}},
		{name: "before, imports", query: sqlBeforeImports, args: []any{1, "s0", -9223372036854775808, 100},
			want: []string{"SEARCH updates USING INDEX updates_before (migration_id=? AND synchronizer=? AND record_time=?)"}},
		{name: "import updates", query: sqlImportUpdates, args: []any{1, "u15000", 100},
			want: []string{"SEARCH updates USING INDEX updates_import (migration_id=? AND update_id>?)"}},
		{name: "update", query: `SELECT ` + updateColumns + ` FROM updates WHERE update_id = ? ORDER BY migration_id DESC LIMIT 1`, args: []any{"u5"},
			want: []string{"SEARCH updates USING INDEX sqlite_autoindex_updates_1 (update_id=?)"}},
		active("active", scan.ContractQuery{Limit: 100}, "SCAN contracts USING INDEX contracts_active"),
		active("active, one template", scan.ContractQuery{Templates: []scan.TemplateKey{key(1)}, Limit: 100}, activeTmpl),
		twoTemplates,
		{name: "snapshot chunk", query: sqlSnapChunk, args: []any{0, 30000, 5000, "c5000", 1000, 20000, 2},
			want: []string{"SEARCH contracts USING COVERING INDEX contracts_created ((created_at,contract_id)>(?,?))"}, sorts: true},
		{name: "snapshot chunk parties", query: sqlSnapChunkParties, args: []any{0, 1000},
			want: []string{"SEARCH d USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)", "SEARCH s USING PRIMARY KEY (seq=?)"}},
		// The lookups of Ingest and Backfill: one contract, or one orphaned
		// archive, by id.
		{name: "archive", query: sqlScanArchive, args: []any{0, 5000, "c5"}, want: []string{byID}},
		{name: "orphan", query: sqlScanOrphan, args: []any{0, 5000, "c5"}, want: []string{heldByID}},
		{name: "adopt orphan", query: sqlScanAdoptOrphan, args: []any{"c5"},
			want: []string{"SEARCH orphans USING PRIMARY KEY (contract_id=?)"}},
		{name: "assign", query: sqlScanAssign, args: []any{[]byte{0}, 0, 5000, "c5"}, want: []string{byID}},
		{name: "held", query: sqlScanHeld, args: []any{"c5"}, want: []string{byID}},
		{name: "take over", query: sqlScanTakeOver, args: []any{0, 5000, "c5"}, want: []string{byID}},
		{name: "earlier", query: sqlScanEarlier, args: []any{0, 5000, "c5"}, want: []string{byID}},
	}
	check := func(t *testing.T) {
		for _, p := range plans {
			t.Run(p.name, func(t *testing.T) {
				got := explain(t, s.r, p.query, p.args...)
				rest := got
				for _, w := range p.want {
					i := strings.Index(rest, w)
					if i < 0 {
						t.Errorf("plan lacks %q:\n%s", w, got)
						return
					}
					rest = rest[i+len(w):]
				}
				if strings.Contains(got, "TEMP B-TREE") && !p.sorts {
					t.Errorf("plan sorts:\n%s", got)
				}
				for line := range strings.SplitSeq(got, "\n") {
					if f := strings.Fields(line); len(f) >= 2 && f[0] == "SCAN" && !strings.HasPrefix(f[1], "(") &&
						!strings.Contains(line, "USING INDEX contracts_active") && f[1] != "o" && !strings.HasPrefix(f[1], "SUBQUERY") &&
						f[1] != "CONSTANT" {
						t.Errorf("plan scans a table:\n%s", got)
					}
				}
			})
		}
	}
	t.Run("no statistics", check)
	if _, err := s.w.ExecContext(t.Context(), "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	t.Run("analysed", check)
}
