package daml

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var jsonCodecs = []Codec{LedgerJSON, CompactJSON, PayloadJSON}

var allCodecs = []Codec{LedgerJSON, CompactJSON, PayloadJSON, ProtobufJSON}

type roundTripCase struct {
	name string
	typ  *Type
	val  Value
}

func roundTripCases(t testing.TB) []roundTripCase {
	ooInt := tOpt(tOpt(tInt64))
	oooInt := tOpt(ooInt)
	return []roundTripCase{
		{"unit", tUnit, Unit{}},
		{"true", tBool, Bool(true)},
		{"false", tBool, Bool(false)},
		{"int64 zero", tInt64, Int64(0)},
		{"int64 min", tInt64, Int64(-9223372036854775808)},
		{"int64 max", tInt64, Int64(9223372036854775807)},
		{"numeric max", tNumeric, num("9999999999999999999999999999.9999999999")},
		{"numeric min", tNumeric, num("-9999999999999999999999999999.9999999999")},
		{"numeric smallest negative", tNumeric, num("-0.0000000001")},
		{"numeric smallest positive", tNumeric, num("0.0000000001")},
		{"numeric zero", tNumeric, num("0")},
		{"numeric 1e-7", tNumeric, num("0.0000001")},
		{"numeric 1e-6", tNumeric, num("0.000001")},
		{"numeric integer", tNumeric, num("10")},
		{"numeric zero value", tNumeric, Numeric{}},
		{"text empty", tText, Text("")},
		{"text unicode and escapes", tText, Text("a\"b\\c\nd\te\u0000f\u001fg😀\u2028é")},
		{"party", tParty, Party(aliceParty)},
		{"contract id", tContract, ContractID("00abcdef")},
		{"timestamp epoch", tTimestamp, Timestamp(0)},
		{"timestamp min", tTimestamp, MinTimestamp},
		{"timestamp max", tTimestamp, MaxTimestamp},
		{"timestamp before epoch", tTimestamp, Timestamp(-1)},
		{"timestamp millis", tTimestamp, mustTS(t, "2025-01-27T15:30:37.120Z")},
		{"timestamp micros", tTimestamp, mustTS(t, "2025-01-27T15:30:37.291866Z")},
		{"timestamp tens of micros", tTimestamp, Timestamp(10)},
		{"date epoch", tDate, Date(0)},
		{"date min", tDate, MinDate},
		{"date max", tDate, MaxDate},
		{"date leap day", tDate, mustDate(t, "2024-02-29")},
		{"enum", colorType, enum(colorType, "Blue")},
		{"variant record", shapeType, variant(shapeType, "Square", rec(shapeType.Fields[1].Type, Int64(-4)))},
		{"variant numeric", shapeType, variant(shapeType, "Circle", num("2.5"))},
		{"variant unit", shapeType, variant(shapeType, "Dot", Unit{})},
		{"list empty", tList(tInt64), List{}},
		{"list", tList(tInt64), List{Int64(1), Int64(2), Int64(3)}},
		{"list of lists", tList(tList(tText)), List{List{}, List{Text("x")}}},
		{"textmap empty", tTextMap(tText), TextMap{}},
		{"textmap", tTextMap(tText), TextMap{{Key: "a", Value: Text("1")}, {Key: "b", Value: Text("2")}, {Key: "é", Value: Text("3")}}},
		{"genmap empty", tGenMap(tText, tInt64), GenMap{}},
		{"genmap record keys", tGenMap(keyType, tList(tInt64)), GenMap{
			{Key: rec(keyType, Party("p1"), Int64(1)), Value: List{Int64(1)}},
			{Key: rec(keyType, Party("p1"), Int64(2)), Value: List{}},
		}},
		{"genmap optional keys", tGenMap(tOpt(tText), tInt64), GenMap{{Key: none(), Value: Int64(0)}, {Key: Some(Text("k")), Value: Int64(1)}}},
		{"empty record", tRecord("M", "Empty"), rec(tRecord("M", "Empty"))},
		{"record without id", tRecord("", "", fld("a", tInt64)), rec(tRecord("", "", fld("a", tInt64)), Int64(1))},
		{"optional none", tOpt(tInt64), none()},
		{"optional some", tOpt(tInt64), Some(Int64(5))},
		{"optional some unit", tOpt(tUnit), Some(Unit{})},
		{"optional some empty list", tOpt(tList(tInt64)), Some(List{})},
		{"nested optional none", ooInt, none()},
		{"nested optional some none", ooInt, Some(none())},
		{"nested optional some some", ooInt, Some(Some(Int64(5)))},
		{"triple optional none", oooInt, none()},
		{"triple optional some none", oooInt, Some(none())},
		{"triple optional some some none", oooInt, Some(Some(none()))},
		{"triple optional some some some", oooInt, Some(Some(Some(Int64(5))))},
		{"list of nested optionals", tList(ooInt), List{none(), Some(none()), Some(Some(Int64(1)))}},
		{"record with trailing none", tRecord("M", "R", fld("a", tInt64), fld("b", tOpt(tInt64)), fld("c", tOpt(tInt64))),
			rec(tRecord("M", "R", fld("a", tInt64), fld("b", tOpt(tInt64)), fld("c", tOpt(tInt64))), Int64(1), none(), none())},
		{"record with inner none", tRecord("M", "R", fld("a", tOpt(tInt64)), fld("b", tInt64)),
			rec(tRecord("M", "R", fld("a", tOpt(tInt64)), fld("b", tInt64)), none(), Int64(2))},
		{"amulet", amuletType, amuletValue()},
		{"every kind", everyType, everyValue(t)},
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range roundTripCases(t) {
		for _, c := range allCodecs {
			t.Run(c.Name()+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				if err := Validate(tc.val, tc.typ); err != nil {
					t.Fatalf("test value does not match its type: %v", err)
				}
				enc, err := c.Encode(tc.val)
				if err != nil {
					t.Fatalf("Encode: %v", err)
				}
				typ := tc.typ
				if c == ProtobufJSON {
					// Self-describing: decoding needs no type and is exact.
					got, err := c.Decode(enc, nil)
					if err != nil {
						t.Fatalf("Decode(%s): %v", enc, err)
					}
					if !Equal(got, tc.val) {
						t.Fatalf("round trip through %s\n got %s\nwant %s", enc, show(got), show(tc.val))
					}
				}
				got, err := c.Decode(enc, typ)
				if err != nil {
					t.Fatalf("Decode(%s): %v", enc, err)
				}
				if !Equal(got, tc.val) {
					t.Fatalf("round trip through %s\n got %s\nwant %s", enc, show(got), show(tc.val))
				}
				again, err := c.Encode(got)
				if err != nil {
					t.Fatalf("re-Encode: %v", err)
				}
				if !bytes.Equal(again, enc) {
					t.Fatalf("encoding is not stable:\n%s\n%s", enc, again)
				}
			})
		}
	}
}

