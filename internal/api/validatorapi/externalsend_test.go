package validatorapi_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/api/validatorapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// externalParty onboards an external party with hint through the
// topology endpoints and returns it with its key.
func (f *flow) externalParty(hint string) (daml.Party, ed25519.PrivateKey) {
	f.t.Helper()
	op := f.e.Seeded.Validator.OperatorUser
	seed := sha256.Sum256([]byte("externalsend-" + hint))
	key := ed25519.NewKeyFromSeed(seed[:])
	pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	rec := f.e.do(f.t, post("/v0/admin/external-party/topology/generate", op, `{"party_hint":"`+hint+`","public_key":"`+pub+`"}`))
	g := decode[validatorapi.GenerateExternalPartyTopologyResponse](f.t, rec.Body.Bytes())
	var txs []string
	for _, tx := range g.TopologyTxs {
		h, err := hex.DecodeString(tx.Hash)
		if err != nil {
			f.t.Fatal(err)
		}
		txs = append(txs, `{"topology_tx":"`+tx.TopologyTx+`","signed_hash":"`+hex.EncodeToString(ed25519.Sign(key, h))+`"}`)
	}
	rec = f.e.do(f.t, post("/v0/admin/external-party/topology/submit", op, `{"public_key":"`+pub+`","signed_topology_txs":[`+strings.Join(txs, ",")+`]}`))
	if rec.Code != http.StatusOK {
		f.t.Fatalf("onboard %s: %d %s", hint, rec.Code, rec.Body)
	}
	return daml.Party(g.PartyID), key
}

