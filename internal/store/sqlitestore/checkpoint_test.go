package sqlitestore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/ledger"
)

// A commit reaches the database file without a later commit and without
// the WAL filling up: the background checkpoint copies it there.
func TestCommitsAreCheckpointed(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l := openAt(t, path)
	size := func() int64 {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	time.Sleep(100 * time.Millisecond) // the migrations' checkpoint, if any
	before := size()
	// About 200 pages: far below the writer's own automatic checkpoint.
	err := l.Write(t.Context(), func(w ledger.WriteTx) error {
		if err := w.PutParticipant(t.Context(), ledger.Participant{ID: "p", Name: "p"}); err != nil {
			return err
		}
		for i := range 200 {
			u := ledger.User{ID: fmt.Sprintf("user-%d", i), Participant: "p", Annotations: map[string]string{"a": strings.Repeat("x", 3000)}}
			if err := w.PutUser(t.Context(), u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for size() <= before {
		if time.Now().After(deadline) {
			t.Fatalf("the database file is still %d bytes 10 s after the commit", before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
