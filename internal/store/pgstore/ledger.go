package pgstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// defaultMaxConns is the pool size when the URL does not set
// pool_max_conns.
const defaultMaxConns = 10

// defaultLeaseCheck is how often a leader pings the connection that holds
// its lock. It bounds how long a process may believe it still leads after
// PostgreSQL has dropped its session.
const defaultLeaseCheck = time.Second

// schemaName is what a schema may be called: a lower-case identifier, so
// that it is the same quoted or not, in SQL and in search_path.
var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Ledger is the PostgreSQL implementation of [ledger.Store]. It also
// implements [store.Leader].
type Ledger struct {
	pool   *pgxpool.Pool
	conn   *pgx.ConnConfig // for connections outside the pool (leases)
	schema string

	// Advisory lock keys, derived from the schema name.
	writeKey, leadKey int64

	writeSem   chan struct{}
	leaseCheck time.Duration

	closeOnce sync.Once
	closing   chan struct{}
	leases    sync.WaitGroup
	leadMu    sync.Mutex // orders leases.Add before Close's Wait
	closed    bool
}

var (
	_ ledger.Store = (*Ledger)(nil)
	_ store.Leader = (*Ledger)(nil)
)

// OpenLedger connects to the database at url (a postgres:// URL or a
// key=value DSN, as pgx parses them), creates schema if missing, applies
// pending migrations and returns a store whose connections all work in
// schema.
func OpenLedger(ctx context.Context, url, schema string) (*Ledger, error) {
	pool, conn, err := openPool(ctx, "ledger", url, schema, "migrations/ledger")
	if err != nil {
		return nil, err
	}
	return &Ledger{
		pool:       pool,
		conn:       conn,
		schema:     schema,
		writeKey:   lockKey("write", schema),
		leadKey:    lockKey("lead", schema),
		writeSem:   make(chan struct{}, 1),
		leaseCheck: defaultLeaseCheck,
		closing:    make(chan struct{}),
	}, nil
}

// lockKey derives an advisory lock key from a purpose and the schema, so
// that every component (schema) has its own locks in the database-wide
// advisory lock space.
func lockKey(purpose, schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("sandnet/" + purpose + "\x00" + schema))
	return int64(h.Sum64())
}

// Schema returns the schema the store works in.
func (l *Ledger) Schema() string { return l.schema }

// Close ends any leadership and closes the pool. It is safe to call more
// than once.
func (l *Ledger) Close() error {
	l.closeOnce.Do(func() {
		l.leadMu.Lock()
		l.closed = true
		l.leadMu.Unlock()
		close(l.closing)
		l.leases.Wait()
		l.pool.Close()
	})
	return nil
}

// Write runs fn in one transaction that first takes the schema's write
// lock, and commits it if fn returns nil. See the package documentation for
// why READ COMMITTED is required here.
func (l *Ledger) Write(ctx context.Context, fn func(ledger.WriteTx) error) error {
	select {
	case l.writeSem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-l.writeSem }()
	tx, err := l.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return interpret(err)
	}
	defer func() {
		// A rollback after Commit is a no-op; after a cancelled ctx it must
		// still reach the server, or the connection is discarded.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, l.writeKey); err != nil {
		return interpret(err)
	}
	if err := fn(&writeTx{tx: tx}); err != nil {
		return err
	}
	return interpret(tx.Commit(ctx))
}

// headQuery reads the head and every participant's offset in one
// statement, hence one snapshot, in one round trip.
const headQuery = `SELECT h.migration_id, h.sequence, h.last_record_time, h.clock_offset,
  ARRAY(SELECT id FROM participants ORDER BY ordinal),
  ARRAY(SELECT last_offset FROM participants ORDER BY ordinal),
  ARRAY(SELECT pruned_offset FROM participants ORDER BY ordinal)
FROM head h WHERE h.id = 1`

