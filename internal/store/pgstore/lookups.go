package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// UpdateByID returns an update of a participant's stream by its id: an
// Index Scan of transactions_update_id_key gives the sequence, and an
// Index Only Scan of participant_updates_sequence the offset in the
// participant's stream.
func (l *Ledger) UpdateByID(ctx context.Context, p ledger.ParticipantID, updateID string) (*ledger.ParticipantUpdate, error) {
	var off int64
	var body []byte
	err := l.pool.QueryRow(ctx, sqlUpdateByID, updateID, string(p)).Scan(&off, &body)
	if errors.Is(err, pgx.ErrNoRows) {
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
WHERE t.update_id = $1 AND pu.participant = (SELECT ordinal FROM participants WHERE id = $2)`

// ArchivedBy returns the update that archived a contract, "" while it is
// active.
func (l *Ledger) ArchivedBy(ctx context.Context, id daml.ContractID) (string, error) {
	var by *string
	err := l.pool.QueryRow(ctx, `SELECT archived_update_id FROM contracts WHERE contract_id = $1`, string(id)).Scan(&by)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", store.ContractNotFound(id)
	}
	if err != nil || by == nil {
		return "", interpret(err)
	}
	return *by, nil
}

// PartyRecords returns a participant's party records from first to last,
// a range of the primary key.
func (l *Ledger) PartyRecords(ctx context.Context, p ledger.ParticipantID, first, last daml.Party) ([]ledger.PartyRecord, error) {
	rows, err := l.pool.Query(ctx, `SELECT party, identity_provider_id, annotations, resource_version FROM party_records
WHERE participant_id = $1 AND party >= $2 AND party <= $3 ORDER BY party`, string(p), string(first), string(last))
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
	_, err = w.tx.Exec(ctx, `INSERT INTO party_records
(participant_id, party, identity_provider_id, annotations, resource_version) VALUES ($1, $2, $3, $4, 0)
ON CONFLICT (participant_id, party) DO UPDATE SET identity_provider_id = excluded.identity_provider_id,
  annotations = excluded.annotations, resource_version = party_records.resource_version + 1`,
		string(r.Participant), string(r.Party), r.IdentityProviderID, ann)
	return interpret(err)
}
