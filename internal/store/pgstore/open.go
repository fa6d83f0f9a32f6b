package pgstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sandnet/sandnet/internal/fault"
)

// openPool is what every PostgreSQL store ([Ledger], [Scan], [Validator])
// does to open: it checks the schema's name, connects to the database at
// url, creates schema if missing, applies the pending migrations of
// migrationsDir and returns a pool whose connections all work in schema,
// with the connection configuration it was built from. name ("ledger",
// "scan", "validator") names the store in the errors.
func openPool(ctx context.Context, name, url, schema, migrationsDir string) (*pgxpool.Pool, *pgx.ConnConfig, error) {
	if err := checkSchema(schema); err != nil {
		return nil, nil, err
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, nil, fault.Wrap(fault.InvalidArgument, err, "database url")
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "sandnet"
	}
	if err := migrateDir(ctx, cfg.ConnConfig.Copy(), schema, migrationsDir); err != nil {
		return nil, nil, fmt.Errorf("open %s schema %s: %w", name, schema, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s schema %s: %w", name, schema, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("open %s schema %s: %w", name, schema, interpret(err))
	}
	return pool, cfg.ConnConfig, nil
}

// checkSchema refuses a schema name that is not a plain lower-case
// identifier, before it goes into search_path.
func checkSchema(schema string) error {
	if !schemaName.MatchString(schema) {
		return fault.New(fault.InvalidArgument,
			"schema name %q: use lower-case letters, digits and underscores, starting with a letter or underscore", schema)
	}
	return nil
}
