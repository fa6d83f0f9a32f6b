package validator

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/interactive"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/signing"
)

// The validator's legacy flow for external parties it hosts (Splice's
// validator admin API): the operator proposes to host a party, paying for
// its pre-approval; the party accepts by signing a transaction the
// validator prepares; the party sends amulet by signing a TransferCommand
// the validator prepares, which the validator's automation then executes
// as its delegate. Transactions are prepared with the ledger's interactive
// submission (ledger.Network.Prepare) and executed with the party's
// Ed25519 signature of their hash.

// ExternalSubmission is a prepared transaction an external party signed:
// the hex of its Ed25519 public key and of its signature (r‖s) of the
// prepared transaction's hash.
type ExternalSubmission struct {
	Party        daml.Party
	Transaction  []byte
	SignedTxHash string
	PublicKey    string
}

// PreparedExternal is a transaction prepared for an external party to
// sign: its serialized PreparedTransaction and its hash.
type PreparedExternal struct {
	Transaction []byte
	Hash        []byte
	// HashingDetails traces the hashing, when asked for.
	HashingDetails *string
	// Created is the first contract id the transaction creates (the
	// unsuffixed id of a TransferCommand).
	Created daml.ContractID
}

// setupProposals lists the operator's active setup proposals on its DSO.
func (v *Validator) setupProposals(ctx context.Context) ([]splice.Contract[splice.ExternalPartySetupProposal], error) {
	all, err := splice.Active[splice.ExternalPartySetupProposal](ctx, v.net.Store(), v.cfg.Party)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(p splice.Contract[splice.ExternalPartySetupProposal]) bool {
		return p.Payload.Validator != v.cfg.Party || p.Payload.DSO != v.cfg.DSO
	}), nil
}

// ExternalPartySetupProposals lists the setup proposals the operator has
// made and that are still pending.
func (v *Validator) ExternalPartySetupProposals(ctx context.Context) ([]splice.Contract[splice.ExternalPartySetupProposal], error) {
	return v.setupProposals(ctx)
}

// setupProposalOf returns user's pending proposal (nil: none).
func (v *Validator) setupProposalOf(ctx context.Context, user daml.Party) (*splice.Contract[splice.ExternalPartySetupProposal], error) {
	all, err := v.setupProposals(ctx)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].Payload.User == user {
			return &all[i], nil
		}
	}
	return nil, nil
}

// CreateExternalPartySetupProposal proposes to host user: the operator
// pays the pre-approval's fee (none within the free base duration,
// PreapprovalLifetime from now) through
// AmuletRules_CreateExternalPartySetupProposal. A pending proposal or a
// pre-approval the user already has is Splice's 409.
func (v *Validator) CreateExternalPartySetupProposal(ctx context.Context, user daml.Party) (daml.ContractID, error) {
	if err := v.knownParty(ctx, user); err != nil {
		return "", err
	}
	release, err := v.flight.begin("setup-proposal/"+string(user), "External party setup proposal for "+fault.Clip(string(user)))
	if err != nil {
		return "", err
	}
	defer release()
	if p, err := v.setupProposalOf(ctx, user); err != nil {
		return "", err
	} else if p != nil {
		return "", fault.New(fault.AlreadyExists, "ExternalPartySetupProposal contract already exists: %s", p.ID)
	}
	if p, err := v.receiverPreapproval(ctx, user); err != nil {
		return "", err
	} else if p != nil {
		return "", fault.New(fault.AlreadyExists, "TransferPreapproval contract already exists: %s", p.ID)
	}
	defer v.spending.lock(v.cfg.Party)()
	var proposal daml.ContractID
	dso := v.cfg.DSO
	t, err := v.withAmulet(ctx, "create-external-party-setup-proposal", nil, func(tx *ledger.Tx, ac splice.AmuletContext) error {
		inputs, err := v.operatorInputs(ctx, ac)
		if err != nil {
			return err
		}
		now := tx.Now()
		res, err := ledger.Exercise[splice.AmuletRulesCreateExternalPartySetupProposalResult](tx, ac.AmuletRules.ID,
			"AmuletRules_CreateExternalPartySetupProposal", splice.AmuletRulesCreateExternalPartySetupProposal{
				Context: ac.PaymentContext(), Inputs: inputs, User: user, Validator: v.cfg.Party,
				PreapprovalExpiresAt: now + micros(PreapprovalLifetime), ExpectedDso: &dso, OptCreatedAt: &now,
			})
		proposal = res.ProposalCid
		return err
	})
	if err != nil {
		return "", err
	}
	return t.Final(proposal), nil
}

