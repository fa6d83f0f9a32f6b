package splice

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Splice.Ans: the amulet name service. A user requests a name
// (AnsRules_RequestEntry), which creates a subscription request to the DSO;
// the user's wallet pays the first fee; the DSO collects it and creates
// the AnsEntry, which lives until the next payment is due. Renewals go the
// same way through the subscription's idle state.

// AnsRules is Splice.Ans:AnsRules.
type AnsRules struct {
	DSO    daml.Party     `daml:"dso"`
	Config AnsRulesConfig `daml:"config"`
}

// TemplateID implements ledger.Template.
func (AnsRules) TemplateID() ledger.TemplateID {
	return PackageAmuletNameService.Template(moduleAns, "AnsRules")
}

// DamlIdentifier implements daml.Identified.
func (a AnsRules) DamlIdentifier() daml.Identifier { return a.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (a AnsRules) Signatories() []daml.Party { return []daml.Party{a.DSO} }

// Observers implements ledger.Template.
func (AnsRules) Observers() []daml.Party { return nil }

// Ensure is Splice's validAnsConfig.
func (a AnsRules) Ensure() error {
	c := a.Config
	if c.RenewalDuration.Microseconds <= 0 || c.EntryLifetime.Microseconds <= 0 || c.EntryFee.Sign() <= 0 {
		return errorf("invalid ANS configuration")
	}
	return nil
}

func (a AnsRules) dsoParty() daml.Party { return a.DSO }

// AnsEntryContext is Splice.Ans:AnsEntryContext, which ties a requested
// name to its subscription.
type AnsEntryContext struct {
	DSO         daml.Party      `daml:"dso"`
	User        daml.Party      `daml:"user"`
	Name        string          `daml:"name"`
	URL         string          `daml:"url"`
	Description string          `daml:"description"`
	Reference   daml.ContractID `daml:"reference"`
}

// TemplateID implements ledger.Template.
func (AnsEntryContext) TemplateID() ledger.TemplateID {
	return PackageAmuletNameService.Template(moduleAns, "AnsEntryContext")
}

// DamlIdentifier implements daml.Identified.
func (a AnsEntryContext) DamlIdentifier() daml.Identifier { return a.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (a AnsEntryContext) Signatories() []daml.Party { return []daml.Party{a.DSO, a.User} }

// Observers implements ledger.Template.
func (AnsEntryContext) Observers() []daml.Party { return nil }

func (a AnsEntryContext) dsoParty() daml.Party { return a.DSO }

// AnsEntry is Splice.Ans:AnsEntry, a name owned by a user until expiresAt.
type AnsEntry struct {
	User        daml.Party     `daml:"user"`
	DSO         daml.Party     `daml:"dso"`
	Name        string         `daml:"name"`
	URL         string         `daml:"url"`
	Description string         `daml:"description"`
	ExpiresAt   daml.Timestamp `daml:"expiresAt"`
}

// TemplateID implements ledger.Template.
func (AnsEntry) TemplateID() ledger.TemplateID {
	return PackageAmuletNameService.Template(moduleAns, "AnsEntry")
}

// DamlIdentifier implements daml.Identified.
func (a AnsEntry) DamlIdentifier() daml.Identifier { return a.TemplateID().Identifier }

// Signatories implements ledger.Template.
func (a AnsEntry) Signatories() []daml.Party { return []daml.Party{a.User, a.DSO} }

// Observers implements ledger.Template.
func (AnsEntry) Observers() []daml.Party { return nil }

func (a AnsEntry) dsoParty() daml.Party { return a.DSO }

// The limits Splice's name-service API enforces on a request (its
// validator's AnsUtil).
const (
	MaxAnsNameLength        = 60
	MaxAnsURLLength         = 255
	MaxAnsDescriptionLength = 140
)

// ValidateAnsEntryRequest checks a name request the way Splice's
// validator does before it exercises AnsRules_RequestEntry (the Daml choice
// itself checks nothing): users may only register names of at most 60
// characters ending in ".unverified.<acronym>", made of lower-case letters,
// digits, '-' and '_'; the URL is empty or an http(s) URL of at most 255
// characters; the description has at most 140.
func ValidateAnsEntryRequest(acronym, name, url, description string) error {
	suffix := ".unverified." + acronym
	label, ok := strings.CutSuffix(name, suffix)
	switch {
	case !ok || label == "" || len(name) > MaxAnsNameLength || !validAnsLabel(label):
		return fault.New(fault.InvalidArgument, "Entry name %s is not valid: it must match [a-z0-9_-]{1,%d}%s",
			fault.Quote(name), MaxAnsNameLength-len(suffix), suffix)
	case utf8.RuneCountInString(url) > MaxAnsURLLength:
		return fault.New(fault.InvalidArgument, "Entry url is longer than %d characters", MaxAnsURLLength)
	case url != "" && !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://"):
		return fault.New(fault.InvalidArgument, "Entry url %s is not an http or https url", fault.Quote(url))
	case utf8.RuneCountInString(description) > MaxAnsDescriptionLength:
		return fault.New(fault.InvalidArgument, "Entry description is longer than %d characters", MaxAnsDescriptionLength)
	}
	return nil
}

func validAnsLabel(s string) bool {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// AnsRulesRequestEntry is the argument of AnsRules_RequestEntry.
type AnsRulesRequestEntry struct {
	Name        string     `daml:"name"`
	URL         string     `daml:"url"`
	Description string     `daml:"description"`
	User        daml.Party `daml:"user"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesRequestEntry) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRules_RequestEntry")
}

// AnsRulesRequestEntryResult is AnsRules_RequestEntry's result.
type AnsRulesRequestEntryResult struct {
	EntryCid   daml.ContractID `daml:"entryCid"`
	RequestCid daml.ContractID `daml:"requestCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesRequestEntryResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRules_RequestEntryResult")
}

// AnsRulesCollectInitialEntryPayment is the argument of
// AnsRules_CollectInitialEntryPayment.
type AnsRulesCollectInitialEntryPayment struct {
	User            daml.Party         `daml:"user"`
	EntryContext    daml.ContractID    `daml:"entryContext"`
	PaymentCid      daml.ContractID    `daml:"paymentCid"`
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesCollectInitialEntryPayment) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRules_CollectInitialEntryPayment")
}

// AnsRulesCollectInitialEntryPaymentResult is the choice's result: the new
// entry and the subscription's idle state.
type AnsRulesCollectInitialEntryPaymentResult struct {
	EntryCid             daml.ContractID `daml:"entryCid"`
	SubscriptionStateCid daml.ContractID `daml:"subscriptionStateCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesCollectInitialEntryPaymentResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRules_CollectInitialEntryPaymentResult")
}

// AnsRulesCollectEntryRenewalPayment is the argument of
// AnsRules_CollectEntryRenewalPayment.
type AnsRulesCollectEntryRenewalPayment struct {
	User            daml.Party         `daml:"user"`
	EntryContext    daml.ContractID    `daml:"entryContext"`
	PaymentCid      daml.ContractID    `daml:"paymentCid"`
	EntryCid        daml.ContractID    `daml:"entryCid"`
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesCollectEntryRenewalPayment) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRules_CollectEntryRenewalPayment")
}

// AnsRulesCollectEntryRenewalPaymentResult is the choice's result.
type AnsRulesCollectEntryRenewalPaymentResult struct {
	EntryCid             daml.ContractID `daml:"entryCid"`
	SubscriptionStateCid daml.ContractID `daml:"subscriptionStateCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesCollectEntryRenewalPaymentResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRules_CollectEntryRenewalPaymentResult")
}

