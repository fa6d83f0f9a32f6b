package daml

// Equal reports whether a and b are the same Daml value: same structure,
// same labels and identifiers, Numerics equal by value. A nil Value only
// equals a nil Value. It exists because == and reflect.DeepEqual do not
// work on values holding a Numeric, whose internal form is not canonical.
func Equal(a, b Value) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case *Record:
		y, ok := b.(*Record)
		if !ok || (x == nil) != (y == nil) {
			return false
		}
		if x == nil {
			return true
		}
		if !equalID(x.ID, y.ID) || len(x.Fields) != len(y.Fields) {
			return false
		}
		for i := range x.Fields {
			if x.Fields[i].Label != y.Fields[i].Label || !Equal(x.Fields[i].Value, y.Fields[i].Value) {
				return false
			}
		}
		return true
	case *Variant:
		y, ok := b.(*Variant)
		if !ok || (x == nil) != (y == nil) {
			return false
		}
		return x == nil || (equalID(x.ID, y.ID) && x.Constructor == y.Constructor && Equal(x.Value, y.Value))
	case *Enum:
		y, ok := b.(*Enum)
		if !ok || (x == nil) != (y == nil) {
			return false
		}
		return x == nil || (equalID(x.ID, y.ID) && x.Constructor == y.Constructor)
	case *Optional:
		y, ok := b.(*Optional)
		if !ok || (x == nil) != (y == nil) {
			return false
		}
		return x == nil || Equal(x.Value, y.Value)
	case List:
		y, ok := b.(List)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case TextMap:
		y, ok := b.(TextMap)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !Equal(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case GenMap:
		y, ok := b.(GenMap)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i].Key, y[i].Key) || !Equal(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case Numeric:
		y, ok := b.(Numeric)
		return ok && x.Cmp(y) == 0
	case Int64, Text, Party, ContractID, Timestamp, Date, Bool, Unit:
		return a == b
	default:
		return false
	}
}

func equalID(a, b *Identifier) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
