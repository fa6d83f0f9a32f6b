package ledger_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// importStores are the stores the import tests run on: the engine op is
// store-neutral, but it must commit the same on both adapters.
var importStores = []struct {
	name string
	open func(t testing.TB) ledger.Store
}{
	{"sqlite", func(t testing.TB) ledger.Store {
		s, err := sqlitestore.OpenLedger(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"postgres", openPostgres},
}

// foreignIou is an Iou contract as another ledger created it: its own id
// (in Canton's shape) and creation time.
func foreignIou(n int, issuer, owner daml.Party, amount string, at daml.Timestamp) *ledger.Contract {
	v, err := daml.FromGo(Iou{Issuer: issuer, Owner: owner, Amount: daml.MustNumeric(amount)})
	if err != nil {
		panic(err)
	}
	return &ledger.Contract{
		ID:       daml.ContractID(fmt.Sprintf("00%064xca1112200%063x", n, n)),
		Template: iouID, Argument: v.(*daml.Record),
		Signatories: []daml.Party{issuer}, Observers: []daml.Party{owner}, CreatedAt: at,
	}
}

// TestForkImport imports contracts of another ledger: they keep their ids,
// payloads, parties and creation times, are committed in chunks as
// transactions of created events with the fork workflow id, reach the
// streams of the participants hosting their stakeholders, and can be
// exercised afterwards like any contract.
func TestForkImport(t *testing.T) {
	t.Parallel()
	for _, st := range importStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, st.open(t))
			ctx := context.Background()
			created := daml.Timestamp(1_700_000_000_000_000)
			in := []*ledger.Contract{
				foreignIou(1, b.bank, b.alice, "10", created),
				foreignIou(2, b.bank, b.bob, "20", created+1),
				foreignIou(3, b.bank, b.alice, "30", created+2),
			}
			before, err := b.net.Store().Head(ctx)
			if err != nil {
				t.Fatal(err)
			}
			txs, err := b.net.Import(ctx, in, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(txs) != 2 || len(txs[0].Events) != 2 || len(txs[1].Events) != 1 {
				t.Fatalf("Import made %d transactions; want 2 of 2 and 1 created events", len(txs))
			}
			for _, tx := range txs {
				if tx.WorkflowID != ledger.ForkImportWorkflowID || tx.UpdateID == "" || tx.RecordTime <= before.LastRecordTime {
					t.Errorf("import transaction %+v: want workflow %q, an update id and a record time after the head", tx, ledger.ForkImportWorkflowID)
				}
				stored, err := b.net.Store().Transaction(ctx, tx.UpdateID)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range stored.Events {
					if e.Created == nil || e.Exercised != nil {
						t.Errorf("import transaction %s has a node that is not a create: %+v", tx.UpdateID, e)
					}
				}
			}
			for _, want := range in {
				got, active, err := b.net.Store().Contract(ctx, want.ID)
				if err != nil || !active {
					t.Fatalf("imported contract %s: active=%v err=%v", want.ID, active, err)
				}
				if got.CreatedAt != want.CreatedAt || !daml.Equal(got.Argument, want.Argument) ||
					!slices.Equal(got.Signatories, want.Signatories) || !slices.Equal(got.Observers, want.Observers) {
					t.Errorf("imported contract %s = %+v; want %+v", want.ID, got, want)
				}
			}
			// p1 hosts the bank: it sees both transactions; p2 hosts bob:
			// only the first, with his IOU.
			for _, c := range []struct {
				p    ledger.ParticipantID
				want []string
			}{
				{b.p1, []string{txs[0].UpdateID, txs[1].UpdateID}},
				{b.p2, []string{txs[0].UpdateID}},
			} {
				ups, err := b.net.Store().Updates(ctx, ledger.UpdateQuery{Participant: c.p, After: before.Offsets[c.p]})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, u := range ups {
					got = append(got, u.UpdateID())
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("stream of %s after the import: %v; want %v", c.p, got, c.want)
				}
			}
			// An imported contract is a contract like any other.
			if _, err := b.net.Submit(ctx, ledger.Command{
				Participant: b.p2, ActAs: []daml.Party{b.bob},
				Run: func(tx *ledger.Tx) error {
					_, err := ledger.Exercise[daml.ContractID](tx, in[1].ID, "Iou_Transfer", Transfer{NewOwner: b.alice})
					return err
				},
			}); err != nil {
				t.Errorf("exercise an imported contract: %v", err)
			}
		})
	}
}

