package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestNetworkScenario is the "done when" scenario of issues 6 and 7 on the
// real binary, told in order as a new user would try it: transfers, a DSO
// contract reassigned to a second synchronizer and back, a party's hosting
// added and revoked, a hard migration, more transfers, an ACS snapshot of
// the new migration, and a fifth SV joining whose Scan backfills from the
// other four, checking the validator, ledger, Scan and admin APIs at each
// step. Every expectation of the issue checked here held when this test
// was written, so none is relaxed: a failure is a regression.
func TestNetworkScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	admin := mustToken(t, dir, "participant_admin")
	alice := mustToken(t, dir, "alice")
	bob := mustToken(t, dir, "bob")
	scanURL := func(path string) string { return p.url("/api/scan" + path) }
	adminURL := func(path string) string { return p.url("/api/sandnet/v0" + path) }
	poll := func(what string, ok func() bool) bool {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if ok() {
				return true
			}
		}
		return false
	}

	type network struct {
		DSO           string `json:"dso_party_id"`
		MigrationID   int64  `json:"migration_id"`
		Synchronizers []struct {
			ID          string `json:"synchronizer_id"`
			MigrationID int64  `json:"migration_id"`
		} `json:"synchronizers"`
		SVs []struct {
			ParticipantID string `json:"participant_id"`
		} `json:"svs"`
		Users []struct {
			UserID  string `json:"user_id"`
			PartyID string `json:"party_id"`
		} `json:"users"`
	}
	var net network
	if code := call(t, "GET", adminURL("/network"), admin, nil, &net); code != 200 || len(net.Synchronizers) != 1 || len(net.SVs) == 0 {
		t.Fatalf("network: %d %+v", code, net)
	}
	global := net.Synchronizers[0].ID
	sv1 := net.SVs[0].ParticipantID
	var aliceParty, bobParty string
	for _, u := range net.Users {
		switch u.UserID {
		case "alice":
			aliceParty = u.PartyID
		case "bob":
			bobParty = u.PartyID
		}
	}
	if aliceParty == "" || bobParty == "" {
		t.Fatalf("no alice or bob among %+v", net.Users)
	}
	ledgerEnd := func() int64 {
		t.Helper()
		var end struct {
			Offset int64 `json:"offset"`
		}
		if code := call(t, "GET", p.url("/v2/state/ledger-end"), alice, nil, &end); code != 200 {
			t.Fatalf("ledger end: %d", code)
		}
		return end.Offset
	}

	// transfer: alice offers bob amount CC through the validator API, bob
	// accepts, and the offer's status becomes completed.
	transfer := func(tracking, amount string) {
		t.Helper()
		var offer struct {
			OfferContractID string `json:"offer_contract_id"`
		}
		body := map[string]any{"receiver_party_id": bobParty, "amount": amount, "description": "scenario",
			"expires_at": time.Now().Add(30 * 24 * time.Hour).UnixMicro(), "tracking_id": tracking}
		if code := call(t, "POST", p.url("/api/validator/v0/wallet/transfer-offers"), alice, body, &offer); code != 200 || offer.OfferContractID == "" {
			t.Fatalf("%s: offer: %d %+v", tracking, code, offer)
		}
		if code := call(t, "POST", p.url("/api/validator/v0/wallet/transfer-offers/"+offer.OfferContractID+"/accept"), bob, nil, nil); code != 200 {
			t.Fatalf("%s: accept: %d", tracking, code)
		}
		var st struct {
			Status string `json:"status"`
		}
		if !poll("completed", func() bool {
			return call(t, "POST", p.url("/api/validator/v0/wallet/transfer-offers/"+tracking+"/status"), alice, nil, &st) == 200 && st.Status == "completed"
		}) {
			t.Fatalf("%s: status %q, want completed", tracking, st.Status)
		}
	}

	// 1. A transfer alice → bob completes.
	if code := call(t, "POST", p.url("/api/validator/v0/wallet/tap"), alice, map[string]string{"amount": "100.0"}, nil); code != 200 {
		t.Fatalf("alice taps: %d", code)
	}
	transfer("scenario-1", "10.0")

	// 2. A second synchronizer; a DSO contract (an SvNodeState, which
	// nothing consumes, so it is still active at the end) reassigned to it
	// and back.
	var dso struct {
		SvNodeStates []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
		} `json:"sv_node_states"`
	}
	if code := call(t, "GET", scanURL("/v0/dso"), "", nil, &dso); code != 200 || len(dso.SvNodeStates) == 0 {
		t.Fatalf("scan dso: %d %+v", code, dso)
	}
	cid := dso.SvNodeStates[0].Contract.ContractID
	var other struct {
		ID          string `json:"synchronizer_id"`
		MigrationID int64  `json:"migration_id"`
	}
	if code := call(t, "POST", adminURL("/synchronizers"), admin, map[string]string{"alias": "app-synchronizer"}, &other); code != 200 ||
		!strings.HasPrefix(other.ID, "app-synchronizer::") || other.ID == global || other.MigrationID != 0 {
		t.Fatalf("add synchronizer: %d %+v", code, other)
	}
	type reassignment struct {
		Source      string `json:"source_synchronizer_id"`
		Target      string `json:"target_synchronizer_id"`
		UnassignID  string `json:"unassign_id"`
		Counter     int64  `json:"reassignment_counter"`
		MigrationID int64  `json:"migration_id"`
	}
	var moves [2]reassignment
	for i, target := range []string{other.ID, global} {
		if code := call(t, "POST", adminURL("/reassignments"), admin, map[string]string{"contract_id": cid, "target_synchronizer_id": target}, &moves[i]); code != 200 ||
			moves[i].Target != target || moves[i].Counter != int64(i+1) || moves[i].UnassignID == "" || moves[i].MigrationID != 0 {
			t.Fatalf("reassignment %d: %d %+v", i+1, code, moves[i])
		}
	}
	if moves[0].Source != global || moves[1].Source != other.ID || moves[0].UnassignID == moves[1].UnassignID {
		t.Errorf("reassignments: %+v", moves)
	}

	// SV 1's ledger API shows the DSO's two unassign/assign pairs.
	type ledgerUpdate struct {
		Update struct {
			Reassignment *struct {
				Value struct {
					SynchronizerID string `json:"synchronizerId"`
					Events         []struct {
						Unassigned *struct {
							Value struct {
								ReassignmentID string `json:"reassignmentId"`
								ContractID     string `json:"contractId"`
								Source         string `json:"source"`
								Target         string `json:"target"`
								Counter        int64  `json:"reassignmentCounter"`
							} `json:"value"`
						} `json:"JsUnassignedEvent"`
						Assigned *struct {
							ReassignmentID string `json:"reassignmentId"`
							Source         string `json:"source"`
							Target         string `json:"target"`
							Counter        int64  `json:"reassignmentCounter"`
							CreatedEvent   struct {
								ContractID string `json:"contractId"`
							} `json:"createdEvent"`
						} `json:"JsAssignmentEvent"`
					} `json:"events"`
				} `json:"value"`
			} `json:"Reassignment"`
			TopologyTransaction *struct {
				Value struct {
					Events []struct {
						Event map[string]struct {
							Value struct {
								PartyID       string `json:"partyId"`
								ParticipantID string `json:"participantId"`
								Permission    string `json:"participantPermission"`
							} `json:"value"`
						} `json:"event"`
					} `json:"events"`
				} `json:"value"`
			} `json:"TopologyTransaction"`
		} `json:"update"`
	}
	updatesOf := func(prefix, token, format string) []ledgerUpdate {
		t.Helper()
		var end struct {
			Offset int64 `json:"offset"`
		}
		if code := call(t, "GET", p.url(prefix+"/v2/state/ledger-end"), token, nil, &end); code != 200 {
			t.Fatalf("%s ledger end: %d", prefix, code)
		}
		var out []ledgerUpdate
		body := fmt.Sprintf(`{"beginExclusive":0,"endInclusive":%d,"updateFormat":%s}`, end.Offset, format)
		if code := call(t, "POST", p.url(prefix+"/v2/updates"), token, json.RawMessage(body), &out); code != 200 {
			t.Fatalf("%s updates %s: %d", prefix, format, code)
		}
		return out
	}
	type half struct {
		kind, id, source, target string
		counter                  int64
	}
	// ledgerHalves lists the unassign and assign events of contract c in
	// the updates of party on the participant at prefix ("" for the
	// validator, "/sv/1" for SV 1), checking each is on the synchronizer
	// it should be (the source for an unassignment, the target for an
	// assignment).
	ledgerHalves := func(prefix, token, party, c string) []half {
		t.Helper()
		var out []half
		for _, u := range updatesOf(prefix, token, `{"includeReassignments":{"filtersByParty":{"`+party+`":{}}}}`) {
			r := u.Update.Reassignment
			if r == nil {
				continue
			}
			for _, ev := range r.Value.Events {
				switch {
				case ev.Unassigned != nil && ev.Unassigned.Value.ContractID == c:
					v := ev.Unassigned.Value
					out = append(out, half{"unassign", v.ReassignmentID, v.Source, v.Target, v.Counter})
					if r.Value.SynchronizerID != v.Source {
						t.Errorf("%s: unassignment on %s, want its source %s", prefix, r.Value.SynchronizerID, v.Source)
					}
				case ev.Assigned != nil && ev.Assigned.CreatedEvent.ContractID == c:
					v := ev.Assigned
					out = append(out, half{"assign", v.ReassignmentID, v.Source, v.Target, v.Counter})
					if r.Value.SynchronizerID != v.Target {
						t.Errorf("%s: assignment on %s, want its target %s", prefix, r.Value.SynchronizerID, v.Target)
					}
				}
			}
		}
		return out
	}
	// pairs is what two reassignments there and back should show: each
	// pair shares its unassign id and counter, 1 then 2.
	pairs := func(moves [2]reassignment) []half {
		return []half{
			{"unassign", moves[0].UnassignID, global, other.ID, 1}, {"assign", moves[0].UnassignID, global, other.ID, 1},
			{"unassign", moves[1].UnassignID, other.ID, global, 2}, {"assign", moves[1].UnassignID, other.ID, global, 2},
		}
	}
	want := pairs(moves)
	if halves := ledgerHalves("/sv/1", admin, net.DSO, cid); fmt.Sprint(halves) != fmt.Sprint(want) {
		t.Errorf("SV 1's reassignments of %s:\n got %v\nwant %v", cid, halves, want)
	}

	// One of alice's amulets there and back too, seen in alice's own
	// stream on the validator participant.
	var tap struct {
		ContractID string `json:"contract_id"`
	}
	if code := call(t, "POST", adminURL("/tap"), admin, map[string]string{"user": "alice", "amount": "1"}, &tap); code != 200 {
		t.Fatalf("tap: %d", code)
	}
	var amuletMoves [2]reassignment
	for i, target := range []string{other.ID, global} {
		if code := call(t, "POST", adminURL("/reassignments"), admin, map[string]string{"contract_id": tap.ContractID, "target_synchronizer_id": target}, &amuletMoves[i]); code != 200 ||
			amuletMoves[i].Counter != int64(i+1) {
			t.Fatalf("amulet reassignment %d: %d %+v", i+1, code, amuletMoves[i])
		}
	}
	if halves, want := ledgerHalves("", alice, aliceParty, tap.ContractID), pairs(amuletMoves); fmt.Sprint(halves) != fmt.Sprint(want) {
		t.Errorf("alice's reassignments of her amulet %s:\n got %v\nwant %v", tap.ContractID, halves, want)
	}
	// Bad reassignments are refused.
	for _, bad := range []struct {
		contract, target string
		code             int
	}{
		{"00" + strings.Repeat("ab", 32), other.ID, 404},
		{cid, "nowhere::1220" + strings.Repeat("00", 32), 404},
		{cid, global, 400},
	} {
		if code := call(t, "POST", adminURL("/reassignments"), admin, map[string]string{"contract_id": bad.contract, "target_synchronizer_id": bad.target}, nil); code != bad.code {
			t.Errorf("reassign %.12s… to %.20s…: %d, want %d", bad.contract, bad.target, code, bad.code)
		}
	}

	// Scan's v2 history shows the same four halves, each with migration 0.
	type scanItem struct {
		UpdateID    string `json:"update_id"`
		MigrationID *int64 `json:"migration_id"`
		RecordTime  string `json:"record_time"`
		EventsByID  map[string]struct {
			ContractID string `json:"contract_id"`
			EventType  string `json:"event_type"`
		} `json:"events_by_id"`
		Event *struct {
			Source       string `json:"source_synchronizer"`
			Target       string `json:"target_synchronizer"`
			MigrationID  int64  `json:"migration_id"`
			UnassignID   string `json:"unassign_id"`
			Counter      int64  `json:"reassignment_counter"`
			ContractID   string `json:"contract_id"`
			CreatedEvent *struct {
				ContractID string `json:"contract_id"`
			} `json:"created_event"`
		} `json:"event"`
	}
	migrationOf := func(u scanItem) int64 {
		if u.Event != nil {
			return u.Event.MigrationID
		}
		if u.MigrationID != nil {
			return *u.MigrationID
		}
		return -1
	}
	history := func() []scanItem {
		t.Helper()
		var all []scanItem
		var after map[string]any
		for range 1000 {
			req := map[string]any{"page_size": 50}
			if after != nil {
				req["after"] = after
			}
			var page struct {
				Transactions []scanItem `json:"transactions"`
			}
			if code := call(t, "POST", scanURL("/v2/updates"), "", req, &page); code != 200 {
				t.Fatalf("scan v2 updates: %d", code)
			}
			if len(page.Transactions) == 0 {
				break
			}
			all = append(all, page.Transactions...)
			last := page.Transactions[len(page.Transactions)-1]
			after = map[string]any{"after_migration_id": migrationOf(last), "after_record_time": last.RecordTime}
		}
		return all
	}
	scanHalves := func(items []scanItem) []half {
		var out []half
		for _, u := range items {
			if e := u.Event; e != nil {
				switch {
				case e.ContractID == cid:
					out = append(out, half{"unassign", e.UnassignID, e.Source, e.Target, e.Counter})
				case e.CreatedEvent != nil && e.CreatedEvent.ContractID == cid:
					out = append(out, half{"assign", e.UnassignID, e.Source, e.Target, e.Counter})
				}
				if e.MigrationID != 0 && (e.ContractID == cid || e.CreatedEvent != nil && e.CreatedEvent.ContractID == cid) {
					t.Errorf("scan reassignment %s in migration %d, want 0", u.UpdateID, e.MigrationID)
				}
			}
		}
		return out
	}
	var got []half
	if !poll("scan reassignments", func() bool { got = scanHalves(history()); return len(got) >= 4 }) || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Scan's reassignments of %s:\n got %v\nwant %v", cid, got, want)
	}

	// 3. Bob hosted on SV 1's participant with Observation, then revoked.
	lookup := func() []string {
		t.Helper()
		var ids struct {
			ParticipantIDs []string `json:"participant_ids"`
		}
		path := "/v1/domains/" + url.PathEscape(global) + "/parties/" + url.PathEscape(bobParty) + "/participant-id"
		if code := call(t, "GET", scanURL(path), "", nil, &ids); code != 200 {
			t.Fatalf("participant-id of bob: %d", code)
		}
		return ids.ParticipantIDs
	}
	has := func(ids []string, id string) bool {
		for _, x := range ids {
			if x == id {
				return true
			}
		}
		return false
	}
	if has(lookup(), sv1) {
		t.Fatalf("SV 1 hosts bob before the change")
	}
	var change struct {
		UpdateIDs []string `json:"update_ids"`
	}
	hostings := adminURL("/parties/" + url.PathEscape(bobParty) + "/hostings")
	if code := call(t, "POST", hostings, admin, map[string]string{"participant_id": sv1, "permission": "Observation"}, &change); code != 200 || len(change.UpdateIDs) == 0 {
		t.Fatalf("host bob on SV 1: %d %+v", code, change)
	}
	if !poll("hosted", func() bool { return has(lookup(), sv1) }) {
		t.Errorf("Scan's participant-id v1 of bob while SV 1 hosts him: %v, want %s among them", lookup(), sv1)
	}
	if code := call(t, "DELETE", hostings+"/"+url.PathEscape(sv1), admin, nil, &change); code != 200 || len(change.UpdateIDs) == 0 {
		t.Fatalf("revoke bob on SV 1: %d %+v", code, change)
	}
	if !poll("revoked", func() bool { return !has(lookup(), sv1) }) {
		t.Errorf("Scan's participant-id v1 of bob after the revocation: %v, want no %s", lookup(), sv1)
	}
	var topo []string
	for _, u := range updatesOf("/sv/1", admin, `{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":["`+bobParty+`"]}}}`) {
		if u.Update.TopologyTransaction == nil {
			continue
		}
		for _, ev := range u.Update.TopologyTransaction.Value.Events {
			for kind, v := range ev.Event {
				if v.Value.PartyID == bobParty && v.Value.ParticipantID == sv1 {
					topo = append(topo, kind+"/"+v.Value.Permission)
				}
			}
		}
	}
	// Canton's ParticipantAuthorizationRevoked carries no permission.
	if fmt.Sprint(topo) != "[ParticipantAuthorizationAdded/PARTICIPANT_PERMISSION_OBSERVATION ParticipantAuthorizationRevoked/]" {
		t.Errorf("SV 1's topology events of bob: %v, want Added (Observation) then Revoked", topo)
	}

	// 4. A hard migration, then another transfer.
	offsetBefore := ledgerEnd()
	var mig struct {
		MigrationID int64 `json:"migration_id"`
	}
	if code := call(t, "POST", adminURL("/migrations"), admin, nil, &mig); code != 200 || mig.MigrationID != 1 {
		t.Fatalf("migrate: %d %+v", code, mig)
	}
	transfer("scenario-2", "5.0")
	if offsetAfter := ledgerEnd(); offsetAfter <= offsetBefore {
		t.Errorf("alice's ledger end %d after the migration, %d before: want it to keep increasing", offsetAfter, offsetBefore)
	}
	var after network
	if code := call(t, "GET", adminURL("/network"), admin, nil, &after); code != 200 || after.MigrationID != 1 || len(after.Synchronizers) != 2 {
		t.Errorf("network after the migration: %d %+v", code, after)
	}
	for _, s := range after.Synchronizers {
		if s.MigrationID != 1 {
			t.Errorf("synchronizer %s in migration %d after the migration, want 1", s.ID, s.MigrationID)
		}
	}

	var info struct {
		PreviousMigrationID *int64 `json:"previous_migration_id"`
		RecordTimeRange     []struct {
			SynchronizerID string `json:"synchronizer_id"`
			Min            string `json:"min"`
			Max            string `json:"max"`
		} `json:"record_time_range"`
		LastImportUpdateID    string `json:"last_import_update_id"`
		Complete              bool   `json:"complete"`
		ImportUpdatesComplete bool   `json:"import_updates_complete"`
	}
	if !poll("migration-info", func() bool {
		return call(t, "POST", scanURL("/v0/backfilling/migration-info"), "", map[string]int{"migration_id": 1}, &info) == 200
	}) {
		t.Fatalf("no migration-info of migration 1")
	}
	globalRange := false
	for _, r := range info.RecordTimeRange {
		globalRange = globalRange || r.SynchronizerID == global && r.Min != "" && !strings.HasPrefix(r.Min, "0001-")
	}
	if info.PreviousMigrationID == nil || *info.PreviousMigrationID != 0 || info.LastImportUpdateID == "" || !globalRange ||
		!info.Complete || !info.ImportUpdatesComplete {
		t.Errorf("migration-info of migration 1: %+v", info)
	}
	var info0 struct {
		PreviousMigrationID *int64 `json:"previous_migration_id"`
		RecordTimeRange     []struct {
			SynchronizerID string `json:"synchronizer_id"`
		} `json:"record_time_range"`
	}
	if code := call(t, "POST", scanURL("/v0/backfilling/migration-info"), "", map[string]int{"migration_id": 0}, &info0); code != 200 ||
		info0.PreviousMigrationID != nil || len(info0.RecordTimeRange) != 2 {
		t.Errorf("migration-info of migration 0 (both synchronizers had updates): %d %+v", code, info0)
	}

	var imports struct {
		Transactions []scanItem `json:"transactions"`
	}
	if code := call(t, "POST", scanURL("/v0/backfilling/import-updates"), "", map[string]any{"migration_id": 1, "after_update_id": "", "limit": 1000}, &imports); code != 200 || len(imports.Transactions) == 0 {
		t.Fatalf("import-updates of migration 1: %d, %d updates", code, len(imports.Transactions))
	}
	importIDs := map[string]bool{}
	for _, u := range imports.Transactions {
		importIDs[u.UpdateID] = true
		if migrationOf(u) != 1 || !strings.HasPrefix(u.RecordTime, "0001-01-01T00:00:00") || u.EventsByID[u.UpdateID+":0"].ContractID != u.UpdateID {
			t.Errorf("import update %+v", u)
		}
	}
	if !importIDs[cid] {
		t.Errorf("the reassigned %s is not among migration 1's %d import updates", cid, len(imports.Transactions))
	}
	if last := imports.Transactions[len(imports.Transactions)-1].UpdateID; last != info.LastImportUpdateID {
		t.Errorf("last import update %s; migration-info says %s", last, info.LastImportUpdateID)
	}

	// The v2 history, paged by migration and record time, runs from
	// migration 0 into migration 1, holds no import update, and still
	// shows the reassignments.
	var all []scanItem
	if !poll("history into migration 1", func() bool {
		all = history()
		return len(all) > 0 && migrationOf(all[len(all)-1]) == 1
	}) {
		t.Fatalf("Scan's v2 history never reaches migration 1")
	}
	var migrations []int64
	for _, u := range all {
		m := migrationOf(u)
		if importIDs[u.UpdateID] && u.Event == nil || strings.HasPrefix(u.RecordTime, "0001-") {
			t.Errorf("import update %s in the v2 history", u.UpdateID)
		}
		if len(migrations) == 0 || migrations[len(migrations)-1] != m {
			migrations = append(migrations, m)
		}
	}
	if fmt.Sprint(migrations) != "[0 1]" {
		t.Errorf("v2 history migrations %v, want [0 1]", migrations)
	}
	var v1 struct {
		Transactions []scanItem `json:"transactions"`
	}
	if code := call(t, "POST", scanURL("/v1/updates"), "", map[string]any{"page_size": 1000}, &v1); code != 200 || len(v1.Transactions) < len(all) {
		t.Errorf("scan v1 updates: %d, %d updates (v2 has %d)", code, len(v1.Transactions), len(all))
	}
	for _, u := range v1.Transactions {
		if importIDs[u.UpdateID] && u.Event == nil || strings.HasPrefix(u.RecordTime, "0001-") {
			t.Errorf("import update %s in the v1 history", u.UpdateID)
		}
	}
	if got := scanHalves(all); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Scan's reassignments after the migration:\n got %v\nwant %v", got, want)
	}

	// 5. Past the next 3-hour snapshot boundary, migration 1 has a
	// snapshot, and it holds the reassigned contract.
	if code := call(t, "POST", adminURL("/clock/advance"), admin, map[string]string{"duration": "3h1m"}, nil); code != 200 {
		t.Fatalf("advance clock: %d", code)
	}
	far := url.QueryEscape(time.Now().Add(1000 * time.Hour).UTC().Format(time.RFC3339))
	var ts struct {
		RecordTime string `json:"record_time"`
	}
	if !poll("snapshot", func() bool {
		return call(t, "GET", scanURL("/v0/state/acs/snapshot-timestamp?migration_id=1&before="+far), "", nil, &ts) == 200
	}) {
		t.Fatalf("no ACS snapshot of migration 1 after 3h")
	}
	type active struct {
		CreatedInUpdateID *string `json:"created_in_update_id"`
		ContractID        string  `json:"contract_id"`
	}
	var found *active
	token := ""
	for range 100 {
		body := map[string]any{"migration_id": 1, "record_time": ts.RecordTime, "page_size": 1000}
		if token != "" {
			body["after"] = token
		}
		var page struct {
			CreatedEvents []active `json:"created_events"`
			NextPageToken string   `json:"next_page_token"`
		}
		if code := call(t, "POST", scanURL("/v2/state/acs"), "", body, &page); code != 200 {
			t.Fatalf("ACS of migration 1 at %s: %d", ts.RecordTime, code)
		}
		for i := range page.CreatedEvents {
			if page.CreatedEvents[i].ContractID == cid {
				found = &page.CreatedEvents[i]
			}
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	// The interface: created_in_update_id is "absent for contracts created
	// in earlier migration ids". The SvNodeState was created in migration
	// 0 and came into migration 1 by an import, so migration 1's snapshot
	// leaves the field out (a snapshot of migration 0 would name its
	// creating update).
	switch {
	case found == nil:
		t.Errorf("the reassigned %s is not in migration 1's snapshot at %s", cid, ts.RecordTime)
	case found.CreatedInUpdateID != nil:
		t.Errorf("created_in_update_id of %s in migration 1's snapshot: %q, want it absent (created in migration 0)", cid, *found.CreatedInUpdateID)
	}

	// 6. A fifth SV joins. Its Scan's history starts at its joining
	// transaction; it backfills the rest from the four others over HTTP,
	// answers 503 until then, and ends with the same history, import
	// updates and snapshot as theirs, byte for byte.
	var sv5 struct {
		SV       int    `json:"sv"`
		Party    string `json:"party"`
		ScanPath string `json:"scan_path"`
	}
	if code := call(t, "POST", adminURL("/svs"), admin, nil, &sv5); code != 200 || sv5.SV != 5 || sv5.ScanPath != "/sv/5/api/scan" {
		t.Fatalf("add an SV: %d %+v", code, sv5)
	}
	transfer("scenario-3", "2.0")
	if !poll("SV 5 backfilled", func() bool {
		var st struct {
			Complete bool `json:"complete"`
		}
		return call(t, "GET", p.url("/sv/5/api/scan/v0/backfilling/status"), "", nil, &st) == 200 && st.Complete
	}) {
		t.Fatalf("SV 5's Scan never completes backfilling")
	}
	raw := func(sv int, path string, body any) string {
		t.Helper()
		var out json.RawMessage
		if code := call(t, "POST", p.url(fmt.Sprintf("/sv/%d/api/scan%s", sv, path)), "", body, &out); code != 200 {
			t.Fatalf("SV %d %s: %d", sv, path, code)
		}
		return string(out)
	}
	rawHistory := func(sv int) string {
		return raw(sv, "/v2/updates", map[string]any{"page_size": 1000})
	}
	// The Scans ingest at their own pace: wait until they agree.
	if !poll("SV 5's history equals the others'", func() bool {
		h := rawHistory(1)
		for sv := 2; sv <= 5; sv++ {
			if rawHistory(sv) != h {
				return false
			}
		}
		return true
	}) {
		a, b := rawHistory(1), rawHistory(5)
		i := 0
		for i < min(len(a), len(b)) && a[i] == b[i] {
			i++
		}
		from := max(0, i-300)
		t.Errorf("SV 5's v2 history differs from SV 1's at byte %d of %d/%d:\nSV 1: …%.600s\nSV 5: …%.600s", i, len(a), len(b), a[from:], b[from:])
	}
	for m := 0; m <= 1; m++ {
		body := map[string]any{"migration_id": m, "after_update_id": "", "limit": 1000}
		if a, b := raw(1, "/v0/backfilling/import-updates", body), raw(5, "/v0/backfilling/import-updates", body); a != b {
			t.Errorf("import updates of migration %d differ between SV 1 and SV 5", m)
		}
	}
	var ts5 struct {
		RecordTime string `json:"record_time"`
	}
	if !poll("SV 5's snapshot", func() bool {
		return call(t, "GET", p.url("/sv/5/api/scan/v0/state/acs/snapshot-timestamp?migration_id=1&before="+far), "", nil, &ts5) == 200 &&
			ts5.RecordTime == ts.RecordTime
	}) {
		t.Fatalf("SV 5 has no snapshot of migration 1 at %s (latest %q)", ts.RecordTime, ts5.RecordTime)
	}
	acsBody := map[string]any{"migration_id": 1, "record_time": ts.RecordTime, "page_size": 1000}
	if a, b := raw(1, "/v2/state/acs", acsBody), raw(5, "/v2/state/acs", acsBody); a != b {
		t.Errorf("the ACS snapshots of migration 1 at %s differ between SV 1 and SV 5", ts.RecordTime)
	}
	p.stop(t)
}
