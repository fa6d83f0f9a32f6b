package daml

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
)

// The binary encoding is sandnet's storage form of Daml values: compact,
// cheap to decode, lossless for everything [ProtobufJSON] keeps (labels,
// record, variant and enum ids) and self-describing, so it needs no type.
//
// A value is a kind tag byte followed by its payload:
//
//	Unit, False, True, None            nothing
//	Int64, Timestamp                   zigzag varint
//	Date                               zigzag varint (days)
//	Numeric                            zigzag varint of the unscaled value (x×10^10)
//	NumericBig                         sign byte, uvarint n, n big-endian bytes of |x×10^10|
//	Text, Party, ContractID            string
//	Some                               value
//	List                               uvarint n, n values
//	TextMap                            uvarint n, n × (string key, value)
//	GenMap                             uvarint n, n × (key value, value)
//	Record / RecordID                  [identifier], uvarint n, n × (string label, value)
//	Variant / VariantID                [identifier], string constructor, value
//	Enum / EnumID                      [identifier], string constructor
//
// An identifier is a uvarint r: 0 followed by three strings (package,
// module, entity) for a new one, r odd a reference to the (r-1)/2-th
// identifier of the stream. A string is a
// uvarint r: r even is a literal of r/2 bytes that follow, r odd a reference
// to the (r-1)/2-th non-empty literal seen earlier in the same stream (the
// per-stream string table). Parties, package ids and labels repeat a lot,
// so they are stored once per blob and decoded into one shared string.
//
// The encoding carries no version of its own: it is versioned by whatever
// stores it (the ledger's blobs start with a format byte).

// Binary kind tags. The values are part of the stored format: never
// renumber them.
const (
	binUnit byte = iota + 1
	binFalse
	binTrue
	binInt64
	binNumeric
	binNumericBig
	binText
	binParty
	binContractID
	binTimestamp
	binDate
	binNone
	binSome
	binList
	binTextMap
	binGenMap
	binRecord
	binRecordID
	binVariant
	binVariantID
	binEnum
	binEnumID
)

// BinaryEncoder appends Daml values and plain fields to one buffer in the
// binary encoding, sharing a string table between them. The zero value is
// ready to use; an encoder is not safe for concurrent use.
type BinaryEncoder struct {
	buf  []byte
	strs map[string]uint32
	ids  map[Identifier]uint32
}

// NewBinaryEncoder returns an encoder that appends to dst.
func NewBinaryEncoder(dst []byte) *BinaryEncoder {
	return &BinaryEncoder{buf: dst}
}

// Reset makes e ready to encode a new stream appending to dst, as a new
// encoder would, but keeping the memory of its string and identifier
// tables so that a pooled encoder does not allocate them again (tables
// that grew large are dropped rather than kept alive).
func (e *BinaryEncoder) Reset(dst []byte) {
	e.buf = dst
	if len(e.strs) > maxKeptTable {
		e.strs = nil
	} else {
		clear(e.strs)
	}
	if len(e.ids) > maxKeptTable {
		e.ids = nil
	} else {
		clear(e.ids)
	}
}

// maxKeptTable is the largest string or identifier table [BinaryEncoder.Reset]
// keeps for reuse.
const maxKeptTable = 1024

// Bytes returns the buffer with everything appended so far.
func (e *BinaryEncoder) Bytes() []byte { return e.buf }

// Byte appends one byte.
func (e *BinaryEncoder) Byte(b byte) { e.buf = append(e.buf, b) }

// Uvarint appends an unsigned varint.
func (e *BinaryEncoder) Uvarint(u uint64) { e.buf = binary.AppendUvarint(e.buf, u) }

// Varint appends a signed (zigzag) varint.
func (e *BinaryEncoder) Varint(i int64) { e.buf = binary.AppendVarint(e.buf, i) }

// Bool appends a bool as one byte.
func (e *BinaryEncoder) Bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// String appends s, as a reference when the stream already holds it.
func (e *BinaryEncoder) String(s string) {
	if s == "" {
		e.buf = append(e.buf, 0)
		return
	}
	if i, ok := e.strs[s]; ok {
		e.buf = binary.AppendUvarint(e.buf, uint64(i)<<1|1)
		return
	}
	if e.strs == nil {
		e.strs = make(map[string]uint32, 32)
	}
	e.strs[s] = uint32(len(e.strs))
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s))<<1)
	e.buf = append(e.buf, s...)
}

