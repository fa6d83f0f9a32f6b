package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/store"
)

// Saves keeps the saves of the PostgreSQL stores of one schema prefix.
// A catalog, the table saves of the schema <prefix>_saves, lists them;
// save number id copies the live schema <prefix>_<store> into
// <prefix>_save<id>_<store>, which no live store's schema can be called
// (they are <prefix>_ledger, <prefix>_scan…, <prefix>_validator…). A save
// is taken in one REPEATABLE READ transaction, so every store is copied
// as of one point of the database's history.
//
// A save also keeps a spare copy of its schemas,
// <prefix>_save<id>_spare_<store>, made in the background after the save
// and after each restore that used it, in one transaction that also marks
// the catalog entry (column spare). A restore then only checks the save,
// drops the live schemas and renames the spare ones to the live names, in
// one transaction: its cost does not grow with the data. Without a ready
// spare, a restore replaces every live table's rows from the save in one
// transaction.
type Saves struct {
	pool   *pgxpool.Pool
	prefix string

	// ctx ends the spares' background work at Close.
	ctx    context.Context
	cancel context.CancelFunc
	// spareMu is held while a spare is made, and by whatever uses or
	// drops one; spares waits for the background work at Close.
	spareMu sync.Mutex
	spares  sync.WaitGroup
	// buildMu guards stopBuild, the cancellations of the spares being
	// made or waiting to be, by save id.
	buildMu   sync.Mutex
	stopBuild map[int64][]context.CancelFunc
}

var _ store.Saves = (*Saves)(nil)

// liveStore matches the part after "<prefix>_" of a live store's schema.
var liveStore = regexp.MustCompile(`^(ledger|scan(_sv[0-9]+)?|validator(_[a-z0-9_]+)?)$`)

// OpenSaves opens the saves of the stores whose schemas start with
// prefix, creating their catalog if needed.
func OpenSaves(ctx context.Context, url, prefix string) (*Saves, error) {
	if err := checkSchema(prefix + "_saves"); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidArgument, err, "database url")
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "sandnet"
	}
	// A save or a restore, and a spare made in the background.
	cfg.MaxConns = 3
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Saves{pool: pool, prefix: prefix}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	// Several processes sharing the database start together: IF NOT
	// EXISTS does not keep two from creating the schema at once, a lock
	// does.
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "sandnet saves catalog "+prefix); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+s.catalogSchema()+`;
CREATE TABLE IF NOT EXISTS `+s.catalog()+` (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL,
    ledger_time BIGINT NOT NULL,
    ledger_end BIGINT NOT NULL,
    size_bytes BIGINT NOT NULL,
    stores     JSONB NOT NULL
);
ALTER TABLE `+s.catalog()+` ADD COLUMN IF NOT EXISTS spare BOOLEAN NOT NULL DEFAULT false`)
		return err
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("create the saves' catalog: %w", interpret(err))
	}
	s.dropOld()
	return s, nil
}

// Close stops making spares, waits for the one being made (its
// transaction rolls back) and closes the connections.
func (s *Saves) Close() {
	s.cancel()
	s.spares.Wait()
	s.pool.Close()
}

func (s *Saves) catalogSchema() string { return s.prefix + "_saves" }
func (s *Saves) catalog() string       { return s.catalogSchema() + ".saves" }

func (s *Saves) saveSchema(id int64, st string) string {
	return fmt.Sprintf("%s_save%d_%s", s.prefix, id, st)
}

// spareSchema is the schema of a save's spare copy of a store: under the
// save's prefix, so that Delete drops it with the save.
func (s *Saves) spareSchema(id int64, st string) string {
	return fmt.Sprintf("%s_save%d_spare_%s", s.prefix, id, st)
}

// oldSchema is the name a live store's schema is renamed to by a restore
// that renames a spare in, until it is dropped in the background. tag
// tells one restore's apart from an earlier one's not dropped yet.
func (s *Saves) oldSchema(tag uint32, st string) string {
	return fmt.Sprintf("%s_old%08x_%s", s.prefix, tag, st)
}

