package scanclient_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scanclient"
)

const (
	rulesPath  = "/v0/amulet-rules"
	roundsPath = "/v0/open-and-issuing-mining-rounds"
)

// TestCache checks that the amulet rules and rounds are served from the
// cache within its lifetime, that Invalidate forces a request, and that a
// refresh sends the cached ids.
func TestCache(t *testing.T) {
	t.Parallel()
	e := shared(t)
	ctx := context.Background()
	rules := func(c *scanclient.Client) ([]*ledger.Contract, error) {
		r, err := c.AmuletRules(ctx)
		return []*ledger.Contract{r}, err
	}
	rounds := func(c *scanclient.Client) ([]*ledger.Contract, error) {
		open, issuing, err := c.OpenAndIssuingRounds(ctx)
		return append(open, issuing...), err
	}
	tests := []struct {
		name string
		path string
		read func(c *scanclient.Client) ([]*ledger.Contract, error)
		// cachedField is what a refresh's body names the cached ids by.
		cachedField string
	}{
		{"amulet rules", rulesPath, rules, "cached_amulet_rules_contract_id"},
		{"rounds", roundsPath, rounds, "cached_open_mining_round_contract_ids"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, e.ScanHandler, nil)
			c := newClient(t, scanclient.Config{URLs: []string{srv.url()}})
			first, err := tt.read(c)
			if err != nil {
				t.Fatal(err)
			}
			second, err := tt.read(c)
			if err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 1 {
				t.Errorf("%d requests for two reads within the TTL, want 1", n)
			}
			sameContracts(t, "cached", second, first)
			c.Invalidate()
			third, err := tt.read(c)
			if err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 2 {
				t.Errorf("%d requests after Invalidate, want 2", n)
			}
			sameContracts(t, "refreshed", third, first)
			for i := range third {
				if third[i] != first[i] {
					t.Errorf("refresh decoded %s again: the Scan should have left it out", third[i].ID)
				}
			}
			bodies := srv.bodiesOf(tt.path)
			if len(bodies) != 2 || strings.Contains(bodies[0], string(first[0].ID)) || !strings.Contains(bodies[1], tt.cachedField) || !strings.Contains(bodies[1], string(first[0].ID)) {
				t.Errorf("request bodies %q: want the second to name the cached %s", bodies, first[0].ID)
			}
		})
	}
}

