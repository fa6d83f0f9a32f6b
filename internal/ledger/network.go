package ledger

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// Config configures a [Network].
type Config struct {
	// Seed makes ids deterministic: the same seed and the same sequence of
	// transactions give the same ids.
	Seed string
	// Wall is the wall clock (time.Now when nil); tests pin it.
	Wall func() time.Time
	// MaxBatch caps how many transactions the sequencer commits in one
	// database transaction (group commit). Default 64.
	MaxBatch int
	Logger   *slog.Logger
	// Observer, when set, is told about every batch the sequencer commits.
	Observer Observer
	// MaxDeduplicationDuration is the deduplication period of a command
	// that sets none (DefaultMaxDeduplicationDuration when 0).
	MaxDeduplicationDuration time.Duration
	// UserCacheTTL bounds how long CachedUser serves a user before reading
	// it again (DefaultUserCacheTTL when 0).
	UserCacheTTL time.Duration
}

// Observer receives the engine's measurements. The engine knows nothing of
// metrics systems; cmd/sandnet feeds these to Prometheus.
type Observer interface {
	// BatchCommitted reports a sequencer batch: how many transactions it
	// committed and rejected, how long the database transaction took, and
	// whether it failed as a whole.
	BatchCommitted(committed, rejected int, elapsed time.Duration, err error)
}

// Network is the engine: it interprets commands, orders the resulting
// transactions once, and commits them with their effect on the active
// contract set and on every participant's stream.
type Network struct {
	store    Store
	registry *Registry
	clock    *Clock
	seed     string
	maxBatch int
	log      *slog.Logger
	observer Observer
	maxDedup time.Duration

	submissions chan *pending
	committed   *Signal
	stop        chan struct{}
	stopped     chan struct{}
	closeOnce   sync.Once

	// contractEpoch counts this process's commits that rewrote stored
	// contracts (see ContractEpoch).
	contractEpoch atomic.Uint64

	mu       sync.RWMutex
	hostings map[daml.Party][]Hosting
	// sync is the synchronizer of the current migration that commands use
	// unless they name one; read once, reset when synchronizers change.
	sync SynchronizerID

	// seenSequence is the sequence number of the last update this
	// process's topology cache is known to be current at. A batch that
	// finds another process committed since reloads the topology first,
	// so that no revocation or permission change committed elsewhere is
	// missed. Only the sequencer goroutine uses it.
	seenSequence int64

	// flights are the submissions in flight in this process, by
	// participant and change id (see claimFlight).
	flightMu sync.Mutex
	flights  map[string]*inFlight
	// seeds derives the submissions' seeds (ids.go).
	seeds *submissionSeeds
	// users caches the users that authorize requests (usercache.go).
	users *userCache
	// external caches the external parties' keys (external.go), under mu;
	// externalMu serializes their allocations.
	external   map[daml.Party]*ExternalParty
	externalMu sync.Mutex
	// preparedTxs are the interpretations of recent preparations
	// (interactive.go).
	preparedTxs preparedCache
}

// Open starts a network over a store. It loads the clock offset and the
// topology and starts the sequencer; Close stops it.
func Open(ctx context.Context, store Store, registry *Registry, cfg Config) (*Network, error) {
	head, err := store.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("read ledger head: %w", err)
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 64
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxDeduplicationDuration <= 0 {
		cfg.MaxDeduplicationDuration = DefaultMaxDeduplicationDuration
	}
	n := &Network{
		store: store, registry: registry, seed: cfg.Seed, maxBatch: cfg.MaxBatch, log: cfg.Logger, observer: cfg.Observer,
		maxDedup: cfg.MaxDeduplicationDuration, flights: map[string]*inFlight{},
		users:       newUserCache(cfg.UserCacheTTL),
		external:    map[daml.Party]*ExternalParty{},
		clock:       NewClock(cfg.Wall, head.ClockOffset),
		submissions: make(chan *pending),
		committed:   NewSignal(),
		stop:        make(chan struct{}),
		stopped:     make(chan struct{}),
	}
	n.seenSequence = head.Sequence
	n.seeds = newSubmissionSeeds(cfg.Seed, head.Sequence)
	if err := n.loadHostings(ctx); err != nil {
		return nil, err
	}
	go n.sequence()
	return n, nil
}

// Close stops the sequencer. Submissions after Close fail.
func (n *Network) Close() error {
	n.closeOnce.Do(func() { close(n.stop) })
	<-n.stopped
	return nil
}

// Store returns the network's store, for readers.
func (n *Network) Store() Store { return n.store }

// Registry returns the templates the network runs.
func (n *Network) Registry() *Registry { return n.registry }

// Clock returns the network's ledger clock.
func (n *Network) Clock() *Clock { return n.clock }

// Seed returns the network seed.
func (n *Network) Seed() string { return n.seed }

// Committed returns a channel closed at the next commit by this process.
func (n *Network) Committed() <-chan struct{} { return n.committed.C() }

// Fingerprint derives a namespace fingerprint from the network seed.
func (n *Network) Fingerprint(purpose string) string { return Fingerprint(n.seed, purpose) }

func (n *Network) loadHostings(ctx context.Context) error {
	hs, err := n.store.Hostings(ctx, "")
	if err != nil {
		return fmt.Errorf("read topology: %w", err)
	}
	m := map[daml.Party][]Hosting{}
	for _, h := range hs {
		m[h.Party] = append(m[h.Party], h)
	}
	n.mu.Lock()
	n.hostings = m
	n.mu.Unlock()
	return nil
}

// HostingsOf returns the participants hosting a party.
func (n *Network) HostingsOf(p daml.Party) []Hosting {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return slices.Clone(n.hostings[p])
}

