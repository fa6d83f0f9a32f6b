package scan

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The choice contexts of the token standard's transfer-instruction API, as
// a Scan's registry computes them: which DSO contracts a wallet must
// disclose, and name in the choice's extraArgs.context, for an external
// party's transfer to go through ExternalPartyAmuletRules, or for the
// receiver or sender of a pending AmuletTransferInstruction to settle it.

// The keys of the choice-context entries. The package reads the last four
// (internal/ledger/splice names them once); Splice's Scan also sends the
// first two, which splice-amulet 0.1.22 ignores.
const (
	ContextKeyAmuletRules              = "amulet-rules"
	ContextKeyOpenRound                = "open-round"
	ContextKeyExternalPartyConfigState = splice.ContextKeyExternalPartyConfigState
	ContextKeyFeaturedAppRight         = splice.ContextKeyFeaturedAppRight
	ContextKeyTransferPreapproval      = splice.ContextKeyTransferPreapproval
	ContextKeyExpireLock               = splice.ContextKeyExpireLock
)

// TransferKind is how a transfer through the factory will settle.
type TransferKind string

// The transfer kinds, as the registry API spells them.
const (
	// TransferSelf moves amulet between the sender's own holdings.
	TransferSelf TransferKind = "self"
	// TransferDirect settles at once through the receiver's
	// TransferPreapproval.
	TransferDirect TransferKind = "direct"
	// TransferOffer locks the amount and leaves an
	// AmuletTransferInstruction for the receiver to accept.
	TransferOffer TransferKind = "offer"
)

// ContextEntry is one entry of a choice context: a contract id (the
// contract is disclosed with it) or a Bool.
type ContextEntry struct {
	Key string
	// ContractID is set for an AV_ContractId entry.
	ContractID daml.ContractID
	// Bool is set for an AV_Bool entry.
	Bool *bool
}

// ChoiceContext is what a wallet adds to a token-standard choice: the
// entries of extraArgs.context, in the order Splice adds them, and the
// contracts to disclose, in the order Splice discloses them.
type ChoiceContext struct {
	Entries   []ContextEntry
	Disclosed []*ledger.Contract
	// Synchronizer is the DSO's active synchronizer, which every disclosed
	// contract is reported on.
	Synchronizer string
}

func (c *ChoiceContext) add(key string, k *ledger.Contract) {
	c.Entries = append(c.Entries, ContextEntry{Key: key, ContractID: k.ID})
	c.Disclosed = append(c.Disclosed, k)
}

func (c *ChoiceContext) addBool(key string, v bool) {
	c.Entries = append(c.Entries, ContextEntry{Key: key, Bool: &v})
}

// TransferFactory is the registry's answer for a transfer: the factory to
// exercise TransferFactory_Transfer on, the kind of transfer it will be
// and the context the choice needs.
type TransferFactory struct {
	Factory *ledger.Contract
	Kind    TransferKind
	Context ChoiceContext
}

// TransferInstructionChoice names a choice of a TransferInstruction whose
// context the registry gives.
type TransferInstructionChoice string

// The choices of TransferInstruction with registry contexts.
const (
	ChoiceAccept   TransferInstructionChoice = "accept"
	ChoiceReject   TransferInstructionChoice = "reject"
	ChoiceWithdraw TransferInstructionChoice = "withdraw"
)

// AmuletTransferInstructionKey is the template of Amulet's transfer
// instructions. It is named rather than taken from a Go type so that the
// Scan serves their contexts whether or not the network's registry
// declares the template.
var AmuletTransferInstructionKey = TemplateKey{
	PackageName: splice.PackageAmulet.Name, Module: "Splice.AmuletTransferInstruction", Entity: "AmuletTransferInstruction",
}

// TransferFactory answers the registry's transfer-factory request for a
// transfer from sender to receiver, as Splice's Scan does: the kind is
// self when they are the same party, direct when the receiver has a
// TransferPreapproval (expired or not), else offer. Nothing else about the
// transfer is checked here; the ledger checks it when the choice runs.
func (s *Service) TransferFactory(ctx context.Context, sender, receiver daml.Party) (TransferFactory, error) {
	st, err := s.registry(ctx)
	if err != nil {
		return TransferFactory{}, err
	}
	cc, err := s.amuletRulesContext(ctx, st)
	if err != nil {
		return TransferFactory{}, err
	}
	factory, err := st.externalPartyAmuletRules()
	if err != nil {
		return TransferFactory{}, err
	}
	out := TransferFactory{Factory: factory, Kind: TransferOffer}
	var preapproval, featured *ledger.Contract
	if sender == receiver {
		// A self-transfer needs no pre-approval.
		out.Kind = TransferSelf
	} else if p := st.preapprovals[receiver]; p != nil {
		out.Kind = TransferDirect
		preapproval = p.Contract
		featured = st.featured[p.Payload.Provider]
	}
	if featured != nil {
		cc.add(ContextKeyFeaturedAppRight, featured)
	}
	if preapproval != nil {
		cc.add(ContextKeyTransferPreapproval, preapproval)
	}
	cc.Disclosed = append(cc.Disclosed, factory)
	out.Context = cc
	return out, nil
}

