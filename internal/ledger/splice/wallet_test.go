package splice_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

func (s seeded) install(t testing.TB, user daml.Party) daml.ContractID {
	t.Helper()
	cs, err := splice.Active[splice.WalletAppInstall](context.Background(), s.net.Store(), user)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Payload.EndUserParty == user {
			return c.ID
		}
	}
	t.Fatalf("no wallet for %s", user)
	return ""
}

// viaWallet exercises a WalletAppInstall choice as the validator operator,
// as Splice's wallet backend does.
func viaWallet[R any](t testing.TB, s seeded, user daml.Party, choice string, arg any) (R, *ledger.Transaction, error) {
	t.Helper()
	var res R
	tx, err := s.submit(t, []daml.Party{s.Validator.Party}, nil, func(tx *ledger.Tx) (err error) {
		res, err = ledger.Exercise[R](tx, s.install(t, user), choice, arg)
		return err
	})
	return res, tx, err
}

func active[T ledger.Template](t testing.TB, s seeded, cid daml.ContractID) bool {
	t.Helper()
	_, ok, err := s.net.Store().Contract(context.Background(), cid)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestTransferOffers(t *testing.T) {
	t.Parallel()
	hour := time.Hour
	type env struct {
		s                     seeded
		alice, bob, validator daml.Party
		offer                 daml.ContractID
		expiresAt             daml.Timestamp
	}
	accept := func(t *testing.T, e env) (daml.ContractID, error) {
		res, tx, err := viaWallet[splice.WalletTransferOfferAcceptResult](t, e.s, e.bob, "WalletAppInstall_TransferOffer_Accept", splice.WalletTransferOfferAccept{Cid: e.offer})
		if err != nil {
			return res.AcceptedTransferOffer, err
		}
		return splice.CreatedIn(tx, splice.AcceptedTransferOffer{}.TemplateID())[0], nil
	}
	complete := func(t *testing.T, e env, accepted daml.ContractID) error {
		ac := e.s.amuletContext(t)
		_, err := e.s.submit(t, []daml.Party{e.alice, e.validator}, ac.Disclosed(), func(tx *ledger.Tx) error {
			_, err := splice.CompleteAcceptedTransferOffer(tx, ac, accepted, ids(e.s.holdings(t, e.alice)), e.validator)
			return err
		})
		return err
	}
	direct := func(t *testing.T, e env, actAs daml.Party, cid daml.ContractID, choice string, arg any) error {
		_, err := e.s.submit(t, []daml.Party{actAs}, nil, func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[any](tx, cid, choice, arg)
			return err
		})
		return err
	}

	for _, tc := range []struct {
		name   string
		amount splice.PaymentAmount
		run    func(t *testing.T, e env) error
		want   fault.Kind
		check  func(t *testing.T, e env)
	}{
		{name: "accept", run: func(t *testing.T, e env) error { _, err := accept(t, e); return err },
			check: func(t *testing.T, e env) {
				if active[splice.TransferOffer](t, e.s, e.offer) {
					t.Error("the offer is still active")
				}
			}},
		{name: "accept exactly at expiry", run: func(t *testing.T, e env) error {
			e.s.advance(t, hour)
			if e.s.now() != e.expiresAt {
				t.Fatalf("now %s, expires %s", e.s.now(), e.expiresAt)
			}
			_, err := accept(t, e)
			return err
		}},
		{name: "accept after expiry", want: fault.DamlPrecondition, run: func(t *testing.T, e env) error {
			e.s.advance(t, hour+time.Microsecond)
			_, err := accept(t, e)
			return err
		}},
		{name: "accept in the sender's wallet", want: fault.InvalidArgument, run: func(t *testing.T, e env) error {
			_, _, err := viaWallet[splice.WalletTransferOfferAcceptResult](t, e.s, e.alice, "WalletAppInstall_TransferOffer_Accept", splice.WalletTransferOfferAccept{Cid: e.offer})
			return err
		}},
		{name: "reject", run: func(t *testing.T, e env) error {
			res, _, err := viaWallet[splice.WalletTransferOfferRejectResult](t, e.s, e.bob, "WalletAppInstall_TransferOffer_Reject", splice.WalletTransferOfferReject{Cid: e.offer})
			if err == nil && (res.TrackingInfo.TrackingID != "track-1" || res.TrackingInfo.Receiver != e.bob) {
				t.Errorf("tracking info %+v", res.TrackingInfo)
			}
			return err
		}},
		{name: "withdraw", run: func(t *testing.T, e env) error {
			_, _, err := viaWallet[splice.WalletTransferOfferWithdrawResult](t, e.s, e.alice, "WalletAppInstall_TransferOffer_Withdraw",
				splice.WalletTransferOfferWithdraw{Cid: e.offer, Reason: "Withdrawn by sender"})
			return err
		}},
		{name: "withdraw by the receiver", want: fault.InvalidArgument, run: func(t *testing.T, e env) error {
			return direct(t, e, e.bob, e.offer, "TransferOffer_Withdraw", splice.TransferOfferWithdraw{Reason: "mine now"})
		}},
		{name: "expire before expiry", want: fault.DamlPrecondition, run: func(t *testing.T, e env) error {
			_, _, err := viaWallet[splice.WalletTransferOfferExpireResult](t, e.s, e.alice, "WalletAppInstall_TransferOffer_Expire", splice.WalletTransferOfferExpire{Cid: e.offer})
			return err
		}},
		{name: "expire exactly at expiry", want: fault.DamlPrecondition, run: func(t *testing.T, e env) error {
			e.s.advance(t, hour)
			_, _, err := viaWallet[splice.WalletTransferOfferExpireResult](t, e.s, e.bob, "WalletAppInstall_TransferOffer_Expire", splice.WalletTransferOfferExpire{Cid: e.offer})
			return err
		}},
		{name: "expire after expiry", run: func(t *testing.T, e env) error {
			e.s.advance(t, hour+time.Microsecond)
			_, _, err := viaWallet[splice.WalletTransferOfferExpireResult](t, e.s, e.bob, "WalletAppInstall_TransferOffer_Expire", splice.WalletTransferOfferExpire{Cid: e.offer})
			return err
		}},
		{name: "expire by a non-stakeholder", want: fault.DamlPrecondition, run: func(t *testing.T, e env) error {
			e.s.advance(t, 2*hour)
			// The validator sees the offer through its operator user only
			// if it is a stakeholder; disclose it as a third party would.
			c, _, _ := e.s.net.Store().Contract(context.Background(), e.offer)
			_, err := e.s.submit(t, []daml.Party{e.validator}, []*ledger.Contract{c}, func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.TransferOfferExpireResult](tx, e.offer, "TransferOffer_Expire", splice.TransferOfferExpire{Actor: e.validator})
				return err
			})
			return err
		}},
		{name: "complete", run: func(t *testing.T, e env) error {
			accepted, err := accept(t, e)
			if err != nil {
				return err
			}
			return complete(t, e, accepted)
		}, check: func(t *testing.T, e env) {
			if got := e.s.balance(t, e.bob); got.Cmp(num("1810.0")) != 0 {
				t.Errorf("bob holds %s, want 1810", got)
			}
			if got := e.s.balance(t, e.alice); got.Cmp(num("1790.0")) != 0 {
				t.Errorf("alice holds %s, want 1790", got)
			}
		}},
		{name: "complete in USD", amount: splice.PaymentAmount{Amount: num("1.0"), Unit: splice.USDUnit}, run: func(t *testing.T, e env) error {
			accepted, err := accept(t, e)
			if err != nil {
				return err
			}
			return complete(t, e, accepted)
		}, check: func(t *testing.T, e env) {
			if got := e.s.balance(t, e.bob); got.Cmp(num("2000.0")) != 0 { // 1 USD at 0.005 USD/CC
				t.Errorf("bob holds %s, want 2000", got)
			}
		}},
		{name: "complete without the funds", amount: splice.Amulets(num("1000000.0")), want: fault.DamlPrecondition, run: func(t *testing.T, e env) error {
			accepted, err := accept(t, e)
			if err != nil {
				return err
			}
			return complete(t, e, accepted)
		}},
		{name: "complete after expiry", want: fault.DamlPrecondition, run: func(t *testing.T, e env) error {
			accepted, err := accept(t, e)
			if err != nil {
				return err
			}
			e.s.advance(t, 2*hour)
			return complete(t, e, accepted)
		}},
		{name: "abort", run: func(t *testing.T, e env) error {
			accepted, err := accept(t, e)
			if err != nil {
				return err
			}
			_, _, err = viaWallet[splice.WalletAcceptedTransferOfferAbortResult](t, e.s, e.alice, "WalletAppInstall_AcceptedTransferOffer_Abort",
				splice.WalletAcceptedTransferOfferAbort{Cid: accepted, Reason: "out of funds (missing 5 CC)"})
			return err
		}},
		{name: "withdraw the accepted offer", run: func(t *testing.T, e env) error {
			accepted, err := accept(t, e)
			if err != nil {
				return err
			}
			_, _, err = viaWallet[splice.WalletAcceptedTransferOfferWithdrawResult](t, e.s, e.bob, "WalletAppInstall_AcceptedTransferOffer_Withdraw",
				splice.WalletAcceptedTransferOfferWithdraw{Cid: accepted, Reason: "changed my mind"})
			return err
		}},
		{name: "expire the accepted offer", run: func(t *testing.T, e env) error {
			accepted, err := accept(t, e)
			if err != nil {
				return err
			}
			if err := direct(t, e, e.alice, accepted, "AcceptedTransferOffer_Expire", splice.AcceptedTransferOfferExpire{Actor: e.alice}); !fault.Is(err, fault.DamlPrecondition) {
				t.Errorf("expiring too early: %v", err)
			}
			e.s.advance(t, 2*hour)
			return direct(t, e, e.alice, accepted, "AcceptedTransferOffer_Expire", splice.AcceptedTransferOfferExpire{Actor: e.alice})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := seedNetwork(t, splice.SeedConfig{})
			e := env{s: s, alice: s.user(t, "alice").Party, bob: s.user(t, "bob").Party, validator: s.Validator.Party}
			e.expiresAt = s.now() + daml.Timestamp(hour.Microseconds())
			amount := tc.amount
			if amount.Unit == "" {
				amount = splice.Amulets(num("10.0"))
			}
			_, tx, err := viaWallet[splice.WalletCreateTransferOfferResult](t, s, e.alice, "WalletAppInstall_CreateTransferOffer", splice.WalletCreateTransferOffer{
				Receiver: e.bob, Amount: amount, Description: "lunch", ExpiresAt: e.expiresAt, TrackingID: "track-1",
			})
			if err != nil {
				t.Fatal(err)
			}
			e.offer = splice.CreatedIn(tx, splice.TransferOffer{}.TemplateID())[0]
			err = tc.run(t, e)
			if tc.want != 0 {
				wantKind(t, err, tc.want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, e)
			}
		})
	}
}

func TestTransferOfferEnsure(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	for _, tc := range []struct {
		name, description, trackingID string
		want                          fault.Kind
	}{
		{"longest description", strings.Repeat("é", 279), "t1", 0},
		{"description too long", strings.Repeat("a", 280), "t2", fault.DamlPrecondition},
		{"tracking id too long", "d", strings.Repeat("x", 280), fault.DamlPrecondition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := viaWallet[splice.WalletCreateTransferOfferResult](t, s, alice, "WalletAppInstall_CreateTransferOffer", splice.WalletCreateTransferOffer{
				Receiver: bob, Amount: splice.Amulets(num("1.0")), Description: tc.description,
				ExpiresAt: s.now() + 1_000_000, TrackingID: tc.trackingID,
			})
			if tc.want == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantKind(t, err, tc.want)
		})
	}
}
