package operator_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/operator"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

func setup(t *testing.T) (*operator.Operator, *ledger.Network, *splice.Seeded) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlitestore.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	net, err := ledger.Open(ctx, store, splice.NewRegistry(), ledger.Config{Seed: "operator-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	seeded, err := splice.Seed(ctx, net, splice.SeedConfig{SVs: 1})
	if err != nil {
		t.Fatal(err)
	}
	return operator.New(net, seeded), net, seeded
}

func TestCreateUserAndTap(t *testing.T) {
	t.Parallel()
	op, net, seeded := setup(t)
	ctx := context.Background()
	u, err := op.CreateUser(ctx, "carol", "")
	if err != nil {
		t.Fatal(err)
	}
	if ledger.PartyHint(u.PrimaryParty) != "carol" || u.Participant != seeded.Validator.Participant {
		t.Errorf("user = %+v", u)
	}
	cid, err := op.Tap(ctx, "carol", daml.MustNumeric("12.5"))
	if err != nil {
		t.Fatal(err)
	}
	c, active, err := net.Store().Contract(ctx, cid)
	if err != nil || !active {
		t.Fatalf("tapped amulet: active=%v err=%v", active, err)
	}
	if owner := c.Argument.Get("owner"); owner != u.PrimaryParty {
		t.Errorf("amulet owner = %v", owner)
	}
	// The wallet exists: a WalletAppInstall for carol's party.
	installs, err := splice.Active[splice.WalletAppInstall](ctx, net.Store(), u.PrimaryParty)
	if err != nil || len(installs) != 1 {
		t.Errorf("wallet installs = %d, err %v", len(installs), err)
	}
	tests := []struct {
		name string
		run  func() error
		want fault.Kind
	}{
		{"duplicate user", func() error { _, err := op.CreateUser(ctx, "carol", ""); return err }, fault.AlreadyExists},
		{"invalid user id", func() error { _, err := op.CreateUser(ctx, "no spaces", ""); return err }, fault.InvalidArgument},
		{"invalid party hint", func() error { _, err := op.CreateUser(ctx, "dave", "a::b"); return err }, fault.InvalidArgument},
		// A party id has at most 255 characters; a longer one would be refused by every ledger API read that names it.
		{"party hint too long", func() error { _, err := op.CreateUser(ctx, "dave", strings.Repeat("h", 200)); return err }, fault.InvalidArgument},
		{"party hint with a space", func() error { _, err := op.CreateUser(ctx, "dave", "a b"); return err }, fault.InvalidArgument},
		{"tap for unknown user", func() error { _, err := op.Tap(ctx, "nobody", daml.MustNumeric("1")); return err }, fault.NotFound},
		// Splice's tap mints at most 100,000,000 CC: a 409 at the admin API.
		{"tap above the cap", func() error {
			_, err := op.Tap(ctx, "carol", daml.MustNumeric("4000000000000000000000000"))
			return err
		}, fault.DamlPrecondition},
		{"advance below resolution", func() error { _, err := op.AdvanceClock(ctx, time.Nanosecond); return err }, fault.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); fault.KindOf(err) != tt.want || err == nil {
				t.Errorf("err = %v, want kind %v", err, tt.want)
			}
		})
	}
}

