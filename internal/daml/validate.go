package daml

import (
	"slices"
	"strconv"
)

// Validate checks that v is a well-formed value of type t: right kinds all
// the way down, known constructors, Time and Date in range, no duplicate
// map keys, nesting within [MaxNesting]. It tolerates what the ledger
// itself produces: unlabelled record fields (checked by position), trailing
// None fields left out, record identifiers from another version of the
// same package. A [KindDynamic] type accepts any value.
func Validate(v Value, t *Type) error {
	return finish("validate", "", validate(v, t, 0))
}

func wrongKind(t *Type, v Value) error {
	return errorf("expected " + t.String() + ", got " + valueKindName(v))
}

// valueKindName names a value's kind for error messages.
func valueKindName(v Value) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case *Record:
		return "Record"
	case *Variant:
		return "Variant"
	case *Enum:
		return "Enum"
	case *Optional:
		return "Optional"
	case List:
		return "List"
	case TextMap:
		return "TextMap"
	case GenMap:
		return "GenMap"
	case Int64:
		return "Int64"
	case Numeric:
		return "Numeric"
	case Text:
		return "Text"
	case Party:
		return "Party"
	case ContractID:
		return "ContractId"
	case Timestamp:
		return "Time"
	case Date:
		return "Date"
	case Bool:
		return "Bool"
	case Unit:
		return "Unit"
	}
	return "unknown value"
}

// sameQualifiedName reports whether a value's identifier can belong to a
// type's: package ids may differ (upgrades), module and entity may not.
func sameQualifiedName(id *Identifier, t *Type) bool {
	if id == nil || t.ID.IsZero() {
		return true
	}
	return id.ModuleName == t.ID.ModuleName && id.EntityName == t.ID.EntityName
}

func validate(v Value, t *Type, depth int) error {
	if t == nil {
		return errorf("invalid type: nil")
	}
	if v == nil {
		return errorf("missing value (nil) for " + t.String())
	}
	ok := true
	switch t.Kind {
	case KindDynamic:
		return nil
	case KindUnit:
		_, ok = v.(Unit)
	case KindBool:
		_, ok = v.(Bool)
	case KindInt64:
		_, ok = v.(Int64)
	case KindNumeric:
		_, ok = v.(Numeric)
	case KindText:
		_, ok = v.(Text)
	case KindParty:
		_, ok = v.(Party)
	case KindContractID:
		_, ok = v.(ContractID)
	case KindTimestamp:
		var ts Timestamp
		if ts, ok = v.(Timestamp); ok && !ts.Valid() {
			return errorf(errTimestampRange.Error())
		}
	case KindDate:
		var d Date
		if d, ok = v.(Date); ok && !d.Valid() {
			return errorf(errDateRange.Error())
		}
	case KindEnum:
		e, isEnum := v.(*Enum)
		if !isEnum || e == nil {
			return wrongKind(t, v)
		}
		if !sameQualifiedName(e.ID, t) {
			return errorf("enum " + e.ID.String() + " is not " + t.String())
		}
		if len(t.Constructors) > 0 && !slices.Contains(t.Constructors, e.Constructor) {
			return errorf("unknown constructor " + strconv.Quote(e.Constructor) + " of " + t.String())
		}
	default:
		return validateContainer(v, t, depth)
	}
	if !ok {
		return wrongKind(t, v)
	}
	return nil
}

func validateContainer(v Value, t *Type, depth int) error {
	if depth++; depth > MaxNesting {
		return errorf(errTooDeep)
	}
	switch t.Kind {
	case KindOptional:
		o, ok := v.(*Optional)
		if !ok || o == nil {
			return wrongKind(t, v)
		}
		if t.Elem == nil {
			return errorf("invalid type: Optional without element type")
		}
		if o.Value == nil {
			return nil
		}
		return validate(o.Value, t.Elem, depth)
	case KindList:
		l, ok := v.(List)
		if !ok {
			return wrongKind(t, v)
		}
		if t.Elem == nil {
			return errorf("invalid type: List without element type")
		}
		for i, e := range l {
			if err := validate(e, t.Elem, depth); err != nil {
				return atIndex(err, i)
			}
		}
		return nil
	case KindTextMap:
		m, ok := v.(TextMap)
		if !ok {
			return wrongKind(t, v)
		}
		if t.Elem == nil {
			return errorf("invalid type: TextMap without element type")
		}
		seen := make(map[string]struct{}, len(m))
		for _, e := range m {
			if _, dup := seen[e.Key]; dup {
				return atKey(errorf("duplicate map key"), e.Key)
			}
			seen[e.Key] = struct{}{}
			if err := validate(e.Value, t.Elem, depth); err != nil {
				return atKey(err, e.Key)
			}
		}
		return nil
	case KindGenMap:
		m, ok := v.(GenMap)
		if !ok {
			return wrongKind(t, v)
		}
		if t.Elem == nil || t.Key == nil {
			return errorf("invalid type: GenMap without key or value type")
		}
		seen := make(map[string]struct{}, len(m))
		for i, e := range m {
			if err := validate(e.Key, t.Key, depth); err != nil {
				return atIndex(atIndex(err, 0), i)
			}
			if err := validate(e.Value, t.Elem, depth); err != nil {
				return atIndex(atIndex(err, 1), i)
			}
			if err := checkDuplicateKey(seen, e.Key); err != nil {
				return atIndex(atIndex(err, 0), i)
			}
		}
		return nil
	case KindRecord:
		r, ok := v.(*Record)
		if !ok || r == nil {
			return wrongKind(t, v)
		}
		if !sameQualifiedName(r.ID, t) {
			return errorf("record " + r.ID.String() + " is not " + t.String())
		}
		if len(r.Fields) > len(t.Fields) {
			return errorf("record has " + strconv.Itoa(len(r.Fields)) + " fields, " + t.String() + " has " + strconv.Itoa(len(t.Fields)))
		}
		for k, ft := range t.Fields {
			if ft.Type == nil {
				return errorf("invalid type: field " + strconv.Quote(ft.Label) + " of " + t.String() + " has no type")
			}
			if k >= len(r.Fields) {
				if ft.Type.Kind != KindOptional {
					return errorf("missing field " + strconv.Quote(ft.Label) + " of " + t.String())
				}
				continue
			}
			f := &r.Fields[k]
			if f.Label != "" && f.Label != ft.Label {
				return errorf("field " + strconv.Itoa(k) + " is " + strconv.Quote(f.Label) + ", want " + strconv.Quote(ft.Label))
			}
			if err := validate(f.Value, ft.Type, depth); err != nil {
				return atKey(err, ft.Label)
			}
		}
		return nil
	case KindVariant:
		vr, ok := v.(*Variant)
		if !ok || vr == nil {
			return wrongKind(t, v)
		}
		if !sameQualifiedName(vr.ID, t) {
			return errorf("variant " + vr.ID.String() + " is not " + t.String())
		}
		k := fieldIndex(t.Fields, vr.Constructor, 0)
		if k < 0 {
			return errorf("unknown constructor " + strconv.Quote(vr.Constructor) + " of " + t.String())
		}
		if t.Fields[k].Type == nil {
			return errorf("invalid type: constructor " + strconv.Quote(vr.Constructor) + " has no type")
		}
		if err := validate(vr.Value, t.Fields[k].Type, depth); err != nil {
			return atKey(err, vr.Constructor)
		}
		return nil
	}
	return errorf("invalid type: unknown kind " + t.Kind.String())
}