// dropOld drops, in the background, the schemas restores renamed away
// (and those a process stopping before it dropped them left behind).
func (s *Saves) dropOld() {
	s.spares.Go(func() {
		ctx := s.ctx
		rows, err := s.pool.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, s.prefix+"_old")
		if err != nil {
			return
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return
		}
		for _, n := range names {
			if oldName.MatchString(strings.TrimPrefix(n, s.prefix+"_")) {
				_, _ = s.pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+ident(n)+` CASCADE`)
			}
		}
	})
}

// oldName matches the part after "<prefix>_" of a schema renamed away.
var oldName = regexp.MustCompile(`^old[0-9a-f]{8}_`)

// migrationsOf is the migrations directory of a store (ledger, scan_sv2,
// validator_alice…).
func migrationsOf(st string) string {
	switch {
	case strings.HasPrefix(st, "scan"):
		return "migrations/scan"
	case strings.HasPrefix(st, "validator"):
		return "migrations/validator"
	default:
		return "migrations/ledger"
	}
}

// makeSpare makes save id's spare schemas in the background, unless the
// catalog says they are there already. They are built in one transaction
// that marks the catalog entry: a process stopping meanwhile leaves
// nothing behind. A failure leaves no spare: the next restore copies.
func (s *Saves) makeSpare(id int64) {
	ctx, cancel := context.WithCancel(s.ctx)
	s.buildMu.Lock()
	if s.stopBuild == nil {
		s.stopBuild = map[int64][]context.CancelFunc{}
	}
	s.stopBuild[id] = append(s.stopBuild[id], cancel)
	s.buildMu.Unlock()
	s.spares.Go(func() {
		defer cancel()
		s.spareMu.Lock()
		defer s.spareMu.Unlock()
		_ = s.buildSpare(ctx, id)
	})
}

// stopBuilds gives up save id's spare being made or waiting to be: a
// restore that finds none ready copies rather than wait for one (building
// the structure of every store takes longer than copying a small
// network), and a deleted save needs none.
func (s *Saves) stopBuilds(id int64) {
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	for _, cancel := range s.stopBuild[id] {
		cancel()
	}
	delete(s.stopBuild, id)
}

func (s *Saves) buildSpare(ctx context.Context, id int64) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		c, err := scanCatalog(tx.QueryRow(ctx, `SELECT `+catalogColumns+` FROM `+s.catalog()+` WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err // deleted meanwhile, or not a save
		}
		var ready bool
		if err := tx.QueryRow(ctx, `SELECT spare FROM `+s.catalog()+` WHERE id = $1`, id).Scan(&ready); err != nil || ready {
			return err
		}
		for _, ss := range c.stores {
			dst := s.spareSchema(id, ss.Store)
			if err := checkSchema(dst); err != nil {
				return err
			}
			// The live store's structure, from the migrations every
			// store's schema is made with (unqualified names, so they land
			// in search_path), then the save's rows.
			all, err := store.ReadMigrations(migrations, migrationsOf(ss.Store))
			if err != nil {
				return err
			}
			var batch strings.Builder
			fmt.Fprintf(&batch, "DROP SCHEMA IF EXISTS %s CASCADE;\nCREATE SCHEMA %s;\nSET LOCAL search_path TO %s;\n", ident(dst), ident(dst), ident(dst))
			batch.WriteString("CREATE TABLE schema_migrations (version INT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL);\n")
			for _, m := range all {
				batch.WriteString(m.SQL)
				batch.WriteString(";\n")
			}
			if _, err := tx.Exec(ctx, batch.String()); err != nil {
				return interpret(err)
			}
			if err := s.fill(ctx, tx, c, ss, dst); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE `+s.catalog()+` SET spare = true WHERE id = $1`, id)
		return interpret(err)
	})
}

// savedStore is what a save holds of one store: its tables with their
// row counts (checked before a restore) and its sequences' values.
type savedStore struct {
	Store     string          `json:"store"`
	Tables    []savedTable    `json:"tables"`
	Sequences []savedSequence `json:"sequences"`
}

