package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// TestAPIProperties is a stateful property test over sandnet's HTTP APIs:
// several users tap, offer (with edge-case amounts, descriptions, expiries,
// tracking ids and receivers), accept, reject and withdraw, transfer
// through the token standard (proptest_token_test.go), while ledger
// time jumps and the network restarts on its data; after every step every
// user's wallet, status and history endpoints must still answer, no answer
// may be a 5xx or echo a huge input, the amulet supply must be conserved
// (minted = holdings + burned, exactly) and no balance may be negative.
//
// The sequence comes from a seed: SANDNET_PROPTEST_SEED (or -seed; random
// by default, and logged), SANDNET_PROPTEST_STEPS (or -steps; 200 by
// default, the CI run) long. A failure is shrunk to a shorter sequence
// that fails the same way (for SANDNET_PROPTEST_SHRINK, 90s by default)
// and reported with the command that replays it. See "Testing" in
// docs/architecture.md for the long run.
func TestAPIProperties(t *testing.T) {
	t.Parallel()
	cfg := propConfigOf(t)
	ops := generate(cfg.seed, cfg.steps)
	if cfg.keep != nil {
		ops = keepSteps(ops, cfg.keep)
	}
	t.Logf("seed %d, %d steps, %s", cfg.seed, len(ops), cfg.engine())
	// A panic in a background goroutine ends the test binary before the
	// test can report: say which sequence was running first.
	fmt.Fprintf(os.Stderr, "TestAPIProperties: SANDNET_PROPTEST_SEED=%d SANDNET_PROPTEST_STEPS=%d\n", cfg.seed, cfg.steps)

	start := time.Now()
	fail := runOps(t, cfg, ops)
	if fail == nil {
		t.Logf("%d steps passed in %s", len(ops), time.Since(start).Round(time.Millisecond))
		return
	}
	failing := ops[:slices.IndexFunc(ops, func(o op) bool { return o.step == fail.op.step })+1]
	minimal, replays := failing, 0
	if cfg.shrink > 0 && len(failing) > 1 {
		minimal, fail, replays = shrink(t, cfg, failing, fail)
	}
	t.Fatal(report(cfg, ops, failing, minimal, replays, fail))
}

// propConfig is a run's configuration, from flags or the environment.
type propConfig struct {
	seed   uint64
	steps  int
	keep   []int         // replay only these steps of the sequence
	shrink time.Duration // time to spend shrinking a failure
	pgURL  string        // run on PostgreSQL instead of SQLite
	// svs is the number of super validators: 1 by default, since the
	// wallet does not depend on it and each SV's Scan ingests every
	// transaction again (a third of the CPU of a run with 4).
	svs int
	// ignore lists failures to go past (a substring of their key or
	// message), to look for other defects while known ones are open.
	ignore []string
}

// ignores reports whether a failure is one the run goes past, and logs it.
func (c propConfig) ignores(t *testing.T, f *propFailure) bool {
	for _, s := range c.ignore {
		if strings.Contains(f.Error(), s) {
			t.Logf("ignored at step %d: %s", f.op.step, short(f.Error()))
			return true
		}
	}
	return false
}

func (c propConfig) engine() string {
	if c.pgURL != "" {
		return fmt.Sprintf("PostgreSQL, %d SVs", c.svs)
	}
	return fmt.Sprintf("SQLite, %d SVs", c.svs)
}

var (
	propSeed  = flag.Uint64("seed", 0, "TestAPIProperties: the sequence's seed (default SANDNET_PROPTEST_SEED, else random)")
	propSteps = flag.Int("steps", 0, "TestAPIProperties: its length (default SANDNET_PROPTEST_STEPS, else 200)")
)

