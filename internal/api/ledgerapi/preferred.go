package ledgerapi

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The package preferences of the interactive submission service: for
// each requested package name, the package a command should use so that
// every participant hosting the given parties can run it. Canton picks the
// highest version vetted by all those participants; in sandnet every
// participant vets every built-in package, so the choice is the highest
// version of the name among the built-in packages. What Canton checks
// before choosing is checked here in its order, with its errors: the
// request's fields, that the package names are known
// (PACKAGE_NAMES_NOT_FOUND), that a prescribed synchronizer is connected,
// that the parties are known (UNKNOWN_INFORMEES) and share a synchronizer.
// Any active user may ask, as on Canton.

// Codes of the package preferences.
const (
	codeNoPreferredPackages = "NO_PREFERRED_PACKAGES_FOUND"
	codeUnknownInformees    = "UNKNOWN_INFORMEES"
	codeInformeesNotActive  = "INFORMEES_NOT_ACTIVE"
	// codeInvalidPrescribedSynchronizer is the routing error Canton gives
	// a prescribed synchronizer it cannot use.
	codeInvalidPrescribedSynchronizer = "INVALID_PRESCRIBED_SYNCHRONIZER_ID"
)

// The fields Canton's validation names.
const (
	fieldVettingRequirements = "package_vetting_requirements/packageVettingRequirements"
	fieldPackageName         = "package_name/packageName"
	fieldParties             = "parties"
	fieldSynchronizerID      = "synchronizer_id/synchronizerId"
)

// The responses of the package preferences.
type (
	// PackageReference names one package.
	PackageReference struct {
		PackageID      string `json:"packageId"`
		PackageName    string `json:"packageName"`
		PackageVersion string `json:"packageVersion"`
	}
	// PackagePreference is the preferred package of one name, and the
	// synchronizer it was chosen for.
	PackagePreference struct {
		PackageReference PackageReference `json:"packageReference"`
		SynchronizerID   string           `json:"synchronizerId"`
	}
	// GetPreferredPackageVersionResponse is the deprecated GET's answer.
	// Without a preference its member is null, as Canton's encoder
	// renders an absent message.
	GetPreferredPackageVersionResponse struct {
		PackagePreference *PackagePreference `json:"packagePreference"`
	}
	// GetPreferredPackagesResponse holds one reference per requested
	// package name, in the order the names were first requested, and the
	// logical id of the synchronizer they were chosen for.
	GetPreferredPackagesResponse struct {
		PackageReferences []PackageReference `json:"packageReferences"`
		SynchronizerID    string             `json:"synchronizerId"`
	}
)

// vettingRequirement is a PackageVettingRequirement.
type vettingRequirement struct {
	parties []string
	name    string
}

// preferenceRequest is a GetPreferredPackagesRequest; the deprecated GET
// is one with a single requirement. vettingValidAt is only checked:
// the built-in packages are vetted without time bounds.
type preferenceRequest struct {
	requirements []vettingRequirement
	synchronizer string
}

// validate checks the request as Canton's validator does, in its order.
func (req *preferenceRequest) validate() error {
	if len(req.requirements) == 0 {
		return missingField(fieldVettingRequirements)
	}
	for _, rq := range req.requirements {
		if rq.name == "" {
			return missingField(fieldPackageName)
		}
		if msg := checkIDString("Daml-LF Package Name", "-_", 255, rq.name); msg != "" {
			return invalidField(fieldPackageName, "%s", msg)
		}
		if len(rq.parties) == 0 {
			return missingField(fieldParties)
		}
		for _, p := range rq.parties {
			if msg := checkPartySyntax(p); msg != "" {
				return invalidArgument("%s", msg)
			}
		}
	}
	if req.synchronizer != "" {
		if msg := checkSynchronizerID(req.synchronizer); msg != "" {
			return invalidField(fieldSynchronizerID, "%s", msg)
		}
	}
	return nil
}

// preference is the outcome of a valid request: the references and the
// synchronizer, or why no selection satisfies the requirements.
type preference struct {
	refs         []PackageReference
	synchronizer string
	reason       string
}

