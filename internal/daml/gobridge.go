package daml

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// This file bridges Go types and Daml values, so that Splice templates
// can be written as Go structs; the mapping is documented on FromGo.

// Identified is implemented by Go types that know the identifier of their
// Daml record, variant or enum type.
type Identified interface {
	DamlIdentifier() Identifier
}

// EnumMarker marks a Go string type as a Daml enum.
type EnumMarker interface {
	DamlEnum()
}

// EnumConstructors is implemented by enum types that list their
// constructors in declaration order.
type EnumConstructors interface {
	DamlEnumConstructors() []string
}

// VariantMarker marks a Go struct type as a Daml variant (see [FromGo]).
type VariantMarker interface {
	DamlVariant()
}

// MapEntry is one entry of a [Map].
type MapEntry[K comparable, V any] struct {
	Key   K
	Value V
}

// Map is a Daml generic map (DA.Map / GenMap) in Go: entries in Daml's
// order. It is a slice rather than a Go map because keys may be records
// and because the order is part of the value.
type Map[K comparable, V any] []MapEntry[K, V]

// Get returns the value for key k.
func (m Map[K, V]) Get(k K) (V, bool) {
	for _, e := range m {
		if e.Key == k {
			return e.Value, true
		}
	}
	var zero V
	return zero, false
}

func (Map[K, V]) damlGenMap() {}

type genMapMarker interface{ damlGenMap() }

// FromGo converts a Go value to a Daml value. A top-level pointer is
// followed, so FromGo(&x) equals FromGo(x). The mapping, by Go type:
//
//   - a struct is a Record. Fields tagged `daml:"label"` are its fields, in
//     declaration order; untagged fields (and `daml:"-"`) are skipped. A
//     DamlIdentifier method ([Identified]) gives the record's identifier.
//   - a struct with a DamlVariant method ([VariantMarker]) is a Variant:
//     each tagged field is a constructor and must be a pointer to the
//     constructor's argument type (*Unit for no argument); exactly one is
//     non-nil.
//   - a string type with a DamlEnum method ([EnumMarker]) is an Enum whose
//     constructor is the string; a DamlEnumConstructors method
//     ([EnumConstructors]) lists the constructors so that unknown ones are
//     rejected.
//   - string is Text, int64 Int64, bool Bool; [Numeric], [Party],
//     [ContractID], [Timestamp], [Date], [Unit], [Text], [Int64] and [Bool]
//     are themselves. They are recognised by exact type: a type defined
//     from one (type SvParty daml.Party) is just a string, hence Text.
//   - *T is Optional T (nil is None), []T a List, map[string]T a TextMap
//     (sorted by key), [Map] a GenMap.
//   - a field of interface type [Value] holds a value as it is; its type is
//     [KindDynamic].
//
// For example:
//
//	type Amulet struct {
//		DSO    daml.Party     `daml:"dso"`
//		Owner  daml.Party     `daml:"owner"`
//		Amount ExpiringAmount `daml:"amount"`
//	}
//
//	func (Amulet) DamlIdentifier() daml.Identifier { return amuletID }
//
// The Daml* methods are called once per type, on its zero value: they
// must describe the type, not a particular value.
func FromGo(v any) (Value, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return nil, &Error{Op: "FromGo", Path: "$", Msg: "nil"}
	}
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, &Error{Op: "FromGo", Path: "$", Msg: "nil pointer"}
		}
		rv = rv.Elem()
	}
	p, err := planFor(rv.Type())
	if err != nil {
		return nil, err
	}
	val, err := p.fromGo(rv, 0)
	if err != nil {
		return nil, finish("FromGo", "", err)
	}
	return val, nil
}

// ToGo stores v into the Go value out points to, by the mapping [FromGo]
// describes. Records are matched by label (by position when the
// value has no labels); fields the Go type lacks must be None, and Go
// fields the value lacks must be pointers (Optional). On error *out may be
// partly written.
func ToGo(v Value, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &Error{Op: "ToGo", Path: "$", Msg: fmt.Sprintf("out must be a non-nil pointer, got %T", out)}
	}
	p, err := planFor(rv.Elem().Type())
	if err != nil {
		return err
	}
	return finish("ToGo", "", p.toGo(v, rv.Elem(), 0))
}