func propConfigOf(t *testing.T) propConfig {
	t.Helper()
	cfg := propConfig{seed: rand.Uint64() % 1_000_000_000, steps: 200, shrink: 90 * time.Second, svs: 1}
	if s := os.Getenv("SANDNET_PROPTEST_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SANDNET_PROPTEST_SEED=%q: %v", s, err)
		}
		cfg.seed = n
	}
	if *propSeed != 0 {
		cfg.seed = *propSeed
	}
	if s := os.Getenv("SANDNET_PROPTEST_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("SANDNET_PROPTEST_STEPS=%q: want a positive number", s)
		}
		cfg.steps = n
	}
	if *propSteps > 0 {
		cfg.steps = *propSteps
	}
	if s := os.Getenv("SANDNET_PROPTEST_KEEP"); s != "" {
		for f := range strings.SplitSeq(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatalf("SANDNET_PROPTEST_KEEP=%q: want step numbers separated by commas", s)
			}
			cfg.keep = append(cfg.keep, n)
		}
		cfg.shrink = 0
	}
	if s := os.Getenv("SANDNET_PROPTEST_SHRINK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("SANDNET_PROPTEST_SHRINK=%q: want a duration such as 90s or 0", s)
		}
		cfg.shrink = d
	}
	if s := os.Getenv("SANDNET_PROPTEST_SVS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("SANDNET_PROPTEST_SVS=%q: want a positive number", s)
		}
		cfg.svs = n
	}
	if s := os.Getenv("SANDNET_PROPTEST_IGNORE"); s != "" {
		cfg.ignore = strings.Split(s, "|")
	}
	if os.Getenv("SANDNET_PROPTEST_POSTGRES") != "" {
		cfg.pgURL = testDatabaseURL(t)
	}
	return cfg
}

func keepSteps(ops []op, keep []int) []op {
	var out []op
	for _, o := range ops {
		if slices.Contains(keep, o.step) {
			out = append(out, o)
		}
	}
	return out
}

// propFailure is a broken property: where, what, and what led to it.
type propFailure struct {
	op op
	// key says what broke in words that stay the same across replays (no
	// ids), so that the shrinker keeps a sequence only if it breaks the
	// same way.
	key string
	msg string
	// calls are the HTTP calls of the failing step, and the checks after it.
	calls []string
	// logs are the server's warnings and errors during the step.
	logs []string
}

func (f *propFailure) Error() string { return f.key + ": " + f.msg }

// runOps runs a sequence on a new network and returns its first failure.
func runOps(t *testing.T, cfg propConfig, ops []op) *propFailure {
	t.Helper()
	r, err := newPropRun(t, cfg)
	if err != nil {
		return &propFailure{op: op{step: -1}, key: "start", msg: err.Error()}
	}
	defer r.close()
	if err := r.check(); err != nil {
		return r.failure(op{step: -1}, err)
	}
	for _, o := range ops {
		r.calls = nil
		r.logs.take() // the server logs in the background: under its lock
		if err := r.do(o); err != nil {
			if f := r.failure(o, err); !cfg.ignores(t, f) {
				return f
			}
		}
		if err := r.check(); err != nil {
			if f := r.failure(o, err); !cfg.ignores(t, f) {
				return f
			}
		}
	}
	return nil
}

// shrink looks for a shorter sequence that fails the same way: it drops
// chunks of steps, halving their size, and keeps every removal after
// which the sequence still fails with the same key, until nothing more
// goes or its time is up.
func shrink(t *testing.T, cfg propConfig, ops []op, fail *propFailure) ([]op, *propFailure, int) {
	t.Helper()
	deadline := time.Now().Add(cfg.shrink)
	replays := 0
	last := ops[len(ops)-1] // the failing step stays
	cur := ops[:len(ops)-1]
	for chunk := max(len(cur)/2, 1); chunk >= 1 && time.Now().Before(deadline); {
		removed := false
		for i := 0; i < len(cur) && time.Now().Before(deadline); {
			try := append(append(slices.Clone(cur[:i]), cur[min(i+chunk, len(cur)):]...), last)
			replays++
			if f := runOps(t, cfg, try); f != nil && f.key == fail.key {
				// It may now fail earlier, on a step before last.
				if n := slices.IndexFunc(try, func(o op) bool { return o.step == f.op.step }); n >= 0 {
					cur, last, fail, removed = try[:n], try[n], f, true
					continue
				}
			}
			i += chunk
		}
		if !removed {
			if chunk == 1 {
				break
			}
			chunk /= 2
		}
	}
	return append(cur, last), fail, replays
}

