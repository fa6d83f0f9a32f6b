package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/interactive"
	"github.com/sandnet/sandnet/internal/signing"
)

// Interactive submission, as Canton runs it for external parties: the
// participant interprets a command without committing it (Prepare) and
// hands the transaction to the client, which hashes it (Canton's V2
// scheme), signs the hash with the acting parties' keys and hands it
// back with the signatures (Execute). The participant checks the hash and
// the signatures against the keys the topology holds, then re-interprets
// the transaction from its root commands, with the seeds and preparation
// time it was prepared with: signatures do not protect against the party
// itself, which could edit a node, re-hash and re-sign, so what gets
// committed is what the packages compute, and a transaction that differs
// from it is rejected (Canton's model-conformance check).

// The codes of interactive submission.
const (
	// CodeFailedToPrepare refuses a command that cannot be prepared.
	CodeFailedToPrepare = "FAILED_TO_PREPARE_TRANSACTION"
	// CodeFailedToExecute refuses a prepared transaction whose fields,
	// hash or signatures do not check out.
	CodeFailedToExecute = "FAILED_TO_EXECUTE_TRANSACTION"
	// CodeModelConformance rejects a transaction that differs from what
	// re-interpreting its root commands gives.
	CodeModelConformance = "LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK"
	// CodeLedgerTimeOutOfBound rejects a transaction whose ledger time is
	// further than LedgerTimeTolerance from its record time.
	CodeLedgerTimeOutOfBound = "LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND"
	// CodePreparationTimeOutOfBound rejects a transaction prepared more
	// than PreparationTimeTolerance away from its record time.
	CodePreparationTimeOutOfBound = "LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND"
	// CodeMaxRecordTimeExceeded rejects a transaction sequenced after the
	// maximum record time it was prepared with.
	CodeMaxRecordTimeExceeded = "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED"
)

// PreparationTimeTolerance is how far a prepared transaction's preparation
// time may be from its record time: Canton's default of 24 hours.
const PreparationTimeTolerance = 24 * time.Hour

// MaxSignaturesPerParty caps the signatures one party may give.
const MaxSignaturesPerParty = 50

// preparedLfVersion is the Daml-LF version of the nodes sandnet's
// packages produce, as a prepared transaction names it.
const preparedLfVersion = "2.1"

const (
	failedToPreparePrefix = "The participant failed to prepare the transaction: "
	failedToExecutePrefix = "The participant failed to execute the transaction: "
)

func failedToExecute(format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, CodeFailedToExecute, failedToExecutePrefix+format, args...)
}

// FailedToPrepare is the error of a command that cannot be prepared.
func FailedToPrepare(format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, CodeFailedToPrepare, failedToPreparePrefix+format, args...)
}

func missingExecuteField(field string) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, "MISSING_FIELD",
		"The submitted command is missing a mandatory field: %s", field)
}

// Prepare interprets a command for an interactive submission and returns
// the transaction as Canton prepares it, without committing anything:
// its nodes (fetches included), the seeds of its create and exercise
// nodes, and metadata with the input contracts, the preparation time
// (the ledger time it was interpreted at) and, when a choice read the
// time, the ledger-time bounds that pin it. maxRecordTime, when not 0,
// is the latest record time the transaction may be sequenced at.
//
// The parties acted as must be known to the ledger; they need not be
// hosted with submission permission (external parties are not).
func (n *Network) Prepare(ctx context.Context, cmd Command, maxRecordTime daml.Timestamp) (*Prepared, error) {
	if len(cmd.ActAs) == 0 {
		return nil, missingExecuteField("act_as")
	}
	for _, p := range cmd.ActAs {
		if n.knowsAll([]daml.Party{p}) {
			continue
		}
		if err := n.loadHostings(ctx); err != nil {
			return nil, err
		}
		if !n.knowsAll([]daml.Party{p}) {
			return nil, partyNotKnown(p)
		}
	}
	tx, syncID, err := n.interpretNow(ctx, &cmd)
	if err != nil {
		return nil, err
	}
	inputs, err := tx.inputContracts()
	if err != nil {
		return nil, err
	}
	md := &interactive.Metadata{
		SubmitterInfo:   &interactive.SubmitterInfo{ActAs: union(cmd.ActAs), CommandID: cmd.CommandID},
		SynchronizerID:  string(syncID),
		TransactionUUID: transactionUUID(tx.seed),
		PreparationTime: int64(tx.now),
		InputContracts:  inputs,
	}
	if tx.timeUsed {
		at := int64(tx.now)
		md.MinLedgerEffectiveTime, md.MaxLedgerEffectiveTime = &at, &at
	}
	if maxRecordTime != 0 {
		t := int64(maxRecordTime)
		md.MaxRecordTime = &t
	}
	pt := &interactive.PreparedTransaction{Transaction: tx.prepared(), Metadata: md}
	hashes, err := interactive.HashV2(pt)
	if err != nil {
		return nil, FailedToPrepare("%v", err)
	}
	n.preparedTxs.put(hashes.Final, tx)
	return &Prepared{Transaction: pt, Hashes: hashes}, nil
}

