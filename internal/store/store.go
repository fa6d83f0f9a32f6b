package store

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Leader is implemented by both adapters' *Ledger. Automation that must run
// on one process only (expiring offers, advancing rounds) asks for
// leadership before it acts, so that several sandnet processes sharing one
// PostgreSQL database do not act twice. SQLite admits one process per file
// anyway, so there the only contender is another caller in the same
// process.
type Leader interface {
	// TryLead tries once, without waiting, to become the leader. ok is false
	// when someone else leads. On success leadership lasts until ctx is done,
	// the store is closed, or the store can no longer prove it still holds
	// it (PostgreSQL: the connection holding the lock failed); lost is
	// closed then, after the lock has been released, so a caller that
	// cancels ctx and waits for lost may immediately try again.
	//
	// ctx bounds the leadership, not only the attempt: pass the context of
	// the work done as leader.
	TryLead(ctx context.Context) (lost <-chan struct{}, ok bool, err error)
}

// Error codes the adapters report. They are Canton's codes for the same
// situations, so that the API layers can serve them as they are.
const (
	// CodeInactiveContracts is Canton's code for a transaction that consumes
	// a contract that is no longer active when it is sequenced.
	CodeInactiveContracts = "LOCAL_VERDICT_INACTIVE_CONTRACTS"
	// CodeContractNotFound is Canton's code for an unknown contract id.
	CodeContractNotFound = "CONTRACT_NOT_FOUND"
	// CodeUpdateNotFound is Canton's code for an unknown update id.
	CodeUpdateNotFound = "UPDATE_NOT_FOUND"
	// CodeUserNotFound is Canton's code for an unknown user.
	CodeUserNotFound = "USER_NOT_FOUND"
)

// InactiveContract is the error for consuming a contract that is not
// active. The engine checks [ledger.WriteTx.Inactive] before it appends,
// but the adapters enforce consume-at-most-once themselves with a
// conditional update, so that no engine bug can archive a contract twice.
func InactiveContract(id daml.ContractID) error {
	return &fault.Error{
		Kind:    fault.Aborted,
		Code:    CodeInactiveContracts,
		Message: fmt.Sprintf("The following contracts are inactive: %s", id),
		Context: map[string]string{"contractId": string(id)},
	}
}

// ContractNotFound is the error for an unknown contract id.
func ContractNotFound(id daml.ContractID) error {
	return fault.WithCode(fault.NotFound, CodeContractNotFound, "contract %s not found", fault.Clip(string(id)))
}

// UpdateNotFound is the error for an unknown update id.
func UpdateNotFound(id string) error {
	return fault.WithCode(fault.NotFound, CodeUpdateNotFound, "update %s not found", fault.Clip(id))
}

// UserNotFound is the error for an unknown user of a participant.
func UserNotFound(p ledger.ParticipantID, id string) error {
	return fault.WithCode(fault.NotFound, CodeUserNotFound, "user %s not found on participant %s", fault.Quote(id), fault.Clip(string(p)))
}

// HostingNotFound is the error for removing a hosting that does not
// exist.
func HostingNotFound(party daml.Party, p ledger.ParticipantID, s ledger.SynchronizerID) error {
	return fault.New(fault.NotFound, "party %s is not hosted on participant %s on synchronizer %s", fault.Clip(string(party)), fault.Clip(string(p)), fault.Clip(string(s)))
}

// NoLedger is the error of a read-only lookup ([sqlitestore.UserExists],
// [pgstore.UserExists]) where no ledger was ever created: no database
// file, or no schema with its tables.
func NoLedger(where string) error {
	return fault.New(fault.NotFound, "no ledger at %s", where)
}

// ParticipantNotFound is the error for an unknown participant.
func ParticipantNotFound(p ledger.ParticipantID) error {
	return fault.New(fault.NotFound, "participant %s not found", fault.Clip(string(p)))
}

// CursorNotFound is the error for a keyset cursor naming a contract the
// store never saw: silently answering an empty page would look like the
// end of the list.
func CursorNotFound(id daml.ContractID) error {
	return fault.New(fault.InvalidArgument, "cursor contract %s not found", fault.Clip(string(id)))
}

// OutOfOrder explains why head refuses tx: the record time must increase
// strictly within a migration and migrations never go back. It returns nil
// when head accepts tx.
func OutOfOrder(head ledger.Head, tx *ledger.Transaction) error {
	switch {
	case tx.MigrationID < head.MigrationID:
		return fault.New(fault.FailedPrecondition,
			"update %s: migration %d is before the current migration %d", tx.UpdateID, tx.MigrationID, head.MigrationID)
	case tx.MigrationID == head.MigrationID && tx.RecordTime <= head.LastRecordTime:
		return fault.New(fault.FailedPrecondition,
			"update %s: record time %d is not after the last record time %d of migration %d",
			tx.UpdateID, tx.RecordTime, head.LastRecordTime, head.MigrationID)
	}
	return nil
}

// MigrationNotAfter is the error for starting a migration that is not
// after the current one: migrations never go back or repeat.
func MigrationNotAfter(id int64) error {
	return fault.New(fault.FailedPrecondition, "migration %d is not after the current migration", id)
}