// TestForkImportRefused checks that Import refuses, with nothing committed,
// what it cannot import faithfully.
func TestForkImportRefused(t *testing.T) {
	t.Parallel()
	for _, st := range importStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, st.open(t))
			ctx := context.Background()
			existing := foreignIou(9, b.bank, b.alice, "1", 1)
			if _, err := b.net.Import(ctx, []*ledger.Contract{existing}, 0); err != nil {
				t.Fatal(err)
			}
			stranger := ledger.PartyID("stranger", ledger.Fingerprint("test", "stranger"))
			unknown := foreignIou(1, b.bank, b.alice, "1", 1)
			unknown.Template.PackageID = "ff"
			wrongParties := foreignIou(2, b.bank, b.alice, "1", 1)
			wrongParties.Observers = []daml.Party{b.bob}
			tests := []struct {
				name string
				in   []*ledger.Contract
				kind fault.Kind
			}{
				{"unknown template", []*ledger.Contract{unknown}, fault.NotFound},
				{"twice", []*ledger.Contract{foreignIou(3, b.bank, b.alice, "1", 1), foreignIou(3, b.bank, b.alice, "1", 1)}, fault.InvalidArgument},
				{"already on the ledger", []*ledger.Contract{foreignIou(4, b.bank, b.alice, "1", 1), existing}, fault.AlreadyExists},
				{"unhosted stakeholder", []*ledger.Contract{foreignIou(5, b.bank, stranger, "1", 1)}, fault.FailedPrecondition},
				{"parties not the payload's", []*ledger.Contract{wrongParties}, fault.InvalidArgument},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					before, err := b.net.Store().Head(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := b.net.Import(ctx, tc.in, 0); !fault.Is(err, tc.kind) {
						t.Errorf("Import: %v; want %v", err, tc.kind)
					}
					after, err := b.net.Store().Head(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if after.Sequence != before.Sequence {
						t.Errorf("a refused Import committed %d updates", after.Sequence-before.Sequence)
					}
				})
			}
		})
	}
}

// TestForkAddSynchronizerID adds a synchronizer under another network's id,
// as a fork does: once, idempotently, and only with a well-formed id.
func TestForkAddSynchronizerID(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	foreign := ledger.NewSynchronizerID("global-domain", ledger.Fingerprint("elsewhere", "sync"))
	tests := []struct {
		name string
		id   ledger.SynchronizerID
		kind fault.Kind
		ok   bool
	}{
		{"new", foreign, 0, true},
		{"again", foreign, 0, true},
		{"no fingerprint", "global-domain", fault.InvalidArgument, false},
		{"no alias", "::1220ab", fault.InvalidArgument, false},
	}
	for _, tc := range tests {
		s, err := b.net.AddSynchronizerID(ctx, tc.id)
		if !tc.ok {
			if !fault.Is(err, tc.kind) {
				t.Errorf("%s: AddSynchronizerID(%q) = %v; want %v", tc.name, tc.id, err, tc.kind)
			}
			continue
		}
		if err != nil || s.ID != tc.id || s.Alias != "global-domain" || s.MigrationID != 0 {
			t.Errorf("%s: AddSynchronizerID = %+v, %v", tc.name, s, err)
		}
	}
	syncs, err := b.net.Store().Synchronizers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range syncs {
		if s.ID == foreign {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the store holds %s %d times; want once", foreign, n)
	}
}

// TestObserversAreNotSignatories checks that a contract's observers never
// name a signatory, as Canton reports them, whether it is created by a
// command or imported from another ledger (which reports them that way,
// or not): an IOU a bank issues to itself has the bank as signatory and
// no observer, and one with a viewer has only the viewer.
func TestObserversAreNotSignatories(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	imported := func(n int, observers ...daml.Party) *ledger.Contract {
		c := foreignIou(n, b.bank, b.bank, "1", 1)
		c.Observers = observers
		return c
	}
	tests := []struct {
		name    string
		viewers []daml.Party
		// in is the contract to import; nil creates one by a command
		in   *ledger.Contract
		want []daml.Party
	}{
		{name: "created, owned by its issuer", want: nil},
		{name: "created, owned by its issuer, with a viewer", viewers: []daml.Party{b.alice, b.bank}, want: []daml.Party{b.alice}},
		{name: "imported, as Canton reports it", in: imported(1), want: nil},
		{name: "imported, naming the signatory as observer too", in: imported(2, b.bank), want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cid daml.ContractID
			if tc.in == nil {
				tx, err := b.net.Submit(ctx, ledger.Command{
					Participant: b.p1, ActAs: []daml.Party{b.bank},
					Run: func(tx *ledger.Tx) error {
						_, err := ledger.Create(tx, Iou{Issuer: b.bank, Owner: b.bank, Amount: daml.MustNumeric("1"), Viewers: tc.viewers})
						return err
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				cid = tx.Created()[0].ID
			} else {
				if _, err := b.net.Import(ctx, []*ledger.Contract{tc.in}, 0); err != nil {
					t.Fatal(err)
				}
				cid = tc.in.ID
			}
			c, _, err := b.net.Store().Contract(ctx, cid)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Signatories, []daml.Party{b.bank}) || !slices.Equal(c.Observers, tc.want) {
				t.Errorf("signatories %v, observers %v; want [%s] and %v", c.Signatories, c.Observers, b.bank, tc.want)
			}
		})
	}
}
