package ledgerapi

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/sandnet/sandnet/internal/bufpool"
	"github.com/sandnet/sandnet/internal/jsonscan"
)

// fastParseJSON parses a JSON document into the same values as
// parseJSON's encoding/json decoding (maps, slices, strings, json.Number,
// bools and nils; a repeated key's last value wins), or reports ok=false
// when it cannot be sure of that — malformed input, escapes it does not
// decode itself, deep nesting — and then parseJSON decodes with
// encoding/json, which gives the error its exact text.
//
// Why: an execute request carries the prepared transaction as one base64
// string of tens of kilobytes, and encoding/json steps its scanner over
// every byte of it twice (once to find the value's end, once to decode)
// and then once more to unquote it, through an indirect call per byte.
// Here a string without escapes is one IndexByte and a copy.
func fastParseJSON(body []byte) (v any, ok bool) {
	p := fastParser{data: body}
	p.skipSpace()
	v, ok = p.value()
	if !ok {
		return nil, false
	}
	p.skipSpace()
	return v, p.pos == len(p.data)
}

// fastMaxDepth is where fastParseJSON gives up and leaves the document to
// encoding/json (whose own limit is 10,000 levels): no request nests
// this deep, and the recursion stays shallow.
const fastMaxDepth = 512

type fastParser struct {
	data  []byte
	pos   int
	depth int
}

func (p *fastParser) skipSpace() { p.pos = jsonscan.SkipSpace(p.data, p.pos) }

func (p *fastParser) value() (any, bool) {
	if p.pos >= len(p.data) {
		return nil, false
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.string()
		return s, ok
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, false
}

func (p *fastParser) literal(word string) bool {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return false
	}
	p.pos += len(word)
	return true
}

func (p *fastParser) object() (any, bool) {
	if p.depth++; p.depth > fastMaxDepth {
		return nil, false
	}
	p.pos++ // '{'
	m := map[string]any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return m, true
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, false
		}
		k, ok := p.string()
		if !ok {
			return nil, false
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, false
		}
		p.pos++
		p.skipSpace()
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		m[k] = v
		if done, ok := p.closeOrComma('}'); !ok {
			return nil, false
		} else if done {
			return m, true
		}
	}
}

// closeOrComma reads what follows an object's member or an array's
// element: a comma (more follow) or the closing byte (done: the
// container ends). Anything else is not JSON the fast path takes.
func (p *fastParser) closeOrComma(closing byte) (done, ok bool) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, false
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return false, true
	case closing:
		p.pos++
		p.depth--
		return true, true
	}
	return false, false
}

func (p *fastParser) array() (any, bool) {
	if p.depth++; p.depth > fastMaxDepth {
		return nil, false
	}
	p.pos++ // '['
	// encoding/json decodes an empty array as an empty, non-nil slice.
	out := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return out, true
	}
	for {
		p.skipSpace()
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if done, ok := p.closeOrComma(']'); !ok {
			return nil, false
		} else if done {
			return out, true
		}
	}
}

// string reads a string at p.pos (its opening quote). A string with an
// escape is decoded by encoding/json itself, so escapes (\u surrogates
// included) mean exactly what they mean there; invalid UTF-8, which
// encoding/json replaces with U+FFFD, sends the document to it whole.
func (p *fastParser) string() (string, bool) {
	start := p.pos + 1
	rest := p.data[start:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", false
	}
	seg := rest[:end]
	if bytes.IndexByte(seg, '\\') >= 0 {
		return p.escapedString()
	}
	ascii := true
	for _, c := range seg {
		if c < 0x20 {
			return "", false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(seg) {
		return "", false
	}
	p.pos = start + end + 1
	return string(seg), true
}

// escapedString finds the end of a string with escapes and lets
// encoding/json decode it.
func (p *fastParser) escapedString() (string, bool) {
	i := p.pos + 1
	for i < len(p.data) {
		switch c := p.data[i]; {
		case c == '\\':
			i += 2
		case c == '"':
			var s string
			if err := json.Unmarshal(p.data[p.pos:i+1], &s); err != nil {
				return "", false
			}
			p.pos = i + 1
			return s, true
		case c < 0x20:
			return "", false
		default:
			i++
		}
	}
	return "", false
}

// number reads a number, kept as its literal text as UseNumber does.
func (p *fastParser) number() (any, bool) {
	start := p.pos
	end, fault := jsonscan.Number(p.data, start)
	if fault != jsonscan.NumberOK {
		return nil, false
	}
	p.pos = end
	return json.Number(p.data[start:end]), true
}

// bodyBuffers hold buffers for request bodies and answers that are done
// with when the handler returns; one grown past 256 KiB (an outsized
// request) is left to the collector.
var bodyBuffers = bufpool.Pool{Max: 256 << 10}

// getBuffer returns an empty pooled buffer.
func getBuffer() *[]byte { return bodyBuffers.Get() }

// putBuffer returns p to the pool holding b (p's buffer, possibly grown).
// Nothing may use b afterwards.
func putBuffer(p *[]byte, b []byte) { bodyBuffers.Put(p, b) }

// readAllInto is io.ReadAll reading into dst (emptied) when it has room
// for the announced body, and otherwise into a buffer sized from the
// request's Content-Length (when it is given and within maxBodyBytes), so
// that a large body is read into one allocation rather than a doubling
// series.
func readAllInto(dst []byte, r io.Reader, contentLength int64) ([]byte, error) {
	if contentLength <= 0 || contentLength > maxBodyBytes {
		return io.ReadAll(r)
	}
	// One byte more than announced, so that the read that finds the end
	// of the body does not grow the buffer.
	b := dst[:0]
	if int64(cap(b)) < contentLength+1 {
		b = make([]byte, 0, contentLength+1)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				return b, nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow: the body is longer than announced
		}
	}
}
