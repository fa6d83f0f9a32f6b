package topology_test

import (
	"bytes"
	"crypto/elliptic"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
	"github.com/sandnet/sandnet/internal/topology"
)

// generatedUsage is the usage generate-topology gives a key.
var generatedUsage = []signing.Usage{signing.UsageNamespace, signing.UsageProofOfOwnership, signing.UsageProtocol}

// topoKey is k as a topology transaction carries it, with usage (the
// generated usage if none is given).
func topoKey(k signing.PublicKey, usage ...signing.Usage) topology.SigningPublicKey {
	if usage == nil {
		usage = generatedUsage
	}
	return topology.NewSigningPublicKey(k, usage)
}

func host(uid string, p topology.Permission) topology.HostingParticipant {
	return topology.HostingParticipant{UID: uid, Permission: p}
}

// ptp is a PartyToParticipant of threshold 1 with the given hosts and,
// if any, keys (threshold 1).
func ptp(party string, hosts []topology.HostingParticipant, keys ...topology.SigningPublicKey) *topology.PartyToParticipant {
	m := &topology.PartyToParticipant{Party: party, Threshold: 1, Participants: hosts}
	if keys != nil {
		m.SigningKeys = &topology.PartySigningKeys{Keys: keys, Threshold: 1}
	}
	return m
}

func rootNSD(k signing.PublicKey) *topology.NamespaceDelegation {
	return &topology.NamespaceDelegation{Namespace: k.Fingerprint(), TargetKey: topoKey(k), Restriction: topology.RestrictionCanSignAllMappings}
}

func p2k(party string, keys ...topology.SigningPublicKey) *topology.PartyToKeyMapping {
	return &topology.PartyToKeyMapping{Party: party, Threshold: 1, SigningKeys: keys}
}

// onboardingSet is a set of transactions to onboard.
type onboardingSet struct {
	g     *topology.Generated
	local string
}

func newSet(local string, mappings ...topology.Mapping) onboardingSet {
	var txs []*topology.Transaction
	for _, m := range mappings {
		txs = append(txs, &topology.Transaction{Operation: topology.OperationAddReplace, Serial: 1, Mapping: m})
	}
	return onboardingSet{g: topology.NewGenerated("", "", txs), local: local}
}

// multiSigned is the set's request with one multi-hash signature by each
// key.
func (s onboardingSet) multiSigned(keys ...signingtest.Ed25519) topology.OnboardingRequest {
	req := s.unsigned()
	for _, k := range keys {
		req.MultiHashSignatures = append(req.MultiHashSignatures, k.Sign(s.g.MultiHash))
	}
	return req
}

// eachSigned is the set's request with each transaction signed by each
// key.
func (s onboardingSet) eachSigned(keys ...signingtest.Ed25519) topology.OnboardingRequest {
	req := s.unsigned()
	for i := range req.Transactions {
		for _, k := range keys {
			req.Transactions[i].Signatures = append(req.Transactions[i].Signatures, k.Sign(s.g.Hashes[i]))
		}
	}
	return req
}

func (s onboardingSet) unsigned() topology.OnboardingRequest {
	req := topology.OnboardingRequest{LocalParticipantUID: s.local}
	for _, b := range s.g.Serialized {
		req.Transactions = append(req.Transactions, topology.SignedTransaction{Transaction: b})
	}
	return req
}

