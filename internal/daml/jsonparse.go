package daml

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sandnet/sandnet/internal/jsonscan"
)

// The decoders parse JSON into this small tree rather than using
// encoding/json: it keeps numbers as their literal text (never float64),
// keeps object members in order and rejects duplicate keys (a TextMap with
// a repeated key must be an error, not "last one wins"), and never panics.

type jsonKind uint8

const (
	jsonNull jsonKind = iota + 1
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	switch k {
	case jsonNull:
		return "null"
	case jsonBool:
		return "a boolean"
	case jsonNumber:
		return "a number"
	case jsonString:
		return "a string"
	case jsonArray:
		return "an array"
	case jsonObject:
		return "an object"
	}
	return "nothing"
}

type jsonValue struct {
	kind    jsonKind
	boolean bool
	str     string // a string's value, or a number's literal text
	elems   []jsonValue
	members []jsonMember
}

type jsonMember struct {
	key   string
	value jsonValue
}

// get returns the member named key, or nil.
func (v *jsonValue) get(key string) *jsonValue {
	for i := range v.members {
		if v.members[i].key == key {
			return &v.members[i].value
		}
	}
	return nil
}

// maxJSONDepth bounds the parser's recursion. protobuf_json spends about
// four JSON levels per Daml level, so this leaves room for MaxNesting.
const maxJSONDepth = 8 * MaxNesting

type jsonParser struct {
	data  []byte
	pos   int
	depth int
	// Members and elements are collected on these stacks and copied into
	// exactly sized slices when their object or array ends: nested values
	// finish first, so each container's entries stay contiguous. This
	// avoids growing a slice per container.
	members []jsonMember
	elems   []jsonValue
	// Finished containers take their entries from these slabs, so that a
	// document costs a few large allocations instead of one per container.
	memberSlab []jsonMember
	elemSlab   []jsonValue
	// interned deduplicates short strings: payloads repeat the same
	// parties, package ids and module names many times.
	interned map[string]string
}

const (
	maxInternedLen   = 96
	maxInternedCount = 4096
)

func (p *jsonParser) intern(b []byte) string {
	if len(b) > maxInternedLen {
		return string(b)
	}
	if s, ok := p.interned[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	if p.interned == nil {
		p.interned = make(map[string]string, firstSlab)
	}
	if len(p.interned) < maxInternedCount {
		p.interned[s] = s
	}
	return s
}

// Slabs grow from firstSlab entries, doubling up to slabSize: a large
// document is still parsed in a few allocations, and a small one (a
// command's argument of three fields) no longer costs a 22 KiB slab.
const (
	firstSlab = 8
	slabSize  = 256
)

// nextSlab is the capacity of the slab after one of capacity last, to hold
// at least need entries.
func nextSlab(last, need int) int {
	return max(need, min(slabSize, max(firstSlab, 2*last)))
}

func (p *jsonParser) keepMembers(m []jsonMember) []jsonMember {
	if len(p.memberSlab)+len(m) > cap(p.memberSlab) {
		p.memberSlab = make([]jsonMember, 0, nextSlab(cap(p.memberSlab), len(m)))
	}
	n := len(p.memberSlab)
	p.memberSlab = append(p.memberSlab, m...)
	return p.memberSlab[n:len(p.memberSlab):len(p.memberSlab)]
}

func (p *jsonParser) keepElems(e []jsonValue) []jsonValue {
	if len(p.elemSlab)+len(e) > cap(p.elemSlab) {
		p.elemSlab = make([]jsonValue, 0, nextSlab(cap(p.elemSlab), len(e)))
	}
	n := len(p.elemSlab)
	p.elemSlab = append(p.elemSlab, e...)
	return p.elemSlab[n:len(p.elemSlab):len(p.elemSlab)]
}

// parseJSON parses one JSON document. Errors say at which byte offset.
func parseJSON(data []byte) (jsonValue, error) {
	p := jsonParser{data: data, members: make([]jsonMember, 0, firstSlab), elems: make([]jsonValue, 0, firstSlab)}
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return jsonValue{}, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return jsonValue{}, p.fail("unexpected data after the JSON value")
	}
	return v, nil
}