// TestEncodings pins the details in which the formats differ.
func TestEncodings(t *testing.T) {
	t.Parallel()
	ooInt := tOpt(tOpt(tInt64))
	trailing := tRecord("M", "R", fld("a", tInt64), fld("b", tOpt(tInt64)), fld("c", tOpt(tInt64)))
	tests := []struct {
		name                               string
		val                                Value
		ledger, compact, payload, protobuf string
	}{
		{"int64", Int64(-5), `"-5"`, `"-5"`, `"-5"`, `{"int64":"-5"}`},
		{"numeric", num("10"), `"10.0000000000"`, `"10.0000000000"`, `"10.0"`, `{"numeric":"10.0000000000"}`},
		{"numeric fraction", num("0.0000190259"), `"0.0000190259"`, `"0.0000190259"`, `"0.0000190259"`, `{"numeric":"0.0000190259"}`},
		{"numeric 1e-6", num("0.000001"), `"0.0000010000"`, `"0.0000010000"`, `"0.000001"`, `{"numeric":"0.0000010000"}`},
		{"numeric 1e-7", num("0.0000001"), `"0.0000001000"`, `"1.000E-7"`, `"0.0000001"`, `{"numeric":"0.0000001000"}`},
		{"numeric -1e-10", num("-0.0000000001"), `"-0.0000000001"`, `"-1E-10"`, `"-0.0000000001"`, `{"numeric":"-0.0000000001"}`},
		{"numeric zero", num("0"), `"0.0000000000"`, `"0E-10"`, `"0.0"`, `{"numeric":"0.0000000000"}`},
		{"numeric negative", num("-2.5"), `"-2.5000000000"`, `"-2.5000000000"`, `"-2.5"`, `{"numeric":"-2.5000000000"}`},
		{"timestamp whole", mustTS(t, "1970-01-01T00:00:00Z"), `"1970-01-01T00:00:00Z"`, `"1970-01-01T00:00:00Z"`, `"1970-01-01T00:00:00Z"`, `{"timestamp":"0"}`},
		{"timestamp millis", mustTS(t, "2025-01-27T15:30:37.290Z"), `"2025-01-27T15:30:37.29Z"`, `"2025-01-27T15:30:37.290Z"`, `"2025-01-27T15:30:37.290Z"`, `{"timestamp":"1737991837290000"}`},
		{"timestamp micros", mustTS(t, "2025-01-27T15:30:37.291800Z"), `"2025-01-27T15:30:37.2918Z"`, `"2025-01-27T15:30:37.291800Z"`, `"2025-01-27T15:30:37.291800Z"`, `{"timestamp":"1737991837291800"}`},
		{"timestamp 10us", Timestamp(10), `"1970-01-01T00:00:00.00001Z"`, `"1970-01-01T00:00:00.000010Z"`, `"1970-01-01T00:00:00.000010Z"`, `{"timestamp":"10"}`},
		{"date", mustDate(t, "2025-06-18"), `"2025-06-18"`, `"2025-06-18"`, `"2025-06-18"`, `{"date":20257}`},
		{"date before epoch", mustDate(t, "0001-01-01"), `"0001-01-01"`, `"0001-01-01"`, `"0001-01-01"`, `{"date":-719162}`},
		{"bool", Bool(false), `false`, `false`, `false`, `{"bool":false}`},
		{"unit", Unit{}, `{}`, `{}`, `{}`, `{"unit":{}}`},
		{"text", Text(""), `""`, `""`, `""`, `{"text":""}`},
		{"party", Party("p"), `"p"`, `"p"`, `"p"`, `{"party":"p"}`},
		{"contract id", ContractID("c"), `"c"`, `"c"`, `"c"`, `{"contractId":"c"}`},
		{"none", none(), `null`, `null`, `null`, `{"optional":{}}`},
		{"some", Some(Int64(1)), `"1"`, `"1"`, `"1"`, `{"optional":{"value":{"int64":"1"}}}`},
		{"some none", Some(none()), `[]`, `[]`, `[]`, `{"optional":{"value":{"optional":{}}}}`},
		{"some some", Some(Some(Int64(1))), `["1"]`, `["1"]`, `["1"]`, `{"optional":{"value":{"optional":{"value":{"int64":"1"}}}}}`},
		{"some some none", Some(Some(none())), `[[]]`, `[[]]`, `[[]]`, `{"optional":{"value":{"optional":{"value":{"optional":{}}}}}}`},
		{"list", List{}, `[]`, `[]`, `[]`, `{"list":{}}`},
		{"list of one", List{Text("a")}, `["a"]`, `["a"]`, `["a"]`, `{"list":{"elements":[{"text":"a"}]}}`},
		{"textmap", TextMap{{Key: "", Value: Bool(true)}}, `{"":true}`, `{"":true}`, `{"":true}`, `{"textMap":{"entries":[{"value":{"bool":true}}]}}`},
		{"textmap empty", TextMap{}, `{}`, `{}`, `{}`, `{"textMap":{}}`},
		{"genmap", GenMap{{Key: Int64(1), Value: Text("a")}}, `[["1","a"]]`, `[["1","a"]]`, `[["1","a"]]`, `{"genMap":{"entries":[{"key":{"int64":"1"},"value":{"text":"a"}}]}}`},
		{"genmap empty", GenMap{}, `[]`, `[]`, `[]`, `{"genMap":{}}`},
		{"variant", variant(shapeType, "Dot", Unit{}), `{"tag":"Dot","value":{}}`, `{"tag":"Dot","value":{}}`, `{"tag":"Dot","value":{}}`,
			`{"variant":{"variantId":{"packageId":"` + amuletPkg + `","moduleName":"Test.Kinds","entityName":"Shape"},"constructor":"Dot","value":{"unit":{}}}}`},
		{"variant without id", &Variant{Constructor: "C", Value: Int64(1)}, `{"tag":"C","value":"1"}`, `{"tag":"C","value":"1"}`, `{"tag":"C","value":"1"}`, `{"variant":{"constructor":"C","value":{"int64":"1"}}}`},
		{"enum", &Enum{Constructor: "Red"}, `"Red"`, `"Red"`, `"Red"`, `{"enum":{"constructor":"Red"}}`},
		{"enum with id", &Enum{ID: &Identifier{PackageID: "p", ModuleName: "M", EntityName: "E"}, Constructor: "Red"}, `"Red"`, `"Red"`, `"Red"`,
			`{"enum":{"enumId":{"packageId":"p","moduleName":"M","entityName":"E"},"constructor":"Red"}}`},
		{"trailing none", rec(trailing, Int64(1), none(), none()), `{"a":"1"}`, `{"a":"1","b":null,"c":null}`, `{"a":"1","b":null,"c":null}`,
			`{"record":{"recordId":{"packageId":"` + amuletPkg + `","moduleName":"M","entityName":"R"},"fields":[{"label":"a","value":{"int64":"1"}},{"label":"b","value":{"optional":{}}},{"label":"c","value":{"optional":{}}}]}}`},
		{"trailing none after some", rec(trailing, Int64(1), none(), Some(Int64(3))), `{"a":"1","b":null,"c":"3"}`, `{"a":"1","b":null,"c":"3"}`, `{"a":"1","b":null,"c":"3"}`,
			`{"record":{"recordId":{"packageId":"` + amuletPkg + `","moduleName":"M","entityName":"R"},"fields":[{"label":"a","value":{"int64":"1"}},{"label":"b","value":{"optional":{}}},{"label":"c","value":{"optional":{"value":{"int64":"3"}}}}]}}`},
		{"empty record", &Record{}, `{}`, `{}`, `{}`, `{"record":{}}`},
		{"unlabelled record", &Record{Fields: []Field{{Value: Int64(1)}, {Value: none()}}}, `["1"]`, `["1",null]`, `["1",null]`,
			`{"record":{"fields":[{"value":{"int64":"1"}},{"value":{"optional":{}}}]}}`},
		{"escapes", Text("\"\\\n\r\t\b\f\u0001\u007f<>&\u2028é"), `"\"\\\n\r\t\b\f\u0001` + "\u007f<>&\u2028é" + `"`,
			`"\"\\\n\r\t\b\f\u0001` + "\u007f<>&\u2028é" + `"`, `"\"\\\n\r\t\b\f\u0001` + "\u007f<>&\u2028é" + `"`,
			`{"text":"\"\\\n\r\t\b\f\u0001` + "\u007f<>&\u2028é" + `"}`},
	}
	_ = ooInt
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for i, want := range []string{tc.ledger, tc.compact, tc.payload, tc.protobuf} {
				c := allCodecs[i]
				got, err := c.Encode(tc.val)
				if err != nil {
					t.Errorf("%s: %v", c.Name(), err)
					continue
				}
				if string(got) != want {
					t.Errorf("%s:\n got %s\nwant %s", c.Name(), got, want)
				}
			}
		})
	}
}

