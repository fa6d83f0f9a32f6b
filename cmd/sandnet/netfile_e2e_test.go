package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
)

// twoValidators is a network file with two validators and five users,
// each asking for something of its own.
const twoValidators = "testdata/two-validators.yaml"

// startTimed starts sandnet and returns it with the time from exec to
// ready (its /readyz answering: the ready line is logged right after).
func startTimed(t *testing.T, dir string, args ...string) (*proc, time.Duration) {
	t.Helper()
	sandnetBinary(t) // built before the clock starts
	begin := time.Now()
	p := startSandnet(t, dir, args...)
	took := time.Since(begin)
	if code := call(t, "GET", p.url("/readyz"), "", nil, nil); code != 200 {
		t.Fatalf("readyz: %d", code)
	}
	return p, took
}

// TestNetworkFile starts the real binary on a network file with two
// validators and five users, checks through the APIs that each user has
// the party, rights, balance, pre-approval and names the file asks for,
// restarts it with the same file, and refuses a restart with a changed one.
func TestNetworkFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	networkFile, err := os.ReadFile(twoValidators)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "sandnet.yaml")
	if err := os.WriteFile(file, networkFile, 0o600); err != nil {
		t.Fatal(err)
	}
	p, took := startTimed(t, dir, "--config", file)
	t.Logf("ready in %s (sandnet's own startup figure: %v)", took.Round(time.Millisecond), p.logLines("sandnet is ready")[0]["startup"])
	if took > 10*time.Second {
		t.Errorf("the network took %s to become ready", took)
	}
	admin := mustToken(t, dir, "participant_admin")

	var network struct {
		Synchronizers []json.RawMessage `json:"synchronizers"`
		Validators    []struct {
			Name string `json:"name"`
		} `json:"validators"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), admin, nil, &network); code != 200 || len(network.Synchronizers) != 2 || len(network.Validators) != 2 {
		t.Fatalf("network: %d, %d synchronizers (want 2), validators %+v", code, len(network.Synchronizers), network.Validators)
	}

	bases := map[string]string{"alice": p.url(""), "bob": p.url(""), "auditor": p.url(""), "pat": p.url("/validators/app-provider"), "quinn": p.url("/validators/app-provider")}
	parties := map[string]string{}
	for _, u := range []string{"alice", "bob", "auditor", "pat", "quinn"} {
		var got struct {
			User struct {
				PrimaryParty string `json:"primaryParty"`
			} `json:"user"`
		}
		if code := call(t, "GET", bases[u]+"/v2/users/"+u, admin, nil, &got); code != 200 || got.User.PrimaryParty == "" {
			t.Fatalf("user %s: %d %+v", u, code, got)
		}
		parties[u] = got.User.PrimaryParty
	}
	rights := func(u string) string {
		t.Helper()
		var raw json.RawMessage
		if code := call(t, "GET", bases[u]+"/v2/users/"+u+"/rights", admin, nil, &raw); code != 200 {
			t.Fatalf("%s's rights: %d", u, code)
		}
		return string(raw)
	}
	// alice acts as her party and as treasury; auditor's primary party is
	// alice's, and it reads as alice and bob.
	if r := rights("alice"); strings.Count(r, "CanActAs") != 2 || !strings.Contains(r, `"treasury::`) {
		t.Errorf("alice's rights: %s", r)
	}
	if parties["auditor"] != parties["alice"] {
		t.Errorf("auditor's primary party %s, want alice's %s", parties["auditor"], parties["alice"])
	}
	if r := rights("auditor"); !strings.Contains(r, parties["bob"]) || !strings.Contains(r, parties["alice"]) || strings.Count(r, "CanReadAs") != 3 {
		t.Errorf("auditor's rights: %s", r)
	}
	// auditor has no wallet; the others have one, with their balances.
	if code := call(t, "GET", p.url("/api/validator/v0/wallet/balance"), mustToken(t, dir, "auditor"), nil, nil); code == 200 {
		t.Errorf("auditor has a wallet")
	}
	balance := func(u string) daml.Numeric {
		t.Helper()
		var b struct {
			Unlocked string `json:"effective_unlocked_qty"`
		}
		if code := call(t, "GET", bases[u]+"/api/validator/v0/wallet/balance", mustToken(t, dir, u), nil, &b); code != 200 {
			t.Fatalf("%s's balance: %d", u, code)
		}
		n, err := daml.ParseNumeric(b.Unlocked)
		if err != nil {
			t.Fatalf("%s's balance %q: %v", u, b.Unlocked, err)
		}
		return n
	}
	within := func(u string, lo, hi string) {
		t.Helper()
		if b := balance(u); b.Cmp(daml.MustNumeric(lo)) < 0 || b.Cmp(daml.MustNumeric(hi)) > 0 {
			t.Errorf("%s's balance %s, want %s to %s", u, b, lo, hi)
		}
	}
	within("bob", "0", "0")
	within("quinn", "749", "750")     // tapped 750, no names
	within("alice", "1", "499")       // tapped 500, paid two names
	within("pat", "500", "999.99999") // tapped 1000, paid one name

	// Pre-approvals and names, as Scan sees them.
	for u, want := range map[string]int{"alice": 200, "pat": 200, "bob": 404, "quinn": 404} {
		if code := call(t, "GET", p.url("/api/scan/v0/transfer-preapprovals/by-party/"+parties[u]), "", nil, nil); code != want {
			t.Errorf("%s's pre-approval: %d, want %d", u, code, want)
		}
	}
	for name, owner := range map[string]string{"alice.unverified.cns": "alice", "alice-shop.unverified.cns": "alice", "pat.unverified.cns": "pat", "bob.unverified.cns": "", "quinn.unverified.cns": ""} {
		var entry struct {
			Entry struct {
				User string `json:"user"`
			} `json:"entry"`
		}
		code := call(t, "GET", p.url("/api/scan/v0/ans-entries/by-name/"+name), "", nil, &entry)
		switch {
		case owner == "" && code != 404:
			t.Errorf("name %s: %d, want 404", name, code)
		case owner != "" && (code != 200 || entry.Entry.User != parties[owner]):
			t.Errorf("name %s: %d %+v, want %s's", name, code, entry, owner)
		}
	}

	// The same file restarts the network; a changed one is refused.
	p.stop(t)
	p = startSandnet(t, dir, "--config", file)
	if code := call(t, "GET", p.url("/v2/users/alice"), admin, nil, nil); code != 200 {
		t.Errorf("alice after a restart: %d", code)
	}
	p.stop(t)
	changed := filepath.Join(t.TempDir(), "changed.yaml")
	if err := os.WriteFile(changed, []byte(strings.Replace(string(networkFile), "balance: 750", "balance: 751", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sandnetBinary(t), "start", "--config", changed, "--data-dir", dir, "--listen", "127.0.0.1:0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Fatalf("a changed file: %v, want exit 1; stderr:\n%s", err, stderr.String())
	}
	for _, want := range []string{"changed.yaml describes another network", `validators[1].users[1].balance: "750" → "751"`, "empty data directory"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestInitStarts: sandnet init writes a file (once, unless --force) that
// starts sandnet's default network: the same DSO party and users as a
// start without a file.
func TestInitStarts(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "sandnet.yaml")
	if out, err := runCLI(t, "init", file); err != nil || !strings.Contains(out, "sandnet start --config "+file) {
		t.Fatalf("init: %v %s", err, out)
	}
	if out, err := runCLI(t, "init", file); err == nil || !strings.Contains(out, "--force") {
		t.Fatalf("init over an existing file: %v %s", err, out)
	}
	if _, err := runCLI(t, "init", "--force", file); err != nil {
		t.Fatalf("init --force: %v", err)
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	withFile := startSandnet(t, dirs[0], "--config", file, "--svs", "1")
	without := startSandnet(t, dirs[1], "--svs", "1")
	// The participants with their parties, the users and the validators
	// of the two networks are the same (not the ledger ends, which
	// automation may have moved on).
	shape := func(p *proc, dir string) string {
		t.Helper()
		var network struct {
			Participants []struct {
				ID      string   `json:"participant_id"`
				Parties []string `json:"parties"`
			} `json:"participants"`
			Users      json.RawMessage `json:"users"`
			Validators json.RawMessage `json:"validators"`
		}
		if code := call(t, "GET", p.url("/api/sandnet/v0/network"), mustToken(t, dir, "participant_admin"), nil, &network); code != 200 {
			t.Fatalf("network: %d", code)
		}
		b, _ := json.Marshal(network)
		return string(b)
	}
	if a, b := shape(withFile, dirs[0]), shape(without, dirs[1]); a != b {
		t.Errorf("the example's network differs from the default one:\n%s\n%s", a, b)
	}
}

// TestNetworkFileBadStarts: a file with a mistake, or one that asks for
// what cannot be, fails the start with a last line naming the file, and the
// line and field where they are known.
func TestNetworkFileBadStarts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file string
		args       []string
		code       int
		want       string
	}{
		{"unknown key", "network:\n  svz: 2\n", nil, 2, "sandnet.yaml:2: network.svz: unknown key"},
		{"bad value", "log:\n  level: loud\n", nil, 2, `sandnet.yaml:2: log.level: "loud" is not one of debug, info, warn, error`},
		{"clock in the past", "network:\n  clock:\n    start: 2020-01-01T00:00:00Z\n", nil, 1, "sandnet.yaml:3: network.clock.start: "},
		{"validators twice", "network:\n  validators: [{name: validator}]\n", []string{"--validator", "extra"}, 1, "sandnet.yaml lists the network's validators"},
		{"flag makes the file's SV missing", "network:\n  validators: [{name: validator}, {name: on-sv, sv: 2}]\n", []string{"--svs", "1"}, 1, "sandnet.yaml: validator on-sv runs on SV 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "sandnet.yaml")
			if err := os.WriteFile(file, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"start", "--config", file, "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0"}, tc.args...)
			cmd := exec.Command(sandnetBinary(t), args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != tc.code {
				t.Fatalf("exit %v, want %d; stderr:\n%s", err, tc.code, stderr.String())
			}
			lines := nonEmptyLines(stderr.String())
			last := lines[len(lines)-1]
			if !strings.Contains(last, tc.want) {
				t.Errorf("stderr's last line %q, want it to contain %q", last, tc.want)
			}
		})
	}
}