func (p *jsonParser) fail(msg string) error {
	return errorf("invalid JSON at byte " + strconv.Itoa(p.pos) + ": " + msg)
}

func (p *jsonParser) skipSpace() { p.pos = jsonscan.SkipSpace(p.data, p.pos) }

func (p *jsonParser) value() (jsonValue, error) {
	if p.pos >= len(p.data) {
		return jsonValue{}, p.fail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		return jsonValue{kind: jsonString, str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return jsonValue{kind: jsonBool, boolean: true}, p.literal("true")
	case c == 'f':
		return jsonValue{kind: jsonBool}, p.literal("false")
	case c == 'n':
		return jsonValue{kind: jsonNull}, p.literal("null")
	default:
		return jsonValue{}, p.fail("unexpected character " + strconv.QuoteRune(rune(c)))
	}
}

func (p *jsonParser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.fail("invalid literal")
	}
	p.pos += len(word)
	return nil
}

func (p *jsonParser) enter() error {
	p.depth++
	if p.depth > maxJSONDepth {
		return p.fail("nesting too deep")
	}
	return nil
}

func (p *jsonParser) object() (jsonValue, error) {
	if err := p.enter(); err != nil {
		return jsonValue{}, err
	}
	p.pos++ // '{'
	v := jsonValue{kind: jsonObject}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return v, nil
	}
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return jsonValue{}, p.fail("expected a string key")
		}
		keyPos := p.pos
		key, err := p.key()
		if err != nil {
			return jsonValue{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return jsonValue{}, p.fail("expected ':' after an object key")
		}
		p.pos++
		p.skipSpace()
		elem, err := p.value()
		if err != nil {
			return jsonValue{}, err
		}
		p.members = append(p.members, jsonMember{key: key, value: elem})
		if n := len(p.members) - base; n <= 16 {
			for i := base; i < len(p.members)-1; i++ {
				if p.members[i].key == key {
					p.pos = keyPos
					return jsonValue{}, p.fail("duplicate key " + strconv.Quote(key))
				}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return jsonValue{}, p.fail("unexpected end of input in an object")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.data[p.pos] == '}' {
			p.pos++
			break
		}
		return jsonValue{}, p.fail("expected ',' or '}' in an object")
	}
	v.members = p.keepMembers(p.members[base:])
	if len(v.members) > 16 {
		seen := make(map[string]struct{}, len(v.members))
		for _, m := range v.members {
			if _, dup := seen[m.key]; dup {
				return jsonValue{}, p.fail("duplicate key " + strconv.Quote(m.key))
			}
			seen[m.key] = struct{}{}
		}
	}
	p.depth--
	return v, nil
}

func (p *jsonParser) array() (jsonValue, error) {
	if err := p.enter(); err != nil {
		return jsonValue{}, err
	}
	p.pos++ // '['
	v := jsonValue{kind: jsonArray}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return v, nil
	}
	base := len(p.elems)
	defer func() { p.elems = p.elems[:base] }()
	for {
		p.skipSpace()
		elem, err := p.value()
		if err != nil {
			return jsonValue{}, err
		}
		p.elems = append(p.elems, elem)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return jsonValue{}, p.fail("unexpected end of input in an array")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.data[p.pos] == ']' {
			p.pos++
			break
		}
		return jsonValue{}, p.fail("expected ',' or ']' in an array")
	}
	v.elems = p.keepElems(p.elems[base:])
	p.depth--
	return v, nil
}

