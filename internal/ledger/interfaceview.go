package ledger

import (
	"fmt"
	"reflect"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// AddInterfaceView sets how template T computes its view for interface
// iface, which T must have been registered as implementing. The view is a
// Go value of type V that daml.FromGo converts (a record); unless V is an
// interface type (any), its Daml type becomes the interface's view type.
// The ledger API serves interface views of the contracts it returns for
// interface filters.
func AddInterfaceView[T Template, V any](r *Registry, iface daml.Identifier, view func(T) (V, error)) {
	var zero T
	info := r.templates[zero.TemplateID().Identifier]
	if info == nil {
		panic(fmt.Sprintf("ledger: interface view on unregistered template %T", zero))
	}
	implemented := false
	for _, i := range info.interfaces {
		implemented = implemented || i == iface
	}
	if !implemented {
		panic(fmt.Sprintf("ledger: %T does not implement %s", zero, iface))
	}
	info.views[iface] = func(t Template) (any, error) { return view(t.(T)) }
	if vt := reflect.TypeFor[V](); vt.Kind() != reflect.Interface {
		r.declare(iface).view = mustTypeOf(vt)
	}
}

// InterfaceView computes the view of contract c for interface iface. A
// template that does not implement the interface is a fault.NotFound.
func (r *Registry) InterfaceView(c *Contract, iface daml.Identifier) (daml.Value, error) {
	info := r.templates[c.Template.Identifier]
	if info == nil {
		return nil, fault.WithCode(fault.NotFound, "TEMPLATES_OR_INTERFACES_NOT_FOUND", "Unknown template %s", c.Template.Identifier)
	}
	view := info.views[iface]
	if view == nil {
		return nil, fault.WithCode(fault.NotFound, "TEMPLATES_OR_INTERFACES_NOT_FOUND",
			"Template %s has no view for interface %s", c.Template.Identifier, iface)
	}
	t, err := info.decode(c.Argument)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "decode contract %s", c.ID)
	}
	v, err := view(t)
	if err != nil {
		return nil, err
	}
	out, err := daml.FromGo(v)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode view of %s for %s", c.ID, iface)
	}
	return out, nil
}
