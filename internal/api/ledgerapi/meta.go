package ledgerapi

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/fault"
)

// Request pieces the management endpoints share (parties, users, identity
// providers): resource annotations, update masks, resource versions and
// Daml-LF identifier strings, each validated as Canton validates them.

// maxAnnotationsBytes bounds a resource's annotations: 256 kB of keys and
// values, counted in UTF-8 bytes.
const maxAnnotationsBytes = 256 * 1024

var (
	// annotationKeySegment is a key's name segment: alphanumerics, '.',
	// '-' and '_', starting and ending with an alphanumeric.
	annotationKeySegment = regexp.MustCompile(`^([a-zA-Z0-9]+[a-zA-Z0-9.\-_]*)?[a-zA-Z0-9]+$`)
	// dnsSubdomain is a key's prefix segment.
	dnsSubdomain = regexp.MustCompile(`^(([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+[.])*([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+$`)
)

// shorten cuts a value quoted in an error as Canton does: 50 characters
// and "..." when it is longer than 53.
func shorten(s string) string {
	if len(s) > 53 {
		return fault.Clip(s[:50]) + "..."
	}
	return s
}

// checkAnnotations validates the annotations of a request's field
// (local_metadata.annotations, say): their total size (of the entries with
// a value), each key's syntax (an optional DNS subdomain prefix and '/',
// then a name of at most 63 characters) and, unless emptyValues (an update
// removes a key with an empty value), that every value is non-empty.
func checkAnnotations(field string, annotations map[string]string, emptyValues bool) error {
	size := 0
	for k, v := range annotations {
		if v != "" {
			size += len(k) + len(v)
		}
	}
	if size > maxAnnotationsBytes {
		return invalidArgument("annotations from field '%s' are larger than the limit of %dkb", field, maxAnnotationsBytes/1024)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range annotations {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		if msg := annotationKeyProblem(k); msg != "" {
			return invalidArgument("%s", msg)
		}
	}
	if !emptyValues {
		for _, k := range keys {
			if annotations[k] == "" {
				return invalidArgument("The value of an annotation is empty for key: '%s'", shorten(k))
			}
		}
	}
	return nil
}

// annotationKeyProblem is what is wrong with an annotation key, or "".
// Like Java's String.split, it drops trailing empty segments.
func annotationKeyProblem(key string) string {
	segs := strings.Split(key, "/")
	for len(segs) > 1 && segs[len(segs)-1] == "" {
		segs = segs[:len(segs)-1]
	}
	name := segs[len(segs)-1]
	switch len(segs) {
	case 1:
	case 2:
		prefix := segs[0]
		if len(prefix) > 253 {
			return fmt.Sprintf("Key prefix segment '%s' exceeds maximum length of 253 characters", shorten(prefix))
		}
		if !dnsSubdomain.MatchString(prefix) {
			return fmt.Sprintf("Key prefix segment '%s' has invalid syntax", shorten(prefix))
		}
	default:
		return fmt.Sprintf("Key '%s' contains more than one forward slash ('/') character", shorten(key))
	}
	if len(name) > 63 {
		return fmt.Sprintf("Key name segment '%s' exceeds maximum length of 63 characters", shorten(name))
	}
	if !annotationKeySegment.MatchString(name) {
		return fmt.Sprintf("Key name segment '%s' has invalid syntax", shorten(name))
	}
	return ""
}

// mergeAnnotations applies an annotations update to stored annotations:
// a key with a value is set, a key with an empty value removed.
func mergeAnnotations(stored, update map[string]string) map[string]string {
	out := make(map[string]string, len(stored)+len(update))
	for k, v := range stored {
		out[k] = v
	}
	for k, v := range update {
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// annotationsBytes is the size Canton bounds stored annotations by.
func annotationsBytes(a map[string]string) int {
	n := 0
	for k, v := range a {
		n += len(k) + len(v)
	}
	return n
}

// fieldMask is a parsed update mask (protobuf's FieldMask): the paths it
// names, each a dotted path of proto field names.
type fieldMask struct {
	paths map[string]bool
}

// parseFieldMask validates an update mask's paths against the fields of
// the resource (full dotted paths) as Canton does: at least one path, each
// naming a field or a prefix of one, none twice. It returns Canton's
// reason for a bad mask, or "".
func parseFieldMask(paths []string, fields ...string) (fieldMask, string) {
	if len(paths) == 0 {
		return fieldMask{}, "The update mask contains no entries"
	}
	m := fieldMask{paths: map[string]bool{}}
	for _, p := range paths {
		known := false
		for _, f := range fields {
			if f == p || strings.HasPrefix(f, p+".") {
				known = true
				break
			}
		}
		if !known {
			return fieldMask{}, fmt.Sprintf("The update path: '%s' points to an unknown field.", shorten(p))
		}
	}
	for _, p := range paths {
		if m.paths[p] {
			return fieldMask{}, fmt.Sprintf("The update path: '%s' is duplicated.", shorten(p))
		}
		m.paths[p] = true
	}
	return m, ""
}

// match reports whether the mask names field, or a parent of it (exact
// false): the longest match, as Canton's update path trie finds it.
func (m fieldMask) match(field string) (matched, exact bool) {
	if m.paths[field] {
		return true, true
	}
	for p := field; ; {
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false, false
		}
		p = p[:i]
		if m.paths[p] {
			return true, false
		}
	}
}

// maskPaths decodes an update mask's paths; a missing mask is reported
// as a missing field (ok false, no decode error).
func (d *decoder) maskPaths(obj map[string]any, name string) (paths []string, ok bool) {
	m, ok := d.member("", obj, name)
	if !ok {
		return nil, false
	}
	switch v := m["paths"].(type) {
	case nil:
	case []any:
		for i, p := range v {
			s, isString := p.(string)
			if !isString {
				d.fail(fmt.Sprintf("%s.paths[%d]", name, i), "expected a string, got %s", describe(p))
				return nil, true
			}
			paths = append(paths, s)
		}
	default:
		d.fail(name+".paths", "expected an array, got %s", describe(v))
	}
	return paths, true
}

// objectMeta decodes an ObjectMeta member: its resource version and its
// annotations (nil when absent).
func (d *decoder) objectMeta(path string, obj map[string]any, name string) (resourceVersion string, annotations map[string]string) {
	m, ok := d.member(path, obj, name)
	if !ok {
		return "", nil
	}
	mp := join(path, name)
	resourceVersion, _ = d.stringMember(mp, m, "resourceVersion")
	if a, ok := d.member(mp, m, "annotations"); ok {
		annotations = map[string]string{}
		for k := range a {
			if s, ok := d.stringMember(join(mp, "annotations"), a, k); ok {
				annotations[k] = s
			}
		}
	}
	return resourceVersion, annotations
}

// parseResourceVersion reads a resource version of a request ("" for none:
// no concurrency check); Canton's are numbers.
func parseResourceVersion(field, s string) (version int64, given bool, err error) {
	if s == "" {
		return 0, false, nil
	}
	n, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		return 0, false, invalidField(field, "Invalid resource version number")
	}
	return n, true, nil
}

// checkIDString checks a Daml-LF identifier string (Canton's
// ConcatenableMatchingString): 1 to max ASCII letters, digits and the
// extra characters. It returns Canton's complaint, or "".
func checkIDString(description, extra string, max int, s string) string {
	if s == "" {
		return description + " is empty"
	}
	if len(s) > max {
		return fmt.Sprintf("%s is too long (max: %d)", description, max)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return fmt.Sprintf("non expected character 0x%x in %s %s", c, description, fault.Quote(s))
		}
	}
	return ""
}

// checkLedgerString checks a Daml-LF LedgerString (update ids, identity
// provider ids, submission ids).
func checkLedgerString(s string) string {
	return checkIDString("Daml-LF Ledger String", "._:-#/ ", 255, s)
}
