package splice_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

func after(t daml.Timestamp, d time.Duration) daml.Timestamp {
	return t + daml.Timestamp(d.Microseconds())
}

// preapprovalFee is Splice's fee for a paid extension of days, at the
// default 0.00274 USD a day, in amulet at price.
func preapprovalFee(t *testing.T, days string, price daml.Numeric) daml.Numeric {
	t.Helper()
	usd, err := num(days).Mul(num("0.00274"))
	if err != nil {
		t.Fatal(err)
	}
	fee, err := usd.Div(price)
	if err != nil {
		t.Fatal(err)
	}
	return fee
}

// createArg is bob (provider) buying alice (receiver) a pre-approval
// until expiresAt, paying from his amulets.
func (s seeded) createPreapprovalArg(t testing.TB, receiver, provider daml.Party, expiresAt daml.Timestamp) splice.AmuletRulesCreateTransferPreapproval {
	ac := s.amuletContext(t)
	return splice.AmuletRulesCreateTransferPreapproval{
		Context: ac.PaymentContext(), Inputs: splice.InputAmulets(ids(s.holdings(t, provider))...),
		Receiver: receiver, Provider: provider, ExpiresAt: expiresAt, ExpectedDso: &s.DSOParty,
	}
}

func (s seeded) createPreapproval(t testing.TB, actAs []daml.Party, arg splice.AmuletRulesCreateTransferPreapproval) (splice.AmuletRulesCreateTransferPreapprovalResult, *ledger.Transaction, error) {
	t.Helper()
	ac := s.amuletContext(t)
	var res splice.AmuletRulesCreateTransferPreapprovalResult
	tx, err := s.submit(t, actAs, ac.Disclosed(), func(tx *ledger.Tx) (err error) {
		res, err = ledger.Exercise[splice.AmuletRulesCreateTransferPreapprovalResult](tx, ac.AmuletRules.ID, "AmuletRules_CreateTransferPreapproval", arg)
		return err
	})
	return res, tx, err
}

// createdPreapproval is the pre-approval a transaction created (a
// choice's result holds the id before the ledger suffixed it).
func createdPreapproval(t testing.TB, tx *ledger.Transaction) daml.ContractID {
	t.Helper()
	cids := splice.CreatedIn(tx, splice.TransferPreapproval{}.TemplateID())
	if len(cids) != 1 {
		t.Fatalf("created pre-approvals %v, want one", cids)
	}
	return cids[0]
}

func (s seeded) preapproval(t testing.TB, cid daml.ContractID) splice.TransferPreapproval {
	t.Helper()
	c, err := splice.Decode[splice.TransferPreapproval](s.contract(t, cid))
	if err != nil {
		t.Fatal(err)
	}
	return c.Payload
}