// AnsRulesRejectEntryInitialPayment is the argument of
// AnsRules_RejectEntryInitialPayment.
type AnsRulesRejectEntryInitialPayment struct {
	PaymentCid      daml.ContractID    `daml:"paymentCid"`
	TransferContext AppTransferContext `daml:"transferContext"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesRejectEntryInitialPayment) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRules_RejectEntryInitialPayment")
}

// AnsRulesRejectEntryInitialPaymentResult is the choice's result.
type AnsRulesRejectEntryInitialPaymentResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
}

// DamlIdentifier implements daml.Identified.
func (AnsRulesRejectEntryInitialPaymentResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsRules_RejectEntryInitialPaymentResult")
}

// AnsEntryContextTerminate is the argument of AnsEntryContext_Terminate.
type AnsEntryContextTerminate struct {
	Actor                     daml.Party      `daml:"actor"`
	TerminatedSubscriptionCid daml.ContractID `daml:"terminatedSubscriptionCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextTerminate) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntryContext_Terminate")
}

// AnsEntryContextTerminateResult is the choice's (empty) result.
type AnsEntryContextTerminateResult struct{}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextTerminateResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntryContext_TerminateResult")
}

// AnsEntryContextCollectInitialEntryPayment is the argument of
// AnsEntryContext_CollectInitialEntryPayment.
type AnsEntryContextCollectInitialEntryPayment struct {
	PaymentCid      daml.ContractID    `daml:"paymentCid"`
	TransferContext AppTransferContext `daml:"transferContext"`
	AnsRulesCid     daml.ContractID    `daml:"ansRulesCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextCollectInitialEntryPayment) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntryContext_CollectInitialEntryPayment")
}

// AnsEntryContextCollectInitialEntryPaymentResult is the choice's result.
type AnsEntryContextCollectInitialEntryPaymentResult struct {
	EntryCid             daml.ContractID `daml:"entryCid"`
	SubscriptionStateCid daml.ContractID `daml:"subscriptionStateCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextCollectInitialEntryPaymentResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntryContext_CollectInitialEntryPaymentResult")
}

