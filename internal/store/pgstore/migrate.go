package pgstore

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/store"
)

// migrations holds the schemas, one directory per database (the ledger's,
// a Scan's) and one file per version. The SQLite adapter has the same
// versions under the same names.
//
//go:embed migrations/ledger/*.sql migrations/scan/*.sql migrations/validator/*.sql
var migrations embed.FS

// migrateDir creates the schema if needed and applies the pending
// migrations of dir on a connection of its own. A session advisory lock serialises processes
// that start together; the version check, the DDL and the bookkeeping run
// in one transaction, so a failure leaves the schema as it was
// (PostgreSQL's DDL is transactional).
func migrateDir(ctx context.Context, cfg *pgx.ConnConfig, schema, dir string) (err error) {
	all, err := store.ReadMigrations(migrations, dir)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return interpret(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))

	key := lockKey("migrate", schema)
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		return interpret(err)
	}
	defer func() {
		// Closing the connection would release it too; unlocking keeps the
		// intent visible.
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, key)
	}()

	ident := pgx.Identifier{schema}.Sanitize()
	if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+ident); err != nil {
		return interpret(err)
	}
	// search_path was set at connect time, possibly before the schema
	// existed; set it again so that the DDL below lands in the schema.
	if _, err := conn.Exec(ctx, `SET search_path TO `+ident); err != nil {
		return interpret(err)
	}

	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INT PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at BIGINT NOT NULL
)`); err != nil {
			return interpret(err)
		}
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return interpret(err)
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return interpret(err)
		}
		pending, err := store.Pending(all, applied)
		if err != nil {
			return err
		}
		for _, m := range pending {
			// Without arguments pgx uses the simple protocol, which runs a
			// file of several statements as it is.
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.Version, m.Name, time.Now().UnixMicro()); err != nil {
				return interpret(err)
			}
		}
		return nil
	})
}