func TestCreateTransferPreapproval(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	dso := s.DSOParty
	other := daml.Party("other::1220" + strings.Repeat("ab", 32))
	price := s.amuletContext(t).OpenRound.Payload.AmuletPrice
	for _, tc := range []struct {
		name  string
		edit  func(arg *splice.AmuletRulesCreateTransferPreapproval)
		actAs []daml.Party
		want  failure
		paid  daml.Numeric // the fee, when one is burned
	}{
		{name: "free within the base duration", edit: func(*splice.AmuletRulesCreateTransferPreapproval) {}},
		{name: "exactly the base duration is free", edit: func(arg *splice.AmuletRulesCreateTransferPreapproval) {
			now := s.now()
			arg.OptCreatedAt, arg.ExpiresAt = &now, after(now, 90*day)
		}},
		{name: "ten days beyond the base duration", edit: func(arg *splice.AmuletRulesCreateTransferPreapproval) {
			now := s.now()
			arg.OptCreatedAt, arg.ExpiresAt = &now, after(now, 100*day)
		}, paid: preapprovalFee(t, "10.0", price)},
		{name: "a creation time in the past", edit: func(arg *splice.AmuletRulesCreateTransferPreapproval) {
			past := after(s.now(), -time.Hour)
			arg.OptCreatedAt = &past
		}},
		{name: "a creation time in the future", edit: func(arg *splice.AmuletRulesCreateTransferPreapproval) {
			future := after(s.now(), time.Hour)
			arg.OptCreatedAt = &future
		}, want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'createdAt'")},
		{name: "an expiry in the past", edit: func(arg *splice.AmuletRulesCreateTransferPreapproval) { arg.ExpiresAt = after(s.now(), -time.Second) },
			want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'expiresAt'")},
		{name: "no expected DSO", edit: func(arg *splice.AmuletRulesCreateTransferPreapproval) { arg.ExpectedDso = nil },
			want: aborted("Expected DSO party not set by caller")},
		{name: "another expected DSO", edit: func(arg *splice.AmuletRulesCreateTransferPreapproval) { arg.ExpectedDso = &other },
			want: aborted("DSO party expected by caller '" + string(other) + "' does not match actual DSO party '" + string(dso) + "'")},
		{name: "a paid extension without inputs", edit: func(arg *splice.AmuletRulesCreateTransferPreapproval) {
			arg.Inputs, arg.ExpiresAt = nil, after(s.now(), 100*day)
		}, want: damlFailure("splice.lfdecentralizedtrust.org/insufficient-funds", "Insufficient funds")},
		{name: "the receiver does not authorize", edit: func(*splice.AmuletRulesCreateTransferPreapproval) {}, actAs: []daml.Party{bob},
			want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := s.createPreapprovalArg(t, alice, bob, after(s.now(), 30*day))
			tc.edit(&arg)
			actAs := tc.actAs
			if actAs == nil {
				actAs = []daml.Party{alice, bob}
			}
			res, tx, err := s.createPreapproval(t, actAs, arg)
			tc.want.check(t, err)
			if err != nil {
				return
			}
			p := s.preapproval(t, createdPreapproval(t, tx))
			validFrom := tx.EffectiveAt
			if arg.OptCreatedAt != nil {
				validFrom = *arg.OptCreatedAt
			}
			if want := (splice.TransferPreapproval{DSO: dso, Receiver: alice, Provider: bob, ValidFrom: validFrom, LastRenewedAt: validFrom, ExpiresAt: arg.ExpiresAt}); p != want {
				t.Errorf("pre-approval %+v, want %+v", p, want)
			}
			coupons := splice.CreatedIn(tx, splice.ValidatorRewardCoupon{}.TemplateID())
			if tc.paid.IsZero() {
				if !res.AmuletPaid.IsZero() || len(coupons) != 0 || len(res.TransferResult.CreatedAmulets) != 0 || len(res.Meta.Values) != 0 {
					t.Errorf("a free pre-approval paid %s, with coupons %v, amulets %v, meta %v", res.AmuletPaid, coupons, res.TransferResult.CreatedAmulets, res.Meta)
				}
				return
			}
			if res.AmuletPaid.Cmp(tc.paid) != 0 {
				t.Errorf("paid %s, want %s", res.AmuletPaid, tc.paid)
			}
			if len(coupons) != 1 {
				t.Fatalf("coupons %v, want one", coupons)
			}
			coupon, err := splice.Decode[splice.ValidatorRewardCoupon](s.contract(t, coupons[0]))
			if err != nil {
				t.Fatal(err)
			}
			if coupon.Payload.User != bob || coupon.Payload.Amount.Cmp(tc.paid) != 0 || coupon.Payload.DSO != dso {
				t.Errorf("coupon %+v", coupon.Payload)
			}
			// The split amulet is burned: what is left is bob's change.
			if created := splice.CreatedIn(tx, splice.Amulet{}.TemplateID()); len(created) != 2 || len(s.holdings(t, bob)) != 1 {
				t.Errorf("created amulets %v, bob holds %d", created, len(s.holdings(t, bob)))
			}
			// sandnet does not mint a coupon's issuance: spending it fails.
			ac := s.amuletContext(t)
			_, err = s.submit(t, []daml.Party{bob}, ac.Disclosed(), func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.TransferResult](tx, ac.AmuletRules.ID, "AmuletRules_Transfer", splice.AmuletRulesTransfer{
					Transfer: splice.Transfer{Sender: bob, Provider: bob, Inputs: []splice.TransferInput{{InputValidatorRewardCoupon: &coupons[0]}},
						Outputs: []splice.TransferOutput{splice.Pay(bob, num("0.001"))}},
					Context: splice.AmuletTransferContext(ac.OpenRound.ID), ExpectedDso: &dso,
				})
				return err
			})
			wantKind(t, err, fault.FailedPrecondition)
			if res.TransferResult.Meta != nil {
				t.Errorf("the transfer result keeps its meta %v", res.TransferResult.Meta)
			}
			if m := res.Meta.Values; m[splice.MetaTxKind] != "burn" || m[splice.MetaReason] != "create TransferPreapproval" || num(m[splice.MetaBurned]).Cmp(tc.paid) != 0 {
				t.Errorf("meta %v", m)
			}
		})
	}
}

