package scanclient_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// rawGet is the Scan's own answer to GET path.
func rawGet(t *testing.T, e *env, path string) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	e.ScanHandler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://scan"+scanapi.Prefix+path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return bytes.TrimSpace(rec.Body.Bytes())
}

// activeOf returns the ledger's active contracts of T, sorted by sortKey.
func activeOf[T ledger.Template](t *testing.T, e *env, sortKey func(T) int64) []*ledger.Contract {
	t.Helper()
	cs, err := splice.Active[T](context.Background(), e.Network.Store(), e.Seeded.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(cs, func(a, b splice.Contract[T]) int { return cmp.Compare(sortKey(a.Payload), sortKey(b.Payload)) })
	out := make([]*ledger.Contract, len(cs))
	for i, c := range cs {
		out[i] = c.Contract
	}
	return out
}

func sameContracts(t *testing.T, what string, got, want []*ledger.Contract) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %s, want %s", what, describe(got), describe(want))
	}
	for i := range got {
		if !bytes.Equal(mustEncode(t, got[i]), mustEncode(t, want[i])) {
			t.Errorf("%s[%d]: got %s, want %s (blobs differ)", what, i, got[i].ID, want[i].ID)
		}
	}
}

// TestReadsEqualTheLedger checks every read against the ledger and the
// Scan's own answers.
func TestReadsEqualTheLedger(t *testing.T) {
	t.Parallel()
	e := shared(t)
	srv := serve(t, e.ScanHandler, nil)
	c := newClient(t, scanclient.Config{URLs: []string{srv.url() + "/"}, Registry: e.Network.Registry()})
	ctx := context.Background()
	alice := e.Party("alice")
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"dso party id", func(t *testing.T) {
			got, err := c.DSOPartyID(ctx)
			if err != nil || got != e.Seeded.DSOParty {
				t.Fatalf("DSOPartyID = %q, %v; want %q", got, err, e.Seeded.DSOParty)
			}
		}},
		{"amulet rules", func(t *testing.T) {
			got, err := c.AmuletRules(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := activeOf(t, e, func(splice.AmuletRules) int64 { return 0 })
			sameContracts(t, "amulet rules", []*ledger.Contract{got}, want)
		}},
		{"ans rules", func(t *testing.T) {
			got, err := c.AnsRules(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sameContracts(t, "ans rules", []*ledger.Contract{got}, activeOf(t, e, func(splice.AnsRules) int64 { return 0 }))
		}},
		{"rounds", func(t *testing.T) {
			open, issuing, err := c.OpenAndIssuingRounds(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(open) == 0 {
				t.Fatal("no open rounds")
			}
			sameContracts(t, "open", open, activeOf(t, e, func(r splice.OpenMiningRound) int64 { return r.Round.Number }))
			sameContracts(t, "issuing", issuing, activeOf(t, e, func(r splice.IssuingMiningRound) int64 { return r.Round.Number }))
		}},
		{"ans entries", func(t *testing.T) {
			got, err := c.AnsEntries(ctx, "", 100)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(scanclient.AnsEntriesResponse{Entries: got})
			if want := rawGet(t, e, "/v0/ans-entries?page_size=100"); !bytes.Equal(b, want) {
				t.Errorf("re-served entries differ:\n got %s\nwant %s", b, want)
			}
			if !slices.ContainsFunc(got, func(a scanclient.AnsEntry) bool { return a.Name == "alice.unverified.cns" && a.ContractID != "" }) {
				t.Errorf("no alice.unverified.cns in %+v", got)
			}
		}},
		{"ans entries by prefix", func(t *testing.T) {
			got, err := c.AnsEntries(ctx, "bob.", 10)
			if err != nil || len(got) != 1 || got[0].Name != "bob.unverified.cns" {
				t.Fatalf("AnsEntries(bob.) = %+v, %v", got, err)
			}
		}},
		{"ans entry by name", func(t *testing.T) {
			got, err := c.AnsEntryByName(ctx, "alice.unverified.cns")
			if err != nil || got.User != string(alice) {
				t.Fatalf("AnsEntryByName = %+v, %v", got, err)
			}
			b, _ := json.Marshal(scanclient.AnsEntryResponse{Entry: got})
			if want := rawGet(t, e, "/v0/ans-entries/by-name/alice.unverified.cns"); !bytes.Equal(b, want) {
				t.Errorf("re-served entry differs:\n got %s\nwant %s", b, want)
			}
		}},
		{"ans entry by party", func(t *testing.T) {
			got, err := c.AnsEntryByParty(ctx, alice)
			if err != nil || got.Name != "alice.unverified.cns" {
				t.Fatalf("AnsEntryByParty = %+v, %v", got, err)
			}
		}},
		{"dso entry has no contract id", func(t *testing.T) {
			got, err := c.AnsEntryByParty(ctx, e.Seeded.DSOParty)
			if err != nil || got.Name != "dso.cns" || got.ContractID != "" || got.ExpiresAt != "" {
				t.Fatalf("AnsEntryByParty(dso) = %+v, %v", got, err)
			}
			b, _ := json.Marshal(got)
			if strings.Contains(string(b), "contract_id") || strings.Contains(string(b), "expires_at") {
				t.Errorf("DSO entry JSON %s has contract_id or expires_at", b)
			}
		}},
		{"dso info", func(t *testing.T) {
			d, err := c.DsoInfo(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d.DsoPartyID != string(e.Seeded.DSOParty) || d.SvPartyID != string(e.Seeded.SVs[0].Party) {
				t.Errorf("dso info names %s / %s", d.DsoPartyID, d.SvPartyID)
			}
			if d.SynchronizerID() != e.Seeded.Synchronizer {
				t.Errorf("SynchronizerID = %s, want %s", d.SynchronizerID(), e.Seeded.Synchronizer)
			}
			rules, err := d.AmuletRules.Contract.Decode(e.Network.Registry())
			if err != nil {
				t.Fatal(err)
			}
			sameContracts(t, "dso amulet rules", []*ledger.Contract{rules}, activeOf(t, e, func(splice.AmuletRules) int64 { return 0 }))
			if len(d.SvNodeStates) != len(e.Seeded.SVs) {
				t.Errorf("%d node states, want %d", len(d.SvNodeStates), len(e.Seeded.SVs))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t)
		})
	}
}

// reads runs every read, for the tests of failures.
var reads = []struct {
	name string
	run  func(ctx context.Context, c *scanclient.Client) error
}{
	{"DSOPartyID", func(ctx context.Context, c *scanclient.Client) error { _, err := c.DSOPartyID(ctx); return err }},
	{"AmuletRules", func(ctx context.Context, c *scanclient.Client) error { _, err := c.AmuletRules(ctx); return err }},
	{"AnsRules", func(ctx context.Context, c *scanclient.Client) error { _, err := c.AnsRules(ctx); return err }},
	{"OpenAndIssuingRounds", func(ctx context.Context, c *scanclient.Client) error {
		_, _, err := c.OpenAndIssuingRounds(ctx)
		return err
	}},
	{"AnsEntries", func(ctx context.Context, c *scanclient.Client) error { _, err := c.AnsEntries(ctx, "", 10); return err }},
	{"AnsEntryByName", func(ctx context.Context, c *scanclient.Client) error {
		_, err := c.AnsEntryByName(ctx, "alice.unverified.cns")
		return err
	}},
	{"AnsEntryByParty", func(ctx context.Context, c *scanclient.Client) error {
		_, err := c.AnsEntryByParty(ctx, "dso::1220")
		return err
	}},
	{"DsoInfo", func(ctx context.Context, c *scanclient.Client) error { _, err := c.DsoInfo(ctx); return err }},
	{"FeaturedAppRight", func(ctx context.Context, c *scanclient.Client) error {
		_, err := c.FeaturedAppRight(ctx, "alice::1220")
		return err
	}},
	{"TransferPreapprovalByParty", func(ctx context.Context, c *scanclient.Client) error {
		_, err := c.TransferPreapprovalByParty(ctx, "alice::1220")
		return err
	}},
}

func wantFault(t *testing.T, err error, kind fault.Kind, msg string) {
	t.Helper()
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("err = %v (%T), want a %s fault", err, err, kind)
	}
	if f.Kind != kind || (msg != "" && f.Message != msg) {
		t.Fatalf("err = %s %q, want %s %q", f.Kind, f.Message, kind, msg)
	}
}

// TestScanErrors checks that the Scan's errors come back with their kind
// and message.
func TestScanErrors(t *testing.T) {
	t.Parallel()
	e := shared(t)
	srv := serve(t, e.ScanHandler, nil)
	c := newClient(t, scanclient.Config{URLs: []string{srv.url()}})
	ctx := context.Background()
	tests := []struct {
		name string
		run  func() error
		kind fault.Kind
		msg  string
	}{
		{"unknown name", func() error { _, err := c.AnsEntryByName(ctx, "nobody.cns"); return err },
			fault.NotFound, "No ans entry found for name: nobody.cns"},
		{"party without entry", func() error { _, err := c.AnsEntryByParty(ctx, "nobody::1220ab"); return err },
			fault.NotFound, "No ans entry found for party: nobody::1220ab"},
		{"party without pre-approval", func() error { _, err := c.TransferPreapprovalByParty(ctx, "nobody::1220ab"); return err },
			fault.NotFound, "No TransferPreapproval found for party: nobody::1220ab"},
		{"page size 0", func() error { _, err := c.AnsEntries(ctx, "", 0); return err },
			fault.InvalidArgument, "Limit must be at least 1."},
		{"page size too large", func() error { _, err := c.AnsEntries(ctx, "", 5000); return err },
			fault.InvalidArgument, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantFault(t, tt.run(), tt.kind, tt.msg)
		})
	}
}