// Watermark returns a participant's ledger end and a record time that
// every update sequenced after it will be later than: the synchronizer
// time, as Canton's offset checkpoints carry it. It reads both under the
// network's write lock, so no commit is half-way between them, and it
// moves with ledger time on an idle network, which is what lets a Scan
// take a snapshot at a boundary no transaction crossed.
func (n *Network) Watermark(ctx context.Context, p ParticipantID) (Offset, daml.Timestamp, error) {
	var (
		end Offset
		at  daml.Timestamp
	)
	err := n.store.Write(ctx, func(w WriteTx) error {
		head, err := w.Head(ctx)
		if err != nil {
			return err
		}
		n.clock.setOffset(head.ClockOffset)
		end = head.Offsets[p]
		// A later commit reads the clock again (at least now) and takes
		// max(clock, last+1): strictly after now-1µs and after the last.
		at = max(n.clock.Now()-1, head.LastRecordTime)
		return nil
	})
	return end, at, err
}

// AdvanceClock moves ledger time forward by d. Automation sees the advance
// at once, even when no transaction follows.
func (n *Network) AdvanceClock(ctx context.Context, d time.Duration) (daml.Timestamp, error) {
	if d < 0 {
		return 0, fault.New(fault.InvalidArgument, "the clock only moves forward: %s is negative", d)
	}
	var offset int64
	err := n.store.Write(ctx, func(w WriteTx) error {
		head, err := w.Head(ctx)
		if err != nil {
			return err
		}
		offset = max(head.ClockOffset, n.clock.Offset()) + d.Microseconds()
		return w.SetClockOffset(ctx, offset)
	})
	if err != nil {
		return 0, err
	}
	n.clock.setOffset(offset)
	return n.clock.Now(), nil
}

// AddParticipant adds a participant named name (its id derives from the
// seed). Adding an existing one returns it unchanged.
func (n *Network) AddParticipant(ctx context.Context, name string) (Participant, error) {
	p := Participant{ID: NewParticipantID(name, n.Fingerprint("participant/"+name)), Name: name}
	err := n.store.Write(ctx, func(w WriteTx) error { return w.PutParticipant(ctx, p) })
	return p, err
}

// AddSynchronizer adds a synchronizer in the current migration.
func (n *Network) AddSynchronizer(ctx context.Context, alias string) (Synchronizer, error) {
	return n.AddSynchronizerID(ctx, NewSynchronizerID(alias, n.Fingerprint("synchronizer/"+alias)))
}

// PartySpec describes a party to allocate.
type PartySpec struct {
	Hint string
	// Namespace is the fingerprint of the party's namespace. Empty means
	// the namespace of the first hosting participant, as Canton does for a
	// party allocated on a participant.
	Namespace string
	// Hosts are the participants hosting it (Participant and Permission).
	Hosts []Hosting
	// Fresh refuses the allocation with a fault.AlreadyExists when it
	// changes nothing: every hosting asked for exists already, at its
	// permission. Canton's ledger API refuses to allocate a party its
	// participant already hosts so.
	Fresh bool
}

// AllocateParty adds a party hosted on the given participants. Allocating an
// existing party adds the missing hostings, unless spec.Fresh.
func (n *Network) AllocateParty(ctx context.Context, spec PartySpec) (daml.Party, error) {
	if !ValidHint(spec.Hint) {
		return "", fault.New(fault.InvalidArgument, "invalid party hint %s: want 1 to %d printable ASCII characters without \"::\" or blanks", fault.Quote(spec.Hint), MaxHintLen)
	}
	if len(spec.Hosts) == 0 {
		return "", fault.New(fault.InvalidArgument, "party %s needs a hosting participant", fault.Clip(spec.Hint))
	}
	ns := spec.Namespace
	if ns == "" {
		fp, ok := spec.Hosts[0].Participant.Namespace()
		if !ok {
			return "", fault.New(fault.InvalidArgument, "invalid participant id %s", fault.Quote(string(spec.Hosts[0].Participant)))
		}
		ns = fp
	}
	party := PartyID(spec.Hint, ns)
	if !ValidPartyID(string(party)) {
		// The hint is not quoted: it may be huge.
		return "", fault.New(fault.InvalidArgument,
			"invalid party hint: the party id would have %d characters, not at most 255 printable ASCII characters without spaces", len(party))
	}
	var syncID SynchronizerID
	for _, h := range spec.Hosts {
		if h.Synchronizer == "" && syncID == "" {
			var err error
			if syncID, err = n.defaultSynchronizer(ctx); err != nil {
				return "", err
			}
		}
	}
	hosts := make([]Hosting, 0, len(spec.Hosts))
	for _, h := range spec.Hosts {
		h.Party = party
		if h.Synchronizer == "" {
			h.Synchronizer = syncID
		}
		if h.Permission == "" {
			h.Permission = PermissionSubmission
		}
		hosts = append(hosts, h)
	}
	// The sequencer orders the hosting change like a transaction: the
	// participants whose hosting changes see it in their streams.
	p := &pending{hosts: hosts, done: make(chan error, 1)}
	if err := n.enqueue(ctx, p); err != nil {
		return "", err
	}
	if spec.Fresh && len(p.topology) == 0 {
		return party, fault.New(fault.AlreadyExists, "Party already exists: party %s is already allocated on this node", party)
	}
	return party, n.loadHostings(ctx)
}

