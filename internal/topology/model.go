package topology

import (
	"strconv"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
)

// Operation is Canton's TopologyChangeOp.
type Operation int32

// The topology change operations.
const (
	OperationUnspecified Operation = 0
	// OperationAddReplace adds a mapping or replaces the one of the same
	// key ("Replace" in Canton's messages).
	OperationAddReplace Operation = 1
	// OperationRemove removes a mapping.
	OperationRemove Operation = 2
)

// Permission is Canton's ParticipantPermission: what a hosting
// participant does for a party.
type Permission int32

// The participant permissions.
const (
	PermissionUnspecified  Permission = 0
	PermissionSubmission   Permission = 1
	PermissionConfirmation Permission = 2
	PermissionObservation  Permission = 3
)

// String returns the name Canton prints, such as "Confirmation".
func (p Permission) String() string {
	switch p {
	case PermissionSubmission:
		return "Submission"
	case PermissionConfirmation:
		return "Confirmation"
	case PermissionObservation:
		return "Observation"
	}
	return "Permission(" + strconv.Itoa(int(p)) + ")"
}

// Transaction is a topology transaction:
// com.digitalasset.canton.protocol.v30.TopologyTransaction.
type Transaction struct {
	Operation Operation
	// Serial counts the versions of a mapping, from 1.
	Serial  uint32
	Mapping Mapping
	// raw is the transaction's bytes as received or generated.
	raw []byte
}

// Bytes returns the transaction's bytes: the bytes [Unmarshal] read, or
// for a transaction built in memory its [Marshal] bytes. These are the
// bytes Canton hashes and hands out.
func (t *Transaction) Bytes() []byte {
	if t.raw != nil {
		return t.raw
	}
	return Marshal(t)
}

// Hash returns the transaction's hash, the one its signatures sign:
// Canton's hash of its bytes for topology transaction signatures.
func (t *Transaction) Hash() []byte {
	return signing.Hash(signing.PurposeTopologyTransactionSignature, t.Bytes())
}

// Mapping is the mapping of a topology transaction: one of
// *[NamespaceDelegation], *[DecentralizedNamespaceDefinition],
// *[PartyToParticipant], *[PartyToKeyMapping] and *[UnsupportedMapping].
type Mapping interface {
	// Name is the name of Canton's class for the mapping, as its
	// messages print it ("PartyToParticipant").
	Name() string
	// field is the mapping's field number in v30.TopologyMapping.
	field() int32
	// appendProto appends the mapping's message.
	appendProto(b []byte) []byte
}

// The fields of v30.TopologyMapping's mapping oneof that have a Go model.
const (
	fieldNamespaceDelegation              = 1
	fieldDecentralizedNamespaceDefinition = 3
	fieldPartyToParticipant               = 9
	fieldPartyToKeyMapping                = 16
)

// mappingNames names the mappings of v30.TopologyMapping by field, for
// the messages about the ones onboarding refuses.
var mappingNames = map[int32]string{
	fieldNamespaceDelegation:              "NamespaceDelegation",
	fieldDecentralizedNamespaceDefinition: "DecentralizedNamespaceDefinition",
	4:                                     "OwnerToKeyMapping",
	5:                                     "SynchronizerTrustCertificate",
	6:                                     "ParticipantSynchronizerPermission",
	7:                                     "PartyHostingLimits",
	8:                                     "VettedPackages",
	fieldPartyToParticipant:               "PartyToParticipant",
	11:                                    "SynchronizerParametersState",
	12:                                    "MediatorSynchronizerState",
	13:                                    "SequencerSynchronizerState",
	14:                                    "PurgeTopologyTransaction",
	15:                                    "DynamicSequencingParametersState",
	fieldPartyToKeyMapping:                "PartyToKeyMapping",
}

