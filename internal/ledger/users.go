package ledger

import "context"

// PutUser creates or replaces a ledger API user of a participant, with its
// rights.
func (n *Network) PutUser(ctx context.Context, u User) error {
	return n.store.Write(ctx, func(w WriteTx) error { return w.PutUser(ctx, u) })
}
