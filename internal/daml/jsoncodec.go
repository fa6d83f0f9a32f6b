package daml

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// numericStyle selects how a schema-driven JSON format writes a Numeric.
type numericStyle uint8

const (
	numericFixed    numericStyle = iota // "10.0000000000", the ledger's string
	numericJava                         // BigDecimal.toString: "0E-10"
	numericUnscaled                     // Numeric.toUnscaledString: "10.0"
)

// jsonCodec implements the three schema-driven JSON formats, which share
// their decoder and differ only in a few encoding choices.
type jsonCodec struct {
	name             string
	numeric          numericStyle
	time             timeStyle
	dropTrailingNone bool
	// strict makes the decoder refuse what Canton's command decoder
	// refuses (see LedgerJSONStrict).
	strict bool
}

func (c *jsonCodec) Name() string { return c.name }

func (c *jsonCodec) Encode(v Value) ([]byte, error) {
	return c.AppendEncode(make([]byte, 0, 256), v)
}

func (c *jsonCodec) AppendEncode(dst []byte, v Value) ([]byte, error) {
	out, err := c.encode(dst, v, 0)
	if err != nil {
		return dst, finish("encode", c.name, err)
	}
	return out, nil
}

func isNone(v Value) bool {
	o, ok := v.(*Optional)
	return ok && o != nil && o.Value == nil
}

func (c *jsonCodec) encode(dst []byte, v Value, depth int) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case Text:
		return appendJSONString(dst, string(x)), nil
	case Party:
		return appendJSONString(dst, string(x)), nil
	case ContractID:
		return appendJSONString(dst, string(x)), nil
	case Int64:
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, int64(x), 10)
		return append(dst, '"'), nil
	case Numeric:
		dst = append(dst, '"')
		switch c.numeric {
		case numericJava:
			dst = x.appendJava(dst)
		case numericUnscaled:
			dst = x.appendUnscaled(dst)
		default:
			dst = x.appendFixed(dst)
		}
		return append(dst, '"'), nil
	case Bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case Unit:
		return append(dst, "{}"...), nil
	case Timestamp:
		if !x.Valid() {
			return dst, errorf(errTimestampRange.Error())
		}
		dst = append(dst, '"')
		dst = appendTimestamp(dst, x, c.time)
		return append(dst, '"'), nil
	case Date:
		if !x.Valid() {
			return dst, errorf(errDateRange.Error())
		}
		dst = append(dst, '"')
		dst = appendDate(dst, x)
		return append(dst, '"'), nil
	case *Record:
		if x == nil {
			return dst, errorf("nil *Record")
		}
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		n := len(x.Fields)
		if c.dropTrailingNone {
			for n > 0 && isNone(x.Fields[n-1].Value) {
				n--
			}
		}
		labelled := true
		for i := 0; i < n; i++ {
			if x.Fields[i].Label == "" {
				labelled = false
				break
			}
		}
		if !labelled {
			// Without labels the record can only be written positionally,
			// which Daml-LF JSON (and our decoders) also accept.
			dst = append(dst, '[')
			for i := 0; i < n; i++ {
				if i > 0 {
					dst = append(dst, ',')
				}
				if dst, err = c.encode(dst, x.Fields[i].Value, depth); err != nil {
					return dst, atIndex(err, i)
				}
			}
			return append(dst, ']'), nil
		}
		dst = append(dst, '{')
		for i := 0; i < n; i++ {
			f := &x.Fields[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, f.Label)
			dst = append(dst, ':')
			if dst, err = c.encode(dst, f.Value, depth); err != nil {
				return dst, atKey(err, f.Label)
			}
		}
		return append(dst, '}'), nil
	case *Variant:
		if x == nil {
			return dst, errorf("nil *Variant")
		}
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		dst = append(dst, `{"tag":`...)
		dst = appendJSONString(dst, x.Constructor)
		dst = append(dst, `,"value":`...)
		if dst, err = c.encode(dst, x.Value, depth); err != nil {
			return dst, atKey(err, "value")
		}
		return append(dst, '}'), nil
	case *Enum:
		if x == nil {
			return dst, errorf("nil *Enum")
		}
		return appendJSONString(dst, x.Constructor), nil
	case *Optional:
		if x == nil {
			return dst, errorf("nil *Optional (use None)")
		}
		if x.Value == nil {
			return append(dst, "null"...), nil
		}
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		inner, nested := x.Value.(*Optional)
		if !nested {
			return c.encode(dst, x.Value, depth)
		}
		// Some of an Optional cannot be plain: Some(None) would be null. So
		// the outer level becomes an array: Some(None) is [], Some(Some(v))
		// is [v], and so on down (ApiCodecCompressed, JsonLfEncoders).
		if inner == nil {
			return dst, errorf("nil *Optional (use None)")
		}
		if inner.Value == nil {
			return append(dst, "[]"...), nil
		}
		dst = append(dst, '[')
		if dst, err = c.encode(dst, inner, depth); err != nil {
			return dst, atIndex(err, 0)
		}
		return append(dst, ']'), nil
	case List:
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = c.encode(dst, e, depth); err != nil {
				return dst, atIndex(err, i)
			}
		}
		return append(dst, ']'), nil
	case TextMap:
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		dst = append(dst, '{')
		for i := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, x[i].Key)
			dst = append(dst, ':')
			if dst, err = c.encode(dst, x[i].Value, depth); err != nil {
				return dst, atKey(err, x[i].Key)
			}
		}
		return append(dst, '}'), nil
	case GenMap:
		if depth++; depth > MaxNesting {
			return dst, errorf(errTooDeep)
		}
		dst = append(dst, '[')
		for i := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
			if dst, err = c.encode(dst, x[i].Key, depth); err != nil {
				return dst, atIndex(atIndex(err, 0), i)
			}
			dst = append(dst, ',')
			if dst, err = c.encode(dst, x[i].Value, depth); err != nil {
				return dst, atIndex(atIndex(err, 1), i)
			}
			dst = append(dst, ']')
		}
		return append(dst, ']'), nil
	case nil:
		return dst, errorf("missing value (nil)")
	default:
		return dst, errorf(fmt.Sprintf("unsupported value type %T", v))
	}
}