type savedTable struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
}

type savedSequence struct {
	Name     string `json:"name"`
	Value    int64  `json:"value"`
	IsCalled bool   `json:"is_called"`
}

// liveStores lists the stores of the prefix (ledger, scan, scan_sv2, …).
func (s *Saves) liveStores(ctx context.Context, q pgx.Tx) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY nspname`, s.prefix+"_")
	if err != nil {
		return nil, interpret(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, interpret(err)
	}
	var out []string
	for _, n := range names {
		if st := strings.TrimPrefix(n, s.prefix+"_"); liveStore.MatchString(st) {
			out = append(out, st)
		}
	}
	return out, nil
}

func tablesOf(ctx context.Context, q pgx.Tx, schema string) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, schema)
	if err != nil {
		return nil, interpret(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return names, interpret(err)
}

// ident quotes a qualified name (schema, table): pgx's Identifier quotes
// each part and joins them with ".".
func ident(parts ...string) string { return pgx.Identifier(parts).Sanitize() }

// Save copies every live store into new schemas, in one REPEATABLE READ
// transaction: every store as of the same instant, so no Scan or
// validator store is ahead of the ledger saved with it.
func (s *Saves) Save(ctx context.Context, req store.SaveRequest) (store.SaveInfo, error) {
	if err := store.CheckSaveName(req.Name); err != nil {
		return store.SaveInfo{}, err
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return store.SaveInfo{}, interpret(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// The snapshot starts with the head, so the saved ledger end is the
	// saved ledger's.
	if _, err := tx.Exec(ctx, `SET LOCAL search_path = `+ident(s.prefix+"_ledger")); err != nil {
		return store.SaveInfo{}, interpret(err)
	}
	head, err := readHead(ctx, tx)
	if err != nil {
		return store.SaveInfo{}, fmt.Errorf("save: read the ledger's head: %w", err)
	}
	at := time.Now()
	var id int64
	err = tx.QueryRow(ctx, `INSERT INTO `+s.catalog()+` (name, created_at, ledger_time, ledger_end, size_bytes, stores)
VALUES ($1, now(), 0, 0, 0, '[]') ON CONFLICT (name) DO NOTHING RETURNING id`, req.Name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.SaveInfo{}, store.SaveExists(req.Name)
	}
	if err != nil {
		return store.SaveInfo{}, interpret(err)
	}
	stores, err := s.liveStores(ctx, tx)
	if err != nil {
		return store.SaveInfo{}, err
	}
	if !slices.Contains(stores, "ledger") {
		return store.SaveInfo{}, fault.New(fault.FailedPrecondition, "nothing to save: there is no schema %s", s.prefix+"_ledger")
	}
	saved, size, err := s.copyStores(ctx, tx, id, stores)
	if err != nil {
		return store.SaveInfo{}, err
	}
	info := store.NewSaveInfo(req.Name, head, req.Participant, at, size)
	b, err := json.Marshal(saved)
	if err != nil {
		return store.SaveInfo{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE `+s.catalog()+` SET created_at = $2, ledger_time = $3, ledger_end = $4, size_bytes = $5, stores = $6 WHERE id = $1`,
		id, info.CreatedAt, int64(info.LedgerTime), info.LedgerEnd, info.SizeBytes, b); err != nil {
		return store.SaveInfo{}, interpret(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return store.SaveInfo{}, interpret(err)
	}
	s.makeSpare(id)
	return info, nil
}

