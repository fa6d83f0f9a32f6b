package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// writeTx is the [ledger.WriteTx] of one [Ledger.Write]: a READ COMMITTED
// transaction that holds the schema's write lock, so what it reads cannot
// be changed by another writer until it ends.
type writeTx struct {
	tx pgx.Tx
}

// Head reads the head inside the transaction, after the write lock.
func (w *writeTx) Head(ctx context.Context) (ledger.Head, error) {
	return readHead(ctx, w.tx)
}

// Inactive looks the ids up in one statement with an array parameter (an
// index lookup on contracts_contract_id_key per element).
func (w *writeTx) Inactive(ctx context.Context, ids []daml.ContractID) ([]daml.ContractID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	arg := make([]string, len(ids))
	for i, id := range ids {
		arg[i] = string(id)
	}
	rows, err := w.tx.Query(ctx, `SELECT contract_id FROM contracts
WHERE contract_id = ANY($1) AND archived_update_id IS NULL`, arg)
	if err != nil {
		return nil, interpret(err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, interpret(err)
	}
	active := make(map[daml.ContractID]bool, len(found))
	for _, id := range found {
		active[daml.ContractID(id)] = true
	}
	return store.Missing(ids, active), nil
}

// The statements of an append. Each checks its own precondition in SQL and
// reports the outcome in its result, so that the whole append can be sent
// as one pipelined batch (one round trip) and the results checked in order
// afterwards: the first refused step decides the error.
const (
	// appendHead advances the head if the update is in order, and returns
	// the head as it was (to explain a refusal) and the new sequence (NULL
	// when refused).
	appendHead = `WITH old AS (SELECT migration_id, last_record_time FROM head WHERE id = 1),
upd AS (
  UPDATE head SET sequence = sequence + 1, migration_id = $1, last_record_time = $2
  WHERE id = 1 AND (migration_id < $1 OR (migration_id = $1 AND last_record_time < $2))
  RETURNING sequence)
SELECT old.migration_id, old.last_record_time, (SELECT sequence FROM upd) FROM old`

	// appendTransaction stores the update under the sequence just
	// allocated (the previous statement's write is visible to this one).
	appendTransaction = `INSERT INTO transactions
  (sequence, update_id, migration_id, record_time, effective_at, synchronizer_id, body)
VALUES ((SELECT sequence FROM head WHERE id = 1), $1, $2, $3, $4, $5, $6)`

	// appendCreate inserts a contract and its stakeholders together, the
	// stakeholder rows carrying the template (contract_stakeholders_template).
	appendCreate = `WITH c AS (
  INSERT INTO contracts (contract_id, package_name, module, entity, migration_id, created_update_id, body)
  VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq, package_name, module, entity)
INSERT INTO contract_stakeholders (party, package_name, module, entity, seq)
SELECT p, c.package_name, c.module, c.entity, c.seq FROM c, unnest($8::text[]) AS p`

	// appendConsume archives a contract only if it is active and drops its
	// stakeholder rows; it returns how many contracts it archived (0 or 1),
	// which is how consume-at-most-once is enforced.
	appendConsume = `WITH a AS (
  UPDATE contracts SET archived_update_id = $1 WHERE contract_id = $2 AND archived_update_id IS NULL
  RETURNING seq),
d AS (DELETE FROM contract_stakeholders s USING a WHERE s.seq = a.seq)
SELECT count(*) FROM a`

	// appendOffset moves a participant's last offset forward and records
	// the update at that offset. It returns the participant's previous
	// offset (NULL: unknown participant) and whether it moved. It also
	// indexes the update under each party of $4 in the stream, with $5
	// (a transaction's informees) only under those the participant hosts,
	// as only those a stream's party filter can name (see
	// [ledger.UpdateQuery.Parties]): a transfer's informees are mostly
	// hosted on one participant each.
	appendOffset = `WITH p AS (SELECT ordinal, last_offset FROM participants WHERE id = $1),
u AS (
  UPDATE participants SET last_offset = $2 FROM p
  WHERE participants.ordinal = p.ordinal AND p.last_offset < $2 RETURNING participants.ordinal),
i AS (
  INSERT INTO participant_updates (participant, ledger_offset, sequence, migration_id)
  SELECT u.ordinal, $2, (SELECT sequence FROM head WHERE id = 1), $3::bigint FROM u),
j AS (
  INSERT INTO participant_update_parties (participant, party, ledger_offset)
  SELECT u.ordinal, x, $2 FROM u, unnest($4::text[]) AS x
  WHERE NOT $5::boolean OR EXISTS (SELECT 1 FROM hostings h WHERE h.party = x AND h.participant_id = $1))
SELECT (SELECT last_offset FROM p), EXISTS (SELECT 1 FROM u)`
)

// AppendTransaction sends the whole append as one batch: head, transaction,
// creates and consumes in node order (a contract created and archived in
// the same transaction is fine), then the participants' offsets.
func (w *writeTx) AppendTransaction(ctx context.Context, tx *ledger.Transaction, offsets map[ledger.ParticipantID]ledger.Offset) error {
	body, err := ledger.EncodeTransaction(tx)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(appendHead, tx.MigrationID, int64(tx.RecordTime))
	b.Queue(appendTransaction, tx.UpdateID, tx.MigrationID, int64(tx.RecordTime), int64(tx.EffectiveAt),
		string(tx.Synchronizer), body)
	// check[i] checks the result of statement i+2 of the batch.
	var checks []func(pgx.BatchResults) error
	for i := range tx.Events {
		e := &tx.Events[i]
		switch {
		case e.Created != nil:
			c := e.Created
			cb, err := ledger.EncodeContract(c)
			if err != nil {
				return err
			}
			sh := c.Stakeholders()
			parties := make([]string, len(sh))
			for i, p := range sh {
				parties[i] = string(p)
			}
			b.Queue(appendCreate, string(c.ID), c.Template.PackageName, c.Template.ModuleName, c.Template.EntityName,
				c.MigrationID, tx.UpdateID, cb, parties)
			checks = append(checks, func(br pgx.BatchResults) error {
				if _, err := br.Exec(); err != nil {
					return fmt.Errorf("create contract %s: %w", c.ID, interpret(err))
				}
				return nil
			})
		case e.Exercised != nil && e.Exercised.Consuming:
			id := e.Exercised.ContractID
			b.Queue(appendConsume, tx.UpdateID, string(id))
			checks = append(checks, func(br pgx.BatchResults) error {
				var n int64
				if err := br.QueryRow().Scan(&n); err != nil {
					return interpret(err)
				}
				if n == 0 {
					return store.InactiveContract(id)
				}
				return nil
			})
		}
	}
	return w.sendAppend(ctx, b, checks, tx, tx.Informees(), true, offsets)
}

// AppendTopology sends a topology transaction's append as one batch:
// head, the update (its effective time is its record time), then the
// participants' offsets, indexed under the parties whose hosting it
// changes.
func (w *writeTx) AppendTopology(ctx context.Context, t *ledger.TopologyTransaction, offsets map[ledger.ParticipantID]ledger.Offset) error {
	body, err := ledger.EncodeTopologyTransaction(t)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(appendHead, t.MigrationID, int64(t.RecordTime))
	b.Queue(appendTransaction, t.UpdateID, t.MigrationID, int64(t.RecordTime), int64(t.RecordTime),
		string(t.Synchronizer), body)
	head := &ledger.Transaction{UpdateID: t.UpdateID, MigrationID: t.MigrationID, RecordTime: t.RecordTime}
	return w.sendAppend(ctx, b, nil, head, t.Parties(), false, offsets)
}

// AppendReassignment sends one half of a reassignment as one batch:
// head, the update (its effective time is its record time), for an
// assignment the contract's new body, then the participants' offsets,
// indexed under the contract's stakeholders.
func (w *writeTx) AppendReassignment(ctx context.Context, r *ledger.Reassignment, offsets map[ledger.ParticipantID]ledger.Offset) error {
	body, err := ledger.EncodeReassignment(r)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(appendHead, r.MigrationID, int64(r.RecordTime))
	b.Queue(appendTransaction, r.UpdateID, r.MigrationID, int64(r.RecordTime), int64(r.RecordTime),
		string(r.Synchronizer()), body)
	var checks []func(pgx.BatchResults) error
	if r.Kind == ledger.Assigned {
		cb, err := ledger.EncodeContract(r.Contract)
		if err != nil {
			return err
		}
		id := r.Contract.ID
		b.Queue(`UPDATE contracts SET body = $1 WHERE contract_id = $2 AND archived_update_id IS NULL`, cb, string(id))
		checks = append(checks, func(br pgx.BatchResults) error {
			tag, err := br.Exec()
			if err != nil {
				return interpret(err)
			}
			if tag.RowsAffected() == 0 {
				return store.InactiveContract(id)
			}
			return nil
		})
	}
	head := &ledger.Transaction{UpdateID: r.UpdateID, MigrationID: r.MigrationID, RecordTime: r.RecordTime}
	return w.sendAppend(ctx, b, checks, head, r.Parties(), false, offsets)
}

// sendAppend queues the participants' offsets after the head, update and
// checks statements already in b, sends the batch and checks the results
// in order. tx carries the update's id, migration and record time; inf
// are the parties each stream indexes the update under (with hostedOnly,
// only those its participant hosts: a topology transaction's parties and
// a reassignment's stakeholders are indexed whatever the hostings, as a
// revocation's party is no longer hosted when it is appended).
func (w *writeTx) sendAppend(ctx context.Context, b *pgx.Batch, checks []func(pgx.BatchResults) error,
	tx *ledger.Transaction, inf []daml.Party, hostedOnly bool, offsets map[ledger.ParticipantID]ledger.Offset) error {
	informees := make([]string, len(inf))
	for i, p := range inf {
		informees[i] = string(p)
	}
	for _, po := range store.SortedOffsets(offsets) {
		b.Queue(appendOffset, string(po.Participant), int64(po.Offset), tx.MigrationID, informees, hostedOnly)
		checks = append(checks, func(br pgx.BatchResults) error {
			var last *int64
			var moved bool
			if err := br.QueryRow().Scan(&last, &moved); err != nil {
				return interpret(err)
			}
			switch {
			case last == nil:
				return store.ParticipantNotFound(po.Participant)
			case !moved:
				return store.OffsetNotAfter(po.Participant, po.Offset, ledger.Offset(*last))
			}
			return nil
		})
	}

	br := w.tx.SendBatch(ctx, b)
	defer br.Close()
	var oldMigration, oldRecordTime int64
	var seq *int64
	if err := br.QueryRow().Scan(&oldMigration, &oldRecordTime, &seq); err != nil {
		return interpret(err)
	}
	if seq == nil {
		head := ledger.Head{MigrationID: oldMigration, LastRecordTime: daml.Timestamp(oldRecordTime)}
		if err := store.OutOfOrder(head, tx); err != nil {
			return err
		}
		return fmt.Errorf("append %s: head refused the update", tx.UpdateID)
	}
	if _, err := br.Exec(); err != nil {
		return fmt.Errorf("append %s: %w", tx.UpdateID, interpret(err))
	}
	for _, check := range checks {
		if err := check(br); err != nil {
			return err
		}
	}
	return interpret(br.Close())
}

// SetMigration starts hard migration id: the head moves to it with no
// record time yet, and every synchronizer moves to it.
func (w *writeTx) SetMigration(ctx context.Context, id int64) error {
	tag, err := w.tx.Exec(ctx, `UPDATE head SET migration_id = $1, last_record_time = 0
WHERE id = 1 AND migration_id < $1`, id)
	if err != nil {
		return interpret(err)
	}
	if tag.RowsAffected() == 0 {
		return store.MigrationNotAfter(id)
	}
	_, err = w.tx.Exec(ctx, `UPDATE synchronizers SET migration_id = $1`, id)
	return interpret(err)
}

// SetClockOffset stores the clock offset in the head.
func (w *writeTx) SetClockOffset(ctx context.Context, micros int64) error {
	_, err := w.tx.Exec(ctx, `UPDATE head SET clock_offset = $1 WHERE id = 1`, micros)
	return interpret(err)
}

// pruneQuery moves a participant's pruned offset forward if the offset is
// within its stream, in one statement. It returns the participant's pruned
// and last offsets as they were (NULL: unknown participant) and whether it
// moved.
const pruneQuery = `WITH p AS (SELECT ordinal, pruned_offset, last_offset FROM participants WHERE id = $1),
u AS (
  UPDATE participants SET pruned_offset = $2 FROM p
  WHERE participants.ordinal = p.ordinal AND p.pruned_offset <= $2 AND p.last_offset >= $2
  RETURNING participants.ordinal)
SELECT (SELECT pruned_offset FROM p), (SELECT last_offset FROM p), EXISTS (SELECT 1 FROM u)`

// Prune moves the participant's pruned offset forward and records nothing
// else: the stream's entries (participant_updates,
// participant_update_parties) and the transactions stay, and the ledger
// API refuses reads that begin before the pruned offset (see
// [ledger.WriteTx.Prune]).
func (w *writeTx) Prune(ctx context.Context, p ledger.ParticipantID, upTo ledger.Offset) error {
	if err := store.PruneRefused(p, upTo, 0, upTo); err != nil {
		return err
	}
	var pruned, last *int64
	var moved bool
	if err := w.tx.QueryRow(ctx, pruneQuery, string(p), int64(upTo)).Scan(&pruned, &last, &moved); err != nil {
		return interpret(err)
	}
	switch {
	case pruned == nil:
		return store.ParticipantNotFound(p)
	case !moved:
		if err := store.PruneRefused(p, upTo, ledger.Offset(*pruned), ledger.Offset(*last)); err != nil {
			return err
		}
		return fmt.Errorf("prune %s up to %d: participant row refused the update", p, upTo)
	}
	return nil
}

// PutParticipant adds a participant unless it exists.
func (w *writeTx) PutParticipant(ctx context.Context, p ledger.Participant) error {
	_, err := w.tx.Exec(ctx, `INSERT INTO participants (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`,
		string(p.ID), p.Name)
	return interpret(err)
}

// PutSynchronizer adds a synchronizer unless it exists.
func (w *writeTx) PutSynchronizer(ctx context.Context, s ledger.Synchronizer) error {
	_, err := w.tx.Exec(ctx, `INSERT INTO synchronizers (id, alias, migration_id) VALUES ($1, $2, $3)
ON CONFLICT (id) DO NOTHING`, string(s.ID), s.Alias, s.MigrationID)
	return interpret(err)
}

// PutHosting adds a hosting or replaces its permission.
func (w *writeTx) PutHosting(ctx context.Context, h ledger.Hosting) error {
	_, err := w.tx.Exec(ctx, `INSERT INTO hostings (party, participant_id, synchronizer_id, permission)
VALUES ($1, $2, $3, $4) ON CONFLICT (party, participant_id, synchronizer_id) DO UPDATE SET permission = excluded.permission`,
		string(h.Party), string(h.Participant), string(h.Synchronizer), string(h.Permission))
	return interpret(err)
}

// DeleteHosting removes a hosting; a missing one is a fault.NotFound.
func (w *writeTx) DeleteHosting(ctx context.Context, party daml.Party, participant ledger.ParticipantID, s ledger.SynchronizerID) error {
	res, err := w.tx.Exec(ctx, `DELETE FROM hostings WHERE party = $1 AND participant_id = $2 AND synchronizer_id = $3`,
		string(party), string(participant), string(s))
	if err != nil {
		return interpret(err)
	}
	if res.RowsAffected() == 0 {
		return store.HostingNotFound(party, participant, s)
	}
	return nil
}

// PutUser upserts the user row (bumping resource_version on conflict) and
// replaces its rights in one batch inside the caller's transaction, so
// readers see the old user or the new one and never a mix.
func (w *writeTx) PutUser(ctx context.Context, u ledger.User) error {
	ann, err := store.EncodeAnnotations(u.Annotations)
	if err != nil {
		return err
	}
	kinds := make([]string, len(u.Rights))
	parties := make([]string, len(u.Rights))
	for i, r := range u.Rights {
		kinds[i], parties[i] = string(r.Kind), string(r.Party)
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO users (participant_id, id, primary_party, deactivated, annotations, resource_version)
VALUES ($1, $2, $3, $4, $5, 1)
ON CONFLICT (participant_id, id) DO UPDATE SET primary_party = excluded.primary_party,
  deactivated = excluded.deactivated, annotations = excluded.annotations,
  resource_version = users.resource_version + 1`,
		string(u.Participant), u.ID, string(u.PrimaryParty), u.Deactivated, ann)
	b.Queue(`DELETE FROM user_rights WHERE participant_id = $1 AND user_id = $2`, string(u.Participant), u.ID)
	b.Queue(`INSERT INTO user_rights (participant_id, user_id, ordinal, kind, party)
SELECT $1, $2, r.ord - 1, r.kind, r.party FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS r(kind, party, ord)`,
		string(u.Participant), u.ID, kinds, parties)
	return interpret(w.tx.SendBatch(ctx, b).Close())
}

// DeleteUser removes a user; its rights go with it (ON DELETE CASCADE).
func (w *writeTx) DeleteUser(ctx context.Context, p ledger.ParticipantID, id string) error {
	tag, err := w.tx.Exec(ctx, `DELETE FROM users WHERE participant_id = $1 AND id = $2`, string(p), id)
	if err != nil {
		return interpret(err)
	}
	if tag.RowsAffected() == 0 {
		return store.UserNotFound(p, id)
	}
	return nil
}

// SetMeta writes a network setting.
func (w *writeTx) SetMeta(ctx context.Context, key, value string) error {
	_, err := w.tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return interpret(err)
}