// prepare prepares a command the external party acts in alone, on the
// validator's participant.
func (v *Validator) prepare(ctx context.Context, party daml.Party, disclosed []*ledger.Contract, verbose bool, run func(tx *ledger.Tx) error) (PreparedExternal, error) {
	p, err := v.net.Prepare(ctx, ledger.Command{
		Participant: v.cfg.Participant, UserID: v.cfg.OperatorUser, ActAs: []daml.Party{party}, ReadAs: []daml.Party{party},
		CommandID: fmt.Sprintf("sandnet-external-%d-%d", v.net.Clock().Now(), v.prepareSeq.Add(1)), Disclosed: disclosed, Run: run,
	}, 0)
	if err != nil {
		return PreparedExternal{}, err
	}
	out := PreparedExternal{Transaction: interactive.Marshal(p.Transaction), Hash: p.Hashes.Final[:]}
	if verbose {
		_, trace, err := interactive.HashV2Trace(p.Transaction)
		if err != nil {
			return PreparedExternal{}, ledger.FailedToPrepare("%v", err)
		}
		out.HashingDetails = &trace
	}
	if tx := p.Transaction.Transaction; tx != nil {
		for _, n := range tx.Nodes {
			if n.Create != nil {
				out.Created = n.Create.ContractID
				break
			}
		}
	}
	return out, nil
}

// PrepareAcceptExternalPartySetupProposal prepares user's acceptance of
// its pending proposal, which must be the contract named: none is Splice's
// 404, another one its 400.
func (v *Validator) PrepareAcceptExternalPartySetupProposal(ctx context.Context, cid daml.ContractID, user daml.Party, verbose bool) (PreparedExternal, error) {
	p, err := v.setupProposalOf(ctx, user)
	if err != nil {
		return PreparedExternal{}, err
	}
	if p == nil {
		return PreparedExternal{}, fault.New(fault.NotFound, "No ExternalPartySetupProposal contract found for %s", fault.Clip(string(user)))
	}
	if p.ID != cid {
		return PreparedExternal{}, fault.New(fault.InvalidArgument, "Found contract does not match provided contractId.")
	}
	return v.prepare(ctx, user, nil, verbose, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.ExternalPartySetupProposalAcceptResult](tx, p.ID, "ExternalPartySetupProposal_Accept",
			splice.ExternalPartySetupProposalAccept{})
		return err
	})
}

// SubmitExternal executes a prepared transaction with the external
// party's signature and returns the committed transaction.
func (v *Validator) SubmitExternal(ctx context.Context, s ExternalSubmission) (*ledger.Transaction, error) {
	pt, err := interactive.Unmarshal(s.Transaction)
	if err != nil {
		return nil, fault.New(fault.InvalidArgument, "transaction is not a PreparedTransaction: %v", err)
	}
	sig, err := hex.DecodeString(s.SignedTxHash)
	if err != nil {
		return nil, fault.New(fault.InvalidArgument, "Unable to parse signed tx hash")
	}
	k, err := externalKey(s.PublicKey)
	if err != nil {
		return nil, err
	}
	t, _, err := v.net.ExecuteAndWait(ctx, ledger.ExecuteSpec{
		Participant: v.cfg.Participant, UserID: v.cfg.OperatorUser, SubmissionID: splice.CommandID("external"),
		Prepared: pt,
		Signatures: []ledger.PartySignatures{{Party: s.Party, Signatures: []signing.Signature{{
			Format: signing.SignatureFormatConcat, Bytes: sig, SignedBy: k.Fingerprint(), Algorithm: signing.AlgorithmEd25519,
		}}}},
	})
	return t, err
}

// SubmitAcceptExternalPartySetupProposal executes a signed acceptance and
// returns the user's new pre-approval and the transaction's update id.
func (v *Validator) SubmitAcceptExternalPartySetupProposal(ctx context.Context, s ExternalSubmission) (daml.ContractID, string, error) {
	t, err := v.SubmitExternal(ctx, s)
	if err != nil {
		return "", "", err
	}
	cids := splice.CreatedIn(t, splice.TransferPreapproval{}.TemplateID())
	if len(cids) == 0 {
		return "", "", fault.New(fault.FailedPrecondition, "TransferPreapproval contract was not created.")
	}
	return cids[0], t.UpdateID, nil
}

// TransferCommandSpec is what an external sender asks to send: amount to
// a receiver with a pre-approval, before ExpiresAt, with the nonce its
// counter will have.
type TransferCommandSpec struct {
	Sender, Receiver daml.Party
	Amount           daml.Numeric
	ExpiresAt        daml.Timestamp
	Nonce            int64
	Description      *string
	Verbose          bool
}

