package store

import (
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

func TestCheckSaveName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"before-test", true}, {"a", true}, {"0", true}, {"v1.2_rc-3", true}, {strings.Repeat("a", 63), true},
		{"", false}, {strings.Repeat("a", 64), false}, {"Before", false}, {"-x", false}, {".x", false}, {"_x", false},
		{"a/b", false}, {"a b", false}, {"..", false}, {"ü", false}, {"a\x00", false}, {"a\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckSaveName(tc.name)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckSaveName(%q) = %v, want ok=%t", tc.name, err, tc.ok)
			}
			if err != nil && !fault.Is(err, fault.InvalidArgument) {
				t.Errorf("error %v is not an invalid argument", err)
			}
		})
	}
}

func TestNewSaveInfo(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 9, 0, 0, 123456789, time.UTC)
	p := ledger.ParticipantID("PAR::validator::1220ab")
	for _, tc := range []struct {
		name     string
		head     ledger.Head
		wantTime daml.Timestamp
		wantEnd  int64
	}{
		{"the clock's offset counts", ledger.Head{ClockOffset: 3_600_000_000, Offsets: map[ledger.ParticipantID]ledger.Offset{p: 15}},
			daml.Timestamp(at.UnixMicro() + 3_600_000_000), 15},
		{"never before the last record", ledger.Head{ClockOffset: -7_200_000_000, LastRecordTime: daml.Timestamp(at.UnixMicro() + 5)},
			daml.Timestamp(at.UnixMicro() + 5), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := NewSaveInfo("s", tc.head, p, at, 42)
			if got.LedgerTime != tc.wantTime || got.LedgerEnd != tc.wantEnd || got.SizeBytes != 42 || !got.CreatedAt.Equal(at.Truncate(time.Millisecond)) {
				t.Errorf("NewSaveInfo = %+v, want ledger time %d, end %d", got, tc.wantTime, tc.wantEnd)
			}
		})
	}
}

func TestSaveErrorsKinds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		kind fault.Kind
	}{
		{SaveNotFound("x"), fault.NotFound}, {SaveExists("x"), fault.AlreadyExists},
		{SaveCorrupt("x", "ledger.db is missing"), fault.FailedPrecondition},
	} {
		if got := fault.KindOf(tc.err); got != tc.kind {
			t.Errorf("%v: kind %v, want %v", tc.err, got, tc.kind)
		}
	}
}
