package ledger

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
)

// Head is the tip of the network as the next commit extends it.
type Head struct {
	// MigrationID is the current hard-migration generation.
	MigrationID int64
	// Sequence counts the updates the network has ordered, over all
	// migrations; update ids derive from it.
	Sequence int64
	// LastRecordTime is the record time of the last update of the current
	// migration, or 0 when there is none.
	LastRecordTime daml.Timestamp
	// ClockOffset is how far the admin API has moved ledger time ahead of
	// wall time, in microseconds. It never decreases.
	ClockOffset int64
	// Offsets holds every participant's last offset (0: none yet).
	Offsets map[ParticipantID]Offset
	// Pruned holds the pruned offset of every participant that has pruned
	// its stream: its ledger API refuses reads that begin before it (see
	// [WriteTx.Prune]). A participant that never pruned has no entry,
	// so Pruned[p] is 0 for it, as it is for a missing participant.
	Pruned map[ParticipantID]Offset
}

// ParticipantUpdate is an update as one participant's stream numbers it.
// Exactly one of Transaction, Topology and Reassignment is set.
type ParticipantUpdate struct {
	Participant ParticipantID
	Offset      Offset
	Transaction *Transaction
	// Topology is a change of party hosting that concerns the participant.
	// It holds every event of the change; a participant's view is the
	// events about itself.
	Topology *TopologyTransaction
	// Reassignment is an unassignment or an assignment of a contract one
	// of the participant's parties is a stakeholder of.
	Reassignment *Reassignment
}

// UpdateID returns the update's id.
func (u *ParticipantUpdate) UpdateID() string {
	if u.Topology != nil {
		return u.Topology.UpdateID
	}
	if u.Reassignment != nil {
		return u.Reassignment.UpdateID
	}
	return u.Transaction.UpdateID
}

// Synchronizer returns the synchronizer that ordered the update.
func (u *ParticipantUpdate) Synchronizer() SynchronizerID {
	if u.Topology != nil {
		return u.Topology.Synchronizer
	}
	if u.Reassignment != nil {
		return u.Reassignment.Synchronizer()
	}
	return u.Transaction.Synchronizer
}

// RecordTime returns the update's record time.
func (u *ParticipantUpdate) RecordTime() daml.Timestamp {
	if u.Topology != nil {
		return u.Topology.RecordTime
	}
	if u.Reassignment != nil {
		return u.Reassignment.RecordTime
	}
	return u.Transaction.RecordTime
}

// ContractFilter selects active contracts. Zero fields do not filter.
type ContractFilter struct {
	// Templates restricts to these templates (matched by module and entity
	// and package name, whatever the package id).
	Templates []TemplateID
	// Stakeholder restricts to contracts this party is a stakeholder of.
	Stakeholder daml.Party
	// After is a keyset cursor: only contracts created after this one, in
	// the store's creation order.
	After daml.ContractID
	// Limit caps the result; 0 means no limit.
	Limit int
}

// UpdateQuery selects a range of one participant's update stream.
type UpdateQuery struct {
	Participant ParticipantID
	// After is exclusive, Until inclusive (0: up to the ledger end).
	After, Until Offset
	Limit        int
	Descending   bool
	// Parties, when not empty, keeps only the updates in which at least one
	// of these parties witnesses some node (is one of the transaction's
	// [Transaction.Informees]) or whose hosting changes (is one of the
	// topology transaction's [TopologyTransaction.Parties]). The store answers it from a per-party
	// index, in offset order and with the same After, Until and Limit, and
	// returns an update once however many of the parties see it. Parties
	// the participant does not host simply match nothing: a transaction is
	// indexed in a stream only under the informees the participant hosted
	// when it was committed (a topology transaction or a reassignment under
	// all its parties).
	Parties []daml.Party
}

