package sqlitestore

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// lookups are the point reads and party records, shared with the
// PostgreSQL adapter (see store.Lookups).
var lookups = store.NewLookups(store.SQLite)

// UpdateByID returns an update of a participant's stream by its id (SEARCH
// t USING INDEX sqlite_autoindex_transactions_1 (update_id=?), SEARCH pu
// USING COVERING INDEX participant_updates_sequence (sequence=?)).
func (l *Ledger) UpdateByID(ctx context.Context, p ledger.ParticipantID, updateID string) (*ledger.ParticipantUpdate, error) {
	return lookups.UpdateByID(ctx, querier{l.read}, p, updateID)
}

// ArchivedBy returns the update that archived a contract, "" while it is
// active.
func (l *Ledger) ArchivedBy(ctx context.Context, id daml.ContractID) (string, error) {
	return lookups.ArchivedBy(ctx, querier{l.read}, id)
}

// PartyRecords returns a participant's party records from first to last.
func (l *Ledger) PartyRecords(ctx context.Context, p ledger.ParticipantID, first, last daml.Party) ([]ledger.PartyRecord, error) {
	return lookups.PartyRecords(ctx, querier{l.read}, p, first, last)
}

// PutPartyRecord creates a party record or replaces it (see
// ledger.WriteTx).
func (w *writeTx) PutPartyRecord(ctx context.Context, r ledger.PartyRecord) error {
	return lookups.PutPartyRecord(ctx, querier{w.runner}, r)
}
