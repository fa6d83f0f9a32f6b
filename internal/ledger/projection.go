package ledger

import (
	"context"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
)

// Project returns the part of a transaction that the given parties see:
// the nodes one of them witnesses, with their witnesses narrowed to those
// parties, as the ledger API serves a transaction to a reader. Node ids keep
// their place in the full tree, as Canton's do, so that child and
// last-descendant references stay valid. It returns nil when the parties
// see nothing.
func (t *Transaction) Project(parties []daml.Party) *Transaction {
	visible := make([]bool, len(t.Events))
	any := false
	for i := range t.Events {
		visible[i] = intersects(t.Events[i].Witnesses, parties)
		any = any || visible[i]
	}
	if !any {
		return nil
	}
	out := *t
	out.Events = make([]Event, 0, len(t.Events))
	out.Roots = nil
	// A visible node is a root of the projection when no ancestor is
	// visible. Witnesses are inherited from ancestors, so a node's visible
	// ancestors form a prefix of its path from the root: walking the
	// original roots top-down finds the projected roots.
	var walk func(id int32, parentVisible bool)
	walk = func(id int32, parentVisible bool) {
		if visible[id] && !parentVisible {
			out.Roots = append(out.Roots, id)
		}
		if x := t.Events[id].Exercised; x != nil {
			for _, c := range x.Children {
				walk(c, visible[id])
			}
		}
	}
	for _, r := range t.Roots {
		walk(r, false)
	}
	for i := range t.Events {
		if !visible[i] {
			continue
		}
		e := t.Events[i]
		e.Witnesses = intersection(e.Witnesses, parties)
		if x := e.Exercised; x != nil {
			cp := *x
			cp.Children = slices.DeleteFunc(slices.Clone(x.Children), func(c int32) bool { return !visible[c] })
			e.Exercised = &cp
		}
		out.Events = append(out.Events, e)
	}
	return &out
}

// Event returns the node with the given id, or nil. Projected transactions
// keep node ids, so the index is not the position.
func (t *Transaction) Event(nodeID int32) *Event {
	i, ok := slices.BinarySearchFunc(t.Events, nodeID, func(e Event, id int32) int { return int(e.NodeID - id) })
	if !ok {
		return nil
	}
	return &t.Events[i]
}

func intersection(a, b []daml.Party) []daml.Party {
	var out []daml.Party
	for _, p := range a {
		if slices.Contains(b, p) {
			out = append(out, p)
		}
	}
	return out
}

// HostedParties returns the parties a participant hosts, sorted.
func (n *Network) HostedParties(pid ParticipantID) []daml.Party {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var out []daml.Party
	for p, hs := range n.hostings {
		for _, h := range hs {
			if h.Participant == pid {
				out = append(out, p)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// ParticipantUpdates returns a range of a participant's stream, each
// transaction projected to what the parties it hosts may see.
func (n *Network) ParticipantUpdates(ctx context.Context, q UpdateQuery) ([]ParticipantUpdate, error) {
	ups, err := n.store.Updates(ctx, q)
	if err != nil {
		return nil, err
	}
	hosted := n.HostedParties(q.Participant)
	for i := range ups {
		if ups[i].Transaction == nil {
			continue
		}
		if p := ups[i].Transaction.Project(hosted); p != nil {
			ups[i].Transaction = p
		}
	}
	return ups, nil
}