// TransferInstructionContext answers the registry's choice-context request
// for a choice on the AmuletTransferInstruction id, as Splice's Scan does.
// While the instruction's LockedAmulet is active, every choice gets the
// amulet rules, the open round, the external-party config state and
// expire-lock true, with the LockedAmulet disclosed too. Once it is gone
// (its lock expired and was released), accept is a fault.NotFound, while
// reject and withdraw get only expire-lock false. An instruction the Scan
// does not know is looked up again once the Scan has caught up with its
// participant (awaitIngested).
func (s *Service) TransferInstructionContext(ctx context.Context, id daml.ContractID, choice TransferInstructionChoice) (ChoiceContext, error) {
	instr, ok, err := s.activeOf(ctx, id, AmuletTransferInstructionKey)
	if err == nil && !ok {
		// The instruction may be committed and not ingested yet.
		if err = s.awaitIngested(ctx); err == nil {
			instr, ok, err = s.activeOf(ctx, id, AmuletTransferInstructionKey)
		}
	}
	if err != nil {
		return ChoiceContext{}, err
	}
	if !ok {
		return ChoiceContext{}, fault.New(fault.NotFound, "AmuletTransferInstruction '%s' not found.", fault.Clip(string(id)))
	}
	lockedID, executeBefore, err := transferInstructionFields(instr)
	if err != nil {
		return ChoiceContext{}, err
	}
	var gone func() error
	if choice == ChoiceAccept {
		gone = func() error {
			// Splice renders the Scala Options of the ids and the expiry.
			return fault.New(fault.NotFound,
				"LockedAmulet 'Some(ContractId(%s))' not found for AmuletTransferInstruction '%s', which expires on Some(%s)",
				lockedID, fault.Clip(string(id)), executeBefore.MicrosString())
		}
	}
	cc, _, err := s.lockedAmuletContext(ctx, lockedID, gone)
	return cc, err
}

// lockedAmuletContext is the context of a choice on a contract that holds
// the LockedAmulet lockedID (a transfer instruction or an allocation):
// while the lock is active, the amulet rules' context with the
// LockedAmulet disclosed and expire-lock true. Once it is gone (its lock
// expired and was released), gone's error when the choice needs the lock
// (gone non-nil), else only expire-lock false: nothing to unlock, so the
// choice must not try to expire the lock. It returns the registry state
// the context was read from too.
func (s *Service) lockedAmuletContext(ctx context.Context, lockedID daml.ContractID, gone func() error) (ChoiceContext, *registryState, error) {
	locked, lockActive, err := s.activeOf(ctx, lockedID, KeyOfTemplate[splice.LockedAmulet]())
	if err != nil {
		return ChoiceContext{}, nil, err
	}
	st, err := s.registry(ctx)
	if err != nil {
		return ChoiceContext{}, nil, err
	}
	cc, err := s.amuletRulesContext(ctx, st)
	if err != nil {
		return ChoiceContext{}, nil, err
	}
	if !lockActive {
		if gone != nil {
			return ChoiceContext{}, nil, gone()
		}
		out := ChoiceContext{Synchronizer: cc.Synchronizer}
		out.addBool(ContextKeyExpireLock, false)
		return out, st, nil
	}
	cc.Disclosed = append(cc.Disclosed, locked)
	cc.addBool(ContextKeyExpireLock, true)
	return cc, st, nil
}

// transferInstructionFields reads an AmuletTransferInstruction's
// lockedAmulet and transfer.executeBefore from its create argument.
func transferInstructionFields(c *ledger.Contract) (daml.ContractID, daml.Timestamp, error) {
	bad := func() (daml.ContractID, daml.Timestamp, error) {
		return "", 0, fault.New(fault.Internal, "AmuletTransferInstruction %s: unexpected create argument", c.ID)
	}
	if c.Argument == nil {
		return bad()
	}
	locked, ok := c.Argument.Get("lockedAmulet").(daml.ContractID)
	if !ok {
		return bad()
	}
	transfer, ok := c.Argument.Get("transfer").(*daml.Record)
	if !ok || transfer == nil {
		return bad()
	}
	before, ok := transfer.Get("executeBefore").(daml.Timestamp)
	if !ok {
		return bad()
	}
	return locked, before, nil
}

