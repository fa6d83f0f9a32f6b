package splice_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

func TestSeedBuildsTheNetwork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Now()
	s := seedNetwork(t, splice.SeedConfig{})
	t.Logf("seeded in %s", time.Since(start))
	st := s.net.Store()

	head, err := st.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d transactions", head.Sequence)

	if len(s.SVs) != 4 || len(s.Users) != 2 {
		t.Fatalf("got %d SVs and %d users, want 4 and 2", len(s.SVs), len(s.Users))
	}
	if !strings.HasPrefix(string(s.DSOParty), "DSO::1220") || !strings.HasPrefix(string(s.Synchronizer), "global-domain::1220") {
		t.Errorf("ids: DSO %s, synchronizer %s", s.DSOParty, s.Synchronizer)
	}

	// The DSO party is hosted on every SV participant; each SV party on its
	// own.
	hosts := s.net.HostingsOf(s.DSOParty)
	if len(hosts) != len(s.SVs) {
		t.Errorf("DSO hosted on %d participants, want %d", len(hosts), len(s.SVs))
	}
	for _, sv := range s.SVs {
		if !strings.HasPrefix(string(sv.Participant), "PAR::"+sv.ParticipantName+"::1220") {
			t.Errorf("participant id %s", sv.Participant)
		}
		if hs := s.net.HostingsOf(sv.Party); len(hs) != 1 || hs[0].Participant != sv.Participant {
			t.Errorf("%s hosted on %v", sv.Name, hs)
		}
	}

	// DsoRules lists every SV; each has published its sequencer.
	rules, err := splice.Active[splice.DsoRules](ctx, st, s.DSOParty)
	if err != nil || len(rules) != 1 {
		t.Fatalf("DsoRules: %d, %v", len(rules), err)
	}
	nodes, err := splice.Active[splice.SvNodeState](ctx, st, s.DSOParty)
	if err != nil {
		t.Fatal(err)
	}
	for _, sv := range s.SVs {
		info, ok := rules[0].Payload.Svs.Get(sv.Party)
		if !ok || info.Name != sv.Name || info.ParticipantID != string(sv.Participant) {
			t.Errorf("DsoRules has %+v for %s", info, sv.Name)
		}
		found := false
		for _, n := range nodes {
			seq, ok := splice.BftSequencerOf(n.Payload, string(s.Synchronizer))
			if n.Payload.Sv == sv.Party && ok && seq == sv.Sequencer && strings.HasPrefix(seq.ID, "SEQ::"+sv.ParticipantName+"::1220") &&
				strings.HasSuffix(seq.P2PURL, "/"+sv.ParticipantName+"/sequencer-p2p") {
				found = true
			}
		}
		if !found {
			t.Errorf("no sequencer published for %s", sv.Name)
		}
	}

	// Users, wallets, coin and names.
	for _, u := range s.Users {
		user, err := st.User(ctx, s.Validator.Participant, u.Name)
		if err != nil || !user.CanAct(u.Party) || user.PrimaryParty != u.Party {
			t.Errorf("user %s: %+v, %v", u.Name, user, err)
		}
		if got := s.balance(t, u.Party); got.Cmp(num("1800.0")) != 0 {
			t.Errorf("%s holds %s, want 1800 (2000 tapped, 200 paid for a name)", u.Name, got)
		}
		if u.AnsName != u.Name+".unverified.cns" {
			t.Errorf("%s's name is %q", u.Name, u.AnsName)
		}
	}
	admin, err := st.User(ctx, s.Validator.Participant, splice.OperatorUser)
	if err != nil || !admin.IsAdmin() || !admin.CanAct(s.Validator.Party) || !admin.CanRead(s.Users[0].Party) {
		t.Errorf("validator operator user: %+v, %v", admin, err)
	}
	for _, sv := range s.SVs {
		op, err := st.User(ctx, sv.Participant, splice.OperatorUser)
		if err != nil || !op.IsAdmin() || !op.CanAct(sv.Party) || !op.CanRead(s.DSOParty) {
			t.Errorf("SV operator user of %s: %+v, %v", sv.Name, op, err)
		}
	}
	counts := map[string]int{}
	all, err := st.ActiveContracts(ctx, ledger.ContractFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		counts[c.Template.EntityName]++
	}
	want := map[string]int{
		"AmuletRules": 1, "ExternalPartyAmuletRules": 1, "ExternalPartyConfigState": 2, "AnsRules": 1, "DsoRules": 1, "OpenMiningRound": 3, "AnsEntry": 2, "AnsEntryContext": 2,
		"SubscriptionIdleState": 2, "Subscription": 2, "VoteRequest": 1, "ValidatorLicense": 1, "WalletAppInstall": 3,
		"ValidatorRight": 3, "Amulet": 3, "SvNodeState": 4, "SvRewardState": 4, "SvStatusReport": 4, "AmuletPriceVote": 4,
	}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("active contracts by template:\n got %v\nwant %v", counts, want)
	}
}

