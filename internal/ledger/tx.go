package ledger

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// Tx is a transaction being interpreted: choices run inside it, and it
// records the tree of created and exercised events. Nothing is visible to
// anybody until the engine commits it.
//
// Ids are fixed when the Tx is interpreted, as Canton fixes them: the Tx
// has a transaction seed, every create and exercise node a seed derived
// from it, and every created contract the unsuffixed id of a
// discriminator derived from its node's seed (see ids.go). The sequencer
// adds only Canton's suffix when it orders the transaction. So ids depend
// only on the network seed and the sequence of submissions.
type Tx struct {
	ctx context.Context
	net *Network
	now daml.Timestamp

	// seed is the transaction seed; seeds holds every node's seed, by
	// node id; roots counts the root nodes so far.
	seed  Seed
	seeds []Seed
	roots int32
	// rootSeeds, when set, are the seeds of the root nodes, given instead
	// of derived from seed: an executed interactive submission is
	// re-interpreted with the seeds it was prepared with. seedsShort
	// records a root beyond them.
	rootSeeds  []Seed
	seedsShort bool
	// submitted is the submission time, from which contract
	// discriminators derive (Daml-LF's submissionTime): the ledger time of
	// a command, the preparation time of an interactive submission.
	submitted daml.Timestamp
	// timeUsed records that a choice read the ledger time: the
	// transaction is time-dependent, and a prepared one pins its ledger
	// time.
	timeUsed bool
	// fetches are the transaction's fetch nodes. Canton's transactions
	// keep a node for every fetch; the ledger API never shows them, so
	// sandnet's committed transactions keep none and they live only in
	// the prepared form (interactive.go). order lists, for the roots (key
	// -1) and for every exercise node, its children in execution order,
	// fetches included (see nodeRef).
	fetches []fetchNode
	order   map[int32][]nodeRef
	// exercisedSigs are the signatories of the contract of each exercise
	// node, by node id, which a prepared transaction shows.
	exercisedSigs map[int32][]daml.Party

	actAs, readAs []daml.Party
	disclosed     map[daml.ContractID]*Contract

	events    []Event
	informees [][]daml.Party // per node: the node's own informees
	stack     []int32        // open exercise nodes
	auth      [][]daml.Party // authorizers, innermost last

	created  map[daml.ContractID]*Contract
	consumed map[daml.ContractID]bool
	// inputs are the contracts read from the active contract set (or
	// disclosed); the sequencer checks they are still active at commit.
	inputs map[daml.ContractID]bool
	cache  map[daml.ContractID]Template
	// located are the synchronizers of the inputs read from the active
	// contract set: a command may only use contracts on its own.
	located map[daml.ContractID]SynchronizerID
	// read are the inputs read from the active contract set, as read:
	// a prepared transaction lists them as its input contracts, which
	// would otherwise read them from the store a second time.
	read map[daml.ContractID]*Contract
}

// Now returns the transaction's ledger effective time. Reading it makes
// the transaction time-dependent, as Daml's getTime does.
func (tx *Tx) Now() daml.Timestamp {
	tx.timeUsed = true
	return tx.now
}

// fetchNode is a fetch of a contract: what Daml-LF records for a fetch,
// with the parties acting (the authorizers who are stakeholders).
type fetchNode struct {
	contract *Contract
	acting   []daml.Party
	iface    *daml.Identifier
}

// nodeRef names a child in Tx.order: an event id when at least 0, else
// the fetch -(ref+1).
type nodeRef int32

func fetchRef(i int) nodeRef { return nodeRef(-(i + 1)) }

// fetchIndex is the index in Tx.fetches of a reference to a fetch, or -1.
func (r nodeRef) fetchIndex() int {
	if r >= 0 {
		return -1
	}
	return int(-r) - 1
}

// parentKey is the key in Tx.order of the innermost open exercise, or -1
// at the top level.
func (tx *Tx) parentKey() int32 {
	if n := len(tx.stack); n > 0 {
		return tx.stack[n-1]
	}
	return -1
}