// PrepareTransferCommand prepares the sender's
// ExternalPartyAmuletRules_CreateTransferCommand naming the validator as
// delegate. A receiver without a pre-approval is refused at once (Splice's
// 400), though the command is checked again when it is sent.
func (v *Validator) PrepareTransferCommand(ctx context.Context, spec TransferCommandSpec) (PreparedExternal, error) {
	if err := CheckAmount("amount", spec.Amount); err != nil {
		return PreparedExternal{}, err
	}
	if spec.Nonce < 0 {
		return PreparedExternal{}, fault.New(fault.InvalidArgument, "nonce must not be negative")
	}
	if _, err := v.scan.TransferPreapprovalByParty(ctx, spec.Receiver); err != nil {
		if fault.Is(err, fault.NotFound) {
			return PreparedExternal{}, fault.New(fault.InvalidArgument, "Receiver %s does not have a TransferPreapproval", fault.Clip(string(spec.Receiver)))
		}
		return PreparedExternal{}, err
	}
	rules, err := v.scan.ExternalPartyAmuletRules(ctx)
	if err != nil {
		return PreparedExternal{}, err
	}
	dso := v.cfg.DSO
	return v.prepare(ctx, spec.Sender, []*ledger.Contract{rules}, spec.Verbose, func(tx *ledger.Tx) error {
		_, err := ledger.Exercise[splice.ExternalPartyAmuletRulesCreateTransferCommandResult](tx, rules.ID,
			"ExternalPartyAmuletRules_CreateTransferCommand", splice.ExternalPartyAmuletRulesCreateTransferCommand{
				Sender: spec.Sender, Receiver: spec.Receiver, Delegate: v.cfg.Party, Amount: spec.Amount,
				ExpiresAt: spec.ExpiresAt, Nonce: spec.Nonce, Description: spec.Description, ExpectedDso: &dso,
			})
		return err
	})
}

// ExternalPartyBalance sums an external party's holdings as Splice's
// validator does: initial amounts, with the holding fees accrued by the
// earliest open round. A party the validator does not host as an
// external party is a 404.
func (v *Validator) ExternalPartyBalance(ctx context.Context, party daml.Party) (ExternalBalance, error) {
	e, ok, err := v.net.ExternalPartyOf(ctx, party)
	if err != nil {
		return ExternalBalance{}, err
	}
	if !ok || !slices.ContainsFunc(e.Hosts, func(h ledger.Hosting) bool { return h.Participant == v.cfg.Participant }) {
		return ExternalBalance{}, fault.New(fault.NotFound, "No wallet for external party %s", fault.Clip(string(party)))
	}
	open, _, err := v.scan.OpenAndIssuingRounds(ctx)
	if err != nil {
		return ExternalBalance{}, err
	}
	var earliest *splice.Round
	for _, c := range open {
		r, err := decoded[splice.OpenMiningRound](&v.decoded, c)
		if err != nil {
			return ExternalBalance{}, err
		}
		if earliest == nil || r.Payload.Round.Number < earliest.Number {
			earliest = &r.Payload.Round
		}
	}
	if earliest == nil {
		return ExternalBalance{}, fault.New(fault.NotFound, "No open mining round found")
	}
	b := ExternalBalance{Round: earliest.Number}
	add := func(amount splice.ExpiringAmount, locked bool) error {
		fee, err := splice.HoldingFee(amount, *earliest)
		if err != nil {
			return err
		}
		b.Total.Add(amount.InitialAmount)
		b.FeesTotal.Add(fee)
		if locked {
			b.Locked.Add(amount.InitialAmount)
			b.FeesLocked.Add(fee)
			return nil
		}
		b.Unlocked.Add(amount.InitialAmount)
		b.FeesUnlocked.Add(fee)
		negFee, err := daml.Numeric{}.Sub(fee)
		if err != nil {
			return err
		}
		b.Available.Add(amount.InitialAmount)
		b.Available.Add(negFee)
		return nil
	}
	amulets, err := splice.Holdings(ctx, v.net.Store(), party)
	if err != nil {
		return ExternalBalance{}, err
	}
	for _, a := range amulets {
		if err := add(a.Payload.Amount, false); err != nil {
			return ExternalBalance{}, err
		}
	}
	locked, err := splice.Active[splice.LockedAmulet](ctx, v.net.Store(), party)
	if err != nil {
		return ExternalBalance{}, err
	}
	for _, l := range locked {
		if l.Payload.Amulet.Owner != party {
			continue
		}
		if err := add(l.Payload.Amulet.Amount, true); err != nil {
			return ExternalBalance{}, err
		}
	}
	return b, nil
}

