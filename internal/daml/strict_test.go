package daml

import (
	"errors"
	"slices"
	"testing"
)

func TestDecodeStrict(t *testing.T) {
	t.Parallel()
	inner := tRecord("M", "Inner", fld("x", tInt64), fld("note", tOpt(tText)))
	outer := tRecord("M", "Outer", fld("owner", tParty), fld("amount", tNumeric), fld("inner", inner), fld("memo", tOpt(tText)))
	tests := []struct {
		name   string
		in     string
		kind   ErrorKind
		path   string
		msg    string
		fields []string
		want   Value // when the decode succeeds
	}{
		{name: "complete", in: `{"owner":"p","amount":"1.5","inner":{"x":"2","note":"n"},"memo":"m"}`,
			want: rec(outer, Party("p"), num("1.5"), rec(inner, Int64(2), Some(Text("n"))), Some(Text("m")))},
		{name: "missing optionals are None", in: `{"owner":"p","amount":1,"inner":{"x":2}}`,
			want: rec(outer, Party("p"), num("1"), rec(inner, Int64(2), none()), none())},
		{name: "unknown null field is ignored", in: `{"owner":"p","amount":"1","inner":{"x":"2"},"extra":null}`,
			want: rec(outer, Party("p"), num("1"), rec(inner, Int64(2), none()), none())},
		{name: "record as an array", in: `["p","1",["2"]]`,
			want: rec(outer, Party("p"), num("1"), rec(inner, Int64(2), none()), none())},
		{name: "missing fields", in: `{"inner":{"x":"2"}}`, kind: ErrMissingFields, path: "$",
			msg: "Missing non-optional fields: owner, amount", fields: []string{"owner", "amount"}},
		{name: "missing in an array", in: `["p"]`, kind: ErrMissingFields, path: "$",
			msg: "Missing non-optional fields: amount, inner", fields: []string{"amount", "inner"}},
		{name: "missing nested", in: `{"owner":"p","amount":"1","inner":{"note":"n"}}`, kind: ErrMissingFields, path: "$.inner",
			msg: "Missing non-optional fields: x", fields: []string{"x"}},
		{name: "unexpected fields", in: `{"owner":"p","zeta":1,"amount":"1","inner":{"x":"2"},"alpha":"a"}`, kind: ErrUnexpectedFields, path: "$",
			msg: "Unexpected fields: alpha, zeta", fields: []string{"alpha", "zeta"}},
		{name: "unexpected nested", in: `{"owner":"p","amount":"1","inner":{"x":"2","more":true}}`, kind: ErrUnexpectedFields, path: "$.inner",
			msg: "Unexpected fields: more", fields: []string{"more"}},
		{name: "missing before unexpected", in: `{"more":1}`, kind: ErrMissingFields, path: "$",
			msg: "Missing non-optional fields: owner, amount, inner", fields: []string{"owner", "amount", "inner"}},
		{name: "wrong type", in: `{"owner":1,"amount":"1","inner":{"x":"2"}}`, kind: ErrInvalid, path: "$.owner"},
		{name: "not an object", in: `"p"`, kind: ErrInvalid, path: "$"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := LedgerJSONStrict.Decode([]byte(tc.in), outer)
			if tc.want != nil {
				if err != nil {
					t.Fatal(err)
				}
				if !Equal(v, tc.want) {
					t.Errorf("decoded %s, want %s", show(v), show(tc.want))
				}
				return
			}
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if de.Kind != tc.kind || de.Path != tc.path || (tc.msg != "" && de.Msg != tc.msg) || !slices.Equal(de.Fields, tc.fields) {
				t.Errorf("error %v: kind %v path %s fields %q, want %v %s %q %q", err, de.Kind, de.Path, de.Fields, tc.kind, tc.path, tc.msg, tc.fields)
			}
		})
	}
	// The lenient decoder still refuses an unknown field at the first one,
	// without a kind of its own.
	_, err := LedgerJSON.Decode([]byte(`{"owner":"p","amount":"1","inner":{"x":"2"},"zz":1}`), outer)
	var de *Error
	if !errors.As(err, &de) || de.Kind != ErrInvalid || de.Path != "$.zz" {
		t.Errorf("lenient: %v", err)
	}
}
