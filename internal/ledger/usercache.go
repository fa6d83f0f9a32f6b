package ledger

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// DefaultUserCacheTTL is how long a cached user serves requests before it
// is read again (Config.UserCacheTTL when 0): the bound on how late a
// change of a user made by another process sharing the database takes
// effect here, the same second a running ledger API stream waits before it
// re-checks its user. Canton caches users the same way, for 5 s by default
// (user-management-service.cache-expiry-after-write-in-seconds).
const DefaultUserCacheTTL = time.Second

// maxCachedUsers bounds the cache; a full cache is emptied, which costs
// one store read per user afterwards.
const maxCachedUsers = 4096

// userCache holds the users that authorize requests, so that a request
// does not read the store for its user. Every change of a user made
// through this Network drops the user's entry once the change is
// committed; a change made by another process is seen once the entry is
// older than the TTL.
type userCache struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	// generation counts invalidations: a read of the store that an
	// invalidation overtook does not fill the cache with what it read,
	// which may predate the change.
	generation uint64
	entries    map[userKey]cachedUser
}

type userKey struct {
	participant ParticipantID
	id          string
}

type cachedUser struct {
	user User
	read time.Time
}

func newUserCache(ttl time.Duration) *userCache {
	if ttl <= 0 {
		ttl = DefaultUserCacheTTL
	}
	return &userCache{ttl: ttl, now: time.Now, entries: map[userKey]cachedUser{}}
}

// get returns a copy of the cached user if it is fresh; otherwise the
// generation to fill the cache at.
func (c *userCache) get(k userKey) (*User, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || c.now().Sub(e.read) >= c.ttl {
		return nil, c.generation, false
	}
	return cloneUser(&e.user), 0, true
}

// put caches a user read from the store when no invalidation happened
// since generation was taken (before the read).
func (c *userCache) put(k userKey, generation uint64, read time.Time, u *User) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if generation != c.generation {
		return
	}
	if len(c.entries) >= maxCachedUsers {
		clear(c.entries)
	}
	c.entries[k] = cachedUser{user: *cloneUser(u), read: read}
}

// invalidate drops a user, after a change of it was committed (or may
// have been).
func (c *userCache) invalidate(k userKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation++
	delete(c.entries, k)
}

// cloneUser copies a user deeply enough that neither the cache nor its
// callers see the other's changes.
func cloneUser(u *User) *User {
	out := *u
	out.Rights = slices.Clone(u.Rights)
	out.Annotations = maps.Clone(u.Annotations)
	return &out
}

// CachedUser returns a participant's user as User does, from a cache
// (see DefaultUserCacheTTL): current for every change made through this
// Network, at most the cache's TTL old for changes made by another
// process. It is meant for authorizing requests; user management reads
// the store. An unknown user is a fault.NotFound, and is not cached.
func (n *Network) CachedUser(ctx context.Context, p ParticipantID, id string) (*User, error) {
	k := userKey{participant: p, id: id}
	u, generation, ok := n.users.get(k)
	if ok {
		return u, nil
	}
	read := n.users.now()
	u, err := n.store.User(ctx, p, id)
	if err != nil {
		return nil, err
	}
	n.users.put(k, generation, read, u)
	return u, nil
}
