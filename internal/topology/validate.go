package topology

import (
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
)

// maxKeys is KeyMapping.MaxKeys: the most signing keys a party may have.
const maxKeys = 20

// validate makes the checks Canton makes when it reads a transaction and
// its mapping; the messages follow Canton's ProtoDeserializationError.
func (t *Transaction) validate() error {
	switch t.Operation {
	case OperationAddReplace, OperationRemove:
	case OperationUnspecified:
		return fault.New(fault.InvalidArgument, "Field `operation` is not set")
	default:
		return fault.New(fault.InvalidArgument, "Unrecognized value `%d` in enum field `operation`", int32(t.Operation))
	}
	if t.Serial == 0 {
		return notPositive("serial", 0)
	}
	switch m := t.Mapping.(type) {
	case *NamespaceDelegation:
		return m.validate()
	case *DecentralizedNamespaceDefinition:
		return m.validate()
	case *PartyToParticipant:
		return m.validate()
	case *PartyToKeyMapping:
		return m.validate()
	}
	return nil
}

func notPositive(field string, v int64) *fault.Error {
	return fault.New(fault.InvalidArgument, "Invariant violation in field `%s`: %d is not positive", field, v)
}

func (m *NamespaceDelegation) validate() error {
	if err := checkFingerprint(m.Namespace); err != nil {
		return convertError("namespace", err)
	}
	target, err := m.TargetKey.PublicKey()
	if err != nil {
		return convertError("target_key", err)
	}
	if m.Restriction != RestrictionNone && m.IsRootDelegation {
		return fault.New(fault.InvalidArgument, "Invariant violation in field `is_root_delegation`: "+
			"is_root_delegation was set to true, but the list of mapping restrictions did not contain NamespaceDelegation")
	}
	if !target.HasUsage(signing.UsageNamespace) {
		return fault.New(fault.InvalidArgument, "The key %s must include a namespace usage.", target.Fingerprint())
	}
	if target.Fingerprint() == m.Namespace && !m.CanSignNamespaceDelegations() {
		return fault.New(fault.InvalidArgument,
			"Root certificate for %s needs to be be able to sign other NamespaceDelegations", m.Namespace)
	}
	return nil
}

func (m *DecentralizedNamespaceDefinition) validate() error {
	if err := checkFingerprint(m.Namespace); err != nil {
		return convertError("decentralized_namespace", err)
	}
	if m.Threshold <= 0 {
		return notPositive("threshold", int64(m.Threshold))
	}
	owners := map[string]bool{}
	for _, owner := range m.Owners {
		if err := checkFingerprint(owner); err != nil {
			return convertError("owners", err)
		}
		owners[owner] = true
	}
	if len(owners) == 0 {
		return fault.New(fault.InvalidArgument, "Invariant violation in field `owners`: cannot be empty")
	}
	if len(owners) < int(m.Threshold) {
		return fault.New(fault.InvalidArgument, "Invalid threshold (%d) for %s with %d owners", m.Threshold, m.Namespace, len(owners))
	}
	return nil
}

func (m *PartyToParticipant) validate() error {
	if _, _, err := parseUID(m.Party); err != nil {
		return convertError("party", err)
	}
	if m.Threshold == 0 {
		return notPositive("threshold", 0)
	}
	for _, p := range m.Participants {
		if _, _, err := parseUID(p.UID); err != nil {
			return convertError("participant_uid", err)
		}
		switch p.Permission {
		case PermissionSubmission, PermissionConfirmation, PermissionObservation:
		case PermissionUnspecified:
			// Canton names the field after the enum value.
			return fault.New(fault.InvalidArgument, "Field `PARTICIPANT_PERMISSION_UNSPECIFIED` is not set")
		default:
			return fault.New(fault.InvalidArgument, "Unrecognized value `%d` in enum field `UNRECOGNIZED`", int32(p.Permission))
		}
	}
	if m.SigningKeys != nil {
		if _, err := signingKeys("keys", m.SigningKeys.Keys, m.SigningKeys.Threshold); err != nil {
			return err
		}
	}
	return nil
}

func (m *PartyToKeyMapping) validate() error {
	if _, _, err := parseUID(m.Party); err != nil {
		return convertError("party", err)
	}
	_, err := signingKeys("signing_keys", m.SigningKeys, m.Threshold)
	return err
}

// signingKeys reads a party's signing keys with their threshold, as
// Canton's SigningKeysWithThreshold: at least one key, at most maxKeys
// distinct ones (duplicates collapse), a threshold from 1 to the number
// of keys.
func signingKeys(field string, keys []SigningPublicKey, threshold uint32) ([]signing.PublicKey, error) {
	if len(keys) == 0 {
		return nil, fault.New(fault.InvalidArgument, "Field `%s` is not set", field)
	}
	var out []signing.PublicKey
	seen := map[string]bool{}
	for _, k := range keys {
		pk, err := k.PublicKey()
		if err != nil {
			return nil, convertError(field, err)
		}
		if fp := pk.Fingerprint(); !seen[fp] {
			seen[fp] = true
			out = append(out, pk)
		}
	}
	if len(out) > maxKeys {
		return nil, fault.New(fault.InvalidArgument, "At most %d can be specified.", maxKeys)
	}
	if threshold == 0 {
		return nil, notPositive("threshold", 0)
	}
	if int(threshold) > len(out) {
		return nil, fault.New(fault.InvalidArgument,
			"Invariant violation in field `threshold`: the threshold %d exceeds the number of signing keys %d", threshold, len(out))
	}
	return out, nil
}

// convertError is Canton's ValueConversionError.
func convertError(field string, err error) *fault.Error {
	return fault.New(fault.InvalidArgument, "Unable to convert field `%s`: %s", field, causeOf(err))
}