func TestValidateOnboardingVectors(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	key := vectorKey(t)
	for _, tc := range []struct {
		name string
		set  txVectors
	}{
		{"3.5", v.V35},
		{"3.4.0", v.V340},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := topology.OnboardingRequest{LocalParticipantUID: v.ParticipantUID,
				MultiHashSignatures: []signing.Signature{tc.set.signature(t, key.Fingerprint())}}
			txs := tc.set.transactions(t)
			for _, b := range txs {
				req.Transactions = append(req.Transactions, topology.SignedTransaction{Transaction: b})
			}
			o, err := topology.ValidateOnboarding(req)
			if err != nil {
				t.Fatal(err)
			}
			if o.Party != v.PartyID || o.Namespace != key.Fingerprint() || hex.EncodeToString(o.MultiHash) != tc.set.MultiHash {
				t.Errorf("party %s namespace %s multiHash %x", o.Party, o.Namespace, o.MultiHash)
			}
			if len(o.SigningKeys) != 1 || o.SigningKeys[0].Fingerprint() != key.Fingerprint() || o.SigningThreshold != 1 ||
				!slices.Equal(o.SigningKeys[0].Usage, []signing.Usage{1, 4, 5}) {
				t.Errorf("keys %+v threshold %d", o.SigningKeys, o.SigningThreshold)
			}
			if !slices.Equal(o.Hosts, []topology.Host{{UID: v.ParticipantUID, Permission: topology.PermissionConfirmation}}) ||
				o.ConfirmationThreshold != 1 {
				t.Errorf("hosts %+v threshold %d", o.Hosts, o.ConfirmationThreshold)
			}
			if len(o.Transactions) != len(txs) || len(o.Parsed) != len(txs) {
				t.Fatalf("%d transactions", len(o.Transactions))
			}
			for i := range txs {
				if !bytes.Equal(o.Transactions[i], txs[i]) || !bytes.Equal(o.Parsed[i].Bytes(), txs[i]) {
					t.Errorf("transaction %d differs", i)
				}
			}
		})
	}
}

func TestValidateOnboardingAccepts(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	local := v.ParticipantUID
	a, b := vectorKey(t), signingtest.SeqEd25519(t, 0x20)
	ec := signingtest.NewECDSA(t, elliptic.P256())
	alice := "alice::" + a.Fingerprint()
	here := []topology.HostingParticipant{host(local, topology.PermissionConfirmation)}
	legacy := newSet(local, rootNSD(a.Public), p2k(alice, topoKey(a.Public)), ptp(alice, here))
	reordered := newSet(local, ptp(alice, here), rootNSD(a.Public), p2k(alice, topoKey(a.Public)))
	twoKeys := newSet(local, ptp(alice, here, topoKey(a.Public), topoKey(b.Public, signing.UsageProtocol)))
	ecParty := "carol::" + ec.Public.Fingerprint()
	ecSet := newSet(local, ptp(ecParty, here, topoKey(ec.Public)))
	ecReq := ecSet.unsigned()
	ecReq.MultiHashSignatures = []signing.Signature{ec.Sign(t, ecSet.g.MultiHash)}
	multiHosted := newSet(local, ptp(alice, []topology.HostingParticipant{
		host("p2::1220bb", topology.PermissionConfirmation), host(local, topology.PermissionObservation),
		host("p3::1220cc", topology.PermissionObservation), host("p2::1220bb", topology.PermissionObservation)}, topoKey(a.Public)))
	// A good signature of the transaction beats a bad multi-hash one by
	// the same key; a namespace delegation drops other keys' signatures.
	singleWins := legacy.eachSigned(a)
	bad := a.Sign(legacy.g.MultiHash)
	bad.Bytes[0] ^= 1
	singleWins.MultiHashSignatures = []signing.Signature{bad}
	nsdExtra := legacy.multiSigned(a)
	nsdExtra.Transactions[0].Signatures = []signing.Signature{b.Sign(legacy.g.Hashes[0])}
	for _, tc := range []struct {
		name      string
		req       topology.OnboardingRequest
		wantHosts []topology.Host
		wantKeys  int
	}{
		{"3.4 set, multi-hash signature", legacy.multiSigned(a), nil, 1},
		{"3.4 set, signatures of each", legacy.eachSigned(a), nil, 1},
		{"3.4 set in another order", reordered.multiSigned(a), nil, 1},
		{"two keys, both sign", twoKeys.multiSigned(a, b), nil, 2},
		{"two keys, one signature each way", func() topology.OnboardingRequest {
			r := twoKeys.eachSigned(b)
			r.MultiHashSignatures = []signing.Signature{a.Sign(twoKeys.g.MultiHash)}
			return r
		}(), nil, 2},
		{"ECDSA key", ecReq, nil, 1},
		{"multi-hosted, local observing", multiHosted.multiSigned(a), []topology.Host{
			{UID: "p2::1220bb", Permission: topology.PermissionConfirmation}, {UID: local, Permission: topology.PermissionObservation},
			{UID: "p3::1220cc", Permission: topology.PermissionObservation}}, 1},
		{"own signature wins", singleWins, nil, 1},
		{"other keys' signatures of a namespace delegation dropped", nsdExtra, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, err := topology.ValidateOnboarding(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.SigningKeys) != tc.wantKeys {
				t.Errorf("%d keys", len(o.SigningKeys))
			}
			if tc.wantHosts != nil && !slices.Equal(o.Hosts, tc.wantHosts) {
				t.Errorf("hosts %+v", o.Hosts)
			}
		})
	}
}

