package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// The statements of the write path, prepared once on the write connection
// when the store opens: parsing them again for every append cost about a
// third of its CPU time.
const (
	sqlAdvanceHead = `UPDATE head SET sequence = sequence + 1, migration_id = ?1, last_record_time = ?2
WHERE id = 1 AND (migration_id < ?1 OR (migration_id = ?1 AND last_record_time < ?2))
RETURNING sequence`
	sqlInsertTransaction = `INSERT INTO transactions
(sequence, update_id, migration_id, record_time, effective_at, synchronizer_id, body) VALUES (?, ?, ?, ?, ?, ?, ?)`
	sqlAdvanceOffset = `UPDATE participants SET last_offset = ?2 WHERE id = ?1 AND last_offset < ?2
RETURNING ordinal`
	// sqlInsertParticipantUpdates records the update in every stream it
	// goes to (?1, a JSON array of participant ids, whose last offsets the
	// statements before moved to the update's offset in each).
	sqlInsertParticipantUpdates = `INSERT INTO participant_updates (participant, ledger_offset, sequence, migration_id)
SELECT ordinal, last_offset, ?2, ?3 FROM participants WHERE id IN (SELECT value FROM json_each(?1))`
	// sqlInsertUpdateParties indexes an update under each of its informees
	// (a JSON array) in one participant's stream.
	sqlInsertUpdateParties = `INSERT INTO participant_update_parties (participant, party, ledger_offset)
SELECT ?1, value, ?2 FROM json_each(?3)`
	// sqlInsertHostedUpdateParties indexes a transaction in every stream
	// it goes to (?1, a JSON array of participant ids, whose last offsets
	// the statements before moved to the transaction's) under the
	// informees (?2, a JSON array) that the stream's participant hosts, as
	// only those a stream's party filter can name (see
	// [ledger.UpdateQuery.Parties]). A transfer's informees are mostly
	// hosted on one participant each, so this writes about a third of the
	// rows of indexing every informee in every stream, each a leaf page of
	// its own in the commit, and in one statement for all the streams.
	sqlInsertHostedUpdateParties = `INSERT INTO participant_update_parties (participant, party, ledger_offset)
SELECT p.ordinal, i.value, p.last_offset FROM json_each(?2) AS i, participants AS p
WHERE p.id IN (SELECT value FROM json_each(?1))
  AND EXISTS (SELECT 1 FROM hostings AS h WHERE h.party = i.value AND h.participant_id = p.id)`
	sqlInsertContract = `INSERT INTO contracts
(contract_id, package_name, module, entity, migration_id, created_update_id, body) VALUES (?, ?, ?, ?, ?, ?, ?)
RETURNING seq`
	sqlInsertStakeholder = `INSERT INTO contract_stakeholders (party, package_name, module, entity, seq) VALUES (?, ?, ?, ?, ?)`
	sqlConsume           = `UPDATE contracts SET archived_update_id = ?
WHERE contract_id = ? AND archived_update_id IS NULL RETURNING seq`
	sqlDeleteStakeholders = `DELETE FROM contract_stakeholders WHERE seq = ?`
	sqlInactive           = `SELECT contract_id FROM contracts
WHERE contract_id IN (SELECT value FROM json_each(?)) AND archived_update_id IS NULL`
)

// hotStatements are prepared at open.
var hotStatements = append([]string{
	sqlHead, sqlHeadOffsets, sqlAdvanceHead, sqlInsertTransaction, sqlAdvanceOffset,
	sqlInsertParticipantUpdates, sqlInsertUpdateParties, sqlInsertHostedUpdateParties, sqlInsertContract, sqlInsertStakeholder, sqlConsume,
	sqlDeleteStakeholders, sqlInactive,
}, completions.Statements()...)

// writeTx is the [ledger.WriteTx] of one [Ledger.Write]. Every statement
// runs on the single write connection inside its IMMEDIATE transaction, so
// what it reads (the head, the active contracts) cannot change under it.
type writeTx struct {
	runner // on the write transaction
}

// Head reads the head inside the write transaction.
func (w *writeTx) Head(ctx context.Context) (ledger.Head, error) {
	return readHead(ctx, w)
}

// Inactive returns those of ids that are not active. It passes the ids as one JSON array so that the statement text is
// the same whatever their number (and SQLite's variable limit never
// matters); the plan is a lookup of the contract_id index per id.
func (w *writeTx) Inactive(ctx context.Context, ids []daml.ContractID) ([]daml.ContractID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	arg, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := w.QueryContext(ctx, sqlInactive, string(arg))
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	active := map[daml.ContractID]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, interpret(err)
		}
		active[daml.ContractID(id)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, interpret(err)
	}
	return store.Missing(ids, active), nil
}