func (c *jsonCodec) Decode(data []byte, t *Type) (Value, error) {
	if t == nil {
		return nil, finish("decode", c.name, errorf("no type given: "+c.name+" is not self-describing"))
	}
	j, err := parseJSON(data)
	if err != nil {
		return nil, finish("decode", c.name, err)
	}
	v, err := decodeTyped(&j, t, 0, c.strict)
	if err != nil {
		return nil, finish("decode", c.name, err)
	}
	return v, nil
}

func mismatch(want string, t *Type, j *jsonValue) error {
	return errorf("expected " + want + " for " + t.String() + ", got " + j.kind.String())
}

func idPtr(id Identifier) *Identifier {
	if id.IsZero() {
		return nil
	}
	return &id
}

// decodeTyped decodes the JSON of the schema-driven formats. The three
// formats share it: it accepts the union of what they write (Numeric in
// any of their notations, Int64 as a string or a number, records as
// objects or arrays) plus what their upstream decoders accept.
func decodeTyped(j *jsonValue, t *Type, depth int, strict bool) (Value, error) {
	if t == nil {
		return nil, errorf("invalid type: nil")
	}
	switch t.Kind {
	case KindDynamic:
		return nil, errorf("cannot decode a value of dynamic type: this format is not self-describing")
	case KindUnit:
		// Upstream accepts any object for Unit.
		if j.kind != jsonObject {
			return nil, mismatch("{}", t, j)
		}
		return Unit{}, nil
	case KindBool:
		if j.kind != jsonBool {
			return nil, mismatch("true or false", t, j)
		}
		return Bool(j.boolean), nil
	case KindInt64:
		switch j.kind {
		case jsonString:
			i, err := strconv.ParseInt(j.str, 10, 64)
			if err != nil {
				return nil, errorf("invalid Int64 " + strconv.Quote(j.str) + ": want a decimal integer in the 64-bit range")
			}
			return Int64(i), nil
		case jsonNumber:
			i, err := strconv.ParseInt(j.str, 10, 64)
			if err != nil {
				return nil, errorf("invalid Int64 " + j.str + ": want an integer in the 64-bit range")
			}
			return Int64(i), nil
		}
		return nil, mismatch("a string or a number", t, j)
	case KindNumeric:
		if j.kind != jsonString && j.kind != jsonNumber {
			return nil, mismatch("a string or a number", t, j)
		}
		n, err := parseNumericLenient(j.str)
		if err != nil {
			return nil, errorf("invalid Numeric: " + err.Error())
		}
		return n, nil
	case KindText:
		if j.kind != jsonString {
			return nil, mismatch("a string", t, j)
		}
		return Text(j.str), nil
	case KindParty:
		if j.kind != jsonString {
			return nil, mismatch("a string", t, j)
		}
		return Party(j.str), nil
	case KindContractID:
		if j.kind != jsonString {
			return nil, mismatch("a string", t, j)
		}
		return ContractID(j.str), nil
	case KindTimestamp:
		if j.kind != jsonString {
			return nil, mismatch("an ISO-8601 string", t, j)
		}
		ts, err := ParseTimestamp(j.str)
		if err != nil {
			return nil, errorf(err.Error())
		}
		return ts, nil
	case KindDate:
		if j.kind != jsonString {
			return nil, mismatch("a YYYY-MM-DD string", t, j)
		}
		d, err := ParseDate(j.str)
		if err != nil {
			return nil, errorf(err.Error())
		}
		return d, nil
	case KindOptional:
		return decodeOptional(j, t, depth, strict)
	case KindList:
		if t.Elem == nil {
			return nil, errorf("invalid type: List without element type")
		}
		if j.kind != jsonArray {
			return nil, mismatch("an array", t, j)
		}
		if depth++; depth > MaxNesting {
			return nil, errorf(errTooDeep)
		}
		l := make(List, len(j.elems))
		for i := range j.elems {
			v, err := decodeTyped(&j.elems[i], t.Elem, depth, strict)
			if err != nil {
				return nil, atIndex(err, i)
			}
			l[i] = v
		}
		return l, nil
	case KindTextMap:
		if t.Elem == nil {
			return nil, errorf("invalid type: TextMap without element type")
		}
		if j.kind != jsonObject {
			return nil, mismatch("an object", t, j)
		}
		if depth++; depth > MaxNesting {
			return nil, errorf(errTooDeep)
		}
		m := make(TextMap, len(j.members))
		for i := range j.members {
			mem := &j.members[i]
			v, err := decodeTyped(&mem.value, t.Elem, depth, strict)
			if err != nil {
				return nil, atKey(err, mem.key)
			}
			m[i] = TextMapEntry{Key: mem.key, Value: v}
		}
		// Daml keeps a TextMap sorted by key (code points, which is byte
		// order in UTF-8); JSON object order means nothing.
		slices.SortFunc(m, func(a, b TextMapEntry) int { return strings.Compare(a.Key, b.Key) })
		return m, nil
	case KindGenMap:
		return decodeGenMap(j, t, depth, strict)
	case KindRecord:
		return decodeRecord(j, t, depth, strict)
	case KindVariant:
		return decodeVariant(j, t, depth, strict)
	case KindEnum:
		if j.kind != jsonString {
			return nil, mismatch("a constructor name", t, j)
		}
		if len(t.Constructors) > 0 && !slices.Contains(t.Constructors, j.str) {
			return nil, errorf("unknown constructor " + strconv.Quote(j.str) + " of " + t.String())
		}
		return &Enum{ID: idPtr(t.ID), Constructor: j.str}, nil
	default:
		return nil, errorf("invalid type: unknown kind " + t.Kind.String())
	}
}

