package daml

import (
	"fmt"
	"strconv"
)

// protobufJSON implements [ProtobufJSON].
//
// Splice prints values with protobuf-java's JsonFormat.printer() (default
// options) and re-parses the output with circe, so the shape is exactly
// the proto3 JSON mapping of com.daml.ledger.api.v2.Value:
//
//   - one key naming the oneof case, in lowerCamelCase: "unit", "bool",
//     "int64", "date", "timestamp", "numeric", "party", "text",
//     "contractId", "optional", "list", "textMap", "genMap", "record",
//     "variant", "enum";
//   - 64-bit integers (int64, and timestamp in microseconds since the
//     epoch, both proto int64 kinds) are JSON strings; date (int32 days
//     since the epoch) is a JSON number; numeric is the ledger's string
//     with ten decimals;
//   - a oneof case is printed even when it holds a default value
//     ({"bool":false}, {"text":""}), but inside messages default values are
//     omitted: an empty list is {"list":{}}, None is {"optional":{}}, an
//     absent record id or an empty label is left out;
//   - messages keep proto field order: record {recordId, fields[{label,
//     value}]}, variant {variantId, constructor, value}, enum {enumId,
//     constructor}, identifiers {packageId, moduleName, entityName}, map
//     entries {key, value}.
//
// The decoder accepts what JsonFormat.parser() accepts that matters here:
// snake_case field names as well ("contract_id", "record_id"...), null as
// "not set", and 64-bit integers as strings or numbers.
type protobufJSON struct{}

const protobufJSONName = "protobuf_json"

func (protobufJSON) Name() string { return protobufJSONName }

func (p protobufJSON) Encode(v Value) ([]byte, error) {
	return p.AppendEncode(make([]byte, 0, 512), v)
}

func (p protobufJSON) AppendEncode(dst []byte, v Value) ([]byte, error) {
	out, err := p.encode(dst, v, 0)
	if err != nil {
		return dst, finish("encode", protobufJSONName, err)
	}
	return out, nil
}

func appendIdentifier(dst []byte, key string, id *Identifier) []byte {
	dst = append(dst, key...)
	dst = append(dst, '{')
	first := true
	for _, f := range [...]struct{ k, v string }{
		{`"packageId":`, id.PackageID},
		{`"moduleName":`, id.ModuleName},
		{`"entityName":`, id.EntityName},
	} {
		if f.v == "" {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, f.k...)
		dst = appendJSONString(dst, f.v)
	}
	return append(dst, '}')
}

