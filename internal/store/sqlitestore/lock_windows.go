//go:build windows

package sqlitestore

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// fileLock is an exclusive LockFileEx lock on a lock file, Windows' match
// for flock: it is released when the handle is closed or the process ends.
type fileLock struct{ f *os.File }

func lockFile(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	ol := new(windows.Overlapped)
	err = windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, errInUse(path)
		}
		return nil, fmt.Errorf("open ledger: lock %s: %w", path, err)
	}
	return &fileLock{f}, nil
}

func (l *fileLock) release() error { return l.f.Close() }
