package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
)

// jwksAlgs are the algorithms a JWKS verifier accepts: the asymmetric ones
// identity providers use. HMAC is excluded because a public key set can't
// hold a shared secret safely, and `none` because it proves nothing.
var jwksAlgs = []string{"RS256", "RS384", "RS512", "ES256", "ES384"}

// minRSABits refuses RSA keys that are factorable in practice.
const minRSABits = 2048

// publicKey is one usable verification key from a key set.
type publicKey struct {
	// alg is the key's declared `alg`, or "" when the set leaves it open;
	// a declared alg is the only one the key verifies.
	alg string
	// key is *rsa.PublicKey or *ecdsa.PublicKey.
	key any
}

// accepts reports whether k may verify a token signed with alg. This is the
// algorithm-confusion guard: an RSA key verifies only RS*, and an EC key
// only the ES* alg of its own curve.
func (k publicKey) accepts(alg string) bool {
	if k.alg != "" && k.alg != alg {
		return false
	}
	switch key := k.key.(type) {
	case *rsa.PublicKey:
		return alg == "RS256" || alg == "RS384" || alg == "RS512"
	case *ecdsa.PublicKey:
		switch alg {
		case "ES256":
			return key.Curve == elliptic.P256()
		case "ES384":
			return key.Curve == elliptic.P384()
		}
	}
	return false
}

// jwkJSON is one entry of a JWK Set (RFC 7517), restricted to the members
// sandnet reads. Private members (`d`, …), if a misconfigured provider
// publishes them, are not even decoded.
type jwkJSON struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Alg    string   `json:"alg"`
	// RSA
	N string `json:"n"`
	E string `json:"e"`
	// EC
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// parseKeySet decodes a JWK Set document into usable keys by kid. Entries
// that sandnet cannot or must not use (no kid, encryption keys, symmetric
// keys, unsupported algorithms or curves, weak or invalid keys) are skipped
// rather than failing the set, as providers often publish keys for other
// purposes alongside signing keys. It fails only if the document itself is
// not a key set.
func parseKeySet(doc []byte) (map[string][]publicKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(doc, &set); err != nil {
		return nil, errors.New("not a JSON Web Key Set")
	}
	if set.Keys == nil {
		return nil, errors.New(`not a JSON Web Key Set: no "keys" member`)
	}
	keys := make(map[string][]publicKey)
	for _, raw := range set.Keys {
		var j jwkJSON
		if json.Unmarshal(raw, &j) != nil {
			continue
		}
		k, err := j.publicKey()
		if err != nil || j.Kid == "" {
			continue
		}
		keys[j.Kid] = append(keys[j.Kid], k)
	}
	return keys, nil
}

// publicKey converts a JWK to a verification key, or says why it can't be
// used for verifying token signatures.
func (j *jwkJSON) publicKey() (publicKey, error) {
	if j.Use != "" && j.Use != "sig" {
		return publicKey{}, fmt.Errorf("key use %q is not sig", j.Use)
	}
	if j.KeyOps != nil && !slices.Contains(j.KeyOps, "verify") {
		return publicKey{}, errors.New("key_ops does not include verify")
	}
	if j.Alg != "" && !slices.Contains(jwksAlgs, j.Alg) {
		return publicKey{}, fmt.Errorf("alg %q not supported", j.Alg)
	}
	var k publicKey
	var err error
	switch j.Kty {
	case "RSA":
		k.key, err = j.rsaKey()
	case "EC":
		k.key, err = j.ecKey()
	default:
		return publicKey{}, fmt.Errorf("kty %q not supported", j.Kty)
	}
	if err != nil {
		return publicKey{}, err
	}
	k.alg = j.Alg
	if k.alg != "" && !k.accepts(k.alg) {
		return publicKey{}, fmt.Errorf("alg %q does not match the key", j.Alg)
	}
	return k, nil
}

// rsaKey decodes the modulus and exponent of an RSA JWK.
func (j *jwkJSON) rsaKey() (*rsa.PublicKey, error) {
	n, err := base64.RawURLEncoding.DecodeString(j.N)
	if err != nil || len(n) == 0 {
		return nil, errors.New("bad RSA modulus")
	}
	e, err := base64.RawURLEncoding.DecodeString(j.E)
	if err != nil || len(e) == 0 || len(e) > 4 {
		return nil, errors.New("bad RSA exponent")
	}
	var exp int
	for _, b := range e {
		exp = exp<<8 | int(b)
	}
	if exp < 3 || exp%2 == 0 {
		return nil, errors.New("bad RSA exponent")
	}
	key := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: exp}
	if key.N.BitLen() < minRSABits {
		return nil, fmt.Errorf("RSA key shorter than %d bits", minRSABits)
	}
	return key, nil
}

// ecKey decodes an EC JWK on P-256 or P-384, checking that the point is on
// the curve (an off-curve point enables invalid-curve attacks).
func (j *jwkJSON) ecKey() (*ecdsa.PublicKey, error) {
	var curve elliptic.Curve
	switch j.Crv {
	case "P-256":
		curve = elliptic.P256()
	case "P-384":
		curve = elliptic.P384()
	default:
		return nil, fmt.Errorf("curve %q not supported", j.Crv)
	}
	size := (curve.Params().BitSize + 7) / 8
	x, errX := base64.RawURLEncoding.DecodeString(j.X)
	y, errY := base64.RawURLEncoding.DecodeString(j.Y)
	// RFC 7518 §6.2.1.2: coordinates are the full field size, unpadded.
	if errX != nil || errY != nil || len(x) != size || len(y) != size {
		return nil, errors.New("bad EC coordinates")
	}
	point := make([]byte, 0, 1+2*size)
	point = append(point, 4) // uncompressed
	point = append(point, x...)
	point = append(point, y...)
	key, err := ecdsa.ParseUncompressedPublicKey(curve, point)
	if err != nil {
		return nil, errors.New("EC point not on curve")
	}
	return key, nil
}