func (p *jsonParser) number() (jsonValue, error) {
	start := p.pos
	end, fault := jsonscan.Number(p.data, start)
	p.pos = end
	switch fault {
	case jsonscan.NoIntegerDigit:
		return jsonValue{}, p.fail("invalid number")
	case jsonscan.NoFractionDigit:
		return jsonValue{}, p.fail("invalid number: no digit after '.'")
	case jsonscan.NoExponentDigit:
		return jsonValue{}, p.fail("invalid number: no digit in the exponent")
	}
	return jsonValue{kind: jsonNumber, str: string(p.data[start:end])}, nil
}

// key parses an object key. The keys of the formats we read are few, so
// they are returned as constants instead of allocating each time (the
// conversion in the switch does not allocate).
func (p *jsonParser) key() (string, error) {
	start := p.pos + 1
	for i := start; i < len(p.data) && i < start+16; i++ {
		c := p.data[i]
		if c == '"' {
			if k := knownKey(p.data[start:i]); k != "" {
				p.pos = i + 1
				return k, nil
			}
			break
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return p.string()
}

func knownKey(b []byte) string {
	switch string(b) {
	case "record":
		return "record"
	case "recordId":
		return "recordId"
	case "fields":
		return "fields"
	case "label":
		return "label"
	case "value":
		return "value"
	case "packageId":
		return "packageId"
	case "moduleName":
		return "moduleName"
	case "entityName":
		return "entityName"
	case "party":
		return "party"
	case "text":
		return "text"
	case "int64":
		return "int64"
	case "numeric":
		return "numeric"
	case "timestamp":
		return "timestamp"
	case "date":
		return "date"
	case "bool":
		return "bool"
	case "unit":
		return "unit"
	case "contractId":
		return "contractId"
	case "optional":
		return "optional"
	case "list":
		return "list"
	case "elements":
		return "elements"
	case "textMap":
		return "textMap"
	case "genMap":
		return "genMap"
	case "entries":
		return "entries"
	case "key":
		return "key"
	case "variant":
		return "variant"
	case "variantId":
		return "variantId"
	case "constructor":
		return "constructor"
	case "enum":
		return "enum"
	case "enumId":
		return "enumId"
	case "tag":
		return "tag"
	}
	return ""
}

// string parses a string literal. It rejects invalid UTF-8 and unpaired
// surrogates instead of replacing them, since a Daml Text must be valid
// Unicode and silent replacement would change the value.
func (p *jsonParser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	d := p.data
	// Fast path: no escapes.
	for i := start; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return p.intern(d[start:i]), nil
		case c == '\\':
			return p.slowString(start)
		case c < 0x20:
			p.pos = i
			return "", p.fail("control character in a string")
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				p.pos = i
				return "", p.fail("invalid UTF-8 in a string")
			}
			i += size
		}
	}
	p.pos = len(d)
	return "", p.fail("unterminated string")
}

func (p *jsonParser) slowString(start int) (string, error) {
	d := p.data
	buf := make([]byte, 0, 64)
	i := start
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(buf), nil
		case c == '\\':
			if i+1 >= len(d) {
				p.pos = i
				return "", p.fail("unterminated escape")
			}
			e := d[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(d, i)
				if !ok {
					p.pos = i
					return "", p.fail("invalid \\u escape")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					var r2 rune = -1
					if i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
						r2, ok = hex4(d, i+2)
						if !ok {
							r2 = -1
						}
					}
					dec := utf16.DecodeRune(r, r2)
					if dec == utf8.RuneError {
						p.pos = i
						return "", p.fail("unpaired surrogate in a \\u escape")
					}
					i += 6
					r = dec
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.pos = i - 1
				return "", p.fail("invalid escape character " + strconv.QuoteRune(rune(e)))
			}
		case c < 0x20:
			p.pos = i
			return "", p.fail("control character in a string")
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				p.pos = i
				return "", p.fail("invalid UTF-8 in a string")
			}
			buf = append(buf, d[i:i+size]...)
			i += size
		}
	}
	p.pos = len(d)
	return "", p.fail("unterminated string")
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
