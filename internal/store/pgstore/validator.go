package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/validator"
)

// Validator is the PostgreSQL implementation of [validator.Store]: a
// validator's own schema, apart from the ledger's.
type Validator struct {
	pool   *pgxpool.Pool
	schema string
}

var _ validator.Store = (*Validator)(nil)

// OpenValidator connects to the database at url, creates schema if
// missing, applies pending migrations and returns a store whose
// connections all work in schema.
func OpenValidator(ctx context.Context, url, schema string) (*Validator, error) {
	pool, _, err := openPool(ctx, "validator", url, schema, "migrations/validator")
	if err != nil {
		return nil, err
	}
	return &Validator{pool: pool, schema: schema}, nil
}

// Schema returns the schema the store works in.
func (s *Validator) Schema() string { return s.schema }

// Close closes the pool.
func (s *Validator) Close() error {
	s.pool.Close()
	return nil
}

// The statements of the validator store.
const (
	// sqlValAdvance is the cursor's compare-and-swap; it reserves $3
	// sequence numbers for the batch's events and returns the last. Under
	// READ COMMITTED a concurrent Ingest waits for the row and then
	// re-checks the condition against the committed cursor, so exactly one
	// of two racing ingesters wins.
	sqlValAdvance = `UPDATE ingestion SET ledger_offset = $1, last_seq = last_seq + $3
WHERE id = 1 AND ledger_offset = $2 RETURNING last_seq`
	// sqlValUpsert writes the batch's transfers, at most one event per
	// (sender, tracking id) (an INSERT cannot update a row twice).
	sqlValUpsert = `INSERT INTO transfers AS t
(sender, tracking_id, receiver, seq, state, update_id, contract_id, failure_kind, reason, record_time)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[],
  $8::text[], $9::text[], $10::bigint[])
ON CONFLICT (sender, tracking_id) DO UPDATE SET
  receiver = excluded.receiver, seq = excluded.seq, state = excluded.state,
  update_id = excluded.update_id, contract_id = excluded.contract_id,
  failure_kind = excluded.failure_kind, reason = excluded.reason, record_time = excluded.record_time`

	// transferColumns are the columns [Validator.transferOne] reads.
	transferColumns = `seq, sender, tracking_id, receiver, state, update_id, contract_id, failure_kind, reason, record_time`
	sqlValSent      = `SELECT ` + transferColumns + ` FROM transfers WHERE sender = $1 AND tracking_id = $2`
	// sqlValTransfer is the party's transfer with an id: the one it sends
	// (primary key) and the latest it receives (transfers_receiver), the
	// later of the two.
	sqlValTransfer = `(` + sqlValSent + `)
UNION ALL
(SELECT ` + transferColumns + ` FROM transfers
  WHERE receiver = $1 AND tracking_id = $2 ORDER BY seq DESC LIMIT 1)
ORDER BY seq DESC LIMIT 1`
)

// Cursor returns the last participant offset ingested (0: none).
func (s *Validator) Cursor(ctx context.Context) (ledger.Offset, error) {
	var off int64
	err := s.pool.QueryRow(ctx, `SELECT ledger_offset FROM ingestion WHERE id = 1`).Scan(&off)
	return ledger.Offset(off), interpret(err)
}

// Ingest records events and moves the cursor in one transaction; the
// cursor's compare-and-swap comes first, so a lost race stores nothing.
// Each transfer's row is overwritten with its last event of the batch, at
// a sequence number greater than any before it.
func (s *Validator) Ingest(ctx context.Context, prev, next ledger.Offset, events []validator.TransferEvent) error {
	if next < prev {
		return fault.New(fault.InvalidArgument, "validator cursor cannot move back from offset %d to %d", prev, next)
	}
	for i := range events {
		if err := events[i].Check(); err != nil {
			return err
		}
	}
	return write(ctx, s.pool, func(tx pgx.Tx) error {
		var last int64
		err := tx.QueryRow(ctx, sqlValAdvance, int64(next), int64(prev), int64(len(events))).Scan(&last)
		if errors.Is(err, pgx.ErrNoRows) {
			return fault.New(fault.Aborted,
				"validator cursor is no longer at offset %d: another ingester stored transfer events", prev)
		}
		if err != nil {
			return interpret(err)
		}
		if len(events) == 0 {
			return nil
		}
		c := newTransferColumns(events, last-int64(len(events))+1)
		_, err = tx.Exec(ctx, sqlValUpsert, c.sender, c.trackingID, c.receiver, c.seq, c.state, c.updateID,
			c.contractID, c.failureKind, c.reason, c.recordTime)
		return interpret(err)
	})
}