// decodeOptional reads null as None and otherwise the element; when the
// element type is itself Optional, the outer level is an array: [] is
// Some(None) and [x] is Some of x read as the element (see encode).
func decodeOptional(j *jsonValue, t *Type, depth int, strict bool) (Value, error) {
	if t.Elem == nil {
		return nil, errorf("invalid type: Optional without element type")
	}
	if j.kind == jsonNull {
		return &Optional{}, nil
	}
	if depth++; depth > MaxNesting {
		return nil, errorf(errTooDeep)
	}
	if t.Elem.Kind != KindOptional {
		v, err := decodeTyped(j, t.Elem, depth, strict)
		if err != nil {
			return nil, err
		}
		return &Optional{Value: v}, nil
	}
	if j.kind != jsonArray || len(j.elems) > 1 {
		return nil, errorf("expected [] or [value] for nested " + t.String() + ", got " + j.kind.String())
	}
	if len(j.elems) == 0 {
		return &Optional{Value: &Optional{}}, nil
	}
	v, err := decodeOptional(&j.elems[0], t.Elem, depth, strict)
	if err != nil {
		return nil, atIndex(err, 0)
	}
	return &Optional{Value: v}, nil
}

func decodeGenMap(j *jsonValue, t *Type, depth int, strict bool) (Value, error) {
	if t.Elem == nil || t.Key == nil {
		return nil, errorf("invalid type: GenMap without key or value type")
	}
	if j.kind != jsonArray {
		return nil, mismatch("an array of [key, value] pairs", t, j)
	}
	if depth++; depth > MaxNesting {
		return nil, errorf(errTooDeep)
	}
	m := make(GenMap, len(j.elems))
	seen := make(map[string]struct{}, len(j.elems))
	for i := range j.elems {
		e := &j.elems[i]
		if e.kind != jsonArray || len(e.elems) != 2 {
			return nil, atIndex(errorf("expected a [key, value] pair, got "+describeLen(e)), i)
		}
		k, err := decodeTyped(&e.elems[0], t.Key, depth, strict)
		if err != nil {
			return nil, atIndex(atIndex(err, 0), i)
		}
		v, err := decodeTyped(&e.elems[1], t.Elem, depth, strict)
		if err != nil {
			return nil, atIndex(atIndex(err, 1), i)
		}
		if err := checkDuplicateKey(seen, k); err != nil {
			return nil, atIndex(atIndex(err, 0), i)
		}
		m[i] = GenMapEntry{Key: k, Value: v}
	}
	return m, nil
}

