package topology

import (
	"bytes"
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
)

// Unmarshal reads a topology transaction as Canton's
// TopologyTransaction.fromByteString does for protocol version 30, and
// keeps b as the transaction's [Transaction.Bytes]. It refuses what is no
// well-formed protobuf, a known field of the wrong wire type or repeated
// when it is singular, strings that are not UTF-8, a version other than
// 30, and the values Canton refuses when it reads the transaction and its
// modelled mapping (an unset operation, serial 0, a party id or key that
// does not parse, …). Unknown fields are skipped, as protobuf readers
// skip them; a mapping without a model decodes to an [UnsupportedMapping].
// Errors are fault.InvalidArgument without a code: the caller knows what
// the bytes were.
func Unmarshal(b []byte) (*Transaction, error) {
	data, err := decodeVersioned(b)
	if err != nil {
		return nil, err
	}
	t, err := decodeTransaction(data)
	if err != nil {
		return nil, err
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	t.raw = bytes.Clone(b)
	return t, nil
}

// field is one field of a protobuf message: its number, wire type, and
// value (a varint, or the bytes of a length-delimited field).
type field struct {
	num    protowire.Number
	typ    protowire.Type
	varint uint64
	bytes  []byte
}

// decodeFields splits a message into its fields. Groups are refused:
// proto3 has none.
func decodeFields(msg string, b []byte) ([]field, error) {
	var fields []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, wireError(msg, protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.varint, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.bytes, n = protowire.ConsumeBytes(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.varint = uint64(v)
		case protowire.Fixed64Type:
			f.varint, n = protowire.ConsumeFixed64(b)
		default:
			return nil, fault.New(fault.InvalidArgument, "%s: field %d has the unsupported wire type %d", msg, num, typ)
		}
		if n < 0 {
			return nil, wireError(msg, protowire.ParseError(n))
		}
		b = b[n:]
		fields = append(fields, f)
	}
	return fields, nil
}

func wireError(msg string, err error) *fault.Error {
	return fault.New(fault.InvalidArgument, "%s: %s", msg, err.Error())
}

// decoder checks the fields of one message: their wire types, and that a
// singular field occurs once.
type decoder struct {
	msg  string
	seen map[protowire.Number]bool
}

func newDecoder(msg string) *decoder {
	return &decoder{msg: msg, seen: map[protowire.Number]bool{}}
}

// singular checks a singular field (or a oneof member).
func (d *decoder) singular(f field, want protowire.Type) error {
	if err := d.repeated(f, want); err != nil {
		return err
	}
	if d.seen[f.num] {
		return fault.New(fault.InvalidArgument, "%s: field %d occurs more than once", d.msg, f.num)
	}
	d.seen[f.num] = true
	return nil
}

// repeated checks an element of a repeated field.
func (d *decoder) repeated(f field, want protowire.Type) error {
	if f.typ != want {
		return fault.New(fault.InvalidArgument, "%s: field %d has wire type %d, not %d", d.msg, f.num, f.typ, want)
	}
	return nil
}

func (d *decoder) string(f field) (string, error) {
	if err := d.singular(f, protowire.BytesType); err != nil {
		return "", err
	}
	return d.utf8(f)
}

func (d *decoder) utf8(f field) (string, error) {
	if !utf8.Valid(f.bytes) {
		return "", fault.New(fault.InvalidArgument, "%s: field %d is not valid UTF-8", d.msg, f.num)
	}
	return string(f.bytes), nil
}

// int32 reads a singular int32 or enum field: protobuf writes negative
// values as sign-extended 64-bit varints.
func (d *decoder) int32(f field) (int32, error) {
	if err := d.singular(f, protowire.VarintType); err != nil {
		return 0, err
	}
	return d.toInt32(f.num, f.varint)
}

func (d *decoder) toInt32(num protowire.Number, v uint64) (int32, error) {
	if s := int64(v); s < math.MinInt32 || s > math.MaxInt32 {
		return 0, fault.New(fault.InvalidArgument, "%s: field %d is out of the int32 range", d.msg, num)
	}
	return int32(int64(v)), nil
}

func (d *decoder) uint32(f field) (uint32, error) {
	if err := d.singular(f, protowire.VarintType); err != nil {
		return 0, err
	}
	if f.varint > math.MaxUint32 {
		return 0, fault.New(fault.InvalidArgument, "%s: field %d is out of the uint32 range", d.msg, f.num)
	}
	return uint32(f.varint), nil
}

// int32s reads one occurrence of a repeated int32 or enum field, packed or
// not.
func (d *decoder) int32s(f field) ([]int32, error) {
	if f.typ == protowire.VarintType {
		v, err := d.toInt32(f.num, f.varint)
		return []int32{v}, err
	}
	if err := d.repeated(f, protowire.BytesType); err != nil {
		return nil, err
	}
	var out []int32
	for b := f.bytes; len(b) > 0; {
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return nil, wireError(d.msg, protowire.ParseError(n))
		}
		v, err := d.toInt32(f.num, x)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		b = b[n:]
	}
	return out, nil
}

