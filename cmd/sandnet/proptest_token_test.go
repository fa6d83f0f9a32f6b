package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/interactive"
)

// The property test's token-standard steps, driven as the wallet SDK
// drives them: a transfer through the registry's transfer-factory and the
// TransferFactory interface, accept/reject/withdraw of a pending
// TransferInstruction through its choice context, and a transfer
// pre-approval made through the wallet. A sender or actor is a user's
// local party (submit-and-wait) or its external party (prepare, sign,
// executeAndWait). Transfers have no fees: the supply check after every
// step holds them to it.

const (
	holdingInterface             = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	transferFactoryInterface     = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"
	transferInstructionInterface = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction"
	reasonKey                    = "splice.lfdecentralizedtrust.org/reason"
)

// propActor is a party the driver acts as: a user's local party, or its
// external party (ext set).
type propActor struct {
	u     *propUser
	party string
	ext   *propExternal
}

// actor is user u's local party, or its external party (onboarded now).
func (r *propRun) actor(u *propUser, external bool) (propActor, error) {
	if !external {
		return propActor{u: u, party: u.party}, nil
	}
	x, err := r.externalOf(u)
	if err != nil {
		return propActor{}, err
	}
	return propActor{u: u, party: x.party, ext: x}, nil
}

// submitAs submits commands as a: submit-and-wait for a local party;
// prepare, check the hash, sign and executeAndWait for an external one. It
// returns the last answer (the prepare's if that was refused).
func (r *propRun) submitAs(label string, a propActor, commandID string, commands []any, disclosed []json.RawMessage) (int, []byte, error) {
	body := map[string]any{"commands": commands, "commandId": commandID, "actAs": []string{a.party}, "disclosedContracts": disclosed}
	if a.ext == nil {
		return r.call(label, "POST", "/v2/commands/submit-and-wait", a.u.token, body)
	}
	code, data, err := r.call(label+" prepare", "POST", "/v2/interactive-submission/prepare", a.u.token, body)
	if err != nil || code != 200 {
		return code, data, err
	}
	var prep struct {
		PreparedTransaction     string `json:"preparedTransaction"`
		PreparedTransactionHash string `json:"preparedTransactionHash"`
	}
	if err := json.Unmarshal(data, &prep); err != nil {
		return code, data, fail(label+" prepare", "answer does not decode: %v", err)
	}
	raw, err := base64.StdEncoding.DecodeString(prep.PreparedTransaction)
	if err != nil {
		return code, data, fail(label+" prepare", "preparedTransaction is not base64")
	}
	pt, err := interactive.Unmarshal(raw)
	if err != nil {
		return code, data, fail(label+" prepare", "the prepared transaction does not decode: %v", err)
	}
	h, err := interactive.HashV2(pt)
	if err != nil {
		return code, data, fail(label+" prepare", "the prepared transaction does not hash: %v", err)
	}
	if base64.StdEncoding.EncodeToString(h.Final[:]) != prep.PreparedTransactionHash {
		return code, data, fail(label+" prepare hash", "the hash of the prepared transaction is not the answer's")
	}
	return r.call(label+" execute", "POST", "/v2/interactive-submission/executeAndWait", a.u.token, map[string]any{
		"preparedTransaction": prep.PreparedTransaction,
		"partySignatures": map[string]any{"signatures": []any{map[string]any{
			"party": a.party, "signatures": []any{a.ext.signature(h.Final[:])},
		}}},
		"submissionId": commandID, "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
	})
}

// viewed is an active contract of an interface, with its view.
type viewed struct {
	cid  string
	view json.RawMessage
}