// Prepared is a prepared transaction and its V2 hashes.
type Prepared struct {
	Transaction *interactive.PreparedTransaction
	Hashes      interactive.Hashes
}

// preparedCache remembers the interpretations this process prepared, by
// the final hash of their prepared transaction, so that executing one
// unchanged does not interpret it again. A transaction whose hash (which
// covers every node, seed, input contract, time bound and the
// preparation time) equals the hash of one sandnet computed from the
// ledger's contracts is what the packages compute: it conforms. An entry
// serves one execution; an edited transaction, one prepared by another
// process, or one whose entry was evicted is re-interpreted.
type preparedCache struct {
	mu    sync.Mutex
	byKey map[[32]byte]*Tx
	order [][32]byte // insertion order, for eviction
}

// maxPreparedCached bounds the cache: the oldest entries go first.
const maxPreparedCached = 4096

func (c *preparedCache) put(k [32]byte, tx *Tx) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[[32]byte]*Tx{}
	}
	if _, ok := c.byKey[k]; ok {
		return
	}
	for len(c.order) >= maxPreparedCached {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
	c.byKey[k] = tx
	c.order = append(c.order, k)
}

// take removes and returns the interpretation prepared with final hash k.
func (c *preparedCache) take(k [32]byte) *Tx {
	c.mu.Lock()
	defer c.mu.Unlock()
	tx := c.byKey[k]
	delete(c.byKey, k) // its slot in order is dropped at eviction
	return tx
}

// transactionUUID is the transaction's UUID (version 4, variant 1),
// derived from its seed so that a network replayed from the same seed
// prepares the same bytes.
func transactionUUID(seed Seed) string {
	h := sha256.Sum256(append([]byte("sandnet/transaction-uuid\x00"), seed[:]...))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	s := hex.EncodeToString(h[:16])
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

// prepared returns the transaction tree in its prepared form. Create and
// exercise nodes keep their node ids (those the committed transaction
// has); fetch nodes, which committed transactions do not keep, are
// numbered after them. Nodes are listed in execution order.
func (tx *Tx) prepared() *interactive.DamlTransaction {
	events := len(tx.events)
	id := func(r nodeRef) string {
		if i := r.fetchIndex(); i >= 0 {
			return strconv.Itoa(events + i)
		}
		return strconv.Itoa(int(r))
	}
	ids := func(rs []nodeRef) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = id(r)
		}
		return out
	}
	dt := &interactive.DamlTransaction{Version: preparedLfVersion, Roots: ids(tx.order[-1])}
	var visit func(r nodeRef)
	visit = func(r nodeRef) {
		if i := r.fetchIndex(); i >= 0 {
			f := tx.fetches[i]
			c := f.contract
			dt.Nodes = append(dt.Nodes, interactive.Node{NodeID: id(r), Fetch: &interactive.Fetch{
				LfVersion: preparedLfVersion, ContractID: c.ID, PackageName: c.Template.PackageName,
				TemplateID: c.Template.Identifier, Signatories: c.Signatories, Stakeholders: c.Stakeholders(),
				ActingParties: union(f.acting), InterfaceID: f.iface,
			}})
			return
		}
		e := &tx.events[r]
		if c := e.Created; c != nil {
			dt.Nodes = append(dt.Nodes, interactive.Node{NodeID: id(r), Create: createNode(c)})
			return
		}
		x := e.Exercised
		dt.Nodes = append(dt.Nodes, interactive.Node{NodeID: id(r), Exercise: &interactive.Exercise{
			LfVersion: preparedLfVersion, ContractID: x.ContractID, PackageName: x.Template.PackageName,
			TemplateID: x.Template.Identifier, Signatories: union(tx.exercisedSigs[int32(r)]),
			Stakeholders: x.Stakeholders, ActingParties: x.ActingParties, InterfaceID: x.Interface,
			ChoiceID: x.Choice, ChosenValue: x.ChoiceArgument, Consuming: x.Consuming,
			Children: ids(tx.order[int32(r)]), ExerciseResult: x.ExerciseResult, ChoiceObservers: []daml.Party{},
		}})
		for _, ch := range tx.order[int32(r)] {
			visit(ch)
		}
	}
	for _, r := range tx.order[-1] {
		visit(r)
	}
	for i, s := range tx.seeds {
		dt.NodeSeeds = append(dt.NodeSeeds, interactive.NodeSeed{NodeID: int32(i), Seed: slices.Clone(s[:])})
	}
	return dt
}

