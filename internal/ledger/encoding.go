package ledger

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/sandnet/sandnet/internal/daml"
)

// The store adapters persist transactions and contracts as opaque blobs
// produced here, plus the index columns they query on. Keeping the encoding
// in the domain means both adapters store byte-identical data and neither
// re-implements it.
//
// A blob is a format byte ([blobFormat]) and then the fields in a fixed
// order, written with a [daml.BinaryEncoder]: varints for integers and
// counts, strings through the blob's string table (so a party, package id
// or label repeated across the tree is stored once), and Daml values in
// daml's binary encoding, which is lossless and self-describing. Changing
// the layout means a new format byte; a decoder refuses formats it does
// not know rather than guess.

// blobFormat is the current blob format. Old JSON blobs start with '{'.
const blobFormat byte = 1

// Blob kinds, after the format byte, so that a contract blob is never
// decoded as a transaction or the other way round.
const (
	blobTransaction byte = 'T'
	blobContract    byte = 'C'
	blobTopology    byte = 'P'
	blobReassign    byte = 'R'
)

// Event node kinds.
const (
	nodeCreated   byte = 1
	nodeExercised byte = 2
)

func putParties(e *daml.BinaryEncoder, ps []daml.Party) {
	e.Uvarint(uint64(len(ps)))
	for _, p := range ps {
		e.String(string(p))
	}
}

func getParties(d *daml.BinaryDecoder) []daml.Party {
	n := d.Count(1)
	if n == 0 {
		return nil
	}
	ps := make([]daml.Party, 0, daml.Prealloc(n))
	for range n {
		ps = append(ps, daml.Party(d.String()))
	}
	return ps
}

func putNodeIDs(e *daml.BinaryEncoder, ids []int32) {
	e.Uvarint(uint64(len(ids)))
	for _, id := range ids {
		e.Varint(int64(id))
	}
}

func getNodeIDs(d *daml.BinaryDecoder) []int32 {
	n := d.Count(1)
	if n == 0 {
		return nil
	}
	ids := make([]int32, 0, daml.Prealloc(n))
	for range n {
		ids = append(ids, getInt32(d))
	}
	return ids
}

func getInt32(d *daml.BinaryDecoder) int32 {
	i := d.Varint()
	if int64(int32(i)) != i {
		d.Fail(fmt.Errorf("node id %d out of range", i))
		return 0
	}
	return int32(i)
}

func putIdentifier(e *daml.BinaryEncoder, id daml.Identifier) { e.Identifier(id) }

func getIdentifier(d *daml.BinaryDecoder) daml.Identifier { return *d.Identifier() }

func putTemplate(e *daml.BinaryEncoder, t TemplateID) {
	putIdentifier(e, t.Identifier)
	e.String(t.PackageName)
}

func getTemplate(d *daml.BinaryDecoder) TemplateID {
	id := getIdentifier(d)
	return TemplateID{Identifier: id, PackageName: d.String()}
}

// putValue writes an optional value: a presence byte, then the value.
func putValue(e *daml.BinaryEncoder, v daml.Value) error {
	if v == nil {
		e.Byte(0)
		return nil
	}
	e.Byte(1)
	return e.Value(v)
}

func getValue(d *daml.BinaryDecoder) (daml.Value, error) {
	if !d.Bool() {
		return nil, d.Err()
	}
	return d.Value()
}

func putContract(e *daml.BinaryEncoder, c *Contract) error {
	e.String(string(c.ID))
	putTemplate(e, c.Template)
	if c.Argument == nil {
		return fmt.Errorf("contract %s: no argument", c.ID)
	}
	if err := e.Value(c.Argument); err != nil {
		return fmt.Errorf("contract %s: %w", c.ID, err)
	}
	putParties(e, c.Signatories)
	putParties(e, c.Observers)
	e.Varint(int64(c.CreatedAt))
	e.String(c.CreatedBy)
	e.String(string(c.Synchronizer))
	e.Varint(c.MigrationID)
	return nil
}

