package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func testDatabaseURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("SANDNET_TEST_DATABASE_URL")
	if url == "skip" {
		t.Skip("SANDNET_TEST_DATABASE_URL=skip")
	}
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL at %s: %v", url, err)
		}
		t.Skipf("no PostgreSQL at %s: %v", url, err)
	}
	conn.Close(ctx)
	return url
}

// schemaPrefix returns a fresh prefix for a network's PostgreSQL schemas
// and drops them all when the test ends.
func schemaPrefix(t *testing.T, url, kind string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := kind + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, prefix+"_")
		if err != nil {
			return
		}
		schemas, _ := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, schema := range schemas {
			_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		}
	})
	return prefix
}

// TestPostgresReplicas runs two sandnet processes on one PostgreSQL
// database: both serve and commit, exactly one runs automation, and when it
// is killed the other takes over.
func TestPostgresReplicas(t *testing.T) {
	t.Parallel()
	url := testDatabaseURL(t)
	prefix := schemaPrefix(t, url, "e2e_")
	secret := strings.Repeat("s", 32)
	args := []string{"--database-url", url, "--database-schema", prefix, "--auth-secret", secret}

	// Both start at once: one seeds, the other waits for it.
	var wg sync.WaitGroup
	procs := make([]*proc, 2)
	for i := range procs {
		wg.Go(func() { procs[i] = startSandnet(t, t.TempDir(), args...) })
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	tok, err := runCLI(t, "token", "--user", "participant_admin", "--auth-secret", secret)
	if err != nil {
		t.Fatal(err)
	}
	tok = strings.TrimSpace(tok)
	for i, p := range procs {
		var tap struct {
			ContractID string `json:"contract_id"`
		}
		if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), tok, map[string]string{"user": "alice", "amount": "5.0"}, &tap); code != 200 {
			t.Fatalf("tap on process %d: %d", i, code)
		}
	}
	leaders := func() []int {
		var out []int
		for i, p := range procs {
			if !p.running() {
				continue
			}
			if leaderGauge(t, p) == 1 {
				out = append(out, i)
			}
		}
		return out
	}
	var lead []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if lead = leaders(); len(lead) == 1 {
			break
		}
	}
	if len(lead) != 1 {
		t.Fatalf("leaders = %v, want exactly one", lead)
	}
	procs[lead[0]].kill(t)
	other := 1 - lead[0]
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if leaderGauge(t, procs[other]) == 1 {
			return
		}
	}
	t.Fatalf("process %d did not take over automation", other)
}

func leaderGauge(t *testing.T, p *proc) int {
	t.Helper()
	resp, err := http.Get(p.url("/metrics"))
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		var v int
		if _, err := fmt.Sscanf(line, "sandnet_automation_leader %d", &v); err == nil {
			return v
		}
	}
	return -1
}

