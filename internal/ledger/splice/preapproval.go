package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Transfer pre-approvals (Splice.AmuletRules' TransferPreapproval and
// Splice.Wallet.TransferPreapproval's proposal): a receiver lets anyone
// send it amulet without an offer, for a period a provider pays for by
// burning amulet. Scan serves them, newest first, for discovery.

// TransferPreapproval is Splice.AmuletRules:TransferPreapproval.
type TransferPreapproval struct {
	DSO      daml.Party `daml:"dso"`
	Receiver daml.Party `daml:"receiver"`
	// Provider manages the pre-approval for the receiver (the receiver
	// itself when self-managed) and earns the app rewards of transfers
	// through it.
	Provider daml.Party `daml:"provider"`
	// ValidFrom starts the period paid for; renewals keep it.
	ValidFrom daml.Timestamp `daml:"validFrom"`
	// LastRenewedAt is the expiry before the last renewal (or the
	// creation time), kept for tracking only.
	LastRenewedAt daml.Timestamp `daml:"lastRenewedAt"`
	ExpiresAt     daml.Timestamp `daml:"expiresAt"`
}

// TemplateID implements ledger.Template.
func (TransferPreapproval) TemplateID() ledger.TemplateID {
	return PackageAmulet.Template(moduleAmuletRules, "TransferPreapproval")
}

// DamlIdentifier implements daml.Identified.
func (p TransferPreapproval) DamlIdentifier() daml.Identifier { return p.TemplateID().Identifier }

// Signatories implements ledger.Template: receiver, provider and DSO.
func (p TransferPreapproval) Signatories() []daml.Party {
	return []daml.Party{p.Receiver, p.Provider, p.DSO}
}

// Observers implements ledger.Template.
func (TransferPreapproval) Observers() []daml.Party { return nil }

// Ensure is the template's ensure: it expires after validFrom and was not
// renewed before it.
func (p TransferPreapproval) Ensure() error {
	if p.ExpiresAt <= p.ValidFrom || p.LastRenewedAt < p.ValidFrom {
		return errorf("transfer pre-approval must expire after validFrom (%s) and be renewed no earlier", p.ValidFrom)
	}
	return nil
}

// TransferPreapprovalProposal is
// Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal: a
// receiver asks a provider to buy a pre-approval for it.
type TransferPreapprovalProposal struct {
	Receiver daml.Party `daml:"receiver"`
	Provider daml.Party `daml:"provider"`
	// ExpectedDso must be set (it is optional only for upgrading's sake):
	// accepting checks the rules against it.
	ExpectedDso *daml.Party `daml:"expectedDso"`
}

// TemplateID implements ledger.Template.
func (TransferPreapprovalProposal) TemplateID() ledger.TemplateID {
	return PackageWallet.Template(moduleTransferPreapproval, "TransferPreapprovalProposal")
}

// DamlIdentifier implements daml.Identified.
func (p TransferPreapprovalProposal) DamlIdentifier() daml.Identifier {
	return p.TemplateID().Identifier
}

// Signatories implements ledger.Template: the receiver.
func (p TransferPreapprovalProposal) Signatories() []daml.Party { return []daml.Party{p.Receiver} }

// Observers implements ledger.Template: the provider.
func (p TransferPreapprovalProposal) Observers() []daml.Party { return []daml.Party{p.Provider} }

// AmuletRulesCreateTransferPreapproval is the argument of
// AmuletRules_CreateTransferPreapproval.
type AmuletRulesCreateTransferPreapproval struct {
	Context PaymentTransferContext `daml:"context"`
	// Inputs pay the fee, if any: none is charged up to the
	// configuration's transferPreapprovalBaseDuration.
	Inputs      []TransferInput `daml:"inputs"`
	Receiver    daml.Party      `daml:"receiver"`
	Provider    daml.Party      `daml:"provider"`
	ExpiresAt   daml.Timestamp  `daml:"expiresAt"`
	ExpectedDso *daml.Party     `daml:"expectedDso"`
	// OptCreatedAt, when set, must be in the past; it replaces ledger
	// time as validFrom.
	OptCreatedAt *daml.Timestamp `daml:"optCreatedAt"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesCreateTransferPreapproval) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_CreateTransferPreapproval")
}

// AmuletRulesCreateTransferPreapprovalResult is the choice's result.
type AmuletRulesCreateTransferPreapprovalResult struct {
	TransferPreapprovalCid daml.ContractID `daml:"transferPreapprovalCid"`
	TransferResult         TransferResult  `daml:"transferResult"`
	AmuletPaid             daml.Numeric    `daml:"amuletPaid"`
	Meta                   *Metadata       `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (AmuletRulesCreateTransferPreapprovalResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("AmuletRules_CreateTransferPreapprovalResult")
}

// TransferPreapprovalFetch is the argument of TransferPreapproval_Fetch.
type TransferPreapprovalFetch struct {
	P daml.Party `daml:"p"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalFetch) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_Fetch")
}

// TransferPreapprovalSend is the argument of the deprecated
// TransferPreapproval_Send.
type TransferPreapprovalSend struct {
	Context     PaymentTransferContext `daml:"context"`
	Inputs      []TransferInput        `daml:"inputs"`
	Amount      daml.Numeric           `daml:"amount"`
	Sender      daml.Party             `daml:"sender"`
	Description *string                `daml:"description"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalSend) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_Send")
}

// TransferPreapprovalSendResult is TransferPreapproval_Send's result: the
// transfer's result without its metadata, which Meta carries with the
// description.
type TransferPreapprovalSendResult struct {
	Result TransferResult `daml:"result"`
	Meta   *Metadata      `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalSendResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_SendResult")
}

// TransferPreapprovalRenew is the argument of TransferPreapproval_Renew.
type TransferPreapprovalRenew struct {
	Context      PaymentTransferContext `daml:"context"`
	Inputs       []TransferInput        `daml:"inputs"`
	NewExpiresAt daml.Timestamp         `daml:"newExpiresAt"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalRenew) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_Renew")
}

