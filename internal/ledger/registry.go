package ledger

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// Template is implemented by the Go types that describe a Daml template's
// payload. Field tags `daml:"label"` name the payload fields (see
// daml.FromGo).
type Template interface {
	TemplateID() TemplateID
	Signatories() []daml.Party
	Observers() []daml.Party
}

// Ensurer is implemented by templates with a Daml `ensure` clause. A
// creation whose Ensure fails is a fault.DamlPrecondition.
type Ensurer interface {
	Ensure() error
}

// Registry holds the templates the engine can run and their choices. sandnet
// does not load Daml packages: the Splice templates are compiled in.
type Registry struct {
	templates map[daml.Identifier]*templateInfo
	// byName indexes templates by package name, module and entity, the
	// form ledger API and Scan filters use.
	byName   map[nameKey]*templateInfo
	packages map[string]*Package // by package name
	byID     map[string]*Package // by package id
	// interfaces maps an interface id to the templates implementing it.
	interfaces map[daml.Identifier][]*templateInfo
	// declared holds every interface the registry knows: those added with
	// AddInterface and those a registered template implements.
	declared map[daml.Identifier]*interfaceInfo
}

// interfaceInfo is what the registry knows of an interface: its view type
// and its choices, which the implementing templates run.
type interfaceInfo struct {
	view    *daml.Type
	choices map[string]*ChoiceType
}

type nameKey struct{ pkg, module, entity string }

type templateInfo struct {
	id         TemplateID
	goType     reflect.Type
	payload    *daml.Type
	choices    map[string]*choiceInfo
	interfaces []daml.Identifier
	// views computes the template's view for each interface it implements
	// (see AddInterfaceView).
	views map[daml.Identifier]func(Template) (any, error)
}

type choiceInfo struct {
	name      string
	consuming bool
	argType   reflect.Type
	resType   reflect.Type
	// arg and res describe argType and resType: what the value-level
	// command layer sees.
	arg, res    *daml.Type
	controllers func(c Template, arg any) []daml.Party
	run         func(tx *Tx, self daml.ContractID, c Template, arg any) (any, error)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		templates:  map[daml.Identifier]*templateInfo{},
		byName:     map[nameKey]*templateInfo{},
		packages:   map[string]*Package{},
		byID:       map[string]*Package{},
		interfaces: map[daml.Identifier][]*templateInfo{},
		declared:   map[daml.Identifier]*interfaceInfo{},
	}
}

// mustTypeOf is daml.TypeOf for registration, where a Go type without a
// Daml type is a programming error.
func mustTypeOf(t reflect.Type) *daml.Type {
	typ, err := daml.TypeOf(t)
	if err != nil {
		panic(fmt.Sprintf("ledger: %v has no Daml type: %v", t, err))
	}
	return typ
}

// RegisterTemplate adds template T with the interfaces it implements and the
// built-in Archive choice.
func RegisterTemplate[T Template](r *Registry, implements ...daml.Identifier) {
	var zero T
	id := zero.TemplateID()
	if _, dup := r.templates[id.Identifier]; dup {
		panic(fmt.Sprintf("ledger: template %s registered twice", id.Identifier))
	}
	r.addPackage(Package{Name: id.PackageName, ID: id.PackageID})
	info := &templateInfo{id: id, goType: reflect.TypeFor[T](), payload: mustTypeOf(reflect.TypeFor[T]()),
		choices: map[string]*choiceInfo{}, interfaces: implements,
		views: map[daml.Identifier]func(Template) (any, error){}}
	r.templates[id.Identifier] = info
	r.byName[nameKey{id.PackageName, id.ModuleName, id.EntityName}] = info
	for _, i := range implements {
		r.interfaces[i] = append(r.interfaces[i], info)
		r.declare(i)
	}
	// Every Daml template has a consuming Archive choice controlled by its
	// signatories.
	AddChoice(r, "Archive", true,
		func(c T, _ daml.Unit) []daml.Party { return c.Signatories() },
		func(*Tx, daml.ContractID, T, daml.Unit) (daml.Unit, error) { return daml.Unit{}, nil })
}

