package scanclient

import (
	"context"
	"encoding/json"
	"fmt"

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

// key is what equal answers share: the JSON of the value, or the kind and
// message of a failure the Scan answered. A Scan that did not answer
// (Unavailable: unreachable, 5xx, undecodable) casts no vote.
func (a answer[T]) key() (string, bool) {
	if a.err != nil {
		f, ok := fault.As(a.err)
		if !ok || f.Kind == fault.Unavailable {
			return "", false
		}
		return fmt.Sprintf("error %d %s", f.Kind, f.Message), true
	}
	b, err := json.Marshal(a.val)
	if err != nil {
		return "", false
	}
	return "value " + string(b), true
}

// bft asks every Scan concurrently and returns the answer at least f+1 of
// them agree on (see tally); a failure the Scans agree on is returned as
// theirs. Without such an answer it fails Unavailable. With one Scan it is
// that Scan's answer.
func bft[T any](ctx context.Context, c *Client, what string, read func(ctx context.Context, base string) (T, error)) (T, error) {
	var zero T
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := len(c.scans)
	need := faults(n) + 1
	ch := make(chan answer[T], n)
	for _, base := range c.scans {
		go func() {
			v, err := read(ctx, base)
			ch <- answer[T]{scan: base, val: v, err: err}
		}()
	}
	var votes []string
	byKey := map[string]answer[T]{}
	var lastErr error
	failed := 0
	for pending := n; pending > 0; {
		var a answer[T]
		select {
		case a = <-ch:
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
		winner, ok, done := tally(votes, pending, need)
		if !done {
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
