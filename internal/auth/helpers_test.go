package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Test keys are generated once: RSA generation is slow under -race.
var (
	rsaKeyA  = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA(2048) })
	rsaKeyB  = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA(2048) })
	ecKey256 = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P256()) })
	ecKey384 = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P384()) })
)

func mustRSA(bits int) *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		panic(err)
	}
	return k
}

func mustEC(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

// testSecret is a 32-byte HS256 secret.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// b64 is base64url without padding, as in JWTs and JWKs.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwkFor returns the public JWK of key (an *rsa.PrivateKey or
// *ecdsa.PrivateKey) with kid and, when non-empty, alg.
func jwkFor(kid, alg string, key any) map[string]any {
	m := map[string]any{"kid": kid, "use": "sig"}
	if alg != "" {
		m["alg"] = alg
	}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		m["kty"] = "RSA"
		m["n"] = b64(k.N.Bytes())
		m["e"] = b64(big.NewInt(int64(k.E)).Bytes())
	case *ecdsa.PrivateKey:
		m["kty"] = "EC"
		size := (k.Curve.Params().BitSize + 7) / 8
		pt, err := k.PublicKey.Bytes()
		if err != nil {
			panic(err)
		}
		m["crv"] = k.Curve.Params().Name
		m["x"] = b64(pt[1 : 1+size])
		m["y"] = b64(pt[1+size:])
	default:
		panic("unsupported key type")
	}
	return m
}

// keyServer serves a JWK Set that tests can replace, counting fetches.
type keyServer struct {
	*httptest.Server
	mu     sync.Mutex
	doc    []byte
	status int
	hits   atomic.Int64
}

func newKeyServer(t *testing.T, keys ...map[string]any) *keyServer {
	t.Helper()
	s := &keyServer{status: http.StatusOK}
	s.set(keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		doc, status := s.doc, s.status
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(doc)
	}))
	t.Cleanup(s.Close)
	return s
}

// set replaces the served key set.
func (s *keyServer) set(keys ...map[string]any) {
	if keys == nil {
		keys = []map[string]any{}
	}
	doc, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		panic(err)
	}
	s.setRaw(http.StatusOK, doc)
}

func (s *keyServer) setRaw(status int, doc []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.doc = status, doc
}

// fakeClock is a settable clock for JWKS rate limiting.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// claimsFor returns standard claims for sub valid for an hour from now.
func claimsFor(sub string, aud ...string) jwt.MapClaims {
	now := time.Now()
	m := jwt.MapClaims{
		"sub": sub,
		"iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
	if len(aud) > 0 {
		m["aud"] = aud
	}
	return m
}

// sign signs claims with method and key, setting kid when non-empty.
func sign(t testing.TB, method jwt.SigningMethod, key any, kid string, claims jwt.Claims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("signing test token: %v", err)
	}
	return s
}

// rawToken builds a token from literal header and payload JSON with an
// arbitrary signature, for headers the library would not produce.
func rawToken(header, payload, sig string) string {
	return b64([]byte(header)) + "." + b64([]byte(payload)) + "." + sig
}

// noneToken is an unsigned (`alg: none`) token for sub.
func noneToken(t testing.TB, sub string) string {
	return sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "", claimsFor(sub))
}

// reasonOf returns the Reason of an *Error, "" for nil, or fails the test
// for any other error.
func reasonOf(t testing.TB, err error) Reason {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *auth.Error", err, err)
	}
	if !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("error %v does not match ErrInvalidToken", err)
	}
	return e.Reason
}
