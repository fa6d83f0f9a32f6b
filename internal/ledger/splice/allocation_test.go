package splice_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Amulet's V1 allocations: AllocationFactory_Allocate on the
// ExternalPartyAmuletRules, with each of Splice's checks refusing what
// Splice refuses, and the AmuletAllocation's choices (execute, cancel,
// withdraw, the DSO's expiry). Like transfers, allocations charge no fees:
// every successful step conserves the supply.

// allocateArg is an allocation of alice's 1.5 to bob, settled by carol,
// requested a minute ago, to allocate within an hour and settle within a
// day.
func (s seeded) allocateArg(f factory, sender, receiver, executor daml.Party, amount string, inputs []daml.ContractID) splice.AllocationFactoryAllocate {
	now := s.now()
	return splice.AllocationFactoryAllocate{
		ExpectedAdmin: s.DSOParty,
		Allocation: splice.AllocationSpecification{
			Settlement: splice.SettlementInfo{
				Executor: executor, SettlementRef: splice.Reference{ID: "trade-7"},
				RequestedAt: after(now, -time.Minute), AllocateBefore: after(now, time.Hour), SettleBefore: after(now, 24*time.Hour),
				Meta: splice.Metadata{Values: map[string]string{}},
			},
			TransferLegID: "leg-0",
			TransferLeg: splice.TransferLeg{
				Sender: sender, Receiver: receiver, Amount: num(amount), InstrumentID: splice.AmuletInstrumentID(s.DSOParty),
				Meta: splice.Metadata{Values: map[string]string{splice.MetaReason: "leg 0 of trade 7"}},
			},
		},
		RequestedAt: after(now, -time.Minute), InputHoldingCids: inputs,
		ExtraArgs: contextOf(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.config.ID}, nil),
	}
}

// allocate exercises AllocationFactory_Allocate through the interface and
// returns its committed result.
func (s seeded) allocate(t testing.TB, f factory, actAs []daml.Party, arg splice.AllocationFactoryAllocate) (splice.AllocationInstructionResult, *ledger.Transaction, error) {
	t.Helper()
	tx, err := s.submit(t, actAs, f.disclosed, func(tx *ledger.Tx) error {
		_, err := ledger.ExerciseInterface[splice.AllocationInstructionResult](tx, f.rules.ID, splice.AllocationFactoryInterface, "AllocationFactory_Allocate", arg)
		return err
	})
	if err != nil {
		return splice.AllocationInstructionResult{}, tx, err
	}
	return committedResult[splice.AllocationInstructionResult](t, tx, "AllocationFactory_Allocate"), tx, nil
}

func (s seeded) allocation(t testing.TB, cid daml.ContractID) splice.AmuletAllocation {
	t.Helper()
	c, err := splice.Decode[splice.AmuletAllocation](s.contract(t, cid))
	if err != nil {
		t.Fatal(err)
	}
	return c.Payload
}

