package splice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// AutomationConfig says which SV node runs the DSO's automation.
type AutomationConfig struct {
	// DSO is the DSO party.
	DSO daml.Party
	// SV is the SV party that submits, on Participant, which hosts both it
	// and the DSO party.
	SV          daml.Party
	Participant ledger.ParticipantID
	// UserID is the ledger user recorded as submitter.
	UserID string
	// Settle is how long the service waits after a commit before looking
	// again, so that a burst of transactions costs one pass. Default 20 ms.
	Settle time.Duration
	// Logger receives failures of individual actions. Default: discard.
	Logger *slog.Logger
}

// Automation is the DSO's automation, what Splice's SV apps do by
// themselves as time passes:
//
//   - advance the mining rounds (DsoRules_AdvanceOpenMiningRounds), start
//     issuing summarized rounds, close issuing rounds whose time is up
//     (DsoRules_MiningRound_Close) and archive closed ones;
//   - collect the first payment of a requested name (which creates the
//     AnsEntry) and renewal payments (which renew it);
//   - expire name entries and subscriptions whose time has passed
//     (DsoRules_ExpireAnsEntry, DsoRules_ExpireSubscription);
//   - expire transfer pre-approvals whose expiresAt has passed
//     (TransferPreapproval_Expire, one a pre-approval, as Splice's
//     ExpireTransferPreapprovalsTrigger) and transfer instructions whose
//     transfer's executeBefore has passed
//     (AmuletRules_Amulet_ExpireTransferInstructions, in batches of 100,
//     as Splice's ExpiredAmuletTransferInstructionTrigger), unlocking the
//     locked amulet back to the sender unless its owner already did;
//   - expire amulet allocations whose settlement deadline has passed
//     (ExternalPartyAmuletRules_ExpireAmuletAllocations, in batches of
//     100, as Splice's ExpiredAmuletAllocationTrigger), likewise;
//   - rotate the external-party config states: once the older one's
//     targetArchiveAfter has passed, replace it by one that lives two
//     ticks (DsoRules_UpdateExternalPartyConfigStates), as Splice's
//     UpdateExternalPartyConfigStateTrigger does;
//   - create the TransferCommandCounter of a sender whose first
//     TransferCommand appears (DsoRules_CreateTransferCommandCounter, the
//     action Splice's TransferCommandCounterTrigger has the SVs confirm);
//   - create the DSO's ExternalPartyAmuletRules and bootstrap the config
//     states when the ledger has none (a network seeded, or forked from
//     one, before sandnet had them), as Splice's SVs do through the
//     confirmed actions SRARC_CreateExternalPartyAmuletRules and
//     SRARC_CreateBootstrapExternalPartyConfigStateInstruction.
//
// Each pass submits everything that is due in one transaction, so after
// the clock jumps a month ahead the DSO catches up in a few transactions:
// the open rounds move to one current set and round numbers continue.
//
// Splice runs the actions that need a quorum (starting to issue a round,
// archiving a closed one, collecting a first name payment) through
// confirmations by 2/3 of the SVs; sandnet's SVs all live in one process,
// so it exercises the confirmed action directly as the DSO party.
type Automation struct {
	net *ledger.Network
	cfg AutomationConfig

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	seq    int64
}

