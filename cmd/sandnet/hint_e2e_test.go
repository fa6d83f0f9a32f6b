package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestStartHintsWork starts sandnet on a data directory and port of its
// own, reads the token and admin commands it prints, and runs them as
// printed: the token works against the ledger API, the admin command
// reaches the admin API. A token for a user the network does not have is
// printed with a warning.
func TestStartHintsWork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	hint := func(prefix string) []string {
		t.Helper()
		m := regexp.MustCompile(regexp.QuoteMeta(prefix) + `([^"]*)"`).FindStringSubmatch(p.logs())
		if m == nil {
			t.Fatalf("no %q in the start-up log:\n%s", prefix, p.logs())
		}
		args := strings.Fields(m[1])
		if len(args) < 2 || args[0] != "sandnet" {
			t.Fatalf("hint %q is no sandnet command", m[1])
		}
		return args[1:]
	}
	tokenArgs, adminArgs := hint("mint a token with: "), hint("drive it with: ")
	for _, want := range []string{"--data-dir " + dir, "--user alice"} {
		if !strings.Contains(strings.Join(tokenArgs, " "), want) {
			t.Errorf("token hint %q lacks %q", tokenArgs, want)
		}
	}
	if got := strings.Join(adminArgs, " "); !strings.Contains(got, "--url http://"+p.addr) || !strings.Contains(got, "--data-dir "+dir) {
		t.Errorf("admin hint %q does not name this sandnet", got)
	}

	run := func(args []string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(sandnetBinary(t), args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("sandnet %s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		return out.String(), errb.String()
	}
	tok, warn := run(tokenArgs)
	if warn != "" {
		t.Errorf("token for alice warned: %s", warn)
	}
	if code := call(t, "GET", p.url("/v2/authenticated-user"), strings.TrimSpace(tok), nil, nil); code != 200 {
		t.Errorf("the printed token: GET /v2/authenticated-user = %d, want 200", code)
	}
	if out, _ := run(adminArgs); !strings.Contains(out, "DSO::") {
		t.Errorf("the printed admin command said %q, want the network", out)
	}

	for i, a := range tokenArgs {
		if a == "alice" && i > 0 && tokenArgs[i-1] == "--user" {
			tokenArgs[i] = "alcie"
		}
	}
	tok, warn = run(tokenArgs)
	if strings.Count(strings.TrimSpace(tok), ".") != 2 || !strings.Contains(warn, `user "alcie" does not exist on this network (yet)`) {
		t.Errorf("token for an unknown user: stdout %q, stderr %q; want a token and a warning", tok, warn)
	}
}
