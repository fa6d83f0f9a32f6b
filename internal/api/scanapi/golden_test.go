package scanapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// goldenCase is a request and the name of its recorded response.
type goldenCase struct {
	name         string
	method, path string
	body         string
	// status is the status the case must answer.
	status int
	// offSpec marks requests the document does not allow, sent on purpose.
	offSpec bool
}

func get(name, path string, status int) goldenCase {
	return goldenCase{name: name, method: http.MethodGet, path: path, status: status}
}

func post(name, path, body string, status int) goldenCase {
	return goldenCase{name: name, method: http.MethodPost, path: path, body: body, status: status}
}

func (c goldenCase) off() goldenCase {
	c.offSpec = true
	return c
}

// run serves the cases in parallel and checks them against
// testdata/<file>.golden.json.
func runGolden(t *testing.T, file string, h http.Handler, cases []goldenCase) {
	t.Helper()
	g := apitest.OpenGolden(t, file, *update)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				rec := do(t, h, tc.method, tc.path, tc.body, tc.offSpec)
				if rec.Code != tc.status {
					t.Errorf("status %d, want %d: %.500s", rec.Code, tc.status, rec.Body)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("content type %q", ct)
				}
				g.Check(t, tc.name, apitest.EntryOf(t, rec))
			})
		}
	})
	g.Finish(t, !t.Failed())
}

// fixture names the ids the cases use.
type fixture struct {
	sync, dso, alice, sv1 string
	updates               []scan.Update
	vote, openRound       string
	amuletRules           string
	ansRules              string
}

func fixtureOf(t *testing.T, e *env) fixture {
	t.Helper()
	ctx := context.Background()
	f := fixture{
		sync: string(e.Seeded.Synchronizer), dso: string(e.Seeded.DSOParty),
		alice: string(e.Party("alice")), sv1: string(e.Seeded.SVs[0].Party),
	}
	var err error
	if f.updates, err = e.Scan.History(ctx, nil, scan.MaxPageSize, false); err != nil {
		t.Fatal(err)
	}
	only := func(tid ledger.TemplateID) string {
		cs, err := e.Scan.Active(ctx, scan.KeyOf(tid))
		if err != nil || len(cs) == 0 {
			t.Fatalf("no active %s: %v", tid.EntityName, err)
		}
		return string(cs[0].ID)
	}
	f.vote = only(splice.VoteRequest{}.TemplateID())
	f.openRound = only(splice.OpenMiningRound{}.TemplateID())
	f.amuletRules = only(splice.AmuletRules{}.TemplateID())
	f.ansRules = only(splice.AnsRules{}.TemplateID())
	return f
}

