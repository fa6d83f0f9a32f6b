package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// What the property test's steps do, what each expects of the answer it
// gets (beyond what every answer must be, see propRun.call), and the
// invariants checked after every step.

const (
	validatorAPI = "/api/validator/v0"
	adminAPI     = "/api/sandnet/v0"
)

func (r *propRun) user(i int) *propUser { return r.users[i%len(r.users)] }

// userByParty is the user whose party p is, or nil.
func (r *propRun) userByParty(p string) *propUser {
	for _, u := range r.users {
		if u.party == p {
			return u
		}
	}
	return nil
}

// unknownParty is well formed, and hosted nowhere.
const unknownParty = "nobody::1220" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func (r *propRun) do(o op) error {
	switch o.kind {
	case opTap:
		return r.tap(o, r.user(o.user), o.amount)
	case opWalletTap:
		return r.walletTap(o, r.user(o.user))
	case opTapMany:
		u := r.user(o.user)
		for range o.count {
			if err := r.tap(o, u, o.amount); err != nil {
				return err
			}
		}
		return nil
	case opOffer:
		return r.offer(o)
	case opAccept, opReject, opWithdraw:
		return r.actOnOffer(o)
	case opPay:
		return r.pay(o)
	case opClock:
		return r.advance(o.text)
	case opRestart:
		if err := r.sn.stop(); err != nil {
			return fail("restart", "%v", err)
		}
		if err := r.sn.start(r.logs); err != nil {
			return fail("restart", "%v", err)
		}
		return nil
	case opOnboard:
		return r.onboard(o.text)
	case opProbe:
		return r.probe(o)
	case opLedgerTap:
		return r.ledgerTap(o)
	case opLedgerForge:
		return r.ledgerForge(o)
	case opLedgerArchive:
		return r.ledgerArchive(o)
	case opExternalTap:
		return r.externalTap(o)
	case opTSTransfer:
		return r.tsTransferOp(o)
	case opTSAccept, opTSReject, opTSWithdraw:
		return r.tsRespond(o)
	case opPreapproval:
		return r.preapprove(o)
	case opTransferCmd:
		return r.transferCommand(o)
	case opTSAllocate:
		return r.tsAllocate(o)
	case opTSAllocExecute, opTSAllocCancel:
		return r.tsAllocSettle(o)
	case opTSAllocWithdraw:
		return r.tsAllocWithdraw(o)
	case opSave:
		return r.saveOp(o)
	case opRestore:
		return r.restoreOp(o)
	}
	return fmt.Errorf("unknown operation %d", o.kind)
}

// wantCode checks a step's answer against what the model expects: want
// says whether a status is right, why says what was expected.
func wantCode(label string, code int, data []byte, want func(int) bool, why string) error {
	if want(code) {
		return nil
	}
	return fail(fmt.Sprintf("%s answered %d (%s)", label, code, why), "answered %d, want %s: %s", code, why, short(string(data)))
}

func is200(c int) bool   { return c == http.StatusOK }
func is4xx(c int) bool   { return c >= 400 && c < 500 }
func any2or4(c int) bool { return c == http.StatusOK || is4xx(c) }

// amountWant is what a tap or offer of an amount must answer, as far as
// its amount goes: a normal amount succeeds, a non-positive or malformed
// one is refused; a tiny or huge one may go either way (a tap cap refuses
// huge ones), but never with a 5xx.
func amountWant(a amount) (func(int) bool, string) {
	switch a.class {
	case amtNormal:
		return is200, "200 for a normal amount"
	case amtNonPositive:
		return is4xx, "a 4xx for an amount that is not positive"
	case amtMalformed:
		return is4xx, "a 4xx for a malformed amount"
	}
	return any2or4, "200 or a 4xx"
}

func (r *propRun) tap(o op, u *propUser, a amount) error {
	code, data, err := r.call("admin tap", "POST", adminAPI+"/tap", r.admin, map[string]string{"user": u.name, "amount": a.lit})
	if err != nil {
		return err
	}
	want, why := amountWant(a)
	return wantCode("admin tap", code, data, want, why)
}

func (r *propRun) walletTap(o op, u *propUser) error {
	code, data, err := r.call("wallet tap", "POST", validatorAPI+"/wallet/tap", u.token, map[string]string{"amount": o.amount.lit})
	if err != nil {
		return err
	}
	want, why := amountWant(o.amount)
	return wantCode("wallet tap", code, data, want, why)
}