// amuletRulesContext starts every transfer context as Splice's Scan does:
// the AmuletRules and the latest usable open round (Splice still sends
// both, though splice-amulet 0.1.22's transfers ignore them), then the
// newer of the two external-party config states when there are exactly
// two, the only entry 0.1.22 reads. What depends on the time (the round,
// the synchronizer) is chosen now, from the state.
func (s *Service) amuletRulesContext(ctx context.Context, st *registryState) (ChoiceContext, error) {
	now, err := s.Now(ctx)
	if err != nil {
		return ChoiceContext{}, err
	}
	if st.rules == nil {
		return ChoiceContext{}, fault.New(fault.NotFound, "No active %s contract", "AmuletRules")
	}
	round, err := st.latestUsableOpenRound(now)
	if err != nil {
		return ChoiceContext{}, err
	}
	cc := ChoiceContext{Synchronizer: activeSynchronizer(st.rulesValue, now)}
	cc.add(ContextKeyAmuletRules, st.rules)
	cc.add(ContextKeyOpenRound, round)
	if st.configState != nil {
		cc.add(ContextKeyExternalPartyConfigState, st.configState)
	}
	return cc, nil
}

// activeSynchronizer is the amulet configuration's active synchronizer as
// of now: the schedule's latest value in effect.
func activeSynchronizer(r splice.AmuletRules, now daml.Timestamp) string {
	cfg := r.ConfigSchedule.InitialValue
	for _, f := range r.ConfigSchedule.FutureValues {
		if f.First <= now {
			cfg = f.Second
		}
	}
	return cfg.DecentralizedSynchronizer.ActiveSynchronizer
}

// latestUsableOpenRound is the open round with the highest number that has
// opened by now (the first created on a tie); none is Splice's
// fault.NotFound.
func (st *registryState) latestUsableOpenRound(now daml.Timestamp) (*ledger.Contract, error) {
	var best *round
	for i := range st.rounds {
		r := &st.rounds[i]
		if r.opensAt <= now && (best == nil || r.number > best.number) {
			best = r
		}
	}
	if best == nil {
		return nil, fault.New(fault.NotFound, "No open usable OpenMiningRound found.")
	}
	return best.contract, nil
}

// externalPartyAmuletRules is the last created ExternalPartyAmuletRules;
// none is a fault.NotFound.
func (st *registryState) externalPartyAmuletRules() (*ledger.Contract, error) {
	if st.factory == nil {
		return nil, fault.New(fault.NotFound, "No active %s contract", "ExternalPartyAmuletRules")
	}
	return st.factory, nil
}

// TransferPreapproval is the receiver's pre-approval with the latest
// validFrom (the later created on a tie), expired or not, or nil: the one
// Splice's Scan answers and its transfer factory uses.
func (s *Service) TransferPreapproval(ctx context.Context, receiver daml.Party) (*splice.Contract[splice.TransferPreapproval], error) {
	st, err := s.registry(ctx)
	if err != nil {
		return nil, err
	}
	return st.preapprovals[receiver], nil
}

// activeOf returns the contract id if it is an active contract of the
// template in the Scan's store.
func (s *Service) activeOf(ctx context.Context, id daml.ContractID, key TemplateKey) (*ledger.Contract, bool, error) {
	c, active, err := s.Store.Contract(ctx, id)
	if fault.Is(err, fault.NotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !active || KeyOf(c.Template) != key {
		return nil, false, nil
	}
	return c, true, nil
}

// KeyOfTemplate is the key of template T.
func KeyOfTemplate[T ledger.Template]() TemplateKey {
	var zero T
	return KeyOf(zero.TemplateID())
}

// ActiveDecoded returns the DSO's active contracts of template T, decoded.
func ActiveDecoded[T ledger.Template](ctx context.Context, s *Service) ([]splice.Contract[T], error) {
	cs, err := s.Active(ctx, KeyOfTemplate[T]())
	if err != nil {
		return nil, err
	}
	out := make([]splice.Contract[T], 0, len(cs))
	for _, c := range cs {
		d, err := splice.Decode[T](c)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "decode %s", c.ID)
		}
		out = append(out, d)
	}
	return out, nil
}
