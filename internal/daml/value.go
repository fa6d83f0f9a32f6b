package daml

import "fmt"

// Value is a Daml-LF value. The concrete types are the ones declared in this
// file; the interface is closed. Values built by this package may share
// parts (decoders and FromGo reuse identifiers and strings), so treat a
// value as immutable once it is built; compare values with [Equal].
type Value interface {
	isValue()
}

// Identifier names a Daml type or template: a package id, a dotted module
// name and an entity name. In responses sandnet always uses the package-id
// form "<64 hex>:Module.Path:Entity".
type Identifier struct {
	PackageID  string
	ModuleName string
	EntityName string
}

// String renders the identifier as "package:Module:Entity".
func (id Identifier) String() string {
	return id.PackageID + ":" + id.ModuleName + ":" + id.EntityName
}

// IsZero reports whether the identifier is unset.
func (id Identifier) IsZero() bool { return id == Identifier{} }

// Record is a Daml record. Fields are kept in declaration order, which every
// wire format preserves.
type Record struct {
	// ID is the record's type, when known. Only protobuf_json renders it.
	ID     *Identifier
	Fields []Field
}

// Field is one labelled field of a [Record].
type Field struct {
	Label string
	Value Value
}

// Get returns the value of the field with the given label, or nil.
func (r *Record) Get(label string) Value {
	for _, f := range r.Fields {
		if f.Label == label {
			return f.Value
		}
	}
	return nil
}

// Variant is a value of a Daml variant type: one constructor and its argument.
type Variant struct {
	ID          *Identifier
	Constructor string
	Value       Value
}

// Enum is a value of a Daml enum type (a variant whose constructors carry no
// argument).
type Enum struct {
	ID          *Identifier
	Constructor string
}

// Optional is a Daml Optional. A nil Value is None.
type Optional struct {
	Value Value
}

// None is the empty [Optional].
var None = &Optional{}

// Some wraps v in an [Optional].
func Some(v Value) *Optional { return &Optional{Value: v} }

// List is a Daml list.
type List []Value

// TextMap is a Daml TextMap: entries with distinct text keys, in ascending
// key order as Daml-LF keeps them.
type TextMap []TextMapEntry

// TextMapEntry is one entry of a [TextMap].
type TextMapEntry struct {
	Key   string
	Value Value
}

// GenMap is a Daml generic map (DA.Map): entries with distinct keys of any
// type, kept in the order Daml-LF sorts them.
type GenMap []GenMapEntry

// GenMapEntry is one entry of a [GenMap].
type GenMapEntry struct {
	Key   Value
	Value Value
}

// Int64 is a Daml Int64.
type Int64 int64

// Text is a Daml Text.
type Text string

// Party is a Daml Party: a party id such as "alice::1220…".
type Party string

// ContractID is a Daml ContractId.
type ContractID string

// Timestamp is a Daml Time: microseconds since the Unix epoch, UTC. Daml
// time has microsecond resolution, so this representation is exact.
type Timestamp int64

// Date is a Daml Date: days since the Unix epoch.
type Date int32

// Bool is a Daml Bool.
type Bool bool

// Unit is the Daml unit value "()".
type Unit struct{}

func (*Record) isValue()    {}
func (*Variant) isValue()   {}
func (*Enum) isValue()      {}
func (*Optional) isValue()  {}
func (List) isValue()       {}
func (TextMap) isValue()    {}
func (GenMap) isValue()     {}
func (Int64) isValue()      {}
func (Numeric) isValue()    {}
func (Text) isValue()       {}
func (Party) isValue()      {}
func (ContractID) isValue() {}
func (Timestamp) isValue()  {}
func (Date) isValue()       {}
func (Bool) isValue()       {}
func (Unit) isValue()       {}

// Kind tells which kind of value a [Type] describes.
type Kind uint8

// KindDynamic (the zero Kind) describes a value whose type is not known
// statically: a Go field of interface type [Value]. The self-describing
// [ProtobufJSON] decodes it; the schema-driven JSON decoders reject it,
// because they cannot tell a Text from a Party or a Numeric without a type.
const KindDynamic Kind = 0

// The kinds of Daml-LF types.
const (
	KindUnit Kind = iota + 1
	KindBool
	KindInt64
	KindNumeric
	KindText
	KindParty
	KindContractID
	KindTimestamp
	KindDate
	KindOptional
	KindList
	KindTextMap
	KindGenMap
	KindRecord
	KindVariant
	KindEnum
)

var kindNames = [...]string{
	KindDynamic: "Dynamic", KindUnit: "Unit", KindBool: "Bool", KindInt64: "Int64", KindNumeric: "Numeric",
	KindText: "Text", KindParty: "Party", KindContractID: "ContractId",
	KindTimestamp: "Time", KindDate: "Date", KindOptional: "Optional",
	KindList: "List", KindTextMap: "TextMap", KindGenMap: "GenMap",
	KindRecord: "Record", KindVariant: "Variant", KindEnum: "Enum",
}

// String returns the Daml-LF name of the kind ("Int64", "ContractId"...).
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Type describes a Daml-LF type, enough to decode the formats that are not
// self-describing.
type Type struct {
	Kind Kind
	// Elem is the element type of an Optional, List or TextMap, and the value
	// type of a GenMap.
	Elem *Type
	// Key is the key type of a GenMap.
	Key *Type
	// ID names a record, variant or enum type.
	ID Identifier
	// Fields are a record's fields, or a variant's constructors with their
	// argument types, in declaration order.
	Fields []FieldType
	// Constructors are an enum's constructors.
	Constructors []string
}

// FieldType is a labelled field of a record type, or a constructor of a
// variant type.
type FieldType struct {
	Label string
	Type  *Type
}

// String renders the type for error messages: "Int64",
// "Optional(Numeric)", "Record Splice.Amulet:Amulet". Records, variants
// and enums are named rather than expanded, so recursive types print fine.
func (t *Type) String() string {
	return string(t.appendString(nil, 0))
}

func (t *Type) appendString(dst []byte, depth int) []byte {
	switch {
	case t == nil:
		return append(dst, "<nil type>"...)
	case depth > 8:
		return append(dst, "..."...)
	}
	switch t.Kind {
	case KindOptional, KindList, KindTextMap:
		dst = append(dst, t.Kind.String()...)
		dst = append(dst, '(')
		dst = t.Elem.appendString(dst, depth+1)
		return append(dst, ')')
	case KindGenMap:
		dst = append(dst, "GenMap("...)
		dst = t.Key.appendString(dst, depth+1)
		dst = append(dst, ", "...)
		dst = t.Elem.appendString(dst, depth+1)
		return append(dst, ')')
	case KindRecord, KindVariant, KindEnum:
		dst = append(dst, t.Kind.String()...)
		if t.ID.ModuleName != "" || t.ID.EntityName != "" {
			dst = append(dst, ' ')
			dst = append(dst, t.ID.ModuleName...)
			dst = append(dst, ':')
			return append(dst, t.ID.EntityName...)
		}
		dst = append(dst, '{')
		if t.Kind == KindEnum {
			for i, c := range t.Constructors {
				if i > 0 {
					dst = append(dst, " | "...)
				}
				dst = append(dst, c...)
			}
		} else {
			for i, f := range t.Fields {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = append(dst, f.Label...)
			}
		}
		return append(dst, '}')
	default:
		return append(dst, t.Kind.String()...)
	}
}