// emptyMessage checks a message field whose message has no fields Canton
// reads (a restriction, the onboarding marker): it must be a well-formed
// message.
func (d *decoder) emptyMessage(f field, name string) error {
	if err := d.singular(f, protowire.BytesType); err != nil {
		return err
	}
	_, err := decodeFields(name, f.bytes)
	return err
}

// decodeVersioned returns the data of an UntypedVersionedMessage of
// version 30.
func decodeVersioned(b []byte) ([]byte, error) {
	const msg = "UntypedVersionedMessage"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	d := newDecoder(msg)
	var data []byte
	hasData := false
	var version int32
	for _, f := range fields {
		switch f.num {
		case 1:
			if err := d.singular(f, protowire.BytesType); err != nil {
				return nil, err
			}
			data, hasData = f.bytes, true
		case 2:
			if version, err = d.int32(f); err != nil {
				return nil, err
			}
		}
	}
	if !hasData {
		return nil, fault.New(fault.InvalidArgument, "Field `data` is not set")
	}
	if version != protoVersion {
		return nil, fault.New(fault.InvalidArgument,
			"Unsupported version %d of TopologyTransaction: only version %d is known", version, protoVersion)
	}
	return data, nil
}

func decodeTransaction(b []byte) (*Transaction, error) {
	const msg = "TopologyTransaction"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	d := newDecoder(msg)
	t := &Transaction{}
	for _, f := range fields {
		switch f.num {
		case 1:
			op, err := d.int32(f)
			if err != nil {
				return nil, err
			}
			t.Operation = Operation(op)
		case 2:
			if t.Serial, err = d.uint32(f); err != nil {
				return nil, err
			}
		case 3:
			if err := d.singular(f, protowire.BytesType); err != nil {
				return nil, err
			}
			if t.Mapping, err = decodeMapping(f.bytes); err != nil {
				return nil, err
			}
		}
	}
	if t.Mapping == nil {
		return nil, fault.New(fault.InvalidArgument, "Field `mapping` is not set")
	}
	return t, nil
}

// decodeMapping reads v30.TopologyMapping: a oneof whose every member is
// a message, so every field is taken as a mapping and one is required.
func decodeMapping(b []byte) (Mapping, error) {
	const msg = "TopologyMapping"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	var mapping Mapping
	for _, f := range fields {
		if f.typ != protowire.BytesType {
			return nil, fault.New(fault.InvalidArgument, "%s: field %d has wire type %d, not %d", msg, f.num, f.typ, protowire.BytesType)
		}
		if mapping != nil {
			return nil, fault.New(fault.InvalidArgument, "%s: more than one mapping is set", msg)
		}
		switch f.num {
		case fieldNamespaceDelegation:
			mapping, err = decodeNamespaceDelegation(f.bytes)
		case fieldDecentralizedNamespaceDefinition:
			mapping, err = decodeDecentralizedNamespace(f.bytes)
		case fieldPartyToParticipant:
			mapping, err = decodePartyToParticipant(f.bytes)
		case fieldPartyToKeyMapping:
			mapping, err = decodePartyToKey(f.bytes)
		default:
			mapping = &UnsupportedMapping{Field: int32(f.num), Raw: bytes.Clone(f.bytes)}
		}
		if err != nil {
			return nil, err
		}
	}
	if mapping == nil {
		return nil, fault.New(fault.InvalidArgument, "Field `TopologyMapping.mapping` is not set")
	}
	return mapping, nil
}

