package validator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/testnet"
	"github.com/sandnet/sandnet/internal/validator"
)

// directOffer creates an offer from w on the ledger directly
// (testnet.DirectOffer), with the checks of the template only.
func (e *env) directOffer(t testing.TB, w validator.Wallet, receiver daml.Party, amount, trackingID string) daml.ContractID {
	t.Helper()
	return testnet.DirectOffer(t, e.net, e.seeded.Validator.Participant, w.User, splice.TransferOffer{
		Sender: w.Party, Receiver: receiver, DSO: e.seeded.DSOParty,
		Amount: splice.Amulets(num(amount)), Description: "direct", ExpiresAt: e.now() + 1e10, TrackingID: trackingID,
	})
}

// restart replaces the validator by a new one on the same ledger and a
// reopened store, as a restarted process has.
func (e *env) restart(t testing.TB) {
	t.Helper()
	if err := e.vs.Close(); err != nil {
		t.Fatal(err)
	}
	vs, err := sqlitestore.OpenValidator(context.Background(), e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vs.Close() })
	e.vs = vs
	e.v = validator.New(e.v.Config(), e.net, ledgerScan{s: e.net.Store(), dso: e.seeded.DSOParty}, vs, nil)
}

// TestLogSurvivesUnrecordableSteps feeds the transaction log, through the
// ledger rather than the wallet API, offer steps it cannot record: an
// empty tracking id, one with a NUL (PostgreSQL text refuses it), a
// withdrawal with a NUL and a very long reason. Every user's offers and
// status lookups keep working, also after a restart, and the reason is
// stored cleaned.
func TestLogSurvivesUnrecordableSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	e.directOffer(t, alice, bob.Party, "1.0", "")
	e.directOffer(t, alice, bob.Party, "1.0", "nul\x00inside")
	long := e.directOffer(t, alice, bob.Party, "1.0", "long-reason")
	if _, err := e.net.Submit(ctx, ledger.Command{
		Participant: e.seeded.Validator.Participant, UserID: alice.User, ActAs: []daml.Party{alice.Party},
		CommandID: splice.CommandID("direct-withdraw"),
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.TransferOfferWithdrawResult](tx, long, "TransferOffer_Withdraw",
				splice.TransferOfferWithdraw{Reason: "why\x00" + strings.Repeat("x", 1<<20)})
			return err
		},
	}); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T) {
		t.Helper()
		for _, w := range []validator.Wallet{alice, bob} {
			id := "after-" + w.User + "-" + t.Name()
			to := bob.Party
			if w == bob {
				to = alice.Party
			}
			if _, err := e.v.CreateOffer(ctx, w, validator.OfferRequest{Receiver: to, Amount: num("1.0"), ExpiresAt: e.now() + 1e10, TrackingID: id}); err != nil {
				t.Fatalf("%s's offer after the odd steps: %v", w.User, err)
			}
			if st := e.status(t, w, id); st.State != validator.TransferCreated {
				t.Errorf("%s's status: %+v", w.User, st)
			}
		}
		st := e.status(t, bob, "long-reason")
		if st.State != validator.TransferFailed || !strings.HasPrefix(st.Reason, "why\uFFFDxxx") || len(st.Reason) > validator.MaxReasonBytes {
			t.Errorf("withdrawn with a long reason: state %s, reason %.40q (%d bytes)", st.State, st.Reason, len(st.Reason))
		}
		for _, id := range []string{"", "nul\x00inside"} {
			if _, err := e.v.TransferStatus(ctx, alice, id); !fault.Is(err, fault.NotFound) {
				t.Errorf("status of the skipped offer %q: %v, want NotFound", id, err)
			}
		}
	}
	t.Run("running", check)
	e.restart(t)
	t.Run("restarted", check)
}

