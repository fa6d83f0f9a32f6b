package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	base := "http://" + p.addr

	out, err := runCLI(t, "status", "--url", base, "--data-dir", dir)
	if err != nil {
		t.Fatalf("sandnet status: %v\n%s", err, out)
	}
	for _, want := range []string{base + ": ready", "DSO party", "DSO::", "participant", "validator  ledger end", "validator  party validator::", "Scan", "latest ACS snapshot 20"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	if out, err := runCLI(t, "admin", "--url", base, "--data-dir", dir, "save", "first"); err != nil {
		t.Fatalf("sandnet admin save: %v\n%s", err, out)
	}
	out, err = runCLI(t, "status", "--url", base, "--data-dir", dir, "--json")
	if err != nil {
		t.Fatalf("sandnet status --json: %v\n%s", err, out)
	}
	var st Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, out)
	}
	if !st.Ready || st.Network == nil || !strings.HasPrefix(st.Network.DSOPartyID, "DSO::") || st.Scan == nil || !st.Scan.BackfillingComplete || st.Scan.LatestSnapshot == "" || len(st.Saves) != 1 || st.Saves[0].Name != "first" {
		t.Errorf("status --json = %+v", st)
	}

	// A token the node refuses is an error naming the refusal, not a
	// summary of nothing.
	if out, err := runCLI(t, "status", "--url", base, "--token", "not-a-token"); err == nil || !strings.Contains(out, "401") {
		t.Errorf("status with a bad token: err %v, stderr %q; want exit 1 and the 401", err, out)
	}
	p.stop(t)
	if out, err := runCLI(t, "status", "--url", base); err == nil || !strings.Contains(out, "is sandnet running at "+base) {
		t.Errorf("status of a stopped node: err %v, stderr %q; want exit 1 and the question", err, out)
	}
}
