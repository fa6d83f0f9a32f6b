package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/auth"
)

// countingVerifier accepts every token but "bad", valid until exp, and
// counts its calls.
type countingVerifier struct {
	calls int
	exp   time.Time
}

func (v *countingVerifier) Verify(_ context.Context, token string) (auth.Claims, error) {
	v.calls++
	if token == "bad" {
		return auth.Claims{}, auth.ErrInvalidToken
	}
	return auth.Claims{Subject: "user-" + token, ExpiresAt: v.exp}, nil
}

func TestCached(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		// exp is the tokens' expiry (zero: none); steps are the times
		// the same token is verified at, with whether the inner
		// verifier must be asked.
		exp   time.Time
		steps []struct {
			at    time.Duration
			asked bool
		}
	}{
		{name: "served from the cache until the ttl", steps: []struct {
			at    time.Duration
			asked bool
		}{{0, true}, {time.Second, false}, {59 * time.Second, false}, {time.Minute, true}, {61 * time.Second, false}}},
		{name: "never past the token's expiry", exp: start.Add(10 * time.Second), steps: []struct {
			at    time.Duration
			asked bool
		}{{0, true}, {9 * time.Second, false}, {10 * time.Second, true}, {11 * time.Second, true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			now := start
			inner := &countingVerifier{exp: tc.exp}
			v := auth.Cached(inner, time.Minute, 100, func() time.Time { return now })
			for _, s := range tc.steps {
				now = start.Add(s.at)
				before := inner.calls
				c, err := v.Verify(context.Background(), "t1")
				if err != nil || c.Subject != "user-t1" {
					t.Fatalf("at %v: %+v, %v", s.at, c, err)
				}
				if asked := inner.calls > before; asked != s.asked {
					t.Errorf("at %v: asked the verifier %v, want %v", s.at, asked, s.asked)
				}
			}
		})
	}
}

func TestCachedRefusalsAndBound(t *testing.T) {
	t.Parallel()
	inner := &countingVerifier{}
	v := auth.Cached(inner, time.Minute, 2, nil)
	ctx := context.Background()
	for range 2 {
		if _, err := v.Verify(ctx, "bad"); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("bad token: %v", err)
		}
	}
	if inner.calls != 2 {
		t.Errorf("a refused token was remembered: %d calls for 2 verifications", inner.calls)
	}
	for _, tok := range []string{"a", "b", "c", "a"} {
		if c, err := v.Verify(ctx, tok); err != nil || c.Subject != "user-"+tok {
			t.Fatalf("%s: %+v, %v", tok, c, err)
		}
	}
	// "c" filled the cache past its bound of 2: it started over, so "a"
	// was asked again.
	if inner.calls != 2+4 {
		t.Errorf("%d calls, want 6", inner.calls)
	}
}
