package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/scanclient"
)

// TestSaveRestore saves a seeded network through the admin API, changes
// it (transfers, taps, offers, the clock), restores it twice from the
// same save, and checks that every API answers as at save time and that
// every store holds, table by table, what the save holds; an open stream
// ends with a message naming the save; bad names, unknown and damaged
// saves are refused with the network unchanged. On SQLite and PostgreSQL.
func TestSaveRestore(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testSaveRestore(t, engine)
		})
	}
}

func testSaveRestore(t *testing.T, engine string) {
	dir := t.TempDir()
	var args []string
	var dbURL, prefix string
	if engine == "postgres" {
		dbURL = testDatabaseURL(t)
		prefix = schemaPrefix(t, dbURL, "save")
		args = []string{"--database-url", dbURL, "--database-schema", prefix}
	}
	p := startSandnet(t, dir, args...)
	op := mustToken(t, dir, OperatorUser)
	alice, bob := mustToken(t, dir, "alice"), mustToken(t, dir, "bob")
	adminURL := func(path string) string { return p.url("/api/sandnet/v0" + path) }
	aliceParty, bobParty := partyOf(t, p, alice), partyOf(t, p, bob)

	if code := call(t, "POST", adminURL("/tap"), op, map[string]string{"user": "alice", "amount": "1000.0"}, nil); code != 200 {
		t.Fatalf("tap: %d", code)
	}
	offer(t, p, alice, bobParty, "pending-offer", "12.5")
	state := func() string { return apiState(t, p, alice, bob, aliceParty, op) }
	// The network is settled once its automation runs and has done what
	// is due: a save of a network with work due would have it done again
	// after a restore.
	if !eventually(30*time.Second, func() bool { return leaderGauge(t, p) == 1 }) {
		t.Fatal("no automation")
	}
	before := settled(t, state)

	var saved struct {
		Name       string `json:"name"`
		CreatedAt  string `json:"created_at"`
		LedgerTime string `json:"ledger_time"`
		LedgerEnd  int64  `json:"ledger_end"`
		SizeBytes  int64  `json:"size_bytes"`
	}
	if code := callStatus(t, "POST", adminURL("/saves"), op, `{"name":"before-test"}`, &saved); code != http.StatusCreated {
		t.Fatalf("save: %d", code)
	}
	if saved.Name != "before-test" || saved.LedgerEnd == 0 || saved.SizeBytes == 0 || saved.CreatedAt == "" || saved.LedgerTime == "" {
		t.Fatalf("save answered %+v", saved)
	}
	if got := state(); got != before {
		t.Fatalf("saving changed the network:\n%s", firstDifference(before, got))
	}

	// The name rules, a taken name, a generated name.
	for _, tc := range []struct {
		body string
		code int
	}{
		{`{"name":"Before"}`, 400}, {`{"name":"-x"}`, 400}, {`{"name":"a/b"}`, 400},
		{`{"name":"` + strings.Repeat("a", 64) + `"}`, 400}, {`{"name":7}`, 400},
		{`{"name":"before-test"}`, 409},
	} {
		if code := callStatus(t, "POST", adminURL("/saves"), op, tc.body, nil); code != tc.code {
			t.Errorf("save %s: %d, want %d", tc.body, code, tc.code)
		}
	}
	var generated struct {
		Name string `json:"name"`
	}
	if code := callStatus(t, "POST", adminURL("/saves"), op, "", &generated); code != 201 || generated.Name != "save-1" {
		t.Errorf("save without a name: %d %q, want 201 save-1", code, generated.Name)
	}
	if code := callStatus(t, "POST", adminURL("/saves"), alice, `{"name":"not-yours"}`, nil); code != 403 {
		t.Errorf("save by a user who is not an operator: %d, want 403", code)
	}

	for round := 1; round <= 2; round++ {
		// Change everything: a transfer, a tap, a new offer, the clock.
		walletTransfer(t, p, alice, bob, bobParty, fmt.Sprint("moved-", round), "100.0")
		if code := call(t, "POST", adminURL("/tap"), op, map[string]string{"user": "bob", "amount": "55.0"}, nil); code != 200 {
			t.Fatalf("tap: %d", code)
		}
		offer(t, p, bob, aliceParty, fmt.Sprint("later-offer-", round), "1.5")
		if code := call(t, "POST", adminURL("/clock/advance"), op, map[string]string{"duration": "1h"}, nil); code != 200 {
			t.Fatalf("advance the clock: %d", code)
		}
		if state() == before {
			t.Fatal("the changes changed nothing")
		}

		stream := openStream(t, p, alice, aliceParty)
		var restored struct {
			Name      string `json:"name"`
			LedgerEnd int64  `json:"ledger_end"`
		}
		if code := callStatus(t, "POST", adminURL("/saves/before-test/restore"), op, "", &restored); code != 200 || restored.Name != "before-test" || restored.LedgerEnd != saved.LedgerEnd {
			t.Fatalf("restore %d: %d %+v", round, code, restored)
		}
		if reason := <-stream; !strings.Contains(reason, `restored from save "before-test"`) {
			t.Errorf("the open stream ended with %q, not the restore", reason)
		}
		if got := state(); got != before {
			var clock json.RawMessage
			call(t, "GET", adminURL("/clock"), op, nil, &clock)
			t.Fatalf("after restore %d (saved at %s, clock now %s) the APIs answer otherwise than at save time:\n%s", round, saved.LedgerTime, clock, firstDifference(before, got))
		}
	}

	// Unknown and damaged saves are refused, the network unchanged.
	if code := callStatus(t, "POST", adminURL("/saves/nope/restore"), op, "", nil); code != 404 {
		t.Errorf("restore an unknown save: %d, want 404", code)
	}
	if code := callStatus(t, "GET", adminURL("/saves/nope"), op, "", nil); code != 404 {
		t.Errorf("get an unknown save: %d, want 404", code)
	}
	if code := callStatus(t, "POST", adminURL("/saves"), op, `{"name":"damaged"}`, nil); code != 201 {
		t.Fatalf("save: %d", code)
	}
	damage(t, engine, dir, dbURL, prefix)
	var e struct {
		Error string `json:"error"`
	}
	if code := callStatus(t, "POST", adminURL("/saves/damaged/restore"), op, "", &e); code != 400 || !strings.Contains(e.Error, "damaged") {
		t.Errorf("restore a damaged save: %d %q, want 400 saying it is damaged", code, e.Error)
	}
	if got := state(); got != before {
		t.Fatalf("a refused restore changed the network:\n%s", firstDifference(before, got))
	}
	if code := callStatus(t, "DELETE", adminURL("/saves/damaged"), op, "", nil); code != 204 {
		t.Errorf("delete: %d", code)
	}

	// Two restores at once: each is done or refused with 409, none fails.
	var wg sync.WaitGroup
	codes := make([]int, 3)
	for i := range codes {
		wg.Go(func() { codes[i] = callStatus(t, "POST", adminURL("/saves/before-test/restore"), op, "", nil) })
	}
	wg.Wait()
	if !slices.Contains(codes, 200) || slices.ContainsFunc(codes, func(c int) bool { return c != 200 && c != 409 }) {
		t.Errorf("concurrent restores answered %v, want 200s and 409s", codes)
	}

	var list struct {
		Saves []struct {
			Name string `json:"name"`
		} `json:"saves"`
	}
	if code := callStatus(t, "GET", adminURL("/saves"), op, "", &list); code != 200 || len(list.Saves) != 2 || list.Saves[0].Name != "before-test" || list.Saves[1].Name != "save-1" {
		t.Errorf("list: %d %+v", code, list)
	}
	if got := state(); got != before {
		t.Fatalf("after the concurrent restores:\n%s", firstDifference(before, got))
	}
	p.stop(t)

	// Store by store, table by table, the live data is the save's.
	if engine == "sqlite" {
		files, _ := filepath.Glob(filepath.Join(dir, "saves", "before-test", "*.db"))
		live, _ := filepath.Glob(filepath.Join(dir, "*.db"))
		if len(files) < 3 || len(files) != len(live) {
			t.Fatalf("saved %v, live %v", files, live)
		}
		for _, f := range files {
			compareDumps(t, filepath.Base(f), dumpSQLite(t, f), dumpSQLite(t, filepath.Join(dir, filepath.Base(f))))
		}
	} else {
		for _, st := range []string{"ledger", "scan", "scan_sv2", "validator"} {
			compareDumps(t, st, dumpPG(t, dbURL, prefix+"_save1_"+st), dumpPG(t, dbURL, prefix+"_"+st))
		}
	}
}