// TestCreateOfferRefuses checks the wallet's refusals of offers the
// ledger would take but no one could use.
func TestCreateOfferRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	nobody := ledger.PartyID("nobody", ledger.Fingerprint("hardening", "nobody"))
	tests := []struct {
		name string
		edit func(r *validator.OfferRequest)
		kind fault.Kind
		code string
	}{
		{"amount 0", func(r *validator.OfferRequest) { r.Amount = num("0") }, fault.InvalidArgument, ""},
		{"amount -5", func(r *validator.OfferRequest) { r.Amount = num("-5") }, fault.InvalidArgument, ""},
		{"amount -0.0000000001", func(r *validator.OfferRequest) { r.Amount = num("-0.0000000001") }, fault.InvalidArgument, ""},
		{"expiry past", func(r *validator.OfferRequest) { r.ExpiresAt = e.now() - 1 }, fault.InvalidArgument, ""},
		{"expiry now", func(r *validator.OfferRequest) { r.ExpiresAt = e.now() }, fault.InvalidArgument, ""},
		{"unknown receiver", func(r *validator.OfferRequest) { r.Receiver = nobody }, fault.NotFound, "UNKNOWN_INFORMEES"},
		// Last: on a wallet without these checks, the empty tracking id
		// stopped the log for every later request.
		{"empty tracking id", func(r *validator.OfferRequest) { r.TrackingID = "" }, fault.InvalidArgument, ""},
		{"NUL in the tracking id", func(r *validator.OfferRequest) { r.TrackingID = "a\x00b" }, fault.InvalidArgument, ""},
		{"tracking id \"..\"", func(r *validator.OfferRequest) { r.TrackingID = ".." }, fault.InvalidArgument, ""},
		{"tracking id \".\"", func(r *validator.OfferRequest) { r.TrackingID = "." }, fault.InvalidArgument, ""},
		{"tracking id of 1 MiB", func(r *validator.OfferRequest) { r.TrackingID = strings.Repeat("t", 1<<20) }, fault.InvalidArgument, ""},
	}
	for _, tc := range tests {
		r := validator.OfferRequest{Receiver: bob.Party, Amount: num("1.0"), ExpiresAt: e.now() + 1e10, TrackingID: "refused"}
		tc.edit(&r)
		_, err := e.v.CreateOffer(ctx, alice, r)
		f, ok := fault.As(err)
		if !ok || f.Kind != tc.kind || f.Code != tc.code {
			t.Errorf("%s: %v, want %s %s", tc.name, err, tc.kind, tc.code)
			continue
		}
		if len(f.Message) > 2*256+200 {
			t.Errorf("%s: message of %d bytes quotes too much", tc.name, len(f.Message))
		}
	}
	// The smallest positive amount, and an expiry a microsecond ahead,
	// are fine.
	if _, err := e.v.CreateOffer(ctx, alice, validator.OfferRequest{Receiver: bob.Party, Amount: num("0.0000000001"), ExpiresAt: e.now() + 1, TrackingID: "tiny"}); err != nil {
		t.Errorf("smallest offer: %v", err)
	}
	if _, err := e.v.Tap(ctx, alice, num("-5"), ""); !fault.Is(err, fault.InvalidArgument) {
		t.Errorf("tap of -5: %v, want InvalidArgument", err)
	}
}

// TestAutomationAbortsNonPositiveOffers accepts offers of non-positive
// amounts created on the ledger directly: the sender's automation ends
// each one (failed, withdrawn, with the true reason) instead of retrying a
// transfer that cannot succeed.
func TestAutomationAbortsNonPositiveOffers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	for _, amount := range []string{"0", "-5", "-0.0000000001"} {
		cid := e.directOffer(t, alice, bob.Party, amount, "amount "+amount)
		if _, err := e.v.AcceptOffer(ctx, bob, cid); err != nil {
			t.Fatal(err)
		}
	}
	e.step(t)
	for _, amount := range []string{"0", "-5", "-0.0000000001"} {
		st := e.status(t, alice, "amount "+amount)
		want := "Transfer amount in CC must be positive, got " + num(amount).String()
		if st.State != validator.TransferFailed || st.FailureKind != validator.FailureWithdrawn || st.Reason != want {
			t.Errorf("offer of %s after the automation: %s/%s %q, want failed/withdrawn %q", amount, st.State, st.FailureKind, st.Reason, want)
		}
	}
	e.checkSupply(t)
}