func decodeNamespaceDelegation(b []byte) (*NamespaceDelegation, error) {
	const msg = "NamespaceDelegation"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	d := newDecoder(msg)
	m := &NamespaceDelegation{}
	hasKey := false
	for _, f := range fields {
		switch f.num {
		case 1:
			m.Namespace, err = d.string(f)
		case 2:
			if err = d.singular(f, protowire.BytesType); err == nil {
				m.TargetKey, err = decodeSigningPublicKey(f.bytes)
				hasKey = true
			}
		case 3:
			var v int32
			v, err = d.int32(f)
			m.IsRootDelegation = v != 0
		case 4, 5, 6:
			if m.Restriction != RestrictionNone {
				return nil, fault.New(fault.InvalidArgument, "%s: more than one restriction is set", msg)
			}
			m.Restriction = Restriction(f.num)
			if f.num != 6 {
				err = d.emptyMessage(f, "NamespaceDelegation.restriction")
				break
			}
			if err = d.singular(f, protowire.BytesType); err == nil {
				m.SpecificMappings, err = decodeSpecificMappings(f.bytes)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasKey {
		return nil, fault.New(fault.InvalidArgument, "Field `target_key` is not set")
	}
	return m, nil
}

func decodeSpecificMappings(b []byte) ([]int32, error) {
	const msg = "NamespaceDelegation.CanSignSpecificMappings"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	d := newDecoder(msg)
	var codes []int32
	for _, f := range fields {
		if f.num == 1 {
			vs, err := d.int32s(f)
			if err != nil {
				return nil, err
			}
			codes = append(codes, vs...)
		}
	}
	return codes, nil
}

func decodeDecentralizedNamespace(b []byte) (*DecentralizedNamespaceDefinition, error) {
	const msg = "DecentralizedNamespaceDefinition"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	d := newDecoder(msg)
	m := &DecentralizedNamespaceDefinition{}
	for _, f := range fields {
		switch f.num {
		case 1:
			m.Namespace, err = d.string(f)
		case 2:
			m.Threshold, err = d.int32(f)
		case 3:
			var owner string
			if err = d.repeated(f, protowire.BytesType); err == nil {
				owner, err = d.utf8(f)
				m.Owners = append(m.Owners, owner)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

func decodePartyToParticipant(b []byte) (*PartyToParticipant, error) {
	const msg = "PartyToParticipant"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	d := newDecoder(msg)
	m := &PartyToParticipant{}
	for _, f := range fields {
		switch f.num {
		case 1:
			m.Party, err = d.string(f)
		case 2:
			m.Threshold, err = d.uint32(f)
		case 3:
			var p HostingParticipant
			if err = d.repeated(f, protowire.BytesType); err == nil {
				p, err = decodeHostingParticipant(f.bytes)
				m.Participants = append(m.Participants, p)
			}
		case 6:
			if err = d.singular(f, protowire.BytesType); err == nil {
				m.SigningKeys, err = decodePartySigningKeys(f.bytes)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

func decodeHostingParticipant(b []byte) (HostingParticipant, error) {
	const msg = "PartyToParticipant.HostingParticipant"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return HostingParticipant{}, err
	}
	d := newDecoder(msg)
	var p HostingParticipant
	for _, f := range fields {
		switch f.num {
		case 1:
			p.UID, err = d.string(f)
		case 2:
			var v int32
			v, err = d.int32(f)
			p.Permission = Permission(v)
		case 3:
			err = d.emptyMessage(f, "PartyToParticipant.HostingParticipant.Onboarding")
			p.Onboarding = true
		}
		if err != nil {
			return HostingParticipant{}, err
		}
	}
	return p, nil
}

func decodePartySigningKeys(b []byte) (*PartySigningKeys, error) {
	const msg = "PartyToParticipant.PartySigningKeys"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	d := newDecoder(msg)
	k := &PartySigningKeys{}
	for _, f := range fields {
		switch f.num {
		case 1:
			var key SigningPublicKey
			if err = d.repeated(f, protowire.BytesType); err == nil {
				key, err = decodeSigningPublicKey(f.bytes)
				k.Keys = append(k.Keys, key)
			}
		case 2:
			k.Threshold, err = d.uint32(f)
		}
		if err != nil {
			return nil, err
		}
	}
	return k, nil
}

func decodePartyToKey(b []byte) (*PartyToKeyMapping, error) {
	const msg = "PartyToKeyMapping"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return nil, err
	}
	d := newDecoder(msg)
	m := &PartyToKeyMapping{}
	for _, f := range fields {
		switch f.num {
		case 1:
			m.Party, err = d.string(f)
		case 3:
			m.Threshold, err = d.uint32(f)
		case 4:
			var key SigningPublicKey
			if err = d.repeated(f, protowire.BytesType); err == nil {
				key, err = decodeSigningPublicKey(f.bytes)
				m.SigningKeys = append(m.SigningKeys, key)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

func decodeSigningPublicKey(b []byte) (SigningPublicKey, error) {
	const msg = "SigningPublicKey"
	fields, err := decodeFields(msg, b)
	if err != nil {
		return SigningPublicKey{}, err
	}
	d := newDecoder(msg)
	var k SigningPublicKey
	for _, f := range fields {
		var v int32
		switch f.num {
		case 2:
			v, err = d.int32(f)
			k.Format = signing.ProtoKeyFormat(v)
		case 3:
			if err = d.singular(f, protowire.BytesType); err == nil {
				k.Key = bytes.Clone(f.bytes)
			}
		case 4:
			k.Scheme, err = d.int32(f)
		case 5:
			var vs []int32
			vs, err = d.int32s(f)
			for _, u := range vs {
				k.Usage = append(k.Usage, signing.Usage(u))
			}
		case 6:
			v, err = d.int32(f)
			k.Spec = signing.KeySpec(v)
		}
		if err != nil {
			return SigningPublicKey{}, err
		}
	}
	return k, nil
}