// recordFetch records a fetch node of contract c under the innermost
// open exercise.
func (tx *Tx) recordFetch(c *Contract, iface *daml.Identifier) {
	var acting []daml.Party
	for _, p := range tx.authorizers() {
		if slices.Contains(c.Stakeholders(), p) {
			acting = append(acting, p)
		}
	}
	tx.fetches = append(tx.fetches, fetchNode{contract: c, acting: acting, iface: iface})
	if tx.order == nil {
		tx.order = map[int32][]nodeRef{}
	}
	k := tx.parentKey()
	tx.order[k] = append(tx.order[k], fetchRef(len(tx.fetches)-1))
}

// Context returns the context of the command being interpreted.
func (tx *Tx) Context() context.Context { return tx.ctx }

// ActAs returns the parties the command acts as.
func (tx *Tx) ActAs() []daml.Party { return tx.actAs }

// CodeUnhandledException is Canton's error code for a transaction that
// failed with a Daml exception nothing caught: a failed `require` (which
// throws AssertionFailed) or a thrown InvalidTransfer.
const CodeUnhandledException = "UNHANDLED_EXCEPTION"

// Require fails the transaction with a Daml precondition error unless cond
// holds, like Splice's `require`, whose AssertionFailed Canton reports as
// an unhandled exception.
func (tx *Tx) Require(cond bool, format string, args ...any) error {
	if cond {
		return nil
	}
	return fault.WithCode(fault.DamlPrecondition, CodeUnhandledException, format, args...)
}

// CodeTemplatePreconditionViolated is Canton's error code for a create
// whose template's `ensure` does not hold.
const CodeTemplatePreconditionViolated = "TEMPLATE_PRECONDITION_VIOLATED"

// templatePreconditionViolated is the error of a create whose template's
// Ensure failed (Daml's failed `ensure`), keeping the reason as its cause.
func templatePreconditionViolated(id TemplateID, reason error) error {
	e := fault.Wrap(fault.DamlPrecondition, reason, "Interpretation error: Error: Template precondition violated in %s:%s", id.ModuleName, id.EntityName)
	e.Code = CodeTemplatePreconditionViolated
	return e
}

func (tx *Tx) authorizers() []daml.Party { return tx.auth[len(tx.auth)-1] }

func (tx *Tx) authorized(parties []daml.Party) error {
	auth := tx.authorizers()
	for _, p := range parties {
		if !slices.Contains(auth, p) {
			return fault.WithCode(fault.InvalidArgument, CodeAuthorization,
				"Interpretation error: Error: node requires authorizers %v, but only %v were given", parties, auth)
		}
	}
	return nil
}

// nextSeed returns the seed of the next node: derived from the
// transaction seed and the node's position among the roots, or from its
// exercise's seed and its position among the exercise's children.
func (tx *Tx) nextSeed() Seed {
	n := len(tx.stack)
	if n == 0 {
		if tx.rootSeeds != nil {
			if int(tx.roots) < len(tx.rootSeeds) {
				return tx.rootSeeds[tx.roots]
			}
			tx.seedsShort = true
			return Seed{}
		}
		return nodeSeed(tx.seed, tx.roots)
	}
	parent := tx.stack[n-1]
	return nodeSeed(tx.seeds[parent], int32(len(tx.events[parent].Exercised.Children)))
}

// appendNode adds a node with its seed (nextSeed) under the innermost open
// exercise and returns its id.
func (tx *Tx) appendNode(e Event, informees []daml.Party, seed Seed) int32 {
	id := int32(len(tx.events))
	e.NodeID = id
	if tx.order == nil {
		tx.order = map[int32][]nodeRef{}
	}
	k := tx.parentKey()
	tx.order[k] = append(tx.order[k], nodeRef(id))
	tx.events = append(tx.events, e)
	tx.informees = append(tx.informees, informees)
	tx.seeds = append(tx.seeds, seed)
	if n := len(tx.stack); n > 0 {
		parent := tx.events[tx.stack[n-1]].Exercised
		parent.Children = append(parent.Children, id)
	} else {
		tx.roots++
	}
	return id
}