// submission signs a prepared transaction's hash with key.
func submission(t *testing.T, party daml.Party, key ed25519.PrivateKey, prepared validatorapi.PreparedResponse) string {
	t.Helper()
	h, err := hex.DecodeString(prepared.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{"submission": map[string]string{
		"party_id": string(party), "transaction": prepared.Transaction,
		"signed_tx_hash": hex.EncodeToString(ed25519.Sign(key, h)), "public_key": hex.EncodeToString(key.Public().(ed25519.PublicKey)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExternalPartyTransferCommands sets an external party up through a
// setup proposal, funds it, and has it send amulet to a pre-approved
// receiver through a transfer command the validator's automation
// executes, checking every refusal on the way. Its responses are recorded
// in testdata/externalsend.golden.json.
func TestExternalPartyTransferCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := apitest.OpenGolden(t, "externalsend", *update)
	f := &flow{t: t, e: e, g: g, name: "external party"}
	op := e.Seeded.Validator.OperatorUser
	ctx := context.Background()
	dsoAutomation := splice.NewDSOAutomation(e.Network, e.Seeded, slog.New(slog.DiscardHandler))
	runDSO := func() {
		t.Helper()
		if _, err := dsoAutomation.RunOnce(ctx); err != nil {
			t.Fatalf("DSO automation: %v", err)
		}
	}
	runDSO()
	erin, key := f.externalParty("erin")
	other := sha256.Sum256([]byte("externalsend-other"))
	otherKey := ed25519.NewKeyFromSeed(other[:])
	bob := e.Party("bob")
	q := url.QueryEscape

	// Setup proposal.
	body := func(p daml.Party) string { return `{"user_party_id":"` + string(p) + `"}` }
	f.call("create a proposal as a wallet user", post("/v0/admin/external-party/setup-proposal", "alice", body(erin)), http.StatusForbidden)
	f.call("create a proposal for an unknown party", post("/v0/admin/external-party/setup-proposal", op, body(daml.Party("nobody::1220"+strings.Repeat("ab", 32)))), http.StatusNotFound)
	f.call("create a proposal without a party", post("/v0/admin/external-party/setup-proposal", op, `{}`).off(), http.StatusBadRequest)
	rec := f.call("create a proposal", post("/v0/admin/external-party/setup-proposal", op, body(erin)), http.StatusOK)
	proposal := decode[validatorapi.CreateExternalPartySetupProposalResponse](t, rec.Body.Bytes()).ContractID
	f.call("create a proposal again", post("/v0/admin/external-party/setup-proposal", op, body(erin)), http.StatusConflict)
	f.call("list proposals", get("/v0/admin/external-party/setup-proposal", op), http.StatusOK)
	accept := func(cid string, p daml.Party) string {
		return `{"contract_id":"` + cid + `","user_party_id":"` + string(p) + `"}`
	}
	f.call("prepare-accept another contract", post("/v0/admin/external-party/setup-proposal/prepare-accept", op, accept("00"+strings.Repeat("1", 64), erin)), http.StatusBadRequest)
	f.call("prepare-accept for a party without a proposal", post("/v0/admin/external-party/setup-proposal/prepare-accept", op, accept(proposal, bob)), http.StatusNotFound)
	// With verbose hashing the answer carries the trace (not recorded: it
	// is long, and its format is not stable).
	verbose := e.do(t, post("/v0/admin/external-party/setup-proposal/prepare-accept", op,
		`{"contract_id":"`+proposal+`","user_party_id":"`+string(erin)+`","verbose_hashing":true}`))
	if d := decode[validatorapi.PreparedResponse](t, verbose.Body.Bytes()); verbose.Code != http.StatusOK || d.HashingDetails == nil || *d.HashingDetails == "" {
		t.Errorf("verbose prepare-accept: %d, no hashing details", verbose.Code)
	}
	rec = f.call("prepare-accept", post("/v0/admin/external-party/setup-proposal/prepare-accept", op, accept(proposal, erin)), http.StatusOK)
	prepared := decode[validatorapi.PreparedResponse](t, rec.Body.Bytes())
	f.call("submit-accept signed by another key", post("/v0/admin/external-party/setup-proposal/submit-accept", op, submission(t, erin, otherKey, prepared)), http.StatusBadRequest)
	f.call("submit-accept without a submission", post("/v0/admin/external-party/setup-proposal/submit-accept", op, `{}`).off(), http.StatusBadRequest)
	rec = f.call("submit-accept", post("/v0/admin/external-party/setup-proposal/submit-accept", op, submission(t, erin, key, prepared)), http.StatusOK)
	accepted := decode[validatorapi.SubmitAcceptExternalPartySetupProposalResponse](t, rec.Body.Bytes())
	p, err := e.validator.Preapproval(ctx, erin)
	if err != nil || string(p.ID) != accepted.TransferPreapprovalContractID {
		t.Fatalf("erin's pre-approval %v, answered %s (%v)", p.ID, accepted.TransferPreapprovalContractID, err)
	}
	f.call("list proposals after accepting", get("/v0/admin/external-party/setup-proposal", op), http.StatusOK)

	// Funds: alice sends erin 50 through its new pre-approval; bob gets
	// one to receive through.
	f.call("alice sends erin 50", post("/v0/wallet/transfer-preapproval/send", "alice",
		fmt.Sprintf(`{"receiver_party_id":%q,"amount":"50.0","deduplication_id":"fund-erin"}`, erin)), http.StatusOK)
	f.call("bob's pre-approval", post("/v0/wallet/transfer-preapproval", "bob", ""), http.StatusOK)
	balance := "/v0/admin/external-party/balance?party_id="
	f.call("balance", get(balance+q(string(erin)), op), http.StatusOK)
	f.call("balance of a local party", get(balance+q(string(bob)), op), http.StatusNotFound)
	f.call("balance without a party", get("/v0/admin/external-party/balance", op).off(), http.StatusBadRequest)

	// A transfer command.
	counterPath := "/v0/scan-proxy/transfer-command-counter/" + url.PathEscape(string(erin))
	statusPath := func(nonce int) string {
		return fmt.Sprintf("/v0/scan-proxy/transfer-command/status?sender=%s&nonce=%d", q(string(erin)), nonce)
	}
	f.call("counter before any command", get(counterPath, op), http.StatusNotFound)
	f.call("status before any command", get(statusPath(0), op), http.StatusNotFound)
	expires := time.UnixMicro(int64(e.now()) + 3600_000_000).UTC().Format(time.RFC3339Nano)
	send := func(receiver daml.Party, amount string, nonce int, expiresAt string) string {
		return fmt.Sprintf(`{"sender_party_id":%q,"receiver_party_id":%q,"amount":%s,"expires_at":%q,"nonce":%d,"description":"rent"}`,
			erin, receiver, amount, expiresAt, nonce)
	}
	prepareSend := "/v0/admin/external-party/transfer-preapproval/prepare-send"
	submitSend := "/v0/admin/external-party/transfer-preapproval/submit-send"
	f.call("prepare-send to a party without a pre-approval", post(prepareSend, op, send(e.Seeded.Validator.Party, "10.0", 0, expires)), http.StatusBadRequest)
	f.call("prepare-send of a negative amount", post(prepareSend, op, send(bob, "-1", 0, expires)), http.StatusBadRequest)
	f.call("prepare-send already expired", post(prepareSend, op, send(bob, "10.0", 0, time.UnixMicro(int64(e.now())-1).UTC().Format(time.RFC3339Nano))), http.StatusConflict)
	f.call("prepare-send with the amount as a string", post(prepareSend, op, send(bob, `"10.0"`, 0, expires)).off(), http.StatusBadRequest)
	f.call("prepare-send with a bad expiry", post(prepareSend, op, send(bob, "10.0", 0, "tomorrow")).off(), http.StatusBadRequest)
	rec = f.call("prepare-send", post(prepareSend, op, send(bob, "10.0", 0, expires)), http.StatusOK)
	sendPrepared := decode[validatorapi.PrepareTransferPreapprovalSendResponse](t, rec.Body.Bytes())
	f.call("submit-send signed by another key", post(submitSend, op, submission(t, erin, otherKey, sendPrepared.PreparedResponse)), http.StatusBadRequest)
	rec = f.call("submit-send", post(submitSend, op, submission(t, erin, key, sendPrepared.PreparedResponse)), http.StatusOK)
	if decode[validatorapi.SubmitTransferPreapprovalSendResponse](t, rec.Body.Bytes()).UpdateID == "" {
		t.Fatal("no update id")
	}
	rec = f.call("status after submit", get(statusPath(0), op), http.StatusOK)
	statusOf := func(rec []byte) map[string]scanapi.TransferCommandWithStatus {
		return decode[scanapi.TransferCommandStatusResponse](t, rec).TransferCommandsByContractID
	}
	for cid, st := range statusOf(rec.Body.Bytes()) {
		if st.Status.Status != "created" || !strings.HasPrefix(cid, sendPrepared.TransferCommandContractIDPrefix) {
			t.Errorf("status after submit: %s %+v, prefix %s", cid, st.Status, sendPrepared.TransferCommandContractIDPrefix)
		}
	}

	// The validator waits for the DSO to create erin's counter.
	e.step(t)
	f.call("status before the counter", get(statusPath(0), op), http.StatusOK)
	runDSO()
	f.call("counter", get(counterPath, op), http.StatusOK)
	e.step(t)
	rec = f.call("status after the automation", get(statusPath(0), op), http.StatusOK)
	for _, st := range statusOf(rec.Body.Bytes()) {
		if st.Status.Status != "sent" {
			t.Errorf("status after the automation: %+v", st.Status)
		}
	}
	rec = f.call("counter after the send", get(counterPath, op), http.StatusOK)
	if !strings.Contains(rec.Body.String(), `"nextNonce":"1"`) && !strings.Contains(rec.Body.String(), `"nextNonce":1`) {
		t.Errorf("counter after the send: %s", rec.Body)
	}
	f.call("balance after the send", get(balance+q(string(erin)), op), http.StatusOK)

	// A second command with the spent nonce fails when sent.
	rec = f.call("prepare-send with a spent nonce", post(prepareSend, op, send(bob, "5.0", 0, expires)), http.StatusOK)
	stale := decode[validatorapi.PrepareTransferPreapprovalSendResponse](t, rec.Body.Bytes())
	f.call("submit-send with a spent nonce", post(submitSend, op, submission(t, erin, key, stale.PreparedResponse)), http.StatusOK)
	e.step(t)
	rec = f.call("status of both commands with nonce 0", get(statusPath(0), op), http.StatusOK)
	got := map[string]int{}
	for _, st := range statusOf(rec.Body.Bytes()) {
		got[st.Status.Status+"/"+st.Status.FailureKind]++
		if st.Status.Status == "failed" && st.Status.Reason != "ITR_Other(Expected nonce 0 is smaller than current counter 1)" {
			t.Errorf("reason %q", st.Status.Reason)
		}
	}
	if got["sent/"] != 1 || got["failed/failed"] != 1 {
		t.Errorf("statuses %v, want one sent and one failed", got)
	}
	f.call("status of another nonce", get(statusPath(7), op), http.StatusNotFound)
	f.call("status with a bad nonce", get("/v0/scan-proxy/transfer-command/status?sender=x&nonce=one", op).off(), http.StatusBadRequest)
	g.Finish(t, !t.Failed())
}
