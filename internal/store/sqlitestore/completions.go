package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// completions are the completion and deduplication statements, shared
// with the PostgreSQL adapter (see store.Completions).
var completions = store.NewCompletions(store.SQLite)

// querier is the store.Querier of a runner: the read pool, or the write
// transaction.
type querier struct{ r runner }

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.r.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, interpret(err)
	}
	n, err := res.RowsAffected()
	return n, interpret(err)
}

func (q querier) Query(ctx context.Context, query string, args ...any) (store.Rows, error) {
	rows, err := q.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	return sqlRows{rows}, nil
}

// sqlRows is the store.Rows of database/sql rows.
type sqlRows struct{ rows *sql.Rows }

func (r sqlRows) Next() bool             { return r.rows.Next() }
func (r sqlRows) Scan(dest ...any) error { return interpret(r.rows.Scan(dest...)) }
func (r sqlRows) Err() error             { return interpret(r.rows.Err()) }
func (r sqlRows) Close()                 { _ = r.rows.Close() }

// AppendCompletion records a completion (see ledger.WriteTx).
func (w *writeTx) AppendCompletion(ctx context.Context, c *ledger.Completion) error {
	return completions.Append(ctx, querier{w.runner}, c)
}

// LastAcceptance reads the deduplication index (see ledger.WriteTx).
func (w *writeTx) LastAcceptance(ctx context.Context, p ledger.ParticipantID, change ledger.ChangeID) (ledger.Acceptance, bool, error) {
	return completions.LastAcceptance(ctx, querier{w.runner}, p, change)
}

// Completions reads a participant's completion stream (see ledger.Store).
func (l *Ledger) Completions(ctx context.Context, q ledger.CompletionQuery) ([]ledger.Completion, error) {
	return completions.Read(ctx, querier{l.read}, q)
}
