package scan_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// servicePeers are peers in this process: each a Scan's Service, answering
// as the HTTP endpoints do (no offsets, no effects). An answer counts when
// f+1 of them give it, compared on their encodings, as scanclient's BFT
// reads compare the peers' JSON.
type servicePeers struct {
	peers []*scan.Service
	// tamper, when set, alters what a peer answers.
	tamper func(peer int, ups []scan.Update) []scan.Update
}

func (p *servicePeers) agree(answers []string, vals []any) (any, error) {
	need := (len(p.peers)-1)/3 + 1
	count := map[string]int{}
	for i, a := range answers {
		if count[a]++; count[a] >= need {
			return vals[i], nil
		}
	}
	return nil, fault.New(fault.Unavailable, "no %d of %d peers agree", need, len(p.peers))
}

func (p *servicePeers) MigrationInfo(ctx context.Context, m int64) (scan.PeerMigration, error) {
	var keys []string
	var vals []any
	for _, s := range p.peers {
		info, err := s.MigrationInfo(ctx, m)
		if err != nil {
			keys, vals = append(keys, "err "+err.Error()), append(vals, err)
			continue
		}
		pm := scan.PeerMigration{Previous: info.Previous, LastImportUpdateID: info.LastImportUpdateID, Complete: info.Complete,
			Mins: map[ledger.SynchronizerID]daml.Timestamp{}}
		for _, r := range info.Ranges {
			pm.Mins[r.Synchronizer] = r.Min
		}
		prev := int64(-1)
		if pm.Previous != nil {
			prev = *pm.Previous
		}
		keys, vals = append(keys, fmt.Sprint(prev, pm.Mins, pm.LastImportUpdateID, pm.Complete)), append(vals, pm)
	}
	v, err := p.agree(keys, vals)
	if err != nil {
		return scan.PeerMigration{}, err
	}
	if err, ok := v.(error); ok {
		return scan.PeerMigration{}, err
	}
	return v.(scan.PeerMigration), nil
}

func (p *servicePeers) updates(read func(s *scan.Service) ([]scan.Update, error)) ([]scan.Update, error) {
	var keys []string
	var vals []any
	for i, s := range p.peers {
		ups, err := read(s)
		if err != nil {
			keys, vals = append(keys, "err "+err.Error()), append(vals, err)
			continue
		}
		for j := range ups {
			ups[j].Offset, ups[j].Created, ups[j].Archived = 0, nil, nil
		}
		if p.tamper != nil {
			ups = p.tamper(i, ups)
		}
		key := ""
		for _, u := range ups {
			key += encodeUpdate(u) + "|"
		}
		keys, vals = append(keys, key), append(vals, ups)
	}
	v, err := p.agree(keys, vals)
	if err != nil {
		return nil, err
	}
	if err, ok := v.(error); ok {
		return nil, err
	}
	return v.([]scan.Update), nil
}

func (p *servicePeers) UpdatesBefore(ctx context.Context, q scan.BeforeQuery) ([]scan.Update, error) {
	return p.updates(func(s *scan.Service) ([]scan.Update, error) { return s.UpdatesBefore(ctx, q) })
}

func (p *servicePeers) ImportUpdates(ctx context.Context, m int64, after string, limit int) ([]scan.Update, error) {
	return p.updates(func(s *scan.Service) ([]scan.Update, error) { return s.ImportUpdates(ctx, m, after, int64(limit)) })
}

// encodeUpdate renders an update for comparison: its kind, migration and
// encoded body (offsets differ between SVs' participants).
func encodeUpdate(u scan.Update) string {
	if u.Reassignment != nil {
		b, _ := ledger.EncodeReassignment(u.Reassignment)
		return fmt.Sprintf("r %x", b)
	}
	b, _ := ledger.EncodeTransaction(u.Transaction)
	return fmt.Sprintf("t %v %x", u.Import, b)
}

// svScan is an SV's Scan in a test: its store and ingester over its own
// participant.
type svScan struct {
	store scan.Store
	ing   *scan.Ingester
}

