package ledgerclient_test

import (
	"bytes"
	cmpstd "cmp"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sandnet/sandnet/internal/api/admin"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/ledgerclient"
	"github.com/sandnet/sandnet/internal/operator"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

var epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// env is a seeded network whose SV-1 participant's ledger API is served
// over HTTP.
type env struct {
	net    *ledger.Network
	seeded *splice.Seeded
	sv     ledger.ParticipantID
	dso    daml.Party
	srv    *httptest.Server
	mux    *http.ServeMux
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// A pinned wall clock: the watermark is then the last record time.
	net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: "ledgerclient-test", Wall: func() time.Time { return epoch }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	seeded, err := splice.Seed(ctx, net, splice.SeedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{net: net, seeded: seeded, sv: seeded.SVs[0].Participant, dso: seeded.DSOParty, mux: http.NewServeMux()}
	ledgerapi.New(ledgerapi.Config{
		Participant: e.sv, ParticipantName: "sv-1", Ledger: ledgerapi.NetworkLedger(net), Registry: net.Registry(),
		Auth: &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true},
	}).Register(e.mux, "/sv/1")
	// The admin API, for Now, Hostings and migration ids.
	admin.New(operator.New(net, seeded), &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true}, nil).Register(e.mux)
	// A proxy in front of a participant that is down, for the 5xx case.
	e.mux.HandleFunc("/fail/", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "bad gateway", http.StatusBadGateway)
	})
	e.srv = httptest.NewServer(e.mux)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) client(mod func(*ledgerclient.Config)) *ledgerclient.Client {
	cfg := ledgerclient.Config{
		BaseURL: e.srv.URL + "/sv/1", HTTP: e.srv.Client(), Party: e.dso, Registry: e.net.Registry(),
		Token: func(context.Context) (string, error) { return "unused", nil },
	}
	if mod != nil {
		mod(&cfg)
	}
	return ledgerclient.New(cfg)
}

// tap commits a tap of alice's, which the SV participants see (the DSO
// signs amulets).
func (e *env) tap(t *testing.T) {
	t.Helper()
	alice, _ := e.seeded.User("alice")
	if _, err := splice.TapFor(context.Background(), e.net, e.seeded, "alice", alice.Party, daml.MustNumeric("5.0")); err != nil {
		t.Fatal(err)
	}
}

