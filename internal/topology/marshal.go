package topology

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// protoVersion is the version of the UntypedVersionedMessage around a
// topology transaction: Canton's proto version 30.
const protoVersion = 30

// Marshal returns the transaction's bytes as Canton writes them: an
// UntypedVersionedMessage{1 data, 2 version = 30} whose data is the
// TopologyTransaction, every message's fields in field order, proto3
// defaults omitted, repeated scalars packed. It writes the model, never
// the bytes a transaction was read from ([Transaction.Bytes]).
func Marshal(t *Transaction) []byte {
	var tx []byte
	tx = appendVarint(tx, 1, uint64(int64(t.Operation)))
	tx = appendVarint(tx, 2, uint64(t.Serial))
	if t.Mapping != nil {
		mapping := appendMessage(nil, protowire.Number(t.Mapping.field()), t.Mapping.appendProto(nil))
		tx = appendMessage(tx, 3, mapping)
	}
	// data is a oneof member: present even when empty.
	b := appendMessage(nil, 1, tx)
	return appendVarint(b, 2, protoVersion)
}

func (m *NamespaceDelegation) appendProto(b []byte) []byte {
	b = appendString(b, 1, m.Namespace)
	b = appendMessage(b, 2, m.TargetKey.appendProto(nil))
	b = appendBool(b, 3, m.IsRootDelegation)
	switch m.Restriction {
	case RestrictionCanSignAllMappings, RestrictionCanSignAllButNamespaceDelegations:
		b = appendMessage(b, protowire.Number(m.Restriction), nil)
	case RestrictionCanSignSpecificMappings:
		var codes []byte
		for _, c := range m.SpecificMappings {
			codes = protowire.AppendVarint(codes, uint64(int64(c)))
		}
		specific := appendBytes(nil, 1, codes)
		b = appendMessage(b, protowire.Number(m.Restriction), specific)
	}
	return b
}

func (m *DecentralizedNamespaceDefinition) appendProto(b []byte) []byte {
	b = appendString(b, 1, m.Namespace)
	b = appendVarint(b, 2, uint64(int64(m.Threshold)))
	for _, owner := range m.Owners {
		// Elements of a repeated field are written even when empty.
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendString(b, owner)
	}
	return b
}

func (m *PartyToParticipant) appendProto(b []byte) []byte {
	b = appendString(b, 1, m.Party)
	b = appendVarint(b, 2, uint64(m.Threshold))
	for _, p := range m.Participants {
		b = appendMessage(b, 3, p.appendProto(nil))
	}
	if m.SigningKeys != nil {
		var keys []byte
		for _, k := range m.SigningKeys.Keys {
			keys = appendMessage(keys, 1, k.appendProto(nil))
		}
		keys = appendVarint(keys, 2, uint64(m.SigningKeys.Threshold))
		b = appendMessage(b, 6, keys)
	}
	return b
}

func (p HostingParticipant) appendProto(b []byte) []byte {
	b = appendString(b, 1, p.UID)
	b = appendVarint(b, 2, uint64(int64(p.Permission)))
	if p.Onboarding {
		b = appendMessage(b, 3, nil)
	}
	return b
}

func (m *PartyToKeyMapping) appendProto(b []byte) []byte {
	b = appendString(b, 1, m.Party)
	b = appendVarint(b, 3, uint64(m.Threshold))
	for _, k := range m.SigningKeys {
		b = appendMessage(b, 4, k.appendProto(nil))
	}
	return b
}

func (m *UnsupportedMapping) appendProto(b []byte) []byte { return append(b, m.Raw...) }

func (k SigningPublicKey) appendProto(b []byte) []byte {
	b = appendVarint(b, 2, uint64(int64(k.Format)))
	b = appendBytes(b, 3, k.Key)
	b = appendVarint(b, 4, uint64(int64(k.Scheme)))
	var usage []byte
	for _, u := range k.Usage {
		usage = protowire.AppendVarint(usage, uint64(int64(u)))
	}
	b = appendBytes(b, 5, usage)
	return appendVarint(b, 6, uint64(int64(k.Spec)))
}

// appendVarint appends a varint field unless it is the default 0.
func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return appendVarint(b, num, 1)
}

// appendBytes appends a bytes field (or a packed repeated scalar) unless
// it is empty.
func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendString(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

// appendMessage appends a message field, present even when empty.
func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}