// TransferPreapprovalRenewResult is TransferPreapproval_Renew's result.
type TransferPreapprovalRenewResult struct {
	TransferPreapprovalCid daml.ContractID `daml:"transferPreapprovalCid"`
	TransferResult         TransferResult  `daml:"transferResult"`
	Receiver               daml.Party      `daml:"receiver"`
	Provider               daml.Party      `daml:"provider"`
	AmuletPaid             daml.Numeric    `daml:"amuletPaid"`
	Meta                   *Metadata       `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalRenewResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_RenewResult")
}

// TransferPreapprovalCancel is the argument of TransferPreapproval_Cancel.
type TransferPreapprovalCancel struct {
	P daml.Party `daml:"p"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalCancel) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_Cancel")
}

// The empty argument and results of the pre-approval's choices.
type (
	// TransferPreapprovalExpire is the argument of TransferPreapproval_Expire.
	TransferPreapprovalExpire struct{}
	// TransferPreapprovalExpireResult is its result.
	TransferPreapprovalExpireResult struct{}
	// TransferPreapprovalCancelResult is TransferPreapproval_Cancel's result.
	TransferPreapprovalCancelResult struct{}
)

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalExpire) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_Expire")
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalExpireResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_ExpireResult")
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalCancelResult) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_CancelResult")
}

// TransferPreapprovalProposalAccept is the argument of
// TransferPreapprovalProposal_Accept.
type TransferPreapprovalProposalAccept struct {
	Context   PaymentTransferContext `daml:"context"`
	Inputs    []TransferInput        `daml:"inputs"`
	ExpiresAt daml.Timestamp         `daml:"expiresAt"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalProposalAccept) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferPreapproval, "TransferPreapprovalProposal_Accept")
}

// TransferPreapprovalProposalAcceptResult is the choice's result.
type TransferPreapprovalProposalAcceptResult struct {
	TransferPreapprovalCid daml.ContractID `daml:"transferPreapprovalCid"`
	TransferResult         TransferResult  `daml:"transferResult"`
	AmuletPaid             daml.Numeric    `daml:"amuletPaid"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalProposalAcceptResult) DamlIdentifier() daml.Identifier {
	return PackageWallet.Identifier(moduleTransferPreapproval, "TransferPreapprovalProposal_AcceptResult")
}