// now reads ledger time.
func (r *propRun) now() (daml.Timestamp, error) {
	var c struct {
		Now string `json:"now"`
	}
	if _, err := r.get("clock", adminAPI+"/clock", r.admin, &c); err != nil {
		return 0, err
	}
	t, err := time.Parse(time.RFC3339Nano, c.Now)
	if err != nil {
		return 0, fail("bad clock", "%q: %v", c.Now, err)
	}
	return daml.Timestamp(t.UnixMicro()), nil
}

type balance struct {
	Unlocked string `json:"effective_unlocked_qty"`
	Locked   string `json:"effective_locked_qty"`
	Fees     string `json:"total_holding_fees"`
}

func (r *propRun) balance(u *propUser) (daml.Numeric, error) {
	var b balance
	if _, err := r.get("balance", validatorAPI+"/wallet/balance", u.token, &b); err != nil {
		return daml.Numeric{}, err
	}
	return parseAmount("balance", b.Unlocked)
}

func parseAmount(what, s string) (daml.Numeric, error) {
	n, err := daml.ParseNumeric(s)
	if err != nil {
		return n, fail("bad amount in "+what, "%q: %v", s, err)
	}
	return n, nil
}

func (r *propRun) offer(o op) error {
	sender := r.user(o.user)
	now, err := r.now()
	if err != nil {
		return err
	}
	// The receiver, and whether the offer can be made to it.
	var receiver string
	knownReceiver := false
	switch o.receiver {
	case rcvUser:
		other := r.user(o.other)
		receiver, knownReceiver = other.party, other != sender
	case rcvSelf:
		receiver = sender.party
	case rcvDSO:
		receiver = r.dso
	case rcvUnknown:
		receiver = unknownParty
	default:
		receiver = o.recvLit
	}
	a := o.amount
	if a.class == amtOfBalance {
		bal, err := r.balance(sender)
		if err != nil {
			return err
		}
		amt, err := bal.Mul(daml.MustNumeric(a.lit))
		if err != nil || amt.Sign() <= 0 {
			a = amount{amtNonPositive, "0.0"}
		} else {
			a = amount{amtNormal, amt.String()}
		}
	}
	expires := o.expiry.us
	if !o.expiry.abs {
		expires += int64(now)
	}
	trackingID := fmt.Sprint("offer-", o.step)
	switch o.tracking {
	case trkReuse:
		if sender.tracking != "" {
			trackingID = sender.tracking
		}
	case trkEmpty:
		trackingID = ""
	case trkLong:
		trackingID = long
	case trkOdd:
		trackingID = o.trackLit
	}
	body := map[string]any{
		"receiver_party_id": receiver, "amount": a.lit, "description": o.text, "expires_at": expires, "tracking_id": trackingID,
	}
	code, data, err := r.call("create offer", "POST", validatorAPI+"/wallet/transfer-offers", sender.token, body)
	if err != nil {
		return err
	}
	future := expires > int64(now)+time.Minute.Microseconds() && daml.Timestamp(expires).Valid()
	normalText := len(o.text) < 100
	switch {
	case a.class == amtNonPositive || a.class == amtMalformed:
		return wantCode("create offer", code, data, is4xx, "a 4xx for an amount that is not positive or malformed")
	case o.receiver == rcvUnknown || o.receiver == rcvLit:
		return wantCode("create offer", code, data, is4xx, "a 4xx for a receiver no one hosts")
	case expires < int64(now):
		return wantCode("create offer", code, data, is4xx, "a 4xx for an expiry in the past")
	case o.tracking == trkReuse && trackingID == sender.tracking && knownReceiver && a.class == amtNormal && future:
		return wantCode("create offer", code, data, func(c int) bool { return c == http.StatusConflict }, "409 for a tracking id used before")
	case o.tracking == trkFresh && knownReceiver && a.class == amtNormal && future && normalText:
		if err := wantCode("create offer", code, data, is200, "200 for a well-formed offer"); err != nil {
			return err
		}
		sender.tracking = trackingID
	}
	return nil
}

// offerPayload is what the driver reads of a listed transfer offer.
type offerPayload struct {
	Sender   string `json:"sender"`
	Receiver string `json:"receiver"`
	Amount   struct {
		Amount string `json:"amount"`
	} `json:"amount"`
	ExpiresAt  string `json:"expiresAt"`
	TrackingID string `json:"trackingId"`
}

// offerActions are the path ends and labels of the answers to an offer.
var offerActions = map[opKind][2]string{
	opAccept: {"accept", "accept offer"}, opReject: {"reject", "reject offer"}, opWithdraw: {"withdraw", "withdraw offer"},
}

type listedOffer struct {
	ContractID string       `json:"contract_id"`
	Payload    offerPayload `json:"payload"`
}