// NewAutomation returns the DSO automation; Run or Start runs it,
// RunOnce runs one pass.
func NewAutomation(net *ledger.Network, cfg AutomationConfig) *Automation {
	if cfg.Settle <= 0 {
		cfg.Settle = 20 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Automation{net: net, cfg: cfg}
}

// PassResult reports what a pass did.
type PassResult struct {
	// Transactions and Actions count what the pass committed.
	Transactions, Actions int
	// Next is the ledger time at which something falls due, or 0 when
	// nothing is scheduled.
	Next daml.Timestamp
}

// NewDSOAutomation returns the DSO automation of a seeded network, run by
// its founding SV's node.
func NewDSOAutomation(net *ledger.Network, s *Seeded, log *slog.Logger) *Automation {
	cfg := s.AutomationConfig()
	cfg.Logger = log
	return NewAutomation(net, cfg)
}

// Run runs the automation until ctx is done, then returns nil. A pass runs
// at once, after every clock advance, after commits (settled), and when the
// next round boundary or expiry falls due, so nothing polls. A failing pass
// is logged and retried with backoff. Run suits a leader-elected service:
// cancel ctx when leadership is lost.
func (a *Automation) Run(ctx context.Context) error {
	clock := a.net.Clock()
	backoff := 50 * time.Millisecond
	for {
		advanced, committed := clock.Advanced(), a.net.Committed()
		res, err := a.RunOnce(ctx)
		wait := time.Hour
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			a.cfg.Logger.Warn("DSO automation pass failed", "err", err)
			wait = backoff
			backoff = min(2*backoff, 5*time.Second)
		default:
			backoff = 50 * time.Millisecond
			if res.Next != 0 {
				wait = max(0, time.Duration(res.Next-clock.Now())*time.Microsecond)
			}
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-advanced:
		case <-timer.C:
		case <-committed:
			// Let a burst of commits settle into one pass.
			select {
			case <-ctx.Done():
			case <-time.After(a.cfg.Settle):
			}
		}
		timer.Stop()
	}
}

// Start runs the automation in the background until Stop or until ctx is
// done (see Run).
func (a *Automation) Start(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		return fault.New(fault.FailedPrecondition, "DSO automation already started")
	}
	ctx, a.cancel = context.WithCancel(ctx)
	done := make(chan struct{})
	a.done = done
	go func() {
		defer close(done)
		_ = a.Run(ctx)
	}()
	return nil
}

