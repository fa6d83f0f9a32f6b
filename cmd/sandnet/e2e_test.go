package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// The tests in this file build the real binary and drive it as a user
// would: start it, call it over HTTP, kill it, start it again.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func sandnetBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sandnet-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "sandnet")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// proc is a running sandnet.
type proc struct {
	cmd *exec.Cmd
	// addr is where it serves: it binds port 0 and names the port it got
	// in its log, so no port is ever guessed free.
	addr   string
	stderr *bytes.Buffer
	// errw writes stderr; logs reads it under its lock while the process
	// runs.
	errw *lockedWriter
	// exited is closed once the process has exited, waitErr then being
	// what cmd.Wait returned: one goroutine waits on it for every reader.
	exited  chan struct{}
	waitErr error
}

// logs returns what the process has written to stderr so far.
func (p *proc) logs() string {
	p.errw.mu.Lock()
	defer p.errw.mu.Unlock()
	return p.stderr.String()
}

// running says whether the process has not exited yet.
func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// logLines returns the JSON log lines written so far whose msg is msg.
func (p *proc) logLines(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(p.logs(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// logURL returns the url attribute of the first log line whose msg is
// msg, and whether there is one.
func (p *proc) logURL(msg string) (*url.URL, bool) {
	for _, rec := range p.logLines(msg) {
		s, _ := rec["url"].(string)
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			return u, true
		}
	}
	return nil, false
}

func startSandnet(t *testing.T, dataDir string, args ...string) *proc {
	t.Helper()
	return startProc(t, "start", dataDir, args...)
}

// readyMessages are the log messages a serving subcommand writes, with
// the URL it serves, once /readyz answers 200.
var readyMessages = map[string]string{"start": "sandnet is ready", "scan": "scan is ready"}

// startProc runs a serving subcommand (start, scan) on port 0 with JSON
// logs and waits until its log says it is ready and where it listens. A
// process that exits first fails the test at once, with its stderr.
func startProc(t *testing.T, command, dataDir string, args ...string) *proc {
	t.Helper()
	p := &proc{stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	all := append([]string{command, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json"}, args...)
	p.cmd = exec.Command(sandnetBinary(t), all...)
	p.errw = &lockedWriter{w: p.stderr}
	p.cmd.Stderr = p.errw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if p.running() {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	// Generous: on a busy machine seeding under -race is slow, and a
	// process that fails does not make the test wait for this.
	deadline := time.After(60 * time.Second)
	for {
		if u, ok := p.logURL(readyMessages[command]); ok {
			p.addr = u.Host
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("sandnet %s exited before it was ready (%v):\n%s", command, p.waitErr, p.logs())
		case <-deadline:
			p.dumpAndFail(t, "sandnet %s did not become ready in 60 s", command)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (p *proc) url(path string) string { return "http://" + p.addr + path }

func (p *proc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.waitErr != nil {
			t.Fatalf("sandnet exited with %v:\n%s", p.waitErr, p.logs())
		}
	case <-time.After(15 * time.Second):
		p.dumpAndFail(t, "sandnet did not stop on SIGTERM")
	}
}

// dumpAndFail asks the process for a goroutine dump (SIGQUIT makes the Go
// runtime print one and exit), then fails the test with its stderr, so a
// hang shows where it is stuck.
func (p *proc) dumpAndFail(t *testing.T, format string, args ...any) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	t.Fatalf("%s\nsandnet's stderr:\n%s", fmt.Sprintf(format, args...), p.logs())
}

func (p *proc) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(sandnetBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stderr.String(), err
	}
	return stdout.String(), nil
}

func call(t *testing.T, method, url, token string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("decode %s: %v", data, err)
		}
	}
	return resp.StatusCode
}

func TestStartServeRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)

	tok, err := runCLI(t, "token", "--user", "participant_admin", "--data-dir", dir)
	if err != nil {
		t.Fatalf("token: %v %s", err, tok)
	}
	tok = strings.TrimSpace(tok)

	var info struct {
		DSO          string `json:"dso_party_id"`
		Participants []struct {
			ID         string `json:"participant_id"`
			PrunedUpTo int64  `json:"pruned_up_to"`
		} `json:"participants"`
		SVs   []json.RawMessage `json:"svs"`
		Users []struct {
			ID string `json:"user_id"`
		} `json:"users"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), tok, nil, &info); code != 200 {
		t.Fatalf("network: %d", code)
	}
	if !strings.HasPrefix(info.DSO, "DSO::1220") || len(info.SVs) != 4 || len(info.Participants) != 5 {
		t.Fatalf("seeded network = %+v", info)
	}

	tests := []struct {
		name  string
		token string
		want  int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"garbage token", "not-a-jwt", http.StatusUnauthorized},
		{"alice is not an operator", mustToken(t, dir, "alice"), http.StatusForbidden},
		{"operator", tok, http.StatusOK},
	}
	for _, tt := range tests {
		if code := call(t, "GET", p.url("/api/sandnet/v0/network"), tt.token, nil, nil); code != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, code, tt.want)
		}
	}

	var user struct {
		Party string `json:"party_id"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/users"), tok, map[string]string{"name": "carol"}, &user); code != 200 {
		t.Fatalf("create user: %d", code)
	}
	var tap struct {
		ContractID string `json:"contract_id"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), tok, map[string]string{"user": "carol", "amount": "100.0"}, &tap); code != 200 {
		t.Fatalf("tap: %d", code)
	}
	for _, bad := range []map[string]string{{"user": "carol", "amount": "1e5"}, {"user": "nobody", "amount": "1.0"}, {"user": "carol"}} {
		if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), tok, bad, nil); code != 400 && code != 404 {
			t.Errorf("tap %v: status %d", bad, code)
		}
	}
	// Hosting carol on a second participant and revoking her first one
	// through the CLI; GET hostings follows, and her last hosting stays.
	type hostings struct {
		Hostings []struct {
			ParticipantID string `json:"participant_id"`
			Permission    string `json:"permission"`
		} `json:"hostings"`
		UpdateIDs []string `json:"update_ids"`
	}
	var before hostings
	if code := call(t, "GET", p.url("/api/sandnet/v0/parties/"+user.Party+"/hostings"), tok, nil, &before); code != 200 || len(before.Hostings) != 1 {
		t.Fatalf("carol's hostings: %d %+v", code, before)
	}
	home, other := before.Hostings[0].ParticipantID, info.Participants[0].ID
	if other == home {
		other = info.Participants[1].ID
	}
	admin := func(args ...string) (string, error) {
		return runCLI(t, append([]string{"admin", "--url", "http://" + p.addr, "--data-dir", dir}, args...)...)
	}
	out, err := admin("host", user.Party, "--participant", other, "--permission", "Observation")
	if err != nil {
		t.Fatalf("host: %v %s", err, out)
	}
	var added hostings
	if json.Unmarshal([]byte(out), &added) != nil || len(added.Hostings) != 2 || len(added.UpdateIDs) != 1 {
		t.Errorf("host printed %s", out)
	}
	if out, err := admin("unhost", user.Party, "--participant", home); err != nil {
		t.Fatalf("unhost: %v %s", err, out)
	}
	var after hostings
	if code := call(t, "GET", p.url("/api/sandnet/v0/parties/"+user.Party+"/hostings"), tok, nil, &after); code != 200 ||
		len(after.Hostings) != 1 || after.Hostings[0].ParticipantID != other || after.Hostings[0].Permission != "Observation" {
		t.Errorf("carol's hostings after host and unhost: %d %+v", code, after)
	}
	if out, err := admin("unhost", user.Party, "--participant", other); err == nil || !strings.Contains(out, "400") {
		t.Errorf("unhost of carol's last hosting: %v %s; want a 400", err, out)
	}
	if out, err := admin("host", user.Party, "--participant", other, "--permission", "Owner"); err == nil {
		t.Errorf("host with an unknown permission: %s; want an error", out)
	}
	// Host her back on the validator, where her wallet and user are.
	if out, err := admin("host", user.Party, "--participant", home); err != nil {
		t.Fatalf("host back: %v %s", err, out)
	}
	if out, err := runCLI(t, "admin", "--url", "http://"+p.addr, "--data-dir", dir, "advance-clock", "25h"); err != nil {
		t.Fatalf("advance-clock: %v %s", err, out)
	}
	// Pruning through the CLI: the validator participant by default; an
	// offset past its ledger end is refused with 400.
	out, err = runCLI(t, "admin", "--url", "http://"+p.addr, "--data-dir", dir, "prune", "1")
	if err != nil {
		t.Fatalf("prune: %v %s", err, out)
	}
	var pruned struct {
		ParticipantID string `json:"participant_id"`
		PrunedUpTo    int64  `json:"pruned_up_to"`
	}
	if err := json.Unmarshal([]byte(out), &pruned); err != nil || !strings.HasPrefix(pruned.ParticipantID, "PAR::") || pruned.PrunedUpTo != 1 {
		t.Errorf("prune printed %s (%v)", out, err)
	}
	if out, err := runCLI(t, "admin", "--url", "http://"+p.addr, "--data-dir", dir, "prune", "1000000000"); err == nil || !strings.Contains(out, "400") {
		t.Errorf("prune past the ledger end: %v %s; want a 400", err, out)
	}
	if code := call(t, "GET", p.url("/metrics"), "", nil, nil); code != 200 {
		t.Errorf("metrics: %d", code)
	}
	p.stop(t)

	// The same data after a restart: the tapped coin and carol are there.
	p = startSandnet(t, dir)
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), tok, nil, &info); code != 200 {
		t.Fatalf("network after restart: %d", code)
	}
	found := false
	for _, u := range info.Users {
		found = found || u.ID == "carol"
	}
	if !found {
		t.Error("carol is gone after a restart")
	}
	for _, part := range info.Participants {
		if want := map[bool]int64{true: 1}[part.ID == pruned.ParticipantID]; part.PrunedUpTo != want {
			t.Errorf("participant %s after a restart: pruned_up_to %d, want %d", part.ID, part.PrunedUpTo, want)
		}
	}
	p.stop(t)
	store, err := sqlitestore.OpenLedger(context.Background(), filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, active, err := store.Contract(context.Background(), daml.ContractID(tap.ContractID)); err != nil || !active {
		t.Errorf("tapped amulet after restart: active=%v err=%v", active, err)
	}
}

func mustToken(t *testing.T, dir, user string) string {
	t.Helper()
	out, err := runCLI(t, "token", "--user", user, "--data-dir", dir)
	if err != nil {
		t.Fatalf("token: %v %s", err, out)
	}
	return strings.TrimSpace(out)
}

// TestKillNine kills the process while taps are being committed, restarts
// it, and checks that every acknowledged tap survived and that no
// transaction is half-applied: each participant's offsets, its updates'
// and its completions', have no holes, and each stored transaction's
// creates and archives are in the contract set.
func TestKillNine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	tok := mustToken(t, dir, "participant_admin")

	var acked sync.Map
	var n atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				var tap struct {
					ContractID string `json:"contract_id"`
				}
				b, _ := json.Marshal(map[string]string{"user": "alice", "amount": "1.0"})
				req, _ := http.NewRequest("POST", p.url("/api/sandnet/v0/tap"), bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return // killed
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 && json.Unmarshal(data, &tap) == nil {
					acked.Store(tap.ContractID, true)
					n.Add(1)
				}
			}
		})
	}
	for deadline := time.Now().Add(30 * time.Second); n.Load() < 20; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			close(stop)
			p.dumpAndFail(t, "only %d taps were acknowledged in 30 s", n.Load())
		}
	}
	p.kill(t)
	close(stop)
	wg.Wait()

	p = startSandnet(t, dir)
	p.stop(t)

	ctx := context.Background()
	store, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	acked.Range(func(k, _ any) bool {
		if _, active, err := store.Contract(ctx, daml.ContractID(k.(string))); err != nil || !active {
			t.Errorf("acknowledged tap %s lost: active=%v err=%v", k, active, err)
		}
		return true
	})
	checkConsistent(t, store)
}

// checkConsistent walks every participant's stream and checks it against
// the contract set. Every offset up to the ledger end is an update's, or,
// where the update stream has a gap, a completion's (a rejected command's
// own offset).
func checkConsistent(t *testing.T, store ledger.Store) {
	t.Helper()
	ctx := context.Background()
	head, err := store.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for pid, end := range head.Offsets {
		ups, err := store.Updates(ctx, ledger.UpdateQuery{Participant: pid})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := store.Completions(ctx, ledger.CompletionQuery{Participant: pid})
		if err != nil {
			t.Fatal(err)
		}
		completed := map[ledger.Offset]bool{}
		for _, c := range cs {
			completed[c.Offset] = true
		}
		next := ledger.Offset(1)
		for i, u := range ups {
			for next < u.Offset && completed[next] {
				next++
			}
			if u.Offset != next {
				t.Fatalf("%s: offset %d at position %d, and no completion has offset %d", pid, u.Offset, i, next)
			}
			next++
			if u.Transaction == nil {
				continue // a topology transaction
			}
			for _, c := range u.Transaction.Created() {
				if _, _, err := store.Contract(ctx, c.ID); err != nil {
					t.Errorf("update %s created %s, which is missing: %v", u.Transaction.UpdateID, c.ID, err)
				}
			}
			for _, cid := range u.Transaction.Consumed() {
				if _, active, err := store.Contract(ctx, cid); err != nil || active {
					t.Errorf("update %s consumed %s, which is active=%v (%v)", u.Transaction.UpdateID, cid, active, err)
				}
			}
		}
		for next <= end && completed[next] {
			next++
		}
		if next != end+1 {
			t.Errorf("%s: the stream ends at %d, before its ledger end %d", pid, next-1, end)
		}
	}
}

func TestBadStarts(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantMsg  string
	}{
		{"unknown flag", []string{"start", "--no-such-flag"}, 2, "unknown flag --no-such-flag"},
		{"data dir is a file", []string{"start", "--data-dir", file, "--listen", "127.0.0.1:0"}, 1, "data directory"},
		{"database down", []string{"start", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--database-url", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=2"}, 1, "PostgreSQL"},
		{"bad auth mode", []string{"start", "--auth", "magic"}, 2, "--auth"},
		{"bad validator name", []string{"start", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--validator", "App:pat"}, 1, "--validator: invalid validator name"},
		{"validator named twice", []string{"start", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--validator", "a", "--validator", "a"}, 1, "two validators are named a"},
		{"validator user twice", []string{"start", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--validator", "a:alice"}, 1, "would collide"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(sandnetBinary(t), tt.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			exit, ok := err.(*exec.ExitError)
			if !ok || exit.ExitCode() != tt.wantCode {
				t.Fatalf("exit = %v, want code %d; stderr:\n%s", err, tt.wantCode, stderr.String())
			}
			lines := nonEmptyLines(stderr.String())
			if len(lines) != 1 || !strings.Contains(lines[0], tt.wantMsg) {
				t.Errorf("stderr = %q, want one line mentioning %q", stderr.String(), tt.wantMsg)
			}
		})
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}
