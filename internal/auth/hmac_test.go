package auth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

func TestNewHMACRejectsShortSecret(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 6, MinSecretLen - 1} {
		if _, err := NewHMAC(make([]byte, n), ""); err == nil {
			t.Errorf("NewHMAC(%d-byte secret) succeeded; want error", n)
		}
	}
	if _, err := NewHMAC(make([]byte, MinSecretLen), ""); err != nil {
		t.Errorf("NewHMAC(%d-byte secret): %v", MinSecretLen, err)
	}
}

func TestHMACMintVerifyRoundTrip(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		name     string
		audience string
		wantAud  []string
	}{
		{name: "no audience"},
		{name: "audience", audience: "https://daml.com/jwt/aud/participant/sandnet", wantAud: []string{"https://daml.com/jwt/aud/participant/sandnet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewHMAC(testSecret, tc.audience)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := h.Mint("alice", time.Hour, now)
			if err != nil {
				t.Fatalf("Mint: %v", err)
			}
			got, err := h.Verify(t.Context(), tok)
			if err != nil {
				t.Fatalf("Verify(minted token): %v", err)
			}
			want := Claims{Subject: "alice", Audience: tc.wantAud, ExpiresAt: now.Add(time.Hour).Truncate(time.Second)}
			if diff := cmp.Diff(want, got, cmp.Comparer(time.Time.Equal)); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}

			// The payload carries what Canton-style clients look for.
			var c jwt.MapClaims
			if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil {
				t.Fatal(err)
			}
			if c["scope"] != LedgerAPIScope || c["iat"] == nil {
				t.Errorf("minted payload %v lacks scope %q or iat", c, LedgerAPIScope)
			}
		})
	}
}

func TestHMACMintRejectsBadInput(t *testing.T) {
	t.Parallel()
	h, err := NewHMAC(testSecret, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Mint("", time.Hour, time.Now()); err == nil {
		t.Error("Mint with empty subject succeeded")
	}
	if _, err := h.Mint("alice", 0, time.Now()); err == nil {
		t.Error("Mint with zero ttl succeeded")
	}
}

func TestHMACVerify(t *testing.T) {
	t.Parallel()
	const aud = "sandnet-participant"
	h, err := NewHMAC(testSecret, aud)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewHMAC([]byte(strings.Repeat("x", 32)), aud)
	if err != nil {
		t.Fatal(err)
	}
	otherAud, err := NewHMAC(testSecret, "someone-else")
	if err != nil {
		t.Fatal(err)
	}
	noAud, err := NewHMAC(testSecret, "")
	if err != nil {
		t.Fatal(err)
	}
	mint := func(m *HMAC, sub string, ttl time.Duration, now time.Time) string {
		tok, err := m.Mint(sub, ttl, now)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	now := time.Now()
	hs := func(c jwt.MapClaims) string { return sign(t, jwt.SigningMethodHS256, testSecret, "", c) }

	for _, tc := range []struct {
		name    string
		token   string
		wantSub string
		want    Reason // "" means valid
		missing bool   // want ErrMissingToken
	}{
		{name: "valid", token: mint(h, "alice", time.Hour, now), wantSub: "alice"},
		{name: "empty", token: "", missing: true},
		{name: "expired", token: mint(h, "alice", time.Hour, now.Add(-2*time.Hour)), want: ReasonExpired},
		{name: "expired within leeway", token: mint(h, "alice", time.Hour, now.Add(-time.Hour+time.Second)), wantSub: "alice"},
		{name: "wrong secret", token: mint(other, "alice", time.Hour, now), want: ReasonBadSignature},
		{name: "wrong audience", token: mint(otherAud, "alice", time.Hour, now), want: ReasonWrongAudience},
		{name: "no audience", token: mint(noAud, "alice", time.Hour, now), want: ReasonWrongAudience},
		{name: "audience among several", token: hs(jwt.MapClaims{"sub": "bob", "aud": []string{"x", aud}}), wantSub: "bob"},
		{name: "audience as string, no exp", token: hs(jwt.MapClaims{"sub": "bob", "aud": aud}), wantSub: "bob"},
		{name: "no sub", token: hs(jwt.MapClaims{"aud": aud, "exp": now.Add(time.Hour).Unix()}), want: ReasonMissingSubject},
		{name: "not yet valid", token: hs(jwt.MapClaims{"sub": "bob", "aud": aud, "nbf": now.Add(time.Minute).Unix()}), want: ReasonNotYetValid},
		{name: "issued in the future", token: hs(jwt.MapClaims{"sub": "bob", "aud": aud, "iat": now.Add(time.Minute).Unix()}), want: ReasonNotYetValid},
		{name: "issued in the future within leeway", token: hs(jwt.MapClaims{"sub": "bob", "aud": aud, "iat": now.Add(2 * time.Second).Unix()}), wantSub: "bob"},
		{name: "minted in the future", token: mint(h, "alice", time.Hour, now.Add(time.Hour)), want: ReasonNotYetValid},
		{name: "iat of wrong type", token: hs(jwt.MapClaims{"sub": "bob", "aud": aud, "iat": "yesterday"}), want: ReasonMalformed},
		{name: "exp of wrong type", token: hs(jwt.MapClaims{"sub": "bob", "aud": aud, "exp": "tomorrow"}), want: ReasonMalformed},
		{name: "alg none", token: noneToken(t, "alice"), want: ReasonAlgNotAllowed},
		{name: "HS512", token: sign(t, jwt.SigningMethodHS512, testSecret, "", claimsFor("alice", aud)), want: ReasonAlgNotAllowed},
		{name: "RS256", token: sign(t, jwt.SigningMethodRS256, rsaKeyA(), "", claimsFor("alice", aud)), want: ReasonAlgNotAllowed},
		{name: "unknown alg", token: rawToken(`{"alg":"XX"}`, `{"sub":"alice"}`, "c2ln"), want: ReasonAlgNotAllowed},
		{name: "no alg", token: rawToken(`{}`, `{"sub":"alice"}`, "c2ln"), want: ReasonAlgNotAllowed},
		{name: "garbage", token: "not a token", want: ReasonMalformed},
		{name: "two segments", token: "a.b", want: ReasonMalformed},
		{name: "header not JSON", token: rawToken(`{`, `{}`, ""), want: ReasonMalformed},
		{name: "oversized", token: strings.Repeat("a", maxTokenLen+1), want: ReasonMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := h.Verify(t.Context(), tc.token)
			if tc.missing {
				if !errors.Is(err, ErrMissingToken) {
					t.Fatalf("Verify = %v; want ErrMissingToken", err)
				}
				return
			}
			if r := reasonOf(t, err); r != tc.want {
				t.Fatalf("Verify reason = %q (err %v); want %q", r, err, tc.want)
			}
			if err != nil {
				if strings.Contains(err.Error(), string(testSecret)) {
					t.Errorf("error %q leaks the secret", err)
				}
				return
			}
			if got.Subject != tc.wantSub {
				t.Errorf("Subject = %q; want %q", got.Subject, tc.wantSub)
			}
		})
	}
}