// prefer computes the preferences of a validated request.
func (h *Handler) prefer(ctx context.Context, req *preferenceRequest) (preference, error) {
	// As Canton's request becomes a map from package name to parties, a
	// name requested twice keeps its last parties; the names keep the
	// order they were first requested in.
	var names []string
	partiesOf := map[string][]string{}
	for _, rq := range req.requirements {
		if _, ok := partiesOf[rq.name]; !ok {
			names = append(names, rq.name)
		}
		partiesOf[rq.name] = rq.parties
	}
	var unknownNames []string
	for _, n := range names {
		if _, ok := h.cfg.Registry.PackageID(n); !ok {
			unknownNames = append(unknownNames, n)
		}
	}
	if len(unknownNames) > 0 {
		return preference{}, fault.WithCode(fault.NotFound, codePackageNamesNotFound,
			"The following package names do not match upgradable packages uploaded on this participant: [%s].", strings.Join(unknownNames, ", "))
	}
	var parties []string
	for _, n := range names {
		for _, p := range partiesOf[n] {
			if !slices.Contains(parties, p) {
				parties = append(parties, p)
			}
		}
	}
	syncs, err := h.admissibleSynchronizers(ctx, req.synchronizer, parties)
	if err != nil {
		return preference{}, err
	}
	// Every participant vets every built-in package on every
	// synchronizer, so each admissible synchronizer gives the same
	// selection; Canton then takes the one with the smallest id.
	refs, reason := selectPackages(h.cfg.Registry.Packages(), names)
	if reason != "" {
		return preference{reason: "No synchronizer satisfies the vetting requirements. Discarded synchronizers: " + syncs[0] + ": " + reason}, nil
	}
	return preference{refs: refs, synchronizer: syncs[0]}, nil
}

// admissibleSynchronizers returns, sorted, the connected synchronizers
// (those of the current migration) that host every party, or only the
// prescribed one, refused as Canton's routing refuses them: an unknown
// prescribed synchronizer, parties no connected synchronizer knows, no
// synchronizer shared by all the parties, a prescribed synchronizer
// missing some of them.
func (h *Handler) admissibleSynchronizers(ctx context.Context, prescribed string, parties []string) ([]string, error) {
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return nil, err
	}
	all, err := h.cfg.Ledger.Synchronizers(ctx)
	if err != nil {
		return nil, err
	}
	hosted := map[string]map[daml.Party]bool{}
	for _, s := range all {
		if s.MigrationID == head.MigrationID {
			hosted[string(s.ID)] = map[daml.Party]bool{}
		}
	}
	if _, ok := hosted[prescribed]; prescribed != "" && !ok {
		short := shortUID(prescribed)
		return nil, invalidPrescribedSynchronizer(short, "cannot resolve to physical synchronizer; ensure the node is connected to "+short)
	}
	hs, err := h.cfg.Ledger.Hostings(ctx)
	if err != nil {
		return nil, err
	}
	known := map[daml.Party]bool{}
	for _, x := range hs {
		if on := hosted[string(x.Synchronizer)]; on != nil {
			on[x.Party] = true
			known[x.Party] = true
		}
	}
	var unknown []string
	for _, p := range parties {
		if !known[daml.Party(p)] {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) > 0 {
		e := fault.WithCode(fault.NotFound, codeUnknownInformees,
			"The participant is not connected to any synchronizer where the given informees are known.")
		e.Context = map[string]string{"unknownInformees": scalaSet(unknown)}
		return nil, e
	}
	var admissible []string
	for id, on := range hosted {
		if !slices.ContainsFunc(parties, func(p string) bool { return !on[daml.Party(p)] }) {
			admissible = append(admissible, id)
		}
	}
	if len(admissible) == 0 {
		return nil, fault.WithCode(fault.FailedPrecondition, codeInformeesNotActive,
			"There is no common synchronizer where all informees are active")
	}
	slices.Sort(admissible)
	if prescribed == "" {
		return admissible, nil
	}
	if !slices.Contains(admissible, prescribed) {
		shown := make([]string, len(admissible))
		for i, id := range admissible {
			shown[i] = shortUID(id)
		}
		return nil, fault.WithCode(fault.FailedPrecondition, codeInvalidPrescribedSynchronizer,
			"Not all informees are on the specified synchronizer: %s, but on %s", shortUID(prescribed), scalaSet(shown))
	}
	return []string{prescribed}, nil
}

// invalidPrescribedSynchronizer is Canton's refusal of a prescribed
// synchronizer for a reason, with its fields in the context.
func invalidPrescribedSynchronizer(shortID, reason string) *fault.Error {
	e := fault.WithCode(fault.FailedPrecondition, codeInvalidPrescribedSynchronizer,
		"Cannot submit transaction to prescribed synchronizer `%s` because: %s", shortID, reason)
	e.Context = map[string]string{"synchronizerId": shortID, "reason": reason}
	return e
}

// shortUID renders a unique identifier as Canton prints one in messages:
// its namespace clipped to 12 characters and "...".
func shortUID(uid string) string {
	id, ns, _ := strings.Cut(uid, "::")
	if len(ns) > 12 {
		ns = ns[:12] + "..."
	}
	return id + "::" + ns
}

// scalaSet renders strings as the Scala set Canton prints: Set(a, b) up
// to four elements, HashSet(…) beyond.
func scalaSet(items []string) string {
	prefix := "Set("
	if len(items) > 4 {
		prefix = "HashSet("
	}
	return prefix + strings.Join(items, ", ") + ")"
}

