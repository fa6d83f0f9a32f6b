package scanapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/testnet"
)

// allocationNet is a seeded network where bob is a featured app and alice
// made two allocations to sv1: one bob settles (within a day), one sv1
// settles (within two hours). Its Scan caught up.
func allocationNet(t *testing.T) (n *testnet.Net, featured, plain daml.ContractID, right daml.ContractID) {
	t.Helper()
	n = testnet.Seed(t)
	alice, bob, sv1 := n.Party("alice"), n.Party("bob"), n.Seeded.SVs[0].Party
	now := n.Network.Clock().Now()
	right = n.FeatureApp(t, bob)
	featured = n.Allocate(t, alice, sv1, bob, "10.0", "trade-1", now+daml.Timestamp(24*time.Hour.Microseconds()))
	plain = n.Allocate(t, alice, sv1, sv1, "5.0", "trade-2", now+daml.Timestamp(2*time.Hour.Microseconds()))
	if _, err := n.Ingester.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	return n, featured, plain, right
}

// allocateArgs are AllocationFactory_Allocate choice arguments as a
// wallet builds them (the registry does not read them).
func allocateArgs(dso, sender, receiver, executor daml.Party) string {
	b, err := json.Marshal(map[string]any{
		"expectedAdmin": dso,
		"allocation": map[string]any{
			"settlement": map[string]any{
				"executor": executor, "settlementRef": map[string]any{"id": "trade-9", "cid": nil},
				"requestedAt": "2026-01-05T08:59:00Z", "allocateBefore": "2026-01-05T10:00:00Z", "settleBefore": "2026-01-06T09:00:00Z",
				"meta": map[string]any{"values": map[string]any{}},
			},
			"transferLegId": "leg-0",
			"transferLeg": map[string]any{
				"sender": sender, "receiver": receiver, "amount": "10.0",
				"instrumentId": map[string]any{"admin": dso, "id": "Amulet"}, "meta": map[string]any{"values": map[string]any{}},
			},
		},
		"requestedAt": "2026-01-05T08:59:00Z", "inputHoldingCids": []string{},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestAllocationGolden serves the allocation APIs over a seeded network
// and compares the answers with testdata/allocation.golden.json, each
// exchange validated against the registry's document.
func TestAllocationGolden(t *testing.T) {
	t.Parallel()
	n, featured, plain, _ := allocationNet(t)
	dso, alice, bob, sv1 := n.Seeded.DSOParty, n.Party("alice"), n.Party("bob"), n.Seeded.SVs[0].Party
	holdings, err := splice.Holdings(context.Background(), n.Network.Store(), alice)
	if err != nil || len(holdings) == 0 {
		t.Fatalf("alice's holdings: %v (%d)", err, len(holdings))
	}
	yes, no := true, false
	const factory = "/registry/allocation-instruction/v1/allocation-factory"
	const unknown = "00" + "0000000000000000000000000000000000000000000000000000000000000000ca0012"
	contexts := func(id daml.ContractID, choice string) string {
		return "/registry/allocations/v1/" + string(id) + "/choice-contexts/" + choice
	}
	cases := []goldenCase{
		post("factory", factory, factoryBody(allocateArgs(dso, alice, sv1, bob), &yes), 200),
		post("factory: debug fields by default", factory, factoryBody(allocateArgs(dso, alice, sv1, bob), nil), 200),
		post("factory: debug fields asked for", factory, factoryBody(allocateArgs(dso, alice, sv1, bob), &no), 200),
		post("factory: arguments are not read", factory, factoryBody(`{"anything":1}`, &yes), 200),
		post("factory: not an object", factory, `{"choiceArguments":[1]}`, 400).off(),
		post("factory: no choiceArguments", factory, `{"excludeDebugFields":true}`, 400).off(),
		post("factory: no body", factory, ``, 400).off(),
		post("execute-transfer: a featured executor", contexts(featured, "execute-transfer"), `{"excludeDebugFields":true}`, 200),
		post("execute-transfer: an unfeatured executor", contexts(plain, "execute-transfer"), `{"excludeDebugFields":true}`, 200),
		post("withdraw: no featured app right", contexts(featured, "withdraw"), `{"meta":{"k":"v"},"excludeDebugFields":true}`, 200),
		post("cancel", contexts(plain, "cancel"), `{}`, 200),
		post("execute-transfer: unknown allocation", contexts(unknown, "execute-transfer"), `{}`, 404),
		post("withdraw: unknown allocation", contexts(unknown, "withdraw"), `{}`, 404),
		post("cancel: a holding is no allocation", contexts(holdings[0].ID, "cancel"), `{}`, 404),
		post("cancel: malformed body", contexts(plain, "cancel"), `{"meta":1}`, 400).off(),
		post("an unknown choice", contexts(plain, "settle"), `{}`, 404).off(),
	}
	runRegistryGolden(t, "allocation", n.ScanHandler, cases)
}

// postAllocation posts body to an allocation endpoint and decodes a 200.
func postAllocation(t *testing.T, h http.Handler, path, body string, out any) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, registryRoot+path, strings.NewReader(body)))
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatal(err)
		}
	} else if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	return rec.Code
}