// copyStores copies the live stores into save id's schemas, in the
// transaction's snapshot, and describes them. Three round trips whatever
// the number of stores: the tables' names; then, pipelined, every
// schema's and table's creation (whose command tags count the rows), the
// sequences' values and the copies' sizes. The copies have no indexes: a
// restore reads every row of them.
func (s *Saves) copyStores(ctx context.Context, tx pgx.Tx, id int64, stores []string) ([]savedStore, int64, error) {
	live := make([]string, len(stores))
	dst := make([]string, len(stores))
	for i, st := range stores {
		live[i], dst[i] = s.prefix+"_"+st, s.saveSchema(id, st)
		if err := checkSchema(dst[i]); err != nil {
			return nil, 0, err
		}
	}
	rows, err := tx.Query(ctx, `SELECT schemaname, tablename FROM pg_tables WHERE schemaname = ANY($1) ORDER BY schemaname, tablename`, live)
	if err != nil {
		return nil, 0, interpret(err)
	}
	type table struct{ schema, name string }
	tables, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (table, error) {
		var t table
		err := r.Scan(&t.schema, &t.name)
		return t, err
	})
	if err != nil {
		return nil, 0, interpret(err)
	}
	saved := make([]savedStore, len(stores))
	index := map[string]int{}
	b := &pgx.Batch{}
	for i, st := range stores {
		index[live[i]] = i
		saved[i] = savedStore{Store: st, Tables: []savedTable{}, Sequences: []savedSequence{}}
		b.Queue(`CREATE SCHEMA ` + ident(dst[i]))
	}
	for _, t := range tables {
		i := index[t.schema]
		b.Queue(`CREATE TABLE ` + ident(dst[i], t.name) + ` AS TABLE ` + ident(t.schema, t.name)).Exec(func(ct pgconn.CommandTag) error {
			saved[i].Tables = append(saved[i].Tables, savedTable{Name: t.name, Rows: ct.RowsAffected()})
			return nil
		})
	}
	// Sequences are not transactional: read after the snapshot began,
	// their values are at least the snapshot's.
	b.Queue(`SELECT schemaname, sequencename, COALESCE(last_value, start_value), last_value IS NOT NULL
FROM pg_sequences WHERE schemaname = ANY($1) ORDER BY schemaname, sequencename`, live).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var sc string
			var q savedSequence
			if err := rows.Scan(&sc, &q.Name, &q.Value, &q.IsCalled); err != nil {
				return err
			}
			i := index[sc]
			saved[i].Sequences = append(saved[i].Sequences, q)
		}
		return rows.Err()
	})
	var size int64
	b.Queue(`SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ANY($1) AND c.relkind = 'r'`, dst).QueryRow(func(row pgx.Row) error {
		return row.Scan(&size)
	})
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, 0, fmt.Errorf("save: %w", interpret(err))
	}
	return saved, size, nil
}

type catalogRow struct {
	id     int64
	info   store.SaveInfo
	stores []savedStore
}

const catalogColumns = `id, name, created_at, ledger_time, ledger_end, size_bytes, stores`

func scanCatalog(row pgx.Row) (catalogRow, error) {
	var c catalogRow
	var lt int64
	var b []byte
	var err error
	if err := row.Scan(&c.id, &c.info.Name, &c.info.CreatedAt, &lt, &c.info.LedgerEnd, &c.info.SizeBytes, &b); err != nil {
		return c, err
	}
	c.info.LedgerTime = daml.Timestamp(lt)
	c.info.CreatedAt = c.info.CreatedAt.UTC()
	c.stores, err = decodeStores(c.info.Name, b)
	return c, err
}

// decodeStores reads the stores column of save name's catalog entry.
// Whatever it holds, the answer is the stores or a store.SaveCorrupt:
// their names go into schema names, which must be a live store's.
func decodeStores(name string, b []byte) ([]savedStore, error) {
	var out []savedStore
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, store.SaveCorrupt(name, "its catalog entry does not describe it")
	}
	seen := map[string]bool{}
	for _, st := range out {
		if !liveStore.MatchString(st.Store) || seen[st.Store] {
			return nil, store.SaveCorrupt(name, "its catalog entry names a store %s", fault.Quote(st.Store))
		}
		seen[st.Store] = true
		for _, t := range st.Tables {
			if t.Name == "" || t.Rows < 0 {
				return nil, store.SaveCorrupt(name, "its catalog entry names a table %s of %d rows", fault.Quote(t.Name), t.Rows)
			}
		}
	}
	return out, nil
}

