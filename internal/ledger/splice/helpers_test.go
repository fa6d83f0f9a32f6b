package splice_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// epoch is the pinned wall clock of the tests: a network seeded at it is
// reproducible.
var epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

func pinned(t time.Time) func() time.Time { return func() time.Time { return t } }

// openNetwork opens a network over a fresh SQLite file.
func openNetwork(t testing.TB, seed string) *ledger.Network {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: seed, Wall: pinned(epoch)})
	if err != nil {
		st.Close()
		t.Fatalf("open network: %v", err)
	}
	t.Cleanup(func() {
		net.Close()
		st.Close()
	})
	return net
}

// seeded is a seeded network on SQLite.
type seeded struct {
	*splice.Seeded
	net *ledger.Network
}

func seedNetwork(t testing.TB, cfg splice.SeedConfig) seeded {
	t.Helper()
	net := openNetwork(t, "test-"+t.Name())
	s, err := splice.Seed(context.Background(), net, cfg)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	return seeded{Seeded: s, net: net}
}

func (s seeded) user(t testing.TB, name string) splice.SeededUser {
	t.Helper()
	u, ok := s.User(name)
	if !ok {
		t.Fatalf("no user %s", name)
	}
	return u
}

func (s seeded) now() daml.Timestamp { return s.net.Clock().Now() }

func (s seeded) amuletContext(t testing.TB) splice.AmuletContext {
	t.Helper()
	ac, err := splice.LoadAmuletContext(context.Background(), s.net.Store(), s.DSOParty, s.now())
	if err != nil {
		t.Fatalf("amulet context: %v", err)
	}
	return ac
}

// submit runs a command on the validator's participant.
func (s seeded) submit(t testing.TB, actAs []daml.Party, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) (*ledger.Transaction, error) {
	t.Helper()
	return s.net.Submit(context.Background(), ledger.Command{
		Participant: s.Validator.Participant, UserID: splice.OperatorUser, ActAs: actAs,
		Disclosed: disclosed, Run: run,
	})
}

func (s seeded) holdings(t testing.TB, p daml.Party) []splice.Contract[splice.Amulet] {
	t.Helper()
	hs, err := splice.Holdings(context.Background(), s.net.Store(), p)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

func (s seeded) balance(t testing.TB, p daml.Party) daml.Numeric {
	t.Helper()
	round := s.amuletContext(t).OpenRound.Payload.Round
	var total daml.Numeric
	for _, h := range s.holdings(t, p) {
		v, err := splice.EffectiveAmount(h.Payload.Amount, round)
		if err != nil {
			t.Fatal(err)
		}
		total, _ = total.Add(v)
	}
	return total
}

func (s seeded) runAutomation(t testing.TB) splice.PassResult {
	t.Helper()
	res, err := splice.NewAutomation(s.net, s.AutomationConfig()).RunOnce(context.Background())
	if err != nil {
		t.Fatalf("automation: %v", err)
	}
	return res
}

func (s seeded) advance(t testing.TB, d time.Duration) {
	t.Helper()
	if _, err := s.net.AdvanceClock(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

func wantKind(t testing.TB, err error, kind fault.Kind) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a %s error, got success", kind)
	}
	t.Logf("expected error: %v", err)
	if got := fault.KindOf(err); got != kind {
		t.Fatalf("want a %s error, got %s: %v", kind, got, err)
	}
}

func num(s string) daml.Numeric { return daml.MustNumeric(s) }
