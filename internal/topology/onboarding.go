package topology

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
)

// SignedTransaction is one of allocate's onboarding transactions.
type SignedTransaction struct {
	// Transaction is the transaction's bytes, as generate-topology handed
	// them out.
	Transaction []byte
	// Signatures sign the transaction's hash alone.
	Signatures []signing.Signature
}

// OnboardingRequest is a request of /v2/parties/external/allocate once
// the HTTP layer has decoded it and resolved the synchronizer.
type OnboardingRequest struct {
	Transactions []SignedTransaction
	// MultiHashSignatures sign the [MultiHash] of all the transactions.
	MultiHashSignatures []signing.Signature
	// LocalParticipantUID is the unique identifier of the participant the
	// request came to.
	LocalParticipantUID string
}

// Host is a participant hosting the party.
type Host struct {
	UID        string
	Permission Permission
}

// Onboarding is a checked, fully authorized onboarding of an external
// party.
type Onboarding struct {
	// Party is the party id.
	Party string
	// Namespace is the party's namespace, the fingerprint of its
	// namespace key.
	Namespace string
	// SigningKeys are the keys that sign for the party (from the
	// PartyToParticipant, or from a legacy PartyToKeyMapping), their usage
	// normalized, without duplicates.
	SigningKeys []signing.PublicKey
	// SigningThreshold is the number of SigningKeys a transaction of the
	// party needs.
	SigningThreshold uint32
	// Hosts are the hosting participants, a participant listed twice
	// merged with its higher permission as Canton merges it.
	Hosts []Host
	// ConfirmationThreshold is the number of confirmations a transaction
	// of the party needs.
	ConfirmationThreshold uint32
	// Transactions are the transactions' bytes as received, in order.
	Transactions [][]byte
	// Parsed are the transactions, in order.
	Parsed []*Transaction
	// MultiHash is the multi-hash of all the transactions.
	MultiHash []byte
}

// The messages' names of Canton's mapping classes (Class.getName).
const (
	classPrefix = "com.digitalasset.canton.topology.transaction."
	// maxDecentralizedOwners is the most owner namespace delegations
	// allocate takes with a decentralized namespace.
	maxDecentralizedOwners = 10
)

// attached is a signature attached to one transaction: its own, or one of
// the multi-hash signatures.
type attached struct {
	sig   signing.Signature
	multi bool
}

// ValidateOnboarding checks an allocate request as Canton 3.5 does and
// requires what sandnet's one-node topology needs: that the party's own
// namespace key fully authorizes every transaction.
//
// In order: each transaction parses, is a Replace and has serial 1, and
// each signature has a format and a supported algorithm
// (INVALID_FIELD); there is a transaction; the mappings are namespace
// delegations, decentralized namespace definitions, party-to-participant
// and party-to-key mappings; exactly one PartyToParticipant, without
// Submission hosts, whose single host (if single) is this participant
// with Confirmation, with a confirming host, whose keys have Protocol
// usage and whose namespace key has Namespace and Protocol usage, hosted
// here; at most one PartyToKeyMapping, of the same namespace; the keys in
// the PartyToParticipant or in the PartyToKeyMapping, not both; at most
// one namespace delegation, a root one of the party's namespace (or one
// decentralized namespace with at most 10 owner delegations)
// (INVALID_ARGUMENT). Then the signatures: a transaction's own signatures
// sign its hash, the multi-hash signatures sign the MultiHash of all the
// transactions; a key signs a transaction once (its own signature wins);
// a namespace delegation keeps only its namespace key's signature. Each
// is verified with the keys the transactions carry
// (TOPOLOGY_INVALID_TX_SIGNATURE, TOPOLOGY_UNAUTHORIZED_TRANSACTION for a
// key they do not carry), and each transaction must be signed by the
// party's namespace key (a root delegation's target, or the
// PartyToParticipant's key whose fingerprint is the namespace) and,
// when it registers keys, by each of them (TOPOLOGY_UNAUTHORIZED_TRANSACTION).
func ValidateOnboarding(in OnboardingRequest) (*Onboarding, error) {
	txs, err := parseOnboarding(in)
	if err != nil {
		return nil, err
	}
	if err := checkMappingTypes(txs); err != nil {
		return nil, err
	}
	o := &Onboarding{}
	var hashes [][]byte
	for i, t := range txs {
		o.Transactions = append(o.Transactions, in.Transactions[i].Transaction)
		hashes = append(hashes, t.Hash())
	}
	o.Parsed, o.MultiHash = txs, MultiHash(hashes)
	s, err := checkStructure(txs, in.LocalParticipantUID)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(txs, hashes, in); err != nil {
		return nil, err
	}
	o.Party, o.Namespace = s.ptp.Party, s.namespace
	o.SigningKeys, o.SigningThreshold = s.keys, s.keysThreshold
	o.Hosts, o.ConfirmationThreshold = s.hosts, s.ptp.Threshold
	return o, nil
}