func TestAppendEncodeKeepsPrefix(t *testing.T) {
	t.Parallel()
	for _, c := range allCodecs {
		got, err := c.AppendEncode([]byte(`{"payload":`), amuletValue())
		if err != nil {
			t.Fatal(err)
		}
		want, _ := c.Encode(amuletValue())
		if string(got) != `{"payload":`+string(want) {
			t.Errorf("%s: AppendEncode = %s", c.Name(), got)
		}
		// A failed encode leaves dst as it was.
		prefix := []byte("abc")
		out, err := c.AppendEncode(prefix, List{Int64(1), nil})
		if err == nil || string(out) != "abc" {
			t.Errorf("%s: failed AppendEncode = %q, %v", c.Name(), out, err)
		}
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	payloads := []struct {
		name string
		val  Value
	}{
		{"amulet", amuletValue()},
		{"every_kind", everyValue(t)},
	}
	for _, p := range payloads {
		for _, c := range allCodecs {
			t.Run(p.name+"/"+c.Name(), func(t *testing.T) {
				t.Parallel()
				got, err := c.Encode(p.val)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, '\n')
				path := filepath.Join("testdata", p.name+"."+c.Name()+".json")
				if *update {
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the golden file:\n got %s\nwant %s", path, got, want)
				}
			})
		}
	}
}