func TestAllocationFactoryAllocate(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true, Users: []string{"alice", "bob", "carol"}})
	alice, bob, carol := s.user(t, "alice").Party, s.user(t, "bob").Party, s.user(t, "carol").Party
	dso := s.DSOParty
	other := daml.Party("other::1220" + strings.Repeat("ab", 32))
	f := s.factory(t)
	round := f.config.Payload.HoldingFeesOpenRoundNumber
	for _, tc := range []struct {
		name  string
		edit  func(arg *splice.AllocationFactoryAllocate)
		actAs []daml.Party
		want  failure
		check func(t *testing.T, arg splice.AllocationFactoryAllocate, res splice.AllocationInstructionResult, tx *ledger.Transaction)
	}{
		{name: "the leg's amount is locked in an allocation", check: func(t *testing.T, arg splice.AllocationFactoryAllocate, res splice.AllocationInstructionResult, tx *ledger.Transaction) {
			if res.Output.Completed == nil || len(res.SenderChangeCids) != 1 {
				t.Fatalf("result %+v", res)
			}
			if m := res.Meta.Values; m[splice.MetaTxKind] != "transfer" || m[splice.MetaSender] != string(alice) {
				t.Errorf("meta %v", m)
			}
			al := s.allocation(t, res.Output.Completed.AllocationCid)
			settle := arg.Allocation.Settlement.SettleBefore
			if al.ExpiresAt == nil || *al.ExpiresAt != settle {
				t.Errorf("expiresAt %v, want the settlement deadline %v", al.ExpiresAt, settle)
			}
			locked, err := splice.Decode[splice.LockedAmulet](s.contract(t, al.LockedAmulet))
			if err != nil {
				t.Fatal(err)
			}
			l := locked.Payload
			if l.Amulet.Owner != alice || l.Amulet.Amount.InitialAmount.Cmp(num("1.5")) != 0 || len(l.Lock.Holders) != 1 || l.Lock.Holders[0] != dso ||
				l.Lock.ExpiresAt != settle || l.Lock.OptContext == nil || *l.Lock.OptContext != "allocation for settlement of trade-7" ||
				l.Amulet.Amount.CreatedAt != round {
				t.Errorf("locked amulet %+v", l)
			}
			view, err := s.net.Registry().InterfaceView(s.contract(t, res.Output.Completed.AllocationCid), splice.AllocationInterface)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := daml.LedgerJSON.Encode(view)
			wantMeta := `"meta":{"values":{"cip-112/expiresAt":"` + strconv.FormatInt(int64(settle), 10) + `"}}`
			if err != nil || !strings.Contains(string(enc), `"holdingCids":["`+string(al.LockedAmulet)+`"]`) || !strings.HasSuffix(string(enc), wantMeta+"}") {
				t.Errorf("view %s %v", enc, err)
			}
			v, _ := daml.FromGo(res)
			if enc, _ := daml.LedgerJSON.Encode(v); !strings.Contains(string(enc), `"output":{"tag":"AllocationInstructionResult_Completed","value":{"allocationCid":`) {
				t.Errorf("result JSON %s", enc)
			}
		}},
		{name: "expiry is capped at the maximum lifetime", edit: func(arg *splice.AllocationFactoryAllocate) {
			arg.Allocation.Settlement.SettleBefore = after(s.now(), 200*day)
		}, check: func(t *testing.T, arg splice.AllocationFactoryAllocate, res splice.AllocationInstructionResult, tx *ledger.Transaction) {
			al := s.allocation(t, res.Output.Completed.AllocationCid)
			if want := after(arg.RequestedAt, 90*day); al.ExpiresAt == nil || *al.ExpiresAt != want {
				t.Errorf("expiresAt %v, want %v", al.ExpiresAt, want)
			}
		}},
		{name: "another admin is refused", edit: func(arg *splice.AllocationFactoryAllocate) { arg.ExpectedAdmin = other },
			want: requirement("Expected admin '" + string(other) + "' matches actual admin '" + string(dso) + "'")},
		{name: "past allocateBefore is refused", edit: func(arg *splice.AllocationFactoryAllocate) {
			arg.Allocation.Settlement.AllocateBefore = after(s.now(), -time.Second)
		}, want: damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'allocation.settlement.allocateBefore'")},
		{name: "allocateBefore after settleBefore is refused", edit: func(arg *splice.AllocationFactoryAllocate) {
			arg.Allocation.Settlement.AllocateBefore = after(s.now(), 48*time.Hour)
		}, want: aborted("'allocation.settlement.allocateBefore' is greater than 'allocation.settlement.settleBefore'.")},
		{name: "a context without the config state is refused", edit: func(arg *splice.AllocationFactoryAllocate) {
			arg.ExtraArgs = contextOf(nil, nil)
		}, want: aborted("Missing context entry for: external-party-config-state")},
		{name: "a sender account is refused", edit: func(arg *splice.AllocationFactoryAllocate) {
			arg.Allocation.TransferLeg.Meta.Values["cip-112/sender.id"] = "sub"
		}, want: aborted("Expected a basic account for field 'allocation.authorizer', but got: Account {owner = Some '" + string(alice) + "', provider = None, id = \\\"sub\\\"}")},
		{name: "another instrument admin is refused", edit: func(arg *splice.AllocationFactoryAllocate) {
			arg.Allocation.TransferLeg.InstrumentID.Admin = other
		}, want: aborted("'allocation.admin' is not equal to 'expected value'.")},
		{name: "a receiver account is refused", edit: func(arg *splice.AllocationFactoryAllocate) {
			arg.Allocation.TransferLeg.Meta.Values["cip-112/receiver.provider"] = string(carol)
		}, want: aborted("Expected a basic account for field 'transferLeg.otherside'")},
		{name: "a zero amount is refused", edit: func(arg *splice.AllocationFactoryAllocate) { arg.Allocation.TransferLeg.Amount = num("0.0") },
			want: aborted("'transferLeg.amount' is not greater than 'zero'.\\ntransferLeg.amount: 0.0\\nzero: 0.0\\n")},
		{name: "a negative amount is refused", edit: func(arg *splice.AllocationFactoryAllocate) { arg.Allocation.TransferLeg.Amount = num("-1.0") },
			want: aborted("'transferLeg.amount' is not greater than 'zero'.")},
		{name: "another instrument is refused", edit: func(arg *splice.AllocationFactoryAllocate) { arg.Allocation.TransferLeg.InstrumentID.ID = "Gold" },
			want: aborted("'transferLeg.instrumentId' is not equal to 'expected value'.\\ntransferLeg.instrumentId: \\\"Gold\\\"\\nexpected value: \\\"Amulet\\\"\\n")},
		{name: "a future requestedAt is refused", edit: func(arg *splice.AllocationFactoryAllocate) { arg.RequestedAt = after(s.now(), time.Minute) },
			want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'requestedAt'")},
		{name: "no inputs are refused", edit: func(arg *splice.AllocationFactoryAllocate) { arg.InputHoldingCids = nil },
			want: requirement("At least one input holding must be provided for allocations that require funding")},
		{name: "someone else than the sender is refused", actAs: []daml.Party{bob}, want: unauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg := s.allocateArg(f, alice, bob, carol, "1.5", []daml.ContractID{s.biggest(t, alice)})
			if tc.edit != nil {
				tc.edit(&arg)
			}
			actAs := tc.actAs
			if actAs == nil {
				actAs = []daml.Party{alice}
			}
			var res splice.AllocationInstructionResult
			var tx *ledger.Transaction
			err := s.conserved(t, func() (err error) {
				res, tx, err = s.allocate(t, f, actAs, arg)
				return err
			})
			tc.want.check(t, err)
			if err == nil && tc.check != nil {
				tc.check(t, arg, res, tx)
			}
		})
	}
}