// parseOnboarding reads the transactions and checks the signatures'
// fields, as the ledger API service does before anything else.
func parseOnboarding(in OnboardingRequest) ([]*Transaction, error) {
	const txField = "onboarding_transactions.transaction"
	var txs []*Transaction
	for _, st := range in.Transactions {
		t, err := Unmarshal(st.Transaction)
		if err != nil {
			return nil, invalidField(txField, "Invalid transaction: %s", causeOf(err))
		}
		if t.Operation != OperationAddReplace {
			return nil, invalidField(txField, "Onboarding topology transactions must be Replace operations")
		}
		if t.Serial != 1 {
			return nil, invalidField(txField+".serial", "Onboarding transaction serial must be 1")
		}
		for _, sig := range st.Signatures {
			if err := checkSignature(sig, "onboarding_transaction.signatures"); err != nil {
				return nil, err
			}
		}
		txs = append(txs, t)
	}
	if len(txs) == 0 {
		return nil, invalidField("onboarding_transactions.transactions", "Transactions field is empty")
	}
	for _, sig := range in.MultiHashSignatures {
		if err := checkSignature(sig, "multi_hash_signatures.signatures"); err != nil {
			return nil, err
		}
	}
	return txs, nil
}

// checkSignature is the ledger API's CryptoValidator.validateSignature;
// Canton names the format's field "format" whatever the signature's.
func checkSignature(sig signing.Signature, field string) error {
	if err := sig.Format.Check(); err != nil {
		return invalidField("format", "%s", causeOf(err))
	}
	if err := checkFingerprint(sig.SignedBy); err != nil {
		return invalidField(field, "%s", causeOf(err))
	}
	if err := sig.Algorithm.Check(); err != nil {
		return invalidField(field, "%s", causeOf(err))
	}
	return nil
}

func checkMappingTypes(txs []*Transaction) error {
	var unsupported []string
	for _, t := range txs {
		if m, ok := t.Mapping.(*UnsupportedMapping); ok && !slices.Contains(unsupported, m.Name()) {
			unsupported = append(unsupported, m.Name())
		}
	}
	if len(unsupported) > 0 {
		return invalidArgument("Unsupported transactions found: %s. Supported transactions are: "+
			"NamespaceDelegation, DecentralizedNamespaceDefinition, PartyToParticipant, PartyToKeyMapping",
			strings.Join(unsupported, ", "))
	}
	return nil
}

// structure is an onboarding set whose mappings fit together.
type structure struct {
	ptp   *PartyToParticipant
	hosts []Host
	// namespace is the party's namespace.
	namespace string
	// keys and keysThreshold are the party's signing keys.
	keys          []signing.PublicKey
	keysThreshold uint32
	// namespaceKey is the key that authorizes the namespace, if any.
	namespaceKey *signing.PublicKey
	// known are the keys the transactions carry, by fingerprint.
	known map[string]signing.PublicKey
}