// activeOf lists a's active contracts of an interface, with their views,
// through the ledger API's ACS as the SDK reads it; limit > 0 takes at
// most that many (0: all, or the first 200 if there are more).
func (r *propRun) activeOf(a propActor, iface string, limit int) ([]viewed, error) {
	var end struct {
		Offset int64 `json:"offset"`
	}
	if _, err := r.get("ledger end", "/v2/state/ledger-end", a.u.token, &end); err != nil {
		return nil, err
	}
	var list []struct {
		ContractEntry struct {
			JsActiveContract *struct {
				CreatedEvent struct {
					ContractID     string `json:"contractId"`
					InterfaceViews []struct {
						ViewValue json.RawMessage `json:"viewValue"`
					} `json:"interfaceViews"`
				} `json:"createdEvent"`
			} `json:"JsActiveContract"`
		} `json:"contractEntry"`
	}
	filter := map[string]any{"cumulative": []any{map[string]any{"identifierFilter": map[string]any{"InterfaceFilter": map[string]any{
		"value": map[string]any{"interfaceId": iface, "includeInterfaceView": true, "includeCreatedEventBlob": false},
	}}}}}
	path := "/v2/state/active-contracts"
	if limit > 0 {
		path += fmt.Sprint("?limit=", limit)
	}
	code, data, err := r.call("active contracts", "POST", path, a.u.token, map[string]any{
		"activeAtOffset": end.Offset, "eventFormat": map[string]any{"filtersByParty": map[string]any{a.party: filter}, "verbose": false},
	})
	if err != nil {
		return nil, err
	}
	// More than the list limit (ListLimit) is Canton's 413: a client
	// then asks for fewer.
	if code == http.StatusRequestEntityTooLarge && limit == 0 {
		return r.activeOf(a, iface, 200)
	}
	if err := wantCode("active contracts", code, data, is200, "200 for a party's contracts"); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fail("bad JSON from active contracts", "%v: %s", err, short(string(data)))
	}
	var out []viewed
	for _, e := range list {
		ac := e.ContractEntry.JsActiveContract
		if ac == nil || len(ac.CreatedEvent.InterfaceViews) == 0 {
			continue
		}
		out = append(out, viewed{ac.CreatedEvent.ContractID, ac.CreatedEvent.InterfaceViews[0].ViewValue})
	}
	return out, nil
}

// holdingView and instructionView are what the driver reads of the
// Holding and TransferInstruction views.
type holdingView struct {
	Owner  string          `json:"owner"`
	Amount string          `json:"amount"`
	Lock   json.RawMessage `json:"lock"`
}

type tsTransfer struct {
	Sender        string `json:"sender"`
	Receiver      string `json:"receiver"`
	Amount        string `json:"amount"`
	ExecuteBefore string `json:"executeBefore"`
	Meta          struct {
		Values map[string]string `json:"values"`
	} `json:"meta"`
}

type instructionView struct {
	Transfer tsTransfer `json:"transfer"`
}

// inputsOf are a's unlocked holdings, the biggest first and at most 100
// (a transfer's limit), and their sum.
func (r *propRun) inputsOf(a propActor) ([]string, daml.Numeric, error) {
	sum := daml.MustNumeric("0.0")
	hs, err := r.activeOf(a, holdingInterface, 0)
	if err != nil {
		return nil, sum, err
	}
	var ins []input
	if len(hs) >= 200 && a.ext == nil {
		// The ACS answered its first 200 only: the wallet lists them all.
		return r.walletInputs(a)
	}
	for _, h := range hs {
		var v holdingView
		if json.Unmarshal(h.view, &v) != nil || v.Owner != a.party || (len(v.Lock) > 0 && string(v.Lock) != "null") {
			continue
		}
		n, err := parseAmount("holding view", v.Amount)
		if err != nil {
			return nil, sum, err
		}
		ins = append(ins, input{h.cid, n})
	}
	cids, sum := biggest(ins)
	return cids, sum, nil
}

// input is a holding a transfer may spend.
type input struct {
	cid string
	amt daml.Numeric
}

// biggest returns the ids of the 100 biggest holdings (at most a
// transfer's inputs), biggest first, and their sum.
func biggest(ins []input) ([]string, daml.Numeric) {
	slices.SortStableFunc(ins, func(x, y input) int { return y.amt.Cmp(x.amt) })
	sum := daml.MustNumeric("0.0")
	var cids []string
	for _, in := range ins[:min(len(ins), 100)] {
		cids = append(cids, in.cid)
		if s, err := sum.Add(in.amt); err == nil {
			sum = s
		}
	}
	return cids, sum
}

// walletInputs are a local party's biggest 100 amulets as its wallet
// lists them, and their sum.
func (r *propRun) walletInputs(a propActor) ([]string, daml.Numeric, error) {
	sum := daml.MustNumeric("0.0")
	var am walletAmulets
	if _, err := r.get("amulets", validatorAPI+"/wallet/amulets", a.u.token, &am); err != nil {
		return nil, sum, err
	}
	var ins []input
	for _, x := range am.Amulets {
		n, err := parseAmount("amulets", x.Contract.Contract.Payload.Amount.InitialAmount)
		if err != nil {
			return nil, sum, err
		}
		ins = append(ins, input{x.Contract.Contract.ContractID, n})
	}
	cids, sum := biggest(ins)
	return cids, sum, nil
}