func TestValidateOnboardingRefusals(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	local := v.ParticipantUID
	a, b := vectorKey(t), signingtest.SeqEd25519(t, 0x20)
	alice := "alice::" + a.Fingerprint()
	here := []topology.HostingParticipant{host(local, topology.PermissionConfirmation)}
	good := newSet(local, ptp(alice, here, topoKey(a.Public)))
	legacy := newSet(local, rootNSD(a.Public), p2k(alice, topoKey(a.Public)), ptp(alice, here))
	with := func(req topology.OnboardingRequest, f func(*topology.OnboardingRequest)) topology.OnboardingRequest {
		f(&req)
		return req
	}
	// The 3.5 vector transaction, re-encoded with its fields in another
	// order, with the vector signature.
	vectorTx := v.V35.transactions(t)[0]
	reordered := topology.OnboardingRequest{LocalParticipantUID: local,
		Transactions:        []topology.SignedTransaction{{Transaction: reverseFields(t, vectorTx)}},
		MultiHashSignatures: []signing.Signature{v.V35.signature(t, a.Fingerprint())}}
	replayed := func(serial uint32) topology.OnboardingRequest {
		tx := &topology.Transaction{Operation: topology.OperationAddReplace, Serial: serial, Mapping: ptp(alice, here, topoKey(a.Public))}
		s := onboardingSet{g: topology.NewGenerated("", "", []*topology.Transaction{tx}), local: local}
		return s.multiSigned(a)
	}
	removal := &topology.Transaction{Operation: topology.OperationRemove, Serial: 1, Mapping: ptp(alice, here, topoKey(a.Public))}
	var owners []topology.Mapping
	var ownerNamespaces []string
	for i := range 11 {
		k := signingtest.SeqEd25519(t, byte(0x60+i))
		owners = append(owners, rootNSD(k.Public))
		ownerNamespaces = append(ownerNamespaces, k.Fingerprint())
	}
	dnd := &topology.DecentralizedNamespaceDefinition{Namespace: "1220dd", Threshold: 1, Owners: ownerNamespaces}
	decentralizedParty := "dora::1220dd"
	tampered := good.multiSigned(a)
	tampered.MultiHashSignatures[0].Bytes[10] ^= 1

	const (
		arg   = topology.CodeInvalidArgument
		field = topology.CodeInvalidField
		sig   = topology.CodeInvalidSignature
		unau  = topology.CodeUnauthorizedTransaction
	)
	for _, tc := range []struct {
		name string
		req  topology.OnboardingRequest
		code string
		want string
	}{
		{"not a transaction", topology.OnboardingRequest{LocalParticipantUID: local,
			Transactions: []topology.SignedTransaction{{Transaction: []byte("nope")}}},
			field, "Invalid field onboarding_transactions.transaction: Invalid transaction: "},
		{"a removal", onboardingSet{g: topology.NewGenerated("", "", []*topology.Transaction{removal}), local: local}.multiSigned(a),
			field, "Invalid field onboarding_transactions.transaction: Onboarding topology transactions must be Replace operations"},
		{"replayed with serial 2", replayed(2), field, "Invalid field onboarding_transactions.transaction.serial: Onboarding transaction serial must be 1"},
		{"no transactions", topology.OnboardingRequest{LocalParticipantUID: local}, field,
			"Invalid field onboarding_transactions.transactions: Transactions field is empty"},
		{"signature without format", with(good.eachSigned(a), func(r *topology.OnboardingRequest) { r.Transactions[0].Signatures[0].Format = 0 }),
			field, "Invalid field format: Signature format must be specified"},
		{"signature without algorithm", with(good.eachSigned(a), func(r *topology.OnboardingRequest) { r.Transactions[0].Signatures[0].Algorithm = 0 }),
			field, "Invalid field onboarding_transaction.signatures: Signing algorithm spec SIGNING_ALGORITHM_SPEC_UNSPECIFIED not supported"},
		{"multi-hash signature with unknown algorithm", with(good.multiSigned(a), func(r *topology.OnboardingRequest) { r.MultiHashSignatures[0].Algorithm = 5 }),
			field, "Invalid field multi_hash_signatures.signatures: Signing algorithm spec Unrecognized(5) not supported"},
		{"signature without signer", with(good.multiSigned(a), func(r *topology.OnboardingRequest) { r.MultiHashSignatures[0].SignedBy = "" }),
			field, "Invalid field multi_hash_signatures.signatures: Fingerprint is empty"},
		{"unsupported mapping", newSet(local, ptp(alice, here, topoKey(a.Public)), &topology.UnsupportedMapping{Field: 5},
			&topology.UnsupportedMapping{Field: 8}, &topology.UnsupportedMapping{Field: 5}).multiSigned(a),
			arg, "Unsupported transactions found: SynchronizerTrustCertificate, VettedPackages. Supported transactions are: NamespaceDelegation, DecentralizedNamespaceDefinition, PartyToParticipant, PartyToKeyMapping"},
		{"no PartyToParticipant", newSet(local, rootNSD(a.Public)).multiSigned(a), arg, "One transaction of type PartyToParticipant must be provided, got 0"},
		{"a duplicated transaction", with(good.multiSigned(a), func(r *topology.OnboardingRequest) {
			r.Transactions = append(r.Transactions, r.Transactions[0])
		}), arg, "Only one transaction of type com.digitalasset.canton.topology.transaction.PartyToParticipant can be provided, got 2"},
		{"a submission host", newSet(local, ptp(alice, []topology.HostingParticipant{host(local, topology.PermissionConfirmation),
			host("p2::1220bb", topology.PermissionSubmission)}, topoKey(a.Public))).multiSigned(a),
			arg, "The PartyToParticipant transaction must not contain any node with Submission permission. Nodes with submission permission: PAR::p2::1220bb"},
		{"hosted elsewhere", newSet(local, ptp(alice, []topology.HostingParticipant{host("p2::1220bb", topology.PermissionConfirmation)}, topoKey(a.Public))).multiSigned(a),
			arg, "The party is to be hosted on a single participant (PAR::p2::1220bb) that is not this participant (PAR::" + local + "). Submit the allocation request on PAR::p2::1220bb instead."},
		{"single observing host", newSet(local, ptp(alice, []topology.HostingParticipant{host(local, topology.PermissionObservation)}, topoKey(a.Public))).multiSigned(a),
			arg, "The party is to be hosted on a single participant (PAR::" + local + ") that is not this participant"},
		{"nobody confirms", newSet(local, ptp(alice, []topology.HostingParticipant{host(local, topology.PermissionObservation),
			host("p2::1220bb", topology.PermissionObservation)}, topoKey(a.Public))).multiSigned(a),
			arg, "The PartyToParticipant transaction must contain at least one node with Confirmation permission"},
		{"key without protocol usage", newSet(local, ptp(alice, here, topoKey(a.Public), topoKey(b.Public, signing.UsageSequencerAuthentication))).multiSigned(a, b),
			arg, "Missing Protocol usage on signing keys"},
		{"namespace key without namespace usage", newSet(local, ptp(alice, here, topoKey(a.Public, signing.UsageProtocol))).multiSigned(a),
			arg, "Missing Namespace and Protocol usage on the party namespace key"},
		{"not hosted here", newSet(local, ptp(alice, []topology.HostingParticipant{host("p2::1220bb", topology.PermissionConfirmation),
			host("p3::1220cc", topology.PermissionObservation)}, topoKey(a.Public))).multiSigned(a),
			arg, "This node is not hosting the party either with Confirmation or Observation permission."},
		{"two PartyToKeyMappings", newSet(local, rootNSD(a.Public), p2k(alice, topoKey(a.Public)), p2k("alice2::"+a.Fingerprint(), topoKey(a.Public)), ptp(alice, here)).multiSigned(a),
			arg, "Only one transaction of type com.digitalasset.canton.topology.transaction.PartyToKeyMapping can be provided, got 2"},
		{"PartyToKeyMapping of another namespace", newSet(local, rootNSD(a.Public), p2k("alice::"+b.Fingerprint(), topoKey(b.Public)), ptp(alice, here)).multiSigned(a, b),
			arg, "The PartyToKeyMapping namespace (" + b.Fingerprint() + ") does not match the PartyToParticipant namespace (" + a.Fingerprint() + ")"},
		{"keys in both", newSet(local, p2k(alice, topoKey(a.Public)), ptp(alice, here, topoKey(a.Public))).multiSigned(a),
			arg, "Party signing keys must be supplied either in the PartyToParticipant or in a PartyToKeyMapping transaction. Not in both."},
		{"keys in neither", newSet(local, rootNSD(a.Public), ptp(alice, here)).multiSigned(a),
			arg, "Party signing keys must be supplied either in the PartyToParticipant or in a PartyToKeyMapping transaction. Not in both."},
		{"not a root delegation", newSet(local, &topology.NamespaceDelegation{Namespace: a.Fingerprint(), TargetKey: topoKey(b.Public),
			Restriction: topology.RestrictionCanSignAllMappings}, p2k(alice, topoKey(a.Public)), ptp(alice, here)).multiSigned(a),
			arg, "NamespaceDelegation is not a root namespace. Ensure the namespace and target key are the same"},
		{"two namespace delegations", newSet(local, rootNSD(a.Public), rootNSD(b.Public), p2k(alice, topoKey(a.Public)), ptp(alice, here)).multiSigned(a, b),
			arg, "Only one transaction of type com.digitalasset.canton.topology.transaction.NamespaceDelegation can be provided, got 2"},
		{"namespace of another key", newSet(local, rootNSD(b.Public), p2k(alice, topoKey(a.Public)), ptp(alice, here)).multiSigned(a, b),
			arg, "The Party namespace (" + b.Fingerprint() + ") does not match the PartyToParticipant namespace (" + a.Fingerprint() + ")"},
		{"eleven namespace owners", newSet(local, append(slices.Clone(owners), dnd,
			ptp(decentralizedParty, here, topoKey(a.Public)))...).multiSigned(a),
			arg, "Decentralized namespaces cannot have more than 10 individual namespace owners, got 11"},
		{"two decentralized namespaces", newSet(local, dnd, dnd, ptp(decentralizedParty, here, topoKey(a.Public))).multiSigned(a),
			arg, "Only one transaction of type com.digitalasset.canton.topology.transaction.DecentralizedNamespaceDefinition can be provided, got 2"},
		{"decentralized namespace", newSet(local, append(slices.Clone(owners[:2]), &topology.DecentralizedNamespaceDefinition{
			Namespace: "1220dd", Threshold: 1, Owners: ownerNamespaces[:2]}, ptp(decentralizedParty, here, topoKey(a.Public)))...).multiSigned(a),
			unau, "Topology transaction is not properly authorized by any namespace key"},
		{"decentralized namespace, no signature", newSet(local, &topology.DecentralizedNamespaceDefinition{
			Namespace: "1220dd", Threshold: 1, Owners: ownerNamespaces[:2]}, ptp(decentralizedParty, here, topoKey(a.Public))).unsigned(),
			unau, "Topology transaction is not properly authorized by any namespace key"},
		{"a wrong signature", tampered, sig, "Transaction signature verification failed"},
		{"a signature of another set", with(good.unsigned(), func(r *topology.OnboardingRequest) {
			r.MultiHashSignatures = []signing.Signature{v.V340.signature(t, a.Fingerprint())}
		}), sig, "Transaction signature verification failed"},
		{"a bad own signature beats a good multi-hash one", with(good.multiSigned(a), func(r *topology.OnboardingRequest) {
			s := a.Sign(good.g.Hashes[0])
			s.Bytes[1] ^= 1
			r.Transactions[0].Signatures = []signing.Signature{s}
		}), sig, "Transaction signature verification failed"},
		{"reordered fields", reordered, sig, "Transaction signature verification failed"},
		{"a signature by an unknown key", good.multiSigned(a, b), unau,
			"Topology transaction authorization cannot be verified due to missing namespace delegations for keys " + b.Fingerprint()},
		{"a key that does not span the namespace", newSet(local, ptp(alice, here, topoKey(b.Public))).multiSigned(b),
			unau, "Topology transaction is not properly authorized by any namespace key"},
		{"unsigned", good.unsigned(), unau, "Topology transaction is missing authorizations by namespaces=Set(" + a.Fingerprint() + ") and keys=Set(" + a.Fingerprint() + ")"},
		{"a key that did not sign", newSet(local, ptp(alice, here, topoKey(a.Public), topoKey(b.Public, signing.UsageProtocol))).multiSigned(a),
			unau, "Topology transaction is missing authorizations by namespaces=Set() and keys=Set(" + b.Fingerprint() + ")"},
		{"a transaction of the set unsigned", with(legacy.eachSigned(a), func(r *topology.OnboardingRequest) { r.Transactions[1].Signatures = nil }),
			unau, "Topology transaction is missing authorizations by namespaces=Set(" + a.Fingerprint() + ") and keys=Set(" + a.Fingerprint() + ")"},
		{"the namespace delegation signed by another key", with(legacy.eachSigned(a), func(r *topology.OnboardingRequest) {
			r.Transactions[0].Signatures = []signing.Signature{b.Sign(legacy.g.Hashes[0])}
		}), unau, "Topology transaction is missing authorizations by namespaces=Set(" + a.Fingerprint() + ") and keys=Set()"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, err := topology.ValidateOnboarding(tc.req)
			if err == nil {
				t.Fatalf("ValidateOnboarding = %+v, want an error", o)
			}
			wantError(t, err, tc.code, tc.want)
			if tc.code == arg || tc.code == field || tc.code == sig || tc.code == unau {
				if !fault.Is(err, fault.InvalidArgument) {
					t.Fatalf("kind %s", fault.KindOf(err))
				}
			}
		})
	}
}

