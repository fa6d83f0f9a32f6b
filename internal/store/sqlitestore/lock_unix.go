//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package sqlitestore

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// fileLock is an exclusive flock on a lock file. flock (not fcntl) is
// used because it belongs to the open file description: SQLite's own fcntl
// locks on the database are unaffected, and closing any other descriptor of
// the same file in this process does not drop it. The kernel releases it
// when the process exits, however it exits.
type fileLock struct{ f *os.File }

func lockFile(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errInUse(path)
		}
		return nil, fmt.Errorf("open ledger: lock %s: %w", path, err)
	}
	// Leave the pid for whoever wonders which process holds the lock.
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "%d\n", os.Getpid())
	}
	return &fileLock{f}, nil
}

func (l *fileLock) release() error {
	// Closing the descriptor releases the flock.
	return l.f.Close()
}