// firstResponse serves a request and decodes its JSON answer.
func firstResponse[T any](t *testing.T, e *env, method, path, body string) T {
	t.Helper()
	rec := do(t, e.ScanHandler, method, path, body, false)
	var out T
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHistoryGolden(t *testing.T) {
	t.Parallel()
	e := shared(t)
	f := fixtureOf(t, e)
	second := f.updates[1].Transaction
	last := f.updates[len(f.updates)-1].Transaction
	after := func(m int64, rt string) string {
		return fmt.Sprintf(`{"after":{"after_migration_id":%d,"after_record_time":%q},"page_size":2}`, m, rt)
	}
	txs := firstResponse[struct {
		Transactions []struct {
			EventID string `json:"event_id"`
		} `json:"transactions"`
	}](t, e, http.MethodPost, "/v0/transactions", `{"page_size":3}`)
	if len(txs.Transactions) != 3 {
		t.Fatalf("want 3 log entries, got %d", len(txs.Transactions))
	}
	before := func(extra string) string {
		return fmt.Sprintf(`{"migration_id":0,"synchronizer_id":%q,"before":%q,"count":2%s}`, f.sync, e.snapshot.RecordTime.String(), extra)
	}
	runGolden(t, "history", e.ScanHandler, []goldenCase{
		post("v2 updates: first page", "/v2/updates", `{"page_size":2}`, 200),
		post("v2 updates: after the second", "/v2/updates", after(0, second.RecordTime.MicrosString()), 200),
		post("v2 updates: after the last", "/v2/updates", after(0, last.RecordTime.MicrosString()), 200),
		post("v2 updates: a later migration", "/v2/updates", after(-1, last.RecordTime.MicrosString()), 200),
		post("v2 updates: protobuf_json", "/v2/updates", `{"page_size":1,"daml_value_encoding":"protobuf_json"}`, 200),
		post("v2 updates: page_size 0", "/v2/updates", `{"page_size":0}`, 400),
		post("v2 updates: page_size 1001", "/v2/updates", `{"page_size":1001}`, 400),
		post("v2 updates: no page_size", "/v2/updates", `{}`, 400).off(),
		post("v2 updates: unknown encoding", "/v2/updates", `{"page_size":1,"daml_value_encoding":"xml"}`, 400).off(),
		post("v2 updates: bad record time", "/v2/updates", after(0, "yesterday"), 400),
		post("v2 updates: after without its time", "/v2/updates", `{"after":{"after_migration_id":0},"page_size":1}`, 400).off(),
		post("v2 updates: undecodable body", "/v2/updates", `{"page_size":`, 400).off(),
		post("v2 updates: page_size a string", "/v2/updates", `{"page_size":"3"}`, 400).off(),
		post("v1 updates: first page", "/v1/updates", `{"page_size":2}`, 200),
		post("v1 updates: page_size -1", "/v1/updates", `{"page_size":-1}`, 400),
		get("v2 update: the transfer", "/v2/updates/"+e.transfer, 200),
		get("v2 update: the transfer, protobuf_json", "/v2/updates/"+e.transfer+"?daml_value_encoding=protobuf_json", 200),
		get("v2 update: unknown encoding", "/v2/updates/"+e.transfer+"?daml_value_encoding=xml", 400).off(),
		get("v2 update: unknown", "/v2/updates/nope", 404),
		get("v1 update: the transfer", "/v1/updates/"+e.transfer, 200),
		get("v1 update: unknown", "/v1/updates/nope", 404),
		post("updates-before: two before the snapshot", "/v0/backfilling/updates-before", before(""), 200),
		post("updates-before: at or after", "/v0/backfilling/updates-before", before(fmt.Sprintf(`,"at_or_after":%q`, last.RecordTime.String())), 200),
		post("updates-before: count 0", "/v0/backfilling/updates-before", `{"migration_id":0,"synchronizer_id":"s::1","before":"2026-01-05T12:00:00Z","count":0}`, 400),
		post("updates-before: no before", "/v0/backfilling/updates-before", `{"migration_id":0,"synchronizer_id":"s::1","count":1}`, 400).off(),
		post("updates-before: bad before", "/v0/backfilling/updates-before", `{"migration_id":0,"synchronizer_id":"s::1","before":"noon","count":1}`, 400).off(),
		get("backfilling status", "/v0/backfilling/status", 200),
		post("migration-info: 0", "/v0/backfilling/migration-info", `{"migration_id":0}`, 200),
		post("migration-info: unknown", "/v0/backfilling/migration-info", `{"migration_id":5}`, 404),
		post("migration-info: no migration_id", "/v0/backfilling/migration-info", `{}`, 400).off(),
		post("import-updates: none", "/v0/backfilling/import-updates", `{"migration_id":0,"after_update_id":"","limit":10}`, 200),
		post("import-updates: unknown migration", "/v0/backfilling/import-updates", `{"migration_id":7,"after_update_id":"","limit":10}`, 404),
		post("import-updates: limit 0", "/v0/backfilling/import-updates", `{"migration_id":0,"after_update_id":"","limit":0}`, 400),
		post("import-updates: no limit", "/v0/backfilling/import-updates", `{"migration_id":0,"after_update_id":""}`, 400).off(),
		post("transactions: first page", "/v0/transactions", `{"page_size":3}`, 200),
		post("transactions: next page", "/v0/transactions", fmt.Sprintf(`{"page_size":3,"page_end_event_id":%q}`, txs.Transactions[2].EventID), 200),
		post("transactions: newest first", "/v0/transactions", `{"page_size":2,"sort_order":"desc"}`, 200),
		post("transactions: newest first, next page", "/v0/transactions", fmt.Sprintf(`{"page_size":2,"sort_order":"desc","page_end_event_id":%q}`, txs.Transactions[2].EventID), 200),
		post("transactions: unknown sort order", "/v0/transactions", `{"page_size":2,"sort_order":"up"}`, 400).off(),
		post("transactions: page_size 0", "/v0/transactions", `{"page_size":0}`, 400),
		post("transactions: malformed page end", "/v0/transactions", `{"page_size":1,"page_end_event_id":"nope"}`, 400),
		post("transactions: unknown page end", "/v0/transactions", `{"page_size":1,"page_end_event_id":"#nope:0"}`, 400),
	})
}

func TestStateGolden(t *testing.T) {
	t.Parallel()
	e := shared(t)
	f := fixtureOf(t, e)
	snap, sched := e.snapshot.RecordTime.String(), e.scheduled.RecordTime.String()
	acs := func(rt, extra string) string {
		return fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":2%s}`, rt, extra)
	}
	first := firstResponse[struct {
		Next string `json:"next_page_token"`
	}](t, e, http.MethodPost, "/v2/state/acs", acs(snap, ""))
	firstSched := firstResponse[struct {
		Next string `json:"next_page_token"`
	}](t, e, http.MethodPost, "/v2/state/acs", acs(sched, ""))
	firstV1 := firstResponse[struct {
		Next int64 `json:"next_page_token"`
	}](t, e, http.MethodPost, "/v1/state/acs", acs(snap, ""))
	q := url.QueryEscape
	runGolden(t, "state", e.ScanHandler, []goldenCase{
		get("snapshot-timestamp: at the snapshot", "/v0/state/acs/snapshot-timestamp?migration_id=0&before="+q(snap), 200),
		get("snapshot-timestamp: between the two", "/v0/state/acs/snapshot-timestamp?migration_id=0&before="+q("2026-01-05T12:00:30Z"), 200),
		get("snapshot-timestamp: before the first", "/v0/state/acs/snapshot-timestamp?migration_id=0&before="+q("2026-01-05T11:59:59Z"), 404),
		get("snapshot-timestamp: bad time", "/v0/state/acs/snapshot-timestamp?migration_id=0&before=noon", 400).off(),
		get("snapshot-timestamp: no migration_id", "/v0/state/acs/snapshot-timestamp?before="+q(snap), 400).off(),
		get("snapshot-timestamp-after: the first", "/v0/state/acs/snapshot-timestamp-after?migration_id=0&after="+q("2026-01-05T09:00:00Z"), 200),
		get("snapshot-timestamp-after: the second", "/v0/state/acs/snapshot-timestamp-after?migration_id=0&after="+q(sched), 200),
		get("snapshot-timestamp-after: none", "/v0/state/acs/snapshot-timestamp-after?migration_id=0&after="+q(snap), 404),
		post("v2 acs: first page", "/v2/state/acs", acs(snap, ""), 200),
		post("v2 acs: second page", "/v2/state/acs", acs(snap, fmt.Sprintf(`,"after":%q`, first.Next)), 200),
		post("v2 acs: amulets", "/v2/state/acs", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":10,"templates":["splice-amulet:Splice.Amulet:Amulet"]}`, snap), 200),
		post("v2 acs: alice's contracts", "/v2/state/acs", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":10,"party_ids":[%q]}`, snap, f.alice), 200),
		post("v2 acs: at or before", "/v2/state/acs", acs("2026-01-05T12:00:30Z", `,"record_time_match":"at_or_before","templates":["splice-dso-governance:Splice.DsoRules:DsoRules"]`), 200),
		post("v2 acs: not a snapshot's time", "/v2/state/acs", acs("2026-01-05T12:00:30Z", ""), 404),
		post("v2 acs: none at or before", "/v2/state/acs", acs("2026-01-05T10:00:00Z", `,"record_time_match":"at_or_before"`), 404),
		post("v2 acs: malformed template", "/v2/state/acs", acs(snap, `,"templates":["Splice.Amulet:Amulet"]`), 400),
		post("v2 acs: token with other filters", "/v2/state/acs", acs(snap, fmt.Sprintf(`,"after":%q,"templates":["splice-amulet:Splice.Amulet:Amulet"]`, first.Next)), 200),
		post("v2 acs: token of another snapshot", "/v2/state/acs", acs(snap, fmt.Sprintf(`,"after":%q`, firstSched.Next)), 400),
		post("v2 acs: token continued at or before", "/v2/state/acs", acs("9999-01-01T00:00:00Z", fmt.Sprintf(`,"record_time_match":"at_or_before","after":%q`, first.Next)), 200),
		post("v2 acs: oversized token", "/v2/state/acs", acs(snap, fmt.Sprintf(`,"after":%q`, strings.Repeat("A", 1<<20))), 400),
		post("v2 acs: garbage token", "/v2/state/acs", acs(snap, `,"after":"!!"`), 400),
		post("v2 acs: page_size 1001", "/v2/state/acs", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":1001}`, snap), 400),
		post("v2 acs: unknown record_time_match", "/v2/state/acs", acs(snap, `,"record_time_match":"near"`), 400).off(),
		post("v2 acs: no record_time", "/v2/state/acs", `{"migration_id":0,"page_size":1}`, 400).off(),
		post("v1 acs: first page", "/v1/state/acs", acs(snap, ""), 200),
		post("v1 acs: second page", "/v1/state/acs", acs(snap, fmt.Sprintf(`,"after":%d`, firstV1.Next)), 200),
		post("v1 acs: at or before", "/v1/state/acs", acs("2026-01-05T12:00:30Z", `,"record_time_match":"at_or_before"`), 200),
		post("v1 acs: token outside the snapshot", "/v1/state/acs", acs(snap, `,"after":5`), 400),
		post("v1 acs: token not positive", "/v1/state/acs", acs(snap, `,"after":0`), 400),
		post("v0 acs: first page", "/v0/state/acs", acs(snap, ""), 200),
		post("v0 acs: exact miss", "/v0/state/acs", acs("2026-01-05T12:00:30Z", ""), 404),
	})
}

func TestDsoGolden(t *testing.T) {
	t.Parallel()
	e := shared(t)
	f := fixtureOf(t, e)
	q := url.PathEscape
	nobody := "nobody::1220" + "00"
	runGolden(t, "dso", e.ScanHandler, []goldenCase{
		get("dso-party-id", "/v0/dso-party-id", 200),
		get("dso", "/v0/dso", 200),
		post("amulet-rules", "/v0/amulet-rules", `{}`, 200),
		post("amulet-rules: cached", "/v0/amulet-rules", fmt.Sprintf(`{"cached_amulet_rules_contract_id":%q}`, f.amuletRules), 200),
		post("amulet-rules: undecodable", "/v0/amulet-rules", `[`, 400).off(),
		post("ans-rules", "/v0/ans-rules", `{}`, 200),
		post("ans-rules: cached", "/v0/ans-rules", fmt.Sprintf(`{"cached_ans_rules_contract_id":%q}`, f.ansRules), 200),
		post("ans-rules: undecodable", "/v0/ans-rules", `[`, 400).off(),
		post("mining rounds", "/v0/open-and-issuing-mining-rounds", `{"cached_open_mining_round_contract_ids":[],"cached_issuing_round_contract_ids":[]}`, 200),
		post("mining rounds: one cached", "/v0/open-and-issuing-mining-rounds", fmt.Sprintf(`{"cached_open_mining_round_contract_ids":[%q,"gone"],"cached_issuing_round_contract_ids":[]}`, f.openRound), 200),
		post("mining rounds: no cached ids", "/v0/open-and-issuing-mining-rounds", `{}`, 400).off(),
		get("vote request", "/v0/voterequests/"+f.vote, 200),
		get("vote request: unknown", "/v0/voterequests/00nope", 404),
		get("vote request: not a vote request", "/v0/voterequests/"+f.amuletRules, 404),
		post("vote requests: batch", "/v0/voterequest", fmt.Sprintf(`{"vote_request_contract_ids":[%q,"00nope"]}`, f.vote), 200),
		post("vote requests: no ids", "/v0/voterequest", `{}`, 400).off(),
		get("vote requests: all", "/v0/admin/sv/voterequests", 200),
		get("sv-bft-sequencers", "/v0/sv-bft-sequencers", 200),
		get("participant-id v0: alice", "/v0/domains/"+q(f.sync)+"/parties/"+q(f.alice)+"/participant-id", 200),
		get("participant-id v0: the DSO is multi-hosted", "/v0/domains/"+q(f.sync)+"/parties/"+q(f.dso)+"/participant-id", 500),
		get("participant-id v0: unknown party", "/v0/domains/"+q(f.sync)+"/parties/"+q(nobody)+"/participant-id", 404),
		get("participant-id v0: bad synchronizer", "/v0/domains/global/parties/"+q(f.alice)+"/participant-id", 400),
		get("participant-id v1: the DSO", "/v1/domains/"+q(f.sync)+"/parties/"+q(f.dso)+"/participant-id", 200),
		get("participant-id v1: SV 1", "/v1/domains/"+q(f.sync)+"/parties/"+q(f.sv1)+"/participant-id", 200),
		get("participant-id v1: unknown party", "/v1/domains/"+q(f.sync)+"/parties/"+q(nobody)+"/participant-id", 404),
		get("participant-id v1: other synchronizer", "/v1/domains/other::1220ab/parties/"+q(f.alice)+"/participant-id", 404),
		get("participant-id v1: bad party", "/v1/domains/"+q(f.sync)+"/parties/alice/participant-id", 400),
		get("ans-entries", "/v0/ans-entries?page_size=20", 200),
		get("ans-entries: prefix", "/v0/ans-entries?page_size=20&name_prefix=bob", 200),
		get("ans-entries: prefix of SVs", "/v0/ans-entries?page_size=20&name_prefix=digital-asset-eng", 200),
		get("ans-entries: page_size 3", "/v0/ans-entries?page_size=3", 200),
		get("ans-entries: page_size 0", "/v0/ans-entries?page_size=0", 400),
		get("ans-entries: no page_size", "/v0/ans-entries", 400).off(),
		get("ans-entries: page_size not a number", "/v0/ans-entries?page_size=ten", 400).off(),
		get("ans-entry by name", "/v0/ans-entries/by-name/alice.unverified.cns", 200),
		get("ans-entry by name: the DSO", "/v0/ans-entries/by-name/dso.cns", 200),
		get("ans-entry by name: unknown", "/v0/ans-entries/by-name/carol.unverified.cns", 404),
		get("ans-entry by party: alice", "/v0/ans-entries/by-party/"+q(f.alice), 200),
		get("ans-entry by party: SV 1", "/v0/ans-entries/by-party/"+q(f.sv1), 200),
		get("ans-entry by party: unknown", "/v0/ans-entries/by-party/"+q(nobody), 404),
	})
}