// NodeSeeds returns the seed of every node so far (creates and exercises,
// which are all the nodes sandnet records), by node id.
func (tx *Tx) NodeSeeds() []NodeSeed {
	out := make([]NodeSeed, len(tx.seeds))
	for i, s := range tx.seeds {
		out[i] = NodeSeed{NodeID: int32(i), Seed: s}
	}
	return out
}

// Create creates a contract of template t, which its signatories must
// authorize, and returns its id, unsuffixed until the transaction commits
// (Transaction.Final gives the committed one).
func Create[T Template](tx *Tx, t T) (daml.ContractID, error) {
	return tx.create(t)
}

func (tx *Tx) create(t Template) (daml.ContractID, error) {
	id := t.TemplateID()
	if _, ok := tx.net.registry.templates[id.Identifier]; !ok {
		return "", templatesNotFound(id.Identifier)
	}
	if e, ok := t.(Ensurer); ok {
		if err := e.Ensure(); err != nil {
			return "", templatePreconditionViolated(id, err)
		}
	}
	sigs := union(t.Signatories())
	if len(sigs) == 0 {
		return "", fault.New(fault.InvalidArgument, "template %s has no signatories", id.EntityName)
	}
	if err := tx.authorized(sigs); err != nil {
		return "", err
	}
	v, err := daml.FromGo(t)
	if err != nil {
		return "", fault.Wrap(fault.Internal, err, "encode %s", id.EntityName)
	}
	rec, ok := v.(*daml.Record)
	if !ok {
		return "", fault.New(fault.Internal, "template %T does not encode to a record", t)
	}
	seed := tx.nextSeed()
	c := &Contract{
		Template: id, Argument: rec,
		Signatories: sigs, Observers: observersOf(sigs, t.Observers()),
		CreatedAt: tx.now,
	}
	cid := unsuffixedID(discriminator(seed, tx.submitted, c.Stakeholders()))
	if tx.created[cid] != nil {
		// Distinct node seeds make this a SHA-256 collision.
		return "", fault.New(fault.Internal, "discriminator %s derived twice in one transaction", cid)
	}
	c.ID = cid
	tx.appendNode(Event{Created: c}, c.Stakeholders(), seed)
	tx.created[cid] = c
	tx.cache[cid] = t
	return cid, nil
}

// contract finds a contract the transaction may use: created earlier in it,
// disclosed with the command, or active and visible to the authorizers.
func (tx *Tx) contract(cid daml.ContractID) (*Contract, error) {
	if tx.consumed[cid] {
		return nil, fault.WithCode(fault.DamlPrecondition, "CONTRACT_NOT_ACTIVE",
			"Interpretation error: Error: Update failed due to fetch of an inactive contract %s", cid)
	}
	if c := tx.created[cid]; c != nil {
		return c, nil
	}
	if c := tx.disclosed[cid]; c != nil {
		tx.inputs[cid] = true
		return c, nil
	}
	c, active, err := tx.net.store.Contract(tx.ctx, cid)
	if err == nil && active {
		if tx.located == nil {
			tx.located = map[daml.ContractID]SynchronizerID{}
		}
		tx.located[cid] = c.Synchronizer
	}
	if err != nil || !active {
		if err == nil || fault.Is(err, fault.NotFound) {
			return nil, fault.WithCode(fault.NotFound, "CONTRACT_NOT_FOUND",
				"Contract could not be found with id %s", cid)
		}
		return nil, err
	}
	// A party sees a contract it is a stakeholder of; at the top level the
	// command's readers count, below it the choice's authorizers do.
	readers := tx.authorizers()
	if len(tx.stack) == 0 {
		readers = union(tx.actAs, tx.readAs)
	}
	if !intersects(c.Stakeholders(), readers) {
		return nil, fault.WithCode(fault.NotFound, "CONTRACT_NOT_FOUND",
			"Contract could not be found with id %s", cid)
	}
	tx.inputs[cid] = true
	if tx.read == nil {
		tx.read = map[daml.ContractID]*Contract{}
	}
	tx.read[cid] = c
	return c, nil
}

