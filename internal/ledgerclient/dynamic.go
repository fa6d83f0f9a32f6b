package ledgerclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sandnet/sandnet/internal/daml"
)

// Some Splice fields are kept by the engine as values of a type it does
// not model (daml.KindDynamic: the action of a vote request, say). The
// ledger API's JSON is not self-describing, so such a part cannot be
// typed: decodeValue decodes the typed parts with their types and guesses
// the dynamic ones (see guess). A guessed part renders to the same JSON
// as the original, but lacks its type ids and may differ in its scalar
// kinds (a Party or an Int64 decodes as Text).

// decodeValue decodes ledger JSON as a value of type t; null is no value.
func decodeValue(raw json.RawMessage, t *daml.Type) (daml.Value, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return decodeTyped(raw, t, 0)
}

func decodeTyped(raw json.RawMessage, t *daml.Type, depth int) (daml.Value, error) {
	if depth > daml.MaxNesting {
		return nil, fmt.Errorf("value nested deeper than %d", daml.MaxNesting)
	}
	if !hasDynamic(t, map[*daml.Type]bool{}) {
		return daml.LedgerJSON.Decode(raw, t)
	}
	raw = bytes.TrimSpace(raw)
	switch t.Kind {
	case daml.KindDynamic:
		return guess(json.NewDecoder(bytes.NewReader(raw)), depth)
	case daml.KindOptional:
		if string(raw) == "null" {
			return daml.None, nil
		}
		v, err := decodeTyped(raw, t.Elem, depth+1)
		if err != nil {
			return nil, err
		}
		return daml.Some(v), nil
	case daml.KindList:
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		out := make(daml.List, 0, len(elems))
		for _, e := range elems {
			v, err := decodeTyped(e, t.Elem, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case daml.KindRecord:
		var members map[string]json.RawMessage
		if err := json.Unmarshal(raw, &members); err != nil {
			return nil, err
		}
		rec := &daml.Record{Fields: make([]daml.Field, 0, len(t.Fields))}
		if !t.ID.IsZero() {
			id := t.ID
			rec.ID = &id
		}
		for _, f := range t.Fields {
			m, ok := members[f.Label]
			if !ok || string(bytes.TrimSpace(m)) == "null" {
				// Trailing None fields are left out of the JSON.
				if f.Type.Kind != daml.KindOptional {
					return nil, fmt.Errorf("record %s: missing field %s", t.ID, f.Label)
				}
				rec.Fields = append(rec.Fields, daml.Field{Label: f.Label, Value: daml.None})
				continue
			}
			v, err := decodeTyped(m, f.Type, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Label, err)
			}
			rec.Fields = append(rec.Fields, daml.Field{Label: f.Label, Value: v})
		}
		return rec, nil
	}
	return nil, fmt.Errorf("cannot decode a %s holding a value of dynamic type", t)
}

// hasDynamic reports whether t has a part of dynamic type.
func hasDynamic(t *daml.Type, seen map[*daml.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind == daml.KindDynamic {
		return true
	}
	if hasDynamic(t.Elem, seen) || hasDynamic(t.Key, seen) {
		return true
	}
	for _, f := range t.Fields {
		if hasDynamic(f.Type, seen) {
			return true
		}
	}
	return false
}

// guess decodes a JSON value of unknown type: an object of exactly "tag"
// and "value" is a variant, any other object a record (its members in
// order), an array a list, a string Text, an integer Int64, a boolean
// Bool and null None.
func guess(d *json.Decoder, depth int) (daml.Value, error) {
	if depth > daml.MaxNesting {
		return nil, fmt.Errorf("value nested deeper than %d", daml.MaxNesting)
	}
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch v := tok.(type) {
	case nil:
		return daml.None, nil
	case bool:
		return daml.Bool(v), nil
	case string:
		return daml.Text(v), nil
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return daml.Text(v.String()), nil
		}
		return daml.Int64(n), nil
	case json.Delim:
		switch v {
		case '[':
			out := daml.List{}
			for d.More() {
				e, err := guess(d, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, e)
			}
			_, err := d.Token()
			return out, err
		case '{':
			rec := &daml.Record{Fields: []daml.Field{}}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				label, _ := k.(string)
				e, err := guess(d, depth+1)
				if err != nil {
					return nil, err
				}
				rec.Fields = append(rec.Fields, daml.Field{Label: label, Value: e})
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			if len(rec.Fields) == 2 && rec.Fields[0].Label == "tag" && rec.Fields[1].Label == "value" {
				if tag, ok := rec.Fields[0].Value.(daml.Text); ok {
					return &daml.Variant{Constructor: string(tag), Value: rec.Fields[1].Value}, nil
				}
			}
			return rec, nil
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
