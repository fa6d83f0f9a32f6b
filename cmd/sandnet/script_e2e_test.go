package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScenarioScript runs scripts/scenario.sh, the scripted scenario a new
// user can run, at its small default size against the test binary: four
// SVs, transfers, a reassignment, a hosting change, a hard migration, and a
// fifth SV whose Scan backfills to the same history, imports and snapshot
// as SV 1's. It needs bash, curl and jq, as the script says (see
// needTools).
func TestScenarioScript(t *testing.T) {
	t.Parallel()
	needTools(t, "scripts/scenario.sh", "bash", "curl", "jq")
	out, err := runScript(t, "scripts/scenario.sh", 3*time.Minute)
	if err != nil {
		t.Fatalf("scripts/scenario.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestClientScripts runs scripts/clients/run.sh against the test binary:
// the Canton Network's TypeScript ledger, Scan and validator clients and
// its wallet SDK drive a throwaway sandnet, commands and the wallet SDK's
// internal-party flow included. It needs Node 20 or later and npm (its
// first run installs the clients from the npm registry). Node is not a
// prerequisite of the Go build, so without it the test is skipped, under
// CI too.
func TestClientScripts(t *testing.T) {
	t.Parallel()
	needNode(t, "scripts/clients/run.sh", 20)
	needTools(t, "scripts/clients/run.sh", "bash", "npm")
	out, err := runScript(t, "scripts/clients/run.sh", 8*time.Minute)
	if err != nil {
		t.Fatalf("scripts/clients/run.sh: %v\n%s", err, out)
	}
	// Each script's count, and the summary, say what ran.
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, " checks: ") || strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "FAIL ") || strings.HasPrefix(line, "  gap ") || strings.HasPrefix(line, "ok: ") {
			t.Log(line)
		}
	}
}

// runScript runs a script of the repository (a path from its root) with
// bash against the test binary (SANDNET), within timeout, and returns its
// combined output.
func runScript(t *testing.T, script string, timeout time.Duration) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../"+script)
	cmd.Env = append(os.Environ(), "SANDNET="+sandnetBinary(t))
	return cmd.CombinedOutput()
}

// needNode skips the test unless node, at least version major, is on
// PATH.
func needNode(t *testing.T, what string, major int) {
	t.Helper()
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Skipf("%s needs Node %d or later: %v", what, major, err)
	}
	m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(out)
	if m == nil {
		t.Skipf("%s needs Node %d or later: node --version says %q", what, major, out)
	}
	if v, _ := strconv.Atoi(string(m[1])); v < major {
		t.Skipf("%s needs Node %d or later, not %s", what, major, strings.TrimSpace(string(out)))
	}
}

// needTools skips the test when one of tools is not on PATH, saying that
// what needs it; under CI=true, where .ci/run installs them, that is a
// failure instead.
func needTools(t *testing.T, what string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s needs %s: %v", what, tool, err)
			}
			t.Skipf("%s needs %s: %v", what, tool, err)
		}
	}
}
