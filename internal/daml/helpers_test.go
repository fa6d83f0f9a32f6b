package daml

import (
	"testing"
)

// Type and value builders shared by the tests.

var (
	tUnit      = &Type{Kind: KindUnit}
	tBool      = &Type{Kind: KindBool}
	tInt64     = &Type{Kind: KindInt64}
	tNumeric   = &Type{Kind: KindNumeric}
	tText      = &Type{Kind: KindText}
	tParty     = &Type{Kind: KindParty}
	tContract  = &Type{Kind: KindContractID}
	tTimestamp = &Type{Kind: KindTimestamp}
	tDate      = &Type{Kind: KindDate}
)

func tOpt(e *Type) *Type              { return &Type{Kind: KindOptional, Elem: e} }
func tList(e *Type) *Type             { return &Type{Kind: KindList, Elem: e} }
func tTextMap(e *Type) *Type          { return &Type{Kind: KindTextMap, Elem: e} }
func tGenMap(k, v *Type) *Type        { return &Type{Kind: KindGenMap, Key: k, Elem: v} }
func fld(l string, t *Type) FieldType { return FieldType{Label: l, Type: t} }

func tRecord(module, entity string, fields ...FieldType) *Type {
	return &Type{Kind: KindRecord, ID: testID(module, entity), Fields: fields}
}

func tVariant(module, entity string, ctors ...FieldType) *Type {
	return &Type{Kind: KindVariant, ID: testID(module, entity), Fields: ctors}
}

func tEnum(module, entity string, ctors ...string) *Type {
	return &Type{Kind: KindEnum, ID: testID(module, entity), Constructors: ctors}
}

const amuletPkg = "dbeda50efee6c5e53959638ef5422116723a9a6137fcdd4d2d82544291726a88"

func testID(module, entity string) Identifier {
	if module == "" && entity == "" {
		return Identifier{}
	}
	return Identifier{PackageID: amuletPkg, ModuleName: module, EntityName: entity}
}

// rec builds a record value of type t from field values in order.
func rec(t *Type, values ...Value) *Record {
	r := &Record{ID: idPtr(t.ID), Fields: make([]Field, len(values))}
	for i, v := range values {
		r.Fields[i] = Field{Label: t.Fields[i].Label, Value: v}
	}
	return r
}

func variant(t *Type, ctor string, v Value) *Variant {
	return &Variant{ID: idPtr(t.ID), Constructor: ctor, Value: v}
}

func enum(t *Type, ctor string) *Enum { return &Enum{ID: idPtr(t.ID), Constructor: ctor} }

func none() *Optional { return &Optional{} }

func num(s string) Numeric { return MustNumeric(s) }

func mustTS(t testing.TB, s string) Timestamp {
	t.Helper()
	ts, err := ParseTimestamp(s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func mustDate(t testing.TB, s string) Date {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// show renders a value for failure messages.
func show(v Value) string {
	b, err := ProtobufJSON.Encode(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// The Splice Amulet template: {dso, owner, amount: {initialAmount,
// createdAt: {number}, ratePerRound: {rate}}}.
var (
	roundType        = tRecord("Splice.Types", "Round", fld("number", tInt64))
	ratePerRoundType = tRecord("Splice.Expiry", "RatePerRound", fld("rate", tNumeric))
	expiringAmtType  = tRecord("Splice.Expiry", "ExpiringAmount",
		fld("initialAmount", tNumeric), fld("createdAt", roundType), fld("ratePerRound", ratePerRoundType))
	amuletType = tRecord("Splice.Amulet", "Amulet",
		fld("dso", tParty), fld("owner", tParty), fld("amount", expiringAmtType))
)

const (
	dsoParty   = "DSO::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc"
	aliceParty = "alice::122034faf8f4af71d107a42441f8bc90cabfd63ab4386fc7f17d15d6e3b01c5bd2ae"
)

func amuletValue() *Record {
	return rec(amuletType,
		Party(dsoParty),
		Party(aliceParty),
		rec(expiringAmtType,
			num("2500.5000000000"),
			rec(roundType, Int64(12345)),
			rec(ratePerRoundType, num("0.0000190259")),
		),
	)
}

// A record with every kind of value.
var (
	colorType = tEnum("Test.Kinds", "Color", "Red", "Green", "Blue")
	keyType   = tRecord("Test.Kinds", "Key", fld("owner", tParty), fld("n", tInt64))
	shapeType = tVariant("Test.Kinds", "Shape",
		fld("Circle", tNumeric), fld("Square", tRecord("Test.Kinds", "Square", fld("side", tInt64))), fld("Dot", tUnit))
	everyType = tRecord("Test.Kinds", "Every",
		fld("unit", tUnit),
		fld("bool", tBool),
		fld("int64", tInt64),
		fld("numeric", tNumeric),
		fld("text", tText),
		fld("party", tParty),
		fld("contractId", tContract),
		fld("timestamp", tTimestamp),
		fld("date", tDate),
		fld("color", colorType),
		fld("shape", shapeType),
		fld("list", tList(tText)),
		fld("textMap", tTextMap(tInt64)),
		fld("genMap", tGenMap(keyType, tNumeric)),
		fld("emptyRecord", tRecord("Test.Kinds", "Empty")),
		fld("optSome", tOpt(tText)),
		fld("optNone", tOpt(tText)),
		fld("optOptNone", tOpt(tOpt(tInt64))),
		fld("optOptSome", tOpt(tOpt(tInt64))),
		fld("optOptSomeNone", tOpt(tOpt(tInt64))),
		fld("listOfOpt", tList(tOpt(tBool))),
		fld("trailingNone1", tOpt(tParty)),
		fld("trailingNone2", tOpt(tList(tText))),
	)
)

func everyValue(t testing.TB) *Record {
	return rec(everyType,
		Unit{},
		Bool(true),
		Int64(-9223372036854775808),
		num("-1234567.8900000000"),
		Text("héllo \"wörld\"\n\t\u0001 ✓ 😀 </script>"),
		Party(aliceParty),
		ContractID("00b7f8a0d3c1f1e2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80912ca111220aa"),
		mustTS(t, "2025-01-27T15:30:37.291866Z"),
		mustDate(t, "2025-06-18"),
		enum(colorType, "Green"),
		variant(shapeType, "Square", rec(shapeType.Fields[1].Type, Int64(3))),
		List{Text("a"), Text(""), Text("c")},
		TextMap{{Key: "", Value: Int64(0)}, {Key: "a", Value: Int64(1)}, {Key: "b", Value: Int64(-2)}},
		GenMap{
			{Key: rec(keyType, Party(aliceParty), Int64(1)), Value: num("1.5")},
			{Key: rec(keyType, Party(dsoParty), Int64(2)), Value: num("0")},
		},
		rec(tRecord("Test.Kinds", "Empty")),
		Some(Text("x")),
		none(),
		none(),
		Some(Some(Int64(7))),
		Some(none()),
		List{Some(Bool(true)), none(), Some(Bool(false))},
		none(),
		none(),
	)
}
