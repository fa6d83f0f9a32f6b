package pgstore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// openSchema opens a store on schema and closes it when the test ends.
func openSchema(t testing.TB, url, schema string) *pgstore.Ledger {
	t.Helper()
	l, err := pgstore.OpenLedger(t.Context(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func open(t *testing.T) ledger.Store {
	url, schema := pgstore.NewTestSchema(t)
	return openSchema(t, url, schema)
}

func reopen(t *testing.T, s ledger.Store) ledger.Store {
	l := s.(*pgstore.Ledger)
	l.Close()
	return openSchema(t, pgstore.TestDatabaseURL(t), l.Schema())
}

func TestLedger(t *testing.T) {
	storetest.Exercise(t, open, reopen)
}

// TestShared runs the multi-process tests with two stores on one schema,
// standing for two sandnet processes on one database.
func TestShared(t *testing.T) {
	storetest.ExerciseShared(t, func(t *testing.T) (ledger.Store, ledger.Store) {
		url, schema := pgstore.NewTestSchema(t)
		return openSchema(t, url, schema), openSchema(t, url, schema)
	})
}

// TestOpenConcurrently starts several stores on one new schema at once:
// the migration lock must let exactly one of them create the tables.
func TestOpenConcurrently(t *testing.T) {
	t.Parallel()
	url, schema := pgstore.NewTestSchema(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			l, err := pgstore.OpenLedger(t.Context(), url, schema)
			if err == nil {
				l.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestSchemaNameChecked(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "Public", "a-b", "x; DROP TABLE y", "1abc"} {
		if _, err := pgstore.OpenLedger(t.Context(), pgstore.DefaultTestURL, name); err == nil {
			t.Errorf("schema %q accepted", name)
		}
	}
}

func BenchmarkAppendTransaction(b *testing.B) {
	url, schema := pgstore.NewTestSchema(b)
	storetest.BenchmarkAppend(b, openSchema(b, url, schema), 1)
}

func BenchmarkAppendTransactionParallel(b *testing.B) {
	url, schema := pgstore.NewTestSchema(b)
	storetest.BenchmarkAppend(b, openSchema(b, url, schema), 16)
}

func BenchmarkAppendTransfer(b *testing.B) {
	url, schema := pgstore.NewTestSchema(b)
	storetest.BenchmarkAppendTransfer(b, openSchema(b, url, schema))
}

func TestUserExists(t *testing.T) {
	url, absentSchema := pgstore.NewTestSchema(t) // never created
	storetest.ExerciseUserExists(t,
		func(t *testing.T) (ledger.Store, func(ctx context.Context, id string) (bool, error)) {
			url, schema := pgstore.NewTestSchema(t)
			return openSchema(t, url, schema), func(ctx context.Context, id string) (bool, error) {
				return pgstore.UserExists(ctx, url, schema, id)
			}
		},
		func(ctx context.Context, id string) (bool, error) {
			return pgstore.UserExists(ctx, url, absentSchema, id)
		})
}