// Store is the persistence seam of the network engine. Adapters exist for
// SQLite and PostgreSQL; both pass the same conformance suite
// (internal/store/storetest).
//
// Reads see only committed state. Writes go through [Store.Write], which
// runs one database transaction under the network's single-writer lock, so
// that offsets and record times are allocated in one total order even when
// several processes share one PostgreSQL database.
type Store interface {
	// Write runs fn in the single write transaction and commits it when fn
	// returns nil. Nothing fn wrote survives an error.
	Write(ctx context.Context, fn func(WriteTx) error) error

	// Head returns the committed tip of the network.
	Head(ctx context.Context) (Head, error)
	// Contract returns a contract, active or archived, and whether it is
	// active. A contract never created is a fault.NotFound.
	Contract(ctx context.Context, id daml.ContractID) (*Contract, bool, error)
	// ActiveContracts lists active contracts in creation order.
	ActiveContracts(ctx context.Context, f ContractFilter) ([]*Contract, error)
	// CountActiveContracts counts active contracts.
	CountActiveContracts(ctx context.Context) (int64, error)
	// Transaction returns a committed transaction by update id. The id of
	// a topology transaction is a fault.NotFound.
	Transaction(ctx context.Context, updateID string) (*Transaction, error)
	// Updates returns a range of a participant's stream in offset order.
	// It does not refuse ranges that reach into the pruned part of the
	// stream: pruning keeps the stream's entries, and it returns them.
	// Callers that must refuse such ranges compare them with [Head.Pruned].
	Updates(ctx context.Context, q UpdateQuery) ([]ParticipantUpdate, error)
	// Completions returns a range of a participant's completion stream in
	// offset order: the completions q selects (see [CompletionQuery]). An
	// unknown participant is a fault.NotFound.
	Completions(ctx context.Context, q CompletionQuery) ([]Completion, error)

	// Participants lists the participants in creation order.
	Participants(ctx context.Context) ([]Participant, error)
	// Synchronizers lists the synchronizers in creation order.
	Synchronizers(ctx context.Context) ([]Synchronizer, error)
	// Hostings lists who hosts which party, optionally for one party.
	Hostings(ctx context.Context, party daml.Party) ([]Hosting, error)
	// Users lists a participant's users ordered by id, after a cursor.
	Users(ctx context.Context, p ParticipantID, after string, limit int) ([]User, error)
	// User returns one user; an unknown user is a fault.NotFound.
	User(ctx context.Context, p ParticipantID, id string) (*User, error)
	// Meta reads a network setting; ok is false when it is unset.
	Meta(ctx context.Context, key string) (value string, ok bool, err error)

	// UpdateByID returns the update with this id as participant p's
	// stream holds it, with its offset there. An unknown id, or the id
	// of an update that is not in p's stream, is a fault.NotFound.
	UpdateByID(ctx context.Context, p ParticipantID, updateID string) (*ParticipantUpdate, error)
	// ArchivedBy returns the id of the update that archived a contract,
	// or "" while it is active. A contract never created is a
	// fault.NotFound.
	ArchivedBy(ctx context.Context, id daml.ContractID) (string, error)
	// PartyRecords returns participant p's records of the parties from
	// first to last (inclusive, in party id order).
	PartyRecords(ctx context.Context, p ParticipantID, first, last daml.Party) ([]PartyRecord, error)

	// Close releases the store's resources.
	Close() error
}

