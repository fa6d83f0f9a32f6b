package scanapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/testnet"
)

// transferArgs are TransferFactory_Transfer choice arguments as the wallet
// SDK builds them, from sender to receiver.
func transferArgs(dso, sender, receiver daml.Party, inputs ...daml.ContractID) string {
	if inputs == nil {
		inputs = []daml.ContractID{}
	}
	args := map[string]any{
		"expectedAdmin": dso,
		"transfer": map[string]any{
			"sender": sender, "receiver": receiver, "amount": "10.0",
			"instrumentId":     map[string]any{"admin": dso, "id": "Amulet"},
			"requestedAt":      "2026-01-05T08:59:00.000Z",
			"executeBefore":    "2026-01-06T09:00:00.000Z",
			"inputHoldingCids": inputs,
			"meta":             map[string]any{"values": map[string]string{"splice.lfdecentralizedtrust.org/reason": ""}},
		},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
	}
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func factoryBody(args string, exclude *bool) string {
	if exclude == nil {
		return `{"choiceArguments":` + args + `}`
	}
	if *exclude {
		return `{"choiceArguments":` + args + `,"excludeDebugFields":true}`
	}
	return `{"choiceArguments":` + args + `,"excludeDebugFields":false}`
}

// transferNet is a seeded network where bob has a pre-approval, its Scan
// caught up.
func transferNet(t *testing.T) (*testnet.Net, daml.ContractID) {
	t.Helper()
	n := testnet.Seed(t)
	now := n.Network.Clock().Now()
	pre := n.Preapprove(t, n.Party("bob"), nil, now+daml.Timestamp((90*24*time.Hour).Microseconds()))
	if _, err := n.Ingester.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	return n, pre
}

// TestTransferInstructionGolden serves the transfer-instruction API over a
// seeded network and compares the answers with
// testdata/transferinstruction.golden.json, each exchange validated
// against the registry's document.
func TestTransferInstructionGolden(t *testing.T) {
	t.Parallel()
	n, _ := transferNet(t)
	dso, alice, bob, sv1 := n.Seeded.DSOParty, n.Party("alice"), n.Party("bob"), n.Seeded.SVs[0].Party
	holdings, err := splice.Holdings(context.Background(), n.Network.Store(), alice)
	if err != nil || len(holdings) == 0 {
		t.Fatalf("alice's holdings: %v (%d)", err, len(holdings))
	}
	yes, no := true, false
	tap := strings.Replace(transferArgs(dso, dso, alice), `"receiver"`, `"lock":null,"receiver"`, 1)
	const factory = "/registry/transfer-instruction/v1/transfer-factory"
	const unknown = "00" + "0000000000000000000000000000000000000000000000000000000000000000ca0012"
	cases := []goldenCase{
		post("self", factory, factoryBody(transferArgs(dso, alice, alice, holdings[0].ID), &yes), 200),
		post("direct: bob is pre-approved", factory, factoryBody(transferArgs(dso, alice, bob, holdings[0].ID), &yes), 200),
		post("offer: the SV has no pre-approval", factory, factoryBody(transferArgs(dso, alice, sv1, holdings[0].ID), &yes), 200),
		post("the SDK's tap: the DSO with no inputs", factory, factoryBody(tap, &yes), 200),
		post("debug fields by default", factory, factoryBody(transferArgs(dso, alice, bob), nil), 200),
		post("debug fields asked for", factory, factoryBody(transferArgs(dso, alice, alice), &no), 200),
		post("malformed: a field missing", factory, factoryBody(`{"expectedAdmin":"`+string(dso)+`"}`, &yes), 400),
		post("malformed: a bad amount", factory, factoryBody(strings.Replace(transferArgs(dso, alice, bob), `"10.0"`, `"ten"`, 1), &yes), 400),
		post("malformed: an unknown field", factory, factoryBody(strings.Replace(tap, `"lock":null`, `"lock":{"holders":[]}`, 1), &yes), 400),
		post("malformed: not an object", factory, `{"choiceArguments":[1]}`, 400).off(),
		post("no choiceArguments", factory, `{"excludeDebugFields":true}`, 400).off(),
		post("no body", factory, ``, 400).off(),
		post("accept: unknown instruction", "/registry/transfer-instruction/v1/"+unknown+"/choice-contexts/accept", `{"excludeDebugFields":true}`, 404),
		post("reject: unknown instruction", "/registry/transfer-instruction/v1/"+unknown+"/choice-contexts/reject", `{}`, 404),
		post("withdraw: unknown instruction", "/registry/transfer-instruction/v1/"+unknown+"/choice-contexts/withdraw", `{"meta":{"k":"v"}}`, 404),
		post("accept: a holding is no instruction", "/registry/transfer-instruction/v1/"+string(holdings[0].ID)+"/choice-contexts/accept", `{}`, 404),
		post("an unknown choice", "/registry/transfer-instruction/v1/"+unknown+"/choice-contexts/update", `{}`, 404).off(),
	}
	runRegistryGolden(t, "transferinstruction", n.ScanHandler, cases)
}

// runRegistryGolden is runGolden against the registry's document, the
// requests addressed to the Scan's host.
func runRegistryGolden(t *testing.T, file string, h http.Handler, cases []goldenCase) {
	t.Helper()
	spec, err := registrySpecOnce()
	if err != nil {
		t.Fatal(err)
	}
	g := apitest.OpenGolden(t, file, *update)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				newReq := func() *http.Request {
					req := httptest.NewRequest(tc.method, registryRoot+tc.path, strings.NewReader(tc.body))
					req.Header.Set("Content-Type", "application/json")
					return req
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, newReq())
				if spec.Describes(newReq()) {
					if reqErr := spec.Validate(t, newReq(), rec); reqErr != nil && !tc.offSpec {
						t.Errorf("request does not conform to the document: %v", reqErr)
					}
				}
				if rec.Code != tc.status {
					t.Errorf("status %d, want %d: %.500s", rec.Code, tc.status, rec.Body)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("content type %q", ct)
				}
				g.Check(t, tc.name, apitest.EntryOf(t, rec))
			})
		}
	})
	g.Finish(t, !t.Failed())
}