func readHead(ctx context.Context, q querier) (ledger.Head, error) {
	var h ledger.Head
	var rt int64
	var ids []string
	var offs, pruned []int64
	if err := q.QueryRow(ctx, headQuery).Scan(&h.MigrationID, &h.Sequence, &rt, &h.ClockOffset, &ids, &offs, &pruned); err != nil {
		return h, interpret(err)
	}
	h.LastRecordTime = daml.Timestamp(rt)
	h.Offsets = make(map[ledger.ParticipantID]ledger.Offset, len(ids))
	for i, id := range ids {
		h.Offsets[ledger.ParticipantID(id)] = ledger.Offset(offs[i])
		if pruned[i] > 0 {
			if h.Pruned == nil {
				h.Pruned = map[ledger.ParticipantID]ledger.Offset{}
			}
			h.Pruned[ledger.ParticipantID(id)] = ledger.Offset(pruned[i])
		}
	}
	return h, nil
}

// querier is what reads need from the pool and from a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Head returns the committed tip.
func (l *Ledger) Head(ctx context.Context) (ledger.Head, error) {
	return readHead(ctx, l.pool)
}

// Contract returns a contract, active or archived.
func (l *Ledger) Contract(ctx context.Context, id daml.ContractID) (*ledger.Contract, bool, error) {
	var body []byte
	var active bool
	err := l.pool.QueryRow(ctx, `SELECT body, archived_update_id IS NULL FROM contracts WHERE contract_id = $1`,
		string(id)).Scan(&body, &active)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, store.ContractNotFound(id)
	}
	if err != nil {
		return nil, false, interpret(err)
	}
	c, err := ledger.DecodeContract(body)
	if err != nil {
		return nil, false, err
	}
	return c, active, nil
}

