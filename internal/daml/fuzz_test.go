package daml

import (
	"bytes"
	"errors"
	"regexp"
	"testing"
)

// fuzzTypes are the types the schema-driven fuzzers decode against; the
// fuzzer picks one with its second argument.
var fuzzTypes = []*Type{
	everyType,
	amuletType,
	tOpt(tOpt(tOpt(tInt64))),
	tList(tNumeric),
	tGenMap(keyType, tTextMap(tTimestamp)),
	shapeType,
	tTextMap(tDate),
	tRecord("M", "Opts", fld("a", tOpt(tText)), fld("b", tOpt(tList(tOpt(tParty)))), fld("c", tOpt(tRecord("M", "E")))),
	tList(colorType),
	tOpt(tContract),
}

func seedSchemaFuzzer(f *testing.F, c Codec) {
	f.Helper()
	for _, tc := range roundTripCases(f) {
		enc, err := c.Encode(tc.val)
		if err != nil {
			f.Fatal(err)
		}
		for i, typ := range fuzzTypes {
			if typ == tc.typ {
				f.Add(enc, uint8(i))
			}
		}
		f.Add(enc, uint8(0))
	}
	for i := range fuzzTypes {
		f.Add([]byte(`{"a":null,"b":[null,"p"],"c":{}}`), uint8(i))
		f.Add([]byte(`[[[]]]`), uint8(i))
		f.Add([]byte(`[[{"owner":"p","n":1},{"k":"2025-01-01T00:00:00+01:00"}]]`), uint8(i))
		f.Add([]byte(`["1e-10", 2.5, "0E-10", "-0"]`), uint8(i))
		f.Add([]byte(`{"tag":"Square","value":["7"]}`), uint8(i))
	}
}

// checkSchemaRoundTrip is the property every schema-driven decoder must
// have: no panic, and whatever it accepts re-encodes to something that
// decodes to the same value and encodes to the same bytes.
func checkSchemaRoundTrip(t *testing.T, c Codec, data []byte, which uint8) {
	typ := fuzzTypes[int(which)%len(fuzzTypes)]
	v, err := c.Decode(data, typ)
	if err != nil {
		var de *Error
		if !errors.As(err, &de) {
			t.Fatalf("error %v is %T, want *Error", err, err)
		}
		return
	}
	if err := Validate(v, typ); err != nil {
		t.Fatalf("decoded value does not match its type: %v", err)
	}
	enc, err := c.Encode(v)
	if err != nil {
		t.Fatalf("Encode of decoded %s: %v", show(v), err)
	}
	v2, err := c.Decode(enc, typ)
	if err != nil {
		t.Fatalf("Decode(Encode(v)) = %v\ninput %q\nencoded %s", err, data, enc)
	}
	if !Equal(v, v2) {
		t.Fatalf("decode/encode/decode changed the value\n%s\n%s", show(v), show(v2))
	}
	enc2, err := c.Encode(v2)
	if err != nil || !bytes.Equal(enc, enc2) {
		t.Fatalf("encoding not stable: %s / %s (%v)", enc, enc2, err)
	}
	// The lossless format must carry it too.
	p, err := ProtobufJSON.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := ProtobufJSON.Decode(p, typ)
	if err != nil || !Equal(pv, v) {
		t.Fatalf("protobuf_json round trip: %v", err)
	}
}

func FuzzLedgerJSONDecode(f *testing.F) {
	seedSchemaFuzzer(f, LedgerJSON)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		checkSchemaRoundTrip(t, LedgerJSON, data, which)
	})
}

func FuzzCompactJSONDecode(f *testing.F) {
	seedSchemaFuzzer(f, CompactJSON)
	seedSchemaFuzzer(f, PayloadJSON)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		checkSchemaRoundTrip(t, CompactJSON, data, which)
		checkSchemaRoundTrip(t, PayloadJSON, data, which)
	})
}