// OffsetNotAfter is the error for an offset that does not extend a
// participant's stream.
func OffsetNotAfter(p ledger.ParticipantID, off, last ledger.Offset) error {
	return fault.New(fault.FailedPrecondition,
		"participant %s: offset %d is not after its last offset %d", p, off, last)
}

// PruneRefused explains why a participant whose pruned offset is pruned
// and whose last offset is last cannot prune up to upTo, and returns nil
// when it can. Both adapters use it, so that they refuse alike.
func PruneRefused(p ledger.ParticipantID, upTo, pruned, last ledger.Offset) error {
	switch {
	case upTo <= 0:
		return fault.New(fault.InvalidArgument, "participant %s: prune offset %d is not positive", fault.Clip(string(p)), upTo)
	case upTo > last:
		return fault.New(fault.OutOfRange,
			"participant %s: prune offset %d is after its ledger end %d", p, upTo, last)
	case upTo < pruned:
		return fault.New(fault.InvalidArgument,
			"participant %s: prune offset %d is before its pruned offset %d: pruning never goes back", p, upTo, pruned)
	}
	return nil
}

// SortedOffsets returns the entries of offsets ordered by participant id, so
// that adapters write them in a deterministic order.
func SortedOffsets(offsets map[ledger.ParticipantID]ledger.Offset) []ParticipantOffset {
	out := make([]ParticipantOffset, 0, len(offsets))
	for p, o := range offsets {
		out = append(out, ParticipantOffset{p, o})
	}
	slices.SortFunc(out, func(a, b ParticipantOffset) int { return strings.Compare(string(a.Participant), string(b.Participant)) })
	return out
}

// ParticipantOffset is one entry of the offsets given to
// [ledger.WriteTx.AppendTransaction].
type ParticipantOffset struct {
	Participant ledger.ParticipantID
	Offset      ledger.Offset
}

// Migration is one embedded schema migration: a file named
// "NNNN_name.sql" whose statements run in one transaction.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// ReadMigrations reads the migrations in dir of fsys, ordered by version.
// Versions must be distinct; numbering is shared across engines so that
// version n means the same schema on both.
func ReadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", name)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: strings.TrimSuffix(name, ".sql"), SQL: string(b)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", out[i-1].Name, out[i].Name, out[i].Version)
		}
	}
	return out, nil
}

// Pending returns the migrations not yet applied. A database that has a
// version this binary does not know was written by a newer sandnet; opening
// it would risk corrupting it, so that is an error.
func Pending(all []Migration, applied []int) ([]Migration, error) {
	known := make(map[int]bool, len(all))
	for _, m := range all {
		known[m.Version] = true
	}
	done := make(map[int]bool, len(applied))
	for _, v := range applied {
		if !known[v] {
			return nil, fault.New(fault.FailedPrecondition,
				"database has schema version %d, which this sandnet does not know: it was written by a newer release", v)
		}
		done[v] = true
	}
	var out []Migration
	for _, m := range all {
		if !done[m.Version] {
			out = append(out, m)
		}
	}
	return out, nil
}

// EncodeAnnotations renders user annotations as the JSON object both
// adapters store; nil and empty maps both become "{}".
func EncodeAnnotations(a map[string]string) (string, error) {
	if len(a) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(a)
	return string(b), err
}

// DecodeAnnotations reverses [EncodeAnnotations]; "{}" becomes nil, so that
// a user read back equals the user written.
func DecodeAnnotations(s string) (map[string]string, error) {
	var a map[string]string
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, fmt.Errorf("decode annotations: %w", err)
	}
	if len(a) == 0 {
		return nil, nil
	}
	return a, nil
}

// Missing returns the ids that are not in active, in the order given and
// each once: the answer of [ledger.WriteTx.Inactive] once an adapter has
// looked up which of ids are active.
func Missing(ids []daml.ContractID, active map[daml.ContractID]bool) []daml.ContractID {
	var out []daml.ContractID
	seen := map[daml.ContractID]bool{}
	for _, id := range ids {
		if !active[id] && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// TemplateKey is what a template filter matches on: the package name, the
// module and the entity. The package id is ignored, so that a filter
// matches every version of an upgraded package.
type TemplateKey struct {
	PackageName, ModuleName, EntityName string
}

// TemplateKeys returns the distinct keys of ts, in the order given, so that
// a filter naming two versions of one template matches each contract once.
func TemplateKeys(ts []ledger.TemplateID) []TemplateKey {
	var out []TemplateKey
	for _, t := range ts {
		k := TemplateKey{t.PackageName, t.ModuleName, t.EntityName}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Parties returns the distinct parties of an [ledger.UpdateQuery.Parties]
// filter, sorted, as strings, so that a party named twice is one arm of the
// query.
func Parties(ps []daml.Party) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// PartyRecord builds a [ledger.PartyRecord] from the columns both adapters
// store it in.
func PartyRecord(participant, party, idp, annotations string, version int64) (ledger.PartyRecord, error) {
	ann, err := DecodeAnnotations(annotations)
	if err != nil {
		return ledger.PartyRecord{}, err
	}
	return ledger.PartyRecord{
		Participant: ledger.ParticipantID(participant), Party: daml.Party(party),
		IdentityProviderID: idp, Annotations: ann, ResourceVersion: version,
	}, nil
}
