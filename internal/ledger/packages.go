package ledger

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// The package seam. A package supplies its templates and interfaces with
// type descriptions: the Daml type of every template payload, of every
// choice's argument and result, whether a choice consumes its contract,
// and every interface's view and choices. The command layer (APICommand),
// the JSON decoders and the renderers see packages only through these
// descriptions and the value-level Tx operations (CreateValue,
// ExerciseValue), never through Go types. Today every package is Go code
// registered with RegisterTemplate, AddChoice, AddInterfaceChoice and
// AddInterfaceView, which derive the descriptions with daml.TypeOf; a
// package read from a Daml-LF archive can supply the same descriptions
// and plug into the same layer.

// TemplateType describes a template: its id, the type of its payload, its
// key (nil: the template has no key, the case of every built-in one), its
// choices (by name) and the interfaces it implements.
type TemplateType struct {
	ID         TemplateID
	Payload    *daml.Type
	Key        *daml.Type
	Choices    []ChoiceType
	Implements []daml.Identifier
}

// Choice returns the template's choice named name.
func (t *TemplateType) Choice(name string) (*ChoiceType, bool) {
	return findChoice(t.Choices, name)
}

// ChoiceType describes a choice of a template or an interface: its name,
// whether exercising it archives the contract, and the types of its
// argument and result.
type ChoiceType struct {
	Name      string
	Consuming bool
	Argument  *daml.Type
	Result    *daml.Type
}

// InterfaceType describes an interface: its id, the name of its package,
// the type of its view (nil when the package does not say), and its
// choices (by name), which the implementing templates run.
type InterfaceType struct {
	ID          daml.Identifier
	PackageName string
	View        *daml.Type
	Choices     []ChoiceType
}

// Choice returns the interface's choice named name.
func (t *InterfaceType) Choice(name string) (*ChoiceType, bool) {
	return findChoice(t.Choices, name)
}

func findChoice(cs []ChoiceType, name string) (*ChoiceType, bool) {
	i, ok := slices.BinarySearchFunc(cs, name, func(c ChoiceType, n string) int { return strings.Compare(c.Name, n) })
	if !ok {
		return nil, false
	}
	return &cs[i], true
}

// TemplateType returns the description of a registered template, by its
// package-id form.
func (r *Registry) TemplateType(id daml.Identifier) (*TemplateType, bool) {
	info := r.templates[id]
	if info == nil {
		return nil, false
	}
	return info.describe(), true
}

func (info *templateInfo) describe() *TemplateType {
	t := &TemplateType{ID: info.id, Payload: info.payload, Implements: slices.Clone(info.interfaces)}
	for _, ch := range info.choices {
		t.Choices = append(t.Choices, ChoiceType{Name: ch.name, Consuming: ch.consuming, Argument: ch.arg, Result: ch.res})
	}
	slices.SortFunc(t.Choices, func(a, b ChoiceType) int { return strings.Compare(a.Name, b.Name) })
	return t
}

// InterfaceType returns the description of a known interface, by its
// package-id form.
func (r *Registry) InterfaceType(id daml.Identifier) (*InterfaceType, bool) {
	info := r.declared[id]
	if info == nil {
		return nil, false
	}
	t := &InterfaceType{ID: id, View: info.view}
	if p := r.byID[id.PackageID]; p != nil {
		t.PackageName = p.Name
	}
	for _, ch := range info.choices {
		t.Choices = append(t.Choices, *ch)
	}
	slices.SortFunc(t.Choices, func(a, b ChoiceType) int { return strings.Compare(a.Name, b.Name) })
	return t, true
}

// InterfaceTypes lists every known interface, sorted by id.
func (r *Registry) InterfaceTypes() []*InterfaceType {
	out := make([]*InterfaceType, 0, len(r.declared))
	for id := range r.declared {
		t, _ := r.InterfaceType(id)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *InterfaceType) int { return strings.Compare(a.ID.String(), b.ID.String()) })
	return out
}

// TemplateTypes lists every registered template, in the order of
// [Registry.Templates].
func (r *Registry) TemplateTypes() []*TemplateType {
	ids := r.Templates()
	out := make([]*TemplateType, 0, len(ids))
	for _, id := range ids {
		out = append(out, r.templates[id.Identifier].describe())
	}
	return out
}

// AddInterfaceChoice declares a choice of interface iface with argument
// type A and result type R, which every template implementing iface runs
// as its own choice of the same name (registered with AddChoice, with the
// same types). Exercising it through the interface id runs the
// implementing template's choice and records the interface on the
// exercise. The interface must be known (AddInterface, or implemented by
// a registered template); a choice declared twice panics.
func AddInterfaceChoice[A, R any](r *Registry, iface daml.Identifier, name string, consuming bool) {
	info := r.declared[iface]
	if info == nil {
		panic(fmt.Sprintf("ledger: choice %s on unknown interface %s", name, iface))
	}
	if _, dup := info.choices[name]; dup {
		panic(fmt.Sprintf("ledger: choice %s declared twice on interface %s", name, iface))
	}
	info.choices[name] = &ChoiceType{Name: name, Consuming: consuming,
		Argument: mustTypeOf(reflect.TypeFor[A]()), Result: mustTypeOf(reflect.TypeFor[R]())}
}

