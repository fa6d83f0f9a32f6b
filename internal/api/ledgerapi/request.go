package ledgerapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/fault"
)

// maxBodyBytes bounds a request body.
const maxBodyBytes = 4 << 20

// The request as decoded, before any validation beyond its JSON shape.
// Decoding follows Canton's relaxed codec: unknown members are ignored,
// absent and null members take their defaults, and int64 members accept
// JSON numbers and strings holding integers.

// getUpdatesRequest is GetUpdatesRequest.
type getUpdatesRequest struct {
	BeginExclusive  int64
	EndInclusive    *int64
	Filter          *eventFormat // the deprecated TransactionFilter (no verbose)
	Verbose         *bool
	UpdateFormat    *updateFormat
	DescendingOrder bool
}

// eventFormat is EventFormat, and TransactionFilter without Verbose.
type eventFormat struct {
	// ByParty holds filtersByParty; Parties lists its keys, sorted.
	ByParty  map[string]filters
	Parties  []string
	AnyParty *filters
	Verbose  bool
}

// filters is Filters: its cumulative list.
type filters struct {
	Cumulative []cumulativeFilter
}

type filterKind uint8

const (
	filterEmpty filterKind = iota
	filterWildcard
	filterTemplate
	filterInterface
)

// cumulativeFilter is one CumulativeFilter, its IdentifierFilter one-of
// flattened. HasID is false when templateId or interfaceId is absent.
type cumulativeFilter struct {
	Kind        filterKind
	ID          string
	HasID       bool
	Blob        bool
	View        bool
	Path        string // for messages
	IDFieldName string
}

// updateFormat is UpdateFormat.
type updateFormat struct {
	Transactions  *transactionFormat
	Reassignments *eventFormat
	Topology      *topologyFormat
}

// transactionFormat is TransactionFormat. Shape is the enum's name, ""
// when absent.
type transactionFormat struct {
	EventFormat *eventFormat
	Shape       string
}

// topologyFormat is TopologyFormat; PartyAuth is nil when
// includeParticipantAuthorizationEvents is absent.
type topologyFormat struct {
	PartyAuth *[]string
}

// The transaction shapes.
const (
	shapeUnspecified   = "TRANSACTION_SHAPE_UNSPECIFIED"
	shapeACSDelta      = "TRANSACTION_SHAPE_ACS_DELTA"
	shapeLedgerEffects = "TRANSACTION_SHAPE_LEDGER_EFFECTS"
	shapeUnrecognized  = "UNRECOGNIZED"
)

// listParams are the query parameters of the list endpoints.
type listParams struct {
	Limit       *int64
	IdleTimeout *int64 // milliseconds
}

// parseListParams reads limit and stream_idle_timeout_ms.
func parseListParams(q url.Values) (listParams, error) {
	var p listParams
	for _, name := range []string{"limit", "stream_idle_timeout_ms"} {
		vs, ok := q[name]
		if !ok {
			continue
		}
		if len(vs) != 1 {
			return p, undecodable("Invalid value for: query parameter %s (expected a single value, got %d)", name, len(vs))
		}
		n, err := strconv.ParseInt(vs[0], 10, 64)
		if err != nil {
			return p, undecodable("Invalid value for: query parameter %s (expected an int64, got %s)", name, fault.Quote(vs[0]))
		}
		if name == "limit" {
			p.Limit = &n
			continue
		}
		if n < 0 {
			return p, undecodable("Invalid value for: query parameter %s (expected a non-negative number of milliseconds, got %d)", name, n)
		}
		p.IdleTimeout = &n
	}
	return p, nil
}

// readBody reads a request body of at most maxBodyBytes.
func readBody(r *http.Request) ([]byte, error) {
	return readBodyInto(nil, r)
}

