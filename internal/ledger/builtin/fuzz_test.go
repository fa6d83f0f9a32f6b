package builtin_test

import (
	"errors"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/builtin"
)

// argumentTypes are the types of every built-in template's payload and
// every choice's argument: what the ledger API decodes commands against.
func argumentTypes() []*daml.Type {
	reg := builtin.NewRegistry()
	var out []*daml.Type
	for _, t := range reg.TemplateTypes() {
		out = append(out, t.Payload)
		for _, c := range t.Choices {
			out = append(out, c.Argument)
		}
	}
	for _, i := range reg.InterfaceTypes() {
		for _, c := range i.Choices {
			out = append(out, c.Argument)
		}
	}
	return out
}

// sample builds a small value of type t: every field set, one element
// per collection, the first constructor; recursion stops at depth.
func sample(t *daml.Type, depth int) daml.Value {
	switch t.Kind {
	case daml.KindUnit:
		return daml.Unit{}
	case daml.KindBool:
		return daml.Bool(true)
	case daml.KindInt64:
		return daml.Int64(7)
	case daml.KindNumeric:
		return daml.MustNumeric("1.5")
	case daml.KindText:
		return daml.Text("t")
	case daml.KindParty:
		return daml.Party("alice::1220ab")
	case daml.KindContractID:
		return daml.ContractID("00ab")
	case daml.KindTimestamp:
		return daml.Timestamp(1_700_000_000_000_000)
	case daml.KindDate:
		return daml.Date(19000)
	case daml.KindOptional:
		if depth > 6 {
			return &daml.Optional{}
		}
		return daml.Some(sample(t.Elem, depth+1))
	case daml.KindList:
		if depth > 6 {
			return daml.List{}
		}
		return daml.List{sample(t.Elem, depth+1)}
	case daml.KindTextMap:
		return daml.TextMap{{Key: "k", Value: sample(t.Elem, depth+1)}}
	case daml.KindGenMap:
		return daml.GenMap{{Key: sample(t.Key, depth+1), Value: sample(t.Elem, depth+1)}}
	case daml.KindRecord:
		r := &daml.Record{}
		for _, f := range t.Fields {
			r.Fields = append(r.Fields, daml.Field{Label: f.Label, Value: sample(f.Type, depth+1)})
		}
		return r
	case daml.KindVariant:
		return &daml.Variant{Constructor: t.Fields[0].Label, Value: sample(t.Fields[0].Type, depth+1)}
	case daml.KindEnum:
		if len(t.Constructors) > 0 {
			return &daml.Enum{Constructor: t.Constructors[0]}
		}
		return &daml.Enum{Constructor: "C"}
	}
	return daml.Unit{}
}

// FuzzCommandArgument decodes command arguments against every built-in
// argument type as the ledger API does (daml.LedgerJSONStrict, then
// ledger.ArgumentError): it never panics, every refusal is an
// INVALID_ARGUMENT or COMMAND_PREPROCESSING_FAILED fault, and what it
// accepts is a value of the type.
func FuzzCommandArgument(f *testing.F) {
	types := argumentTypes()
	for i, t := range types {
		enc, err := daml.LedgerJSON.Encode(sample(t, 0))
		if err != nil {
			f.Fatalf("sample of %s: %v", t, err)
		}
		f.Add(enc, uint16(i))
		f.Add([]byte(`{"unexpected":1}`), uint16(i))
		f.Add([]byte(`{}`), uint16(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint16) {
		typ := types[int(which)%len(types)]
		v, err := daml.LedgerJSONStrict.Decode(data, typ)
		if err != nil {
			var de *daml.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is %T, want *daml.Error", err, err)
			}
			fe, ok := fault.As(ledger.ArgumentError(err))
			if !ok || fe.Kind != fault.InvalidArgument || (fe.Code != ledger.CodeInvalidArgument && fe.Code != ledger.CodePreprocessingFailed) {
				t.Fatalf("argument error %v maps to %+v", err, fe)
			}
			return
		}
		if err := daml.Validate(v, typ); err != nil {
			t.Fatalf("accepted %q, which is no %s: %v", data, typ, err)
		}
	})
}

// TestSamplesDecode checks the fuzzer's seeds: a sample of every argument
// type decodes, so the fuzzer starts from valid commands.
func TestSamplesDecode(t *testing.T) {
	t.Parallel()
	types := argumentTypes()
	if len(types) < 50 {
		t.Fatalf("only %d argument types", len(types))
	}
	for _, typ := range types {
		if hasDynamic(typ, map[*daml.Type]bool{}) {
			// A Go field of type daml.Value (DsoRules' vote actions)
			// has no static type: no schema-driven decoder can read it.
			t.Logf("%s holds a value of dynamic type", typ)
			continue
		}
		enc, err := daml.LedgerJSON.Encode(sample(typ, 0))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := daml.LedgerJSONStrict.Decode(enc, typ); err != nil {
			t.Errorf("%s: %v\n%s", typ, err, enc)
		}
	}
}

// hasDynamic reports whether t contains a value of dynamic type.
func hasDynamic(t *daml.Type, seen map[*daml.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind == daml.KindDynamic {
		return true
	}
	for _, f := range t.Fields {
		if hasDynamic(f.Type, seen) {
			return true
		}
	}
	return hasDynamic(t.Elem, seen) || hasDynamic(t.Key, seen)
}