// The AmuletConfig defaults of the pre-approval's fee (Splice.AmuletConfig).
var (
	// defaultTransferPreapprovalFee is the fee in USD per day.
	defaultTransferPreapprovalFee = num("0.00274")
	// defaultTransferPreapprovalBaseDuration is the free period of a
	// creation or renewal: 90 days.
	defaultTransferPreapprovalBaseDuration = RelTime{Microseconds: 90 * microsPerDay}
)

const microsPerDay = 24 * 60 * 60 * 1000 * 1000

func registerPreapprovals(r *ledger.Registry) {
	ledger.AddChoice(r, "AmuletRules_CreateTransferPreapproval", false,
		func(_ AmuletRules, arg AmuletRulesCreateTransferPreapproval) []daml.Party {
			return []daml.Party{arg.Provider, arg.Receiver}
		},
		createTransferPreapproval)

	ledger.RegisterTemplate[TransferPreapproval](r)
	ledger.AddChoice(r, "TransferPreapproval_Fetch", false,
		func(_ TransferPreapproval, arg TransferPreapprovalFetch) []daml.Party { return []daml.Party{arg.P} },
		func(_ *ledger.Tx, _ daml.ContractID, p TransferPreapproval, _ TransferPreapprovalFetch) (TransferPreapproval, error) {
			return p, nil
		})
	ledger.AddChoice(r, "TransferPreapproval_Send", false,
		func(_ TransferPreapproval, arg TransferPreapprovalSend) []daml.Party { return []daml.Party{arg.Sender} },
		sendThroughPreapproval)
	ledger.AddChoice(r, "TransferPreapproval_SendV2", false,
		func(_ TransferPreapproval, arg TransferPreapprovalSendV2) []daml.Party {
			return []daml.Party{arg.Sender}
		},
		sendV2ThroughPreapproval)
	ledger.AddChoice(r, "TransferPreapproval_Renew", true,
		func(p TransferPreapproval, _ TransferPreapprovalRenew) []daml.Party { return []daml.Party{p.Provider} },
		renewTransferPreapproval)
	ledger.AddChoice(r, "TransferPreapproval_Expire", true,
		func(p TransferPreapproval, _ TransferPreapprovalExpire) []daml.Party { return []daml.Party{p.DSO} },
		func(tx *ledger.Tx, _ daml.ContractID, p TransferPreapproval, _ TransferPreapprovalExpire) (TransferPreapprovalExpireResult, error) {
			return TransferPreapprovalExpireResult{}, assertDeadlineExceeded(tx, "TransferPreapproval.expiresAt", p.ExpiresAt)
		})
	ledger.AddChoice(r, "TransferPreapproval_Cancel", true,
		func(_ TransferPreapproval, arg TransferPreapprovalCancel) []daml.Party { return []daml.Party{arg.P} },
		func(tx *ledger.Tx, _ daml.ContractID, p TransferPreapproval, arg TransferPreapprovalCancel) (TransferPreapprovalCancelResult, error) {
			if err := require(tx, "Controller "+showParty(arg.P)+" is either receiver or provider", arg.P == p.Receiver || arg.P == p.Provider); err != nil {
				return TransferPreapprovalCancelResult{}, err
			}
			return TransferPreapprovalCancelResult{}, assertWithinDeadline(tx, "TransferPreapproval.expiresAt", p.ExpiresAt)
		})

	ledger.RegisterTemplate[TransferPreapprovalProposal](r)
	ledger.AddChoice(r, "TransferPreapprovalProposal_Accept", true,
		func(p TransferPreapprovalProposal, _ TransferPreapprovalProposalAccept) []daml.Party {
			return []daml.Party{p.Provider}
		},
		func(tx *ledger.Tx, _ daml.ContractID, p TransferPreapprovalProposal, arg TransferPreapprovalProposalAccept) (TransferPreapprovalProposalAcceptResult, error) {
			now := tx.Now()
			if err := assertWithinDeadline(tx, "expiresAt is not in the past", arg.ExpiresAt); err != nil {
				return TransferPreapprovalProposalAcceptResult{}, err
			}
			res, err := ledger.Exercise[AmuletRulesCreateTransferPreapprovalResult](tx, arg.Context.AmuletRules, "AmuletRules_CreateTransferPreapproval",
				AmuletRulesCreateTransferPreapproval{
					Context: arg.Context, Inputs: arg.Inputs, Receiver: p.Receiver, Provider: p.Provider,
					ExpiresAt: arg.ExpiresAt, ExpectedDso: p.ExpectedDso, OptCreatedAt: &now,
				})
			if err != nil {
				return TransferPreapprovalProposalAcceptResult{}, err
			}
			return TransferPreapprovalProposalAcceptResult{
				TransferPreapprovalCid: res.TransferPreapprovalCid, TransferResult: res.TransferResult, AmuletPaid: res.AmuletPaid,
			}, nil
		})
}

