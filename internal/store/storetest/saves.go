package storetest

import (
	"context"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// SavesHarness is what the saves suite needs of an engine: its saves
// adapter and a way to open the live ledger store it saves (on the same
// data at every call: a restore happens while the store is closed).
type SavesHarness struct {
	Saves store.Saves
	// OpenLedger opens the live ledger store.
	OpenLedger func(t *testing.T) ledger.Store
	// Live returns SaveRequest.Live for the open ledger (nil where the
	// adapter copies without the open stores).
	Live func(l ledger.Store) []any
}

// ExerciseSaves runs the saves conformance suite: a save is listed and
// found, its name cannot be taken twice, a restore puts the saved state
// back (twice from one save: a test suite restores before every case),
// the restored store takes writes, a restore given up leaves the live
// store as it is, and a deleted save is gone. What is particular to an
// engine (damaged files, spare copies) is tested beside its adapter.
func ExerciseSaves(t *testing.T, h SavesHarness) {
	ctx := context.Background()
	s := h.Saves
	live := func(l ledger.Store) []any {
		if h.Live == nil {
			return nil
		}
		return h.Live(l)
	}
	l := h.OpenLedger(t)
	SetClockOffset(t, l, 111)
	info, err := s.Save(ctx, store.SaveRequest{Name: "a", Live: live(l)})
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "a" || info.SizeBytes <= 0 || info.CreatedAt.IsZero() {
		t.Errorf("save = %+v", info)
	}
	if _, err := s.Save(ctx, store.SaveRequest{Name: "a", Live: live(l)}); !fault.Is(err, fault.AlreadyExists) {
		t.Errorf("saving a taken name: %v, want already exists", err)
	}
	if got, err := s.Get(ctx, "a"); err != nil || got.Name != "a" || got.SizeBytes != info.SizeBytes {
		t.Errorf("get a = %+v, %v; want %+v", got, err, info)
	}
	if all, err := s.List(ctx); err != nil || len(all) != 1 || all[0].Name != "a" {
		t.Errorf("list = %+v, %v; want a alone", all, err)
	}

	for i := range 2 {
		SetClockOffset(t, l, 222)
		if _, rs, err := s.Prepare(ctx, "a"); err != nil {
			t.Fatal(err)
		} else {
			l.Close()
			if err := rs.Apply(ctx); err != nil {
				t.Fatal(err)
			}
		}
		l = h.OpenLedger(t)
		if got := ClockOffset(t, l); got != 111 {
			t.Fatalf("restore %d: the clock offset is %d, want the saved 111", i, got)
		}
		SetClockOffset(t, l, 333) // the restored store takes writes
	}

	// A restore prepared and given up changes nothing.
	_, rs, err := s.Prepare(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	rs.Discard()
	if got := ClockOffset(t, l); got != 333 {
		t.Errorf("a restore given up changed the live store: clock offset %d, want 333", got)
	}

	if err := s.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"get":     func() error { _, err := s.Get(ctx, "a"); return err }(),
		"restore": func() error { _, _, err := s.Prepare(ctx, "a"); return err }(),
		"delete":  s.Delete(ctx, "a"),
		"unknown": func() error { _, _, err := s.Prepare(ctx, "nope"); return err }(),
	} {
		if !fault.Is(err, fault.NotFound) {
			t.Errorf("%s of a save that is not there: %v, want not found", what, err)
		}
	}
	if all, err := s.List(ctx); err != nil || len(all) != 0 {
		t.Errorf("after the delete: %+v, %v", all, err)
	}
	l.Close()
}

// SetClockOffset writes a ledger store's clock offset: a value the saves
// tests tell a saved state from a later one by.
func SetClockOffset(t *testing.T, l ledger.Store, v int64) {
	t.Helper()
	ctx := context.Background()
	if err := l.Write(ctx, func(w ledger.WriteTx) error { return w.SetClockOffset(ctx, v) }); err != nil {
		t.Fatal(err)
	}
}

// ClockOffset reads a ledger store's clock offset.
func ClockOffset(t *testing.T, l ledger.Store) int64 {
	t.Helper()
	h, err := l.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h.ClockOffset
}