// TypeOf returns the Daml type of Go type t under the mapping [FromGo]
// describes. Results are cached per type
// and shared: callers must not modify them. Recursive Go types give
// recursive Types.
func TypeOf(t reflect.Type) (*Type, error) {
	if t == nil {
		return nil, &Error{Op: "TypeOf", Path: "$", Msg: "nil type"}
	}
	p, err := planFor(t)
	if err != nil {
		return nil, err
	}
	return p.typ, nil
}

type goKind uint8

const (
	gkText goKind = iota + 1
	gkParty
	gkContractID
	gkInt64
	gkTimestamp
	gkDate
	gkBool
	gkNumeric
	gkUnit
	gkDynamic
	gkOptional
	gkList
	gkTextMap
	gkGenMap
	gkRecord
	gkVariant
	gkEnum
)

// goPlan is the compiled conversion for one Go type.
type goPlan struct {
	kind   goKind
	rt     reflect.Type
	typ    *Type
	elem   *goPlan // Optional, List, TextMap, GenMap value
	key    *goPlan // GenMap key
	fields []goField
	id     *Identifier
}

type goField struct {
	index int // struct field index
	label string
	plan  *goPlan
}

var (
	plans   sync.Map // reflect.Type → *goPlan
	plansMu sync.Mutex

	valueIface    = reflect.TypeFor[Value]()
	numericType   = reflect.TypeFor[Numeric]()
	unitType      = reflect.TypeFor[Unit]()
	partyType     = reflect.TypeFor[Party]()
	contractType  = reflect.TypeFor[ContractID]()
	timestampType = reflect.TypeFor[Timestamp]()
	dateType      = reflect.TypeFor[Date]()
	identified    = reflect.TypeFor[Identified]()
	enumMarker    = reflect.TypeFor[EnumMarker]()
	enumCtors     = reflect.TypeFor[EnumConstructors]()
	variantMarker = reflect.TypeFor[VariantMarker]()
	genMapIface   = reflect.TypeFor[genMapMarker]()
)

func planFor(rt reflect.Type) (*goPlan, error) {
	if p, ok := plans.Load(rt); ok {
		return p.(*goPlan), nil
	}
	plansMu.Lock()
	defer plansMu.Unlock()
	if p, ok := plans.Load(rt); ok {
		return p.(*goPlan), nil
	}
	b := planBuilder{building: map[reflect.Type]*goPlan{}}
	p, err := b.build(rt)
	if err != nil {
		return nil, &Error{Op: "TypeOf", Path: "$", Msg: err.Error()}
	}
	// Only publish once every plan of the group is complete, so that a
	// concurrent reader never sees a half-built recursive plan.
	for t, bp := range b.building {
		plans.Store(t, bp)
	}
	return p, nil
}

type planBuilder struct {
	building map[reflect.Type]*goPlan
}

func implements(rt, iface reflect.Type) bool {
	return rt.Implements(iface) || reflect.PointerTo(rt).Implements(iface)
}

// typeMethod calls a type-level method on the zero value of rt (or on a
// pointer to it, for pointer receivers), turning a panic into an error.
func typeMethod[I, R any](rt, iface reflect.Type, f func(I) R) (res R, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s.%s panicked: %v", rt, iface.Method(0).Name, r)
		}
	}()
	recv := reflect.New(rt)
	if rt.Implements(iface) {
		recv = recv.Elem()
	}
	return f(recv.Interface().(I)), nil
}

func (b *planBuilder) identifier(rt reflect.Type) (*Identifier, error) {
	if !implements(rt, identified) {
		return nil, nil
	}
	id, err := typeMethod(rt, identified, Identified.DamlIdentifier)
	if err != nil || id.IsZero() {
		return nil, err
	}
	return &id, nil
}

