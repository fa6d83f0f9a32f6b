package ledger

import (
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
)

// TemplateID names a template by package id, module and entity, and carries
// the package name that filters use ("#splice-amulet:Splice.Amulet:Amulet").
type TemplateID struct {
	daml.Identifier
	PackageName string
}

// Contract is a contract instance: what a created event creates and what the
// active contract set holds.
type Contract struct {
	ID          daml.ContractID
	Template    TemplateID
	Argument    *daml.Record
	Signatories []daml.Party
	// Observers are the stakeholders that are not signatories: Daml-LF
	// keeps only signatories and stakeholders, and Canton's
	// CreatedEvent.observers "never contains parties that are
	// signatories", so a party a template names as both is a signatory
	// only (see observersOf).
	Observers []daml.Party
	// CreatedAt is the ledger effective time of the creating transaction.
	CreatedAt daml.Timestamp
	// CreatedBy is the update that created the contract.
	CreatedBy string
	// Synchronizer is the synchronizer the contract lives on.
	Synchronizer SynchronizerID
	// MigrationID is the migration the contract was created in.
	MigrationID int64
	// ReassignmentCounter counts the contract's unassignments: 0 at
	// creation (and in every created event of a transaction).
	ReassignmentCounter int64
}

// Stakeholders returns the signatories and observers, sorted and distinct.
func (c *Contract) Stakeholders() []daml.Party {
	return union(c.Signatories, c.Observers)
}

// Event is one node of a transaction tree. Exactly one of Created and
// Exercised is set.
type Event struct {
	// NodeID is the node's position in the tree, numbered in pre-order from
	// 0 over the roots and their descendants.
	NodeID    int32
	Created   *Contract
	Exercised *Exercised
	// Witnesses are all parties who see this node: its informees and those
	// of every ancestor, sorted. A participant's view of a transaction is
	// the nodes witnessed by the parties it hosts.
	Witnesses []daml.Party
}

// Exercised is an exercise node.
type Exercised struct {
	ContractID daml.ContractID
	Template   TemplateID
	// Interface is set when the choice was exercised through an interface.
	Interface      *daml.Identifier
	Choice         string
	ChoiceArgument daml.Value
	ActingParties  []daml.Party
	Consuming      bool
	// Children are the node ids of the direct children, in execution order.
	Children []int32
	// LastDescendant is the node id of the last node of this subtree.
	LastDescendant int32
	ExerciseResult daml.Value
	// Stakeholders of the exercised contract; an archive under the
	// ACS_DELTA shape is visible to them.
	Stakeholders []daml.Party
}

// TraceContext is a W3C trace context, carried from the submitting request
// into the update it produced.
type TraceContext struct {
	TraceParent string
	TraceState  string
}

// Submission says who submitted a transaction; the ledger API shows the
// command id only to the submitting parties on the submitting participant.
type Submission struct {
	Participant ParticipantID
	UserID      string
	ActAs       []daml.Party
	CommandID   string
}

// Transaction is a committed transaction tree.
type Transaction struct {
	UpdateID     string
	WorkflowID   string
	Submission   Submission
	Synchronizer SynchronizerID
	MigrationID  int64
	// RecordTime is the synchronizer's sequencing time: unique and strictly
	// increasing within a migration.
	RecordTime daml.Timestamp
	// EffectiveAt is the ledger effective time the choices ran at.
	EffectiveAt daml.Timestamp
	// Events are the nodes indexed by NodeID.
	Events       []Event
	Roots        []int32
	TraceContext TraceContext
	// ExternalHash is the hash an external party signed, for a
	// transaction executed from an interactive submission (Canton's
	// external_transaction_hash); nil otherwise.
	ExternalHash []byte
	// NodeSeeds are the seeds of the nodes, by node id, from which the
	// contract ids were derived when the command was interpreted (what a
	// prepared transaction shows). They are set on the transaction Submit
	// returns and not stored: a transaction read back has none.
	NodeSeeds []NodeSeed
}

// Informees returns every party that witnesses at least one node.
func (t *Transaction) Informees() []daml.Party {
	var all []daml.Party
	for i := range t.Events {
		all = append(all, t.Events[i].Witnesses...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// Created returns the contracts the transaction creates, in node order.
func (t *Transaction) Created() []*Contract {
	var out []*Contract
	for i := range t.Events {
		if c := t.Events[i].Created; c != nil {
			out = append(out, c)
		}
	}
	return out
}

// Consumed returns the ids of the contracts the transaction archives, in
// node order.
func (t *Transaction) Consumed() []daml.ContractID {
	var out []daml.ContractID
	for i := range t.Events {
		if e := t.Events[i].Exercised; e != nil && e.Consuming {
			out = append(out, e.ContractID)
		}
	}
	return out
}

// union returns the sorted, distinct union of party lists.
func union(lists ...[]daml.Party) []daml.Party {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]daml.Party, 0, n)
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// observersOf returns a contract's observers given its signatories and the
// observers its template names: those that are not signatories, sorted
// and distinct.
func observersOf(signatories, observers []daml.Party) []daml.Party {
	return slices.DeleteFunc(union(observers), func(p daml.Party) bool {
		return slices.Contains(signatories, p)
	})
}

// Final returns the committed id of a contract a command created, given
// the id the command saw for it while it ran (Create and choice results
// inside a Tx return unsuffixed ids; the sequencer suffixes them when it
// orders the transaction). Any other id is returned unchanged.
func (t *Transaction) Final(id daml.ContractID) daml.ContractID {
	if !isUnsuffixed(id) {
		return id
	}
	for _, c := range t.Created() {
		if strings.HasPrefix(string(c.ID), string(id)) {
			return c.ID
		}
	}
	return id
}