func getContract(d *daml.BinaryDecoder) (*Contract, error) {
	c := &Contract{ID: daml.ContractID(d.String()), Template: getTemplate(d)}
	v, err := d.Value()
	if err != nil {
		return nil, err
	}
	rec, ok := v.(*daml.Record)
	if !ok {
		return nil, fmt.Errorf("contract %s: argument is not a record", c.ID)
	}
	c.Argument = rec
	c.Signatories = getParties(d)
	c.Observers = getParties(d)
	c.CreatedAt = daml.Timestamp(d.Varint())
	c.CreatedBy = d.String()
	c.Synchronizer = SynchronizerID(d.String())
	c.MigrationID = d.Varint()
	return c, d.Err()
}

func putExercised(e *daml.BinaryEncoder, x *Exercised) error {
	e.String(string(x.ContractID))
	putTemplate(e, x.Template)
	if x.Interface != nil {
		e.Byte(1)
		putIdentifier(e, *x.Interface)
	} else {
		e.Byte(0)
	}
	e.String(x.Choice)
	if err := putValue(e, x.ChoiceArgument); err != nil {
		return fmt.Errorf("exercise of %s on %s: argument: %w", x.Choice, x.ContractID, err)
	}
	putParties(e, x.ActingParties)
	e.Bool(x.Consuming)
	putNodeIDs(e, x.Children)
	e.Varint(int64(x.LastDescendant))
	if err := putValue(e, x.ExerciseResult); err != nil {
		return fmt.Errorf("exercise of %s on %s: result: %w", x.Choice, x.ContractID, err)
	}
	putParties(e, x.Stakeholders)
	return nil
}

func getExercised(d *daml.BinaryDecoder) (*Exercised, error) {
	x := &Exercised{ContractID: daml.ContractID(d.String()), Template: getTemplate(d)}
	if d.Bool() {
		id := getIdentifier(d)
		x.Interface = &id
	}
	x.Choice = d.String()
	var err error
	if x.ChoiceArgument, err = getValue(d); err != nil {
		return nil, err
	}
	x.ActingParties = getParties(d)
	x.Consuming = d.Bool()
	x.Children = getNodeIDs(d)
	x.LastDescendant = getInt32(d)
	if x.ExerciseResult, err = getValue(d); err != nil {
		return nil, err
	}
	x.Stakeholders = getParties(d)
	return x, d.Err()
}

// begin checks a blob's format and kind and returns a decoder positioned
// after them.
func begin(b []byte, kind byte) (*daml.BinaryDecoder, error) {
	return beginShared(b, kind, false)
}

// beginShared is begin with, when shared, a decoder whose strings share
// one copy of the blob (daml.NewSharedBinaryDecoder).
func beginShared(b []byte, kind byte, shared bool) (*daml.BinaryDecoder, error) {
	switch {
	case len(b) < 2:
		return nil, errors.New("blob too short")
	case b[0] != blobFormat:
		return nil, fmt.Errorf("unknown blob format %#x (this build reads format %d)", b[0], blobFormat)
	case b[1] != kind:
		return nil, fmt.Errorf("blob holds kind %q, not %q", b[1], kind)
	}
	if shared {
		return daml.NewSharedBinaryDecoder(b[2:]), nil
	}
	return daml.NewBinaryDecoder(b[2:]), nil
}

// end checks that a decoder read its whole blob without error.
func end(d *daml.BinaryDecoder) error {
	if err := d.Err(); err != nil {
		return err
	}
	if n := len(d.Rest()); n > 0 {
		return fmt.Errorf("%d trailing bytes", n)
	}
	return nil
}

// encoders are the binary encoders of the Encode functions: a blob is
// encoded into a pooled encoder's scratch buffer and string tables and
// copied out at its exact size, rather than growing a fresh buffer and
// fresh tables for every blob (the commit path encodes several per
// transaction).
var encoders = sync.Pool{New: func() any { return daml.NewBinaryEncoder(make([]byte, 0, 1024)) }}

// maxPooledBuffer is the largest scratch buffer returned to the pool.
const maxPooledBuffer = 64 << 10

func getEncoder() *daml.BinaryEncoder {
	e := encoders.Get().(*daml.BinaryEncoder)
	e.Reset(e.Bytes()[:0])
	return e
}

func putEncoder(e *daml.BinaryEncoder) {
	if cap(e.Bytes()) <= maxPooledBuffer {
		encoders.Put(e)
	}
}

// blob returns a copy of what e holds, which stays valid after e goes back
// to the pool.
func blob(e *daml.BinaryEncoder) []byte { return slices.Clone(e.Bytes()) }