// createTransferPreapproval is AmuletRules_CreateTransferPreapproval: the
// provider pays for the period beyond the free base duration, and the
// pre-approval is valid from the creation time.
func createTransferPreapproval(tx *ledger.Tx, _ daml.ContractID, rules AmuletRules, arg AmuletRulesCreateTransferPreapproval) (AmuletRulesCreateTransferPreapprovalResult, error) {
	var res AmuletRulesCreateTransferPreapprovalResult
	if err := checkExpectedDso(rules.DSO, arg.ExpectedDso); err != nil {
		return res, err
	}
	createdAt, err := getAndValidateCreatedAt(tx, arg.OptCreatedAt)
	if err != nil {
		return res, err
	}
	if err := assertWithinDeadline(tx, "expiresAt", arg.ExpiresAt); err != nil {
		return res, err
	}
	paid, result, meta, err := payForTransferPreapproval(tx, "create TransferPreapproval", rules.DSO, arg.Provider, arg.Context, arg.Inputs, createdAt, arg.ExpiresAt)
	if err != nil {
		return res, err
	}
	cid, err := ledger.Create(tx, TransferPreapproval{
		DSO: rules.DSO, Receiver: arg.Receiver, Provider: arg.Provider,
		ValidFrom: createdAt, LastRenewedAt: createdAt, ExpiresAt: arg.ExpiresAt,
	})
	if err != nil {
		return res, err
	}
	return AmuletRulesCreateTransferPreapprovalResult{TransferPreapprovalCid: cid, TransferResult: result, AmuletPaid: paid, Meta: meta}, nil
}

// getAndValidateCreatedAt is Splice.AmuletRules' getAndValidateCreatedAt:
// ledger time, or the caller's time if it is not in the future.
func getAndValidateCreatedAt(tx *ledger.Tx, opt *daml.Timestamp) (daml.Timestamp, error) {
	if opt == nil {
		return tx.Now(), nil
	}
	return *opt, assertDeadlineExceeded(tx, "createdAt", *opt)
}