// AnsEntryContextCollectEntryRenewalPayment is the argument of
// AnsEntryContext_CollectEntryRenewalPayment.
type AnsEntryContextCollectEntryRenewalPayment struct {
	PaymentCid      daml.ContractID    `daml:"paymentCid"`
	EntryCid        daml.ContractID    `daml:"entryCid"`
	TransferContext AppTransferContext `daml:"transferContext"`
	AnsRulesCid     daml.ContractID    `daml:"ansRulesCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextCollectEntryRenewalPayment) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntryContext_CollectEntryRenewalPayment")
}

// AnsEntryContextCollectEntryRenewalPaymentResult is the choice's result.
type AnsEntryContextCollectEntryRenewalPaymentResult struct {
	EntryCid             daml.ContractID `daml:"entryCid"`
	SubscriptionStateCid daml.ContractID `daml:"subscriptionStateCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextCollectEntryRenewalPaymentResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntryContext_CollectEntryRenewalPaymentResult")
}

// AnsEntryContextRejectEntryInitialPayment is the argument of
// AnsEntryContext_RejectEntryInitialPayment.
type AnsEntryContextRejectEntryInitialPayment struct {
	PaymentCid      daml.ContractID    `daml:"paymentCid"`
	TransferContext AppTransferContext `daml:"transferContext"`
	AnsRulesCid     daml.ContractID    `daml:"ansRulesCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextRejectEntryInitialPayment) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntryContext_RejectEntryInitialPayment")
}

// AnsEntryContextRejectEntryInitialPaymentResult is the choice's result.
type AnsEntryContextRejectEntryInitialPaymentResult struct {
	AmuletSum AmuletCreateSummary `daml:"amuletSum"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryContextRejectEntryInitialPaymentResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntryContext_RejectEntryInitialPaymentResult")
}

// AnsEntryExpire is the argument of AnsEntry_Expire.
type AnsEntryExpire struct {
	Actor daml.Party `daml:"actor"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryExpire) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntry_Expire")
}

// AnsEntryExpireResult is AnsEntry_Expire's (empty) result.
type AnsEntryExpireResult struct{}

// DamlIdentifier implements daml.Identified.
func (AnsEntryExpireResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntry_ExpireResult")
}

// AnsEntryRenew is the argument of AnsEntry_Renew.
type AnsEntryRenew struct {
	Extension RelTime `daml:"extension"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryRenew) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntry_Renew")
}

// AnsEntryRenewResult is AnsEntry_Renew's result.
type AnsEntryRenewResult struct {
	EntryCid daml.ContractID `daml:"entryCid"`
}

// DamlIdentifier implements daml.Identified.
func (AnsEntryRenewResult) DamlIdentifier() daml.Identifier {
	return PackageAmuletNameService.Identifier(moduleAns, "AnsEntry_RenewResult")
}

