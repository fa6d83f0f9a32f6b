package interactive

import (
	"crypto/sha256"
	"encoding/hex"
)

func sha256Hex(b []byte) string {
	d := sha256.Sum256(b)
	return hex.EncodeToString(d[:])
}
