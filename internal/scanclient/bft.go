package scanclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sandnet/sandnet/internal/fault"
)

// faults returns how many faulty Scans of n a BFT read tolerates:
// f = (n-1)/3, so f+1 agreeing Scans include an honest one.
func faults(n int) int { return (n - 1) / 3 }

// tally decides a BFT read from the votes so far (one key per answer
// received; equal keys are equal answers) and how many Scans may still
// answer. The winner is the answer with the most votes once it has at
// least need of them and no other answer can still reach as many. done
// is true when the read is decided: with a winner, or with none ("" and
// false ok) when no answer can win any more.
func tally(votes []string, pending, need int) (winner string, ok, done bool) {
	counts := map[string]int{}
	for _, v := range votes {
		counts[v]++
	}
	best, top, second := "", 0, 0
	for v, n := range counts {
		switch {
		case n > top:
			best, top, second = v, n, top
		case n > second:
			second = n
		}
	}
	if top >= need && top > second+pending {
		return best, true, true
	}
	if pending == 0 || top+pending < need {
		return "", false, true
	}
	return "", false, false
}

// answer is one Scan's answer to a BFT read.
type answer[T any] struct {
	scan string
	val  T
	err  error
}

// voter is a value that says itself what equal answers share, where its
// JSON would be costly to compute or compare.
type voter interface {
	vote() string
}

// key is what equal answers share: the value's vote or its JSON, or the
// kind and message of a failure the Scan answered. A Scan that did not
// answer (Unavailable: unreachable, 5xx, undecodable) casts no vote.
func (a answer[T]) key() (string, bool) {
	if a.err != nil {
		f, ok := fault.As(a.err)
		if !ok || f.Kind == fault.Unavailable {
			return "", false
		}
		return fmt.Sprintf("error %d %s", f.Kind, f.Message), true
	}
	if v, ok := any(a.val).(voter); ok {
		return "vote " + v.vote(), true
	}
	b, err := json.Marshal(a.val)
	if err != nil {
		return "", false
	}
	return "value " + string(b), true
}

// hedgeDelay is how long a BFT read waits for the Scans it asked first
// before it asks the others too: a slow Scan among the first delays a
// read by this much at most.
const hedgeDelay = 250 * time.Millisecond

// bft returns the answer at least f+1 of the Scans agree on (see tally); a
// failure the Scans agree on is returned as theirs. Without such an
// answer it fails Unavailable. With one Scan it is that Scan's answer.
//
// It asks first only as many Scans as can decide the read by themselves
// (a majority, and at least f+1), starting at a different Scan each time
// so that the load spreads, and asks the others when one of those fails
// or disagrees, or after hedgeDelay: with honest, quick Scans a read costs
// the network a majority of answers rather than all of them.
func bft[T any](ctx context.Context, c *Client, what string, read func(ctx context.Context, base string) (T, error)) (T, error) {
	var zero T
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := len(c.scans)
	need := faults(n) + 1
	ch := make(chan answer[T], n)
	start := int(c.next.Add(1) % uint64(n))
	asked := 0
	askUpTo := func(k int) {
		for ; asked < k; asked++ {
			base := c.scans[(start+asked)%n]
			go func() {
				v, err := read(ctx, base)
				ch <- answer[T]{scan: base, val: v, err: err}
			}()
		}
	}
	askUpTo(max(need, n/2+1))
	hedge := time.NewTimer(hedgeDelay)
	defer hedge.Stop()
	var votes []string
	byKey := map[string]answer[T]{}
	var lastErr error
	failed := 0
	for pending := n; pending > 0; {
		var a answer[T]
		select {
		case a = <-ch:
		case <-hedge.C:
			askUpTo(n)
			continue
		case <-ctx.Done():
			return zero, ctx.Err()
		}
		pending--
		if k, ok := a.key(); ok {
			votes = append(votes, k)
			if _, seen := byKey[k]; !seen {
				byKey[k] = a
			}
		} else {
			if err := ctx.Err(); err != nil {
				return zero, err
			}
			lastErr = a.err
			failed++
			c.log.WarnContext(ctx, "Scan did not answer a BFT read", "read", what, "scan", a.scan, "err", a.err)
		}
		// pending counts the Scans not asked yet: they may still answer.
		winner, ok, done := tally(votes, pending, need)
		if !done {
			if failed > 0 || len(byKey) > 1 || n-pending == asked {
				askUpTo(n)
			}
			continue
		}
		if ok {
			if len(byKey) > 1 || failed > 0 {
				c.log.WarnContext(ctx, "Scans disagree on a BFT read", "read", what, "scans", n, "answers", len(byKey), "failed", failed)
			}
			w := byKey[winner]
			return w.val, w.err
		}
		break
	}
	if n == 1 && lastErr != nil {
		return zero, lastErr // one Scan: its failure as it is
	}
	msg := fmt.Sprintf("Failed to reach consensus from %d Scan nodes on %s: %d answered, in %d different ways; %d must agree", n, what, len(votes), len(byKey), need)
	return zero, fault.Wrap(fault.Unavailable, lastErr, "%s", msg)
}