// TestPostgresLateSV adds a fifth SV to a network kept in PostgreSQL: its
// Scan, in its own schema, backfills from the other four to SV 1's
// history, and a restart serves it again.
func TestPostgresLateSV(t *testing.T) {
	t.Parallel()
	url := testDatabaseURL(t)
	prefix := schemaPrefix(t, url, "e2e_")
	dir := t.TempDir()
	args := []string{"--database-url", url, "--database-schema", prefix}
	p := startSandnet(t, dir, args...)
	admin := mustToken(t, dir, "participant_admin")
	if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), admin, map[string]string{"user": "alice", "amount": "5.0"}, nil); code != 200 {
		t.Fatalf("tap: %d", code)
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/svs"), admin, nil, nil); code != 200 {
		t.Fatalf("add an SV: %d", code)
	}
	complete := func(p *proc) bool {
		var st struct {
			Complete bool `json:"complete"`
		}
		return call(t, "GET", p.url("/sv/5/api/scan/v0/backfilling/status"), "", nil, &st) == 200 && st.Complete
	}
	// history is a Scan's update history, item by item.
	history := func(p *proc, sv int) []string {
		var page struct {
			Transactions []json.RawMessage `json:"transactions"`
		}
		if code := call(t, "POST", p.url(fmt.Sprintf("/sv/%d/api/scan/v2/updates", sv)), "", map[string]int{"page_size": 1000}, &page); code != 200 {
			return nil
		}
		out := make([]string, len(page.Transactions))
		for i, tx := range page.Transactions {
			out[i] = string(tx)
		}
		return out
	}
	// agree says whether the two Scans serve the same history: the
	// automation keeps committing while they are read, and each Scan
	// ingests it at its own pace, so the shorter of the two must be the
	// longer's beginning, and hold at least the least SV 1 had.
	agree := func(p *proc, least int) (bool, string) {
		a, b := history(p, 1), history(p, 5)
		n := min(len(a), len(b))
		if n < least {
			return false, fmt.Sprintf("SV 1 serves %d updates and SV 5 %d, want at least %d", len(a), len(b), least)
		}
		for i := range n {
			if a[i] != b[i] {
				return false, fmt.Sprintf("update %d of %d differs:\n%s", i, n, firstDifference(a[i], b[i]))
			}
		}
		return true, ""
	}
	// Backfilling takes seconds alone but far longer when the whole suite
	// runs under -race on two cores: wait for it generously, then for the
	// two histories to agree, and say which of the two never came.
	if !eventually(60*time.Second, func() bool { return complete(p) }) {
		t.Fatalf("SV 5's Scan on PostgreSQL did not finish backfilling within 60 s")
	}
	least := len(history(p, 1))
	var why string
	if !eventually(20*time.Second, func() (ok bool) { ok, why = agree(p, least); return ok }) {
		t.Fatalf("SV 5's Scan on PostgreSQL backfilled, but its history is not SV 1's: %s", why)
	}
	p.stop(t)
	p = startSandnet(t, dir, args...)
	if !eventually(20*time.Second, func() (ok bool) { ok, why = agree(p, least); return ok && complete(p) }) {
		t.Errorf("after a restart, SV 5's Scan is not served as before: %s", why)
	}
	p.stop(t)
}

// TestPostgresReplicasServeANewSV runs two processes on one PostgreSQL
// database and adds an SV through one: the other serves it too, within a
// few seconds, and lists it.
func TestPostgresReplicasServeANewSV(t *testing.T) {
	t.Parallel()
	url := testDatabaseURL(t)
	prefix := schemaPrefix(t, url, "e2e_")
	secret := strings.Repeat("s", 32)
	args := []string{"--database-url", url, "--database-schema", prefix, "--auth-secret", secret}
	a := startSandnet(t, t.TempDir(), args...)
	b := startSandnet(t, t.TempDir(), args...)
	tok, err := runCLI(t, "token", "--user", "participant_admin", "--auth-secret", secret)
	if err != nil {
		t.Fatal(err)
	}
	tok = strings.TrimSpace(tok)
	if code := call(t, "POST", a.url("/api/sandnet/v0/svs"), tok, nil, nil); code != 200 {
		t.Fatalf("add an SV through the first process: %d", code)
	}
	var network struct {
		SVs []struct {
			Name string `json:"name"`
		} `json:"svs"`
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if call(t, "GET", b.url("/sv/5/api/scan/v0/backfilling/status"), "", nil, nil) == 200 &&
			call(t, "GET", b.url("/api/sandnet/v0/network"), tok, nil, &network) == 200 && len(network.SVs) == 5 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(network.SVs) != 5 {
		t.Fatalf("the second process lists %d SVs; want 5:\n%s", len(network.SVs), b.logs())
	}
	if code := call(t, "GET", b.url("/sv/5/v2/state/ledger-end"), tok, nil, nil); code != 200 {
		t.Errorf("the second process's /sv/5 ledger API: %d", code)
	}
	a.stop(t)
	b.stop(t)
}

// eventually polls cond every 50 ms until it holds or d has passed, and
// reports whether it held.
func eventually(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// firstDifference shows where two long texts part, with some context on
// both sides, for a failure message that can be read.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("lengths %d and %d, first difference at byte %d:\n…%s\n---\n…%s",
		len(a), len(b), i, a[from:min(len(a), i+300)], b[from:min(len(b), i+300)])
}