// checkDuplicateKey records k's canonical (protobuf_json) form in seen and
// fails if it was there already.
func checkDuplicateKey(seen map[string]struct{}, k Value) error {
	var buf [128]byte
	canon, err := protobufJSON{}.encode(buf[:0], k, 0)
	if err != nil {
		return err
	}
	if _, dup := seen[string(canon)]; dup {
		return errorf("duplicate map key")
	}
	seen[string(canon)] = struct{}{}
	return nil
}

func describeLen(j *jsonValue) string {
	if j.kind == jsonArray {
		return "an array of " + strconv.Itoa(len(j.elems)) + " elements"
	}
	return j.kind.String()
}

func decodeRecord(j *jsonValue, t *Type, depth int, strict bool) (Value, error) {
	if depth++; depth > MaxNesting {
		return nil, errorf(errTooDeep)
	}
	fields := t.Fields
	rec := &Record{ID: idPtr(t.ID), Fields: make([]Field, len(fields))}
	for k := range fields {
		if fields[k].Type == nil {
			return nil, errorf("invalid type: field " + strconv.Quote(fields[k].Label) + " of " + t.String() + " has no type")
		}
		rec.Fields[k].Label = fields[k].Label
	}
	switch j.kind {
	case jsonArray:
		// Daml-LF JSON also allows a record as the array of its fields.
		if len(j.elems) > len(fields) {
			return nil, errorf("record " + t.String() + " has " + strconv.Itoa(len(fields)) + " fields, got an array of " + strconv.Itoa(len(j.elems)))
		}
		if strict && len(j.elems) < len(fields) {
			given := make([]*jsonValue, len(fields))
			for k := range j.elems {
				given[k] = &j.elems[k]
			}
			if err := strictFieldCheck(fields, given, nil); err != nil {
				return nil, err
			}
		}
		for k := range fields {
			if k >= len(j.elems) {
				if fields[k].Type.Kind != KindOptional {
					return nil, errorf("missing field " + strconv.Quote(fields[k].Label) + " of " + t.String())
				}
				rec.Fields[k].Value = &Optional{}
				continue
			}
			v, err := decodeTyped(&j.elems[k], fields[k].Type, depth, strict)
			if err != nil {
				return nil, atIndex(err, k)
			}
			rec.Fields[k].Value = v
		}
		return rec, nil
	case jsonObject:
	default:
		return nil, mismatch("an object", t, j)
	}
	given := make([]*jsonValue, len(fields))
	var unexpected []string
	for i := range j.members {
		m := &j.members[i]
		k := fieldIndex(fields, m.key, i)
		if k < 0 {
			// Canton tolerates unknown fields that are null (an upgraded
			// template's None); anything else would be lost.
			if m.value.kind == jsonNull {
				continue
			}
			if !strict {
				return nil, atKey(errorf("unknown field of "+t.String()), m.key)
			}
			unexpected = append(unexpected, m.key)
			continue
		}
		given[k] = &m.value
	}
	if strict {
		if err := strictFieldCheck(fields, given, unexpected); err != nil {
			return nil, err
		}
	}
	for k := range fields {
		f := &fields[k]
		if given[k] == nil {
			if f.Type.Kind != KindOptional {
				return nil, errorf("missing field " + strconv.Quote(f.Label) + " of " + t.String())
			}
			rec.Fields[k].Value = &Optional{}
			continue
		}
		v, err := decodeTyped(given[k], f.Type, depth, strict)
		if err != nil {
			return nil, atKey(err, f.Label)
		}
		rec.Fields[k].Value = v
	}
	return rec, nil
}