// AddChoice adds a choice to template T. Controllers returns the parties
// that must authorize an exercise; run is the choice body. Consuming choices
// archive the contract before the body runs, as in Daml.
func AddChoice[T Template, A, R any](r *Registry, name string, consuming bool,
	controllers func(c T, arg A) []daml.Party,
	run func(tx *Tx, self daml.ContractID, c T, arg A) (R, error),
) {
	var zero T
	info := r.templates[zero.TemplateID().Identifier]
	if info == nil {
		panic(fmt.Sprintf("ledger: choice %s on unregistered template %T", name, zero))
	}
	if _, dup := info.choices[name]; dup {
		panic(fmt.Sprintf("ledger: choice %s registered twice on %T", name, zero))
	}
	info.choices[name] = &choiceInfo{
		name:        name,
		consuming:   consuming,
		argType:     reflect.TypeFor[A](),
		resType:     reflect.TypeFor[R](),
		arg:         mustTypeOf(reflect.TypeFor[A]()),
		res:         mustTypeOf(reflect.TypeFor[R]()),
		controllers: func(c Template, arg any) []daml.Party { return controllers(c.(T), arg.(A)) },
		run: func(tx *Tx, self daml.ContractID, c Template, arg any) (any, error) {
			return run(tx, self, c.(T), arg.(A))
		},
	}
}

// Template returns the template with the given package id, module and
// entity.
func (r *Registry) Template(id daml.Identifier) (TemplateID, bool) {
	info, ok := r.templates[id]
	if !ok {
		return TemplateID{}, false
	}
	return info.id, true
}

// PayloadType returns the Daml type of a registered template's payload,
// for decoding payloads from wire formats that need one (the ledger API's
// JSON).
func (r *Registry) PayloadType(id daml.Identifier) (*daml.Type, error) {
	info, ok := r.templates[id]
	if !ok {
		return nil, fault.New(fault.NotFound, "unknown template %s", id)
	}
	return info.payload, nil
}

// ChoiceTypes returns the Daml types of the argument and the result of a
// registered template's choice, for the same purpose as PayloadType.
func (r *Registry) ChoiceTypes(id daml.Identifier, choice string) (arg, result *daml.Type, err error) {
	info, ok := r.templates[id]
	if !ok {
		return nil, nil, fault.New(fault.NotFound, "unknown template %s", id)
	}
	ch, ok := info.choices[choice]
	if !ok {
		return nil, nil, fault.New(fault.NotFound, "unknown choice %s of template %s", choice, id)
	}
	return ch.arg, ch.res, nil
}

// Choices lists the names of a registered template's choices, sorted, the
// built-in Archive among them.
func (r *Registry) Choices(id daml.Identifier) []string {
	info, ok := r.templates[id]
	if !ok {
		return nil
	}
	return slices.Sorted(maps.Keys(info.choices))
}

// TemplateByName resolves the package-name form of a template id.
func (r *Registry) TemplateByName(pkg, module, entity string) (TemplateID, bool) {
	info, ok := r.byName[nameKey{pkg, module, entity}]
	if !ok {
		return TemplateID{}, false
	}
	return info.id, true
}

// PackageID returns the id of a known package name.
func (r *Registry) PackageID(name string) (string, bool) {
	p, ok := r.packages[name]
	if !ok {
		return "", false
	}
	return p.ID, true
}

// Package is a Daml package a registry knows: its name (what package-name
// references and filters match), its id, and its version (empty when the
// package was only named by its templates).
type Package struct {
	Name    string
	ID      string
	Version string
}

// Packages lists the packages of the registered templates and those added
// with AddPackage, by name: what a network built on the registry runs, for
// messages that must say so.
func (r *Registry) Packages() []Package {
	out := make([]Package, 0, len(r.packages))
	for _, p := range r.packages {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Package) int { return compareStrings(a.Name, b.Name) })
	return out
}

