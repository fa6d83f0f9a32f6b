package ledgerapi_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// A contract of alice's archived while the participant did not host her
// (she is hosted again now) is not in her active contracts: the replay
// through her own updates, which lack that archival, gives way to the
// whole stream.
func TestActiveContractsHostingGap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	v := e.seeded.Validator.Participant
	alice, bob := e.party("alice"), e.party("bob")
	submit := func(id string, run func(tx *ledger.Tx) error) *ledger.Transaction {
		t.Helper()
		tx, err := e.net.Submit(ctx, ledger.Command{Participant: v, UserID: "bob", ActAs: []daml.Party{bob}, CommandID: id, Run: run})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	offer := func(tracking string) splice.TransferOffer {
		return splice.TransferOffer{Sender: bob, Receiver: alice, DSO: e.seeded.DSOParty,
			Amount:    splice.PaymentAmount{Amount: daml.MustNumeric("1.0"), Unit: splice.AmuletUnit},
			ExpiresAt: e.net.Clock().Now() + 3600_000_000, TrackingID: tracking}
	}
	created := submit("gap-create", func(tx *ledger.Tx) error {
		if _, err := ledger.Create(tx, offer("archived-in-the-gap")); err != nil {
			return err
		}
		_, err := ledger.Create(tx, offer("still-active"))
		return err
	}).Created()
	gone := created[0].ID
	// Alice keeps a hosting elsewhere while she leaves the validator's.
	if _, err := e.net.ChangeHosting(ctx, alice, e.seeded.SVs[0].Participant, ledger.PermissionObservation); err != nil {
		t.Fatal(err)
	}
	if _, err := e.net.RevokeHosting(ctx, alice, v); err != nil {
		t.Fatal(err)
	}
	submit("gap-archive", func(tx *ledger.Tx) error { return tx.Archive(gone) })
	if _, err := e.net.ChangeHosting(ctx, alice, v, ledger.PermissionSubmission); err != nil {
		t.Fatal(err)
	}
	h, err := e.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := strconv.FormatInt(int64(h.Offsets[v]), 10)
	rec := e.post(t, options{}, "/v2/state/active-contracts", admin, e.expand(acsBody(at, byParty("{alice}", templateFilter("#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer", false)))))
	body := rec.Body.String()
	if n := len(decodeACS(t, rec)); n != 1 || !strings.Contains(body, "still-active") {
		t.Errorf("alice's transfer offers: %d, want only the one still active: %.2000s", n, body)
	}
}
