package scanclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/scanclient"
)

func newPeers(t *testing.T, urls []string) *scanclient.Peers {
	t.Helper()
	p, err := scanclient.NewPeers(scanclient.Config{URLs: urls, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("NewPeers: %v", err)
	}
	return p
}

// peerReads are the answers to one of each of the Peers' reads.
type peerReads struct {
	info       scan.PeerMigration
	infoErr    error
	before     []scan.Update
	beforeErr  error
	imports    []scan.Update
	importsErr error
}

// readAll asks the peers for migration 1's info, for the first updates
// of migration 0 on the global synchronizer, and for migration 1's first
// import updates.
func readAll(ctx context.Context, h *historyEnv, p scan.Peers) peerReads {
	var r peerReads
	r.info, r.infoErr = p.MigrationInfo(ctx, 1)
	r.before, r.beforeErr = p.UpdatesBefore(ctx, scan.BeforeQuery{Migration: 0, Synchronizer: h.Seeded.Synchronizer, Before: daml.MaxTimestamp, Limit: 20})
	r.imports, r.importsErr = p.ImportUpdates(ctx, 1, "", 20)
	return r
}

func (r peerReads) errs() map[string]error {
	return map[string]error{"MigrationInfo": r.infoErr, "UpdatesBefore": r.beforeErr, "ImportUpdates": r.importsErr}
}

// slowScan answers like h's Scan, but only after a long sleep: unless the
// client gives up first.
func slowScan(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server notices that the client went away only once the
		// request's body has been read.
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		select {
		case <-r.Context().Done():
			return
		case <-time.After(30 * time.Second):
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s.URL + scanapi.Prefix
}

// shiftMax is a rewrite that moves the max of migration-info's ranges to
// max, as a Scan that has ingested further (or less far) would answer.
func shiftMax(max string) rewrite {
	return func(path string, status int, body []byte) (int, []byte) {
		if !strings.HasSuffix(path, "/migration-info") || status != http.StatusOK {
			return status, body
		}
		var info scanapi.MigrationInfoResponse
		if err := json.Unmarshal(body, &info); err != nil {
			return http.StatusInternalServerError, body
		}
		for i := range info.RecordTimeRange {
			info.RecordTimeRange[i].Max = max
		}
		b, _ := json.Marshal(info)
		return status, b
	}
}

// TestPeersBFT runs the Peers' reads against sets of peers of which some
// lie, are slow or are down: the honest answer wins as long as f+1 agree
// on it and no other answer has as many votes; otherwise every read fails
// Unavailable, saying how many answered and how many must agree.
func TestPeersBFT(t *testing.T) {
	t.Parallel()
	h := history(t)
	sync := string(h.Seeded.Synchronizer)
	type peer = func(t *testing.T) string
	honest := func(t *testing.T) string { return serve(t, h.ScanHandler, nil).url() }
	// A liar alters every answer: the synchronizer id is in migration 1's
	// range and in every item read.
	liar := func(evil string) peer {
		return func(t *testing.T) string { return serve(t, h.ScanHandler, replace("", sync, evil)).url() }
	}
	slow := func(t *testing.T) string { return slowScan(t, h.ScanHandler) }
	down := func(t *testing.T) string { return deadURL(t) }
	ahead := func(max string) peer {
		return func(t *testing.T) string { return serve(t, h.ScanHandler, shiftMax(max)).url() }
	}
	failing := func(t *testing.T) string {
		return serve(t, h.ScanHandler, fixed(http.StatusServiceUnavailable, `{"error":"not ready"}`)).url()
	}

	want := readAll(context.Background(), h, newPeers(t, []string{honest(t)}))
	for name, err := range want.errs() {
		if err != nil {
			t.Fatalf("%s from one honest peer: %v", name, err)
		}
	}
	if want.info.Previous == nil || *want.info.Previous != 0 || want.info.LastImportUpdateID == "" || len(want.info.Mins) != 1 ||
		len(want.before) == 0 || len(want.imports) != 20 {
		t.Fatalf("one honest peer's answers: %+v, %d updates, %d imports", want.info, len(want.before), len(want.imports))
	}

	tests := []struct {
		name  string
		peers []peer
		// unavailable, when set, is the end of the Unavailable message
		// every read fails with; else every read gives want.
		unavailable string
	}{
		{"four honest", []peer{honest, honest, honest, honest}, ""},
		{"one liar of four", []peer{honest, liar("evil::1220ff"), honest, honest}, ""},
		// Only the winning answer is decoded: one that does not decode
		// is just outvoted.
		{"one undecodable liar of four", []peer{honest, honest, func(t *testing.T) string {
			return serve(t, h.ScanHandler, replace("", `"created_event"`, `"archived_event"`)).url()
		}, honest}, ""},
		{"liar first", []peer{liar("evil::1220ff"), honest, honest, honest}, ""},
		{"one slow of four", []peer{slow, honest, honest, honest}, ""},
		{"one down of four", []peer{honest, down, honest, honest}, ""},
		{"one failing of four", []peer{honest, honest, failing, honest}, ""},
		{"a liar and a down peer of four", []peer{honest, liar("evil::1220ff"), down, honest}, ""},
		{"peers ingested to different times", []peer{ahead("2027-01-01T00:00:00Z"), honest, ahead("2026-06-01T00:00:00Z"), ahead("2026-02-01T00:00:00.5Z")}, ""},
		{"one liar of three", []peer{honest, honest, liar("evil::1220ff")}, ""},
		{"two liars of three who disagree", []peer{honest, liar("evil::1220ff"), liar("other::1220ee")}, "3 answered, in 3 different ways; 1 must agree"},
		{"two against two", []peer{honest, liar("evil::1220ff"), honest, liar("evil::1220ff")}, "4 answered, in 2 different ways; 2 must agree"},
		// Decided once the failures leave too few to agree: with or
		// without the honest answer.
		{"one answer of four", []peer{honest, down, down, failing}, "different ways; 2 must agree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var urls []string
			for _, p := range tt.peers {
				urls = append(urls, p(t))
			}
			start := time.Now()
			got := readAll(context.Background(), h, newPeers(t, urls))
			// The slow peer sleeps 30s: the reads must not wait for it.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the reads took %s", d)
			}
			if tt.unavailable != "" {
				for name, err := range got.errs() {
					f, ok := fault.As(err)
					if !ok || f.Kind != fault.Unavailable || !strings.HasPrefix(f.Message, fmt.Sprintf("Failed to reach consensus from %d Scan nodes on ", len(urls))) ||
						!strings.HasSuffix(f.Message, tt.unavailable) {
						t.Errorf("%s: %v; want Unavailable ending %q", name, err, tt.unavailable)
					}
				}
				return
			}
			for name, err := range got.errs() {
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			if !reflect.DeepEqual(got.info, want.info) {
				t.Errorf("MigrationInfo = %+v, want %+v", got.info, want.info)
			}
			if !reflect.DeepEqual(got.before, want.before) {
				t.Errorf("UpdatesBefore = %d updates, differs from the honest peer's %d", len(got.before), len(want.before))
			}
			if !reflect.DeepEqual(got.imports, want.imports) {
				t.Errorf("ImportUpdates = %d updates, differs from the honest peer's %d", len(got.imports), len(want.imports))
			}
		})
	}
}

// TestPeersNotFound checks that peers agreeing they hold nothing of a
// migration make MigrationInfo fail NotFound with their message, even
// with one of them claiming otherwise.
func TestPeersNotFound(t *testing.T) {
	t.Parallel()
	h := history(t)
	tests := []struct {
		name string
		liar bool
	}{
		{"all say 404", false},
		{"one liar claims data", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var urls []string
			for range 3 {
				urls = append(urls, serve(t, h.ScanHandler, nil).url())
			}
			var rw rewrite
			if tt.liar {
				rw = fixed(http.StatusOK, `{"record_time_range":[{"synchronizer_id":"s::1","min":"2026-01-01T00:00:00Z","max":"2026-01-02T00:00:00Z"}],"complete":true,"import_updates_complete":true}`)
			}
			urls = append(urls, serve(t, h.ScanHandler, rw).url())
			_, err := newPeers(t, urls).MigrationInfo(context.Background(), 7)
			wantFault(t, err, fault.NotFound, "No data for migration 7")
		})
	}
}

