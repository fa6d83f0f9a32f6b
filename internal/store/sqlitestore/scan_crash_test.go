package sqlitestore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sandnet/sandnet/internal/store/storetest"
)

// TestScanInterruptedBuild leaves a half-built snapshot behind, as a crash
// in the middle of BuildSnapshot does (its header unpublished, some rows
// written): readers do not see it, and the next build discards it and
// builds the snapshot again from scratch.
func TestScanInterruptedBuild(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := OpenScan(ctx, filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.ExerciseScanInterruptedBuild(t, s, "0",
		func(ctx context.Context, sql string) error { _, err := s.w.ExecContext(ctx, sql); return err },
		func(ctx context.Context, table string) (n int, err error) {
			err = s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n)
			return n, err
		})
}
