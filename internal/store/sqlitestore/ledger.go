package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// busyTimeoutMS is how long a connection waits for a lock held by another
// connection before SQLITE_BUSY. Within one process the write pool has one
// connection, so this is only reached by readers during a checkpoint and by
// a stray external tool (the sqlite3 shell) holding the file.
const busyTimeoutMS = 5000

// Ledger is the SQLite implementation of [ledger.Store]. It also
// implements [store.Leader].
type Ledger struct {
	path  string
	conns // the write statements are hotStatements

	closeOnce sync.Once
	closeErr  error
	closing   chan struct{}
	leases    sync.WaitGroup

	leadMu  sync.Mutex // guards leading and closed, and orders leases.Add before Close's Wait
	leading bool
	closed  bool
}

var (
	_ ledger.Store = (*Ledger)(nil)
	_ store.Leader = (*Ledger)(nil)
)

// OpenLedger opens (creating if needed) the ledger database at path and
// applies pending migrations. It fails with a fault.FailedPrecondition if
// another process has the same file open.
func OpenLedger(ctx context.Context, path string) (*Ledger, error) {
	return openLedger(ctx, path, "NORMAL")
}

// openLedger is OpenLedger with the synchronous setting as a parameter, so
// that the benchmarks can measure FULL against the NORMAL we ship.
func openLedger(ctx context.Context, path, synchronous string) (*Ledger, error) {
	l := &Ledger{path: path, closing: make(chan struct{})}
	if err := l.open(ctx, "ledger", path, "migrations/ledger", synchronous, hotStatements); err != nil {
		return nil, err
	}
	return l, nil
}

// dsn builds a modernc DSN for path with busy_timeout first: the driver
// applies it before the other pragmas, so that journal_mode(WAL) waits for a
// lock instead of failing with SQLITE_BUSY. The path is percent-escaped so
// that a '?' or '#' in a directory name cannot cut the DSN short; SQLite
// decodes URI file names.
func dsn(path string, params ...string) string {
	q := append([]string{fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeoutMS)}, params...)
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	return u.String() + "?" + strings.Join(q, "&")
}

// Path returns the database file's path.
func (l *Ledger) Path() string { return l.path }

// Close ends any leadership, closes both pools and releases the file lock.
// It is safe to call more than once.
func (l *Ledger) Close() error {
	l.closeOnce.Do(func() {
		l.leadMu.Lock()
		l.closed = true
		l.leadMu.Unlock()
		close(l.closing)
		l.leases.Wait()
		l.optimize()
		l.closeErr = l.closeDBs()
	})
	return l.closeErr
}

