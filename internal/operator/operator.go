// Package operator does what a real network does by itself, or what its
// operators do through their own consoles, on behalf of sandnet's admin API
// and CLI: create users and parties, tap coin, move ledger time, describe
// the network.
package operator

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// NetworkInfo describes a running network.
type NetworkInfo struct {
	DSOParty      daml.Party
	MigrationID   int64
	Now           daml.Timestamp
	ClockOffset   int64
	Synchronizers []ledger.Synchronizer
	// Migrations says where each migration starts in the participants'
	// streams, in migration order (see [ledger.Network.Migrations]).
	Migrations   []ledger.MigrationStart
	Participants []ParticipantInfo
	SVs          []SVInfo
	Users        []UserInfo
	// Validators are the network's validators, the default one first.
	Validators []ValidatorInfo
}

// ParticipantInfo is a participant and the parties it hosts.
type ParticipantInfo struct {
	ledger.Participant
	Parties   []daml.Party
	LedgerEnd ledger.Offset
	// PrunedUpTo is the offset its stream is pruned up to, inclusive (0:
	// nothing pruned).
	PrunedUpTo ledger.Offset
}

// SVInfo is a super validator.
type SVInfo struct {
	Name        string
	Party       daml.Party
	Participant ledger.ParticipantID
}

// ValidatorInfo is a validator node.
type ValidatorInfo struct {
	Name        string
	Party       daml.Party
	Participant ledger.ParticipantID
	// OperatorUser is its validator app's ledger API user.
	OperatorUser string
	// SV is k when it runs on SV k's node, 0 when it has a participant of
	// its own.
	SV int
	// WalletUsers are the users with a wallet seeded on it: the operator
	// user and the operator's further wallet users (their party is the
	// operator's), then the users with parties of their own.
	WalletUsers []WalletUserInfo
}

// WalletUserInfo is a seeded wallet user and its party.
type WalletUserInfo struct {
	Name  string
	Party daml.Party
}

// UserInfo is a ledger API user.
type UserInfo struct {
	ID           string
	Participant  ledger.ParticipantID
	PrimaryParty daml.Party
	Rights       []ledger.Right
	Deactivated  bool
}

// Clock is the network's ledger time and how far it runs ahead of wall
// time.
type Clock struct {
	Now daml.Timestamp
	// Offset is in microseconds.
	Offset int64
}

// Pruned says how far a participant's stream is pruned.
type Pruned struct {
	Participant ledger.ParticipantID
	// UpTo is the pruned offset, inclusive.
	UpTo ledger.Offset
}

// Reassigned is the outcome of a reassignment: its two halves.
type Reassigned struct {
	Unassigned, Assigned *ledger.Reassignment
}

// HostingChange is the outcome of a change of a party's hosting: the
// party's hostings after it and the topology transactions that made it
// (none when nothing changed).
type HostingChange struct {
	Hostings  []ledger.Hosting
	UpdateIDs []string
}