// selectPackages picks, for each name, the package of that name with the
// highest version (the greater id among equal versions, as Canton orders
// package references), from packages every participant vets. The reason
// says which name has none.
func selectPackages(pkgs []ledger.Package, names []string) ([]PackageReference, string) {
	refs := make([]PackageReference, 0, len(names))
	for _, n := range names {
		var best *ledger.Package
		for i := range pkgs {
			p := &pkgs[i]
			if p.Name == n && (best == nil || cmp.Or(compareVersions(p.Version, best.Version), strings.Compare(p.ID, best.ID)) > 0) {
				best = p
			}
		}
		if best == nil {
			return nil, "No package is consistently vetted by all hosting participants of the requested parties for package-name '" + n + "'"
		}
		refs = append(refs, PackageReference{PackageID: best.ID, PackageName: best.Name, PackageVersion: best.Version})
	}
	return refs, ""
}

// compareVersions orders Daml package versions, dot-separated
// non-negative integers, numerically segment by segment; a version that is
// a prefix of another is lower, and the empty version of a package the
// registry knows only by its templates is the lowest. The digits are
// compared as strings, by length first, so that no version overflows.
func compareVersions(a, b string) int {
	if a == "" || b == "" {
		return cmp.Compare(len(a), len(b)) // only the empty one is short
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range min(len(as), len(bs)) {
		x, y := strings.TrimLeft(as[i], "0"), strings.TrimLeft(bs[i], "0")
		if c := cmp.Or(cmp.Compare(len(x), len(y)), strings.Compare(x, y)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// GET /v2/interactive-submission/preferred-package-version (deprecated):
// the preference of one package name for the parties, or a null
// preference when no selection satisfies them.
func (h *Handler) preferredPackageVersion(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if !q.Has("package-name") {
		return undecodable("Invalid value for: query parameter package-name (missing)")
	}
	name, err := singleQuery(q, "package-name")
	if err != nil {
		return err
	}
	if q.Has("vetting_valid_at") {
		at, err := singleQuery(q, "vetting_valid_at")
		if err != nil {
			return err
		}
		if _, err := daml.ParseTimestamp(at); err != nil {
			return undecodable("Invalid value for: query parameter vetting_valid_at (%v)", err)
		}
	}
	sync, err := singleQuery(q, "synchronizer-id")
	if err != nil {
		return err
	}
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	req := &preferenceRequest{requirements: []vettingRequirement{{parties: q["parties"], name: name}}, synchronizer: sync}
	if err := req.validate(); err != nil {
		return err
	}
	pref, err := h.prefer(r.Context(), req)
	if err != nil {
		return err
	}
	var resp GetPreferredPackageVersionResponse
	if pref.reason == "" {
		resp.PackagePreference = &PackagePreference{PackageReference: pref.refs[0], SynchronizerID: pref.synchronizer}
	}
	return writeJSON(w, resp)
}

// decodePreferenceRequest decodes a GetPreferredPackagesRequest body.
// A member that is absent or null is empty, as Canton's relaxed decoder
// fills it; a malformed timestamp is a decode failure.
func decodePreferenceRequest(r *http.Request) (*preferenceRequest, error) {
	obj, err := decodeBody(r, "GetPreferredPackagesRequest")
	if err != nil {
		return nil, err
	}
	d := &decoder{}
	req := &preferenceRequest{}
	d.list("", obj, "packageVettingRequirements", func(ip string, item any) {
		o, ok := d.object(ip, item)
		if !ok {
			d.fail(ip, "expected a PackageVettingRequirement object, got null")
			return
		}
		var rq vettingRequirement
		rq.parties = d.stringList(ip, o, "parties")
		rq.name, _ = d.stringMember(ip, o, "packageName")
		req.requirements = append(req.requirements, rq)
	})
	req.synchronizer, _ = d.stringMember("", obj, "synchronizerId")
	if at, ok := d.stringMember("", obj, "vettingValidAt"); ok {
		if _, err := daml.ParseTimestamp(at); err != nil {
			d.fail("vettingValidAt", "%v", err)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	return req, nil
}

// POST /v2/interactive-submission/preferred-packages: the preferred
// package of each requested name, or NO_PREFERRED_PACKAGES_FOUND when no
// selection satisfies the requirements.
func (h *Handler) preferredPackages(w http.ResponseWriter, r *http.Request) error {
	req, err := decodePreferenceRequest(r)
	if err != nil {
		return err
	}
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	pref, err := h.prefer(r.Context(), req)
	if err != nil {
		return err
	}
	if pref.reason != "" {
		return fault.WithCode(fault.FailedPrecondition, codeNoPreferredPackages,
			"Failed to compute package preferences. Reason: %s", pref.reason)
	}
	return writeJSON(w, GetPreferredPackagesResponse{PackageReferences: pref.refs, SynchronizerID: pref.synchronizer})
}
