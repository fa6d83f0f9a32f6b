package scanapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// acsPage is the part of a v2 ACS page these tests read.
type acsPage struct {
	RecordTime    string `json:"record_time"`
	CreatedEvents []struct {
		ContractID        string `json:"contract_id"`
		CreatedInUpdateID string `json:"created_in_update_id"`
		CreatedAt         string `json:"created_at"`
	} `json:"created_events"`
	NextPageToken string `json:"next_page_token"`
}

// readACS pages through the v2 ACS of a snapshot.
func readACS(t *testing.T, e *env, at daml.Timestamp, pageSize int) []string {
	t.Helper()
	var ids []string
	after := ""
	for range 1000 {
		body := fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":%d%s}`, at.String(), pageSize, after)
		page := firstResponse[acsPage](t, e, http.MethodPost, "/v2/state/acs", body)
		if page.RecordTime != at.String() {
			t.Errorf("record_time %s, want the request's %s", page.RecordTime, at)
		}
		for _, c := range page.CreatedEvents {
			ids = append(ids, c.ContractID)
			if c.CreatedInUpdateID == "" {
				t.Errorf("%s has no created_in_update_id", c.ContractID)
			}
		}
		if page.NextPageToken == "" {
			return ids
		}
		after = fmt.Sprintf(`,"after":%q`, page.NextPageToken)
	}
	t.Fatal("the ACS never ends")
	return nil
}

// TestAcsIsTheDSOsActiveContracts checks the latest snapshot against the
// SV participant's own active contract set: the contracts the DSO party is
// a stakeholder of, created at or before the snapshot, whatever the page
// size.
func TestAcsIsTheDSOsActiveContracts(t *testing.T) {
	t.Parallel()
	e := shared(t)
	ctx := context.Background()
	all, err := e.Network.Store().ActiveContracts(ctx, ledger.ContractFilter{Stakeholder: e.Seeded.DSOParty})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range all {
		if c.CreatedAt <= e.snapshot.RecordTime {
			want = append(want, string(c.ID))
		}
	}
	slices.Sort(want)
	if len(want) == 0 {
		t.Fatal("the DSO has no active contracts")
	}
	for _, size := range []int{1, 7, 1000} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			t.Parallel()
			got := readACS(t, e, e.snapshot.RecordTime, size)
			if len(got) != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
				t.Errorf("a contract is listed twice")
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("ACS differs from the participant's:\n got %d %v\nwant %d %v", len(got), got, len(want), want)
			}
		})
	}
}

