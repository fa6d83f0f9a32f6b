package interactive

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/bufpool"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// Hashes are the digests of a prepared transaction under one hashing
// scheme. Final is what the external party signs (the 32 raw bytes) and
// what the prepare endpoint serves as preparedTransactionHash.
type Hashes struct {
	Transaction, Metadata, Final [32]byte
}

// Scheme is a transaction hashing scheme version, as numbered by Canton's
// HashingSchemeVersion enum.
type Scheme uint8

// The hashing schemes sandnet implements. Canton 3.4 knows only V2; 3.5
// adds V3 on protocol version 35.
const (
	SchemeV2 Scheme = 2
	SchemeV3 Scheme = 3
)

// String returns Canton's name of the scheme, "HASHING_SCHEME_VERSION_V2".
func (s Scheme) String() string {
	return "HASHING_SCHEME_VERSION_V" + strconv.Itoa(int(s))
}

// hashPurpose is Canton's HashPurpose.PreparedSubmission (48), prefixed to
// every hash of the scheme as a big-endian int32.
var hashPurpose = []byte{0, 0, 0, 0x30}

// seedSize is the size of a node seed (an LF hash).
const seedSize = 32

// HashV2 computes the hashes of pt under hashing scheme V2, byte by byte as
// Canton does: nodes are looked up by id from the roots, create seeds are
// optional and exercise seeds mandatory, and party lists and input
// contracts are hashed in the order given (the party preparing a
// transaction sorts them; the hash covers what the client decoded). An
// absent transaction or metadata hashes as its protobuf defaults. Errors
// are *fault.Error of kind fault.InvalidArgument.
func HashV2(pt *PreparedTransaction) (Hashes, error) {
	return Hash(pt, SchemeV2)
}

// HashV3 is [HashV2] under hashing scheme V3: no encoding-version bytes,
// the (always absent) contract-key fields in nodes, and max_record_time in
// the metadata.
func HashV3(pt *PreparedTransaction) (Hashes, error) {
	return Hash(pt, SchemeV3)
}

// HashV2Trace is [HashV2] that also returns a human-readable trace of
// everything hashed, one labelled hex line per item, for the prepare
// endpoint's hashingDetails.
func HashV2Trace(pt *PreparedTransaction) (Hashes, string, error) {
	return HashTrace(pt, SchemeV2)
}

// HashV3Trace is [HashV3] with the trace of [HashV2Trace].
func HashV3Trace(pt *PreparedTransaction) (Hashes, string, error) {
	return HashTrace(pt, SchemeV3)
}

// Hash computes the hashes of pt under the given scheme.
func Hash(pt *PreparedTransaction, s Scheme) (Hashes, error) {
	return hashWith(pt, s, nil)
}

// HashTrace computes the hashes of pt under the given scheme with a trace.
func HashTrace(pt *PreparedTransaction, s Scheme) (Hashes, string, error) {
	var tr strings.Builder
	h, err := hashWith(pt, s, &tr)
	if err != nil {
		return Hashes{}, "", err
	}
	return h, tr.String(), nil
}

func hashWith(pt *PreparedTransaction, s Scheme, tr *strings.Builder) (Hashes, error) {
	if s != SchemeV2 && s != SchemeV3 {
		return Hashes{}, fault.New(fault.InvalidArgument, "unsupported hashing scheme version %d", s)
	}
	if pt == nil {
		pt = &PreparedTransaction{}
	}
	if tr != nil {
		fmt.Fprintf(tr, "hashing scheme %s\n", s)
	}
	var hs Hashes
	var err error
	if hs.Transaction, err = hashTransaction(pt.Transaction, s, tr); err != nil {
		return Hashes{}, hashFault(err)
	}
	if hs.Metadata, err = hashMetadata(pt.Metadata, s, tr); err != nil {
		return Hashes{}, hashFault(err)
	}
	e := newEncoder(tr, 0)
	e.line("final")
	e.raw(hashPurpose, "purpose")
	e.raw([]byte{byte(s)}, "hashing scheme version")
	e.raw(hs.Transaction[:], "transaction hash")
	e.raw(hs.Metadata[:], "metadata hash")
	hs.Final = sha256.Sum256(e.buf)
	e.result(hs.Final, "final hash")
	return hs, nil
}

