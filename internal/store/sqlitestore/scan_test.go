package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// openScanAt opens the Scan database at path and closes it when the test
// ends.
func openScanAt(t testing.TB, path string) *sqlitestore.Scan {
	t.Helper()
	s, err := sqlitestore.OpenScan(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func TestScan(t *testing.T) {
	storetest.ExerciseScan(t,
		func(t *testing.T) scan.Store { return openScanAt(t, filepath.Join(t.TempDir(), "scan.db")) },
		func(t *testing.T, s scan.Store) scan.Store {
			sc := s.(*sqlitestore.Scan)
			if err := sc.Close(); err != nil {
				t.Fatal(err)
			}
			return openScanAt(t, sc.Path())
		})
}
