package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// The validator through its API on the real binary, killed with SIGKILL
// while its wallet automation is completing accepted transfer offers:
// after a restart every offer ends in exactly one final state, the
// transaction log agrees with it, and no coin was created or lost.
func TestValidatorKillNine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	alice, bob := mustToken(t, dir, "alice"), mustToken(t, dir, "bob")
	v := validatorURL
	bobParty := partyOf(t, p, bob)
	const offers = 24
	expires := time.Now().Add(24 * time.Hour).UnixMicro()
	var cids []string
	for i := range offers {
		var out struct {
			OfferContractID string `json:"offer_contract_id"`
		}
		body := map[string]any{
			"receiver_party_id": bobParty, "amount": "3.5", "description": "crash test",
			"expires_at": expires, "tracking_id": fmt.Sprint("crash-", i),
		}
		if code := call(t, "POST", v(p, "/v0/wallet/transfer-offers"), alice, body, &out); code != 200 {
			t.Fatalf("create offer %d: %d", i, code)
		}
		cids = append(cids, out.OfferContractID)
	}
	// Bob accepts them all at once; the kill lands while alice's wallet
	// automation is completing them.
	var wg sync.WaitGroup
	for _, cid := range cids {
		wg.Go(func() { tryPost(v(p, "/v0/wallet/transfer-offers/"+cid+"/accept"), bob) })
	}
	// Kill as soon as the first transfer has completed: the automation is
	// then part-way through the others.
	completed := func() bool {
		for i := range offers {
			var st struct {
				Status string `json:"status"`
			}
			if call(t, "POST", v(p, "/v0/wallet/transfer-offers/"+fmt.Sprint("crash-", i)+"/status"), alice, nil, &st) == 200 && st.Status == "completed" {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(10 * time.Second); !completed() && time.Now().Before(deadline); {
	}
	p.kill(t)
	wg.Wait()

	p = startSandnet(t, dir)
	final := map[string]string{}
	for deadline := time.Now().Add(20 * time.Second); len(final) < offers && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for i := range offers {
			id := fmt.Sprint("crash-", i)
			if _, done := final[id]; done {
				continue
			}
			var st struct {
				Status string `json:"status"`
			}
			if code := call(t, "POST", v(p, "/v0/wallet/transfer-offers/"+id+"/status"), alice, nil, &st); code != 200 {
				t.Fatalf("status of %s: %d", id, code)
			}
			switch st.Status {
			case "completed", "failed":
				final[id] = st.Status
			case "created":
				// Not accepted before the kill: accept it now.
				call(t, "POST", v(p, "/v0/wallet/transfer-offers/"+cids[i]+"/accept"), bob, nil, nil)
			}
		}
	}
	if len(final) < offers {
		t.Fatalf("only %d of %d offers reached a final state after the restart: %v", len(final), offers, final)
	}
	for id, st := range final {
		if st != "completed" {
			t.Errorf("%s ended %s; alice had the coin, so every transfer should complete", id, st)
		}
	}
	p.stop(t)

	ctx := context.Background()
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	net := networkInfo(t, st)
	sup, err := splice.ComputeSupply(ctx, st, net.SVs[0].Participant, net.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sup.Holdings.Add(sup.Burned)
	if err != nil || sum.Cmp(sup.Minted) != 0 {
		t.Errorf("supply after the crash: minted %s, holdings %s + burned %s (%v)", sup.Minted, sup.Holdings, sup.Burned, err)
	}
}

// networkInfo reads the seeded network's description from a stopped
// sandnet's ledger store.
func networkInfo(t *testing.T, st *sqlitestore.Ledger) *splice.Seeded {
	t.Helper()
	raw, ok, err := st.Meta(context.Background(), splice.SeededMetaKey)
	if err != nil || !ok {
		t.Fatalf("seeded network: %v (found %v)", err, ok)
	}
	var s splice.Seeded
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// tryPost sends a POST without a body and ignores the outcome: the server
// may be killed under it.
func tryPost(url, token string) {
	req, err := http.NewRequest(http.MethodPost, url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// The wallet API of the real binary refuses the offers no one could use
// (an empty tracking id, amounts of zero or less, an expiry already past
// in ledger time, a receiver no participant hosts) and keeps serving every
// user, also after a restart.
func TestValidatorRefusesUnusableOffers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	alice, bob := mustToken(t, dir, "alice"), mustToken(t, dir, "bob")
	v := validatorURL
	bobParty := partyOf(t, p, bob)
	future := time.Now().Add(time.Hour).UnixMicro()
	offer := func(receiver, amount string, expires int64, tracking string) map[string]any {
		return map[string]any{"receiver_party_id": receiver, "amount": amount, "description": "e2e", "expires_at": expires, "tracking_id": tracking}
	}
	nobody := "nobody::1220" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"empty tracking id", offer(bobParty, "1.0", future, ""), 400},
		{"amount 0", offer(bobParty, "0", future, "zero"), 400},
		{"amount -5", offer(bobParty, "-5", future, "negative"), 400},
		{"amount -0.0000000001", offer(bobParty, "-0.0000000001", future, "tiny"), 400},
		{"expiry past", offer(bobParty, "1.0", time.Now().Add(-time.Minute).UnixMicro(), "past"), 400},
		{"unknown receiver", offer(nobody, "1.0", future, "nobody"), 404},
	} {
		if code := call(t, "POST", v(p, "/v0/wallet/transfer-offers"), alice, tc.body, nil); code != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, code, tc.want)
		}
	}
	served := func(p *proc, tracking string) {
		t.Helper()
		if code := call(t, "POST", v(p, "/v0/wallet/transfer-offers"), alice, offer(bobParty, "1.0", future, tracking), nil); code != 200 {
			t.Fatalf("offer %s: %d", tracking, code)
		}
		var st struct {
			Status string `json:"status"`
		}
		if code := call(t, "POST", v(p, "/v0/wallet/transfer-offers/"+tracking+"/status"), bob, nil, &st); code != 200 || st.Status != "created" {
			t.Fatalf("status of %s: %d %q", tracking, code, st.Status)
		}
	}
	served(p, "fine-1")
	p.stop(t)
	p = startSandnet(t, dir)
	served(p, "fine-2")
	p.stop(t)
}

// validatorURL is the URL of a validator API path on p.
func validatorURL(p *proc, path string) string { return p.url("/api/validator" + path) }
