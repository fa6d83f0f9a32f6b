package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
)

// The property test's operations and their generator. A sequence is made
// from the seed alone, before anything runs, and every operation names
// what it acts on by index (the k-th user, the k-th offer listed), resolved
// when it runs: so a replay of any subsequence is meaningful, which is what
// the shrinker needs.

type opKind int

const (
	opTap             opKind = iota // admin API tap, in CC
	opWalletTap                     // wallet API tap, in USD
	opTapMany                       // many small admin taps to one user: many amulets
	opOffer                         // create a transfer offer
	opAccept                        // the receiver accepts a listed offer (or a bogus id)
	opReject                        // the receiver rejects a listed offer
	opWithdraw                      // the sender withdraws a listed offer
	opClock                         // move ledger time
	opRestart                       // close and reopen the network on its data
	opOnboard                       // onboard a user through the validator's admin API
	opProbe                         // an odd read: unknown ids, long path segments, a user without a wallet
	opPay                           // offer 90 % of the balance to another user, who accepts at once
	opLedgerTap                     // the DevNet tap choice through the ledger API, rules and round disclosed
	opLedgerForge                   // a user creates itself an amulet through the ledger API: refused
	opLedgerArchive                 // a user archives one of its amulets through the ledger API: refused
	opExternalTap                   // a user's external party taps by prepare, sign, execute; other > 0 edits the amount and re-signs: refused
	opTSTransfer                    // a token-standard transfer through the registry's transfer-factory (proptest_token_test.go)
	opTSAccept                      // the receiver accepts a listed pending TransferInstruction (or asks about a bogus id)
	opTSReject                      // the receiver rejects one
	opTSWithdraw                    // the sender withdraws one
	opPreapproval                   // a user creates its transfer pre-approval through the wallet
	opTSAllocate                    // a token-standard allocation through the registry's allocation-factory (proptest_alloc_test.go)
	opTSAllocExecute                // the executor settles a listed allocation with its sender and receiver (or asks about a bogus id)
	opTSAllocCancel                 // the executor cancels one with its sender and receiver
	opTSAllocWithdraw               // the sender withdraws one
	opTransferCmd                   // a user's external party sends through a signed TransferCommand (proptest_transfercommand_test.go)
	opSave                          // save the whole network (proptest_saves_test.go)
	opRestore                       // restore a save made earlier (or an unknown one: 404)
)

var opNames = map[opKind]string{
	opTap: "tap", opWalletTap: "wallet-tap", opTapMany: "tap-many", opOffer: "offer", opAccept: "accept",
	opReject: "reject", opWithdraw: "withdraw", opClock: "clock", opRestart: "restart", opOnboard: "onboard", opProbe: "probe", opPay: "pay",
	opLedgerTap: "ledger-tap", opLedgerForge: "ledger-forge", opLedgerArchive: "ledger-archive",
	opExternalTap: "external-tap",
	opTSTransfer:  "ts-transfer", opTSAccept: "ts-accept", opTSReject: "ts-reject", opTSWithdraw: "ts-withdraw", opPreapproval: "preapproval",
	opTransferCmd: "transfer-command",
	opTSAllocate:  "ts-allocate", opTSAllocExecute: "ts-alloc-execute", opTSAllocCancel: "ts-alloc-cancel", opTSAllocWithdraw: "ts-alloc-withdraw",
	opSave: "save", opRestore: "restore",
}

// amountClass is what an amount is, so that the driver knows which answer
// to expect without re-deriving it from the string.
type amountClass int

const (
	amtNormal      amountClass = iota // positive, at most 1e6, 10 decimals at most
	amtTiny                           // positive, the smallest Decimal
	amtHuge                           // positive, at or over the tap cap up to Decimal(38,10)'s largest
	amtNonPositive                    // zero or negative
	amtMalformed                      // not a Decimal string
	amtOfBalance                      // a fraction of the sender's balance, known when it runs
)

type amount struct {
	class amountClass
	lit   string // the amount, or the fraction of the balance for amtOfBalance
}

type trackingKind int