func TestTransferPreapprovalProposal(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice, bob := s.user(t, "alice").Party, s.user(t, "bob").Party
	dso := s.DSOParty
	for _, tc := range []struct {
		name        string
		expectedDso *daml.Party
		expiresIn   time.Duration
		actAs       daml.Party
		want        failure
	}{
		{name: "accepted by the provider", expectedDso: &dso, expiresIn: 30 * day, actAs: bob},
		{name: "an expiry in the past", expectedDso: &dso, expiresIn: -time.Second, actAs: bob,
			want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'expiresAt is not in the past'")},
		{name: "no expected DSO", expiresIn: 30 * day, actAs: bob, want: aborted("Expected DSO party not set by caller")},
		{name: "accepted by the receiver", expectedDso: &dso, expiresIn: 30 * day, actAs: alice, want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proposed, err := s.submit(t, []daml.Party{alice}, nil, func(tx *ledger.Tx) error {
				_, err := ledger.Create(tx, splice.TransferPreapprovalProposal{Receiver: alice, Provider: bob, ExpectedDso: tc.expectedDso})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			proposal := splice.CreatedIn(proposed, splice.TransferPreapprovalProposal{}.TemplateID())[0]
			ac := s.amuletContext(t)
			var res splice.TransferPreapprovalProposalAcceptResult
			tx, err := s.submit(t, []daml.Party{tc.actAs}, ac.Disclosed(), func(tx *ledger.Tx) (err error) {
				res, err = ledger.Exercise[splice.TransferPreapprovalProposalAcceptResult](tx, proposal, "TransferPreapprovalProposal_Accept",
					splice.TransferPreapprovalProposalAccept{
						Context: ac.PaymentContext(), Inputs: splice.InputAmulets(ids(s.holdings(t, bob))...),
						ExpiresAt: after(s.now(), tc.expiresIn),
					})
				return err
			})
			tc.want.check(t, err)
			if err != nil {
				return
			}
			p := s.preapproval(t, createdPreapproval(t, tx))
			if p.Receiver != alice || p.Provider != bob || p.DSO != dso || p.ValidFrom != tx.EffectiveAt || !res.AmuletPaid.IsZero() {
				t.Errorf("pre-approval %+v, paid %s", p, res.AmuletPaid)
			}
		})
	}
}

// The pre-approval's own choices, each on a fresh pre-approval of alice's
// that bob provides, expiring in an hour; the cases after the clock
// advanced run on an expired one.
func TestTransferPreapprovalChoices(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true, Users: []string{"alice", "bob", "carol"}})
	alice, bob, carol := s.user(t, "alice").Party, s.user(t, "bob").Party, s.user(t, "carol").Party
	price := s.amuletContext(t).OpenRound.Payload.AmuletPrice
	description := "for lunch"
	type call = preapprovalCall
	for _, tc := range []struct {
		name  string
		wait  time.Duration
		call  func(t *testing.T, p splice.TransferPreapproval) call
		want  failure
		check func(t *testing.T, p splice.TransferPreapproval, tx *ledger.Transaction, res any)
	}{
		{name: "fetched by anyone", call: func(*testing.T, splice.TransferPreapproval) call {
			return call{choice: "TransferPreapproval_Fetch", arg: splice.TransferPreapprovalFetch{P: carol}, actAs: []daml.Party{carol}}
		}, check: func(t *testing.T, p splice.TransferPreapproval, _ *ledger.Transaction, res any) {
			if got, _ := decodeAs[splice.TransferPreapproval](res); got != p {
				t.Errorf("fetched %+v, want %+v", got, p)
			}
		}},
		{name: "a send", call: func(t *testing.T, _ splice.TransferPreapproval) call {
			return sendCall(t, s, carol, num("2.5"), &description)
		}, check: func(t *testing.T, _ splice.TransferPreapproval, tx *ledger.Transaction, res any) {
			r, err := decodeAs[splice.TransferPreapprovalSendResult](res)
			if err != nil {
				t.Fatal(err)
			}
			if r.Result.Meta != nil || r.Meta.Values[splice.MetaReason] != description || r.Meta.Values[splice.MetaTxKind] != "transfer" || r.Meta.Values[splice.MetaSender] != string(carol) {
				t.Errorf("result meta %v, meta %v", r.Result.Meta, r.Meta)
			}
			if len(r.Result.CreatedAmulets) != 1 {
				t.Fatalf("created %v", r.Result.CreatedAmulets)
			}
			outs := splice.CreatedIn(tx, splice.Amulet{}.TemplateID())
			out, err := splice.Decode[splice.Amulet](s.contract(t, outs[0]))
			if err != nil || out.Payload.Owner != alice || out.Payload.Amount.InitialAmount.Cmp(num("2.5")) != 0 {
				t.Errorf("output %+v %v", out.Payload, err)
			}
		}},
		{name: "a send without a description", call: func(t *testing.T, _ splice.TransferPreapproval) call {
			return sendCall(t, s, carol, num("1.0"), nil)
		}, check: func(t *testing.T, _ splice.TransferPreapproval, _ *ledger.Transaction, res any) {
			r, _ := decodeAs[splice.TransferPreapprovalSendResult](res)
			if _, ok := r.Meta.Values[splice.MetaReason]; ok {
				t.Errorf("meta %v", r.Meta)
			}
		}},
		{name: "a send of nothing", call: func(t *testing.T, _ splice.TransferPreapproval) call {
			return sendCall(t, s, carol, num("0.0"), nil)
		}, want: requirement("Amount is positive")},
		{name: "a send the sender does not authorize", call: func(t *testing.T, _ splice.TransferPreapproval) call {
			c := sendCall(t, s, carol, num("1.0"), nil)
			c.actAs = []daml.Party{bob}
			return c
		}, want: unauthorized},
		{name: "a free renewal", call: func(t *testing.T, p splice.TransferPreapproval) call {
			return renewCall(t, s, bob, after(p.ExpiresAt, day))
		}, check: func(t *testing.T, p splice.TransferPreapproval, tx *ledger.Transaction, res any) {
			r, err := decodeAs[splice.TransferPreapprovalRenewResult](res)
			if err != nil {
				t.Fatal(err)
			}
			renewed := s.preapproval(t, createdPreapproval(t, tx))
			want := p
			want.LastRenewedAt, want.ExpiresAt = p.ExpiresAt, after(p.ExpiresAt, day)
			if renewed != want || !r.AmuletPaid.IsZero() || r.Receiver != alice || r.Provider != bob || len(splice.CreatedIn(tx, splice.ValidatorRewardCoupon{}.TemplateID())) != 0 {
				t.Errorf("renewed %+v (want %+v), paid %s", renewed, want, r.AmuletPaid)
			}
		}},
		{name: "a paid renewal", call: func(t *testing.T, p splice.TransferPreapproval) call {
			return renewCall(t, s, bob, after(p.ExpiresAt, 92*day+12*time.Hour))
		}, check: func(t *testing.T, _ splice.TransferPreapproval, tx *ledger.Transaction, res any) {
			r, _ := decodeAs[splice.TransferPreapprovalRenewResult](res)
			if want := preapprovalFee(t, "2.5", price); r.AmuletPaid.Cmp(want) != 0 {
				t.Errorf("paid %s, want %s", r.AmuletPaid, want)
			}
			if r.Meta.Values[splice.MetaReason] != "renew TransferPreapproval" || len(splice.CreatedIn(tx, splice.ValidatorRewardCoupon{}.TemplateID())) != 1 {
				t.Errorf("meta %v", r.Meta)
			}
		}},
		{name: "a renewal that does not extend", call: func(t *testing.T, p splice.TransferPreapproval) call {
			return renewCall(t, s, bob, p.ExpiresAt)
		}, want: requirement("newExpiresAt is after expiresAt")},
		{name: "a renewal by the receiver", call: func(t *testing.T, p splice.TransferPreapproval) call {
			c := renewCall(t, s, bob, after(p.ExpiresAt, day))
			c.actAs = []daml.Party{alice}
			return c
		}, want: unauthorized},
		{name: "cancelled by the receiver", call: func(*testing.T, splice.TransferPreapproval) call {
			return call{choice: "TransferPreapproval_Cancel", arg: splice.TransferPreapprovalCancel{P: alice}, actAs: []daml.Party{alice}}
		}},
		{name: "cancelled by the provider", call: func(*testing.T, splice.TransferPreapproval) call {
			return call{choice: "TransferPreapproval_Cancel", arg: splice.TransferPreapprovalCancel{P: bob}, actAs: []daml.Party{bob}}
		}},
		{name: "cancelled by a stranger", call: func(*testing.T, splice.TransferPreapproval) call {
			return call{choice: "TransferPreapproval_Cancel", arg: splice.TransferPreapprovalCancel{P: carol}, actAs: []daml.Party{carol}}
		}, want: requirement("Controller '" + string(carol) + "' is either receiver or provider")},
		{name: "expired before its expiry", call: func(*testing.T, splice.TransferPreapproval) call {
			return call{choice: "TransferPreapproval_Expire", arg: splice.TransferPreapprovalExpire{}, asDSO: true}
		}, want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'TransferPreapproval.expiresAt'")},
		// The clock moves on: the pre-approvals below have expired.
		{name: "expired by the DSO", wait: 2 * time.Hour, call: func(*testing.T, splice.TransferPreapproval) call {
			return call{choice: "TransferPreapproval_Expire", arg: splice.TransferPreapprovalExpire{}, asDSO: true}
		}},
		{name: "expired by the receiver", wait: 2 * time.Hour, call: func(*testing.T, splice.TransferPreapproval) call {
			return call{choice: "TransferPreapproval_Expire", arg: splice.TransferPreapprovalExpire{}, actAs: []daml.Party{alice}}
		}, want: unauthorized},
		{name: "a send once expired", wait: 2 * time.Hour, call: func(t *testing.T, _ splice.TransferPreapproval) call {
			return sendCall(t, s, carol, num("1.0"), nil)
		}, want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'TransferPreapproval.expiresAt'")},
		{name: "a renewal once expired", wait: 2 * time.Hour, call: func(t *testing.T, p splice.TransferPreapproval) call {
			return renewCall(t, s, bob, after(p.ExpiresAt, day))
		}, want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'TransferPreapproval.expiresAt'")},
		{name: "cancelled once expired", wait: 2 * time.Hour, call: func(*testing.T, splice.TransferPreapproval) call {
			return call{choice: "TransferPreapproval_Cancel", arg: splice.TransferPreapprovalCancel{P: alice}, actAs: []daml.Party{alice}}
		}, want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'TransferPreapproval.expiresAt'")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, created, err := s.createPreapproval(t, []daml.Party{alice, bob}, s.createPreapprovalArg(t, alice, bob, after(s.now(), time.Hour)))
			if err != nil {
				t.Fatal(err)
			}
			cid := createdPreapproval(t, created)
			p := s.preapproval(t, cid)
			if tc.wait > 0 {
				s.advance(t, tc.wait)
			}
			c := tc.call(t, p)
			var out any
			run := func(tx *ledger.Tx) (err error) {
				out, err = ledger.Exercise[any](tx, cid, c.choice, c.arg)
				return err
			}
			var tx *ledger.Transaction
			if c.asDSO {
				tx, err = s.asDSO(t, []*ledger.Contract{s.contract(t, cid)}, run)
			} else {
				tx, err = s.submit(t, c.actAs, append(s.amuletContext(t).Disclosed(), s.contract(t, cid)), run)
			}
			tc.want.check(t, err)
			if err == nil && tc.check != nil {
				tc.check(t, p, tx, out)
			}
		})
	}
}

// preapprovalCall is an exercise on a pre-approval: by actAs, or by the
// DSO's automation.
type preapprovalCall struct {
	choice string
	arg    any
	actAs  []daml.Party
	asDSO  bool
}

func sendCall(t *testing.T, s seeded, sender daml.Party, amount daml.Numeric, description *string) preapprovalCall {
	ac := s.amuletContext(t)
	return preapprovalCall{choice: "TransferPreapproval_Send", actAs: []daml.Party{sender}, arg: splice.TransferPreapprovalSend{
		Context: ac.PaymentContext(), Inputs: splice.InputAmulets(ids(s.holdings(t, sender))...),
		Amount: amount, Sender: sender, Description: description,
	}}
}

func renewCall(t *testing.T, s seeded, provider daml.Party, newExpiresAt daml.Timestamp) preapprovalCall {
	ac := s.amuletContext(t)
	return preapprovalCall{choice: "TransferPreapproval_Renew", actAs: []daml.Party{provider}, arg: splice.TransferPreapprovalRenew{
		Context: ac.PaymentContext(), Inputs: splice.InputAmulets(ids(s.holdings(t, provider))...), NewExpiresAt: newExpiresAt,
	}}
}

// decodeAs is an exercise's result, as ledger.Exercise[any] returns it,
// as its Go type.
func decodeAs[T any](res any) (T, error) {
	out, ok := res.(T)
	if !ok {
		return out, fmt.Errorf("result %T, not %T", res, out)
	}
	return out, nil
}
