package topology

import (
	"strings"

	"github.com/sandnet/sandnet/internal/fault"
)

// Canton's identifier limits.
const (
	// uidDelimiter separates a unique identifier's identifier from its
	// namespace.
	uidDelimiter = "::"
	// maxIdentifierLen is String185, the longest identifier of a unique
	// identifier (a party hint, a participant's name).
	maxIdentifierLen = 185
	// maxLFPartyLen is the longest Daml-LF party string.
	maxLFPartyLen = 255
	// maxFingerprintLen is String68, the longest fingerprint.
	maxFingerprintLen = 68
	// participantPrefix is how Canton prints a participant id.
	participantPrefix = "PAR::"
)

// checkLFParty checks s as Daml-LF's Party.fromString does: 1 to 255
// characters among letters, digits and ":-_ ".
func checkLFParty(s string) error {
	switch {
	case s == "":
		return fault.New(fault.InvalidArgument, "Daml-LF Party is empty")
	case len(s) > maxLFPartyLen:
		return fault.New(fault.InvalidArgument, "Daml-LF Party is too long (max: %d)", maxLFPartyLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !lfPartyChar(c) {
			return fault.New(fault.InvalidArgument, "non expected character 0x%x in Daml-LF Party \"%s\"", c, fault.Clip(s))
		}
	}
	return nil
}

func lfPartyChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == ':' || c == '-' || c == '_' || c == ' '
}

// checkIdentifier checks the identifier of a unique identifier as
// Canton's UniqueIdentifier.verifyValidString and String185 do.
func checkIdentifier(s string) error {
	if err := checkLFParty(s); err != nil {
		return err
	}
	if strings.Contains(s, uidDelimiter) {
		return fault.New(fault.InvalidArgument, "String contains reserved delimiter `%s`.", uidDelimiter)
	}
	if len(s) > maxIdentifierLen {
		return fault.New(fault.InvalidArgument,
			"The given string has a maximum length of %d but a string of length %d was given", maxIdentifierLen, len(s))
	}
	return nil
}

// checkFingerprint checks a fingerprint string: Canton takes any safe
// simple string of at most 68 characters, letters, digits, '-' and '_'.
func checkFingerprint(s string) error {
	switch {
	case s == "":
		return fault.New(fault.InvalidArgument, "Fingerprint is empty")
	case len(s) > maxFingerprintLen:
		return fault.New(fault.InvalidArgument, "Fingerprint has more than %d characters", maxFingerprintLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !lfPartyChar(c) || c == ':' || c == ' ' {
			return fault.New(fault.InvalidArgument, "non expected character 0x%x in fingerprint \"%s\"", c, fault.Clip(s))
		}
	}
	return nil
}

// parseUID splits a unique identifier "identifier::namespace" as Canton's
// UniqueIdentifier.fromProtoPrimitive_ does, with its messages.
func parseUID(s string) (id, namespace string, err error) {
	pos := strings.Index(s, uidDelimiter)
	switch {
	case s == "":
		return "", "", fault.New(fault.InvalidArgument, "Empty string is not a valid unique identifier.")
	case pos == 0:
		return "", "", fault.New(fault.InvalidArgument, "Invalid unique identifier `%s` with empty identifier.", fault.Clip(s))
	case pos < 0:
		return "", "", fault.New(fault.InvalidArgument, "Invalid unique identifier `%s` with missing namespace.", fault.Clip(s))
	}
	id, namespace = s[:pos], s[pos+len(uidDelimiter):]
	if err := checkIdentifier(id); err != nil {
		return "", "", fault.New(fault.InvalidArgument, "Identifier decoding of `%s` failed with: %s", fault.Clip(s), causeOf(err))
	}
	if err := checkFingerprint(namespace); err != nil {
		return "", "", fault.New(fault.InvalidArgument, "Fingerprint decoding of `%s` failed with: %s", fault.Clip(s), causeOf(err))
	}
	return id, namespace, nil
}

// namespaceOf returns the namespace of a well-formed unique identifier.
func namespaceOf(uid string) string {
	_, ns, _ := strings.Cut(uid, uidDelimiter)
	return ns
}

// participantName is how Canton prints the participant of a uid.
func participantName(uid string) string { return participantPrefix + uid }