func checkStructure(txs []*Transaction, local string) (*structure, error) {
	var (
		ptps []*PartyToParticipant
		p2ks []*PartyToKeyMapping
		nsds []*NamespaceDelegation
		dnds []*DecentralizedNamespaceDefinition
	)
	s := &structure{known: map[string]signing.PublicKey{}}
	for _, t := range txs {
		switch m := t.Mapping.(type) {
		case *PartyToParticipant:
			ptps = append(ptps, m)
		case *PartyToKeyMapping:
			p2ks = append(p2ks, m)
		case *NamespaceDelegation:
			nsds = append(nsds, m)
		case *DecentralizedNamespaceDefinition:
			dnds = append(dnds, m)
		}
	}
	switch {
	case len(ptps) == 0:
		return nil, invalidArgument("One transaction of type PartyToParticipant must be provided, got 0")
	case len(ptps) > 1:
		return nil, tooMany("PartyToParticipant", len(ptps))
	}
	s.ptp = ptps[0]
	s.namespace = namespaceOf(s.ptp.Party)
	if err := s.checkHosts(local); err != nil {
		return nil, err
	}
	var ptpKeys []signing.PublicKey
	if ks := s.ptp.SigningKeys; ks != nil {
		// Unmarshal has read the keys: no error.
		ptpKeys, _ = signingKeys("keys", ks.Keys, ks.Threshold)
		s.keys, s.keysThreshold = ptpKeys, ks.Threshold
	}
	for _, k := range ptpKeys {
		if !k.HasUsage(signing.UsageProtocol) {
			return nil, invalidArgument("Missing Protocol usage on signing keys")
		}
	}
	for _, k := range ptpKeys {
		if k.Fingerprint() == s.namespace && !(k.HasUsage(signing.UsageNamespace) && k.HasUsage(signing.UsageProtocol)) {
			return nil, invalidArgument("Missing Namespace and Protocol usage on the party namespace key")
		}
	}
	if err := s.checkLocalHosting(local); err != nil {
		return nil, err
	}
	if len(p2ks) > 1 {
		return nil, tooMany("PartyToKeyMapping", len(p2ks))
	}
	if len(p2ks) == 1 {
		if ns := namespaceOf(p2ks[0].Party); ns != s.namespace {
			return nil, invalidArgument("The PartyToKeyMapping namespace (%s) does not match the PartyToParticipant namespace (%s)", ns, s.namespace)
		}
	}
	if (s.ptp.SigningKeys != nil) == (len(p2ks) == 1) {
		return nil, invalidArgument("Party signing keys must be supplied either in the PartyToParticipant or in a PartyToKeyMapping transaction. Not in both.")
	}
	var p2kKeys []signing.PublicKey
	if len(p2ks) == 1 {
		p2kKeys, _ = signingKeys("signing_keys", p2ks[0].SigningKeys, p2ks[0].Threshold)
		s.keys, s.keysThreshold = p2kKeys, p2ks[0].Threshold
	}
	var rootKey *signing.PublicKey
	var nsdKeys []signing.PublicKey
	for _, m := range nsds {
		k, _ := m.TargetKey.PublicKey()
		nsdKeys = append(nsdKeys, k)
	}
	switch {
	case len(dnds) > 1:
		return nil, tooMany("DecentralizedNamespaceDefinition", len(dnds))
	case len(dnds) == 1:
		owners := 0
		for _, m := range nsds {
			if slices.Contains(dnds[0].Owners, m.Namespace) {
				owners++
			}
		}
		if owners > maxDecentralizedOwners {
			return nil, invalidArgument("Decentralized namespaces cannot have more than %d individual namespace owners, got %d",
				maxDecentralizedOwners, owners)
		}
		if err := s.checkPartyNamespace(dnds[0].Namespace); err != nil {
			return nil, err
		}
	case len(nsds) > 1:
		return nil, tooMany("NamespaceDelegation", len(nsds))
	case len(nsds) == 1:
		if nsdKeys[0].Fingerprint() != nsds[0].Namespace || !nsds[0].CanSignNamespaceDelegations() {
			return nil, invalidArgument("NamespaceDelegation is not a root namespace. Ensure the namespace and target key are the same")
		}
		if err := s.checkPartyNamespace(nsds[0].Namespace); err != nil {
			return nil, err
		}
		rootKey = &nsdKeys[0]
	}
	for _, ks := range [][]signing.PublicKey{nsdKeys, p2kKeys, ptpKeys} {
		for _, k := range ks {
			if _, ok := s.known[k.Fingerprint()]; !ok {
				s.known[k.Fingerprint()] = k
			}
		}
	}
	// The namespace key: a root delegation's target, or the key of the
	// PartyToParticipant that spans the namespace (Canton's
	// namespaceKeyForSelfAuthorization). A decentralized namespace has
	// no key.
	switch {
	case len(dnds) == 1:
	case rootKey != nil:
		s.namespaceKey = rootKey
	default:
		for i, k := range ptpKeys {
			if k.Fingerprint() == s.namespace {
				s.namespaceKey = &ptpKeys[i]
			}
		}
	}
	return s, nil
}

