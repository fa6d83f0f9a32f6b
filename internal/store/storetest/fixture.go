package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The fixture network.
var (
	sync1 = ledger.Synchronizer{
		ID:    ledger.NewSynchronizerID("global-domain", ledger.Fingerprint("storetest", "sync")),
		Alias: "global",
	}
	par1 = ledger.Participant{ID: ledger.NewParticipantID("sv1", ledger.Fingerprint("storetest", "p1")), Name: "sv1"}
	par2 = ledger.Participant{ID: ledger.NewParticipantID("app", ledger.Fingerprint("storetest", "p2")), Name: "app"}

	alice = ledger.PartyID("alice", ledger.Fingerprint("storetest", "alice"))
	bob   = ledger.PartyID("bob", ledger.Fingerprint("storetest", "bob"))
	dso   = ledger.PartyID("DSO", ledger.Fingerprint("storetest", "dso"))
)

// Templates. amuletV2 is an upgrade of amulet (same package name, other
// package id); otherAmulet has the same module and entity in another
// package, so a filter must tell them apart by package name.
var (
	amulet = ledger.TemplateID{
		Identifier:  daml.Identifier{PackageID: hexID("splice-amulet-0.1.9"), ModuleName: "Splice.Amulet", EntityName: "Amulet"},
		PackageName: "splice-amulet",
	}
	amuletV2 = ledger.TemplateID{
		Identifier:  daml.Identifier{PackageID: hexID("splice-amulet-0.1.10"), ModuleName: "Splice.Amulet", EntityName: "Amulet"},
		PackageName: "splice-amulet",
	}
	locked = ledger.TemplateID{
		Identifier:  daml.Identifier{PackageID: hexID("splice-amulet-0.1.9"), ModuleName: "Splice.Amulet", EntityName: "LockedAmulet"},
		PackageName: "splice-amulet",
	}
	otherAmulet = ledger.TemplateID{
		Identifier:  daml.Identifier{PackageID: hexID("other-0.0.1"), ModuleName: "Splice.Amulet", EntityName: "Amulet"},
		PackageName: "other",
	}
)

// baseTime is the record time of the first fixture transaction:
// 2026-01-01T00:00:00Z in microseconds.
const baseTime daml.Timestamp = 1767225600_000000