// Identifier appends id, as a reference when the stream already holds it.
func (e *BinaryEncoder) Identifier(id Identifier) {
	if i, ok := e.ids[id]; ok {
		e.buf = binary.AppendUvarint(e.buf, uint64(i)<<1|1)
		return
	}
	if e.ids == nil {
		e.ids = make(map[Identifier]uint32, 8)
	}
	e.ids[id] = uint32(len(e.ids))
	e.buf = append(e.buf, 0)
	e.String(id.PackageID)
	e.String(id.ModuleName)
	e.String(id.EntityName)
}

func (e *BinaryEncoder) identifier(id *Identifier) { e.Identifier(*id) }

// Value appends v. It fails, like [ProtobufJSON], on nil values, on
// timestamps and dates outside Daml's range and on values nesting deeper
// than [MaxNesting], so that everything it writes decodes.
func (e *BinaryEncoder) Value(v Value) error {
	n := len(e.buf)
	if err := e.value(v, 0); err != nil {
		e.buf = e.buf[:n]
		return finish("encode", "binary", err)
	}
	return nil
}

// AppendBinary appends v to dst in the binary encoding, with a string
// table of its own.
func AppendBinary(dst []byte, v Value) ([]byte, error) {
	e := BinaryEncoder{buf: dst}
	err := e.Value(v)
	return e.buf, err
}

func (e *BinaryEncoder) value(v Value, depth int) error {
	switch x := v.(type) {
	case Unit:
		e.buf = append(e.buf, binUnit)
	case Bool:
		if x {
			e.buf = append(e.buf, binTrue)
		} else {
			e.buf = append(e.buf, binFalse)
		}
	case Int64:
		e.buf = append(e.buf, binInt64)
		e.Varint(int64(x))
	case Numeric:
		e.numeric(x)
	case Text:
		e.buf = append(e.buf, binText)
		e.String(string(x))
	case Party:
		e.buf = append(e.buf, binParty)
		e.String(string(x))
	case ContractID:
		e.buf = append(e.buf, binContractID)
		e.String(string(x))
	case Timestamp:
		if !x.Valid() {
			return errorf(errTimestampRange.Error())
		}
		e.buf = append(e.buf, binTimestamp)
		e.Varint(int64(x))
	case Date:
		if !x.Valid() {
			return errorf(errDateRange.Error())
		}
		e.buf = append(e.buf, binDate)
		e.Varint(int64(x))
	case *Optional:
		if x == nil {
			return errorf("nil *Optional (use None)")
		}
		if x.Value == nil {
			e.buf = append(e.buf, binNone)
			return nil
		}
		if depth++; depth > MaxNesting {
			return errorf(errTooDeep)
		}
		e.buf = append(e.buf, binSome)
		return e.value(x.Value, depth)
	case List:
		if depth++; depth > MaxNesting {
			return errorf(errTooDeep)
		}
		e.buf = append(e.buf, binList)
		e.Uvarint(uint64(len(x)))
		for i, el := range x {
			if err := e.value(el, depth); err != nil {
				return atIndex(err, i)
			}
		}
	case TextMap:
		if depth++; depth > MaxNesting {
			return errorf(errTooDeep)
		}
		e.buf = append(e.buf, binTextMap)
		e.Uvarint(uint64(len(x)))
		for i := range x {
			e.String(x[i].Key)
			if err := e.value(x[i].Value, depth); err != nil {
				return atKey(err, x[i].Key)
			}
		}
	case GenMap:
		if depth++; depth > MaxNesting {
			return errorf(errTooDeep)
		}
		e.buf = append(e.buf, binGenMap)
		e.Uvarint(uint64(len(x)))
		for i := range x {
			if err := e.value(x[i].Key, depth); err != nil {
				return atIndex(atKey(err, "key"), i)
			}
			if err := e.value(x[i].Value, depth); err != nil {
				return atIndex(atKey(err, "value"), i)
			}
		}
	case *Record:
		if x == nil {
			return errorf("nil *Record")
		}
		if depth++; depth > MaxNesting {
			return errorf(errTooDeep)
		}
		if x.ID != nil {
			e.buf = append(e.buf, binRecordID)
			e.identifier(x.ID)
		} else {
			e.buf = append(e.buf, binRecord)
		}
		e.Uvarint(uint64(len(x.Fields)))
		for i := range x.Fields {
			f := &x.Fields[i]
			e.String(f.Label)
			if err := e.value(f.Value, depth); err != nil {
				if f.Label != "" {
					return atKey(err, f.Label)
				}
				return atIndex(err, i)
			}
		}
	case *Variant:
		if x == nil {
			return errorf("nil *Variant")
		}
		if depth++; depth > MaxNesting {
			return errorf(errTooDeep)
		}
		if x.ID != nil {
			e.buf = append(e.buf, binVariantID)
			e.identifier(x.ID)
		} else {
			e.buf = append(e.buf, binVariant)
		}
		e.String(x.Constructor)
		if err := e.value(x.Value, depth); err != nil {
			return atKey(err, "value")
		}
	case *Enum:
		if x == nil {
			return errorf("nil *Enum")
		}
		if x.ID != nil {
			e.buf = append(e.buf, binEnumID)
			e.identifier(x.ID)
		} else {
			e.buf = append(e.buf, binEnum)
		}
		e.String(x.Constructor)
	case nil:
		return errorf("missing value")
	default:
		return errorf(fmt.Sprintf("unsupported value %T", v))
	}
	return nil
}

