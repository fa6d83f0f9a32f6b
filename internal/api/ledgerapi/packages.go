package ledgerapi

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The packages surface. sandnet runs the packages built into it (the
// registry's), each vetted by every participant on every synchronizer it
// is connected to: the package list, a package's status and the vetted
// packages are read from the registry. It has no Daml-LF archives and
// runs no uploaded Daml, so downloading a package, uploading or
// validating a DAR and changing the vetted packages are refused with
// UNSUPPORTED_PACKAGE_OPERATION (501), a refusal in Canton's error shape
// that says so, never a 404 that would look like a missing route.
//
// Reading is open to any authenticated user, as on Canton; the refused
// operations need ParticipantAdmin first, as Canton's package management
// does.

// Codes of the packages surface.
const (
	codePackageNotFound = "PACKAGE_NOT_FOUND"
	// codeUnsupportedPackageOperation is sandnet's: Canton has no code for
	// a participant that cannot load packages. Its category is Canton's
	// InternalUnsupportedOperation (14, gRPC UNIMPLEMENTED, HTTP 501),
	// not redacted, so that the client reads why.
	codeUnsupportedPackageOperation = "UNSUPPORTED_PACKAGE_OPERATION"
	codeProtoDeserialization        = "PROTO_DESERIALIZATION_FAILURE"
	resourcePackage                 = "PACKAGE"
	// maxVettedPackagesPageSize is packageFeature.maxVettedPackagesPageSize
	// of /v2/version.
	maxVettedPackagesPageSize = 100
)

// The package statuses.
const (
	packageStatusRegistered  = "PACKAGE_STATUS_REGISTERED"
	packageStatusUnspecified = "PACKAGE_STATUS_UNSPECIFIED"
)

// The refusals, as the client reads them.
const (
	refuseUpload   = "sandnet runs its built-in packages; uploading Daml packages is not supported"
	refuseValidate = "sandnet runs its built-in packages; uploading Daml packages is not supported, so a DAR cannot be validated for upload"
	refuseVetting  = "sandnet runs its built-in packages, vetted on every participant; changing the vetted packages is not supported"
)

// The responses of the packages surface.
type (
	ListPackagesResponse struct {
		PackageIDs []string `json:"packageIds"`
	}
	GetPackageStatusResponse struct {
		PackageStatus string `json:"packageStatus"`
	}
	ListVettedPackagesResponse struct {
		VettedPackages []VettedPackages `json:"vettedPackages"`
		NextPageToken  string           `json:"nextPageToken"`
	}
	// VettedPackages are the packages one participant vetted on one
	// synchronizer.
	VettedPackages struct {
		Packages       []VettedPackage `json:"packages"`
		ParticipantID  string          `json:"participantId"`
		SynchronizerID string          `json:"synchronizerId"`
		TopologySerial int32           `json:"topologySerial"`
	}
	// VettedPackage is one vetted package; the built-in ones are vetted
	// without time bounds.
	VettedPackage struct {
		PackageID           string  `json:"packageId"`
		ValidFromInclusive  *string `json:"validFromInclusive"`
		ValidUntilExclusive *string `json:"validUntilExclusive"`
		PackageName         string  `json:"packageName"`
		PackageVersion      string  `json:"packageVersion"`
	}
)

func unsupportedPackageOperation(msg string) *fault.Error {
	return fault.WithCode(fault.FailedPrecondition, codeUnsupportedPackageOperation, "%s", msg)
}

// checkPackageID validates a package id (Daml-LF's PackageId string).
func checkPackageID(id string) error {
	if msg := checkIDString("Daml-LF Package ID", "-_ ", 64, id); msg != "" {
		return invalidArgument("Invalid package id: %s", msg)
	}
	return nil
}

// knownPackage returns the registry's package of id.
func (h *Handler) knownPackage(id string) (ledger.Package, bool) {
	for _, p := range h.cfg.Registry.Packages() {
		if p.ID == id {
			return p, true
		}
	}
	return ledger.Package{}, false
}

// GET /v2/packages: the ids of the packages the participant runs.
func (h *Handler) listPackages(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	resp := ListPackagesResponse{PackageIDs: []string{}}
	for _, p := range h.cfg.Registry.Packages() {
		resp.PackageIDs = append(resp.PackageIDs, p.ID)
	}
	slices.Sort(resp.PackageIDs)
	return writeJSON(w, resp)
}

// GET /v2/packages/{package-id}/status: REGISTERED for a package the
// participant runs, UNSPECIFIED for any other.
func (h *Handler) packageStatus(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	id := r.PathValue("package")
	if err := checkPackageID(id); err != nil {
		return err
	}
	status := packageStatusUnspecified
	if _, ok := h.knownPackage(id); ok {
		status = packageStatusRegistered
	}
	return writeJSON(w, GetPackageStatusResponse{PackageStatus: status})
}

// GET /v2/packages/{package-id}: a package's Daml-LF archive. An unknown
// package is PACKAGE_NOT_FOUND, as on Canton; a built-in one has no
// archive to download.
func (h *Handler) downloadPackage(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	id := r.PathValue("package")
	if err := checkPackageID(id); err != nil {
		return err
	}
	p, ok := h.knownPackage(id)
	if !ok {
		e := fault.WithCode(fault.NotFound, codePackageNotFound, "Could not find package.")
		e.Resources = [][2]string{{resourcePackage, id}}
		return e
	}
	return unsupportedPackageOperation("sandnet runs its built-in packages as Go code and has no Daml-LF archive of package " +
		p.ID + " (" + p.Name + ") to download")
}

// refuse answers a request of the package management service sandnet
// does not support, after checking its query parameters and that the
// caller is a participant admin.
func (h *Handler) refuse(msg string, boolParams ...string) func(w http.ResponseWriter, r *http.Request) error {
	return func(_ http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		for _, name := range boolParams {
			vs, ok := q[name]
			if !ok {
				continue
			}
			if _, err := strconv.ParseBool(vs[0]); len(vs) != 1 || err != nil {
				return undecodable("Invalid value for: query parameter %s (expected a single boolean)", name)
			}
		}
		if _, err := h.authenticateAdmin(r); err != nil {
			return err
		}
		return unsupportedPackageOperation(msg)
	}
}

// refuseVettingUpdate refuses POST /v2/package-vetting/update (and its
// deprecated twin) once its body decodes.
func (h *Handler) refuseVettingUpdate(w http.ResponseWriter, r *http.Request) error {
	if _, err := decodeBody(r, "UpdateVettedPackagesRequest"); err != nil {
		return err
	}
	return h.refuse(refuseVetting)(w, r)
}

// listVettedPackagesRequest is ListVettedPackagesRequest.
type listVettedPackagesRequest struct {
	packageIDs, namePrefixes        []string
	participantIDs, synchronizerIDs []string
	pageToken                       string
	pageSize                        int64
}

func decodeListVettedPackagesRequest(r *http.Request) (*listVettedPackagesRequest, error) {
	obj, err := decodeBody(r, "ListVettedPackagesRequest")
	if err != nil {
		return nil, err
	}
	d := &decoder{}
	req := &listVettedPackagesRequest{}
	if f, ok := d.member("", obj, "packageMetadataFilter"); ok {
		req.packageIDs = d.stringList("packageMetadataFilter", f, "packageIds")
		req.namePrefixes = d.stringList("packageMetadataFilter", f, "packageNamePrefixes")
	}
	if f, ok := d.member("", obj, "topologyStateFilter"); ok {
		req.participantIDs = d.stringList("topologyStateFilter", f, "participantIds")
		req.synchronizerIDs = d.stringList("topologyStateFilter", f, "synchronizerIds")
	}
	req.pageToken, _ = d.stringMember("", obj, "pageToken")
	if n, ok := d.int64Member("", obj, "pageSize"); ok {
		if n < -1<<31 || n >= 1<<31 {
			d.fail("pageSize", "expected an int32, got %d", n)
		}
		req.pageSize = n
	}
	if d.err != nil {
		return nil, d.err
	}
	return req, nil
}

func protoDeserialization(format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, codeProtoDeserialization, "Deserialization of protobuf message failed: "+format, args...)
}