func (tx *Tx) template(c *Contract) (Template, *templateInfo, error) {
	info := tx.net.registry.templates[c.Template.Identifier]
	if info == nil {
		return nil, nil, fault.WithCode(fault.NotFound, "TEMPLATES_OR_INTERFACES_NOT_FOUND", "Unknown template %s", c.Template.Identifier)
	}
	if t, ok := tx.cache[c.ID]; ok {
		return t, info, nil
	}
	t, err := info.decode(c.Argument)
	if err != nil {
		return nil, nil, fault.Wrap(fault.Internal, err, "decode contract %s", c.ID)
	}
	tx.cache[c.ID] = t
	return t, info, nil
}

// Fetch reads an active contract of template T.
func Fetch[T Template](tx *Tx, cid daml.ContractID) (T, error) {
	var zero T
	c, err := tx.contract(cid)
	if err != nil {
		return zero, err
	}
	t, _, err := tx.template(c)
	if err != nil {
		return zero, err
	}
	out, ok := t.(T)
	if !ok {
		return zero, fault.WithCode(fault.DamlPrecondition, "WRONGLY_TYPED_CONTRACT",
			"Contract %s has template %s, not %s", cid, c.Template.Identifier, zero.TemplateID().Identifier)
	}
	tx.recordFetch(c, nil)
	return out, nil
}

// FetchContract returns the contract instance behind an id, with the same
// visibility rules as [Fetch].
func (tx *Tx) FetchContract(cid daml.ContractID) (*Contract, error) {
	return tx.contract(cid)
}

// Exercise runs a choice on a contract and returns its result. The choice's
// controllers must be among the current authorizers; inside the choice the
// contract's signatories and the controllers authorize.
func Exercise[R any](tx *Tx, cid daml.ContractID, choice string, arg any) (R, error) {
	var zero R
	res, err := tx.exercise(cid, choice, arg)
	if err != nil {
		return zero, err
	}
	out, ok := res.(R)
	if !ok {
		return zero, fault.New(fault.Internal, "choice %s returns %T, not %T", choice, res, zero)
	}
	return out, nil
}

// Archive exercises the Archive choice.
func (tx *Tx) Archive(cid daml.ContractID) error {
	_, err := tx.exercise(cid, "Archive", daml.Unit{})
	return err
}

func (tx *Tx) exercise(cid daml.ContractID, choice string, arg any) (any, error) {
	c, err := tx.contract(cid)
	if err != nil {
		return nil, err
	}
	return tx.exerciseOn(c, nil, choice, arg)
}

// exerciseOn runs a choice of contract c, which the transaction may use,
// with a Go argument of the choice's argument type. iface, when set, is
// the interface the choice is exercised through.
func (tx *Tx) exerciseOn(c *Contract, iface *daml.Identifier, choice string, arg any) (any, error) {
	cid := c.ID
	t, info, err := tx.template(c)
	if err != nil {
		return nil, err
	}
	ch := info.choices[choice]
	if ch == nil {
		return nil, invalidChoice(c.Template.Identifier, choice)
	}
	if iface == nil {
		// A choice the template inherits from an interface it implements
		// runs as an exercise through the interface, as Daml's engine
		// resolves a template-id exercise of an inherited choice.
		iface = tx.net.registry.inheritedFrom(info, choice)
	}
	if reflect.TypeOf(arg) != ch.argType {
		return nil, fault.New(fault.Internal, "choice %s takes %v, got %T", choice, ch.argType, arg)
	}
	controllers := union(ch.controllers(t, arg))
	if err := tx.authorized(controllers); err != nil {
		return nil, err
	}
	argValue, err := daml.FromGo(arg)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode argument of %s", choice)
	}
	informees := union(c.Signatories, controllers)
	if ch.consuming {
		informees = union(c.Stakeholders(), controllers)
		tx.consumed[cid] = true
	}
	node := tx.appendNode(Event{Exercised: &Exercised{
		ContractID: cid, Template: c.Template, Interface: iface, Choice: choice, ChoiceArgument: argValue,
		ActingParties: controllers, Consuming: ch.consuming, Stakeholders: c.Stakeholders(),
		Children: []int32{},
	}}, informees, tx.nextSeed())
	if tx.exercisedSigs == nil {
		tx.exercisedSigs = map[int32][]daml.Party{}
	}
	tx.exercisedSigs[node] = c.Signatories
	tx.stack = append(tx.stack, node)
	tx.auth = append(tx.auth, union(c.Signatories, controllers))
	res, err := ch.run(tx, cid, t, arg)
	tx.stack = tx.stack[:len(tx.stack)-1]
	tx.auth = tx.auth[:len(tx.auth)-1]
	if err != nil {
		return nil, err
	}
	resValue, err := daml.FromGo(res)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode result of %s", choice)
	}
	x := tx.events[node].Exercised
	x.ExerciseResult = resValue
	x.LastDescendant = int32(len(tx.events) - 1)
	return res, nil
}