// want is what the in-process source yields for (after, until] of the SV
// participant's stream: every transaction the DSO party sees, projected
// to it, with what the JSON Ledger API does not carry (see the package
// documentation) brought to the form the client decodes.
func (e *env) want(t *testing.T, after, until ledger.Offset) []scan.Update {
	t.Helper()
	ups, err := e.net.ParticipantUpdates(t.Context(), ledger.UpdateQuery{Participant: e.sv, After: after, Until: until, Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var out []scan.Update
	for _, u := range ups {
		if r := u.Reassignment; r != nil {
			if slices.Contains(r.Parties(), e.dso) {
				out = append(out, scan.Update{Offset: u.Offset, Reassignment: wireReassignment(r, e.dso)})
			}
			continue
		}
		if u.Transaction == nil {
			continue // topology
		}
		p := u.Transaction.Project([]daml.Party{e.dso})
		if p == nil {
			continue
		}
		created, archived := ledgerclient.DSOView(p, e.dso)
		out = append(out, scan.Update{Offset: u.Offset, Transaction: wireForm(p, e.dso), Created: created, Archived: archived})
	}
	return out
}

// wireUpdate is an update of the in-process source (scan.NetworkSource)
// as far as the JSON Ledger API carries it: see wireForm and
// wireReassignment. Created and Archived are derived as the client does
// (ledgerclient.DSOView leaves transient contracts out).
func wireUpdate(u scan.Update, dso daml.Party) scan.Update {
	if u.Reassignment != nil {
		return scan.Update{Offset: u.Offset, Reassignment: wireReassignment(u.Reassignment, dso)}
	}
	created, archived := ledgerclient.DSOView(u.Transaction, dso)
	return scan.Update{Offset: u.Offset, Transaction: wireForm(u.Transaction, dso), Created: created, Archived: archived}
}

// wireReassignment is r as far as the JSON Ledger API carries it, read
// by the DSO party: the command id only when the DSO party submitted it;
// an assignment's contract in full (the client finds its creation in the
// stream); an unassignment's contract by id and template alone, as it
// was on the source.
func wireReassignment(r *ledger.Reassignment, dso daml.Party) *ledger.Reassignment {
	out := *r
	if r.Submitter != dso {
		out.CommandID = ""
	}
	c := *r.Contract // a copy, for the callers to retag
	out.Contract = &c
	if r.Kind != ledger.Assigned {
		out.Contract = &ledger.Contract{
			ID: r.Contract.ID, Template: r.Contract.Template, Synchronizer: r.Source,
			MigrationID: r.MigrationID, ReassignmentCounter: r.Counter - 1,
		}
	}
	return &out
}

// wireForm is tx as far as the JSON Ledger API carries it: no
// submission, and exercised contracts' stakeholders narrowed to the DSO
// party where the wire says (consuming exercises, contracts created in
// the transaction).
func wireForm(tx *ledger.Transaction, dso daml.Party) *ledger.Transaction {
	out := *tx
	out.Submission = ledger.Submission{}
	out.Events = slices.Clone(tx.Events)
	created := map[daml.ContractID]bool{}
	for i := range out.Events {
		e := &out.Events[i]
		if e.Created != nil {
			created[e.Created.ID] = true
		}
		if e.Exercised == nil {
			continue
		}
		x := *e.Exercised
		stake := slices.Contains(x.Stakeholders, dso)
		x.Stakeholders = nil
		if stake && (x.Consuming || created[x.ContractID]) {
			x.Stakeholders = []daml.Party{dso}
		}
		e.Exercised = &x
	}
	return &out
}

var cmpOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	// Numerics have no canonical form: values compare with daml.Equal,
	// or, for the parts of dynamic type the client can only guess (the
	// action of a vote request), by their ledger JSON.
	cmp.FilterPath(func(p cmp.Path) bool { return p.Last().Type() == reflect.TypeFor[daml.Value]() },
		cmp.Comparer(sameValue)),
	cmp.Comparer(func(a, b *daml.Record) bool { return sameValue(a, b) }),
}

func sameValue(a, b daml.Value) bool {
	if daml.Equal(a, b) {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	ja, err := daml.LedgerJSON.Encode(a)
	if err != nil {
		return false
	}
	// Only a vote request's action is of dynamic type.
	if !bytes.Contains(ja, []byte(`"action":`)) {
		return false
	}
	jb, err := daml.LedgerJSON.Encode(b)
	return err == nil && bytes.Equal(ja, jb)
}

// Read in small pages gives the in-process projection of the whole
// stream, and a checkpoint at the ledger end with the network's
// watermark.
func TestReadPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	end, wantAt, err := e.net.Watermark(ctx, e.sv)
	if err != nil {
		t.Fatal(err)
	}
	want := e.want(t, 0, end)
	if len(want) < 5 {
		t.Fatalf("the seeded SV stream has %d DSO updates; the test wants several pages", len(want))
	}
	for _, tc := range []struct {
		name     string
		pageSize int
		limit    int
		admin    bool // migration ids from the admin API
	}{
		{"pages of 1", 0, 1, false},
		{"pages of 3", 0, 3, false},
		{"pages of 4, with the admin API", 0, 4, true},
		{"page size caps the limit", 2, 50, false},
		{"one page", 0, 1000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := e.client(func(cfg *ledgerclient.Config) {
				cfg.PageSize = tc.pageSize
				if tc.admin {
					cfg.AdminURL = e.srv.URL
				}
			})
			got, last := readToCheckpoint(t, c, tc.limit, func(after ledger.Offset, b scan.Batch) {
				if max := min(tc.limit, cmpstd.Or(tc.pageSize, ledgerclient.DefaultPageSize)); len(b.Updates) > max {
					t.Fatalf("a batch of %d updates, want at most %d", len(b.Updates), max)
				}
				if b.End < after || (b.End == after && b.Checkpoint.RecordTime == 0) {
					t.Fatalf("Read(%d) ended at %d without a checkpoint", after, b.End)
				}
				for _, u := range b.Updates {
					if u.Offset <= after || u.Offset > b.End {
						t.Fatalf("update at %d outside (%d, %d]", u.Offset, after, b.End)
					}
				}
			})
			if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
				t.Errorf("updates differ from the in-process projection (-want +got):\n%s", diff)
			}
			if wantCP := (scan.Checkpoint{Offset: end, RecordTime: wantAt}); last.Checkpoint != wantCP || last.End != end {
				t.Errorf("last batch ends at %d with checkpoint %+v, want %+v", last.End, last.Checkpoint, wantCP)
			}
			// At the end: an empty batch, with the checkpoint.
			b, err := c.Read(ctx, end, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Updates) != 0 || b.End != end || b.Checkpoint.Offset != end || b.Checkpoint.RecordTime < wantAt {
				t.Errorf("Read at the end: %+v", b)
			}
		})
	}
}