func (b *planBuilder) build(rt reflect.Type) (*goPlan, error) {
	if p, ok := b.building[rt]; ok {
		return p, nil // a recursive reference: filled in by the outer call
	}
	if p, ok := plans.Load(rt); ok {
		return p.(*goPlan), nil // built by an earlier call: keep one *Type per Go type
	}
	p := &goPlan{rt: rt, typ: &Type{}}
	b.building[rt] = p
	if err := b.fill(p); err != nil {
		return nil, err
	}
	return p, nil
}

func (b *planBuilder) fill(p *goPlan) error {
	rt := p.rt
	prim := func(k goKind, dk Kind) error {
		p.kind, p.typ.Kind = k, dk
		return nil
	}
	switch rt {
	case numericType:
		return prim(gkNumeric, KindNumeric)
	case unitType:
		return prim(gkUnit, KindUnit)
	case partyType:
		return prim(gkParty, KindParty)
	case contractType:
		return prim(gkContractID, KindContractID)
	case timestampType:
		return prim(gkTimestamp, KindTimestamp)
	case dateType:
		return prim(gkDate, KindDate)
	case valueIface:
		return prim(gkDynamic, KindDynamic)
	}
	switch rt.Kind() {
	case reflect.String:
		if implements(rt, enumMarker) {
			return b.fillEnum(p)
		}
		return prim(gkText, KindText)
	case reflect.Int64:
		return prim(gkInt64, KindInt64)
	case reflect.Bool:
		return prim(gkBool, KindBool)
	case reflect.Pointer:
		elem, err := b.build(rt.Elem())
		if err != nil {
			return err
		}
		p.kind, p.elem = gkOptional, elem
		*p.typ = Type{Kind: KindOptional, Elem: elem.typ}
		return nil
	case reflect.Slice:
		if rt.Implements(genMapIface) {
			entry := rt.Elem()
			k, err := b.build(entry.Field(0).Type)
			if err != nil {
				return fmt.Errorf("key of %s: %w", rt, err)
			}
			v, err := b.build(entry.Field(1).Type)
			if err != nil {
				return fmt.Errorf("value of %s: %w", rt, err)
			}
			p.kind, p.key, p.elem = gkGenMap, k, v
			*p.typ = Type{Kind: KindGenMap, Key: k.typ, Elem: v.typ}
			return nil
		}
		elem, err := b.build(rt.Elem())
		if err != nil {
			return err
		}
		p.kind, p.elem = gkList, elem
		*p.typ = Type{Kind: KindList, Elem: elem.typ}
		return nil
	case reflect.Map:
		if rt.Key().Kind() != reflect.String {
			return fmt.Errorf("%s: a Go map must have string keys (TextMap); use daml.Map for a GenMap", rt)
		}
		elem, err := b.build(rt.Elem())
		if err != nil {
			return err
		}
		p.kind, p.elem = gkTextMap, elem
		*p.typ = Type{Kind: KindTextMap, Elem: elem.typ}
		return nil
	case reflect.Struct:
		if implements(rt, variantMarker) {
			return b.fillStruct(p, true)
		}
		return b.fillStruct(p, false)
	}
	return fmt.Errorf("%s has no Daml counterpart", rt)
}

func (b *planBuilder) fillEnum(p *goPlan) error {
	id, err := b.identifier(p.rt)
	if err != nil {
		return err
	}
	var ctors []string
	if implements(p.rt, enumCtors) {
		list, err := typeMethod(p.rt, enumCtors, EnumConstructors.DamlEnumConstructors)
		if err != nil {
			return err
		}
		ctors = slices.Clone(list)
	}
	p.kind, p.id = gkEnum, id
	*p.typ = Type{Kind: KindEnum, Constructors: ctors}
	if id != nil {
		p.typ.ID = *id
	}
	return nil
}