// AddPackage records a package, so that filters and commands can name its
// templates and interfaces in package-name form and the registry can list
// it with its version; packages of registered templates are recorded by
// RegisterTemplate (without a version). A package name with two ids, or
// an id with two names, panics.
func (r *Registry) AddPackage(p Package) {
	r.addPackage(p)
}

func (r *Registry) addPackage(p Package) {
	if old, ok := r.packages[p.Name]; ok {
		if old.ID != p.ID {
			panic(fmt.Sprintf("ledger: package %s has two ids", p.Name))
		}
		if p.Version != "" {
			old.Version = p.Version
		}
		return
	}
	if old, ok := r.byID[p.ID]; ok {
		panic(fmt.Sprintf("ledger: package %s has two names, %s and %s", p.ID, old.Name, p.Name))
	}
	r.packages[p.Name] = &p
	r.byID[p.ID] = &p
}

// declare records an interface, once.
func (r *Registry) declare(id daml.Identifier) *interfaceInfo {
	info := r.declared[id]
	if info == nil {
		// Every Daml interface has the consuming Archive choice of its
		// implementations.
		info = &interfaceInfo{choices: map[string]*ChoiceType{
			"Archive": {Name: "Archive", Consuming: true, Argument: mustTypeOf(reflect.TypeFor[daml.Unit]()), Result: mustTypeOf(reflect.TypeFor[daml.Unit]())},
		}}
		r.declared[id] = info
	}
	return info
}

// AddInterface records an interface that a package added with AddPackage
// defines, so that filters can name it even while no registered template
// implements it: a participant knows the interfaces of the packages it
// vetted, and a filter on one that nothing implements selects nothing. An
// interface of an unknown package panics.
func (r *Registry) AddInterface(id daml.Identifier) {
	if r.byID[id.PackageID] == nil {
		panic(fmt.Sprintf("ledger: interface %s of an unknown package", id))
	}
	r.declare(id)
}

// InterfaceByName resolves the package-name form of an interface id to its
// package-id form. The interfaces known are those added with AddInterface
// and those some registered template implements.
func (r *Registry) InterfaceByName(pkg, module, entity string) (daml.Identifier, bool) {
	p, ok := r.packages[pkg]
	if !ok {
		return daml.Identifier{}, false
	}
	id := daml.Identifier{PackageID: p.ID, ModuleName: module, EntityName: entity}
	if r.declared[id] == nil {
		return daml.Identifier{}, false
	}
	return id, true
}

// Implementations returns the templates implementing an interface.
func (r *Registry) Implementations(iface daml.Identifier) []TemplateID {
	var out []TemplateID
	for _, info := range r.interfaces[iface] {
		out = append(out, info.id)
	}
	return out
}

// Interfaces returns the interfaces a template implements.
func (r *Registry) Interfaces(t daml.Identifier) []daml.Identifier {
	if info := r.templates[t]; info != nil {
		return slices.Clone(info.interfaces)
	}
	return nil
}

// Templates lists every registered template.
func (r *Registry) Templates() []TemplateID {
	out := make([]TemplateID, 0, len(r.templates))
	for _, info := range r.templates {
		out = append(out, info.id)
	}
	slices.SortFunc(out, func(a, b TemplateID) int {
		return compareStrings(a.PackageName+":"+a.ModuleName+":"+a.EntityName, b.PackageName+":"+b.ModuleName+":"+b.EntityName)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// decode turns a contract's payload into its Go template value.
func (info *templateInfo) decode(arg *daml.Record) (Template, error) {
	ptr := reflect.New(info.goType)
	if err := daml.ToGo(arg, ptr.Interface()); err != nil {
		return nil, fmt.Errorf("decode %s payload: %w", info.id.Identifier, err)
	}
	return ptr.Elem().Interface().(Template), nil
}