// createNode is the create node of a contract, as a prepared transaction
// shows it (also for its input contracts).
func createNode(c *Contract) *interactive.Create {
	return &interactive.Create{
		LfVersion: preparedLfVersion, ContractID: c.ID, PackageName: c.Template.PackageName,
		TemplateID: c.Template.Identifier, Argument: c.Argument,
		Signatories: union(c.Signatories), Stakeholders: c.Stakeholders(),
	}
}

// inputContracts returns the contracts the transaction read from the
// ledger (or was disclosed), sorted by contract id, each with its create
// node, creation time and created-event blob.
func (tx *Tx) inputContracts() ([]interactive.InputContract, error) {
	out := make([]interactive.InputContract, 0, len(tx.inputs))
	for _, cid := range slices.Sorted(maps.Keys(tx.inputs)) {
		c := tx.disclosed[cid]
		if c == nil {
			c = tx.read[cid]
		}
		if c == nil {
			var err error
			if c, _, err = tx.net.store.Contract(tx.ctx, cid); err != nil {
				return nil, err
			}
		}
		blob, err := EncodeContract(c)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "encode contract %s", cid)
		}
		out = append(out, interactive.InputContract{Create: createNode(c), CreatedAt: int64(c.CreatedAt), EventBlob: blob})
	}
	return out, nil
}

// ExecuteSpec is a prepared transaction handed back for execution with
// its signatures.
type ExecuteSpec struct {
	// Participant executes the transaction; its completion goes to that
	// participant's stream.
	Participant   ParticipantID
	UserID        string
	SubmissionID  string
	Deduplication DeduplicationPeriod
	Prepared      *interactive.PreparedTransaction
	// Signatures are the parties' signatures of the prepared
	// transaction's hash; those of parties it does not act as are
	// ignored.
	Signatures []PartySignatures
	// MinLedgerTime and MinLedgerTimeRel are as in [Command].
	MinLedgerTime    daml.Timestamp
	MinLedgerTimeRel time.Duration
	TraceContext     TraceContext
}

// PartySignatures are one party's signatures.
type PartySignatures struct {
	Party      daml.Party
	Signatures []signing.Signature
}

// execution is what the sequencer checks of an executed interactive
// submission at its record time, besides what it checks of any command.
type execution struct {
	ledgerTime, prepared daml.Timestamp
	maxRecordTime        *int64
	// rejected, when set, is why the transaction is rejected once it is
	// sequenced (a failed model-conformance check).
	rejected error
}

