package validatorapi_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
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

// flow is a sequence of calls against its own network, each recorded in
// testdata/flows.golden.json under "<flow>: <step>".
type flow struct {
	t    *testing.T
	e    *env
	g    *apitest.Golden
	name string
}

func (f *flow) call(step string, rq request, status int) *httptest.ResponseRecorder {
	f.t.Helper()
	rec := f.e.do(f.t, rq)
	if rec.Code != status {
		f.t.Fatalf("%s: status %d, want %d: %.500s", step, rec.Code, status, rec.Body)
	}
	f.g.Check(f.t, f.name+": "+step, apitest.EntryOf(f.t, rec))
	return rec
}

// offer creates an offer from alice to bob and returns its contract id.
func (f *flow) offer(step, amount string, expires daml.Timestamp, tracking string) string {
	f.t.Helper()
	rec := f.call(step, post("/v0/wallet/transfer-offers", "alice", offerBody(f.e.Party("bob"), amount, expires, tracking)), http.StatusOK)
	return decode[validatorapi.CreateTransferOfferResponse](f.t, rec.Body.Bytes()).OfferContractID
}

func (f *flow) status(step, user, tracking string) validatorapi.TransferOfferStatusResponse {
	f.t.Helper()
	rec := f.call(step, post("/v0/wallet/transfer-offers/"+tracking+"/status", user, ""), http.StatusOK)
	return decode[validatorapi.TransferOfferStatusResponse](f.t, rec.Body.Bytes())
}

const hour = daml.Timestamp(3600_000_000)

