package splice_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// The Daml types of every template's payload and of every choice's
// argument and result, as the ledger API decodes and renders them, are
// pinned in testdata/types (one file per template): a change to a Go type
// that moves it away from Splice's Daml shows up as a diff to review
// against the Daml source. Each record, variant and enum is spelled out
// once per file, under its Daml name.
func TestChoiceTypes(t *testing.T) {
	t.Parallel()
	reg := splice.NewRegistry()
	for _, tid := range reg.Templates() {
		name := tid.ModuleName + "." + tid.EntityName
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc := typeDoc{defs: map[string]any{}, visiting: map[*daml.Type]string{}}
			payload, err := reg.PayloadType(tid.Identifier)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]any{"template": doc.name(tid.Identifier), "payload": doc.ref(payload)}
			choices := map[string]any{}
			for _, c := range reg.Choices(tid.Identifier) {
				arg, res, err := reg.ChoiceTypes(tid.Identifier, c)
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				// A choice's argument is a record named after the choice,
				// in the template's module, or in the module of the
				// interface that declares it.
				module := tid.ModuleName
				for _, i := range reg.Interfaces(tid.Identifier) {
					if it, ok := reg.InterfaceType(i); ok {
						if _, ok := it.Choice(c); ok {
							module = i.ModuleName
						}
					}
				}
				if c != "Archive" && (arg.Kind != daml.KindRecord || arg.ID.EntityName != c || arg.ID.ModuleName != module) {
					t.Errorf("%s takes %s, not the record %s:%s", c, arg, tid.ModuleName, c)
				}
				choices[c] = map[string]any{"argument": doc.ref(arg), "result": doc.ref(res)}
			}
			out["choices"] = choices
			out["types"] = doc.defs
			got, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "types", name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestChoiceTypes -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the Daml types of %s differ from %s; review the difference against Splice's Daml and rerun with -update:\n%s", name, path, got)
			}
		})
	}
}

// No golden file describes a template the registry lost.
func TestChoiceTypesHaveNoStaleGoldens(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "types", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, tid := range splice.NewRegistry().Templates() {
		known[tid.ModuleName+"."+tid.EntityName+".json"] = true
	}
	for _, f := range files {
		if !known[filepath.Base(f)] {
			t.Errorf("%s describes no registered template", f)
		}
	}
}

// typeDoc renders Daml types in Daml's surface syntax ("Optional
// (ContractId)", "[Splice.AmuletRules:TransferInput]"), records, variants
// and enums by their qualified name, with their definitions collected in
// defs under the package-qualified name.
type typeDoc struct {
	defs map[string]any
	// visiting holds the types being defined, so that a recursive type
	// (MetadataV1's AnyValue) refers to itself by name.
	visiting map[*daml.Type]string
}

func (d typeDoc) name(id daml.Identifier) string {
	pkg := id.PackageID
	for _, p := range splice.Packages() {
		if p.ID == id.PackageID {
			pkg = p.Name
		}
	}
	return pkg + ":" + id.ModuleName + ":" + id.EntityName
}

var primitives = map[daml.Kind]string{
	daml.KindUnit: "()", daml.KindBool: "Bool", daml.KindInt64: "Int", daml.KindNumeric: "Decimal",
	daml.KindText: "Text", daml.KindParty: "Party", daml.KindContractID: "ContractId",
	daml.KindTimestamp: "Time", daml.KindDate: "Date", daml.KindDynamic: "<any value>",
}