// ExecuteAndWait checks and executes a prepared transaction and returns
// the committed transaction and its completion, as SubmitAndWait does.
// Fields that are missing or do not check out, a hash that cannot be
// computed, and missing or invalid signatures are refused at once
// (FAILED_TO_EXECUTE_TRANSACTION and the ledger API's field errors), with
// no completion. A transaction that reaches the sequencer yields one
// completion: accepted, or rejected as a duplicate, for contention, for a
// ledger or preparation time out of bounds, or because it differs from
// what its root commands give (LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK);
// the error is then a *RejectedError.
func (n *Network) ExecuteAndWait(ctx context.Context, spec ExecuteSpec) (*Transaction, *Completion, error) {
	p, err := n.execution(ctx, spec)
	if err != nil {
		return nil, nil, err
	}
	if err := n.enqueue(ctx, p); err != nil {
		return nil, nil, err
	}
	return p.tx, p.completion, nil
}

// ExecuteAsync checks a prepared transaction as ExecuteAndWait does and
// returns once the sequencer has taken it; its outcome is its completion.
func (n *Network) ExecuteAsync(ctx context.Context, spec ExecuteSpec) error {
	p, err := n.execution(ctx, spec)
	if err != nil {
		return err
	}
	return n.handOver(ctx, p)
}

// execution checks a prepared transaction and its signatures and
// re-interprets it into a submission for the sequencer.
func (n *Network) execution(ctx context.Context, spec ExecuteSpec) (_ *pending, err error) {
	pt := spec.Prepared
	switch {
	case pt == nil:
		return nil, missingExecuteField("prepared_transaction")
	case pt.Metadata == nil:
		return nil, missingExecuteField("metadata")
	case pt.Metadata.SubmitterInfo == nil:
		return nil, missingExecuteField("submitter_info")
	case pt.Transaction == nil:
		return nil, missingExecuteField("transaction")
	case pt.Metadata.SynchronizerID == "":
		return nil, missingExecuteField("synchronizer_id")
	}
	md := pt.Metadata
	actAs := union(md.SubmitterInfo.ActAs)
	if len(actAs) == 0 {
		return nil, missingExecuteField("act_as")
	}
	if err := spec.Deduplication.check(); err != nil {
		return nil, err
	}
	syncID := SynchronizerID(md.SynchronizerID)
	if err := n.knownSynchronizer(ctx, syncID); err != nil {
		return nil, err
	}
	if !validUUID(md.TransactionUUID) {
		return nil, failedToExecute("Invalid transaction UUID %s", fault.Quote(md.TransactionUUID))
	}
	if err := checkInputs(pt); err != nil {
		return nil, err
	}
	hashes, err := interactive.HashV2(pt)
	if err != nil {
		return nil, failedToExecute("%v", err)
	}
	if err := n.checkSignatures(ctx, actAs, spec.Signatures, hashes.Final[:]); err != nil {
		return nil, err
	}

	cmd := Command{
		Participant: spec.Participant, UserID: spec.UserID, ActAs: actAs,
		CommandID: md.SubmitterInfo.CommandID, SubmissionID: spec.SubmissionID,
		Deduplication: spec.Deduplication, Synchronizer: syncID, TraceContext: spec.TraceContext,
	}
	change, flight := NewChangeID(cmd.UserID, cmd.CommandID, actAs), ""
	if change != "" && cmd.Participant != "" {
		flight = flightKey(cmd.Participant, change)
		if err := n.claimFlight(flight, changeText(cmd.UserID, cmd.CommandID, actAs), cmd.SubmissionID); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				n.releaseFlight(flight)
			}
		}()
	}
	let := max(n.clock.Now(), n.earliestLedgerTime(spec.MinLedgerTime, spec.MinLedgerTimeRel))
	if t := md.MinLedgerEffectiveTime; t != nil {
		let = max(let, daml.Timestamp(*t))
	}
	if t := md.MaxLedgerEffectiveTime; t != nil {
		let = min(let, daml.Timestamp(*t))
	}
	exec := &execution{ledgerTime: let, prepared: daml.Timestamp(md.PreparationTime), maxRecordTime: md.MaxRecordTime}
	var rejected error
	tx := n.preparedTxs.take(hashes.Final)
	if tx != nil && tx.now != let {
		// Only a transaction that does not read the time can run at
		// another ledger time than it was prepared at (its bounds pin
		// the others), and only its contracts' creation times change.
		for i := range tx.events {
			if c := tx.events[i].Created; c != nil {
				c.CreatedAt = let
			}
		}
		tx.now = let
	}
	if tx == nil {
		if tx, rejected, err = n.reinterpret(ctx, &cmd, pt, hashes, let); err != nil {
			return nil, err
		}
	}
	t := &Transaction{
		Submission:   Submission{Participant: cmd.Participant, UserID: cmd.UserID, ActAs: actAs, CommandID: cmd.CommandID},
		Synchronizer: syncID, EffectiveAt: let, TraceContext: cmd.TraceContext,
		ExternalHash: slices.Clone(hashes.Final[:]),
	}
	var inputs []daml.ContractID
	if rejected != nil {
		exec.rejected = rejected
	} else {
		t.Events, t.Roots, t.NodeSeeds = tx.events, tx.rootIDs(), tx.NodeSeeds()
		inputs = slices.Sorted(maps.Keys(tx.inputs))
	}
	n.flightOn(flight, syncID)
	return &pending{
		tx: t, inputs: inputs, execution: exec, done: make(chan error, 1),
		change: change, flight: flight, submissionID: cmd.SubmissionID, dedup: n.resolved(cmd.Deduplication),
	}, nil
}