// ChangeHosting hosts an existing party on a participant at a permission,
// on the synchronizer commands use by default: the sequencer orders it
// like a transaction, as one topology transaction with an
// AuthorizationAdded event (the participant did not host the party) or an
// AuthorizationChanged one (it did, at another permission), in that
// participant's stream. A hosting that does not change makes no update:
// the result is then empty. An unknown party or participant is a
// fault.NotFound, an invalid permission a fault.InvalidArgument.
func (n *Network) ChangeHosting(ctx context.Context, party daml.Party, participant ParticipantID, perm Permission) ([]*TopologyTransaction, error) {
	if !ValidPartyID(string(party)) {
		return nil, fault.New(fault.InvalidArgument, "invalid party id %s: want <hint>::<fingerprint>", fault.Quote(string(party)))
	}
	switch perm {
	case PermissionSubmission, PermissionConfirmation, PermissionObservation:
	default:
		return nil, fault.New(fault.InvalidArgument, "invalid permission %s: want Submission, Confirmation or Observation", fault.Quote(string(perm)))
	}
	if err := n.knownParticipant(ctx, participant); err != nil {
		return nil, err
	}
	syncID, err := n.defaultSynchronizer(ctx)
	if err != nil {
		return nil, err
	}
	p := &pending{
		hosts: []Hosting{{Party: party, Participant: participant, Synchronizer: syncID, Permission: perm}},
		known: true, done: make(chan error, 1),
	}
	if err := n.enqueue(ctx, p); err != nil {
		return nil, err
	}
	return p.topology, n.loadHostings(ctx)
}

// RevokeHosting stops a participant hosting a party, on every
// synchronizer: the sequencer orders one topology transaction per
// synchronizer (there is one unless a migration left others) with an
// AuthorizationRevoked event in the participant's stream, and from then
// on the participant gets none of the party's transactions. The party's
// other hostings stay. An unknown party or participant, or a party not
// hosted on the participant, is a fault.NotFound; revoking a party's last
// hosting is a fault.FailedPrecondition. Nothing changes on a refusal.
//
// Users of the participant keep their rights and primary party, as on
// Canton, where both may name any party: their submissions as the party
// are refused (PARTY_NOT_KNOWN_ON_LEDGER) until it is hosted there again.
func (n *Network) RevokeHosting(ctx context.Context, party daml.Party, participant ParticipantID) ([]*TopologyTransaction, error) {
	if !ValidPartyID(string(party)) {
		return nil, fault.New(fault.InvalidArgument, "invalid party id %s: want <hint>::<fingerprint>", fault.Quote(string(party)))
	}
	if err := n.knownParticipant(ctx, participant); err != nil {
		return nil, err
	}
	p := &pending{revoke: &revocation{party: party, participant: participant}, done: make(chan error, 1)}
	if err := n.enqueue(ctx, p); err != nil {
		return nil, err
	}
	return p.topology, n.loadHostings(ctx)
}