func (s *Saves) lookup(ctx context.Context, name string) (catalogRow, error) {
	if store.CheckSaveName(name) != nil {
		return catalogRow{}, store.SaveNotFound(name)
	}
	c, err := scanCatalog(s.pool.QueryRow(ctx, `SELECT `+catalogColumns+` FROM `+s.catalog()+` WHERE name = $1`, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, store.SaveNotFound(name)
	}
	if err != nil {
		return c, interpret(err)
	}
	return c, nil
}

// List lists the saves, oldest first.
func (s *Saves) List(ctx context.Context) ([]store.SaveInfo, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+catalogColumns+` FROM `+s.catalog()+` WHERE ledger_time <> 0`)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	out := []store.SaveInfo{}
	for rows.Next() {
		c, err := scanCatalog(rows)
		if err != nil {
			continue
		}
		out = append(out, c.info)
	}
	if err := rows.Err(); err != nil {
		return nil, interpret(err)
	}
	store.SortSaves(out)
	return out, nil
}

// Get describes a save.
func (s *Saves) Get(ctx context.Context, name string) (store.SaveInfo, error) {
	c, err := s.lookup(ctx, name)
	return c.info, err
}

// Delete drops a save's schemas and its catalog entry, in one
// transaction.
func (s *Saves) Delete(ctx context.Context, name string) error {
	c, err := s.lookup(ctx, name)
	if err != nil && !fault.Is(err, fault.FailedPrecondition) {
		return err
	}
	// Not while its spare is being made: its schemas would outlive it.
	s.stopBuilds(c.id)
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, fmt.Sprintf("%s_save%d_", s.prefix, c.id))
		if err != nil {
			return interpret(err)
		}
		schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return interpret(err)
		}
		for _, sc := range schemas {
			if _, err := tx.Exec(ctx, `DROP SCHEMA `+ident(sc)+` CASCADE`); err != nil {
				return interpret(err)
			}
		}
		_, err = tx.Exec(ctx, `DELETE FROM `+s.catalog()+` WHERE id = $1`, c.id)
		return interpret(err)
	})
}

// Prepare checks that the save's tables are all there with the rows
// they were saved with, before anything live is touched.
func (s *Saves) Prepare(ctx context.Context, name string) (store.SaveInfo, store.Restore, error) {
	c, err := s.lookup(ctx, name)
	if err != nil {
		return store.SaveInfo{}, nil, err
	}
	if !slices.ContainsFunc(c.stores, func(st savedStore) bool { return st.Store == "ledger" }) {
		return store.SaveInfo{}, nil, store.SaveCorrupt(name, "it holds no ledger")
	}
	// Every saved table's rows, counted in one query.
	var counts strings.Builder
	want := map[string]int64{}
	for _, st := range c.stores {
		for _, t := range st.Tables {
			key := st.Store + "." + t.Name
			want[key] = t.Rows
			if counts.Len() > 0 {
				counts.WriteString(" UNION ALL ")
			}
			fmt.Fprintf(&counts, "SELECT %s, count(*) FROM %s", quoteLiteral(key), ident(s.saveSchema(c.id, st.Store), t.Name))
		}
	}
	rows, err := s.pool.Query(ctx, counts.String())
	if err != nil {
		return store.SaveInfo{}, nil, store.SaveCorrupt(name, "its tables cannot be read: %v", interpret(err))
	}
	got := map[string]int64{}
	for rows.Next() {
		var key string
		var n int64
		if err := rows.Scan(&key, &n); err != nil {
			rows.Close()
			return store.SaveInfo{}, nil, interpret(err)
		}
		got[key] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return store.SaveInfo{}, nil, store.SaveCorrupt(name, "its tables cannot be read: %v", interpret(err))
	}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		if got[key] != want[key] {
			return store.SaveInfo{}, nil, store.SaveCorrupt(name, "its table %s has %d rows, not the %d saved", key, got[key], want[key])
		}
	}
	return c.info, &pgRestore{s: s, save: c}, nil
}

type pgRestore struct {
	s    *Saves
	save catalogRow
}