// TestCacheDisabled checks that a negative CacheTTL asks every time.
func TestCacheDisabled(t *testing.T) {
	t.Parallel()
	e := shared(t)
	srv := serve(t, e.ScanHandler, nil)
	c := newClient(t, scanclient.Config{URLs: []string{srv.url()}, CacheTTL: -1})
	for range 3 {
		if _, err := c.AmuletRules(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.OpenAndIssuingRounds(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.count(); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
}

// TestCacheColdConcurrent checks that concurrent reads on an empty cache
// make one request.
func TestCacheColdConcurrent(t *testing.T) {
	t.Parallel()
	e := shared(t)
	srv := serve(t, e.ScanHandler, nil)
	c := newClient(t, scanclient.Config{URLs: []string{srv.url()}})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, err := c.AmuletRules(context.Background()); err != nil {
				t.Error(err)
			}
			if _, _, err := c.OpenAndIssuingRounds(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := srv.count(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestContractReads checks that a contract read takes the first Scan
// that answers well, and refuses contracts that are not what they claim.
func TestContractReads(t *testing.T) {
	t.Parallel()
	e := shared(t)
	ctx := context.Background()
	want, err := splice.Active[splice.AmuletRules](ctx, e.Network.Store(), e.Seeded.DSOParty)
	if err != nil || len(want) != 1 {
		t.Fatalf("amulet rules: %v (%d)", err, len(want))
	}
	id := string(want[0].ID)
	syncID := string(e.Seeded.Synchronizer)
	honest := func(t *testing.T) string { return serve(t, e.ScanHandler, nil).url() }
	bad := func(rw rewrite) func(t *testing.T) string {
		return func(t *testing.T) string { return serve(t, e.ScanHandler, rw).url() }
	}
	dead := func(t *testing.T) string { return deadURL(t) }
	noRules := bad(fixed(http.StatusNotFound, `{"error":"No active AmuletRules contract"}`))
	wrongID := bad(replace(rulesPath, `"contract_id":"`+id, `"contract_id":"00ab`))
	wrongSync := bad(replace("", `"domain_id":"`+syncID, `"domain_id":"other::1220ab`))
	badBlob := bad(replace(rulesPath, `"created_event_blob":"`, `"created_event_blob":"AAAA`))
	missingRound := bad(fixed(http.StatusOK, `{"time_to_live_in_microseconds":1000,"open_mining_rounds":{"00cd":{"domain_id":"x::1220"}},"issuing_mining_rounds":{}}`))
	tests := []struct {
		name  string
		scans []func(t *testing.T) string
		kind  fault.Kind // of AmuletRules' error; 0 for success
		msg   string
		// roundsFail is whether the rounds read fails too.
		roundsFail bool
	}{
		{"honest", []func(*testing.T) string{honest}, 0, "", false},
		{"dead, then honest", []func(*testing.T) string{dead, honest}, 0, "", false},
		{"404, then honest", []func(*testing.T) string{noRules, honest}, 0, "", false},
		{"only 404", []func(*testing.T) string{noRules}, fault.NotFound, "No active AmuletRules contract", true},
		{"dead and 404", []func(*testing.T) string{dead, noRules}, fault.NotFound, "No active AmuletRules contract", true},
		{"wrong contract id", []func(*testing.T) string{wrongID}, fault.Unavailable, "", false},
		{"wrong contract id, then honest", []func(*testing.T) string{wrongID, honest}, 0, "", false},
		{"wrong synchronizer", []func(*testing.T) string{wrongSync}, fault.Unavailable, "", true},
		{"undecodable blob", []func(*testing.T) string{badBlob}, fault.Unavailable, "", false},
		{"a round left out", []func(*testing.T) string{missingRound}, fault.Unavailable, "", true}, // no amulet_rules_update either
		{"a round left out, then honest", []func(*testing.T) string{missingRound, honest}, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var urls []string
			for _, s := range tt.scans {
				urls = append(urls, s(t))
			}
			c := newClient(t, scanclient.Config{URLs: urls, Registry: e.Network.Registry()})
			got, err := c.AmuletRules(ctx)
			switch {
			case tt.kind != 0:
				wantFault(t, err, tt.kind, tt.msg)
			case err != nil:
				t.Fatalf("AmuletRules: %v", err)
			default:
				sameContracts(t, "amulet rules", []*ledger.Contract{got}, []*ledger.Contract{want[0].Contract})
			}
			open, _, err := c.OpenAndIssuingRounds(ctx)
			if tt.roundsFail {
				if err == nil {
					t.Errorf("OpenAndIssuingRounds = %s, want an error", describe(open))
				}
			} else if err != nil || len(open) == 0 {
				t.Errorf("OpenAndIssuingRounds = %s, %v", describe(open), err)
			}
		})
	}
}

// TestDecodeRefusesUnknownTemplates checks the registry check of Decode.
func TestDecodeRefusesUnknownTemplates(t *testing.T) {
	t.Parallel()
	e := shared(t)
	d, err := newClient(t, scanclient.Config{URLs: []string{serve(t, e.ScanHandler, nil).url()}}).DsoInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.AmuletRules.Contract.Decode(e.Network.Registry()); err != nil {
		t.Fatalf("Decode with the network's registry: %v", err)
	}
	if _, err := d.AmuletRules.Contract.Decode(ledger.NewRegistry()); !fault.Is(err, fault.Unavailable) {
		t.Fatalf("Decode with an empty registry: %v, want Unavailable", err)
	}
}