// knownParticipant returns a fault.NotFound unless the participant exists.
func (n *Network) knownParticipant(ctx context.Context, id ParticipantID) error {
	ps, err := n.store.Participants(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(ps, func(p Participant) bool { return p.ID == id }) {
		return fault.New(fault.NotFound, "participant %s not found", fault.Clip(string(id)))
	}
	return nil
}

// enqueue hands a submission to the sequencer and waits for its outcome.
func (n *Network) enqueue(ctx context.Context, p *pending) error {
	if err := n.handOver(ctx, p); err != nil {
		return err
	}
	// Once handed over, the outcome is the sequencer's: wait for it even if
	// the caller gives up, so the result is never ambiguous to the engine.
	return <-p.done
}

// handOver hands a submission to the sequencer, which from then on owns
// it: it releases the submission's flight when it decides. A submission
// that could not be handed over is released here.
func (n *Network) handOver(ctx context.Context, p *pending) error {
	select {
	case n.submissions <- p:
		return nil
	case <-n.stop:
		n.releaseFlight(p.flight)
		return fault.New(fault.Unavailable, "the network is shutting down")
	case <-ctx.Done():
		n.releaseFlight(p.flight)
		return ctx.Err()
	}
}

// Command is a submission: Go code that exercises choices and creates
// contracts inside a [Tx], acting as some parties.
type Command struct {
	// Participant submits the command; the ActAs parties must be hosted
	// there.
	Participant ParticipantID
	UserID      string
	ActAs       []daml.Party
	ReadAs      []daml.Party
	// CommandID, with UserID and ActAs, is the change id that
	// deduplication keys on. A command without one is not deduplicated.
	CommandID string
	// SubmissionID tells apart submissions of the same change; it is
	// reported in their completions.
	SubmissionID string
	// Deduplication is the period within which an accepted submission of
	// the same change makes this one a duplicate; unset means the
	// network's maximum deduplication duration.
	Deduplication DeduplicationPeriod
	WorkflowID    string
	// Disclosed are contracts the submitters cannot see but may use, as
	// with explicit disclosure on Canton.
	Disclosed    []*Contract
	Synchronizer SynchronizerID
	TraceContext TraceContext
	// MinLedgerTime is the earliest ledger effective time the command
	// accepts (the ledger API's min_ledger_time_abs); 0 means none.
	// MinLedgerTimeRel is the same relative to the ledger time when the
	// command arrives (min_ledger_time_rel). See [LedgerTimeTolerance]
	// for how a time ahead is met.
	MinLedgerTime    daml.Timestamp
	MinLedgerTimeRel time.Duration
	// Run is the command's body.
	Run func(tx *Tx) error
}

// pending is a submission to the sequencer: a transaction, or (hosts or
// revoke set) a change of party hosting.
type pending struct {
	tx     *Transaction
	inputs []daml.ContractID
	// hosts are the hostings a party allocation or a hosting change asks
	// for, complete.
	hosts []Hosting
	// known makes the change refused unless the party is already hosted
	// somewhere (a hosting change, not an allocation).
	known bool
	// revoke, when set, revokes a party's hostings on a participant.
	revoke *revocation
	// reassign, when set, moves a contract to another synchronizer.
	reassign *reassignment
	// execution, when set, makes the transaction an executed interactive
	// submission, with the checks that adds (interactive.go).
	execution *execution
	// topology are the topology transactions the change committed.
	topology []*TopologyTransaction
	// meta are network settings a change of hosting writes with it (an
	// external party's keys).
	meta map[string]string
	done chan error

	// A command's deduplication: its change id ("" when it has no command
	// id), the key of its flight ("" when none), its submission id and
	// its period (resolved: never unset). reported is the period its
	// accepted completion reports, and completion the completion the
	// sequencer recorded.
	change       ChangeID
	flight       string
	submissionID string
	dedup        DeduplicationPeriod
	reported     DeduplicationPeriod
	completion   *Completion
}

// revocation asks for a party to no longer be hosted on a participant.
type revocation struct {
	party       daml.Party
	participant ParticipantID
}

// hostingChange is a change of the topology cache: a hosting put, or
// (revoked) removed.
type hostingChange struct {
	Hosting
	revoked bool
}

// Submit interprets a command and commits the transaction it produces. It
// returns the committed transaction, with final contract ids. See
// SubmitAndWait for its errors.
func (n *Network) Submit(ctx context.Context, cmd Command) (*Transaction, error) {
	t, _, err := n.SubmitAndWait(ctx, cmd)
	return t, err
}

// SubmitAndWait interprets a command, has the sequencer decide on the
// transaction it produces, and returns the committed transaction (with
// final contract ids) and its accepted completion.
//
// A command refused before it reaches the sequencer — an invalid field, a
// submitter not hosted on the participant, an interpretation or
// authorization error, or a change already in flight
// (SUBMISSION_ALREADY_IN_FLIGHT) — is answered with that error and
// yields no completion. A command the sequencer rejects (DUPLICATE_COMMAND,
// a LOCAL_VERDICT_… contention loss, submitters no longer hosted) yields a
// rejected completion, and the error is a *RejectedError holding it.
func (n *Network) SubmitAndWait(ctx context.Context, cmd Command) (*Transaction, *Completion, error) {
	p, err := n.prepare(ctx, cmd)
	if err != nil {
		return nil, nil, err
	}
	if err := n.enqueue(ctx, p); err != nil {
		return nil, nil, err
	}
	return p.tx, p.completion, nil
}

// LedgerTimeTolerance is how far a transaction's ledger effective time
// may run ahead of its record time: Canton's default
// ledger-time-record-time-tolerance of one minute.
const LedgerTimeTolerance = time.Minute

// ledgerTime is the ledger effective time of a command interpreted now:
// the clock's time, or the command's minimum ledger time when that is
// later. A minimum further ahead than [LedgerTimeTolerance] is waited for
// until it is within it, as a Canton participant delays such a
// submission; the wait ends with the context.
func (n *Network) ledgerTime(ctx context.Context, earliest daml.Timestamp) (daml.Timestamp, error) {
	for {
		// The advance channel is taken before the time is read: an
		// advance between the two would otherwise go unseen, and the
		// wait last until the timer.
		advanced := n.clock.Advanced()
		now := n.clock.Now()
		if earliest <= now {
			return now, nil
		}
		ahead := time.Duration(earliest-now) * time.Microsecond
		if ahead <= LedgerTimeTolerance {
			return earliest, nil
		}
		select {
		case <-time.After(ahead - LedgerTimeTolerance):
		case <-advanced:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// SubmitAsync interprets a command as SubmitAndWait does and returns once
// the sequencer has taken it, without waiting for its outcome: the
// outcome is the completion it yields in the participant's completion
// stream. Its errors are those a command refused before the sequencer
// gets, which yield no completion.
func (n *Network) SubmitAsync(ctx context.Context, cmd Command) error {
	p, err := n.prepare(ctx, cmd)
	if err != nil {
		return err
	}
	return n.handOver(ctx, p)
}

// prepare checks and interprets a command into a submission for the
// sequencer, claiming its flight; the flight is released when prepare
// fails and otherwise when the sequencer decides.
func (n *Network) prepare(ctx context.Context, cmd Command) (_ *pending, err error) {
	if len(cmd.ActAs) == 0 {
		return nil, fault.WithCode(fault.InvalidArgument, "MISSING_FIELD",
			"The submitted command is missing a mandatory field: act_as")
	}
	if err := cmd.Deduplication.check(); err != nil {
		return nil, err
	}
	change, flight := NewChangeID(cmd.UserID, cmd.CommandID, cmd.ActAs), ""
	if change != "" && cmd.Participant != "" {
		flight = flightKey(cmd.Participant, change)
		if err := n.claimFlight(flight, changeText(cmd.UserID, cmd.CommandID, union(cmd.ActAs)), cmd.SubmissionID); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				n.releaseFlight(flight)
			}
		}()
	}
	if err := n.checkActAs(ctx, cmd.ActAs, cmd.Participant); err != nil {
		return nil, err
	}
	tx, syncID, err := n.interpretNow(ctx, &cmd)
	if err != nil {
		return nil, err
	}
	n.flightOn(flight, syncID)
	p := &pending{
		tx: &Transaction{
			WorkflowID:   cmd.WorkflowID,
			Submission:   Submission{Participant: cmd.Participant, UserID: cmd.UserID, ActAs: union(cmd.ActAs), CommandID: cmd.CommandID},
			Synchronizer: syncID, EffectiveAt: tx.now,
			Events: tx.events, Roots: tx.rootIDs(), TraceContext: cmd.TraceContext,
			NodeSeeds: tx.NodeSeeds(),
		},
		inputs: slices.Sorted(maps.Keys(tx.inputs)),
		done:   make(chan error, 1),
		change: change, flight: flight, submissionID: cmd.SubmissionID, dedup: n.resolved(cmd.Deduplication),
	}
	return p, nil
}

// checkActAs refuses a command unless every party it acts as is hosted
// on its participant with submission permission. A party hosted there
// only to confirm (an external party, whose keys its owner holds) cannot
// submit: Canton finds no synchronizer on which it can.
func (n *Network) checkActAs(ctx context.Context, actAs []daml.Party, on ParticipantID) error {
	for _, p := range actAs {
		if !n.hostedOn(p, on) {
			// Another process sharing the database may have allocated
			// the party since the topology was loaded.
			if err := n.loadHostings(ctx); err != nil {
				return err
			}
		}
		if n.hostedOn(p, on) {
			continue
		}
		if n.hostedAt(p, on) != "" {
			return fault.WithCode(fault.NotFound, CodeNoSynchronizerForSubmission,
				"This participant cannot submit as the given submitter on any connected synchronizer: it hosts %s with %s permission, not Submission",
				p, n.hostedAt(p, on))
		}
		return fault.WithCode(fault.NotFound, "PARTY_NOT_KNOWN_ON_LEDGER",
			"Party not known on ledger: %s is not hosted on %s", p, on)
	}
	return nil
}

// CodeNoSynchronizerForSubmission is Canton's error for a command acting
// as a party that its participant hosts without submission permission,
// such as an external party.
const CodeNoSynchronizerForSubmission = "NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT"

// earliestLedgerTime is the earliest ledger time a command accepts: its
// minimum, absolute or relative to the clock's time now, whichever is
// later (0: none).
func (n *Network) earliestLedgerTime(abs daml.Timestamp, rel time.Duration) daml.Timestamp {
	if rel > 0 {
		abs = max(abs, n.clock.Now()+daml.Timestamp(rel.Microseconds()))
	}
	return abs
}

// interpretNow interprets a command at the ledger time it gets now (see
// ledgerTime), deriving its seeds.
func (n *Network) interpretNow(ctx context.Context, cmd *Command) (*Tx, SynchronizerID, error) {
	now, err := n.ledgerTime(ctx, n.earliestLedgerTime(cmd.MinLedgerTime, cmd.MinLedgerTimeRel))
	if err != nil {
		return nil, "", err
	}
	return n.interpret(ctx, cmd, now, nil)
}

// replay fixes what an interpretation would otherwise derive: an
// executed interactive submission is re-interpreted with the root seeds
// and the submission time it was prepared with, and with its input
// contracts given.
type replay struct {
	rootSeeds []Seed
	submitted daml.Timestamp
}

// interpret runs a command's body in a new Tx at ledger time now and
// returns the Tx, its witnesses computed, and the synchronizer it runs on.
// Nothing is committed.
func (n *Network) interpret(ctx context.Context, cmd *Command, now daml.Timestamp, r *replay) (*Tx, SynchronizerID, error) {
	tx := &Tx{
		ctx: ctx, net: n, now: now, submitted: now,
		actAs: union(cmd.ActAs), readAs: union(cmd.ReadAs),
		disclosed: map[daml.ContractID]*Contract{},
		auth:      [][]daml.Party{union(cmd.ActAs)},
		created:   map[daml.ContractID]*Contract{},
		consumed:  map[daml.ContractID]bool{},
		inputs:    map[daml.ContractID]bool{},
		cache:     map[daml.ContractID]Template{},
	}
	if r != nil {
		tx.rootSeeds, tx.submitted = r.rootSeeds, r.submitted
		if tx.rootSeeds == nil {
			tx.rootSeeds = []Seed{}
		}
	} else {
		tx.seed = transactionSeed(n.seeds.next(cmd), cmd.Participant, now)
	}
	for _, c := range cmd.Disclosed {
		tx.disclosed[c.ID] = c
	}
	if err := cmd.Run(tx); err != nil {
		return nil, "", err
	}
	if len(tx.events) == 0 {
		return nil, "", fault.New(fault.InvalidArgument, "the command produced an empty transaction")
	}
	tx.witnesses()
	syncID := cmd.Synchronizer
	if syncID == "" {
		var err error
		if syncID, err = n.defaultSynchronizer(ctx); err != nil {
			return nil, "", err
		}
	}
	for _, cid := range slices.Sorted(maps.Keys(tx.located)) {
		if on := tx.located[cid]; on != "" && on != syncID {
			return nil, "", notOnSynchronizer(cid, on, syncID)
		}
	}
	return tx, syncID, nil
}

// hostedAt returns the permission at which participant on hosts party p
// on some synchronizer (the highest when several), or "".
func (n *Network) hostedAt(p daml.Party, on ParticipantID) Permission {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var best Permission
	for _, h := range n.hostings[p] {
		if h.Participant == on && rank(h.Permission) > rank(best) {
			best = h.Permission
		}
	}
	return best
}

// rank orders permissions: observation < confirmation < submission.
func rank(p Permission) int {
	switch p {
	case PermissionSubmission:
		return 3
	case PermissionConfirmation:
		return 2
	case PermissionObservation:
		return 1
	}
	return 0
}

func (n *Network) hostedOn(p daml.Party, on ParticipantID) bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	for _, h := range n.hostings[p] {
		if h.Participant == on && h.Permission == PermissionSubmission {
			return true
		}
	}
	return false
}

func (n *Network) defaultSynchronizer(ctx context.Context) (SynchronizerID, error) {
	n.mu.RLock()
	cached := n.sync
	n.mu.RUnlock()
	if cached != "" {
		return cached, nil
	}
	syncs, err := n.store.Synchronizers(ctx)
	if err != nil {
		return "", err
	}
	head, err := n.store.Head(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range syncs {
		if s.MigrationID == head.MigrationID {
			n.mu.Lock()
			n.sync = s.ID
			n.mu.Unlock()
			return s.ID, nil
		}
	}
	return "", fault.New(fault.FailedPrecondition, "no synchronizer is connected")
}

// sequence is the sequencer loop: it takes submissions, batches what is
// waiting, and commits each batch in one database transaction.
func (n *Network) sequence() {
	defer close(n.stopped)
	for {
		var batch []*pending
		select {
		case p := <-n.submissions:
			batch = append(batch, p)
		case <-n.stop:
			return
		}
	drain:
		for len(batch) < n.maxBatch {
			select {
			case p := <-n.submissions:
				batch = append(batch, p)
			default:
				break drain
			}
		}
		n.commit(batch)
	}
}

// ContractEpoch counts the commits of this process that changed a stored
// contract other than by archiving it: a reassignment rewrites the
// contract's synchronizer and reassignment counter. A cache of stored
// contracts that reads the epoch before it reads a contract knows its copy
// is still the stored one (as far as this process's writes go) while the
// epoch is unchanged.
func (n *Network) ContractEpoch() uint64 { return n.contractEpoch.Load() }

// commit orders and stores a batch. A transaction whose inputs are no longer
// active is rejected alone; a database failure fails the whole batch.
func (n *Network) commit(batch []*pending) {
	ctx := context.Background()
	start := time.Now()
	errs := make([]error, len(batch))
	topology := slices.ContainsFunc(batch, func(p *pending) bool { return p.hosts != nil || p.revoke != nil })
	// applied are the hosting changes this batch made so far: the
	// topology cache holds them before they are committed, so that later
	// submissions of the batch see them.
	var applied []hostingChange
	var sequence int64
	reassigning := slices.ContainsFunc(batch, func(p *pending) bool { return p.reassign != nil })
	err := n.store.Write(ctx, func(w WriteTx) error {
		clear(errs)
		applied = nil
		for _, p := range batch {
			p.topology, p.completion = nil, nil
		}
		head, err := w.Head(ctx)
		if err != nil {
			return err
		}
		// recheck: the topology may have changed since the batch's
		// commands were interpreted.
		recheck := topology || head.Sequence != n.seenSequence
		if recheck {
			// Under the write lock the committed topology is current;
			// another process may have changed it since the last batch.
			if err := n.loadHostings(ctx); err != nil {
				return err
			}
		}
		defer func() { sequence = head.Sequence }()
		n.clock.setOffset(head.ClockOffset)
		if head.Offsets == nil {
			head.Offsets = map[ParticipantID]Offset{}
		}
		consumed := map[daml.ContractID]bool{}
		moved := map[daml.ContractID]*Contract{}
		for i, p := range batch {
			if p.reassign != nil {
				var err error
				if errs[i], err = n.commitReassignment(ctx, w, &head, p, consumed, moved); err != nil {
					return err
				}
				continue
			}
			if p.hosts != nil || p.revoke != nil {
				var changes []hostingChange
				var err error
				switch {
				case p.revoke != nil:
					changes, errs[i], err = n.commitRevocation(ctx, w, &head, p)
				case p.known && !n.knowsAll([]daml.Party{p.hosts[0].Party}):
					errs[i] = partyNotKnown(p.hosts[0].Party)
				default:
					changes, err = n.commitTopology(ctx, w, &head, p)
					for _, k := range slices.Sorted(maps.Keys(p.meta)) {
						if err == nil {
							err = w.SetMeta(ctx, k, p.meta[k])
						}
					}
				}
				if err != nil {
					return err
				}
				applied = append(applied, changes...)
				continue
			}
			refused, err := n.verdict(ctx, w, &head, p, recheck, consumed, moved)
			if err != nil {
				return err
			}
			if refused != nil {
				// A command that reached the sequencer yields a
				// rejected completion in its participant's stream.
				if errs[i], err = n.rejectAt(ctx, w, &head, p, refused); err != nil {
					return err
				}
				continue
			}
			head.Sequence++
			t := p.tx
			t.MigrationID = head.MigrationID
			t.UpdateID = updateID(n.seed, head.MigrationID, head.Sequence)
			t.RecordTime = max(n.clock.Now(), head.LastRecordTime+1)
			head.LastRecordTime = t.RecordTime
			finalizeIDs(t)
			offsets := map[ParticipantID]Offset{}
			informees := t.Informees()
			if !n.knowsAll(informees) {
				if err := n.loadHostings(ctx); err != nil {
					return err
				}
				n.applyCached(applied)
			}
			for _, pid := range n.participantsOf(informees) {
				head.Offsets[pid]++
				offsets[pid] = head.Offsets[pid]
			}
			if err := w.AppendTransaction(ctx, t, offsets); err != nil {
				return err
			}
			if err := n.accept(ctx, w, &head, p, offsets); err != nil {
				return err
			}
			for _, cid := range t.Consumed() {
				consumed[cid] = true
			}
		}
		return nil
	})
	if reassigning {
		// Before anyone learns of the reassignment, committed or not: a
		// cache that noted the epoch before reading a contract the batch
		// moved must miss.
		n.contractEpoch.Add(1)
	}
	for _, p := range batch {
		// Decided: committed, rejected, or (err) not recorded at all.
		n.releaseFlight(p.flight)
	}
	for i, p := range batch {
		switch {
		case err != nil:
			p.done <- err
		default:
			p.done <- errs[i]
		}
	}
	if err != nil && len(applied) > 0 {
		// The cache holds hostings that were never committed.
		if lerr := n.loadHostings(ctx); lerr != nil {
			n.log.Error("reload topology", "err", lerr)
		}
	}
	if err == nil {
		n.seenSequence = sequence
		n.committed.Notify()
	} else {
		n.log.Error("commit failed", "transactions", len(batch), "err", err)
	}
	if n.observer != nil {
		rejected := 0
		for _, e := range errs {
			if e != nil {
				rejected++
			}
		}
		committed := len(batch) - rejected
		if err != nil {
			committed, rejected = 0, len(batch)
		}
		n.observer.BatchCommitted(committed, rejected, time.Since(start), err)
	}
}

// commitTopology orders and stores the changes of a party allocation or a
// hosting change: one topology transaction per synchronizer, with an event
// for every hosting that is new or changes permission, in the streams of
// the participants concerned. Hostings that do not change make no update.
// It returns the hostings it wrote, which it has also put in the topology
// cache, and records the topology transactions in p.
func (n *Network) commitTopology(ctx context.Context, w WriteTx, head *Head, p *pending) ([]hostingChange, error) {
	var syncs []SynchronizerID
	bySync := map[SynchronizerID][]Hosting{}
	for _, h := range p.hosts {
		if _, ok := bySync[h.Synchronizer]; !ok {
			syncs = append(syncs, h.Synchronizer)
		}
		bySync[h.Synchronizer] = append(bySync[h.Synchronizer], h)
	}
	var written []hostingChange
	for _, sid := range syncs {
		var events []TopologyEvent
		var changed []Hosting
		for _, h := range bySync[sid] {
			kind := AuthorizationAdded
			if old, ok := n.cachedHosting(h); ok {
				if old == h.Permission {
					continue
				}
				kind = AuthorizationChanged
			}
			events = append(events, TopologyEvent{Kind: kind, Party: h.Party, Participant: h.Participant, Permission: h.Permission})
			changed = append(changed, h)
			n.cacheHostings([]Hosting{h})
		}
		if len(events) == 0 {
			continue
		}
		for _, h := range changed {
			written = append(written, hostingChange{Hosting: h})
			if err := w.PutHosting(ctx, h); err != nil {
				return written, err
			}
		}
		t, err := n.appendTopology(ctx, w, head, sid, events)
		if err != nil {
			return written, err
		}
		p.topology = append(p.topology, t)
	}
	return written, nil
}

// appendTopology orders and stores one topology transaction: the next
// update id, a record time of max(clock, last + 1µs), and the next offset
// of every participant its events concern.
func (n *Network) appendTopology(ctx context.Context, w WriteTx, head *Head, sid SynchronizerID, events []TopologyEvent) (*TopologyTransaction, error) {
	head.Sequence++
	t := &TopologyTransaction{
		UpdateID:     updateID(n.seed, head.MigrationID, head.Sequence),
		Synchronizer: sid,
		MigrationID:  head.MigrationID,
		RecordTime:   max(n.clock.Now(), head.LastRecordTime+1),
		Events:       events,
	}
	head.LastRecordTime = t.RecordTime
	offsets := map[ParticipantID]Offset{}
	for _, pid := range t.Participants() {
		head.Offsets[pid]++
		offsets[pid] = head.Offsets[pid]
	}
	return t, w.AppendTopology(ctx, t, offsets)
}

// commitRevocation orders and stores a revocation: the party's hostings on
// the participant go, one topology transaction per synchronizer with an
// AuthorizationRevoked event in the participant's stream. A party that is
// unknown, not hosted on the participant, or hosted nowhere else is
// refused (refused, not err: the batch goes on) and nothing changes. It
// returns the hostings it removed, which it has also removed from the
// topology cache, and records the topology transactions in p.
func (n *Network) commitRevocation(ctx context.Context, w WriteTx, head *Head, p *pending) (removed []hostingChange, refused, err error) {
	party, pid := p.revoke.party, p.revoke.participant
	all := n.HostingsOf(party)
	if len(all) == 0 {
		return nil, partyNotKnown(party), nil
	}
	var gone []Hosting
	others := 0
	for _, h := range all {
		if h.Participant == pid {
			gone = append(gone, h)
		} else {
			others++
		}
	}
	if len(gone) == 0 {
		return nil, fault.New(fault.NotFound, "party %s is not hosted on participant %s", party, fault.Clip(string(pid))), nil
	}
	if others == 0 {
		return nil, fault.New(fault.FailedPrecondition,
			"cannot revoke the last hosting of party %s (on participant %s): a party needs a hosting participant", party, pid), nil
	}
	slices.SortFunc(gone, func(a, b Hosting) int { return strings.Compare(string(a.Synchronizer), string(b.Synchronizer)) })
	for _, h := range gone {
		removed = append(removed, hostingChange{Hosting: h, revoked: true})
		if err := w.DeleteHosting(ctx, party, pid, h.Synchronizer); err != nil {
			return removed, nil, err
		}
		n.applyCached(removed[len(removed)-1:])
		t, err := n.appendTopology(ctx, w, head, h.Synchronizer,
			[]TopologyEvent{{Kind: AuthorizationRevoked, Party: party, Participant: pid}})
		if err != nil {
			return removed, nil, err
		}
		p.topology = append(p.topology, t)
	}
	return removed, nil, nil
}

// partyNotKnown is the error for a hosting change of a party that no
// participant hosts.
func partyNotKnown(p daml.Party) error {
	return fault.WithCode(fault.NotFound, "PARTY_NOT_KNOWN_ON_LEDGER", "Party not known on ledger: %s", fault.Clip(string(p)))
}

// checkSubmitters refuses a transaction whose submitters are no longer
// hosted with submission permission on its participant.
func (n *Network) checkSubmitters(s Submission) error {
	if s.Participant == "" {
		return nil
	}
	for _, p := range s.ActAs {
		if !n.hostedOn(p, s.Participant) {
			return fault.WithCode(fault.NotFound, "PARTY_NOT_KNOWN_ON_LEDGER",
				"Party not known on ledger: %s is not hosted on %s", p, s.Participant)
		}
	}
	return nil
}

// cachedHosting returns the permission at which the topology cache says
// h's participant hosts h's party on h's synchronizer.
func (n *Network) cachedHosting(h Hosting) (Permission, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	for _, c := range n.hostings[h.Party] {
		if c.Participant == h.Participant && c.Synchronizer == h.Synchronizer {
			return c.Permission, true
		}
	}
	return "", false
}

// applyCached applies hosting changes to the topology cache.
func (n *Network) applyCached(changes []hostingChange) {
	for _, c := range changes {
		if !c.revoked {
			n.cacheHostings([]Hosting{c.Hosting})
			continue
		}
		n.mu.Lock()
		n.hostings[c.Party] = slices.DeleteFunc(slices.Clone(n.hostings[c.Party]), func(h Hosting) bool {
			return h.Participant == c.Participant && h.Synchronizer == c.Synchronizer
		})
		if len(n.hostings[c.Party]) == 0 {
			delete(n.hostings, c.Party)
		}
		n.mu.Unlock()
	}
}

// cacheHostings puts hostings in the topology cache, replacing the
// permission of those it holds.
func (n *Network) cacheHostings(hs []Hosting) {
	if len(hs) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.hostings == nil {
		n.hostings = map[daml.Party][]Hosting{}
	}
next:
	for _, h := range hs {
		cur := n.hostings[h.Party]
		for i := range cur {
			if cur[i].Participant == h.Participant && cur[i].Synchronizer == h.Synchronizer {
				cur[i].Permission = h.Permission
				continue next
			}
		}
		n.hostings[h.Party] = append(cur, h)
	}
}

// verdict decides whether the sequencer records a command's transaction,
// in Canton's order: deduplication first (done at submission on Canton),
// then the submitters' hosting, which may have changed since the command
// was interpreted (recheck), then the inputs (conflict detection), then
// their synchronizer. refused is the reason to reject it; err a store
// failure, which fails the batch.
func (n *Network) verdict(ctx context.Context, w WriteTx, head *Head, p *pending, recheck bool,
	consumed map[daml.ContractID]bool, moved map[daml.ContractID]*Contract) (refused, err error) {
	rt := max(n.clock.Now(), head.LastRecordTime+1)
	dup, err := n.deduplicate(ctx, w, p, rt)
	if err != nil || dup != nil {
		return dup, err
	}
	if p.execution != nil {
		if refused := checkExecution(p.execution, rt); refused != nil {
			return refused, nil
		}
		// The parties of an interactive submission confirm it on the
		// participants that host them; they need not submit there.
		if !n.knowsAll(p.tx.Submission.ActAs) {
			return partyNotKnown(p.tx.Submission.ActAs[0]), nil
		}
	} else if recheck {
		if refused := n.checkSubmitters(p.tx.Submission); refused != nil {
			return refused, nil
		}
	}
	if refused, err := n.check(ctx, w, p, consumed); refused != nil || err != nil {
		return refused, err
	}
	return checkMoved(p, moved), nil
}

// check refuses a transaction whose inputs are no longer active: those an
// earlier transaction of the batch consumed are locked (a command
// sequenced concurrently won them: LOCAL_VERDICT_LOCKED_CONTRACTS), those
// archived by a committed one are inactive
// (LOCAL_VERDICT_INACTIVE_CONTRACTS).
func (n *Network) check(ctx context.Context, w WriteTx, p *pending, consumed map[daml.ContractID]bool) (refused, err error) {
	var locked []daml.ContractID
	for _, cid := range p.inputs {
		if consumed[cid] {
			locked = append(locked, cid)
		}
	}
	if len(locked) > 0 {
		return contractsError(CodeLockedContracts, "locked", locked), nil
	}
	inactive, err := w.Inactive(ctx, p.inputs)
	if err != nil {
		return nil, err
	}
	if len(inactive) > 0 {
		return contractsError(CodeInactiveContracts, "inactive", inactive), nil
	}
	return nil, nil
}

// knowsAll reports whether the topology cache knows every party.
func (n *Network) knowsAll(parties []daml.Party) bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	for _, p := range parties {
		if len(n.hostings[p]) == 0 {
			return false
		}
	}
	return true
}

func (n *Network) participantsOf(parties []daml.Party) []ParticipantID {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var out []ParticipantID
	for _, p := range parties {
		for _, h := range n.hostings[p] {
			out = append(out, h.Participant)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// finalizeIDs suffixes the ids of the contracts a transaction creates,
// which interpretation fixed unsuffixed, with Canton's suffix derived from
// the update id, everywhere they occur.
func finalizeIDs(t *Transaction) {
	ids := map[daml.ContractID]daml.ContractID{}
	for i := range t.Events {
		if c := t.Events[i].Created; c != nil && isUnsuffixed(c.ID) {
			ids[c.ID] = suffixed(c.ID, t.UpdateID)
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		if c := e.Created; c != nil {
			c.ID = rewriteID(c.ID, ids)
			c.CreatedBy = t.UpdateID
			c.Synchronizer = t.Synchronizer
			c.MigrationID = t.MigrationID
			rewriteValue(c.Argument, ids)
		}
		if x := e.Exercised; x != nil {
			x.ContractID = rewriteID(x.ContractID, ids)
			x.ChoiceArgument = rewriteValue(x.ChoiceArgument, ids)
			x.ExerciseResult = rewriteValue(x.ExerciseResult, ids)
		}
	}
}

func rewriteID(id daml.ContractID, ids map[daml.ContractID]daml.ContractID) daml.ContractID {
	if final, ok := ids[id]; ok {
		return final
	}
	return id
}

// rewriteValue replaces contract ids inside a value, in place where the
// value is a container, and returns the result.
func rewriteValue(v daml.Value, ids map[daml.ContractID]daml.ContractID) daml.Value {
	switch v := v.(type) {
	case daml.ContractID:
		return rewriteID(v, ids)
	case *daml.Record:
		if v == nil {
			return v
		}
		for i := range v.Fields {
			v.Fields[i].Value = rewriteValue(v.Fields[i].Value, ids)
		}
	case *daml.Variant:
		v.Value = rewriteValue(v.Value, ids)
	case *daml.Optional:
		if v != nil && v.Value != nil {
			v.Value = rewriteValue(v.Value, ids)
		}
	case daml.List:
		for i := range v {
			v[i] = rewriteValue(v[i], ids)
		}
	case daml.TextMap:
		for i := range v {
			v[i].Value = rewriteValue(v[i].Value, ids)
		}
	case daml.GenMap:
		for i := range v {
			v[i].Key = rewriteValue(v[i].Key, ids)
			v[i].Value = rewriteValue(v[i].Value, ids)
		}
	}
	return v
}