func tooMany(class string, n int) *fault.Error {
	return invalidArgument("Only one transaction of type %s%s can be provided, got %d", classPrefix, class, n)
}

func (s *structure) checkPartyNamespace(ns string) error {
	if ns != s.namespace {
		return invalidArgument("The Party namespace (%s) does not match the PartyToParticipant namespace (%s)", ns, s.namespace)
	}
	return nil
}

// checkHosts merges the hosts as Canton's PartyToParticipant.create
// does (a participant listed twice keeps its higher permission, at its
// first place) and checks them.
func (s *structure) checkHosts(local string) error {
	index := map[string]int{}
	for _, p := range s.ptp.Participants {
		i, ok := index[p.UID]
		if !ok {
			index[p.UID] = len(s.hosts)
			s.hosts = append(s.hosts, Host{UID: p.UID, Permission: p.Permission})
			continue
		}
		// Submission > Confirmation > Observation: the lower number.
		s.hosts[i].Permission = min(s.hosts[i].Permission, p.Permission)
	}
	var submitters []string
	for _, h := range s.hosts {
		if h.Permission == PermissionSubmission {
			submitters = append(submitters, participantName(h.UID))
		}
	}
	if len(submitters) > 0 {
		return invalidArgument("The PartyToParticipant transaction must not contain any node with Submission permission. "+
			"Nodes with submission permission: %s", strings.Join(submitters, ", "))
	}
	if len(s.hosts) == 1 {
		if h := s.hosts[0]; h.UID != local || h.Permission != PermissionConfirmation {
			return invalidArgument("The party is to be hosted on a single participant (%s) that is not this participant (%s). "+
				"Submit the allocation request on %s instead.", participantName(h.UID), participantName(local), participantName(h.UID))
		}
	}
	if !slices.ContainsFunc(s.hosts, func(h Host) bool { return h.Permission == PermissionConfirmation }) {
		return invalidArgument("The PartyToParticipant transaction must contain at least one node with Confirmation permission")
	}
	return nil
}

func (s *structure) checkLocalHosting(local string) error {
	if !slices.ContainsFunc(s.hosts, func(h Host) bool { return h.UID == local }) {
		return invalidArgument("This node is not hosting the party either with Confirmation or Observation permission.")
	}
	return nil
}