// offer has sender offer receiverParty amount CC (left pending).
func offer(t *testing.T, p *proc, sender, receiverParty, tracking, amount string) {
	t.Helper()
	body := map[string]any{
		"receiver_party_id": receiverParty, "amount": amount, "description": "save test",
		"expires_at": time.Now().Add(30 * 24 * time.Hour).UnixMicro(), "tracking_id": tracking,
	}
	if code := call(t, "POST", validatorURL(p, "/v0/wallet/transfer-offers"), sender, body, nil); code != 200 {
		t.Fatalf("offer %s: %d", tracking, code)
	}
}

// apiState is what the APIs answer about the network: the participants'
// ledger ends and the users (the admin API), alice's ACS (the ledger
// API), the Scan's history, and alice's and bob's amulets and offers
// (the wallet).
func apiState(t *testing.T, p *proc, alice, bob, aliceParty, op string) string {
	t.Helper()
	var b strings.Builder
	var network map[string]any
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), op, nil, &network); code != 200 {
		t.Fatalf("network: %d", code)
	}
	delete(network, "now")
	delete(network, "clock_offset_us")
	nb, _ := json.Marshal(network)
	fmt.Fprintf(&b, "network %s\n", nb)
	acs := activeAsParty(t, p, "", alice, aliceParty)
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range acs {
			if !yield(id) {
				return
			}
		}
	})
	fmt.Fprintf(&b, "alice's ACS %v\n", ids)
	fmt.Fprintf(&b, "scan history %s\n", fetch(t, "POST", p.url("/api/scan/v2/updates"), `{"page_size":1000}`))
	for _, u := range []struct{ name, token string }{{"alice", alice}, {"bob", bob}} {
		var offers json.RawMessage
		if code := call(t, "GET", validatorURL(p, "/v0/wallet/transfer-offers"), u.token, nil, &offers); code != 200 {
			t.Fatalf("%s's offers: %d", u.name, code)
		}
		fmt.Fprintf(&b, "%s's offers %s\n", u.name, offers)
		// The wallet's balance, at the open round the validator last read
		// from the Scan (cached for up to scanclient.DefaultCacheTTL:
		// settled waits longer than that), and its amulets as created.
		var balance json.RawMessage
		if code := call(t, "GET", validatorURL(p, "/v0/wallet/balance"), u.token, nil, &balance); code != 200 {
			t.Fatalf("%s's balance: %d", u.name, code)
		}
		fmt.Fprintf(&b, "%s's balance %s\n", u.name, balance)
		var am walletAmulets
		if code := call(t, "GET", validatorURL(p, "/v0/wallet/amulets"), u.token, nil, &am); code != 200 {
			t.Fatalf("%s's amulets: %d", u.name, code)
		}
		var held []string
		for _, a := range am.Amulets {
			held = append(held, a.Contract.Contract.ContractID+"="+a.Contract.Contract.Payload.Amount.InitialAmount)
		}
		slices.Sort(held)
		fmt.Fprintf(&b, "%s's amulets %v\n", u.name, held)
	}
	return b.String()
}