func TestCodecByName(t *testing.T) {
	t.Parallel()
	for _, c := range allCodecs {
		got, ok := CodecByName(c.Name())
		if !ok || got != c {
			t.Errorf("CodecByName(%q) = %v, %v", c.Name(), got, ok)
		}
	}
	if _, ok := CodecByName("xml"); ok {
		t.Error("CodecByName(xml) found a codec")
	}
}

// TestDecodeLenient checks inputs the decoders accept beyond what the
// encoders write, as the upstream decoders do.
func TestDecodeLenient(t *testing.T) {
	t.Parallel()
	r := tRecord("M", "R", fld("a", tInt64), fld("b", tOpt(tText)))
	tests := []struct {
		name string
		typ  *Type
		in   string
		want Value
	}{
		{"int64 as number", tInt64, `42`, Int64(42)},
		{"int64 with plus", tInt64, `"+42"`, Int64(42)},
		{"int64 leading zeros", tInt64, `"007"`, Int64(7)},
		{"numeric as number", tNumeric, `1.5`, num("1.5")},
		{"numeric exponent", tNumeric, `"1E-10"`, num("0.0000000001")},
		{"numeric java zero", tNumeric, `"0E-10"`, num("0")},
		{"numeric number exponent", tNumeric, `25e-1`, num("2.5")},
		{"numeric few decimals", tNumeric, `"3"`, num("3")},
		{"numeric trailing zeros beyond scale", tNumeric, `"1.500000000000"`, num("1.5")},
		{"numeric point forms", tNumeric, `".5"`, num("0.5")},
		{"timestamp offset", tTimestamp, `"2025-01-27T16:30:37.291866+01:00"`, mustTS(t, "2025-01-27T15:30:37.291866Z")},
		{"timestamp no seconds", tTimestamp, `"2025-01-27T15:30Z"`, mustTS(t, "2025-01-27T15:30:00Z")},
		{"timestamp nanos truncated", tTimestamp, `"1970-01-01T00:00:00.000001999Z"`, Timestamp(1)},
		{"timestamp lower case", tTimestamp, `"1970-01-01t00:00:00z"`, Timestamp(0)},
		{"record as array", r, `["1", "x"]`, rec(r, Int64(1), Some(Text("x")))},
		{"record as short array", r, `["1"]`, rec(r, Int64(1), none())},
		{"record missing optional", r, `{"a":"1"}`, rec(r, Int64(1), none())},
		{"record fields reordered", r, `{"b":"x","a":"1"}`, rec(r, Int64(1), Some(Text("x")))},
		{"record unknown null field", r, `{"a":"1","z":null}`, rec(r, Int64(1), none())},
		{"unit with content", tUnit, `{"x":1}`, Unit{}},
		{"textmap sorted", tTextMap(tInt64), `{"b":"2","a":"1"}`, TextMap{{Key: "a", Value: Int64(1)}, {Key: "b", Value: Int64(2)}}},
		{"nested optional [null]", tOpt(tOpt(tInt64)), `[null]`, Some(none())},
		{"whitespace", tList(tInt64), " [ \"1\" ,\n\t2 ] ", List{Int64(1), Int64(2)}},
		{"escaped text", tText, `"\u00e9\ud83d\ude00\/"`, Text("é😀/")},
		{"enum without constructor list", &Type{Kind: KindEnum}, `"Anything"`, &Enum{Constructor: "Anything"}},
	}
	for _, tc := range tests {
		for _, c := range jsonCodecs {
			t.Run(c.Name()+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				got, err := c.Decode([]byte(tc.in), tc.typ)
				if err != nil {
					t.Fatal(err)
				}
				if !Equal(got, tc.want) {
					t.Fatalf("got %s, want %s", show(got), show(tc.want))
				}
			})
		}
	}
}