// sendThroughPreapproval is the deprecated TransferPreapproval_Send: a
// transfer of amount to the receiver, with the pre-approval's provider as
// the transfer's provider and no beneficiaries (the rewards go to the
// receiver's provider, not to whomever the sender names).
func sendThroughPreapproval(tx *ledger.Tx, _ daml.ContractID, p TransferPreapproval, arg TransferPreapprovalSend) (TransferPreapprovalSendResult, error) {
	var res TransferPreapprovalSendResult
	described := &Metadata{Values: map[string]string{}}
	if arg.Description != nil {
		described = reasonMeta(*arg.Description)
	}
	if err := assertWithinDeadline(tx, "TransferPreapproval.expiresAt", p.ExpiresAt); err != nil {
		return res, err
	}
	result, err := ledger.Exercise[TransferResult](tx, arg.Context.AmuletRules, "AmuletRules_Transfer", AmuletRulesTransfer{
		Transfer: Transfer{
			Sender: arg.Sender, Provider: p.Provider, Inputs: arg.Inputs,
			Outputs: []TransferOutput{{Receiver: p.Receiver, ReceiverFeeRatio: zero, Amount: arg.Amount, Meta: described}},
		},
		Context:     arg.Context.Context,
		ExpectedDso: &p.DSO,
	})
	if err != nil {
		return res, err
	}
	// The V1 history's metadata is the transfer's (which reports its
	// mints) with the description added.
	history := unionMeta(result.Meta, described)
	result.Meta = nil
	return TransferPreapprovalSendResult{Result: result, Meta: history}, nil
}

// renewTransferPreapproval is TransferPreapproval_Renew: the provider
// extends the expiry, paying for what goes beyond the free base duration.
func renewTransferPreapproval(tx *ledger.Tx, _ daml.ContractID, p TransferPreapproval, arg TransferPreapprovalRenew) (TransferPreapprovalRenewResult, error) {
	var res TransferPreapprovalRenewResult
	if err := assertWithinDeadline(tx, "TransferPreapproval.expiresAt", p.ExpiresAt); err != nil {
		return res, err
	}
	if err := require(tx, "newExpiresAt is after expiresAt", arg.NewExpiresAt > p.ExpiresAt); err != nil {
		return res, err
	}
	paid, result, meta, err := payForTransferPreapproval(tx, "renew TransferPreapproval", p.DSO, p.Provider, arg.Context, arg.Inputs, p.ExpiresAt, arg.NewExpiresAt)
	if err != nil {
		return res, err
	}
	renewed := p
	renewed.LastRenewedAt, renewed.ExpiresAt = p.ExpiresAt, arg.NewExpiresAt
	cid, err := ledger.Create(tx, renewed)
	if err != nil {
		return res, err
	}
	return TransferPreapprovalRenewResult{
		TransferPreapprovalCid: cid, TransferResult: result, Receiver: p.Receiver, Provider: p.Provider,
		AmuletPaid: paid, Meta: meta,
	}, nil
}

// payForTransferPreapproval is Splice's payForTransferPreapproval: an
// extension from expiresAt to newExpiresAt up to the configuration's base
// duration is free (the traffic of the transaction pays for it); beyond
// it the provider burns the fee for the extra days, in amulet at the
// context round's price.
func payForTransferPreapproval(tx *ledger.Tx, reason string, dso, provider daml.Party, context PaymentTransferContext, inputs []TransferInput, expiresAt, newExpiresAt daml.Timestamp) (daml.Numeric, TransferResult, *Metadata, error) {
	rules, err := fetchDsoContract[AmuletRules](tx, context.AmuletRules, dso)
	if err != nil {
		return zero, TransferResult{}, nil, err
	}
	cfg := rules.config(tx.Now())
	base := defaultTransferPreapprovalBaseDuration
	if cfg.TransferPreapprovalBaseDuration != nil {
		base = *cfg.TransferPreapprovalBaseDuration
	}
	paidExtension := RelTime{Microseconds: int64(newExpiresAt-expiresAt) - base.Microseconds}
	if paidExtension.Microseconds <= 0 {
		round, err := fetchDsoContract[OpenMiningRound](tx, context.Context.OpenMiningRound, dso)
		if err != nil {
			return zero, TransferResult{}, nil, err
		}
		return zero, TransferResult{
			Round: round.Round,
			Summary: TransferSummary{
				InputAppRewardAmount: zero, InputValidatorRewardAmount: zero, InputSvRewardAmount: zero,
				InputAmuletAmount: zero, BalanceChanges: daml.Map[daml.Party, BalanceChange]{},
				HoldingFees: zero, OutputFees: []daml.Numeric{}, SenderChangeFee: zero, SenderChangeAmount: zero,
				AmuletPrice: round.AmuletPrice,
			},
			CreatedAmulets: []CreatedAmulet{},
		}, &Metadata{Values: map[string]string{}}, nil
	}
	fee, err := computeTransferPreapprovalFee(tx, paidExtension, cfg, context.Context, dso)
	if err != nil {
		return zero, TransferResult{}, nil, err
	}
	result, meta, err := splitAndBurn(tx, provider, fee, inputs, context.Context, dso, reason)
	return fee, result, meta, err
}

