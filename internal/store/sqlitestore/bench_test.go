package sqlitestore

import (
	"path/filepath"
	"testing"

	"github.com/sandnet/sandnet/internal/store/storetest"
)

// BenchmarkAppendTransactionSyncFull is BenchmarkAppendTransaction with
// synchronous=FULL (an fsync of the WAL per commit), the figure behind the
// choice of NORMAL in the package documentation.
func BenchmarkAppendTransactionSyncFull(b *testing.B) {
	l, err := openLedger(b.Context(), filepath.Join(b.TempDir(), "ledger.db"), "FULL")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	storetest.BenchmarkAppend(b, l, 1)
}
