package validator

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// TransferState is where a direct transfer offer stands, as
// POST /v0/wallet/transfer-offers/{tracking_id}/status reports it.
type TransferState string

// The states of a transfer offer.
const (
	// TransferCreated: the offer exists and the receiver has not acted.
	TransferCreated TransferState = "created"
	// TransferAccepted: the receiver accepted; the sender's wallet has yet
	// to complete it.
	TransferAccepted TransferState = "accepted"
	// TransferCompleted: the amount moved to the receiver.
	TransferCompleted TransferState = "completed"
	// TransferFailed: rejected, withdrawn (also when the sender lacked the
	// funds) or expired.
	TransferFailed TransferState = "failed"
)

// FailureKind says why a transfer failed.
type FailureKind string

// The ways a transfer fails.
const (
	FailureExpired   FailureKind = "expired"
	FailureRejected  FailureKind = "rejected"
	FailureWithdrawn FailureKind = "withdrawn"
)

// TransferEvent is a step of a direct transfer offer as the validator's
// transaction log records it, read from its participant's stream: every
// step is a ledger transaction, so the log survives crashes of the
// validator and never disagrees with the ledger.
type TransferEvent struct {
	TrackingID string
	Sender     daml.Party
	Receiver   daml.Party
	State      TransferState
	// UpdateID is the transaction of this step.
	UpdateID string
	// ContractID is the offer (created), the accepted offer (accepted) or
	// the receiver's new amulet (completed); empty when failed.
	ContractID daml.ContractID
	// FailureKind and Reason are set when State is TransferFailed.
	FailureKind FailureKind
	Reason      string
	RecordTime  daml.Timestamp
}

// Store is the validator's own database: the cursor of its participant's
// stream and the transaction log built from it. Adapters exist for SQLite
// and PostgreSQL and pass the same suite (internal/store/storetest).
type Store interface {
	// Cursor returns the last participant offset ingested (0: none).
	Cursor(ctx context.Context) (ledger.Offset, error)
	// Ingest records events (in stream order) and moves the cursor from
	// prev to next in one transaction. It fails with fault.Aborted and
	// stores nothing when the stored cursor is not prev, and with
	// fault.InvalidArgument when an event fails [TransferEvent.Check]. For
	// each (sender, tracking id) the last event recorded is the transfer's
	// state.
	Ingest(ctx context.Context, prev, next ledger.Offset, events []TransferEvent) error
	// Transfer returns the state of the transfer with trackingID that
	// party sends or receives (the latest recorded, when several senders
	// used the id with this receiver); fault.NotFound when there is none.
	Transfer(ctx context.Context, party daml.Party, trackingID string) (TransferEvent, error)
	// SentTransfer returns the state of sender's transfer with trackingID;
	// fault.NotFound when sender never used it.
	SentTransfer(ctx context.Context, sender daml.Party, trackingID string) (TransferEvent, error)
	// Close releases the store's resources.
	Close() error
}
