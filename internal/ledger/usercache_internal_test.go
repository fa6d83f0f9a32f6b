package ledger

import (
	"testing"
	"time"
)

// A store read that an invalidation overtook does not fill the cache; an
// entry serves until it is a TTL old.
func TestUserCacheGenerations(t *testing.T) {
	t.Parallel()
	now := time.Unix(0, 0)
	c := newUserCache(time.Second)
	c.now = func() time.Time { return now }
	k := userKey{participant: "p", id: "u"}
	old := &User{ID: "u", Rights: []Right{{Kind: CanActAs, Party: "alice"}}}

	_, gen, ok := c.get(k)
	if ok {
		t.Fatal("empty cache hit")
	}
	c.invalidate(k) // a change committed while the old user was read
	c.put(k, gen, now, old)
	if _, _, ok := c.get(k); ok {
		t.Fatal("a read overtaken by an invalidation filled the cache")
	}

	_, gen, _ = c.get(k)
	c.put(k, gen, now, old)
	if u, _, ok := c.get(k); !ok || !u.CanAct("alice") {
		t.Fatalf("fresh entry: %+v, %v", u, ok)
	}
	now = now.Add(time.Second - time.Nanosecond)
	if _, _, ok := c.get(k); !ok {
		t.Fatal("entry expired before its TTL")
	}
	now = now.Add(time.Nanosecond)
	if _, _, ok := c.get(k); ok {
		t.Fatal("entry served a TTL after it was read")
	}
}