// The Scan recognizes the founding transaction (a root create of
// DsoBootstrap whose first field is the DSO party) and an SV's joining
// transaction (a root DsoRules_AddConfirmedSv whose first argument is the
// SV's party).
func TestSeedFoundingAndJoiningTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{SVs: 2, Users: []string{"carol"}})
	ups, err := s.net.Store().Updates(ctx, ledger.UpdateQuery{Participant: s.SVs[1].Participant})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) == 0 {
		t.Fatal("sv-2 sees nothing")
	}
	// sv-2's stream begins with the topology transactions of the parties
	// it hosts; the first transaction comes after them.
	var first *ledger.Transaction
	for _, u := range ups {
		if u.Transaction != nil {
			first = u.Transaction
			break
		}
	}
	if first == nil || ups[0].Topology == nil {
		t.Fatalf("sv-2's stream does not begin with a topology transaction and hold a transaction: %+v", ups[0])
	}
	root := first.Events[first.Roots[0]]
	if root.Created == nil || root.Created.Template.EntityName != "DsoBootstrap" ||
		root.Created.Argument.Fields[0].Value != daml.Party(s.DSOParty) {
		t.Errorf("first transaction's root is %+v", root)
	}
	joined := false
	for _, u := range ups {
		if u.Transaction == nil {
			continue
		}
		for _, r := range u.Transaction.Roots {
			x := u.Transaction.Events[r].Exercised
			if x != nil && x.Choice == "DsoRules_AddConfirmedSv" {
				arg := x.ChoiceArgument.(*daml.Record)
				joined = joined || arg.Fields[0].Value == daml.Party(s.SVs[1].Party)
			}
		}
	}
	if !joined {
		t.Error("no joining transaction for sv-2")
	}
}

// ledgerDump is everything a network's ids depend on, per participant.
type ledgerDump struct {
	updates   []string
	topology  int
	contracts []daml.ContractID
	times     []daml.Timestamp
}