// witnesses computes every node's witnesses: its informees and those of its
// ancestors, since a party that sees an exercise sees its whole subtree.
func (tx *Tx) witnesses() {
	var visit func(id int32, inherited []daml.Party)
	visit = func(id int32, inherited []daml.Party) {
		w := union(inherited, tx.informees[id])
		tx.events[id].Witnesses = w
		if x := tx.events[id].Exercised; x != nil {
			for _, c := range x.Children {
				visit(c, w)
			}
		}
	}
	for _, r := range tx.rootIDs() {
		visit(r, nil)
	}
}

func (tx *Tx) rootIDs() []int32 {
	var roots []int32
	for i := int32(0); i < int32(len(tx.events)); {
		roots = append(roots, i)
		if x := tx.events[i].Exercised; x != nil {
			i = x.LastDescendant + 1
		} else {
			i++
		}
	}
	return roots
}

func intersects(a, b []daml.Party) bool {
	for _, p := range a {
		if slices.Contains(b, p) {
			return true
		}
	}
	return false
}

// String describes the transaction for logs.
func (tx *Tx) String() string {
	return fmt.Sprintf("tx{actAs=%v nodes=%d}", tx.actAs, len(tx.events))
}

// FetchInterface reads an active contract through interface iface, as
// Daml's fetch of an interface contract id: the contract's template must
// implement iface, and the fetch is recorded with the interface. It
// returns the contract's template value and its view for iface.
func FetchInterface(tx *Tx, cid daml.ContractID, iface daml.Identifier) (Template, any, error) {
	c, err := tx.contract(cid)
	if err != nil {
		return nil, nil, err
	}
	t, info, err := tx.template(c)
	if err != nil {
		return nil, nil, err
	}
	view := info.views[iface]
	if view == nil {
		return nil, nil, notImplementing(c, iface)
	}
	v, err := view(t)
	if err != nil {
		return nil, nil, err
	}
	tx.recordFetch(c, &iface)
	return t, v, nil
}

// ExerciseInterface runs a choice of interface iface on a contract whose
// template implements it (the template's own choice of that name, see
// AddInterfaceChoice), recording the interface on the exercise node.
func ExerciseInterface[R any](tx *Tx, cid daml.ContractID, iface daml.Identifier, choice string, arg any) (R, error) {
	var zero R
	c, err := tx.contract(cid)
	if err != nil {
		return zero, err
	}
	if !slices.Contains(tx.net.registry.Interfaces(c.Template.Identifier), iface) {
		return zero, notImplementing(c, iface)
	}
	res, err := tx.exerciseOn(c, &iface, choice, arg)
	if err != nil {
		return zero, err
	}
	out, ok := res.(R)
	if !ok {
		return zero, fault.New(fault.Internal, "choice %s returns %T, not %T", choice, res, zero)
	}
	return out, nil
}

// notImplementing is Canton's failure for a contract used through an
// interface its template does not implement.
func notImplementing(c *Contract, iface daml.Identifier) error {
	return fault.WithCode(fault.DamlPrecondition, "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE",
		"Interpretation error: Error: Update failed due to contract %s not implementing an interface %s (its template is %s)",
		c.ID, iface, c.Template.Identifier)
}
