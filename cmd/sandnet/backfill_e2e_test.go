package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestScanBackfillsInItsOwnProcess runs the Scan of a fifth SV in a process
// of its own, with its own store, backfilling over HTTP from three peers of
// which one lies: it is killed (SIGKILL) three times in the middle of
// backfilling, and each restart resumes where the last one stopped, until
// its history is complete and the same, byte for byte, as SV 1's. The
// lying peer is outvoted; with too few honest peers, backfilling waits and
// says why.
func TestScanBackfillsInItsOwnProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	admin := mustToken(t, dir, "participant_admin")
	tap := func(n int) {
		t.Helper()
		for i := range n {
			if code := call(t, "POST", p.url("/api/sandnet/v0/tap"), admin, map[string]string{"user": "alice", "amount": fmt.Sprint(i + 1)}, nil); code != 200 {
				t.Fatalf("tap: %d", code)
			}
		}
	}
	tap(60)
	var sv5 struct {
		SV int `json:"sv"`
	}
	if code := call(t, "POST", p.url("/api/sandnet/v0/svs"), admin, nil, &sv5); code != 200 || sv5.SV != 5 {
		t.Fatalf("add an SV: %d %+v", code, sv5)
	}
	tap(5)

	// proxy forwards to SV sv's Scan, through g when it is not nil; with
	// a lie, it alters every update it serves. The Scan under test reaches
	// it at URL/run/<run>/api/scan, so that g knows which of the Scan's
	// processes asked.
	proxy := func(sv int, lie string, g *gate) *httptest.Server {
		target := p.url(fmt.Sprintf("/sv/%d/api/scan", sv))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			path := r.URL.Path
			run := -1
			if rest, ok := strings.CutPrefix(path, "/run/"); ok {
				n, tail, _ := strings.Cut(rest, "/")
				run, _ = strconv.Atoi(n)
				path = "/" + tail
			}
			path = strings.TrimPrefix(path, "/api/scan")
			before := strings.HasSuffix(path, "/updates-before")
			if before && g != nil && !g.pass(run, body) {
				select { // held until the Scan is killed
				case <-r.Context().Done():
				case <-g.release:
				}
				return
			}
			req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			if before && lie != "" {
				out = bytes.ReplaceAll(out, []byte(`"workflow_id":"`), []byte(`"workflow_id":"`+lie))
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(out)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	peer := func(sv int) string { return p.url(fmt.Sprintf("/sv/%d/api/scan", sv)) }
	scanDir := t.TempDir()
	status := func(s *proc) bool {
		var st struct {
			Complete bool `json:"complete"`
		}
		return call(t, "GET", s.url("/api/scan/v0/backfilling/status"), "", nil, &st) == 200 && st.Complete
	}

	// Too few honest peers: SV 1 and two liars telling different lies.
	// Nothing is accepted, and the log says why.
	args := []string{"--url", p.url(""), "--sv", "5", "--sandnet-data-dir", dir, "--backfill-batch", "4"}
	s := startProc(t, "scan", scanDir, append(args, "--peer", peer(1), "--peer", proxy(3, "a", nil).URL+"/api/scan", "--peer", proxy(4, "b", nil).URL+"/api/scan")...)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.logs(), "scan backfilling waits") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(s.logs(), "scan backfilling waits") || status(s) {
		t.Fatalf("with one honest peer of three, backfilling should wait and say so:\n%s", s.logs())
	}
	if code := call(t, "POST", s.url("/api/scan/v2/updates"), "", map[string]any{"page_size": 10}, nil); code != 503 {
		t.Errorf("v2 updates while backfilling: %d, want 503", code)
	}
	s.kill(t)

	// Two honest peers and a liar, all behind one gate: the liar is
	// outvoted. Each run may read three pages of updates-before more
	// (enough to decide a page of 4 updates even when the liar answers
	// first); every later read is held, so the Scan is always killed in
	// the middle of backfilling, once it has stored a page in that run
	// (the history to backfill is some 20 pages).
	g := newGate()
	t.Cleanup(g.open)
	honest1, liar, honest2 := proxy(1, "", g), proxy(3, "x", g), proxy(2, "", g)
	run := func(i int) *proc {
		peers := []string{}
		for _, srv := range []*httptest.Server{honest1, liar, honest2} {
			peers = append(peers, "--peer", fmt.Sprintf("%s/run/%d/api/scan", srv.URL, i))
		}
		return startProc(t, "scan", scanDir, append(slices.Clone(args), peers...)...)
	}
	const kills = 3
	for i := range kills {
		held := g.allow(3)
		s = run(i)
		select {
		case <-held:
		case <-time.After(30 * time.Second):
			s.dumpAndFail(t, "run %d: the Scan did not read three pages of updates in 30 s", i)
		}
		for deadline := time.Now().Add(10 * time.Second); backfilled(t, s) == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				s.dumpAndFail(t, "run %d: the Scan stored no page of updates it read", i)
			}
		}
		if status(s) {
			t.Fatalf("run %d: backfilling complete after a few pages; the test needs a longer history", i)
		}
		s.kill(t)
	}
	g.open()
	s = run(kills)
	for deadline := time.Now().Add(30 * time.Second); !status(s) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
	}
	if !status(s) {
		t.Fatalf("the Scan never completed backfilling after %d kills:\n%s", kills, s.logs())
	}
	// Each run resumed where the one before stopped: its first read asks
	// for updates before an older record time than the first read of the
	// run before (record times have one fixed-width form).
	firsts := g.firsts()
	for i := 1; i <= kills; i++ {
		if firsts[i] == "" || firsts[i] >= firsts[i-1] {
			t.Errorf("run %d started backfilling before %q, run %d before %q: it did not resume", i, firsts[i], i-1, firsts[i-1])
		}
	}

	history := func(base string) string {
		var out json.RawMessage
		if code := call(t, "POST", base+"/v2/updates", "", map[string]any{"page_size": 1000}, &out); code != 200 {
			t.Fatalf("%s v2 updates: %d", base, code)
		}
		return string(out)
	}
	want := history(peer(1))
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = history(s.url("/api/scan")); got == want {
			break
		}
	}
	if got != want {
		t.Errorf("the separate Scan's history differs from SV 1's:\n got %.3000s\nwant %.3000s", got, want)
	}
	if strings.Contains(got, `"workflow_id":"x`) {
		t.Errorf("the liar's updates were accepted")
	}
	s.stop(t)
	p.stop(t)
}

