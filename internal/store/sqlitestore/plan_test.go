package sqlitestore

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// TestQueryPlans pins the plans of the hot queries: each must be an index
// search, and none may sort unless it says so (a sort reads the whole
// matching set before the first row of a page). This is what keeps the cost
// of a page flat as the ledger grows.
//
// The plans are checked without statistics, as SQLite plans until PRAGMA
// optimize runs at Close (a store that grew within one process lifetime, or
// one killed before it closed): first on a fresh file, then again after a
// skewed ledger (the DSO a stakeholder of every contract, one template
// rare) is added without ANALYZE, and last with the statistics ANALYZE
// writes for it.
func TestQueryPlans(t *testing.T) {
	t.Parallel()
	l, err := OpenLedger(t.Context(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	amulet := ledger.TemplateID{PackageName: "splice-amulet"}
	amulet.ModuleName, amulet.EntityName = "Splice.Amulet", "Amulet"
	locked := amulet
	locked.EntityName = "LockedAmulet"

	const dso = "dso::1220"
	round := amulet
	round.ModuleName, round.EntityName = "Splice.Round", "OpenMiningRound"

	type plan struct {
		name  string
		query string
		args  []any
		want  []string // substrings of the plan, in order
		not   []string // substrings the plan must not have
		sorts bool     // the plan may sort
	}
	stmt := func(name, query string, args []any, want ...string) plan {
		return plan{name: name, query: query, args: args, want: want}
	}
	active := func(name string, f ledger.ContractFilter, want ...string) plan {
		q, args := activeQuery(f)
		return plan{name: name, query: q, args: args, want: want}
	}
	const (
		byActive   = "SEARCH c USING INDEX contracts_active (seq>?)"
		byTemplate = "SEARCH c USING INDEX contracts_active_template (package_name=? AND module=? AND entity=? AND seq>?)"
		byParty    = "SEARCH s USING PRIMARY KEY (party=? AND seq>?)"
		// The party's contracts of one template, not the party's whole range.
		byPartyTemplate = "SEARCH s USING COVERING INDEX contract_stakeholders_template " +
			"(party=? AND package_name=? AND module=? AND entity=? AND seq>?)"
		byRowid  = "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)"
		byCursor = "SEARCH contracts USING COVERING INDEX sqlite_autoindex_contracts_1 (contract_id=?)"
		byID     = "SEARCH contracts USING INDEX sqlite_autoindex_contracts_1 (contract_id=?)"
	)
	two := active("active, two templates", ledger.ContractFilter{Templates: []ledger.TemplateID{amulet, locked}, After: "00ab", Limit: 100},
		byTemplate, byTemplate)
	two.sorts = true // merging at most 2 × 100 rows
	partyOne := active("active, stakeholder and template", ledger.ContractFilter{Stakeholder: dso, Templates: []ledger.TemplateID{round}},
		byPartyTemplate, byRowid)
	partyOne.not = []string{byParty}
	partyTwo := active("active, stakeholder and two templates",
		ledger.ContractFilter{Stakeholder: dso, Templates: []ledger.TemplateID{round, locked}, After: "c101", Limit: 100},
		byPartyTemplate, byRowid, byPartyTemplate, byRowid)
	partyTwo.not = []string{byParty}
	partyTwo.sorts = true // merging at most 2 × 100 rows
	updates := func(name string, q ledger.UpdateQuery, want ...string) plan {
		query, args := updatesQuery(1, q)
		return plan{name: name, query: query, args: args, want: want}
	}
	completionsPlan := func(name string, q ledger.CompletionQuery, want ...string) plan {
		query, args := completions.ReadStatement(1, q)
		return plan{name: name, query: query, args: args, want: want}
	}
	const (
		byPartyCompletion     = "USING PRIMARY KEY (participant=? AND party=? AND ledger_offset>? AND ledger_offset<?)"
		byUserPartyCompletion = "USING COVERING INDEX completion_parties_user (participant=? AND user_id=? AND party=? AND ledger_offset>? AND ledger_offset<?)"
		byCompletion          = "SEARCH c USING PRIMARY KEY (participant=? AND ledger_offset=?)"
		byPartyOffset         = "USING PRIMARY KEY (participant=? AND party=? AND ledger_offset>? AND ledger_offset<?)"
		byOffset              = "SEARCH pu USING PRIMARY KEY (participant=? AND ledger_offset=?)"
	)
	plans := []plan{
		active("active, all", ledger.ContractFilter{Limit: 100}, byActive),
		active("active, after cursor", ledger.ContractFilter{After: "00ab", Limit: 100}, byActive, byCursor),
		active("active, one template", ledger.ContractFilter{Templates: []ledger.TemplateID{amulet}, After: "00ab", Limit: 100}, byTemplate),
		two,
		active("active, stakeholder", ledger.ContractFilter{Stakeholder: "alice::1220", After: "00ab", Limit: 100}, byParty, byRowid),
		partyOne,
		partyTwo,
		stmt("updates", `SELECT pu.ledger_offset, t.body FROM participant_updates pu JOIN transactions t ON t.sequence = pu.sequence
WHERE pu.participant = ? AND pu.ledger_offset > ? AND pu.ledger_offset <= ? ORDER BY pu.ledger_offset DESC LIMIT ?`,
			[]any{1, 0, 100, 10},
			"SEARCH pu USING PRIMARY KEY (participant=? AND ledger_offset>? AND ledger_offset<?)",
			"SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"),
		updates("updates, one party", ledger.UpdateQuery{Parties: []daml.Party{dso}, After: 10, Limit: 100, Descending: true},
			byPartyOffset, byOffset, "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"),
		updates("updates, several parties", ledger.UpdateQuery{Parties: []daml.Party{dso, "alice::1220", "bob::1220"}, After: 10, Limit: 100},
			"MERGE (UNION)", byPartyOffset, byPartyOffset, byPartyOffset, byOffset, "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"),
		updates("updates, several parties, descending", ledger.UpdateQuery{Parties: []daml.Party{dso, "alice::1220"}, Until: 100, Limit: 100, Descending: true},
			"MERGE (UNION)", byPartyOffset, byPartyOffset, byOffset, "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"),
		completionsPlan("completions", ledger.CompletionQuery{After: 10, Limit: 100},
			"SEARCH completions USING PRIMARY KEY (participant=? AND ledger_offset>? AND ledger_offset<?)"),
		completionsPlan("completions, parties", ledger.CompletionQuery{Parties: []daml.Party{dso, "alice::1220"}, After: 10, Limit: 100},
			"MERGE (UNION)", byPartyCompletion, byPartyCompletion, byCompletion),
		completionsPlan("completions, user and parties", ledger.CompletionQuery{UserID: "alice", Parties: []daml.Party{dso, "alice::1220"}, Until: 100},
			"MERGE (UNION)", byUserPartyCompletion, byUserPartyCompletion, byCompletion),
		stmt("last acceptance", completions.LastAcceptanceStatement(), []any{"p", "change"},
			"SEARCH p USING COVERING INDEX sqlite_autoindex_participants_1 (id=?)", "SEARCH d USING PRIMARY KEY (participant=? AND change_id=?)"),
		stmt("contract", `SELECT body, archived_update_id IS NULL FROM contracts WHERE contract_id = ?`, []any{"00ab"}, byID),
		stmt("transaction", `SELECT body FROM transactions WHERE update_id = ?`, []any{"1220"},
			"SEARCH transactions USING INDEX sqlite_autoindex_transactions_1 (update_id=?)"),
		stmt("consume", `UPDATE contracts SET archived_update_id = ? WHERE contract_id = ? AND archived_update_id IS NULL RETURNING seq`,
			[]any{"u", "00ab"}, byID),
		stmt("unindex stakeholders", `DELETE FROM contract_stakeholders WHERE seq = ?`, []any{1},
			"SEARCH contract_stakeholders USING ", "INDEX contract_stakeholders_seq (seq=?)"),
		stmt("record an update in its streams", sqlInsertParticipantUpdates, []any{`["p"]`, 1, 0},
			"SEARCH participants USING INDEX sqlite_autoindex_participants_1 (id=?)"),
		stmt("index a transaction under hosted informees", sqlInsertHostedUpdateParties, []any{`["p"]`, `["dso::1220"]`},
			"SEARCH p USING INDEX sqlite_autoindex_participants_1 (id=?)", "SEARCH h EXISTS USING PRIMARY KEY (party=? AND participant_id=?)"),
		stmt("inactive", `SELECT contract_id FROM contracts
WHERE contract_id IN (SELECT value FROM json_each(?)) AND archived_update_id IS NULL`, []any{`["00ab"]`}, byID),
		stmt("count active", sqlCountActive, nil,
			"SCAN contracts USING INDEX contracts_active"),
		stmt("update by id", lookups.UpdateByIDStatement(), []any{"1220", "p"},
			"SEARCH t USING INDEX sqlite_autoindex_transactions_1 (update_id=?)",
			"SEARCH pu USING COVERING INDEX participant_updates_sequence (sequence=?"),
		stmt("archived by", `SELECT archived_update_id FROM contracts WHERE contract_id = ?`, []any{"00ab"}, byID),
		stmt("party records", `SELECT party, identity_provider_id, annotations, resource_version FROM party_records
WHERE participant_id = ? AND party >= ? AND party <= ? ORDER BY party`, []any{"p", "a", "b"},
			"SEARCH party_records USING PRIMARY KEY (participant_id=? AND party>? AND party<?)"),
		stmt("users page", `SELECT id, primary_party, deactivated, annotations, resource_version FROM users
WHERE participant_id = ? AND id > ? ORDER BY id LIMIT ?`, []any{"p", "", 10},
			"SEARCH users USING PRIMARY KEY (participant_id=? AND id>?)"),
	}
	check := func(t *testing.T) {
		for _, p := range plans {
			t.Run(p.name, func(t *testing.T) {
				got := explain(t, l.r, p.query, p.args...)
				rest := got
				for _, w := range p.want {
					i := strings.Index(rest, w)
					if i < 0 {
						t.Errorf("plan lacks %q:\n%s", w, got)
						return
					}
					rest = rest[i+len(w):]
				}
				for _, w := range p.not {
					if strings.Contains(got, w) {
						t.Errorf("plan has %q:\n%s", w, got)
					}
				}
				if strings.Contains(got, "TEMP B-TREE") && !p.sorts {
					t.Errorf("plan sorts:\n%s", got)
				}
				coroutines := map[string]bool{}
				for line := range strings.SplitSeq(got, "\n") {
					if f := strings.Fields(line); len(f) == 2 && f[0] == "CO-ROUTINE" {
						coroutines[f[1]] = true
					}
				}
				for line := range strings.SplitSeq(got, "\n") {
					// "SCAN t" alone reads a whole table; a subquery's
					// result (a co-routine's too) or json_each may be
					// scanned.
					if f := strings.Fields(line); len(f) == 2 && f[0] == "SCAN" && !strings.HasPrefix(f[1], "(") && !coroutines[f[1]] {
						t.Errorf("plan scans a table:\n%s", got)
					}
				}
			})
		}
	}
	t.Run("fresh", check)

	// 20 000 contracts: the DSO a stakeholder of all, an owner of each
	// Amulet, one in a thousand an OpenMiningRound, one in ten archived.
	_, err = l.w.ExecContext(t.Context(), `
INSERT INTO contracts (contract_id, package_name, module, entity, migration_id, created_update_id, archived_update_id, body)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
  SELECT 'c' || i, 'splice-amulet',
         CASE WHEN i % 1000 = 0 THEN 'Splice.Round' ELSE 'Splice.Amulet' END,
         CASE WHEN i % 1000 = 0 THEN 'OpenMiningRound' WHEN i % 100 = 1 THEN 'LockedAmulet' ELSE 'Amulet' END,
         0, 'u' || i, CASE WHEN i % 10 = 5 THEN 'a' || i END, x'00'
  FROM n;
INSERT INTO contract_stakeholders (party, package_name, module, entity, seq)
  SELECT 'dso::1220', package_name, module, entity, seq FROM contracts WHERE archived_update_id IS NULL;
INSERT INTO contract_stakeholders (party, package_name, module, entity, seq)
  SELECT 'owner' || (seq % 100) || '::1220', package_name, module, entity, seq FROM contracts
  WHERE archived_update_id IS NULL AND module = 'Splice.Amulet';`)
	if err != nil {
		t.Fatal(err)
	}
	var stats int
	if err := l.r.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'`).Scan(&stats); err != nil {
		t.Fatal(err)
	}
	if stats != 0 {
		t.Fatal("sqlite_stat1 exists before ANALYZE")
	}
	t.Run("skewed, no statistics", check)

	if _, err := l.w.ExecContext(t.Context(), "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	t.Run("skewed, analysed", check)
}

// explain returns the EXPLAIN QUERY PLAN of query, one detail a line.
func explain(t *testing.T, db *sql.DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestNewerSchemaRefused checks that a database migrated by a newer
// sandnet (a schema version this binary does not know) is not opened.
func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := OpenLedger(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.w.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future', 0)`); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := OpenLedger(t.Context(), path); !fault.Is(err, fault.FailedPrecondition) {
		t.Fatalf("open: error = %v; want FailedPrecondition", err)
	}
}

// TestPragmas checks the settings the package documentation promises on
// each pool.
func TestPragmas(t *testing.T) {
	t.Parallel()
	l, err := OpenLedger(t.Context(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct {
		db     *sql.DB
		pragma string
		want   string
	}{
		{l.w, "journal_mode", "wal"},
		{l.w, "synchronous", "1"}, // NORMAL
		{l.w, "foreign_keys", "1"},
		{l.w, "busy_timeout", "5000"},
		{l.r, "query_only", "1"},
		{l.r, "busy_timeout", "5000"},
	} {
		var got string
		if err := tc.db.QueryRow("PRAGMA " + tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s; want %s", tc.pragma, got, tc.want)
		}
	}
	if _, err := l.r.Exec(`INSERT INTO meta (key, value) VALUES ('x', 'y')`); err == nil {
		t.Error("read pool accepted a write")
	}
}