// settled returns state once reads a second apart have agreed for longer
// than the validator caches the Scan's rounds: the automation has caught
// up on the rounds due, the Scan and the wallet with the ledger.
func settled(t *testing.T, state func() string) string {
	t.Helper()
	last, same := state(), 0
	for range 60 {
		time.Sleep(time.Second)
		now := state()
		if now == last {
			if same++; time.Duration(same)*time.Second > scanclient.DefaultCacheTTL {
				return now
			}
			continue
		}
		last, same = now, 0
	}
	t.Fatal("the network did not settle in 60 s")
	return ""
}

// callStatus sends a raw body and decodes a 2xx answer into out.
func callStatus(t *testing.T, method, u, token, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// openStream opens an open-ended update stream for party and returns a
// channel that receives how it ended: the error frame and close reason.
func openStream(t *testing.T, p *proc, token, party string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	h := http.Header{}
	h.Set("Authorization", "Bearer "+token)
	conn, _, err := websocket.Dial(ctx, "ws://"+p.addr+"/v2/updates", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		cancel()
		t.Fatalf("websocket: %v", err)
	}
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"beginExclusive":0,"filter":{"filtersByParty":{"`+party+`":{}}}}`)); err != nil {
		cancel()
		t.Fatal(err)
	}
	// The stream is open once its first element arrived.
	if _, _, err := conn.Read(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	ended := make(chan string, 1)
	go func() {
		defer cancel()
		defer conn.CloseNow()
		var frames []string
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				var ce websocket.CloseError
				reason := err.Error()
				if errors.As(err, &ce) {
					reason = ce.Reason
				}
				ended <- strings.Join(append(frames, reason), " | ")
				return
			}
			if strings.Contains(string(b), `"code"`) {
				frames = append(frames, string(b))
			}
		}
	}()
	return ended
}

// damage spoils the save "damaged": one byte of a Scan's file (SQLite),
// or one row of a saved table (PostgreSQL).
func damage(t *testing.T, engine, dir, dbURL, prefix string) {
	t.Helper()
	if engine == "sqlite" {
		f, err := os.OpenFile(filepath.Join(dir, "saves", "damaged", "scan.db"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte{0x5a}, 5000); err != nil {
			t.Fatal(err)
		}
		return
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var id int64
	if err := conn.QueryRow(ctx, `SELECT id FROM `+prefix+`_saves.saves WHERE name = 'damaged'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf(`DELETE FROM %s_save%d_scan.updates WHERE ctid IN (SELECT ctid FROM %s_save%d_scan.updates LIMIT 1)`, prefix, id, prefix, id)); err != nil {
		t.Fatal(err)
	}
}

