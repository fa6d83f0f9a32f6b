package scan_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// TestReassignmentsInHistory moves a DSO contract and a user-private one
// to a second synchronizer: the DSO contract's move is in Scan's history
// as an unassignment and an assignment with the same counter and unassign
// id, in offset order with the transactions, and the DSO party's active
// contract set follows it to the target; the private move never reaches
// Scan.
func TestReassignmentsInHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	e.step(t)
	other, err := e.net.AddSynchronizer(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := splice.Active[splice.OpenMiningRound](ctx, e.net.Store(), e.seeded.DSOParty)
	if err != nil || len(rounds) == 0 {
		t.Fatalf("open rounds: %v (%d)", err, len(rounds))
	}
	round := rounds[0].ID
	un, as, err := e.net.Reassign(ctx, ledger.ReassignSpec{Contract: round, Target: other.ID, CommandID: "move-round"})
	if err != nil {
		t.Fatal(err)
	}

	alice, _ := e.seeded.User("alice")
	bob, _ := e.seeded.User("bob")
	tx, err := e.net.Submit(ctx, ledger.Command{
		Participant: e.seeded.Validator.Participant, UserID: splice.OperatorUser, ActAs: []daml.Party{alice.Party},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, splice.TransferOffer{
				Sender: alice.Party, Receiver: bob.Party, DSO: e.seeded.DSOParty,
				Amount:      splice.PaymentAmount{Amount: daml.MustNumeric("1.0"), Unit: splice.AmuletUnit},
				Description: "private", ExpiresAt: e.net.Clock().Now() + 1e9, TrackingID: "t-1",
			})
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	offer := tx.Created()[0].ID
	pun, pas, err := e.net.Reassign(ctx, ledger.ReassignSpec{Contract: offer, Target: other.ID, Submitter: alice.Party})
	if err != nil {
		t.Fatal(err)
	}
	e.step(t)

	got := e.history(t)
	if diff := cmp.Diff(updateIDs(e.want(t)), updateIDs(got)); diff != "" {
		t.Fatalf("history differs from SV 1's DSO view (-want +got):\n%s", diff)
	}
	var moves []*ledger.Reassignment
	for i, u := range got {
		if i > 0 && u.Offset <= got[i-1].Offset {
			t.Errorf("offsets not increasing at %s: %d after %d", u.UpdateID(), u.Offset, got[i-1].Offset)
		}
		if r := u.Reassignment; r != nil {
			if u.Transaction != nil || len(u.Created) > 0 || len(u.Archived) > 0 {
				t.Errorf("reassignment %s carries a transaction or ACS effects", r.UpdateID)
			}
			moves = append(moves, r)
		}
		if id := u.UpdateID(); id == pun.UpdateID || id == pas.UpdateID || id == tx.UpdateID {
			t.Errorf("the private update %s is in Scan's history", id)
		}
	}
	if len(moves) != 2 {
		t.Fatalf("want the round's unassignment and assignment, got %d reassignments", len(moves))
	}
	u0, a0 := moves[0], moves[1]
	if u0.Kind != ledger.Unassigned || a0.Kind != ledger.Assigned ||
		u0.UpdateID != un.UpdateID || a0.UpdateID != as.UpdateID {
		t.Fatalf("want unassignment %s then assignment %s, got %v %s, %v %s",
			un.UpdateID, as.UpdateID, u0.Kind, u0.UpdateID, a0.Kind, a0.UpdateID)
	}
	if u0.Counter != 1 || a0.Counter != 1 || u0.UnassignID == "" || u0.UnassignID != a0.UnassignID {
		t.Errorf("counters %d/%d, unassign ids %q/%q: want 1/1 and one id", u0.Counter, a0.Counter, u0.UnassignID, a0.UnassignID)
	}
	if u0.Synchronizer() != e.seeded.Synchronizer || a0.Synchronizer() != other.ID {
		t.Errorf("ordered on %s and %s, want %s and %s", u0.Synchronizer(), a0.Synchronizer(), e.seeded.Synchronizer, other.ID)
	}
	for _, r := range moves {
		stored, err := e.store.Update(ctx, r.UpdateID)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ledger.EncodeReassignment(r)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Reassignment == nil {
			t.Fatalf("Update(%s) is not a reassignment", r.UpdateID)
		}
		if got, err := ledger.EncodeReassignment(stored.Reassignment); err != nil || string(got) != string(want) {
			t.Errorf("Update(%s) differs from the history's (%v)", r.UpdateID, err)
		}
	}

	c, active, err := e.store.Contract(ctx, round)
	if err != nil || !active {
		t.Fatalf("the round in Scan: active %v, %v", active, err)
	}
	if c.Synchronizer != other.ID || c.ReassignmentCounter != 1 {
		t.Errorf("the round is on %s with counter %d, want %s and 1", c.Synchronizer, c.ReassignmentCounter, other.ID)
	}
	acs, err := e.store.ActiveContracts(ctx, scan.ContractQuery{Templates: []scan.TemplateKey{scan.KeyOf(splice.OpenMiningRound{}.TemplateID())}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range acs {
		if c.ID == round {
			found = c.Synchronizer == other.ID
		}
	}
	if !found {
		t.Errorf("the round is not active on %s in the DSO party's ACS", other.ID)
	}
	if _, _, err := e.store.Contract(ctx, offer); err == nil {
		t.Errorf("the private contract %s is in Scan", offer)
	}

	ms, err := e.store.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ranges []scan.RecordTimeRange
	for _, m := range ms {
		ranges = append(ranges, m.Ranges...)
	}
	var target *scan.RecordTimeRange
	for i := range ranges {
		if ranges[i].Synchronizer == other.ID {
			target = &ranges[i]
		}
	}
	if target == nil || target.Min != a0.RecordTime || target.Max != a0.RecordTime {
		t.Errorf("record-time range of %s: %+v, want the assignment's %s", other.ID, target, a0.RecordTime)
	}
}