// gate lets a number of updates-before reads through to the peers and
// holds every later one until its client goes away: the Scan under test
// is then stuck in the middle of backfilling, wherever the machine's speed
// would have put it. It also keeps the first read of each run.
type gate struct {
	mu      sync.Mutex
	left    int           // reads still let through; -1: no limit
	held    chan struct{} // closed when a read is first held
	first   map[int]string
	release chan struct{} // closed by open: nothing is held any more
	opened  bool
}

func newGate() *gate {
	return &gate{left: -1, held: make(chan struct{}), first: map[int]string{}, release: make(chan struct{})}
}

// allow lets n more reads through and returns a channel closed when a
// read after them is held.
func (g *gate) allow(n int) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.left, g.held = n, make(chan struct{})
	return g.held
}

// open lets every read through, the held ones too.
func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.left = -1
	if !g.opened {
		g.opened = true
		close(g.release)
	}
}

// pass notes a read of run with its body and says whether it may go on.
func (g *gate) pass(run int, body []byte) bool {
	var q struct {
		Before string `json:"before"`
	}
	_ = json.Unmarshal(body, &q)
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.first[run]; !ok {
		g.first[run] = q.Before
	}
	switch {
	case g.left < 0:
		return true
	case g.left > 0:
		g.left--
		return true
	}
	select {
	case <-g.held:
	default:
		close(g.held)
	}
	return false
}

// firsts returns the before of each run's first read.
func (g *gate) firsts() map[int]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.first)
}

// backfilledUpdates reads a Scan process's count of updates it has
// backfilled and stored (sandnet_scan_backfilled_updates_total).
var backfilledUpdates = regexp.MustCompile(`(?m)^sandnet_scan_backfilled_updates_total\{kind="update",sv="5"\} (\d+)$`)

// backfilled returns how many updates the Scan process s has stored from
// its peers since it started.
func backfilled(t *testing.T, s *proc) int {
	t.Helper()
	m := backfilledUpdates.FindStringSubmatch(fetch(t, "GET", s.url("/metrics"), ""))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