func (b *planBuilder) fillStruct(p *goPlan, variant bool) error {
	rt := p.rt
	id, err := b.identifier(rt)
	if err != nil {
		return err
	}
	var fields []goField
	var types []FieldType
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		tag, ok := sf.Tag.Lookup("daml")
		if !ok || tag == "-" {
			continue
		}
		label, _, _ := strings.Cut(tag, ",")
		if label == "" {
			return fmt.Errorf("%s.%s: empty daml tag", rt, sf.Name)
		}
		if !sf.IsExported() {
			return fmt.Errorf("%s.%s: tagged field must be exported", rt, sf.Name)
		}
		for _, f := range fields {
			if f.label == label {
				return fmt.Errorf("%s: two fields labelled %q", rt, label)
			}
		}
		ft := sf.Type
		if variant {
			if ft.Kind() != reflect.Pointer {
				return fmt.Errorf("%s.%s: a variant constructor field must be a pointer", rt, sf.Name)
			}
			ft = ft.Elem()
		}
		fp, err := b.build(ft)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", rt, sf.Name, err)
		}
		fields = append(fields, goField{index: i, label: label, plan: fp})
		types = append(types, FieldType{Label: label, Type: fp.typ})
	}
	p.fields, p.id = fields, id
	if variant {
		if len(fields) == 0 {
			return fmt.Errorf("%s: a variant needs constructor fields", rt)
		}
		p.kind = gkVariant
		*p.typ = Type{Kind: KindVariant, Fields: types}
	} else {
		p.kind = gkRecord
		*p.typ = Type{Kind: KindRecord, Fields: types}
	}
	if id != nil {
		p.typ.ID = *id
	}
	return nil
}

func (p *goPlan) fromGo(rv reflect.Value, depth int) (Value, error) {
	switch p.kind {
	case gkText:
		return Text(rv.String()), nil
	case gkParty:
		return Party(rv.String()), nil
	case gkContractID:
		return ContractID(rv.String()), nil
	case gkInt64:
		return Int64(rv.Int()), nil
	case gkTimestamp:
		return Timestamp(rv.Int()), nil
	case gkDate:
		return Date(rv.Int()), nil
	case gkBool:
		return Bool(rv.Bool()), nil
	case gkNumeric:
		return rv.Interface().(Numeric), nil
	case gkUnit:
		return Unit{}, nil
	case gkDynamic:
		if rv.IsNil() {
			return nil, errorf("nil dynamic Value")
		}
		return rv.Interface().(Value), nil
	case gkEnum:
		c := rv.String()
		if len(p.typ.Constructors) > 0 && !slices.Contains(p.typ.Constructors, c) {
			return nil, errorf("unknown constructor " + strconv.Quote(c) + " of " + p.typ.String())
		}
		return &Enum{ID: p.id, Constructor: c}, nil
	}
	if depth++; depth > MaxNesting {
		return nil, errorf(errTooDeep)
	}
	switch p.kind {
	case gkOptional:
		if rv.IsNil() {
			return &Optional{}, nil
		}
		v, err := p.elem.fromGo(rv.Elem(), depth)
		if err != nil {
			return nil, err
		}
		return &Optional{Value: v}, nil
	case gkList:
		l := make(List, rv.Len())
		for i := range l {
			v, err := p.elem.fromGo(rv.Index(i), depth)
			if err != nil {
				return nil, atIndex(err, i)
			}
			l[i] = v
		}
		return l, nil
	case gkTextMap:
		keys := make([]string, 0, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			keys = append(keys, it.Key().String())
		}
		slices.Sort(keys)
		m := make(TextMap, len(keys))
		for i, k := range keys {
			v, err := p.elem.fromGo(rv.MapIndex(reflect.ValueOf(k).Convert(p.rt.Key())), depth)
			if err != nil {
				return nil, atKey(err, k)
			}
			m[i] = TextMapEntry{Key: k, Value: v}
		}
		return m, nil
	case gkGenMap:
		m := make(GenMap, rv.Len())
		for i := range m {
			e := rv.Index(i)
			k, err := p.key.fromGo(e.Field(0), depth)
			if err != nil {
				return nil, atIndex(atIndex(err, 0), i)
			}
			v, err := p.elem.fromGo(e.Field(1), depth)
			if err != nil {
				return nil, atIndex(atIndex(err, 1), i)
			}
			m[i] = GenMapEntry{Key: k, Value: v}
		}
		return m, nil
	case gkRecord:
		r := &Record{ID: p.id, Fields: make([]Field, len(p.fields))}
		for i, f := range p.fields {
			v, err := f.plan.fromGo(rv.Field(f.index), depth)
			if err != nil {
				return nil, atKey(err, f.label)
			}
			r.Fields[i] = Field{Label: f.label, Value: v}
		}
		return r, nil
	case gkVariant:
		var out *Variant
		for _, f := range p.fields {
			fv := rv.Field(f.index)
			if fv.IsNil() {
				continue
			}
			if out != nil {
				return nil, errorf("variant " + p.typ.String() + " has both " + out.Constructor + " and " + f.label + " set")
			}
			v, err := f.plan.fromGo(fv.Elem(), depth)
			if err != nil {
				return nil, atKey(err, f.label)
			}
			out = &Variant{ID: p.id, Constructor: f.label, Value: v}
		}
		if out == nil {
			return nil, errorf("variant " + p.typ.String() + " has no constructor set")
		}
		return out, nil
	}
	return nil, errorf("internal error: no conversion for " + p.rt.String())
}

