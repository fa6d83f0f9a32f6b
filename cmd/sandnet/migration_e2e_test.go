package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A hard synchronizer migration on the real binary: the admin API starts
// migration 1, the synchronizers move to it with their ids, a tap is its first update, and
// the Scan then answers migration-info of migration 1, serves its import
// updates, and pages the update history past migration 0 without them.
func TestHardMigrationE2E(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	admin := mustToken(t, dir, "participant_admin")
	scanURL := func(path string) string { return p.url("/api/scan" + path) }

	var before struct {
		Synchronizers []struct {
			ID          string `json:"synchronizer_id"`
			MigrationID int64  `json:"migration_id"`
		} `json:"synchronizers"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), admin, nil, &before); code != 200 || len(before.Synchronizers) == 0 {
		t.Fatalf("network: %d %+v", code, before)
	}
	var mig struct {
		MigrationID int64 `json:"migration_id"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/migrations"), admin, nil, &mig); code != 200 || mig.MigrationID != 1 {
		t.Fatalf("migrate: %d %+v", code, mig)
	}
	// (The refusal of a second migration before migration 1 has begun is
	// not checked here: the network's automation may commit migration 1's
	// first update at any moment. The engine's and the admin API's tests
	// cover it.)
	var after struct {
		Synchronizers []struct {
			ID          string `json:"synchronizer_id"`
			MigrationID int64  `json:"migration_id"`
		} `json:"synchronizers"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), admin, nil, &after); code != 200 ||
		len(after.Synchronizers) != len(before.Synchronizers) || after.Synchronizers[0].ID != before.Synchronizers[0].ID ||
		after.Synchronizers[0].MigrationID != 1 {
		t.Errorf("synchronizers after the migration: %d %+v; want %+v in migration 1", code, after, before)
	}
	var tap struct {
		ContractID string `json:"contract_id"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), admin, map[string]string{"user": "alice", "amount": "10"}, &tap); code != 200 {
		t.Fatalf("tap in migration 1: %d", code)
	}

	var info struct {
		PreviousMigrationID *int64 `json:"previous_migration_id"`
		RecordTimeRange     []struct {
			SynchronizerID string `json:"synchronizer_id"`
		} `json:"record_time_range"`
		LastImportUpdateID string `json:"last_import_update_id"`
		Complete           bool   `json:"complete"`
	}
	code := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if code = call(t, "POST", scanURL("/v0/backfilling/migration-info"), "", map[string]int{"migration_id": 1}, &info); code == 200 {
			break
		}
	}
	if code != 200 || info.PreviousMigrationID == nil || *info.PreviousMigrationID != 0 || info.LastImportUpdateID == "" ||
		len(info.RecordTimeRange) != 1 || info.RecordTimeRange[0].SynchronizerID != before.Synchronizers[0].ID || !info.Complete {
		t.Fatalf("migration-info of migration 1: %d %+v", code, info)
	}

	type item struct {
		UpdateID    string `json:"update_id"`
		MigrationID int64  `json:"migration_id"`
		WorkflowID  string `json:"workflow_id"`
		RecordTime  string `json:"record_time"`
		EventsByID  map[string]struct {
			ContractID string `json:"contract_id"`
			EventType  string `json:"event_type"`
		} `json:"events_by_id"`
	}
	var imports struct {
		Transactions []item `json:"transactions"`
	}
	body := map[string]any{"migration_id": 1, "after_update_id": "", "limit": 1000}
	if code := call(t, "POST", scanURL("/v0/backfilling/import-updates"), "", body, &imports); code != 200 || len(imports.Transactions) == 0 {
		t.Fatalf("import-updates of migration 1: %d, %d updates", code, len(imports.Transactions))
	}
	importIDs := map[string]bool{}
	for i, u := range imports.Transactions {
		importIDs[u.UpdateID] = true
		if u.MigrationID != 1 || !strings.HasPrefix(u.RecordTime, "0001-01-01T00:00:00") ||
			u.WorkflowID != "canton-network-acs-import-"+u.UpdateID || len(u.EventsByID) != 1 ||
			u.EventsByID[u.UpdateID+":0"].ContractID != u.UpdateID || (i > 0 && u.UpdateID <= imports.Transactions[i-1].UpdateID) {
			t.Errorf("import update %d: %+v", i, u)
		}
	}
	if last := imports.Transactions[len(imports.Transactions)-1].UpdateID; last != info.LastImportUpdateID {
		t.Errorf("last import update %s; migration-info says %s", last, info.LastImportUpdateID)
	}
	if code := call(t, "POST", scanURL("/v0/backfilling/import-updates"), "", map[string]any{"migration_id": 7, "after_update_id": "", "limit": 10}, nil); code != 404 {
		t.Errorf("import-updates of an unknown migration: %d, want 404", code)
	}

	// The v2 history, paged 10 at a time from the start, runs through
	// migration 0 into migration 1 and holds no import update.
	var all []item
	var afterPos map[string]any
	for range 1000 {
		req := map[string]any{"page_size": 10}
		if afterPos != nil {
			req["after"] = afterPos
		}
		var page struct {
			Transactions []item `json:"transactions"`
		}
		if code := call(t, "POST", scanURL("/v2/updates"), "", req, &page); code != 200 {
			t.Fatalf("v2 updates: %d", code)
		}
		if len(page.Transactions) == 0 {
			break
		}
		all = append(all, page.Transactions...)
		last := page.Transactions[len(page.Transactions)-1]
		afterPos = map[string]any{"after_migration_id": last.MigrationID, "after_record_time": last.RecordTime}
	}
	var migrations []int64
	tapped := false
	for _, u := range all {
		if importIDs[u.UpdateID] || strings.HasPrefix(u.RecordTime, "0001-") {
			t.Errorf("import update %s in the v2 history", u.UpdateID)
		}
		if len(migrations) == 0 || migrations[len(migrations)-1] != u.MigrationID {
			migrations = append(migrations, u.MigrationID)
		}
		for _, ev := range u.EventsByID {
			tapped = tapped || u.MigrationID == 1 && ev.EventType == "created_event" && ev.ContractID == tap.ContractID
		}
	}
	if !slices.Equal(migrations, []int64{0, 1}) || !tapped {
		t.Errorf("v2 history: migrations %v, tap in migration 1 %v; want [0 1] and the tap", migrations, tapped)
	}
	p.stop(t)
}
