package daml

import (
	"bytes"
	"strconv"
	"testing"
)

// TestBinaryEncoderReset checks that an encoder reused after Reset writes
// what a new one writes: its string and identifier tables start empty
// again, whether they were kept or dropped for being large.
func TestBinaryEncoderReset(t *testing.T) {
	t.Parallel()
	id := Identifier{PackageID: "pkg", ModuleName: "M", EntityName: "T"}
	write := func(e *BinaryEncoder) {
		e.String("alice")
		e.Identifier(id)
		e.String("alice")
		e.Identifier(id)
	}
	for _, tc := range []struct {
		name    string
		earlier int // distinct strings written before the Reset
	}{
		{"fresh tables", 0},
		{"kept tables", 10},
		{"dropped tables", maxKeptTable + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var want BinaryEncoder
			write(&want)
			var e BinaryEncoder
			for i := range tc.earlier {
				e.String("s" + strconv.Itoa(i))
				e.Identifier(Identifier{PackageID: strconv.Itoa(i)})
			}
			e.String("alice")
			e.Reset(e.Bytes()[:0])
			write(&e)
			if !bytes.Equal(e.Bytes(), want.Bytes()) {
				t.Errorf("after Reset: %x, want %x", e.Bytes(), want.Bytes())
			}
		})
	}
}
