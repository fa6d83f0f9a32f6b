package sqlitestore_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/store/storetest"
)

// BenchmarkScanSnapshot measures ACS snapshots at scale
// (storetest.BenchmarkScanSnapshot) on a Scan of SANDNET_BENCH_CONTRACTS
// contracts (default 100 000). The filled store is built once and kept in
// SANDNET_BENCH_DIR (default $TMPDIR/sandnet-scan-bench); each run works
// on a copy, so that the snapshots and updates it adds do not accumulate.
// Skipped in -short.
//
//	SANDNET_BENCH_CONTRACTS=100000 go test -run '^$' -bench BenchmarkScanSnapshot -benchtime 3x ./internal/store/sqlitestore/
func BenchmarkScanSnapshot(b *testing.B) {
	n := storetest.ScanBenchContracts(b)
	dir := os.Getenv("SANDNET_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sandnet-scan-bench")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	cached := filepath.Join(dir, fmt.Sprintf("scan-%d.db", n))
	if _, err := os.Stat(cached); err != nil {
		// Built under another name and renamed once complete and closed
		// (the WAL checkpointed into it), so an interrupted build is never
		// taken for a cached store.
		tmp := cached + ".building"
		for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			os.Remove(p)
		}
		s, err := sqlitestore.OpenScan(b.Context(), tmp)
		if err != nil {
			b.Fatal(err)
		}
		storetest.FillScan(b, s, n)
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, cached); err != nil {
			b.Fatal(err)
		}
		os.Remove(tmp + ".lock")
	}
	path := filepath.Join(b.TempDir(), "scan.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(cached+suffix, path+suffix); err != nil && !(suffix != "" && os.IsNotExist(err)) {
			b.Fatal(err)
		}
	}
	s := openScanAt(b, path)
	storetest.CheckScanFilled(b, s, n)
	storetest.BenchmarkScanSnapshot(b, s, n)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