// The error codes of resolving a command's template, interface or choice,
// as Canton 3.5's JSON Ledger API answers them.
const (
	// CodeTemplatesNotFound: an unknown package, template or interface
	// (NOT_FOUND, category 11).
	CodeTemplatesNotFound = "TEMPLATES_OR_INTERFACES_NOT_FOUND"
	// CodeInvalidArgument: an unknown choice, or an entity of a known
	// package that has no such choice (INVALID_ARGUMENT, category 8); also
	// an unexpected field in a command argument.
	CodeInvalidArgument = "INVALID_ARGUMENT"
	// CodePreprocessingFailed: a command argument of the wrong shape, or
	// lacking a non-Optional field (INVALID_ARGUMENT, category 8).
	CodePreprocessingFailed = "COMMAND_PREPROCESSING_FAILED"
	// CodeAuthorization: a create without its signatories' authority or an
	// exercise without its controllers'.
	CodeAuthorization = "DAML_AUTHORIZATION_ERROR"
	// CodeInterpretation: a command that fails while interpreted for a
	// reason that is not an authorization or a Daml precondition, such as
	// a contract of another template than the command names.
	CodeInterpretation = "DAML_INTERPRETATION_ERROR"
)

// invalidArgumentPrefix starts the cause of every INVALID_ARGUMENT of the
// ledger API.
const invalidArgumentPrefix = "The submitted request has invalid arguments: "

// templatesNotFound is Canton's TEMPLATES_OR_INTERFACES_NOT_FOUND for a
// reference it cannot resolve; it names the reference as given.
func templatesNotFound(id daml.Identifier) error {
	return fault.WithCode(fault.NotFound, CodeTemplatesNotFound, "Templates do not exist: [%s].", id)
}

// invalidChoice is Canton's answer to a choice it cannot find: the JSON
// API looks a choice's argument type up by template (or interface) and
// choice together, so an unknown entity of a known package gets it too.
func invalidChoice(id daml.Identifier, choice string) error {
	return fault.WithCode(fault.InvalidArgument, CodeInvalidArgument,
		"%sInvalid template:%s or choice:%s", invalidArgumentPrefix, id, choice)
}

// resolvePackage resolves the package part of a reference: a package id,
// or "#name" for the package-name form. It returns the package-id form of
// the reference.
func (r *Registry) resolvePackage(id daml.Identifier) (daml.Identifier, bool) {
	if name, ok := strings.CutPrefix(id.PackageID, "#"); ok {
		p := r.packages[name]
		if p == nil {
			return id, false
		}
		id.PackageID = p.ID
		return id, true
	}
	return id, r.byID[id.PackageID] != nil
}

// ResolveTemplate resolves a command's template reference, in the
// package-id form ("<package id>:Module:Entity") or the package-name form
// ("#package-name:Module:Entity"), to the template's description. An
// unknown package or template is a fault.NotFound with code
// TEMPLATES_OR_INTERFACES_NOT_FOUND naming the reference.
func (r *Registry) ResolveTemplate(ref daml.Identifier) (*TemplateType, error) {
	id, ok := r.resolvePackage(ref)
	if !ok {
		return nil, templatesNotFound(ref)
	}
	info := r.templates[id]
	if info == nil {
		return nil, templatesNotFound(id)
	}
	return info.describe(), nil
}

// ResolvedChoice is a choice a command names through a template or an
// interface.
type ResolvedChoice struct {
	// Template is set when the command named a template, Interface when it
	// named an interface.
	Template  *TemplateType
	Interface *InterfaceType
	Choice    *ChoiceType
}

// ID returns the package-id form of the template or interface named.
func (c *ResolvedChoice) ID() daml.Identifier {
	if c.Interface != nil {
		return c.Interface.ID
	}
	return c.Template.ID.Identifier
}

// ResolveChoice resolves the template or interface reference of an
// exercise (in either form, as ResolveTemplate) and the choice it names.
// An unknown package is TEMPLATES_OR_INTERFACES_NOT_FOUND; an unknown
// entity of a known package, or an unknown choice, is a
// fault.InvalidArgument with code INVALID_ARGUMENT and Canton's message
// "Invalid template:<id> or choice:<choice>", since Canton's JSON API looks
// the two up together.
func (r *Registry) ResolveChoice(ref daml.Identifier, choice string) (*ResolvedChoice, error) {
	id, ok := r.resolvePackage(ref)
	if !ok {
		return nil, templatesNotFound(ref)
	}
	if info := r.templates[id]; info != nil {
		t := info.describe()
		if ch, ok := t.Choice(choice); ok {
			return &ResolvedChoice{Template: t, Choice: ch}, nil
		}
	} else if it, ok := r.InterfaceType(id); ok {
		if ch, ok := it.Choice(choice); ok {
			return &ResolvedChoice{Interface: it, Choice: ch}, nil
		}
	}
	return nil, invalidChoice(id, choice)
}

// ResolveKey resolves the template reference of an exercise by key and
// returns the type of the template's key. No built-in template has a key,
// so for those it fails as Canton does for a template without one:
// TEMPLATES_OR_INTERFACES_NOT_FOUND.
func (r *Registry) ResolveKey(ref daml.Identifier) (*TemplateType, error) {
	t, err := r.ResolveTemplate(ref)
	if err != nil {
		return nil, err
	}
	if t.Key == nil {
		return nil, templatesNotFound(t.ID.Identifier)
	}
	return t, nil
}

// inheritedFrom returns the interface a template's choice is declared by
// (see AddInterfaceChoice), or nil for a choice of the template's own.
func (r *Registry) inheritedFrom(info *templateInfo, choice string) *daml.Identifier {
	if choice == "Archive" {
		return nil // every template's own
	}
	for _, i := range info.interfaces {
		if d := r.declared[i]; d != nil {
			if _, ok := d.choices[choice]; ok {
				return &i
			}
		}
	}
	return nil
}
