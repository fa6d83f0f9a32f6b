package main

import (
	"context"
	"os"
	"os/exec"
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../scripts/scenario.sh")
	cmd.Env = append(os.Environ(), "SANDNET="+sandnetBinary(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/scenario.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
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