// Stop stops the automation started by Start and waits for the running
// pass to end.
func (a *Automation) Stop() {
	a.mu.Lock()
	cancel, done := a.cancel, a.done
	a.cancel, a.done = nil, nil
	a.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// action is one thing the DSO does in a pass.
type action struct {
	name string
	run  func(tx *ledger.Tx) error
}

// dsoState is the snapshot a pass plans from.
type dsoState struct {
	dsoRules    Contract[DsoRules]
	amuletRules Contract[AmuletRules]
	ansRules    []Contract[AnsRules]
	open        []Contract[OpenMiningRound]
	summarizing []Contract[SummarizingMiningRound]
	issuing     []Contract[IssuingMiningRound]
	closed      []Contract[ClosedMiningRound]
	priceVotes  []Contract[AmuletPriceVote]
	initial     []Contract[SubscriptionInitialPayment]
	renewals    []Contract[SubscriptionPayment]
	contexts    []Contract[AnsEntryContext]
	entries     []Contract[AnsEntry]
	idle        []Contract[SubscriptionIdleState]

	externalRules []Contract[ExternalPartyAmuletRules]
	configStates  []Contract[ExternalPartyConfigState]
	instructions  []Contract[BootstrapExternalPartyConfigStateInstruction]

	preapprovals []Contract[TransferPreapproval]
	transfers    []Contract[AmuletTransferInstruction]

	transferCommands []Contract[TransferCommand]
	counters         []Contract[TransferCommandCounter]
	// locked says, for each expired transfer instruction's LockedAmulet,
	// whether it is still active (its owner may have unlocked it once the
	// lock expired).
	locked map[daml.ContractID]bool
	// allocations are the DSO's AmuletAllocations; locked also says, for
	// each expired one's LockedAmulet, whether it is still active.
	allocations []Contract[AmuletAllocation]
}

func (a *Automation) load(ctx context.Context, now daml.Timestamp) (*dsoState, error) {
	s := a.net.Store()
	dso := a.cfg.DSO
	st := &dsoState{}
	var err error
	if st.dsoRules, err = only[DsoRules](ctx, s, dso); err != nil {
		return nil, err
	}
	if st.amuletRules, err = only[AmuletRules](ctx, s, dso); err != nil {
		return nil, err
	}
	loads := []func() error{
		func() (err error) { st.ansRules, err = Active[AnsRules](ctx, s, dso); return },
		func() (err error) { st.open, err = Active[OpenMiningRound](ctx, s, dso); return },
		func() (err error) { st.summarizing, err = Active[SummarizingMiningRound](ctx, s, dso); return },
		func() (err error) { st.issuing, err = Active[IssuingMiningRound](ctx, s, dso); return },
		func() (err error) { st.closed, err = Active[ClosedMiningRound](ctx, s, dso); return },
		func() (err error) { st.priceVotes, err = Active[AmuletPriceVote](ctx, s, dso); return },
		func() (err error) { st.initial, err = Active[SubscriptionInitialPayment](ctx, s, dso); return },
		func() (err error) { st.renewals, err = Active[SubscriptionPayment](ctx, s, dso); return },
		func() (err error) { st.contexts, err = Active[AnsEntryContext](ctx, s, dso); return },
		func() (err error) { st.entries, err = Active[AnsEntry](ctx, s, dso); return },
		func() (err error) { st.idle, err = Active[SubscriptionIdleState](ctx, s, dso); return },
		func() (err error) { st.externalRules, err = Active[ExternalPartyAmuletRules](ctx, s, dso); return },
		func() (err error) { st.configStates, err = Active[ExternalPartyConfigState](ctx, s, dso); return },
		func() (err error) {
			st.instructions, err = Active[BootstrapExternalPartyConfigStateInstruction](ctx, s, dso)
			return
		},
		func() (err error) { st.preapprovals, err = Active[TransferPreapproval](ctx, s, dso); return },
		func() (err error) { st.transfers, err = Active[AmuletTransferInstruction](ctx, s, dso); return },
		func() (err error) { st.transferCommands, err = Active[TransferCommand](ctx, s, dso); return },
		func() (err error) { st.counters, err = Active[TransferCommandCounter](ctx, s, dso); return },
		func() (err error) { st.allocations, err = Active[AmuletAllocation](ctx, s, dso); return },
	}
	for _, load := range loads {
		if err := load(); err != nil {
			return nil, err
		}
	}
	// Splice's trigger looks each expired instruction's lock up, and asks
	// to unlock it only when it is still there.
	st.locked = map[daml.ContractID]bool{}
	lookUp := func(lock daml.ContractID) error {
		_, active, err := s.Contract(ctx, lock)
		if err != nil && !fault.Is(err, fault.NotFound) {
			return err
		}
		st.locked[lock] = active
		return nil
	}
	for _, i := range st.transfers {
		if instructionExpired(i.Payload, now) {
			if err := lookUp(i.Payload.LockedAmulet); err != nil {
				return nil, err
			}
		}
	}
	for _, al := range st.allocations {
		if allocationExpired(al.Payload, now) {
			if err := lookUp(al.Payload.LockedAmulet); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(st.open, func(x, y Contract[OpenMiningRound]) int {
		return cmpInt(x.Payload.Round.Number, y.Payload.Round.Number)
	})
	slices.SortFunc(st.configStates, byTargetArchiveAfter)
	return st, nil
}

// RunOnce runs one pass: it reads the DSO's state, and submits what is due
// at the current ledger time in one transaction. If that transaction fails
// on a Daml precondition, each action is retried alone, so that one stuck
// contract does not block the others.
func (a *Automation) RunOnce(ctx context.Context) (PassResult, error) {
	now := a.net.Clock().Now()
	st, err := a.load(ctx, now)
	if err != nil {
		return PassResult{}, err
	}
	actions, next := a.plan(st, now)
	res := PassResult{Next: next}
	if len(actions) == 0 {
		return res, nil
	}
	if err := a.submit(ctx, now, actions); err == nil {
		res.Transactions, res.Actions = 1, len(actions)
		return res, nil
	} else if !fault.Is(err, fault.DamlPrecondition) || len(actions) == 1 {
		return res, err
	}
	var errs []error
	for _, act := range actions {
		if err := a.submit(ctx, now, []action{act}); err != nil {
			a.cfg.Logger.Warn("DSO automation action failed", "action", act.name, "err", err)
			errs = append(errs, fmt.Errorf("%s: %w", act.name, err))
			continue
		}
		res.Transactions++
		res.Actions++
	}
	if res.Transactions == 0 {
		return res, errors.Join(errs...)
	}
	return res, nil
}

func (a *Automation) submit(ctx context.Context, now daml.Timestamp, actions []action) error {
	a.mu.Lock()
	a.seq++
	seq := a.seq
	a.mu.Unlock()
	_, err := a.net.Submit(ctx, ledger.Command{
		Participant: a.cfg.Participant,
		UserID:      a.cfg.UserID,
		ActAs:       []daml.Party{a.cfg.SV, a.cfg.DSO},
		ReadAs:      []daml.Party{a.cfg.DSO},
		// A fresh command id per submission: automation retries a due
		// action as a new change, which command deduplication (keyed by
		// the command id) must not take for a duplicate of an earlier
		// pass, of this or an earlier process, at the same ledger time.
		CommandID:  CommandID(fmt.Sprintf("sandnet-dso-automation-%d-%d-%s", now, seq, actions[0].name)),
		WorkflowID: "dso-automation",
		Run: func(tx *ledger.Tx) error {
			for _, act := range actions {
				if err := act.run(tx); err != nil {
					return err
				}
			}
			return nil
		},
	})
	return err
}

// plan lists what is due at now, and when the next thing falls due.
func (a *Automation) plan(st *dsoState, now daml.Timestamp) ([]action, daml.Timestamp) {
	var actions []action
	var next daml.Timestamp
	due := func(t daml.Timestamp) {
		if t > now && (next == 0 || t < next) {
			next = t
		}
	}
	sv := a.cfg.SV
	dsoRules, amuletRules := st.dsoRules.ID, st.amuletRules.ID

	// The open rounds as the pass leaves them: advancing them archives
	// those the pass read, and later actions in the same transaction (the
	// config states') name the new ones.
	rounds := &openRounds{open: st.open}

	// Rounds: advance while the oldest open round is past its close, the
	// latest has opened and the middle one has been open for a tick.
	if len(st.open) >= 3 {
		o, m, l := st.open[0].Payload, st.open[1].Payload, st.open[2].Payload
		ready := max(o.TargetClosesAt, l.OpensAt, addRel(m.OpensAt, m.TickDuration))
		if ready <= now {
			votes := a.priceVotes(st)
			actions = append(actions, action{"advance-rounds", func(tx *ledger.Tx) error {
				// A retry starts again from what the pass read.
				rounds.open = st.open
				advanced, err := advanceRounds(tx, dsoRules, amuletRules, sv, votes, st.open)
				if err == nil {
					rounds.open = advanced
				}
				return err
			}})
		} else {
			due(ready)
		}
	}
	for _, r := range st.summarizing {
		actions = append(actions, action{"start-issuing", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[AmuletRulesMiningRoundStartIssuingResult](tx, amuletRules, "AmuletRules_MiningRound_StartIssuing",
				AmuletRulesMiningRoundStartIssuing{MiningRoundCid: r.ID, Summary: OpenMiningRoundSummary{OptTotalValidatorFaucetCoupons: ptr(int64(0))}})
			return err
		}})
	}
	for _, r := range st.issuing {
		if r.Payload.TargetClosesAt > now {
			due(r.Payload.TargetClosesAt)
			continue
		}
		actions = append(actions, action{"close-round", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[DsoRulesMiningRoundCloseResult](tx, dsoRules, "DsoRules_MiningRound_Close",
				DsoRulesMiningRoundClose{AmuletRulesCid: amuletRules, IssuingRoundCid: r.ID, Sv: &sv})
			return err
		}})
	}
	for _, r := range st.closed {
		actions = append(actions, action{"archive-round", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[AmuletRulesMiningRoundArchiveResult](tx, amuletRules, "AmuletRules_MiningRound_Archive",
				AmuletRulesMiningRoundArchive{ClosedRoundCid: r.ID})
			return err
		}})
	}

	actions = append(actions, a.planExternalParty(st, now, due, rounds)...)
	actions = append(actions, a.planTransferExpiries(st, now, due)...)
	actions = append(actions, a.planTransferCommandCounters(st)...)
	actions = append(actions, a.planAllocationExpiries(st, now, due)...)

	// Name service.
	if len(st.ansRules) == 1 {
		actions = append(actions, a.planAns(st, now, due)...)
	}
	return actions, next
}