// transferColumnArrays are the arguments of sqlValUpsert: one element per
// transfer.
type transferColumnArrays struct {
	sender, trackingID, receiver, state, updateID, contractID, failureKind, reason []string
	seq, recordTime                                                                []int64
}

// newTransferColumns keeps the last of events (numbered from first) for
// each (sender, tracking id), as column arrays.
func newTransferColumns(events []validator.TransferEvent, first int64) transferColumnArrays {
	type key struct {
		sender     daml.Party
		trackingID string
	}
	at := make(map[key]int, len(events))
	var c transferColumnArrays
	for i := range events {
		e := &events[i]
		k := key{e.Sender, e.TrackingID}
		j, seen := at[k]
		if !seen {
			j = len(c.sender)
			at[k] = j
			c.sender = append(c.sender, string(e.Sender))
			c.trackingID = append(c.trackingID, e.TrackingID)
			c.receiver = append(c.receiver, "")
			c.seq = append(c.seq, 0)
			c.state = append(c.state, "")
			c.updateID = append(c.updateID, "")
			c.contractID = append(c.contractID, "")
			c.failureKind = append(c.failureKind, "")
			c.reason = append(c.reason, "")
			c.recordTime = append(c.recordTime, 0)
		}
		c.receiver[j] = string(e.Receiver)
		c.seq[j] = first + int64(i)
		c.state[j] = string(e.State)
		c.updateID[j] = e.UpdateID
		c.contractID[j] = string(e.ContractID)
		c.failureKind[j] = string(e.FailureKind)
		c.reason[j] = e.Reason
		c.recordTime[j] = int64(e.RecordTime)
	}
	return c
}

// Transfer returns the state of the transfer with trackingID that party
// sends or receives: the one with the latest event when there are several.
func (s *Validator) Transfer(ctx context.Context, party daml.Party, trackingID string) (validator.TransferEvent, error) {
	e, err := s.transferOne(ctx, sqlValTransfer, party, trackingID)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, fault.New(fault.NotFound, "party %s neither sends nor receives a transfer with tracking id %q", party, trackingID)
	}
	return e, err
}

// SentTransfer returns the state of sender's transfer with trackingID.
func (s *Validator) SentTransfer(ctx context.Context, sender daml.Party, trackingID string) (validator.TransferEvent, error) {
	e, err := s.transferOne(ctx, sqlValSent, sender, trackingID)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, fault.New(fault.NotFound, "party %s sends no transfer with tracking id %q", sender, trackingID)
	}
	return e, err
}

// transferOne reads the row of transferColumns query returns; its error is
// pgx.ErrNoRows when there is none.
func (s *Validator) transferOne(ctx context.Context, query string, party daml.Party, trackingID string) (validator.TransferEvent, error) {
	var e validator.TransferEvent
	var seq, rt int64
	var sender, receiver, state, contractID, failureKind string
	err := s.pool.QueryRow(ctx, query, string(party), trackingID).Scan(&seq, &sender, &e.TrackingID,
		&receiver, &state, &e.UpdateID, &contractID, &failureKind, &e.Reason, &rt)
	if errors.Is(err, pgx.ErrNoRows) {
		return validator.TransferEvent{}, err
	}
	if err != nil {
		return validator.TransferEvent{}, interpret(err)
	}
	e.Sender, e.Receiver, e.State = daml.Party(sender), daml.Party(receiver), validator.TransferState(state)
	e.ContractID, e.FailureKind = daml.ContractID(contractID), validator.FailureKind(failureKind)
	e.RecordTime = daml.Timestamp(rt)
	return e, nil
}