// The seeded stream holds consuming exercises of DSO contracts, so
// Archived is exercised; DSOView leaves transient contracts out.
func TestDSOView(t *testing.T) {
	t.Parallel()
	dso := daml.Party("DSO::1220")
	other := daml.Party("bob::1220")
	c := func(id string, sigs ...daml.Party) *ledger.Contract {
		return &ledger.Contract{ID: daml.ContractID(id), Signatories: sigs}
	}
	x := func(id string, consuming bool, stake ...daml.Party) *ledger.Exercised {
		return &ledger.Exercised{ContractID: daml.ContractID(id), Consuming: consuming, Stakeholders: stake}
	}
	tx := &ledger.Transaction{Events: []ledger.Event{
		{NodeID: 0, Exercised: x("old", true, dso, other)},
		{NodeID: 1, Created: c("new", dso)},
		{NodeID: 2, Created: c("bobs", other)},
		{NodeID: 3, Created: c("transient", dso)},
		{NodeID: 4, Exercised: x("transient", true, dso)},
		{NodeID: 5, Exercised: x("kept", false, dso)},
		{NodeID: 6, Exercised: x("bobs-old", true, other)},
	}}
	created, archived := ledgerclient.DSOView(tx, dso)
	var ids []daml.ContractID
	for _, c := range created {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]daml.ContractID{"new"}, ids); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]daml.ContractID{"old"}, archived); diff != "" {
		t.Errorf("archived (-want +got):\n%s", diff)
	}
}

// Wait returns promptly after a commit and when ctx ends, and at its idle
// bound or at once for an until in the past.
func TestWait(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	c := e.client(func(cfg *ledgerclient.Config) { cfg.WaitIdle = 30 * time.Second })
	end, err := c.LedgerEnd(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a commit", func(t *testing.T) {
		done := make(chan error, 1)
		start := time.Now()
		go func() { done <- c.Wait(ctx, end, 0) }()
		time.Sleep(100 * time.Millisecond)
		select {
		case err := <-done:
			t.Fatalf("Wait returned before the commit: %v", err)
		default:
		}
		e.tap(t)
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Wait did not return after a commit")
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("Wait took %s", d)
		}
		// The tap reads back with the amulet it creates for the DSO view.
		b, err := c.Read(ctx, end, 10)
		if err != nil {
			t.Fatal(err)
		}
		newEnd, at, err := e.net.Watermark(ctx, e.sv)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(e.want(t, end, newEnd), b.Updates, cmpOpts); diff != "" {
			t.Errorf("tap (-want +got):\n%s", diff)
		}
		if len(b.Updates) == 0 || len(b.Updates[len(b.Updates)-1].Created) == 0 {
			t.Errorf("the tap creates no DSO contract: %+v", b.Updates)
		}
		if b.End != newEnd || b.Checkpoint != (scan.Checkpoint{Offset: newEnd, RecordTime: at}) {
			t.Errorf("batch ends at %d with %+v, want a checkpoint at %d", b.End, b.Checkpoint, newEnd)
		}
		end = newEnd
	})

	t.Run("updates already there", func(t *testing.T) {
		start := time.Now()
		if err := c.Wait(ctx, end-1, 0); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Wait took %s", d)
		}
	})

	t.Run("ctx cancel", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- c.Wait(cctx, end, 0) }()
		time.Sleep(100 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Wait = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Wait did not return after cancel")
		}
	})

	t.Run("until passed", func(t *testing.T) {
		now, err := c.Now(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := c.Wait(ctx, end, now-1); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Wait took %s", d)
		}
	})

	t.Run("idle bound", func(t *testing.T) {
		short := e.client(func(cfg *ledgerclient.Config) { cfg.WaitIdle = 200 * time.Millisecond })
		start := time.Now()
		if err := short.Wait(ctx, end, 0); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 150*time.Millisecond || d > 10*time.Second {
			t.Errorf("Wait took %s, want about 200ms", d)
		}
	})
}