// Write runs fn in one IMMEDIATE transaction on the single write
// connection and commits it if fn returns nil. fn must not call Write
// itself: the write connection is busy with fn's own transaction.
func (l *Ledger) Write(ctx context.Context, fn func(ledger.WriteTx) error) (err error) {
	tx, err := l.w.BeginTx(ctx, nil)
	if err != nil {
		return interpret(err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	if err := fn(&writeTx{writeRunner(l.w, tx, l.wc)}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return interpret(err)
	}
	committed = true
	l.committed()
	return nil
}

// Head returns the committed tip, read in one snapshot.
func (l *Ledger) Head(ctx context.Context) (ledger.Head, error) {
	tx, err := l.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return ledger.Head{}, interpret(err)
	}
	defer tx.Rollback()
	return readHead(ctx, runner{db: l.r, tx: tx, cache: l.rc})
}

// queryer is what reads need from a [runner], so that a read helper serves
// the read pool, a read transaction and the write transaction alike.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// The head's statements, shared by readers and the write path.
const (
	sqlHead        = `SELECT migration_id, sequence, last_record_time, clock_offset FROM head WHERE id = 1`
	sqlHeadOffsets = `SELECT id, last_offset, pruned_offset FROM participants ORDER BY ordinal`
)

func readHead(ctx context.Context, q queryer) (ledger.Head, error) {
	var h ledger.Head
	var rt int64
	err := q.QueryRowContext(ctx, sqlHead).Scan(&h.MigrationID, &h.Sequence, &rt, &h.ClockOffset)
	if err != nil {
		return h, interpret(err)
	}
	h.LastRecordTime = daml.Timestamp(rt)
	rows, err := q.QueryContext(ctx, sqlHeadOffsets)
	if err != nil {
		return h, interpret(err)
	}
	defer rows.Close()
	h.Offsets = map[ledger.ParticipantID]ledger.Offset{}
	for rows.Next() {
		var p string
		var o, pruned int64
		if err := rows.Scan(&p, &o, &pruned); err != nil {
			return h, interpret(err)
		}
		h.Offsets[ledger.ParticipantID(p)] = ledger.Offset(o)
		if pruned > 0 {
			if h.Pruned == nil {
				h.Pruned = map[ledger.ParticipantID]ledger.Offset{}
			}
			h.Pruned[ledger.ParticipantID(p)] = ledger.Offset(pruned)
		}
	}
	return h, interpret(rows.Err())
}

// Contract returns a contract, active or archived.
func (l *Ledger) Contract(ctx context.Context, id daml.ContractID) (*ledger.Contract, bool, error) {
	var body []byte
	var active bool
	err := l.read.QueryRowContext(ctx,
		`SELECT body, archived_update_id IS NULL FROM contracts WHERE contract_id = ?`, string(id)).Scan(&body, &active)
	if errors.Is(err, sql.ErrNoRows) {
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
// Plans (EXPLAIN QUERY PLAN, checked by TestQueryPlans):
//   - no filter: SEARCH c USING INDEX contracts_active (seq>?);
//   - one template: SEARCH c USING INDEX contracts_active_template
//     (package_name=? AND module=? AND entity=? AND seq>?), already in seq
//     order;
//   - stakeholder: SEARCH s USING PRIMARY KEY (party=? AND seq>?), then
//     SEARCH c USING INTEGER PRIMARY KEY (rowid=?);
//   - stakeholder and one template: SEARCH s USING COVERING INDEX
//     contract_stakeholders_template (party=? AND package_name=? AND
//     module=? AND entity=? AND seq>?), then c by rowid: only the party's
//     contracts of that template are read, with or without statistics;
//   - the cursor: a SCALAR SUBQUERY on the contract_id index, run once.
//
// Several templates, with or without a stakeholder: one range as above per
// template, each cut at the page size, then merged (a sort of at most
// templates × limit rows).
func (l *Ledger) ActiveContracts(ctx context.Context, f ledger.ContractFilter) ([]*ledger.Contract, error) {
	query, args := activeQuery(f)
	rows, err := l.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []*ledger.Contract
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, interpret(err)
		}
		c, err := ledger.DecodeContract(body)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, interpret(err)
	}
	if len(out) == 0 && f.After != "" {
		// An unknown cursor also gives an empty page; tell them apart only
		// when it matters.
		var exists bool
		if err := l.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM contracts WHERE contract_id = ?)`,
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
// resolved to its seq by a constant scalar subquery, which SQLite evaluates
// once and uses as the index bound; a contract never leaves the table, so
// its seq is a stable keyset position even once archived.
//
// Every filter is one index range in seq order, so that the LIMIT ends the
// walk whatever the planner knows: contract_stakeholders carries the
// template, so a stakeholder and a template are one equality prefix of
// contract_stakeholders_template instead of a walk over all the party's
// contracts (which, without sqlite_stat1, SQLite would otherwise choose).
// Several templates make one range per template, each cut at the page size,
// merged: an OR would make SQLite walk every active contract (or every one
// of the party's) in seq order and filter, which is slow when the templates
// asked for are rare.
func activeQuery(f ledger.ContractFilter) (string, []any) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "?"
	}
	tmpls := store.TemplateKeys(f.Templates)
	// one lists the active contracts of t (any template when t is nil),
	// those of the stakeholder only if there is one, in seq order and cut
	// at the page size, with their seq if withSeq. The ? placeholders bind
	// in text order, so it appends its arguments as it writes them.
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
			b.WriteString("s.party = " + arg(string(f.Stakeholder)) + " AND ")
		}
		if t != nil {
			b.WriteString(tmpl + "package_name = " + arg(t.PackageName) + " AND " + tmpl + "module = " + arg(t.ModuleName) +
				" AND " + tmpl + "entity = " + arg(t.EntityName) + " AND ")
		}
		b.WriteString(seq + " > ")
		if f.After != "" {
			b.WriteString("(SELECT seq FROM contracts WHERE contract_id = " + arg(string(f.After)) + ")")
		} else {
			b.WriteString("0")
		}
		// Order by the driving table's column so that its index delivers
		// the rows in order and the LIMIT stops early.
		b.WriteString(" AND c.archived_update_id IS NULL ORDER BY " + seq)
		if f.Limit > 0 {
			b.WriteString(" LIMIT " + arg(f.Limit))
		}
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
		arms[i] = "SELECT * FROM (" + one(&tmpls[i], true) + ")"
	}
	q := "SELECT body FROM (" + strings.Join(arms, " UNION ALL ") + ") ORDER BY seq"
	if f.Limit > 0 {
		q += " LIMIT " + arg(f.Limit)
	}
	return q, args
}

// CountActiveContracts counts active contracts, over the partial index
// (SCAN contracts USING COVERING INDEX contracts_active). The index is
// named: with statistics saying that most contracts are active, SQLite
// would otherwise scan the whole table, archived contracts and bodies
// included.
func (l *Ledger) CountActiveContracts(ctx context.Context) (int64, error) {
	var n int64
	err := l.read.QueryRowContext(ctx, sqlCountActive).Scan(&n)
	return n, interpret(err)
}

const sqlCountActive = `SELECT count(*) FROM contracts INDEXED BY contracts_active WHERE archived_update_id IS NULL`

// Transaction returns a committed transaction by update id.
func (l *Ledger) Transaction(ctx context.Context, updateID string) (*ledger.Transaction, error) {
	var body []byte
	err := l.read.QueryRowContext(ctx, `SELECT body FROM transactions WHERE update_id = ?`, updateID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
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

// Updates returns a range of a participant's stream, a range scan of
// participant_updates' primary key (SEARCH pu USING PRIMARY KEY
// (participant=? AND ledger_offset>? AND ledger_offset<?)) in either
// direction. A party filter scans participant_update_parties instead (see
// [updatesQuery]).
func (l *Ledger) Updates(ctx context.Context, q ledger.UpdateQuery) ([]ledger.ParticipantUpdate, error) {
	var ordinal int64
	err := l.read.QueryRowContext(ctx, `SELECT ordinal FROM participants WHERE id = ?`, string(q.Participant)).Scan(&ordinal)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ParticipantNotFound(q.Participant)
	}
	if err != nil {
		return nil, interpret(err)
	}
	query, args := updatesQuery(ordinal, q)
	rows, err := l.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []ledger.ParticipantUpdate
	if q.Limit > 0 {
		out = make([]ledger.ParticipantUpdate, 0, min(q.Limit, 1024))
	}
	var off int64
	var body sql.RawBytes // valid until the next Next: decoded before it, into a copy
	for rows.Next() {
		if err := rows.Scan(&off, &body); err != nil {
			return nil, interpret(err)
		}
		u, err := ledger.DecodeUpdateShared(body)
		if err != nil {
			return nil, err
		}
		u.Participant, u.Offset = q.Participant, ledger.Offset(off)
		out = append(out, u)
	}
	return out, interpret(rows.Err())
}

// updatesQuery is the statement of [Ledger.Updates] for the participant
// with this ordinal. Its columns are the offset and the transaction body.
//
// Without a party filter it is a range scan of participant_updates' primary
// key. With one party it is a range scan of participant_update_parties'
// primary key (participant, party, ledger_offset), each row joined to
// participant_updates and transactions by primary key. With several, the
// parties' ranges are merged by a compound UNION under ORDER BY (SQLite's
// MERGE (UNION): each arm delivered in order by its index, duplicates
// dropped as they meet, stopped at the limit), and the offsets it keeps
// are joined as above.
func updatesQuery(ordinal int64, q ledger.UpdateQuery) (string, []any) {
	until := int64(q.Until)
	if until <= 0 {
		until = 1<<63 - 1
	}
	order := ""
	if q.Descending {
		order = " DESC"
	}
	limit := int64(-1) // no limit
	if q.Limit > 0 {
		limit = int64(q.Limit)
	}
	args := []any{ordinal, int64(q.After), until, limit}
	parties := store.Parties(q.Parties)
	switch len(parties) {
	case 0:
		return `SELECT pu.ledger_offset, t.body FROM participant_updates pu JOIN transactions t ON t.sequence = pu.sequence
WHERE pu.participant = ?1 AND pu.ledger_offset > ?2 AND pu.ledger_offset <= ?3 ORDER BY pu.ledger_offset` + order + ` LIMIT ?4`, args
	case 1:
		return `SELECT pp.ledger_offset, t.body FROM participant_update_parties pp
JOIN participant_updates pu ON pu.participant = pp.participant AND pu.ledger_offset = pp.ledger_offset
JOIN transactions t ON t.sequence = pu.sequence
WHERE pp.participant = ?1 AND pp.party = ?5 AND pp.ledger_offset > ?2 AND pp.ledger_offset <= ?3
ORDER BY pp.ledger_offset` + order + ` LIMIT ?4`, append(args, parties[0])
	}
	arms := make([]string, len(parties))
	for i, p := range parties {
		args = append(args, p)
		arms[i] = "SELECT ledger_offset FROM participant_update_parties WHERE participant = ?1 AND party = ?" +
			strconv.Itoa(len(args)) + " AND ledger_offset > ?2 AND ledger_offset <= ?3"
	}
	return `SELECT o.ledger_offset, t.body FROM (` + strings.Join(arms, "\nUNION ") + `
ORDER BY 1` + order + ` LIMIT ?4) o
JOIN participant_updates pu ON pu.participant = ?1 AND pu.ledger_offset = o.ledger_offset
JOIN transactions t ON t.sequence = pu.sequence
ORDER BY o.ledger_offset` + order, args
}

// Participants lists the participants in creation order.
func (l *Ledger) Participants(ctx context.Context) ([]ledger.Participant, error) {
	rows, err := l.read.QueryContext(ctx, `SELECT id, name FROM participants ORDER BY ordinal`)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []ledger.Participant
	for rows.Next() {
		var p ledger.Participant
		if err := rows.Scan(&p.ID, &p.Name); err != nil {
			return nil, interpret(err)
		}
		out = append(out, p)
	}
	return out, interpret(rows.Err())
}

// Synchronizers lists the synchronizers in creation order.
func (l *Ledger) Synchronizers(ctx context.Context) ([]ledger.Synchronizer, error) {
	rows, err := l.read.QueryContext(ctx, `SELECT id, alias, migration_id FROM synchronizers ORDER BY ordinal`)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []ledger.Synchronizer
	for rows.Next() {
		var s ledger.Synchronizer
		if err := rows.Scan(&s.ID, &s.Alias, &s.MigrationID); err != nil {
			return nil, interpret(err)
		}
		out = append(out, s)
	}
	return out, interpret(rows.Err())
}

// Hostings lists hostings ordered by party, participant and synchronizer;
// for one party when party is not empty.
func (l *Ledger) Hostings(ctx context.Context, party daml.Party) ([]ledger.Hosting, error) {
	query := `SELECT party, participant_id, synchronizer_id, permission FROM hostings`
	var args []any
	if party != "" {
		query += ` WHERE party = ?`
		args = append(args, string(party))
	}
	query += ` ORDER BY party, participant_id, synchronizer_id`
	rows, err := l.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []ledger.Hosting
	for rows.Next() {
		var h ledger.Hosting
		if err := rows.Scan(&h.Party, &h.Participant, &h.Synchronizer, &h.Permission); err != nil {
			return nil, interpret(err)
		}
		out = append(out, h)
	}
	return out, interpret(rows.Err())
}

// Users lists a participant's users ordered by id, after a cursor. The
// users and their rights are read in one snapshot: the rights of the page
// are one range of user_rights' primary key.
func (l *Ledger) Users(ctx context.Context, p ledger.ParticipantID, after string, limit int) ([]ledger.User, error) {
	tx, err := l.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, interpret(err)
	}
	defer tx.Rollback()
	return readUsers(ctx, runner{db: l.r, tx: tx, cache: l.rc}, p, after, "", limit)
}

// User returns one user.
func (l *Ledger) User(ctx context.Context, p ledger.ParticipantID, id string) (*ledger.User, error) {
	tx, err := l.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, interpret(err)
	}
	defer tx.Rollback()
	us, err := readUsers(ctx, runner{db: l.r, tx: tx, cache: l.rc}, p, "", id, 1)
	if err != nil {
		return nil, err
	}
	if len(us) == 0 {
		return nil, store.UserNotFound(p, id)
	}
	return &us[0], nil
}

// readUsers reads users of p with ids after `after` (or exactly `only`),
// with their rights.
func readUsers(ctx context.Context, q queryer, p ledger.ParticipantID, after, only string, limit int) ([]ledger.User, error) {
	query := `SELECT id, primary_party, deactivated, annotations, resource_version FROM users WHERE participant_id = ?`
	args := []any{string(p)}
	if only != "" {
		query += ` AND id = ?`
		args = append(args, only)
	} else {
		query += ` AND id > ?`
		args = append(args, after)
	}
	query += ` ORDER BY id`
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpret(err)
	}
	var out []ledger.User
	byID := map[string]int{}
	for rows.Next() {
		u := ledger.User{Participant: p}
		var ann string
		if err := rows.Scan(&u.ID, &u.PrimaryParty, &u.Deactivated, &ann, &u.ResourceVersion); err != nil {
			rows.Close()
			return nil, interpret(err)
		}
		if u.Annotations, err = store.DecodeAnnotations(ann); err != nil {
			rows.Close()
			return nil, err
		}
		byID[u.ID] = len(out)
		out = append(out, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, interpret(err)
	}
	rows, err = q.QueryContext(ctx, `SELECT user_id, kind, party FROM user_rights
WHERE participant_id = ? AND user_id >= ? AND user_id <= ? ORDER BY user_id, ordinal`,
		string(p), out[0].ID, out[len(out)-1].ID)
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var r ledger.Right
		if err := rows.Scan(&id, &r.Kind, &r.Party); err != nil {
			return nil, interpret(err)
		}
		if i, ok := byID[id]; ok {
			out[i].Rights = append(out[i].Rights, r)
		}
	}
	return out, interpret(rows.Err())
}

// Meta reads a network setting.
func (l *Ledger) Meta(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := l.read.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, interpret(err)
	}
	return v, true, nil
}

// interpret classifies driver errors: constraint violations become the
// domain's AlreadyExists/NotFound, a cancelled context stays recognisable
// with errors.Is, and anything else is internal.
func interpret(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fault.Wrap(fault.AlreadyExists, err, "already exists")
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fault.Wrap(fault.NotFound, err, "refers to an unknown participant, synchronizer or user")
		case sqlite3.SQLITE_BUSY:
			return fault.Wrap(fault.Unavailable, err, "database is busy")
		}
	}
	return err
}

// UserExists reports whether a participant of the ledger database at path
// has a user called id. It reads the file as it is: read-only, without
// the lock a running sandnet holds on it and without creating or
// migrating anything, so that `sandnet token` can ask while the server
// runs. A missing file, or one without a ledger's tables, is a
// [store.NoLedger].
func UserExists(ctx context.Context, path, id string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, store.NoLedger(path)
	} else if err != nil {
		return false, err
	}
	db, err := sql.Open("sqlite", dsn(path, "mode=ro", "_pragma=query_only(1)"))
	if err != nil {
		return false, err
	}
	defer db.Close()
	var one int
	err = db.QueryRowContext(ctx, `SELECT 1 FROM users WHERE id = ? LIMIT 1`, id).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil && strings.Contains(err.Error(), "no such table"):
		return false, store.NoLedger(path)
	case err != nil:
		return false, fmt.Errorf("read users of %s: %w", path, err)
	}
	return true, nil
}