func registerAns(r *ledger.Registry) {
	ledger.RegisterTemplate[AnsRules](r)
	ledger.AddChoice(r, "AnsRules_RequestEntry", false,
		func(_ AnsRules, arg AnsRulesRequestEntry) []daml.Party { return []daml.Party{arg.User} },
		func(tx *ledger.Tx, _ daml.ContractID, rules AnsRules, arg AnsRulesRequestEntry) (AnsRulesRequestEntryResult, error) {
			var res AnsRulesRequestEntryResult
			var err error
			if res.RequestCid, err = ledger.Create(tx, SubscriptionRequest{
				SubscriptionData: SubscriptionData{
					Sender: arg.User, Receiver: rules.DSO, Provider: rules.DSO, DSO: rules.DSO,
					// Daml's `show` of a Text quotes it.
					Description: rules.Config.DescriptionPrefix + strconv.Quote(arg.Name),
				},
				PayData: SubscriptionPayData{
					PaymentAmount:   PaymentAmount{Amount: rules.Config.EntryFee, Unit: USDUnit},
					PaymentInterval: rules.Config.EntryLifetime,
					PaymentDuration: rules.Config.RenewalDuration,
				},
			}); err != nil {
				return res, err
			}
			res.EntryCid, err = ledger.Create(tx, AnsEntryContext{
				DSO: rules.DSO, User: arg.User, Name: arg.Name, URL: arg.URL,
				Description: arg.Description, Reference: res.RequestCid,
			})
			return res, err
		})
	ledger.AddChoice(r, "AnsRules_CollectInitialEntryPayment", false,
		func(rules AnsRules, arg AnsRulesCollectInitialEntryPayment) []daml.Party {
			return []daml.Party{rules.DSO, arg.User}
		},
		collectInitialEntryPayment)
	ledger.AddChoice(r, "AnsRules_CollectEntryRenewalPayment", false,
		func(rules AnsRules, arg AnsRulesCollectEntryRenewalPayment) []daml.Party {
			return []daml.Party{rules.DSO, arg.User}
		},
		collectEntryRenewalPayment)
	ledger.AddChoice(r, "AnsRules_RejectEntryInitialPayment", false,
		func(rules AnsRules, _ AnsRulesRejectEntryInitialPayment) []daml.Party { return []daml.Party{rules.DSO} },
		func(tx *ledger.Tx, _ daml.ContractID, _ AnsRules, arg AnsRulesRejectEntryInitialPayment) (AnsRulesRejectEntryInitialPaymentResult, error) {
			res, err := ledger.Exercise[SubscriptionInitialPaymentRejectResult](tx, arg.PaymentCid, "SubscriptionInitialPayment_Reject",
				SubscriptionInitialPaymentReject{TransferContext: arg.TransferContext})
			return AnsRulesRejectEntryInitialPaymentResult(res), err
		})

	ledger.RegisterTemplate[AnsEntryContext](r)
	ledger.AddChoice(r, "AnsEntryContext_CollectInitialEntryPayment", false,
		func(c AnsEntryContext, _ AnsEntryContextCollectInitialEntryPayment) []daml.Party {
			return []daml.Party{c.DSO}
		},
		func(tx *ledger.Tx, self daml.ContractID, c AnsEntryContext, arg AnsEntryContextCollectInitialEntryPayment) (AnsEntryContextCollectInitialEntryPaymentResult, error) {
			res, err := ledger.Exercise[AnsRulesCollectInitialEntryPaymentResult](tx, arg.AnsRulesCid, "AnsRules_CollectInitialEntryPayment", AnsRulesCollectInitialEntryPayment{
				User: c.User, EntryContext: self, PaymentCid: arg.PaymentCid, TransferContext: arg.TransferContext,
			})
			return AnsEntryContextCollectInitialEntryPaymentResult(res), err
		})
	ledger.AddChoice(r, "AnsEntryContext_CollectEntryRenewalPayment", false,
		func(c AnsEntryContext, _ AnsEntryContextCollectEntryRenewalPayment) []daml.Party {
			return []daml.Party{c.DSO}
		},
		func(tx *ledger.Tx, self daml.ContractID, c AnsEntryContext, arg AnsEntryContextCollectEntryRenewalPayment) (AnsEntryContextCollectEntryRenewalPaymentResult, error) {
			res, err := ledger.Exercise[AnsRulesCollectEntryRenewalPaymentResult](tx, arg.AnsRulesCid, "AnsRules_CollectEntryRenewalPayment", AnsRulesCollectEntryRenewalPayment{
				User: c.User, EntryContext: self, PaymentCid: arg.PaymentCid, EntryCid: arg.EntryCid, TransferContext: arg.TransferContext,
			})
			return AnsEntryContextCollectEntryRenewalPaymentResult(res), err
		})
	ledger.AddChoice(r, "AnsEntryContext_RejectEntryInitialPayment", false,
		func(c AnsEntryContext, _ AnsEntryContextRejectEntryInitialPayment) []daml.Party {
			return []daml.Party{c.DSO}
		},
		func(tx *ledger.Tx, _ daml.ContractID, _ AnsEntryContext, arg AnsEntryContextRejectEntryInitialPayment) (AnsEntryContextRejectEntryInitialPaymentResult, error) {
			res, err := ledger.Exercise[AnsRulesRejectEntryInitialPaymentResult](tx, arg.AnsRulesCid, "AnsRules_RejectEntryInitialPayment", AnsRulesRejectEntryInitialPayment{
				PaymentCid: arg.PaymentCid, TransferContext: arg.TransferContext,
			})
			return AnsEntryContextRejectEntryInitialPaymentResult(res), err
		})
	ledger.AddChoice(r, "AnsEntryContext_Terminate", true,
		func(_ AnsEntryContext, arg AnsEntryContextTerminate) []daml.Party { return []daml.Party{arg.Actor} },
		func(tx *ledger.Tx, _ daml.ContractID, c AnsEntryContext, arg AnsEntryContextTerminate) (AnsEntryContextTerminateResult, error) {
			if err := require(tx, "Actor is signatory", slices.Contains(c.Signatories(), arg.Actor)); err != nil {
				return AnsEntryContextTerminateResult{}, err
			}
			terminated, err := ledger.Fetch[TerminatedSubscription](tx, arg.TerminatedSubscriptionCid)
			if err != nil {
				return AnsEntryContextTerminateResult{}, err
			}
			if err := tx.Archive(arg.TerminatedSubscriptionCid); err != nil {
				return AnsEntryContextTerminateResult{}, err
			}
			return AnsEntryContextTerminateResult{}, require(tx, "Reference matches", terminated.Reference == c.Reference)
		})

	ledger.RegisterTemplate[AnsEntry](r)
	ledger.AddChoice(r, "AnsEntry_Expire", true,
		func(_ AnsEntry, arg AnsEntryExpire) []daml.Party { return []daml.Party{arg.Actor} },
		func(tx *ledger.Tx, _ daml.ContractID, e AnsEntry, arg AnsEntryExpire) (AnsEntryExpireResult, error) {
			if err := requireSignatory(tx, arg.Actor, e); err != nil {
				return AnsEntryExpireResult{}, err
			}
			return AnsEntryExpireResult{}, require(tx, "Contract expired", e.ExpiresAt < tx.Now())
		})
	ledger.AddChoice(r, "AnsEntry_Renew", true,
		func(e AnsEntry, _ AnsEntryRenew) []daml.Party { return e.Signatories() },
		func(tx *ledger.Tx, _ daml.ContractID, e AnsEntry, arg AnsEntryRenew) (AnsEntryRenewResult, error) {
			if err := require(tx, "Extension positive", arg.Extension.Microseconds > 0); err != nil {
				return AnsEntryRenewResult{}, err
			}
			e.ExpiresAt = addRel(e.ExpiresAt, arg.Extension)
			cid, err := ledger.Create(tx, e)
			return AnsEntryRenewResult{EntryCid: cid}, err
		})
}

