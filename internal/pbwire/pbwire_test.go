package pbwire_test

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/pbwire"
)

func TestAppend(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte{'x'}, 200) // a length prefix of two bytes
	minusOne := int32(-1)
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		{"varint 0 left out", pbwire.AppendVarint(nil, 1, 0), nil},
		{"varint", pbwire.AppendVarint(nil, 1, 150), []byte{0x08, 0x96, 0x01}},
		{"negative int32 sign-extended", pbwire.AppendVarint(nil, 2, uint64(int64(minusOne))),
			[]byte{0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"false left out", pbwire.AppendBool(nil, 3, false), nil},
		{"true", pbwire.AppendBool(nil, 3, true), []byte{0x18, 0x01}},
		{"empty bytes left out", pbwire.AppendBytes(nil, 4, []byte{}), nil},
		{"bytes", pbwire.AppendBytes(nil, 4, []byte{0, 1}), []byte{0x22, 0x02, 0, 1}},
		{"empty string left out", pbwire.AppendString(nil, 5, ""), nil},
		{"string", pbwire.AppendString(nil, 5, "ab"), []byte{0x2a, 0x02, 'a', 'b'}},
		{"repeated strings keep empty elements", pbwire.AppendStrings(nil, 6, []string{"a", ""}),
			[]byte{0x32, 0x01, 'a', 0x32, 0x00}},
		{"no repeated strings", pbwire.AppendStrings[string](nil, 6, nil), nil},
		{"nil body is an empty message", pbwire.AppendMessage(nil, 7, nil), []byte{0x3a, 0x00}},
		{"empty body is an empty message", pbwire.AppendMessage(nil, 7, func(b []byte) []byte { return b }), []byte{0x3a, 0x00}},
		{"message", pbwire.AppendMessage([]byte{0xee}, 7, func(b []byte) []byte { return pbwire.AppendString(b, 1, "ab") }),
			[]byte{0xee, 0x3a, 0x04, 0x0a, 0x02, 'a', 'b'}},
		{"long message shifted past its prefix", pbwire.AppendMessage(nil, 1, func(b []byte) []byte { return append(b, big...) }),
			append([]byte{0x0a, 0xc8, 0x01}, big...)},
		{"nested messages", pbwire.AppendMessage(nil, 1, func(b []byte) []byte {
			return pbwire.AppendMessage(b, 2, func(b []byte) []byte { return append(b, big...) })
		}), append([]byte{0x0a, 0xcb, 0x01, 0x12, 0xc8, 0x01}, big...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if !bytes.Equal(tt.got, tt.want) {
				t.Errorf("got %x, want %x", tt.got, tt.want)
			}
		})
	}
}

func TestNext(t *testing.T) {
	t.Parallel()
	group := protowire.AppendTag(nil, 9, protowire.StartGroupType)
	group = protowire.AppendTag(group, 1, protowire.VarintType)
	group = append(group, 5)
	group = protowire.AppendTag(group, 9, protowire.EndGroupType)
	tests := []struct {
		name  string
		in    []byte
		want  pbwire.Field
		rest  []byte
		error string
	}{
		{"varint", []byte{0x08, 0x96, 0x01, 0xff}, pbwire.Field{Num: 1, Type: protowire.VarintType, Scalar: 150}, []byte{0xff}, ""},
		{"fixed32", []byte{0x0d, 1, 0, 0, 0}, pbwire.Field{Num: 1, Type: protowire.Fixed32Type, Scalar: 1}, []byte{}, ""},
		{"fixed64", []byte{0x09, 0, 0, 0, 0, 0, 0, 0, 0x80}, pbwire.Field{Num: 1, Type: protowire.Fixed64Type, Scalar: 1 << 63}, []byte{}, ""},
		{"bytes", []byte{0x12, 0x01, 'a'}, pbwire.Field{Num: 2, Type: protowire.BytesType, Bytes: []byte("a")}, []byte{}, ""},
		{"group skipped whole", append(group, 0x08, 0x01), pbwire.Field{Num: 9, Type: protowire.StartGroupType}, []byte{0x08, 0x01}, ""},
		{"malformed tag", []byte{0x00}, pbwire.Field{}, nil, "malformed field tag: "},
		{"truncated tag", []byte{0x80}, pbwire.Field{}, nil, "malformed field tag: "},
		{"truncated value", []byte{0x12, 0x05, 'a'}, pbwire.Field{}, nil, "malformed field 2: "},
		{"unterminated group", group[:len(group)-1], pbwire.Field{}, nil, "malformed field 9: "},
		{"end group", []byte{0x0c}, pbwire.Field{}, nil, "field 1 has invalid wire type 4"},
		{"wire type 6", []byte{0x0e}, pbwire.Field{}, nil, "field 1 has invalid wire type 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, rest, err := pbwire.Next(tt.in)
			if tt.error != "" {
				var e *pbwire.Error
				if !errors.As(err, &e) || !bytes.HasPrefix([]byte(err.Error()), []byte(tt.error)) {
					t.Fatalf("error = %v, want %q", err, tt.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Num != tt.want.Num || f.Type != tt.want.Type || f.Scalar != tt.want.Scalar || !bytes.Equal(f.Bytes, tt.want.Bytes) {
				t.Errorf("field = %+v, want %+v", f, tt.want)
			}
			if !bytes.Equal(rest, tt.rest) {
				t.Errorf("rest = %x, want %x", rest, tt.rest)
			}
		})
	}
}

// FuzzNext checks that no bytes make Next panic, that it always moves on
// or fails with an *Error, and that a field it reads is what protowire
// reads there.
func FuzzNext(f *testing.F) {
	f.Add([]byte{0x08, 0x96, 0x01})
	f.Add([]byte{0x12, 0x01, 'a'})
	f.Add([]byte{0x4b, 0x08, 0x05, 0x4c})
	f.Add([]byte{0x0e})
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		for len(b) > 0 {
			fld, rest, err := pbwire.Next(b)
			if err != nil {
				var e *pbwire.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v is not an *Error", err)
				}
				return
			}
			if len(rest) >= len(b) {
				t.Fatalf("Next did not move on: %d bytes left of %d", len(rest), len(b))
			}
			num, typ, n := protowire.ConsumeField(b)
			if n < 0 || num != fld.Num || typ != fld.Type || len(b)-n != len(rest) {
				t.Fatalf("Next read field %d type %d leaving %d; protowire reads %d type %d length %d",
					fld.Num, fld.Type, len(rest), num, typ, n)
			}
			b = rest
		}
	})
}
