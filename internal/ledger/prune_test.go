package ledger_test

import (
	"context"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

func TestPrune(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var cids []daml.ContractID
	for range 3 {
		cids = append(cids, b.issue(t, b.alice, "10"))
	}
	if off, err := b.net.PrunedOffset(ctx, b.p1); err != nil || off != 0 {
		t.Fatalf("PrunedOffset before pruning = %d, %v; want 0", off, err)
	}
	// p1's stream: the topology transactions of bank and alice (1, 2),
	// then the three IOUs (3 to 5).
	if err := b.net.Prune(ctx, b.p1, 2); err != nil {
		t.Fatal(err)
	}
	if off, err := b.net.PrunedOffset(ctx, b.p1); err != nil || off != 2 {
		t.Errorf("PrunedOffset after pruning = %d, %v; want 2", off, err)
	}
	us, err := b.net.Store().Updates(ctx, ledger.UpdateQuery{Participant: b.p1})
	if err != nil {
		t.Fatal(err)
	}
	// The store keeps the stream (the ledger API refuses reads before the
	// pruned offset).
	if len(us) != 5 || us[0].Offset != 1 || us[0].Topology == nil || us[2].Transaction == nil {
		t.Errorf("updates after pruning up to 2: %d, first %+v; want offsets 1 to 5", len(us), us)
	}
	// State stays: the IOUs of the pruned updates are active.
	for _, cid := range cids {
		if _, active, err := b.net.Store().Contract(ctx, cid); err != nil || !active {
			t.Errorf("contract %s after pruning: active=%v err=%v", cid, active, err)
		}
	}
	// The next update takes the next offset.
	b.issue(t, b.alice, "1")
	if h, _ := b.net.Store().Head(ctx); h.Offsets[b.p1] != 6 || h.Pruned[b.p1] != 2 {
		t.Errorf("head after the next update: offsets %v, pruned %v", h.Offsets, h.Pruned)
	}

	for _, tc := range []struct {
		name string
		p    ledger.ParticipantID
		upTo ledger.Offset
		kind fault.Kind
	}{
		{"backwards", b.p1, 1, fault.InvalidArgument},
		{"zero", b.p1, 0, fault.InvalidArgument},
		{"beyond the ledger end", b.p1, 7, fault.OutOfRange},
		{"beyond a stream of only topology", b.p2, 2, fault.OutOfRange},
		{"unknown participant", "PAR::nobody::1220", 1, fault.NotFound},
	} {
		if err := b.net.Prune(ctx, tc.p, tc.upTo); !fault.Is(err, tc.kind) {
			t.Errorf("%s: Prune(%s, %d) error = %v; want %s", tc.name, tc.p, tc.upTo, err, tc.kind)
		}
	}
	if _, err := b.net.PrunedOffset(ctx, "PAR::nobody::1220"); !fault.Is(err, fault.NotFound) {
		t.Errorf("PrunedOffset(unknown) error = %v; want NotFound", err)
	}
	if off, err := b.net.PrunedOffset(ctx, b.p1); err != nil || off != 2 {
		t.Errorf("PrunedOffset after refused prunes = %d, %v; want 2", off, err)
	}
}