// fund taps 3000 CC for a (more than any normal amount) when its inputs
// fall short of amount: the tap a wallet user makes before a transfer.
func (r *propRun) fund(o op, a propActor, amount daml.Numeric) error {
	_, sum, err := r.inputsOf(a)
	if err != nil || sum.Cmp(amount) > 0 {
		return err
	}
	tap := amount3000
	if a.ext == nil {
		return r.tap(o, a.u, tap)
	}
	return r.externalTap(op{step: o.step, kind: opExternalTap, user: o.user, amount: tap})
}

var amount3000 = amount{amtNormal, "3000.0"}

// registryContext is a registry answer's choice context.
type registryContext struct {
	ChoiceContextData  json.RawMessage   `json:"choiceContextData"`
	DisclosedContracts []json.RawMessage `json:"disclosedContracts"`
}

// tsTransferOp has a user's party (o.count&1: its external party) transfer
// to another user's party (o.count&2: its external party) through the
// token standard: inputs from the Holding ACS, the factory and its
// context from the registry, TransferFactory_Transfer exercised with the
// context spliced into extraArgs. The kind must follow the receiver's
// pre-approval: direct if it has one, self to itself, else offer, which
// leaves a TransferInstruction pending.
func (r *propRun) tsTransferOp(o op) error {
	su, ru := r.user(o.user), r.user(o.other)
	sender, err := r.actor(su, o.count&1 != 0)
	if err != nil {
		return err
	}
	receiver, err := r.actor(ru, o.count&2 != 0)
	if err != nil {
		return err
	}
	if o.amount.class == amtNormal || o.amount.class == amtTiny {
		if err := r.fund(o, sender, daml.MustNumeric(o.amount.lit)); err != nil {
			return err
		}
	}
	if sender.ext == nil && receiver.ext == nil && o.step%2 == 0 {
		// Every other one between local parties goes through the wallet,
		// which picks the inputs and asks the registry itself; the
		// generator is unchanged, so old seeds still replay.
		return r.walletTSTransfer(o, sender, receiver)
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
	reason := fmt.Sprint("ts-", o.step)
	args := map[string]any{
		"expectedAdmin": r.dso,
		"transfer": map[string]any{
			"sender": sender.party, "receiver": receiver.party, "amount": o.amount.lit,
			"instrumentId":     map[string]string{"admin": r.dso, "id": "Amulet"},
			"requestedAt":      (now - daml.Timestamp(time.Minute.Microseconds())).String(),
			"executeBefore":    (now + daml.Timestamp(o.expiry.us)).String(),
			"inputHoldingCids": inputs, "meta": map[string]any{"values": map[string]string{reasonKey: reason}},
		},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
	}
	code, data, err := r.call("transfer-factory", "POST", "/registry/transfer-instruction/v1/transfer-factory", "", map[string]any{
		"choiceArguments": args, "excludeDebugFields": true,
	})
	if err != nil {
		return err
	}
	// The registry parses the arguments only: a malformed amount may be
	// refused there, anything well formed gets its factory.
	if o.amount.class == amtMalformed {
		if err := wantCode("transfer-factory", code, data, any2or4, "200 or a 4xx"); err != nil || code != 200 {
			return err
		}
	} else if err := wantCode("transfer-factory", code, data, is200, "200 for well-formed transfer arguments"); err != nil {
		return err
	}
	var f struct {
		FactoryID     string          `json:"factoryId"`
		TransferKind  string          `json:"transferKind"`
		ChoiceContext registryContext `json:"choiceContext"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return fail("bad JSON from transfer-factory", "%v: %s", err, short(string(data)))
	}
	kind := "offer"
	switch {
	case sender.party == receiver.party:
		kind = "self"
	case r.preapproved[receiver.party]:
		kind = "direct"
	}
	if f.TransferKind != kind {
		return fail("transfer kind "+f.TransferKind+", want "+kind, "%s → %s: transfer-factory said %q, want %q (pre-approved: %v)",
			sender.party, receiver.party, f.TransferKind, kind, r.preapproved[receiver.party])
	}
	args["extraArgs"] = map[string]any{"context": f.ChoiceContext.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}
	cmd := map[string]any{"ExerciseCommand": map[string]any{
		"templateId": transferFactoryInterface, "contractId": f.FactoryID, "choice": "TransferFactory_Transfer", "choiceArgument": args,
	}}
	code, data, err = r.submitAs("ts transfer", sender, reason, []any{cmd}, f.ChoiceContext.DisclosedContracts)
	if err != nil {
		return err
	}
	want, why := amountWant(o.amount)
	switch {
	case o.amount.class == amtMalformed:
		want, why = any2or4, "200 or a 4xx" // Daml JSON's Numeric notation is not the wallet's
	case o.expiry.us <= 0:
		want, why = is4xx, "a 4xx for an executeBefore not in the future"
	}
	if err := wantCode("ts transfer", code, data, want, why); err != nil || code != 200 || kind != "offer" {
		return err
	}
	// An offer leaves its instruction, with the transfer as asked, to the
	// sender and the receiver.
	for _, a := range []propActor{sender, receiver} {
		tis, err := r.activeOf(a, transferInstructionInterface, 0)
		if err != nil {
			return err
		}
		found := false
		for _, ti := range tis {
			var v instructionView
			if json.Unmarshal(ti.view, &v) == nil && v.Transfer.Meta.Values[reasonKey] == reason {
				found = v.Transfer.Amount == daml.MustNumeric(o.amount.lit).String() || v.Transfer.Amount == o.amount.lit
				if !found {
					return fail("instruction of another amount", "%s: the instruction of %s holds %s", reason, o.amount.lit, v.Transfer.Amount)
				}
			}
		}
		if !found {
			return fail("offer left no instruction", "%s: %s sees no pending instruction after an offer", reason, a.party)
		}
	}
	return nil
}

// walletTSTransfer is tsTransferOp through the wallet's endpoint
// (POST /v0/wallet/token-standard/transfers): a pending transfer for a
// receiver without a pre-approval, completed at once for one with it or
// for the sender itself; refusals as for a transfer offer.
func (r *propRun) walletTSTransfer(o op, sender, receiver propActor) error {
	now, err := r.now()
	if err != nil {
		return err
	}
	tracking := fmt.Sprint("wts-", o.step)
	code, data, err := r.call("wallet ts transfer", "POST", validatorAPI+"/wallet/token-standard/transfers", sender.u.token, map[string]any{
		"receiver_party_id": receiver.party, "amount": o.amount.lit, "description": tracking,
		"expires_at": int64(now) + o.expiry.us, "tracking_id": tracking,
	})
	if err != nil {
		return err
	}
	want, why := amountWant(o.amount)
	if o.expiry.us <= 0 {
		want, why = is4xx, "a 4xx for an expiry not in the future"
	}
	if err := wantCode("wallet ts transfer", code, data, want, why); err != nil || code != 200 {
		return err
	}
	var res struct {
		Output struct {
			TransferInstructionCid string   `json:"transfer_instruction_cid"`
			ReceiverHoldingCids    []string `json:"receiver_holding_cids"`
		} `json:"output"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return fail("bad JSON from wallet ts transfer", "%v: %s", err, short(string(data)))
	}
	direct := sender.party == receiver.party || r.preapproved[receiver.party]
	switch {
	case direct && len(res.Output.ReceiverHoldingCids) != 1:
		return fail("wallet ts transfer not completed", "%s → %s (pre-approved %v): %s", sender.party, receiver.party, r.preapproved[receiver.party], short(string(data)))
	case !direct && res.Output.TransferInstructionCid == "":
		return fail("wallet ts transfer not pending", "%s → %s: %s", sender.party, receiver.party, short(string(data)))
	case direct:
		return nil
	}
	// Both sides list the pending transfer in their wallets.
	for _, a := range []propActor{sender, receiver} {
		var list struct {
			Transfers []struct {
				ContractID string `json:"contract_id"`
			} `json:"transfers"`
		}
		if _, err := r.get("wallet ts transfers", validatorAPI+"/wallet/token-standard/transfers", a.u.token, &list); err != nil {
			return err
		}
		if !slices.ContainsFunc(list.Transfers, func(c struct {
			ContractID string `json:"contract_id"`
		}) bool {
			return c.ContractID == res.Output.TransferInstructionCid
		}) {
			return fail("wallet lists no pending transfer", "%s does not list %s", a.party, res.Output.TransferInstructionCid)
		}
	}
	return nil
}

// tsActions are the choices on a pending instruction, by operation.
var tsActions = map[opKind]string{opTSAccept: "accept", opTSReject: "reject", opTSWithdraw: "withdraw"}

// tsRespond has a user's party (local or external) accept, reject
// (receiver) or withdraw (sender) a pending TransferInstruction it lists,
// with the registry's choice context; other < 0 asks the registry about a
// bogus id, which must be a 4xx.
func (r *propRun) tsRespond(o op) error {
	u, choice := r.user(o.user), tsActions[o.kind]
	if o.other < 0 {
		code, data, err := r.call("choice-context", "POST", "/registry/transfer-instruction/v1/"+url.PathEscape(o.text)+"/choice-contexts/"+choice, "", map[string]any{})
		if err != nil {
			return err
		}
		return wantCode("choice-context", code, data, is4xx, "a 4xx for no instruction")
	}
	actors := []propActor{{u: u, party: u.party}}
	if x := r.external[u.name]; x != nil {
		actors = append(actors, propActor{u: u, party: x.party, ext: x})
	}
	type pending struct {
		a    propActor
		cid  string
		view instructionView
	}
	var mine []pending
	for _, a := range actors {
		tis, err := r.activeOf(a, transferInstructionInterface, 0)
		if err != nil {
			return err
		}
		for _, ti := range tis {
			var v instructionView
			if err := json.Unmarshal(ti.view, &v); err != nil {
				return fail("bad TransferInstruction view", "%v: %s", err, short(string(ti.view)))
			}
			if choice == "withdraw" && v.Transfer.Sender == a.party || choice != "withdraw" && v.Transfer.Receiver == a.party {
				mine = append(mine, pending{a, ti.cid, v})
			}
		}
	}
	if len(mine) == 0 {
		return nil
	}
	p := mine[o.other%len(mine)]
	now, err := r.now()
	if err != nil {
		return err
	}
	live := false
	if exp, err := time.Parse(time.RFC3339Nano, p.view.Transfer.ExecuteBefore); err == nil {
		live = exp.UnixMicro() > int64(now)+time.Minute.Microseconds()
	}
	if p.a.ext == nil && o.step%2 == 0 {
		// The wallet's endpoint, which asks the registry itself.
		code, data, err := r.call("wallet ts "+choice, "POST", validatorAPI+"/wallet/token-standard/transfers/"+url.PathEscape(p.cid)+"/"+choice, p.a.u.token, nil)
		if err != nil {
			return err
		}
		want, why := any2or4, "200 or a 4xx for an expired instruction"
		if live {
			want, why = is200, "200 for a live instruction listed a moment ago"
		}
		return wantCode("wallet ts "+choice, code, data, want, why)
	}
	code, data, err := r.call("choice-context", "POST", "/registry/transfer-instruction/v1/"+url.PathEscape(p.cid)+"/choice-contexts/"+choice, "",
		map[string]any{"meta": map[string]any{}, "excludeDebugFields": true})
	if err != nil {
		return err
	}
	want, why := any2or4, "200 or a 4xx for an expired instruction"
	if live {
		want, why = is200, "200 for a live instruction listed a moment ago"
	}
	if err := wantCode("choice-context", code, data, want, why); err != nil || code != 200 {
		return err
	}
	var ctx registryContext
	if err := json.Unmarshal(data, &ctx); err != nil {
		return fail("bad JSON from choice-context", "%v: %s", err, short(string(data)))
	}
	name := map[string]string{"accept": "TransferInstruction_Accept", "reject": "TransferInstruction_Reject", "withdraw": "TransferInstruction_Withdraw"}[choice]
	cmd := map[string]any{"ExerciseCommand": map[string]any{
		"templateId": transferInstructionInterface, "contractId": p.cid, "choice": name,
		"choiceArgument": map[string]any{"extraArgs": map[string]any{"context": ctx.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}},
	}}
	code, data, err = r.submitAs("ts "+choice, p.a, fmt.Sprint("ts-", choice, "-", o.step), []any{cmd}, ctx.DisclosedContracts)
	if err != nil {
		return err
	}
	return wantCode("ts "+choice, code, data, want, why)
}

// preapprove has a user create its transfer pre-approval through the
// wallet: 200 the first time, 409 once it has one.
func (r *propRun) preapprove(o op) error {
	u := r.user(o.user)
	code, data, err := r.call("create preapproval", "POST", validatorAPI+"/wallet/transfer-preapproval", u.token, nil)
	if err != nil {
		return err
	}
	want, why := is200, "200 for a first pre-approval"
	if r.preapproved[u.party] {
		want, why = func(c int) bool { return c == 409 }, "409 for a user that has one"
	}
	if err := wantCode("create preapproval", code, data, want, why); err != nil {
		return err
	}
	if r.preapproved == nil {
		r.preapproved = map[string]bool{}
	}
	r.preapproved[u.party] = true
	return nil
}
