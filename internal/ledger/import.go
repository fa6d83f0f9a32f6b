package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// ForkImportWorkflowID is the workflow id of the transactions
// [Network.Import] commits, so that readers of the streams can tell the
// contracts a fork brought in from those its own commands created.
const ForkImportWorkflowID = "sandnet-fork-import"

// DefaultImportChunk is how many contracts [Network.Import] puts in one
// transaction when the caller does not say.
const DefaultImportChunk = 100

// AddSynchronizerID adds a synchronizer with a given id in the current
// migration: a fork reproduces its source's synchronizer, whose id the
// imported contracts name (the amulet rules' active synchronizer, the SVs'
// node states). Adding an existing one changes nothing.
func (n *Network) AddSynchronizerID(ctx context.Context, id SynchronizerID) (Synchronizer, error) {
	alias, _, ok := strings.Cut(string(id), "::")
	if !ok || alias == "" {
		return Synchronizer{}, fault.New(fault.InvalidArgument, "invalid synchronizer id %q: want <alias>::<fingerprint>", id)
	}
	s := Synchronizer{ID: id}
	s.Alias = alias
	err := n.store.Write(ctx, func(w WriteTx) error {
		head, err := w.Head(ctx)
		if err != nil {
			return err
		}
		s.MigrationID = head.MigrationID
		return w.PutSynchronizer(ctx, s)
	})
	return s, err
}

// Import commits contracts of another ledger as they are: with their
// contract ids, templates, payloads, signatories, observers and creation
// times. It is how a fork starts from its source's active contract set.
//
// The contracts go through the sequencer like any commit, as transactions
// of created events only (chunk contracts each, in the order given;
// DefaultImportChunk when chunk <= 0) with workflow id
// ForkImportWorkflowID and no submitter, on the default synchronizer. Each
// transaction is recorded at the clock and appears in the streams of the
// participants hosting the stakeholders of its contracts.
//
// Everything is checked before anything is committed: every template must
// be registered and every payload decode to it, with the signatories and
// observers the template gives (so that later choices see the contract as
// the engine would have created it); ids must be distinct and new to the
// ledger; and every stakeholder must be hosted somewhere. A refusal
// commits nothing. A failure of the store part-way leaves the chunks
// committed before it.
func (n *Network) Import(ctx context.Context, contracts []*Contract, chunk int) ([]*Transaction, error) {
	if chunk <= 0 {
		chunk = DefaultImportChunk
	}
	if err := n.checkImport(ctx, contracts); err != nil {
		return nil, err
	}
	syncID, err := n.defaultSynchronizer(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Transaction
	for part := range slices.Chunk(contracts, chunk) {
		tx := &Transaction{
			WorkflowID: ForkImportWorkflowID, Synchronizer: syncID, EffectiveAt: n.clock.Now(),
			Events: make([]Event, len(part)), Roots: make([]int32, len(part)),
		}
		for i, c := range part {
			cp := *c
			cp.Signatories = union(c.Signatories)
			cp.Observers = observersOf(cp.Signatories, c.Observers)
			cp.ReassignmentCounter = 0
			tx.Events[i] = Event{NodeID: int32(i), Created: &cp, Witnesses: cp.Stakeholders()}
			tx.Roots[i] = int32(i)
		}
		if err := n.enqueue(ctx, &pending{tx: tx, done: make(chan error, 1)}); err != nil {
			return out, fmt.Errorf("import contracts %d of %d: %w", len(out)*chunk+1, len(contracts), err)
		}
		out = append(out, tx)
	}
	return out, nil
}

// checkImport refuses contracts Import cannot commit faithfully.
func (n *Network) checkImport(ctx context.Context, contracts []*Contract) error {
	seen := make(map[daml.ContractID]bool, len(contracts))
	var parties []daml.Party
	for _, c := range contracts {
		if c == nil || c.ID == "" || c.Argument == nil {
			return fault.New(fault.InvalidArgument, "an imported contract needs an id and a payload")
		}
		if seen[c.ID] {
			return fault.New(fault.InvalidArgument, "contract %s is imported twice", c.ID)
		}
		seen[c.ID] = true
		info, ok := n.registry.templates[c.Template.Identifier]
		if !ok {
			return fault.WithCode(fault.NotFound, "TEMPLATES_OR_INTERFACES_NOT_FOUND",
				"contract %s: unknown template %s", c.ID, c.Template.Identifier)
		}
		t, err := info.decode(c.Argument)
		if err != nil {
			return fault.Wrap(fault.InvalidArgument, err, "contract %s: its payload is not a %s", c.ID, c.Template.Identifier)
		}
		sigs := union(t.Signatories())
		obs := observersOf(sigs, t.Observers())
		if gotSigs, gotObs := union(c.Signatories), observersOf(union(c.Signatories), c.Observers); !slices.Equal(sigs, gotSigs) || !slices.Equal(obs, gotObs) {
			return fault.New(fault.InvalidArgument,
				"contract %s of %s: signatories %v and observers %v, but its payload gives %v and %v",
				c.ID, c.Template.Identifier, gotSigs, gotObs, sigs, obs)
		}
		parties = append(parties, c.Signatories...)
		parties = append(parties, c.Observers...)
	}
	if len(contracts) == 0 {
		return nil
	}
	for _, c := range contracts {
		if _, _, err := n.store.Contract(ctx, c.ID); err == nil {
			return fault.New(fault.AlreadyExists, "contract %s already exists on this ledger", c.ID)
		} else if !fault.Is(err, fault.NotFound) {
			return err
		}
	}
	if err := n.loadHostings(ctx); err != nil {
		return err
	}
	var unhosted []daml.Party
	for _, p := range union(parties) {
		if !n.knowsAll([]daml.Party{p}) {
			unhosted = append(unhosted, p)
		}
	}
	if len(unhosted) > 0 {
		return fault.New(fault.FailedPrecondition,
			"the imported contracts have stakeholders no participant hosts: %v; allocate them first", unhosted)
	}
	return nil
}