// computeTransferPreapprovalFee is Splice's computeTransferPreapprovalFee,
// in amulet: the days of the duration times the configuration's fee per
// day, at the context round's price.
func computeTransferPreapprovalFee(tx *ledger.Tx, duration RelTime, cfg AmuletConfig, context TransferContext, dso daml.Party) (daml.Numeric, error) {
	if err := require(tx, "duration is positive", duration.Microseconds > 0); err != nil {
		return zero, err
	}
	perDay := defaultTransferPreapprovalFee
	if cfg.TransferPreapprovalFee != nil {
		perDay = *cfg.TransferPreapprovalFee
	}
	var a arith
	days := a.div(a.fromInt(duration.Microseconds), a.fromInt(microsPerDay))
	feeUsd := a.mul(days, perDay)
	if a.err != nil {
		return zero, a.err
	}
	round, err := fetchOpenRound(tx, context.OpenMiningRound, dso, dso)
	if err != nil {
		return zero, err
	}
	fee := a.div(feeUsd, round.AmuletPrice)
	return fee, a.err
}

// splitAndBurn is Splice's splitAndBurn: the sender splits amount off its
// inputs in a transfer to itself that records no app activity, the split
// amulet is archived (burned), and a ValidatorRewardCoupon over the whole
// burn records the sender's activity. The result's balance changes count
// the burned amulet; its metadata is the caller's to set.
func splitAndBurn(tx *ledger.Tx, sender daml.Party, amount daml.Numeric, inputs []TransferInput, context TransferContext, dso daml.Party, usage string) (TransferResult, *Metadata, error) {
	result, err := executeTransferIssuing(tx, dso, context, Transfer{
		Sender: sender, Provider: sender, Inputs: inputs,
		Outputs: []TransferOutput{{Receiver: sender, ReceiverFeeRatio: zero, Amount: amount, Meta: reasonMeta("split for " + usage)}},
	}, false)
	if err != nil {
		return TransferResult{}, nil, err
	}
	if len(result.CreatedAmulets) != 1 || result.CreatedAmulets[0].TransferResultAmulet == nil {
		// Daml's irrefutable pattern match fails the same way.
		return TransferResult{}, nil, abort("Irrefutable pattern match failed: the split did not create one amulet")
	}
	split := *result.CreatedAmulets[0].TransferResultAmulet
	burned, err := fetchAndArchive(tx, forOwner{dso, sender}, split, ownerOf)
	if err != nil {
		return TransferResult{}, nil, err
	}
	var a arith
	couponAmount := a.add(amount, a.sum(result.Summary.OutputFees...))
	if a.err != nil {
		return TransferResult{}, nil, a.err
	}
	if _, err := ledger.Create(tx, ValidatorRewardCoupon{DSO: dso, Round: result.Round, User: sender, Amount: couponAmount}); err != nil {
		return TransferResult{}, nil, err
	}
	asOfRoundZero := a.add(burned.Amount.InitialAmount, a.mul(burned.Amount.RatePerRound.Rate, a.fromInt(burned.Amount.CreatedAt.Number)))
	changes := map[daml.Party]BalanceChange{}
	for _, e := range result.Summary.BalanceChanges {
		changes[e.Key] = e.Value
	}
	prev := changes[sender]
	changes[sender] = BalanceChange{
		ChangeToInitialAmountAsOfRoundZero: a.sub(prev.ChangeToInitialAmountAsOfRoundZero, asOfRoundZero),
		ChangeToHoldingFeesRate:            a.sub(prev.ChangeToHoldingFeesRate, burned.Amount.RatePerRound.Rate),
	}
	total, err := result.Summary.Burned()
	if err != nil {
		return TransferResult{}, nil, err
	}
	burnAmount := a.add(total, amount)
	if a.err != nil {
		return TransferResult{}, nil, a.err
	}
	transferMeta := result.Meta
	result.Meta = nil
	result.Summary.BalanceChanges = mapOf(changes)
	meta := unionMeta(holdingTxMeta(txKindBurn, &usage, nil, &burnAmount), transferMeta)
	return result, meta, nil
}

