package ledger

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/topology"
)

// An external party holds its own signing keys: its participants host it
// to confirm (or observe) its transactions, never to submit them. Every
// transaction acting as it is prepared, signed by its owner, and executed
// (interactive.go). The topology records its keys and threshold, which
// the execution checks the signatures against.

// ExternalParty is what the topology holds of an external party.
type ExternalParty struct {
	Party daml.Party `json:"party"`
	// Keys are the party's signing keys and Threshold how many distinct
	// ones must sign a transaction.
	Keys      []signing.PublicKey `json:"keys"`
	Threshold int                 `json:"threshold"`
	// Hosts are its hostings, one per participant.
	Hosts []Hosting `json:"hosts"`
	// Transactions are the onboarding topology transactions as the owner
	// signed them, in order.
	Transactions [][]byte `json:"transactions"`
}

// ExternalPartySpec asks a participant to host an external party: the
// outcome of checking its signed onboarding transactions.
type ExternalPartySpec struct {
	ExternalParty
	// Participant is the participant that asks (whose ledger API got the
	// allocation): it approves the hosting. The party is hosted once every
	// participant of Hosts has approved.
	Participant ParticipantID
}

// ExternalPartySpecOf is the hosting a checked onboarding asks
// participant to approve, on synchronizer sync: the party's keys and
// threshold, and its hosts at their permissions (confirmation, or
// observation).
func ExternalPartySpecOf(ob *topology.Onboarding, participant ParticipantID, sync SynchronizerID) ExternalPartySpec {
	spec := ExternalPartySpec{Participant: participant}
	spec.Party, spec.Keys, spec.Threshold, spec.Transactions = daml.Party(ob.Party), ob.SigningKeys, int(ob.SigningThreshold), ob.Transactions
	for _, h := range ob.Hosts {
		perm := PermissionConfirmation
		if h.Permission == topology.PermissionObservation {
			perm = PermissionObservation
		}
		spec.Hosts = append(spec.Hosts, Hosting{Participant: ParticipantOfUID(h.UID), Synchronizer: sync, Permission: perm})
	}
	return spec
}

// CodeExternalPartyAlreadyExists is Canton's error for onboarding an
// external party whose hosting is already authorized.
const CodeExternalPartyAlreadyExists = "EXTERNAL_PARTY_ALREADY_EXISTS"

func externalPartyKey(p daml.Party) string    { return "external-party/" + string(p) }
func externalProposalKey(p daml.Party) string { return "external-party-proposal/" + string(p) }

// externalProposal is a hosting of an external party that some of its
// participants have approved, as Canton's topology keeps a proposal until
// everybody it names has signed it.
type externalProposal struct {
	ExternalParty
	Approved []ParticipantID `json:"approved"`
}

// AllocateExternalParty records that spec.Participant approves hosting an
// external party. Once every participant the hosting names has approved
// (at once when it names only spec.Participant), the sequencer orders the
// hosting as a topology transaction, as for any party, and the topology
// keeps the party's keys; authorized reports that. Approving again is
// harmless; a party whose hosting is already authorized is refused with
// EXTERNAL_PARTY_ALREADY_EXISTS. Nothing changes on an error.
func (n *Network) AllocateExternalParty(ctx context.Context, spec ExternalPartySpec) (authorized bool, err error) {
	a := spec.ExternalParty
	if len(a.Hosts) == 0 || len(a.Keys) == 0 || a.Threshold < 1 || a.Threshold > len(a.Keys) {
		return false, fault.New(fault.InvalidArgument, "external party %s needs hosts, keys and a threshold between 1 and the number of keys", fault.Clip(string(a.Party)))
	}
	if !slices.ContainsFunc(a.Hosts, func(h Hosting) bool { return h.Participant == spec.Participant }) {
		return false, fault.New(fault.InvalidArgument, "participant %s does not host party %s", spec.Participant, a.Party)
	}
	syncID, err := n.defaultSynchronizer(ctx)
	if err != nil {
		return false, err
	}
	for i := range a.Hosts {
		a.Hosts[i].Party = a.Party
		if a.Hosts[i].Synchronizer == "" {
			a.Hosts[i].Synchronizer = syncID
		}
	}
	// External allocations are rare: one at a time keeps the read of the
	// proposal and its update consistent within this process.
	n.externalMu.Lock()
	defer n.externalMu.Unlock()
	// Whether the party is hosted already is read from the store (another
	// process may have hosted it), for this party alone: reloading the
	// whole topology cost a read of every hosting, which grows with every
	// party onboarded.
	hosted, err := n.store.Hostings(ctx, a.Party)
	if err != nil {
		return false, err
	}
	if _, ok, err := n.ExternalPartyOf(ctx, a.Party); err != nil {
		return false, err
	} else if ok || len(hosted) > 0 {
		return false, fault.WithCode(fault.AlreadyExists, CodeExternalPartyAlreadyExists,
			"Party %s already exists on synchronizer %s", a.Party, syncID)
	}
	prop := externalProposal{ExternalParty: a}
	if v, ok, err := n.store.Meta(ctx, externalProposalKey(a.Party)); err != nil {
		return false, err
	} else if ok && v != "" {
		var old externalProposal
		if json.Unmarshal([]byte(v), &old) == nil && sameTransactions(old.Transactions, a.Transactions) {
			prop.Approved = old.Approved
		}
	}
	if !slices.Contains(prop.Approved, spec.Participant) {
		prop.Approved = append(prop.Approved, spec.Participant)
	}
	for _, h := range a.Hosts {
		if !slices.Contains(prop.Approved, h.Participant) {
			b, err := json.Marshal(prop)
			if err != nil {
				return false, fault.Wrap(fault.Internal, err, "encode the proposal of %s", a.Party)
			}
			return false, n.store.Write(ctx, func(w WriteTx) error {
				return w.SetMeta(ctx, externalProposalKey(a.Party), string(b))
			})
		}
	}
	b, err := json.Marshal(a)
	if err != nil {
		return false, fault.Wrap(fault.Internal, err, "encode external party %s", a.Party)
	}
	p := &pending{
		hosts: a.Hosts, done: make(chan error, 1),
		meta: map[string]string{externalPartyKey(a.Party): string(b), externalProposalKey(a.Party): ""},
	}
	if err := n.enqueue(ctx, p); err != nil {
		return false, err
	}
	// The commit put the hostings in the topology cache (and reloads it
	// when it fails): no reload of the whole topology here.
	return true, nil
}

func sameTransactions(a, b [][]byte) bool {
	return slices.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

// ExternalPartyOf returns the topology's record of an external party; ok
// is false for a party that is not one (a local party, or none).
func (n *Network) ExternalPartyOf(ctx context.Context, p daml.Party) (*ExternalParty, bool, error) {
	n.mu.RLock()
	e := n.external[p]
	n.mu.RUnlock()
	if e != nil {
		return e, true, nil
	}
	v, ok, err := n.store.Meta(ctx, externalPartyKey(p))
	if err != nil || !ok || v == "" {
		return nil, false, err
	}
	e = &ExternalParty{}
	if err := json.Unmarshal([]byte(v), e); err != nil {
		return nil, false, fault.Wrap(fault.Internal, err, "decode external party %s", p)
	}
	// An external party's keys never change once hosted: cache it.
	n.mu.Lock()
	n.external[p] = e
	n.mu.Unlock()
	return e, true, nil
}
