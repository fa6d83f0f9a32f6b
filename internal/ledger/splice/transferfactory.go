package splice

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The token standard's transfers of Amulet (splice-amulet 0.1.22): the
// ExternalPartyAmuletRules' TransferFactory, the two-step transfer behind
// AmuletTransferInstruction, and the external-party transfer both run on
// (Splice's executeExternalPartyTransfer), whose round data comes from an
// ExternalPartyConfigState so that a prepared transaction stays valid for
// a day. Transfers charge no fees (CIP-78).
//
// Splice also records each holdings change by exercising the token
// standard's V2 EventLog_HoldingsChange on the config state; sandnet does
// not declare the V2 interfaces and leaves those nodes out.

// ExternalPartyTransferContext is Splice.AmuletRules:ExternalPartyTransferContext.
type ExternalPartyTransferContext struct {
	ExternalPartyConfigState daml.ContractID  `daml:"externalPartyConfigState"`
	FeaturedAppRight         *daml.ContractID `daml:"featuredAppRight"`
}

// DamlIdentifier implements daml.Identified.
func (ExternalPartyTransferContext) DamlIdentifier() daml.Identifier {
	return amuletRulesID("ExternalPartyTransferContext")
}

// transferConfigAmuletFromConfigState is Splice's
// transferConfigAmuletFromExternalPartyConfigState: the state's USD
// configuration in amulet, as of its price.
func transferConfigAmuletFromConfigState(s ExternalPartyConfigState) (TransferConfig, error) {
	var a arith
	scale := a.div(num("1.0"), s.AmuletPrice)
	c := s.TransferConfig
	out := TransferConfig{
		CreateFee: FixedFee{Fee: zero}, LockHolderFee: FixedFee{Fee: zero}, ExtraFeaturedAppRewardAmount: zero,
		TransferFee:  SteppedRate{InitialRate: zero},
		HoldingFee:   RatePerRound{Rate: a.mul(scale, c.HoldingFee.Rate)},
		MaxNumInputs: c.MaxNumInputs, MaxNumOutputs: c.MaxNumOutputs, MaxNumLockHolders: c.MaxNumLockHolders,
		TokenStandardMaxTTL: c.TokenStandardMaxTTL,
	}
	return out, a.err
}

// tokenStandardMaxTTL is Splice's getTokenStandardMaxTTL (90 days unless
// configured).
func tokenStandardMaxTTL(c TransferConfig) RelTime {
	if c.TokenStandardMaxTTL != nil {
		return *c.TokenStandardMaxTTL
	}
	return RelTime{Microseconds: 90 * 24 * 3600 * 1_000_000}
}

// summarizeExternalPartyContext is Splice's
// summarizeAndValidateExternalPartyContext: the config state gives the
// round the outputs are created in, the price and the limits; a featured
// app right counts only where featured-app markers are in use.
func summarizeExternalPartyContext(tx *ledger.Tx, dso daml.Party, ctx ExternalPartyTransferContext, t Transfer) (transferContextSummary, error) {
	var csum transferContextSummary
	state, err := fetchDsoContract[ExternalPartyConfigState](tx, ctx.ExternalPartyConfigState, dso)
	if err != nil {
		return csum, err
	}
	if v := state.RewardCalculationVersion; v != nil {
		csum.rewardConfig = &RewardConfig{MintingVersion: *v}
	}
	if csum.featuredAppProvider, err = featuredAppProvider(tx, dso, csum.rewardConfig, ctx.FeaturedAppRight, t.Provider); err != nil {
		return csum, err
	}
	cfg, err := transferConfigAmuletFromConfigState(state)
	if err != nil {
		return csum, err
	}
	csum.dso, csum.config, csum.round, csum.amuletPrice = dso, cfg, state.HoldingFeesOpenRoundNumber, state.AmuletPrice
	return csum, nil
}

