package store

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Lookups are the ledger API's point reads and the participants' party
// records ([ledger.Store.UpdateByID], [ledger.Store.ArchivedBy],
// [ledger.Store.PartyRecords], [ledger.WriteTx.PutPartyRecord]), written
// once for both adapters over the dialect seam (see dialect.go) and the
// tables of migration 0003. The plans they get are pinned by each
// adapter's plan tests.
type Lookups struct {
	updateByID, archivedBy, partyRecords, putPartyRecord string
}

// NewLookups returns the lookup statements of a dialect.
func NewLookups(d Dialect) *Lookups {
	return &Lookups{
		// The transactions' update_id index gives the sequence, and
		// participant_updates_sequence the offset in the participant's
		// stream.
		updateByID: d.Rebind(`SELECT pu.ledger_offset, t.body FROM transactions t
JOIN participant_updates pu ON pu.sequence = t.sequence
WHERE t.update_id = $1 AND pu.participant = (SELECT ordinal FROM participants WHERE id = $2)`),
		archivedBy: d.Rebind(`SELECT archived_update_id FROM contracts WHERE contract_id = $1`),
		// A range of the primary key.
		partyRecords: d.Rebind(`SELECT party, identity_provider_id, annotations, resource_version FROM party_records
WHERE participant_id = $1 AND party >= $2 AND party <= $3 ORDER BY party`),
		// Created at resource version 0, then incremented on every
		// change.
		putPartyRecord: d.Rebind(`INSERT INTO party_records
(participant_id, party, identity_provider_id, annotations, resource_version) VALUES ($1, $2, $3, $4, 0)
ON CONFLICT (participant_id, party) DO UPDATE SET identity_provider_id = excluded.identity_provider_id,
  annotations = excluded.annotations, resource_version = party_records.resource_version + 1`),
	}
}

// UpdateByIDStatement is UpdateByID's statement, for the plan tests.
func (s *Lookups) UpdateByIDStatement() string { return s.updateByID }

// UpdateByID returns an update of a participant's stream by its id.
func (s *Lookups) UpdateByID(ctx context.Context, q Querier, p ledger.ParticipantID, updateID string) (*ledger.ParticipantUpdate, error) {
	rows, err := q.Query(ctx, s.updateByID, updateID, string(p))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, UpdateNotFound(updateID)
	}
	var off int64
	var body []byte
	if err := rows.Scan(&off, &body); err != nil {
		return nil, err
	}
	u, err := ledger.DecodeUpdate(body)
	if err != nil {
		return nil, err
	}
	u.Participant, u.Offset = p, ledger.Offset(off)
	return &u, nil
}

// ArchivedBy returns the update that archived a contract, "" while it is
// active.
func (s *Lookups) ArchivedBy(ctx context.Context, q Querier, id daml.ContractID) (string, error) {
	rows, err := q.Query(ctx, s.archivedBy, string(id))
	if err != nil {
		return "", err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", err
		}
		return "", ContractNotFound(id)
	}
	var by *string
	if err := rows.Scan(&by); err != nil || by == nil {
		return "", err
	}
	return *by, nil
}

// PartyRecords returns a participant's party records from first to last.
func (s *Lookups) PartyRecords(ctx context.Context, q Querier, p ledger.ParticipantID, first, last daml.Party) ([]ledger.PartyRecord, error) {
	rows, err := q.Query(ctx, s.partyRecords, string(p), string(first), string(last))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ledger.PartyRecord
	for rows.Next() {
		var party, idp, ann string
		var version int64
		if err := rows.Scan(&party, &idp, &ann, &version); err != nil {
			return nil, err
		}
		r, err := PartyRecord(string(p), party, idp, ann, version)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// PutPartyRecord creates a party record at resource version 0 or replaces
// it, incrementing the version.
func (s *Lookups) PutPartyRecord(ctx context.Context, q Querier, r ledger.PartyRecord) error {
	ann, err := EncodeAnnotations(r.Annotations)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, s.putPartyRecord, string(r.Participant), string(r.Party), r.IdentityProviderID, ann)
	return err
}