// Discard does nothing: Prepare staged nothing.
func (r *pgRestore) Discard() {}

// Apply puts the save in place of the live stores, in one transaction:
// by renaming its spare schemas to the live names when they are ready
// (the live schemas are dropped), by replacing every live table's rows
// with the save's otherwise. The live stores the save does not hold (a
// Scan of an SV added since) are dropped. No process may use the stores
// meanwhile; the save's next spare is made in the background afterwards.
func (r *pgRestore) Apply(ctx context.Context) error {
	s := r.s
	// A spare still being made is given up (its transaction rolls back).
	s.stopBuilds(r.save.id)
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		live, err := s.liveStores(ctx, tx)
		if err != nil {
			return err
		}
		spare, err := r.spareReady(ctx, tx)
		if err != nil {
			return err
		}
		if spare {
			// The live schemas are renamed away (dropping them in the
			// transaction took most of its time: a catalog row per table,
			// index and sequence) and dropped once it is over. Sequences
			// (identity columns) are in the schema and move with it;
			// nothing outside a store's schema names it.
			var batch strings.Builder
			tag := rand.Uint32()
			for _, st := range live {
				fmt.Fprintf(&batch, "ALTER SCHEMA %s RENAME TO %s;\n", ident(s.prefix+"_"+st), ident(s.oldSchema(tag, st)))
			}
			for _, ss := range r.save.stores {
				fmt.Fprintf(&batch, "ALTER SCHEMA %s RENAME TO %s;\n", ident(s.spareSchema(r.save.id, ss.Store)), ident(s.prefix+"_"+ss.Store))
			}
			fmt.Fprintf(&batch, "UPDATE %s SET spare = false WHERE id = %d;\n", s.catalog(), r.save.id)
			_, err := tx.Exec(ctx, batch.String())
			return interpret(err)
		}
		for _, st := range live {
			if !slices.ContainsFunc(r.save.stores, func(ss savedStore) bool { return ss.Store == st }) {
				if _, err := tx.Exec(ctx, `DROP SCHEMA `+ident(s.prefix+"_"+st)+` CASCADE`); err != nil {
					return interpret(err)
				}
			}
		}
		for _, ss := range r.save.stores {
			if err := r.restoreStore(ctx, tx, ss); err != nil {
				return fmt.Errorf("restore %s: %w", ss.Store, err)
			}
		}
		return nil
	})
	if err == nil {
		s.dropOld()
		s.makeSpare(r.save.id)
	}
	return err
}