func TestProtobufDecodeLenient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Value
	}{
		{"snake case", `{"contract_id":"c"}`, ContractID("c")},
		{"int64 as number", `{"int64":5}`, Int64(5)},
		{"timestamp as number", `{"timestamp":10}`, Timestamp(10)},
		{"date as string", `{"date":"3"}`, Date(3)},
		{"null cases ignored", `{"text":null,"party":"p"}`, Party("p")},
		{"snake record", `{"record":{"record_id":{"package_id":"p","module_name":"M","entity_name":"E"},"fields":[{"label":"a","value":{"text_map":{}}}]}}`,
			&Record{ID: &Identifier{PackageID: "p", ModuleName: "M", EntityName: "E"}, Fields: []Field{{Label: "a", Value: TextMap{}}}}},
		{"null repeated", `{"list":{"elements":null}}`, List{}},
		{"null optional value", `{"optional":{"value":null}}`, none()},
		{"empty identifier", `{"record":{"recordId":{}}}`, &Record{ID: &Identifier{}}},
		{"textmap entry without key", `{"textMap":{"entries":[{"value":{"unit":{}}}]}}`, TextMap{{Key: "", Value: Unit{}}}},
		{"enum without constructor", `{"enum":{}}`, &Enum{}},
		{"numeric short", `{"numeric":"1.5"}`, num("1.5")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ProtobufJSON.Decode([]byte(tc.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(got, tc.want) {
				t.Fatalf("got %s, want %s", show(got), show(tc.want))
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	r := tRecord("M", "R", fld("a", tInt64), fld("b", tOpt(tText)))
	nested := tRecord("M", "Outer", fld("inner", tList(r)))
	deep := tList(nil)
	{
		d := deep
		for i := 0; i < MaxNesting+1; i++ {
			d.Elem = tList(nil)
			d = d.Elem
		}
		d.Elem = tInt64
	}
	tests := []struct {
		name     string
		codec    Codec
		typ      *Type
		in       string
		wantPath string
		wantMsg  string
	}{
		{"empty input", LedgerJSON, tInt64, ``, "$", "unexpected end of input"},
		{"garbage", LedgerJSON, tInt64, `nope`, "$", "invalid literal"},
		{"trailing data", LedgerJSON, tInt64, `"1" "2"`, "$", "unexpected data after"},
		{"no type", LedgerJSON, nil, `"1"`, "$", "no type given"},
		{"dynamic type", CompactJSON, &Type{}, `"1"`, "$", "dynamic type"},
		{"int64 overflow", LedgerJSON, tInt64, `"9223372036854775808"`, "$", "invalid Int64"},
		{"int64 fraction", LedgerJSON, tInt64, `1.5`, "$", "invalid Int64"},
		{"int64 exponent", LedgerJSON, tInt64, `1e3`, "$", "invalid Int64"},
		{"int64 text", LedgerJSON, tInt64, `"12a"`, "$", "invalid Int64"},
		{"int64 bool", LedgerJSON, tInt64, `true`, "$", "expected a string or a number for Int64, got a boolean"},
		{"numeric 11 decimals", LedgerJSON, tNumeric, `"1.00000000001"`, "$", "more than 10 decimal places"},
		{"numeric 29 digits", LedgerJSON, tNumeric, `"10000000000000000000000000000"`, "$", "out of range"},
		{"numeric 29 digit number", CompactJSON, tNumeric, `10000000000000000000000000000.5`, "$", "out of range"},
		{"numeric huge exponent", LedgerJSON, tNumeric, `"1e999999"`, "$", "out of range"},
		{"numeric tiny exponent", LedgerJSON, tNumeric, `"1e-999999"`, "$", "exponent out of range"},
		{"numeric small exponent", LedgerJSON, tNumeric, `"1e-300"`, "$", "more than 10 decimal places"},
		{"numeric nan", LedgerJSON, tNumeric, `"NaN"`, "$", "not a decimal number"},
		{"numeric infinity", LedgerJSON, tNumeric, `"Infinity"`, "$", "not a decimal number"},
		{"numeric empty", LedgerJSON, tNumeric, `""`, "$", "empty string"},
		{"numeric spaces", LedgerJSON, tNumeric, `" 1"`, "$", "not a decimal number"},
		{"numeric hex", LedgerJSON, tNumeric, `"0x10"`, "$", "not a decimal number"},
		{"text number", LedgerJSON, tText, `1`, "$", "expected a string for Text, got a number"},
		{"text invalid utf8", LedgerJSON, tText, "\"\xff\"", "$", "invalid UTF-8"},
		{"text lone surrogate", LedgerJSON, tText, `"\ud800"`, "$", "unpaired surrogate"},
		{"text reversed surrogates", LedgerJSON, tText, `"\udc00\ud800"`, "$", "unpaired surrogate"},
		{"text control char", LedgerJSON, tText, "\"a\nb\"", "$", "control character"},
		{"text bad escape", LedgerJSON, tText, `"\x"`, "$", "invalid escape"},
		{"party null", LedgerJSON, tParty, `null`, "$", "expected a string for Party, got null"},
		{"timestamp garbage", LedgerJSON, tTimestamp, `"yesterday"`, "$", "invalid timestamp"},
		{"timestamp without offset", LedgerJSON, tTimestamp, `"2025-01-27T15:30:37"`, "$", "invalid timestamp"},
		{"timestamp bad day", LedgerJSON, tTimestamp, `"2025-02-30T00:00:00Z"`, "$", "invalid timestamp"},
		{"timestamp hour 24", LedgerJSON, tTimestamp, `"2025-01-27T24:00:00Z"`, "$", "invalid timestamp"},
		{"timestamp leap second", LedgerJSON, tTimestamp, `"2016-12-31T23:59:60Z"`, "$", "invalid timestamp"},
		{"timestamp year 0", LedgerJSON, tTimestamp, `"0000-12-31T23:59:59Z"`, "$", "invalid timestamp"},
		{"timestamp before min by offset", LedgerJSON, tTimestamp, `"0001-01-01T00:00:00+01:00"`, "$", "outside Daml's range"},
		{"timestamp 10 fraction digits", LedgerJSON, tTimestamp, `"2025-01-27T15:30:37.1234567890Z"`, "$", "invalid timestamp"},
		{"timestamp number", LedgerJSON, tTimestamp, `0`, "$", "expected an ISO-8601 string"},
		{"date bad", LedgerJSON, tDate, `"2025-13-01"`, "$", "invalid date"},
		{"date non leap", LedgerJSON, tDate, `"2023-02-29"`, "$", "invalid date"},
		{"date with time", LedgerJSON, tDate, `"2025-01-01T00:00:00Z"`, "$", "invalid date"},
		{"bool string", LedgerJSON, tBool, `"true"`, "$", "expected true or false"},
		{"unit array", LedgerJSON, tUnit, `[]`, "$", "expected {} for Unit"},
		{"enum unknown", LedgerJSON, colorType, `"Purple"`, "$", `unknown constructor "Purple" of Enum Test.Kinds:Color`},
		{"enum number", LedgerJSON, colorType, `1`, "$", "expected a constructor name"},
		{"variant unknown tag", LedgerJSON, shapeType, `{"tag":"Hexagon","value":{}}`, "$.tag", `unknown constructor "Hexagon"`},
		{"variant missing value", LedgerJSON, shapeType, `{"tag":"Dot"}`, "$", `needs a "value"`},
		{"variant missing tag", LedgerJSON, shapeType, `{"value":{}}`, "$", `needs a string "tag"`},
		{"variant extra key", LedgerJSON, shapeType, `{"tag":"Dot","value":{},"x":1}`, "$.x", "unexpected key"},
		{"variant bad value", CompactJSON, shapeType, `{"tag":"Square","value":{"side":"x"}}`, "$.value.side", "invalid Int64"},
		{"record missing field", LedgerJSON, r, `{"b":"x"}`, "$", `missing field "a"`},
		{"record unknown field", LedgerJSON, r, `{"a":"1","z":"x"}`, "$.z", "unknown field"},
		{"record duplicate field", LedgerJSON, r, `{"a":"1","a":"2"}`, "$", `duplicate key "a"`},
		{"record long array", LedgerJSON, r, `["1",null,3]`, "$", "has 2 fields, got an array of 3"},
		{"record short array", LedgerJSON, r, `[]`, "$", `missing field "a"`},
		{"record string", LedgerJSON, r, `"r"`, "$", "expected an object for Record M:R"},
		{"nested path", LedgerJSON, nested, `{"inner":[{"a":"1"},{"a":"x"}]}`, "$.inner[1].a", "invalid Int64"},
		{"odd key path", LedgerJSON, tTextMap(tInt64), `{"a b":"x"}`, `$["a b"]`, "invalid Int64"},
		{"textmap duplicate key", LedgerJSON, tTextMap(tInt64), `{"k":"1","k":"2"}`, "$", `duplicate key "k"`},
		{"textmap many duplicate keys", LedgerJSON, tTextMap(tInt64), `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1,"a":1}`, "$", `duplicate key "a"`},
		{"genmap duplicate key", LedgerJSON, tGenMap(keyType, tInt64), `[[{"owner":"p","n":"1"},"1"],[{"owner":"p","n":1},"2"]]`, "$[1][0]", "duplicate map key"},
		{"genmap not pairs", LedgerJSON, tGenMap(tInt64, tInt64), `[["1"]]`, "$[0]", "expected a [key, value] pair"},
		{"genmap object", LedgerJSON, tGenMap(tInt64, tInt64), `{}`, "$", "expected an array of [key, value] pairs"},
		{"list element", LedgerJSON, tList(tInt64), `["1",true]`, "$[1]", "expected a string or a number"},
		{"nested optional null inside", LedgerJSON, tOpt(tOpt(tInt64)), `[[]]`, "$[0]", "expected a string or a number"},
		{"nested optional too long", LedgerJSON, tOpt(tOpt(tInt64)), `["1","2"]`, "$", "expected [] or [value]"},
		{"nested optional plain", LedgerJSON, tOpt(tOpt(tInt64)), `"1"`, "$", "expected [] or [value]"},
		{"too deep", LedgerJSON, deep, strings.Repeat("[", MaxNesting+2) + strings.Repeat("]", MaxNesting+2), "$" + strings.Repeat("[0]", MaxNesting), "nests deeper"},
		{"json too deep", LedgerJSON, tInt64, strings.Repeat("[", 10000), "$", "nesting too deep"},
		{"invalid type", LedgerJSON, tOpt(nil), `1`, "$", "invalid type"},
		{"invalid record type", LedgerJSON, tRecord("M", "R", fld("a", nil)), `{}`, "$", "has no type"},

		{"proto not object", ProtobufJSON, nil, `[]`, "$", "expected an object (Value)"},
		{"proto no case", ProtobufJSON, nil, `{}`, "$", "needs exactly one of"},
		{"proto two cases", ProtobufJSON, nil, `{"text":"a","party":"b"}`, "$.party", "more than one case"},
		{"proto same case twice", ProtobufJSON, nil, `{"contractId":"a","contract_id":"b"}`, "$.contract_id", "more than one case"},
		{"proto unknown case", ProtobufJSON, nil, `{"decimal":"1"}`, "$.decimal", "unknown field of Value"},
		{"proto int64 float", ProtobufJSON, nil, `{"int64":"1.5"}`, "$.int64", "invalid 64-bit integer"},
		{"proto date overflow", ProtobufJSON, nil, `{"date":2147483648}`, "$.date", "invalid 32-bit integer"},
		{"proto date range", ProtobufJSON, nil, `{"date":2932897}`, "$.date", "outside Daml's range"},
		{"proto timestamp range", ProtobufJSON, nil, `{"timestamp":"253402300800000000"}`, "$.timestamp", "outside Daml's range"},
		{"proto numeric number", ProtobufJSON, nil, `{"numeric":1}`, "$.numeric", "expected a string"},
		{"proto numeric scale", ProtobufJSON, nil, `{"numeric":"0.00000000001"}`, "$.numeric", "more than 10 decimal places"},
		{"proto unit content", ProtobufJSON, nil, `{"unit":{"x":1}}`, "$.unit", "expected {}"},
		{"proto record field without value", ProtobufJSON, nil, `{"record":{"fields":[{"label":"a"}]}}`, "$.record.fields[0]", "needs a value"},
		{"proto record unknown key", ProtobufJSON, nil, `{"record":{"fieldz":[]}}`, "$.record.fieldz", "unknown field of Record"},
		{"proto record bad label", ProtobufJSON, nil, `{"record":{"fields":[{"label":1,"value":{"unit":{}}}]}}`, "$.record.fields[0].label", "expected a string"},
		{"proto variant without value", ProtobufJSON, nil, `{"variant":{"constructor":"C"}}`, "$.variant", "needs a value"},
		{"proto bad identifier", ProtobufJSON, nil, `{"enum":{"enumId":{"packageId":1}}}`, "$.enum.enumId.packageId", "expected a string"},
		{"proto genmap dup", ProtobufJSON, nil, `{"genMap":{"entries":[{"key":{"int64":"1"},"value":{"unit":{}}},{"key":{"int64":1},"value":{"unit":{}}}]}}`, "$.genMap.entries[1].key", "duplicate map key"},
		{"proto genmap no key", ProtobufJSON, nil, `{"genMap":{"entries":[{"value":{"unit":{}}}]}}`, "$.genMap.entries[0]", "needs a key"},
		{"proto textmap dup", ProtobufJSON, nil, `{"textMap":{"entries":[{"key":"k","value":{"unit":{}}},{"key":"k","value":{"unit":{}}}]}}`, "$.textMap.entries[1]", "duplicate map key"},
		{"proto textmap dup empty", ProtobufJSON, nil, `{"textMap":{"entries":[{"value":{"unit":{}}},{"key":"","value":{"unit":{}}}]}}`, "$.textMap.entries[1]", "duplicate map key"},
		{"proto list not array", ProtobufJSON, nil, `{"list":{"elements":{}}}`, "$.list.elements", "expected an array"},
		{"proto nested path", ProtobufJSON, nil, `{"list":{"elements":[{"unit":{}},{"bool":1}]}}`, "$.list.elements[1].bool", "expected true or false"},
		{"proto type check", ProtobufJSON, amuletType, `{"record":{"fields":[{"label":"dso","value":{"text":"x"}}]}}`, "$.dso", "expected Party, got Text"},
		{"proto type check missing", ProtobufJSON, amuletType, `{"record":{"fields":[{"label":"dso","value":{"party":"x"}}]}}`, "$", `missing field "owner"`},
		{"proto type check wrong label", ProtobufJSON, amuletType, `{"record":{"fields":[{"label":"owner","value":{"party":"x"}}]}}`, "$", `field 0 is "owner", want "dso"`},
		{"proto type check wrong record", ProtobufJSON, amuletType, `{"record":{"recordId":{"moduleName":"X","entityName":"Y"}}}`, "$", "is not Record Splice.Amulet:Amulet"},
		{"proto too deep", ProtobufJSON, nil, strings.Repeat(`{"optional":{"value":`, MaxNesting+1) + `{"unit":{}}` + strings.Repeat("}}", MaxNesting+1), "$" + strings.Repeat(".optional.value", MaxNesting) + ".optional", "nests deeper"},
	}
	for _, tc := range tests {
		t.Run(tc.codec.Name()+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := tc.codec.Decode([]byte(tc.in), tc.typ)
			if err == nil {
				t.Fatalf("decoded %s, want an error", show(v))
			}
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if de.Op != "decode" || de.Format != tc.codec.Name() {
				t.Errorf("error %q: Op %q, Format %q", err, de.Op, de.Format)
			}
			if de.Path != tc.wantPath {
				t.Errorf("error %q: path %s, want %s", err, de.Path, tc.wantPath)
			}
			if !strings.Contains(de.Msg, tc.wantMsg) {
				t.Errorf("error %q: message does not contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	deep := Value(Int64(1))
	for i := 0; i < MaxNesting+1; i++ {
		deep = List{deep}
	}
	cyclic := &Record{Fields: []Field{{Label: "self"}}}
	cyclic.Fields[0].Value = cyclic
	tests := []struct {
		name     string
		val      Value
		wantPath string
		wantMsg  string
	}{
		{"nil", nil, "$", "missing value"},
		{"nil in list", List{Int64(1), nil}, "$[1]", "missing value"},
		{"nil record", (*Record)(nil), "$", "nil *Record"},
		{"nil optional", List{(*Optional)(nil)}, "$[0]", "nil *Optional"},
		{"nil variant value", &Variant{Constructor: "C"}, "$.value", "missing value"},
		{"timestamp range", &Record{Fields: []Field{{Label: "t", Value: MaxTimestamp + 1}}}, "$.t", "outside Daml's range"},
		{"date range", TextMap{{Key: "k", Value: MinDate - 1}}, "$.k", "outside Daml's range"},
		{"genmap key", GenMap{{Key: nil, Value: Int64(1)}}, "$[0][0]", "missing value"},
		{"too deep", deep, "$" + strings.Repeat("[0]", MaxNesting), "nests deeper"},
		{"cyclic", cyclic, "$" + strings.Repeat(".self", MaxNesting), "nests deeper"},
	}
	for _, tc := range tests {
		for _, c := range allCodecs {
			t.Run(c.Name()+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				_, err := c.Encode(tc.val)
				var de *Error
				if !errors.As(err, &de) {
					t.Fatalf("error %v, want *Error", err)
				}
				if de.Op != "encode" || !strings.Contains(de.Msg, tc.wantMsg) {
					t.Errorf("error %q, want message containing %q", err, tc.wantMsg)
				}
				wantPath := tc.wantPath
				if c == ProtobufJSON && tc.name == "genmap key" {
					wantPath = "$[0].key"
				}
				if de.Path != wantPath {
					t.Errorf("error %q: path %s, want %s", err, de.Path, wantPath)
				}
			})
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	r := tRecord("M", "R", fld("a", tInt64), fld("b", tOpt(tText)))
	ok := []struct {
		name string
		val  Value
		typ  *Type
	}{
		{"every kind", everyValue(t), everyType},
		{"unlabelled", &Record{Fields: []Field{{Value: Int64(1)}}}, r},
		{"other package", &Record{ID: &Identifier{PackageID: "other", ModuleName: "M", EntityName: "R"}, Fields: []Field{{Label: "a", Value: Int64(1)}}}, r},
		{"dynamic", List{Text("x")}, &Type{}},
	}
	for _, tc := range ok {
		if err := Validate(tc.val, tc.typ); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	bad := []struct {
		name, path, msg string
		val             Value
		typ             *Type
	}{
		{"kind", "$", "expected Int64, got Text", Text("x"), tInt64},
		{"nil", "$", "missing value", nil, tInt64},
		{"extra field", "$", "record has 3 fields", &Record{Fields: []Field{{Value: Int64(1)}, {Value: none()}, {Value: none()}}}, r},
		{"textmap dup", "$.k", "duplicate map key", TextMap{{Key: "k", Value: Int64(1)}, {Key: "k", Value: Int64(2)}}, tTextMap(tInt64)},
		{"genmap dup", "$[1][0]", "duplicate map key", GenMap{{Key: Int64(1), Value: Unit{}}, {Key: Int64(1), Value: Unit{}}}, tGenMap(tInt64, tUnit)},
		{"enum", "$", "unknown constructor", enum(colorType, "Pink"), colorType},
		{"variant", "$", "unknown constructor", variant(shapeType, "Oval", Unit{}), shapeType},
		{"variant arg", "$.Dot", "expected Unit", variant(shapeType, "Dot", Int64(1)), shapeType},
		{"date", "$[0]", "outside", List{MaxDate + 1}, tList(tDate)},
	}
	for _, tc := range bad {
		err := Validate(tc.val, tc.typ)
		var de *Error
		if !errors.As(err, &de) || de.Path != tc.path || !strings.Contains(de.Msg, tc.msg) {
			t.Errorf("%s: Validate = %v, want %s: ...%s", tc.name, err, tc.path, tc.msg)
		}
	}
}

func TestEqual(t *testing.T) {
	t.Parallel()
	a := everyValue(t)
	if !Equal(a, everyValue(t)) {
		t.Fatal("every kind value not equal to itself")
	}
	if Equal(num("1"), Int64(1)) || Equal(Text("a"), Party("a")) || Equal(nil, Unit{}) {
		t.Fatal("values of different kinds are equal")
	}
	if !Equal(Numeric{}, num("0")) {
		t.Fatal("zero Numerics differ")
	}
	b := everyValue(t)
	b.Fields[3].Value = num("1")
	if Equal(a, b) {
		t.Fatal("records with different fields are equal")
	}
	if Equal(&Record{ID: &Identifier{EntityName: "x"}}, &Record{}) {
		t.Fatal("records with different ids are equal")
	}
}

func TestTypeString(t *testing.T) {
	t.Parallel()
	tree := &Type{Kind: KindVariant}
	tree.Fields = []FieldType{{Label: "Leaf", Type: tUnit}, {Label: "Node", Type: tList(tree)}}
	tests := map[string]*Type{
		"Int64":                               tInt64,
		"Optional(List(Numeric))":             tOpt(tList(tNumeric)),
		"GenMap(Record Test.Kinds:Key, Time)": tGenMap(keyType, tTimestamp),
		"Variant{Leaf, Node}":                 tree,
		"Enum{A | B}":                         {Kind: KindEnum, Constructors: []string{"A", "B"}},
		"Dynamic":                             {},
		"<nil type>":                          nil,
	}
	for want, typ := range tests {
		if got := typ.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
