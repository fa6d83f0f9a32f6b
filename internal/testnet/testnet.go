// Package testnet builds seeded networks with their Scan for tests;
// imported only by _test files.
package testnet

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/builtin"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// Epoch is the pinned wall clock of a network, so that ids and times are
// reproducible.
var Epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// Net is a network on SQLite seeded by splice.Seed (seed "test", wall
// clock at Epoch) and SV 1's Scan over it. The Scan has ingested nothing
// yet: call Ingester.Step.
type Net struct {
	Network   *ledger.Network
	Seeded    *splice.Seeded
	ScanStore *sqlitestore.Scan
	Scan      *scan.Service
	Ingester  *scan.Ingester
	// ScanHandler serves the Scan API under scanapi.Prefix and the
	// token-standard registry at the root (scanapi.RegistryPrefix).
	ScanHandler http.Handler
	closers     []func()
}

// Open builds a Net with its databases in dir. Close it when done.
func Open(ctx context.Context, dir string) (*Net, error) {
	n := &Net{}
	lst, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return nil, err
	}
	n.closers = append(n.closers, func() { lst.Close() })
	if n.Network, err = ledger.Open(ctx, lst, builtin.NewRegistry(), ledger.Config{Seed: "test", Wall: func() time.Time { return Epoch }}); err != nil {
		n.Close()
		return nil, err
	}
	n.closers = append(n.closers, func() { n.Network.Close() })
	if n.ScanStore, err = sqlitestore.OpenScan(ctx, filepath.Join(dir, "scan.db")); err != nil {
		n.Close()
		return nil, err
	}
	n.closers = append(n.closers, func() { n.ScanStore.Close() })
	if n.Seeded, err = splice.Seed(ctx, n.Network, splice.SeedConfig{}); err != nil {
		n.Close()
		return nil, err
	}
	sv := n.Seeded.SVs[0]
	src := &scan.NetworkSource{Network: n.Network, Participant: sv.Participant, DSO: n.Seeded.DSOParty}
	registry := scan.NewRegistryCache()
	n.Scan = &scan.Service{
		Config: scan.Config{DSO: n.Seeded.DSOParty, SV: sv.Party, SVName: sv.Name, AnsAcronym: n.Seeded.AnsAcronym},
		Store:  n.ScanStore, Source: src, Registry: registry,
	}
	n.Ingester = &scan.Ingester{Source: src, Store: n.ScanStore, DSO: n.Seeded.DSOParty, Observer: registry}
	mux := http.NewServeMux()
	api := scanapi.New(scanapi.Config{Service: n.Scan, Registry: n.Network.Registry(), Logger: slog.New(slog.DiscardHandler), SVUser: sv.OperatorUser})
	api.Register(mux, scanapi.Prefix)
	api.RegisterRegistry(mux, "")
	n.ScanHandler = mux
	return n, nil
}

// Seed is Open in t's temporary directory, closed when t ends.
func Seed(t testing.TB) *Net {
	t.Helper()
	n, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatalf("seeded network: %v", err)
	}
	t.Cleanup(n.Close)
	return n
}

// Close closes the Scan store, the network and the ledger store.
func (n *Net) Close() {
	for i := len(n.closers) - 1; i >= 0; i-- {
		n.closers[i]()
	}
	n.closers = nil
}

// Party is the party of a seeded user; it panics if there is none.
func (n *Net) Party(user string) daml.Party {
	u, ok := n.Seeded.User(user)
	if !ok {
		panic("no seeded user " + user)
	}
	return u.Party
}

// DirectOffer creates offer on net as its sender's ledger API user would
// (a create command acting as the sender on participant), bypassing the
// wallet API and its checks: only the template's own ensure applies. Tests
// feed the validator with it what its API refuses.
func DirectOffer(t testing.TB, net *ledger.Network, participant ledger.ParticipantID, user string, offer splice.TransferOffer) daml.ContractID {
	t.Helper()
	var cid daml.ContractID
	tr, err := net.Submit(context.Background(), ledger.Command{
		Participant: participant, UserID: user, ActAs: []daml.Party{offer.Sender},
		CommandID: splice.CommandID("direct-offer"),
		Run: func(tx *ledger.Tx) error {
			var err error
			cid, err = ledger.Create(tx, offer)
			return err
		},
	})
	if err != nil {
		t.Fatalf("create a transfer offer of %s with tracking id %.20q on the ledger: %v", offer.Amount.Amount, offer.TrackingID, err)
	}
	return tr.Final(cid)
}

// Preapprove has the validator's party provide receiver a transfer
// pre-approval until expiresAt, valid from createdAt (ledger time when
// nil), through AmuletRules_CreateTransferPreapproval without inputs: it
// must be free (within the base duration). It returns the pre-approval.
func (n *Net) Preapprove(t testing.TB, receiver daml.Party, createdAt *daml.Timestamp, expiresAt daml.Timestamp) daml.ContractID {
	t.Helper()
	ctx := context.Background()
	v := n.Seeded.Validator
	ac, err := splice.LoadAmuletContext(ctx, n.Network.Store(), n.Seeded.DSOParty, n.Network.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	var cid daml.ContractID
	tr, err := n.Network.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{receiver, v.Party}, Disclosed: ac.Disclosed(),
		CommandID: splice.CommandID("preapprove"),
		Run: func(tx *ledger.Tx) error {
			res, err := ledger.Exercise[splice.AmuletRulesCreateTransferPreapprovalResult](tx, ac.AmuletRules.ID, "AmuletRules_CreateTransferPreapproval",
				splice.AmuletRulesCreateTransferPreapproval{
					Context: ac.PaymentContext(), Receiver: receiver, Provider: v.Party, ExpiresAt: expiresAt,
					ExpectedDso: &n.Seeded.DSOParty, OptCreatedAt: createdAt,
				})
			cid = res.TransferPreapprovalCid
			return err
		},
	})
	if err != nil {
		t.Fatalf("pre-approve %s: %v", receiver, err)
	}
	return tr.Final(cid)
}

// ScanServer serves the Scan API on an httptest server, closed when t
// ends, that ingests before every request so that the Scan is never
// behind the network. Its Scan API root is URL + scanapi.Prefix.
func (n *Net) ScanServer(t testing.TB) *httptest.Server {
	t.Helper()
	var ingesting sync.Mutex
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ingesting.Lock()
		_, err := n.Ingester.Step(r.Context())
		ingesting.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		n.ScanHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// Shared is a fixture built once per test binary, on first use, in a
// temporary directory: one that no test changes.
type Shared[T any] struct {
	get   func() (T, error)
	close func(T)
	dir   string
}

// NewShared is a Shared built by open, in a directory named after name,
// and closed by close.
func NewShared[T any](name string, open func(ctx context.Context, dir string) (T, error), close func(T)) *Shared[T] {
	s := &Shared[T]{close: close}
	s.get = sync.OnceValues(func() (T, error) {
		dir, err := os.MkdirTemp("", name+"-test-")
		if err != nil {
			var zero T
			return zero, err
		}
		s.dir = dir
		return open(context.Background(), dir)
	})
	return s
}

// Get returns the fixture, building it on first use; t fails if it could
// not be built.
func (s *Shared[T]) Get(t testing.TB) T {
	t.Helper()
	v, err := s.get()
	if err != nil {
		t.Fatalf("shared network: %v", err)
	}
	return v
}

// Close closes the fixture and removes its directory, if it was built.
// Call it from TestMain, after m.Run.
func (s *Shared[T]) Close() {
	if s.dir == "" {
		return
	}
	if v, err := s.get(); err == nil {
		s.close(v)
	}
	os.RemoveAll(s.dir)
}
