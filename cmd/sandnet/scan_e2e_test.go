package main

import (
	"net/url"
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
