package store

import (
	"context"
	"strconv"
	"strings"
)

// The dialect seam: SQL that both adapters run the same way is written
// once, in this package, against [Querier], and only the few things in
// which SQLite and PostgreSQL differ for it come from a [Dialect]. Each
// adapter wraps its connection or transaction in a Querier that
// classifies its driver's errors (unique and foreign-key violations, a
// busy database) as it does for its own statements.
//
// The shared statements keep to the SQL both engines read alike: $n
// placeholders (rewritten for SQLite, which numbers them ?n), INSERT …
// VALUES with several rows, INSERT … ON CONFLICT … DO UPDATE SET x =
// excluded.x, UPDATE … RETURNING, compound SELECTs with ORDER BY and
// LIMIT. Locking needs nothing here: every write runs inside the
// adapter's Write, which already holds the engine's write lock (SQLite's
// IMMEDIATE transaction, PostgreSQL's advisory lock).

// Querier runs statements on one connection pool or inside one
// transaction. Its errors are the adapter's classified errors.
type Querier interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Query runs a statement that returns rows.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Rows is the result of [Querier.Query].
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Dialect is what the shared statements need to know about an engine.
type Dialect struct {
	// Name is the engine's name, for messages.
	Name string
	// QuestionPlaceholders is set for an engine that numbers parameters
	// ?n rather than $n (SQLite).
	QuestionPlaceholders bool
	// NoLimit is the LIMIT argument that means no limit: -1 for SQLite,
	// NULL for PostgreSQL.
	NoLimit any
	// OrderedArms is set for an engine that merges a UNION ALL of
	// parenthesised arms, each with its own ORDER BY, in order (the Merge
	// Append of PostgreSQL). Without it, a compound UNION under ORDER BY
	// is merged in order (SQLite's MERGE (UNION)), and arms may have no
	// ORDER BY of their own.
	OrderedArms bool
}

// SQLite is the dialect of the SQLite adapter.
var SQLite = Dialect{Name: "sqlite", QuestionPlaceholders: true, NoLimit: int64(-1)}

// PostgreSQL is the dialect of the PostgreSQL adapter.
var PostgreSQL = Dialect{Name: "postgresql", NoLimit: nil, OrderedArms: true}

// Rebind rewrites a statement written with $n placeholders for the
// engine. The shared statements hold no string literals, so every $
// followed by a digit is a placeholder.
func (d Dialect) Rebind(query string) string {
	if !d.QuestionPlaceholders {
		return query
	}
	b := []byte(query)
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '$' && b[i+1] >= '0' && b[i+1] <= '9' {
			b[i] = '?'
		}
	}
	return string(b)
}

// MergeOffsets returns a query of the distinct ledger_offset values that
// the arms select, in ascending order, at most limit (a placeholder) of
// them, written so that the engine merges the arms' index ranges in order
// and stops at the limit instead of reading and sorting them all. Each
// arm is a SELECT of one column, ledger_offset, whose WHERE clause pins
// an index range in ledger_offset order.
func (d Dialect) MergeOffsets(arms []string, limit string) string {
	if !d.OrderedArms {
		return strings.Join(arms, "\nUNION ") + "\nORDER BY 1 LIMIT " + limit
	}
	ordered := make([]string, len(arms))
	for i, a := range arms {
		ordered[i] = "(" + a + " ORDER BY ledger_offset)"
	}
	return "SELECT DISTINCT ledger_offset FROM (" + strings.Join(ordered, "\n  UNION ALL ") + ") a\nORDER BY ledger_offset LIMIT " + limit
}

// Limit is the LIMIT argument for a limit of n, 0 meaning none.
func (d Dialect) Limit(n int) any {
	if n <= 0 {
		return d.NoLimit
	}
	return int64(n)
}

// queryRow runs a query and scans its first row into dest; ok is false
// when it has none.
func queryRow(ctx context.Context, q Querier, query string, args []any, dest ...any) (ok bool, err error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return false, rows.Err()
	}
	if err := rows.Scan(dest...); err != nil {
		return false, err
	}
	return true, rows.Err()
}

// args builds a statement's argument list and its $n placeholders.
type args []any

// add appends v and returns its placeholder.
func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}