// collectInitialEntryPayment is AnsRules_CollectInitialEntryPayment: accept
// the first payment (creating the subscription), burn the amulet the DSO
// received, and create the entry, valid until the next payment is due.
func collectInitialEntryPayment(tx *ledger.Tx, _ daml.ContractID, rules AnsRules, arg AnsRulesCollectInitialEntryPayment) (AnsRulesCollectInitialEntryPaymentResult, error) {
	var res AnsRulesCollectInitialEntryPaymentResult
	payment, err := ledger.Fetch[SubscriptionInitialPayment](tx, arg.PaymentCid)
	if err != nil {
		return res, err
	}
	if err := requireExpectedPayment(tx, payment.SubscriptionData, rules.DSO, arg.User); err != nil {
		return res, err
	}
	context, err := fetchEntryContext(tx, arg.EntryContext, rules.DSO, arg.User, payment.Reference)
	if err != nil {
		return res, err
	}
	collected, err := ledger.Exercise[SubscriptionInitialPaymentCollectResult](tx, arg.PaymentCid, "SubscriptionInitialPayment_Collect",
		SubscriptionInitialPaymentCollect{TransferContext: arg.TransferContext})
	if err != nil {
		return res, err
	}
	if err := burnDsoAmulet(tx, collected.Amulet, rules.DSO); err != nil {
		return res, err
	}
	state, err := ledger.Fetch[SubscriptionIdleState](tx, collected.SubscriptionState)
	if err != nil {
		return res, err
	}
	res.SubscriptionStateCid = collected.SubscriptionState
	res.EntryCid, err = ledger.Create(tx, AnsEntry{
		User: context.User, DSO: context.DSO, Name: context.Name, URL: context.URL,
		Description: context.Description, ExpiresAt: state.NextPaymentDueAt,
	})
	return res, err
}

