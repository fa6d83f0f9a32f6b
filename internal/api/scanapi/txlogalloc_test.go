package scanapi_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/testnet"
)

// TestAllocationTxLog checks the log's entries for allocations, as
// Splice's Scan writes them: an allocation is a transfer of its amount
// from the sender to itself, a settlement one from the sender to the
// receiver; a withdrawal only releases a lock and is not logged.
func TestAllocationTxLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testnet.Seed(t)
	if _, err := n.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	last := logPage(t, n, `{"page_size":1,"sort_order":"desc"}`)
	if len(last) != 1 {
		t.Fatalf("the seeded log has %d entries", len(last))
	}
	alice, bob := n.Party("alice"), n.Party("bob")
	settle := n.Network.Clock().Now() + daml.Timestamp(24*time.Hour.Microseconds())
	settled := n.Allocate(t, alice, bob, bob, "10.0", "trade-1", settle)
	withdrawn := n.Allocate(t, alice, bob, bob, "4.0", "trade-2", settle)
	states, err := splice.Active[splice.ExternalPartyConfigState](ctx, n.Network.Store(), n.Seeded.DSOParty)
	if err != nil || len(states) == 0 {
		t.Fatalf("config states: %v", err)
	}
	state := states[0].ID
	extra := splice.ExtraArgs{
		Context: splice.ChoiceContext{Values: map[string]splice.AnyValue{splice.ContextKeyExternalPartyConfigState: {AVContractID: &state}}},
		Meta:    splice.Metadata{Values: map[string]string{}},
	}
	v := n.Seeded.Validator
	for _, step := range []struct {
		actAs []daml.Party
		run   func(tx *ledger.Tx) error
	}{
		{[]daml.Party{bob, alice}, func(tx *ledger.Tx) error {
			_, err := ledger.ExerciseInterface[splice.AllocationExecuteTransferResult](tx, settled, splice.AllocationInterface, "Allocation_ExecuteTransfer", splice.AllocationExecuteTransfer{ExtraArgs: extra})
			return err
		}},
		{[]daml.Party{alice}, func(tx *ledger.Tx) error {
			_, err := ledger.ExerciseInterface[splice.AllocationWithdrawResult](tx, withdrawn, splice.AllocationInterface, "Allocation_Withdraw", splice.AllocationWithdraw{ExtraArgs: extra})
			return err
		}},
	} {
		if _, err := n.Network.Submit(ctx, ledger.Command{
			Participant: v.Participant, UserID: v.OperatorUser, ActAs: step.actAs,
			Disclosed: []*ledger.Contract{states[0].Contract}, CommandID: splice.CommandID("txlog-alloc"), Run: step.run,
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := n.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	got := logPage(t, n, fmt.Sprintf(`{"page_size":20,"page_end_event_id":%q}`, last[0].EventID))
	type want struct{ sender, receiver, amount string }
	wants := []want{
		{string(alice), string(alice), "10.0000000000"},
		{string(alice), string(alice), "4.0000000000"},
		{string(alice), string(bob), "10.0000000000"},
	}
	if len(got) != len(wants) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		tr := got[i].Transfer
		if got[i].TransactionType != "transfer" || tr == nil || tr.TransferKind != "" || tr.Sender.Party != w.sender || tr.Sender.InputAmuletAmount != w.amount ||
			len(tr.Receivers) != 1 || tr.Receivers[0].Party != w.receiver || tr.Receivers[0].Amount != w.amount {
			t.Errorf("entry %d: %s %+v, want %+v", i, got[i].TransactionType, tr, w)
		}
	}
}