// Now without the admin API is the watermark of a checkpoint.
func TestNowFromCheckpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	now, err := e.client(nil).Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, at, err := e.net.Watermark(ctx, e.sv)
	if err != nil {
		t.Fatal(err)
	}
	if now > at || at-now > daml.Timestamp(time.Minute/time.Microsecond) {
		t.Errorf("Now = %s, watermark after it %s", now, at)
	}
}

// With the admin API, Now is the ledger clock and Hostings the committed
// topology.
func TestAdminAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	c := e.client(func(cfg *ledgerclient.Config) {
		cfg.AdminURL = e.srv.URL + "/"
	})
	now, err := c.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := e.net.Clock().Now(); now != want {
		t.Errorf("Now = %s, want the clock's %s", now, want)
	}
	var want []ledger.ParticipantID
	for _, h := range e.net.HostingsOf(e.dso) {
		if h.Synchronizer == e.seeded.Synchronizer {
			want = append(want, h.Participant)
		}
	}
	slices.Sort(want)
	if len(want) != len(e.seeded.SVs) {
		t.Fatalf("the DSO party has %d hostings, want one per SV", len(want))
	}
	for _, tc := range []struct {
		name  string
		sync  ledger.SynchronizerID
		party daml.Party
		want  []ledger.ParticipantID
	}{
		{"the DSO party on its synchronizer", e.seeded.Synchronizer, e.dso, want},
		{"on any synchronizer", "", e.dso, want},
		{"on another synchronizer", "other::1220", e.dso, nil},
		{"a party nobody hosts", e.seeded.Synchronizer, "nobody::1220", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Hostings(ctx, tc.sync, tc.party)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("hostings (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := c.Hostings(ctx, "", "not-a-party"); !fault.Is(err, fault.InvalidArgument) {
		t.Errorf("a malformed party: %v, want InvalidArgument", err)
	}
}

// Failures are *fault.Error values of a sensible kind.
func TestErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	end, err := e.client(nil).LedgerEnd(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*ledgerclient.Config)
		call func(c *ledgerclient.Client) error
		kind fault.Kind
		code string
	}{
		{name: "malformed base URL", mod: func(c *ledgerclient.Config) { c.BaseURL = "://no-scheme" }, kind: fault.InvalidArgument},
		{name: "not http", mod: func(c *ledgerclient.Config) { c.BaseURL = "ftp://127.0.0.1/sv/1" }, kind: fault.InvalidArgument},
		{name: "nothing listening", mod: func(c *ledgerclient.Config) { c.BaseURL = closedURL(t) }, kind: fault.Unavailable},
		{name: "no such participant", mod: func(c *ledgerclient.Config) { c.BaseURL = e.srv.URL + "/sv/9" }, kind: fault.NotFound},
		{name: "server error", mod: func(c *ledgerclient.Config) { c.BaseURL = e.srv.URL + "/fail" }, kind: fault.Unavailable},
		{name: "after the ledger end", call: func(c *ledgerclient.Client) error {
			_, err := c.Read(ctx, end+5, 10)
			return err
		}, kind: fault.OutOfRange, code: "OFFSET_AFTER_LEDGER_END"},
		{name: "wait after the ledger end", call: func(c *ledgerclient.Client) error {
			return c.Wait(ctx, end+5, 0)
		}, kind: fault.OutOfRange, code: "OFFSET_AFTER_LEDGER_END"},
		{name: "hostings without the admin API", call: func(c *ledgerclient.Client) error {
			_, err := c.Hostings(ctx, "", e.dso)
			return err
		}, kind: fault.FailedPrecondition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := e.client(tc.mod)
			call := tc.call
			if call == nil {
				call = func(c *ledgerclient.Client) error {
					_, err := c.Read(ctx, 0, 10)
					return err
				}
			}
			err := call(c)
			fe, ok := fault.As(err)
			if !ok {
				t.Fatalf("error %v (%T), want a *fault.Error", err, err)
			}
			if fe.Kind != tc.kind || (tc.code != "" && fe.Code != tc.code) {
				t.Errorf("error %q: kind %v code %q, want %v %q", err, fe.Kind, fe.Code, tc.kind, tc.code)
			}
		})
	}
}

