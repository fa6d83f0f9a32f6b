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
// as SV 1's. It needs bash, curl and jq, as the script says, and
// is skipped without them.
func TestScenarioScript(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("scripts/scenario.sh needs %s: %v", tool, err)
		}
	}
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
