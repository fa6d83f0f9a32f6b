package validatorapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/daml"
)

// TestAllocationsGolden serves the registry's allocation APIs through the
// scan-proxy and compares the answers with
// testdata/allocations.golden.json: what the Scan answers, passed through.
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