func TestAmuletAllocationChoices(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true, Users: []string{"alice", "bob", "carol", "dave"}})
	alice, bob, carol, dave := s.user(t, "alice").Party, s.user(t, "bob").Party, s.user(t, "carol").Party, s.user(t, "dave").Party
	f := s.factory(t)
	ac := s.amuletContext(t)
	// carol, the executor, is a featured app; dave is not.
	featured, err := s.submit(t, []daml.Party{carol}, ac.Disclosed(), func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.AmuletRulesDevNetFeatureAppResult](tx, ac.AmuletRules.ID, "AmuletRules_DevNet_FeatureApp",
			splice.AmuletRulesDevNetFeatureApp{Provider: carol})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	right := splice.CreatedIn(featured, splice.FeaturedAppRight{}.TemplateID())[0]
	yes, no := true, false
	withState := func(expireLock *bool) splice.ExtraArgs {
		return contextOf(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.config.ID}, expireLock)
	}
	featuredCtx := contextOf(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.config.ID, splice.ContextKeyFeaturedAppRight: right}, nil)
	all := []daml.Party{carol, alice, bob}
	returned := func(t *testing.T, held []daml.ContractID, meta splice.Metadata) {
		if len(held) != 1 || len(meta.Values) != 0 {
			t.Fatalf("held %v meta %v", held, meta)
		}
		if back := s.amulet(t, held[0]); back.Owner != alice || back.Amount.InitialAmount.Cmp(num("1.5")) != 0 {
			t.Errorf("returned %+v", back)
		}
	}
	for _, tc := range []struct {
		name     string
		choice   string
		arg      any
		actAs    []daml.Party
		executor daml.Party
		want     failure
		check    func(t *testing.T, res any, tx *ledger.Transaction)
	}{
		{name: "execute transfers to the receiver", choice: "Allocation_ExecuteTransfer", arg: splice.AllocationExecuteTransfer{ExtraArgs: withState(nil)}, actAs: all,
			check: func(t *testing.T, res any, tx *ledger.Transaction) {
				r := res.(splice.AllocationExecuteTransferResult)
				if len(r.ReceiverHoldingCids) != 1 || len(r.SenderHoldingCids) != 0 {
					t.Fatalf("result %+v", r)
				}
				out := s.amulet(t, r.ReceiverHoldingCids[0])
				if out.Owner != bob || out.Amount.InitialAmount.Cmp(num("1.5")) != 0 {
					t.Errorf("output %+v", out)
				}
				if m := r.Meta.Values; m[splice.MetaTxKind] != "transfer" || m[splice.MetaSender] != string(alice) {
					t.Errorf("meta %v", m)
				}
				if n := len(splice.CreatedIn(tx, splice.FeaturedAppActivityMarker{}.TemplateID())); n != 0 {
					t.Errorf("%d markers without a featured app right", n)
				}
				x := exerciseOf(tx, "Allocation_ExecuteTransfer")
				if x.Interface == nil || *x.Interface != splice.AllocationInterface {
					t.Errorf("exercise interface %v", x.Interface)
				}
			}},
		{name: "a featured executor records its activity", choice: "Allocation_ExecuteTransfer", arg: splice.AllocationExecuteTransfer{ExtraArgs: featuredCtx}, actAs: all,
			check: func(t *testing.T, res any, tx *ledger.Transaction) {
				markers := splice.CreatedIn(tx, splice.FeaturedAppActivityMarker{}.TemplateID())
				if len(markers) != 1 {
					t.Fatalf("markers %v", markers)
				}
				m, err := splice.Decode[splice.FeaturedAppActivityMarker](s.contract(t, markers[0]))
				if err != nil || m.Payload.Provider != carol || m.Payload.Beneficiary != carol {
					t.Errorf("marker %+v %v", m.Payload, err)
				}
			}},
		{name: "beneficiaries come from the metadata", choice: "Allocation_ExecuteTransfer", actAs: all,
			arg: splice.AllocationExecuteTransfer{ExtraArgs: splice.ExtraArgs{Context: featuredCtx.Context, Meta: splice.Metadata{Values: map[string]string{
				splice.MetaAppRewardBeneficiaries: string(carol) + "," + string(dave), splice.MetaAppRewardBeneficiaryWeights: "0.25,0.75",
			}}}},
			check: func(t *testing.T, res any, tx *ledger.Transaction) {
				if n := len(splice.CreatedIn(tx, splice.FeaturedAppActivityMarker{}.TemplateID())); n != 2 {
					t.Errorf("%d markers, want one a beneficiary", n)
				}
			}},
		{name: "beneficiaries without weights are refused", choice: "Allocation_ExecuteTransfer", actAs: all,
			arg: splice.AllocationExecuteTransfer{ExtraArgs: splice.ExtraArgs{Context: featuredCtx.Context, Meta: splice.Metadata{Values: map[string]string{
				splice.MetaAppRewardBeneficiaries: string(carol),
			}}}},
			want: aborted("Expected both beneficiaries and weights to be present, but got: (Some ")},
		{name: "another provider's featured app right is refused", choice: "Allocation_ExecuteTransfer", executor: dave, actAs: []daml.Party{dave, alice, bob},
			arg:  splice.AllocationExecuteTransfer{ExtraArgs: featuredCtx},
			want: aborted("Contract group identifier mismatch")},
		{name: "a foreign config state is refused", choice: "Allocation_ExecuteTransfer", actAs: all,
			arg:  splice.AllocationExecuteTransfer{ExtraArgs: contextOf(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: right}, nil)},
			want: failure{code: "WRONGLY_TYPED_CONTRACT", text: "FeaturedAppRight"}},
		{name: "execute without the executor is refused", choice: "Allocation_ExecuteTransfer", arg: splice.AllocationExecuteTransfer{ExtraArgs: withState(nil)},
			actAs: []daml.Party{alice, bob}, want: unauthorized},
		{name: "cancel returns the amount", choice: "Allocation_Cancel", arg: splice.AllocationCancel{ExtraArgs: withState(&yes)}, actAs: all,
			check: func(t *testing.T, res any, tx *ledger.Transaction) {
				r := res.(splice.AllocationCancelResult)
				returned(t, r.SenderHoldingCids, r.Meta)
			}},
		{name: "cancel by the sender alone is refused", choice: "Allocation_Cancel", arg: splice.AllocationCancel{ExtraArgs: withState(&yes)},
			actAs: []daml.Party{alice}, want: unauthorized},
		{name: "withdraw returns the amount", choice: "Allocation_Withdraw", arg: splice.AllocationWithdraw{ExtraArgs: splice.ExtraArgs{
			Context: splice.ChoiceContext{Values: map[string]splice.AnyValue{}}, Meta: splice.Metadata{Values: map[string]string{}}}}, actAs: []daml.Party{alice},
			check: func(t *testing.T, res any, tx *ledger.Transaction) {
				r := res.(splice.AllocationWithdrawResult)
				returned(t, r.SenderHoldingCids, r.Meta)
			}},
		{name: "withdraw by the executor is refused", choice: "Allocation_Withdraw", arg: splice.AllocationWithdraw{ExtraArgs: withState(&yes)},
			actAs: []daml.Party{carol}, want: unauthorized},
		{name: "withdraw keeping a live lock is refused", choice: "Allocation_Withdraw", arg: splice.AllocationWithdraw{ExtraArgs: withState(&no)},
			actAs: []daml.Party{alice}, want: damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'lockedAmulet.lockExpiresAt'")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			executor := tc.executor
			if executor == "" {
				executor = carol
			}
			res, _, err := s.allocate(t, f, []daml.Party{alice}, s.allocateArg(f, alice, bob, executor, "1.5", []daml.ContractID{s.biggest(t, alice)}))
			if err != nil {
				t.Fatal(err)
			}
			cid := res.Output.Completed.AllocationCid
			var out any
			var tx *ledger.Transaction
			err = s.conserved(t, func() (err error) {
				tx, err = s.submit(t, tc.actAs, append(append([]*ledger.Contract{}, f.disclosed...), s.contract(t, right)), func(tx *ledger.Tx) (err error) {
					switch a := tc.arg.(type) {
					case splice.AllocationExecuteTransfer:
						out, err = ledger.ExerciseInterface[splice.AllocationExecuteTransferResult](tx, cid, splice.AllocationInterface, tc.choice, a)
					case splice.AllocationCancel:
						out, err = ledger.ExerciseInterface[splice.AllocationCancelResult](tx, cid, splice.AllocationInterface, tc.choice, a)
					case splice.AllocationWithdraw:
						out, err = ledger.ExerciseInterface[splice.AllocationWithdrawResult](tx, cid, splice.AllocationInterface, tc.choice, a)
					}
					return err
				})
				return err
			})
			tc.want.check(t, err)
			if err != nil || tc.check == nil {
				return
			}
			switch tc.arg.(type) {
			case splice.AllocationExecuteTransfer:
				out = committedResult[splice.AllocationExecuteTransferResult](t, tx, tc.choice)
			case splice.AllocationCancel:
				out = committedResult[splice.AllocationCancelResult](t, tx, tc.choice)
			case splice.AllocationWithdraw:
				out = committedResult[splice.AllocationWithdrawResult](t, tx, tc.choice)
			}
			tc.check(t, out, tx)
		})
	}
}

