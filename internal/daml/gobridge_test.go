package daml

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Go mirrors of Splice types, as the rest of sandnet would write them.

type goRound struct {
	Number int64 `daml:"number"`
}

func (goRound) DamlIdentifier() Identifier { return testID("Splice.Types", "Round") }

type goRatePerRound struct {
	Rate Numeric `daml:"rate"`
}

func (goRatePerRound) DamlIdentifier() Identifier { return testID("Splice.Expiry", "RatePerRound") }

type goExpiringAmount struct {
	InitialAmount Numeric        `daml:"initialAmount"`
	CreatedAt     goRound        `daml:"createdAt"`
	RatePerRound  goRatePerRound `daml:"ratePerRound"`
}

func (goExpiringAmount) DamlIdentifier() Identifier {
	return testID("Splice.Expiry", "ExpiringAmount")
}

type goAmulet struct {
	DSO    Party            `daml:"dso"`
	Owner  Party            `daml:"owner"`
	Amount goExpiringAmount `daml:"amount"`
	cache  string           // untagged: skipped
}

// A pointer receiver works too.
func (*goAmulet) DamlIdentifier() Identifier { return testID("Splice.Amulet", "Amulet") }

type goColor string

func (goColor) DamlEnum()                      {}
func (goColor) DamlEnumConstructors() []string { return []string{"Red", "Green", "Blue"} }
func (goColor) DamlIdentifier() Identifier     { return testID("Test.Kinds", "Color") }

type goSquare struct {
	Side int64 `daml:"side"`
}

func (goSquare) DamlIdentifier() Identifier { return testID("Test.Kinds", "Square") }

type goShape struct {
	Circle *Numeric  `daml:"Circle"`
	Square *goSquare `daml:"Square"`
	Dot    *Unit     `daml:"Dot"`
}

func (goShape) DamlVariant()               {}
func (goShape) DamlIdentifier() Identifier { return testID("Test.Kinds", "Shape") }

type goKey struct {
	Owner Party `daml:"owner"`
	N     int64 `daml:"n"`
}

func (goKey) DamlIdentifier() Identifier { return testID("Test.Kinds", "Key") }

type goEmpty struct{}

func (goEmpty) DamlIdentifier() Identifier { return testID("Test.Kinds", "Empty") }

type goEvery struct {
	Unit           Unit                 `daml:"unit"`
	Bool           bool                 `daml:"bool"`
	Int64          int64                `daml:"int64"`
	Numeric        Numeric              `daml:"numeric"`
	Text           string               `daml:"text"`
	Party          Party                `daml:"party"`
	ContractID     ContractID           `daml:"contractId"`
	Timestamp      Timestamp            `daml:"timestamp"`
	Date           Date                 `daml:"date"`
	Color          goColor              `daml:"color"`
	Shape          goShape              `daml:"shape"`
	List           []string             `daml:"list"`
	TextMap        map[string]int64     `daml:"textMap"`
	GenMap         Map[goKey, Numeric]  `daml:"genMap"`
	EmptyRecord    goEmpty              `daml:"emptyRecord"`
	OptSome        *string              `daml:"optSome"`
	OptNone        *string              `daml:"optNone"`
	OptOptNone     **int64              `daml:"optOptNone"`
	OptOptSome     **int64              `daml:"optOptSome"`
	OptOptSomeNone **int64              `daml:"optOptSomeNone"`
	ListOfOpt      []*bool              `daml:"listOfOpt"`
	TrailingNone1  *Party               `daml:"trailingNone1"`
	TrailingNone2  *[]string            `daml:"trailingNone2"`
	Ignored        func()               `daml:"-"`
	Dynamic        map[string]Value     // untagged
	_              struct{ x, y int64 } // blank, untagged
}

func (goEvery) DamlIdentifier() Identifier { return testID("Test.Kinds", "Every") }

func ptr[T any](v T) *T { return &v }

func goEveryValue(t testing.TB) goEvery {
	seven := ptr(int64(7))
	return goEvery{
		Unit:           Unit{},
		Bool:           true,
		Int64:          -9223372036854775808,
		Numeric:        num("-1234567.89"),
		Text:           "héllo \"wörld\"\n\t\u0001 ✓ 😀 </script>",
		Party:          aliceParty,
		ContractID:     "00b7f8a0d3c1f1e2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80912ca111220aa",
		Timestamp:      mustTS(t, "2025-01-27T15:30:37.291866Z"),
		Date:           mustDate(t, "2025-06-18"),
		Color:          "Green",
		Shape:          goShape{Square: &goSquare{Side: 3}},
		List:           []string{"a", "", "c"},
		TextMap:        map[string]int64{"b": -2, "a": 1, "": 0},
		GenMap:         Map[goKey, Numeric]{{Key: goKey{aliceParty, 1}, Value: num("1.5")}, {Key: goKey{dsoParty, 2}, Value: num("0")}},
		OptSome:        ptr("x"),
		OptOptSome:     &seven,
		OptOptSomeNone: new(*int64),
		ListOfOpt:      []*bool{ptr(true), nil, ptr(false)},
	}
}