// ActiveContracts lists active contracts in creation order.
//
// Plans (EXPLAIN on 20 000 analysed contracts, checked by TestQueryPlans):
//   - no filter: Index Scan using contracts_active (seq > cursor), the
//     cursor an InitPlan on contracts_contract_id_key;
//   - one template: Index Scan using contracts_active_template
//     (package_name, module, entity, seq > $n), already in seq order;
//   - stakeholder: Index Only Scan using contract_stakeholders_pkey
//     (party = $1 AND seq > cursor) joined by seq for a party with few
//     contracts; for a party that is a stakeholder of a large share of them
//     PostgreSQL prefers a merge join walking contract_stakeholders_seq.
//     Both are in seq order, so the LIMIT ends the scan;
//   - stakeholder and one template: Index Only Scan using
//     contract_stakeholders_template (party, package_name, module, entity,
//     seq > cursor) joined by seq: only the party's contracts of that
//     template are read.
//
// Several templates, with or without a stakeholder: one range as above per
// template, each cut at the page size, merged by a Merge Append.
func (l *Ledger) ActiveContracts(ctx context.Context, f ledger.ContractFilter) ([]*ledger.Contract, error) {
	query, args := activeQuery(f)
	rows, err := l.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*ledger.Contract, error) {
		var body []byte
		if err := r.Scan(&body); err != nil {
			return nil, err
		}
		return ledger.DecodeContract(body)
	})
	if err != nil {
		return nil, interpret(err)
	}
	if len(out) == 0 && f.After != "" {
		// An unknown cursor also gives an empty page; tell them apart only
		// when it matters, so that a normal page costs one round trip.
		var exists bool
		if err := l.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM contracts WHERE contract_id = $1)`,
			string(f.After)).Scan(&exists); err != nil {
			return nil, interpret(err)
		}
		if !exists {
			return nil, store.CursorNotFound(f.After)
		}
	}
	return out, nil
}

// activeQuery builds the ActiveContracts statement for f. The cursor is
// resolved to its seq by a scalar subquery, which PostgreSQL runs once (an
// InitPlan) and then uses as the index bound; a contract never leaves the
// table, so its seq is a stable keyset position even once archived.
//
// Every filter is one index range in seq order, so that the LIMIT ends the
// scan: contract_stakeholders carries the template, so a stakeholder and a
// template are one equality prefix of contract_stakeholders_template rather
// than the party's whole range filtered by template. Several templates make
// one range per template, each cut at the page size, merged (Merge Append):
// bounded work however rare the templates are.
func activeQuery(f ledger.ContractFilter) (string, []any) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	cursor := "0"
	if f.After != "" {
		cursor = "(SELECT seq FROM contracts WHERE contract_id = " + arg(string(f.After)) + ")"
	}
	limit := ""
	if f.Limit > 0 {
		limit = " LIMIT " + arg(int64(f.Limit))
	}
	party := ""
	if f.Stakeholder != "" {
		party = arg(string(f.Stakeholder))
	}
	tmpls := store.TemplateKeys(f.Templates)
	// one lists the active contracts of t (any template when t is nil),
	// those of the stakeholder only if there is one, in seq order and cut
	// at the page size, with their seq if withSeq.
	one := func(t *store.TemplateKey, withSeq bool) string {
		var b strings.Builder
		from, seq, tmpl := "contracts c", "c.seq", "c."
		if f.Stakeholder != "" {
			from, seq, tmpl = "contract_stakeholders s JOIN contracts c ON c.seq = s.seq", "s.seq", "s."
		}
		cols := "c.body"
		if withSeq {
			cols = seq + " AS seq, c.body"
		}
		b.WriteString("SELECT " + cols + " FROM " + from + " WHERE ")
		if f.Stakeholder != "" {
			b.WriteString("s.party = " + party + " AND ")
		}
		if t != nil {
			fmt.Fprintf(&b, "%[1]spackage_name = %[2]s AND %[1]smodule = %[3]s AND %[1]sentity = %[4]s AND ",
				tmpl, arg(t.PackageName), arg(t.ModuleName), arg(t.EntityName))
		}
		// Order by the driving table's column so that its index delivers
		// the rows in order and the LIMIT stops early.
		b.WriteString(seq + " > " + cursor + " AND c.archived_update_id IS NULL ORDER BY " + seq + limit)
		return b.String()
	}

	switch len(tmpls) {
	case 0:
		return one(nil, false), args
	case 1:
		return one(&tmpls[0], false), args
	}
	arms := make([]string, len(tmpls))
	for i := range tmpls {
		arms[i] = "(" + one(&tmpls[i], true) + ")"
	}
	return "SELECT body FROM (" + strings.Join(arms, " UNION ALL ") + ") u ORDER BY seq" + limit, args
}

// CountActiveContracts counts active contracts, over the partial index.
func (l *Ledger) CountActiveContracts(ctx context.Context) (int64, error) {
	var n int64
	err := l.pool.QueryRow(ctx, `SELECT count(*) FROM contracts WHERE archived_update_id IS NULL`).Scan(&n)
	return n, interpret(err)
}

// Transaction returns a committed transaction by update id.
func (l *Ledger) Transaction(ctx context.Context, updateID string) (*ledger.Transaction, error) {
	var body []byte
	err := l.pool.QueryRow(ctx, `SELECT body FROM transactions WHERE update_id = $1`, updateID).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.UpdateNotFound(updateID)
	}
	if err != nil {
		return nil, interpret(err)
	}
	if !ledger.IsTransactionBlob(body) {
		return nil, store.UpdateNotFound(updateID)
	}
	return ledger.DecodeTransaction(body)
}

// Updates returns a range of a participant's stream: an Index Scan (or
// Backward) of participant_updates_pkey (participant = $1 AND ledger_offset
// > $2 AND ledger_offset <= $3), joined to transactions_pkey. The
// participant is resolved in the same statement; only an empty answer pays
// a second query, to tell an unknown participant from an empty range.
func (l *Ledger) Updates(ctx context.Context, q ledger.UpdateQuery) ([]ledger.ParticipantUpdate, error) {
	query, args := updatesQuery(q)
	rows, err := l.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	var out []ledger.ParticipantUpdate
	for rows.Next() {
		var off int64
		var body []byte
		if err := rows.Scan(&off, &body); err != nil {
			rows.Close()
			return nil, interpret(err)
		}
		u, err := ledger.DecodeUpdate(body)
		if err != nil {
			rows.Close()
			return nil, err
		}
		u.Participant, u.Offset = q.Participant, ledger.Offset(off)
		out = append(out, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, interpret(err)
	}
	if len(out) == 0 {
		var exists bool
		if err := l.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM participants WHERE id = $1)`,
			string(q.Participant)).Scan(&exists); err != nil {
			return nil, interpret(err)
		}
		if !exists {
			return nil, store.ParticipantNotFound(q.Participant)
		}
	}
	return out, nil
}