func TestVerifyMultiSignature(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	a := vectorKey(t)
	g := generate(t, topology.GenerateRequest{PartyHint: "alice", PublicKey: a.Public, LocalParticipantUID: v.ParticipantUID})
	tx := g.Transactions[0]
	sig := a.Sign(g.MultiHash)
	if err := topology.VerifyMultiSignature(tx, a.Public, sig, g.Hashes); err != nil {
		t.Fatal(err)
	}
	if err := topology.VerifySignature(tx, a.Public, a.Sign(tx.Hash())); err != nil {
		t.Fatal(err)
	}
	other := signingtest.DecodeHex(t, v.V340.TxHashes[0])
	err := topology.VerifyMultiSignature(tx, a.Public, a.Sign(topology.MultiHash([][]byte{other})), [][]byte{other})
	wantError(t, err, topology.CodeMultiTransactionHashMismatch,
		"The given transaction hash set Set("+v.V340.TxHashes[0]+") did not contain the expected hash "+v.V35.TxHashes[0]+" of the transaction.")
	if !fault.Is(err, fault.FailedPrecondition) {
		t.Fatalf("kind %s", fault.KindOf(err))
	}
	err = topology.VerifySignature(tx, a.Public, sig)
	wantError(t, err, topology.CodeInvalidSignature, "Transaction signature verification failed")
	if e, _ := fault.As(err); e.Err == nil || !strings.Contains(e.Err.Error(), "Failed to verify") {
		t.Fatalf("cause %v", e.Err)
	}
}
