package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The Scan as an explorer reaches it on the real binary: a fresh network
// has a snapshot to page at once; advancing the clock across boundaries
// adds one per boundary; a tap shows up in the update history.
func TestScan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir, "--scan-snapshot-period", "1h")
	admin := mustToken(t, dir, "participant_admin")
	scanURL := func(path string) string { return p.url("/api/scan" + path) }

	var status struct {
		Complete bool `json:"complete"`
	}
	if code := call(t, "GET", scanURL("/v0/backfilling/status"), "", nil, &status); code != 200 || !status.Complete {
		t.Fatalf("backfilling status: %d %+v", code, status)
	}
	var ts struct {
		RecordTime string `json:"record_time"`
	}
	far := url.QueryEscape(time.Now().Add(1000 * time.Hour).UTC().Format(time.RFC3339))
	if code := call(t, "GET", scanURL("/v0/state/acs/snapshot-timestamp?migration_id=0&before="+far), "", nil, &ts); code != 200 {
		t.Fatalf("a fresh network has no snapshot: %d", code)
	}
	first, err := time.Parse(time.RFC3339, ts.RecordTime)
	if err != nil || first.Truncate(time.Hour) != first || first.After(time.Now()) {
		t.Fatalf("first snapshot at %q (%v): want a past whole hour", ts.RecordTime, err)
	}
	type acsPage struct {
		CreatedEvents []struct {
			ContractID string `json:"contract_id"`
		} `json:"created_events"`
		NextPageToken string `json:"next_page_token"`
	}
	var page acsPage
	body := map[string]any{"migration_id": 0, "record_time": ts.RecordTime, "page_size": 5}
	if code := call(t, "POST", scanURL("/v2/state/acs"), "", body, &page); code != 200 || len(page.CreatedEvents) != 5 || page.NextPageToken == "" {
		t.Fatalf("first ACS page: %d %+v", code, page)
	}
	body["after"] = page.NextPageToken
	var next acsPage
	if code := call(t, "POST", scanURL("/v2/state/acs"), "", body, &next); code != 200 || len(next.CreatedEvents) == 0 || next.CreatedEvents[0].ContractID == page.CreatedEvents[4].ContractID {
		t.Fatalf("second ACS page: %d %+v", code, next)
	}
	body["page_size"] = 1001
	if code := call(t, "POST", scanURL("/v2/state/acs"), "", body, nil); code != 400 {
		t.Errorf("page_size 1001: %d, want 400", code)
	}

	// Three hours on: three more hourly snapshots, the last at the third
	// boundary after the first.
	if code := call(t, "POST", p.url("/api/sandnet/v0/clock/advance"), admin, map[string]string{"duration": "3h"}, nil); code != 200 {
		t.Fatalf("advance clock: %d", code)
	}
	want := first.Add(3 * time.Hour).Format(time.RFC3339)
	deadline := time.Now().Add(10 * time.Second)
	for ts.RecordTime != want && time.Now().Before(deadline) {
		call(t, "GET", scanURL("/v0/state/acs/snapshot-timestamp?migration_id=0&before="+far), "", nil, &ts)
		time.Sleep(20 * time.Millisecond)
	}
	if ts.RecordTime != want {
		t.Errorf("latest snapshot after 3h: %s, want %s", ts.RecordTime, want)
	}
	for _, h := range []int{1, 2} {
		at := first.Add(time.Duration(h) * time.Hour).Format(time.RFC3339)
		if code := call(t, "POST", scanURL("/v2/state/acs"), "", map[string]any{"migration_id": 0, "record_time": at, "page_size": 1}, nil); code != 200 {
			t.Errorf("snapshot at %s: %d", at, code)
		}
	}

	// A tap is in the history once ingested: an on-demand snapshot waits
	// for nothing, so poll the history.
	var tap struct {
		ContractID string `json:"contract_id"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), admin, map[string]string{"user": "alice", "amount": "10"}, &tap); code != 200 || tap.ContractID == "" {
		t.Fatalf("tap: %d %+v", code, tap)
	}
	var snap struct {
		Contracts int64 `json:"contracts"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/scan/snapshots"), admin, nil, &snap); code != 200 || snap.Contracts == 0 {
		t.Fatalf("snapshot on demand: %d %+v", code, snap)
	}
	found := false
	for deadline := time.Now().Add(10 * time.Second); !found && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var history struct {
			Transactions []struct {
				EventsByID map[string]struct {
					ContractID string `json:"contract_id"`
					EventType  string `json:"event_type"`
				} `json:"events_by_id"`
			} `json:"transactions"`
		}
		if code := call(t, "POST", scanURL("/v2/updates"), "", map[string]any{"page_size": 1000}, &history); code != 200 {
			t.Fatalf("history: %d", code)
		}
		for _, tx := range history.Transactions {
			for _, ev := range tx.EventsByID {
				found = found || ev.EventType == "created_event" && ev.ContractID == tap.ContractID
			}
		}
	}
	if !found {
		t.Errorf("the tapped amulet %s is not in Scan's history", tap.ContractID)
	}
	p.stop(t)
}

