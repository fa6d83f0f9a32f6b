package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// acsRow is a contract of a Scan's v2 ACS snapshot.
type acsRow struct {
	ContractID      string          `json:"contract_id"`
	TemplateID      string          `json:"template_id"`
	CreateArguments json.RawMessage `json:"create_arguments"`
	CreatedAt       string          `json:"created_at"`
	Signatories     []string        `json:"signatories"`
	Observers       []string        `json:"observers"`
}

// takeSnapshot takes an ACS snapshot on p's SV 1 Scan (admin API) and
// pages all of it through the Scan's v2 ACS.
func takeSnapshot(t *testing.T, p *proc, admin string) []acsRow {
	t.Helper()
	var snap struct {
		MigrationID int64  `json:"migration_id"`
		RecordTime  string `json:"record_time"`
		Contracts   int    `json:"contracts"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/scan/snapshots"), admin, nil, &snap); code != 200 || snap.Contracts == 0 {
		t.Fatalf("snapshot on demand: %d %+v", code, snap)
	}
	var rows []acsRow
	after := ""
	for {
		body := map[string]any{"migration_id": snap.MigrationID, "record_time": snap.RecordTime, "page_size": 7}
		if after != "" {
			body["after"] = after
		}
		var page struct {
			CreatedEvents []acsRow `json:"created_events"`
			NextPageToken string   `json:"next_page_token"`
		}
		if code := call(t, "POST", p.url("/api/scan/v2/state/acs"), "", body, &page); code != 200 {
			t.Fatalf("acs page after %q: %d", after, code)
		}
		rows = append(rows, page.CreatedEvents...)
		if page.NextPageToken == "" {
			break
		}
		after = page.NextPageToken
	}
	if len(rows) != snap.Contracts {
		t.Fatalf("paged %d contracts of a snapshot of %d", len(rows), snap.Contracts)
	}
	return rows
}

// activeAsParty lists the active contracts of party on the participant at
// prefix ("/sv/1"), through its JSON Ledger API, by contract id.
func activeAsParty(t *testing.T, p *proc, prefix, token, party string) map[string]*ledgerapi.CreatedEvent {
	t.Helper()
	var end struct {
		Offset int64 `json:"offset"`
	}
	if code := call(t, "GET", p.url(prefix+"/v2/state/ledger-end"), token, nil, &end); code != 200 {
		t.Fatalf("%s ledger end: %d", prefix, code)
	}
	body := json.RawMessage(fmt.Sprintf(`{"activeAtOffset":%d,"eventFormat":{"filtersByParty":{%q:{}},"verbose":true}}`, end.Offset, party))
	var list []ledgerapi.JsGetActiveContractsResponse
	if code := call(t, "POST", p.url(prefix+"/v2/state/active-contracts"), token, body, &list); code != 200 {
		t.Fatalf("%s active contracts: %d", prefix, code)
	}
	out := map[string]*ledgerapi.CreatedEvent{}
	for _, e := range list {
		if ac := e.ContractEntry.JsActiveContract; ac != nil {
			out[ac.CreatedEvent.ContractID] = ac.CreatedEvent
		}
	}
	return out
}

// walletTransfer has the sender offer the receiver party amount CC through
// p's validator API; the receiver accepts and the offer completes.
func walletTransfer(t *testing.T, p *proc, sender, receiver, receiverParty, tracking, amount string) {
	t.Helper()
	var offer struct {
		OfferContractID string `json:"offer_contract_id"`
	}
	body := map[string]any{"receiver_party_id": receiverParty, "amount": amount, "description": "fork test",
		"expires_at": time.Now().Add(time.Hour).UnixMicro(), "tracking_id": tracking}
	if code := call(t, "POST", p.url("/api/validator/v0/wallet/transfer-offers"), sender, body, &offer); code != 200 || offer.OfferContractID == "" {
		t.Fatalf("%s: offer: %d %+v", tracking, code, offer)
	}
	if code := call(t, "POST", p.url("/api/validator/v0/wallet/transfer-offers/"+offer.OfferContractID+"/accept"), receiver, nil, nil); code != 200 {
		t.Fatalf("%s: accept: %d", tracking, code)
	}
	var st struct {
		Status string `json:"status"`
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if call(t, "POST", p.url("/api/validator/v0/wallet/transfer-offers/"+tracking+"/status"), sender, nil, &st) == 200 && st.Status == "completed" {
			return
		}
	}
	t.Fatalf("%s: status %q, want completed", tracking, st.Status)
}

// tap has a wallet user tap amount CC through p's validator API. A tap
// races the DSO automation, which may archive the round or the rules it
// uses (a new network's automation catches up on rounds at once): the
// validator answers that with 429, and a client retries.
func tap(t *testing.T, p *proc, token, amount string) {
	t.Helper()
	tapAt(t, p.url("/api/validator"), token, amount)
}

// tapAt is tap through the validator API at base (…/api/validator).
func tapAt(t *testing.T, base, token, amount string) {
	t.Helper()
	code := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if code = call(t, "POST", base+"/v0/wallet/tap", token, map[string]string{"amount": amount}, nil); code != http.StatusTooManyRequests {
			break
		}
	}
	if code != 200 {
		t.Fatalf("tap %s at %s: %d", amount, base, code)
	}
}

// partyOf is a wallet user's party (validator API user-status).
func partyOf(t *testing.T, p *proc, token string) string {
	t.Helper()
	var st struct {
		PartyID string `json:"party_id"`
	}
	if code := call(t, "GET", p.url("/api/validator/v0/wallet/user-status"), token, nil, &st); code != 200 || st.PartyID == "" {
		t.Fatalf("user status: %d %+v", code, st)
	}
	return st.PartyID
}

// TestForkFrom forks a running network: A gets user holdings through a
// transfer and a snapshot; B starts with --fork-from A's Scan. Every
// contract of A's snapshot is active in B, with its id, template,
// payload, parties and creation time (in B's ledger API as the DSO, and
// in B's own Scan snapshot); B's Scan serves the DSO, the amulet rules
// and the open rounds; and on B alice taps and pays bob. B restarts as a
// normal network.
func TestForkFrom(t *testing.T) {
	t.Parallel()
	dirA := t.TempDir()
	a := startSandnet(t, dirA)
	adminA, aliceA, bobA := mustToken(t, dirA, "participant_admin"), mustToken(t, dirA, "alice"), mustToken(t, dirA, "bob")
	tap(t, a, aliceA, "100.0")
	walletTransfer(t, a, aliceA, bobA, partyOf(t, a, bobA), "fork-a-1", "25.0")
	snapA := takeSnapshot(t, a, adminA)
	var dso struct {
		DsoPartyID string `json:"dso_party_id"`
	}
	if code := call(t, "GET", a.url("/api/scan/v0/dso-party-id"), "", nil, &dso); code != 200 {
		t.Fatalf("A's DSO party: %d", code)
	}
	holdings := 0
	for _, c := range snapA {
		if strings.HasSuffix(c.TemplateID, ":Splice.Amulet:Amulet") {
			holdings++
		}
	}
	if holdings == 0 {
		t.Fatal("A's snapshot has no amulet holdings")
	}

	dirB := t.TempDir()
	b := startSandnet(t, dirB, "--fork-from", a.url("/api/scan"))
	adminB, aliceB, bobB := mustToken(t, dirB, "participant_admin"), mustToken(t, dirB, "alice"), mustToken(t, dirB, "bob")

	// Every contract of A's snapshot is active on B's SV 1 participant as
	// the DSO, rendered as A renders it.
	activeB := activeAsParty(t, b, "/sv/1", adminB, dso.DsoPartyID)
	activeA := activeAsParty(t, a, "/sv/1", adminA, dso.DsoPartyID)
	compared := 0
	for _, c := range snapA {
		got, ok := activeB[c.ContractID]
		if !ok {
			t.Errorf("contract %s (%s) of A's snapshot is not active in B", c.ContractID, c.TemplateID)
			continue
		}
		if !strings.HasSuffix(c.TemplateID, strings.TrimPrefix(got.TemplateID, strings.SplitN(got.TemplateID, ":", 2)[0])) {
			t.Errorf("contract %s: template %s in B, %s in A", c.ContractID, got.TemplateID, c.TemplateID)
		}
		if want, ok := activeA[c.ContractID]; ok {
			compared++
			if !bytes.Equal(got.CreateArgument, want.CreateArgument) || got.CreatedAt != want.CreatedAt ||
				!slices.Equal(got.Signatories, want.Signatories) || !slices.Equal(got.Observers, want.Observers) {
				t.Errorf("contract %s in B's ledger API:\n got %s %s %v %v\nwant %s %s %v %v", c.ContractID,
					got.CreateArgument, got.CreatedAt, got.Signatories, got.Observers,
					want.CreateArgument, want.CreatedAt, want.Signatories, want.Observers)
			}
		}
	}
	if compared < len(snapA)/2 {
		t.Errorf("compared %d of the snapshot's %d contracts with A's ledger API; A archived the rest since", compared, len(snapA))
	}
	// B's own Scan has them too, byte for byte in compact_json.
	snapB := map[string]acsRow{}
	for _, c := range takeSnapshot(t, b, adminB) {
		snapB[c.ContractID] = c
	}
	for _, want := range snapA {
		got, ok := snapB[want.ContractID]
		if !ok {
			t.Errorf("contract %s of A's snapshot is not in B's", want.ContractID)
			continue
		}
		if got.TemplateID != want.TemplateID || !bytes.Equal(got.CreateArguments, want.CreateArguments) || got.CreatedAt != want.CreatedAt ||
			!slices.Equal(got.Signatories, want.Signatories) || !slices.Equal(got.Observers, want.Observers) {
			t.Errorf("contract %s in B's snapshot:\n got %+v\nwant %+v", want.ContractID, got, want)
		}
	}

	// B's Scan serves the DSO, the amulet rules and the open rounds.
	var dsoB struct {
		DsoPartyID string `json:"dso_party_id"`
		DsoRules   struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
		} `json:"dso_rules"`
	}
	if code := call(t, "GET", b.url("/api/scan/v0/dso"), "", nil, &dsoB); code != 200 || dsoB.DsoPartyID != dso.DsoPartyID || dsoB.DsoRules.Contract.ContractID == "" {
		t.Errorf("B's /v0/dso: %d %+v; want the DSO %s", code, dsoB, dso.DsoPartyID)
	}
	var rules struct {
		AmuletRulesUpdate struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
		} `json:"amulet_rules_update"`
	}
	if code := call(t, "POST", b.url("/api/scan/v0/amulet-rules"), "", map[string]any{}, &rules); code != 200 || rules.AmuletRulesUpdate.Contract.ContractID == "" {
		t.Errorf("B's /v0/amulet-rules: %d %+v", code, rules)
	}
	var rounds struct {
		OpenMiningRounds map[string]json.RawMessage `json:"open_mining_rounds"`
	}
	if code := call(t, "POST", b.url("/api/scan/v0/open-and-issuing-mining-rounds"), "",
		map[string]any{"cached_open_mining_round_contract_ids": []string{}, "cached_issuing_round_contract_ids": []string{}}, &rounds); code != 200 || len(rounds.OpenMiningRounds) == 0 {
		t.Errorf("B's open rounds: %d, %d rounds", code, len(rounds.OpenMiningRounds))
	}

	// On B, alice taps and pays bob.
	tap(t, b, aliceB, "50.0")
	walletTransfer(t, b, aliceB, bobB, partyOf(t, b, bobB), "fork-b-1", "12.5")

	// A party of A is hosted on B's validator: a new wallet user of B
	// takes it over and spends A's coin, imported into B.
	aliceOfA := partyOf(t, a, aliceA)
	if code := call(t, "POST", b.url("/api/validator/v0/admin/users"), adminB, map[string]string{"name": "alice-of-a", "party_id": aliceOfA}, nil); code != 200 {
		t.Fatalf("onboard a user of B onto A's alice: %d", code)
	}
	heir := mustToken(t, dirB, "alice-of-a")
	var balance struct {
		Unlocked string `json:"effective_unlocked_qty"`
	}
	if code := call(t, "GET", b.url("/api/validator/v0/wallet/balance"), heir, nil, &balance); code != 200 || balance.Unlocked == "" || strings.HasPrefix(balance.Unlocked, "0.") {
		t.Fatalf("the balance of A's alice on B: %d %+v; want A's coin", code, balance)
	}
	walletTransfer(t, b, heir, bobB, partyOf(t, b, bobB), "fork-b-heir", "3.0")

	// A restart of B is a normal restart, with or without the flag.
	b.stop(t)
	b = startSandnet(t, dirB, "--fork-from", a.url("/api/scan"))
	if code := call(t, "GET", b.url("/api/scan/v0/dso"), "", nil, &dsoB); code != 200 || dsoB.DsoPartyID != dso.DsoPartyID {
		t.Errorf("B's /v0/dso after a restart: %d %+v", code, dsoB)
	}
	walletTransfer(t, b, aliceB, bobB, partyOf(t, b, bobB), "fork-b-2", "1.5")

	// A data directory that holds a network (A's) is not forked into.
	a.stop(t)
	out, err := runCLI(t, "start", "--listen", "127.0.0.1:0", "--data-dir", dirA, "--fork-from", b.url("/api/scan"))
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 || !strings.Contains(out, "--fork-from needs an empty data directory") {
		t.Errorf("fork into A's data directory: %v; stderr:\n%s", err, out)
	}
}

// TestForkFromUnknownPackage forks a Scan whose snapshot holds a contract
// of a package sandnet does not know: sandnet exits with status 1 and says
// which package and template on stderr.
func TestForkFromUnknownPackage(t *testing.T) {
	t.Parallel()
	const pkg = "0badc0de00000000000000000000000000000000000000000000000000000000"
	const dsoParty = "DSO::1220aa"
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /api/scan/v0/dso-party-id", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, map[string]string{"dso_party_id": dsoParty})
	})
	mux.HandleFunc("GET /api/scan/v0/dso", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, map[string]string{"dso_party_id": dsoParty, "sv_party_id": "sv::1220bb"})
	})
	mux.HandleFunc("POST /api/scan/v0/backfilling/migration-info", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			MigrationID int64 `json:"migration_id"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.MigrationID > 0 {
			reply(w, 404, map[string]string{"error": "No data for migration"})
			return
		}
		reply(w, 200, map[string]any{"record_time_range": []any{}, "complete": true})
	})
	mux.HandleFunc("GET /api/scan/v0/state/acs/snapshot-timestamp", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, map[string]string{"record_time": "2026-01-05T09:00:00Z"})
	})
	mux.HandleFunc("POST /api/scan/v2/state/acs", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, map[string]any{"record_time": "2026-01-05T09:00:00Z", "migration_id": 0, "created_events": []acsRow{{
			ContractID: "00aa", TemplateID: pkg + ":Acme.Token:Token", CreateArguments: json.RawMessage(`{"owner":"` + dsoParty + `"}`),
			CreatedAt: "2026-01-05T08:00:00Z", Signatories: []string{dsoParty}, Observers: []string{},
		}}})
	})
	source := httptest.NewServer(mux)
	t.Cleanup(source.Close)

	cmd := exec.Command(sandnetBinary(t), "start", "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--fork-from", source.URL+"/api/scan")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("sandnet did not refuse the fork:\n%s", stderr.String())
	}
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 1 {
		t.Fatalf("exit = %v, want status 1; stderr:\n%s", err, stderr.String())
	}
	for _, want := range []string{"sandnet: fork " + source.URL + "/api/scan", "unknown package ids: " + pkg + " (templates Acme.Token:Token)", "sandnet supports: "} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
		}
	}
}