// priceVotes picks one AmuletPriceVote per current SV.
func (a *Automation) priceVotes(st *dsoState) []daml.ContractID {
	bySv := map[daml.Party]daml.ContractID{}
	for _, v := range st.priceVotes {
		if _, ok := st.dsoRules.Payload.Svs.Get(v.Payload.Sv); ok {
			bySv[v.Payload.Sv] = v.ID
		}
	}
	out := make([]daml.ContractID, 0, len(bySv))
	for _, e := range st.dsoRules.Payload.Svs {
		if cid, ok := bySv[e.Key]; ok {
			out = append(out, cid)
		}
	}
	return out
}

// advanceRounds advances the open rounds as far as the ledger time allows,
// at most three times (then the newest round opens in the future), and
// returns the open rounds it leaves, oldest first.
func advanceRounds(tx *ledger.Tx, dsoRules, amuletRules daml.ContractID, sv daml.Party, votes []daml.ContractID, open []Contract[OpenMiningRound]) ([]Contract[OpenMiningRound], error) {
	rounds := slices.Clone(open)
	now := tx.Now()
	for range 3 {
		if len(rounds) < 3 {
			return rounds, nil
		}
		o, m, l := rounds[0], rounds[1], rounds[2]
		if o.Payload.TargetClosesAt > now || l.Payload.OpensAt > now || addRel(m.Payload.OpensAt, m.Payload.TickDuration) > now {
			return rounds, nil
		}
		res, err := ledger.Exercise[DsoRulesAdvanceOpenMiningRoundsResult](tx, dsoRules, "DsoRules_AdvanceOpenMiningRounds",
			DsoRulesAdvanceOpenMiningRounds{
				AmuletRulesCid: amuletRules, RoundToArchiveCid: o.ID, MiddleRoundCid: m.ID, LatestRoundCid: l.ID,
				AmuletPriceVoteCids: votes, Sv: &sv,
			})
		if err != nil {
			return nil, err
		}
		created, err := ledger.Fetch[OpenMiningRound](tx, res.OpenRound)
		if err != nil {
			return nil, err
		}
		rounds = append(rounds[1:], Contract[OpenMiningRound]{Contract: &ledger.Contract{ID: res.OpenRound}, Payload: created})
	}
	return rounds, nil
}