// readBodyInto is readBody reading into dst when it has room.
func readBodyInto(dst []byte, r *http.Request) ([]byte, error) {
	b, err := readAllInto(dst, http.MaxBytesReader(nil, r.Body, maxBodyBytes), r.ContentLength)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, undecodable("Invalid value for: body (the body is larger than %d bytes)", maxBodyBytes)
		}
		return nil, undecodable("Invalid value for: body (%v)", err)
	}
	return b, nil
}

// decodeGetUpdatesRequest decodes a GetUpdatesRequest body. Failures are
// decode failures (400 text/plain) naming the member at fault.
func decodeGetUpdatesRequest(body []byte) (*getUpdatesRequest, error) {
	root, err := parseJSON(body)
	if err != nil {
		return nil, err
	}
	d := &decoder{}
	req := d.request(root)
	if d.err != nil {
		return nil, d.err
	}
	return req, nil
}

// parseJSON parses one JSON value into maps, slices, strings, json.Number,
// bools and nils.
func parseJSON(body []byte) (any, error) {
	if v, ok := fastParseJSON(body); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, undecodable("Invalid value for: body (the body is empty)")
		}
		return nil, undecodable("Invalid value for: body (malformed JSON: %s)", jsonErrorText(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, undecodable("Invalid value for: body (malformed JSON: unexpected data after the JSON value)")
	}
	return v, nil
}

func jsonErrorText(err error) string {
	if e, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("%s at byte %d", e.Error(), e.Offset)
	}
	return err.Error()
}

// decoder walks a parsed JSON value; the first failure sticks.
type decoder struct {
	err error
}

func (d *decoder) fail(path, format string, args ...any) {
	if d.err == nil {
		// The path holds client-chosen keys (the parties of
		// filtersByParty): clip it as any other client value.
		d.err = undecodable("Invalid value for: body (%s at '%s')", fmt.Sprintf(format, args...), fault.Clip(path))
	}
}

func join(path, member string) string {
	if path == "" {
		return member
	}
	return path + "." + member
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// object returns v as an object; null is absent (ok false).
func (d *decoder) object(path string, v any) (map[string]any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case map[string]any:
		return v, true
	}
	d.fail(path, "expected an object, got %s", describe(v))
	return nil, false
}

func (d *decoder) member(path string, obj map[string]any, name string) (map[string]any, bool) {
	return d.object(join(path, name), obj[name])
}

// int64Member reads an int64 member: a JSON integer, or a string holding
// one. ok is false when it is absent or null.
func (d *decoder) int64Member(path string, obj map[string]any, name string) (int64, bool) {
	p := join(path, name)
	var text string
	switch v := obj[name].(type) {
	case nil:
		return 0, false
	case json.Number:
		text = string(v)
	case string:
		text = v
	default:
		d.fail(p, "expected an int64, got %s", describe(v))
		return 0, false
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, true
	}
	// A whole number in decimal or exponent notation ("5.0", "1e3") is
	// accepted as circe's Long decoder does; the exponent is bounded so
	// that no input makes big.Rat expensive.
	if len(text) <= 64 {
		if _, exp, hasExp := strings.Cut(strings.ToLower(text), "e"); !hasExp || len(exp) <= 3 {
			if r, ok := new(big.Rat).SetString(text); ok && r.IsInt() && r.Num().IsInt64() {
				return r.Num().Int64(), true
			}
		}
	}
	d.fail(p, "expected an int64, got %s", fault.Quote(text))
	return 0, false
}

// requiredString reads a string member of a body that must be there.
func (d *decoder) requiredString(obj map[string]any, name string) string {
	v, ok := d.stringMember("", obj, name)
	if !ok && d.err == nil {
		d.fail(name, "missing required field")
	}
	return v
}

// requiredInt64 reads an int64 member of a body that must be there.
func (d *decoder) requiredInt64(obj map[string]any, name string) int64 {
	v, ok := d.int64Member("", obj, name)
	if !ok && d.err == nil {
		d.fail(name, "missing required field")
	}
	return v
}

