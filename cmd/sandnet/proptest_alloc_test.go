package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
)

// The property test's token-standard allocations, driven as a wallet and
// a settlement app drive them: a user's party (local or external)
// allocates to another user's local party through the registry's
// allocation-factory and the AllocationFactory interface, for a
// settlement executed by the validator's party; the executor executes or
// cancels an allocation with the registry's context, acting with the
// sender and the receiver (a settlement app's user with the right to act
// as all three: Allocation_ExecuteTransfer and Allocation_Cancel need the
// three parties' authority, which only a local sender can give in one
// submission); the sender withdraws. Allocations charge no fees: the
// supply check after every step holds them to it.

const (
	allocationInterface        = "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation"
	allocationFactoryInterface = "#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory"
	// settlerUser is the ledger API user of the settlement app: it acts as
	// the executor (the validator's party) and, once granted, as the
	// senders and receivers of the allocations it settles.
	settlerUser = "settler"
)

// allocationView is what the driver reads of an Allocation view.
type allocationView struct {
	Allocation struct {
		Settlement struct {
			Executor      string `json:"executor"`
			SettlementRef struct {
				ID string `json:"id"`
			} `json:"settlementRef"`
			SettleBefore string `json:"settleBefore"`
		} `json:"settlement"`
		TransferLeg struct {
			Sender   string `json:"sender"`
			Receiver string `json:"receiver"`
			Amount   string `json:"amount"`
		} `json:"transferLeg"`
	} `json:"allocation"`
	HoldingCids []string `json:"holdingCids"`
}

// executor is the settlement's executor: the validator's party, acted as
// by the settler user.
func (r *propRun) executor() (propActor, error) {
	party := string(r.sn.seeded.Validator.Party)
	if err := r.settlerActsAs(party); err != nil {
		return propActor{}, err
	}
	return propActor{u: &propUser{name: settlerUser, party: party, token: r.token(settlerUser)}, party: party}, nil
}

// settlerActsAs makes sure the settler user exists and may act as party,
// as a participant admin would set it up.
func (r *propRun) settlerActsAs(party string) error {
	if r.settlerRights[party] {
		return nil
	}
	right := []any{map[string]any{"kind": map[string]any{"CanActAs": map[string]any{"value": map[string]string{"party": party}}}}}
	if r.settlerRights == nil {
		code, data, err := r.call("create settler", "POST", "/v2/users", r.admin, map[string]any{
			"user": map[string]any{"id": settlerUser, "primaryParty": party, "isDeactivated": false}, "rights": right,
		})
		if err != nil {
			return err
		}
		// 409: the user outlived a restart of the run's own data.
		if err := wantCode("create settler", code, data, func(c int) bool { return c == 200 || c == 409 }, "200, or 409 once created"); err != nil {
			return err
		}
		r.settlerRights = map[string]bool{}
	}
	if _, err := r.want200("grant settler", "POST", "/v2/users/"+settlerUser+"/rights", r.admin, map[string]any{
		"userId": settlerUser, "rights": right,
	}, nil); err != nil {
		return err
	}
	r.settlerRights[party] = true
	return nil
}

// allocationRef is the settlement id of the allocation step made.
func allocationRef(step int) string { return fmt.Sprint("ts-alloc-", step) }

