package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Every change of a user made through the network takes effect for the
// next CachedUser, and what a caller does with the user it got does not
// change the cache.
func TestCachedUserSeesChanges(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	act := ledger.Right{Kind: ledger.CanActAs, Party: b.alice}
	read := ledger.Right{Kind: ledger.CanReadAs, Party: b.alice}
	cached := func(t *testing.T) *ledger.User {
		t.Helper()
		u, err := b.net.CachedUser(ctx, b.p1, "u")
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	if _, err := b.net.CachedUser(ctx, b.p1, "u"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("unknown user: %v; want NotFound", err)
	}
	if err := b.net.CreateUser(ctx, ledger.User{ID: "u", Participant: b.p1, Rights: []ledger.Right{act}}); err != nil {
		t.Fatal(err)
	}
	if u := cached(t); !u.CanAct(b.alice) {
		t.Fatalf("created user has rights %v", u.Rights)
	}
	cached(t).Rights[0] = read // the caller's copy
	if u := cached(t); !u.CanAct(b.alice) {
		t.Fatalf("a caller's change reached the cache: rights %v", u.Rights)
	}
	for _, c := range []struct {
		name   string
		change func() error
		check  func(u *ledger.User) bool
	}{
		{"revoked", func() error {
			_, err := b.net.UpdateUser(ctx, b.p1, "u", func(u *ledger.User) error { u.Rights = []ledger.Right{read}; return nil })
			return err
		}, func(u *ledger.User) bool { return !u.CanAct(b.alice) && u.CanRead(b.alice) }},
		{"deactivated", func() error {
			_, err := b.net.UpdateUser(ctx, b.p1, "u", func(u *ledger.User) error { u.Deactivated = true; return nil })
			return err
		}, func(u *ledger.User) bool { return u.Deactivated }},
		{"replaced", func() error {
			return b.net.PutUser(ctx, ledger.User{ID: "u", Participant: b.p1, Rights: []ledger.Right{act}})
		}, func(u *ledger.User) bool { return !u.Deactivated && u.CanAct(b.alice) }},
	} {
		cached(t) // filled before the change
		if err := c.change(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if u := cached(t); !c.check(u) {
			t.Errorf("%s: the cache still holds %+v", c.name, u)
		}
	}
	cached(t)
	if err := b.net.DeleteUser(ctx, b.p1, "u"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.net.CachedUser(ctx, b.p1, "u"); !fault.Is(err, fault.NotFound) {
		t.Errorf("deleted user: %v; want NotFound", err)
	}
}

// A change made by another process sharing the database takes effect
// once the cached user is older than the cache's TTL.
func TestCachedUserAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	open := sharedPostgres(t)
	a := setupOn(t, open())
	const ttl = 50 * time.Millisecond
	other, err := ledger.Open(ctx, open(), testRegistry(), ledger.Config{Seed: "test", UserCacheTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	act := ledger.Right{Kind: ledger.CanActAs, Party: a.alice}
	if err := a.net.PutUser(ctx, ledger.User{ID: "u", Participant: a.p1, Rights: []ledger.Right{act}}); err != nil {
		t.Fatal(err)
	}
	if u, err := other.CachedUser(ctx, a.p1, "u"); err != nil || !u.CanAct(a.alice) {
		t.Fatalf("the other process's user: %+v, %v", u, err)
	}
	if _, err := a.net.UpdateUser(ctx, a.p1, "u", func(u *ledger.User) error { u.Rights = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl)
	if u, err := other.CachedUser(ctx, a.p1, "u"); err != nil || u.CanAct(a.alice) {
		t.Errorf("the other process's user a TTL after the revocation: %+v, %v", u, err)
	}
}
