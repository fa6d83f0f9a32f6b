package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sandnet/sandnet/internal/api/admin"
)

// StatusCmd summarizes a running sandnet: whether it is ready, its
// network, clock, ledger ends and Scan. It reads the same public APIs a
// user would, so what it prints is what clients see.
type StatusCmd struct {
	nodeConn `embed:""`
	JSON     bool `name:"json" help:"Print the summary as JSON."`
}

// Status is what `sandnet status --json` prints.
type Status struct {
	URL   string `json:"url"`
	Ready bool   `json:"ready"`
	// NotReady is the server's answer while it is not ready (seeding, or
	// restoring a save).
	NotReady string                 `json:"not_ready,omitempty"`
	Network  *admin.NetworkResponse `json:"network,omitempty"`
	Scan     *ScanStatus            `json:"scan,omitempty"`
	// Saves are the network's saves (sandnet admin saves), oldest first.
	Saves []admin.SaveResponse `json:"saves,omitempty"`
}

// ScanStatus is what SV 1's Scan says of itself.
type ScanStatus struct {
	URL string `json:"url"`
	// LatestSnapshot is the record time of the Scan's latest ACS snapshot
	// in the current migration ("" when it has none yet).
	LatestSnapshot string `json:"latest_snapshot,omitempty"`
	// BackfillingComplete is false while the Scan imports history from
	// its peers.
	BackfillingComplete bool `json:"backfilling_complete"`
}

// Run prints the summary. It fails (exit status 1) when nothing answers at
// the URL, so scripts can use it as a health check; a node that answers
// but is not ready yet is reported, not an error.
func (c *StatusCmd) Run(ctx context.Context) error {
	base := strings.TrimRight(c.URL, "/")
	st := Status{URL: base}
	client := &http.Client{Timeout: 10 * time.Second}
	code, body, err := get(ctx, client, base+"/readyz")
	if err != nil {
		return fmt.Errorf("is sandnet running at %s? %w", base, err)
	}
	st.Ready = code == http.StatusOK
	if !st.Ready {
		st.NotReady = strings.TrimSpace(string(body))
	} else {
		var n admin.NetworkResponse
		if err := c.call(ctx, http.MethodGet, "/network", nil, &n); err != nil {
			return fmt.Errorf("read the network: %w", err)
		}
		st.Network = &n
		var saves admin.SavesResponse
		if err := c.call(ctx, http.MethodGet, "/saves", nil, &saves); err != nil {
			return fmt.Errorf("read the saves: %w", err)
		}
		st.Saves = saves.Saves
		st.Scan = scanStatus(ctx, client, base+"/api/scan", n.MigrationID)
	}
	if c.JSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	return st.print(os.Stdout)
}

// scanStatus reads the Scan's latest snapshot and backfilling state; a
// Scan that does not answer is left out rather than failing the summary.
func scanStatus(ctx context.Context, client *http.Client, scanURL string, migration int64) *ScanStatus {
	s := &ScanStatus{URL: scanURL}
	q := url.Values{"migration_id": {fmt.Sprint(migration)}, "before": {"9999-12-31T00:00:00Z"}}
	if code, body, err := get(ctx, client, scanURL+"/v0/state/acs/snapshot-timestamp?"+q.Encode()); err == nil && code == http.StatusOK {
		var ts struct {
			RecordTime string `json:"record_time"`
		}
		if json.Unmarshal(body, &ts) == nil {
			s.LatestSnapshot = ts.RecordTime
		}
	}
	code, body, err := get(ctx, client, scanURL+"/v0/backfilling/status")
	if err != nil || code != http.StatusOK {
		return nil
	}
	var bf struct {
		Complete bool `json:"complete"`
	}
	if json.Unmarshal(body, &bf) != nil {
		return nil
	}
	s.BackfillingComplete = bf.Complete
	return s
}

func get(ctx context.Context, client *http.Client, u string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
}

// print writes the summary for a person: one line per part, the ids in
// full (they are what the user copies into the next command).
func (s Status) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, args...)) }
	if !s.Ready {
		line("sandnet", "%s: not ready (%s)", s.URL, s.NotReady)
		return tw.Flush()
	}
	line("sandnet", "%s: ready", s.URL)
	n := s.Network
	if n == nil {
		return errors.Join(tw.Flush(), errors.New("no network description"))
	}
	line("DSO party", "%s", n.DSOPartyID)
	line("ledger time", "%s (%s ahead of the wall clock)", n.Now, time.Duration(n.ClockOffsetUs)*time.Microsecond)
	line("migration", "%d", n.MigrationID)
	for _, sy := range n.Synchronizers {
		line("synchronizer", "%s (%s, migration %d)", sy.ID, sy.Alias, sy.MigrationID)
	}
	for _, sv := range n.SVs {
		line("SV", "%s  party %s", sv.Name, sv.PartyID)
	}
	for _, p := range n.Participants {
		line("participant", "%s  ledger end %d, %d parties", p.Name, p.LedgerEnd, len(p.Parties))
	}
	for i, v := range n.Validators {
		where := validatorPathPrefix(v.Name) + "/api/validator"
		if i == 0 {
			where += " and /api/validator"
		}
		line("validator", "%s  party %s, %d wallet users, at %s", v.Name, v.PartyID, len(v.WalletUsers), where)
	}
	users := 0
	for _, u := range n.Users {
		if u.PartyID != "" {
			users++
		}
	}
	line("users", "%d with a party (%d in all; sandnet admin network lists them)", users, len(n.Users))
	if sc := s.Scan; sc != nil {
		snap := sc.LatestSnapshot
		if snap == "" {
			snap = "none yet"
		}
		backfill := "complete"
		if !sc.BackfillingComplete {
			backfill = "in progress"
		}
		line("Scan", "%s  latest ACS snapshot %s, backfilling %s", sc.URL, snap, backfill)
	}
	if k := len(s.Saves); k > 0 {
		last := s.Saves[k-1]
		line("saves", "%d, the latest %q at ledger end %d (sandnet admin saves lists them)", k, last.Name, last.LedgerEnd)
	}
	return tw.Flush()
}
