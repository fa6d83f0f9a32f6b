package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// TestSavesConformance runs the saves suite every engine passes.
func TestSavesConformance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, prefix := newPrefix(t)
	s, err := OpenSaves(ctx, url, prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.ExerciseSaves(t, storetest.SavesHarness{
		Saves: s,
		OpenLedger: func(t *testing.T) ledger.Store {
			l, err := OpenLedger(ctx, url, prefix+"_ledger")
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}

// TestSaves saves a ledger, changes it and restores it twice: once by
// renaming the save's spare schemas in (waited for), once right after,
// when the spare is still being made (given up: the restore copies).
// Then the replaced schemas are dropped in the background, and deleting
// the save drops its schemas, spare included.
func TestSaves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, prefix := newPrefix(t)
	schemas := func(like string) []string { return schemasLike(t, url, like) }
	open := func() *Ledger {
		l, err := OpenLedger(ctx, url, prefix+"_ledger")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	s, err := OpenSaves(ctx, url, prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spare := func() bool {
		var ready bool
		if err := s.pool.QueryRow(ctx, `SELECT spare FROM `+s.catalog()+` WHERE name = 'a'`).Scan(&ready); err != nil {
			t.Fatal(err)
		}
		return ready
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waited a minute for %s", what)
			}
		}
	}

	l := open()
	storetest.SetClockOffset(t, l, 111)
	if _, err := s.Save(ctx, store.SaveRequest{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	waitFor("the spare", spare)
	for i := range 2 {
		storetest.SetClockOffset(t, l, 222)
		_, rs, err := s.Prepare(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		if err := rs.Apply(ctx); err != nil {
			t.Fatal(err)
		}
		l = open()
		if got := storetest.ClockOffset(t, l); got != 111 {
			t.Fatalf("restore %d: the clock offset is %d, want the saved 111", i, got)
		}
		// The restored store takes writes (its identity sequences moved
		// with it, or were set).
		storetest.SetClockOffset(t, l, 333)
	}
	l.Close()
	waitFor("the spare again", spare)
	waitFor("the replaced schemas dropped", func() bool { return len(schemas(prefix+`\_old%`)) == 0 })
	if err := s.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got := schemas(prefix + `\_save%\_%`); len(got) != 0 {
		t.Errorf("after the delete schemas %v are left", got)
	}
}

// newPrefix names a fresh schema prefix for a saves test and drops every
// schema under it (live, saved, spare, replaced) when the test ends.
func newPrefix(t *testing.T) (url, prefix string) {
	t.Helper()
	url = databaseURL(t)
	var b [4]byte
	rand.Read(b[:])
	prefix = "sandnet_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		for _, n := range schemasLike(t, url, prefix+`\_%`) {
			_, _ = conn.Exec(ctx, `DROP SCHEMA `+ident(n)+` CASCADE`)
		}
	})
	return url, prefix
}

// schemasLike lists the schemas whose names are LIKE the pattern.
func schemasLike(t *testing.T, url, like string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 ORDER BY 1`, like)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}
