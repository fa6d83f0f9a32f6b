package scan_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// TestInstruments checks Amulet's metadata: its names, the 404 of any
// other id, and a supply that is absent before the first snapshot and then
// the locked and unlocked amulet of the latest one.
func TestInstruments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	svc := &scan.Service{Config: scan.Config{DSO: e.seeded.DSOParty}, Store: e.store, Source: e.src}

	in, err := svc.Instrument(ctx, "Amulet")
	if err != nil {
		t.Fatal(err)
	}
	if in.ID != "Amulet" || in.Name != "Amulet" || in.Symbol != "AMT" || in.Decimals != 10 || in.Supply != nil {
		t.Errorf("before any snapshot: %+v", in)
	}
	if want := map[string]int{"splice-api-token-metadata-v1": 1, "splice-api-token-holding-v1": 1, "splice-api-token-transfer-instruction-v1": 1,
		"splice-api-token-allocation-v1": 1, "splice-api-token-allocation-instruction-v1": 1}; !maps.Equal(in.SupportedAPIs, want) {
		t.Errorf("supported APIs %v, want %v", in.SupportedAPIs, want)
	}
	for _, tc := range []struct{ id, msg string }{
		{"amulet", "No instrument with id amulet found"},
		{"", "No instrument with id  found"},
		{"Amulet ", "No instrument with id Amulet  found"},
		{"Çanton Ćoin", "No instrument with id Çanton Ćoin found"},
		{strings.Repeat("x", 5000), "No instrument with id " + strings.Repeat("x", 255) + "…(5000 bytes) found"},
		{"\xff\xfe", "No instrument with id \uFFFD found"},
	} {
		_, err := svc.Instrument(ctx, tc.id)
		f, ok := fault.As(err)
		if !ok || f.Kind != fault.NotFound || f.Message != tc.msg {
			t.Errorf("instrument %.20q: %v, want NotFound %.60q", tc.id, err, tc.msg)
		}
	}

	// Lock some of alice's amulet, so that the snapshot holds a LockedAmulet.
	alice, bob := e.seeded.Users[0].Party, e.seeded.Users[1].Party
	ac, err := splice.LoadAmuletContext(ctx, e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	holdings, err := splice.Holdings(ctx, e.net.Store(), alice)
	if err != nil || len(holdings) == 0 {
		t.Fatalf("alice's holdings: %v", err)
	}
	if _, err := e.net.Submit(ctx, ledger.Command{
		Participant: e.seeded.Validator.Participant, UserID: e.seeded.Users[0].Name, ActAs: []daml.Party{alice, bob},
		Disclosed: ac.Disclosed(), CommandID: "lock",
		Run: func(tx *ledger.Tx) error {
			out := splice.Pay(alice, daml.MustNumeric("2.5"))
			out.Lock = &splice.TimeLock{Holders: []daml.Party{bob}, ExpiresAt: e.net.Clock().Now() + 3600_000_000}
			_, err := splice.TransferAmulet(tx, ac, alice, alice, []daml.ContractID{holdings[0].ID}, out)
			return err
		},
	}); err != nil {
		t.Fatal(err)
	}
	e.step(t)
	snap, err := e.snaps.TakeNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	locked, err := splice.Active[splice.LockedAmulet](ctx, e.net.Store(), e.seeded.DSOParty)
	if err != nil || len(locked) == 0 {
		t.Fatalf("locked amulets: %d, %v", len(locked), err)
	}
	want, err := splice.ComputeSupply(ctx, e.net.Store(), e.src.Participant, e.seeded.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second from the cache
		sup, ok, err := svc.TotalSupply(ctx)
		if err != nil || !ok {
			t.Fatalf("supply: %v %v", ok, err)
		}
		if sup.Total.Cmp(want.Holdings) != 0 || sup.AsOf != snap.RecordTime {
			t.Errorf("supply %s as of %s, want %s as of %s", sup.Total, sup.AsOf, want.Holdings, snap.RecordTime)
		}
	}
	list, err := svc.Instruments(ctx)
	if err != nil || len(list) != 1 || list[0].Supply == nil || list[0].Supply.Total.Cmp(want.Holdings) != 0 {
		t.Errorf("instruments: %+v, %v", list, err)
	}

	named := &scan.Service{Config: scan.Config{DSO: e.seeded.DSOParty, AmuletName: "Canton Coin", AmuletAcronym: "CC"}, Store: e.store, Source: e.src}
	if in, err := named.Instrument(ctx, "Amulet"); err != nil || in.Name != "Canton Coin" || in.Symbol != "CC" {
		t.Errorf("configured names: %+v, %v", in, err)
	}
}