// reinterpret runs a prepared transaction's root commands again, as
// Canton's confirming participants do, with the seeds and preparation
// time it was prepared with, its input contracts as the ledger holds
// them, at ledger time let. It returns the transaction when it equals
// the prepared one, else why it does not (rejected). err is a failure
// to read the ledger.
func (n *Network) reinterpret(ctx context.Context, cmd *Command, pt *interactive.PreparedTransaction, want interactive.Hashes, let daml.Timestamp) (_ *Tx, rejected, err error) {
	nonConformant := func(format string, args ...any) error {
		return fault.WithCode(fault.InvalidArgument, CodeModelConformance,
			"Rejected transaction due to a failed model conformance check: "+format, args...)
	}
	md, dt := pt.Metadata, pt.Transaction
	// The input contracts are given, as disclosed contracts are: the
	// ledger's copies, which the prepared ones must equal.
	for _, in := range md.InputContracts {
		c, _, err := n.store.Contract(ctx, in.Create.ContractID)
		if fault.Is(err, fault.NotFound) {
			return nil, nonConformant("input contract %s is not a contract of this ledger", in.Create.ContractID), nil
		}
		if err != nil {
			return nil, nil, err
		}
		if int64(c.CreatedAt) != in.CreatedAt || !sameCreate(createNode(c), in.Create) {
			return nil, nonConformant("input contract %s differs from the ledger's", c.ID), nil
		}
		cmd.Disclosed = append(cmd.Disclosed, c)
	}
	byID := make(map[string]*interactive.Node, len(dt.Nodes))
	for i := range dt.Nodes {
		byID[dt.Nodes[i].NodeID] = &dt.Nodes[i]
	}
	seedOf := make(map[int32][]byte, len(dt.NodeSeeds))
	for _, s := range dt.NodeSeeds {
		seedOf[s.NodeID] = s.Seed
	}
	var roots []APICommand
	var seeds []Seed
	for _, r := range dt.Roots {
		node := byID[r]
		id, convErr := strconv.ParseInt(r, 10, 32)
		seed, ok := seedOf[int32(id)]
		if node == nil || convErr != nil || !ok || len(seed) != len(Seed{}) {
			return nil, nonConformant("root node %s has no node or no seed", fault.Quote(r)), nil
		}
		seeds = append(seeds, Seed(seed))
		switch {
		case node.Create != nil:
			roots = append(roots, APICommand{Create: &CreateCommand{Template: node.Create.TemplateID, Argument: node.Create.Argument}})
		case node.Exercise != nil:
			x := node.Exercise
			ref := x.TemplateID
			if x.InterfaceID != nil {
				ref = *x.InterfaceID
			}
			roots = append(roots, APICommand{Exercise: &ExerciseCommand{Template: ref, ContractID: x.ContractID, Choice: x.ChoiceID, Argument: x.ChosenValue}})
		default:
			return nil, nonConformant("root node %s is neither a create nor an exercise", fault.Quote(r)), nil
		}
	}
	cmd.Run = RunCommands(roots)
	tx, _, err := n.interpret(ctx, cmd, let, &replay{rootSeeds: seeds, submitted: daml.Timestamp(md.PreparationTime)})
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.Kind != fault.Internal && fe.Kind != fault.Unavailable {
			return nil, nonConformant("%s", fe.Message), nil
		}
		return nil, nil, err
	}
	if tx.seedsShort {
		return nil, nonConformant("the transaction has more roots than seeds"), nil
	}
	if tx.timeUsed && (md.MinLedgerEffectiveTime == nil || md.MaxLedgerEffectiveTime == nil) {
		return nil, nonConformant("the transaction depends on the ledger time but does not bound it"), nil
	}
	// Only the transaction's hash is compared: the metadata is the given
	// one, already hashed and signed, so it is left out here (hashed as
	// its empty default) rather than hashed again with every input
	// contract's create node.
	got, err := interactive.HashV2(&interactive.PreparedTransaction{Transaction: tx.prepared()})
	if err != nil {
		return nil, nil, fault.Wrap(fault.Internal, err, "hash the re-interpreted transaction")
	}
	if got.Transaction != want.Transaction {
		return nil, nonConformant("the transaction differs from what its root commands give (transaction hash %x, re-interpreted %x)",
			want.Transaction, got.Transaction), nil
	}
	return tx, nil, nil
}