// updatesQuery is the statement of [Ledger.Updates]. Its columns are the
// offset and the transaction body; the participant is resolved in it.
//
// Without a party filter it is a range scan of participant_updates_pkey.
// With one party it is a range scan of participant_update_parties_pkey
// (participant, party, ledger_offset), each row joined to
// participant_updates and transactions by primary key. With several, the
// parties' ranges are merged in order (Merge Append of one index range per
// party), duplicates dropped as they meet (Unique) and the merge stopped
// at the limit; the body of each offset it keeps is looked up by primary
// keys (a SubPlan per row).
func updatesQuery(q ledger.UpdateQuery) (string, []any) {
	until := int64(q.Until)
	if until <= 0 {
		until = 1<<63 - 1
	}
	var limit any // NULL is no limit
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	order := " ASC"
	if q.Descending {
		order = " DESC"
	}
	const participant = "(SELECT ordinal FROM participants WHERE id = $1)"
	args := []any{string(q.Participant), int64(q.After), until, limit}
	parties := store.Parties(q.Parties)
	switch len(parties) {
	case 0:
		return `SELECT pu.ledger_offset, t.body FROM participant_updates pu
JOIN transactions t ON t.sequence = pu.sequence
WHERE pu.participant = ` + participant + `
  AND pu.ledger_offset > $2 AND pu.ledger_offset <= $3
ORDER BY pu.ledger_offset` + order + ` LIMIT $4`, args
	case 1:
		return `SELECT pp.ledger_offset, t.body FROM participant_update_parties pp
JOIN participant_updates pu ON pu.participant = pp.participant AND pu.ledger_offset = pp.ledger_offset
JOIN transactions t ON t.sequence = pu.sequence
WHERE pp.participant = ` + participant + ` AND pp.party = $5
  AND pp.ledger_offset > $2 AND pp.ledger_offset <= $3
ORDER BY pp.ledger_offset` + order + ` LIMIT $4`, append(args, parties[0])
	}
	arms := make([]string, len(parties))
	for i, p := range parties {
		args = append(args, p)
		arms[i] = "(SELECT ledger_offset FROM participant_update_parties WHERE participant = " + participant +
			" AND party = $" + strconv.Itoa(len(args)) + " AND ledger_offset > $2 AND ledger_offset <= $3 ORDER BY ledger_offset" + order + ")"
	}
	// The body is a scalar subquery, not a join: PostgreSQL would hash
	// join the page to the participant's whole participant_updates range
	// and sort the result. The update is always there: the index rows are
	// written and pruned with it.
	return `SELECT o.ledger_offset, (SELECT t.body FROM participant_updates pu
  JOIN transactions t ON t.sequence = pu.sequence
  WHERE pu.participant = ` + participant + ` AND pu.ledger_offset = o.ledger_offset)
FROM (
  SELECT DISTINCT ledger_offset FROM (` + strings.Join(arms, "\n  UNION ALL ") + `) a
  ORDER BY ledger_offset` + order + ` LIMIT $4) o
ORDER BY o.ledger_offset` + order, args
}

// Participants lists the participants in creation order.
func (l *Ledger) Participants(ctx context.Context) ([]ledger.Participant, error) {
	rows, err := l.pool.Query(ctx, `SELECT id, name FROM participants ORDER BY ordinal`)
	if err != nil {
		return nil, interpret(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ledger.Participant, error) {
		var p ledger.Participant
		var id string
		err := r.Scan(&id, &p.Name)
		p.ID = ledger.ParticipantID(id)
		return p, err
	})
	return out, interpret(err)
}

// Synchronizers lists the synchronizers in creation order.
func (l *Ledger) Synchronizers(ctx context.Context) ([]ledger.Synchronizer, error) {
	rows, err := l.pool.Query(ctx, `SELECT id, alias, migration_id FROM synchronizers ORDER BY ordinal`)
	if err != nil {
		return nil, interpret(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ledger.Synchronizer, error) {
		var s ledger.Synchronizer
		var id string
		err := r.Scan(&id, &s.Alias, &s.MigrationID)
		s.ID = ledger.SynchronizerID(id)
		return s, err
	})
	return out, interpret(err)
}