// EncodeContract serialises a contract for storage.
func EncodeContract(c *Contract) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	e.Byte(blobFormat)
	e.Byte(blobContract)
	if err := putContract(e, c); err != nil {
		return nil, err
	}
	// The reassignment counter is an optional trailer, so that the blobs
	// of never reassigned contracts keep the layout they always had.
	if c.ReassignmentCounter != 0 {
		e.Varint(c.ReassignmentCounter)
	}
	return blob(e), nil
}

// DecodeContract reverses [EncodeContract].
func DecodeContract(b []byte) (*Contract, error) {
	d, err := begin(b, blobContract)
	if err == nil {
		var c *Contract
		if c, err = getContract(d); err == nil {
			if d.Err() == nil && len(d.Rest()) > 0 {
				if c.ReassignmentCounter = d.Varint(); d.Err() == nil && c.ReassignmentCounter <= 0 {
					err = fmt.Errorf("contract %s: reassignment counter %d", c.ID, c.ReassignmentCounter)
				}
			}
			if err == nil {
				err = end(d)
			}
			if err == nil {
				return c, nil
			}
		}
	}
	return nil, fmt.Errorf("decode contract: %w", err)
}

// EncodeTransaction serialises a transaction for storage.
func EncodeTransaction(t *Transaction) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	e.Byte(blobFormat)
	e.Byte(blobTransaction)
	e.String(t.UpdateID)
	e.String(t.WorkflowID)
	e.String(string(t.Submission.Participant))
	e.String(t.Submission.UserID)
	putParties(e, t.Submission.ActAs)
	e.String(t.Submission.CommandID)
	e.String(string(t.Synchronizer))
	e.Varint(t.MigrationID)
	e.Varint(int64(t.RecordTime))
	e.Varint(int64(t.EffectiveAt))
	e.Uvarint(uint64(len(t.Events)))
	for i := range t.Events {
		ev := &t.Events[i]
		e.Varint(int64(ev.NodeID))
		switch {
		case ev.Created != nil && ev.Exercised != nil:
			return nil, fmt.Errorf("encode transaction %s: node %d is both a create and an exercise", t.UpdateID, ev.NodeID)
		case ev.Created != nil:
			e.Byte(nodeCreated)
			if err := putContract(e, ev.Created); err != nil {
				return nil, fmt.Errorf("encode transaction %s: %w", t.UpdateID, err)
			}
		case ev.Exercised != nil:
			e.Byte(nodeExercised)
			if err := putExercised(e, ev.Exercised); err != nil {
				return nil, fmt.Errorf("encode transaction %s: %w", t.UpdateID, err)
			}
		default:
			e.Byte(0)
		}
		putParties(e, ev.Witnesses)
	}
	putNodeIDs(e, t.Roots)
	e.String(t.TraceContext.TraceParent)
	e.String(t.TraceContext.TraceState)
	// A field added later: written only when set, so that the blobs of
	// transactions without it are unchanged.
	if len(t.ExternalHash) > 0 {
		e.String(string(t.ExternalHash))
	}
	return blob(e), nil
}

// DecodeTransaction reverses [EncodeTransaction].
func DecodeTransaction(b []byte) (*Transaction, error) {
	t, err := decodeTransaction(b, false)
	if err != nil {
		return nil, fmt.Errorf("decode transaction: %w", err)
	}
	return t, nil
}