func FuzzProtobufJSONDecode(f *testing.F) {
	for _, tc := range roundTripCases(f) {
		enc, err := ProtobufJSON.Encode(tc.val)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	for _, s := range []string{
		`{"contract_id":"c"}`, `{"int64":5}`, `{"date":"3"}`, `{"text":null,"party":"p"}`,
		`{"record":{"record_id":{"package_id":"p"},"fields":[{"value":{"text_map":{}}}]}}`,
		`{"genMap":{"entries":[{"key":{"int64":"1"},"value":{"unit":{}}}]}}`,
		`{"textMap":{"entries":[{"value":{"unit":{}}},{"key":"a","value":{"numeric":"1E-10"}}]}}`,
		`{"variant":{"constructor":"C","value":{"optional":{"value":{"optional":{}}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ProtobufJSON.Decode(data, nil)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			return
		}
		enc, err := ProtobufJSON.Encode(v)
		if err != nil {
			t.Fatalf("Encode of decoded %q: %v", data, err)
		}
		v2, err := ProtobufJSON.Decode(enc, nil)
		if err != nil {
			t.Fatalf("Decode(Encode(v)) = %v\ninput %q\nencoded %s", err, data, enc)
		}
		if !Equal(v, v2) {
			t.Fatalf("decode/encode/decode changed the value\n%s\n%s", enc, show(v2))
		}
		if enc2, _ := ProtobufJSON.Encode(v2); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable: %s / %s", enc, enc2)
		}
		// Every decoded value must also encode in the other formats.
		for _, c := range jsonCodecs {
			if _, err := c.Encode(v); err != nil {
				t.Fatalf("%s cannot encode %s: %v", c.Name(), enc, err)
			}
		}
	})
}

var fixedForm = regexp.MustCompile(`^-?[0-9]{1,28}\.[0-9]{10}$`)

func FuzzParseNumeric(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "1", "1.5", "-0.0000000001", "9999999999999999999999999999.9999999999",
		"-9999999999999999999999999999.9999999999", "10000000000000000000000000000", "1.00000000001",
		"1e-10", "0E-10", "1.000E-7", ".5", "1.", "+1", "NaN", "", "00000000000000000000000000000001",
		"1844674407.3709551615", "1844674407.3709551616",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		strict, err := ParseNumeric(s)
		lenient, lerr := parseNumericLenient(s)
		if err == nil {
			str := strict.String()
			if !fixedForm.MatchString(str) {
				t.Fatalf("ParseNumeric(%q).String() = %q", s, str)
			}
			back, err := ParseNumeric(str)
			if err != nil || back.Cmp(strict) != 0 {
				t.Fatalf("ParseNumeric(%q) does not round trip via %q: %v", s, str, err)
			}
			if lerr != nil || lenient.Cmp(strict) != 0 {
				t.Fatalf("lenient parse disagrees on %q: %v", s, lerr)
			}
		}
		if lerr != nil {
			return
		}
		for _, form := range [][]byte{lenient.appendFixed(nil), lenient.appendJava(nil), lenient.appendUnscaled(nil)} {
			back, err := parseNumericLenient(string(form))
			if err != nil || back.Cmp(lenient) != 0 {
				t.Fatalf("%q rendered as %q does not parse back: %v", s, form, err)
			}
		}
		// Arithmetic never panics and stays in range.
		for _, r := range []func() (Numeric, error){
			func() (Numeric, error) { return lenient.Mul(lenient) },
			func() (Numeric, error) { return lenient.Add(lenient) },
			func() (Numeric, error) { return num("1").Div(lenient) },
			func() (Numeric, error) { return lenient.DivCeil(num("3")) },
		} {
			if n, err := r(); err == nil && !fixedForm.MatchString(n.String()) {
				t.Fatalf("arithmetic on %q gave %q", s, n)
			}
		}
	})
}

// FuzzLedgerJSONStrictDecode checks the command decoder: no panic, errors
// are *Error with the fields they name, and what it accepts the lenient
// decoder accepts as the same value, and round-trips.
func FuzzLedgerJSONStrictDecode(f *testing.F) {
	seedSchemaFuzzer(f, LedgerJSON)
	for i := range fuzzTypes {
		f.Add([]byte(`{"a":"x","zz":1,"b":null}`), uint8(i))
		f.Add([]byte(`{"owner":"p"}`), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		typ := fuzzTypes[int(which)%len(fuzzTypes)]
		v, err := LedgerJSONStrict.Decode(data, typ)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if (de.Kind == ErrMissingFields || de.Kind == ErrUnexpectedFields) != (len(de.Fields) > 0) {
				t.Fatalf("error %v of kind %v names fields %q", err, de.Kind, de.Fields)
			}
			return
		}
		lv, err := LedgerJSON.Decode(data, typ)
		if err != nil || !Equal(v, lv) {
			t.Fatalf("the strict decoder accepted %q, the lenient one: %v", data, err)
		}
		checkSchemaRoundTrip(t, LedgerJSONStrict, data, which)
	})
}
