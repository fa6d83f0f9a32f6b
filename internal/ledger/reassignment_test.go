package ledger_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// A reassignment is an unassignment on the source and an assignment on
// the target, each its own update in the stakeholders' participants'
// streams, sharing the unassign id and the counter, which grows with each
// unassignment; the contract then lives on the target, and a command on
// another synchronizer cannot use it.
func TestReassign(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	st := b.net.Store()
	syncs, err := st.Synchronizers(ctx)
	if err != nil || len(syncs) == 0 {
		t.Fatalf("synchronizers %v, %v", syncs, err)
	}
	global := syncs[0].ID
	other, err := b.net.AddSynchronizer(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	cid := b.issue(t, b.bob, "10") // bank on p1, bob on p2
	head, _ := st.Head(ctx)
	epoch := b.net.ContractEpoch()

	un, as, err := b.net.Reassign(ctx, ledger.ReassignSpec{Contract: cid, Target: other.ID, CommandID: "move-1"})
	if err != nil {
		t.Fatal(err)
	}
	// A cache of stored contracts must see that this one changed.
	if b.net.ContractEpoch() == epoch {
		t.Errorf("ContractEpoch() is still %d after a reassignment", epoch)
	}
	if un.Kind != ledger.Unassigned || as.Kind != ledger.Assigned {
		t.Fatalf("kinds %d, %d", un.Kind, as.Kind)
	}
	if un.Source != global || un.Target != other.ID || as.Source != global || as.Target != other.ID {
		t.Errorf("source/target: %+v / %+v", un, as)
	}
	if un.Synchronizer() != global || as.Synchronizer() != other.ID {
		t.Errorf("synchronizers %s, %s", un.Synchronizer(), as.Synchronizer())
	}
	if un.Counter != 1 || as.Counter != 1 || un.UnassignID == "" || un.UnassignID != as.UnassignID {
		t.Errorf("counter/unassign id: %d %q / %d %q", un.Counter, un.UnassignID, as.Counter, as.UnassignID)
	}
	if un.UpdateID == as.UpdateID || un.RecordTime >= as.RecordTime || un.RecordTime <= head.LastRecordTime {
		t.Errorf("ordering: %s@%d then %s@%d", un.UpdateID, un.RecordTime, as.UpdateID, as.RecordTime)
	}
	if un.Submitter != b.bank || un.CommandID != "move-1" {
		t.Errorf("submitter %s command %s", un.Submitter, un.CommandID)
	}
	c, active, err := st.Contract(ctx, cid)
	if err != nil || !active || c.Synchronizer != other.ID || c.ReassignmentCounter != 1 {
		t.Fatalf("contract after assign: %+v active=%v err=%v", c, active, err)
	}
	// Both halves are in both stakeholders' streams, in order.
	for _, p := range []ledger.ParticipantID{b.p1, b.p2} {
		ups, err := st.Updates(ctx, ledger.UpdateQuery{Participant: p, After: head.Offsets[p]})
		if err != nil || len(ups) != 2 {
			t.Fatalf("%s stream: %+v, %v", p, ups, err)
		}
		if d := cmp.Diff([]*ledger.Reassignment{un, as}, []*ledger.Reassignment{ups[0].Reassignment, ups[1].Reassignment}, cmpOpts); d != "" {
			t.Errorf("%s stream (-want +got):\n%s", p, d)
		}
		if ups[0].UpdateID() != un.UpdateID || ups[1].Synchronizer() != other.ID || ups[1].RecordTime() != as.RecordTime {
			t.Errorf("%s accessors", p)
		}
		// The per-party index finds them under bob.
		if ups, _ := st.Updates(ctx, ledger.UpdateQuery{Participant: p, After: head.Offsets[p], Parties: []daml.Party{b.bob}}); len(ups) != 2 {
			t.Errorf("%s stream for bob: %d updates", p, len(ups))
		}
	}
	if _, err := st.Transaction(ctx, un.UpdateID); !fault.Is(err, fault.NotFound) {
		t.Errorf("Transaction(unassign) = %v, want NotFound", err)
	}

	// A command on the default synchronizer cannot use it.
	transfer := func(sync ledger.SynchronizerID) error {
		_, err := b.net.Submit(ctx, ledger.Command{
			Participant: b.p2, ActAs: []daml.Party{b.bob}, Synchronizer: sync,
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[daml.ContractID](tx, cid, "Iou_Transfer", Transfer{NewOwner: b.alice})
				return err
			},
		})
		return err
	}
	if err := transfer(""); !fault.Is(err, fault.FailedPrecondition) || codeOf(err) != "INVALID_PRESCRIBED_SYNCHRONIZER_ID" {
		t.Errorf("using a contract on another synchronizer: %v", err)
	}

	// Refusals change nothing.
	head, _ = st.Head(ctx)
	for name, tc := range map[string]struct {
		spec ledger.ReassignSpec
		kind fault.Kind
	}{
		"unknown contract":  {ledger.ReassignSpec{Contract: "00abcd", Target: global}, fault.NotFound},
		"unknown target":    {ledger.ReassignSpec{Contract: cid, Target: "nowhere::1220ab"}, fault.NotFound},
		"same synchronizer": {ledger.ReassignSpec{Contract: cid, Target: other.ID}, fault.InvalidArgument},
		"not a stakeholder": {ledger.ReassignSpec{Contract: cid, Target: global, Submitter: b.alice}, fault.InvalidArgument},
		"missing contract":  {ledger.ReassignSpec{Target: global}, fault.InvalidArgument},
		"missing target":    {ledger.ReassignSpec{Contract: cid}, fault.InvalidArgument},
	} {
		if _, _, err := b.net.Reassign(ctx, tc.spec); !fault.Is(err, tc.kind) {
			t.Errorf("%s: %v, want %v", name, err, tc.kind)
		}
	}
	if h, _ := st.Head(ctx); h.Sequence != head.Sequence {
		t.Errorf("refusals made updates: %d -> %d", head.Sequence, h.Sequence)
	}

	// Back again: the counter grows; then the command on the global
	// synchronizer works and the archived contract cannot move.
	un2, as2, err := b.net.Reassign(ctx, ledger.ReassignSpec{Contract: cid, Target: global, Submitter: b.bob})
	if err != nil {
		t.Fatal(err)
	}
	if un2.Counter != 2 || as2.Counter != 2 || un2.UnassignID == un.UnassignID || un2.Source != other.ID || as2.Target != global {
		t.Errorf("second reassignment: %+v / %+v", un2, as2)
	}
	if err := transfer(""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.net.Reassign(ctx, ledger.ReassignSpec{Contract: cid, Target: other.ID}); !fault.Is(err, fault.NotFound) {
		t.Errorf("reassigning an archived contract: %v", err)
	}
}

func TestReassignmentEncoding(t *testing.T) {
	t.Parallel()
	r := &ledger.Reassignment{
		Kind: ledger.Assigned, UpdateID: "1220ab", Source: "a::1220", Target: "b::1220", MigrationID: 2,
		RecordTime: 12345, UnassignID: "0xff", Counter: 3, Submitter: "alice::1220ef", CommandID: "c", WorkflowID: "w",
		TraceContext: ledger.TraceContext{TraceParent: "00-x"},
		Contract: &ledger.Contract{ID: "00cd", Template: ledger.TemplateID{Identifier: daml.Identifier{PackageID: "p", ModuleName: "M", EntityName: "T"}, PackageName: "pkg"},
			Argument: &daml.Record{}, Signatories: []daml.Party{"alice::1220ef"}, Synchronizer: "b::1220", ReassignmentCounter: 3},
	}
	b, err := ledger.EncodeReassignment(r)
	if err != nil {
		t.Fatal(err)
	}
	if ledger.IsTopologyBlob(b) || ledger.IsTransactionBlob(b) {
		t.Error("a reassignment blob is taken for another kind")
	}
	for _, shared := range []bool{false, true} {
		dec := ledger.DecodeUpdate
		if shared {
			dec = ledger.DecodeUpdateShared
		}
		u, err := dec(b)
		if err != nil || u.Transaction != nil || u.Topology != nil {
			t.Fatalf("decode: %+v, %v", u, err)
		}
		if d := cmp.Diff(r, u.Reassignment, cmpOpts); d != "" {
			t.Errorf("round trip (-want +got):\n%s", d)
		}
	}
	if _, err := ledger.DecodeTransaction(b); err == nil {
		t.Error("a reassignment blob decoded as a transaction")
	}
	if _, err := ledger.DecodeReassignment(b[:len(b)-1]); err == nil {
		t.Error("a truncated blob decoded")
	}
	// A contract's counter survives its blob; a counter of 0 keeps the old layout.
	cb, err := ledger.EncodeContract(r.Contract)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ledger.DecodeContract(cb)
	if err != nil || c.ReassignmentCounter != 3 {
		t.Errorf("contract counter: %+v, %v", c, err)
	}
}

func codeOf(err error) string {
	if e, ok := fault.As(err); ok {
		return e.Code
	}
	return ""
}