// executeExternalPartyTransfer is Splice's executeExternalPartyTransfer.
func executeExternalPartyTransfer(tx *ledger.Tx, dso daml.Party, ctx ExternalPartyTransferContext, t Transfer) (TransferResult, error) {
	csum, err := summarizeExternalPartyContext(tx, dso, ctx, t)
	if err != nil {
		return TransferResult{}, err
	}
	return executeSummarizedTransfer(tx, dso, csum, t, true)
}

// configStateFromContext is Splice's
// getExternalPartyConfigStateFromChoiceContext.
func configStateFromContext(tx *ledger.Tx, dso daml.Party, ctx ChoiceContext) (daml.ContractID, ExternalPartyConfigState, error) {
	cid, err := getContextCid(ctx, ContextKeyExternalPartyConfigState)
	if err != nil {
		return "", ExternalPartyConfigState{}, err
	}
	state, err := fetchDsoContract[ExternalPartyConfigState](tx, cid, dso)
	return cid, state, err
}

// transferContextFromChoiceContext is Splice's
// externalPartyTransferFromChoiceContext; featured false is
// unfeaturedPaymentContextFromChoiceContext, which ignores a featured app
// right in the context.
func transferContextFromChoiceContext(tx *ledger.Tx, dso daml.Party, ctx ChoiceContext, featured bool) (ExternalPartyTransferContext, error) {
	cid, _, err := configStateFromContext(tx, dso, ctx)
	if err != nil {
		return ExternalPartyTransferContext{}, err
	}
	right, err := lookupContextCid(ctx, ContextKeyFeaturedAppRight)
	if err != nil {
		return ExternalPartyTransferContext{}, err
	}
	if !featured {
		right = nil
	}
	return ExternalPartyTransferContext{ExternalPartyConfigState: cid, FeaturedAppRight: right}, nil
}

// holdingToTransferInputs is Splice's holdingToTransferInputs: each
// holding is fetched as a Holding of the owner; a LockedAmulet is unlocked
// with LockedAmulet_OwnerExpireLockV2, which fails unless its lock has
// expired.
func holdingToTransferInputs(tx *ledger.Tx, owner forOwner, cids []daml.ContractID) ([]TransferInput, error) {
	inputs := make([]TransferInput, len(cids))
	for i, cid := range cids {
		t, v, err := ledger.FetchInterface(tx, cid, HoldingInterface)
		if err != nil {
			return nil, err
		}
		view := v.(HoldingView)
		if err := checkGroup(cid, owner, forOwner{view.InstrumentID.Admin, view.Owner}); err != nil {
			return nil, err
		}
		if _, locked := t.(LockedAmulet); locked {
			res, err := ledger.Exercise[LockedAmuletOwnerExpireLockV2Result](tx, cid, "LockedAmulet_OwnerExpireLockV2", LockedAmuletOwnerExpireLockV2{})
			if err != nil {
				return nil, err
			}
			cid = res.AmuletCid
		}
		inputs[i] = TransferInput{InputAmulet: ptr(cid)}
	}
	return inputs, nil
}

// createdAmuletToHolding is Splice's createdAmuletToHolding.
func createdAmuletToHolding(created []CreatedAmulet) ([]daml.ContractID, error) {
	out := make([]daml.ContractID, 0, len(created))
	for _, c := range created {
		switch {
		case c.TransferResultAmulet != nil:
			out = append(out, *c.TransferResultAmulet)
		case c.TransferResultLockedAmulet != nil:
			out = append(out, *c.TransferResultLockedAmulet)
		default:
			return nil, abort("createdAmuletToHolding: unexpected ExtCreatedAmulet")
		}
	}
	return out, nil
}

func changeCids(change *daml.ContractID) []daml.ContractID {
	if change == nil {
		return []daml.ContractID{}
	}
	return []daml.ContractID{*change}
}

func metaOrEmpty(m *Metadata) Metadata {
	if m == nil {
		return emptyMetadata()
	}
	return *m
}

