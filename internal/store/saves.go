package store

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Saves: a save is a copy of every store of a network (the ledger's,
// every Scan's, every validator's) taken together, which the network can
// later be put back to, as many times as wanted (a test suite saves once
// and restores before each case). They are not the Scan's ACS snapshots.
// The adapters keep them apart from the live stores: SQLite under
// <data-dir>/saves/<name>/, PostgreSQL in schemas of their own.

// SaveInfo describes a save.
type SaveInfo struct {
	Name string
	// CreatedAt is the wall time the save was taken.
	CreatedAt time.Time
	// LedgerTime is the network's ledger time when it was taken.
	LedgerTime daml.Timestamp
	// LedgerEnd is the ledger end offset of the participant the save was
	// asked for (the validator's).
	LedgerEnd int64
	// SizeBytes is the size of the saved data.
	SizeBytes int64
}

// NewSaveInfo describes a save of a ledger whose head, read at wall time
// at, is head: its ledger time is the clock's then (wall time plus the
// stored offset, never before the last record time).
func NewSaveInfo(name string, head ledger.Head, participant ledger.ParticipantID, at time.Time, size int64) SaveInfo {
	return SaveInfo{
		Name: name, CreatedAt: at.UTC().Truncate(time.Millisecond),
		LedgerTime: max(daml.Timestamp(at.UnixMicro()+head.ClockOffset), head.LastRecordTime),
		LedgerEnd:  int64(head.Offsets[participant]), SizeBytes: size,
	}
}

// SortSaves orders saves oldest first (then by name).
func SortSaves(s []SaveInfo) {
	slices.SortFunc(s, func(a, b SaveInfo) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

var saveName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// CheckSaveName returns a fault.InvalidArgument unless name is a valid
// save name: 1 to 63 of a-z, 0-9, '.', '_', '-', starting with a letter or
// a digit (so that it is a file name and fits in a schema name).
func CheckSaveName(name string) error {
	if !saveName.MatchString(name) {
		return fault.New(fault.InvalidArgument, "invalid save name %s: want 1 to 63 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or a digit", fault.Quote(name))
	}
	return nil
}

// SaveNotFound is the error for a save that does not exist.
func SaveNotFound(name string) error {
	return fault.New(fault.NotFound, "there is no save named %s", fault.Quote(name))
}

// SaveExists is the error for a save name taken already.
func SaveExists(name string) error {
	return fault.New(fault.AlreadyExists, "a save named %s exists already: delete it first or choose another name", fault.Quote(name))
}

// SaveCorrupt is the error for a save that cannot be restored as it is;
// the live network is left as it was.
func SaveCorrupt(name, format string, args ...any) error {
	return fault.New(fault.FailedPrecondition, "save %s is damaged and cannot be restored (the network is unchanged): %s",
		fault.Quote(name), fault.Clip(strings.TrimSpace(fmt.Sprintf(format, args...))))
}

// SaveRequest asks an adapter for a save.
type SaveRequest struct {
	Name string
	// Participant is the participant whose ledger end the save records.
	Participant ledger.ParticipantID
	// Live are the network's open stores, for an adapter that copies
	// through them (SQLite: it holds each one's writer while it copies its
	// file). The adapter copies every derived store (Scans, validators)
	// before the ledger, so that none is ahead of the ledger saved with it.
	Live []any
}

// Saves is what an adapter offers for saves. A restore is in two steps:
// Prepare checks the save (and stages what it can) without touching the
// live data, while the network still runs; the returned Restore puts it
// in place once the network's stores are closed.
type Saves interface {
	Save(ctx context.Context, req SaveRequest) (SaveInfo, error)
	List(ctx context.Context) ([]SaveInfo, error)
	Get(ctx context.Context, name string) (SaveInfo, error)
	Delete(ctx context.Context, name string) error
	Prepare(ctx context.Context, name string) (SaveInfo, Restore, error)
	// Close ends the adapter's background work and connections.
	Close()
}

// Restore puts a prepared save in place of the live stores, which must be
// closed; Discard gives up a prepared restore.
type Restore interface {
	Apply(ctx context.Context) error
	Discard()
}