// authorize verifies the signatures and requires each transaction to be
// authorized by the party's namespace key and by the keys it registers.
func (s *structure) authorize(txs []*Transaction, hashes [][]byte, in OnboardingRequest) error {
	for i, t := range txs {
		signers := map[string]bool{}
		for _, a := range attach(t, in.Transactions[i].Signatures, in.MultiHashSignatures) {
			key, ok := s.known[a.sig.SignedBy]
			if !ok {
				return unauthorized("Topology transaction authorization cannot be verified due to missing namespace delegations for keys %s",
					fault.Clip(a.sig.SignedBy))
			}
			var err error
			if a.multi {
				err = VerifyMultiSignature(t, key, a.sig, hashes)
			} else {
				err = VerifySignature(t, key, a.sig)
			}
			if err != nil {
				return err
			}
			signers[a.sig.SignedBy] = true
		}
		if s.namespaceKey == nil {
			return unauthorized(msgNoNamespaceAuth)
		}
		var missingNamespaces, missingKeys []string
		if !signers[s.namespace] || !s.namespaceKey.HasUsage(signing.UsageNamespace) {
			missingNamespaces = append(missingNamespaces, s.namespace)
		}
		for _, k := range registeredKeys(t) {
			if fp := k.Fingerprint(); !signers[fp] && !slices.Contains(missingKeys, fp) {
				missingKeys = append(missingKeys, fp)
			}
		}
		if len(missingNamespaces) > 0 || len(missingKeys) > 0 {
			return unauthorized("Topology transaction is missing authorizations by namespaces=Set(%s) and keys=Set(%s)",
				strings.Join(missingNamespaces, ", "), strings.Join(missingKeys, ", "))
		}
	}
	return nil
}

// registeredKeys are the keys a transaction registers, which must sign
// it to prove their owner holds them.
func registeredKeys(t *Transaction) []signing.PublicKey {
	var keys []SigningPublicKey
	switch m := t.Mapping.(type) {
	case *PartyToParticipant:
		if m.SigningKeys != nil {
			keys = m.SigningKeys.Keys
		}
	case *PartyToKeyMapping:
		keys = m.SigningKeys
	}
	var out []signing.PublicKey
	for _, k := range keys {
		if pk, err := k.PublicKey(); err == nil {
			out = append(out, pk)
		}
	}
	return out
}

// attach returns the signatures of transaction t as Canton keeps them:
// one per key, its own signatures before the multi-hash ones; for a
// namespace delegation, only its namespace key's.
func attach(t *Transaction, own, multi []signing.Signature) []attached {
	var out []attached
	seen := map[string]bool{}
	add := func(sigs []signing.Signature, isMulti bool) {
		for _, sig := range sigs {
			if seen[sig.SignedBy] {
				continue
			}
			if nsd, ok := t.Mapping.(*NamespaceDelegation); ok && sig.SignedBy != nsd.Namespace {
				continue
			}
			seen[sig.SignedBy] = true
			out = append(out, attached{sig: sig, multi: isMulti})
		}
	}
	add(own, false)
	add(multi, true)
	return out
}

// VerifySignature checks a signature of transaction t alone: key's
// signature of its hash. A failure is TOPOLOGY_INVALID_TX_SIGNATURE.
func VerifySignature(t *Transaction, key signing.PublicKey, sig signing.Signature) error {
	if err := key.Verify(sig, t.Hash()); err != nil {
		return invalidSignature(err)
	}
	return nil
}

// VerifyMultiSignature checks a multi-transaction signature of t: key's
// signature of the [MultiHash] of covered, which must include t's hash
// (else TOPOLOGY_MULTI_TRANSACTION_HASH_MISMATCH). A failure to verify is
// TOPOLOGY_INVALID_TX_SIGNATURE.
func VerifyMultiSignature(t *Transaction, key signing.PublicKey, sig signing.Signature, covered [][]byte) error {
	hash := t.Hash()
	if !slices.ContainsFunc(covered, func(h []byte) bool { return bytes.Equal(h, hash) }) {
		set := make([]string, len(covered))
		for i, h := range covered {
			set[i] = hex.EncodeToString(h)
		}
		return fault.WithCode(fault.FailedPrecondition, CodeMultiTransactionHashMismatch,
			"The given transaction hash set Set(%s) did not contain the expected hash %s of the transaction.",
			strings.Join(set, ", "), hex.EncodeToString(hash))
	}
	if err := key.Verify(sig, MultiHash(covered)); err != nil {
		return invalidSignature(err)
	}
	return nil
}