func emptyMetadata() Metadata { return Metadata{Values: map[string]string{}} }

// showInstrumentID is Daml's show of a HoldingV1 InstrumentId.
func showInstrumentID(i InstrumentID) string {
	return "InstrumentId {admin = " + showParty(i.Admin) + ", id = " + showText(i.ID) + "}"
}

func showText(s string) string {
	b, _ := daml.LedgerJSON.Encode(daml.Text(s))
	return string(b)
}

func showRelTime(r RelTime) string { return "RelTime {microseconds = " + itoa(r.Microseconds) + "}" }

// The cip-112 account metadata keys a V1 transfer must not carry, as
// Amulet only has basic accounts.
func accountMetaKeys(field string) []string {
	return []string{"cip-112/" + field + ".provider", "cip-112/" + field + ".id"}
}

// ensureNoAccountMeta is Splice's ensureNoAccountMeta.
func ensureNoAccountMeta(path, field string, meta Metadata) error {
	for _, k := range accountMetaKeys(field) {
		if v, ok := meta.Values[k]; ok {
			return abort("Unexpected account information in metadata of '" + path + "' in metadata key '" + k + "': " + showText(v))
		}
	}
	return nil
}

// transferFactoryTransfer is ExternalPartyAmuletRules' TransferFactory_Transfer
// (Splice's amulet_transferFactoryV1_transferImpl with actors [sender]):
// the checks, then a self transfer, an offer (a lock and an
// AmuletTransferInstruction) or, given a pre-approval, a direct transfer
// through TransferPreapproval_SendV2.
func transferFactoryTransfer(tx *ledger.Tx, _ daml.ContractID, rules ExternalPartyAmuletRules, arg TransferFactoryTransfer) (TransferInstructionResult, error) {
	var none TransferInstructionResult
	dso, transfer, extra := rules.DSO, arg.Transfer, arg.ExtraArgs
	actors := []daml.Party{transfer.Sender}
	// checkActors: the V1 choice's only actor is the sender, which is
	// always among the allowed sets.
	if err := require(tx, "Expected admin "+showParty(arg.ExpectedAdmin)+" matches actual admin "+showParty(dso), arg.ExpectedAdmin == dso); err != nil {
		return none, err
	}
	preapproval, err := lookupContextCid(extra.Context, ContextKeyTransferPreapproval)
	if err != nil {
		return none, err
	}
	if preapproval != nil {
		if _, err := fetchChecked(tx, forOwner{dso, transfer.Receiver}, *preapproval, preapprovalOwner); err != nil {
			return none, err
		}
	}
	want := AmuletInstrumentID(dso)
	if err := require(tx, "Expected instrumentId "+showInstrumentID(want)+" matches actual instrumentId "+showInstrumentID(transfer.InstrumentID), want == transfer.InstrumentID); err != nil {
		return none, err
	}
	if err := require(tx, "Amount must be positive", transfer.Amount.Sign() > 0); err != nil {
		return none, err
	}
	if err := assertDeadlineExceeded(tx, "transfer.requestedAt", transfer.RequestedAt); err != nil {
		return none, err
	}
	if err := assertWithinDeadline(tx, "transfer.executeBefore", transfer.ExecuteBefore); err != nil {
		return none, err
	}
	_, state, err := configStateFromContext(tx, dso, extra.Context)
	if err != nil {
		return none, err
	}
	cfg, err := transferConfigAmuletFromConfigState(state)
	if err != nil {
		return none, err
	}
	lifetime := RelTime{Microseconds: int64(transfer.ExecuteBefore) - int64(transfer.RequestedAt)}
	maxTTL := tokenStandardMaxTTL(cfg)
	if err := requireQuoted(lifetime.Microseconds <= maxTTL.Microseconds, "transferLifetime", "is greater than", "tokenStandardMaxTTL",
		showRelTime(lifetime), showRelTime(maxTTL)); err != nil {
		return none, err
	}
	if err := require(tx, "At least one holding must be provided", len(transfer.InputHoldingCids) > 0); err != nil {
		return none, err
	}
	if err := ensureNoAccountMeta("transfer", "sender", transfer.Meta); err != nil {
		return none, err
	}
	if err := ensureNoAccountMeta("transfer", "receiver", transfer.Meta); err != nil {
		return none, err
	}
	owner := forOwner{dso, transfer.Sender}
	switch {
	case slices.Contains(actors, transfer.Receiver):
		// A self-transfer: a merge or split of the sender's holdings.
		ctx, err := transferContextFromChoiceContext(tx, dso, extra.Context, false)
		if err != nil {
			return none, err
		}
		inputs, err := holdingToTransferInputs(tx, owner, transfer.InputHoldingCids)
		if err != nil {
			return none, err
		}
		meta := transfer.Meta
		result, err := executeExternalPartyTransfer(tx, dso, ctx, Transfer{
			Sender: transfer.Sender, Provider: transfer.Sender, Inputs: inputs,
			Outputs: []TransferOutput{{Receiver: transfer.Receiver, Amount: transfer.Amount, ReceiverFeeRatio: zero, Meta: &meta}},
		})
		if err != nil {
			return none, err
		}
		received, err := createdAmuletToHolding(result.CreatedAmulets)
		if err != nil {
			return none, err
		}
		return TransferInstructionResult{
			Output:           TransferInstructionResultOutput{Completed: &TransferInstructionResultCompleted{ReceiverHoldingCids: received}},
			SenderChangeCids: changeCids(result.SenderChangeAmulet),
			Meta:             metaOrEmpty(result.Meta),
		}, nil
	case preapproval == nil:
		// An offer: lock the amount for the receiver to accept.
		ctx, err := transferContextFromChoiceContext(tx, dso, extra.Context, false)
		if err != nil {
			return none, err
		}
		locked, change, meta, err := prepareTwoStepTransfer(tx, twoStepTransferOf(transfer), transfer.RequestedAt, transfer.InputHoldingCids, ctx)
		if err != nil {
			return none, err
		}
		instructed := transfer
		instructed.InputHoldingCids = []daml.ContractID{locked}
		cid, err := ledger.Create(tx, AmuletTransferInstruction{LockedAmulet: locked, Transfer: instructed})
		if err != nil {
			return none, err
		}
		return TransferInstructionResult{
			Output:           TransferInstructionResultOutput{Pending: &TransferInstructionResultPending{TransferInstructionCid: cid}},
			SenderChangeCids: change,
			Meta:             meta,
		}, nil
	default:
		// A direct transfer through the receiver's pre-approval, whose
		// provider may be featured.
		ctx, err := transferContextFromChoiceContext(tx, dso, extra.Context, true)
		if err != nil {
			return none, err
		}
		inputs, err := holdingToTransferInputs(tx, owner, transfer.InputHoldingCids)
		if err != nil {
			return none, err
		}
		var description *string
		if r, ok := transfer.Meta.Values[MetaReason]; ok {
			description = &r
		}
		meta := transfer.Meta
		res, err := ledger.Exercise[TransferPreapprovalSendV2Result](tx, *preapproval, "TransferPreapproval_SendV2", TransferPreapprovalSendV2{
			Context: ctx, Inputs: inputs, Amount: transfer.Amount, Sender: transfer.Sender, Description: description, Meta: &meta,
		})
		if err != nil {
			return none, err
		}
		received, err := createdAmuletToHolding(res.Result.CreatedAmulets)
		if err != nil {
			return none, err
		}
		return TransferInstructionResult{
			Output:           TransferInstructionResultOutput{Completed: &TransferInstructionResultCompleted{ReceiverHoldingCids: received}},
			SenderChangeCids: changeCids(res.Result.SenderChangeAmulet),
			Meta:             res.Meta,
		}, nil
	}
}