const (
	trkFresh trackingKind = iota // a new id
	trkReuse                     // the sender's last id: a duplicate
	trkEmpty
	trkLong // 1 MiB
	trkOdd  // lit: slashes, spaces, non-ASCII
)

type receiverKind int

const (
	rcvUser    receiverKind = iota // another user (by index)
	rcvSelf                        // the sender
	rcvDSO                         // the DSO party: a real party, not a wallet user
	rcvUnknown                     // a well-formed party id no one hosts
	rcvLit                         // a malformed one
)

// op is one step of a sequence.
type op struct {
	step     int // its position in the seed's sequence: names made from it stay unique in a replay
	kind     opKind
	user     int // the acting user: an index into the users known when it runs
	other    int // the other user, or the listed offer's index (-1: a bogus id)
	amount   amount
	text     string // description, user name, duration, bogus id, probe value
	tracking trackingKind
	trackLit string
	expiry   expiry
	receiver receiverKind
	recvLit  string
	count    int
	probe    int
}

// expiry is an offer's expires_at: relative to ledger time, or absolute.
type expiry struct {
	abs bool
	us  int64
}

func (e expiry) String() string {
	if e.abs {
		return fmt.Sprint("at ", e.us)
	}
	return fmt.Sprint("now", signed(time.Duration(e.us)*time.Microsecond))
}

func signed(d time.Duration) string {
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

// show quotes a value for the step log, cutting long ones.
func show(s string) string {
	if len(s) <= 40 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…(%d bytes)", s[:24], len(s))
}

func (o op) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s user#%d", o.step, opNames[o.kind], o.user)
	switch o.kind {
	case opTap, opWalletTap, opLedgerTap, opLedgerForge:
		fmt.Fprintf(&b, " amount=%s", o.amountString())
	case opExternalTap:
		fmt.Fprintf(&b, " amount=%s tampered=%t", o.amountString(), o.other > 0)
	case opLedgerArchive:
		fmt.Fprintf(&b, " amulet#%d", o.other)
	case opTSTransfer:
		fmt.Fprintf(&b, " external=%t to=user#%d external=%t amount=%s executeBefore=%s", o.count&1 != 0, o.other, o.count&2 != 0, o.amountString(), o.expiry)
	case opTSAccept, opTSReject, opTSWithdraw:
		if o.other < 0 {
			fmt.Fprintf(&b, " instruction=%s", show(o.text))
		} else {
			fmt.Fprintf(&b, " instruction#%d", o.other)
		}
	case opTransferCmd:
		fmt.Fprintf(&b, " to=user#%d amount=%s", o.other, o.amountString())
	case opRestore:
		fmt.Fprintf(&b, " save#%d", o.other)
	case opTSAllocate:
		fmt.Fprintf(&b, " external=%t to=user#%d amount=%s settleBefore=%s", o.count&1 != 0, o.other, o.amountString(), o.expiry)
	case opTSAllocExecute, opTSAllocCancel, opTSAllocWithdraw:
		if o.other < 0 {
			fmt.Fprintf(&b, " allocation=%s", show(o.text))
		} else {
			fmt.Fprintf(&b, " allocation#%d", o.other)
		}
	case opTapMany:
		fmt.Fprintf(&b, " %d× amount=%s", o.count, o.amountString())
	case opOffer:
		fmt.Fprintf(&b, " to=%s amount=%s description=%s expires=%s tracking=%s", o.receiverString(), o.amountString(), show(o.text), o.expiry, o.trackingString())
	case opPay:
		fmt.Fprintf(&b, " to=user#%d", o.other)
	case opAccept, opReject, opWithdraw:
		if o.other < 0 {
			fmt.Fprintf(&b, " contract=%s", show(o.text))
		} else {
			fmt.Fprintf(&b, " offer#%d", o.other)
		}
	case opClock:
		fmt.Fprintf(&b, " duration=%s", show(o.text))
	case opOnboard:
		fmt.Fprintf(&b, " name=%s", show(o.text))
	case opProbe:
		fmt.Fprintf(&b, " %s value=%s", probeNames[o.probe], show(o.text))
	case opRestart:
		return fmt.Sprintf("#%d restart", o.step)
	}
	return b.String()
}