func decodeTransaction(b []byte, shared bool) (*Transaction, error) {
	d, err := beginShared(b, blobTransaction, shared)
	if err != nil {
		return nil, err
	}
	t := &Transaction{UpdateID: d.String(), WorkflowID: d.String()}
	t.Submission.Participant = ParticipantID(d.String())
	t.Submission.UserID = d.String()
	t.Submission.ActAs = getParties(d)
	t.Submission.CommandID = d.String()
	t.Synchronizer = SynchronizerID(d.String())
	t.MigrationID = d.Varint()
	t.RecordTime = daml.Timestamp(d.Varint())
	t.EffectiveAt = daml.Timestamp(d.Varint())
	n := d.Count(3)
	if err := d.Err(); err != nil {
		return nil, err
	}
	t.Events = make([]Event, 0, daml.Prealloc(n))
	for i := range n {
		t.Events = append(t.Events, Event{})
		ev := &t.Events[i]
		ev.NodeID = getInt32(d)
		switch kind := d.Byte(); kind {
		case nodeCreated:
			if ev.Created, err = getContract(d); err != nil {
				return nil, err
			}
		case nodeExercised:
			if ev.Exercised, err = getExercised(d); err != nil {
				return nil, err
			}
		case 0:
		default:
			return nil, fmt.Errorf("event %d: unknown node kind %d", i, kind)
		}
		ev.Witnesses = getParties(d)
		if err := d.Err(); err != nil {
			return nil, err
		}
	}
	t.Roots = getNodeIDs(d)
	t.TraceContext.TraceParent = d.String()
	t.TraceContext.TraceState = d.String()
	if d.Err() == nil && len(d.Rest()) > 0 {
		if t.ExternalHash = []byte(d.String()); len(t.ExternalHash) == 0 {
			d.Fail(errors.New("empty external transaction hash"))
		}
	}
	if err := end(d); err != nil {
		return nil, err
	}
	return t, nil
}

// IsTopologyBlob reports whether an update blob holds a topology
// transaction rather than a transaction.
func IsTopologyBlob(b []byte) bool {
	return len(b) >= 2 && b[0] == blobFormat && b[1] == blobTopology
}

// EncodeTopologyTransaction serialises a topology transaction for storage.
func EncodeTopologyTransaction(t *TopologyTransaction) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	e.Byte(blobFormat)
	e.Byte(blobTopology)
	e.String(t.UpdateID)
	e.String(string(t.Synchronizer))
	e.Varint(t.MigrationID)
	e.Varint(int64(t.RecordTime))
	e.Uvarint(uint64(len(t.Events)))
	for _, ev := range t.Events {
		if ev.Kind < AuthorizationAdded || ev.Kind > AuthorizationRevoked {
			return nil, fmt.Errorf("encode topology transaction %s: unknown event kind %d", t.UpdateID, ev.Kind)
		}
		e.Byte(byte(ev.Kind))
		e.String(string(ev.Party))
		e.String(string(ev.Participant))
		e.String(string(ev.Permission))
	}
	return blob(e), nil
}

// DecodeTopologyTransaction reverses [EncodeTopologyTransaction].
func DecodeTopologyTransaction(b []byte) (*TopologyTransaction, error) {
	t, err := decodeTopology(b, false)
	if err != nil {
		return nil, fmt.Errorf("decode topology transaction: %w", err)
	}
	return t, nil
}

func decodeTopology(b []byte, shared bool) (*TopologyTransaction, error) {
	d, err := beginShared(b, blobTopology, shared)
	if err != nil {
		return nil, err
	}
	t := &TopologyTransaction{UpdateID: d.String(), Synchronizer: SynchronizerID(d.String())}
	t.MigrationID = d.Varint()
	t.RecordTime = daml.Timestamp(d.Varint())
	n := d.Count(4)
	if err := d.Err(); err != nil {
		return nil, err
	}
	t.Events = make([]TopologyEvent, 0, daml.Prealloc(n))
	for i := range n {
		kind := TopologyEventKind(d.Byte())
		ev := TopologyEvent{Kind: kind, Party: daml.Party(d.String()), Participant: ParticipantID(d.String()), Permission: Permission(d.String())}
		if err := d.Err(); err != nil {
			return nil, err
		}
		if kind < AuthorizationAdded || kind > AuthorizationRevoked {
			return nil, fmt.Errorf("event %d: unknown topology event kind %d", i, kind)
		}
		t.Events = append(t.Events, ev)
	}
	if err := end(d); err != nil {
		return nil, err
	}
	return t, nil
}

// IsTransactionBlob reports whether an update blob holds a transaction
// rather than a topology transaction or a reassignment.
func IsTransactionBlob(b []byte) bool {
	return len(b) >= 2 && b[0] == blobFormat && b[1] == blobTransaction
}

