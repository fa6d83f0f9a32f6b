package ledgerapi

import (
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// From request to plan: effectiveFormat applies the JSON layer's rules
// (filter/verbose or updateFormat), readClaims lists what the caller must
// be allowed to read, compile validates the request as Canton's
// UpdateServiceRequestValidator does, and resolve looks the filters'
// package names up.

// effectiveFormat returns the update format a request asks for: its
// updateFormat, or the one its deprecated filter and verbose stand for.
// For the deprecated trees list (trees) the filter stands for
// LEDGER_EFFECTS transactions and reassignments, without topology events,
// which a tree list has no case for.
func effectiveFormat(req *getUpdatesRequest, trees bool) (*updateFormat, error) {
	if err := checkLegacyFormat("update_format", req.UpdateFormat != nil, req.Filter != nil, req.Verbose); err != nil {
		return nil, err
	}
	if req.UpdateFormat != nil {
		return req.UpdateFormat, nil
	}
	ef := *req.Filter
	if req.Verbose != nil {
		ef.Verbose = *req.Verbose
	}
	uf := &updateFormat{
		Transactions:  &transactionFormat{EventFormat: &ef, Shape: shapeACSDelta},
		Reassignments: &ef,
	}
	if trees {
		uf.Transactions.Shape = shapeLedgerEffects
		return uf, nil
	}
	// Topology events for the parties the filter names; an empty list is
	// every party, which is what a filter for any party alone asks for.
	switch {
	case len(ef.Parties) > 0:
		parties := slices.Clone(ef.Parties)
		uf.Topology = &topologyFormat{PartyAuth: &parties}
	case ef.AnyParty != nil:
		uf.Topology = &topologyFormat{PartyAuth: &[]string{}}
	}
	return uf, nil
}

// checkLegacyFormat is the JSON layer's rule on a request's format (named
// format: update_format, event_format) and its deprecated filter and
// verbose: one of the two ways, not both, and at least one. verbose comes
// from a proto3 bool, where false is the unset default, so only
// verbose: true counts as set beside the format; the wallet SDK always
// sends verbose: false.
func checkLegacyFormat(format string, hasFormat, hasFilter bool, verbose *bool) error {
	either := "Please use either backwards compatible arguments (filter and verbose) or " + format
	switch {
	case hasFormat && hasFilter:
		return invalidArgument("Both %s and filter are set. %s, but not both.", format, either)
	case hasFormat && verbose != nil && *verbose:
		return invalidArgument("Both %s and verbose are set. %s, but not both.", format, either)
	case !hasFormat && !hasFilter:
		return invalidArgument("Either filter/verbose or %s is required. %s.", format, either)
	}
	return nil
}

// readClaims lists the parties the caller must be able to read as, and
// whether it must read as any party, to be served the format: every key of
// filtersByParty, any party for filtersForAnyParty, and the parties of
// topology events (any party when the list is empty).
func readClaims(uf *updateFormat) (parties []string, anyParty bool) {
	add := func(ef *eventFormat) {
		if ef == nil {
			return
		}
		parties = append(parties, ef.Parties...)
		anyParty = anyParty || ef.AnyParty != nil
	}
	if uf.Transactions != nil {
		add(uf.Transactions.EventFormat)
	}
	add(uf.Reassignments)
	if uf.Topology != nil && uf.Topology.PartyAuth != nil {
		if len(*uf.Topology.PartyAuth) == 0 {
			anyParty = true
		}
		parties = append(parties, *uf.Topology.PartyAuth...)
	}
	slices.Sort(parties)
	return slices.Compact(parties), anyParty
}

type shape uint8

const (
	acsDelta shape = iota + 1
	ledgerEffects
)

// updatePlan is a validated request.
type updatePlan struct {
	begin ledger.Offset
	// end is the inclusive end; 0 when the request is open-ended.
	end        ledger.Offset
	openEnded  bool
	descending bool

	// transactions selects the transactions' events; nil when no
	// transactions are asked for.
	transactions *selector
	shape        shape
	// reassignments selects the reassignments, by their contract's
	// stakeholders and template (the ACS_DELTA rule); nil when no
	// reassignments are asked for.
	reassignments *selector
	// topology selects the participant authorization events about the
	// participant, of these parties (of any party when empty); nil when
	// the request asks for no topology events.
	topology []daml.Party
	// trees renders transactions as the deprecated transaction trees,
	// always of the LEDGER_EFFECTS shape.
	trees bool
}

// witnessFilter returns the parties of which one witnesses every update
// the request can select, for the store's per-party index, or nil when
// the request reads for any party (or names no party) and the stream must
// be read whole. Every filter of every requested kind must then name its
// parties: a LEDGER_EFFECTS match is a node one of them witnesses, and an
// ACS_DELTA match a node of a contract one of them is a stakeholder of,
// which its stakeholders witness, so the index never drops a match.
// Topology parties widen the set, which is safe.
func (p *updatePlan) witnessFilter() []daml.Party {
	var out []daml.Party
	for _, s := range []*selector{p.transactions, p.reassignments} {
		if s == nil {
			continue
		}
		if s.anyParty != nil {
			return nil
		}
		out = append(out, s.parties...)
	}
	if p.topology != nil {
		if len(p.topology) == 0 {
			return nil
		}
		out = append(out, p.topology...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// selector is a compiled EventFormat: which parties' events, through
// which filters.
type selector struct {
	byParty map[daml.Party]*partyFilter
	// parties are the keys of byParty, sorted.
	parties []daml.Party
	// anyParty applies to every party the participant hosts.
	anyParty *partyFilter
}

// partyFilter is a compiled Filters: the union of its cumulative filters.
type partyFilter struct {
	wildcard     bool
	wildcardBlob bool
	templates    []templateFilter
	interfaces   []interfaceFilter
}

// templateRef is an identifier in package-name form.
type templateRef struct {
	pkg, module, entity string
}

func (t templateRef) String() string { return "#" + t.pkg + ":" + t.module + ":" + t.entity }

type templateFilter struct {
	ref  templateRef
	blob bool
}

type interfaceFilter struct {
	ref  templateRef
	id   daml.Identifier // set by resolve
	view bool
	blob bool
}

// compile validates a request and its effective format. Offsets are only
// checked for their sign here; checkLedgerEnd compares them with the
// participant's ledger end.
func compile(req *getUpdatesRequest, uf *updateFormat) (*updatePlan, error) {
	p := &updatePlan{begin: ledger.Offset(req.BeginExclusive), descending: req.DescendingOrder}
	if req.BeginExclusive < 0 {
		return nil, fault.WithCode(fault.InvalidArgument, codeNegativeOffset,
			"Offset %d in begin_exclusive is a negative integer: the offset in begin_exclusive field has to be a non-negative integer (>=0)", req.BeginExclusive)
	}
	if req.EndInclusive != nil {
		if *req.EndInclusive <= 0 {
			return nil, fault.WithCode(fault.InvalidArgument, codeNonPositiveOffset,
				"Offset %d in end_inclusive is not a positive integer: the offset has to be either a positive integer (>0) or not defined at all", *req.EndInclusive)
		}
		p.end = ledger.Offset(*req.EndInclusive)
	} else {
		p.openEnded = true
		if req.DescendingOrder {
			return nil, fault.WithCode(fault.InvalidArgument, codeDescendingMissingEnd, "end_inclusive is not provided when descending_order is true")
		}
	}
	return p, p.compileFormat(uf)
}

// compileFormat validates an update format into the plan's selectors, as
// Canton's FormatValidator does.
func (p *updatePlan) compileFormat(uf *updateFormat) error {
	if tf := uf.Transactions; tf != nil {
		switch tf.Shape {
		case "", shapeUnspecified:
			return missingField("transaction_shape")
		case shapeUnrecognized:
			return invalidArgument("transaction_shape is defined with invalid value -1")
		case shapeACSDelta:
			p.shape = acsDelta
		case shapeLedgerEffects:
			p.shape = ledgerEffects
		}
		if tf.EventFormat == nil {
			return missingField("event_format")
		}
		sel, err := compileSelector(tf.EventFormat)
		if err != nil {
			return err
		}
		p.transactions = sel
	}
	if uf.Reassignments != nil {
		sel, err := compileSelector(uf.Reassignments)
		if err != nil {
			return err
		}
		p.reassignments = sel
	}
	if uf.Topology != nil && uf.Topology.PartyAuth != nil {
		p.topology = []daml.Party{}
		for _, party := range *uf.Topology.PartyAuth {
			if msg := checkPartySyntax(party); msg != "" {
				return invalidField("parties", "%s", msg)
			}
			p.topology = append(p.topology, daml.Party(party))
		}
	}
	return nil
}

func compileSelector(ef *eventFormat) (*selector, error) {
	if len(ef.Parties) == 0 && ef.AnyParty == nil {
		return nil, invalidArgument("filtersByParty and filtersForAnyParty cannot be empty simultaneously")
	}
	s := &selector{byParty: map[daml.Party]*partyFilter{}}
	for _, party := range ef.Parties {
		if msg := checkPartySyntax(party); msg != "" {
			return nil, invalidArgument("%s", msg)
		}
		pf, err := compileFilters(ef.ByParty[party])
		if err != nil {
			return nil, err
		}
		s.byParty[daml.Party(party)] = pf
		s.parties = append(s.parties, daml.Party(party))
	}
	if ef.AnyParty != nil {
		pf, err := compileFilters(*ef.AnyParty)
		if err != nil {
			return nil, err
		}
		s.anyParty = pf
	}
	return s, nil
}

// compileFilters unions a Filters' cumulative list. A list that is empty,
// or holds only Empty filters, is a wildcard without blobs.
func compileFilters(fs filters) (*partyFilter, error) {
	pf := &partyFilter{}
	real := false
	for _, c := range fs.Cumulative {
		switch c.Kind {
		case filterEmpty:
			continue
		case filterWildcard:
			pf.wildcard = true
			pf.wildcardBlob = pf.wildcardBlob || c.Blob
		case filterTemplate, filterInterface:
			if !c.HasID {
				return nil, missingField(c.IDFieldName)
			}
			ref, err := parseNameRef(c.IDFieldName, c.ID)
			if err != nil {
				return nil, err
			}
			if c.Kind == filterTemplate {
				pf.templates = append(pf.templates, templateFilter{ref: ref, blob: c.Blob})
			} else {
				pf.interfaces = append(pf.interfaces, interfaceFilter{ref: ref, view: c.View, blob: c.Blob})
			}
		}
		real = true
	}
	if !real {
		pf.wildcard = true
	}
	return pf, nil
}

// parseNameRef parses "#package-name:Module.Path:Entity". Since Canton 3.5
// the ledger API accepts only the package-name form in filters: anything
// else names a package id and is refused.
func parseNameRef(field, s string) (templateRef, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return templateRef{}, undecodable("Invalid value for: body (Invalid identifier format (%s) not matching the expected format (<package>:<moduleName>:<entityName>))", fault.Clip(s))
	}
	pkg, ok := strings.CutPrefix(parts[0], "#")
	if !ok {
		return templateRef{}, invalidField("packageId", "Received an identifier with package ID %s, but expected a package name.", fault.Clip(parts[0]))
	}
	ref := templateRef{pkg: pkg, module: parts[1], entity: parts[2]}
	if !validPackageName(pkg) {
		return ref, invalidField(field, "Invalid package name %s in %s", fault.Quote(pkg), fault.Clip(s))
	}
	if !validDottedName(ref.module) {
		return ref, invalidField(field, "Invalid module name %s in %s", fault.Quote(ref.module), fault.Clip(s))
	}
	if !validDottedName(ref.entity) {
		return ref, invalidField(field, "Invalid entity name %s in %s", fault.Quote(ref.entity), fault.Clip(s))
	}
	return ref, nil
}

// validPackageName is Daml-LF's PackageName: letters, digits, '-' and '_'.
func validPackageName(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// validDottedName is a Daml-LF dotted name: dot-separated segments, each
// starting with a letter, an underscore or a dollar sign, continued by
// those, digits and apostrophes.
func validDottedName(s string) bool {
	if s == "" || len(s) > 1000 {
		return false
	}
	for seg := range strings.SplitSeq(s, ".") {
		if seg == "" {
			return false
		}
		for i, r := range seg {
			letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r == '$'
			if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '\'')) {
				return false
			}
		}
	}
	return true
}

// checkPartySyntax checks a Daml-LF party string and returns Canton's
// complaint, or "".
func checkPartySyntax(s string) string {
	return checkIDString("Daml-LF Party", ":-_ ", 255, s)
}

// checkLedgerEnd compares the plan's offsets with the participant's ledger
// end.
func (p *updatePlan) checkLedgerEnd(ledgerEnd ledger.Offset) error {
	if p.begin > ledgerEnd {
		return fault.WithCode(fault.OutOfRange, codeOffsetAfterLedgerEnd, "Begin offset (%d) is after ledger end (%d)", p.begin, ledgerEnd)
	}
	if !p.openEnded {
		if p.end > ledgerEnd {
			return fault.WithCode(fault.OutOfRange, codeOffsetAfterLedgerEnd, "End offset (%d) is after ledger end (%d)", p.end, ledgerEnd)
		}
		if p.end < p.begin {
			return fault.WithCode(fault.FailedPrecondition, codeOffsetOutOfRange, "End offset %d is before begin offset %d.", p.end, p.begin)
		}
	}
	return nil
}

// resolve looks up the package names, templates and interfaces the
// filters name: an unknown package name is PACKAGE_NAMES_NOT_FOUND, an
// unknown template or interface of a known package
// NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME or its interface twin.
// Every unknown name is listed, sorted.
func (p *updatePlan) resolve(reg *ledger.Registry) error {
	var filters []*partyFilter
	for _, s := range []*selector{p.transactions, p.reassignments} {
		if s == nil {
			continue
		}
		for _, party := range s.parties {
			filters = append(filters, s.byParty[party])
		}
		if s.anyParty != nil {
			filters = append(filters, s.anyParty)
		}
	}
	var unknownPkgs, unknownTemplates, unknownIfaces []string
	knownPkg := func(ref templateRef) bool {
		if _, ok := reg.PackageID(ref.pkg); ok {
			return true
		}
		unknownPkgs = append(unknownPkgs, ref.pkg)
		return false
	}
	for _, f := range filters {
		for _, t := range f.templates {
			if !knownPkg(t.ref) {
				continue
			}
			if _, ok := reg.TemplateByName(t.ref.pkg, t.ref.module, t.ref.entity); !ok {
				unknownTemplates = append(unknownTemplates, "("+t.ref.pkg+","+t.ref.module+":"+t.ref.entity+")")
			}
		}
		for i := range f.interfaces {
			in := &f.interfaces[i]
			if !knownPkg(in.ref) {
				continue
			}
			id, ok := reg.InterfaceByName(in.ref.pkg, in.ref.module, in.ref.entity)
			if !ok {
				unknownIfaces = append(unknownIfaces, "("+in.ref.pkg+","+in.ref.module+":"+in.ref.entity+")")
			}
			in.id = id
		}
	}
	list := func(s []string) string {
		slices.Sort(s)
		return strings.Join(slices.Compact(s), ", ")
	}
	switch {
	case len(unknownPkgs) > 0:
		return fault.WithCode(fault.NotFound, codePackageNamesNotFound,
			"The following package names do not match upgradable packages uploaded on this participant: [%s].", list(unknownPkgs))
	case len(unknownTemplates) > 0:
		return fault.WithCode(fault.NotFound, codeNoTemplatesForName,
			"The following package-name/template qualified-name pairs do not reference any template-id uploaded on this participant: [%s].", list(unknownTemplates))
	case len(unknownIfaces) > 0:
		return fault.WithCode(fault.NotFound, codeNoInterfaceForName,
			"The following package-name/interface qualified-name pairs do not reference any interface-id uploaded on this participant: [%s].", list(unknownIfaces))
	}
	return nil
}