// SigningPublicKey is crypto.v30.SigningPublicKey as a topology
// transaction carries it, field for field, so that it marshals back to
// the same bytes. [SigningPublicKey.PublicKey] reads it as Canton does.
type SigningPublicKey struct {
	Format signing.ProtoKeyFormat
	// Key is the key in Format.
	Key []byte
	// Scheme is the deprecated SigningKeyScheme (ED25519 1, EC_DSA_P256 2,
	// EC_DSA_P384 3); Canton reads it when Spec is unspecified.
	Scheme int32
	// Usage is the usage list as written.
	Usage []signing.Usage
	Spec  signing.KeySpec
}

// NewSigningPublicKey returns k as a topology transaction carries it, as
// Canton writes it: its SPKI, with the given usage list, no scheme.
func NewSigningPublicKey(k signing.PublicKey, usage []signing.Usage) SigningPublicKey {
	return SigningPublicKey{
		Format: signing.ProtoKeyFormatSPKI,
		Key:    k.SPKI,
		Usage:  usage,
		Spec:   k.Spec,
	}
}

// PublicKey reads the key as Canton's SigningPublicKey.fromProtoV30
// does: the spec from the key spec, else from the deprecated scheme; the
// key migrated and validated ([signing.ParsePublicKey]); the usage list
// normalized ([signing.NormalizeUsage]).
func (k SigningPublicKey) PublicKey() (signing.PublicKey, error) {
	format, ok := k.Format.Ledger()
	switch {
	case k.Format == signing.ProtoKeyFormatUnspecified:
		return signing.PublicKey{}, fault.New(fault.InvalidArgument, "Field `format` is not set")
	case !ok:
		// PKCS #8 and symbolic keys have no ledger API name; a public
		// key is never PKCS #8, and sandnet has no symbolic crypto.
		return signing.PublicKey{}, fault.New(fault.InvalidArgument, "Invalid format for public key: %s", k.Format)
	}
	spec := k.Spec
	if spec == signing.KeySpecUnspecified {
		switch k.Scheme {
		case 0:
			return signing.PublicKey{}, fault.New(fault.InvalidArgument, "Field `key_spec and scheme` is not set")
		case 1:
			spec = signing.KeySpecCurve25519
		case 2:
			spec = signing.KeySpecP256
		case 3:
			spec = signing.KeySpecP384
		default:
			return signing.PublicKey{}, fault.New(fault.InvalidArgument, "Unrecognized value `%d` in enum field `scheme`", k.Scheme)
		}
	}
	usage, err := signing.NormalizeUsage(k.Usage)
	if err != nil {
		return signing.PublicKey{}, err
	}
	pk, err := signing.ParsePublicKey(format, k.Key, spec)
	if err != nil {
		return signing.PublicKey{}, err
	}
	pk.Usage = usage
	return pk, nil
}

// Restriction is the restriction oneof of a namespace delegation: which
// mappings its target key may sign.
type Restriction int32

// The delegation restrictions, numbered by their oneof fields.
const (
	// RestrictionNone is no restriction field: Canton then reads the
	// deprecated is_root_delegation flag.
	RestrictionNone Restriction = 0
	// RestrictionCanSignAllMappings lets the key sign every mapping,
	// namespace delegations included: a root delegation.
	RestrictionCanSignAllMappings Restriction = 4
	// RestrictionCanSignAllButNamespaceDelegations lets the key sign every
	// mapping but namespace delegations.
	RestrictionCanSignAllButNamespaceDelegations Restriction = 5
	// RestrictionCanSignSpecificMappings lets the key sign the mappings
	// listed in SpecificMappings.
	RestrictionCanSignSpecificMappings Restriction = 6
)

// mappingCodeNamespaceDelegation is TOPOLOGY_MAPPING_CODE_NAMESPACE_DELEGATION
// of v30.Enums.TopologyMappingCode.
const mappingCodeNamespaceDelegation = 1

