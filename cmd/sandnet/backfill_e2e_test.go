package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestScanBackfillsInItsOwnProcess runs the Scan of a fifth SV in a process
// of its own, with its own store, backfilling over HTTP from three peers of
// which one lies: it is killed (SIGKILL) at random moments while it
// backfills, and each restart resumes, until its history is complete and
// the same, byte for byte, as SV 1's. The lying peer is outvoted; with
// too few honest peers, backfilling waits and says why.
func TestScanBackfillsInItsOwnProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	admin := mustToken(t, dir, "participant_admin")
	tap := func(n int) {
		t.Helper()
		for i := range n {
			if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), admin, map[string]string{"user": "alice", "amount": fmt.Sprint(i + 1)}, nil); code != 200 {
				t.Fatalf("tap: %d", code)
			}
		}
	}
	tap(60)
	var sv5 struct {
		SV int `json:"sv"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/svs"), admin, nil, &sv5); code != 200 || sv5.SV != 5 {
		t.Fatalf("add an SV: %d %+v", code, sv5)
	}
	tap(5)

	// liar forwards to SV 3's Scan and alters every update it serves.
	liar := func(sv int, lie string) *httptest.Server {
		target := p.url(fmt.Sprintf("/sv/%d/api/scan", sv))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			resp, err := http.Post(target+strings.TrimPrefix(r.URL.Path, "/api/scan"), "application/json", r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if strings.HasSuffix(r.URL.Path, "/updates-before") {
				body = bytes.ReplaceAll(body, []byte(`"workflow_id":"`), []byte(`"workflow_id":"`+lie))
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(body)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	peer := func(sv int) string { return p.url(fmt.Sprintf("/sv/%d/api/scan", sv)) }
	scanDir := t.TempDir()
	status := func(s *proc) bool {
		var st struct {
			Complete bool `json:"complete"`
		}
		return call(t, "GET", s.url("/api/scan/v0/backfilling/status"), "", nil, &st) == 200 && st.Complete
	}

	// Too few honest peers: SV 1 and two liars telling different lies.
	// Nothing is accepted, and the log says why.
	args := []string{"--url", p.url(""), "--sv", "5", "--sandnet-data-dir", dir, "--backfill-batch", "4"}
	s := startProc(t, "scan", scanDir, append(args, "--peer", peer(1), "--peer", liar(3, "a").URL+"/api/scan", "--peer", liar(4, "b").URL+"/api/scan")...)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.logs(), "scan backfilling waits") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(s.logs(), "scan backfilling waits") || status(s) {
		t.Fatalf("with one honest peer of three, backfilling should wait and say so:\n%s", s.logs())
	}
	if code := call(t, "POST", s.url("/api/scan/v2/updates"), "", map[string]any{"page_size": 10}, nil); code != 503 {
		t.Errorf("v2 updates while backfilling: %d, want 503", code)
	}
	s.kill(t)

	// Two honest peers and a liar: the liar is outvoted. The Scan is
	// killed at random moments while it backfills, and resumes.
	good := append(args, "--peer", peer(1), "--peer", liar(3, "x").URL+"/api/scan", "--peer", peer(2))
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	kills := 0
	for ; kills < 3; kills++ {
		s = startProc(t, "scan", scanDir, good...)
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		if status(s) {
			break
		}
		s.kill(t)
	}
	if kills == 3 {
		s = startProc(t, "scan", scanDir, good...)
	}
	for deadline := time.Now().Add(20 * time.Second); !status(s) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
	}
	if !status(s) {
		t.Fatalf("the Scan never completed backfilling after %d kills:\n%s", kills, s.logs())
	}
	if kills == 0 {
		t.Fatal("backfilling was over before the first kill: the test killed nothing while it backfilled")
	}
	t.Logf("killed %d times while backfilling", kills)

	history := func(base string) string {
		var out json.RawMessage
		if code := call(t, "POST", base+"/v2/updates", "", map[string]any{"page_size": 1000}, &out); code != 200 {
			t.Fatalf("%s v2 updates: %d", base, code)
		}
		return string(out)
	}
	want := history(peer(1))
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = history(s.url("/api/scan")); got == want {
			break
		}
	}
	if got != want {
		t.Errorf("the separate Scan's history differs from SV 1's:\n got %.3000s\nwant %.3000s", got, want)
	}
	if strings.Contains(got, `"workflow_id":"x`) {
		t.Errorf("the liar's updates were accepted")
	}
	s.stop(t)
	p.stop(t)
}