// TestForkFromPostgres forks a network into PostgreSQL: the fork keeps
// its data in its schemas, serves the source's DSO and pays as any
// network, and restarts from its schemas.
func TestForkFromPostgres(t *testing.T) {
	t.Parallel()
	url := testDatabaseURL(t)
	prefix := schemaPrefix(t, url, "e2e_fork_")
	a := startSandnet(t, t.TempDir())
	var dso struct {
		DsoPartyID string `json:"dso_party_id"`
	}
	if code := call(t, "GET", a.url("/api/scan/v0/dso-party-id"), "", nil, &dso); code != 200 {
		t.Fatalf("A's DSO party: %d", code)
	}
	dirB := t.TempDir()
	args := []string{"--database-url", url, "--database-schema", prefix, "--fork-from", a.url("/api/scan")}
	b := startSandnet(t, dirB, args...)
	alice, bob := mustToken(t, dirB, "alice"), mustToken(t, dirB, "bob")
	var dsoB struct {
		DsoPartyID string `json:"dso_party_id"`
	}
	if code := call(t, "GET", b.url("/api/scan/v0/dso-party-id"), "", nil, &dsoB); code != 200 || dsoB.DsoPartyID != dso.DsoPartyID {
		t.Fatalf("B's DSO party: %d %+v; want %s", code, dsoB, dso.DsoPartyID)
	}
	walletTransfer(t, b, alice, bob, partyOf(t, b, bob), "fork-pg-1", "2.0")
	b.stop(t)
	b = startSandnet(t, dirB, args...)
	walletTransfer(t, b, alice, bob, partyOf(t, b, bob), "fork-pg-2", "1.0")
}