// WriteTx is the write side of a [Store], valid inside [Store.Write].
type WriteTx interface {
	// Head returns the tip as this transaction sees it.
	Head(ctx context.Context) (Head, error)
	// Inactive returns those of ids that are not active: archived or never
	// created.
	Inactive(ctx context.Context, ids []daml.ContractID) ([]daml.ContractID, error)
	// AppendTransaction stores a transaction, applies it to the active
	// contract set (creates, consumes) and records it at the given offset
	// in each listed participant's stream. It advances the head: sequence,
	// last record time and the participants' offsets. It also indexes the
	// update under each of the transaction's informees in each listed
	// participant's stream, for [UpdateQuery.Parties].
	AppendTransaction(ctx context.Context, tx *Transaction, offsets map[ParticipantID]Offset) error
	// AppendTopology stores a topology transaction as AppendTransaction
	// stores a transaction (same sequence, head checks and streams), with
	// no effect on the active contract set. It indexes the update under
	// each of the transaction's parties in each listed participant's
	// stream. The hostings themselves are written with PutHosting.
	AppendTopology(ctx context.Context, t *TopologyTransaction, offsets map[ParticipantID]Offset) error
	// AppendReassignment stores one half of a reassignment as
	// AppendTransaction stores a transaction (same sequence, head checks
	// and streams), indexed under the contract's stakeholders in each
	// listed participant's stream. An assignment also replaces the stored
	// contract with r.Contract (its new synchronizer and reassignment
	// counter); the contract must be active (fault.FailedPrecondition
	// otherwise, nothing changed). An unassignment leaves the active
	// contract set as it is.
	AppendReassignment(ctx context.Context, r *Reassignment, offsets map[ParticipantID]Offset) error
	// LastAcceptance returns the deduplication index's entry of a change
	// on a participant, as this transaction sees it: its latest accepted
	// completion. ok is false when the change was never accepted there.
	LastAcceptance(ctx context.Context, p ParticipantID, change ChangeID) (a Acceptance, ok bool, err error)
	// AppendCompletion records a completion at c.Offset in c.Participant's
	// completion stream, indexed under its user and each of its ActAs
	// parties. An accepted completion (Status nil) of a change
	// (c.ChangeID() not empty) also becomes the change's entry in the
	// deduplication index. A completion with an offset after the
	// participant's last offset takes that offset: the participant's last
	// offset advances to it, and since no update is recorded there its
	// update stream has a gap. A rejected completion also advances the
	// head's last record time to c.RecordTime when that is later, so that
	// every update sequenced after it has a later record time. An offset
	// that already has a completion fails the write.
	AppendCompletion(ctx context.Context, c *Completion) error
	// SetClockOffset stores the clock offset. The engine never lowers it.
	SetClockOffset(ctx context.Context, micros int64) error
	// SetMigration starts hard migration id: the head's migration becomes
	// id with no record time yet (LastRecordTime 0, so the next update's
	// record time is not bounded by the previous migration's), and every
	// synchronizer moves to migration id, keeping its id. The sequence,
	// the participants' offsets and the active contract set are not
	// touched. id must be greater than the head's migration
	// (fault.FailedPrecondition otherwise, nothing changed).
	SetMigration(ctx context.Context, id int64) error
	// Prune sets a participant's pruned offset to upTo and records
	// nothing else: the stream's entries (and their per-party index
	// entries) stay, and [Store.Updates] still returns them; the ledger
	// API refuses reads that begin before the pruned offset. The
	// transactions stay too (other participants' streams, Scan and
	// [Store.Transaction] still read them), and the active contract set is
	// not touched. upTo must be positive (fault.InvalidArgument), at most
	// the participant's last offset (fault.OutOfRange) and not before its
	// current pruned offset (fault.InvalidArgument: pruning never goes
	// back); pruning again at the current pruned offset changes nothing.
	// An unknown participant is a fault.NotFound.
	Prune(ctx context.Context, participant ParticipantID, upTo Offset) error

	// PutParticipant adds a participant; adding it again is a no-op.
	PutParticipant(ctx context.Context, p Participant) error
	// PutSynchronizer adds a synchronizer; adding it again is a no-op.
	PutSynchronizer(ctx context.Context, s Synchronizer) error
	// PutHosting records that a participant hosts a party (replacing the
	// permission if it already does).
	PutHosting(ctx context.Context, h Hosting) error
	// DeleteHosting removes the hosting of party on participant on
	// synchronizer s: the participant no longer hosts the party there. A
	// hosting that does not exist is a fault.NotFound.
	DeleteHosting(ctx context.Context, party daml.Party, participant ParticipantID, s SynchronizerID) error
	// PutUser creates or replaces a user with its rights, bumping its
	// resource version.
	PutUser(ctx context.Context, u User) error
	// DeleteUser removes a user; an unknown user is a fault.NotFound.
	DeleteUser(ctx context.Context, p ParticipantID, id string) error
	// SetMeta writes a network setting.
	SetMeta(ctx context.Context, key, value string) error
	// PutPartyRecord creates a participant's record of a party with
	// resource version 0, or replaces it, incrementing its resource
	// version; r.ResourceVersion is ignored.
	PutPartyRecord(ctx context.Context, r PartyRecord) error
}

// PartyRecord is what a participant keeps about a party besides the
// topology: Canton's participant-local party record, which its ledger
// API's party management reads and updates.
type PartyRecord struct {
	Participant ParticipantID
	Party       daml.Party
	// IdentityProviderID is the identity provider the party belongs to
	// on the participant; "" is the default one.
	IdentityProviderID string
	Annotations        map[string]string
	// ResourceVersion is 0 when the record is created and grows with
	// every update.
	ResourceVersion int64
}
