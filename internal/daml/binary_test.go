package daml

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func binaryCases(t testing.TB) []Value {
	big := MustNumeric("-9999999999999999999999999999.9999999999")
	return []Value{
		Unit{}, Bool(false), Bool(true), Int64(0), Int64(-1), Int64(1 << 62),
		Int64(-9223372036854775808), num("0"), num("-0.0000000001"), num("2500.5"),
		big, MustNumeric("9999999999999999999999999999.9999999999"), MustNumeric("922337203.6854775808"),
		Text(""), Text("héllo"), Party(aliceParty), ContractID("00ab"),
		Timestamp(0), mustTS(t, "0001-01-01T00:00:00Z"), mustTS(t, "9999-12-31T23:59:59.999999Z"),
		mustDate(t, "0001-01-01"), mustDate(t, "9999-12-31"),
		None, Some(None), List{}, TextMap{}, GenMap{},
		&Record{}, &Record{ID: &Identifier{}}, &Enum{}, &Variant{Value: Unit{}},
		amuletValue(), everyValue(t),
		List{amuletValue(), amuletValue(), amuletValue()},
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	for _, v := range binaryCases(t) {
		enc, err := AppendBinary([]byte("prefix"), v)
		if err != nil {
			t.Fatalf("AppendBinary(%s): %v", show(v), err)
		}
		if !bytes.HasPrefix(enc, []byte("prefix")) {
			t.Fatalf("AppendBinary dropped dst")
		}
		got, rest, err := DecodeBinary(append(enc[len("prefix"):], "tail"...))
		if err != nil {
			t.Fatalf("DecodeBinary(%s): %v", show(v), err)
		}
		if string(rest) != "tail" {
			t.Fatalf("rest = %q", rest)
		}
		if !Equal(v, got) {
			t.Fatalf("round trip changed the value:\n%s\n%s", show(v), show(got))
		}
		// Lossless for protobuf_json: the same JSON either way.
		j1, err1 := ProtobufJSON.Encode(v)
		j2, err2 := ProtobufJSON.Encode(got)
		if err1 != nil || err2 != nil || !bytes.Equal(j1, j2) {
			t.Fatalf("protobuf_json differs: %s / %s (%v %v)", j1, j2, err1, err2)
		}
	}
}

func TestBinaryStringTable(t *testing.T) {
	l := List{Party(aliceParty), Party(aliceParty), Party(aliceParty)}
	enc, err := AppendBinary(nil, l)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(enc, []byte(aliceParty)); n != 1 {
		t.Fatalf("party stored %d times, want once", n)
	}
	if len(enc) > len(aliceParty)+12 {
		t.Fatalf("%d bytes for %d bytes of text", len(enc), len(aliceParty))
	}
}

func TestBinaryErrors(t *testing.T) {
	deep := Value(Unit{})
	for range MaxNesting + 1 {
		deep = List{deep}
	}
	for _, v := range []Value{nil, (*Record)(nil), (*Optional)(nil), &Record{Fields: []Field{{Label: "a"}}},
		Timestamp(-62135596800000001), Date(3000000), deep} {
		if _, err := AppendBinary(nil, v); err == nil {
			t.Errorf("AppendBinary(%#v) succeeded", v)
		}
	}
	// The decoder enforces the nesting limit on its own.
	var b []byte
	for range MaxNesting + 1 {
		b = append(b, binList, 1)
	}
	b = append(b, binUnit)
	if _, _, err := DecodeBinary(b); err == nil || !strings.Contains(err.Error(), "nests deeper") {
		t.Fatalf("deep input: %v", err)
	}
	for _, b := range [][]byte{
		nil, {0}, {99}, {binList, 200, 1}, {binText, 3, 'a'}, {binText, 1}, {binInt64, 0x80},
		{binNumericBig, 0, 17}, {binNumericBig, 2, 0}, {binTimestamp, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{binRecord, 5, 0, binUnit},
	} {
		_, _, err := DecodeBinary(b)
		var de *Error
		if !errors.As(err, &de) {
			t.Errorf("DecodeBinary(%v) = %v, want *Error", b, err)
		}
	}
}

func FuzzDecodeBinary(f *testing.F) {
	for _, v := range binaryCases(f) {
		enc, err := AppendBinary(nil, v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, rest, err := DecodeBinary(data)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			return
		}
		if len(rest) > len(data) {
			t.Fatalf("rest longer than input")
		}
		enc, err := AppendBinary(nil, v)
		if err != nil {
			t.Fatalf("AppendBinary of decoded %q: %v", data, err)
		}
		v2, rest2, err := DecodeBinary(enc)
		if err != nil || len(rest2) != 0 {
			t.Fatalf("DecodeBinary(AppendBinary(v)) = %v, rest %q", err, rest2)
		}
		if !Equal(v, v2) {
			t.Fatalf("round trip changed the value\n%s\n%s", show(v), show(v2))
		}
		if enc2, _ := AppendBinary(nil, v2); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable: %x / %x", enc, enc2)
		}
		if _, err := ProtobufJSON.Encode(v); err != nil {
			t.Fatalf("protobuf_json cannot encode a decoded value: %v", err)
		}
	})
}

func BenchmarkBinary(b *testing.B) {
	v := everyValue(b)
	enc, _ := AppendBinary(nil, v)
	js, _ := ProtobufJSON.Encode(v)
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			buf, _ = AppendBinary(buf[:0], v)
		}
		b.ReportMetric(float64(len(enc)), "bytes")
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := DecodeBinary(enc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protobuf_json/decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ProtobufJSON.Decode(js, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(js)), "bytes")
	})
}

// Counts are only checked against the bytes left, so nested containers
// claiming huge counts must not each allocate for the whole input.
func TestBinaryDecodeAllocationBound(t *testing.T) {
	const pad = 1 << 20
	var b []byte
	for range MaxNesting {
		b = append(b, binList)
		b = binary.AppendUvarint(b, pad)
	}
	b = append(b, make([]byte, pad+16)...) // zero bytes: an invalid tag
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, _, err := DecodeBinary(b); err == nil {
		t.Fatal("decoded")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4*pad {
		t.Fatalf("decoding %d bytes allocated %d", len(b), got)
	}
}
