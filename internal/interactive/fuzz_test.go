package interactive

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/fault"
)

// FuzzUnmarshal checks that Unmarshal never panics, fails only with an
// InvalidArgument fault, and that whatever it accepts re-encodes to bytes
// that decode to an equal transaction, are a fixed point of the codec, and
// hash like the original (hashing may fail, but not panic, and fails or
// succeeds alike on both).
func FuzzUnmarshal(f *testing.F) {
	for _, v := range loadVectors(f) {
		f.Add(v.bytes(f))
	}
	f.Add(Marshal(handBuilt()))
	f.Add(Marshal(simpleTx()))
	f.Add(txWithValue(nestedOptionals(20)))
	f.Add(txWithNode(tagBytes(fV1Rollback, tagBytes(fRollbackChildren, []byte("0")))))
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x05, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		pt, err := Unmarshal(b)
		if err != nil {
			if !fault.Is(err, fault.InvalidArgument) {
				t.Fatalf("error %v is not an InvalidArgument fault", err)
			}
			return
		}
		b2 := Marshal(pt)
		pt2, err := Unmarshal(b2)
		if err != nil {
			t.Fatalf("re-encoded %x does not decode: %v", b2, err)
		}
		if diff := cmp.Diff(pt, pt2, cmpOpts); diff != "" {
			t.Fatalf("re-decoding changed the transaction (-first +second):\n%s", diff)
		}
		if b3 := Marshal(pt2); !bytes.Equal(b2, b3) {
			t.Fatalf("Marshal is not stable:\n%x\n%x", b2, b3)
		}
		for _, s := range []Scheme{SchemeV2, SchemeV3} {
			h1, err1 := Hash(pt, s)
			h2, _, err2 := HashTrace(pt2, s)
			if (err1 == nil) != (err2 == nil) || h1 != h2 {
				t.Fatalf("%s: hashes differ after re-encoding: %x (%v) vs %x (%v)", s, h1.Final, err1, h2.Final, err2)
			}
			if err1 != nil && !fault.Is(err1, fault.InvalidArgument) {
				t.Fatalf("%s: hash error %v is not an InvalidArgument fault", s, err1)
			}
		}
	})
}
