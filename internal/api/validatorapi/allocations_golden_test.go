package validatorapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/daml"
)

// TestAllocationsGolden serves the registry's allocation APIs through the
// scan-proxy (what the Scan answers, passed through) and the wallet's
// allocation reads and refusals, and compares the answers with
// testdata/allocations.golden.json.
func TestAllocationsGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob := e.Party("alice"), e.Party("bob")
	alloc := e.Allocate(t, alice, bob, bob, "10.0", "trade-1", e.now()+daml.Timestamp(24*time.Hour.Microseconds()))
	const factory = "/v0/scan-proxy/registry/allocation-instruction/v1/allocation-factory"
	contexts := func(id daml.ContractID, choice string) string {
		return "/v0/scan-proxy/registry/allocations/v1/" + string(id) + "/choice-contexts/" + choice
	}
	args, err := json.Marshal(map[string]any{"choiceArguments": map[string]any{"expectedAdmin": e.Seeded.DSOParty}, "excludeDebugFields": true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []goldenCase{
		{"scan-proxy registry: allocation-factory", post(factory, "", string(args)), http.StatusOK},
		{"scan-proxy registry: allocation-factory with a token", post(factory, "alice", `{"choiceArguments":{},"excludeDebugFields":true}`), http.StatusOK},
		{"scan-proxy registry: allocation-factory, no choiceArguments", post(factory, "", `{}`).off(), http.StatusBadRequest},
		{"scan-proxy registry: allocation-factory, not JSON", post(factory, "", `{"choiceArguments":`).off(), http.StatusBadRequest},
		{"scan-proxy registry: execute-transfer", post(contexts(alloc, "execute-transfer"), "bob", `{"excludeDebugFields":true}`), http.StatusOK},
		{"scan-proxy registry: withdraw", post(contexts(alloc, "withdraw"), "alice", `{"excludeDebugFields":true}`), http.StatusOK},
		{"scan-proxy registry: cancel", post(contexts(alloc, "cancel"), "", `{"meta":{},"excludeDebugFields":true}`), http.StatusOK},
		{"scan-proxy registry: execute-transfer, unknown allocation", post(contexts("00abcd", "execute-transfer"), "", `{}`), http.StatusNotFound},
		{"scan-proxy registry: cancel, unknown allocation", post(contexts("00abcd", "cancel"), "", `{}`), http.StatusNotFound},
		{"scan-proxy registry: an unknown allocation choice", post(contexts(alloc, "settle"), "", `{}`).off(), http.StatusNotFound},
		// wallet-internal
		{"allocations: list", get("/v0/allocations", "alice"), http.StatusOK},
		{"allocations: list of a receiver", get("/v0/allocations", "bob"), http.StatusOK},
		{"allocations: list without a wallet", get("/v0/allocations", e.noWallet), http.StatusNotFound},
		{"allocations: list without a token", get("/v0/allocations", "").off(), http.StatusUnauthorized},
		{"allocations: allocate without a settlement", post("/v0/allocations", "alice", `{"transfer_leg_id":"l","transfer_leg":{"receiver":"`+string(bob)+`","amount":"1.0"}}`).off(), http.StatusBadRequest},
		{"allocations: allocate without a settlement ref id", post("/v0/allocations", "alice", allocateBody(bob, bob, "1.0", "", 1, 2, 3)).off(), http.StatusBadRequest},
		{"allocations: allocate a malformed amount", post("/v0/allocations", "alice", allocateBody(bob, bob, "1e3", "t", 1, 2, 3)), http.StatusBadRequest},
		{"allocations: allocate to a malformed receiver", post("/v0/allocations", "alice", allocateBody(bob, "bob", "1.0", "t", 1, 2, 3)), http.StatusBadRequest},
		{"allocations: allocate a time out of range", post("/v0/allocations", "alice", allocateBody(bob, bob, "1.0", "t", 1, 2, 1<<62)), http.StatusBadRequest},
		{"allocations: allocate without a wallet", post("/v0/allocations", e.noWallet, allocateBody(bob, bob, "1.0", "t", 1, 2, 3)), http.StatusNotFound},
		{"allocations: withdraw an unknown allocation", post("/v0/allocations/00abcd/withdraw", "alice", ``), http.StatusNotFound},
		{"allocations: withdraw another's allocation", post("/v0/allocations/"+string(alloc)+"/withdraw", "bob", ``), http.StatusNotFound},
		{"allocation-requests: none", get("/v0/wallet/token-standard/allocation-requests", "alice"), http.StatusOK},
		{"allocation-requests without a wallet", get("/v0/wallet/token-standard/allocation-requests", e.noWallet), http.StatusNotFound},
	}
	g := apitest.OpenGolden(t, "allocations", *update)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				rec := e.doUnlisted(t, tc.req)
				if rec.Code != tc.status {
					t.Errorf("status %d, want %d: %.500s", rec.Code, tc.status, rec.Body)
				}
				g.Check(t, tc.name, apitest.EntryOf(t, rec))
			})
		}
	})
	g.Finish(t, !t.Failed())
}