func (p protobufJSON) encode(dst []byte, v Value, depth int) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case Text:
		dst = append(dst, `{"text":`...)
		return append(appendJSONString(dst, string(x)), '}'), nil
	case Party:
		dst = append(dst, `{"party":`...)
		return append(appendJSONString(dst, string(x)), '}'), nil
	case ContractID:
		dst = append(dst, `{"contractId":`...)
		return append(appendJSONString(dst, string(x)), '}'), nil
	case Int64:
		dst = append(dst, `{"int64":"`...)
		dst = strconv.AppendInt(dst, int64(x), 10)
		return append(dst, `"}`...), nil
	case Numeric:
		dst = append(dst, `{"numeric":"`...)
		dst = x.appendFixed(dst)
		return append(dst, `"}`...), nil
	case Bool:
		if x {
			return append(dst, `{"bool":true}`...), nil
		}
		return append(dst, `{"bool":false}`...), nil
	case Unit:
		return append(dst, `{"unit":{}}`...), nil
	case Timestamp:
		if !x.Valid() {
			return dst, errorf(errTimestampRange.Error())
		}
		dst = append(dst, `{"timestamp":"`...)
		dst = strconv.AppendInt(dst, int64(x), 10)
		return append(dst, `"}`...), nil
	case Date:
		if !x.Valid() {
			return dst, errorf(errDateRange.Error())
		}
		dst = append(dst, `{"date":`...)
		dst = strconv.AppendInt(dst, int64(x), 10)
		return append(dst, '}'), nil
	case *Record:
		if x == nil {
			return dst, errorf("nil *Record")
		}
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		dst = append(dst, `{"record":{`...)
		if x.ID != nil {
			dst = appendIdentifier(dst, `"recordId":`, x.ID)
			if len(x.Fields) > 0 {
				dst = append(dst, ',')
			}
		}
		if len(x.Fields) > 0 {
			dst = append(dst, `"fields":[`...)
			for i := range x.Fields {
				f := &x.Fields[i]
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, '{')
				if f.Label != "" {
					dst = append(dst, `"label":`...)
					dst = appendJSONString(dst, f.Label)
					dst = append(dst, ',')
				}
				dst = append(dst, `"value":`...)
				if dst, err = p.encode(dst, f.Value, depth); err != nil {
					if f.Label != "" {
						return dst, atKey(err, f.Label)
					}
					return dst, atIndex(err, i)
				}
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
		return append(dst, `}}`...), nil
	case *Variant:
		if x == nil {
			return dst, errorf("nil *Variant")
		}
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		dst = append(dst, `{"variant":{`...)
		if x.ID != nil {
			dst = appendIdentifier(dst, `"variantId":`, x.ID)
			dst = append(dst, ',')
		}
		if x.Constructor != "" {
			dst = append(dst, `"constructor":`...)
			dst = appendJSONString(dst, x.Constructor)
			dst = append(dst, ',')
		}
		dst = append(dst, `"value":`...)
		if dst, err = p.encode(dst, x.Value, depth); err != nil {
			return dst, atKey(err, "value")
		}
		return append(dst, `}}`...), nil
	case *Enum:
		if x == nil {
			return dst, errorf("nil *Enum")
		}
		dst = append(dst, `{"enum":{`...)
		if x.ID != nil {
			dst = appendIdentifier(dst, `"enumId":`, x.ID)
			if x.Constructor != "" {
				dst = append(dst, ',')
			}
		}
		if x.Constructor != "" {
			dst = append(dst, `"constructor":`...)
			dst = appendJSONString(dst, x.Constructor)
		}
		return append(dst, `}}`...), nil
	case *Optional:
		if x == nil {
			return dst, errorf("nil *Optional (use None)")
		}
		if x.Value == nil {
			return append(dst, `{"optional":{}}`...), nil
		}
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		dst = append(dst, `{"optional":{"value":`...)
		if dst, err = p.encode(dst, x.Value, depth); err != nil {
			return dst, err
		}
		return append(dst, `}}`...), nil
	case List:
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		if len(x) == 0 {
			return append(dst, `{"list":{}}`...), nil
		}
		dst = append(dst, `{"list":{"elements":[`...)
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = p.encode(dst, e, depth); err != nil {
				return dst, atIndex(err, i)
			}
		}
		return append(dst, `]}}`...), nil
	case TextMap:
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		if len(x) == 0 {
			return append(dst, `{"textMap":{}}`...), nil
		}
		dst = append(dst, `{"textMap":{"entries":[`...)
		for i := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '{')
			if x[i].Key != "" {
				dst = append(dst, `"key":`...)
				dst = appendJSONString(dst, x[i].Key)
				dst = append(dst, ',')
			}
			dst = append(dst, `"value":`...)
			if dst, err = p.encode(dst, x[i].Value, depth); err != nil {
				return dst, atKey(err, x[i].Key)
			}
			dst = append(dst, '}')
		}
		return append(dst, `]}}`...), nil
	case GenMap:
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		if len(x) == 0 {
			return append(dst, `{"genMap":{}}`...), nil
		}
		dst = append(dst, `{"genMap":{"entries":[`...)
		for i := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"key":`...)
			if dst, err = p.encode(dst, x[i].Key, depth); err != nil {
				return dst, atIndex(atKey(err, "key"), i)
			}
			dst = append(dst, `,"value":`...)
			if dst, err = p.encode(dst, x[i].Value, depth); err != nil {
				return dst, atIndex(atKey(err, "value"), i)
			}
			dst = append(dst, '}')
		}
		return append(dst, `]}}`...), nil
	case nil:
		return dst, errorf("missing value (nil)")
	default:
		return dst, errorf(fmt.Sprintf("unsupported value type %T", v))
	}
}

// Decode parses a protobuf_json value. It needs no type; when t is not
// nil the result is also checked against it (see [Validate]).
func (p protobufJSON) Decode(data []byte, t *Type) (Value, error) {
	j, err := parseJSON(data)
	if err != nil {
		return nil, finish("decode", protobufJSONName, err)
	}
	v, err := decodeProto(&j, 0)
	if err != nil {
		return nil, finish("decode", protobufJSONName, err)
	}
	if t != nil {
		if err := validate(v, t, 0); err != nil {
			return nil, finish("decode", protobufJSONName, err)
		}
	}
	return v, nil
}

// protoName maps the JSON names JsonFormat.parser() accepts for our
// messages (the lowerCamelCase json_name and the proto field name) to the
// json_name, or "" for an unknown name.
func protoName(key string) string {
	switch key {
	case "unit", "bool", "int64", "date", "timestamp", "numeric", "party",
		"text", "contractId", "optional", "list", "textMap", "genMap",
		"record", "variant", "enum", "recordId", "variantId", "enumId",
		"packageId", "moduleName", "entityName", "fields", "label", "value",
		"constructor", "elements", "entries", "key":
		return key
	case "contract_id":
		return "contractId"
	case "text_map":
		return "textMap"
	case "gen_map":
		return "genMap"
	case "record_id":
		return "recordId"
	case "variant_id":
		return "variantId"
	case "enum_id":
		return "enumId"
	case "package_id":
		return "packageId"
	case "module_name":
		return "moduleName"
	case "entity_name":
		return "entityName"
	}
	return ""
}

// protoFields holds the set fields of a message, indexed like the allowed
// names passed to protoMessage.
type protoFields [3]*jsonValue

// protoMessage collects the set fields of a JSON object standing for a
// proto message with the given (at most three) fields, rejecting unknown
// and repeated fields. Null members are "not set", as in proto3 JSON.
func protoMessage(j *jsonValue, what string, allowed ...string) (protoFields, error) {
	var set protoFields
	if j.kind != jsonObject {
		return set, errorf("expected an object (" + what + "), got " + j.kind.String())
	}
	for i := range j.members {
		m := &j.members[i]
		name := protoName(m.key)
		k := -1
		for a := range allowed {
			if allowed[a] == name {
				k = a
				break
			}
		}
		if k < 0 || name == "" {
			return set, atKey(errorf("unknown field of "+what), m.key)
		}
		if m.value.kind == jsonNull {
			continue
		}
		if set[k] != nil {
			return set, atKey(errorf("field "+name+" set twice"), m.key)
		}
		set[k] = &m.value
	}
	return set, nil
}

func isValueCase(name string) bool {
	switch name {
	case "unit", "bool", "int64", "date", "timestamp", "numeric", "party", "text",
		"contractId", "optional", "list", "textMap", "genMap", "record", "variant", "enum":
		return true
	}
	return false
}

func protoString(j *jsonValue) (string, error) {
	if j.kind != jsonString {
		return "", errorf("expected a string, got " + j.kind.String())
	}
	return j.str, nil
}

// protoInt parses a proto integer, which proto3 JSON allows as a string or
// a number.
func protoInt(j *jsonValue, bits int) (int64, error) {
	if j.kind != jsonString && j.kind != jsonNumber {
		return 0, errorf("expected an integer (string or number), got " + j.kind.String())
	}
	i, err := strconv.ParseInt(j.str, 10, bits)
	if err != nil {
		return 0, errorf("invalid " + strconv.Itoa(bits) + "-bit integer " + strconv.Quote(j.str))
	}
	return i, nil
}

func protoIdentifier(j *jsonValue) (*Identifier, error) {
	set, err := protoMessage(j, "Identifier", "packageId", "moduleName", "entityName")
	if err != nil {
		return nil, err
	}
	var parts [3]string
	for k, name := range [...]string{"packageId", "moduleName", "entityName"} {
		if set[k] != nil {
			if parts[k], err = protoString(set[k]); err != nil {
				return nil, atKey(err, name)
			}
		}
	}
	return &Identifier{PackageID: parts[0], ModuleName: parts[1], EntityName: parts[2]}, nil
}

func decodeProto(j *jsonValue, depth int) (Value, error) {
	if j.kind != jsonObject {
		return nil, errorf("expected an object (Value), got " + j.kind.String())
	}
	var name string
	var c *jsonValue
	for i := range j.members {
		m := &j.members[i]
		n := protoName(m.key)
		if !isValueCase(n) {
			return nil, atKey(errorf("unknown field of Value"), m.key)
		}
		if m.value.kind == jsonNull {
			continue
		}
		if c != nil {
			return nil, atKey(errorf("a Value has more than one case set ("+name+" and "+n+")"), m.key)
		}
		name, c = n, &m.value
	}
	if c == nil {
		return nil, errorf("a Value needs exactly one of unit, bool, int64, date, timestamp, numeric, party, text, contractId, optional, list, textMap, genMap, record, variant, enum")
	}
	v, err := decodeProtoCase(name, c, depth)
	if err != nil {
		return nil, atKey(err, name)
	}
	return v, nil
}

func decodeProtoCase(name string, c *jsonValue, depth int) (Value, error) {
	switch name {
	case "unit":
		if c.kind != jsonObject || len(c.members) != 0 {
			return nil, errorf("expected {} (google.protobuf.Empty), got " + describeObject(c))
		}
		return Unit{}, nil
	case "bool":
		if c.kind != jsonBool {
			return nil, errorf("expected true or false, got " + c.kind.String())
		}
		return Bool(c.boolean), nil
	case "int64":
		i, err := protoInt(c, 64)
		return Int64(i), err
	case "timestamp":
		i, err := protoInt(c, 64)
		if err != nil {
			return nil, err
		}
		if t := Timestamp(i); t.Valid() {
			return t, nil
		}
		return nil, errorf(errTimestampRange.Error())
	case "date":
		i, err := protoInt(c, 32)
		if err != nil {
			return nil, err
		}
		if d := Date(i); d.Valid() {
			return d, nil
		}
		return nil, errorf(errDateRange.Error())
	case "numeric":
		s, err := protoString(c)
		if err != nil {
			return nil, err
		}
		n, err := parseNumericLenient(s)
		if err != nil {
			return nil, errorf("invalid Numeric: " + err.Error())
		}
		return n, nil
	case "party":
		s, err := protoString(c)
		return Party(s), err
	case "text":
		s, err := protoString(c)
		return Text(s), err
	case "contractId":
		s, err := protoString(c)
		return ContractID(s), err
	}
	if depth++; depth > MaxNesting {
		return nil, errorf(errTooDeep)
	}
	switch name {
	case "optional":
		set, err := protoMessage(c, "Optional", "value")
		if err != nil {
			return nil, err
		}
		if set[0] == nil {
			return &Optional{}, nil
		}
		v, err := decodeProto(set[0], depth)
		if err != nil {
			return nil, atKey(err, "value")
		}
		return &Optional{Value: v}, nil
	case "list":
		elems, err := protoRepeated(c, "List", "elements")
		if err != nil {
			return nil, err
		}
		l := make(List, len(elems))
		for i := range elems {
			if l[i], err = decodeProto(&elems[i], depth); err != nil {
				return nil, atKey(atIndex(err, i), "elements")
			}
		}
		return l, nil
	case "textMap":
		entries, err := protoRepeated(c, "TextMap", "entries")
		if err != nil {
			return nil, err
		}
		m := make(TextMap, len(entries))
		seen := make(map[string]struct{}, len(entries))
		for i := range entries {
			e, err := decodeProtoEntry(&entries[i], false, depth)
			if err != nil {
				return nil, atKey(atIndex(err, i), "entries")
			}
			key := string(e.Key.(Text))
			if _, dup := seen[key]; dup {
				return nil, atKey(atIndex(errorf("duplicate map key "+strconv.Quote(key)), i), "entries")
			}
			seen[key] = struct{}{}
			m[i] = TextMapEntry{Key: key, Value: e.Value}
		}
		return m, nil
	case "genMap":
		entries, err := protoRepeated(c, "GenMap", "entries")
		if err != nil {
			return nil, err
		}
		m := make(GenMap, len(entries))
		seen := make(map[string]struct{}, len(entries))
		for i := range entries {
			e, err := decodeProtoEntry(&entries[i], true, depth)
			if err != nil {
				return nil, atKey(atIndex(err, i), "entries")
			}
			if err := checkDuplicateKey(seen, e.Key); err != nil {
				return nil, atKey(atIndex(atKey(err, "key"), i), "entries")
			}
			m[i] = e
		}
		return m, nil
	case "record":
		set, err := protoMessage(c, "Record", "recordId", "fields")
		if err != nil {
			return nil, err
		}
		r := &Record{}
		if idj := set[0]; idj != nil {
			if r.ID, err = protoIdentifier(idj); err != nil {
				return nil, atKey(err, "recordId")
			}
		}
		if fj := set[1]; fj != nil {
			if fj.kind != jsonArray {
				return nil, atKey(errorf("expected an array, got "+fj.kind.String()), "fields")
			}
			r.Fields = make([]Field, len(fj.elems))
			for i := range fj.elems {
				f, err := decodeProtoField(&fj.elems[i], depth)
				if err != nil {
					return nil, atKey(atIndex(err, i), "fields")
				}
				r.Fields[i] = f
			}
		}
		return r, nil
	case "variant":
		set, err := protoMessage(c, "Variant", "variantId", "constructor", "value")
		if err != nil {
			return nil, err
		}
		vr := &Variant{}
		if idj := set[0]; idj != nil {
			if vr.ID, err = protoIdentifier(idj); err != nil {
				return nil, atKey(err, "variantId")
			}
		}
		if cj := set[1]; cj != nil {
			if vr.Constructor, err = protoString(cj); err != nil {
				return nil, atKey(err, "constructor")
			}
		}
		if set[2] == nil {
			return nil, errorf("a Variant needs a value")
		}
		if vr.Value, err = decodeProto(set[2], depth); err != nil {
			return nil, atKey(err, "value")
		}
		return vr, nil
	case "enum":
		set, err := protoMessage(c, "Enum", "enumId", "constructor")
		if err != nil {
			return nil, err
		}
		en := &Enum{}
		if idj := set[0]; idj != nil {
			if en.ID, err = protoIdentifier(idj); err != nil {
				return nil, atKey(err, "enumId")
			}
		}
		if cj := set[1]; cj != nil {
			if en.Constructor, err = protoString(cj); err != nil {
				return nil, atKey(err, "constructor")
			}
		}
		return en, nil
	}
	return nil, errorf("unknown Value case") // unreachable: protoMessage filtered
}

func describeObject(j *jsonValue) string {
	if j.kind == jsonObject {
		return "an object with fields"
	}
	return j.kind.String()
}

// protoRepeated returns the elements of a message's only, repeated field.
func protoRepeated(c *jsonValue, what, field string) ([]jsonValue, error) {
	set, err := protoMessage(c, what, field)
	if err != nil {
		return nil, err
	}
	r := set[0]
	if r == nil {
		return nil, nil
	}
	if r.kind != jsonArray {
		return nil, atKey(errorf("expected an array, got "+r.kind.String()), field)
	}
	return r.elems, nil
}

func decodeProtoField(j *jsonValue, depth int) (Field, error) {
	set, err := protoMessage(j, "RecordField", "label", "value")
	if err != nil {
		return Field{}, err
	}
	var f Field
	if lj := set[0]; lj != nil {
		if f.Label, err = protoString(lj); err != nil {
			return Field{}, atKey(err, "label")
		}
	}
	if set[1] == nil {
		return Field{}, errorf("a RecordField needs a value")
	}
	if f.Value, err = decodeProto(set[1], depth); err != nil {
		return Field{}, atKey(err, "value")
	}
	return f, nil
}

// decodeProtoEntry decodes a TextMap.Entry (key is a string, returned as
// Text) or a GenMap.Entry (key is a Value).
func decodeProtoEntry(j *jsonValue, genMap bool, depth int) (GenMapEntry, error) {
	set, err := protoMessage(j, "map entry", "key", "value")
	if err != nil {
		return GenMapEntry{}, err
	}
	var e GenMapEntry
	kj := set[0]
	switch {
	case !genMap && kj == nil:
		e.Key = Text("") // proto3 omits the empty string
	case !genMap:
		s, err := protoString(kj)
		if err != nil {
			return GenMapEntry{}, atKey(err, "key")
		}
		e.Key = Text(s)
	case kj == nil:
		return GenMapEntry{}, errorf("a GenMap entry needs a key")
	default:
		if e.Key, err = decodeProto(kj, depth); err != nil {
			return GenMapEntry{}, atKey(err, "key")
		}
	}
	if set[1] == nil {
		return GenMapEntry{}, errorf("a map entry needs a value")
	}
	if e.Value, err = decodeProto(set[1], depth); err != nil {
		return GenMapEntry{}, atKey(err, "value")
	}
	return e, nil
}