// uniqueIdentifier reads a unique identifier ("<id>::<namespace>") of a
// topology filter; a participant id may carry its "PAR::" prefix.
func uniqueIdentifier(field, s string, participant bool) (string, error) {
	uid := s
	if participant {
		uid = uidOf(s)
	}
	if msg := checkSynchronizerID(uid); msg != "" {
		return "", protoDeserialization("Unable to parse %s: %s", field, msg)
	}
	return uid, nil
}

// uidOf is the unique identifier of a participant or synchronizer id.
func uidOf(id string) string { return ledger.ParticipantID(id).UID() }

// GET /v2/package-vetting (deprecated, with a body) and POST
// /v2/package-vetting/list: the packages each participant vetted on each
// synchronizer of the network's current migration, sorted by synchronizer
// then participant, a page of at most pageSize (participant, synchronizer)
// entries at a time. Filters keep the packages whose id is listed or
// whose name starts with a listed prefix (either, when both are given),
// and the entries of the listed participants and synchronizers; an entry
// with no package left is left out.
func (h *Handler) listVettedPackages(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeListVettedPackagesRequest(r)
	if err != nil {
		return err
	}
	if _, err := h.authenticate(r); err != nil {
		return err
	}
	for _, id := range req.packageIDs {
		if msg := checkIDString("Daml-LF Package ID", "-_ ", 64, id); msg != "" {
			return protoDeserialization("Unable to convert field `package_ids`: %s", msg)
		}
	}
	var participants, syncs []string
	for _, p := range req.participantIDs {
		uid, err := uniqueIdentifier("participant_ids", p, true)
		if err != nil {
			return err
		}
		participants = append(participants, uid)
	}
	for _, s := range req.synchronizerIDs {
		uid, err := uniqueIdentifier("synchronizer_ids", s, false)
		if err != nil {
			return err
		}
		syncs = append(syncs, uid)
	}
	var after [2]string
	if req.pageToken != "" {
		b, err := base64.RawURLEncoding.DecodeString(req.pageToken)
		sync, participant, ok := strings.Cut(string(b), "\x00")
		if err != nil || !ok {
			return protoDeserialization("Unable to parse page_token: invalid page token")
		}
		after = [2]string{sync, participant}
	}
	if req.pageSize < 0 {
		return protoDeserialization("Value %d for field page_size is negative", req.pageSize)
	}
	if req.pageSize > maxVettedPackagesPageSize {
		return protoDeserialization("Invariant violation in field page_size: Page size must not exceed the server's maximum of %d", maxVettedPackagesPageSize)
	}
	size := int(req.pageSize)
	if size == 0 {
		size = maxVettedPackagesPageSize
	}
	var pkgs []VettedPackage
	for _, p := range h.cfg.Registry.Packages() {
		if len(req.packageIDs)+len(req.namePrefixes) > 0 && !slices.Contains(req.packageIDs, p.ID) &&
			!slices.ContainsFunc(req.namePrefixes, func(prefix string) bool { return strings.HasPrefix(p.Name, prefix) }) {
			continue
		}
		pkgs = append(pkgs, VettedPackage{PackageID: p.ID, PackageName: p.Name, PackageVersion: p.Version})
	}
	// Registry.Packages is in name order; the package id breaks ties.
	slices.SortStableFunc(pkgs, func(a, b VettedPackage) int {
		if c := strings.Compare(a.PackageName, b.PackageName); c != 0 {
			return c
		}
		return strings.Compare(a.PackageID, b.PackageID)
	})
	resp := ListVettedPackagesResponse{VettedPackages: []VettedPackages{}}
	if len(pkgs) == 0 {
		return writeJSON(w, resp)
	}
	ctx := r.Context()
	head, err := h.cfg.Ledger.Head(ctx)
	if err != nil {
		return err
	}
	all, err := h.cfg.Ledger.Synchronizers(ctx)
	if err != nil {
		return err
	}
	hs, err := h.cfg.Ledger.Hostings(ctx)
	if err != nil {
		return err
	}
	// The participants of the topology: every participant hosting a
	// party, and this one.
	byUID := map[string]string{uidOf(string(h.cfg.Participant)): string(h.cfg.Participant)}
	for _, x := range hs {
		byUID[uidOf(string(x.Participant))] = string(x.Participant)
	}
	var entries []VettedPackages
	for _, s := range all {
		if s.MigrationID != head.MigrationID || len(syncs) > 0 && !slices.Contains(syncs, string(s.ID)) {
			continue
		}
		for uid, id := range byUID {
			if len(participants) > 0 && !slices.Contains(participants, uid) {
				continue
			}
			entries = append(entries, VettedPackages{Packages: pkgs, ParticipantID: id, SynchronizerID: string(s.ID), TopologySerial: 1})
		}
	}
	slices.SortFunc(entries, func(a, b VettedPackages) int {
		if c := strings.Compare(a.SynchronizerID, b.SynchronizerID); c != 0 {
			return c
		}
		return strings.Compare(uidOf(a.ParticipantID), uidOf(b.ParticipantID))
	})
	for _, e := range entries {
		if req.pageToken != "" && (e.SynchronizerID < after[0] || e.SynchronizerID == after[0] && uidOf(e.ParticipantID) <= after[1]) {
			continue
		}
		if len(resp.VettedPackages) == size {
			break
		}
		resp.VettedPackages = append(resp.VettedPackages, e)
	}
	// As Canton does, a page that is not empty carries the token of its
	// last entry, whether more follow or not: the page after the last is
	// empty.
	if n := len(resp.VettedPackages); n > 0 {
		last := resp.VettedPackages[n-1]
		resp.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte(last.SynchronizerID + "\x00" + uidOf(last.ParticipantID)))
	}
	return writeJSON(w, resp)
}