// AppendTransaction advances the head, stores the transaction, applies its
// creates and consumes in node order (a contract created and archived in
// the same transaction is fine) and appends it to each listed participant's
// stream. Every step is a conditional statement whose effect is checked, so
// that a violated invariant fails the whole Write.
func (w *writeTx) AppendTransaction(ctx context.Context, tx *ledger.Transaction, offsets map[ledger.ParticipantID]ledger.Offset) error {
	body, err := ledger.EncodeTransaction(tx)
	if err != nil {
		return err
	}
	// Each stream indexes the informees its participant hosts.
	return w.appendUpdate(ctx, tx, body, tx.Informees(), true, offsets, func() error {
		for i := range tx.Events {
			e := &tx.Events[i]
			switch {
			case e.Created != nil:
				if err := w.create(ctx, tx.UpdateID, e.Created); err != nil {
					return err
				}
			case e.Exercised != nil && e.Exercised.Consuming:
				if err := w.consume(ctx, tx.UpdateID, e.Exercised.ContractID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// AppendTopology advances the head, stores the topology transaction in
// the transactions table (its effective time is its record time) and
// appends it to each listed participant's stream, indexed under the
// parties whose hosting it changes.
func (w *writeTx) AppendTopology(ctx context.Context, t *ledger.TopologyTransaction, offsets map[ledger.ParticipantID]ledger.Offset) error {
	body, err := ledger.EncodeTopologyTransaction(t)
	if err != nil {
		return err
	}
	head := &ledger.Transaction{UpdateID: t.UpdateID, Synchronizer: t.Synchronizer, MigrationID: t.MigrationID,
		RecordTime: t.RecordTime, EffectiveAt: t.RecordTime}
	return w.appendUpdate(ctx, head, body, t.Parties(), false, offsets, nil)
}

// AppendReassignment advances the head, stores one half of a
// reassignment in the transactions table (its effective time is its
// record time), for an assignment replaces the contract's body with its
// new synchronizer and counter, and appends it to each listed
// participant's stream, indexed under the contract's stakeholders.
func (w *writeTx) AppendReassignment(ctx context.Context, r *ledger.Reassignment, offsets map[ledger.ParticipantID]ledger.Offset) error {
	body, err := ledger.EncodeReassignment(r)
	if err != nil {
		return err
	}
	head := &ledger.Transaction{UpdateID: r.UpdateID, Synchronizer: r.Synchronizer(), MigrationID: r.MigrationID,
		RecordTime: r.RecordTime, EffectiveAt: r.RecordTime}
	var apply func() error
	if r.Kind == ledger.Assigned {
		apply = func() error {
			cb, err := ledger.EncodeContract(r.Contract)
			if err != nil {
				return err
			}
			res, err := w.ExecContext(ctx, `UPDATE contracts SET body = ? WHERE contract_id = ? AND archived_update_id IS NULL`,
				cb, string(r.Contract.ID))
			if err != nil {
				return interpret(err)
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return errors.Join(interpret(err), store.InactiveContract(r.Contract.ID))
			}
			return nil
		}
	}
	return w.appendUpdate(ctx, head, body, r.Parties(), false, offsets, apply)
}

// appendUpdate is the common part of both appends: tx carries the update's
// columns, body its blob, parties the index entries of every stream (with
// hostedOnly, only those the stream's participant hosts: a topology
// transaction's parties and a reassignment's stakeholders are indexed
// whatever the hostings, as a revocation's party is no longer hosted when
// it is appended), and apply (when set) its effect on the active contract
// set.
func (w *writeTx) appendUpdate(ctx context.Context, tx *ledger.Transaction, body []byte, inf []daml.Party, hostedOnly bool,
	offsets map[ledger.ParticipantID]ledger.Offset, apply func() error) error {
	// Check and advance in one statement: the record time must increase
	// within a migration, and migrations never go back.
	var seq int64
	err := w.QueryRowContext(ctx, sqlAdvanceHead, tx.MigrationID, int64(tx.RecordTime)).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		head, err := readHead(ctx, w)
		if err != nil {
			return err
		}
		if err := store.OutOfOrder(head, tx); err != nil {
			return err
		}
		return fmt.Errorf("append %s: head refused the update", tx.UpdateID)
	}
	if err != nil {
		return interpret(err)
	}
	_, err = w.ExecContext(ctx, sqlInsertTransaction,
		seq, tx.UpdateID, tx.MigrationID, int64(tx.RecordTime), int64(tx.EffectiveAt), string(tx.Synchronizer), body)
	if err != nil {
		return fmt.Errorf("append %s: %w", tx.UpdateID, interpret(err))
	}
	if apply != nil {
		if err := apply(); err != nil {
			return err
		}
	}

	informees, err := json.Marshal(inf)
	if err != nil {
		return err
	}
	for _, po := range store.SortedOffsets(offsets) {
		var ordinal int64
		err := w.QueryRowContext(ctx, sqlAdvanceOffset, string(po.Participant), int64(po.Offset)).Scan(&ordinal)
		if errors.Is(err, sql.ErrNoRows) {
			var last int64
			err := w.QueryRowContext(ctx, `SELECT last_offset FROM participants WHERE id = ?`, string(po.Participant)).Scan(&last)
			if errors.Is(err, sql.ErrNoRows) {
				return store.ParticipantNotFound(po.Participant)
			}
			if err != nil {
				return interpret(err)
			}
			return store.OffsetNotAfter(po.Participant, po.Offset, ledger.Offset(last))
		}
		if err != nil {
			return interpret(err)
		}
		if len(inf) == 0 || hostedOnly {
			continue // json.Marshal made null; or below
		}
		if _, err := w.ExecContext(ctx, sqlInsertUpdateParties, ordinal, int64(po.Offset), string(informees)); err != nil {
			return interpret(err)
		}
	}
	if len(offsets) == 0 {
		return nil
	}
	// The streams' entries and (for a transaction) its index rows, one
	// statement each for all the streams: each participant's last offset
	// is now the update's offset in its stream.
	ids := make([]string, 0, len(offsets))
	for p := range offsets {
		ids = append(ids, string(p))
	}
	participants, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(ctx, sqlInsertParticipantUpdates, string(participants), seq, tx.MigrationID); err != nil {
		return interpret(err)
	}
	if len(inf) == 0 || !hostedOnly {
		return nil
	}
	if _, err := w.ExecContext(ctx, sqlInsertHostedUpdateParties, string(participants), string(informees)); err != nil {
		return interpret(err)
	}
	return nil
}

func (w *writeTx) create(ctx context.Context, updateID string, c *ledger.Contract) error {
	body, err := ledger.EncodeContract(c)
	if err != nil {
		return err
	}
	var seq int64
	err = w.QueryRowContext(ctx, sqlInsertContract, string(c.ID), c.Template.PackageName, c.Template.ModuleName, c.Template.EntityName,
		c.MigrationID, updateID, body).Scan(&seq)
	if err != nil {
		return fmt.Errorf("create contract %s: %w", c.ID, interpret(err))
	}
	for _, p := range c.Stakeholders() {
		if _, err := w.ExecContext(ctx, sqlInsertStakeholder, string(p),
			c.Template.PackageName, c.Template.ModuleName, c.Template.EntityName, seq); err != nil {
			return interpret(err)
		}
	}
	return nil
}

// consume archives a contract at most once: the update matches only an
// active row, and no match means the contract was already archived (or
// never created), whatever the engine believed.
func (w *writeTx) consume(ctx context.Context, updateID string, id daml.ContractID) error {
	var seq int64
	err := w.QueryRowContext(ctx, sqlConsume, updateID, string(id)).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return store.InactiveContract(id)
	}
	if err != nil {
		return interpret(err)
	}
	_, err = w.ExecContext(ctx, sqlDeleteStakeholders, seq)
	return interpret(err)
}

// SetMigration starts hard migration id: the head moves to it with no
// record time yet, and every synchronizer moves to it.
func (w *writeTx) SetMigration(ctx context.Context, id int64) error {
	res, err := w.ExecContext(ctx, `UPDATE head SET migration_id = ?1, last_record_time = 0
WHERE id = 1 AND migration_id < ?1`, id)
	if err != nil {
		return interpret(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return interpret(err)
	} else if n == 0 {
		return store.MigrationNotAfter(id)
	}
	_, err = w.ExecContext(ctx, `UPDATE synchronizers SET migration_id = ?`, id)
	return interpret(err)
}

// SetClockOffset stores the clock offset in the head.
func (w *writeTx) SetClockOffset(ctx context.Context, micros int64) error {
	_, err := w.ExecContext(ctx, `UPDATE head SET clock_offset = ? WHERE id = 1`, micros)
	return interpret(err)
}

// Prune moves the participant's pruned offset forward, checked in the
// statement itself, and records nothing else: the stream's entries
// (participant_updates, participant_update_parties) and the transactions
// stay, and the ledger API refuses reads that begin before the pruned
// offset (see [ledger.WriteTx.Prune]).
func (w *writeTx) Prune(ctx context.Context, p ledger.ParticipantID, upTo ledger.Offset) error {
	if err := store.PruneRefused(p, upTo, 0, upTo); err != nil {
		return err
	}
	var ordinal int64
	err := w.QueryRowContext(ctx, `UPDATE participants SET pruned_offset = ?2
WHERE id = ?1 AND pruned_offset <= ?2 AND last_offset >= ?2 RETURNING ordinal`, string(p), int64(upTo)).Scan(&ordinal)
	if errors.Is(err, sql.ErrNoRows) {
		var pruned, last int64
		err := w.QueryRowContext(ctx, `SELECT pruned_offset, last_offset FROM participants WHERE id = ?`, string(p)).
			Scan(&pruned, &last)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ParticipantNotFound(p)
		}
		if err != nil {
			return interpret(err)
		}
		if err := store.PruneRefused(p, upTo, ledger.Offset(pruned), ledger.Offset(last)); err != nil {
			return err
		}
		return fmt.Errorf("prune %s up to %d: participant row refused the update", p, upTo)
	}
	return interpret(err)
}

// PutParticipant adds a participant unless it exists.
func (w *writeTx) PutParticipant(ctx context.Context, p ledger.Participant) error {
	_, err := w.ExecContext(ctx, `INSERT INTO participants (id, name) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
		string(p.ID), p.Name)
	return interpret(err)
}

// PutSynchronizer adds a synchronizer unless it exists.
func (w *writeTx) PutSynchronizer(ctx context.Context, s ledger.Synchronizer) error {
	_, err := w.ExecContext(ctx, `INSERT INTO synchronizers (id, alias, migration_id) VALUES (?, ?, ?)
ON CONFLICT (id) DO NOTHING`, string(s.ID), s.Alias, s.MigrationID)
	return interpret(err)
}

// PutHosting adds a hosting or replaces its permission.
func (w *writeTx) PutHosting(ctx context.Context, h ledger.Hosting) error {
	_, err := w.ExecContext(ctx, `INSERT INTO hostings (party, participant_id, synchronizer_id, permission)
VALUES (?, ?, ?, ?) ON CONFLICT (party, participant_id, synchronizer_id) DO UPDATE SET permission = excluded.permission`,
		string(h.Party), string(h.Participant), string(h.Synchronizer), string(h.Permission))
	return interpret(err)
}

// DeleteHosting removes a hosting; a missing one is a fault.NotFound.
func (w *writeTx) DeleteHosting(ctx context.Context, party daml.Party, participant ledger.ParticipantID, s ledger.SynchronizerID) error {
	res, err := w.ExecContext(ctx, `DELETE FROM hostings WHERE party = ? AND participant_id = ? AND synchronizer_id = ?`,
		string(party), string(participant), string(s))
	if err != nil {
		return interpret(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return interpret(err)
	} else if n == 0 {
		return store.HostingNotFound(party, participant, s)
	}
	return nil
}

// PutUser upserts the user row (bumping resource_version on conflict) and
// replaces its rights, all inside the caller's transaction, so readers see
// the old user or the new one and never a mix.
func (w *writeTx) PutUser(ctx context.Context, u ledger.User) error {
	ann, err := store.EncodeAnnotations(u.Annotations)
	if err != nil {
		return err
	}
	_, err = w.ExecContext(ctx, `INSERT INTO users
(participant_id, id, primary_party, deactivated, annotations, resource_version) VALUES (?, ?, ?, ?, ?, 1)
ON CONFLICT (participant_id, id) DO UPDATE SET primary_party = excluded.primary_party,
  deactivated = excluded.deactivated, annotations = excluded.annotations,
  resource_version = users.resource_version + 1`,
		string(u.Participant), u.ID, string(u.PrimaryParty), u.Deactivated, ann)
	if err != nil {
		return interpret(err)
	}
	if _, err := w.ExecContext(ctx, `DELETE FROM user_rights WHERE participant_id = ? AND user_id = ?`,
		string(u.Participant), u.ID); err != nil {
		return interpret(err)
	}
	for i, r := range u.Rights {
		if _, err := w.ExecContext(ctx, `INSERT INTO user_rights (participant_id, user_id, ordinal, kind, party)
VALUES (?, ?, ?, ?, ?)`, string(u.Participant), u.ID, i, string(r.Kind), string(r.Party)); err != nil {
			return interpret(err)
		}
	}
	return nil
}

// DeleteUser removes a user; its rights go with it (ON DELETE CASCADE).
func (w *writeTx) DeleteUser(ctx context.Context, p ledger.ParticipantID, id string) error {
	res, err := w.ExecContext(ctx, `DELETE FROM users WHERE participant_id = ? AND id = ?`, string(p), id)
	if err != nil {
		return interpret(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return interpret(err)
	} else if n == 0 {
		return store.UserNotFound(p, id)
	}
	return nil
}

// SetMeta writes a network setting.
func (w *writeTx) SetMeta(ctx context.Context, key, value string) error {
	_, err := w.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return interpret(err)
}