// TestStatusKinds checks the mapping of every status a Scan may answer,
// for every read.
func TestStatusKinds(t *testing.T) {
	t.Parallel()
	dead := deadURL(t)
	tests := []struct {
		name   string
		url    func(t *testing.T) string
		kind   fault.Kind
		msg    string
		bodyOK bool
	}{
		{"dead URL", func(*testing.T) string { return dead }, fault.Unavailable, "", false},
		{"400", statusURL(400, `{"error":"bad"}`), fault.InvalidArgument, "bad", true},
		{"404", statusURL(404, `{"error":"gone"}`), fault.NotFound, "gone", true},
		{"409", statusURL(409, `{"error":"dup"}`), fault.AlreadyExists, "dup", true},
		{"429", statusURL(429, `{"error":"slow down"}`), fault.Aborted, "slow down", true},
		{"500", statusURL(500, `{"error":"An unexpected error occurred."}`), fault.Unavailable, "An unexpected error occurred.", true},
		{"503", statusURL(503, `{"error":"not ready"}`), fault.Unavailable, "not ready", true},
		{"502 not JSON", statusURL(502, `<html>proxy</html>`), fault.Unavailable, "Scan answered 502 <html>proxy</html>", true},
		{"200 not JSON", statusURL(200, `nonsense`), fault.Unavailable, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, scanclient.Config{URLs: []string{tt.url(t)}})
			for _, r := range reads {
				t.Run(r.name, func(t *testing.T) {
					wantFault(t, r.run(context.Background(), c), tt.kind, tt.msg)
				})
			}
		})
	}
}

func statusURL(status int, body string) func(t *testing.T) string {
	return func(t *testing.T) string {
		return serve(t, http.NotFoundHandler(), fixed(status, body)).url()
	}
}

func TestNewRefusesBadURLs(t *testing.T) {
	t.Parallel()
	for _, urls := range [][]string{nil, {""}, {"localhost:7575"}, {"ftp://x/api/scan"}, {"http://x/api/scan?a=b"}} {
		if _, err := scanclient.New(scanclient.Config{URLs: urls}); !fault.Is(err, fault.InvalidArgument) {
			t.Errorf("New(%q) = %v, want InvalidArgument", urls, err)
		}
	}
}

func TestContextEnded(t *testing.T) {
	t.Parallel()
	e := shared(t)
	c := newClient(t, scanclient.Config{URLs: []string{serve(t, e.ScanHandler, nil).url()}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, r := range reads {
		if err := r.run(ctx, c); err != context.Canceled {
			t.Errorf("%s: %v, want context.Canceled", r.name, err)
		}
	}
}
