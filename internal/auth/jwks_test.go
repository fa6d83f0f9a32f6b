package auth

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// newTestJWKS returns a JWKS over srv with a fake clock and no background
// refresh to speak of, stopped when the test ends.
func newTestJWKS(t *testing.T, srv *keyServer, audience string) (*JWKS, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	j, err := newJWKS(t.Context(), srv.URL, audience, srv.Client(), time.Hour, clock.now)
	if err != nil {
		t.Fatalf("newJWKS: %v", err)
	}
	return j, clock
}

func TestJWKSVerify(t *testing.T) {
	t.Parallel()
	const aud = "https://sandnet.example/ledger"
	rsaA, rsaB, ec256, ec384 := rsaKeyA(), rsaKeyB(), ecKey256(), ecKey384()
	srv := newKeyServer(t,
		jwkFor("rsa", "", rsaA),
		jwkFor("rsa-rs256", "RS256", rsaA),
		jwkFor("ec256", "ES256", ec256),
		jwkFor("ec384", "", ec384),
	)
	j, _ := newTestJWKS(t, srv, aud)

	pubDER, err := x509.MarshalPKIXPublicKey(&rsaA.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	good := claimsFor("alice", aud)
	noExp := jwt.MapClaims{"sub": "alice", "aud": aud}
	expired := claimsFor("alice", aud)
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	future := claimsFor("alice", aud)
	future["iat"] = time.Now().Add(time.Minute).Unix()

	for _, tc := range []struct {
		name  string
		token string
		want  Reason
	}{
		{"RS256", sign(t, jwt.SigningMethodRS256, rsaA, "rsa", good), ""},
		{"RS384", sign(t, jwt.SigningMethodRS384, rsaA, "rsa", good), ""},
		{"RS512", sign(t, jwt.SigningMethodRS512, rsaA, "rsa", good), ""},
		{"ES256", sign(t, jwt.SigningMethodES256, ec256, "ec256", good), ""},
		{"ES384", sign(t, jwt.SigningMethodES384, ec384, "ec384", good), ""},
		{"key declared RS256 refuses RS512", sign(t, jwt.SigningMethodRS512, rsaA, "rsa-rs256", good), ReasonUnknownKey},
		{"ES256 token with RSA kid", sign(t, jwt.SigningMethodES256, ec256, "rsa", good), ReasonUnknownKey},
		{"RS256 token with EC kid", sign(t, jwt.SigningMethodRS256, rsaA, "ec256", good), ReasonUnknownKey},
		{"ES384 token with P-256 kid", sign(t, jwt.SigningMethodES384, ec384, "ec256", good), ReasonUnknownKey},
		{"ES256 token with P-384 kid", sign(t, jwt.SigningMethodES256, ec256, "ec384", good), ReasonUnknownKey},
		{"HS256 with RSA public key PEM", sign(t, jwt.SigningMethodHS256, pubPEM, "rsa", good), ReasonAlgNotAllowed},
		{"HS256 with RSA public key DER", sign(t, jwt.SigningMethodHS256, pubDER, "rsa", good), ReasonAlgNotAllowed},
		{"PS256", sign(t, jwt.SigningMethodPS256, rsaA, "rsa", good), ReasonAlgNotAllowed},
		{"alg none", noneToken(t, "alice"), ReasonAlgNotAllowed},
		{"no kid", sign(t, jwt.SigningMethodRS256, rsaA, "", good), ReasonUnknownKey},
		{"unknown kid", sign(t, jwt.SigningMethodRS256, rsaA, "nope", good), ReasonUnknownKey},
		{"signed by another key", sign(t, jwt.SigningMethodRS256, rsaB, "rsa", good), ReasonBadSignature},
		{"expired", sign(t, jwt.SigningMethodRS256, rsaA, "rsa", expired), ReasonExpired},
		{"issued in the future", sign(t, jwt.SigningMethodRS256, rsaA, "rsa", future), ReasonNotYetValid},
		{"no exp", sign(t, jwt.SigningMethodRS256, rsaA, "rsa", noExp), ReasonMissingExpiry},
		{"wrong audience", sign(t, jwt.SigningMethodRS256, rsaA, "rsa", claimsFor("alice", "other")), ReasonWrongAudience},
		{"no audience", sign(t, jwt.SigningMethodRS256, rsaA, "rsa", claimsFor("alice")), ReasonWrongAudience},
		{"no sub", sign(t, jwt.SigningMethodRS256, rsaA, "rsa", claimsFor("", aud)), ReasonMissingSubject},
		{"garbage", "x.y.z", ReasonMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := j.Verify(t.Context(), tc.token)
			if r := reasonOf(t, err); r != tc.want {
				t.Fatalf("Verify reason = %q (err %v); want %q", r, err, tc.want)
			}
			if err == nil && got.Subject != "alice" {
				t.Errorf("Subject = %q; want alice", got.Subject)
			}
		})
	}

	if _, err := j.Verify(t.Context(), ""); !errors.Is(err, ErrMissingToken) {
		t.Errorf("Verify(\"\") = %v; want ErrMissingToken", err)
	}
}