// allocateBody is a POST /v0/allocations body: a leg of amount to
// receiver, settled by executor, times in microseconds (ref "" leaves the
// settlement ref's id out).
func allocateBody(executor, receiver daml.Party, amount, ref string, requestedAt, allocateBefore, settleBefore int64) string {
	settlementRef := map[string]any{}
	if ref != "" {
		settlementRef["id"] = ref
	}
	b, err := json.Marshal(map[string]any{
		"settlement": map[string]any{
			"executor": executor, "settlement_ref": settlementRef,
			"requested_at": requestedAt, "allocate_before": allocateBefore, "settle_before": settleBefore,
			"meta": map[string]string{"trade": "42"},
		},
		"transfer_leg_id": "leg-0",
		"transfer_leg":    map[string]any{"receiver": receiver, "amount": amount, "meta": map[string]string{}},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestWalletAllocations allocates through the wallet, lists, withdraws:
// the amount is locked, then back; the same allocation asked twice is a
// duplicate.
func TestWalletAllocations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.Party("bob")
	now := int64(e.now())
	hour := time.Hour.Microseconds()
	body := allocateBody(bob, bob, "25.0", "trade-7", now-60_000_000, now+hour, now+24*hour)
	rec := e.do(t, post("/v0/allocations", "alice", body))
	if rec.Code != http.StatusOK {
		t.Fatalf("allocate: %d %s", rec.Code, rec.Body)
	}
	res := decode[struct {
		Output struct {
			AllocationCid string `json:"allocation_cid"`
		} `json:"output"`
		SenderChangeCids []string          `json:"sender_change_cids"`
		Meta             map[string]string `json:"meta"`
	}](t, rec.Body.Bytes())
	if res.Output.AllocationCid == "" || len(res.SenderChangeCids) != 1 || res.Meta["splice.lfdecentralizedtrust.org/tx-kind"] != "transfer" {
		t.Fatalf("allocate answered %s", rec.Body)
	}
	if rec := e.do(t, post("/v0/allocations", "alice", body)); rec.Code != http.StatusConflict {
		t.Errorf("the same allocation again: %d %s", rec.Code, rec.Body)
	}
	balance := func() string {
		rec := e.do(t, get("/v0/wallet/balance", "alice"))
		return decode[struct {
			Locked string `json:"effective_locked_qty"`
		}](t, rec.Body.Bytes()).Locked
	}
	// The locked amount is valued at the open round, less its holding fee.
	if got := balance(); !strings.HasPrefix(got, "24.99") {
		t.Errorf("locked %s after allocating 25", got)
	}
	type listed struct {
		Allocations []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
				TemplateID string `json:"template_id"`
			} `json:"contract"`
		} `json:"allocations"`
	}
	l := decode[listed](t, e.do(t, get("/v0/allocations", "alice")).Body.Bytes())
	if len(l.Allocations) != 1 || l.Allocations[0].Contract.ContractID != res.Output.AllocationCid ||
		!strings.HasSuffix(l.Allocations[0].Contract.TemplateID, ":Splice.AmuletAllocation:AmuletAllocation") {
		t.Fatalf("listed %+v", l)
	}
	rec = e.do(t, post("/v0/allocations/"+res.Output.AllocationCid+"/withdraw", "alice", ""))
	if rec.Code != http.StatusOK {
		t.Fatalf("withdraw: %d %s", rec.Code, rec.Body)
	}
	w := decode[struct {
		SenderHoldingCids []string          `json:"sender_holding_cids"`
		Meta              map[string]string `json:"meta"`
	}](t, rec.Body.Bytes())
	if len(w.SenderHoldingCids) != 1 || len(w.Meta) != 0 {
		t.Errorf("withdraw answered %s", rec.Body)
	}
	if got := balance(); got != "0.0000000000" {
		t.Errorf("locked %s after withdrawing", got)
	}
	if l := decode[listed](t, e.do(t, get("/v0/allocations", "alice")).Body.Bytes()); len(l.Allocations) != 0 {
		t.Errorf("still listed: %+v", l)
	}
	if rec := e.do(t, post("/v0/allocations/"+res.Output.AllocationCid+"/withdraw", "alice", "")); rec.Code != http.StatusNotFound {
		t.Errorf("withdraw again: %d %s", rec.Code, rec.Body)
	}
	// A settlement already past is the ledger's refusal.
	past := allocateBody(bob, bob, "1.0", "trade-8", now-2*hour, now-hour, now-hour/2)
	if rec := e.do(t, post("/v0/allocations", "alice", past)); rec.Code != http.StatusConflict {
		t.Errorf("a past settlement: %d %s", rec.Code, rec.Body)
	}
}