// TestTransferFactoryContexts checks the answers' content beyond their
// shape: the kinds, the keys in Splice's order, the disclosures matching
// the keys then the factory, and the newer config state.
func TestTransferFactoryContexts(t *testing.T) {
	t.Parallel()
	n, pre := transferNet(t)
	dso, alice, bob, sv1 := n.Seeded.DSOParty, n.Party("alice"), n.Party("bob"), n.Seeded.SVs[0].Party
	ctx := context.Background()
	factories, err := splice.Active[splice.ExternalPartyAmuletRules](ctx, n.Network.Store(), "")
	if err != nil || len(factories) != 1 {
		t.Fatalf("factories: %v %d", err, len(factories))
	}
	states, err := splice.Active[splice.ExternalPartyConfigState](ctx, n.Network.Store(), "")
	if err != nil || len(states) != 2 {
		t.Fatalf("config states: %v %d", err, len(states))
	}
	newer := states[0]
	if states[1].Payload.TargetArchiveAfter >= newer.Payload.TargetArchiveAfter {
		newer = states[1]
	}
	cases := []struct {
		name             string
		sender, receiver daml.Party
		kind             string
		keys             []string
	}{
		{"self", alice, alice, "self", []string{"amulet-rules", "open-round", "external-party-config-state"}},
		{"direct", alice, bob, "direct", []string{"amulet-rules", "open-round", "external-party-config-state", "transfer-preapproval"}},
		{"self, though pre-approved", bob, bob, "self", []string{"amulet-rules", "open-round", "external-party-config-state"}},
		{"offer", alice, sv1, "offer", []string{"amulet-rules", "open-round", "external-party-config-state"}},
		{"tap", dso, alice, "offer", []string{"amulet-rules", "open-round", "external-party-config-state"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			n.ScanHandler.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, registryRoot+"/registry/transfer-instruction/v1/transfer-factory",
				strings.NewReader(factoryBody(transferArgs(dso, tc.sender, tc.receiver), nil))))
			if rec.Code != http.StatusOK {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			var got scanapi.TransferFactoryWithChoiceContext
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.TransferKind != tc.kind || got.FactoryID != string(factories[0].ID) {
				t.Errorf("kind %s factory %s, want %s %s", got.TransferKind, got.FactoryID, tc.kind, factories[0].ID)
			}
			keys, values := contextKeys(t, got.ChoiceContext.ChoiceContextData)
			if strings.Join(keys, ",") != strings.Join(tc.keys, ",") {
				t.Fatalf("keys %v, want %v", keys, tc.keys)
			}
			dc := got.ChoiceContext.DisclosedContracts
			if len(dc) != len(keys)+1 || dc[len(dc)-1].ContractID != got.FactoryID {
				t.Fatalf("disclosed %d contracts, want %d ending with the factory", len(dc), len(keys)+1)
			}
			for i, k := range keys {
				if dc[i].ContractID != values[k] {
					t.Errorf("disclosed #%d is %s, want %s's %s", i, dc[i].ContractID, k, values[k])
				}
			}
			for _, d := range dc {
				if d.SynchronizerID != string(n.Seeded.Synchronizer) || d.DebugPackageName != "splice-amulet" || len(d.DebugPayload) == 0 || d.DebugCreatedAt == "" {
					t.Errorf("disclosed %+v", d)
				}
			}
			if values["external-party-config-state"] != string(newer.ID) {
				t.Errorf("config state %s, want the newer %s", values["external-party-config-state"], newer.ID)
			}
			if tc.kind == "direct" && values["transfer-preapproval"] != string(pre) {
				t.Errorf("pre-approval %s, want %s", values["transfer-preapproval"], pre)
			}
		})
	}
}

// contextKeys reads choiceContextData's keys in order and their contract
// ids.
func contextKeys(t *testing.T, data json.RawMessage) ([]string, map[string]string) {
	t.Helper()
	var ctx struct {
		Values json.RawMessage `json:"values"`
	}
	if err := json.Unmarshal(data, &ctx); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(ctx.Values)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	values := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var av struct {
			Tag   string          `json:"tag"`
			Value json.RawMessage `json:"value"`
		}
		if err := dec.Decode(&av); err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		keys = append(keys, k)
		if av.Tag == "AV_ContractId" {
			var s string
			_ = json.Unmarshal(av.Value, &s)
			values[k] = s
		}
	}
	return keys, values
}