// sameCreate reports whether two create nodes are equal.
func sameCreate(a, b *interactive.Create) bool {
	return a.LfVersion == b.LfVersion && a.ContractID == b.ContractID && a.PackageName == b.PackageName &&
		a.TemplateID == b.TemplateID && daml.Equal(a.Argument, b.Argument) &&
		slices.Equal(a.Signatories, b.Signatories) && slices.Equal(a.Stakeholders, b.Stakeholders)
}

// checkInputs refuses a prepared transaction whose input contracts are
// not exactly the contracts its nodes use without creating them.
func checkInputs(pt *interactive.PreparedTransaction) error {
	created := map[daml.ContractID]bool{}
	used := map[daml.ContractID]bool{}
	for _, nd := range pt.Transaction.Nodes {
		switch {
		case nd.Create != nil:
			created[nd.Create.ContractID] = true
		case nd.Exercise != nil:
			used[nd.Exercise.ContractID] = true
		case nd.Fetch != nil:
			used[nd.Fetch.ContractID] = true
		}
	}
	given := map[daml.ContractID]bool{}
	for _, in := range pt.Metadata.InputContracts {
		if in.Create == nil {
			return missingExecuteField("input_contracts.v1")
		}
		given[in.Create.ContractID] = true
	}
	var missing, superfluous []string
	for cid := range used {
		if !created[cid] && !given[cid] {
			missing = append(missing, string(cid))
		}
	}
	for cid := range given {
		if !used[cid] || created[cid] {
			superfluous = append(superfluous, string(cid))
		}
	}
	slices.Sort(missing)
	slices.Sort(superfluous)
	switch {
	case len(missing) > 0:
		return failedToExecute("Missing input contracts: %s", fault.Clip(strings.Join(missing, ", ")))
	case len(superfluous) > 0:
		return failedToExecute("Superfluous input contracts: %s", fault.Clip(strings.Join(superfluous, ", ")))
	}
	return nil
}

