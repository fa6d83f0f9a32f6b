package ledger

import (
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
)

// Clock is the network's ledger time: wall time plus an offset that the
// admin API moves forward, never back, so that tests can jump past expiries,
// round boundaries and snapshot boundaries. Every advance is broadcast, so
// automation reacts to it even when no transaction is committed.
type Clock struct {
	wall func() time.Time

	mu       sync.Mutex
	offset   int64 // µs
	backdate int64 // µs behind wall+offset while a new network is seeded
	advanced *Signal
}

// NewClock returns a clock reading wall (time.Now when nil) plus offset
// microseconds.
func NewClock(wall func() time.Time, offset int64) *Clock {
	if wall == nil {
		wall = time.Now
	}
	return &Clock{wall: wall, offset: offset, advanced: NewSignal()}
}

// Now returns the current ledger time.
func (c *Clock) Now() daml.Timestamp {
	c.mu.Lock()
	off := c.offset - c.backdate
	c.mu.Unlock()
	return daml.Timestamp(c.wall().UnixMicro() + off)
}

// Read returns the ledger time and the offset it was computed with, as one
// consistent pair.
func (c *Clock) Read() (now daml.Timestamp, offset int64) {
	c.mu.Lock()
	offset = c.offset
	back := c.backdate
	c.mu.Unlock()
	return daml.Timestamp(c.wall().UnixMicro() + offset - back), offset
}

// Offset returns how far ledger time runs ahead of wall time, in µs.
func (c *Clock) Offset() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}

// setOffset raises the offset to micros if that is larger (another process
// may have advanced the shared clock) and reports whether it changed.
func (c *Clock) setOffset(micros int64) bool {
	c.mu.Lock()
	changed := micros > c.offset
	if changed {
		c.offset = micros
	}
	c.mu.Unlock()
	if changed {
		c.advanced.Notify()
	}
	return changed
}

// Backdate sets ledger time back to genesis, from where it runs on with
// the wall clock, until the returned function puts it back (and broadcasts
// the jump as an advance). Seeding uses it so that a new network's history
// starts before the previous ACS snapshot boundary and a Scan has a
// snapshot at once. It moves neither the stored offset nor anything a
// restarted process would see; genesis in the future does nothing.
func (c *Clock) Backdate(genesis daml.Timestamp) (restore func()) {
	c.mu.Lock()
	back := max(0, c.wall().UnixMicro()+c.offset-int64(genesis))
	c.backdate = back
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.backdate = 0
		c.mu.Unlock()
		if back > 0 {
			c.advanced.Notify()
		}
	}
}

// Advanced returns a channel closed at the next clock advance.
func (c *Clock) Advanced() <-chan struct{} { return c.advanced.C() }

// Signal is a broadcast that can fire many times: each call of C returns a
// channel that the next Notify closes. Waiters never miss a notification
// that happens after they called C, and a slow waiter never blocks Notify.
type Signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// NewSignal returns a ready Signal.
func NewSignal() *Signal { return &Signal{ch: make(chan struct{})} }

// C returns the channel the next Notify closes.
func (s *Signal) C() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

// Notify wakes every current waiter.
func (s *Signal) Notify() {
	s.mu.Lock()
	close(s.ch)
	s.ch = make(chan struct{})
	s.mu.Unlock()
}
