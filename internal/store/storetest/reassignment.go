package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// testReassignment checks AppendReassignment: both halves go to the
// listed streams in order, indexed under the contract's stakeholders, are
// not transactions, and the assignment replaces the stored contract (new
// synchronizer and counter) of an active contract only.
func testReassignment(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	tx := mustAppend(t, s, spec{
		creates: []create{{tmpl: amulet, sig: []daml.Party{dso}, obs: []daml.Party{alice}, amount: "1"}},
		on:      []ledger.ParticipantID{par1.ID, par2.ID},
	})
	c := tx.Created()[0]
	target := ledger.NewSynchronizerID("other", ledger.Fingerprint("storetest", "other"))
	moved := *c
	moved.Synchronizer, moved.ReassignmentCounter = target, 1
	halves := []*ledger.Reassignment{
		{Kind: ledger.Unassigned, UpdateID: hexID("unassign"), Source: c.Synchronizer, Target: target,
			RecordTime: tx.RecordTime + 1, UnassignID: "0xab", Counter: 1, Contract: c, Submitter: dso, CommandID: "cmd"},
		{Kind: ledger.Assigned, UpdateID: hexID("assign"), Source: c.Synchronizer, Target: target,
			RecordTime: tx.RecordTime + 2, UnassignID: "0xab", Counter: 1, Contract: &moved, Submitter: dso, CommandID: "cmd"},
	}
	for i, r := range halves {
		err := s.Write(ctx, func(w ledger.WriteTx) error {
			off := ledger.Offset(i + 2)
			return w.AppendReassignment(ctx, r, map[ledger.ParticipantID]ledger.Offset{par1.ID: off, par2.ID: off})
		})
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	got, active, err := s.Contract(ctx, c.ID)
	if err != nil || !active {
		t.Fatalf("contract: active %v, %v", active, err)
	}
	if diff := cmp.Diff(&moved, got, cmpOpts...); diff != "" {
		t.Errorf("contract after assignment (-want +got):\n%s", diff)
	}
	h, err := s.Head(ctx)
	if err != nil || h.Sequence != 3 || h.LastRecordTime != halves[1].RecordTime {
		t.Errorf("head %+v, %v", h, err)
	}
	for _, p := range []ledger.ParticipantID{par1.ID, par2.ID} {
		for _, parties := range [][]daml.Party{nil, {alice}, {dso, bob}} {
			us, err := s.Updates(ctx, ledger.UpdateQuery{Participant: p, After: 1, Parties: parties})
			if err != nil {
				t.Fatal(err)
			}
			want := []ledger.ParticipantUpdate{
				{Participant: p, Offset: 2, Reassignment: halves[0]},
				{Participant: p, Offset: 3, Reassignment: halves[1]},
			}
			if diff := cmp.Diff(want, us, cmpOpts...); diff != "" {
				t.Errorf("updates of %s for %v (-want +got):\n%s", p, parties, diff)
			}
		}
		if us, err := s.Updates(ctx, ledger.UpdateQuery{Participant: p, After: 1, Parties: []daml.Party{bob}}); err != nil || len(us) != 0 {
			t.Errorf("updates of %s for bob: %+v, %v", p, us, err)
		}
	}
	if _, err := s.Transaction(ctx, halves[0].UpdateID); !fault.Is(err, fault.NotFound) {
		t.Errorf("Transaction(unassignment) = %v, want NotFound", err)
	}

	// Assigning an archived contract fails and leaves nothing behind.
	mustAppend(t, s, spec{consumes: []daml.ContractID{c.ID}, on: []ledger.ParticipantID{par1.ID}})
	before := snapshot(t, s)
	h, _ = s.Head(ctx)
	bad := *halves[1]
	bad.UpdateID, bad.RecordTime = hexID("assign-again"), h.LastRecordTime+1
	err = s.Write(ctx, func(w ledger.WriteTx) error {
		return w.AppendReassignment(ctx, &bad, map[ledger.ParticipantID]ledger.Offset{par1.ID: h.Offsets[par1.ID] + 1})
	})
	if err == nil {
		t.Fatal("assigned an archived contract")
	}
	if diff := cmp.Diff(before, snapshot(t, s), cmpOpts...); diff != "" {
		t.Errorf("a failed assignment changed the store (-before +after):\n%s", diff)
	}
}