// spareReady tells whether the save's spare is ready to be renamed in:
// the catalog says so and every spare schema is there (nobody dropped one
// by hand). It locks the catalog entry.
func (r *pgRestore) spareReady(ctx context.Context, tx pgx.Tx) (bool, error) {
	s := r.s
	var ready bool
	if err := tx.QueryRow(ctx, `SELECT spare FROM `+s.catalog()+` WHERE id = $1 FOR UPDATE`, r.save.id).Scan(&ready); err != nil {
		return false, interpret(err)
	}
	if !ready {
		return false, nil
	}
	names := make([]string, len(r.save.stores))
	for i, ss := range r.save.stores {
		names[i] = s.spareSchema(r.save.id, ss.Store)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = ANY($1)`, names).Scan(&n); err != nil {
		return false, interpret(err)
	}
	return n == len(names), nil
}

func (r *pgRestore) restoreStore(ctx context.Context, tx pgx.Tx, ss savedStore) error {
	s := r.s
	live := s.prefix + "_" + ss.Store
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+ident(live)); err != nil {
		return interpret(err)
	}
	return s.fill(ctx, tx, r.save, ss, live)
}

// fill replaces the rows of schema's tables (and its sequences' values)
// with those of store ss of save c.
func (s *Saves) fill(ctx context.Context, tx pgx.Tx, c catalogRow, ss savedStore, schema string) error {
	src := s.saveSchema(c.id, ss.Store)
	have, err := tablesOf(ctx, tx, schema)
	if err != nil {
		return err
	}
	for _, t := range ss.Tables {
		if !slices.Contains(have, t.Name) {
			// A store that was dropped since: its tables come back
			// without their indexes, which its next open does not
			// recreate; that only happens if someone dropped it by hand.
			if _, err := tx.Exec(ctx, `CREATE TABLE `+ident(schema, t.Name)+` AS TABLE `+ident(src, t.Name)+` WITH NO DATA`); err != nil {
				return interpret(err)
			}
			have = append(have, t.Name)
		}
	}
	order, err := fkOrder(ctx, tx, schema, have)
	if err != nil {
		return err
	}
	// One round trip for the whole schema: without arguments, pgx sends
	// the statements as one simple query.
	var batch strings.Builder
	if err := empty(ctx, tx, schema, order, &batch); err != nil {
		return err
	}
	cols, err := columnsOf(ctx, tx, src)
	if err != nil {
		return err
	}
	for _, t := range order {
		if !slices.ContainsFunc(ss.Tables, func(st savedTable) bool { return st.Name == t }) {
			continue // a table the save predates stays empty
		}
		list := strings.Join(cols[t], ", ")
		fmt.Fprintf(&batch, "INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM %s;\n", ident(schema, t), list, list, ident(src, t))
	}
	for _, q := range ss.Sequences {
		fmt.Fprintf(&batch, "SELECT setval(%s, %d, %t);\n", quoteLiteral(ident(schema, q.Name)), q.Value, q.IsCalled)
	}
	if _, err := tx.Exec(ctx, batch.String()); err != nil {
		return interpret(err)
	}
	return nil
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// columnsOf lists the columns of every table of a schema, quoted, in
// order.
func columnsOf(ctx context.Context, tx pgx.Tx, schema string) (map[string][]string, error) {
	rows, err := tx.Query(ctx, `SELECT c.relname, a.attname FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`, schema)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, interpret(err)
		}
		out[t] = append(out[t], ident(c))
	}
	return out, interpret(rows.Err())
}

// smallSchema is the size under which emptying a schema's tables with
// DELETE beats TRUNCATE: TRUNCATE gives each table new files (tens of
// milliseconds a table on a busy machine), DELETE only marks rows.
const smallSchema = 32 << 20

// empty empties a schema's tables: with DELETE, children first, when the
// schema is small; with one TRUNCATE of them all otherwise.
func empty(ctx context.Context, tx pgx.Tx, schema string, order []string, batch *strings.Builder) error {
	var size int64
	if err := tx.QueryRow(ctx, `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`, schema).Scan(&size); err != nil {
		return interpret(err)
	}
	if size < smallSchema {
		for _, t := range slices.Backward(order) {
			fmt.Fprintf(batch, "DELETE FROM %s;\n", ident(schema, t))
		}
		return nil
	}
	names := make([]string, len(order))
	for i, t := range order {
		names[i] = ident(schema, t)
	}
	fmt.Fprintf(batch, "TRUNCATE %s;\n", strings.Join(names, ", "))
	return nil
}

// fkOrder orders tables so that every table comes after those its
// foreign keys reference.
func fkOrder(ctx context.Context, tx pgx.Tx, schema string, tables []string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT c.relname, r.relname FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE k.contype = 'f' AND n.nspname = $1`, schema)
	if err != nil {
		return nil, interpret(err)
	}
	deps := map[string][]string{}
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			rows.Close()
			return nil, interpret(err)
		}
		if from != to {
			deps[from] = append(deps[from], to)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, interpret(err)
	}
	var order []string
	done := map[string]bool{}
	var visit func(t string, depth int)
	visit = func(t string, depth int) {
		if done[t] || depth > len(tables) {
			return
		}
		for _, d := range deps[t] {
			visit(d, depth+1)
		}
		if !done[t] {
			done[t] = true
			order = append(order, t)
		}
	}
	for _, t := range tables {
		visit(t, 0)
	}
	return slices.DeleteFunc(order, func(t string) bool { return !slices.Contains(tables, t) }), nil
}
