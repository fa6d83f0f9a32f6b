package store

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/fault"
)

func TestReadMigrations(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_users.sql":   {Data: []byte("B")},
		"m/0001_init.sql":    {Data: []byte("A")},
		"m/0010_later.sql":   {Data: []byte("C")},
		"m/README.md":        {Data: []byte("ignored")},
		"bad/init.sql":       {Data: []byte("x")},
		"dup/0001_a.sql":     {Data: []byte("x")},
		"dup/001_b.sql":      {Data: []byte("y")},
		"zero/0000_none.sql": {Data: []byte("x")},
	}
	got, err := ReadMigrations(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	want := []Migration{{1, "0001_init", "A"}, {2, "0002_users", "B"}, {10, "0010_later", "C"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, dir := range []string{"bad", "dup", "zero", "missing"} {
		if _, err := ReadMigrations(fsys, dir); err == nil {
			t.Errorf("ReadMigrations(%s) accepted", dir)
		}
	}
}

func TestPending(t *testing.T) {
	all := []Migration{{Version: 1}, {Version: 2}, {Version: 3}}
	got, err := Pending(all, []int{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Migration{{Version: 2}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := Pending(all, []int{1, 4}); !fault.Is(err, fault.FailedPrecondition) {
		t.Errorf("unknown applied version: error = %v; want FailedPrecondition", err)
	}
}
