package auth

import (
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

func TestUnverified(t *testing.T) {
	t.Parallel()
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, tc := range []struct {
		name    string
		token   string
		want    Claims
		reason  Reason
		missing bool
	}{
		{name: "alg none", token: rawToken(`{"alg":"none","typ":"JWT"}`, `{"sub":"alice"}`, ""), want: Claims{Subject: "alice"}},
		{name: "unknown alg", token: rawToken(`{"alg":"XX"}`, `{"sub":"bob","aud":"a"}`, "!!"), want: Claims{Subject: "bob", Audience: []string{"a"}}},
		{name: "no alg", token: rawToken(`{}`, `{"sub":"bob"}`, ""), want: Claims{Subject: "bob"}},
		{name: "signed by anyone, expired", token: sign(t, jwt.SigningMethodHS256, []byte("whatever"), "", jwt.MapClaims{"sub": "carol", "exp": past.Unix()}), want: Claims{Subject: "carol", ExpiresAt: past}},
		{name: "odd exp ignored", token: rawToken(`{"alg":"none"}`, `{"sub":"dave","exp":"soon"}`, ""), want: Claims{Subject: "dave"}},
		{name: "empty", token: "", missing: true},
		{name: "no sub", token: rawToken(`{"alg":"none"}`, `{"aud":"x"}`, ""), reason: ReasonMissingSubject},
		{name: "sub not a string", token: rawToken(`{"alg":"none"}`, `{"sub":7}`, ""), reason: ReasonMalformed},
		{name: "payload not JSON", token: rawToken(`{"alg":"none"}`, `nope`, ""), reason: ReasonMalformed},
		{name: "garbage", token: "garbage", reason: ReasonMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Unverified{}.Verify(t.Context(), tc.token)
			if tc.missing {
				if !errors.Is(err, ErrMissingToken) {
					t.Fatalf("Verify = %v; want ErrMissingToken", err)
				}
				return
			}
			if r := reasonOf(t, err); r != tc.reason {
				t.Fatalf("reason = %q (err %v); want %q", r, err, tc.reason)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(time.Time.Equal)); err == nil && diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAlgNoneRejectedByEveryCheckingVerifier guards the classic JWT hole:
// an unsigned token must only ever pass the verifier that checks nothing.
func TestAlgNoneRejectedByEveryCheckingVerifier(t *testing.T) {
	t.Parallel()
	h, err := NewHMAC(testSecret, "")
	if err != nil {
		t.Fatal(err)
	}
	srv := newKeyServer(t, jwkFor("k", "", rsaKeyA()))
	j, _ := newTestJWKS(t, srv, "")

	// With and without a kid naming a real key.
	tokens := map[string]string{
		"plain":    noneToken(t, "alice"),
		"with kid": rawToken(`{"alg":"none","kid":"k"}`, `{"sub":"alice","exp":4102444800}`, ""),
		"None":     rawToken(`{"alg":"None","kid":"k"}`, `{"sub":"alice","exp":4102444800}`, ""),
	}
	for name, tok := range tokens {
		for vname, v := range map[string]Verifier{"HMAC": h, "JWKS": j} {
			_, err := v.Verify(t.Context(), tok)
			if r := reasonOf(t, err); r != ReasonAlgNotAllowed {
				t.Errorf("%s accepted or misreported %s alg-none token: reason %q, err %v", vname, name, r, err)
			}
		}
		if c, err := (Unverified{}).Verify(t.Context(), tok); err != nil || c.Subject != "alice" {
			t.Errorf("Unverified(%s alg-none token) = %v, %v; want alice", name, c, err)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	err := error(&Error{Reason: ReasonExpired})
	if got, want := err.Error(), "invalid token: expired"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
	if !errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrMissingToken) {
		t.Errorf("errors.Is mismatch for %v", err)
	}
}
