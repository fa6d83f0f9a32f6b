package sqlitestore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// openAt opens the ledger at path and closes it when the test ends.
func openAt(t testing.TB, path string) *sqlitestore.Ledger {
	t.Helper()
	l, err := sqlitestore.OpenLedger(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return l
}

func open(t *testing.T) ledger.Store {
	return openAt(t, filepath.Join(t.TempDir(), "ledger.db"))
}

func reopen(t *testing.T, s ledger.Store) ledger.Store {
	l := s.(*sqlitestore.Ledger)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return openAt(t, l.Path())
}

func TestLedger(t *testing.T) {
	storetest.Exercise(t, open, reopen)
}

// TestSecondOpenRefused checks the data directory lock: a second store on
// the same file fails clearly while the first is open (flock conflicts
// between descriptors even within one process), and succeeds after it is
// closed.
func TestSecondOpenRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.db")
	first, err := sqlitestore.OpenLedger(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlitestore.OpenLedger(t.Context(), path)
	if !fault.Is(err, fault.FailedPrecondition) || !strings.Contains(err.Error(), "data directory is in use by another sandnet process") {
		t.Fatalf("second open: error = %v; want the data directory to be in use", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	openAt(t, path)
}

func BenchmarkAppendTransaction(b *testing.B) {
	storetest.BenchmarkAppend(b, openAt(b, filepath.Join(b.TempDir(), "ledger.db")), 1)
}

func BenchmarkAppendTransactionParallel(b *testing.B) {
	storetest.BenchmarkAppend(b, openAt(b, filepath.Join(b.TempDir(), "ledger.db")), 16)
}

// TestConcurrentReadTransactionsDoNotDeadlock runs many reads that each
// hold a read transaction at once on a fresh store, whose statement cache
// is empty. Preparing a statement on the pool from inside a transaction
// needed a second connection; with every pooled connection held by such a
// transaction, all of them waited forever (seen as a hung e2e test).
func TestConcurrentReadTransactionsDoNotDeadlock(t *testing.T) {
	t.Parallel()
	l := openAt(t, filepath.Join(t.TempDir(), "ledger.db"))
	ctx := t.Context()
	const readers = 64
	done := make(chan error, readers)
	for i := range readers {
		go func() {
			var err error
			switch i % 3 {
			case 0:
				_, err = l.User(ctx, "PAR::p::1220", "nobody")
				if fault.Is(err, fault.NotFound) {
					err = nil
				}
			case 1:
				_, err = l.Head(ctx)
			default:
				_, err = l.Users(ctx, "PAR::p::1220", "", 10)
			}
			done <- err
		}()
	}
	timeout := time.After(20 * time.Second)
	for range readers {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("read: %v", err)
			}
		case <-timeout:
			t.Fatal("concurrent reads deadlocked")
		}
	}
}

func TestUserExists(t *testing.T) {
	storetest.ExerciseUserExists(t,
		func(t *testing.T) (ledger.Store, func(ctx context.Context, id string) (bool, error)) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			return openAt(t, path), func(ctx context.Context, id string) (bool, error) {
				return sqlitestore.UserExists(ctx, path, id)
			}
		},
		func(ctx context.Context, id string) (bool, error) {
			return sqlitestore.UserExists(ctx, filepath.Join(t.TempDir(), "ledger.db"), id)
		})
}

// TestUserExistsAfterClose asks a ledger whose store is closed (a stopped
// sandnet, its WAL checkpointed away), and a file that holds no ledger.
func TestUserExistsAfterClose(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := sqlitestore.OpenLedger(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := sqlitestore.UserExists(ctx, path, "alice"); got || err != nil {
		t.Errorf("UserExists on a closed empty ledger = %v, %v; want false, nil", got, err)
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := sqlitestore.UserExists(ctx, empty, "alice"); got || !fault.Is(err, fault.NotFound) {
		t.Errorf("UserExists on an empty file = %v, %v; want a fault.NotFound", got, err)
	}
}

func BenchmarkAppendTransfer(b *testing.B) {
	storetest.BenchmarkAppendTransfer(b, openAt(b, filepath.Join(b.TempDir(), "ledger.db")))
}