// Hostings lists hostings ordered by party, participant and synchronizer;
// for one party when party is not empty.
func (l *Ledger) Hostings(ctx context.Context, party daml.Party) ([]ledger.Hosting, error) {
	rows, err := l.pool.Query(ctx, `SELECT party, participant_id, synchronizer_id, permission FROM hostings
WHERE $1 = '' OR party = $1 ORDER BY party, participant_id, synchronizer_id`, string(party))
	if err != nil {
		return nil, interpret(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ledger.Hosting, error) {
		var party, p, s, perm string
		err := r.Scan(&party, &p, &s, &perm)
		return ledger.Hosting{Party: daml.Party(party), Participant: ledger.ParticipantID(p),
			Synchronizer: ledger.SynchronizerID(s), Permission: ledger.Permission(perm)}, err
	})
	return out, interpret(err)
}

// usersQuery reads users with their rights in one statement (one
// snapshot): the rights come as two parallel arrays in grant order.
const usersQuery = `SELECT u.id, u.primary_party, u.deactivated, u.annotations, u.resource_version,
  ARRAY(SELECT r.kind FROM user_rights r WHERE r.participant_id = u.participant_id AND r.user_id = u.id ORDER BY r.ordinal),
  ARRAY(SELECT r.party FROM user_rights r WHERE r.participant_id = u.participant_id AND r.user_id = u.id ORDER BY r.ordinal)
FROM users u WHERE u.participant_id = $1 AND `

func (l *Ledger) readUsers(ctx context.Context, p ledger.ParticipantID, cond string, args ...any) ([]ledger.User, error) {
	rows, err := l.pool.Query(ctx, usersQuery+cond, append([]any{string(p)}, args...)...)
	if err != nil {
		return nil, interpret(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ledger.User, error) {
		u := ledger.User{Participant: p}
		var party, ann string
		var kinds, parties []string
		if err := r.Scan(&u.ID, &party, &u.Deactivated, &ann, &u.ResourceVersion, &kinds, &parties); err != nil {
			return u, err
		}
		u.PrimaryParty = daml.Party(party)
		var err error
		if u.Annotations, err = store.DecodeAnnotations(ann); err != nil {
			return u, err
		}
		for i := range kinds {
			u.Rights = append(u.Rights, ledger.Right{Kind: ledger.RightKind(kinds[i]), Party: daml.Party(parties[i])})
		}
		return u, nil
	})
	return out, interpret(err)
}

// Users lists a participant's users ordered by id, after a cursor.
func (l *Ledger) Users(ctx context.Context, p ledger.ParticipantID, after string, limit int) ([]ledger.User, error) {
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	return l.readUsers(ctx, p, `u.id > $2 ORDER BY u.id LIMIT $3`, after, lim)
}

// User returns one user.
func (l *Ledger) User(ctx context.Context, p ledger.ParticipantID, id string) (*ledger.User, error) {
	us, err := l.readUsers(ctx, p, `u.id = $2`, id)
	if err != nil {
		return nil, err
	}
	if len(us) == 0 {
		return nil, store.UserNotFound(p, id)
	}
	return &us[0], nil
}

// Meta reads a network setting.
func (l *Ledger) Meta(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := l.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, interpret(err)
	}
	return v, true, nil
}

// interpret classifies driver errors: constraint violations become the
// domain's AlreadyExists/NotFound, serialisation failures and deadlocks
// Aborted (retryable), and anything else stays as it is (internal).
func interpret(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return fault.Wrap(fault.AlreadyExists, err, "already exists")
		case "23503": // foreign_key_violation
			return fault.Wrap(fault.NotFound, err, "refers to an unknown participant, synchronizer or user")
		case "40001", "40P01": // serialization_failure, deadlock_detected
			return fault.Wrap(fault.Aborted, err, "conflict with a concurrent transaction")
		case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return fault.Wrap(fault.Unavailable, err, "database is unavailable")
		}
	}
	return err
}

// UserExists reports whether a participant of the ledger in schema has a
// user called id. It only reads, over one connection: unlike
// [OpenLedger] it creates and migrates nothing, so that `sandnet token`
// can ask without side effects. A schema without a ledger's tables is a
// [store.NoLedger].
func UserExists(ctx context.Context, url, schema, id string) (bool, error) {
	if err := checkSchema(schema); err != nil {
		return false, err
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return false, fault.Wrap(fault.InvalidArgument, err, "database url")
	}
	cfg.RuntimeParams["search_path"] = schema
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, interpret(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE id = $1)`, id).Scan(&exists)
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == "42P01" { // undefined_table
		return false, store.NoLedger("schema " + schema)
	}
	return exists, interpret(err)
}