// TestFlows drives the wallet's and the name service's workflows through
// the API, with the wallet automation and the DSO automation run step by
// step so that every outcome is deterministic.
func TestFlows(t *testing.T) {
	t.Parallel()
	flows := []struct {
		name string
		run  func(f *flow)
	}{
		{"direct transfer completed", func(f *flow) {
			e := f.e
			cid := f.offer("create", "10.0", e.now()+hour, "t-1")
			f.call("create again with the tracking id", post("/v0/wallet/transfer-offers", "alice", offerBody(e.Party("bob"), "10.0", e.now()+hour, "t-1")), http.StatusConflict)
			if st := f.status("status after create", "alice", "t-1"); st.Status != "created" || st.ContractID != cid {
				t.Errorf("status after create = %+v, want created %s", st, cid)
			}
			f.call("offers of the receiver", get("/v0/wallet/transfer-offers", "bob"), http.StatusOK)
			f.call("accept by the sender", post("/v0/wallet/transfer-offers/"+cid+"/accept", "alice", ""), http.StatusForbidden)
			f.call("accept by someone else's wallet", post("/v0/wallet/transfer-offers/"+cid+"/accept", e.Seeded.Validator.OperatorUser, ""), http.StatusNotFound)
			rec := f.call("accept", post("/v0/wallet/transfer-offers/"+cid+"/accept", "bob", ""), http.StatusOK)
			accepted := decode[validatorapi.AcceptTransferOfferResponse](t, rec.Body.Bytes()).AcceptedOfferContractID
			if st := f.status("status after accept", "bob", "t-1"); st.Status != "accepted" || st.ContractID != accepted {
				t.Errorf("status after accept = %+v, want accepted %s", st, accepted)
			}
			f.call("accepted offers of the sender", get("/v0/wallet/accepted-transfer-offers", "alice"), http.StatusOK)
			e.step(t)
			st := f.status("status after the automation", "alice", "t-1")
			if st.Status != "completed" || st.ContractID == "" {
				t.Fatalf("status after the automation = %+v, want completed", st)
			}
			rec = f.call("amulets of the receiver", get("/v0/wallet/amulets", "bob"), http.StatusOK)
			if !strings.Contains(rec.Body.String(), `"contract_id":"`+st.ContractID+`"`) {
				t.Errorf("bob's amulets lack the transferred amulet %s", st.ContractID)
			}
			f.call("balance of the sender", get("/v0/wallet/balance", "alice"), http.StatusOK)
			f.call("accepted offers after completion", get("/v0/wallet/accepted-transfer-offers", "alice"), http.StatusOK)
		}},
		{"direct transfer rejected", func(f *flow) {
			cid := f.offer("create", "1.5", f.e.now()+hour, "t-2")
			f.call("reject by the sender", post("/v0/wallet/transfer-offers/"+cid+"/reject", "alice", ""), http.StatusForbidden)
			f.call("reject", post("/v0/wallet/transfer-offers/"+cid+"/reject", "bob", ""), http.StatusOK)
			if st := f.status("status", "alice", "t-2"); st.Status != "failed" || st.FailureKind != "rejected" {
				t.Errorf("status = %+v, want failed/rejected", st)
			}
			f.call("offers after rejecting", get("/v0/wallet/transfer-offers", "bob"), http.StatusOK)
			f.call("reject again", post("/v0/wallet/transfer-offers/"+cid+"/reject", "bob", ""), http.StatusNotFound)
		}},
		{"direct transfer withdrawn", func(f *flow) {
			cid := f.offer("create", "2.0", f.e.now()+hour, "t-3")
			f.call("withdraw by the receiver", post("/v0/wallet/transfer-offers/"+cid+"/withdraw", "bob", ""), http.StatusForbidden)
			f.call("withdraw", post("/v0/wallet/transfer-offers/"+cid+"/withdraw", "alice", ""), http.StatusOK)
			if st := f.status("status", "bob", "t-3"); st.Status != "failed" || st.FailureKind != "withdrawn" || st.WithdrawnReason != "Withdrawn by sender" {
				t.Errorf("status = %+v, want failed/withdrawn by sender", st)
			}
		}},
		{"direct transfer expired", func(f *flow) {
			e := f.e
			cid := f.offer("create", "3.0", e.now()+hour, "t-4")
			e.advance(t, time.Hour+time.Second)
			f.call("accept after expiry", post("/v0/wallet/transfer-offers/"+cid+"/accept", "bob", ""), http.StatusConflict)
			if st := f.status("status before the automation", "alice", "t-4"); st.Status != "created" {
				t.Errorf("status before the automation = %+v, want created", st)
			}
			e.step(t)
			if st := f.status("status after the automation", "alice", "t-4"); st.Status != "failed" || st.FailureKind != "expired" {
				t.Errorf("status = %+v, want failed/expired", st)
			}
		}},
		{"direct transfer accepted at its expiry", func(f *flow) {
			e := f.e
			cid := f.offer("create", "4.0", e.now()+hour, "t-5")
			e.advance(t, time.Hour)
			f.call("accept exactly at expires_at", post("/v0/wallet/transfer-offers/"+cid+"/accept", "bob", ""), http.StatusOK)
			e.step(t)
			if st := f.status("status after the automation", "bob", "t-5"); st.Status != "completed" {
				t.Errorf("status = %+v, want completed", st)
			}
		}},
		{"direct transfer without the funds", func(f *flow) {
			e := f.e
			cid := f.offer("create", "1000000.0", e.now()+hour, "t-6")
			f.call("accept", post("/v0/wallet/transfer-offers/"+cid+"/accept", "bob", ""), http.StatusOK)
			e.step(t)
			st := f.status("status after the automation", "alice", "t-6")
			if st.Status != "failed" || st.FailureKind != "withdrawn" || !strings.HasPrefix(st.WithdrawnReason, "out of funds (missing ") || !strings.HasSuffix(st.WithdrawnReason, " CC)") {
				t.Errorf("status = %+v, want failed/withdrawn out of funds", st)
			}
		}},
		{"odd offers on the ledger", func(f *flow) {
			// Offers made through the ledger API that the log cannot
			// record (an empty tracking id, a NUL in one): every user's
			// offers and status lookups still work.
			e := f.e
			e.directOffer(t, "alice", "bob", "1.0", "")
			e.directOffer(t, "bob", "alice", "1.0", "nul\x00inside")
			f.offer("create after them", "1.0", e.now()+hour, "t-7")
			if st := f.status("status of the sender", "alice", "t-7"); st.Status != "created" {
				t.Errorf("status = %+v, want created", st)
			}
			f.status("status of the receiver", "bob", "t-7")
			f.call("status of the skipped offer", post("/v0/wallet/transfer-offers/nul%00inside/status", "bob", "").off(), http.StatusNotFound)
		}},
		{"non-positive offer on the ledger", func(f *flow) {
			// An offer of 0 made through the ledger API: once accepted,
			// the sender's automation ends it with the true reason.
			e := f.e
			cid := e.directOffer(t, "alice", "bob", "0", "t-8")
			f.call("accept", post("/v0/wallet/transfer-offers/"+string(cid)+"/accept", "bob", ""), http.StatusOK)
			e.step(t)
			st := f.status("status after the automation", "alice", "t-8")
			if st.Status != "failed" || st.FailureKind != "withdrawn" || st.WithdrawnReason != "Transfer amount in CC must be positive, got 0.0000000000" {
				t.Errorf("status = %+v, want failed/withdrawn for the amount", st)
			}
		}},
		{"name entry", func(f *flow) {
			e := f.e
			rec := f.call("create", post("/v0/entry/create", "alice", `{"name":"shop.unverified.cns","url":"https://shop.example.com","description":"Alice's shop"}`), http.StatusOK)
			created := decode[validatorapi.CreateAnsEntryResponse](t, rec.Body.Bytes())
			f.call("subscription requests", get("/v0/wallet/subscription-requests", "alice"), http.StatusOK)
			f.call("subscription requests of another user", get("/v0/wallet/subscription-requests", "bob"), http.StatusOK)
			f.call("accept by another user", post("/v0/wallet/subscription-requests/"+created.SubscriptionRequestCid+"/accept", "bob", ""), http.StatusNotFound)
			f.call("accept", post("/v0/wallet/subscription-requests/"+created.SubscriptionRequestCid+"/accept", "alice", ""), http.StatusOK)
			f.call("entries before the DSO collects", get("/v0/entry/all", "alice"), http.StatusOK)
			res, err := splice.NewDSOAutomation(e.Network, e.Seeded, slog.New(slog.DiscardHandler)).RunOnce(context.Background())
			if err != nil || res.Actions == 0 {
				t.Fatalf("DSO automation: %+v, %v", res, err)
			}
			rec = f.call("entries", get("/v0/entry/all", "alice"), http.StatusOK)
			if !strings.Contains(rec.Body.String(), `"name":"shop.unverified.cns"`) {
				t.Errorf("entry/all lacks the new entry: %s", rec.Body)
			}
			f.call("scan-proxy by-name", get("/v0/scan-proxy/ans-entries/by-name/shop.unverified.cns", "alice"), http.StatusOK)
			f.call("balance after paying", get("/v0/wallet/balance", "alice"), http.StatusOK)
			// A year later the entry has expired, though its contract is
			// still active until the DSO expires it.
			e.advance(t, 365*24*time.Hour)
			f.call("entries after expiry", get("/v0/entry/all", "alice"), http.StatusOK)
		}},
		{"onboarding", func(f *flow) {
			e := f.e
			op := e.Seeded.Validator.OperatorUser
			rec := f.call("register", post("/v0/register", "dave", ""), http.StatusOK)
			party := decode[validatorapi.PartyResponse](t, rec.Body.Bytes()).PartyID
			rec = f.call("register again", post("/v0/register", "dave", "null"), http.StatusOK)
			if again := decode[validatorapi.PartyResponse](t, rec.Body.Bytes()).PartyID; again != party {
				t.Errorf("register again: party %s, want %s", again, party)
			}
			f.call("user-status", get("/v0/wallet/user-status", "dave"), http.StatusOK)
			f.call("onboard a user", post("/v0/admin/users", op, `{"name":"erin"}`), http.StatusOK)
			f.call("onboard a user without a wallet onto its party", post("/v0/admin/users", op, `{"name":"carol","party_id":"`+
				string(e.Party("bob"))[:0]+carolParty(t, e)+`"}`), http.StatusOK)
			f.call("onboard a user with another party", post("/v0/admin/users", op, `{"name":"erin","party_id":"`+string(e.Party("bob"))+`"}`), http.StatusConflict)
			f.call("users", get("/v0/admin/users", op), http.StatusOK)
			f.call("tap", post("/v0/wallet/tap", "dave", `{"amount":"1.0","command_id":"tap-1"}`), http.StatusOK)
			f.call("balance", get("/v0/wallet/balance", "dave"), http.StatusOK)
			f.call("amulets", get("/v0/wallet/amulets", "dave"), http.StatusOK)
		}},
		{"transfer pre-approval", func(f *flow) {
			e := f.e
			op := e.Seeded.Validator.OperatorUser
			bob := e.Party("bob")
			byParty := "/v0/admin/transfer-preapprovals/by-party/" + url.PathEscape(string(bob))
			send := func(amount, dedup string) string {
				return fmt.Sprintf(`{"receiver_party_id":%q,"amount":%q,"deduplication_id":%q,"description":"coffee"}`, bob, amount, dedup)
			}
			f.call("send before bob has one", post("/v0/wallet/transfer-preapproval/send", "alice", send("5.0", "s-0")), http.StatusBadRequest)
			f.call("lookup before", get(byParty, op), http.StatusNotFound)
			rec := f.call("create", post("/v0/wallet/transfer-preapproval", "bob", ""), http.StatusOK)
			cid := decode[validatorapi.CreateTransferPreapprovalResponse](t, rec.Body.Bytes()).TransferPreapprovalContractID
			rec = f.call("create again", post("/v0/wallet/transfer-preapproval", "bob", ""), http.StatusConflict)
			if again := decode[validatorapi.CreateTransferPreapprovalResponse](t, rec.Body.Bytes()).TransferPreapprovalContractID; again != cid {
				t.Errorf("create again: %s, want the existing %s", again, cid)
			}
			f.call("create without a wallet", post("/v0/wallet/transfer-preapproval", e.noWallet, ""), http.StatusNotFound)
			f.call("lookup as a wallet user", get(byParty, "bob"), http.StatusForbidden)
			rec = f.call("lookup", get(byParty, op), http.StatusOK)
			if !strings.Contains(rec.Body.String(), `"contract_id":"`+cid+`"`) {
				t.Errorf("lookup lacks %s: %s", cid, rec.Body)
			}
			f.call("list", get("/v0/admin/transfer-preapprovals", op), http.StatusOK)
			f.call("send", post("/v0/wallet/transfer-preapproval/send", "alice", send("5.0", "s-1")), http.StatusOK)
			f.call("send again with the deduplication id", post("/v0/wallet/transfer-preapproval/send", "alice", send("5.0", "s-1")), http.StatusConflict)
			f.call("send zero", post("/v0/wallet/transfer-preapproval/send", "alice", send("0", "s-2")), http.StatusBadRequest)
			f.call("send without an amount", post("/v0/wallet/transfer-preapproval/send", "alice", `{"receiver_party_id":"`+string(bob)+`","deduplication_id":"s-3"}`).off(), http.StatusBadRequest)
			f.call("balance of the receiver", get("/v0/wallet/balance", "bob"), http.StatusOK)
			// Sixty days on, the automation renews it for 90 days past
			// its expiry.
			e.advance(t, 60*24*time.Hour)
			e.step(t)
			rec = f.call("lookup after the renewal", get(byParty, op), http.StatusOK)
			if strings.Contains(rec.Body.String(), `"contract_id":"`+cid+`"`) {
				t.Errorf("not renewed after 60 days: %s", rec.Body)
			}
			f.call("cancel as a wallet user", request{method: http.MethodDelete, path: byParty, user: "bob"}, http.StatusForbidden)
			f.call("cancel", request{method: http.MethodDelete, path: byParty, user: op}, http.StatusOK)
			f.call("cancel again", request{method: http.MethodDelete, path: byParty, user: op}, http.StatusNotFound)
			f.call("list after cancel", get("/v0/admin/transfer-preapprovals", op), http.StatusOK)
			f.call("send after cancel", post("/v0/wallet/transfer-preapproval/send", "alice", send("1.0", "s-4")), http.StatusBadRequest)
		}},
		{"external party topology", func(f *flow) {
			e := f.e
			op := e.Seeded.Validator.OperatorUser
			seed := sha256.Sum256([]byte("validatorapi-external"))
			key := ed25519.NewKeyFromSeed(seed[:])
			pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
			f.call("generate as a wallet user", post("/v0/admin/external-party/topology/generate", "alice", `{"party_hint":"erin","public_key":"`+pub+`"}`), http.StatusForbidden)
			f.call("generate with a key that is not hex", post("/v0/admin/external-party/topology/generate", op, `{"party_hint":"erin","public_key":"xyz"}`), http.StatusBadRequest)
			f.call("generate without a hint", post("/v0/admin/external-party/topology/generate", op, `{"public_key":"`+pub+`"}`).off(), http.StatusBadRequest)
			rec := f.call("generate", post("/v0/admin/external-party/topology/generate", op, `{"party_hint":"erin","public_key":"`+pub+`"}`), http.StatusOK)
			g := decode[validatorapi.GenerateExternalPartyTopologyResponse](t, rec.Body.Bytes())
			if len(g.TopologyTxs) != 3 {
				t.Fatalf("%d transactions, want the namespace delegation, the party-to-participant and the party-to-key mappings", len(g.TopologyTxs))
			}
			sign := func(k ed25519.PrivateKey) string {
				var txs []string
				for _, tx := range g.TopologyTxs {
					h, err := hex.DecodeString(tx.Hash)
					if err != nil {
						t.Fatal(err)
					}
					txs = append(txs, `{"topology_tx":"`+tx.TopologyTx+`","signed_hash":"`+hex.EncodeToString(ed25519.Sign(k, h))+`"}`)
				}
				return `{"public_key":"` + pub + `","signed_topology_txs":[` + strings.Join(txs, ",") + `]}`
			}
			other := sha256.Sum256([]byte("validatorapi-other"))
			f.call("submit signed by another key", post("/v0/admin/external-party/topology/submit", op, sign(ed25519.NewKeyFromSeed(other[:]))), http.StatusBadRequest)
			if hs := e.Network.HostingsOf(daml.Party(g.PartyID)); len(hs) != 0 {
				t.Errorf("a refused submission hosted the party: %v", hs)
			}
			rec = f.call("submit", post("/v0/admin/external-party/topology/submit", op, sign(key)), http.StatusOK)
			if got := decode[validatorapi.PartyResponse](t, rec.Body.Bytes()).PartyID; got != g.PartyID {
				t.Errorf("submitted party %s, generated %s", got, g.PartyID)
			}
			u, err := e.Network.Store().User(context.Background(), e.Seeded.Validator.Participant, op)
			if err != nil || !u.CanAct(daml.Party(g.PartyID)) {
				t.Errorf("the operator may not act as the new party: %v", err)
			}
			f.call("submit again", post("/v0/admin/external-party/topology/submit", op, sign(key)), http.StatusConflict)
		}},
	}
	g := apitest.OpenGolden(t, "flows", *update)
	t.Run("flows", func(t *testing.T) {
		for _, fl := range flows {
			t.Run(fl.name, func(t *testing.T) {
				t.Parallel()
				fl.run(&flow{t: t, e: newEnv(t), g: g, name: fl.name})
			})
		}
	})
	g.Finish(t, !t.Failed())
}

// carolParty is the party of the env's user without a wallet.
func carolParty(t *testing.T, e *env) string {
	t.Helper()
	u, err := e.Network.Store().User(context.Background(), e.Seeded.Validator.Participant, e.noWallet)
	if err != nil {
		t.Fatal(err)
	}
	return string(u.PrimaryParty)
}