func newSVScan(t *testing.T, e *env, sv splice.SeededSV) *svScan {
	t.Helper()
	st, err := sqlitestore.OpenScan(context.Background(), filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	src := &scan.NetworkSource{Network: e.net, Participant: sv.Participant, DSO: e.seeded.DSOParty}
	return &svScan{store: st, ing: &scan.Ingester{Source: src, Store: st, BatchSize: 16, DSO: e.seeded.DSOParty, SV: sv.Party}}
}

func (s *svScan) step(t *testing.T) {
	t.Helper()
	if _, err := s.ing.Step(context.Background()); err != nil {
		t.Fatalf("ingest: %v", err)
	}
}

// activity taps for alice and bob, and moves an amulet to another
// synchronizer and back: transactions and reassignments.
func activity(t *testing.T, e *env, other ledger.SynchronizerID, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		u := e.seeded.Users[i%len(e.seeded.Users)]
		cid, err := splice.TapFor(ctx, e.net, e.seeded, u.Name, u.Party, daml.MustNumeric("3.0"))
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, _, err := e.net.Reassign(ctx, ledger.ReassignSpec{Contract: cid, Target: other, Submitter: u.Party}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestLateSVBackfillsFromPeers adds an SV to a network with history in two
// migrations; its Scan starts at its joining transaction, answers 503
// until it has backfilled the rest from its peers, and then holds the
// same history, import updates, contracts and snapshots as they do.
func TestLateSVBackfillsFromPeers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	peers := []*svScan{}
	for _, sv := range e.seeded.SVs[:3] {
		peers = append(peers, newSVScan(t, e, sv))
	}
	other, err := e.net.AddSynchronizer(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	activity(t, e, other.ID, 6)
	if _, err := e.net.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	activity(t, e, other.ID, 4)
	for _, p := range peers {
		p.step(t)
	}

	seeded, sv5, err := splice.AddSV(ctx, e.net, e.seeded)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeded.SVs) != 5 || len(e.seeded.SVs) != 4 {
		t.Fatalf("AddSV: %d SVs after, %d in the original description", len(seeded.SVs), len(e.seeded.SVs))
	}
	late := newSVScan(t, e, sv5)
	activity(t, e, other.ID, 3)
	late.step(t)
	svc := &scan.Service{Store: late.store}
	if bf, err := late.store.Backfilling(ctx); err != nil || bf.Complete || bf.ImportUpdatesComplete {
		t.Fatalf("backfilling state of the late Scan = %+v, %v; want incomplete", bf, err)
	}
	if _, err := svc.History(ctx, nil, 10, false); !fault.Is(err, fault.Unavailable) {
		t.Fatalf("v2 updates while backfilling: %v; want Unavailable", err)
	}
	first, err := late.store.History(ctx, scan.HistoryQuery{Limit: 1})
	if err != nil || len(first) != 1 {
		t.Fatalf("the late Scan's first update: %v (%d)", err, len(first))
	}
	if ch := first[0].Transaction.Event(first[0].Transaction.Roots[0]).Exercised; ch == nil || ch.Choice != "DsoRules_AddConfirmedSv" {
		t.Fatalf("the late Scan's history starts with %+v; want its joining transaction", first[0].Transaction)
	}

	sps := &servicePeers{}
	for _, p := range peers {
		sps.peers = append(sps.peers, &scan.Service{Store: p.store})
	}
	b := &scan.Backfiller{Store: late.store, Peers: sps, DSO: e.seeded.DSOParty, Batch: 7}
	for i := 0; ; i++ {
		st, err := b.Step(ctx)
		if fault.Is(err, fault.NotFound) || fault.Is(err, fault.Unavailable) {
			// The peers have not ingested as far as the late Scan yet
			// (a migration's imports, say): Run would retry, and so does
			// the test once they have.
			for _, p := range peers {
				p.step(t)
			}
			if st, err = b.Step(ctx); err != nil {
				t.Fatalf("backfill step %d, after the peers caught up: %v", i, err)
			}
		} else if err != nil {
			t.Fatalf("backfill step %d: %v", i, err)
		}
		if st.Done {
			break
		}
		if i%5 == 0 { // live ingestion goes on meanwhile, into migration 2
			if i == 10 {
				if _, err := e.net.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
			}
			activity(t, e, other.ID, 1)
			late.step(t)
			for _, p := range peers {
				p.step(t)
			}
		}
		if i > 10_000 {
			t.Fatal("backfilling does not end")
		}
	}
	activity(t, e, other.ID, 1)
	late.step(t)
	for _, p := range peers {
		p.step(t)
	}
	sameScans(t, peers[0].store, late.store)
	if _, err := svc.History(ctx, nil, 10, false); err != nil {
		t.Errorf("v2 updates once complete: %v", err)
	}
}

// sameScans checks that two Scans hold the same history, import updates,
// migrations, contracts and snapshots.
func sameScans(t *testing.T, want, got scan.Store) {
	t.Helper()
	ctx := context.Background()
	all := func(s scan.Store) []string {
		ups, err := s.History(ctx, scan.HistoryQuery{Limit: 1 << 20, Imports: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, u := range ups {
			out = append(out, encodeUpdate(u))
		}
		return out
	}
	if diff := cmp.Diff(all(want), all(got)); diff != "" {
		t.Errorf("history with imports (-peer +late):\n%s", diff)
	}
	wm, err := want.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := got.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wm, gm); diff != "" {
		t.Errorf("migrations (-peer +late):\n%s", diff)
	}
	ids := func(s scan.Store) []daml.ContractID {
		cs, err := s.ActiveContracts(ctx, scan.ContractQuery{})
		if err != nil {
			t.Fatal(err)
		}
		var out []daml.ContractID
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	if diff := cmp.Diff(ids(want), ids(got)); diff != "" {
		t.Errorf("active contracts (-peer +late):\n%s", diff)
	}
	for _, m := range wm {
		if len(m.Ranges) == 0 {
			continue
		}
		at := m.Ranges[0].Max
		rows := func(s scan.Store) []string {
			snap, err := s.BuildSnapshot(ctx, m.ID, at, 5)
			if err != nil {
				t.Fatal(err)
			}
			page, err := s.SnapshotPage(ctx, scan.SnapshotQuery{Snapshot: snap, Limit: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range page {
				b, _ := ledger.EncodeContract(r.Contract)
				out = append(out, fmt.Sprintf("%v %s created %s mig %d sync %.20s counter %d %x", r.Imported, r.Contract.ID[:8], r.Contract.CreatedBy, r.Contract.MigrationID, r.Contract.Synchronizer, r.Contract.ReassignmentCounter, b))
			}
			return out
		}
		if diff := cmp.Diff(rows(want), rows(got)); diff != "" {
			t.Errorf("snapshot of migration %d at %s (-peer +late):\n%s", m.ID, at, diff)
		}
	}
}