// boolMember reads a boolean member; ok is false when it is absent or null.
func (d *decoder) boolMember(path string, obj map[string]any, name string) (bool, bool) {
	switch v := obj[name].(type) {
	case nil:
		return false, false
	case bool:
		return v, true
	default:
		d.fail(join(path, name), "expected a boolean, got %s", describe(v))
		return false, false
	}
}

// stringMember reads a string member; ok is false when it is absent or
// null.
func (d *decoder) stringMember(path string, obj map[string]any, name string) (string, bool) {
	switch v := obj[name].(type) {
	case nil:
		return "", false
	case string:
		return v, true
	default:
		d.fail(join(path, name), "expected a string, got %s", describe(v))
		return "", false
	}
}

// stringList reads a member that is an array of strings; absent or null
// is an empty list (never nil).
func (d *decoder) stringList(path string, obj map[string]any, name string) []string {
	p := join(path, name)
	out := []string{}
	switch v := obj[name].(type) {
	case nil:
	case []any:
		for i, item := range v {
			s, ok := item.(string)
			if !ok {
				d.fail(fmt.Sprintf("%s[%d]", p, i), "expected a string, got %s", describe(item))
				break
			}
			out = append(out, s)
		}
	default:
		d.fail(p, "expected an array, got %s", describe(v))
	}
	return out
}

func (d *decoder) request(root any) *getUpdatesRequest {
	obj, ok := root.(map[string]any)
	if !ok {
		d.err = undecodable("Invalid value for: body (expected a GetUpdatesRequest object, got %s)", describe(root))
		return nil
	}
	req := &getUpdatesRequest{}
	req.BeginExclusive = d.requiredInt64(obj, "beginExclusive")
	if end, ok := d.int64Member("", obj, "endInclusive"); ok {
		req.EndInclusive = &end
	}
	if f, ok := d.member("", obj, "filter"); ok {
		req.Filter = d.eventFormat("filter", f, false)
	}
	if v, ok := d.boolMember("", obj, "verbose"); ok {
		req.Verbose = &v
	}
	if u, ok := d.member("", obj, "updateFormat"); ok {
		req.UpdateFormat = d.updateFormat("updateFormat", u)
	}
	req.DescendingOrder, _ = d.boolMember("", obj, "descendingOrder")
	return req
}