func report(cfg propConfig, all, failing, minimal []op, replays int, f *propFailure) string {
	var b strings.Builder
	steps := func(ops []op) string {
		var s []string
		for _, o := range ops {
			s = append(s, strconv.Itoa(o.step))
		}
		return strings.Join(s, ",")
	}
	if f.op.step < 0 {
		fmt.Fprintf(&b, "property broken before the first step (%s): %s\n", cfg.engine(), f)
		for _, c := range f.calls {
			fmt.Fprintf(&b, "  %s\n", c)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "property broken at step %d of seed %d (%s): %s\n", f.op.step, cfg.seed, cfg.engine(), f)
	fmt.Fprintf(&b, "replay: SANDNET_PROPTEST_SEED=%d SANDNET_PROPTEST_STEPS=%d go test -race -run 'TestAPIProperties$' ./cmd/sandnet\n", cfg.seed, f.op.step+1)
	if len(minimal) < len(failing) {
		fmt.Fprintf(&b, "shrunk from %d to %d steps in %d replays; replay them: SANDNET_PROPTEST_SEED=%d SANDNET_PROPTEST_STEPS=%d SANDNET_PROPTEST_KEEP=%s go test -race -run 'TestAPIProperties$' ./cmd/sandnet\n",
			len(failing), len(minimal), replays, cfg.seed, f.op.step+1, steps(minimal))
	} else if replays > 0 {
		fmt.Fprintf(&b, "no shorter sequence fails the same way (%d replays)\n", replays)
	}
	b.WriteString("steps:\n")
	for _, o := range minimal {
		fmt.Fprintf(&b, "  %s\n", o)
	}
	b.WriteString("HTTP calls of the failing step and the checks after it:\n")
	for _, c := range f.calls[max(0, len(f.calls)-40):] {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	if len(f.logs) > 0 {
		b.WriteString("server warnings and errors during that step:\n")
		for _, l := range f.logs[max(0, len(f.logs)-20):] {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	return b.String()
}

// --- the network under test

// propSecret signs the test's tokens; the network verifies with it.
const propSecret = "property-test-secret-0123456789abcdef"

// inproc is a sandnet running in the test's process, under -race when
// the test is.
type inproc struct {
	cfg    StartCmd
	base   string
	net    *ledger.Network
	seeded *splice.Seeded
	cancel context.CancelFunc
	done   chan error
	// ready receives the network each time it is ready: at start and
	// after each restore.
	ready chan readyNet
}

// readyNet is the network Main.OnReady gives.
type readyNet struct {
	net    *ledger.Network
	seeded *splice.Seeded
}

func (p *inproc) start(logs io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ready := make(chan readyNet, 1)
	p.ready = ready
	m := &Main{
		Config: p.cfg, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Listener: ln,
		// Called again after each restore (proptest_saves_test.go), which
		// takes the new network from p.ready.
		OnReady: func(n *ledger.Network, s *splice.Seeded) {
			select {
			case ready <- readyNet{n, s}:
			default:
			}
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel, p.done, p.base = cancel, make(chan error, 1), "http://"+ln.Addr().String()
	go func() { p.done <- m.Run(ctx) }()
	select {
	case rn := <-p.ready:
		p.net, p.seeded = rn.net, rn.seeded
		return nil
	case err := <-p.done:
		cancel()
		return fmt.Errorf("sandnet stopped while starting: %v", err)
	case <-time.After(2 * time.Minute):
		cancel()
		<-p.done
		return errors.New("sandnet was not ready in 2 minutes")
	}
}

func (p *inproc) stop() error {
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	p.cancel = nil
	select {
	case err := <-p.done:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("sandnet stopped with %v", err)
		}
		return nil
	case <-time.After(time.Minute):
		return errors.New("sandnet did not stop in a minute")
	}
}

// logLines keeps the server's log lines (warnings and errors) of a step.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range strings.SplitSeq(strings.TrimRight(string(b), "\n"), "\n") {
		if len(line) > 600 {
			line = line[:600] + "…"
		}
		l.lines = append(l.lines, line)
	}
	return len(b), nil
}

func (l *logLines) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

// --- the driver

// propUser is a wallet user the driver acts as.
type propUser struct {
	name, party, token string
	// tracking is the last offer the user made whose status must stay
	// readable.
	tracking string
}

// propRun drives one network through a sequence.
type propRun struct {
	t      *testing.T
	sn     *inproc
	http   *http.Client
	minter *auth.HMAC
	admin  string // the operator's token
	users  []*propUser
	dso    string
	calls  []string
	logs   *logLines
	turn   int // the user whose holdings and history the next check reads
	// external are the users' external parties, onboarded on first use
	// (proptest_external_test.go).
	external map[string]*propExternal
	// preapproved are the parties given a transfer pre-approval: a
	// token-standard transfer to them is direct.
	preapproved map[string]bool
	// settlerRights are the parties the settlement app's user may act as
	// (proptest_alloc_test.go); nil until the user is created.
	settlerRights map[string]bool
	// saved are the saves made so far, with what the driver knew then
	// (proptest_saves_test.go).
	saved []propSave
}

func newPropRun(t *testing.T, cfg propConfig) (*propRun, error) {
	t.Helper()
	sc := StartCmd{
		DataDir: t.TempDir(), NetworkSeed: "sandnet", SVs: cfg.svs, Auth: "hs256", AuthSecret: propSecret,
		SnapshotPeriod: 3 * time.Hour, ListLimit: 200, DBSchema: "sandnet",
	}
	if cfg.pgURL != "" {
		sc.DatabaseURL, sc.DBSchema = cfg.pgURL, schemaPrefix(t, cfg.pgURL, "prop_")
	}
	minter, err := newHMAC([]byte(propSecret), "", nil)
	if err != nil {
		return nil, err
	}
	r := &propRun{t: t, sn: &inproc{cfg: sc}, http: &http.Client{Timeout: time.Minute}, minter: minter, logs: &logLines{}}
	if err := r.sn.start(r.logs); err != nil {
		return nil, err
	}
	r.admin = r.token(splice.OperatorUser)
	r.dso = string(r.sn.seeded.DSOParty)
	for _, name := range []string{"alice", "bob"} {
		u := &propUser{name: name, token: r.token(name)}
		var st struct {
			PartyID string `json:"party_id"`
		}
		if _, err := r.get("user-status", "/api/validator/v0/wallet/user-status", u.token, &st); err != nil {
			r.close()
			return nil, err
		}
		u.party = st.PartyID
		r.users = append(r.users, u)
	}
	return r, nil
}

func (r *propRun) close() {
	if err := r.sn.stop(); err != nil {
		r.t.Logf("closing the network: %v", err)
	}
}

func (r *propRun) token(user string) string {
	tok, err := r.minter.Mint(user, 24*time.Hour, time.Now())
	if err != nil {
		panic(err)
	}
	return tok
}

func (r *propRun) failure(o op, err error) *propFailure {
	f, ok := err.(*propFailure)
	if !ok {
		f = &propFailure{key: "error", msg: err.Error()}
	}
	f.op, f.calls, f.logs = o, r.calls, r.logs.take()
	return f
}

// fail is a broken property.
func fail(key, format string, args ...any) *propFailure {
	return &propFailure{key: key, msg: fmt.Sprintf(format, args...)}
}

// maxErrorBody bounds an error answer: error messages quote at most a
// short prefix of bad input (DESIGN's robustness rules).
const maxErrorBody = 4 << 10

// call sends a request and checks what every answer must be: no 5xx, no
// transport error, and an error in the API's documented shape that does
// not echo a huge input. label names the endpoint in failure keys.
//
// A 429 is Splice's "retry": a contention with automation (a round that
// closed a moment ago) or the same request in flight. The driver retries
// it as a client would, for a while.
func (r *propRun) call(label, method, path, token string, body any) (int, []byte, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return 0, nil, err
		}
	}
	for attempt := 1; ; attempt++ {
		code, data, err := r.send(label, method, path, token, payload)
		if err != nil || code != http.StatusTooManyRequests {
			return code, data, err
		}
		if attempt == 20 {
			return code, data, fail("429 for good from "+label, "%s %s answered 429 %d times in a row: %s", method, short(path), attempt, short(string(data)))
		}
		time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
	}
}

func (r *propRun) send(label, method, path, token string, payload []byte) (int, []byte, error) {
	var rd io.Reader
	sent := len(payload)
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequest(method, r.sn.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	t0 := time.Now()
	resp, err := r.http.Do(req)
	if err != nil {
		r.calls = append(r.calls, fmt.Sprintf("%s %s → %v", method, short(path), err))
		return 0, nil, fail("no answer from "+label, "%s %s: %v", method, short(path), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fail("no answer from "+label, "%s %s: reading the answer: %v", method, short(path), err)
	}
	r.calls = append(r.calls, fmt.Sprintf("%s %s (%d bytes) → %d in %s: %s", method, short(path), sent, resp.StatusCode,
		time.Since(t0).Round(time.Millisecond), short(string(data))))
	code := resp.StatusCode
	switch {
	case code >= 500:
		return code, data, fail(fmt.Sprintf("%d from %s", code, label), "%s %s answered %d: %s", method, short(path), code, short(string(data)))
	case code >= 400 && len(data) > maxErrorBody:
		return code, data, fail("huge error body from "+label, "%s %s answered %d with %d bytes (a request of %d bytes): an error must quote at most a short prefix of its input: %s",
			method, short(path), code, len(data), sent, short(string(data)))
	case code >= 400 && !strings.HasPrefix(path, "/v2/") && resp.Header.Get("Content-Type") == "application/json" && !answersWithContract(path, code):
		var e struct {
			Error *string `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error == nil {
			return code, data, fail("error shape of "+label, `%s %s answered %d without {"error": "…"}: %s`, method, short(path), code, short(string(data)))
		}
	}
	return code, data, nil
}

// answersWithContract reports whether an error status is one the API
// documents with a result body, not an error: the wallet's 409 for a
// pre-approval that exists carries it (CreateTransferPreapprovalResponse).
func answersWithContract(path string, code int) bool {
	return code == http.StatusConflict && path == validatorAPI+"/wallet/transfer-preapproval"
}

// get reads a JSON answer that must be 200.
func (r *propRun) get(label, path, token string, out any) ([]byte, error) {
	return r.want200(label, "GET", path, token, nil, out)
}

func (r *propRun) want200(label, method, path, token string, body, out any) ([]byte, error) {
	code, data, err := r.call(label, method, path, token, body)
	if err != nil {
		return data, err
	}
	if code != http.StatusOK {
		return data, fail(fmt.Sprintf("%s answered %d", label, code), "%s %s answered %d, want 200: %s", method, short(path), code, short(string(data)))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return data, fail("bad JSON from "+label, "%s %s: %v: %s", method, short(path), err, short(string(data)))
		}
	}
	return data, nil
}

// short cuts a body or path for the step log.
func short(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= 300 {
		return s
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:200], len(s))
}
