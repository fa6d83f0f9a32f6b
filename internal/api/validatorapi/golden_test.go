package validatorapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/daml"
)

// goldenCase is a request, the status it must answer and the name of its
// recorded response.
type goldenCase struct {
	name   string
	req    request
	status int
}

// TestGolden serves every read and every refusal that changes nothing
// against one seeded network and compares the answers with
// testdata/static.golden.json.
func TestGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob := e.Party("alice"), e.Party("bob")
	future := e.now() + daml.Timestamp(3600_000_000)
	op := e.Seeded.Validator.OperatorUser
	// nobody is a well-formed party that no participant hosts.
	nobody := daml.Party("nobody::1220" + strings.Repeat("ab", 32))
	const factory = "/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory"
	const instruction = "/v0/scan-proxy/registry/transfer-instruction/v1/00" + "1234"
	cases := []goldenCase{
		// validator-internal
		{"validator-user", get("/v0/validator-user", ""), http.StatusOK},
		{"admin users: list", get("/v0/admin/users", op), http.StatusOK},
		{"admin users: list without a token", get("/v0/admin/users", "").off(), http.StatusUnauthorized},
		{"admin users: list by a wallet user", get("/v0/admin/users", "alice"), http.StatusForbidden},
		{"admin users: onboard by a wallet user", post("/v0/admin/users", "alice", `{"name":"zed"}`), http.StatusForbidden},
		{"admin users: onboard without a name", post("/v0/admin/users", op, `{"party_id":"x::1220"}`).off(), http.StatusBadRequest},
		{"admin users: onboard with an empty name", post("/v0/admin/users", op, `{"name":""}`), http.StatusBadRequest},
		{"admin users: onboard with an invalid party", post("/v0/admin/users", op, `{"name":"zed1","party_id":"nobody"}`), http.StatusBadRequest},
		{"admin users: onboard with a party of another participant", post("/v0/admin/users", op,
			`{"name":"zed2","party_id":"`+string(e.Seeded.SVs[0].Party)+`","createPartyIfMissing":true}`), http.StatusBadRequest},
		{"register: body an array", post("/v0/register", "zed", `[]`).off(), http.StatusBadRequest},
		{"register without a token", post("/v0/register", "", `{}`).off(), http.StatusUnauthorized},
		// wallet-internal
		{"user-status", get("/v0/wallet/user-status", "alice"), http.StatusOK},
		{"user-status of the operator", get("/v0/wallet/user-status", op), http.StatusOK},
		{"user-status without a wallet", get("/v0/wallet/user-status", e.noWallet), http.StatusOK},
		{"user-status of an unknown user", get("/v0/wallet/user-status", "mallory"), http.StatusForbidden},
		{"balance", get("/v0/wallet/balance", "alice"), http.StatusOK},
		{"balance without a token", get("/v0/wallet/balance", "").off(), http.StatusUnauthorized},
		{"balance with a bad token", get("/v0/wallet/balance", "").withAuth("Bearer not-a-jwt"), http.StatusUnauthorized},
		{"balance with another scheme", get("/v0/wallet/balance", "").withAuth("Basic YWxpY2U6eA==").off(), http.StatusUnauthorized},
		{"balance of an unknown user", get("/v0/wallet/balance", "mallory"), http.StatusForbidden},
		{"balance without a wallet", get("/v0/wallet/balance", e.noWallet), http.StatusNotFound},
		{"amulets", get("/v0/wallet/amulets", "alice"), http.StatusOK},
		{"amulets without a wallet", get("/v0/wallet/amulets", e.noWallet), http.StatusNotFound},
		{"tap: amount not a decimal", post("/v0/wallet/tap", "alice", `{"amount":"1e3"}`), http.StatusBadRequest},
		{"tap: eleven decimals", post("/v0/wallet/tap", "alice", `{"amount":"1.00000000001"}`), http.StatusBadRequest},
		{"tap: amount a number", post("/v0/wallet/tap", "alice", `{"amount":10}`).off(), http.StatusBadRequest},
		{"tap: no amount", post("/v0/wallet/tap", "alice", `{"command_id":"x"}`).off(), http.StatusBadRequest},
		{"tap: zero", post("/v0/wallet/tap", "alice", `{"amount":"0"}`), http.StatusBadRequest},
		{"tap: negative", post("/v0/wallet/tap", "alice", `{"amount":"-5"}`), http.StatusBadRequest},
		{"tap: malformed JSON", post("/v0/wallet/tap", "alice", `{"amount":`).off(), http.StatusBadRequest},
		{"tap without a wallet", post("/v0/wallet/tap", e.noWallet, `{"amount":"1.0"}`), http.StatusNotFound},
		{"accept: unknown offer", post("/v0/wallet/transfer-offers/00abc/accept", "bob", ""), http.StatusNotFound},
		{"reject: unknown offer", post("/v0/wallet/transfer-offers/00abc/reject", "bob", ""), http.StatusNotFound},
		{"withdraw: unknown offer", post("/v0/wallet/transfer-offers/00abc/withdraw", "alice", ""), http.StatusNotFound},
		{"accepted-transfer-offers", get("/v0/wallet/accepted-transfer-offers", "alice"), http.StatusOK},
		{"subscription-requests", get("/v0/wallet/subscription-requests", "alice"), http.StatusOK},
		{"subscription accept: unknown request", post("/v0/wallet/subscription-requests/00abc/accept", "alice", ""), http.StatusNotFound},
		// wallet-external
		{"transfer-offers: list", get("/v0/wallet/transfer-offers", "alice"), http.StatusOK},
		{"transfer-offers: list without a wallet", get("/v0/wallet/transfer-offers", e.noWallet), http.StatusNotFound},
		{"transfer-offers: create without a wallet", post("/v0/wallet/transfer-offers", e.noWallet, offerBody(bob, "1.0", future, "t")), http.StatusNotFound},
		{"transfer-offers: create by an unknown user", post("/v0/wallet/transfer-offers", "mallory", offerBody(bob, "1.0", future, "t")), http.StatusForbidden},
		{"transfer-offers: create without a token", post("/v0/wallet/transfer-offers", "", offerBody(bob, "1.0", future, "t")).off(), http.StatusUnauthorized},
		{"transfer-offers: bad amount", post("/v0/wallet/transfer-offers", "alice", offerBody(bob, "ten", future, "t")), http.StatusBadRequest},
		{"transfer-offers: bad receiver", post("/v0/wallet/transfer-offers", "alice", offerBody("bob", "1.0", future, "t")), http.StatusBadRequest},
		{"transfer-offers: no receiver", post("/v0/wallet/transfer-offers", "alice",
			`{"amount":"1.0","description":"d","expires_at":1,"tracking_id":"t"}`).off(), http.StatusBadRequest},
		{"transfer-offers: no tracking id", post("/v0/wallet/transfer-offers", "alice",
			`{"receiver_party_id":"`+string(alice)+`","amount":"1.0","description":"d","expires_at":1}`).off(), http.StatusBadRequest},
		{"transfer-offers: expires_at a string", post("/v0/wallet/transfer-offers", "alice",
			`{"receiver_party_id":"`+string(bob)+`","amount":"1.0","description":"d","expires_at":"soon","tracking_id":"t"}`).off(), http.StatusBadRequest},
		{"transfer-offers: expires_at out of range", post("/v0/wallet/transfer-offers", "alice", offerBody(bob, "1.0", daml.MaxTimestamp+1, "t")), http.StatusBadRequest},
		{"transfer-offers: expires_at past", post("/v0/wallet/transfer-offers", "alice", offerBody(bob, "1.0", e.now()-1, "t")), http.StatusBadRequest},
		{"transfer-offers: expires_at now", post("/v0/wallet/transfer-offers", "alice", offerBody(bob, "1.0", e.now(), "t")), http.StatusBadRequest},
		{"transfer-offers: empty tracking id", post("/v0/wallet/transfer-offers", "alice", offerBody(bob, "1.0", future, "")), http.StatusBadRequest},
		{"transfer-offers: amount 0", post("/v0/wallet/transfer-offers", "alice", offerBody(bob, "0", future, "t")), http.StatusBadRequest},
		{"transfer-offers: amount -5", post("/v0/wallet/transfer-offers", "alice", offerBody(bob, "-5", future, "t")), http.StatusBadRequest},
		{"transfer-offers: amount -0.0000000001", post("/v0/wallet/transfer-offers", "alice", offerBody(bob, "-0.0000000001", future, "t")), http.StatusBadRequest},
		{"transfer-offers: unknown receiver", post("/v0/wallet/transfer-offers", "alice", offerBody(nobody, "1.0", future, "t")), http.StatusNotFound},
		{"transfer-offers: status of an unknown tracking id", post("/v0/wallet/transfer-offers/nope/status", "alice", ""), http.StatusNotFound},
		{"transfer-offers: status without a wallet", post("/v0/wallet/transfer-offers/nope/status", e.noWallet, ""), http.StatusNotFound},
		// ans-external
		{"entry/all", get("/v0/entry/all", "alice"), http.StatusOK},
		{"entry/all of the operator", get("/v0/entry/all", op), http.StatusOK},
		{"entry/all without a wallet", get("/v0/entry/all", e.noWallet), http.StatusNotFound},
		{"entry/all without a token", get("/v0/entry/all", "").off(), http.StatusUnauthorized},
		{"entry/create: not unverified", post("/v0/entry/create", "alice", `{"name":"shop.cns","url":"","description":""}`), http.StatusBadRequest},
		{"entry/create: no url", post("/v0/entry/create", "alice", `{"name":"shop.unverified.cns","description":""}`).off(), http.StatusBadRequest},
		// scan-proxy
		{"scan-proxy: dso-party-id", get("/v0/scan-proxy/dso-party-id", ""), http.StatusOK},
		{"scan-proxy: amulet-rules", get("/v0/scan-proxy/amulet-rules", "alice"), http.StatusOK},
		{"scan-proxy: open-and-issuing-mining-rounds", get("/v0/scan-proxy/open-and-issuing-mining-rounds", ""), http.StatusOK},
		{"scan-proxy: dso", get("/v0/scan-proxy/dso", ""), http.StatusOK},
		{"scan-proxy: dso-party-id with a token", get("/v0/scan-proxy/dso-party-id", "alice"), http.StatusOK},
		{"scan-proxy: dso-party-id with a bad token", get("/v0/scan-proxy/dso-party-id", "").withAuth("Bearer not-a-jwt"), http.StatusUnauthorized},
		{"scan-proxy: ans-entries", get("/v0/scan-proxy/ans-entries?page_size=10", ""), http.StatusOK},
		{"scan-proxy: ans-entries by prefix", get("/v0/scan-proxy/ans-entries?name_prefix=bob&page_size=10", "bob"), http.StatusOK},
		{"scan-proxy: ans-entries, one", get("/v0/scan-proxy/ans-entries?page_size=1", ""), http.StatusOK},
		{"scan-proxy: ans-entries without page_size", get("/v0/scan-proxy/ans-entries", "").off(), http.StatusBadRequest},
		{"scan-proxy: ans-entries, page_size not a number", get("/v0/scan-proxy/ans-entries?page_size=ten", "").off(), http.StatusBadRequest},
		{"scan-proxy: ans-entries, page_size over int32", get("/v0/scan-proxy/ans-entries?page_size=4294967296", "").off(), http.StatusBadRequest},
		{"scan-proxy: ans-entries, page_size 0", get("/v0/scan-proxy/ans-entries?page_size=0", ""), http.StatusBadRequest},
		{"scan-proxy: ans-entries, page_size 1001", get("/v0/scan-proxy/ans-entries?page_size=1001", ""), http.StatusBadRequest},
		{"scan-proxy: by-name", get("/v0/scan-proxy/ans-entries/by-name/alice.unverified.cns", ""), http.StatusOK},
		{"scan-proxy: by-name unknown", get("/v0/scan-proxy/ans-entries/by-name/nobody.unverified.cns", ""), http.StatusNotFound},
		{"scan-proxy: by-party", get("/v0/scan-proxy/ans-entries/by-party/"+string(bob), ""), http.StatusOK},
		{"scan-proxy: by-party unknown", get("/v0/scan-proxy/ans-entries/by-party/"+e.noWallet+"::1220ab", ""), http.StatusNotFound},
		// scan-proxy: the token-standard registry (no snapshot yet: no totalSupply)
		{"scan-proxy registry: info", get("/v0/scan-proxy/registry/metadata/v1/info", ""), http.StatusOK},
		{"scan-proxy registry: info with a token", get("/v0/scan-proxy/registry/metadata/v1/info", "alice"), http.StatusOK},
		{"scan-proxy registry: info with a bad token", get("/v0/scan-proxy/registry/metadata/v1/info", "").withAuth("Bearer not-a-jwt"), http.StatusUnauthorized},
		{"scan-proxy registry: instruments", get("/v0/scan-proxy/registry/metadata/v1/instruments", ""), http.StatusOK},
		{"scan-proxy registry: instruments, paging ignored", get("/v0/scan-proxy/registry/metadata/v1/instruments?pageSize=1&pageToken=x", "bob"), http.StatusOK},
		{"scan-proxy registry: Amulet", get("/v0/scan-proxy/registry/metadata/v1/instruments/Amulet", ""), http.StatusOK},
		{"scan-proxy registry: unknown instrument", get("/v0/scan-proxy/registry/metadata/v1/instruments/CC", ""), http.StatusNotFound},
		{"scan-proxy registry: unicode instrument", get("/v0/scan-proxy/registry/metadata/v1/instruments/"+url.PathEscape("Ämulet ☃"), ""), http.StatusNotFound},
		{"scan-proxy registry: instrument with an escaped slash", get("/v0/scan-proxy/registry/metadata/v1/instruments/Amulet%2F..%2Finfo", ""), http.StatusNotFound},
		{"scan-proxy registry: long instrument", get("/v0/scan-proxy/registry/metadata/v1/instruments/"+strings.Repeat("Amulet", 2000), ""), http.StatusNotFound},
		{"scan-proxy registry: unknown path", get("/v0/scan-proxy/registry/metadata/v2/info", "").off(), http.StatusNotFound},
		{"scan-proxy registry: transfer-factory, self", post(factory, "", factoryRequest(e.Seeded.DSOParty, alice, alice, true)), http.StatusOK},
		{"scan-proxy registry: transfer-factory, the tap", post(factory, "alice", factoryRequest(e.Seeded.DSOParty, e.Seeded.DSOParty, alice, true)), http.StatusOK},
		{"scan-proxy registry: transfer-factory, debug fields", post(factory, "", factoryRequest(e.Seeded.DSOParty, alice, bob, false)), http.StatusOK},
		{"scan-proxy registry: transfer-factory, malformed", post(factory, "", `{"choiceArguments":{"transfer":{}}}`), http.StatusBadRequest},
		{"scan-proxy registry: transfer-factory, no body", post(factory, "", ``).off(), http.StatusBadRequest},
		{"scan-proxy registry: transfer-factory, not JSON", post(factory, "", `{"choiceArguments":`).off(), http.StatusBadRequest},
		{"scan-proxy registry: transfer-factory with a bad token", post(factory, "", `{"choiceArguments":{}}`).withAuth("Bearer not-a-jwt"), http.StatusUnauthorized},
		{"scan-proxy registry: accept, unknown instruction", post(instruction+"/choice-contexts/accept", "", `{"excludeDebugFields":true}`), http.StatusNotFound},
		{"scan-proxy registry: reject, unknown instruction", post(instruction+"/choice-contexts/reject", "bob", `{}`), http.StatusNotFound},
		{"scan-proxy registry: withdraw, unknown instruction", post(instruction+"/choice-contexts/withdraw", "", `{"meta":{}}`), http.StatusNotFound},
		{"scan-proxy registry: an unknown choice", post(instruction+"/choice-contexts/update", "", `{}`).off(), http.StatusNotFound},
		// routing
		{"unknown path", get("/v0/nothing-here", "alice").off(), http.StatusNotFound},
	}
	g := apitest.OpenGolden(t, "static", *update)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				var rec = e.doUnlisted(t, tc.req)
				if rec.Code != tc.status {
					t.Errorf("status %d, want %d: %.500s", rec.Code, tc.status, rec.Body)
				}
				g.Check(t, tc.name, apitest.EntryOf(t, rec))
			})
		}
	})
	g.Finish(t, !t.Failed())
}

// decode reads a JSON answer.
func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

// factoryRequest is a transfer-factory request for a transfer of 10 from
// sender to receiver without inputs, its choice arguments as the wallet
// SDK builds them.
func factoryRequest(dso, sender, receiver daml.Party, excludeDebug bool) string {
	args := map[string]any{
		"expectedAdmin": dso,
		"transfer": map[string]any{
			"sender": sender, "receiver": receiver, "amount": "10.0",
			"instrumentId": map[string]any{"admin": dso, "id": "Amulet"},
			"requestedAt":  "2026-01-05T08:59:00.000Z", "executeBefore": "2026-01-06T09:00:00.000Z",
			"inputHoldingCids": []string{}, "meta": map[string]any{"values": map[string]string{}},
		},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
	}
	b, err := json.Marshal(map[string]any{"choiceArguments": args, "excludeDebugFields": excludeDebug})
	if err != nil {
		panic(err)
	}
	return string(b)
}