func (r *propRun) actOnOffer(o op) error {
	u := r.user(o.user)
	path, label := offerActions[o.kind][0], offerActions[o.kind][1]
	if o.other < 0 {
		code, data, err := r.call(label, "POST", validatorAPI+"/wallet/transfer-offers/"+url.PathEscape(o.text)+"/"+path, u.token, nil)
		if err != nil {
			return err
		}
		return wantCode(label, code, data, is4xx, "a 4xx for a contract that is no offer")
	}
	var list struct {
		Offers []listedOffer `json:"offers"`
	}
	if _, err := r.get("list offers", validatorAPI+"/wallet/transfer-offers", u.token, &list); err != nil {
		return err
	}
	var mine []listedOffer
	for _, of := range list.Offers {
		if o.kind == opWithdraw && of.Payload.Sender == u.party || o.kind != opWithdraw && of.Payload.Receiver == u.party {
			mine = append(mine, of)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	return r.respond(o.kind, u, mine[o.other%len(mine)])
}

// respond accepts, rejects or withdraws a listed offer as user u. A live
// offer must take it; an accepted one whose sender has the funds must then
// complete.
func (r *propRun) respond(kind opKind, u *propUser, of listedOffer) error {
	path, label := offerActions[kind][0], offerActions[kind][1]
	now, err := r.now()
	if err != nil {
		return err
	}
	live := false
	if exp, err := time.Parse(time.RFC3339Nano, of.Payload.ExpiresAt); err == nil {
		live = exp.UnixMicro() > int64(now)+time.Minute.Microseconds()
	}
	// What the sender has before the transfer: enough, with a margin for
	// holding fees, means it must complete.
	sender := r.userByParty(of.Payload.Sender)
	ample := false
	if kind == opAccept && sender != nil {
		bal, err := r.balance(sender)
		if err != nil {
			return err
		}
		amt, err := parseAmount("offer", of.Payload.Amount.Amount)
		if err != nil {
			return err
		}
		// An amount whose margin is beyond Decimal's range is more than
		// any balance can hold: not ample (an ignored overflow would read
		// as a zero margin).
		margin, err := amt.Mul(daml.MustNumeric("1.01"))
		if err == nil {
			margin, err = margin.Add(daml.MustNumeric("1.0"))
		}
		ample = err == nil && bal.Cmp(margin) >= 0
	}
	code, data, err := r.call(label, "POST", validatorAPI+"/wallet/transfer-offers/"+url.PathEscape(of.ContractID)+"/"+path, u.token, nil)
	if err != nil {
		return err
	}
	if !live {
		return nil
	}
	if err := wantCode(label, code, data, is200, "200 for a live offer listed a moment ago"); err != nil {
		return err
	}
	if kind != opAccept || sender == nil || !trackable(of.Payload.TrackingID) {
		return nil
	}
	// The sender's wallet automation completes it, from its coins.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st struct {
			Status      string `json:"status"`
			FailureKind string `json:"failure_kind"`
		}
		if _, err := r.want200("offer status", "POST", statusPath(of.Payload.TrackingID), sender.token, nil, &st); err != nil {
			return err
		}
		switch st.Status {
		case "completed":
			return nil
		case "failed":
			if ample {
				return fail("accepted transfer with ample funds failed", "offer %s of %s CC from %s, who had enough: status failed (%s)",
					of.Payload.TrackingID, of.Payload.Amount.Amount, sender.name, st.FailureKind)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fail("accepted transfer never completed", "offer %s: still %q 30 s after it was accepted", of.Payload.TrackingID, st.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pay has a user offer 90 % of its balance to another, who accepts at
// once: a user who holds many small amulets then pays with many inputs.
func (r *propRun) pay(o op) error {
	sender, receiver := r.user(o.user), r.user(o.other)
	if sender == receiver {
		receiver = r.user(o.other + 1)
	}
	bal, err := r.balance(sender)
	if err != nil {
		return err
	}
	amt, err := bal.Mul(daml.MustNumeric("0.9"))
	if err != nil || amt.Cmp(daml.MustNumeric("1.0")) < 0 {
		return nil // nothing worth paying
	}
	now, err := r.now()
	if err != nil {
		return err
	}
	expires := now + daml.Timestamp(24*time.Hour.Microseconds())
	trackingID := fmt.Sprint("pay-", o.step)
	var out struct {
		OfferContractID string `json:"offer_contract_id"`
	}
	if _, err := r.want200("create offer", "POST", validatorAPI+"/wallet/transfer-offers", sender.token, map[string]any{
		"receiver_party_id": receiver.party, "amount": amt.String(), "description": "pay", "expires_at": int64(expires), "tracking_id": trackingID,
	}, &out); err != nil {
		return err
	}
	sender.tracking = trackingID
	of := listedOffer{ContractID: out.OfferContractID, Payload: offerPayload{
		Sender: sender.party, Receiver: receiver.party, ExpiresAt: expires.String(), TrackingID: trackingID,
	}}
	of.Payload.Amount.Amount = amt.String()
	return r.respond(opAccept, receiver, of)
}

// trackable reports whether a tracking id can be looked up by path.
func trackable(id string) bool { return id != "" && len(id) < 200 && !strings.ContainsAny(id, "/?#%") }

func statusPath(trackingID string) string {
	return validatorAPI + "/wallet/transfer-offers/" + url.PathEscape(trackingID) + "/status"
}

func (r *propRun) advance(d string) error {
	code, data, err := r.call("advance clock", "POST", adminAPI+"/clock/advance", r.admin, map[string]string{"duration": d})
	if err != nil {
		return err
	}
	if p, perr := time.ParseDuration(d); perr == nil && p >= time.Microsecond && p < 1000*time.Hour {
		return wantCode("advance clock", code, data, is200, "200 for a positive duration")
	}
	if _, perr := time.ParseDuration(d); perr != nil || d == "0s" || strings.HasPrefix(d, "-") || d == "1ns" {
		return wantCode("advance clock", code, data, is4xx, "a 4xx for a duration that is not positive")
	}
	return nil
}

func (r *propRun) onboard(name string) error {
	code, data, err := r.call("onboard", "POST", validatorAPI+"/admin/users", r.admin, map[string]string{"name": name})
	if err != nil {
		return err
	}
	var known *propUser
	for _, u := range r.users {
		if u.name == name {
			known = u
		}
	}
	switch {
	case !ledger.ValidUserID(name):
		return wantCode("onboard", code, data, is4xx, "a 4xx for a name that is no ledger API user id")
	case known != nil || strings.HasPrefix(name, "user-"):
		if err := wantCode("onboard", code, data, is200, "200 for a new user, or one with a wallet"); err != nil {
			return err
		}
	}
	if code != http.StatusOK {
		return nil
	}
	var out struct {
		PartyID string `json:"party_id"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return fail("bad JSON from onboard", "%v: %s", err, short(string(data)))
	}
	if known != nil {
		if out.PartyID != known.party {
			return fail("onboarding again changed the party", "%s had %s, onboarding again answered %s", name, known.party, out.PartyID)
		}
		return nil
	}
	if len(r.users) < 10 {
		r.users = append(r.users, &propUser{name: name, party: out.PartyID, token: r.token(name)})
	}
	return nil
}

func (r *propRun) probe(o op) error {
	u := r.user(o.user)
	var code int
	var data []byte
	var err error
	switch probeNames[o.probe] {
	case "status":
		code, data, err = r.call("offer status", "POST", statusPath(o.text), u.token, nil)
	case "by-name":
		code, data, err = r.call("scan-proxy by-name", "GET", validatorAPI+"/scan-proxy/ans-entries/by-name/"+url.PathEscape(o.text), u.token, nil)
	case "ghost-user":
		code, data, err = r.call("balance", "GET", validatorAPI+"/wallet/balance", r.token("ghost-"+o.text), nil)
	case "contract-id":
		code, data, err = r.call("accept offer", "POST", validatorAPI+"/wallet/transfer-offers/"+url.PathEscape(o.text)+"/accept", u.token, nil)
	}
	if err != nil {
		return err
	}
	return wantCode(probeNames[o.probe], code, data, any2or4, "200 or a 4xx")
}

// --- invariants

// check asserts, after every step, that every user is still served and
// that the amulet accounting holds. Every user's wallet, offers and offer
// status are read after every step; the slower reads (amulets, accepted
// offers, ledger history) for one user per step, in turn, to keep the CI
// run short.
func (r *propRun) check() error {
	for _, u := range r.users {
		if err := r.checkUser(u); err != nil {
			return err
		}
	}
	u := r.users[r.turn%len(r.users)]
	r.turn++
	if err := r.checkHoldings(u); err != nil {
		return err
	}
	if _, err := r.get("accepted offers", validatorAPI+"/wallet/accepted-transfer-offers", u.token, nil); err != nil {
		return err
	}
	var end struct {
		Offset int64 `json:"offset"`
	}
	if _, err := r.get("ledger end", "/v2/state/ledger-end", u.token, &end); err != nil {
		return err
	}
	hist := map[string]any{
		"beginExclusive": max(0, end.Offset-20), "endInclusive": end.Offset,
		"filter": map[string]any{"filtersByParty": map[string]any{u.party: map[string]any{}}},
	}
	if _, err := r.want200("ledger updates", "POST", "/v2/updates?limit=5", u.token, hist, nil); err != nil {
		return err
	}
	if _, err := r.want200("scan updates", "POST", "/api/scan/v2/updates", "", map[string]any{"page_size": 5}, nil); err != nil {
		return err
	}
	return r.checkSupply()
}

func (r *propRun) checkUser(u *propUser) error {
	var st struct {
		PartyID   string `json:"party_id"`
		Onboarded bool   `json:"user_onboarded"`
	}
	if _, err := r.get("user-status", validatorAPI+"/wallet/user-status", u.token, &st); err != nil {
		return err
	}
	if st.PartyID != u.party || !st.Onboarded {
		return fail("user-status changed", "%s: party %q onboarded %v, want %q onboarded", u.name, st.PartyID, st.Onboarded, u.party)
	}
	var b balance
	if _, err := r.get("balance", validatorAPI+"/wallet/balance", u.token, &b); err != nil {
		return err
	}
	for _, q := range []string{b.Unlocked, b.Locked, b.Fees} {
		n, err := parseAmount("balance", q)
		if err != nil {
			return err
		}
		if n.Sign() < 0 {
			return fail("negative balance", "%s: %+v", u.name, b)
		}
	}
	if _, err := r.get("list offers", validatorAPI+"/wallet/transfer-offers", u.token, nil); err != nil {
		return err
	}
	if u.tracking != "" {
		if _, err := r.want200("offer status", "POST", statusPath(u.tracking), u.token, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// checkHoldings reads a user's amulets: none may be negative.
func (r *propRun) checkHoldings(u *propUser) error {
	var am walletAmulets
	if _, err := r.get("amulets", validatorAPI+"/wallet/amulets", u.token, &am); err != nil {
		return err
	}
	for _, a := range am.Amulets {
		for _, q := range []string{a.EffectiveAmount, a.Contract.Contract.Payload.Amount.InitialAmount} {
			n, err := parseAmount("amulets", q)
			if err != nil {
				return err
			}
			if n.Sign() < 0 {
				return fail("negative amulet", "%s holds an amulet of %s", u.name, q)
			}
		}
	}
	return nil
}

// checkSupply asserts minted = holdings + burned, exactly, over the
// ledger's store: its update log and its active amulets. Automation
// commits in the background, so the sums are taken again until no
// transaction committed while they were read.
func (r *propRun) checkSupply() error {
	ctx := context.Background()
	st, sv := r.sn.net.Store(), r.sn.seeded.SVs[0]
	for range 200 {
		before, err := st.Head(ctx)
		if err != nil {
			return fail("supply", "ledger head: %v", err)
		}
		sup, err := splice.ComputeSupply(ctx, st, sv.Participant, r.sn.seeded.DSOParty)
		after, herr := st.Head(ctx)
		if herr != nil {
			return fail("supply", "ledger head: %v", herr)
		}
		if before.Sequence != after.Sequence {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err != nil {
			return fail("supply cannot be computed", "%v", err)
		}
		sum, err := sup.Holdings.Add(sup.Burned)
		if err != nil {
			return fail("supply cannot be computed", "holdings %s + burned %s: %v", sup.Holdings, sup.Burned, err)
		}
		if sum.Cmp(sup.Minted) != 0 {
			return fail("supply not conserved", "minted %s ≠ holdings %s + burned %s", sup.Minted, sup.Holdings, sup.Burned)
		}
		if sup.Holdings.Sign() < 0 || sup.Burned.Sign() < 0 {
			return fail("negative supply", "minted %s, holdings %s, burned %s", sup.Minted, sup.Holdings, sup.Burned)
		}
		return nil
	}
	return fail("supply", "the ledger never stood still long enough to sum it")
}

// walletAmulets is the part of the wallet's GET /v0/wallet/amulets answer
// the end-to-end and property tests read.
type walletAmulets struct {
	Amulets []struct {
		Contract struct {
			Contract struct {
				ContractID string `json:"contract_id"`
				Payload    struct {
					Amount struct {
						InitialAmount string `json:"initialAmount"`
					} `json:"amount"`
				} `json:"payload"`
			} `json:"contract"`
		} `json:"contract"`
		EffectiveAmount string `json:"effective_amount"`
	} `json:"amulets"`
}