func (d *decoder) eventFormat(path string, obj map[string]any, withVerbose bool) *eventFormat {
	ef := &eventFormat{ByParty: map[string]filters{}}
	if m, ok := d.member(path, obj, "filtersByParty"); ok {
		p := join(path, "filtersByParty")
		for _, party := range slices.Sorted(mapKeys(m)) {
			fs := filters{}
			if f, ok := d.object(join(p, party), m[party]); ok {
				fs = d.filters(join(p, party), f)
			}
			ef.ByParty[party] = fs
			ef.Parties = append(ef.Parties, party)
		}
	}
	if f, ok := d.member(path, obj, "filtersForAnyParty"); ok {
		fs := d.filters(join(path, "filtersForAnyParty"), f)
		ef.AnyParty = &fs
	}
	if withVerbose {
		ef.Verbose, _ = d.boolMember(path, obj, "verbose")
	}
	return ef
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (d *decoder) filters(path string, obj map[string]any) filters {
	var fs filters
	p := join(path, "cumulative")
	switch v := obj["cumulative"].(type) {
	case nil:
	case []any:
		for i, item := range v {
			ip := fmt.Sprintf("%s[%d]", p, i)
			c := cumulativeFilter{Path: ip}
			if o, ok := d.object(ip, item); ok {
				if idf, ok := d.member(ip, o, "identifierFilter"); ok {
					c = d.identifierFilter(join(ip, "identifierFilter"), idf)
				}
			}
			fs.Cumulative = append(fs.Cumulative, c)
		}
	default:
		d.fail(p, "expected an array, got %s", describe(v))
	}
	return fs
}

// identifierFilter decodes the IdentifierFilter one-of: an object with
// exactly one member naming the case.
func (d *decoder) identifierFilter(path string, obj map[string]any) cumulativeFilter {
	c := cumulativeFilter{Path: path}
	if len(obj) != 1 {
		d.fail(path, "expected exactly one of Empty, WildcardFilter, TemplateFilter or InterfaceFilter, got %d members", len(obj))
		return c
	}
	for name, v := range obj {
		p := join(path, name)
		switch name {
		case "Empty":
			if v != nil {
				d.object(p, v)
			}
			return c
		case "WildcardFilter", "TemplateFilter", "InterfaceFilter":
		default:
			d.fail(path, "unknown IdentifierFilter case %q", name)
			return c
		}
		wrapper, ok := d.object(p, v)
		if !ok {
			if d.err == nil {
				d.fail(p, "expected an object, got null")
			}
			return c
		}
		val, ok := d.member(p, wrapper, "value")
		if !ok {
			if d.err == nil {
				d.fail(join(p, "value"), "missing required field")
			}
			return c
		}
		vp := join(p, "value")
		c.Path = vp
		c.Blob, _ = d.boolMember(vp, val, "includeCreatedEventBlob")
		switch name {
		case "WildcardFilter":
			c.Kind = filterWildcard
		case "TemplateFilter":
			c.Kind, c.IDFieldName = filterTemplate, "templateId"
			c.ID, c.HasID = d.stringMember(vp, val, "templateId")
		case "InterfaceFilter":
			c.Kind, c.IDFieldName = filterInterface, "interfaceId"
			c.ID, c.HasID = d.stringMember(vp, val, "interfaceId")
			c.View, _ = d.boolMember(vp, val, "includeInterfaceView")
		}
		if c.HasID && strings.Count(c.ID, ":") != 2 {
			d.fail(join(vp, c.IDFieldName), "Invalid identifier format (%s) not matching the expected format (<package>:<moduleName>:<entityName>)", fault.Clip(c.ID))
		}
	}
	return c
}

func (d *decoder) updateFormat(path string, obj map[string]any) *updateFormat {
	u := &updateFormat{}
	if t, ok := d.member(path, obj, "includeTransactions"); ok {
		u.Transactions = d.transactionFormat(join(path, "includeTransactions"), t)
	}
	if r, ok := d.member(path, obj, "includeReassignments"); ok {
		u.Reassignments = d.eventFormat(join(path, "includeReassignments"), r, true)
	}
	if t, ok := d.member(path, obj, "includeTopologyEvents"); ok {
		tp := join(path, "includeTopologyEvents")
		tf := &topologyFormat{}
		if pa, ok := d.member(tp, t, "includeParticipantAuthorizationEvents"); ok {
			parties := d.stringList(join(tp, "includeParticipantAuthorizationEvents"), pa, "parties")
			tf.PartyAuth = &parties
		}
		u.Topology = tf
	}
	return u
}

// transactionFormat reads a TransactionFormat.
func (d *decoder) transactionFormat(path string, obj map[string]any) *transactionFormat {
	tf := &transactionFormat{}
	if ef, ok := d.member(path, obj, "eventFormat"); ok {
		tf.EventFormat = d.eventFormat(join(path, "eventFormat"), ef, true)
	}
	if s, ok := d.stringMember(path, obj, "transactionShape"); ok {
		switch s {
		case shapeUnspecified, shapeACSDelta, shapeLedgerEffects, shapeUnrecognized:
			tf.Shape = s
		default:
			d.fail(join(path, "transactionShape"), "unknown TransactionShape %q", s)
		}
	}
	return tf
}

// errIsUndecodable reports whether err is a decode failure.
func errIsUndecodable(err error) bool {
	f, ok := fault.As(err)
	return ok && f.Code == codeUndecodable
}
