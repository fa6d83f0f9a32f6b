package topology

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/pbwire"
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
	// data is a oneof member: present even when empty.
	b := pbwire.AppendMessage(nil, 1, func(b []byte) []byte {
		b = pbwire.AppendVarint(b, 1, uint64(int64(t.Operation)))
		b = pbwire.AppendVarint(b, 2, uint64(t.Serial))
		if t.Mapping != nil {
			b = pbwire.AppendMessage(b, 3, func(b []byte) []byte {
				return pbwire.AppendMessage(b, protowire.Number(t.Mapping.field()), t.Mapping.appendProto)
			})
		}
		return b
	})
	return pbwire.AppendVarint(b, 2, protoVersion)
}

func (m *NamespaceDelegation) appendProto(b []byte) []byte {
	b = pbwire.AppendString(b, 1, m.Namespace)
	b = pbwire.AppendMessage(b, 2, m.TargetKey.appendProto)
	b = pbwire.AppendBool(b, 3, m.IsRootDelegation)
	switch m.Restriction {
	case RestrictionCanSignAllMappings, RestrictionCanSignAllButNamespaceDelegations:
		b = pbwire.AppendMessage(b, protowire.Number(m.Restriction), nil)
	case RestrictionCanSignSpecificMappings:
		b = pbwire.AppendMessage(b, protowire.Number(m.Restriction), func(b []byte) []byte {
			return pbwire.AppendBytes(b, 1, packed(m.SpecificMappings))
		})
	}
	return b
}

func (m *DecentralizedNamespaceDefinition) appendProto(b []byte) []byte {
	b = pbwire.AppendString(b, 1, m.Namespace)
	b = pbwire.AppendVarint(b, 2, uint64(int64(m.Threshold)))
	return pbwire.AppendStrings(b, 3, m.Owners)
}

func (m *PartyToParticipant) appendProto(b []byte) []byte {
	b = pbwire.AppendString(b, 1, m.Party)
	b = pbwire.AppendVarint(b, 2, uint64(m.Threshold))
	for _, p := range m.Participants {
		b = pbwire.AppendMessage(b, 3, p.appendProto)
	}
	if k := m.SigningKeys; k != nil {
		b = pbwire.AppendMessage(b, 6, func(b []byte) []byte {
			b = appendKeys(b, 1, k.Keys)
			return pbwire.AppendVarint(b, 2, uint64(k.Threshold))
		})
	}
	return b
}

func (p HostingParticipant) appendProto(b []byte) []byte {
	b = pbwire.AppendString(b, 1, p.UID)
	b = pbwire.AppendVarint(b, 2, uint64(int64(p.Permission)))
	if p.Onboarding {
		b = pbwire.AppendMessage(b, 3, nil)
	}
	return b
}

func (m *PartyToKeyMapping) appendProto(b []byte) []byte {
	b = pbwire.AppendString(b, 1, m.Party)
	b = pbwire.AppendVarint(b, 3, uint64(m.Threshold))
	return appendKeys(b, 4, m.SigningKeys)
}

func (m *UnsupportedMapping) appendProto(b []byte) []byte { return append(b, m.Raw...) }

func (k SigningPublicKey) appendProto(b []byte) []byte {
	b = pbwire.AppendVarint(b, 2, uint64(int64(k.Format)))
	b = pbwire.AppendBytes(b, 3, k.Key)
	b = pbwire.AppendVarint(b, 4, uint64(int64(k.Scheme)))
	b = pbwire.AppendBytes(b, 5, packed(k.Usage))
	return pbwire.AppendVarint(b, 6, uint64(int64(k.Spec)))
}

// appendKeys appends a repeated SigningPublicKey field.
func appendKeys(b []byte, num protowire.Number, keys []SigningPublicKey) []byte {
	for _, k := range keys {
		b = pbwire.AppendMessage(b, num, k.appendProto)
	}
	return b
}

// packed is the packed encoding of a repeated int32 or enum field, its
// negative values sign-extended.
func packed[T ~int32](vs []T) []byte {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendVarint(b, uint64(int64(v)))
	}
	return b
}