func (p *goPlan) toGo(v Value, dst reflect.Value, depth int) error {
	if v == nil {
		return errorf("missing value (nil) for Go " + p.rt.String())
	}
	mismatchGo := func() error {
		return errorf("cannot store " + valueKindName(v) + " in Go " + p.rt.String() + " (" + p.typ.String() + ")")
	}
	switch p.kind {
	case gkText:
		x, ok := v.(Text)
		if !ok {
			return mismatchGo()
		}
		dst.SetString(string(x))
		return nil
	case gkParty:
		x, ok := v.(Party)
		if !ok {
			return mismatchGo()
		}
		dst.SetString(string(x))
		return nil
	case gkContractID:
		x, ok := v.(ContractID)
		if !ok {
			return mismatchGo()
		}
		dst.SetString(string(x))
		return nil
	case gkInt64:
		x, ok := v.(Int64)
		if !ok {
			return mismatchGo()
		}
		dst.SetInt(int64(x))
		return nil
	case gkTimestamp:
		x, ok := v.(Timestamp)
		if !ok {
			return mismatchGo()
		}
		dst.SetInt(int64(x))
		return nil
	case gkDate:
		x, ok := v.(Date)
		if !ok {
			return mismatchGo()
		}
		dst.SetInt(int64(x))
		return nil
	case gkBool:
		x, ok := v.(Bool)
		if !ok {
			return mismatchGo()
		}
		dst.SetBool(bool(x))
		return nil
	case gkNumeric:
		x, ok := v.(Numeric)
		if !ok {
			return mismatchGo()
		}
		dst.Set(reflect.ValueOf(x))
		return nil
	case gkUnit:
		if _, ok := v.(Unit); !ok {
			return mismatchGo()
		}
		return nil
	case gkDynamic:
		dst.Set(reflect.ValueOf(v))
		return nil
	case gkEnum:
		x, ok := v.(*Enum)
		if !ok || x == nil {
			return mismatchGo()
		}
		if !sameQualifiedName(x.ID, p.typ) {
			return errorf("enum " + x.ID.String() + " is not " + p.typ.String())
		}
		if len(p.typ.Constructors) > 0 && !slices.Contains(p.typ.Constructors, x.Constructor) {
			return errorf("unknown constructor " + strconv.Quote(x.Constructor) + " of " + p.typ.String())
		}
		dst.SetString(x.Constructor)
		return nil
	}
	if depth++; depth > MaxNesting {
		return errorf(errTooDeep)
	}
	switch p.kind {
	case gkOptional:
		x, ok := v.(*Optional)
		if !ok || x == nil {
			return mismatchGo()
		}
		if x.Value == nil {
			dst.SetZero()
			return nil
		}
		nv := reflect.New(p.rt.Elem())
		if err := p.elem.toGo(x.Value, nv.Elem(), depth); err != nil {
			return err
		}
		dst.Set(nv)
		return nil
	case gkList:
		x, ok := v.(List)
		if !ok {
			return mismatchGo()
		}
		s := reflect.MakeSlice(p.rt, len(x), len(x))
		for i, e := range x {
			if err := p.elem.toGo(e, s.Index(i), depth); err != nil {
				return atIndex(err, i)
			}
		}
		dst.Set(s)
		return nil
	case gkTextMap:
		x, ok := v.(TextMap)
		if !ok {
			return mismatchGo()
		}
		m := reflect.MakeMapWithSize(p.rt, len(x))
		for _, e := range x {
			k := reflect.ValueOf(e.Key).Convert(p.rt.Key())
			if m.MapIndex(k).IsValid() {
				return atKey(errorf("duplicate map key"), e.Key)
			}
			ev := reflect.New(p.rt.Elem()).Elem()
			if err := p.elem.toGo(e.Value, ev, depth); err != nil {
				return atKey(err, e.Key)
			}
			m.SetMapIndex(k, ev)
		}
		dst.Set(m)
		return nil
	case gkGenMap:
		x, ok := v.(GenMap)
		if !ok {
			return mismatchGo()
		}
		s := reflect.MakeSlice(p.rt, len(x), len(x))
		for i, e := range x {
			ev := s.Index(i)
			if err := p.key.toGo(e.Key, ev.Field(0), depth); err != nil {
				return atIndex(atIndex(err, 0), i)
			}
			if err := p.elem.toGo(e.Value, ev.Field(1), depth); err != nil {
				return atIndex(atIndex(err, 1), i)
			}
		}
		dst.Set(s)
		return nil
	case gkRecord:
		x, ok := v.(*Record)
		if !ok || x == nil {
			return mismatchGo()
		}
		return p.recordToGo(x, dst, depth)
	case gkVariant:
		x, ok := v.(*Variant)
		if !ok || x == nil {
			return mismatchGo()
		}
		if !sameQualifiedName(x.ID, p.typ) {
			return errorf("variant " + x.ID.String() + " is not " + p.typ.String())
		}
		for _, f := range p.fields {
			if f.label != x.Constructor {
				continue
			}
			dst.SetZero()
			nv := reflect.New(f.plan.rt)
			if err := f.plan.toGo(x.Value, nv.Elem(), depth); err != nil {
				return atKey(err, f.label)
			}
			dst.Field(f.index).Set(nv)
			return nil
		}
		return errorf("unknown constructor " + strconv.Quote(x.Constructor) + " of " + p.typ.String())
	}
	return errorf("internal error: no conversion for " + p.rt.String())
}