func TestFromGoMatchesHandBuiltValues(t *testing.T) {
	t.Parallel()
	amulet := goAmulet{
		DSO:   dsoParty,
		Owner: aliceParty,
		Amount: goExpiringAmount{
			InitialAmount: num("2500.5"),
			CreatedAt:     goRound{Number: 12345},
			RatePerRound:  goRatePerRound{Rate: num("0.0000190259")},
		},
	}
	tests := []struct {
		name string
		in   any
		want Value
		typ  *Type
	}{
		{"amulet", amulet, amuletValue(), amuletType},
		{"amulet pointer", &amulet, amuletValue(), amuletType},
		{"every kind", goEveryValue(t), everyValue(t), everyType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := FromGo(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(got, tc.want) {
				t.Fatalf("FromGo\n got %s\nwant %s", show(got), show(tc.want))
			}
			typ, err := TypeOf(reflect.TypeOf(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if reflect.TypeOf(tc.in).Kind() != reflect.Pointer {
				if err := Validate(got, typ); err != nil {
					t.Fatalf("FromGo value does not match TypeOf: %v", err)
				}
				if !sameType(typ, tc.typ, map[[2]*Type]bool{}) {
					t.Fatalf("TypeOf = %s, want %s", typ, tc.typ)
				}
			}
		})
	}
}

// sameType compares types structurally, tolerating cycles.
func sameType(a, b *Type, seen map[[2]*Type]bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	if seen[[2]*Type{a, b}] {
		return true
	}
	seen[[2]*Type{a, b}] = true
	if a.Kind != b.Kind || a.ID != b.ID || len(a.Fields) != len(b.Fields) || !reflect.DeepEqual(a.Constructors, b.Constructors) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Label != b.Fields[i].Label || !sameType(a.Fields[i].Type, b.Fields[i].Type, seen) {
			return false
		}
	}
	return sameType(a.Elem, b.Elem, seen) && sameType(a.Key, b.Key, seen)
}

func TestToGoRoundTrip(t *testing.T) {
	t.Parallel()
	in := goEveryValue(t)
	v, err := FromGo(in)
	if err != nil {
		t.Fatal(err)
	}
	// Through every codec, as sandnet does: encode, decode, back to Go.
	for _, c := range allCodecs {
		enc, err := c.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := c.Decode(enc, everyType)
		if err != nil {
			t.Fatal(err)
		}
		var out goEvery
		if err := ToGo(dec, &out); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		back, err := FromGo(out)
		if err != nil {
			t.Fatal(err)
		}
		if !Equal(back, v) {
			t.Fatalf("%s: Go round trip\n got %s\nwant %s", c.Name(), show(back), show(v))
		}
		if **out.OptOptSome != 7 || *out.OptOptSomeNone != nil || out.OptOptNone != nil || out.TextMap["b"] != -2 {
			t.Fatalf("%s: optionals or maps lost: %+v", c.Name(), out)
		}
	}
}

// A recursive variant: data Tree = Leaf | Node with children : [Tree].
type goTree struct {
	Leaf *Unit       `daml:"Leaf"`
	Node *goTreeNode `daml:"Node"`
}

func (goTree) DamlVariant() {}

type goTreeNode struct {
	Label    string   `daml:"label"`
	Children []goTree `daml:"children"`
	Parent   *goTree  `daml:"parent"`
}

type goDynamic struct {
	Kind    string `daml:"kind"`
	Payload Value  `daml:"payload"`
}

func TestGoRecursiveAndDynamic(t *testing.T) {
	t.Parallel()
	typ, err := TypeOf(reflect.TypeFor[goTree]())
	if err != nil {
		t.Fatal(err)
	}
	node := typ.Fields[1].Type
	if node.Kind != KindRecord || node.Fields[1].Type.Elem != typ || node.Fields[2].Type.Elem != typ {
		t.Fatalf("recursive type not tied: %s", typ)
	}
	tree := goTree{Node: &goTreeNode{Label: "root", Children: []goTree{{Leaf: &Unit{}}, {Node: &goTreeNode{Label: "kid"}}}}}
	v, err := FromGo(tree)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := LedgerJSON.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tag":"Node","value":{"label":"root","children":[{"tag":"Leaf","value":{}},{"tag":"Node","value":{"label":"kid","children":[]}}]}}`
	if string(enc) != want {
		t.Fatalf("got %s\nwant %s", enc, want)
	}
	dec, err := LedgerJSON.Decode(enc, typ)
	if err != nil {
		t.Fatal(err)
	}
	var out goTree
	if err := ToGo(dec, &out); err != nil {
		t.Fatal(err)
	}
	if out.Node == nil || out.Leaf != nil || len(out.Node.Children) != 2 || out.Node.Children[1].Node.Label != "kid" {
		t.Fatalf("ToGo = %+v", out)
	}

	dt, err := TypeOf(reflect.TypeFor[goDynamic]())
	if err != nil {
		t.Fatal(err)
	}
	if dt.Fields[1].Type.Kind != KindDynamic {
		t.Fatalf("Value field has kind %s", dt.Fields[1].Type.Kind)
	}
	dv, err := FromGo(goDynamic{Kind: "amulet", Payload: amuletValue()})
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(dv.(*Record).Fields[1].Value, amuletValue()) {
		t.Fatal("dynamic value not kept")
	}
	// protobuf_json carries it; the schema-driven formats cannot decode it.
	penc, _ := ProtobufJSON.Encode(dv)
	pdec, err := ProtobufJSON.Decode(penc, dt)
	if err != nil {
		t.Fatal(err)
	}
	var dout goDynamic
	if err := ToGo(pdec, &dout); err != nil || !Equal(dout.Payload, amuletValue()) {
		t.Fatalf("ToGo dynamic: %v %s", err, show(dout.Payload))
	}
	lenc, _ := LedgerJSON.Encode(dv)
	if _, err := LedgerJSON.Decode(lenc, dt); err == nil || !strings.Contains(err.Error(), "dynamic") {
		t.Fatalf("LedgerJSON decoded a dynamic field: %v", err)
	}
}

func TestToGoUpgradesAndLabels(t *testing.T) {
	t.Parallel()
	type v1 struct {
		A int64  `daml:"a"`
		B *int64 `daml:"b"`
	}
	// A newer version added an optional field; None is fine.
	newer := &Record{Fields: []Field{{Label: "a", Value: Int64(1)}, {Label: "b", Value: none()}, {Label: "c", Value: none()}}}
	var out v1
	if err := ToGo(newer, &out); err != nil || out.A != 1 || out.B != nil {
		t.Fatalf("ToGo(newer with None) = %+v, %v", out, err)
	}
	newer.Fields[2].Value = Some(Int64(3))
	if err := ToGo(newer, &out); err == nil || !strings.Contains(err.Error(), "$.c") {
		t.Fatalf("ToGo(newer with Some) = %v, want an error at $.c", err)
	}
	// An older version lacks the optional field (LedgerJSON drops it).
	older := &Record{Fields: []Field{{Label: "a", Value: Int64(2)}}}
	out.B = ptr(int64(9))
	if err := ToGo(older, &out); err != nil || out.A != 2 || out.B != nil {
		t.Fatalf("ToGo(older) = %+v, %v", out, err)
	}
	// Unlabelled values (protobuf_json from a non-verbose ledger) match by position.
	unlabelled := &Record{Fields: []Field{{Value: Int64(5)}, {Value: Some(Int64(6))}}}
	if err := ToGo(unlabelled, &out); err != nil || out.A != 5 || *out.B != 6 {
		t.Fatalf("ToGo(unlabelled) = %+v, %v", out, err)
	}
	// Labels in another order.
	reordered := &Record{Fields: []Field{{Label: "b", Value: Some(Int64(8))}, {Label: "a", Value: Int64(7)}}}
	if err := ToGo(reordered, &out); err != nil || out.A != 7 || *out.B != 8 {
		t.Fatalf("ToGo(reordered) = %+v, %v", out, err)
	}
}

type goBadEnum string

func (goBadEnum) DamlEnum() {}
func (goBadEnum) DamlEnumConstructors() []string {
	panic("boom")
}

type goPanicky struct {
	E goBadEnum `daml:"e"`
}

func TestGoErrors(t *testing.T) {
	t.Parallel()
	type unexported struct {
		a int64 `daml:"a"`
	}
	type dupLabels struct {
		A int64 `daml:"x"`
		B int64 `daml:"x"`
	}
	type floaty struct {
		F float64 `daml:"f"`
	}
	type intMap struct {
		M map[int64]string `daml:"m"`
	}
	_ = unexported{}.a
	for name, typ := range map[string]reflect.Type{
		"unexported":   reflect.TypeFor[unexported](),
		"dup labels":   reflect.TypeFor[dupLabels](),
		"float":        reflect.TypeFor[floaty](),
		"int map":      reflect.TypeFor[intMap](),
		"channel":      reflect.TypeFor[chan int](),
		"panicky enum": reflect.TypeFor[goPanicky](),
		"bytes":        reflect.TypeFor[[]byte](),
		"other iface":  reflect.TypeFor[error](),
		"bad variant": reflect.TypeFor[struct {
			V goBadVariant `daml:"v"`
		}](),
	} {
		if _, err := TypeOf(typ); err == nil {
			t.Errorf("%s: TypeOf succeeded", name)
		}
	}

	tests := []struct {
		name, path, msg string
		in              any
	}{
		{"nil", "$", "nil", nil},
		{"nil pointer", "$", "nil pointer", (*goAmulet)(nil)},
		{"enum", "$.color", "unknown constructor", func() goEvery { e := goEveryValue(t); e.Color = "Pink"; return e }()},
		{"variant none", "$.shape", "no constructor set", func() goEvery { e := goEveryValue(t); e.Shape = goShape{}; return e }()},
		{"variant two", "$.shape", "has both", func() goEvery { e := goEveryValue(t); e.Shape.Dot = &Unit{}; return e }()},
		{"nil dynamic", "$.payload", "nil dynamic", goDynamic{}},
	}
	for _, tc := range tests {
		_, err := FromGo(tc.in)
		var de *Error
		if !errors.As(err, &de) || de.Path != tc.path || !strings.Contains(de.Msg, tc.msg) {
			t.Errorf("%s: FromGo error %v, want %s: ...%s", tc.name, err, tc.path, tc.msg)
		}
	}

	var out goAmulet
	toGoTests := []struct {
		name, path, msg string
		v               Value
		out             any
	}{
		{"not pointer", "$", "non-nil pointer", amuletValue(), out},
		{"nil pointer", "$", "non-nil pointer", amuletValue(), (*goAmulet)(nil)},
		{"kind", "$.dso", "cannot store Text", func() Value { a := amuletValue(); a.Fields[0].Value = Text("x"); return a }(), &out},
		{"missing", "$", `missing field "owner"`, &Record{Fields: []Field{{Label: "dso", Value: Party("d")}}}, &out},
		{"wrong record", "$", "is not Record Splice.Amulet:Amulet", &Record{ID: &Identifier{ModuleName: "X", EntityName: "Y"}}, &out},
		{"deep", "$.amount.createdAt.number", "cannot store Numeric", func() Value {
			a := amuletValue()
			a.Fields[2].Value.(*Record).Fields[1].Value.(*Record).Fields[0].Value = num("1")
			return a
		}(), &out},
		{"nil", "$", "missing value", nil, &out},
	}
	for _, tc := range toGoTests {
		err := ToGo(tc.v, tc.out)
		var de *Error
		if !errors.As(err, &de) || de.Path != tc.path || !strings.Contains(de.Msg, tc.msg) {
			t.Errorf("%s: ToGo error %v, want %s: ...%s", tc.name, err, tc.path, tc.msg)
		}
	}
	var every goEvery
	ev := everyValue(t)
	ev.Fields[9].Value = enum(colorType, "Pink")
	if err := ToGo(ev, &every); err == nil || !strings.Contains(err.Error(), "unknown constructor") {
		t.Errorf("ToGo unknown enum: %v", err)
	}
}

type goBadVariant struct {
	A int64 `daml:"A"`
}

func (goBadVariant) DamlVariant() {}

func TestTypeOfConcurrent(t *testing.T) {
	t.Parallel()
	type fresh struct {
		Self []*goTree `daml:"self"`
		M    Map[string, goRound]
		N    Map[goKey, []goKey] `daml:"n"`
	}
	var wg sync.WaitGroup
	types := make([]*Type, 16)
	for i := range types {
		wg.Add(1)
		go func() {
			defer wg.Done()
			typ, err := TypeOf(reflect.TypeFor[fresh]())
			if err != nil {
				t.Error(err)
			}
			types[i] = typ
		}()
	}
	wg.Wait()
	for _, typ := range types[1:] {
		if typ != types[0] {
			t.Fatal("TypeOf is not cached")
		}
	}
	if types[0].Fields[1].Type.Kind != KindGenMap || types[0].Fields[1].Type.Key.ID.EntityName != "Key" {
		t.Fatalf("TypeOf(fresh) = %+v", types[0])
	}
}

func TestMapGet(t *testing.T) {
	t.Parallel()
	m := Map[goKey, int64]{{Key: goKey{"a", 1}, Value: 10}}
	if v, ok := m.Get(goKey{"a", 1}); !ok || v != 10 {
		t.Fatal("Get existing")
	}
	if _, ok := m.Get(goKey{"a", 2}); ok {
		t.Fatal("Get missing")
	}
}
