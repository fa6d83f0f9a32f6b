package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// UpdateByID returns an update of a participant's stream by its id: the
// transactions' update_id index gives the sequence, and
// participant_updates_sequence the offset in the participant's stream
// (SEARCH t USING INDEX sqlite_autoindex_transactions_1 (update_id=?),
// SEARCH pu USING COVERING INDEX participant_updates_sequence
// (sequence=?)).
func (l *Ledger) UpdateByID(ctx context.Context, p ledger.ParticipantID, updateID string) (*ledger.ParticipantUpdate, error) {
	var off int64
	var body []byte
	err := l.read.QueryRowContext(ctx, sqlUpdateByID, updateID, string(p)).Scan(&off, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.UpdateNotFound(updateID)
	}
	if err != nil {
		return nil, interpret(err)
	}
	u, err := ledger.DecodeUpdate(body)
	if err != nil {
		return nil, err
	}
	u.Participant, u.Offset = p, ledger.Offset(off)
	return &u, nil
}

const sqlUpdateByID = `SELECT pu.ledger_offset, t.body FROM transactions t
JOIN participant_updates pu ON pu.sequence = t.sequence
WHERE t.update_id = ? AND pu.participant = (SELECT ordinal FROM participants WHERE id = ?)`

// ArchivedBy returns the update that archived a contract, "" while it is
// active.
func (l *Ledger) ArchivedBy(ctx context.Context, id daml.ContractID) (string, error) {
	var by sql.NullString
	err := l.read.QueryRowContext(ctx, `SELECT archived_update_id FROM contracts WHERE contract_id = ?`, string(id)).Scan(&by)
	if errors.Is(err, sql.ErrNoRows) {
		return "", store.ContractNotFound(id)
	}
	return by.String, interpret(err)
}

// PartyRecords returns a participant's party records from first to last,
// a range of the primary key.
func (l *Ledger) PartyRecords(ctx context.Context, p ledger.ParticipantID, first, last daml.Party) ([]ledger.PartyRecord, error) {
	rows, err := l.read.QueryContext(ctx, `SELECT party, identity_provider_id, annotations, resource_version FROM party_records
WHERE participant_id = ? AND party >= ? AND party <= ? ORDER BY party`, string(p), string(first), string(last))
	if err != nil {
		return nil, interpret(err)
	}
	defer rows.Close()
	var out []ledger.PartyRecord
	for rows.Next() {
		var party, idp, ann string
		var version int64
		if err := rows.Scan(&party, &idp, &ann, &version); err != nil {
			return nil, interpret(err)
		}
		r, err := store.PartyRecord(string(p), party, idp, ann, version)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, interpret(rows.Err())
}

// PutPartyRecord creates a party record at resource version 0 or replaces
// it, incrementing the version.
func (w *writeTx) PutPartyRecord(ctx context.Context, r ledger.PartyRecord) error {
	ann, err := store.EncodeAnnotations(r.Annotations)
	if err != nil {
		return err
	}
	_, err = w.ExecContext(ctx, `INSERT INTO party_records
(participant_id, party, identity_provider_id, annotations, resource_version) VALUES (?, ?, ?, ?, 0)
ON CONFLICT (participant_id, party) DO UPDATE SET identity_provider_id = excluded.identity_provider_id,
  annotations = excluded.annotations, resource_version = party_records.resource_version + 1`,
		string(r.Participant), string(r.Party), r.IdentityProviderID, ann)
	return interpret(err)
}