// twoStepTransfer is Splice.Amulet.TwoStepTransfer's TwoStepTransfer. A
// transfer instruction's (standardTransferToTwoStepTransfer) is
// unfeatured, the sender serving as its own provider; an allocation's
// has the executor as provider and may be featured.
type twoStepTransfer struct {
	dso, sender, receiver, provider daml.Party
	amount                          daml.Numeric
	lockContext                     string
	transferBefore                  daml.Timestamp
	transferBeforeDeadline          string
	// allowFeaturing lets the second step read a featured app right of
	// the provider from the context, and app-reward beneficiaries from
	// the choice's metadata.
	allowFeaturing bool
}

func twoStepTransferOf(t TokenTransfer) twoStepTransfer {
	return twoStepTransfer{
		dso: t.InstrumentID.Admin, sender: t.Sender, receiver: t.Receiver, provider: t.Sender,
		amount: t.Amount, transferBefore: t.ExecuteBefore, transferBeforeDeadline: "Transfer.executeBefore",
		lockContext: "transfer to " + showParty(t.Receiver),
	}
}

// prepareTwoStepTransfer is Splice's prepareTwoStepTransfer: the sender
// transfers the amount to itself, locked to the DSO until transferBefore.
// It returns the LockedAmulet, the sender's change and the transfer's
// metadata.
func prepareTwoStepTransfer(tx *ledger.Tx, s twoStepTransfer, requestedAt daml.Timestamp, holdings []daml.ContractID, ctx ExternalPartyTransferContext) (daml.ContractID, []daml.ContractID, Metadata, error) {
	if err := require(tx, "requestedAt < transferBefore", requestedAt < s.transferBefore); err != nil {
		return "", nil, Metadata{}, err
	}
	inputs, err := holdingToTransferInputs(tx, forOwner{s.dso, s.sender}, holdings)
	if err != nil {
		return "", nil, Metadata{}, err
	}
	lockContext := s.lockContext
	result, err := executeExternalPartyTransfer(tx, s.dso, ctx, Transfer{
		Sender: s.sender, Provider: s.sender, Inputs: inputs,
		Outputs: []TransferOutput{{
			Receiver: s.sender, Amount: s.amount, ReceiverFeeRatio: zero,
			Lock: &TimeLock{ExpiresAt: s.transferBefore, Holders: []daml.Party{s.dso}, OptContext: &lockContext},
			Meta: reasonMeta("lock for " + lockContext),
		}},
	})
	if err != nil {
		return "", nil, Metadata{}, err
	}
	if len(result.CreatedAmulets) != 1 || result.CreatedAmulets[0].TransferResultLockedAmulet == nil {
		return "", nil, Metadata{}, abort("Irrefutable pattern match failed")
	}
	return *result.CreatedAmulets[0].TransferResultLockedAmulet, changeCids(result.SenderChangeAmulet), metaOrEmpty(result.Meta), nil
}