// A Scan in its own process (sandnet scan), reading SV 1's participant
// over the JSON Ledger API, answers exactly as the Scan inside sandnet
// start does, before and after new transactions.
func TestRemoteScan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	net := startSandnet(t, dir)
	remote := startProc(t, "scan", t.TempDir(), "--url", net.url(""), "--sandnet-data-dir", dir)
	admin := mustToken(t, dir, "participant_admin")

	var ts struct {
		RecordTime string `json:"record_time"`
	}
	far := url.QueryEscape(time.Now().Add(1000 * time.Hour).UTC().Format(time.RFC3339))
	if code := call(t, "GET", net.url("/api/scan/v0/state/acs/snapshot-timestamp?migration_id=0&before="+far), "", nil, &ts); code != 200 {
		t.Fatalf("snapshot timestamp: %d", code)
	}
	reads := []struct {
		method, path, body string
		// normal, when set, brings both answers to the form compared.
		normal func(string) string
	}{
		{"POST", "/v2/updates", `{"page_size":1000}`, nil},
		// compact_json: in protobuf_json the remote Scan cannot name the
		// type of a vote's action (the ledger API's JSON does not carry
		// it, and sandnet models the action as an untyped value).
		{"POST", "/v1/updates", `{"page_size":1000,"daml_value_encoding":"compact_json"}`, nil},
		{"POST", "/v2/state/acs", `{"migration_id":0,"record_time":"` + ts.RecordTime + `","page_size":1000}`, nil},
		{"POST", "/v0/backfilling/migration-info", `{"migration_id":0}`, nil},
		{"GET", "/v0/dso", "", nil},
		{"GET", "/v0/ans-entries?page_size=100", "", nil},
		{"POST", "/v0/open-and-issuing-mining-rounds", `{}`, nil},
		{"GET", "/v0/sv-bft-sequencers", "", nil},
	}
	same := func(when string) {
		t.Helper()
		for _, r := range reads {
			// The DSO's automation keeps committing, and the two Scans
			// ingest each commit at slightly different moments: an
			// answer may differ for an instant, never for long.
			var a, b string
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				a, b = fetch(t, r.method, net.url("/api/scan"+r.path), r.body), fetch(t, r.method, remote.url("/api/scan"+r.path), r.body)
				if r.normal != nil {
					a, b = r.normal(a), r.normal(b)
				}
				if a == b || time.Now().After(deadline) {
					break
				}
			}
			if a != b {
				// From a little before the first difference.
				i := 0
				for i < min(len(a), len(b)) && a[i] == b[i] {
					i++
				}
				i = max(i-200, 0)
				t.Errorf("%s: %s %s differs between the in-process and the remote Scan from byte %d:\n%.400s\n%.400s", when, r.method, r.path, i, a[i:], b[i:])
			}
		}
	}
	same("seeded")

	// A tap; both Scans ingest it (the remote one within its wait).
	if code := call(t, "POST", net.url("/api/sandnet/v0/tap"), admin, map[string]string{"user": "bob", "amount": "7"}, nil); code != 200 {
		t.Fatalf("tap: %d", code)
	}
	history := func(p *proc) string { return fetch(t, "POST", p.url("/api/scan/v2/updates"), `{"page_size":1000}`) }
	deadline := time.Now().Add(15 * time.Second)
	for history(net) != history(remote) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	same("after a tap")

	// A DSO contract (an SvNodeState) reassigned to a second synchronizer
	// and back, a hard migration, and a tap in the new migration: the
	// remote Scan reads the reassignments and tells the migration of each
	// update (and makes migration 1's import updates) as the in-process
	// one does.
	var dso struct {
		SvNodeStates []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
		} `json:"sv_node_states"`
	}
	if code := call(t, "GET", net.url("/api/scan/v0/dso"), "", nil, &dso); code != 200 || len(dso.SvNodeStates) == 0 {
		t.Fatalf("scan dso: %d %+v", code, dso)
	}
	var global, other struct {
		ID string `json:"synchronizer_id"`
	}
	var network struct {
		Synchronizers []struct {
			ID string `json:"synchronizer_id"`
		} `json:"synchronizers"`
	}
	if code := call(t, "GET", net.url("/api/sandnet/v0/network"), admin, nil, &network); code != 200 || len(network.Synchronizers) != 1 {
		t.Fatalf("network: %d %+v", code, network)
	}
	global.ID = network.Synchronizers[0].ID
	if code := call(t, "POST", net.url("/api/sandnet/v0/synchronizers"), admin, map[string]string{"alias": "app-synchronizer"}, &other); code != 200 {
		t.Fatalf("add synchronizer: %d", code)
	}
	for _, target := range []string{other.ID, global.ID} {
		body := map[string]string{"contract_id": dso.SvNodeStates[0].Contract.ContractID, "target_synchronizer_id": target}
		if code := call(t, "POST", net.url("/api/sandnet/v0/reassignments"), admin, body, nil); code != 200 {
			t.Fatalf("reassign to %s: %d", target, code)
		}
	}
	if code := call(t, "POST", net.url("/api/sandnet/v0/migrations"), admin, nil, nil); code != 200 {
		t.Fatalf("migrate: %d", code)
	}
	if code := call(t, "POST", net.url("/api/sandnet/v0/tap"), admin, map[string]string{"user": "bob", "amount": "3"}, nil); code != 200 {
		t.Fatalf("tap in migration 1: %d", code)
	}
	importUpdates := `{"migration_id":1,"after_update_id":"","limit":1000}`
	reads = append(reads,
		// Import updates are in protobuf_json only: a vote request's
		// action, whose types the remote Scan cannot name (see
		// /v1/updates above), is left out of the comparison.
		struct {
			method, path, body string
			normal             func(string) string
		}{"POST", "/v0/backfilling/import-updates", importUpdates, untypedActions(t)},
		struct {
			method, path, body string
			normal             func(string) string
		}{"POST", "/v0/backfilling/migration-info", `{"migration_id":1}`, nil},
	)
	// Both caught up: migration 1's tap (its record time is after every
	// other) is in both histories.
	deadline = time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		h := history(net)
		if h == history(remote) && strings.Contains(h, `"migration_id":1`) && strings.Contains(h, "unassign") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if h := history(remote); !strings.Contains(h, `"migration_id":1`) || !strings.Contains(h, "unassign_id") {
		t.Errorf("the remote Scan's history has no update of migration 1 or no reassignment:\n%.400s", h)
	}
	if imports := fetch(t, "POST", remote.url("/api/scan/v0/backfilling/import-updates"), importUpdates); !strings.HasPrefix(imports, "200 ") || !strings.Contains(imports, "created_event") {
		t.Errorf("the remote Scan has no import updates of migration 1: %.400s", imports)
	}
	same("after reassignments and a migration")
	remote.stop(t)
	net.stop(t)
}

