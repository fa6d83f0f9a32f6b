package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/validator"
)

// Validator is the SQLite implementation of [validator.Store]: a
// validator's own database file, apart from the ledger's, with the same
// single-writer layout as [Ledger].
type Validator struct {
	path  string
	conns // the write statements are validatorWriteStatements

	closeOnce sync.Once
	closeErr  error
}

var _ validator.Store = (*Validator)(nil)

// OpenValidator opens (creating if needed) the validator database at path
// and applies pending migrations. It fails with a fault.FailedPrecondition
// if another process has the same file open.
func OpenValidator(ctx context.Context, path string) (*Validator, error) {
	s := &Validator{path: path}
	if err := s.open(ctx, "validator", path, "migrations/validator", "NORMAL", validatorWriteStatements); err != nil {
		return nil, err
	}
	return s, nil
}

// Path returns the database file's path.
func (s *Validator) Path() string { return s.path }

// Close closes both pools and releases the file lock. It is safe to call
// more than once.
func (s *Validator) Close() error {
	s.closeOnce.Do(func() {
		s.optimize()
		s.closeErr = s.closeDBs()
	})
	return s.closeErr
}

// The statements of the write path, prepared once on the write connection,
// and of the reads.
const (
	sqlValCursor = `SELECT ledger_offset FROM ingestion WHERE id = 1`
	// sqlValAdvance is the cursor's compare-and-swap; it reserves ?3
	// sequence numbers for the batch's events and returns the last.
	sqlValAdvance = `UPDATE ingestion SET ledger_offset = ?1, last_seq = last_seq + ?3
WHERE id = 1 AND ledger_offset = ?2 RETURNING last_seq`
	sqlValUpsert = `INSERT INTO transfers
(sender, tracking_id, receiver, seq, state, update_id, contract_id, failure_kind, reason, record_time)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sender, tracking_id) DO UPDATE SET
  receiver = excluded.receiver, seq = excluded.seq, state = excluded.state,
  update_id = excluded.update_id, contract_id = excluded.contract_id,
  failure_kind = excluded.failure_kind, reason = excluded.reason, record_time = excluded.record_time`

	// transferColumns are the columns [scanTransfer] reads.
	transferColumns = `seq, sender, tracking_id, receiver, state, update_id, contract_id, failure_kind, reason, record_time`
	sqlValSent      = `SELECT ` + transferColumns + ` FROM transfers WHERE sender = ?1 AND tracking_id = ?2`
	// sqlValTransfer is the party's transfer with an id: the one it sends
	// (primary key) and the latest it receives (transfers_receiver), the
	// later of the two.
	sqlValTransfer = sqlValSent + `
UNION ALL
SELECT * FROM (SELECT ` + transferColumns + ` FROM transfers
  WHERE receiver = ?1 AND tracking_id = ?2 ORDER BY seq DESC LIMIT 1)
ORDER BY seq DESC LIMIT 1`
)

var validatorWriteStatements = []string{sqlValCursor, sqlValAdvance, sqlValUpsert}

// Cursor returns the last participant offset ingested (0: none).
func (s *Validator) Cursor(ctx context.Context) (ledger.Offset, error) {
	var off int64
	err := s.read.QueryRowContext(ctx, sqlValCursor).Scan(&off)
	return ledger.Offset(off), interpret(err)
}

// Ingest records events and moves the cursor in one transaction; the
// cursor's compare-and-swap comes first, so a lost race stores nothing.
// Each event overwrites its transfer's row with a sequence number greater
// than any before it.
func (s *Validator) Ingest(ctx context.Context, prev, next ledger.Offset, events []validator.TransferEvent) error {
	if next < prev {
		return fault.New(fault.InvalidArgument, "validator cursor cannot move back from offset %d to %d", prev, next)
	}
	for i := range events {
		if err := events[i].Check(); err != nil {
			return err
		}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return interpret(err)
	}
	defer tx.Rollback()
	w := writeRunner(s.w, tx, s.wc)
	var last int64
	err = w.QueryRowContext(ctx, sqlValAdvance, int64(next), int64(prev), int64(len(events))).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return validatorCursorMoved(prev)
	}
	if err != nil {
		return interpret(err)
	}
	first := last - int64(len(events)) + 1
	for i := range events {
		e := &events[i]
		if _, err := w.ExecContext(ctx, sqlValUpsert, string(e.Sender), e.TrackingID, string(e.Receiver),
			first+int64(i), string(e.State), e.UpdateID, string(e.ContractID), string(e.FailureKind), e.Reason,
			int64(e.RecordTime)); err != nil {
			return interpret(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return interpret(err)
	}
	s.committed()
	return nil
}

// validatorCursorMoved is the error of an Ingest whose prev is not the
// stored cursor: another ingester got there first.
func validatorCursorMoved(prev ledger.Offset) error {
	return fault.New(fault.Aborted,
		"validator cursor is no longer at offset %d: another ingester stored transfer events", prev)
}

// Transfer returns the state of the transfer with trackingID that party
// sends or receives: the one with the latest event when there are several.
func (s *Validator) Transfer(ctx context.Context, party daml.Party, trackingID string) (validator.TransferEvent, error) {
	e, err := s.transferOne(ctx, sqlValTransfer, party, trackingID)
	if errors.Is(err, sql.ErrNoRows) {
		return e, fault.New(fault.NotFound, "party %s neither sends nor receives a transfer with tracking id %q", party, trackingID)
	}
	return e, err
}

// SentTransfer returns the state of sender's transfer with trackingID.
func (s *Validator) SentTransfer(ctx context.Context, sender daml.Party, trackingID string) (validator.TransferEvent, error) {
	e, err := s.transferOne(ctx, sqlValSent, sender, trackingID)
	if errors.Is(err, sql.ErrNoRows) {
		return e, fault.New(fault.NotFound, "party %s sends no transfer with tracking id %q", sender, trackingID)
	}
	return e, err
}

// transferOne reads the row of transferColumns query returns; its error is
// sql.ErrNoRows when there is none.
func (s *Validator) transferOne(ctx context.Context, query string, party daml.Party, trackingID string) (validator.TransferEvent, error) {
	var e validator.TransferEvent
	var seq, rt int64
	err := s.read.QueryRowContext(ctx, query, string(party), trackingID).Scan(&seq, &e.Sender, &e.TrackingID,
		&e.Receiver, &e.State, &e.UpdateID, &e.ContractID, &e.FailureKind, &e.Reason, &rt)
	if errors.Is(err, sql.ErrNoRows) {
		return validator.TransferEvent{}, err
	}
	if err != nil {
		return validator.TransferEvent{}, interpret(err)
	}
	e.RecordTime = daml.Timestamp(rt)
	return e, nil
}
