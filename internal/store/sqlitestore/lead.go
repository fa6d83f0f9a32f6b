package sqlitestore

import (
	"context"

	"github.com/sandnet/sandnet/internal/fault"
)

// errInUse is the error for a data directory another process holds.
func errInUse(lockPath string) error {
	return fault.New(fault.FailedPrecondition,
		"data directory is in use by another sandnet process (%s is locked)", lockPath)
}

// TryLead implements [store.Leader]. The file lock taken at open already
// makes this process the only one on the database, so leadership is decided
// among the callers in this process: the first wins and holds it until its
// ctx is done or the store is closed.
func (l *Ledger) TryLead(ctx context.Context) (lost <-chan struct{}, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	l.leadMu.Lock()
	defer l.leadMu.Unlock()
	if l.closed {
		return nil, false, fault.New(fault.Unavailable, "ledger store is closed")
	}
	if l.leading {
		return nil, false, nil
	}
	l.leading = true
	done := make(chan struct{})
	l.leases.Add(1)
	go func() {
		defer l.leases.Done()
		select {
		case <-ctx.Done():
		case <-l.closing:
		}
		l.leadMu.Lock()
		l.leading = false
		l.leadMu.Unlock()
		close(done)
	}()
	return done, true, nil
}
