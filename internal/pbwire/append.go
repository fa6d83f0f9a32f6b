package pbwire

import "google.golang.org/protobuf/encoding/protowire"

// AppendVarint appends a varint field unless v is 0, proto3's default. A
// negative int32 or int64 is passed sign-extended (uint64(int64(v))), as
// protobuf-java writes it (ten bytes).
func AppendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// AppendBool appends a bool field unless v is false.
func AppendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return AppendVarint(b, num, 1)
}

// AppendBytes appends a bytes field, or a packed repeated scalar field,
// unless v is empty.
func AppendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// AppendString appends a string field unless s is empty.
func AppendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// AppendStrings appends a repeated string field: every element, an empty
// one included.
func AppendStrings[S ~string](b []byte, num protowire.Number, ss []S) []byte {
	for _, s := range ss {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendString(b, string(s))
	}
	return b
}

// AppendMessage appends a message field, written even when empty, whose
// fields body appends; a nil body writes an empty message. The body is
// written in place and shifted right by the size of its length prefix
// once that is known, which saves a buffer per level of nesting.
func AppendMessage(b []byte, num protowire.Number, body func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	if body == nil {
		return protowire.AppendVarint(b, 0)
	}
	start := len(b)
	b = body(b)
	n := len(b) - start
	sz := protowire.SizeVarint(uint64(n))
	for range sz {
		b = append(b, 0)
	}
	copy(b[start+sz:], b[start:start+n])
	protowire.AppendVarint(b[start:start], uint64(n))
	return b
}
