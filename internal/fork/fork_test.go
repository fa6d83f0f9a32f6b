package fork_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/fork"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/scanclient"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/testnet"
)

const (
	fakeDSO = "DSO::1220aa"
	fakeSV  = "sv::1220bb"
)

// fakeScan serves the endpoints Read uses, from canned answers.
type fakeScan struct {
	dso, dsoInDsoInfo string
	// migrations is how many migrations (0, 1, …) migration-info knows.
	migrations int64
	// snapshots maps a migration to its latest snapshot's record time.
	snapshots map[int64]string
	// pages are the snapshot's pages, in order.
	pages [][]*scanclient.AcsContract
}

func (f *fakeScan) server(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /api/scan/v0/dso-party-id", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, map[string]string{"dso_party_id": f.dso})
	})
	mux.HandleFunc("GET /api/scan/v0/dso", func(w http.ResponseWriter, r *http.Request) {
		dso := f.dsoInDsoInfo
		if dso == "" {
			dso = f.dso
		}
		write(w, 200, map[string]any{"dso_party_id": dso, "sv_party_id": fakeSV, "sv_user": "participant_admin"})
	})
	mux.HandleFunc("POST /api/scan/v0/backfilling/migration-info", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			MigrationID int64 `json:"migration_id"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.MigrationID >= f.migrations {
			write(w, 404, map[string]string{"error": "unknown migration"})
			return
		}
		write(w, 200, map[string]any{"record_time_range": []any{}, "complete": true})
	})
	mux.HandleFunc("GET /api/scan/v0/state/acs/snapshot-timestamp", func(w http.ResponseWriter, r *http.Request) {
		var m int64
		fmt.Sscan(r.URL.Query().Get("migration_id"), &m)
		t, ok := f.snapshots[m]
		if !ok {
			write(w, 404, map[string]string{"error": "No snapshots found"})
			return
		}
		write(w, 200, map[string]string{"record_time": t})
	})
	mux.HandleFunc("POST /api/scan/v2/state/acs", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			After string `json:"after"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		i := 0
		if req.After != "" {
			fmt.Sscanf(req.After, "page-%d", &i)
		}
		resp := map[string]any{"record_time": "", "migration_id": 0, "created_events": f.pages[i]}
		if i+1 < len(f.pages) {
			resp["next_page_token"] = fmt.Sprintf("page-%d", i+1)
		}
		write(w, 200, resp)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func client(t *testing.T, url string) *scanclient.Client {
	t.Helper()
	c, err := scanclient.New(scanclient.Config{URLs: []string{url}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func acsContract(id, template string) *scanclient.AcsContract {
	return &scanclient.AcsContract{
		ContractID: id, TemplateID: template, CreateArguments: json.RawMessage(`{}`),
		CreatedAt: "2026-01-05T09:00:00Z", Signatories: []string{fakeDSO}, Observers: []string{},
	}
}

// TestForkRead reads fake Scans: the latest migration with a snapshot, every
// page, and the refusals.
func TestForkRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		scan          fakeScan
		wantKind      fault.Kind // when set, Read must fail with it
		wantErr       bool
		wantMigration int64
		wantTime      string
		wantContracts []string
	}{
		{
			name: "one migration, one page",
			scan: fakeScan{dso: fakeDSO, migrations: 1, snapshots: map[int64]string{0: "2026-01-05T09:00:00Z"},
				pages: [][]*scanclient.AcsContract{{acsContract("c1", "p:M:E")}}},
			wantMigration: 0, wantTime: "2026-01-05T09:00:00Z", wantContracts: []string{"c1"},
		},
		{
			name: "several pages",
			scan: fakeScan{dso: fakeDSO, migrations: 1, snapshots: map[int64]string{0: "2026-01-05T09:00:00Z"},
				pages: [][]*scanclient.AcsContract{{acsContract("c1", "p:M:E"), acsContract("c2", "p:M:E")}, {acsContract("c3", "p:M:E")}, {}}},
			wantMigration: 0, wantTime: "2026-01-05T09:00:00Z", wantContracts: []string{"c1", "c2", "c3"},
		},
		{
			name: "the latest migration with a snapshot",
			scan: fakeScan{dso: fakeDSO, migrations: 3, snapshots: map[int64]string{0: "2026-01-05T06:00:00Z", 1: "2026-01-05T09:00:00Z"},
				pages: [][]*scanclient.AcsContract{{acsContract("c1", "p:M:E")}}},
			wantMigration: 1, wantTime: "2026-01-05T09:00:00Z", wantContracts: []string{"c1"},
		},
		{
			name:     "no snapshot",
			scan:     fakeScan{dso: fakeDSO, migrations: 1, snapshots: map[int64]string{}},
			wantKind: fault.FailedPrecondition, wantErr: true,
		},
		{
			name:     "no migration",
			scan:     fakeScan{dso: fakeDSO, migrations: 0},
			wantKind: fault.FailedPrecondition, wantErr: true,
		},
		{
			name:     "two DSO parties",
			scan:     fakeScan{dso: fakeDSO, dsoInDsoInfo: "OTHER::1220cc", migrations: 1, snapshots: map[int64]string{0: "2026-01-05T09:00:00Z"}},
			wantKind: fault.FailedPrecondition, wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := tc.scan.server(t)
			src, err := fork.Read(context.Background(), client(t, s.URL+"/api/scan"), 2)
			if tc.wantErr {
				if !fault.Is(err, tc.wantKind) {
					t.Fatalf("Read: %v; want a %v", err, tc.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if src.DSO != fakeDSO || src.SV != fakeSV || src.Migration != tc.wantMigration || src.RecordTime.String() != tc.wantTime {
				t.Errorf("Read = DSO %s, SV %s, migration %d at %s; want %s, %s, %d at %s",
					src.DSO, src.SV, src.Migration, src.RecordTime, fakeDSO, fakeSV, tc.wantMigration, tc.wantTime)
			}
			var got []string
			for _, c := range src.Contracts {
				got = append(got, c.ContractID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.wantContracts) {
				t.Errorf("contracts = %v; want %v", got, tc.wantContracts)
			}
		})
	}
}

// TestForkCheckPackages names what sandnet cannot run, and accepts what it
// can.
func TestForkCheckPackages(t *testing.T) {
	t.Parallel()
	reg := splice.NewRegistry()
	amulet := splice.Amulet{}.TemplateID().Identifier
	known := amulet.String()
	otherOfKnown := amulet.PackageID + ":Splice.Amulet:NoSuchThing"
	const unknownPkg = "deadbeef00000000000000000000000000000000000000000000000000000000"
	tests := []struct {
		name      string
		templates []string
		want      []string // substrings of the error; none: accepted
	}{
		{"known", []string{known, known}, nil},
		{"unknown package", []string{known, unknownPkg + ":Acme.Token:Token", unknownPkg + ":Acme.Token:Lock"},
			[]string{unknownPkg + " (templates Acme.Token:Lock, Acme.Token:Token)", "sandnet supports: ", "splice-amulet " + amulet.PackageID}},
		{"unknown template of a known package", []string{otherOfKnown}, []string{"unknown templates of known packages: " + otherOfKnown}},
		{"malformed template id", []string{"nocolons"}, []string{"malformed template id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs []*scanclient.AcsContract
			for i, tmpl := range tc.templates {
				cs = append(cs, acsContract(fmt.Sprint("c", i), tmpl))
			}
			err := fork.CheckPackages(reg, cs)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("CheckPackages: %v", err)
				}
				return
			}
			if !fault.Is(err, fault.FailedPrecondition) {
				t.Fatalf("CheckPackages: %v; want a FailedPrecondition", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckPackages: %q; want it to say %q", err, w)
				}
			}
		})
	}
}

// emptyNetwork opens a network with the given seed on a fresh SQLite
// ledger, with the wall clock when wall is nil.
func emptyNetwork(t *testing.T, seed string, wall func() time.Time) *ledger.Network {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: seed, Wall: wall})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	return net
}

// TestForkRefusesUnknownPackage forks a Scan whose snapshot has one
// contract of a package sandnet does not know: Prepare fails, naming it,
// before anything local exists.
func TestForkRefusesUnknownPackage(t *testing.T) {
	t.Parallel()
	const pkg = "0badc0de00000000000000000000000000000000000000000000000000000000"
	f := fakeScan{dso: fakeDSO, migrations: 1, snapshots: map[int64]string{0: "2026-01-05T09:00:00Z"},
		pages: [][]*scanclient.AcsContract{{acsContract("c1", pkg+":Acme.Token:Token")}}}
	s := f.server(t)
	_, _, err := fork.Prepare(context.Background(), client(t, s.URL+"/api/scan"), splice.NewRegistry())
	if !fault.Is(err, fault.FailedPrecondition) || !strings.Contains(err.Error(), pkg+" (templates Acme.Token:Token)") {
		t.Fatalf("Prepare: %v; want a refusal naming package %s and its template", err, pkg)
	}
}

// TestFork forks a seeded network through its Scan API: every contract
// of the snapshot is active in the fork with its id, payload, parties and
// creation time; the SVs and the DSO keep their parties and are hosted on
// one participant per SV; every other stakeholder is hosted on the
// validator; the local users have their own parties, wallets and coin;
// and the description is stored for restarts. Forking again refuses. A
// local wall clock behind the snapshot (a source whose clock was
// advanced) is moved past it.
func TestFork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		wall func() time.Time // nil: the wall clock, months after the source's
	}{
		{"wall clock after the snapshot", nil},
		{"wall clock before the snapshot", func() time.Time { return testnet.Epoch.Add(-time.Hour) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testFork(t, tc.wall)
		})
	}
}