func (o op) amountString() string {
	if o.amount.class == amtOfBalance {
		return o.amount.lit + "×balance"
	}
	return show(o.amount.lit)
}

func (o op) receiverString() string {
	switch o.receiver {
	case rcvUser:
		return fmt.Sprint("user#", o.other)
	case rcvSelf:
		return "self"
	case rcvDSO:
		return "DSO"
	case rcvUnknown:
		return "unknown-party"
	}
	return show(o.recvLit)
}

func (o op) trackingString() string {
	switch o.tracking {
	case trkFresh:
		return "fresh"
	case trkReuse:
		return "reuse"
	case trkEmpty:
		return `""`
	case trkLong:
		return "1MiB"
	}
	return show(o.trackLit)
}

// gen makes operations from a seed.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

// pick returns an index drawn with the given weights.
func (g *gen) pick(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := g.r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	panic("unreachable")
}

func (g *gen) oneOf(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// long is 1 MiB: within the 4 MiB body limit, far beyond any field's sense.
var long = strings.Repeat("x", 1<<20)

const maxDecimal = "9999999999999999999999999999.9999999999" // Decimal(38,10)'s largest

func (g *gen) amount() amount {
	switch g.pick(50, 5, 8, 10, 8) {
	case 0:
		return amount{amtNormal, fmt.Sprintf("%d.%02d", 1+g.r.IntN(2000), g.r.IntN(100))}
	case 1:
		return amount{amtTiny, "0.0000000001"}
	case 2:
		return amount{amtHuge, g.oneOf("100000000.0", "100000000.0000000001", "1000000000000000000.0", maxDecimal)}
	case 3:
		return amount{amtNonPositive, g.oneOf("0", "0.0", "-0.0", "-1.0", "-0.0000000001", "-"+maxDecimal)}
	default:
		return amount{amtMalformed, g.oneOf("", "abc", "1e5", " 1.0", "1.00000000001", "0x10", "NaN", "1,5",
			"99999999999999999999999999999.0", long)}
	}
}

func (g *gen) offerAmount() amount {
	if g.r.IntN(8) == 0 {
		return amount{amtOfBalance, g.oneOf("0.5", "0.9", "0.99")}
	}
	return g.amount()
}

func (g *gen) expiry() expiry {
	h := time.Hour.Microseconds()
	switch g.pick(60, 10, 10, 8) {
	case 0:
		return expiry{us: []int64{2 * h, 24 * h, 72 * h}[g.r.IntN(3)]}
	case 1: // soon: a clock jump expires it
		return expiry{us: []int64{time.Minute.Microseconds(), 15 * time.Minute.Microseconds()}[g.r.IntN(2)]}
	case 2: // past
		return expiry{us: []int64{-1, -h, -24 * 365 * h}[g.r.IntN(3)]}
	default:
		return expiry{abs: true, us: []int64{0, -1, int64(daml.MaxTimestamp), int64(daml.MaxTimestamp) + 1, 1<<63 - 1}[g.r.IntN(5)]}
	}
}

var probeNames = []string{"status", "by-name", "ghost-user", "contract-id"}

func (g *gen) op(step int) op {
	o := op{step: step, user: g.r.IntN(16), other: g.r.IntN(16)}
	switch g.pick(10, 8, 1, 30, 14, 5, 5, 7, 2, 4, 6, 5, 6, 3, 3, 5, 6, 5, 2, 3, 5, 5, 2, 2) {
	case 0:
		o.kind, o.amount = opTap, g.amount()
	case 1:
		o.kind, o.amount = opWalletTap, g.amount()
	case 2:
		// Past 100, more than a transfer's inputs (maxNumInputs).
		o.kind, o.count, o.amount = opTapMany, 101+g.r.IntN(20), amount{amtNormal, g.oneOf("0.5", "1.0", "2.0")}
	case 3:
		o.kind, o.amount, o.expiry = opOffer, g.offerAmount(), g.expiry()
		o.text = []string{"lunch", "", "☕ für dich", "line\nbreak\x00", long}[g.pick(60, 10, 10, 5, 5)]
		switch o.tracking = trackingKind(g.pick(70, 8, 6, 4, 6)); o.tracking {
		case trkOdd:
			o.trackLit = g.oneOf("a/b", "with space", "ünïcode-☕", "%2F", "..", "a?b#c")
		}
		switch o.receiver = receiverKind(g.pick(70, 6, 4, 8, 8)); o.receiver {
		case rcvLit:
			o.recvLit = g.oneOf("", "alice", "::", "a::b c", "alice::"+strings.Repeat("1", 300), long)
		}
	case 4, 5, 6:
		o.kind = []opKind{opAccept, opReject, opWithdraw}[g.r.IntN(3)]
		if g.r.IntN(6) == 0 {
			o.other, o.text = -1, g.oneOf("", "00", "00"+strings.Repeat("ab", 33), "no such contract", strings.Repeat("z", 64<<10))
		}
	case 7:
		o.kind = opClock
		o.text = []string{"1s", "10m", "1h", "25h", "240h", "0s", "-1h", "1ns", "soon", "9999999h"}[g.pick(10, 25, 20, 15, 4, 3, 3, 3, 3, 2)]
	case 8:
		o.kind = opRestart
	case 9:
		o.kind = opOnboard
		o.text = []string{fmt.Sprint("user-", step), "", "alice", "ünï", "with space", strings.Repeat("n", 300), long}[g.pick(60, 8, 8, 6, 6, 6, 6)]
	case 10:
		o.kind, o.probe = opProbe, g.r.IntN(len(probeNames))
		o.text = g.oneOf("", "nope", "a b", "ünï", strings.Repeat("p", 64<<10))
	case 11:
		o.kind = opPay
	case 12:
		o.kind, o.amount = opLedgerTap, g.amount()
	case 13:
		o.kind, o.amount = opLedgerForge, g.amount()
	case 14:
		o.kind = opLedgerArchive
	case 16:
		// Mostly a day to execute; some expire at the next clock jump, a
		// few are already past.
		o.kind, o.amount, o.count = opTSTransfer, g.amount(), g.r.IntN(4)
		o.expiry = expiry{us: []int64{24 * time.Hour.Microseconds(), 10 * time.Minute.Microseconds(), -time.Hour.Microseconds()}[g.pick(80, 15, 5)]}
	case 17:
		o.kind = []opKind{opTSAccept, opTSReject, opTSWithdraw}[g.pick(2, 1, 1)]
		if g.r.IntN(8) == 0 {
			o.other, o.text = -1, g.oneOf("", "00", "00"+strings.Repeat("ab", 33), "no such contract")
		}
	case 18:
		o.kind = opPreapproval
	case 19:
		o.kind, o.amount = opTransferCmd, g.amount()
	case 20:
		// Mostly a day to settle; some expire at the next clock jump, a
		// few are already past.
		o.kind, o.amount, o.count = opTSAllocate, g.amount(), g.r.IntN(2)
		o.expiry = expiry{us: []int64{24 * time.Hour.Microseconds(), 10 * time.Minute.Microseconds(), -time.Hour.Microseconds()}[g.pick(80, 15, 5)]}
	case 21:
		o.kind = []opKind{opTSAllocExecute, opTSAllocCancel, opTSAllocWithdraw}[g.pick(2, 1, 1)]
		if o.kind != opTSAllocWithdraw && g.r.IntN(8) == 0 {
			o.other, o.text = -1, g.oneOf("", "00", "00"+strings.Repeat("ab", 33), "no such contract")
		}
	case 22:
		o.kind = opSave
	case 23:
		o.kind = opRestore
	case 15:
		// One in four edits the prepared amount and re-signs it.
		o.kind, o.amount, o.other = opExternalTap, g.amount(), 0
		if g.r.IntN(4) == 0 {
			o.other = 1
		}
	}
	return o
}

// generate makes the first n operations of a seed's sequence.
func generate(seed uint64, n int) []op {
	g := newGen(seed)
	ops := make([]op, n)
	for i := range ops {
		ops[i] = g.op(i)
	}
	return ops
}