// openRounds is the DSO's open rounds, oldest first, as the actions of a
// pass leave them.
type openRounds struct {
	open []Contract[OpenMiningRound]
}

func (r *openRounds) triple() (OpenMiningRoundTriple, bool) {
	if len(r.open) < 3 {
		return OpenMiningRoundTriple{}, false
	}
	return OpenMiningRoundTriple{Round0Cid: r.open[0].ID, Round1Cid: r.open[1].ID, Round2Cid: r.open[2].ID}, true
}

// planExternalParty plans the external-party contracts' actions: create
// what is missing, and rotate the config states whose time is up.
func (a *Automation) planExternalParty(st *dsoState, now daml.Timestamp, due func(daml.Timestamp), rounds *openRounds) []action {
	var actions []action
	sv := a.cfg.SV
	dsoRules, amuletRules := st.dsoRules.ID, st.amuletRules.ID
	if len(st.externalRules) == 0 {
		actions = append(actions, action{"create-external-party-amulet-rules", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[DsoRulesCreateExternalPartyAmuletRulesResult](tx, dsoRules,
				"DsoRules_CreateExternalPartyAmuletRules", DsoRulesCreateExternalPartyAmuletRules{})
			return err
		}})
	}
	switch {
	case len(st.configStates) == 0 && len(st.open) >= 3:
		var instruction daml.ContractID
		if len(st.instructions) > 0 {
			instruction = st.instructions[0].ID
		}
		actions = append(actions, action{"bootstrap-external-party-config-states", func(tx *ledger.Tx) error {
			cid := instruction
			if cid == "" {
				res, err := ledger.Exercise[DsoRulesCreateBootstrapExternalPartyConfigStateInstructionResult](tx, dsoRules,
					"DsoRules_CreateBootstrapExternalPartyConfigStateInstruction", DsoRulesCreateBootstrapExternalPartyConfigStateInstruction{})
				if err != nil {
					return err
				}
				cid = res.InstructionCid
			}
			triple, _ := rounds.triple()
			_, err := ledger.Exercise[DsoRulesBootstrapExternalPartyConfigStateResult](tx, dsoRules, "DsoRules_BootstrapExternalPartyConfigState",
				DsoRulesBootstrapExternalPartyConfigState{AmuletRulesCid: amuletRules, InstructionCid: cid, OpenMiningRoundTriple: triple, Sv: sv})
			return err
		}})
	case len(st.configStates) == 2 && len(st.open) >= 3:
		// Splice's automation acts on a pair only: with more or fewer
		// states something else went wrong, and it leaves them be.
		oldest := st.configStates[0].Payload.TargetArchiveAfter
		// Splice's trigger acts once the target is strictly past.
		if oldest >= now {
			due(oldest + 1)
			break
		}
		actions = append(actions, action{"update-external-party-config-states", func(tx *ledger.Tx) error {
			return rotateConfigStates(tx, dsoRules, amuletRules, sv, rounds, st.configStates)
		}})
	}
	return actions
}