// EncodeReassignment serialises one half of a reassignment for storage.
func EncodeReassignment(r *Reassignment) ([]byte, error) {
	if r.Kind != Unassigned && r.Kind != Assigned {
		return nil, fmt.Errorf("encode reassignment %s: unknown kind %d", r.UpdateID, r.Kind)
	}
	if r.Contract == nil {
		return nil, fmt.Errorf("encode reassignment %s: no contract", r.UpdateID)
	}
	e := getEncoder()
	defer putEncoder(e)
	e.Byte(blobFormat)
	e.Byte(blobReassign)
	e.Byte(byte(r.Kind))
	e.String(r.UpdateID)
	e.String(string(r.Source))
	e.String(string(r.Target))
	e.Varint(r.MigrationID)
	e.Varint(int64(r.RecordTime))
	e.String(r.UnassignID)
	e.Varint(r.Counter)
	c := r.Contract
	if r.Kind == Unassigned && c.Argument == nil {
		// An unassignment names its contract by id only; one read back
		// from a Scan's history (a backfilled one) carries nothing else.
		cp := *c
		cp.Argument = &daml.Record{}
		c = &cp
	}
	if err := putContract(e, c); err != nil {
		return nil, fmt.Errorf("encode reassignment %s: %w", r.UpdateID, err)
	}
	e.Varint(r.Contract.ReassignmentCounter)
	e.String(string(r.Submitter))
	e.String(r.CommandID)
	e.String(r.WorkflowID)
	e.String(r.TraceContext.TraceParent)
	e.String(r.TraceContext.TraceState)
	return blob(e), nil
}

// DecodeReassignment reverses [EncodeReassignment].
func DecodeReassignment(b []byte) (*Reassignment, error) {
	r, err := decodeReassignment(b, false)
	if err != nil {
		return nil, fmt.Errorf("decode reassignment: %w", err)
	}
	return r, nil
}

func decodeReassignment(b []byte, shared bool) (*Reassignment, error) {
	d, err := beginShared(b, blobReassign, shared)
	if err != nil {
		return nil, err
	}
	r := &Reassignment{Kind: ReassignmentKind(d.Byte())}
	if err := d.Err(); err != nil {
		return nil, err
	}
	if r.Kind != Unassigned && r.Kind != Assigned {
		return nil, fmt.Errorf("unknown reassignment kind %d", r.Kind)
	}
	r.UpdateID = d.String()
	r.Source = SynchronizerID(d.String())
	r.Target = SynchronizerID(d.String())
	r.MigrationID = d.Varint()
	r.RecordTime = daml.Timestamp(d.Varint())
	r.UnassignID = d.String()
	r.Counter = d.Varint()
	if err := d.Err(); err != nil {
		return nil, err
	}
	if r.Contract, err = getContract(d); err != nil {
		return nil, err
	}
	r.Contract.ReassignmentCounter = d.Varint()
	r.Submitter = daml.Party(d.String())
	r.CommandID = d.String()
	r.WorkflowID = d.String()
	r.TraceContext.TraceParent = d.String()
	r.TraceContext.TraceState = d.String()
	if err := end(d); err != nil {
		return nil, err
	}
	return r, nil
}

// DecodeUpdate decodes an update blob: a transaction, a topology
// transaction or a reassignment, exactly one of which the result holds
// (its Participant and Offset are left zero).
func DecodeUpdate(b []byte) (ParticipantUpdate, error) {
	return decodeUpdate(b, false)
}

// DecodeUpdateShared is [DecodeUpdate] for a read path that decodes many
// blobs: the strings of the result are substrings of one copy of b
// rather than one allocation each, and b is only read during the call,
// so it may be a buffer the caller reuses (a database/sql RawBytes). The
// result is the same; any of its strings keeps that copy alive.
func DecodeUpdateShared(b []byte) (ParticipantUpdate, error) {
	return decodeUpdate(b, true)
}

func decodeUpdate(b []byte, shared bool) (ParticipantUpdate, error) {
	var u ParticipantUpdate
	var err error
	switch {
	case IsTopologyBlob(b):
		if u.Topology, err = decodeTopology(b, shared); err != nil {
			return u, fmt.Errorf("decode topology transaction: %w", err)
		}
	case len(b) >= 2 && b[0] == blobFormat && b[1] == blobReassign:
		if u.Reassignment, err = decodeReassignment(b, shared); err != nil {
			return u, fmt.Errorf("decode reassignment: %w", err)
		}
	default:
		if u.Transaction, err = decodeTransaction(b, shared); err != nil {
			return u, fmt.Errorf("decode transaction: %w", err)
		}
	}
	return u, nil
}