func TestJWKSUnknownKidRefreshesOnceThenRateLimits(t *testing.T) {
	t.Parallel()
	keyA, keyB := rsaKeyA(), rsaKeyB()
	srv := newKeyServer(t, jwkFor("a", "RS256", keyA))
	j, clock := newTestJWKS(t, srv, "")
	tokA := sign(t, jwt.SigningMethodRS256, keyA, "a", claimsFor("alice"))
	tokB := sign(t, jwt.SigningMethodRS256, keyB, "b", claimsFor("bob"))
	ctx := t.Context()

	step := func(name, token string, want Reason, wantHits int64) {
		t.Helper()
		_, err := j.Verify(ctx, token)
		if r := reasonOf(t, err); r != want {
			t.Fatalf("%s: reason = %q (err %v); want %q", name, r, err, want)
		}
		if got := srv.hits.Load(); got != wantHits {
			t.Fatalf("%s: %d fetches; want %d", name, got, wantHits)
		}
	}

	step("known kid", tokA, "", 1)
	// The provider rotates in key b. Right after the initial fetch, an
	// unknown kid does not cause a fetch.
	srv.set(jwkFor("a", "RS256", keyA), jwkFor("b", "RS256", keyB))
	step("new kid, too soon", tokB, ReasonUnknownKey, 1)
	clock.advance(jwksMinRefreshGap)
	step("new kid, after gap", tokB, "", 2)
	step("new kid, cached", tokB, "", 2)

	// Random kids cannot make sandnet hammer the provider, even
	// concurrently.
	bogus := sign(t, jwt.SigningMethodRS256, keyA, "bogus", claimsFor("eve"))
	step("bogus kid, too soon", bogus, ReasonUnknownKey, 2)
	clock.advance(jwksMinRefreshGap)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := j.Verify(ctx, bogus); !errors.Is(err, ErrInvalidToken) {
				t.Errorf("bogus kid verified: %v", err)
			}
		})
	}
	wg.Wait()
	if got := srv.hits.Load(); got != 3 {
		t.Fatalf("20 concurrent unknown kids caused %d fetches in total; want 3", got)
	}

	// Key a is removed; once the set is re-fetched it no longer verifies.
	srv.set(jwkFor("b", "RS256", keyB))
	clock.advance(jwksMinRefreshGap)
	step("new kid c triggers refresh", sign(t, jwt.SigningMethodRS256, keyA, "c", claimsFor("eve")), ReasonUnknownKey, 4)
	step("removed kid", tokA, ReasonUnknownKey, 4)
	step("kept kid", tokB, "", 4)

	// A failed refresh keeps the cached keys.
	srv.setRaw(http.StatusInternalServerError, []byte("down"))
	clock.advance(jwksMinRefreshGap)
	step("unknown kid, provider down", tokA, ReasonUnknownKey, 5)
	step("kept kid, provider down", tokB, "", 5)
}

