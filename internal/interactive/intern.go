package interactive

import (
	"hash/maphash"
	"sync/atomic"
)

// A prepared transaction repeats a few short strings many times: package
// ids, module and entity names, record labels, parties, node ids. Decoding
// one copied each occurrence into a string of its own; intern returns the
// string decoded last time the same bytes hashed to the same slot instead.
// The cache is direct-mapped and lock-free: a slot holds the last string
// stored in it, a miss overwrites it, so its size is fixed and concurrent
// decodes at worst miss. Long strings (contract ids, which differ from one
// transaction to the next) are not cached, so as not to evict the
// repeating ones.
const (
	internSlots = 1024 // a power of two
	maxInterned = 96   // bytes; a party id is about 75
)

var (
	internSeed  = maphash.MakeSeed()
	internCache [internSlots]atomic.Pointer[string]
)

// intern returns string(b), shared with earlier calls for the same bytes
// when the cache still holds them.
func intern(b []byte) string {
	if len(b) == 0 || len(b) > maxInterned {
		return string(b)
	}
	slot := &internCache[maphash.Bytes(internSeed, b)&(internSlots-1)]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}