// executeTwoStepTransfer is Splice's executeTwoStepTransfer: unlock the
// LockedAmulet and transfer it to the receiver. It returns the sender's
// change, the receiver's holdings and the metadata.
func executeTwoStepTransfer(tx *ledger.Tx, s twoStepTransfer, locked daml.ContractID, transferMeta Metadata, extra ExtraArgs) ([]daml.ContractID, []daml.ContractID, Metadata, error) {
	if err := assertWithinDeadline(tx, s.transferBeforeDeadline, s.transferBefore); err != nil {
		return nil, nil, Metadata{}, err
	}
	var beneficiaries *[]AppRewardBeneficiary
	if s.allowFeaturing {
		var err error
		if beneficiaries, err = beneficiariesFromMetadata(extra.Meta); err != nil {
			return nil, nil, Metadata{}, err
		}
	}
	ctx, err := transferContextFromChoiceContext(tx, s.dso, extra.Context, s.allowFeaturing)
	if err != nil {
		return nil, nil, Metadata{}, err
	}
	unlocked, err := ledger.Exercise[LockedAmuletUnlockV2Result](tx, locked, "LockedAmulet_UnlockV2", LockedAmuletUnlockV2{})
	if err != nil {
		return nil, nil, Metadata{}, err
	}
	result, err := executeExternalPartyTransfer(tx, s.dso, ctx, Transfer{
		Sender: s.sender, Provider: s.provider, Inputs: []TransferInput{{InputAmulet: ptr(unlocked.AmuletCid)}},
		Outputs:       []TransferOutput{{Receiver: s.receiver, Amount: s.amount, ReceiverFeeRatio: zero, Meta: &transferMeta}},
		Beneficiaries: beneficiaries,
	})
	if err != nil {
		return nil, nil, Metadata{}, err
	}
	received, err := createdAmuletToHolding(result.CreatedAmulets)
	if err != nil {
		return nil, nil, Metadata{}, err
	}
	return changeCids(result.SenderChangeAmulet), received, metaOrEmpty(result.Meta), nil
}

