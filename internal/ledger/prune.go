package ledger

import (
	"context"

	"github.com/sandnet/sandnet/internal/fault"
)

// Prune records upTo as a participant's pruned offset, as a Canton
// participant's pruning does: the participant's ledger API refuses reads
// that start before the pruned offset (it compares a request with
// [Head.Pruned], read in the same snapshot as the ledger end).
//
// Nothing is deleted. The transactions stay in the store, because the
// other participants' streams and Scan still serve them, and so do the
// participant's stream entries (small index rows, not worth reclaiming),
// which keeps the active contracts snapshot at or after the pruned offset
// whole. The active contract set is unchanged: pruning drops access to
// history, never state. Offsets keep their numbers; the next update still gets the offset
// after the ledger end.
//
// upTo must be positive, at most the participant's ledger end
// (fault.OutOfRange otherwise) and not before its current pruned offset
// (fault.InvalidArgument: pruning never goes back). Pruning again at the
// pruned offset is a no-op. An unknown participant is a fault.NotFound.
func (n *Network) Prune(ctx context.Context, participant ParticipantID, upTo Offset) error {
	if upTo <= 0 {
		return fault.New(fault.InvalidArgument, "participant %s: prune offset %d is not positive", fault.Clip(string(participant)), upTo)
	}
	return n.store.Write(ctx, func(w WriteTx) error { return w.Prune(ctx, participant, upTo) })
}

// PrunedOffset returns the offset up to which a participant's stream has
// been pruned, inclusive; 0 means nothing was pruned. An unknown
// participant is a fault.NotFound.
//
// It reads the committed head. A reader that must decide against the same
// snapshot as the ledger end it serves reads [Store.Head] once and uses its
// Offsets and Pruned together instead.
func (n *Network) PrunedOffset(ctx context.Context, participant ParticipantID) (Offset, error) {
	h, err := n.store.Head(ctx)
	if err != nil {
		return 0, err
	}
	if _, ok := h.Offsets[participant]; !ok {
		return 0, fault.New(fault.NotFound, "participant %s not found", fault.Clip(string(participant)))
	}
	return h.Pruned[participant], nil
}