// unionMeta is Metadata's <>: a union of the values in which the left
// operand's win, as DA.TextMap's union.
func unionMeta(left, right *Metadata) *Metadata {
	out := &Metadata{Values: map[string]string{}}
	for _, m := range []*Metadata{right, left} {
		if m != nil {
			for k, v := range m.Values {
				out.Values[k] = v
			}
		}
	}
	return out
}

// TransferPreapprovalSendV2 is the argument of TransferPreapproval_SendV2,
// the pre-approved transfer external parties make (through the token
// standard's TransferFactory), whose round data comes from an
// ExternalPartyConfigState.
type TransferPreapprovalSendV2 struct {
	Context     ExternalPartyTransferContext `daml:"context"`
	Inputs      []TransferInput              `daml:"inputs"`
	Amount      daml.Numeric                 `daml:"amount"`
	Sender      daml.Party                   `daml:"sender"`
	Description *string                      `daml:"description"`
	Meta        *Metadata                    `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalSendV2) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_SendV2")
}

// TransferPreapprovalSendV2Result is TransferPreapproval_SendV2's result:
// the transfer's result without its metadata, which Meta carries with the
// caller's metadata and description.
type TransferPreapprovalSendV2Result struct {
	Result TransferResult `daml:"result"`
	Meta   Metadata       `daml:"meta"`
}

// DamlIdentifier implements daml.Identified.
func (TransferPreapprovalSendV2Result) DamlIdentifier() daml.Identifier {
	return amuletRulesID("TransferPreapproval_SendV2Result")
}

// sendV2ThroughPreapproval is TransferPreapproval_SendV2: an
// external-party transfer of amount to the receiver, with the
// pre-approval's provider as the transfer's provider (featured if the
// context proves it) and no beneficiaries. The description, if any, is the
// reason in the output's and the result's metadata.
func sendV2ThroughPreapproval(tx *ledger.Tx, _ daml.ContractID, p TransferPreapproval, arg TransferPreapprovalSendV2) (TransferPreapprovalSendV2Result, error) {
	var none TransferPreapprovalSendV2Result
	if err := assertWithinDeadline(tx, "TransferPreapproval.expiresAt", p.ExpiresAt); err != nil {
		return none, err
	}
	described := unionMeta(arg.Meta, nil)
	if arg.Description != nil && *arg.Description != "" {
		described.Values[MetaReason] = *arg.Description
	}
	result, err := executeExternalPartyTransfer(tx, p.DSO, arg.Context, Transfer{
		Sender: arg.Sender, Provider: p.Provider, Inputs: arg.Inputs,
		Outputs: []TransferOutput{{Receiver: p.Receiver, ReceiverFeeRatio: zero, Amount: arg.Amount, Meta: described}},
	})
	if err != nil {
		return none, err
	}
	history := unionMeta(result.Meta, described)
	result.Meta = nil
	return TransferPreapprovalSendV2Result{Result: result, Meta: *history}, nil
}
