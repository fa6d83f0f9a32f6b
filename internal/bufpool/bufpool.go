// Package bufpool keeps byte buffers between uses: a request's body, an
// answer, a hash's encoding, each tens of kilobytes and done with before
// the call that built it returns.
package bufpool

import "sync"

// Pool holds buffers of at most Max bytes' capacity; one grown past Max
// (an outsized request or transaction) is left to the collector rather
// than kept for ever. The zero value is not usable: set Max.
type Pool struct {
	// Max is the largest capacity Put keeps.
	Max  int
	pool sync.Pool
}

// Get returns a handle on an empty buffer: append to (*p)[:0] and give the
// handle back to Put with the buffer as grown.
func (p *Pool) Get() *[]byte {
	if h, ok := p.pool.Get().(*[]byte); ok {
		return h
	}
	return new([]byte)
}

// Put returns h to the pool holding b (h's buffer, possibly grown),
// emptied. Nothing may use b afterwards.
func (p *Pool) Put(h *[]byte, b []byte) {
	if cap(b) <= p.Max {
		*h = b[:0]
		p.pool.Put(h)
	}
}