// ExternalBalance is an external party's holdings summary as of Round:
// initial amounts and the holding fees they have accrued, unlocked,
// locked and in total, and what is available (unlocked amounts less their
// fees).
type ExternalBalance struct {
	Round                               int64
	Unlocked, Locked, Total             daml.Sum
	FeesUnlocked, FeesLocked, FeesTotal daml.Sum
	Available                           daml.Sum
}

// transferCommands is Splice's TransferCommandSendTrigger: the validator
// sends each unexpired TransferCommand it is the delegate of whose sender
// is an external party it onboarded (with a ValidatorRight for it, from
// the setup proposal) and has a TransferCommandCounter, spending the sender's amulets through the
// receiver's pre-approval. It returns when a command next expires (0:
// none); failures are logged and retried at the next step.
func (a *Automation) transferCommands(ctx context.Context, now daml.Timestamp) daml.Timestamp {
	v := a.v
	cmds, err := splice.Active[splice.TransferCommand](ctx, v.net.Store(), v.cfg.Party)
	if err != nil {
		if ctx.Err() == nil { // not the automation stopping
			a.log.Warn("listing transfer commands failed", "err", err)
		}
		return 0
	}
	var next daml.Timestamp
	for _, c := range cmds {
		p := c.Payload
		if p.Delegate != v.cfg.Party || p.DSO != v.cfg.DSO || p.ExpiresAt < now {
			continue
		}
		if next == 0 || p.ExpiresAt+1 < next {
			next = p.ExpiresAt + 1
		}
		if err := a.sendTransferCommand(ctx, c); err != nil && ctx.Err() == nil {
			a.log.Info("transfer command not sent", "command", c.ID, "sender", p.Sender, "nonce", p.Nonce, "err", err)
		}
	}
	return next
}

// errNotReady is a command the trigger leaves for later.
var errNotReady = fault.New(fault.FailedPrecondition, "not ready")

func (a *Automation) sendTransferCommand(ctx context.Context, c splice.Contract[splice.TransferCommand]) error {
	v := a.v
	sender := c.Payload.Sender
	if _, ok, err := v.net.ExternalPartyOf(ctx, sender); err != nil || !ok {
		return err // a local party's commands are not the validator's to send
	}
	rights, err := splice.Active[splice.ValidatorRight](ctx, v.net.Store(), sender)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(rights, func(r splice.Contract[splice.ValidatorRight]) bool {
		return r.Payload.User == sender && r.Payload.Validator == v.cfg.Party
	}) {
		return nil // not a party this validator onboarded
	}
	counters, err := splice.Active[splice.TransferCommandCounter](ctx, v.net.Store(), sender)
	if err != nil {
		return err
	}
	var counter *splice.Contract[splice.TransferCommandCounter]
	for i := range counters {
		if counters[i].Payload.Sender == sender && counters[i].Payload.DSO == v.cfg.DSO {
			counter = &counters[i]
		}
	}
	if counter == nil {
		return fmt.Errorf("no TransferCommandCounter for %s yet, waiting for the DSO to create it: %w", sender, errNotReady)
	}
	var extra []*ledger.Contract
	var preapproval *daml.ContractID
	pc, err := v.scan.TransferPreapprovalByParty(ctx, c.Payload.Receiver)
	switch {
	case err == nil:
		extra, preapproval = append(extra, pc), &pc.ID
	case !fault.Is(err, fault.NotFound):
		return err
	}
	defer v.spending.lock(sender)()
	for attempt := 0; ; attempt++ {
		ac, err := v.amuletContext(ctx)
		if err != nil {
			return err
		}
		_, hs, err := v.Holdings(ctx, Wallet{Party: sender})
		if err != nil {
			return err
		}
		inputs := splice.InputAmulets(selectInputs(hs, maxInputs(ac), nil).IDs...)
		_, err = v.net.Submit(ctx, ledger.Command{
			Participant: v.cfg.Participant, UserID: v.cfg.OperatorUser,
			ActAs: []daml.Party{v.cfg.Party}, ReadAs: []daml.Party{sender},
			CommandID: splice.CommandID("transfer-command-send"), Disclosed: slices.Concat(ac.Disclosed(), extra),
			Run: func(tx *ledger.Tx) error {
				_, err := ledger.Exercise[splice.TransferCommandSendResult](tx, c.ID, "TransferCommand_Send", splice.TransferCommandSend{
					Context: ac.PaymentContext(), Inputs: inputs, TransferPreapprovalCidO: preapproval, TransferCounterCid: counter.ID,
				})
				return err
			},
		})
		if err != nil && attempt == 0 && stale(err) {
			v.scan.Invalidate()
			continue
		}
		return err
	}
}