// TestNothingPrivate checks that no contract the DSO party is not a
// stakeholder of (wallet installs, a transfer offer between users)
// appears anywhere in Scan: history, updates by id, ACS, lists.
func TestNothingPrivate(t *testing.T) {
	t.Parallel()
	e := shared(t)
	if len(e.private) < 3 {
		t.Fatalf("want wallet installs and an offer to look for, got %v", e.private)
	}
	f := fixtureOf(t, e)
	var bodies []string
	add := func(method, path, body string) {
		rec := do(t, e.ScanHandler, method, path, body, false)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		bodies = append(bodies, rec.Body.String())
	}
	add(http.MethodPost, "/v2/updates", `{"page_size":1000}`)
	add(http.MethodPost, "/v1/updates", `{"page_size":1000,"daml_value_encoding":"protobuf_json"}`)
	add(http.MethodPost, "/v0/transactions", `{"page_size":1000}`)
	for _, u := range f.updates {
		add(http.MethodGet, "/v2/updates/"+u.UpdateID(), "")
	}
	for _, at := range []daml.Timestamp{e.snapshot.RecordTime, e.scheduled.RecordTime} {
		add(http.MethodPost, "/v0/state/acs", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":1000}`, at.String()))
		add(http.MethodPost, "/v1/state/acs", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":1000,"party_ids":[%q,%q]}`, at.String(), f.alice, e.Party("bob")))
	}
	add(http.MethodPost, "/v0/backfilling/updates-before", fmt.Sprintf(`{"migration_id":0,"synchronizer_id":%q,"before":"9999-01-01T00:00:00Z","count":1000}`, f.sync))
	for _, id := range e.private {
		for _, b := range bodies {
			if strings.Contains(b, string(id)) {
				t.Errorf("private contract %s is in a Scan response: %.300s", id, b)
			}
		}
	}
	// The transfer offer's creation is not in the history at all, and
	// the direct transfer is, as the DSO sees it.
	if !strings.Contains(bodies[0], e.transfer) {
		t.Errorf("the direct transfer %s is not in the history", e.transfer)
	}
}

// TestEventNumbering checks the v1/v2 event ids of every update: the
// nodes are numbered 0..N-1 in pre-order over the roots and their
// children, every reference names an event, and v2 has no offset.
func TestEventNumbering(t *testing.T) {
	t.Parallel()
	e := shared(t)
	type event struct {
		EventID  string   `json:"event_id"`
		Children []string `json:"child_event_ids"`
	}
	type item struct {
		UpdateID   string           `json:"update_id"`
		Offset     *string          `json:"offset"`
		Roots      []string         `json:"root_event_ids"`
		EventsByID map[string]event `json:"events_by_id"`
	}
	for _, v := range []string{"v1", "v2"} {
		page := firstResponse[struct {
			Transactions []item `json:"transactions"`
		}](t, e, http.MethodPost, "/"+v+"/updates", `{"page_size":1000}`)
		if len(page.Transactions) == 0 {
			t.Fatal("empty history")
		}
		for _, it := range page.Transactions {
			if (it.Offset == nil) != (v == "v2") || (it.Offset != nil && *it.Offset != "000000000000000001") {
				t.Errorf("%s %s: offset %v", v, it.UpdateID, it.Offset)
			}
			n := 0
			var walk func(id string)
			walk = func(id string) {
				if want := it.UpdateID + ":" + strconv.Itoa(n); id != want {
					t.Errorf("%s %s: event %s in pre-order position %d", v, it.UpdateID, id, n)
				}
				n++
				ev, ok := it.EventsByID[id]
				if !ok || ev.EventID != id {
					t.Errorf("%s %s: event %s missing or misnamed", v, it.UpdateID, id)
					return
				}
				for _, c := range ev.Children {
					walk(c)
				}
			}
			for _, r := range it.Roots {
				walk(r)
			}
			if n != len(it.EventsByID) {
				t.Errorf("%s %s: %d events reachable of %d", v, it.UpdateID, n, len(it.EventsByID))
			}
		}
	}
}

// TestEmptyScanGolden serves a Scan that has ingested nothing: the
// history reads answer 503, the others what there is.
func TestEmptyScanGolden(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlitestore.OpenScan(ctx, filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := shared(t)
	sv := e.Seeded.SVs[0]
	svc := &scan.Service{
		Config: scan.Config{DSO: e.Seeded.DSOParty, SV: sv.Party, SVName: sv.Name, AnsAcronym: e.Seeded.AnsAcronym},
		Store:  st, Source: &scan.NetworkSource{Network: e.Network, Participant: sv.Participant, DSO: e.Seeded.DSOParty},
	}
	mux := http.NewServeMux()
	scanapi.New(scanapi.Config{Service: svc, Logger: slog.New(slog.DiscardHandler)}).Register(mux, scanapi.Prefix)
	runGolden(t, "empty", mux, []goldenCase{
		post("v2 updates: not loaded", "/v2/updates", `{"page_size":1}`, 503),
		post("v1 updates: not loaded", "/v1/updates", `{"page_size":1}`, 503),
		post("transactions: none", "/v0/transactions", `{"page_size":1}`, 200),
		get("backfilling status", "/v0/backfilling/status", 200),
		post("migration-info: none", "/v0/backfilling/migration-info", `{"migration_id":0}`, 404),
		get("snapshot-timestamp: none", "/v0/state/acs/snapshot-timestamp?migration_id=0&before=2026-01-05T12%3A00%3A00Z", 404),
		post("v2 acs: none", "/v2/state/acs", `{"migration_id":0,"record_time":"2026-01-05T12:00:00Z","page_size":1}`, 404),
		get("dso: no rules", "/v0/dso", 404),
		post("amulet-rules: none", "/v0/amulet-rules", `{}`, 404),
		post("mining rounds: none", "/v0/open-and-issuing-mining-rounds", `{"cached_open_mining_round_contract_ids":[],"cached_issuing_round_contract_ids":[]}`, 200),
		get("vote requests: none", "/v0/admin/sv/voterequests", 200),
		get("sv-bft-sequencers: none", "/v0/sv-bft-sequencers", 200),
		get("ans-entries: the DSO's only", "/v0/ans-entries?page_size=10", 200),
	})
}

// TestOpenAPIServed checks that the document is served as it is embedded.
func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	e := shared(t)
	rec := do(t, e.ScanHandler, http.MethodGet, "/openapi.yaml", "", false)
	if rec.Code != http.StatusOK || rec.Body.String() != string(scanapi.OpenAPI()) {
		t.Errorf("GET openapi.yaml: %d", rec.Code)
	}
	// An unknown path under the prefix is a JSON 404.
	r := newRequest(http.MethodGet, "/v0/nope", "")
	w := newRecorder()
	e.ScanHandler.ServeHTTP(w, r)
	var body map[string]string
	if w.Code != http.StatusNotFound || json.Unmarshal(w.Body.Bytes(), &body) != nil || body["error"] == "" {
		t.Errorf("GET /v0/nope: %d %s", w.Code, w.Body)
	}
}

// TestAcsTokenIsBoundToItsSnapshot pages each ACS version with a token
// taken from one request and passed with another: a request resolving to
// the same snapshot continues the list (an at_or_before first page
// continued with the resolved record_time and exact, and the reverse), a
// request naming another snapshot is refused.
func TestAcsTokenIsBoundToItsSnapshot(t *testing.T) {
	t.Parallel()
	e := shared(t)
	sched, snap := e.scheduled.RecordTime.String(), e.snapshot.RecordTime.String()
	// Between the two snapshots: at_or_before resolves to the scheduled
	// one; after both, to the last.
	between := (e.scheduled.RecordTime + 1).String()
	if e.scheduled.RecordTime+1 >= e.snapshot.RecordTime {
		t.Fatalf("no time between the snapshots %s and %s", sched, snap)
	}
	const later = "9999-01-01T00:00:00Z"
	type page struct {
		Events []json.RawMessage `json:"created_events"`
		Next   json.RawMessage   `json:"next_page_token"`
	}
	req := func(version, rt, match string, after json.RawMessage, size int) (int, page, string) {
		body := fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":%d`, rt, size)
		if match != "" {
			body += fmt.Sprintf(`,"record_time_match":%q`, match)
		}
		if after != nil {
			body += `,"after":` + string(after)
		}
		rec := do(t, e.ScanHandler, http.MethodPost, "/"+version+"/state/acs", body+"}", false)
		var p page
		if rec.Code == http.StatusOK {
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
		}
		return rec.Code, p, rec.Body.String()
	}
	for _, version := range []string{"v0", "v1", "v2"} {
		for _, tc := range []struct {
			name              string
			firstAt, firstM   string
			secondAt, secondM string
			wantSameAsExactAt string // "" when the second request must be refused
		}{
			{"at_or_before, then exact at the resolved time", between, "at_or_before", sched, "exact", sched},
			{"exact, then at_or_before resolving to it", sched, "", between, "at_or_before", sched},
			{"at_or_before after the last, then exact", later, "at_or_before", snap, "", snap},
			{"a token of another snapshot", sched, "", snap, "", ""},
			{"a token of another snapshot through at_or_before", sched, "", later, "at_or_before", ""},
		} {
			t.Run(version+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				code, first, body := req(version, tc.firstAt, tc.firstM, nil, 2)
				if code != http.StatusOK || len(first.Next) == 0 || len(first.Events) != 2 {
					t.Fatalf("first page: %d %s", code, body)
				}
				code, second, body := req(version, tc.secondAt, tc.secondM, first.Next, 2)
				if tc.wantSameAsExactAt == "" {
					if code != http.StatusBadRequest || !strings.Contains(body, "token") {
						t.Fatalf("second page with a token of another snapshot: %d %s, want 400", code, body)
					}
					return
				}
				if code != http.StatusOK {
					t.Fatalf("second page: %d %s, want 200", code, body)
				}
				// The two pages are the first four rows of the snapshot.
				_, want, _ := req(version, tc.wantSameAsExactAt, "", nil, 4)
				got := append(first.Events, second.Events...)
				if len(got) != len(want.Events) {
					t.Fatalf("got %d events, want %d", len(got), len(want.Events))
				}
				for i := range got {
					if string(got[i]) != string(want.Events[i]) {
						t.Errorf("event %d differs:\n got %s\nwant %s", i, got[i], want.Events[i])
					}
				}
			})
		}
	}
}