func hexID(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// setupNetwork writes the fixture topology: the synchronizer, both
// participants, and hostings of alice and the DSO on par1 and of bob on
// par2.
func setupNetwork(t testing.TB, s ledger.Store) {
	t.Helper()
	ctx := context.Background()
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		if err := w.PutSynchronizer(ctx, sync1); err != nil {
			return err
		}
		for _, p := range []ledger.Participant{par1, par2} {
			if err := w.PutParticipant(ctx, p); err != nil {
				return err
			}
		}
		for _, h := range []ledger.Hosting{
			{Party: alice, Participant: par1.ID, Synchronizer: sync1.ID, Permission: ledger.PermissionSubmission},
			{Party: dso, Participant: par1.ID, Synchronizer: sync1.ID, Permission: ledger.PermissionConfirmation},
			{Party: bob, Participant: par2.ID, Synchronizer: sync1.ID, Permission: ledger.PermissionSubmission},
		} {
			if err := w.PutHosting(ctx, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("setup network: %v", err)
	}
}

// create describes a contract for [spec] to create.
type create struct {
	tmpl     ledger.TemplateID
	sig, obs []daml.Party
	amount   string
}

// spec describes a fixture transaction: it archives the consumes (one
// consuming exercise each, as roots) and then creates the creates (as
// children of the first exercise, or as roots when there is none), and goes
// to the streams of the participants in on (par1 when empty).
type spec struct {
	consumes  []daml.ContractID
	creates   []create
	on        []ledger.ParticipantID
	migration *int64 // nil: the head's
}

// build makes the transaction spec describes at the position after h: the
// next sequence number, a record time after the last, the next offset of
// each participant.
func build(h ledger.Head, sp spec) (*ledger.Transaction, map[ledger.ParticipantID]ledger.Offset) {
	seq := h.Sequence + 1
	mig := h.MigrationID
	if sp.migration != nil {
		mig = *sp.migration
	}
	rt := baseTime
	if h.LastRecordTime > 0 {
		rt = h.LastRecordTime + 1000
	}
	updateID := "1220" + hexID(fmt.Sprintf("storetest/update/%d", seq))
	tx := &ledger.Transaction{
		UpdateID:     updateID,
		WorkflowID:   fmt.Sprintf("wf-%d", seq),
		Submission:   ledger.Submission{Participant: par1.ID, UserID: "alice-user", ActAs: []daml.Party{alice}, CommandID: fmt.Sprintf("cmd-%d", seq)},
		Synchronizer: sync1.ID,
		MigrationID:  mig,
		RecordTime:   rt,
		EffectiveAt:  rt - 250,
		TraceContext: ledger.TraceContext{TraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
	}
	node := int32(0)
	for _, cid := range sp.consumes {
		tx.Roots = append(tx.Roots, node)
		tx.Events = append(tx.Events, ledger.Event{
			NodeID: node,
			Exercised: &ledger.Exercised{
				ContractID:     cid,
				Template:       amulet,
				Choice:         "Archive",
				ChoiceArgument: &daml.Record{ID: &daml.Identifier{PackageID: amulet.PackageID, ModuleName: "DA.Internal.Template", EntityName: "Archive"}},
				ActingParties:  []daml.Party{alice},
				Consuming:      true,
				LastDescendant: node,
				ExerciseResult: daml.Unit{},
				Stakeholders:   []daml.Party{alice},
			},
			Witnesses: []daml.Party{alice},
		})
		node++
	}
	parent := -1
	if len(tx.Events) > 0 {
		parent = 0
	}
	for _, c := range sp.creates {
		if parent < 0 {
			tx.Roots = append(tx.Roots, node)
		} else {
			x := tx.Events[parent].Exercised
			x.Children = append(x.Children, node)
			x.LastDescendant = node
		}
		k := &ledger.Contract{
			ID:           daml.ContractID("00" + hexID(fmt.Sprintf("%s/%d", updateID, node)) + "ca111220" + hexID(fmt.Sprint(node))),
			Template:     c.tmpl,
			Argument:     argument(c),
			Signatories:  c.sig,
			Observers:    c.obs,
			CreatedAt:    tx.EffectiveAt,
			CreatedBy:    updateID,
			Synchronizer: sync1.ID,
			MigrationID:  mig,
		}
		tx.Events = append(tx.Events, ledger.Event{NodeID: node, Created: k, Witnesses: k.Stakeholders()})
		node++
	}
	on := sp.on
	if len(on) == 0 {
		on = []ledger.ParticipantID{par1.ID}
	}
	offsets := map[ledger.ParticipantID]ledger.Offset{}
	for _, p := range on {
		offsets[p] = h.Offsets[p] + 1
	}
	return tx, offsets
}

// argument is a contract payload that uses every kind of Daml value, so
// that the stored encoding is exercised on all of them.
func argument(c create) *daml.Record {
	amount := c.amount
	if amount == "" {
		amount = "1.0"
	}
	return &daml.Record{
		ID: &c.tmpl.Identifier,
		Fields: []daml.Field{
			{Label: "dso", Value: dso},
			{Label: "owner", Value: c.sig[0]},
			{Label: "amount", Value: &daml.Record{Fields: []daml.Field{
				{Label: "initialAmount", Value: daml.MustNumeric(amount)},
				{Label: "createdAt", Value: &daml.Record{Fields: []daml.Field{{Label: "number", Value: daml.Int64(42)}}}},
				{Label: "ratePerRound", Value: &daml.Record{Fields: []daml.Field{{Label: "rate", Value: daml.MustNumeric("0.0000190259")}}}},
			}}},
			{Label: "note", Value: daml.Text("héllo \"world\" ✓\n")},
			{Label: "lock", Value: daml.None},
			{Label: "expiresAt", Value: daml.Some(daml.Timestamp(baseTime + 3600_000000))},
			{Label: "tags", Value: daml.List{daml.Text("a"), daml.Text("b")}},
			{Label: "meta", Value: daml.TextMap{{Key: "k", Value: daml.Text("v")}}},
			{Label: "weights", Value: daml.GenMap{{Key: daml.Int64(-1), Value: daml.Bool(true)}}},
			{Label: "kind", Value: &daml.Variant{Constructor: "Transfer", Value: daml.Unit{}}},
			{Label: "color", Value: &daml.Enum{Constructor: "Red"}},
			{Label: "day", Value: daml.Date(20454)},
			{Label: "ref", Value: daml.ContractID("00" + hexID("ref"))},
		},
	}
}

// appendTx builds the transaction sp describes from the head read inside
// the write transaction, as the engine does, and appends it.
func appendTx(ctx context.Context, s ledger.Store, sp spec) (*ledger.Transaction, error) {
	var out *ledger.Transaction
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		h, err := w.Head(ctx)
		if err != nil {
			return err
		}
		tx, offsets := build(h, sp)
		if err := w.AppendTransaction(ctx, tx, offsets); err != nil {
			return err
		}
		out = tx
		return nil
	})
	return out, err
}

// mustAppend is appendTx that fails the test on error.
func mustAppend(t testing.TB, s ledger.Store, sp spec) *ledger.Transaction {
	t.Helper()
	tx, err := appendTx(context.Background(), s, sp)
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	return tx
}

// cmpOpts compares domain values: Numerics by value (they hold an apd
// decimal), and nil and empty slices and maps alike (the store may return
// either).
var cmpOpts = []cmp.Option{
	cmp.Comparer(func(a, b daml.Numeric) bool { return a.Cmp(b) == 0 }),
	cmpopts.EquateEmpty(),
}

// ids returns the ids of contracts.
func ids(cs []*ledger.Contract) []daml.ContractID {
	out := make([]daml.ContractID, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}