func (d typeDoc) ref(t *daml.Type) string {
	paren := func(t *daml.Type) string {
		s := d.ref(t)
		if strings.Contains(s, " ") && !strings.HasPrefix(s, "[") && !strings.HasPrefix(s, "{") {
			return "(" + s + ")"
		}
		return s
	}
	switch t.Kind {
	case daml.KindOptional:
		return "Optional " + paren(t.Elem)
	case daml.KindList:
		return "[" + d.ref(t.Elem) + "]"
	case daml.KindTextMap:
		return "TextMap " + paren(t.Elem)
	case daml.KindGenMap:
		return "Map " + paren(t.Key) + " " + paren(t.Elem)
	case daml.KindRecord, daml.KindVariant, daml.KindEnum:
		if t.ID.IsZero() {
			// A type of the standard library (DA.Time's RelTime, DA.Set's
			// Set, tuples), whose package id sandnet does not pin: spelled
			// out in place.
			for _, fields := range d.def(t) {
				return "{" + strings.Join(fields, ", ") + "}"
			}
		}
		// The definition is rendered first; a recursive reference to a
		// type being defined is its name. A generic type
		// (Splice.Schedule:Schedule) has a definition per instance: the
		// later ones are numbered.
		if ref, ok := d.visiting[t]; ok {
			return ref
		}
		d.visiting[t] = t.ID.ModuleName + ":" + t.ID.EntityName
		def := d.def(t)
		delete(d.visiting, t)
		n, ref := d.name(t.ID), t.ID.ModuleName+":"+t.ID.EntityName
		for i := 2; ; i++ {
			prev, ok := d.defs[n]
			if !ok || reflect.DeepEqual(prev, def) {
				break
			}
			n, ref = d.name(t.ID)+"#"+strconv.Itoa(i), t.ID.ModuleName+":"+t.ID.EntityName+"#"+strconv.Itoa(i)
		}
		d.defs[n] = def
		return ref
	}
	return primitives[t.Kind]
}

func (d typeDoc) def(t *daml.Type) map[string][]string {
	if t.Kind == daml.KindEnum {
		return map[string][]string{"enum": t.Constructors}
	}
	fields := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		fields[i] = f.Label + " : " + d.ref(f.Type)
	}
	if t.Kind == daml.KindVariant {
		return map[string][]string{"variant": fields}
	}
	return map[string][]string{"record": fields}
}

// Every exposed choice is listed in docs/packages.md, and the document
// names no template or choice the registry does not have.
func TestPackagesDocListsEveryChoice(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "packages.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	reg := splice.NewRegistry()
	for _, tid := range reg.Templates() {
		if !strings.Contains(text, "`"+tid.ModuleName+":"+tid.EntityName+"`") {
			t.Errorf("docs/packages.md does not list template %s:%s", tid.ModuleName, tid.EntityName)
		}
		for _, c := range reg.Choices(tid.Identifier) {
			if c != "Archive" && !strings.Contains(text, "`"+c+"`") {
				t.Errorf("docs/packages.md does not list choice %s of %s", c, tid.EntityName)
			}
		}
	}
	for _, p := range splice.Packages() {
		if !strings.Contains(text, p.ID) {
			t.Errorf("docs/packages.md does not list package %s (%s)", p.Name, p.ID)
		}
	}
}

// The interfaces sandnet declares with their views and choices (the token
// standard's V1 TransferFactory and TransferInstruction, Holding's view)
// are pinned like the templates, in testdata/types/interfaces.
func TestInterfaceTypes(t *testing.T) {
	t.Parallel()
	reg := splice.NewRegistry()
	for _, it := range reg.InterfaceTypes() {
		if it.View == nil && len(it.Choices) <= 1 {
			continue // declared only: no view or choice of its own to pin
		}
		name := it.ID.ModuleName + "." + it.ID.EntityName
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc := typeDoc{defs: map[string]any{}, visiting: map[*daml.Type]string{}}
			out := map[string]any{"interface": doc.name(it.ID)}
			if it.View != nil {
				out["view"] = doc.ref(it.View)
			}
			choices := map[string]any{}
			for _, c := range it.Choices {
				choices[c.Name] = map[string]any{"argument": doc.ref(c.Argument), "result": doc.ref(c.Result), "consuming": c.Consuming}
			}
			out["choices"] = choices
			out["types"] = doc.defs
			got, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "types", "interfaces", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestInterfaceTypes -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the Daml types of interface %s differ from %s; review the difference against Splice's Daml and rerun with -update:\n%s", name, path, got)
			}
		})
	}
}
