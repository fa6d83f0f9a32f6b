package daml

import (
	"strconv"
	"strings"
	"testing"
)

// benchPage is a Scan-like page: 100 Amulet payloads.
func benchPage() List {
	page := make(List, 100)
	for i := range page {
		a := amuletValue()
		a.Fields[1].Value = Party("owner" + strconv.Itoa(i) + "::1220" + "34faf8f4af71d107a42441f8bc90cabfd63ab4386fc7f17d15d6e3b01c5bd2ae")
		amount := a.Fields[2].Value.(*Record)
		amount.Fields[0].Value = NumericFromInt(int64(i) * 1000)
		page[i] = a
	}
	return page
}

func benchmarkEncode(b *testing.B, c Codec) {
	page := benchPage()
	buf, err := c.AppendEncode(nil, page)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf, err = c.AppendEncode(buf[:0], page)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompactJSONEncode100(b *testing.B)  { benchmarkEncode(b, CompactJSON) }
func BenchmarkLedgerJSONEncode100(b *testing.B)   { benchmarkEncode(b, LedgerJSON) }
func BenchmarkProtobufJSONEncode100(b *testing.B) { benchmarkEncode(b, ProtobufJSON) }

// BenchmarkProtobufJSONDecode100 measures reading stored values back.
func BenchmarkProtobufJSONDecode100(b *testing.B) {
	enc, err := ProtobufJSON.Encode(benchPage())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ProtobufJSON.Decode(enc, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLedgerJSONDecode100(b *testing.B) {
	enc, err := LedgerJSON.Encode(benchPage())
	if err != nil {
		b.Fatal(err)
	}
	typ := tList(amuletType)
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LedgerJSON.Decode(enc, typ); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLedgerJSONDecodeSmall measures the decoding of a command's
// argument: a record of three short fields.
func BenchmarkLedgerJSONDecodeSmall(b *testing.B) {
	enc := []byte(`{"id":"bench-1","initiator":"alice::1220` + strings.Repeat("a", 64) + `","responder":"bob::1220` + strings.Repeat("b", 64) + `"}`)
	typ := tRecord("Canton.Internal.Ping", "Ping", fld("id", tText), fld("initiator", tParty), fld("responder", tParty))
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LedgerJSONStrict.Decode(enc, typ); err != nil {
			b.Fatal(err)
		}
	}
}
