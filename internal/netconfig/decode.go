package netconfig

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	yaml "github.com/oasdiff/yaml3"
)

// Error is a mistake in a network file: where it is and what is wrong.
type Error struct {
	// File is the file's path as given.
	File string
	// Line is the line (from 1) of the offending key or value; 0 when the
	// mistake is not on one line.
	Line int
	// Field is the path of the field, as validators[1].users[0].balance;
	// empty for the whole file.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error formats the mistake as file:line: field: message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// scalar is a field type that parses itself from a YAML scalar's text.
type scalar interface {
	parseScalar(s string) error
}

var scalarType = reflect.TypeFor[scalar]()

// decoder maps a YAML node tree onto the file's structs by their yaml tags,
// strictly: an unknown or repeated key, a value of the wrong kind, an alias
// or a merge key is an error naming the line and the field. It records the
// line of every field it sets (for the validation's messages) and the value
// of every field with a flag tag (for the command line's resolver).
type decoder struct {
	file  string
	lines map[string]int
	flags map[string]FlagValue
}

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) *Error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{File: d.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// kindName names what a node holds, for "want a list, got …" messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (d *decoder) decode(n *yaml.Node, path string, v reflect.Value) error {
	if n.Kind == yaml.AliasNode || n.Alias != nil {
		return d.errorf(n, path, "aliases (*%s) are not supported: write the value out", n.Value)
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!merge" {
		return d.errorf(n, path, "merge keys (<<) are not supported")
	}
	d.lines[path] = n.Line
	if v.Kind() == reflect.Pointer {
		if isNull(n) {
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.decode(n, path, v.Elem())
	}
	if reflect.PointerTo(v.Type()).Implements(scalarType) {
		if n.Kind != yaml.ScalarNode || isNull(n) {
			return d.errorf(n, path, "want a value, got %s", kindName(n))
		}
		if err := v.Addr().Interface().(scalar).parseScalar(n.Value); err != nil {
			return d.errorf(n, path, "%s", err.Error())
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		return d.decodeStruct(n, path, v)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.errorf(n, path, "want a list, got %s", kindName(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			if err := d.decode(c, fmt.Sprintf("%s[%d]", path, i), s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.String:
		if n.Kind != yaml.ScalarNode || isNull(n) || n.ShortTag() == "!!bool" {
			return d.errorf(n, path, "want a string, got %s", kindName(n))
		}
		v.SetString(n.Value)
		return nil
	case reflect.Int:
		i, err := strconv.Atoi(n.Value)
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || err != nil {
			return d.errorf(n, path, "want a whole number, got %s", kindName(n))
		}
		v.SetInt(int64(i))
		return nil
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			return d.errorf(n, path, "want true or false, got %s", kindName(n))
		}
		var b bool
		if err := n.Decode(&b); err != nil {
			return d.errorf(n, path, "want true or false, got %s", kindName(n))
		}
		v.SetBool(b)
		return nil
	}
	panic(fmt.Sprintf("netconfig: no decoder for %s", v.Type()))
}

func (d *decoder) decodeStruct(n *yaml.Node, path string, v reflect.Value) error {
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, path, "want a mapping (key: value lines), got %s", kindName(n))
	}
	t := v.Type()
	var known []string
	fields := map[string]int{}
	for i := range t.NumField() {
		if key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); key != "" && key != "-" {
			fields[key] = i
			known = append(known, key)
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			return d.errorf(k, path, "keys are plain words; merge keys (<<) and complex keys are not supported")
		}
		field := join(path, k.Value)
		idx, ok := fields[k.Value]
		if !ok {
			return d.errorf(k, field, "unknown key (known here: %s)", strings.Join(known, ", "))
		}
		if seen[k.Value] {
			return d.errorf(k, field, "repeated key")
		}
		seen[k.Value] = true
		f := t.Field(idx)
		if err := d.decode(val, field, v.Field(idx)); err != nil {
			return err
		}
		if name := f.Tag.Get("flag"); name != "" && !isNull(val) {
			fv := FlagValue{Line: val.Line, Field: field}
			if val.Kind == yaml.SequenceNode {
				for _, c := range val.Content {
					fv.List = append(fv.List, c.Value)
				}
				fv.IsList = true
			} else {
				fv.Value = val.Value
			}
			d.flags[name] = fv
		}
	}
	return nil
}
