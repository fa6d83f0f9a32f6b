package pgstore_test

import (
	"testing"

	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// openScanSchema opens a Scan store on schema and closes it when the test
// ends.
func openScanSchema(t testing.TB, url, schema string) *pgstore.Scan {
	t.Helper()
	s, err := pgstore.OpenScan(t.Context(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestScan(t *testing.T) {
	storetest.ExerciseScan(t,
		func(t *testing.T) scan.Store {
			url, schema := pgstore.NewTestSchema(t)
			return openScanSchema(t, url, schema)
		},
		func(t *testing.T, s scan.Store) scan.Store {
			sc := s.(*pgstore.Scan)
			sc.Close()
			return openScanSchema(t, pgstore.TestDatabaseURL(t), sc.Schema())
		})
}

func TestScanSchemaNameChecked(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "Public", "a-b", "x; DROP TABLE y"} {
		if _, err := pgstore.OpenScan(t.Context(), pgstore.DefaultTestURL, name); err == nil {
			t.Errorf("schema %q accepted", name)
		}
	}
}

// BenchmarkScanSnapshot measures ACS snapshots at scale
// (storetest.BenchmarkScanSnapshot) on a Scan of SANDNET_BENCH_CONTRACTS
// contracts (default 100 000), ingested into a fresh schema first.
// Skipped in -short.
//
//	SANDNET_BENCH_CONTRACTS=20000 go test -run '^$' -bench BenchmarkScanSnapshot -benchtime 3x ./internal/store/pgstore/
func BenchmarkScanSnapshot(b *testing.B) {
	n := storetest.ScanBenchContracts(b)
	url, schema := pgstore.NewTestSchema(b)
	s := openScanSchema(b, url, schema)
	storetest.FillScan(b, s, n)
	storetest.BenchmarkScanSnapshot(b, s, n)
}
