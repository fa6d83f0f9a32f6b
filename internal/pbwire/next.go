package pbwire

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field is one field of a message as the wire holds it.
type Field struct {
	Num  protowire.Number
	Type protowire.Type
	// Scalar is the value of a varint, fixed32 or fixed64 field.
	Scalar uint64
	// Bytes is the value of a length-delimited field. It is part of the
	// message read, not a copy.
	Bytes []byte
}

// Error is a field [Next] cannot read.
type Error struct {
	// Num and Type are the field's; both are 0 when its tag is malformed.
	Num  protowire.Number
	Type protowire.Type
	// Err is protowire's error about the tag or the value; it is nil when
	// the tag names a wire type no field has (end group, 6 or 7).
	Err error
}

// Error says what could not be read and in which field.
func (e *Error) Error() string {
	switch {
	case e.Num == 0:
		return fmt.Sprintf("malformed field tag: %v", e.Err)
	case e.Err == nil:
		return fmt.Sprintf("field %d has invalid wire type %d", e.Num, e.Type)
	}
	return fmt.Sprintf("malformed field %d: %v", e.Num, e.Err)
}

// Next reads the field at the start of b, which must not be empty, and
// returns it with the rest of b. A group (wire type 3, which proto3 has no
// use for) is skipped whole, as protobuf readers skip an unknown one, and
// returned without a value for the caller to ignore or refuse. An error is
// an *[Error].
func Next(b []byte) (Field, []byte, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return Field{}, nil, &Error{Err: protowire.ParseError(n)}
	}
	b = b[n:]
	f := Field{Num: num, Type: typ}
	switch typ {
	case protowire.VarintType:
		f.Scalar, n = protowire.ConsumeVarint(b)
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(b)
		f.Scalar = uint64(v)
	case protowire.Fixed64Type:
		f.Scalar, n = protowire.ConsumeFixed64(b)
	case protowire.BytesType:
		f.Bytes, n = protowire.ConsumeBytes(b)
	case protowire.StartGroupType:
		n = protowire.ConsumeFieldValue(num, typ, b)
	default:
		return Field{}, nil, &Error{Num: num, Type: typ}
	}
	if n < 0 {
		return Field{}, nil, &Error{Num: num, Type: typ, Err: protowire.ParseError(n)}
	}
	return f, b[n:], nil
}