// Past its deadlines an allocation can no longer be settled; the sender
// may withdraw it keeping no lock once its owner released the lock, and
// the DSO's automation expires the others, returning their amounts.
func TestAmuletAllocationAfterDeadline(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true, Users: []string{"alice", "bob", "carol"}})
	alice, bob, carol := s.user(t, "alice").Party, s.user(t, "bob").Party, s.user(t, "carol").Party
	f := s.factory(t)
	var cids []daml.ContractID
	for range 3 {
		arg := s.allocateArg(f, alice, bob, carol, "1.5", []daml.ContractID{s.biggest(t, alice)})
		arg.Allocation.Settlement.SettleBefore = after(s.now(), 2*time.Hour)
		res, _, err := s.allocate(t, f, []daml.Party{alice}, arg)
		if err != nil {
			t.Fatal(err)
		}
		cids = append(cids, res.Output.Completed.AllocationCid)
	}
	// The DSO cannot expire a live allocation.
	_, err := s.asDSO(t, f.disclosed, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.AmuletAllocationDsoExpireResult](tx, cids[0], "AmuletAllocation_DsoExpire", splice.AmuletAllocationDsoExpire{ExpireLock: true})
		return err
	})
	damlFailure("stdlib.daml.com/deadline-not-exceeded", "Ledger time is before deadline 'AmuletAllocation.expiresAt'").check(t, err)
	s.advance(t, 3*time.Hour)
	_, err = s.submit(t, []daml.Party{carol, alice, bob}, f.disclosed, func(tx *ledger.Tx) error {
		_, err := ledger.ExerciseInterface[splice.AllocationExecuteTransferResult](tx, cids[0], splice.AllocationInterface, "Allocation_ExecuteTransfer",
			splice.AllocationExecuteTransfer{ExtraArgs: contextOf(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.config.ID}, nil)})
		return err
	})
	damlFailure("stdlib.daml.com/deadline-exceeded", "Ledger time is at or past deadline 'allocation.settlement.settleBefore'").check(t, err)
	// The wrong DSO is refused.
	_, err = s.asDSO(t, f.disclosed, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.ExternalPartyAmuletRulesExpireAmuletAllocationsResult](tx, f.rules.ID, "ExternalPartyAmuletRules_ExpireAmuletAllocations",
			splice.ExternalPartyAmuletRulesExpireAmuletAllocations{ExpectedDso: alice, Inputs: []splice.ExternalPartyAmuletRulesExpireAmuletAllocationInput{{AllocationCid: cids[0], ExpireLock: true}}})
		return err
	})
	aborted("'expectedDso' is not equal to 'expected value'.").check(t, err)
	// alice releases the expired lock of the second allocation herself
	// (a transfer spends it), then withdraws it with expire-lock false.
	lockedOf := s.allocation(t, cids[1]).LockedAmulet
	arg := s.transferArg(f, alice, alice, "1.5", []daml.ContractID{lockedOf})
	if _, _, err := s.transferThroughFactory(t, f, []daml.Party{alice}, arg); err != nil {
		t.Fatal(err)
	}
	no := false
	err = s.conserved(t, func() error {
		_, err := s.submit(t, []daml.Party{alice}, f.disclosed, func(tx *ledger.Tx) error {
			_, err := ledger.ExerciseInterface[splice.AllocationWithdrawResult](tx, cids[1], splice.AllocationInterface, "Allocation_Withdraw",
				splice.AllocationWithdraw{ExtraArgs: contextOf(nil, &no)})
			return err
		})
		return err
	})
	failure{}.check(t, err)
	initial := func() daml.Numeric {
		var total daml.Numeric
		for _, h := range s.holdings(t, alice) {
			total, _ = total.Add(h.Payload.Amount.InitialAmount)
		}
		return total
	}
	before := initial()
	var pass splice.PassResult
	_ = s.conserved(t, func() error { pass = s.runAutomation(t); return nil })
	for _, cid := range []daml.ContractID{cids[0], cids[2]} {
		if _, active, err := s.net.Store().Contract(context.Background(), cid); err != nil || active {
			t.Errorf("allocation %s still active after the automation (%v): %+v", cid, err, pass)
		}
	}
	if got, _ := before.Add(num("3.0")); initial().Cmp(got) != 0 {
		t.Errorf("alice holds %s after the expiry, want %s", initial(), got)
	}
}