// byTargetArchiveAfter orders config states oldest first.
func byTargetArchiveAfter(x, y Contract[ExternalPartyConfigState]) int {
	return cmpInt(int64(x.Payload.TargetArchiveAfter), int64(y.Payload.TargetArchiveAfter))
}

// rotateConfigStates replaces config states whose targetArchiveAfter has
// passed, the oldest first, each by one that lives two ticks from now: one
// replacement normally, both after a clock jump past the two.
func rotateConfigStates(tx *ledger.Tx, dsoRules, amuletRules daml.ContractID, sv daml.Party, rounds *openRounds, states []Contract[ExternalPartyConfigState]) error {
	states = slices.Clone(states)
	now := tx.Now()
	for range len(states) {
		if len(states) < 2 || states[0].Payload.TargetArchiveAfter >= now {
			return nil
		}
		triple, _ := rounds.triple()
		res, err := ledger.Exercise[DsoRulesUpdateExternalPartyConfigStatesResult](tx, dsoRules, "DsoRules_UpdateExternalPartyConfigStates",
			DsoRulesUpdateExternalPartyConfigStates{
				AmuletRulesCid: amuletRules, ExternalPartyConfigStateCid0: states[0].ID, ExternalPartyConfigStateCid1: states[1].ID,
				OpenMiningRoundTriple: triple, Sv: sv,
			})
		if err != nil {
			return err
		}
		created, err := ledger.Fetch[ExternalPartyConfigState](tx, res.NewExternalPartyConfigStateCid)
		if err != nil {
			return err
		}
		states = append(states[1:], Contract[ExternalPartyConfigState]{Contract: &ledger.Contract{ID: res.NewExternalPartyConfigStateCid}, Payload: created})
		slices.SortStableFunc(states, byTargetArchiveAfter)
	}
	return nil
}