// TestPeersRequests checks the requests the Peers send, and that a limit
// every Scan would refuse is refused without asking them.
func TestPeersRequests(t *testing.T) {
	t.Parallel()
	h := history(t)
	s := serve(t, h.ScanHandler, nil)
	p := newPeers(t, []string{s.url()})
	ctx := context.Background()
	at := daml.Timestamp(1_767_603_600_000_000)
	if _, err := p.UpdatesBefore(ctx, scan.BeforeQuery{Migration: 0, Synchronizer: h.Seeded.Synchronizer, Before: daml.MaxTimestamp, AtOrAfter: &at, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ImportUpdates(ctx, 1, "00ab", 5); err != nil {
		t.Fatal(err)
	}
	if _, err := p.MigrationInfo(ctx, 0); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/v0/backfilling/updates-before": fmt.Sprintf(`{"migration_id":0,"synchronizer_id":%q,"before":"9999-12-31T23:59:59.999999Z","at_or_after":"2026-01-05T09:00:00.000000Z","count":5}`, h.Seeded.Synchronizer),
		"/v0/backfilling/import-updates": `{"migration_id":1,"after_update_id":"00ab","limit":5}`,
		"/v0/backfilling/migration-info": `{"migration_id":0}`,
	} {
		if got := s.bodiesOf(path); len(got) != 1 || got[0] != want {
			t.Errorf("POST %s bodies %q, want %s", path, got, want)
		}
	}
	n := s.count()
	for _, limit := range []int{0, scan.MaxPageSize + 1} {
		_, err := p.UpdatesBefore(ctx, scan.BeforeQuery{Migration: 0, Synchronizer: h.Seeded.Synchronizer, Before: daml.MaxTimestamp, Limit: limit})
		if !fault.Is(err, fault.InvalidArgument) {
			t.Errorf("UpdatesBefore with limit %d: %v, want InvalidArgument", limit, err)
		}
		if _, err := p.ImportUpdates(ctx, 1, "", limit); !fault.Is(err, fault.InvalidArgument) {
			t.Errorf("ImportUpdates with limit %d: %v, want InvalidArgument", limit, err)
		}
	}
	if s.count() != n {
		t.Errorf("refused limits sent %d requests", s.count()-n)
	}
	if _, err := scanclient.NewPeers(scanclient.Config{}); !fault.Is(err, fault.InvalidArgument) {
		t.Errorf("NewPeers without URLs: %v, want InvalidArgument", err)
	}
}

// TestPeersUndecodable checks that an answer the peers agree on but that
// cannot be decoded fails Internal, not Unavailable: retrying cannot cure
// it.
func TestPeersUndecodable(t *testing.T) {
	t.Parallel()
	h := history(t)
	var urls []string
	for range 2 {
		urls = append(urls, serve(t, h.ScanHandler, replace("/import-updates", `"created_event"`, `"archived_event"`)).url())
	}
	_, err := newPeers(t, urls).ImportUpdates(context.Background(), 1, "", 3)
	if !fault.Is(err, fault.Internal) {
		t.Errorf("ImportUpdates = %v, want Internal", err)
	}
}