// fieldIndex finds label among fields, trying position hint first since
// members usually come in declaration order.
func fieldIndex(fields []FieldType, label string, hint int) int {
	if hint < len(fields) && fields[hint].Label == label {
		return hint
	}
	for k := range fields {
		if fields[k].Label == label {
			return k
		}
	}
	return -1
}

func decodeVariant(j *jsonValue, t *Type, depth int, strict bool) (Value, error) {
	if j.kind != jsonObject {
		return nil, mismatch(`{"tag": ..., "value": ...}`, t, j)
	}
	if depth++; depth > MaxNesting {
		return nil, errorf(errTooDeep)
	}
	var tag, val *jsonValue
	for i := range j.members {
		m := &j.members[i]
		switch m.key {
		case "tag":
			tag = &m.value
		case "value":
			val = &m.value
		default:
			return nil, atKey(errorf("unexpected key in a variant: want only \"tag\" and \"value\""), m.key)
		}
	}
	if tag == nil || tag.kind != jsonString {
		return nil, errorf("variant " + t.String() + " needs a string \"tag\"")
	}
	if val == nil {
		return nil, errorf("variant " + t.String() + " needs a \"value\"")
	}
	k := fieldIndex(t.Fields, tag.str, 0)
	if k < 0 {
		return nil, atKey(errorf("unknown constructor "+strconv.Quote(tag.str)+" of "+t.String()), "tag")
	}
	ct := t.Fields[k].Type
	if ct == nil {
		return nil, errorf("invalid type: constructor " + strconv.Quote(tag.str) + " of " + t.String() + " has no type")
	}
	v, err := decodeTyped(val, ct, depth, strict)
	if err != nil {
		return nil, atKey(err, "value")
	}
	return &Variant{ID: idPtr(t.ID), Constructor: tag.str, Value: v}, nil
}

// strictFieldCheck reports a record's missing and unexpected fields all at
// once, as Canton's command decoder (transcode's JsonCodec) does: first
// every missing non-Optional field, then every unexpected field that is
// not null. given holds the member given for each field, nil if none.
func strictFieldCheck(fields []FieldType, given []*jsonValue, unexpected []string) error {
	var missing []string
	for k := range fields {
		if given[k] == nil && fields[k].Type.Kind != KindOptional {
			missing = append(missing, fields[k].Label)
		}
	}
	if len(missing) > 0 {
		return fieldsError(ErrMissingFields, "Missing non-optional fields: ", missing)
	}
	if len(unexpected) > 0 {
		slices.Sort(unexpected)
		return fieldsError(ErrUnexpectedFields, "Unexpected fields: ", unexpected)
	}
	return nil
}
