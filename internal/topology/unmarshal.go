package topology

import (
	"bytes"
	"errors"
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/pbwire"
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

// field is one field of a protobuf message.
type field = pbwire.Field

// decodeFields splits a message into its fields. A group (proto3 has
// none) or a wire type no field has is refused by its wire type, whether
// or not its content would read.
func decodeFields(msg string, b []byte) ([]field, error) {
	var fields []field
	for len(b) > 0 {
		f, rest, err := pbwire.Next(b)
		var e *pbwire.Error
		if errors.As(err, &e) {
			f.Num, f.Type = e.Num, e.Type
		}
		switch {
		case f.Type == protowire.StartGroupType || e != nil && e.Err == nil:
			return nil, fault.New(fault.InvalidArgument, "%s: field %d has the unsupported wire type %d", msg, f.Num, f.Type)
		case e != nil:
			return nil, wireError(msg, e.Err)
		}
		fields = append(fields, f)
		b = rest
	}
	return fields, nil
}

// eachField calls fn with each field of the message b, named msg in
// errors, and a decoder that checks the fields of that message. It reads
// the whole message before the first call, so that malformed wire data
// is refused before what the fields mean.
func eachField(msg string, b []byte, fn func(d *decoder, f field) error) error {
	fields, err := decodeFields(msg, b)
	if err != nil {
		return err
	}
	d := newDecoder(msg)
	for _, f := range fields {
		if err := fn(d, f); err != nil {
			return err
		}
	}
	return nil
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
	if d.seen[f.Num] {
		return fault.New(fault.InvalidArgument, "%s: field %d occurs more than once", d.msg, f.Num)
	}
	d.seen[f.Num] = true
	return nil
}

// repeated checks an element of a repeated field.
func (d *decoder) repeated(f field, want protowire.Type) error {
	if f.Type != want {
		return fault.New(fault.InvalidArgument, "%s: field %d has wire type %d, not %d", d.msg, f.Num, f.Type, want)
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
	if !utf8.Valid(f.Bytes) {
		return "", fault.New(fault.InvalidArgument, "%s: field %d is not valid UTF-8", d.msg, f.Num)
	}
	return string(f.Bytes), nil
}

// int32 reads a singular int32 or enum field: protobuf writes negative
// values as sign-extended 64-bit varints.
func (d *decoder) int32(f field) (int32, error) {
	if err := d.singular(f, protowire.VarintType); err != nil {
		return 0, err
	}
	return d.toInt32(f.Num, f.Scalar)
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
	if f.Scalar > math.MaxUint32 {
		return 0, fault.New(fault.InvalidArgument, "%s: field %d is out of the uint32 range", d.msg, f.Num)
	}
	return uint32(f.Scalar), nil
}

// int32s reads one occurrence of a repeated int32 or enum field, packed or
// not.
func (d *decoder) int32s(f field) ([]int32, error) {
	if f.Type == protowire.VarintType {
		v, err := d.toInt32(f.Num, f.Scalar)
		return []int32{v}, err
	}
	if err := d.repeated(f, protowire.BytesType); err != nil {
		return nil, err
	}
	var out []int32
	for b := f.Bytes; len(b) > 0; {
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return nil, wireError(d.msg, protowire.ParseError(n))
		}
		v, err := d.toInt32(f.Num, x)
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
	_, err := decodeFields(name, f.Bytes)
	return err
}

// decodeVersioned returns the data of an UntypedVersionedMessage of
// version 30.
func decodeVersioned(b []byte) ([]byte, error) {
	var data []byte
	hasData := false
	var version int32
	err := eachField("UntypedVersionedMessage", b, func(d *decoder, f field) (err error) {
		switch f.Num {
		case 1:
			if err = d.singular(f, protowire.BytesType); err == nil {
				data, hasData = f.Bytes, true
			}
		case 2:
			version, err = d.int32(f)
		}
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case !hasData:
		return nil, fault.New(fault.InvalidArgument, "Field `data` is not set")
	case version != protoVersion:
		return nil, fault.New(fault.InvalidArgument,
			"Unsupported version %d of TopologyTransaction: only version %d is known", version, protoVersion)
	}
	return data, nil
}

func decodeTransaction(b []byte) (*Transaction, error) {
	t := &Transaction{}
	err := eachField("TopologyTransaction", b, func(d *decoder, f field) (err error) {
		switch f.Num {
		case 1:
			var op int32
			op, err = d.int32(f)
			t.Operation = Operation(op)
		case 2:
			t.Serial, err = d.uint32(f)
		case 3:
			if err = d.singular(f, protowire.BytesType); err == nil {
				t.Mapping, err = decodeMapping(f.Bytes)
			}
		}
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case t.Mapping == nil:
		return nil, fault.New(fault.InvalidArgument, "Field `mapping` is not set")
	}
	return t, nil
}

// decodeMapping reads v30.TopologyMapping: a oneof whose every member is
// a message, so every field is taken as a mapping and one is required.
func decodeMapping(b []byte) (Mapping, error) {
	var mapping Mapping
	err := eachField("TopologyMapping", b, func(d *decoder, f field) (err error) {
		if err := d.repeated(f, protowire.BytesType); err != nil {
			return err
		}
		if mapping != nil {
			return fault.New(fault.InvalidArgument, "%s: more than one mapping is set", d.msg)
		}
		switch f.Num {
		case fieldNamespaceDelegation:
			mapping, err = decodeNamespaceDelegation(f.Bytes)
		case fieldDecentralizedNamespaceDefinition:
			mapping, err = decodeDecentralizedNamespace(f.Bytes)
		case fieldPartyToParticipant:
			mapping, err = decodePartyToParticipant(f.Bytes)
		case fieldPartyToKeyMapping:
			mapping, err = decodePartyToKey(f.Bytes)
		default:
			mapping = &UnsupportedMapping{Field: int32(f.Num), Raw: bytes.Clone(f.Bytes)}
		}
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case mapping == nil:
		return nil, fault.New(fault.InvalidArgument, "Field `TopologyMapping.mapping` is not set")
	}
	return mapping, nil
}

func decodeNamespaceDelegation(b []byte) (*NamespaceDelegation, error) {
	m := &NamespaceDelegation{}
	hasKey := false
	err := eachField("NamespaceDelegation", b, func(d *decoder, f field) (err error) {
		switch f.Num {
		case 1:
			m.Namespace, err = d.string(f)
		case 2:
			if err = d.singular(f, protowire.BytesType); err == nil {
				m.TargetKey, err = decodeSigningPublicKey(f.Bytes)
				hasKey = true
			}
		case 3:
			var v int32
			v, err = d.int32(f)
			m.IsRootDelegation = v != 0
		case 4, 5, 6:
			if m.Restriction != RestrictionNone {
				return fault.New(fault.InvalidArgument, "%s: more than one restriction is set", d.msg)
			}
			m.Restriction = Restriction(f.Num)
			if f.Num != 6 {
				return d.emptyMessage(f, "NamespaceDelegation.restriction")
			}
			if err = d.singular(f, protowire.BytesType); err == nil {
				m.SpecificMappings, err = decodeSpecificMappings(f.Bytes)
			}
		}
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case !hasKey:
		return nil, fault.New(fault.InvalidArgument, "Field `target_key` is not set")
	}
	return m, nil
}

func decodeSpecificMappings(b []byte) ([]int32, error) {
	var codes []int32
	err := eachField("NamespaceDelegation.CanSignSpecificMappings", b, func(d *decoder, f field) error {
		if f.Num != 1 {
			return nil
		}
		vs, err := d.int32s(f)
		codes = append(codes, vs...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

func decodeDecentralizedNamespace(b []byte) (*DecentralizedNamespaceDefinition, error) {
	m := &DecentralizedNamespaceDefinition{}
	err := eachField("DecentralizedNamespaceDefinition", b, func(d *decoder, f field) (err error) {
		switch f.Num {
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
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func decodePartyToParticipant(b []byte) (*PartyToParticipant, error) {
	m := &PartyToParticipant{}
	err := eachField("PartyToParticipant", b, func(d *decoder, f field) (err error) {
		switch f.Num {
		case 1:
			m.Party, err = d.string(f)
		case 2:
			m.Threshold, err = d.uint32(f)
		case 3:
			var p HostingParticipant
			if err = d.repeated(f, protowire.BytesType); err == nil {
				p, err = decodeHostingParticipant(f.Bytes)
				m.Participants = append(m.Participants, p)
			}
		case 6:
			if err = d.singular(f, protowire.BytesType); err == nil {
				m.SigningKeys, err = decodePartySigningKeys(f.Bytes)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func decodeHostingParticipant(b []byte) (HostingParticipant, error) {
	var p HostingParticipant
	err := eachField("PartyToParticipant.HostingParticipant", b, func(d *decoder, f field) (err error) {
		switch f.Num {
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
		return err
	})
	if err != nil {
		return HostingParticipant{}, err
	}
	return p, nil
}

func decodePartySigningKeys(b []byte) (*PartySigningKeys, error) {
	k := &PartySigningKeys{}
	err := eachField("PartyToParticipant.PartySigningKeys", b, func(d *decoder, f field) (err error) {
		switch f.Num {
		case 1:
			k.Keys, err = d.appendKey(k.Keys, f)
		case 2:
			k.Threshold, err = d.uint32(f)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

func decodePartyToKey(b []byte) (*PartyToKeyMapping, error) {
	m := &PartyToKeyMapping{}
	err := eachField("PartyToKeyMapping", b, func(d *decoder, f field) (err error) {
		switch f.Num {
		case 1:
			m.Party, err = d.string(f)
		case 3:
			m.Threshold, err = d.uint32(f)
		case 4:
			m.SigningKeys, err = d.appendKey(m.SigningKeys, f)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// appendKey reads an element of a repeated SigningPublicKey field.
func (d *decoder) appendKey(keys []SigningPublicKey, f field) ([]SigningPublicKey, error) {
	if err := d.repeated(f, protowire.BytesType); err != nil {
		return keys, err
	}
	k, err := decodeSigningPublicKey(f.Bytes)
	return append(keys, k), err
}

func decodeSigningPublicKey(b []byte) (SigningPublicKey, error) {
	var k SigningPublicKey
	err := eachField("SigningPublicKey", b, func(d *decoder, f field) (err error) {
		var v int32
		switch f.Num {
		case 2:
			v, err = d.int32(f)
			k.Format = signing.ProtoKeyFormat(v)
		case 3:
			if err = d.singular(f, protowire.BytesType); err == nil {
				k.Key = bytes.Clone(f.Bytes)
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
		return err
	})
	if err != nil {
		return SigningPublicKey{}, err
	}
	return k, nil
}