func (e *BinaryEncoder) numeric(x Numeric) {
	d := &x.d
	if !(d.Exponent == -NumericScale && d.Coeff.IsUint64()) {
		if q, err := x.quantize(); err == nil {
			d = &q.d
		}
	}
	if d.Exponent == -NumericScale && d.Coeff.IsUint64() {
		if u := d.Coeff.Uint64(); u <= math.MaxInt64 {
			i := int64(u)
			if d.Negative {
				i = -i
			}
			e.buf = append(e.buf, binNumeric)
			e.Varint(i)
			return
		}
	}
	u := x.unscaled()
	e.buf = append(e.buf, binNumericBig)
	if u.Sign() < 0 {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
	mag := u.Abs(u).Bytes()
	e.Uvarint(uint64(len(mag)))
	e.buf = append(e.buf, mag...)
}

// errBinaryTruncated is what every read past the end reports.
var errBinaryTruncated = errors.New("truncated binary value")

// BinaryDecoder reads what a [BinaryEncoder] wrote, in the same order. It
// never panics, and it allocates at most in proportion to its input: every
// count is checked against the bytes left. The first error sticks: later
// reads return zero values, and [BinaryDecoder.Err] reports it.
type BinaryDecoder struct {
	b []byte
	// src, when set, holds the same bytes as the input b started as: the
	// strings read are substrings of it (see NewSharedBinaryDecoder).
	src  string
	strs []string
	ids  []*Identifier
	err  error
}

// NewBinaryDecoder returns a decoder reading b.
func NewBinaryDecoder(b []byte) *BinaryDecoder { return &BinaryDecoder{b: b} }

// NewSharedBinaryDecoder returns a decoder reading b that copies b once,
// into one string, and returns every string it reads as a substring of
// that copy instead of allocating each: one allocation per input instead
// of one per string. Any string it returned keeps the whole copy alive,
// so it suits inputs whose strings are most of them (a stored update
// decoded for serving). The decoder only reads b during its calls and
// keeps no reference to it in what it returns, so b may be reused (a
// database/sql RawBytes) once decoding is done.
func NewSharedBinaryDecoder(b []byte) *BinaryDecoder {
	return &BinaryDecoder{b: b, src: string(b)}
}

// Err returns the first error met, or nil.
func (d *BinaryDecoder) Err() error { return d.err }

// Rest returns the bytes not read yet.
func (d *BinaryDecoder) Rest() []byte { return d.b }

// Fail records err as the decoder's error, unless it already has one, and
// stops it: for callers that find the bytes well-formed but the content
// invalid.
func (d *BinaryDecoder) Fail(err error) { d.fail(err) }

func (d *BinaryDecoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

// Byte reads one byte.
func (d *BinaryDecoder) Byte() byte {
	if len(d.b) == 0 {
		d.fail(errBinaryTruncated)
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// Bool reads a bool written by [BinaryEncoder.Bool].
func (d *BinaryDecoder) Bool() bool {
	switch d.Byte() {
	case 0:
		return false
	case 1:
		return true
	default:
		d.fail(errors.New("invalid bool"))
		return false
	}
}

// Uvarint reads an unsigned varint.
func (d *BinaryDecoder) Uvarint() uint64 {
	if len(d.b) > 0 && d.b[0] < 0x80 { // the common one-byte case
		u := uint64(d.b[0])
		d.b = d.b[1:]
		return u
	}
	u, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errors.New("invalid varint"))
		return 0
	}
	d.b = d.b[n:]
	return u
}

// Varint reads a signed (zigzag) varint.
func (d *BinaryDecoder) Varint() int64 {
	u := d.Uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// Count reads a length and checks that at least min(1, per) bytes per
// element are left, which bounds what a caller allocates for the elements.
func (d *BinaryDecoder) Count(per int) int {
	u := d.Uvarint()
	if per < 1 {
		per = 1
	}
	if u > uint64(len(d.b)/per) {
		d.fail(fmt.Errorf("count %d exceeds the %d bytes left", u, len(d.b)))
		return 0
	}
	return int(u)
}

// maxPrealloc caps the elements a decoder allocates for a count before it
// has read them: a count is only checked against the bytes left, and
// nested containers would otherwise each allocate for the whole rest of
// the input. Longer lists grow as their elements are read.
const maxPrealloc = 64

// prealloc is the capacity to allocate for n elements about to be read.
func prealloc(n int) int { return min(n, maxPrealloc) }

// String reads a string written by [BinaryEncoder.String].
func (d *BinaryDecoder) String() string {
	r := d.Uvarint()
	if r&1 == 1 {
		i := r >> 1
		if i >= uint64(len(d.strs)) {
			d.fail(fmt.Errorf("string reference %d out of range", i))
			return ""
		}
		return d.strs[i]
	}
	n := r >> 1
	if n == 0 {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail(errBinaryTruncated)
		return ""
	}
	var s string
	if d.src != "" {
		off := len(d.src) - len(d.b)
		s = d.src[off : off+int(n)]
	} else {
		s = string(d.b[:n])
	}
	d.b = d.b[n:]
	d.strs = append(d.strs, s)
	return s
}

// Identifier reads an identifier written by [BinaryEncoder.Identifier].
// Every reference to the same identifier in a stream returns the same
// pointer: treat it as immutable.
func (d *BinaryDecoder) Identifier() *Identifier {
	r := d.Uvarint()
	switch {
	case d.err != nil:
		return &Identifier{}
	case r&1 == 1:
		if i := r >> 1; i < uint64(len(d.ids)) {
			return d.ids[i]
		}
		d.fail(fmt.Errorf("identifier reference %d out of range", r>>1))
		return &Identifier{}
	case r != 0:
		d.fail(fmt.Errorf("invalid identifier marker %d", r))
		return &Identifier{}
	}
	id := &Identifier{PackageID: d.String(), ModuleName: d.String(), EntityName: d.String()}
	d.ids = append(d.ids, id)
	return id
}

func (d *BinaryDecoder) identifier() *Identifier { return d.Identifier() }

// Value reads one value.
func (d *BinaryDecoder) Value() (Value, error) {
	if d.err != nil {
		return nil, d.err
	}
	v, err := d.value(0)
	if err == nil {
		err = d.err
	}
	if err != nil {
		d.fail(err)
		return nil, finish("decode", "binary", err)
	}
	return v, nil
}

// DecodeBinary reads one value written by [AppendBinary] from the start of
// b, and returns it with the bytes that follow it. It never panics.
func DecodeBinary(b []byte) (v Value, rest []byte, err error) {
	d := BinaryDecoder{b: b}
	v, err = d.Value()
	if err != nil {
		return nil, b, err
	}
	return v, d.b, nil
}

func (d *BinaryDecoder) value(depth int) (Value, error) {
	tag := d.Byte()
	if d.err != nil {
		return nil, d.err
	}
	switch tag {
	case binUnit:
		return Unit{}, nil
	case binFalse:
		return Bool(false), nil
	case binTrue:
		return Bool(true), nil
	case binInt64:
		return Int64(d.Varint()), d.err
	case binNumeric:
		i := d.Varint()
		var n Numeric
		if i < 0 {
			n.d.Coeff.SetUint64(uint64(-i)) // -MinInt64 wraps to its own magnitude
			n.d.Negative = true
		} else {
			n.d.Coeff.SetUint64(uint64(i))
		}
		n.d.Exponent = -NumericScale
		return n, d.err
	case binNumericBig:
		neg := d.Bool()
		l := d.Count(1)
		if d.err != nil {
			return nil, d.err
		}
		if l > 16 {
			return nil, errorf("numeric out of range")
		}
		u := new(big.Int).SetBytes(d.b[:l])
		d.b = d.b[l:]
		if neg {
			u.Neg(u)
		}
		n, err := numericFromUnscaled(u)
		if err != nil {
			return nil, errorf(err.Error())
		}
		return n, nil
	case binText:
		return Text(d.String()), d.err
	case binParty:
		return Party(d.String()), d.err
	case binContractID:
		return ContractID(d.String()), d.err
	case binTimestamp:
		t := Timestamp(d.Varint())
		if d.err == nil && !t.Valid() {
			return nil, errorf(errTimestampRange.Error())
		}
		return t, d.err
	case binDate:
		i := d.Varint()
		if d.err == nil && (i < math.MinInt32 || i > math.MaxInt32 || !Date(i).Valid()) {
			return nil, errorf(errDateRange.Error())
		}
		return Date(i), d.err
	case binNone:
		return None, nil
	case binSome:
		if depth++; depth > MaxNesting {
			return nil, errorf(errTooDeep)
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		return &Optional{Value: v}, nil
	case binList:
		if depth++; depth > MaxNesting {
			return nil, errorf(errTooDeep)
		}
		n := d.Count(1)
		if d.err != nil {
			return nil, d.err
		}
		l := make(List, 0, prealloc(n))
		for i := range n {
			v, err := d.value(depth)
			if err != nil {
				return nil, atIndex(err, i)
			}
			l = append(l, v)
		}
		return l, nil
	case binTextMap:
		if depth++; depth > MaxNesting {
			return nil, errorf(errTooDeep)
		}
		n := d.Count(2)
		if d.err != nil {
			return nil, d.err
		}
		m := make(TextMap, 0, prealloc(n))
		for range n {
			k := d.String()
			v, err := d.value(depth)
			if err != nil {
				return nil, atKey(err, k)
			}
			m = append(m, TextMapEntry{Key: k, Value: v})
		}
		return m, nil
	case binGenMap:
		if depth++; depth > MaxNesting {
			return nil, errorf(errTooDeep)
		}
		n := d.Count(2)
		if d.err != nil {
			return nil, d.err
		}
		m := make(GenMap, 0, prealloc(n))
		for i := range n {
			k, err := d.value(depth)
			if err != nil {
				return nil, atIndex(atKey(err, "key"), i)
			}
			v, err := d.value(depth)
			if err != nil {
				return nil, atIndex(atKey(err, "value"), i)
			}
			m = append(m, GenMapEntry{Key: k, Value: v})
		}
		return m, nil
	case binRecord, binRecordID:
		if depth++; depth > MaxNesting {
			return nil, errorf(errTooDeep)
		}
		r := &Record{}
		if tag == binRecordID {
			r.ID = d.identifier()
		}
		n := d.Count(2)
		if d.err != nil {
			return nil, d.err
		}
		if n > 0 {
			r.Fields = make([]Field, 0, prealloc(n))
		}
		for i := range n {
			label := d.String()
			v, err := d.value(depth)
			if err != nil {
				if label != "" {
					return nil, atKey(err, label)
				}
				return nil, atIndex(err, i)
			}
			r.Fields = append(r.Fields, Field{Label: label, Value: v})
		}
		return r, nil
	case binVariant, binVariantID:
		if depth++; depth > MaxNesting {
			return nil, errorf(errTooDeep)
		}
		x := &Variant{}
		if tag == binVariantID {
			x.ID = d.identifier()
		}
		x.Constructor = d.String()
		if d.err != nil {
			return nil, d.err
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, atKey(err, "value")
		}
		x.Value = v
		return x, nil
	case binEnum, binEnumID:
		x := &Enum{}
		if tag == binEnumID {
			x.ID = d.identifier()
		}
		x.Constructor = d.String()
		return x, d.err
	default:
		return nil, errorf(fmt.Sprintf("unknown binary value tag %d", tag))
	}
}

// Prealloc is the capacity a decoder of a stream (this package's or a
// caller's reading its own fields) should allocate for a count read with
// [BinaryDecoder.Count] before reading the elements: at most a small
// constant, so that the memory decoding takes stays proportional to what
// it actually reads.
func Prealloc(n int) int { return prealloc(n) }