// untypedActions returns a normaliser of a fetched protobuf_json answer
// that blanks the values of the record fields labelled "action" (a vote
// request's): in protobuf_json they name their types (variant and record
// ids, party and int64 leaves), which a remote Scan cannot recover from
// the JSON Ledger API, where sandnet models the action as an untyped
// value. Everything else is kept.
func untypedActions(t *testing.T) func(string) string {
	return func(s string) string {
		t.Helper()
		status, body, _ := strings.Cut(s, " ")
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			return s
		}
		var drop func(v any)
		drop = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if x["label"] == "action" {
					x["value"] = nil
					return
				}
				for _, m := range x {
					drop(m)
				}
			case []any:
				for _, m := range x {
					drop(m)
				}
			}
		}
		drop(v)
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return status + " " + string(out)
	}
}

// fetch returns a response body, failing on a transport error.
func fetch(t *testing.T, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

// Every SV has its own Scan, at /sv/k/api/scan (SV 1's also at
// /api/scan): each reads its own participant into its own store, yet
// their update histories agree byte for byte once caught up (v2 items
// carry no offset), while each names its own SV and sequencer.
func TestScanPerSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Each SV also on an address of its own, on a port the system picks
	// (--sv-listen with port 0), which the log names.
	p := startSandnet(t, dir, "--svs", "3", "--sv-listen", "127.0.0.1:0")
	own := map[int]string{}
	for _, rec := range p.logLines("SV served on its own address") {
		sv, _ := rec["sv"].(float64)
		u, _ := rec["url"].(string)
		own[int(sv)] = u
	}
	if len(own) != 3 {
		t.Fatalf("the log names the own addresses of SVs %v, want 1 to 3:\n%s", own, p.logs())
	}
	admin := mustToken(t, dir, "participant_admin")
	var network struct {
		SVs []struct {
			PartyID string `json:"party_id"`
		} `json:"svs"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), admin, nil, &network); code != 200 || len(network.SVs) != 3 {
		t.Fatalf("network: %d %+v", code, network)
	}
	scans := []string{"/api/scan", "/sv/1/api/scan", "/sv/2/api/scan", "/sv/3/api/scan"}
	for i, prefix := range scans {
		var dso struct {
			SvPartyID string `json:"sv_party_id"`
		}
		want := network.SVs[max(i-1, 0)].PartyID
		// sandnet is ready once SV 1's Scan has caught up; the others
		// catch up in the background and answer 404 until they have read
		// the DSO's rules.
		code := call(t, "GET", p.url(prefix+"/v0/dso"), "", nil, &dso)
		for deadline := time.Now().Add(30 * time.Second); code == 404 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			code = call(t, "GET", p.url(prefix+"/v0/dso"), "", nil, &dso)
		}
		if code != 200 || dso.SvPartyID != want {
			t.Errorf("%s/v0/dso: %d sv_party_id %q, want %q", prefix, code, dso.SvPartyID, want)
		}
	}

	if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), admin, map[string]string{"user": "alice", "amount": "10"}, nil); code != 200 {
		t.Fatalf("tap: %d", code)
	}
	history := func(prefix string) string {
		return fetch(t, "POST", p.url(prefix+"/v2/updates"), `{"page_size":1000}`)
	}
	// SV 1's history holds the tap once ingested; the others catch up to it.
	var want string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		want = history("/api/scan")
		same := true
		for _, prefix := range scans[1:] {
			same = same && history(prefix) == want
		}
		if same && strings.Contains(want, "alice") {
			break
		}
	}
	if !strings.HasPrefix(want, "200 ") || !strings.Contains(want, "alice") {
		t.Fatalf("SV 1's history after a tap: %.400s", want)
	}
	for _, prefix := range scans[1:] {
		if got := history(prefix); got != want {
			t.Errorf("%s/v2/updates differs from /api/scan's:\n%.400s\n%.400s", prefix, got, want)
		}
	}
	for k := 1; k <= 3; k++ {
		if got := fetch(t, "POST", own[k]+"/api/scan/v2/updates", `{"page_size":1000}`); got != want {
			t.Errorf("SV %d's own address: /api/scan/v2/updates differs:\n%.400s", k, got)
		}
		var end struct {
			Offset int64 `json:"offset"`
		}
		if code := call(t, "GET", own[k]+"/v2/state/ledger-end", admin, nil, &end); code != 200 || end.Offset == 0 {
			t.Errorf("SV %d's own address: ledger end %d %+v", k, code, end)
		}
	}

	// The token-standard registry: at the root of every Scan's host
	// (under /sv/k for SV k, at the root of its own address) and through
	// the validator's scan-proxy.
	info := fetch(t, "GET", p.url("/registry/metadata/v1/info"), "")
	if !strings.HasPrefix(info, "200 ") || !strings.Contains(info, `"supportedApis":{"splice-api-token-metadata-v1":1}`) {
		t.Errorf("/registry/metadata/v1/info: %.400s", info)
	}
	registries := []string{p.url("/api/validator/v0/scan-proxy/registry")}
	for k := 1; k <= 3; k++ {
		registries = append(registries, p.url(fmt.Sprintf("/sv/%d/registry", k)), own[k]+"/registry")
	}
	for _, reg := range registries {
		if got := fetch(t, "GET", reg+"/metadata/v1/info", ""); got != info {
			t.Errorf("%s/metadata/v1/info differs from /registry's: %.400s", reg, got)
		}
		if got := fetch(t, "GET", reg+"/metadata/v1/instruments/Amulet", ""); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, `"symbol":"AMT"`) {
			t.Errorf("%s/metadata/v1/instruments/Amulet: %.400s", reg, got)
		}
		if got := fetch(t, "GET", reg+"/metadata/v1/instruments/CC", ""); got != `404 {"error":"No instrument with id CC found"}`+"\n" {
			t.Errorf("%s/metadata/v1/instruments/CC: %q", reg, got)
		}
	}

	sequencers := map[string]string{}
	for _, prefix := range scans[1:] {
		b := fetch(t, "GET", p.url(prefix+"/v0/sv-bft-sequencers"), "")
		if !strings.HasPrefix(b, "200 ") {
			t.Errorf("%s/v0/sv-bft-sequencers: %.400s", prefix, b)
		}
		if other, ok := sequencers[b]; ok {
			t.Errorf("%s and %s name the same sequencers: %.400s", other, prefix, b)
		}
		sequencers[b] = prefix
	}
	if a, b := fetch(t, "GET", p.url("/api/scan/v0/sv-bft-sequencers"), ""), fetch(t, "GET", p.url("/sv/1/api/scan/v0/sv-bft-sequencers"), ""); a != b {
		t.Errorf("/api/scan and /sv/1/api/scan differ on sv-bft-sequencers:\n%.400s\n%.400s", a, b)
	}
	metrics := fetch(t, "GET", p.url("/metrics"), "")
	for k := 1; k <= 3; k++ {
		if !strings.Contains(metrics, fmt.Sprintf(`sandnet_scan_snapshot_contracts{sv="%d"}`, k)) {
			t.Errorf("/metrics has no snapshot gauge for SV %d's Scan", k)
		}
		if !strings.Contains(metrics, fmt.Sprintf(`sandnet_scan_backfilling_complete{sv="%d"} 1`, k)) {
			t.Errorf("/metrics does not say SV %d's Scan history is complete", k)
		}
	}
	p.stop(t)
}
