package main

import (
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
)

// TestTokenStandardAllocationsEndToEnd drives allocations through the
// running server's APIs as a wallet and a settlement app do: alice's
// external party allocates through the registry's allocation-factory by
// prepare, sign and execute, and withdraws; alice's local party allocates,
// and the executor (the validator's party, through the settlement app's
// user) executes with the registry's context, or cancels. Amounts land
// where they should, and the supply check passes after every step.
func TestTokenStandardAllocationsEndToEnd(t *testing.T) {
	t.Parallel()
	r, err := newPropRun(t, propConfig{svs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	day := expiry{us: (24 * time.Hour).Microseconds()}
	alice, bob := r.users[0], r.users[1]
	step := 0
	do := func(o op) {
		t.Helper()
		o.step = step
		step++
		if err := r.do(o); err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		if err := r.check(); err != nil {
			t.Fatalf("after %s: %v", o, err)
		}
	}
	held := func(a propActor) daml.Numeric {
		t.Helper()
		_, sum, err := r.inputsOf(a)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	allocations := func(a propActor) int {
		t.Helper()
		as, err := r.activeOf(a, allocationInterface, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(as)
	}
	want := func(what string, got daml.Numeric, base daml.Numeric, delta string) {
		t.Helper()
		w, err := base.Add(daml.MustNumeric(delta))
		if err != nil {
			t.Fatal(err)
		}
		if got.Cmp(w) != 0 {
			t.Errorf("%s holds %s, want %s", what, got, w)
		}
	}

	// The external party: funded by its own tap, allocates, withdraws. A
	// tap prepared just before the DSO's automation advances the rounds
	// names a round gone when it executes (LOCAL_VERDICT_INACTIVE_CONTRACTS):
	// a client prepares it again.
	for attempt := 1; ; attempt++ {
		err := r.externalTap(op{step: 100 + attempt, kind: opExternalTap, user: 0, amount: amount{amtNormal, "100.0"}})
		if err == nil {
			break
		}
		if attempt == 5 || !strings.Contains(err.Error(), "LOCAL_VERDICT_INACTIVE_CONTRACTS") {
			t.Fatalf("external tap: %v", err)
		}
	}
	ext, err := r.actor(alice, true)
	if err != nil {
		t.Fatal(err)
	}
	before := held(ext)
	do(op{kind: opTSAllocate, user: 0, count: 1, other: 1, amount: amount{amtNormal, "10.0"}, expiry: day})
	want("alice's external party, allocated", held(ext), before, "-10.0")
	if n := allocations(ext); n != 1 {
		t.Fatalf("alice's external party sees %d allocations", n)
	}
	// Its allocation cannot be settled by a local submission (the op
	// wants a 4xx), so it stays.
	do(op{kind: opTSAllocExecute, user: 0, other: 0})
	do(op{kind: opTSAllocWithdraw, user: 0, other: 0})
	want("alice's external party, withdrawn", held(ext), before, "0.0")
	if n := allocations(ext); n != 0 {
		t.Fatalf("alice's external party still sees %d allocations", n)
	}

	// The local party: allocates to bob, the executor settles.
	local, err := r.actor(alice, false)
	if err != nil {
		t.Fatal(err)
	}
	bobActor, err := r.actor(bob, false)
	if err != nil {
		t.Fatal(err)
	}
	do(op{kind: opTap, user: 0, amount: amount{amtNormal, "100.0"}})
	aliceBefore, bobBefore := held(local), held(bobActor)
	do(op{kind: opTSAllocate, user: 0, other: 1, amount: amount{amtNormal, "5.0"}, expiry: day})
	var end struct {
		Offset int64 `json:"offset"`
	}
	if _, err := r.get("ledger end", "/v2/state/ledger-end", alice.token, &end); err != nil {
		t.Fatal(err)
	}
	do(op{kind: opTSAllocExecute, user: 0, other: 0})
	want("alice, settled", held(local), aliceBefore, "-5.0")
	want("bob, settled", held(bobActor), bobBefore, "5.0")
	checkExecutedThroughInterface(t, r, alice, end.Offset)

	// Another allocation, cancelled by the executor with the parties.
	aliceBefore = held(local)
	do(op{kind: opTSAllocate, user: 0, other: 1, amount: amount{amtNormal, "7.0"}, expiry: day})
	want("alice, allocated", held(local), aliceBefore, "-7.0")
	do(op{kind: opTSAllocCancel, user: 0, other: 0})
	want("alice, cancelled", held(local), aliceBefore, "0.0")
	if n := allocations(local); n != 0 {
		t.Errorf("alice still sees %d allocations", n)
	}
}

// checkExecutedThroughInterface reads the sender's updates after offset
// with an Allocation interface filter: the settlement's consuming
// exercise names the interface it went through and the one it
// implements.
func checkExecutedThroughInterface(t *testing.T, r *propRun, u *propUser, offset int64) {
	t.Helper()
	filter := map[string]any{"cumulative": []any{map[string]any{"identifierFilter": map[string]any{"InterfaceFilter": map[string]any{
		"value": map[string]any{"interfaceId": allocationInterface, "includeInterfaceView": true},
	}}}}}
	var updates []struct {
		Update struct {
			Transaction *struct {
				Value struct {
					Events []struct {
						ExercisedEvent *struct {
							Choice                string   `json:"choice"`
							InterfaceID           *string  `json:"interfaceId"`
							ImplementedInterfaces []string `json:"implementedInterfaces"`
						} `json:"ExercisedEvent"`
					} `json:"events"`
				} `json:"value"`
			} `json:"Transaction"`
		} `json:"update"`
	}
	if _, err := r.want200("updates", "POST", "/v2/updates", u.token, map[string]any{
		"beginExclusive": offset,
		"updateFormat": map[string]any{"includeTransactions": map[string]any{
			"eventFormat":      map[string]any{"filtersByParty": map[string]any{u.party: filter}, "verbose": false},
			"transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS",
		}},
	}, &updates); err != nil {
		t.Fatal(err)
	}
	for _, up := range updates {
		if up.Update.Transaction == nil {
			continue
		}
		for _, ev := range up.Update.Transaction.Value.Events {
			x := ev.ExercisedEvent
			if x == nil || x.Choice != "Allocation_ExecuteTransfer" {
				continue
			}
			suffix := ":Splice.Api.Token.AllocationV1:Allocation"
			if x.InterfaceID == nil || !strings.HasSuffix(*x.InterfaceID, suffix) || len(x.ImplementedInterfaces) != 1 || !strings.HasSuffix(x.ImplementedInterfaces[0], suffix) {
				t.Errorf("the settlement's exercise: interface %v, implemented %v", x.InterfaceID, x.ImplementedInterfaces)
			}
			return
		}
	}
	t.Errorf("no Allocation_ExecuteTransfer in %s's updates after offset %d", u.party, offset)
}
