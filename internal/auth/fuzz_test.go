package auth

import (
	"errors"
	"testing"
	"time"
)

// FuzzVerifyHMAC checks that no token string makes HMAC.Verify panic, that
// every failure is one of the package's errors, and that nothing verifies
// without a subject.
func FuzzVerifyHMAC(f *testing.F) {
	h, err := NewHMAC(testSecret, "aud")
	if err != nil {
		f.Fatal(err)
	}
	good, err := h.Mint("alice", time.Hour, time.Now())
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		good,
		good + "x",
		noneToken(f, "alice"),
		rawToken(`{"alg":"HS256"}`, `{"sub":"a","aud":["aud"],"exp":1e300}`, ""),
		rawToken(`{"alg":"HS256","crit":["x"]}`, `{"sub":{},"nbf":-1}`, "AA"),
		"", ".", "..", "a.b.c", "Bearer x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := h.Verify(t.Context(), token)
		switch {
		case err == nil:
			if c.Subject == "" {
				t.Fatalf("token %q verified without a subject", token)
			}
		case errors.Is(err, ErrMissingToken):
			if token != "" {
				t.Fatalf("ErrMissingToken for non-empty %q", token)
			}
		default:
			if _, ok := errors.AsType[*Error](err); !ok {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
		}
	})
}