// expireLockExtraArgs is the choice context the DSO's expiry passes to
// abortTwoStepTransfer: whether to unlock the LockedAmulet, and no
// metadata.
func expireLockExtraArgs(expire bool) ExtraArgs {
	return ExtraArgs{
		Context: ChoiceContext{Values: map[string]AnyValue{ContextKeyExpireLock: {AVBool: &expire}}},
		Meta:    emptyMetadata(),
	}
}

// abortTwoStepTransfer is Splice's abortTwoStepTransfer: with expire-lock
// true or absent the LockedAmulet is unlocked back to the sender; with
// false (the registry's answer once the LockedAmulet is gone) the lock
// must have expired, and nothing is returned.
func abortTwoStepTransfer(tx *ledger.Tx, lockExpiresAt daml.Timestamp, locked daml.ContractID, extra ExtraArgs) ([]daml.ContractID, error) {
	expire, err := lookupContextBool(extra.Context, ContextKeyExpireLock)
	if err != nil {
		return nil, err
	}
	if expire == nil || *expire {
		res, err := ledger.Exercise[LockedAmuletUnlockV2Result](tx, locked, "LockedAmulet_UnlockV2", LockedAmuletUnlockV2{})
		if err != nil {
			return nil, err
		}
		return []daml.ContractID{res.AmuletCid}, nil
	}
	if err := assertDeadlineExceeded(tx, "lockedAmulet.lockExpiresAt", lockExpiresAt); err != nil {
		return nil, err
	}
	return []daml.ContractID{}, nil
}

func registerTransferFactory(r *ledger.Registry) {
	ledger.AddInterfaceView(r, TransferFactoryInterface, func(rules ExternalPartyAmuletRules) (TransferFactoryView, error) {
		return TransferFactoryView{Admin: rules.DSO, Meta: emptyMetadata()}, nil
	})
	ledger.AddChoice(r, "TransferFactory_Transfer", false,
		func(_ ExternalPartyAmuletRules, arg TransferFactoryTransfer) []daml.Party {
			return []daml.Party{arg.Transfer.Sender}
		},
		transferFactoryTransfer)
	// Splice's publicFetchDefaultImpl does not check expectedAdmin.
	ledger.AddChoice(r, "TransferFactory_PublicFetch", false,
		func(_ ExternalPartyAmuletRules, arg TransferFactoryPublicFetch) []daml.Party {
			return []daml.Party{arg.Actor}
		},
		func(_ *ledger.Tx, _ daml.ContractID, rules ExternalPartyAmuletRules, _ TransferFactoryPublicFetch) (TransferFactoryView, error) {
			return TransferFactoryView{Admin: rules.DSO, Meta: emptyMetadata()}, nil
		})
}