// ignoredColumns are the columns a restore rewrites: the clock offset,
// so that ledger time resumes at the saved time, and the Scans'
// watermarks, which move on with ledger time.
var ignoredColumns = map[string]bool{"head.clock_offset": true, "ingestion.watermark": true}

// dumpSQLite reads every table of a database file, each row as text,
// rows sorted.
func dumpSQLite(t *testing.T, path string) map[string][]string {
	t.Helper()
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		t.Fatalf("%s has a WAL: it was not closed", path)
	}
	db, err := sql.Open("sqlite", "file:"+url.PathEscape(path)+"?immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	out := map[string][]string{}
	for _, table := range tables {
		out[table] = dumpRows(t, db, table)
	}
	return out
}

func dumpRows(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM "` + table + `"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, c := range cols {
			if ignoredColumns[table+"."+c] {
				continue
			}
			fmt.Fprintf(&b, "%s=%v ", c, vals[i])
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// dumpPG reads every table of a schema, each row as text, rows sorted.
func dumpPG(t *testing.T, dbURL, schema string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, schema)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		t.Fatalf("tables of %s: %v %v", schema, tables, err)
	}
	out := map[string][]string{}
	for _, table := range tables {
		q := fmt.Sprintf(`SELECT to_jsonb(t) FROM %s t`, pgx.Identifier{schema, table}.Sanitize())
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		all, err := pgx.CollectRows(rows, pgx.RowTo[map[string]any])
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, r := range all {
			for c := range r {
				if ignoredColumns[table+"."+c] {
					delete(r, c)
				}
			}
			b, _ := json.Marshal(r)
			lines = append(lines, string(b))
		}
		slices.Sort(lines)
		out[table] = lines
	}
	return out
}

func compareDumps(t *testing.T, name string, saved, live map[string][]string) {
	t.Helper()
	for table, rows := range saved {
		got, ok := live[table]
		if !ok {
			t.Errorf("%s: table %s is missing after the restore", name, table)
			continue
		}
		if !slices.Equal(rows, got) {
			t.Errorf("%s: table %s differs from the save (%d rows saved, %d live):\n%s", name, table, len(rows), len(got),
				firstDifference(strings.Join(rows, "\n"), strings.Join(got, "\n")))
		}
	}
	for table := range live {
		if _, ok := saved[table]; !ok {
			t.Errorf("%s: table %s is not in the save", name, table)
		}
	}
}
