package ledger

import (
	"context"

	"github.com/sandnet/sandnet/internal/fault"
)

// The changes of users drop the user from the cache of CachedUser once
// they are committed (deferred), so that a right revoked here takes effect
// for the next request.

// PutUser creates or replaces a ledger API user of a participant, with its
// rights.
func (n *Network) PutUser(ctx context.Context, u User) error {
	defer n.users.invalidate(userKey{u.Participant, u.ID})
	return n.store.Write(ctx, func(w WriteTx) error { return w.PutUser(ctx, u) })
}

// CreateUser adds a ledger API user of a participant; one that exists
// already is a fault.AlreadyExists. The check and the write are one write
// transaction, which no other writer interleaves.
func (n *Network) CreateUser(ctx context.Context, u User) error {
	defer n.users.invalidate(userKey{u.Participant, u.ID})
	return n.store.Write(ctx, func(w WriteTx) error {
		if _, err := n.store.User(ctx, u.Participant, u.ID); err == nil {
			return fault.New(fault.AlreadyExists, "user %s exists", fault.Quote(u.ID))
		} else if !fault.Is(err, fault.NotFound) {
			return err
		}
		return w.PutUser(ctx, u)
	})
}

// UpdateUser changes a user in one write transaction: change gets the
// stored user and edits it, and the result is stored (its resource version
// bumped) unless change fails. An unknown user is a fault.NotFound. It
// returns the user as stored.
func (n *Network) UpdateUser(ctx context.Context, p ParticipantID, id string, change func(*User) error) (*User, error) {
	defer n.users.invalidate(userKey{p, id})
	err := n.store.Write(ctx, func(w WriteTx) error {
		u, err := n.store.User(ctx, p, id)
		if err != nil {
			return err
		}
		if err := change(u); err != nil {
			return err
		}
		u.Participant, u.ID = p, id
		return w.PutUser(ctx, *u)
	})
	if err != nil {
		return nil, err
	}
	return n.store.User(ctx, p, id)
}

// DeleteUser removes a user; an unknown user is a fault.NotFound.
func (n *Network) DeleteUser(ctx context.Context, p ParticipantID, id string) error {
	defer n.users.invalidate(userKey{p, id})
	return n.store.Write(ctx, func(w WriteTx) error { return w.DeleteUser(ctx, p, id) })
}