func testFork(t *testing.T, wall func() time.Time) {
	ctx := context.Background()
	source := testnet.Seed(t)
	if _, err := source.Ingester.Step(ctx); err != nil {
		t.Fatal(err)
	}
	snapshots := &scan.Snapshotter{Store: source.ScanStore}
	if _, err := snapshots.TakeNow(ctx); err != nil {
		t.Fatal(err)
	}
	srv := source.ScanServer(t)
	c := client(t, srv.URL+scanapi.Prefix)
	src, contracts, err := fork.Prepare(ctx, c, splice.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	// The source's seed is "test": the fork's is its own.
	seed := fork.NetworkSeed("test", src)
	net := emptyNetwork(t, seed, wall)
	seeded, err := fork.Build(ctx, net, src, contracts, fork.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if now := net.Clock().Now(); now <= src.RecordTime {
		t.Errorf("the fork's clock %s is not past the snapshot %s", now, src.RecordTime)
	}
	if len(src.Contracts) == 0 {
		t.Fatal("the source's snapshot is empty")
	}
	if seeded.DSOParty != source.Seeded.DSOParty || seeded.Synchronizer != source.Seeded.Synchronizer {
		t.Errorf("fork DSO %s on %s; want the source's %s on %s", seeded.DSOParty, seeded.Synchronizer, source.Seeded.DSOParty, source.Seeded.Synchronizer)
	}
	if len(seeded.SVs) != len(source.Seeded.SVs) {
		t.Fatalf("fork has %d SVs; want %d", len(seeded.SVs), len(source.Seeded.SVs))
	}
	for k, sv := range seeded.SVs {
		want := source.Seeded.SVs[k]
		if sv.Party != want.Party || sv.Name != want.Name || sv.ParticipantName != fmt.Sprintf("sv-%d", k+1) {
			t.Errorf("fork SV %d = %s (%s) on %s; want %s (%s) on sv-%d", k+1, sv.Party, sv.Name, sv.ParticipantName, want.Party, want.Name, k+1)
		}
		if !hosted(net, seeded.DSOParty, sv.Participant) || !hosted(net, sv.Party, sv.Participant) {
			t.Errorf("SV %d's participant does not host the DSO and the SV party", k+1)
		}
	}
	for _, c := range src.Contracts {
		got, active, err := net.Store().Contract(ctx, daml.ContractID(c.ContractID))
		if err != nil || !active {
			t.Errorf("source contract %s (%s) in the fork: active=%v, %v", c.ContractID, c.TemplateID, active, err)
			continue
		}
		// The very value the source holds, type ids and all.
		if orig, _, err := source.Network.Store().Contract(ctx, got.ID); err != nil || !daml.Equal(orig.Argument, got.Argument) {
			t.Errorf("contract %s (%s) in the fork differs from the source's: %v", got.ID, c.TemplateID, err)
		}
		payload, err := daml.CompactJSON.Encode(got.Argument)
		if err != nil {
			t.Fatal(err)
		}
		if got.Template.Identifier.String() != c.TemplateID || string(payload) != string(c.CreateArguments) || got.CreatedAt.String() != c.CreatedAt {
			t.Errorf("contract %s in the fork: %s created %s with %s; want %s created %s with %s",
				c.ContractID, got.Template.Identifier, got.CreatedAt, payload, c.TemplateID, c.CreatedAt, c.CreateArguments)
		}
		if got.CreatedBy == "" {
			continue
		}
		tx, err := net.Store().Transaction(ctx, got.CreatedBy)
		if err != nil || tx.WorkflowID != ledger.ForkImportWorkflowID {
			t.Errorf("contract %s was created by %v (%v); want an import transaction", c.ContractID, tx, err)
		}
		for _, p := range got.Stakeholders() {
			if len(net.HostingsOf(p)) == 0 {
				t.Errorf("stakeholder %s of %s is hosted nowhere", p, c.ContractID)
			}
		}
	}
	// The source's users are hosted on the local validator, under their
	// own ids; the fork's users are new parties.
	for _, name := range []string{"alice", "bob"} {
		theirs := source.Party(name)
		if !hosted(net, theirs, seeded.Validator.Participant) {
			t.Errorf("the source's %s (%s) is not hosted on the validator", name, theirs)
		}
		mine, ok := seeded.User(name)
		if !ok || mine.Party == theirs {
			t.Errorf("fork user %s = %+v; want a party of its own", name, mine)
		}
		coins, err := splice.Holdings(ctx, net.Store(), mine.Party)
		if err != nil || len(coins) == 0 {
			t.Errorf("fork user %s has %d coins (%v); want the tap's", name, len(coins), err)
		}
	}
	if seeded.Validator.Party == source.Seeded.Validator.Party {
		t.Errorf("the fork's validator operator is the source's %s", seeded.Validator.Party)
	}
	raw, ok, err := net.Store().Meta(ctx, splice.SeededMetaKey)
	if err != nil || !ok {
		t.Fatalf("the fork stored no description: %v", err)
	}
	var stored splice.Seeded
	if err := json.Unmarshal([]byte(raw), &stored); err != nil || stored.DSOParty != seeded.DSOParty {
		t.Errorf("stored description %s: %v", raw, err)
	}
	if origin, ok, err := fork.StoredOrigin(ctx, net.Store()); err != nil || !ok || origin.Seed != seed || origin.Contracts != len(contracts) {
		t.Errorf("stored origin %+v, %v, %v; want seed %q and %d contracts", origin, ok, err, seed, len(contracts))
	}
	if _, err := fork.Build(ctx, net, src, contracts, fork.Config{}); !fault.Is(err, fault.FailedPrecondition) {
		t.Errorf("a second fork into the same ledger: %v; want a FailedPrecondition", err)
	}
}

func hosted(net *ledger.Network, p daml.Party, on ledger.ParticipantID) bool {
	for _, h := range net.HostingsOf(p) {
		if h.Participant == on {
			return true
		}
	}
	return false
}