// NamespaceDelegation is v30.NamespaceDelegation: it lets TargetKey
// authorize transactions of Namespace.
type NamespaceDelegation struct {
	// Namespace is the fingerprint of the namespace.
	Namespace string
	TargetKey SigningPublicKey
	// IsRootDelegation is the deprecated flag Canton reads without a
	// restriction; Canton writes it false.
	IsRootDelegation bool
	Restriction      Restriction
	// SpecificMappings are the TopologyMappingCode values of
	// RestrictionCanSignSpecificMappings.
	SpecificMappings []int32
}

// Name implements [Mapping].
func (*NamespaceDelegation) Name() string { return "NamespaceDelegation" }

func (*NamespaceDelegation) field() int32 { return fieldNamespaceDelegation }

// CanSignNamespaceDelegations reports whether the delegation's key may
// sign namespace delegations, as Canton reads the restriction.
func (m *NamespaceDelegation) CanSignNamespaceDelegations() bool {
	switch m.Restriction {
	case RestrictionNone:
		return m.IsRootDelegation
	case RestrictionCanSignAllMappings:
		return true
	case RestrictionCanSignSpecificMappings:
		for _, c := range m.SpecificMappings {
			if c == mappingCodeNamespaceDelegation {
				return true
			}
		}
	}
	return false
}

// DecentralizedNamespaceDefinition is v30.DecentralizedNamespaceDefinition:
// a namespace owned by a threshold of other namespaces.
type DecentralizedNamespaceDefinition struct {
	Namespace string
	Threshold int32
	// Owners are the owners' namespaces.
	Owners []string
}

// Name implements [Mapping].
func (*DecentralizedNamespaceDefinition) Name() string { return "DecentralizedNamespaceDefinition" }

func (*DecentralizedNamespaceDefinition) field() int32 { return fieldDecentralizedNamespaceDefinition }

// HostingParticipant is v30.PartyToParticipant.HostingParticipant.
type HostingParticipant struct {
	// UID is the participant's unique identifier, "participant1::1220…".
	UID        string
	Permission Permission
	// Onboarding is the presence of the onboarding message: the
	// participant is still receiving the party's contracts.
	Onboarding bool
}

// PartySigningKeys is v30.PartyToParticipant.PartySigningKeys, the keys
// that sign for an external party.
type PartySigningKeys struct {
	Keys      []SigningPublicKey
	Threshold uint32
}

// PartyToParticipant is v30.PartyToParticipant: the participants hosting
// a party and, since Canton 3.4.8, the party's signing keys.
type PartyToParticipant struct {
	// Party is the party id, "hint::1220…".
	Party string
	// Threshold is the number of confirmations a transaction needs.
	Threshold    uint32
	Participants []HostingParticipant
	// SigningKeys is the optional party_signing_keys.
	SigningKeys *PartySigningKeys
}

// Name implements [Mapping].
func (*PartyToParticipant) Name() string { return "PartyToParticipant" }

func (*PartyToParticipant) field() int32 { return fieldPartyToParticipant }

// PartyToKeyMapping is v30.PartyToKeyMapping, the party's signing keys
// before Canton 3.4.8 put them into the PartyToParticipant.
type PartyToKeyMapping struct {
	Party       string
	Threshold   uint32
	SigningKeys []SigningPublicKey
}

// Name implements [Mapping].
func (*PartyToKeyMapping) Name() string { return "PartyToKeyMapping" }

func (*PartyToKeyMapping) field() int32 { return fieldPartyToKeyMapping }

// UnsupportedMapping is a mapping this package has no model of, kept as
// its field of v30.TopologyMapping and its bytes.
type UnsupportedMapping struct {
	Field int32
	Raw   []byte
}

// Name implements [Mapping]: Canton's class name, or "TopologyMapping(n)"
// for a field Canton 3.4 does not have.
func (m *UnsupportedMapping) Name() string {
	if name, ok := mappingNames[m.Field]; ok {
		return name
	}
	return "TopologyMapping(" + strconv.Itoa(int(m.Field)) + ")"
}

func (m *UnsupportedMapping) field() int32 { return m.Field }