func TestNetworkAndClock(t *testing.T) {
	t.Parallel()
	op, _, seeded := setup(t)
	ctx := context.Background()
	info, err := op.Network(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.DSOParty != seeded.DSOParty || len(info.SVs) != 1 || len(info.Participants) != 2 || len(info.Synchronizers) != 1 {
		t.Fatalf("info = %+v", info)
	}
	for _, p := range info.Participants {
		if p.LedgerEnd <= 0 || len(p.Parties) == 0 {
			t.Errorf("participant %s: end %d, parties %v", p.ID, p.LedgerEnd, p.Parties)
		}
	}
	before := op.Clock(ctx)
	after, err := op.AdvanceClock(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if after.Offset-before.Offset != time.Hour.Microseconds() || after.Now < before.Now+daml.Timestamp(time.Hour.Microseconds()) {
		t.Errorf("clock %+v → %+v", before, after)
	}
	for _, tt := range []struct {
		user string
		want bool
	}{{splice.OperatorUser, true}, {"alice", false}, {"nobody", false}} {
		if got, err := op.IsOperator(ctx, tt.user); err != nil || got != tt.want {
			t.Errorf("IsOperator(%s) = %v, %v", tt.user, got, err)
		}
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	op, net, seeded := setup(t)
	ctx := context.Background()
	v := seeded.Validator.Participant
	head, err := net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	end := head.Offsets[v]
	if end < 2 {
		t.Fatalf("the seeded validator participant has ledger end %d; the test needs 2 or more", end)
	}
	got, err := op.Prune(ctx, "", end-1)
	if err != nil {
		t.Fatal(err)
	}
	if want := (operator.Pruned{Participant: v, UpTo: end - 1}); got != want {
		t.Errorf("Prune = %+v, want %+v", got, want)
	}
	info, err := op.Network(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range info.Participants {
		want := ledger.Offset(0)
		if p.ID == v {
			want = end - 1
		}
		if p.PrunedUpTo != want {
			t.Errorf("participant %s: PrunedUpTo = %d, want %d", p.Name, p.PrunedUpTo, want)
		}
	}
	sv := seeded.SVs[0].Participant
	if got, err := op.Prune(ctx, sv, 1); err != nil || got.Participant != sv || got.UpTo != 1 {
		t.Errorf("Prune(sv, 1) = %+v, %v", got, err)
	}
	for _, tt := range []struct {
		name string
		p    ledger.ParticipantID
		upTo ledger.Offset
		want fault.Kind
	}{
		{"backwards", "", end - 2, fault.InvalidArgument},
		{"beyond the ledger end", "", end + 1, fault.OutOfRange},
		{"not positive", "", 0, fault.InvalidArgument},
		{"unknown participant", "PAR::nobody::1220", 1, fault.NotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := op.Prune(ctx, tt.p, tt.upTo); fault.KindOf(err) != tt.want || err == nil {
				t.Errorf("err = %v, want kind %v", err, tt.want)
			}
		})
	}
}

func TestHostAndUnhostParty(t *testing.T) {
	t.Parallel()
	op, _, seeded := setup(t)
	ctx := context.Background()
	u, err := op.CreateUser(ctx, "carol", "")
	if err != nil {
		t.Fatal(err)
	}
	carol, val, sv := u.PrimaryParty, seeded.Validator.Participant, seeded.SVs[0].Participant
	perms := func(hs []ledger.Hosting) map[ledger.ParticipantID]ledger.Permission {
		m := map[ledger.ParticipantID]ledger.Permission{}
		for _, h := range hs {
			m[h.Participant] = h.Permission
		}
		return m
	}
	c, err := op.HostParty(ctx, carol, sv, ledger.PermissionObservation)
	if err != nil {
		t.Fatal(err)
	}
	if got := perms(c.Hostings); len(c.UpdateIDs) != 1 || len(got) != 2 || got[sv] != ledger.PermissionObservation || got[val] != ledger.PermissionSubmission {
		t.Errorf("after hosting carol on sv-1: %+v", c)
	}
	if c, err := op.HostParty(ctx, carol, sv, ledger.PermissionObservation); err != nil || len(c.UpdateIDs) != 0 || c.UpdateIDs == nil {
		t.Errorf("hosting carol again: %+v, %v; want no update", c, err)
	}
	c, err = op.UnhostParty(ctx, carol, val)
	if err != nil {
		t.Fatal(err)
	}
	if got := perms(c.Hostings); len(c.UpdateIDs) != 1 || len(got) != 1 || got[sv] != ledger.PermissionObservation {
		t.Errorf("after revoking carol from the validator: %+v", c)
	}
	if hs, err := op.Hostings(ctx, carol); err != nil || len(hs) != 1 || hs[0].Participant != sv {
		t.Errorf("Hostings(carol) = %+v, %v", hs, err)
	}
	if _, err := op.UnhostParty(ctx, carol, sv); !fault.Is(err, fault.FailedPrecondition) {
		t.Errorf("revoking carol's last hosting: %v; want FailedPrecondition", err)
	}
}
