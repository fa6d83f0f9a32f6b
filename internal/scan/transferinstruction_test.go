package scan_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// fakeStore holds contracts in memory: just what the choice contexts
// read, and the ingestion cursor. Every other Store method is left to the
// embedded nil interface. ingest adds contracts as the ingester would.
type fakeStore struct {
	scan.Store
	mu        sync.Mutex
	contracts []*ledger.Contract
	archived  map[daml.ContractID]bool
	cursor    ledger.Offset
}

func (s *fakeStore) Cursor(context.Context) (scan.Cursor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return scan.Cursor{Offset: s.cursor}, nil
}

func (s *fakeStore) ingest(to ledger.Offset, cs ...*ledger.Contract) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.contracts = append(s.contracts, cs...)
	s.cursor = to
}

func (s *fakeStore) ActiveContracts(_ context.Context, q scan.ContractQuery) ([]*ledger.Contract, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*ledger.Contract
	for _, c := range s.contracts {
		if !s.archived[c.ID] && slices.Contains(q.Templates, scan.KeyOf(c.Template)) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *fakeStore) Contract(_ context.Context, id daml.ContractID) (*ledger.Contract, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.contracts {
		if c.ID == id {
			return c, !s.archived[id], nil
		}
	}
	return nil, false, fault.New(fault.NotFound, "no contract %s", id)
}

// fakeSource tells the time, and its end: the participant has committed
// up to end (0: nothing the Scan has not ingested).
type fakeSource struct {
	scan.Source
	now daml.Timestamp
	end ledger.Offset
}

func (s fakeSource) Now(context.Context) (daml.Timestamp, error) { return s.now, nil }

// Read covers the next offset up to the end, with no update the Scan keeps.
func (s fakeSource) Read(_ context.Context, after ledger.Offset, _ int) (scan.Batch, error) {
	if after >= s.end {
		return scan.Batch{End: after, Checkpoint: scan.Checkpoint{RecordTime: s.now}}, nil
	}
	return scan.Batch{End: after + 1}, nil
}

func dsoContract(t *testing.T, id string, v ledger.Template) *ledger.Contract {
	t.Helper()
	arg, err := daml.FromGo(v)
	if err != nil {
		t.Fatal(err)
	}
	return &ledger.Contract{ID: daml.ContractID(id), Template: v.TemplateID(), Argument: arg.(*daml.Record), Synchronizer: "sync::1"}
}

// instructionEnv is a Scan holding the DSO's transfer contracts, two
// config states (the later-archived one created first), and an
// AmuletTransferInstruction written as a bare record, since the network's
// registry may not declare the template.
func instructionEnv(t *testing.T, lockArchived bool) (*scan.Service, *ledger.Contract) {
	t.Helper()
	dso := daml.Party("dso::1220")
	rules := splice.AmuletRules{DSO: dso}
	rules.ConfigSchedule.InitialValue.DecentralizedSynchronizer.ActiveSynchronizer = "global::1220"
	round := func(n int64, opensAt daml.Timestamp) splice.OpenMiningRound {
		r := splice.OpenMiningRound{DSO: dso, OpensAt: opensAt}
		r.Round.Number = n
		return r
	}
	instr := &ledger.Contract{
		ID: "00instr", Template: ledger.TemplateID{
			Identifier:  splice.PackageAmulet.Identifier("Splice.AmuletTransferInstruction", "AmuletTransferInstruction"),
			PackageName: "splice-amulet",
		},
		Argument: &daml.Record{Fields: []daml.Field{
			{Label: "lockedAmulet", Value: daml.ContractID("00locked")},
			{Label: "transfer", Value: &daml.Record{Fields: []daml.Field{
				{Label: "sender", Value: daml.Party("alice::1")}, {Label: "executeBefore", Value: daml.Timestamp(86_400_000_000)},
			}}},
		}},
	}
	st := &fakeStore{archived: map[daml.ContractID]bool{}}
	st.contracts = []*ledger.Contract{
		dsoContract(t, "00rules", rules),
		dsoContract(t, "00round1", round(1, 0)),
		dsoContract(t, "00round2", round(2, 10)),
		dsoContract(t, "00round3", round(3, 1_000_000)), // not open yet
		dsoContract(t, "00state-later", splice.ExternalPartyConfigState{DSO: dso, TargetArchiveAfter: 200}),
		dsoContract(t, "00state-earlier", splice.ExternalPartyConfigState{DSO: dso, TargetArchiveAfter: 100}),
		dsoContract(t, "00epar", splice.ExternalPartyAmuletRules{DSO: dso}),
		dsoContract(t, "00locked", splice.LockedAmulet{}),
		dsoContract(t, "00amulet", splice.Amulet{DSO: dso}),
		instr,
		dsoContract(t, "00gone", splice.ExternalPartyAmuletRules{DSO: dso}),
		dsoContract(t, "00pre-carol", splice.TransferPreapproval{DSO: dso, Receiver: "carol::1", Provider: "prov::1", ValidFrom: 5}),
		dsoContract(t, "00pre-carol-older", splice.TransferPreapproval{DSO: dso, Receiver: "carol::1", Provider: "prov::1", ValidFrom: 4}),
		dsoContract(t, "00featured", splice.FeaturedAppRight{DSO: dso, Provider: "prov::1"}),
		dsoContract(t, "00pre-dave", splice.TransferPreapproval{DSO: dso, Receiver: "dave::1", Provider: "plain::1", ValidFrom: 5}),
	}
	st.archived["00gone"] = true
	if lockArchived {
		st.archived["00locked"] = true
	}
	return &scan.Service{Config: scan.Config{DSO: dso}, Store: st, Source: fakeSource{now: 500}}, instr
}

func entriesOf(cc scan.ChoiceContext) string {
	var b strings.Builder
	for _, e := range cc.Entries {
		b.WriteString(e.Key + "=")
		if e.Bool != nil {
			if *e.Bool {
				b.WriteString("true")
			} else {
				b.WriteString("false")
			}
		} else {
			b.WriteString(string(e.ContractID))
		}
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

func disclosedOf(cc scan.ChoiceContext) string {
	ids := make([]string, len(cc.Disclosed))
	for i, c := range cc.Disclosed {
		ids[i] = string(c.ID)
	}
	return strings.Join(ids, " ")
}

func TestTransferInstructionContext(t *testing.T) {
	t.Parallel()
	withLock := "amulet-rules=00rules open-round=00round2 external-party-config-state=00state-later expire-lock=true"
	withLockDisclosed := "00rules 00round2 00state-later 00locked"
	cases := []struct {
		name         string
		lockArchived bool
		id           daml.ContractID
		choice       scan.TransferInstructionChoice
		entries      string
		disclosed    string
		// notFound is the start of the fault.NotFound's message.
		notFound string
	}{
		{name: "accept", choice: scan.ChoiceAccept, id: "00instr", entries: withLock, disclosed: withLockDisclosed},
		{name: "reject", choice: scan.ChoiceReject, id: "00instr", entries: withLock, disclosed: withLockDisclosed},
		{name: "withdraw", choice: scan.ChoiceWithdraw, id: "00instr", entries: withLock, disclosed: withLockDisclosed},
		{name: "accept, the lock gone", lockArchived: true, choice: scan.ChoiceAccept, id: "00instr",
			notFound: "LockedAmulet 'Some(ContractId(00locked))' not found for AmuletTransferInstruction '00instr', which expires on Some(1970-01-02T00:00:00.000000Z)"},
		{name: "reject, the lock gone", lockArchived: true, choice: scan.ChoiceReject, id: "00instr", entries: "expire-lock=false"},
		{name: "withdraw, the lock gone", lockArchived: true, choice: scan.ChoiceWithdraw, id: "00instr", entries: "expire-lock=false"},
		{name: "unknown", choice: scan.ChoiceAccept, id: "00nope", notFound: "AmuletTransferInstruction '00nope' not found."},
		{name: "another template", choice: scan.ChoiceReject, id: "00amulet", notFound: "AmuletTransferInstruction '00amulet' not found."},
		{name: "archived", choice: scan.ChoiceWithdraw, id: "00gone", notFound: "AmuletTransferInstruction '00gone' not found."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc, _ := instructionEnv(t, tc.lockArchived)
			cc, err := svc.TransferInstructionContext(context.Background(), tc.id, tc.choice)
			if tc.notFound != "" {
				if !fault.Is(err, fault.NotFound) || !strings.HasPrefix(err.Error(), tc.notFound) {
					t.Fatalf("got %v, want not found %q", err, tc.notFound)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := entriesOf(cc); got != tc.entries {
				t.Errorf("entries %s, want %s", got, tc.entries)
			}
			if got := disclosedOf(cc); got != tc.disclosed {
				t.Errorf("disclosed %s, want %s", got, tc.disclosed)
			}
			if cc.Synchronizer != "global::1220" {
				t.Errorf("synchronizer %s", cc.Synchronizer)
			}
		})
	}
}

// TestTransferInstructionContextAwaitsIngestion: an instruction the
// participant has committed and the Scan has not ingested yet (a wallet
// asking for its accept context as soon as its ledger shows it) is found
// once ingestion catches up, rather than answered 404.
func TestTransferInstructionContextAwaitsIngestion(t *testing.T) {
	t.Parallel()
	for _, choice := range []scan.TransferInstructionChoice{scan.ChoiceAccept, scan.ChoiceReject, scan.ChoiceWithdraw} {
		t.Run(string(choice), func(t *testing.T) {
			t.Parallel()
			svc, instr := instructionEnv(t, false)
			st := svc.Store.(*fakeStore)
			// the instruction is not ingested yet: the Scan is at offset 1,
			// the participant at 2
			st.contracts = slices.DeleteFunc(st.contracts, func(c *ledger.Contract) bool { return c.ID == instr.ID })
			st.cursor = 1
			svc.Source = fakeSource{now: 500, end: 2}
			go func() {
				time.Sleep(30 * time.Millisecond)
				st.ingest(2, instr)
			}()
			start := time.Now()
			cc, err := svc.TransferInstructionContext(context.Background(), instr.ID, choice)
			if err != nil {
				t.Fatal(err)
			}
			if got := disclosedOf(cc); !strings.HasSuffix(got, "00locked") {
				t.Errorf("disclosed %s", got)
			}
			if d := time.Since(start); d >= scan.IngestWait {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestTransferFactoryKinds(t *testing.T) {
	t.Parallel()
	svc, _ := instructionEnv(t, false)
	base, disclosedBase := "amulet-rules=00rules open-round=00round2 external-party-config-state=00state-later", "00rules 00round2 00state-later"
	for _, tc := range []struct {
		sender, receiver  daml.Party
		kind              scan.TransferKind
		entries, disclose string
	}{
		{"alice::1", "alice::1", scan.TransferSelf, base, disclosedBase},
		{"carol::1", "carol::1", scan.TransferSelf, base, disclosedBase},
		{"alice::1", "bob::1", scan.TransferOffer, base, disclosedBase},
		{"alice::1", "carol::1", scan.TransferDirect, base + " featured-app-right=00featured transfer-preapproval=00pre-carol", disclosedBase + " 00featured 00pre-carol"},
		{"alice::1", "dave::1", scan.TransferDirect, base + " transfer-preapproval=00pre-dave", disclosedBase + " 00pre-dave"},
	} {
		f, err := svc.TransferFactory(context.Background(), tc.sender, tc.receiver)
		if err != nil {
			t.Fatal(err)
		}
		if f.Kind != tc.kind || f.Factory.ID != "00epar" {
			t.Errorf("%s→%s: %s %s", tc.sender, tc.receiver, f.Kind, f.Factory.ID)
		}
		if got := entriesOf(f.Context); got != tc.entries {
			t.Errorf("%s→%s: entries %s, want %s", tc.sender, tc.receiver, got, tc.entries)
		}
		if got := disclosedOf(f.Context); got != tc.disclose+" 00epar" {
			t.Errorf("%s→%s: disclosed %s", tc.sender, tc.receiver, got)
		}
	}
}

// TestTransferContextEdges: the config state is named only while exactly
// two are live (Splice pairs them), and a network whose rounds have not
// opened answers Splice's 404.
func TestTransferContextEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		archive  []daml.ContractID
		entries  string
		notFound string
	}{
		{name: "one config state", archive: []daml.ContractID{"00state-earlier"}, entries: "amulet-rules=00rules open-round=00round2"},
		{name: "no config state", archive: []daml.ContractID{"00state-earlier", "00state-later"}, entries: "amulet-rules=00rules open-round=00round2"},
		{name: "only a future round", archive: []daml.ContractID{"00round1", "00round2"}, notFound: "No open usable OpenMiningRound found."},
		{name: "no factory", archive: []daml.ContractID{"00epar"}, notFound: "No active ExternalPartyAmuletRules contract"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc, _ := instructionEnv(t, false)
			st := svc.Store.(*fakeStore)
			for _, id := range tc.archive {
				st.archived[id] = true
			}
			f, err := svc.TransferFactory(context.Background(), "alice::1", "bob::1")
			if tc.notFound != "" {
				if !fault.Is(err, fault.NotFound) || err.Error() != tc.notFound {
					t.Fatalf("got %v, want not found %q", err, tc.notFound)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := entriesOf(f.Context); got != tc.entries {
				t.Errorf("entries %s, want %s", got, tc.entries)
			}
		})
	}
}