func hashFault(err error) error {
	if _, ok := fault.As(err); ok {
		return err
	}
	return fault.New(fault.InvalidArgument, "cannot hash the prepared transaction: %v", err)
}

// encoder appends the hash encoding of items to buf and, when tracing,
// writes one line per item: its label and the hex of its bytes. Labels
// that quote or format something are built only when tracing (see
// noteQuoted, noteKind): prepare and execute hash without a trace, and
// building them costs about as much as the hashing.
type encoder struct {
	buf    []byte
	tr     *strings.Builder
	indent int
}

func newEncoder(tr *strings.Builder, indent int) *encoder {
	return reusingEncoder(tr, indent, nil)
}

// reusingEncoder is newEncoder appending to spare, emptied, when it has
// room.
func reusingEncoder(tr *strings.Builder, indent int, spare []byte) *encoder {
	if cap(spare) == 0 {
		// 256 bytes hold a small node's encoding without growing.
		spare = make([]byte, 0, 256)
	}
	return &encoder{buf: spare[:0], tr: tr, indent: indent}
}

// scratchBuffers keep the encoding buffers of hashes between calls:
// prepare and execute each hash a transaction, and a buffer grown to the
// largest node would otherwise be grown again from 256 bytes every time.
var scratchBuffers = bufpool.Pool{Max: 64 << 10}

func getScratch() *[]byte { return scratchBuffers.Get() }

// putScratch returns p to the pool holding b, emptied; nothing may use b
// afterwards.
func putScratch(p *[]byte, b []byte) { scratchBuffers.Put(p, b) }

func (e *encoder) tracing() bool { return e.tr != nil }

// line writes a heading at the current indentation; sub-items follow one
// level deeper until the caller calls done.
func (e *encoder) line(label string) {
	if e.tr == nil {
		return
	}
	e.pad()
	e.tr.WriteString(label)
	e.tr.WriteByte('\n')
	e.indent++
}

func (e *encoder) done() {
	if e.tr != nil {
		e.indent--
	}
}

func (e *encoder) pad() {
	for range e.indent {
		e.tr.WriteString("  ")
	}
}

// note traces the bytes appended since start under label.
func (e *encoder) note(start int, label string) {
	if e.tr == nil {
		return
	}
	e.pad()
	e.tr.WriteString(label)
	e.tr.WriteString(": ")
	e.tr.WriteString(hex.EncodeToString(e.buf[start:]))
	e.tr.WriteByte('\n')
}

// noteQuoted traces the bytes appended since start under field and the
// quoted s, joined only when tracing.
func (e *encoder) noteQuoted(start int, field, s string) {
	if e.tracing() {
		e.note(start, field+" "+strconv.Quote(s))
	}
}

// result traces a computed digest (not part of the encoding).
func (e *encoder) result(d [32]byte, label string) {
	if e.tr == nil {
		return
	}
	e.pad()
	fmt.Fprintf(e.tr, "%s = %x\n", label, d)
}

func (e *encoder) raw(b []byte, label string) {
	start := len(e.buf)
	e.buf = append(e.buf, b...)
	e.note(start, label)
}

// purpose traces the hash purpose that prefixes a hashed encoding; it is
// hashed but not part of the encoding itself.
func (e *encoder) purpose() {
	if e.tr == nil {
		return
	}
	e.pad()
	fmt.Fprintf(e.tr, "purpose: %x\n", hashPurpose)
}

// digest returns SHA-256(purpose ‖ the encoding) and traces it.
func (e *encoder) digest(label string) [32]byte {
	h := sha256.New()
	h.Write(hashPurpose)
	h.Write(e.buf)
	var d [32]byte
	h.Sum(d[:0])
	e.result(d, label)
	return d
}

func (e *encoder) appendInt32(v int32) {
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(v))
}

func (e *encoder) appendInt64(v int64) {
	e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(v))
}

