package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// completions are the completion and deduplication statements, shared
// with the SQLite adapter (see store.Completions).
var completions = store.NewCompletions(store.PostgreSQL)

// pgQuerier is what pgx's pool and transactions have in common.
type pgQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// shared is the store.Querier of a pool or a transaction.
type shared struct{ q pgQuerier }

func (q shared) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, query, args...)
	if err != nil {
		return 0, interpret(err)
	}
	return tag.RowsAffected(), nil
}

func (q shared) Query(ctx context.Context, query string, args ...any) (store.Rows, error) {
	rows, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	return pgRows{rows}, nil
}

// pgRows is the store.Rows of pgx rows, with their errors classified.
type pgRows struct{ pgx.Rows }

func (r pgRows) Scan(dest ...any) error { return interpret(r.Rows.Scan(dest...)) }
func (r pgRows) Err() error             { return interpret(r.Rows.Err()) }

// AppendCompletion records a completion (see ledger.WriteTx).
func (w *writeTx) AppendCompletion(ctx context.Context, c *ledger.Completion) error {
	return completions.Append(ctx, shared{w.tx}, c)
}

// LastAcceptance reads the deduplication index (see ledger.WriteTx).
func (w *writeTx) LastAcceptance(ctx context.Context, p ledger.ParticipantID, change ledger.ChangeID) (ledger.Acceptance, bool, error) {
	return completions.LastAcceptance(ctx, shared{w.tx}, p, change)
}

// Completions reads a participant's completion stream (see ledger.Store).
func (l *Ledger) Completions(ctx context.Context, q ledger.CompletionQuery) ([]ledger.Completion, error) {
	return completions.Read(ctx, shared{l.pool}, q)
}
