package ledger_test

import (
	"context"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
)

// externalOn hosts an external party with a fresh Ed25519 key on
// participant p and returns it with its key.
func externalOn(t *testing.T, net *ledger.Network, p ledger.ParticipantID, hint string) (daml.Party, signingtest.Ed25519) {
	t.Helper()
	key := signingtest.SeqEd25519(t, 7)
	pub := key.Public
	pub.Usage = []signing.Usage{signing.UsageNamespace, signing.UsageProofOfOwnership, signing.UsageProtocol}
	party := ledger.PartyID(hint, key.Fingerprint())
	spec := ledger.ExternalPartySpec{Participant: p}
	spec.Party, spec.Keys, spec.Threshold = party, []signing.PublicKey{pub}, 1
	spec.Hosts = []ledger.Hosting{{Participant: p, Permission: ledger.PermissionConfirmation}}
	ok, err := net.AllocateExternalParty(context.Background(), spec)
	if err != nil || !ok {
		t.Fatalf("allocate %s: %v (authorized %v)", party, err, ok)
	}
	return party, key
}

// TestExecuteReinterprets executes a prepared transaction (an external
// party transferring an IOU: an exercise with an input contract and a
// create under it) once with the preparation's interpretation at hand and
// once without, as after a restart: both commit the same transaction,
// with the ids the preparation fixed.
func TestExecuteReinterprets(t *testing.T) {
	t.Parallel()
	var committed [2]*ledger.Transaction
	for i, forget := range []bool{false, true} {
		b := setup(t)
		ctx := context.Background()
		ext, key := externalOn(t, b.net, b.p1, "ext")
		cid := b.issue(t, ext, "10")
		ref := iouID.Identifier
		prep, err := b.net.Prepare(ctx, ledger.Command{
			Participant: b.p1, UserID: "u", ActAs: []daml.Party{ext}, CommandID: "transfer",
			Run: ledger.RunCommands([]ledger.APICommand{{Exercise: &ledger.ExerciseCommand{
				Template: ref, ContractID: cid, Choice: "Iou_Transfer",
				Argument: &daml.Record{Fields: []daml.Field{{Label: "newOwner", Value: b.bob}}},
			}}}),
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if forget {
			ledger.ForgetPrepared(b.net)
		}
		sig := key.Sign(prep.Hashes.Final[:])
		tx, c, err := b.net.ExecuteAndWait(ctx, ledger.ExecuteSpec{
			Participant: b.p1, UserID: "u", SubmissionID: "s", Prepared: prep.Transaction,
			Signatures: []ledger.PartySignatures{{Party: ext, Signatures: []signing.Signature{sig}}},
		})
		if err != nil {
			t.Fatalf("forget=%v: execute: %v", forget, err)
		}
		if c.UpdateID != tx.UpdateID {
			t.Errorf("completion of %s, transaction %s", c.UpdateID, tx.UpdateID)
		}
		created := tx.Created()
		if len(created) != 1 || created[0].Argument.Get("owner") != b.bob {
			t.Fatalf("forget=%v: created %v", forget, created)
		}
		// The contract id is the prepared one with its suffix.
		var prepared daml.ContractID
		for _, n := range prep.Transaction.Transaction.Nodes {
			if n.Create != nil {
				prepared = n.Create.ContractID
			}
		}
		if got := created[0].ID; len(got) <= len(prepared) || got[:len(prepared)] != prepared {
			t.Errorf("forget=%v: committed %s, prepared %s", forget, got, prepared)
		}
		if _, active, err := b.net.Store().Contract(ctx, cid); err != nil || active {
			t.Errorf("forget=%v: the input is still active (%v)", forget, err)
		}
		committed[i] = tx
	}
	if a, b := committed[0].Created()[0].ID, committed[1].Created()[0].ID; a != b {
		t.Errorf("with the preparation's interpretation %s, re-interpreted %s", a, b)
	}
}
