package ledger

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
)

// Participant is a ledger node. It hosts parties and serves their view of
// the network.
type Participant struct {
	ID   ParticipantID
	Name string
}

// Permission is the level at which a participant hosts a party.
type Permission string

// The hosting permissions, as Canton names them.
const (
	PermissionSubmission   Permission = "Submission"
	PermissionConfirmation Permission = "Confirmation"
	PermissionObservation  Permission = "Observation"
)

// Hosting says that a participant hosts a party on a synchronizer.
type Hosting struct {
	Party        daml.Party
	Participant  ParticipantID
	Synchronizer SynchronizerID
	Permission   Permission
}

// Synchronizer orders transactions. Every contract lives on exactly one.
type Synchronizer struct {
	ID    SynchronizerID
	Alias string
	// MigrationID is the hard-migration generation the synchronizer runs in.
	MigrationID int64
}

// RightKind is a kind of user right on a participant.
type RightKind string

// The user rights the ledger API knows.
const (
	CanActAs              RightKind = "CanActAs"
	CanReadAs             RightKind = "CanReadAs"
	CanReadAsAnyParty     RightKind = "CanReadAsAnyParty"
	CanExecuteAs          RightKind = "CanExecuteAs"
	CanExecuteAsAnyParty  RightKind = "CanExecuteAsAnyParty"
	ParticipantAdmin      RightKind = "ParticipantAdmin"
	IdentityProviderAdmin RightKind = "IdentityProviderAdmin"
)

// PartyRight reports whether rights of this kind name a party.
func (k RightKind) PartyRight() bool {
	return k == CanActAs || k == CanReadAs || k == CanExecuteAs
}

// Right is one right of a user. Party is set for the party rights.
type Right struct {
	Kind  RightKind
	Party daml.Party
}

// User is a ledger API user of one participant. A token's subject names a
// user; the user's rights decide what the token may do.
type User struct {
	ID           string
	Participant  ParticipantID
	PrimaryParty daml.Party
	Deactivated  bool
	Rights       []Right
	Annotations  map[string]string
	// ResourceVersion changes with every update of the user.
	ResourceVersion int64
}

// Has reports whether the user holds the right.
func (u *User) Has(r Right) bool { return slices.Contains(u.Rights, r) }

// CanAct reports whether the user may submit commands as party p.
func (u *User) CanAct(p daml.Party) bool { return u.Has(Right{Kind: CanActAs, Party: p}) }

// CanRead reports whether the user may read party p's data: CanReadAs,
// CanActAs or CanReadAsAnyParty.
func (u *User) CanRead(p daml.Party) bool {
	return u.CanAct(p) || u.Has(Right{Kind: CanReadAs, Party: p}) || u.Has(Right{Kind: CanReadAsAnyParty})
}

// IsAdmin reports whether the user administers the participant.
func (u *User) IsAdmin() bool { return u.Has(Right{Kind: ParticipantAdmin}) }

// TopologyEventKind is the kind of a change of a party's hosting, as a
// participant's stream reports it.
type TopologyEventKind uint8

// The party-to-participant authorization events.
const (
	// AuthorizationAdded: the participant now hosts the party.
	AuthorizationAdded TopologyEventKind = iota + 1
	// AuthorizationChanged: the participant hosts the party with another
	// permission.
	AuthorizationChanged
	// AuthorizationRevoked: the participant no longer hosts the party.
	AuthorizationRevoked
)

// TopologyEvent is one change of who hosts a party.
type TopologyEvent struct {
	Kind        TopologyEventKind
	Party       daml.Party
	Participant ParticipantID
	// Permission is the new permission; empty for a revocation.
	Permission Permission
}

// TopologyTransaction is a committed change of party hosting. The
// sequencer orders it like a transaction: it has an update id, a record
// time (which is also when it takes effect) and an offset in the stream of
// every participant whose hosting it changes.
type TopologyTransaction struct {
	UpdateID     string
	Synchronizer SynchronizerID
	MigrationID  int64
	RecordTime   daml.Timestamp
	Events       []TopologyEvent
}

// Parties returns the parties of the events, sorted and distinct.
func (t *TopologyTransaction) Parties() []daml.Party {
	ps := make([]daml.Party, 0, len(t.Events))
	for _, e := range t.Events {
		ps = append(ps, e.Party)
	}
	return union(ps)
}

// Participants returns the participants of the events, sorted and
// distinct: the streams the transaction goes to.
func (t *TopologyTransaction) Participants() []ParticipantID {
	ps := make([]ParticipantID, 0, len(t.Events))
	for _, e := range t.Events {
		ps = append(ps, e.Participant)
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}
