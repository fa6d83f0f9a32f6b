package ledgerapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// slowParseJSON is parseJSON's encoding/json decoding alone.
func slowParseJSON(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

var fastJSONSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0.5e+10`, `1E3`, `"a"`, `""`,
	`{"a":1,"a":2}`, `{"a":[1,{"b":null}],"c":"\u00e9\n\"x\\"}`, `"\ud83d\ude00"`, `"\ud83d"`,
	" \t\r\n{ \"k\" : [ ] } \n", `{"k":"é"}`, "{\"k\":\"\xff\"}", "\"a\x01\"", `01`, `-`, `1.`, `1e`,
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `tru`, `nul`, `{"a":1}x`, `{"a":1}{}`, `[`, `"abc`,
	`"\x"`, `"\u12"`, `{"preparedTransaction":"QUJD+/==","partySignatures":{"signatures":[]}}`,
	strings.Repeat("[", 600) + strings.Repeat("]", 600), "\ufeff{}",
}

// TestFastParseJSON checks that the fast parser agrees with encoding/json
// whenever it answers, and answers the common cases.
func TestFastParseJSON(t *testing.T) {
	t.Parallel()
	for _, in := range fastJSONSeeds {
		t.Run(in[:min(len(in), 20)], func(t *testing.T) {
			t.Parallel()
			checkFastJSON(t, []byte(in))
		})
	}
	for _, in := range []string{`{"a":[1,{"b":null}],"c":"\u00e9\n\"x\\"}`, `{"k":"é"}`, `-0.5e+10`, `{"a":1,"a":2}`} {
		if _, ok := fastParseJSON([]byte(in)); !ok {
			t.Errorf("fastParseJSON(%s) gave up", in)
		}
	}
}

func checkFastJSON(t *testing.T, in []byte) {
	got, ok := fastParseJSON(in)
	want, err := slowParseJSON(in)
	if !ok {
		return // encoding/json decides
	}
	if err != nil {
		t.Fatalf("fastParseJSON(%q) = %#v, encoding/json fails: %v", in, got, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fastParseJSON(%q) = %#v, encoding/json %#v", in, got, want)
	}
}

// FuzzFastParseJSON compares the fast parser with encoding/json.
func FuzzFastParseJSON(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFastJSON)
}

// TestReadAll reads bodies shorter, as long as and longer than announced.
func TestReadAll(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		cl   int64
	}{{"", 0}, {"abc", 3}, {"abc", 1}, {"abcdef", 10}, {strings.Repeat("x", 10000), 10000}, {"abc", -1}} {
		got, err := readAllInto(nil, iotest.OneByteReader(strings.NewReader(tc.body)), tc.cl)
		if err != nil || string(got) != tc.body {
			t.Errorf("readAllInto(%d bytes, %d) = %d bytes, %v", len(tc.body), tc.cl, len(got), err)
		}
	}
}

// TestMarshalPrepared checks that the prepare answer built by hand is
// byte for byte what writeJSON writes.
func TestMarshalPrepared(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prepared, hash []byte
		cost           *CostEstimation
	}{
		{nil, nil, nil},
		{[]byte("\x00\xff\x10 some bytes"), []byte{1, 2, 3}, &CostEstimation{EstimationTimestamp: "2026-01-02T03:04:05.123456Z"}},
		{bytes.Repeat([]byte{0xfb, 0xef}, 5000), make([]byte, 32), nil},
	} {
		got, err := marshalPrepared(nil, tc.prepared, tc.hash, tc.cost)
		if err != nil {
			t.Fatal(err)
		}
		want, err := marshal(JsPrepareSubmissionResponse{
			PreparedTransaction:     base64.StdEncoding.EncodeToString(tc.prepared),
			PreparedTransactionHash: base64.StdEncoding.EncodeToString(tc.hash),
			HashingSchemeVersion:    hashingV2,
			CostEstimation:          tc.cost,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("marshalPrepared:\n%s\nwant\n%s", got, want)
		}
	}
}