func (e *encoder) appendString(s string) {
	e.appendInt32(int32(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) int32(v int32, label string) {
	start := len(e.buf)
	e.appendInt32(v)
	e.note(start, label)
}

func (e *encoder) int64(v int64, label string) {
	start := len(e.buf)
	e.appendInt64(v)
	e.note(start, label)
}

// present appends the byte that says whether an optional part follows,
// and returns ok, for the caller to append the part.
func (e *encoder) present(ok bool) bool {
	e.buf = append(e.buf, boolByte(ok))
	return ok
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func (e *encoder) optInt64(v *int64, label string) {
	start := len(e.buf)
	if e.present(v != nil) {
		e.appendInt64(*v)
	}
	e.note(start, label)
}

func (e *encoder) bool(v bool, label string) {
	e.raw([]byte{boolByte(v)}, label)
}

// quoted appends a string field, traced under the field's name and the
// quoted string.
func (e *encoder) quoted(s, field string) {
	start := len(e.buf)
	e.appendString(s)
	e.noteQuoted(start, field, s)
}

// count writes the length prefix of a repeated field.
func (e *encoder) count(n int, label string) {
	e.int32(int32(n), label)
}

func (e *encoder) parties(ps []daml.Party, label string) {
	start := len(e.buf)
	e.appendInt32(int32(len(ps)))
	for _, p := range ps {
		e.appendString(string(p))
	}
	e.note(start, label)
}

// appendContractID appends a contract id as length-prefixed bytes of its
// hex form.
func (e *encoder) appendContractID(cid daml.ContractID) error {
	b, err := hex.DecodeString(string(cid))
	if err != nil {
		return fmt.Errorf("contract id %s is not a hex string", fault.Quote(string(cid)))
	}
	e.appendInt32(int32(len(b)))
	e.buf = append(e.buf, b...)
	return nil
}

func (e *encoder) contractID(cid daml.ContractID, label string) error {
	start := len(e.buf)
	if err := e.appendContractID(cid); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	e.note(start, label)
	return nil
}

// appendIdentifier appends an identifier: the package id and the dotted
// module and entity names as lists of segments.
func (e *encoder) appendIdentifier(id daml.Identifier) {
	e.appendString(id.PackageID)
	for _, name := range []string{id.ModuleName, id.EntityName} {
		e.appendInt32(int32(strings.Count(name, ".") + 1))
		for s := range strings.SplitSeq(name, ".") {
			e.appendString(s)
		}
	}
}

func (e *encoder) identifier(id daml.Identifier, label string) {
	start := len(e.buf)
	e.appendIdentifier(id)
	if e.tracing() {
		e.note(start, label+" "+id.String())
	}
}

func (e *encoder) optIdentifier(id *daml.Identifier, label string) {
	start := len(e.buf)
	e.appendOptID(id)
	if !e.tracing() {
		return
	}
	if id == nil {
		label += " (none)"
	}
	e.note(start, label+idSuffix(id))
}

// The type tags of the value encoding.
const (
	tagUnit byte = iota
	tagBool
	tagInt64
	tagNumeric
	tagTimestamp
	tagDate
	tagParty
	tagText
	tagContractID
	tagOptional
	tagList
	tagTextMap
	tagRecord
	tagVariant
	tagEnum
	tagGenMap
)

var errNilValue = errors.New("missing value")

// kindLabel prefixes a value's kind with its label, if any.
func kindLabel(label, kind string) string {
	if label == "" {
		return kind
	}
	return label + " " + kind
}

// wrapLabel adds a value's label to an error about it, if it has one.
func wrapLabel(label string, err error) error {
	if err == nil || label == "" {
		return err
	}
	return fmt.Errorf("%s: %w", label, err)
}

// value appends the tagged encoding of v. depth is the nesting of its
// container, bounded like the decoder's. A scalar is its tag and its
// payload, traced on one line under its kind, whose details (a number, a
// constructor and its type) are added only when tracing.
func (e *encoder) value(v daml.Value, label string, depth int) error {
	start := len(e.buf)
	var kind string
	switch x := v.(type) {
	case nil:
		return wrapLabel(label, errNilValue)
	case daml.Unit:
		e.buf, kind = append(e.buf, tagUnit), "unit"
	case daml.Bool:
		e.buf, kind = append(e.buf, tagBool, boolByte(bool(x))), "bool"
	case daml.Int64:
		e.buf, kind = append(e.buf, tagInt64), "int64"
		e.appendInt64(int64(x))
	case daml.Numeric:
		n := x.String()
		e.buf, kind = append(e.buf, tagNumeric), "numeric"
		e.appendString(n)
		if e.tracing() {
			kind += " " + n
		}
	case daml.Timestamp:
		e.buf, kind = append(e.buf, tagTimestamp), "timestamp"
		e.appendInt64(int64(x))
	case daml.Date:
		e.buf, kind = append(e.buf, tagDate), "date"
		e.appendInt32(int32(x))
	case daml.Party:
		e.buf, kind = append(e.buf, tagParty), "party"
		e.appendString(string(x))
	case daml.Text:
		e.buf, kind = append(e.buf, tagText), "text"
		e.appendString(string(x))
	case daml.ContractID:
		e.buf, kind = append(e.buf, tagContractID), "contract id"
		if err := e.appendContractID(x); err != nil {
			return wrapLabel(label, err)
		}
	case *daml.Enum:
		if x == nil {
			return wrapLabel(label, errNilValue)
		}
		e.buf, kind = append(e.buf, tagEnum), "enum"
		e.appendOptID(x.ID)
		e.appendString(x.Constructor)
		if e.tracing() {
			kind += " " + x.Constructor + idSuffix(x.ID)
		}
	default:
		return e.container(v, label, depth)
	}
	e.noteKind(start, label, kind)
	return nil
}

// noteKind traces a value's bytes appended since start under its label
// and kind, joined only when tracing.
func (e *encoder) noteKind(start int, label, kind string) {
	if e.tracing() {
		e.note(start, kindLabel(label, kind))
	}
}

func (e *encoder) appendOptID(id *daml.Identifier) {
	if e.present(id != nil) {
		e.appendIdentifier(*id)
	}
}

// container appends a value holding other values: its tag and own parts
// on one trace line (open), its elements indented below. Every case that
// does not return opens the value, which the end closes.
func (e *encoder) container(v daml.Value, label string, depth int) error {
	depth++
	if depth > daml.MaxNesting {
		return wrapLabel(label, fmt.Errorf("value nested deeper than %d levels", daml.MaxNesting))
	}
	start := len(e.buf)
	var err error
	switch x := v.(type) {
	case *daml.Optional:
		if x == nil {
			return wrapLabel(label, errNilValue)
		}
		e.buf = append(e.buf, tagOptional)
		if !e.present(x.Value != nil) {
			e.noteKind(start, label, "optional none")
			return nil
		}
		e.open(start, label, "optional some")
		err = e.value(x.Value, "", depth)
	case daml.List:
		e.buf = append(e.buf, tagList)
		e.appendInt32(int32(len(x)))
		e.open(start, label, "list")
		for i, el := range x {
			if err = e.value(el, "["+strconv.Itoa(i)+"]", depth); err != nil {
				break
			}
		}
	case daml.TextMap:
		e.buf = append(e.buf, tagTextMap)
		e.appendInt32(int32(len(x)))
		e.open(start, label, "text map")
		for _, en := range x {
			e.quoted(en.Key, "key")
			if err = e.value(en.Value, "value", depth); err != nil {
				break
			}
		}
	case daml.GenMap:
		e.buf = append(e.buf, tagGenMap)
		e.appendInt32(int32(len(x)))
		e.open(start, label, "gen map")
		for _, en := range x {
			if err = e.value(en.Key, "key", depth); err != nil {
				break
			}
			if err = e.value(en.Value, "value", depth); err != nil {
				break
			}
		}
	case *daml.Record:
		if x == nil {
			return wrapLabel(label, errNilValue)
		}
		e.buf = append(e.buf, tagRecord)
		e.appendOptID(x.ID)
		e.appendInt32(int32(len(x.Fields)))
		kind := "record"
		if e.tracing() {
			kind += idSuffix(x.ID)
		}
		e.open(start, label, kind)
		for _, f := range x.Fields {
			s := len(e.buf)
			// A field's label is optional: absent (empty) in a record read
			// without labels, which Canton's values never are.
			if e.present(f.Label != "") {
				e.appendString(f.Label)
			}
			e.noteQuoted(s, "label", f.Label)
			if err = e.value(f.Value, "", depth); err != nil {
				err = fmt.Errorf("field %s: %w", strconv.Quote(f.Label), err)
				break
			}
		}
	case *daml.Variant:
		if x == nil {
			return wrapLabel(label, errNilValue)
		}
		e.buf = append(e.buf, tagVariant)
		e.appendOptID(x.ID)
		e.appendString(x.Constructor)
		kind := "variant"
		if e.tracing() {
			kind += " " + x.Constructor + idSuffix(x.ID)
		}
		e.open(start, label, kind)
		err = e.value(x.Value, "", depth)
	default:
		return wrapLabel(label, fmt.Errorf("unknown value type %T", v))
	}
	e.indent--
	return wrapLabel(label, err)
}

// open traces the head of a container value, appended since start, and
// indents its elements below it.
func (e *encoder) open(start int, label, kind string) {
	e.noteKind(start, label, kind)
	e.indent++
}

func idSuffix(id *daml.Identifier) string {
	if id == nil {
		return ""
	}
	return " " + id.String()
}

// typedValue traces a node's value field under a heading.
func (e *encoder) typedValue(v daml.Value, label string) error {
	if !e.tracing() {
		return e.value(v, label, 0)
	}
	e.line(label)
	err := e.value(v, "", 0)
	e.done()
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	return nil
}

// txHasher hashes the nodes of one transaction.
type txHasher struct {
	scheme Scheme
	nodes  map[string]*Node
	seeds  map[string][]byte
	memo   map[string][32]byte
	tr     *strings.Builder
	// encodings, when not nil, receives every node's encoding (for tests).
	encodings map[string][]byte
	// spare is the last node's encoding buffer, emptied: nodes are
	// encoded one at a time (children hashed first), so one buffer grown
	// to the largest node serves them all.
	spare []byte
}

func hashTransaction(tx *DamlTransaction, s Scheme, tr *strings.Builder) ([32]byte, error) {
	return hashTransactionWith(tx, s, tr, nil)
}

func hashTransactionWith(tx *DamlTransaction, s Scheme, tr *strings.Builder, encodings map[string][]byte) ([32]byte, error) {
	if tx == nil {
		tx = &DamlTransaction{}
	}
	h := &txHasher{
		encodings: encodings,
		scheme:    s,
		nodes:     make(map[string]*Node, len(tx.Nodes)),
		seeds:     make(map[string][]byte, len(tx.NodeSeeds)),
		memo:      make(map[string][32]byte, len(tx.Nodes)),
		tr:        tr,
	}
	if encodings == nil {
		// Nothing keeps the encodings: one pooled buffer serves every
		// node and the transaction's own encoding.
		p := getScratch()
		h.spare = *p
		defer func() { putScratch(p, h.spare) }()
	}
	for i := range tx.Nodes {
		n := &tx.Nodes[i]
		if _, dup := h.nodes[n.NodeID]; dup {
			return [32]byte{}, fmt.Errorf("the transaction has two nodes with node id %s", strconv.Quote(n.NodeID))
		}
		h.nodes[n.NodeID] = n
	}
	for _, sd := range tx.NodeSeeds {
		// A seed belongs to the node whose id is its decimal form; the
		// first seed given for a node wins, as in Canton's reference code.
		id := strconv.Itoa(int(sd.NodeID))
		if _, ok := h.seeds[id]; !ok {
			h.seeds[id] = sd.Seed
		}
	}
	if tr != nil {
		tr.WriteString("transaction nodes\n")
	}
	roots := make([][32]byte, len(tx.Roots))
	for i, id := range tx.Roots {
		d, err := h.nodeHash(id)
		if err != nil {
			return [32]byte{}, err
		}
		roots[i] = d
	}
	e := reusingEncoder(tr, 0, h.spare)
	e.line("transaction")
	e.purpose()
	e.quoted(tx.Version, "version")
	e.count(len(tx.Roots), "roots")
	for i, d := range roots {
		start := len(e.buf)
		e.buf = append(e.buf, d[:]...)
		e.noteQuoted(start, "root node", tx.Roots[i])
	}
	d := e.digest("transaction hash")
	if encodings == nil {
		h.spare = e.buf[:0]
	}
	return d, nil
}

// nodeHash returns the hash of the node with the given id, hashing its
// descendants first. It walks the tree with an explicit stack, so that a
// deep transaction cannot exhaust the goroutine stack, memoizes hashes (a
// node reached twice is hashed once) and refuses cycles.
func (h *txHasher) nodeHash(id string) ([32]byte, error) {
	type frame struct {
		id       string
		expanded bool
	}
	stack := []frame{{id: id}}
	open := map[string]bool{}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if _, ok := h.memo[top.id]; ok {
			stack = stack[:len(stack)-1]
			continue
		}
		n, ok := h.nodes[top.id]
		if !ok {
			return [32]byte{}, fmt.Errorf("the transaction does not contain a node with node id %s", strconv.Quote(top.id))
		}
		if !top.expanded {
			top.expanded = true
			open[top.id] = true
			children := n.children()
			// Pushed last to first, so that children are hashed (and
			// traced) in order.
			for i := len(children) - 1; i >= 0; i-- {
				c := children[i]
				if open[c] {
					return [32]byte{}, fmt.Errorf("node %s is its own descendant", strconv.Quote(c))
				}
				if _, done := h.memo[c]; !done {
					stack = append(stack, frame{id: c})
				}
			}
			continue
		}
		e, err := h.encodeNode(n)
		if err != nil {
			return [32]byte{}, fmt.Errorf("node %s: %w", strconv.Quote(n.NodeID), err)
		}
		d := sha256.Sum256(e.buf)
		e.result(d, "node hash")
		h.memo[top.id] = d
		if h.encodings != nil {
			h.encodings[top.id] = e.buf
		} else {
			h.spare = e.buf[:0]
		}
		delete(open, top.id)
		stack = stack[:len(stack)-1]
	}
	return h.memo[id], nil
}

func (n *Node) children() []string {
	switch {
	case n.Exercise != nil:
		return n.Exercise.Children
	case n.Rollback != nil:
		return n.Rollback.Children
	}
	return nil
}

// encodeNode returns an encoder holding the encoding of n; the hashes of
// its children must be memoized already.
func (h *txHasher) encodeNode(n *Node) (*encoder, error) {
	kind := n.kind()
	if kind == "" {
		return nil, errors.New("the node is neither a create, fetch, exercise nor rollback node")
	}
	e := reusingEncoder(h.tr, 1, h.spare)
	h.spare = nil
	if e.tracing() {
		e.line("node " + strconv.Quote(n.NodeID) + " (" + kind + ")")
	}
	var err error
	switch {
	case n.Create != nil:
		var seed []byte
		if seed, err = h.seed(n.NodeID, false); err == nil {
			err = e.create(n.Create, h.scheme, seed)
		}
	case n.Exercise != nil:
		var seed []byte
		if seed, err = h.seed(n.NodeID, true); err == nil {
			err = e.exercise(n.Exercise, h.scheme, seed, h.memo)
		}
	case n.Fetch != nil:
		err = e.fetch(n.Fetch, h.scheme)
	default:
		if h.scheme == SchemeV2 {
			e.raw([]byte{1}, "node encoding version")
		}
		e.raw([]byte{3}, "rollback tag")
		e.childHashes(n.Rollback.Children, h.memo)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// seed returns the seed of the node with the given id, nil when it has
// none, which only a create node may lack.
func (h *txHasher) seed(id string, required bool) ([]byte, error) {
	seed, ok := h.seeds[id]
	switch {
	case !ok && required:
		return nil, errors.New("missing node seed for an exercise node")
	case ok && len(seed) != seedSize:
		return nil, fmt.Errorf("node seed has %d bytes, want %d", len(seed), seedSize)
	}
	return seed, nil
}

// header appends what starts every node but a rollback: the node encoding
// version (V2 only), the LF version and the node's tag. It checks that the
// scheme can hash the LF version, as Canton does.
func (e *encoder) header(lfVersion string, s Scheme, tag byte, kind string) error {
	switch {
	case lfVersion == "2.1":
	case lfVersion == "2" && s == SchemeV3:
	case lfVersion == "2":
		return errors.New("Cannot hash node with LF serialization version V2 using hashing scheme V2. " +
			"Does the transaction use contract keys? Please using hashing scheme V3 or higher.")
	default:
		return fmt.Errorf("cannot hash a node with LF serialization version %s using hashing scheme V%d",
			strconv.Quote(lfVersion), s)
	}
	if s == SchemeV2 {
		e.raw([]byte{1}, "node encoding version")
	}
	e.quoted(lfVersion, "lf_version")
	start := len(e.buf)
	e.buf = append(e.buf, tag)
	if e.tracing() {
		e.note(start, kind+" tag")
	}
	return nil
}

func (e *encoder) create(c *Create, s Scheme, seed []byte) error {
	if err := e.header(c.LfVersion, s, 0, "create"); err != nil {
		return err
	}
	if seed == nil {
		e.raw([]byte{0}, "seed (none)")
	} else {
		e.raw(append([]byte{1}, seed...), "seed")
	}
	if err := e.contract(c.ContractID, c.PackageName, c.TemplateID); err != nil {
		return err
	}
	if err := e.typedValue(c.Argument, "argument"); err != nil {
		return err
	}
	e.parties(c.Signatories, "signatories")
	e.parties(c.Stakeholders, "stakeholders")
	e.noKey(s, false)
	return nil
}

// contract appends the contract a create, fetch or exercise node is about,
// which each encodes alike after its header (and seed): its id, package
// name and template id.
func (e *encoder) contract(cid daml.ContractID, packageName string, templateID daml.Identifier) error {
	if err := e.contractID(cid, "contract_id"); err != nil {
		return err
	}
	e.quoted(packageName, "package_name")
	e.identifier(templateID, "template_id")
	return nil
}

// noKey appends what ends a node in scheme V3: its contract key, always
// absent since sandnet has no contract keys, after the by_key flag of a
// fetch or exercise (byKey), always false. V2 has neither.
func (e *encoder) noKey(s Scheme, byKey bool) {
	if s != SchemeV3 {
		return
	}
	if byKey {
		e.bool(false, "by_key")
	}
	e.raw([]byte{0}, "key (none)")
}

func (e *encoder) fetch(f *Fetch, s Scheme) error {
	if err := e.header(f.LfVersion, s, 2, "fetch"); err != nil {
		return err
	}
	if err := e.contract(f.ContractID, f.PackageName, f.TemplateID); err != nil {
		return err
	}
	e.parties(f.Signatories, "signatories")
	e.parties(f.Stakeholders, "stakeholders")
	e.optIdentifier(f.InterfaceID, "interface_id")
	e.parties(f.ActingParties, "acting_parties")
	e.noKey(s, true)
	return nil
}

func (e *encoder) exercise(x *Exercise, s Scheme, seed []byte, memo map[string][32]byte) error {
	if err := e.header(x.LfVersion, s, 1, "exercise"); err != nil {
		return err
	}
	e.raw(seed, "seed")
	if err := e.contract(x.ContractID, x.PackageName, x.TemplateID); err != nil {
		return err
	}
	e.parties(x.Signatories, "signatories")
	e.parties(x.Stakeholders, "stakeholders")
	e.parties(x.ActingParties, "acting_parties")
	e.optIdentifier(x.InterfaceID, "interface_id")
	e.quoted(x.ChoiceID, "choice_id")
	if err := e.typedValue(x.ChosenValue, "chosen_value"); err != nil {
		return err
	}
	e.bool(x.Consuming, "consuming")
	if x.ExerciseResult == nil {
		e.raw([]byte{0}, "exercise_result (none)")
	} else {
		e.raw([]byte{1}, "exercise_result (some)")
		if err := e.typedValue(x.ExerciseResult, "exercise_result"); err != nil {
			return err
		}
	}
	e.parties(x.ChoiceObservers, "choice_observers")
	e.noKey(s, true)
	e.childHashes(x.Children, memo)
	return nil
}

func (e *encoder) childHashes(children []string, memo map[string][32]byte) {
	e.count(len(children), "children")
	for _, c := range children {
		d := memo[c]
		start := len(e.buf)
		e.buf = append(e.buf, d[:]...)
		e.noteQuoted(start, "child node", c)
	}
}

func hashMetadata(md *Metadata, s Scheme, tr *strings.Builder) ([32]byte, error) {
	p := getScratch()
	e, err := encodeMetadataInto(md, s, tr, *p)
	if err != nil {
		return [32]byte{}, err
	}
	d := e.digest("metadata hash")
	putScratch(p, e.buf)
	return d, nil
}

// encodeMetadata returns an encoder holding the metadata's encoding.
func encodeMetadata(md *Metadata, s Scheme, tr *strings.Builder) (*encoder, error) {
	return encodeMetadataInto(md, s, tr, nil)
}

// encodeMetadataInto is encodeMetadata using spare (emptied) for the
// encodings, in turn, of the input contracts and of the metadata.
func encodeMetadataInto(md *Metadata, s Scheme, tr *strings.Builder, spare []byte) (*encoder, error) {
	if md == nil {
		md = &Metadata{}
	}
	si := md.SubmitterInfo
	if si == nil {
		si = &SubmitterInfo{}
	}
	// Input contracts are hashed as create nodes without a seed; their
	// hashes are computed (and traced) before the metadata encoding.
	inputs := make([][32]byte, len(md.InputContracts))
	if tr != nil && len(inputs) > 0 {
		tr.WriteString("input contracts\n")
	}
	// One buffer for every input contract's encoding, in turn.
	for i, ic := range md.InputContracts {
		if ic.Create == nil {
			return nil, fmt.Errorf("input contract %d has no contract", i)
		}
		e := reusingEncoder(tr, 1, spare)
		if e.tracing() {
			e.line("input contract " + string(ic.Create.ContractID) + " (create)")
		}
		if err := e.create(ic.Create, s, nil); err != nil {
			return nil, fmt.Errorf("input contract %s: %w", fault.Quote(string(ic.Create.ContractID)), err)
		}
		inputs[i] = sha256.Sum256(e.buf)
		e.result(inputs[i], "node hash")
		spare = e.buf[:0]
	}
	e := reusingEncoder(tr, 0, spare)
	e.line("metadata")
	e.purpose()
	if s == SchemeV2 {
		e.raw([]byte{1}, "metadata encoding version")
	}
	e.parties(si.ActAs, "act_as")
	e.quoted(si.CommandID, "command_id")
	e.quoted(md.TransactionUUID, "transaction_uuid")
	e.int32(int32(md.MediatorGroup), "mediator_group")
	e.quoted(md.SynchronizerID, "synchronizer_id")
	e.optInt64(md.MinLedgerEffectiveTime, "min_ledger_effective_time")
	e.optInt64(md.MaxLedgerEffectiveTime, "max_ledger_effective_time")
	e.int64(md.PreparationTime, "preparation_time")
	e.count(len(md.InputContracts), "input_contracts")
	for i, ic := range md.InputContracts {
		s := len(e.buf)
		e.appendInt64(ic.CreatedAt)
		e.buf = append(e.buf, inputs[i][:]...)
		if e.tracing() {
			e.note(s, "input contract "+string(ic.Create.ContractID)+" (created_at, node hash)")
		}
	}
	if s == SchemeV3 {
		e.optInt64(md.MaxRecordTime, "max_record_time")
	}
	return e, nil
}
