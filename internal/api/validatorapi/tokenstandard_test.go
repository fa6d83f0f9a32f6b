package validatorapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/validatorapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// tsBody is the body of a token-standard transfer.
func tsBody(receiver daml.Party, amount string, expires daml.Timestamp, tracking string) string {
	return fmt.Sprintf(`{"receiver_party_id":%q,"amount":%q,"description":"invoice %s","expires_at":%d,"tracking_id":%q}`,
		receiver, amount, tracking, int64(expires), tracking)
}

// tsResult is the answer of a token-standard choice, its output read as
// whichever variant it is.
type tsResult struct {
	Output struct {
		TransferInstructionCid string   `json:"transfer_instruction_cid"`
		ReceiverHoldingCids    []string `json:"receiver_holding_cids"`
	} `json:"output"`
	SenderChangeCids []string          `json:"sender_change_cids"`
	Meta             map[string]string `json:"meta"`
}

// unlocked is the sum of the initial amounts of a wallet's unlocked
// amulets: what transfers move, before holding fees.
func (f *flow) unlocked(user string) daml.Numeric {
	f.t.Helper()
	rec := f.e.do(f.t, get("/v0/wallet/amulets", user))
	var am struct {
		Amulets []struct {
			Contract struct {
				Contract struct {
					Payload struct {
						Amount struct {
							InitialAmount string `json:"initialAmount"`
						} `json:"amount"`
					} `json:"payload"`
				} `json:"contract"`
			} `json:"contract"`
		} `json:"amulets"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &am); err != nil {
		f.t.Fatal(err)
	}
	var sum daml.Numeric
	for _, a := range am.Amulets {
		s, err := sum.Add(daml.MustNumeric(a.Contract.Contract.Payload.Amount.InitialAmount))
		if err != nil {
			f.t.Fatal(err)
		}
		sum = s
	}
	return sum
}

// transfers are the contract ids of the pending instructions a wallet
// lists.
func (f *flow) transfers(step, user string) []string {
	f.t.Helper()
	rec := f.call(step, get("/v0/wallet/token-standard/transfers", user), http.StatusOK)
	var out []string
	for _, c := range decode[validatorapi.ListTokenStandardTransfersResponse](f.t, rec.Body.Bytes()).Transfers {
		out = append(out, c.ContractID)
	}
	return out
}

// history is a wallet's whole history, newest first.
func (f *flow) history(step, user string) []validatorapi.TransactionItem {
	f.t.Helper()
	rec := f.call(step, post("/v0/wallet/transactions", user, `{"page_size":100}`), http.StatusOK)
	return decode[validatorapi.ListTransactionsResponse](f.t, rec.Body.Bytes()).Items
}

func sub(t *testing.T, a, b daml.Numeric) daml.Numeric {
	t.Helper()
	d, err := a.Sub(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestTokenStandardFlow drives the wallet's token-standard transfers:
// alice offers bob transfers through the transfer factory; bob accepts
// one, rejects another, alice withdraws a third (the last through /v2);
// once bob has a pre-approval, a transfer to him completes at once; a
// transfer to herself too. Every refusal is checked on the way, the
// balances at the end, and both wallets' histories show each step with
// Splice's kinds.
func TestTokenStandardFlow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := &flow{t: t, e: e, g: apitest.OpenGolden(t, "tokenstandard", *update), name: "token standard"}
	alice, bob := e.Party("alice"), e.Party("bob")
	nobody := daml.Party("nobody::1220" + strings.Repeat("ab", 32))
	const create = "/v0/wallet/token-standard/transfers"
	future := e.now() + hour
	aliceBefore, bobBefore := f.unlocked("alice"), f.unlocked("bob")
	// The seed's taps and transfers are history already.
	seeded := map[string]bool{}
	for _, u := range []string{"alice", "bob"} {
		for _, it := range f.history("history of "+u+" before", u) {
			seeded[it.EventID] = true
		}
	}

	// Refusals that change nothing.
	f.call("create: amount not a decimal", post(create, "alice", tsBody(bob, "ten", future, "r")), http.StatusBadRequest)
	f.call("create: amount 0", post(create, "alice", tsBody(bob, "0", future, "r")), http.StatusBadRequest)
	f.call("create: amount negative", post(create, "alice", tsBody(bob, "-1.0", future, "r")), http.StatusBadRequest)
	f.call("create: receiver not a party", post(create, "alice", tsBody("bob", "1.0", future, "r")), http.StatusBadRequest)
	f.call("create: unknown receiver", post(create, "alice", tsBody(nobody, "1.0", future, "r")), http.StatusNotFound)
	f.call("create: expires_at now", post(create, "alice", tsBody(bob, "1.0", e.now(), "r")), http.StatusBadRequest)
	f.call("create: expires_at out of range", post(create, "alice", tsBody(bob, "1.0", daml.MaxTimestamp+1, "r")), http.StatusBadRequest)
	f.call("create: expires_at beyond the 90-day limit", post(create, "alice", tsBody(bob, "1.0", e.now()+91*24*hour, "r")), http.StatusConflict)
	f.call("create: empty tracking id", post(create, "alice", tsBody(bob, "1.0", future, "")), http.StatusBadRequest)
	f.call("create: no tracking id", post(create, "alice",
		`{"receiver_party_id":"`+string(bob)+`","amount":"1.0","description":"d","expires_at":1}`).off(), http.StatusBadRequest)
	f.call("create: more than the wallet holds", post(create, "alice", tsBody(bob, "100000000.0", future, "r")), http.StatusBadRequest)
	f.call("create: without a wallet", post(create, e.noWallet, tsBody(bob, "1.0", future, "r")), http.StatusNotFound)
	f.call("create: unknown user", post(create, "mallory", tsBody(bob, "1.0", future, "r")), http.StatusForbidden)
	f.call("list: without a wallet", get(create, e.noWallet), http.StatusNotFound)
	f.call("accept: unknown instruction", post(create+"/00abc/accept", "bob", ""), http.StatusNotFound)
	f.call("reject: unknown instruction", post(create+"/00abc/reject", "bob", ""), http.StatusNotFound)
	f.call("withdraw: unknown instruction", post(create+"/00abc/withdraw", "alice", ""), http.StatusNotFound)
	f.call("history: page_size 0", post("/v0/wallet/transactions", "alice", `{"page_size":0}`), http.StatusBadRequest)
	f.call("history: no page_size", post("/v0/wallet/transactions", "alice", `{}`).off(), http.StatusBadRequest)
	f.call("history: without a wallet", post("/v0/wallet/transactions", e.noWallet, `{"page_size":10}`), http.StatusNotFound)
	if got := f.transfers("list before", "alice"); len(got) != 0 {
		t.Fatalf("alice lists %v before any transfer", got)
	}

	offer := func(step, path, amount, tracking string) string {
		t.Helper()
		rec := f.call(step, post(path, "alice", tsBody(bob, amount, future, tracking)), http.StatusOK)
		r := decode[tsResult](t, rec.Body.Bytes())
		if r.Output.TransferInstructionCid == "" {
			t.Fatalf("%s: not pending: %s", step, rec.Body)
		}
		return r.Output.TransferInstructionCid
	}

	// Accepted.
	ti1 := offer("offer 1", create, "10.0", "ts-1")
	f.call("offer 1 again with its tracking id", post(create, "alice", tsBody(bob, "10.0", future, "ts-1")), http.StatusConflict)
	for _, u := range []string{"alice", "bob"} {
		if got := f.transfers("list of "+u+" after offer 1", u); len(got) != 1 || got[0] != ti1 {
			t.Errorf("%s lists %v, want [%s]", u, got, ti1)
		}
	}
	f.call("offer 1: accept by the sender", post(create+"/"+ti1+"/accept", "alice", ""), http.StatusForbidden)
	f.call("offer 1: withdraw by the receiver", post(create+"/"+ti1+"/withdraw", "bob", ""), http.StatusForbidden)
	f.call("offer 1: accept by another wallet", post(create+"/"+ti1+"/accept", e.Seeded.Validator.OperatorUser, ""), http.StatusNotFound)
	rec := f.call("offer 1: accept", post(create+"/"+ti1+"/accept", "bob", ""), http.StatusOK)
	if r := decode[tsResult](t, rec.Body.Bytes()); len(r.Output.ReceiverHoldingCids) != 1 {
		t.Errorf("accept: %s, want completed with one holding", rec.Body)
	}
	f.call("offer 1: accept again", post(create+"/"+ti1+"/accept", "bob", ""), http.StatusNotFound)

	// Rejected.
	ti2 := offer("offer 2", create, "2.5", "ts-2")
	f.call("offer 2: reject by the sender", post(create+"/"+ti2+"/reject", "alice", ""), http.StatusForbidden)
	f.call("offer 2: reject", post(create+"/"+ti2+"/reject", "bob", ""), http.StatusOK)

	// Withdrawn, through the /v2 paths.
	ti3 := offer("offer 3 (v2)", "/v2/wallet/token-standard/transfers", "3.0", "ts-3")
	f.call("offer 3: withdraw (v2)", post("/v2/wallet/token-standard/transfers/"+ti3+"/withdraw", "alice", ""), http.StatusOK)
	f.call("offer 3: reject after the withdrawal (v2)", post("/v2/wallet/token-standard/transfers/"+ti3+"/reject", "bob", ""), http.StatusNotFound)
	if got := f.transfers("list after the three", "bob"); len(got) != 0 {
		t.Errorf("bob lists %v after all were settled", got)
	}

	// bob's pre-approval makes the next transfer direct; one to herself
	// is a self transfer.
	e.Preapprove(t, bob, nil, e.now()+24*hour)
	rec = f.call("direct to a pre-approved receiver", post(create, "alice", tsBody(bob, "5.0", future, "ts-4")), http.StatusOK)
	if r := decode[tsResult](t, rec.Body.Bytes()); len(r.Output.ReceiverHoldingCids) != 1 {
		t.Errorf("direct transfer: %s, want completed", rec.Body)
	}
	rec = f.call("self transfer", post(create, "alice", tsBody(alice, "1.0", future, "ts-5")), http.StatusOK)
	if r := decode[tsResult](t, rec.Body.Bytes()); len(r.Output.ReceiverHoldingCids) != 1 {
		t.Errorf("self transfer: %s, want completed", rec.Body)
	}

	// Balances: bob got 10 and 5; alice paid them, and the holding fees
	// of the amulets she spent (small: no time passed).
	if got, want := sub(t, f.unlocked("bob"), bobBefore), daml.MustNumeric("15.0"); got.Cmp(want) != 0 {
		t.Errorf("bob's amulets grew by %s, want %s", got, want)
	}
	if got := sub(t, aliceBefore, f.unlocked("alice")); got.Cmp(daml.MustNumeric("15.0")) < 0 || got.Cmp(daml.MustNumeric("15.1")) > 0 {
		t.Errorf("alice's amulets shrank by %s, want 15 and the fees", got)
	}
	f.call("balance of the receiver", get("/v0/wallet/balance", "bob"), http.StatusOK)
	f.call("balance of the sender", get("/v0/wallet/balance", "alice"), http.StatusOK)

	// A send through the pre-approval and a tap show in the history too.
	f.call("pre-approval send", post("/v0/wallet/transfer-preapproval/send", "alice",
		`{"receiver_party_id":"`+string(bob)+`","amount":"0.5","deduplication_id":"send-1","description":"tip"}`), http.StatusOK)
	f.call("tap", post("/v0/wallet/tap", "bob", `{"amount":"1.0"}`), http.StatusOK)
	// The histories, newest first.
	kinds := func(items []validatorapi.TransactionItem) []string {
		var out []string
		for _, it := range items {
			if seeded[it.EventID] {
				continue
			}
			out = append(out, it.TransactionType+" "+it.TransactionSubtype.Choice)
		}
		return out
	}
	wantAlice := []string{
		"transfer TransferPreapproval_Send",           // the pre-approval send
		"transfer AmuletRules_Transfer",               // self
		"transfer AmuletRules_Transfer",               // direct
		"balance_change TransferInstruction_Withdraw", // offer 3 withdrawn
		"transfer TransferFactory_Transfer",           // offer 3
		"balance_change TransferInstruction_Reject",   // offer 2 rejected (unlocked)
		"transfer TransferFactory_Transfer",           // offer 2
		"transfer TransferInstruction_Accept",         // offer 1 accepted
		"transfer TransferFactory_Transfer",           // offer 1
	}
	wantBob := []string{
		"balance_change AmuletRules_DevNet_Tap",       // his tap
		"transfer TransferPreapproval_Send",           // the pre-approval send
		"transfer TransferPreapproval_Send",           // direct, as its receiver sees it
		"balance_change TransferInstruction_Withdraw", // offer 3 withdrawn
		"transfer TransferFactory_Transfer",           // offer 3, its instruction's creation
		"balance_change TransferInstruction_Reject",
		"transfer TransferFactory_Transfer",
		"transfer TransferInstruction_Accept",
		"transfer TransferFactory_Transfer",
	}
	ha, hb := f.history("history of alice", "alice"), f.history("history of bob", "bob")
	if got := kinds(ha); strings.Join(got, "\n") != strings.Join(wantAlice, "\n") {
		t.Errorf("alice's history:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantAlice, "\n"))
	}
	if got := kinds(hb); strings.Join(got, "\n") != strings.Join(wantBob, "\n") {
		t.Errorf("bob's history:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantBob, "\n"))
	}
	// Pages: two at a time, continuing after the last.
	var paged []validatorapi.TransactionItem
	after := ""
	for i := 0; i < 20; i++ {
		body, _ := json.Marshal(map[string]any{"page_size": 2, "begin_after_id": after})
		rec := f.call(fmt.Sprintf("history of alice, page %d", i+1), post("/v0/wallet/transactions", "alice", string(body)), http.StatusOK)
		page := decode[validatorapi.ListTransactionsResponse](t, rec.Body.Bytes()).Items
		paged = append(paged, page...)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1].EventID
	}
	if len(paged) != len(ha) {
		t.Errorf("paging gave %d items, one page %d", len(paged), len(ha))
	}
	for i := range min(len(paged), len(ha)) {
		if paged[i].EventID != ha[i].EventID {
			t.Errorf("item %d: paged %s, whole %s", i, paged[i].EventID, ha[i].EventID)
		}
	}
	f.call("history after an unknown id", post("/v0/wallet/transactions", "alice", `{"page_size":10,"begin_after_id":"#nope:0"}`), http.StatusOK)
	f.g.Finish(t, !t.Failed())
}

// tsFuzzPaths are the token-standard and history endpoints whose bodies
// and path segments FuzzTokenStandardRequests varies ({} is the segment).
var tsFuzzPaths = []string{
	"/v0/wallet/token-standard/transfers", "/v2/wallet/token-standard/transfers",
	"/v0/wallet/token-standard/transfers/{}/accept", "/v0/wallet/token-standard/transfers/{}/reject",
	"/v2/wallet/token-standard/transfers/{}/withdraw", "/v0/wallet/transactions",
}

// FuzzTokenStandardRequests sends arbitrary bodies and contract ids to the
// token-standard transfer and history decoders: never a panic nor a 5xx.
func FuzzTokenStandardRequests(f *testing.F) {
	bob := "bob::1220ab"
	for i, body := range []string{
		tsBody(daml.Party(bob), "1.0", 1, "t"), `{"receiver_party_id":"bob::1220ab","amount":"1e3","description":"","expires_at":-1,"tracking_id":"\u0000"}`,
		`{"receiver_party_id":7,"amount":null}`, `{}`, `null`, `[]`, `{"expires_at":1e400}`,
	} {
		f.Add(uint8(i%2), body, "")
	}
	for _, id := range []string{"00abc", "", "..", "%2F", "00" + strings.Repeat("f", 200)} {
		f.Add(uint8(2), "", id)
		f.Add(uint8(4), "{}", id)
	}
	for _, body := range []string{`{"page_size":1}`, `{"page_size":0}`, `{"page_size":1001}`, `{"page_size":10,"begin_after_id":"#x:1"}`,
		`{"page_size":10,"begin_after_id":"#:"}`, `{"page_size":"10"}`, `{"page_size":9223372036854775807,"begin_after_id":""}`} {
		f.Add(uint8(5), body, "")
	}
	f.Fuzz(func(t *testing.T, endpoint uint8, body, segment string) {
		fuzzEnv.once.Do(func() { fuzzEnv.e = newEnv(&fuzzTB{t}) })
		e := fuzzEnv.e
		if e == nil {
			t.Skip("no network")
		}
		path := strings.ReplaceAll(tsFuzzPaths[int(endpoint)%len(tsFuzzPaths)], "{}", url.PathEscape(segment))
		u, err := url.Parse(baseURL + path)
		if err != nil {
			return
		}
		req := httptest.NewRequest(http.MethodPost, baseURL+"/", strings.NewReader(body))
		req.URL = u
		req.Header.Set("Authorization", "Bearer "+token(t, "alice"))
		rec := httptest.NewRecorder()
		e.handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q: %d %s", req.URL, body, rec.Code, rec.Body)
		}
	})
}

// TestHistoryWorkflows: the history names the transfers of the wallet's
// other workflows after them, as Splice's does: a direct transfer offer
// completed by the automation, a name entry's subscription payment and
// its collection by the DSO, and the merge automation's transfers.
func TestHistoryWorkflows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := &flow{t: t, e: e, g: apitest.OpenGolden(t, "history", *update), name: "history"}
	seeded := map[string]bool{}
	for _, it := range f.history("alice before", "alice") {
		seeded[it.EventID] = true
	}
	cid := f.offer("offer", "3.0", e.now()+hour, "h-1")
	f.call("accept", post("/v0/wallet/transfer-offers/"+cid+"/accept", "bob", ""), http.StatusOK)
	e.step(t) // completes the offer
	rec := f.call("name entry", post("/v0/entry/create", "alice", `{"name":"h.unverified.cns","url":"","description":""}`), http.StatusOK)
	created := decode[validatorapi.CreateAnsEntryResponse](t, rec.Body.Bytes())
	f.call("subscription accept", post("/v0/wallet/subscription-requests/"+created.SubscriptionRequestCid+"/accept", "alice", ""), http.StatusOK)
	if res, err := splice.NewDSOAutomation(e.Network, e.Seeded, slog.New(slog.DiscardHandler)).RunOnce(context.Background()); err != nil || res.Actions == 0 {
		t.Fatalf("DSO automation: %+v, %v", res, err)
	}
	f.call("tap", post("/v0/wallet/tap", "alice", `{"amount":"1.0"}`), http.StatusOK)
	e.advance(t, time.Minute)
	e.step(t) // merges alice's amulets, now old enough
	// Not recorded: the automation merges the wallets in map order, so
	// the merge's update id varies from run to run.
	rec = e.do(t, post("/v0/wallet/transactions", "alice", `{"page_size":100}`))
	if rec.Code != http.StatusOK {
		t.Fatalf("history: %d %s", rec.Code, rec.Body)
	}
	var got []string
	for _, it := range decode[validatorapi.ListTransactionsResponse](t, rec.Body.Bytes()).Items {
		if !seeded[it.EventID] {
			got = append(got, it.TransactionType+" "+it.TransactionSubtype.Choice)
		}
	}
	want := []string{
		"transfer WalletAppInstall_ExecuteBatch",
		"balance_change AmuletRules_DevNet_Tap",
		"transfer AnsRules_CollectInitialEntryPayment",
		"transfer SubscriptionRequest_AcceptAndMakePayment",
		"transfer AcceptedTransferOffer_Complete",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("alice's history:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f.g.Finish(t, !t.Failed())
}
