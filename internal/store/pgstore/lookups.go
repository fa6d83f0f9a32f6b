package pgstore

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// lookups are the point reads and party records, shared with the SQLite
// adapter (see store.Lookups).
var lookups = store.NewLookups(store.PostgreSQL)

// UpdateByID returns an update of a participant's stream by its id (an
// Index Scan of transactions_update_id_key, then an Index Only Scan of
// participant_updates_sequence).
func (l *Ledger) UpdateByID(ctx context.Context, p ledger.ParticipantID, updateID string) (*ledger.ParticipantUpdate, error) {
	return lookups.UpdateByID(ctx, shared{l.pool}, p, updateID)
}

// ArchivedBy returns the update that archived a contract, "" while it is
// active.
func (l *Ledger) ArchivedBy(ctx context.Context, id daml.ContractID) (string, error) {
	return lookups.ArchivedBy(ctx, shared{l.pool}, id)
}

// PartyRecords returns a participant's party records from first to last.
func (l *Ledger) PartyRecords(ctx context.Context, p ledger.ParticipantID, first, last daml.Party) ([]ledger.PartyRecord, error) {
	return lookups.PartyRecords(ctx, shared{l.pool}, p, first, last)
}

// PutPartyRecord creates a party record or replaces it (see
// ledger.WriteTx).
func (w *writeTx) PutPartyRecord(ctx context.Context, r ledger.PartyRecord) error {
	return lookups.PutPartyRecord(ctx, shared{w.tx}, r)
}
