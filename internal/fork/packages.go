package fork

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// CheckPackages refuses a snapshot with a contract of a template the
// registry does not know: sandnet runs its own Go implementations of the
// Splice templates, so a contract of another package (another Splice
// version, an application's package) could be imported but never
// exercised. The error (fault.FailedPrecondition) names every unknown
// package id with the templates the snapshot uses from it, the templates
// sandnet does not know in packages it does know, and the packages
// sandnet runs.
func CheckPackages(reg *ledger.Registry, contracts []*scanclient.AcsContract) error {
	unknownPkgs := map[string]map[string]bool{} // package id → "Module:Entity"
	var unknownTemplates []string
	known := map[string]bool{}
	for _, p := range reg.Packages() {
		known[p.ID] = true
	}
	for _, c := range contracts {
		id, err := parseIdentifier(c.TemplateID)
		if err != nil {
			return fault.Wrap(fault.FailedPrecondition, err, "contract %s", c.ContractID)
		}
		if _, ok := reg.Template(id); ok {
			continue
		}
		if known[id.PackageID] {
			unknownTemplates = append(unknownTemplates, c.TemplateID)
			continue
		}
		if unknownPkgs[id.PackageID] == nil {
			unknownPkgs[id.PackageID] = map[string]bool{}
		}
		unknownPkgs[id.PackageID][id.ModuleName+":"+id.EntityName] = true
	}
	if len(unknownPkgs) == 0 && len(unknownTemplates) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("cannot fork: the source's snapshot has contracts sandnet cannot run")
	if len(unknownPkgs) > 0 {
		b.WriteString("; unknown package ids: ")
		for i, pkg := range slices.Sorted(maps.Keys(unknownPkgs)) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (templates %s)", pkg, strings.Join(slices.Sorted(maps.Keys(unknownPkgs[pkg])), ", "))
		}
	}
	if len(unknownTemplates) > 0 {
		slices.Sort(unknownTemplates)
		fmt.Fprintf(&b, "; unknown templates of known packages: %s", strings.Join(slices.Compact(unknownTemplates), ", "))
	}
	b.WriteString("; sandnet supports: ")
	for i, p := range reg.Packages() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", p.Name, p.ID)
	}
	return fault.New(fault.FailedPrecondition, "%s", b.String())
}

// parseIdentifier parses "<package id>:<module>:<entity>". The module may
// hold dots but no colon; the entity may hold dots too.
func parseIdentifier(s string) (daml.Identifier, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return daml.Identifier{}, fault.New(fault.InvalidArgument, "malformed template id %q: want <package id>:<module>:<entity>", s)
	}
	return daml.Identifier{PackageID: parts[0], ModuleName: parts[1], EntityName: parts[2]}, nil
}