func TestJWKSBackgroundRefreshStopsWithContext(t *testing.T) {
	t.Parallel()
	key := rsaKeyA()
	srv := newKeyServer(t, jwkFor("a", "RS256", key))
	ctx, cancel := context.WithCancel(t.Context())
	if _, err := newJWKS(ctx, srv.URL, "", srv.Client(), time.Millisecond, time.Now); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for srv.hits.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("background refresh: %d fetches after 10s; want ≥ 3", srv.hits.Load())
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	time.Sleep(20 * time.Millisecond) // let an in-flight tick finish
	before := srv.hits.Load()
	time.Sleep(50 * time.Millisecond)
	if after := srv.hits.Load(); after != before {
		t.Errorf("fetches continued after cancel: %d → %d", before, after)
	}
}

func TestNewJWKSErrors(t *testing.T) {
	t.Parallel()
	closed := newKeyServer(t)
	closed.Close()
	for _, tc := range []struct {
		name   string
		status int
		doc    string
		url    string
	}{
		{name: "not a URL", url: "::"},
		{name: "file URL", url: "file:///etc/passwd"},
		{name: "unreachable", url: closed.URL},
		{name: "HTTP 500", status: 500, doc: `{"keys":[]}`},
		{name: "not JSON", status: 200, doc: `<html>`},
		{name: "no keys member", status: 200, doc: `{}`},
		{name: "empty set", status: 200, doc: `{"keys":[]}`},
		{name: "only unusable keys", status: 200, doc: `{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0"},{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := tc.url
			if url == "" {
				srv := newKeyServer(t)
				srv.setRaw(tc.status, []byte(tc.doc))
				url = srv.URL
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			j, err := NewJWKS(ctx, url, "", nil)
			if err == nil {
				t.Fatalf("NewJWKS succeeded (%v); want error", j)
			}
			if strings.Contains(err.Error(), "c2VjcmV0") {
				t.Errorf("error %q leaks key material", err)
			}
		})
	}
}

func TestParseKeySetSkipsUnusableKeys(t *testing.T) {
	t.Parallel()
	small := mustRSA(1024)
	good := jwkFor("good", "", rsaKeyA())
	with := func(base map[string]any, kv ...any) map[string]any {
		m := make(map[string]any, len(base))
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	ec := jwkFor("ec", "", ecKey256())
	offCurve := with(ec, "y", ec["x"]) // (x, x) is not on P-256
	for _, tc := range []struct {
		name string
		key  map[string]any
		ok   bool
	}{
		{"RSA without alg", good, true},
		{"EC without alg", ec, true},
		{"no kid", with(good, "kid", ""), false},
		{"encryption key", with(good, "use", "enc"), false},
		{"key_ops without verify", with(good, "key_ops", []string{"encrypt"}), false},
		{"key_ops with verify", with(good, "key_ops", []string{"verify"}), true},
		{"symmetric", map[string]any{"kty": "oct", "kid": "h", "k": "c2VjcmV0"}, false},
		{"HS256 alg on RSA key", with(good, "alg", "HS256"), false},
		{"PS256 alg", with(good, "alg", "PS256"), false},
		{"ES256 alg on RSA key", with(good, "alg", "ES256"), false},
		{"RS256 alg on EC key", with(ec, "alg", "RS256"), false},
		{"ES384 alg on P-256 key", with(ec, "alg", "ES384"), false},
		{"1024-bit RSA", jwkFor("small", "", small), false},
		{"even exponent", with(good, "e", "Ag"), false},
		{"bad modulus base64", with(good, "n", "!!"), false},
		{"off-curve point", offCurve, false},
		{"short coordinate", with(ec, "x", "AQ"), false},
		{"P-521", with(ec, "crv", "P-521"), false},
		{"OKP", map[string]any{"kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": "AQ"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc, err := json.Marshal(map[string]any{"keys": []any{tc.key, "not an object"}})
			if err != nil {
				t.Fatal(err)
			}
			keys, err := parseKeySet(doc)
			if err != nil {
				t.Fatalf("parseKeySet: %v", err)
			}
			if got := len(keys) == 1; got != tc.ok {
				t.Errorf("key usable = %v; want %v", got, tc.ok)
			}
		})
	}
}
