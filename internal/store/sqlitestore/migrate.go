package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"time"

	"github.com/sandnet/sandnet/internal/store"
)

// migrations holds the schemas, one directory per database (the ledger's,
// a Scan's) and one file per version. The PostgreSQL adapter has the same
// versions under the same names.
//
//go:embed migrations/ledger/*.sql migrations/scan/*.sql migrations/validator/*.sql
var migrations embed.FS

// migrateDir applies the pending migrations of dir in one IMMEDIATE
// transaction: the version check and the DDL see the same database, and a
// failure leaves the schema as it was (SQLite's DDL is transactional).
func migrateDir(ctx context.Context, db *sql.DB, dir string) error {
	all, err := store.ReadMigrations(migrations, dir)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return interpret(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
)`); err != nil {
		return interpret(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return interpret(err)
	}
	var applied []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return interpret(err)
		}
		applied = append(applied, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return interpret(err)
	}
	pending, err := store.Pending(all, applied)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		return nil
	}
	for _, m := range pending {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, time.Now().UnixMicro()); err != nil {
			return interpret(err)
		}
	}
	return interpret(tx.Commit())
}