func (p *goPlan) recordToGo(x *Record, dst reflect.Value, depth int) error {
	if !sameQualifiedName(x.ID, p.typ) {
		return errorf("record " + x.ID.String() + " is not " + p.typ.String())
	}
	byLabel := len(x.Fields) > 0 && x.Fields[0].Label != ""
	used := 0
	for i, f := range p.fields {
		var fv Value
		if byLabel {
			for k := range x.Fields {
				if x.Fields[(i+k)%len(x.Fields)].Label == f.label {
					fv = x.Fields[(i+k)%len(x.Fields)].Value
					used++
					break
				}
			}
		} else if i < len(x.Fields) {
			fv = x.Fields[i].Value
			used++
		}
		target := dst.Field(f.index)
		if fv == nil {
			if f.plan.kind != gkOptional {
				return errorf("missing field " + strconv.Quote(f.label) + " of " + p.typ.String())
			}
			target.SetZero()
			continue
		}
		if err := f.plan.toGo(fv, target, depth); err != nil {
			return atKey(err, f.label)
		}
	}
	if used < len(x.Fields) {
		// Fields the Go type does not know: fine if None (a newer version
		// of the template added them), data loss otherwise.
		for k, f := range x.Fields {
			known := !byLabel && k < len(p.fields)
			for _, pf := range p.fields {
				if byLabel && pf.label == f.Label {
					known = true
				}
			}
			if !known && !isNone(f.Value) {
				if f.Label != "" {
					return atKey(errorf("field unknown to Go "+p.rt.String()+" is not None"), f.Label)
				}
				return atIndex(errorf("field unknown to Go "+p.rt.String()+" is not None"), k)
			}
		}
	}
	return nil
}