// closedURL is the URL of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

// A reassignment of a DSO contract at the ledger end is an element of the
// checkpoint read (its format selects the DSO party's reassignments): Now
// still finds the checkpoint after it, and Read reaches the end with its
// checkpoint, the two halves of the reassignment in the batch.
func TestCheckpointAfterAReassignment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	alice, _ := e.seeded.User("alice")
	cid, err := splice.TapFor(ctx, e.net, e.seeded, "alice", alice.Party, daml.MustNumeric("5.0"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.net.AddSynchronizer(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.net.Reassign(ctx, ledger.ReassignSpec{Contract: cid, Target: other.ID}); err != nil {
		t.Fatal(err)
	}
	end, _, err := e.net.Watermark(ctx, e.sv)
	if err != nil {
		t.Fatal(err)
	}
	c := e.client(nil)
	if _, err := c.Now(ctx); err != nil {
		t.Fatalf("Now: %v", err)
	}
	b, err := c.Read(ctx, end-2, 100)
	if err != nil {
		t.Fatal(err)
	}
	if b.End != end || b.Checkpoint.Offset < end {
		t.Errorf("Read after the tap: end %d, checkpoint at %d; want end %d with its checkpoint", b.End, b.Checkpoint.Offset, end)
	}
	if diff := cmp.Diff(e.want(t, end-2, end), b.Updates, cmpOpts); diff != "" || len(b.Updates) != 2 {
		t.Errorf("Read after the tap: %d updates, want the unassignment and the assignment (-want +got):\n%s", len(b.Updates), diff)
	}
}

// After reassignments (of a DSO contract to another synchronizer and
// back) and a hard migration with transactions after it, the client with
// the admin API reads what the in-process source reads, batch by batch
// boundaries aside: the same updates (as far as the wire carries them;
// see wireUpdate), each with the migration id it has in process, and a
// last checkpoint with the same offset, time and migration. Without the
// admin API every update has Config.MigrationID, and checkpoints
// migration 0.
func TestReadAfterReassignmentsAndMigration(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	alice, _ := e.seeded.User("alice")
	cid, err := splice.TapFor(ctx, e.net, e.seeded, "alice", alice.Party, daml.MustNumeric("5.0"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.net.AddSynchronizer(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []ledger.SynchronizerID{other.ID, e.seeded.Synchronizer} {
		if _, _, err := e.net.Reassign(ctx, ledger.ReassignSpec{Contract: cid, Target: target, WorkflowID: "move"}); err != nil {
			t.Fatal(err)
		}
	}
	e.tap(t)
	if _, err := e.net.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	e.tap(t)
	e.tap(t)

	// What the in-process source reads, in one pass.
	src := &scan.NetworkSource{Network: e.net, Participant: e.sv, DSO: e.dso}
	var (
		want   []scan.Update
		wantCP scan.Checkpoint
	)
	for after := ledger.Offset(0); ; {
		b, err := src.Read(ctx, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range b.Updates {
			want = append(want, wireUpdate(u, e.dso))
		}
		after = b.End
		if b.Checkpoint.RecordTime != 0 {
			wantCP = b.Checkpoint
			break
		}
	}
	var kinds [3]int // reassignments, migration 0 transactions, migration 1 transactions
	for _, u := range want {
		switch {
		case u.Reassignment != nil:
			kinds[0]++
		case u.MigrationID() == 0:
			kinds[1]++
		default:
			kinds[2]++
		}
	}
	if kinds[0] != 4 || kinds[1] == 0 || kinds[2] < 2 || wantCP.Migration != 1 {
		t.Fatalf("the in-process source reads %d reassignments, %d and %d transactions of migrations 0 and 1, and a checkpoint of migration %d; want 4, some, 2 or more, and 1",
			kinds[0], kinds[1], kinds[2], wantCP.Migration)
	}
	// Without the admin API: every update of Config.MigrationID.
	fixed := func(ups []scan.Update, id int64) []scan.Update {
		var out []scan.Update
		for _, u := range ups {
			u = wireUpdate(u, e.dso) // a deep enough copy to retag
			if r := u.Reassignment; r != nil {
				r.MigrationID, r.Contract.MigrationID = id, id
			} else {
				tx := *u.Transaction
				tx.Events = slices.Clone(tx.Events)
				tx.MigrationID = id
				for i := range tx.Events {
					if c := tx.Events[i].Created; c != nil {
						cc := *c
						cc.MigrationID = id
						tx.Events[i].Created = &cc
					}
				}
				u.Transaction = &tx
				u.Created, u.Archived = ledgerclient.DSOView(&tx, e.dso)
			}
			out = append(out, u)
		}
		return out
	}

	for _, tc := range []struct {
		name      string
		admin     bool
		limit     int
		migration int64 // Config.MigrationID
		want      []scan.Update
		wantCP    scan.Checkpoint
	}{
		{"admin API, pages of 1", true, 1, 0, want, wantCP},
		{"admin API, pages of 3", true, 3, 0, want, wantCP},
		{"admin API, one page", true, 1000, 0, want, wantCP},
		{"no admin API", false, 1000, 7, fixed(want, 7), scan.Checkpoint{Offset: wantCP.Offset, RecordTime: wantCP.RecordTime}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := e.client(func(cfg *ledgerclient.Config) {
				cfg.MigrationID = tc.migration
				if tc.admin {
					cfg.AdminURL = e.srv.URL
				}
			})
			got, last := readToCheckpoint(t, c, tc.limit, nil)
			if diff := cmp.Diff(tc.want, got, cmpOpts); diff != "" {
				t.Errorf("updates differ from the in-process source's (-want +got):\n%s", diff)
			}
			for i := range min(len(got), len(tc.want)) {
				if g, w := got[i].MigrationID(), tc.want[i].MigrationID(); g != w {
					t.Errorf("update %d at %d: migration %d, want %d", i, got[i].Offset, g, w)
				}
			}
			if last.Checkpoint != tc.wantCP {
				t.Errorf("last checkpoint %+v, want %+v", last.Checkpoint, tc.wantCP)
			}
		})
	}
}

// readToCheckpoint reads the source from the start, batches of at most
// limit, up to the batch that carries a checkpoint (the end), checking
// each batch with check when it is set. It returns the updates read and
// the last batch.
func readToCheckpoint(t *testing.T, c *ledgerclient.Client, limit int, check func(after ledger.Offset, b scan.Batch)) ([]scan.Update, scan.Batch) {
	t.Helper()
	var (
		got   []scan.Update
		after ledger.Offset
		last  scan.Batch
	)
	for range 1000 {
		b, err := c.Read(context.Background(), after, limit)
		if err != nil {
			t.Fatal(err)
		}
		if check != nil {
			check(after, b)
		}
		got = append(got, b.Updates...)
		after, last = b.End, b
		if b.Checkpoint.RecordTime != 0 {
			break
		}
	}
	return got, last
}