// collectEntryRenewalPayment is AnsRules_CollectEntryRenewalPayment: accept
// a renewal payment, burn it, and recreate the entry with its expiry moved
// by one payment interval.
func collectEntryRenewalPayment(tx *ledger.Tx, _ daml.ContractID, rules AnsRules, arg AnsRulesCollectEntryRenewalPayment) (AnsRulesCollectEntryRenewalPaymentResult, error) {
	var res AnsRulesCollectEntryRenewalPaymentResult
	payment, err := ledger.Fetch[SubscriptionPayment](tx, arg.PaymentCid)
	if err != nil {
		return res, err
	}
	if err := requireExpectedPayment(tx, payment.SubscriptionData, rules.DSO, arg.User); err != nil {
		return res, err
	}
	subscription, err := ledger.Fetch[Subscription](tx, payment.Subscription)
	if err != nil {
		return res, err
	}
	context, err := fetchEntryContext(tx, arg.EntryContext, rules.DSO, arg.User, subscription.Reference)
	if err != nil {
		return res, err
	}
	entry, err := ledger.Fetch[AnsEntry](tx, arg.EntryCid)
	if err != nil {
		return res, err
	}
	same := context == AnsEntryContext{DSO: rules.DSO, User: entry.User, Name: entry.Name, URL: entry.URL,
		Description: entry.Description, Reference: subscription.Reference}
	if err := require(tx, "Current entry matches subscription context", same); err != nil {
		return res, err
	}
	if err := require(tx, "Subscription entry renewal times are in sync", payment.ThisPaymentDueAt == entry.ExpiresAt); err != nil {
		return res, err
	}
	if err := require(tx, "Current entry is not expired", tx.Now() < entry.ExpiresAt); err != nil {
		return res, err
	}
	collected, err := ledger.Exercise[SubscriptionPaymentCollectResult](tx, arg.PaymentCid, "SubscriptionPayment_Collect",
		SubscriptionPaymentCollect{TransferContext: arg.TransferContext})
	if err != nil {
		return res, err
	}
	if err := burnDsoAmulet(tx, collected.Amulet, rules.DSO); err != nil {
		return res, err
	}
	renewed, err := ledger.Exercise[AnsEntryRenewResult](tx, arg.EntryCid, "AnsEntry_Renew", AnsEntryRenew{Extension: payment.PayData.PaymentInterval})
	if err != nil {
		return res, err
	}
	return AnsRulesCollectEntryRenewalPaymentResult{EntryCid: renewed.EntryCid, SubscriptionStateCid: collected.SubscriptionState}, nil
}

// requireExpectedPayment is the checks of Splice's
// fetchAndValidate(Initial)Payment.
func requireExpectedPayment(tx *ledger.Tx, data SubscriptionData, dso, user daml.Party) error {
	if err := require(tx, "matching DSO party", dso == data.Provider); err != nil {
		return err
	}
	return require(tx, "Sender matches", user == data.Sender)
}

// fetchEntryContext is Splice's fetchAndValidateEntryContext.
func fetchEntryContext(tx *ledger.Tx, cid daml.ContractID, dso, user daml.Party, ref daml.ContractID) (AnsEntryContext, error) {
	c, err := ledger.Fetch[AnsEntryContext](tx, cid)
	if err != nil {
		return c, err
	}
	for _, check := range []struct {
		msg string
		ok  bool
	}{
		{"matching DSO party", c.DSO == dso},
		{"User matches", c.User == user},
		{"Subscription reference matches", c.Reference == ref},
	} {
		if err := require(tx, check.msg, check.ok); err != nil {
			return c, err
		}
	}
	return c, nil
}

// burnDsoAmulet archives an amulet the DSO received as a fee: Splice burns
// name-service payments (fetchAndArchive (ForOwner with dso; owner = dso)).
func burnDsoAmulet(tx *ledger.Tx, cid daml.ContractID, dso daml.Party) error {
	_, err := fetchAndArchive(tx, forOwner{dso, dso}, cid, ownerOf)
	return err
}
