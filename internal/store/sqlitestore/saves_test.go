package sqlitestore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// TestSavesConformance runs the saves suite every engine passes.
func TestSavesConformance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewSaves(dir)
	defer s.Close()
	storetest.ExerciseSaves(t, storetest.SavesHarness{
		Saves: s,
		OpenLedger: func(t *testing.T) ledger.Store {
			l, err := OpenLedger(context.Background(), filepath.Join(dir, "ledger.db"))
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		Live: func(l ledger.Store) []any { return []any{l} },
	})
}

// TestSaves saves a ledger and a Scan store, changes the ledger, restores
// it from the spare copy or not, whichever is there, and refuses a
// damaged save without touching the live files.
func TestSaves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	open := func() (*Ledger, *Scan) {
		l, err := OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := OpenScan(ctx, filepath.Join(dir, "scan.db"))
		if err != nil {
			t.Fatal(err)
		}
		return l, sc
	}
	l, sc := open()
	storetest.SetClockOffset(t, l, 111)
	s := NewSaves(dir)
	defer s.Close()
	info, err := s.Save(ctx, store.SaveRequest{Name: "a", Live: []any{l, sc}})
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "a" || info.SizeBytes == 0 {
		t.Fatalf("save = %+v", info)
	}
	storetest.SetClockOffset(t, l, 222)
	_, rs, err := s.Prepare(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	sc.Close()
	if err := rs.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	l, sc = open()
	if got := storetest.ClockOffset(t, l); got != 111 {
		t.Fatalf("after the restore the clock offset is %d, want the saved 111", got)
	}

	for _, name := range []string{"../a", ""} {
		if _, _, err := s.Prepare(ctx, name); !fault.Is(err, fault.NotFound) {
			t.Errorf("restore %q: %v, want not found", name, err)
		}
	}
	// A damaged save is refused, the live data untouched.
	f, err := os.OpenFile(filepath.Join(dir, "saves", "a", "scan.db"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff}, 100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	storetest.SetClockOffset(t, l, 333)
	if _, _, err := s.Prepare(ctx, "a"); !fault.Is(err, fault.FailedPrecondition) || !strings.Contains(err.Error(), "scan.db has changed") {
		t.Errorf("restore of a damaged save: %v", err)
	}
	if got := storetest.ClockOffset(t, l); got != 333 {
		t.Errorf("a refused restore changed the live ledger: offset %d", got)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, restorePrefix+"*")); len(leftovers) != 0 {
		t.Errorf("a refused restore left %v", leftovers)
	}
	if err := s.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if all, err := s.List(ctx); err != nil || len(all) != 0 {
		t.Errorf("after delete: %v %v", all, err)
	}
	l.Close()
	sc.Close()
}