// The factory's view and public fetch, which ignores expectedAdmin.
func TestAllocationFactoryPublicFetch(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true})
	alice := s.user(t, "alice").Party
	f := s.factory(t)
	var view splice.AllocationFactoryView
	_, err := s.submit(t, []daml.Party{alice}, f.disclosed, func(tx *ledger.Tx) (err error) {
		view, err = ledger.ExerciseInterface[splice.AllocationFactoryView](tx, f.rules.ID, splice.AllocationFactoryInterface, "AllocationFactory_PublicFetch",
			splice.AllocationFactoryPublicFetch{ExpectedAdmin: alice, Actor: alice})
		return err
	})
	if err != nil || view.Admin != s.DSOParty || len(view.Meta.Values) != 0 {
		t.Errorf("view %+v, %v", view, err)
	}
	v, err := s.net.Registry().InterfaceView(s.contract(t, f.rules.ID), splice.AllocationFactoryInterface)
	if err != nil {
		t.Fatal(err)
	}
	if enc, _ := daml.LedgerJSON.Encode(v); string(enc) != `{"admin":"`+string(s.DSOParty)+`","meta":{"values":{}}}` {
		t.Errorf("interface view %s", enc)
	}
}

// A settled allocation is gone: executing, cancelling or withdrawing it
// again with the same (reused) context finds no contract, and the amount
// moved once.
func TestAmuletAllocationSettledOnce(t *testing.T) {
	t.Parallel()
	s := seedNetwork(t, splice.SeedConfig{NoAnsEntries: true, Users: []string{"alice", "bob", "carol"}})
	alice, bob, carol := s.user(t, "alice").Party, s.user(t, "bob").Party, s.user(t, "carol").Party
	f := s.factory(t)
	res, _, err := s.allocate(t, f, []daml.Party{alice}, s.allocateArg(f, alice, bob, carol, "1.5", []daml.ContractID{s.biggest(t, alice)}))
	if err != nil {
		t.Fatal(err)
	}
	cid := res.Output.Completed.AllocationCid
	extra := contextOf(map[string]daml.ContractID{splice.ContextKeyExternalPartyConfigState: f.config.ID}, nil)
	for i, tc := range []struct {
		choice string
		run    func(tx *ledger.Tx) error
	}{
		{"Allocation_ExecuteTransfer", func(tx *ledger.Tx) error {
			_, err := ledger.ExerciseInterface[splice.AllocationExecuteTransferResult](tx, cid, splice.AllocationInterface, "Allocation_ExecuteTransfer", splice.AllocationExecuteTransfer{ExtraArgs: extra})
			return err
		}},
		{"Allocation_ExecuteTransfer", func(tx *ledger.Tx) error {
			_, err := ledger.ExerciseInterface[splice.AllocationExecuteTransferResult](tx, cid, splice.AllocationInterface, "Allocation_ExecuteTransfer", splice.AllocationExecuteTransfer{ExtraArgs: extra})
			return err
		}},
		{"Allocation_Cancel", func(tx *ledger.Tx) error {
			_, err := ledger.ExerciseInterface[splice.AllocationCancelResult](tx, cid, splice.AllocationInterface, "Allocation_Cancel", splice.AllocationCancel{ExtraArgs: extra})
			return err
		}},
		{"Allocation_Withdraw", func(tx *ledger.Tx) error {
			_, err := ledger.ExerciseInterface[splice.AllocationWithdrawResult](tx, cid, splice.AllocationInterface, "Allocation_Withdraw", splice.AllocationWithdraw{ExtraArgs: extra})
			return err
		}},
	} {
		// In order: the first settles, the others find nothing.
		t.Run(strconv.Itoa(i)+" "+tc.choice, func(t *testing.T) {
			err := s.conserved(t, func() error {
				_, err := s.submit(t, []daml.Party{carol, alice, bob}, f.disclosed, tc.run)
				return err
			})
			if i == 0 {
				failure{}.check(t, err)
				return
			}
			failure{code: "CONTRACT_NOT_FOUND", text: string(cid)}.check(t, err)
		})
	}
}