// TestAllocationContexts checks the answers' content: the keys in
// Splice's order, the disclosures matching the keys (the LockedAmulet
// before the featured app right), and what is left once the
// allocation's LockedAmulet is gone.
func TestAllocationContexts(t *testing.T) {
	t.Parallel()
	n, featured, plain, right := allocationNet(t)
	ctx := context.Background()
	factories, err := splice.Active[splice.ExternalPartyAmuletRules](ctx, n.Network.Store(), "")
	if err != nil || len(factories) != 1 {
		t.Fatalf("factories: %v %d", err, len(factories))
	}
	var f scanapi.AllocationFactoryWithChoiceContext
	if code := postAllocation(t, n.ScanHandler, "/registry/allocation-instruction/v1/allocation-factory", `{"choiceArguments":{}}`, &f); code != 200 {
		t.Fatalf("factory: %d", code)
	}
	keys, _ := contextKeys(t, f.ChoiceContext.ChoiceContextData)
	if f.FactoryID != string(factories[0].ID) || strings.Join(keys, ",") != "amulet-rules,open-round,external-party-config-state" ||
		len(f.ChoiceContext.DisclosedContracts) != 4 || f.ChoiceContext.DisclosedContracts[3].ContractID != f.FactoryID {
		t.Errorf("factory %s keys %v, %d disclosed", f.FactoryID, keys, len(f.ChoiceContext.DisclosedContracts))
	}
	lockedOf := func(id daml.ContractID) daml.ContractID {
		c, _, err := n.Network.Store().Contract(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		a, err := splice.Decode[splice.AmuletAllocation](c)
		if err != nil {
			t.Fatal(err)
		}
		return a.Payload.LockedAmulet
	}
	for _, tc := range []struct {
		id     daml.ContractID
		choice string
		keys   string
		last   daml.ContractID // the last disclosed contract
	}{
		{featured, "execute-transfer", "amulet-rules,open-round,external-party-config-state,expire-lock,featured-app-right", right},
		{featured, "withdraw", "amulet-rules,open-round,external-party-config-state,expire-lock", lockedOf(featured)},
		{plain, "execute-transfer", "amulet-rules,open-round,external-party-config-state,expire-lock", lockedOf(plain)},
		{plain, "cancel", "amulet-rules,open-round,external-party-config-state,expire-lock", lockedOf(plain)},
	} {
		var cc scanapi.ChoiceContext
		if code := postAllocation(t, n.ScanHandler, "/registry/allocations/v1/"+string(tc.id)+"/choice-contexts/"+tc.choice, `{}`, &cc); code != 200 {
			t.Fatalf("%s %s: %d", tc.id, tc.choice, code)
		}
		keys, _ := contextKeys(t, cc.ChoiceContextData)
		dc := cc.DisclosedContracts
		if strings.Join(keys, ",") != tc.keys || len(dc) != len(keys) || dc[len(dc)-1].ContractID != string(tc.last) {
			t.Errorf("%s: keys %v, %d disclosed", tc.choice, keys, len(dc))
		}
		if !strings.Contains(string(cc.ChoiceContextData), `"expire-lock":{"tag":"AV_Bool","value":true}`) {
			t.Errorf("%s: %s", tc.choice, cc.ChoiceContextData)
		}
	}

	// Past its expiry, alice spends the plain allocation's locked amulet
	// (a self transfer unlocks it): the lock is gone.
	if _, err := n.Network.AdvanceClock(ctx, 3*time.Hour); err != nil {
		t.Fatal(err)
	}
	spendLocked(t, n, n.Party("alice"), lockedOf(plain))
	if _, err := n.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	var gone map[string]string
	if code := postAllocation(t, n.ScanHandler, "/registry/allocations/v1/"+string(plain)+"/choice-contexts/execute-transfer", `{}`, &gone); code != 404 ||
		!strings.HasPrefix(gone["error"], "LockedAmulet 'Some(ContractId("+string(lockedOf(plain))+"))' not found for AmuletAllocation '"+string(plain)+"', which expires on Some(2026-01-05T11:00:00.000000Z)") {
		t.Errorf("execute-transfer without the lock: %d %v", code, gone)
	}
	for _, choice := range []string{"withdraw", "cancel"} {
		var cc scanapi.ChoiceContext
		if code := postAllocation(t, n.ScanHandler, "/registry/allocations/v1/"+string(plain)+"/choice-contexts/"+choice, `{}`, &cc); code != 200 ||
			string(cc.ChoiceContextData) != `{"values":{"expire-lock":{"tag":"AV_Bool","value":false}}}` || len(cc.DisclosedContracts) != 0 {
			t.Errorf("%s without the lock: %d %s %d", choice, code, cc.ChoiceContextData, len(cc.DisclosedContracts))
		}
	}
}

// spendLocked has owner merge its expired LockedAmulet through a self
// transfer, which unlocks it.
func spendLocked(t *testing.T, n *testnet.Net, owner daml.Party, locked daml.ContractID) {
	t.Helper()
	ctx := context.Background()
	s := n.Network.Store()
	rules, err := splice.Active[splice.ExternalPartyAmuletRules](ctx, s, n.Seeded.DSOParty)
	if err != nil || len(rules) == 0 {
		t.Fatal(err)
	}
	states, err := splice.Active[splice.ExternalPartyConfigState](ctx, s, n.Seeded.DSOParty)
	if err != nil || len(states) == 0 {
		t.Fatal(err)
	}
	c, _, err := s.Contract(ctx, locked)
	if err != nil {
		t.Fatal(err)
	}
	l, err := splice.Decode[splice.LockedAmulet](c)
	if err != nil {
		t.Fatal(err)
	}
	now := n.Network.Clock().Now()
	state := states[0].ID
	v := n.Seeded.Validator
	_, err = n.Network.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{owner},
		Disclosed: []*ledger.Contract{rules[0].Contract, states[0].Contract}, CommandID: splice.CommandID("spend-locked"),
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.ExerciseInterface[splice.TransferInstructionResult](tx, rules[0].ID, splice.TransferFactoryInterface, "TransferFactory_Transfer",
				splice.TransferFactoryTransfer{
					ExpectedAdmin: n.Seeded.DSOParty,
					Transfer: splice.TokenTransfer{
						Sender: owner, Receiver: owner, Amount: l.Payload.Amulet.Amount.InitialAmount, InstrumentID: splice.AmuletInstrumentID(n.Seeded.DSOParty),
						RequestedAt: now - 1, ExecuteBefore: now + daml.Timestamp(time.Hour.Microseconds()), InputHoldingCids: []daml.ContractID{locked},
						Meta: splice.Metadata{Values: map[string]string{}},
					},
					ExtraArgs: splice.ExtraArgs{
						Context: splice.ChoiceContext{Values: map[string]splice.AnyValue{splice.ContextKeyExternalPartyConfigState: {AVContractID: &state}}},
						Meta:    splice.Metadata{Values: map[string]string{}},
					},
				})
			return err
		},
	})
	if err != nil {
		t.Fatalf("spend the locked amulet: %v", err)
	}
}