// checkSignatures checks that every party acted as signed hash with at
// least its threshold of distinct keys the topology holds for it.
func (n *Network) checkSignatures(ctx context.Context, actAs []daml.Party, given []PartySignatures, hash []byte) error {
	byParty := map[daml.Party][]signing.Signature{}
	for _, ps := range given {
		if len(ps.Signatures) > MaxSignaturesPerParty {
			return fault.WithCode(fault.InvalidArgument, CodeInvalidArgument,
				"%sparty %s gave %d signatures, more than the maximum of %d", invalidArgumentPrefix, fault.Clip(string(ps.Party)), len(ps.Signatures), MaxSignaturesPerParty)
		}
		byParty[ps.Party] = append(byParty[ps.Party], ps.Signatures...)
	}
	var unsigned []string
	for _, p := range actAs {
		if len(byParty[p]) == 0 {
			unsigned = append(unsigned, string(p))
		}
	}
	if len(unsigned) > 0 {
		return failedToExecute("The following actAs parties did not provide an external signature: %s", strings.Join(unsigned, ", "))
	}
	for _, p := range actAs {
		ext, ok, err := n.ExternalPartyOf(ctx, p)
		if err != nil {
			return err
		}
		if !ok {
			return failedToExecute("Could not find party signing keys for %s.", p)
		}
		valid := map[string]bool{}
		invalid := 0
		for _, sig := range byParty[p] {
			i := slices.IndexFunc(ext.Keys, func(k signing.PublicKey) bool { return k.Fingerprint() == sig.SignedBy })
			if i < 0 || !slices.Contains(ext.Keys[i].Usage, signing.UsageProtocol) || ext.Keys[i].Verify(sig, hash) != nil {
				invalid++
				continue
			}
			valid[sig.SignedBy] = true
		}
		if len(valid) < ext.Threshold {
			return failedToExecute("Received %d valid signatures from distinct keys (%d invalid), but expected at least %d valid for %s. Transaction hash to be signed: %s. Ensure the correct transaction hash is signed with the correct key(s).",
				len(valid), invalid, ext.Threshold, p, "1220"+hex.EncodeToString(hash))
		}
	}
	return nil
}

// knownSynchronizer refuses a synchronizer id the network does not have.
func (n *Network) knownSynchronizer(ctx context.Context, id SynchronizerID) error {
	// Nearly every execution names the default synchronizer, which the
	// network keeps (synchronizers are never removed): no store read for
	// it (about 25 µs, a fifth of an execution's own CPU time).
	if def, err := n.defaultSynchronizer(ctx); err == nil && def == id {
		return nil
	}
	syncs, err := n.store.Synchronizers(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(syncs, func(s Synchronizer) bool { return s.ID == id }) {
		return fault.WithCode(fault.InvalidArgument, CodeInvalidField,
			"The submitted command has a field with invalid value: Invalid field synchronizer_id: unknown synchronizer %s", fault.Quote(string(id)))
	}
	return nil
}

// validUUID reports whether s is a UUID in its canonical textual form.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return true
}

// checkExecution is the sequencer's check of an executed interactive
// submission at record time rt: a rejection decided at execution, then
// the ledger time, the preparation time and the maximum record time.
func checkExecution(e *execution, rt daml.Timestamp) error {
	within := func(a, b daml.Timestamp, d time.Duration) bool {
		diff := a - b
		if diff < 0 {
			diff = -diff
		}
		return diff <= daml.Timestamp(d.Microseconds())
	}
	switch {
	case e.rejected != nil:
		return e.rejected
	case !within(e.ledgerTime, rt, LedgerTimeTolerance):
		return fault.WithCode(fault.FailedPrecondition, CodeLedgerTimeOutOfBound,
			"The ledger time %s is more than %v away from the record time %s", e.ledgerTime, LedgerTimeTolerance, rt)
	case !within(e.prepared, rt, PreparationTimeTolerance):
		return fault.WithCode(fault.FailedPrecondition, CodePreparationTimeOutOfBound,
			"The preparation time %s is more than %v away from the record time %s", e.prepared, PreparationTimeTolerance, rt)
	case e.maxRecordTime != nil && int64(rt) > *e.maxRecordTime:
		return fault.WithCode(fault.FailedPrecondition, CodeMaxRecordTimeExceeded,
			"The record time %s is after the transaction's maximum record time %s", rt, daml.Timestamp(*e.maxRecordTime))
	}
	return nil
}
