package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestREADMEWalkthrough follows the README as a new user does: it runs
// every ```sh block in order, as written, against a throwaway sandnet, so
// that the README's commands keep working. Only where they run changes:
//
//   - a `sandnet start …` line (or `go run ./cmd/sandnet start …`) is a
//     server the user leaves running in a terminal: the test starts it on
//     port 0 and waits until it is ready;
//   - the addresses the README names (127.0.0.1:7575, localhost:7575 and the
//     --listen of any other server) become the ones those servers got, and
//     ./.name paths (./.sandnet, ./.fork) are made inside a temporary
//     directory; SANDNET_URL and SANDNET_DATA_DIR point the CLI's defaults
//     there too;
//   - `go install ./cmd/sandnet` installs into a temporary GOBIN on PATH, and
//     a bare `sandnet` before it fails, as it would for the user;
//   - `go test …` is skipped (it is what runs this test).
//
// Each block runs in its own `bash -euo pipefail`, with curl failing on an
// HTTP error status (--fail-with-body): a command that fails, or a request
// the API refuses, fails the test. Then it checks that the README's
// direct transfer completed and that the SV it adds finished backfilling.
// It needs bash, curl and jq (see needTools).
func TestREADMEWalkthrough(t *testing.T) {
	t.Parallel()
	needTools(t, "the README walkthrough", "bash", "curl", "jq")
	began := time.Now()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shellBlocks(string(readme))
	if len(blocks) == 0 {
		t.Fatal("the README has no ```sh block")
	}

	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(tmp, ".sandnet")
	// addrs maps an address the README names to the one its server got.
	addrs := map[string]string{}
	servers := map[string]*proc{}
	dotPath := regexp.MustCompile(`(^|[\s=])\./\.`)
	localize := func(s string) string {
		s = dotPath.ReplaceAllString(s, "${1}"+tmp+"/.")
		for from, to := range addrs {
			s = strings.ReplaceAll(s, from, to)
		}
		return s
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SANDNET_") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "GOBIN=") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOBIN="+bin,
		"CGO_ENABLED=0", // as the test binary is built: go install then only links
		"SANDNET_DATA_DIR="+dataDir,
	)

	startServer := func(block int, line string) {
		t.Helper()
		fields := strings.Fields(line)
		if fields[0] == "sandnet" {
			if _, err := os.Stat(filepath.Join(bin, "sandnet")); err != nil {
				t.Fatalf("block %d runs `%s` before the README has installed sandnet", block, line)
			}
		}
		i := 0
		for i < len(fields) && fields[i] != "start" {
			i++
		}
		listen, dir, rest := "127.0.0.1:7575", dataDir, []string{}
		for args := fields[i+1:]; len(args) > 0; args = args[1:] {
			switch {
			case args[0] == "--listen" && len(args) > 1:
				listen, args = args[1], args[1:]
			case args[0] == "--data-dir" && len(args) > 1:
				dir, args = localize(args[1]), args[1:]
			case strings.HasPrefix(args[0], "#"):
				args = args[:1] // a comment ends the command
			default:
				rest = append(rest, localize(args[0]))
			}
		}
		p := startProc(t, "start", dir, rest...)
		servers[listen] = p
		host, port, _ := strings.Cut(listen, ":")
		addrs[listen] = p.addr
		if host == "127.0.0.1" {
			addrs["localhost:"+port] = p.addr
		}
		if listen == "127.0.0.1:7575" {
			env = append(env, "SANDNET_URL=http://"+p.addr)
		}
		t.Logf("block %d: %s\n  serves on %s", block, line, p.addr)
	}
	runShell := func(block int, script string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		// sandnet is the one `go install` put in GOBIN, not one that may be
		// on the user's PATH already.
		prelude := "set -euo pipefail\n" +
			"curl() { command curl --fail-with-body --show-error \"$@\"; }\n" +
			"sandnet() { [[ -x \"$GOBIN/sandnet\" ]] || { echo 'sandnet: not installed yet' >&2; return 127; }; \"$GOBIN/sandnet\" \"$@\"; }\n" +
			"PS4='+ '; set -x\n"
		cmd := exec.CommandContext(ctx, "bash", "-c", prelude+localize(script))
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README block %d failed (%v):\n%s\nits output:\n%s", block, err, script, clip(string(out)))
		}
		t.Logf("block %d:\n%s", block, clip(string(out)))
	}

	for i, block := range blocks {
		var script strings.Builder
		flush := func() {
			if strings.TrimSpace(script.String()) != "" {
				runShell(i+1, script.String())
			}
			script.Reset()
		}
		for _, line := range strings.Split(block, "\n") {
			cmd := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(cmd, "go test "):
				t.Logf("block %d: skipped %q (it runs this test)", i+1, cmd)
			case strings.HasPrefix(cmd, "sandnet start") || strings.HasPrefix(cmd, "go run ./cmd/sandnet start"):
				flush()
				startServer(i+1, cmd)
			default:
				script.WriteString(line + "\n")
			}
		}
		flush()
	}

	first, ok := servers["127.0.0.1:7575"]
	if !ok {
		t.Fatal("the README starts no sandnet on its default address")
	}
	// The direct transfer: alice's offer to bob, which he accepted, is
	// completed by the wallet automation a moment later.
	alice := mustToken(t, dataDir, "alice")
	var st struct {
		Status string `json:"status"`
	}
	statusURL := first.url("/api/validator/v0/wallet/transfer-offers/lunch-1/status")
	for deadline := time.Now().Add(15 * time.Second); st.Status != "completed" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		call(t, "POST", statusURL, alice, nil, &st)
	}
	if st.Status != "completed" {
		t.Errorf("the README's direct transfer lunch-1 is %q, want completed", st.Status)
	}
	// The SV the README adds backfills its Scan.
	var bf struct {
		Complete bool `json:"complete"`
	}
	for deadline := time.Now().Add(60 * time.Second); !bf.Complete && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		call(t, "GET", first.url("/sv/5/api/scan/v0/backfilling/status"), "", nil, &bf)
	}
	if !bf.Complete {
		t.Errorf("SV 5's Scan, added by the README, did not finish backfilling")
	}
	for listen, p := range servers {
		if code := call(t, "GET", p.url("/readyz"), "", nil, nil); code != http.StatusOK {
			t.Errorf("the README's server on %s: /readyz %d", listen, code)
		}
	}
	t.Logf("the README's %d shell blocks ran in %s", len(blocks), time.Since(began).Round(time.Millisecond))
}

// shellBlocks returns the bodies of a Markdown document's ```sh fenced
// blocks, in order.
func shellBlocks(md string) []string {
	var blocks []string
	var cur *strings.Builder
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh":
			cur = &strings.Builder{}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			fmt.Fprintln(cur, line)
		}
	}
	return blocks
}

// clip shortens each line of a block's output (an ACS page is long) to
// what a failure needs.
func clip(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + fmt.Sprintf("… (%d bytes)", len(l))
		}
	}
	return strings.Join(lines, "\n")
}