func (a *Automation) planAns(st *dsoState, now daml.Timestamp, due func(daml.Timestamp)) []action {
	var actions []action
	dso, sv := a.cfg.DSO, a.cfg.SV
	dsoRules, amuletRules, ansRules := st.dsoRules.ID, st.amuletRules.ID, st.ansRules[0].ID
	contexts := map[daml.ContractID]Contract[AnsEntryContext]{}
	for _, c := range st.contexts {
		contexts[c.Payload.Reference] = c
	}
	openByNumber := map[int64]daml.ContractID{}
	for _, r := range st.open {
		openByNumber[r.Payload.Round.Number] = r.ID
	}
	var latestOpen daml.ContractID
	for _, r := range st.open {
		if r.Payload.OpensAt <= now {
			latestOpen = r.ID
		}
	}
	appContext := func(round daml.ContractID) AppTransferContext {
		return AppTransferContext{AmuletRules: amuletRules, OpenMiningRound: round}
	}

	for _, p := range st.initial {
		data := p.Payload.SubscriptionData
		c, ok := contexts[p.Payload.Reference]
		if !ok || data.Provider != dso || data.Receiver != dso {
			continue
		}
		if round, ok := openByNumber[p.Payload.Round.Number]; ok {
			actions = append(actions, action{"collect-ans-payment", func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[AnsEntryContextCollectInitialEntryPaymentResult](tx, c.ID, "AnsEntryContext_CollectInitialEntryPayment",
					AnsEntryContextCollectInitialEntryPayment{PaymentCid: p.ID, TransferContext: appContext(round), AnsRulesCid: ansRules})
				return err
			}})
		} else if latestOpen != "" {
			// The payment's round is gone: its holding fee can no longer be
			// settled exactly, so Splice rejects it and the sender gets
			// the amulet back.
			actions = append(actions, action{"reject-ans-payment", func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[AnsEntryContextRejectEntryInitialPaymentResult](tx, c.ID, "AnsEntryContext_RejectEntryInitialPayment",
					AnsEntryContextRejectEntryInitialPayment{PaymentCid: p.ID, TransferContext: appContext(latestOpen), AnsRulesCid: ansRules})
				return err
			}})
		}
	}

	expiring := map[daml.ContractID]bool{}
	for _, e := range st.entries {
		if e.Payload.DSO != dso {
			continue
		}
		if e.Payload.ExpiresAt >= now {
			due(e.Payload.ExpiresAt + 1)
			continue
		}
		expiring[e.ID] = true
		actions = append(actions, action{"expire-ans-entry", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[DsoRulesExpireAnsEntryResult](tx, dsoRules, "DsoRules_ExpireAnsEntry",
				DsoRulesExpireAnsEntry{AnsEntryCid: e.ID, ChoiceArg: AnsEntryExpire{Actor: dso}, Sv: &sv})
			return err
		}})
	}

	for _, p := range st.renewals {
		data := p.Payload.SubscriptionData
		c, ok := contexts[p.Payload.Reference]
		round, open := openByNumber[p.Payload.Round.Number]
		if !ok || !open || data.Provider != dso {
			continue
		}
		var entry daml.ContractID
		for _, e := range st.entries {
			if e.Payload.User == c.Payload.User && e.Payload.Name == c.Payload.Name &&
				e.Payload.ExpiresAt == p.Payload.ThisPaymentDueAt && !expiring[e.ID] {
				entry = e.ID
			}
		}
		if entry == "" {
			continue
		}
		actions = append(actions, action{"collect-ans-renewal", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[DsoRulesCollectEntryRenewalPaymentResult](tx, dsoRules, "DsoRules_CollectEntryRenewalPayment",
				DsoRulesCollectEntryRenewalPayment{
					AnsEntryContextCid: c.ID, Sv: &sv,
					ChoiceArg: AnsEntryContextCollectEntryRenewalPayment{
						PaymentCid: p.ID, EntryCid: entry, TransferContext: appContext(round), AnsRulesCid: ansRules,
					},
				})
			return err
		}})
	}

	for _, s := range st.idle {
		c, ok := contexts[s.Payload.Reference]
		if !ok || s.Payload.SubscriptionData.Provider != dso {
			continue
		}
		if s.Payload.NextPaymentDueAt >= now {
			due(s.Payload.NextPaymentDueAt + 1)
			continue
		}
		actions = append(actions, action{"expire-subscription", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[DsoRulesExpireSubscriptionResult](tx, dsoRules, "DsoRules_ExpireSubscription", DsoRulesExpireSubscription{
				AnsEntryContextCid: c.ID, SubscriptionIdleStateCid: s.ID, ChoiceArg: SubscriptionIdleStateExpireSubscription{Actor: dso}, Sv: &sv,
			})
			return err
		}})
	}
	return actions
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
