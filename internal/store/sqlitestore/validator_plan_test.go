package sqlitestore

import (
	"path/filepath"
	"strings"
	"testing"
)

// validatorPlanFixture fills a validator database with 2 000 transfers of
// 100 senders to 10 receivers, straight in SQL.
const validatorPlanFixture = `
INSERT INTO transfers (sender, tracking_id, receiver, seq, state, update_id, contract_id, failure_kind, reason, record_time)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
  SELECT 'sender' || (i % 100), 't' || (i / 20), 'receiver' || (i % 10), i, 'created', 'u' || i, 'c' || i, '', '', i
  FROM n;`

// TestValidatorQueryPlans pins the plans of the lookups: the sender's
// transfer by primary key, the receiver's by transfers_receiver, never a
// scan of the table. Checked without statistics, then with them.
func TestValidatorQueryPlans(t *testing.T) {
	t.Parallel()
	s, err := OpenValidator(t.Context(), filepath.Join(t.TempDir(), "validator.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.w.ExecContext(t.Context(), validatorPlanFixture); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"SentTransfer", sqlValSent, []string{"SEARCH transfers USING PRIMARY KEY (sender=? AND tracking_id=?)"}},
		{"Transfer", sqlValTransfer, []string{
			"SEARCH transfers USING PRIMARY KEY (sender=? AND tracking_id=?)",
			"SEARCH transfers USING INDEX transfers_receiver (receiver=? AND tracking_id=?)",
		}},
	}
	for _, analyzed := range []bool{false, true} {
		if analyzed {
			if _, err := s.w.ExecContext(t.Context(), "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range tests {
			rows, err := s.w.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+tc.query, "sender1", "t3")
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var id, parent, notused int
				var detail string
				if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			text := strings.Join(plan, "\n")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%s (analyzed %v): plan lacks %q:\n%s", tc.name, analyzed, w, text)
				}
			}
			if strings.Contains(text, "SCAN transfers") {
				t.Errorf("%s (analyzed %v): plan scans the table:\n%s", tc.name, analyzed, text)
			}
		}
	}
}