func dump(t *testing.T, net *ledger.Network) map[ledger.ParticipantID]ledgerDump {
	t.Helper()
	ctx := context.Background()
	ps, err := net.Store().Participants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[ledger.ParticipantID]ledgerDump{}
	for _, p := range ps {
		ups, err := net.Store().Updates(ctx, ledger.UpdateQuery{Participant: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		var d ledgerDump
		for _, u := range ups {
			d.updates = append(d.updates, u.UpdateID())
			d.times = append(d.times, u.RecordTime())
			if u.Topology != nil {
				d.topology++
				continue
			}
			for _, c := range u.Transaction.Created() {
				d.contracts = append(d.contracts, c.ID)
			}
		}
		out[p.ID] = d
	}
	return out
}

func TestSeedIsDeterministic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seedOn := func(seed string) (*splice.Seeded, map[ledger.ParticipantID]ledgerDump) {
		net := openNetwork(t, seed)
		s, err := splice.Seed(ctx, net, splice.SeedConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return s, dump(t, net)
	}
	a, da := seedOn("same")
	b, db := seedOn("same")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the same seed gave different networks:\n%+v\n%+v", a, b)
	}
	if !reflect.DeepEqual(da, db) {
		t.Errorf("the same seed gave different update ids, contract ids or record times")
	}
	n := 0
	for _, d := range da {
		n += len(d.contracts)
	}
	if n == 0 {
		t.Fatal("no contracts to compare")
	}
	// Seeding allocates parties, and every participant hosts some: every
	// stream holds topology transactions, ordered and numbered with the
	// transactions.
	for pid, d := range da {
		if d.topology == 0 {
			t.Errorf("%s: no topology transactions in the seeded stream", pid)
		}
	}
	c, dc := seedOn("other")
	if c.DSOParty == a.DSOParty || reflect.DeepEqual(dc, da) {
		t.Error("a different seed gave the same ids")
	}
}

func TestSeedIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	open := func() (*ledger.Network, func()) {
		st, err := sqlitestore.OpenLedger(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: "idem", Wall: pinned(epoch)})
		if err != nil {
			t.Fatal(err)
		}
		return net, func() { net.Close(); st.Close() }
	}
	net, closeNet := open()
	first, err := splice.Seed(ctx, net, splice.SeedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	head1, _ := net.Store().Head(ctx)
	again, err := splice.Seed(ctx, net, splice.SeedConfig{SVs: 7})
	if err != nil {
		t.Fatal(err)
	}
	closeNet()

	net, closeNet = open() // a restarted sandnet
	defer closeNet()
	restarted, err := splice.Seed(ctx, net, splice.SeedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	head2, _ := net.Store().Head(ctx)
	if head2.Sequence != head1.Sequence {
		t.Errorf("seeding again committed %d transactions", head2.Sequence-head1.Sequence)
	}
	if !reflect.DeepEqual(first, again) || !reflect.DeepEqual(first, restarted) {
		t.Errorf("seeding again described another network")
	}
}

func TestSeedRefusesALedgerWithOtherData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	net := openNetwork(t, "foreign")
	if _, err := net.AddSynchronizer(ctx, "global-domain"); err != nil {
		t.Fatal(err)
	}
	p, err := net.AddParticipant(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	party, err := net.AllocateParty(ctx, ledger.PartySpec{Hint: "x", Hosts: []ledger.Hosting{{Participant: p.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.Submit(ctx, ledger.Command{Participant: p.ID, ActAs: []daml.Party{party}, Run: func(tx *ledger.Tx) error {
		_, err := ledger.Create(tx, splice.ValidatorRight{DSO: party, User: party, Validator: party})
		return err
	}}); err != nil {
		t.Fatal(err)
	}
	_, err = splice.Seed(ctx, net, splice.SeedConfig{})
	wantKind(t, err, fault.FailedPrecondition)
}

func TestSeedConfig(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{SVs: 1, Users: []string{"dave"}, AnsAcronym: "ans", NoAnsEntries: true, TapAmount: num("5.0")})
	if len(s.SVs) != 1 || s.Users[0].AnsName != "" || s.AnsAcronym != "ans" {
		t.Fatalf("seeded %+v", s.Seeded)
	}
	if got := s.balance(t, s.Users[0].Party); got.Cmp(num("5.0")) != 0 {
		t.Errorf("dave holds %s", got)
	}
	entries, err := splice.Active[splice.AnsEntry](context.Background(), s.net.Store(), s.DSOParty)
	if err != nil || len(entries) != 0 {
		t.Errorf("entries: %d, %v", len(entries), err)
	}
}

func BenchmarkSeed(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		net := openNetwork(b, "bench")
		b.StartTimer()
		if _, err := splice.Seed(context.Background(), net, splice.SeedConfig{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSeedGenesis checks that a network seeded with a genesis in the past
// has its whole seeded history at genesis, and that ledger time is back at
// the clock afterwards, so the next transaction is recorded now.
func TestSeedGenesis(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	genesis := daml.TimestampFromTime(epoch.Add(-2 * time.Hour))
	net := openNetwork(t, "genesis")
	s, err := splice.Seed(ctx, net, splice.SeedConfig{Genesis: genesis})
	if err != nil {
		t.Fatal(err)
	}
	head, err := net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head.LastRecordTime < genesis || head.LastRecordTime > genesis+daml.Timestamp(time.Second.Microseconds()) {
		t.Errorf("last seeded record time %s, want just after genesis %s", head.LastRecordTime, genesis)
	}
	if got, want := net.Clock().Now(), daml.TimestampFromTime(epoch); got != want {
		t.Errorf("ledger time after seeding = %s, want the clock's %s", got, want)
	}
	alice, _ := s.User("alice")
	if _, err := splice.TapFor(ctx, net, s, alice.Name, alice.Party, daml.MustNumeric("1.0")); err != nil {
		t.Fatal(err)
	}
	head, err = net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := daml.TimestampFromTime(epoch); head.LastRecordTime != want {
		t.Errorf("record time of a transaction after seeding = %s, want %s", head.LastRecordTime, want)
	}
}

// TestSeedPreapprovals checks the seed's pre-approvals: none by default;
// with Preapprovals, one per user, provided by the validator operator for
// the free 90 days, nothing burned, and no proposal left pending.
func TestSeedPreapprovals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		s := seedNetwork(t, splice.SeedConfig{SVs: 1, NoAnsEntries: true, Preapprovals: on})
		ps, err := splice.Active[splice.TransferPreapproval](ctx, s.net.Store(), s.Validator.Party)
		if err != nil {
			t.Fatal(err)
		}
		if !on {
			if len(ps) != 0 {
				t.Errorf("%d pre-approvals without the option", len(ps))
			}
			continue
		}
		if len(ps) != len(s.Users) {
			t.Fatalf("%d pre-approvals, want one per user (%d)", len(ps), len(s.Users))
		}
		for i, p := range ps {
			const days90 = daml.Timestamp(90 * 24 * 3600_000_000)
			if p.Payload.Receiver != s.Users[i].Party || p.Payload.Provider != s.Validator.Party || p.Payload.DSO != s.DSOParty ||
				p.Payload.ExpiresAt != p.Payload.ValidFrom+days90 {
				t.Errorf("pre-approval %d: %+v", i, p.Payload)
			}
		}
		proposals, err := splice.Active[splice.TransferPreapprovalProposal](ctx, s.net.Store(), s.Validator.Party)
		if err != nil || len(proposals) != 0 {
			t.Errorf("proposals left: %d, %v", len(proposals), err)
		}
		if got := s.balance(t, s.Validator.Party); got.Cmp(num("2000.0")) != 0 {
			t.Errorf("the operator holds %s after providing them, want its 2000 untouched", got)
		}
	}
}
