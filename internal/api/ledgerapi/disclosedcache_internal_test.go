package ledgerapi

import (
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/ledger"
)

// TestDisclosedCacheEntries checks when a remembered contract is served:
// TestDisclosedCache sees the same answers with and without the cache, so
// it cannot tell a stale entry from a fresh one; this can.
func TestDisclosedCacheEntries(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	stored := &ledger.Contract{ID: "00aa"}
	for _, tc := range []struct {
		name  string
		blob  string
		epoch uint64
		now   time.Time
		hit   bool
	}{
		{"same blob, epoch and instant", "b", 7, at, true},
		{"within the TTL", "b", 7, at.Add(disclosedCacheTTL - time.Nanosecond), true},
		{"at the TTL", "b", 7, at.Add(disclosedCacheTTL), false},
		{"another epoch", "b", 8, at, false},
		{"the clock went back", "b", 7, at.Add(-time.Nanosecond), false},
		{"another blob", "c", 7, at, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var c disclosedCache
			c.put("b", stored, 7, at)
			got := c.get(tc.blob, tc.epoch, tc.now)
			if (got != nil) != tc.hit || (got != nil && got != stored) {
				t.Errorf("get(%q, %d, %v) = %v, want hit %v", tc.blob, tc.epoch, tc.now, got, tc.hit)
			}
		})
	}
	t.Run("full", func(t *testing.T) {
		t.Parallel()
		var c disclosedCache
		for i := range disclosedCacheSize {
			c.put(string(rune(0x100+i)), stored, 1, at)
		}
		if c.get(string(rune(0x100)), 1, at) == nil {
			t.Fatal("an entry of a full cache is missing")
		}
		// One more starts the cache over: the old entries go, the new stays.
		c.put("new", stored, 1, at)
		if c.get(string(rune(0x100)), 1, at) != nil || c.get("new", 1, at) == nil {
			t.Error("a put into a full cache did not start it over with the new entry")
		}
	})
}
