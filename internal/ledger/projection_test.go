package ledger_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

func TestProjection(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	cid := b.issue(t, b.alice, "10")
	// Alice splits her IOU: the bank (signatory) and alice see everything.
	// Then she transfers one half to bob: bob sees only the new IOU.
	split, err := b.net.Submit(ctx, ledger.Command{
		Participant: b.p1, ActAs: []daml.Party{b.alice},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[SplitResult](tx, cid, "Iou_Split", Split{Amount: daml.MustNumeric("4")})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	first := split.Events[1].Created.ID
	transfer, err := b.net.Submit(ctx, ledger.Command{
		Participant: b.p1, ActAs: []daml.Party{b.alice},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[daml.ContractID](tx, first, "Iou_Transfer", Transfer{NewOwner: b.bob})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		tx        *ledger.Transaction
		parties   []daml.Party
		wantNodes []int32
		wantRoots []int32
	}{
		{"signatory sees all", split, []daml.Party{b.bank}, []int32{0, 1, 2}, []int32{0}},
		{"bob sees nothing of the split", split, []daml.Party{b.bob}, nil, nil},
		{"bob sees the created IOU as a root", transfer, []daml.Party{b.bob}, []int32{1}, []int32{1}},
		{"alice sees the exercise and its child", transfer, []daml.Party{b.alice}, []int32{0, 1}, []int32{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.tx.Project(tt.parties)
			if tt.wantNodes == nil {
				if p != nil {
					t.Fatalf("projection = %+v, want nothing", p.Events)
				}
				return
			}
			var nodes []int32
			for _, e := range p.Events {
				nodes = append(nodes, e.NodeID)
				for _, w := range e.Witnesses {
					if !slices.Contains(tt.parties, w) {
						t.Errorf("node %d has witness %s outside the projection", e.NodeID, w)
					}
				}
			}
			if !slices.Equal(nodes, tt.wantNodes) || !slices.Equal(p.Roots, tt.wantRoots) {
				t.Errorf("nodes %v roots %v, want %v %v", nodes, p.Roots, tt.wantNodes, tt.wantRoots)
			}
		})
	}
	// p2 hosts only bob: its stream holds bob's allocation and the
	// transfer, projected.
	ups, err := b.net.ParticipantUpdates(ctx, ledger.UpdateQuery{Participant: b.p2})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 2 || ups[0].Topology == nil || ups[1].Offset != 2 || len(ups[1].Transaction.Events) != 1 {
		t.Fatalf("p2 stream = %+v", ups)
	}
}