// tsAllocate has a user's party (o.count&1: its external party) allocate
// o.amount to another user's local party for a settlement by the
// validator's party, to settle within o.expiry: inputs from the Holding
// ACS, the factory and its context from the registry,
// AllocationFactory_Allocate exercised with the context in extraArgs.
// A successful allocation is seen by its sender and its executor.
func (r *propRun) tsAllocate(o op) error {
	sender, err := r.actor(r.user(o.user), o.count&1 != 0)
	if err != nil {
		return err
	}
	receiver := r.user(o.other)
	exec, err := r.executor()
	if err != nil {
		return err
	}
	if o.amount.class == amtNormal || o.amount.class == amtTiny {
		if err := r.fund(o, sender, daml.MustNumeric(o.amount.lit)); err != nil {
			return err
		}
	}
	inputs, _, err := r.inputsOf(sender)
	if err != nil {
		return err
	}
	if inputs == nil {
		inputs = []string{}
	}
	now, err := r.now()
	if err != nil {
		return err
	}
	ref := allocationRef(o.step)
	requested := (now - daml.Timestamp(time.Minute.Microseconds())).String()
	settleBefore := (now + daml.Timestamp(o.expiry.us)).String()
	empty := map[string]any{"values": map[string]any{}}
	args := map[string]any{
		"expectedAdmin": r.dso,
		"allocation": map[string]any{
			"settlement": map[string]any{
				"executor": exec.party, "settlementRef": map[string]any{"id": ref, "cid": nil},
				"requestedAt": requested, "allocateBefore": settleBefore, "settleBefore": settleBefore, "meta": empty,
			},
			"transferLegId": "leg-0",
			"transferLeg": map[string]any{
				"sender": sender.party, "receiver": receiver.party, "amount": o.amount.lit,
				"instrumentId": map[string]string{"admin": r.dso, "id": "Amulet"},
				"meta":         map[string]any{"values": map[string]string{reasonKey: ref}},
			},
		},
		"requestedAt": requested, "inputHoldingCids": inputs,
		"extraArgs": map[string]any{"context": empty, "meta": empty},
	}
	var f struct {
		FactoryID     string          `json:"factoryId"`
		ChoiceContext registryContext `json:"choiceContext"`
	}
	// The registry does not read the arguments: any object gets its
	// factory.
	if _, err := r.want200("allocation-factory", "POST", "/registry/allocation-instruction/v1/allocation-factory", "", map[string]any{
		"choiceArguments": args, "excludeDebugFields": true,
	}, &f); err != nil {
		return err
	}
	args["extraArgs"] = map[string]any{"context": f.ChoiceContext.ChoiceContextData, "meta": empty}
	cmd := map[string]any{"ExerciseCommand": map[string]any{
		"templateId": allocationFactoryInterface, "contractId": f.FactoryID, "choice": "AllocationFactory_Allocate", "choiceArgument": args,
	}}
	code, data, err := r.submitAs("ts allocate", sender, ref, []any{cmd}, f.ChoiceContext.DisclosedContracts)
	if err != nil {
		return err
	}
	want, why := amountWant(o.amount)
	switch {
	case o.amount.class == amtMalformed:
		want, why = any2or4, "200 or a 4xx" // Daml JSON's Numeric notation is not the wallet's
	case o.expiry.us <= 0:
		want, why = is4xx, "a 4xx for a settleBefore not in the future"
	}
	if err := wantCode("ts allocate", code, data, want, why); err != nil || code != 200 {
		return err
	}
	for _, a := range []propActor{sender, exec} {
		as, err := r.activeOf(a, allocationInterface, 0)
		if err != nil {
			return err
		}
		found := slices.ContainsFunc(as, func(al viewed) bool {
			var v allocationView
			return json.Unmarshal(al.view, &v) == nil && v.Allocation.Settlement.SettlementRef.ID == ref &&
				v.Allocation.TransferLeg.Sender == sender.party && len(v.HoldingCids) == 1
		})
		if !found {
			return fail("allocation not seen", "%s: %s sees no allocation after allocating", ref, a.party)
		}
	}
	return nil
}

// listedAllocation is an allocation an actor lists.
type listedAllocation struct {
	a    propActor
	cid  string
	view allocationView
}

// allocationsOf lists the allocations the actors see, keeping those keep
// accepts.
func (r *propRun) allocationsOf(actors []propActor, keep func(propActor, allocationView) bool) ([]listedAllocation, error) {
	var out []listedAllocation
	for _, a := range actors {
		as, err := r.activeOf(a, allocationInterface, 0)
		if err != nil {
			return nil, err
		}
		for _, al := range as {
			var v allocationView
			if err := json.Unmarshal(al.view, &v); err != nil {
				return nil, fail("bad Allocation view", "%v: %s", err, short(string(al.view)))
			}
			if keep(a, v) {
				out = append(out, listedAllocation{a, al.cid, v})
			}
		}
	}
	return out, nil
}

// allocationLive says whether an allocation's settlement deadline is more
// than a minute away: its choices must succeed.
func (r *propRun) allocationLive(v allocationView) (bool, error) {
	now, err := r.now()
	if err != nil {
		return false, err
	}
	exp, err := time.Parse(time.RFC3339Nano, v.Allocation.Settlement.SettleBefore)
	return err == nil && exp.UnixMicro() > int64(now)+time.Minute.Microseconds(), nil
}

// allocationContext asks the registry for an allocation choice's context;
// live says it must answer 200. The Scan ingests the ledger in the
// background: a 404 for an allocation the ledger listed a moment ago is
// asked again for a while, as a client waits for the Scan to catch up.
func (r *propRun) allocationContext(cid, choice string, live bool) (registryContext, int, error) {
	var ctx registryContext
	var code int
	var data []byte
	var err error
	for attempt := 1; ; attempt++ {
		code, data, err = r.call("allocation choice-context", "POST", "/registry/allocations/v1/"+url.PathEscape(cid)+"/choice-contexts/"+choice, "",
			map[string]any{"meta": map[string]any{}, "excludeDebugFields": true})
		if err != nil || code != http.StatusNotFound || !live || attempt == 20 {
			break
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
	}
	if err != nil {
		return ctx, code, err
	}
	want, why := any2or4, "200 or a 4xx for an expired allocation"
	if live {
		want, why = is200, "200 for a live allocation listed a moment ago"
	}
	if err := wantCode("allocation choice-context", code, data, want, why); err != nil || code != 200 {
		return ctx, code, err
	}
	if err := json.Unmarshal(data, &ctx); err != nil {
		return ctx, code, fail("bad JSON from allocation choice-context", "%v: %s", err, short(string(data)))
	}
	return ctx, code, nil
}

// allocationCommand is the exercise of an Allocation choice with a
// registry context.
func allocationCommand(cid, choice string, ctx registryContext) map[string]any {
	return map[string]any{"ExerciseCommand": map[string]any{
		"templateId": allocationInterface, "contractId": cid, "choice": choice,
		"choiceArgument": map[string]any{"extraArgs": map[string]any{"context": ctx.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}},
	}}
}

// tsAllocSettle has the executor execute (opTSAllocExecute) or cancel
// (opTSAllocCancel) an allocation it lists, acting with its sender and
// receiver; other < 0 asks the registry about a bogus id, which must be a
// 4xx. An external sender cannot act in a local submission: that must be
// a 4xx too.
func (r *propRun) tsAllocSettle(o op) error {
	choice, path := "Allocation_ExecuteTransfer", "execute-transfer"
	if o.kind == opTSAllocCancel {
		choice, path = "Allocation_Cancel", "cancel"
	}
	if o.other < 0 {
		code, data, err := r.call("allocation choice-context", "POST", "/registry/allocations/v1/"+url.PathEscape(o.text)+"/choice-contexts/"+path, "", map[string]any{})
		if err != nil {
			return err
		}
		return wantCode("allocation choice-context", code, data, is4xx, "a 4xx for no allocation")
	}
	exec, err := r.executor()
	if err != nil {
		return err
	}
	mine, err := r.allocationsOf([]propActor{exec}, func(a propActor, v allocationView) bool { return v.Allocation.Settlement.Executor == a.party })
	if err != nil || len(mine) == 0 {
		return err
	}
	p := mine[o.other%len(mine)]
	leg := p.view.Allocation.TransferLeg
	live, err := r.allocationLive(p.view)
	if err != nil {
		return err
	}
	ctx, code, err := r.allocationContext(p.cid, path, live)
	if err != nil || code != 200 {
		return err
	}
	for _, party := range []string{leg.Sender, leg.Receiver} {
		if err := r.settlerActsAs(party); err != nil {
			return err
		}
	}
	code, data, err := r.call("ts "+path, "POST", "/v2/commands/submit-and-wait", exec.u.token, map[string]any{
		"commands": []any{allocationCommand(p.cid, choice, ctx)}, "commandId": fmt.Sprint("ts-", path, "-", o.step),
		"actAs": []string{exec.party, leg.Sender, leg.Receiver}, "disclosedContracts": ctx.DisclosedContracts,
	})
	if err != nil {
		return err
	}
	want, why := any2or4, "200 or a 4xx for an expired allocation"
	switch {
	case r.userByParty(leg.Sender) == nil:
		want, why = is4xx, "a 4xx for an external sender in a local submission"
	case live:
		want, why = is200, "200 for a live allocation with its three parties"
	}
	return wantCode("ts "+path, code, data, want, why)
}

// tsAllocWithdraw has a user's party (local or external) withdraw an
// allocation it sent, with the registry's context.
func (r *propRun) tsAllocWithdraw(o op) error {
	u := r.user(o.user)
	actors := []propActor{{u: u, party: u.party}}
	if x := r.external[u.name]; x != nil {
		actors = append(actors, propActor{u: u, party: x.party, ext: x})
	}
	mine, err := r.allocationsOf(actors, func(a propActor, v allocationView) bool { return v.Allocation.TransferLeg.Sender == a.party })
	if err != nil || len(mine) == 0 {
		return err
	}
	p := mine[o.other%len(mine)]
	live, err := r.allocationLive(p.view)
	if err != nil {
		return err
	}
	ctx, code, err := r.allocationContext(p.cid, "withdraw", live)
	if err != nil || code != 200 {
		return err
	}
	code, data, err := r.submitAs("ts withdraw allocation", p.a, fmt.Sprint("ts-alloc-withdraw-", o.step), []any{allocationCommand(p.cid, "Allocation_Withdraw", ctx)}, ctx.DisclosedContracts)
	if err != nil {
		return err
	}
	want, why := any2or4, "200 or a 4xx for an expired allocation"
	if live {
		want, why = is200, "200 for a live allocation withdrawn by its sender"
	}
	return wantCode("ts withdraw allocation", code, data, want, why)
}
