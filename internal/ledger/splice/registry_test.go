package splice_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The templates carry Splice's package names, package ids, modules and
// entities, from the one table of packages.
func TestTemplatesAreRegistered(t *testing.T) {
	t.Parallel()
	reg := splice.NewRegistry()
	for _, tc := range []struct {
		pkg            splice.Package
		module, entity string
	}{
		{splice.PackageAmulet, "Splice.Amulet", "Amulet"},
		{splice.PackageAmulet, "Splice.Amulet", "LockedAmulet"},
		{splice.PackageAmulet, "Splice.Amulet", "ValidatorRight"},
		{splice.PackageAmulet, "Splice.Amulet", "FeaturedAppRight"},
		{splice.PackageAmulet, "Splice.Amulet", "FeaturedAppActivityMarker"},
		{splice.PackageAmulet, "Splice.Amulet", "UnclaimedReward"},
		{splice.PackageAmulet, "Splice.Amulet", "ValidatorRewardCoupon"},
		{splice.PackageAmulet, "Splice.AmuletRules", "TransferPreapproval"},
		{splice.PackageAmulet, "Splice.Amulet", "UnclaimedDevelopmentFundCoupon"},
		{splice.PackageAmulet, "Splice.AmuletRules", "AmuletRules"},
		{splice.PackageAmulet, "Splice.ExternalPartyAmuletRules", "ExternalPartyAmuletRules"},
		{splice.PackageAmulet, "Splice.ExternalPartyConfigState", "ExternalPartyConfigState"},
		{splice.PackageAmulet, "Splice.Round", "OpenMiningRound"},
		{splice.PackageAmulet, "Splice.Round", "SummarizingMiningRound"},
		{splice.PackageAmulet, "Splice.Round", "IssuingMiningRound"},
		{splice.PackageAmulet, "Splice.Round", "ClosedMiningRound"},
		{splice.PackageAmulet, "Splice.ValidatorLicense", "ValidatorLicense"},
		{splice.PackageWallet, "Splice.Wallet.Install", "WalletAppInstall"},
		{splice.PackageWallet, "Splice.Wallet.TransferOffer", "TransferOffer"},
		{splice.PackageWallet, "Splice.Wallet.TransferOffer", "AcceptedTransferOffer"},
		{splice.PackageWallet, "Splice.Wallet.TransferPreapproval", "TransferPreapprovalProposal"},
		{splice.PackageWalletPayments, "Splice.Wallet.Subscriptions", "SubscriptionRequest"},
		{splice.PackageWalletPayments, "Splice.Wallet.Subscriptions", "SubscriptionInitialPayment"},
		{splice.PackageWalletPayments, "Splice.Wallet.Subscriptions", "Subscription"},
		{splice.PackageWalletPayments, "Splice.Wallet.Subscriptions", "SubscriptionIdleState"},
		{splice.PackageWalletPayments, "Splice.Wallet.Subscriptions", "SubscriptionPayment"},
		{splice.PackageWalletPayments, "Splice.Wallet.Subscriptions", "TerminatedSubscription"},
		{splice.PackageAmuletNameService, "Splice.Ans", "AnsRules"},
		{splice.PackageAmuletNameService, "Splice.Ans", "AnsEntry"},
		{splice.PackageAmuletNameService, "Splice.Ans", "AnsEntryContext"},
		{splice.PackageDsoGovernance, "Splice.DsoBootstrap", "DsoBootstrap"},
		{splice.PackageDsoGovernance, "Splice.DsoRules", "DsoRules"},
		{splice.PackageDsoGovernance, "Splice.DsoRules", "VoteRequest"},
		{splice.PackageDsoGovernance, "Splice.DsoRules", "BootstrapExternalPartyConfigStateInstruction"},
		{splice.PackageDsoGovernance, "Splice.DSO.SvState", "SvNodeState"},
		{splice.PackageDsoGovernance, "Splice.DSO.SvState", "SvRewardState"},
		{splice.PackageDsoGovernance, "Splice.DSO.SvState", "SvStatusReport"},
		{splice.PackageDsoGovernance, "Splice.DSO.AmuletPrice", "AmuletPriceVote"},
		{splice.PackageDsoGovernance, "Splice.SvOnboarding", "SvOnboardingConfirmed"},
		{splice.PackageAmulet, "Splice.AmuletTransferInstruction", "AmuletTransferInstruction"},
		{splice.PackageAmulet, "Splice.AmuletAllocation", "AmuletAllocation"},
	} {
		tid, ok := reg.TemplateByName(tc.pkg.Name, tc.module, tc.entity)
		want := daml.Identifier{PackageID: tc.pkg.ID, ModuleName: tc.module, EntityName: tc.entity}
		if !ok || tid.Identifier != want {
			t.Errorf("%s:%s:%s is %v (%v)", tc.pkg.Name, tc.module, tc.entity, tid, ok)
		}
	}
	if got := len(reg.Templates()); got != 44 {
		t.Errorf("%d templates registered", got)
	}
	for _, p := range splice.Packages() {
		if len(p.ID) != 64 || p.Name == "" || p.Version == "" {
			t.Errorf("package %+v", p)
		}
	}
}

// Every template's Go type converts to a Daml value and back.
func TestTemplatesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		splice.Amulet{}, splice.LockedAmulet{}, splice.AmuletRules{}, splice.OpenMiningRound{},
		splice.DsoRules{}, splice.DsoBootstrap{Sv1SynchronizerNodes: nil}, splice.VoteRequest{Action: splice.ActionUpdateSvRewardWeight("sv", 1)},
		splice.SubscriptionPayment{PayData: splice.SubscriptionPayData{PaymentAmount: splice.Amulets(daml.Numeric{})}}, splice.AnsEntry{}, splice.TransferOffer{Amount: splice.Amulets(daml.Numeric{})},
		splice.SvNodeState{}, splice.TransferResult{CreatedAmulets: []splice.CreatedAmulet{{TransferResultAmulet: new(daml.ContractID)}}},
	} {
		val, err := daml.FromGo(v)
		if err != nil {
			t.Errorf("%T: %v", v, err)
			continue
		}
		back := reflect.New(reflect.TypeOf(v))
		if err := daml.ToGo(val, back.Interface()); err != nil {
			t.Errorf("%T back: %v", v, err)
		}
	}
}

// The token standard's V1 interfaces resolve from their package-name form,
// as ledger API interface filters name them, to their package-id form with
// the released packages' ids, whether or not a template implements them
// (the wallet SDK filters on all of them at once); names of unknown
// packages and of entities that are no interface do not resolve.
func TestInterfaceByName(t *testing.T) {
	t.Parallel()
	reg := splice.NewRegistry()
	const (
		holding    = "718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b"
		metadata   = "4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f"
		transfer   = "55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281"
		allocation = "93c942ae2b4c2ba674fb152fe38473c507bda4e82b4e4c5da55a552a9d8cce1d"
		allocInstr = "275064aacfe99cea72ee0c80563936129563776f67415ef9f13e4297eecbc520"
		allocReq   = "6fe848530b2404017c4a12874c956ad7d5c8a419ee9b040f96b5c13172d2e193"
	)
	for _, tc := range []struct{ name, id string }{
		{"#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding", holding + ":Splice.Api.Token.HoldingV1:Holding"},
		{"#splice-api-token-metadata-v1:Splice.Api.Token.MetadataV1:AnyContract", metadata + ":Splice.Api.Token.MetadataV1:AnyContract"},
		{"#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory", transfer + ":Splice.Api.Token.TransferInstructionV1:TransferFactory"},
		{"#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction", transfer + ":Splice.Api.Token.TransferInstructionV1:TransferInstruction"},
		{"#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation", allocation + ":Splice.Api.Token.AllocationV1:Allocation"},
		{"#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory", allocInstr + ":Splice.Api.Token.AllocationInstructionV1:AllocationFactory"},
		{"#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationInstruction", allocInstr + ":Splice.Api.Token.AllocationInstructionV1:AllocationInstruction"},
		{"#splice-api-token-allocation-request-v1:Splice.Api.Token.AllocationRequestV1:AllocationRequest", allocReq + ":Splice.Api.Token.AllocationRequestV1:AllocationRequest"},
		// Not interfaces, or not known.
		{"#no-such-package:Splice.Api.Token.HoldingV1:Holding", ""},
		{"#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:HoldingView", ""},
		{"#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:NoSuchInterface", ""},
		{"#splice-amulet:Splice.Amulet:Amulet", ""},
	} {
		parts := strings.Split(strings.TrimPrefix(tc.name, "#"), ":")
		got, ok := reg.InterfaceByName(parts[0], parts[1], parts[2])
		switch {
		case tc.id == "" && ok:
			t.Errorf("%s resolves to %v", tc.name, got)
		case tc.id != "" && (!ok || got.String() != tc.id):
			t.Errorf("%s resolves to %v, %v; want %s", tc.name, got, ok, tc.id)
		}
	}
	if got, _ := reg.InterfaceByName(splice.PackageTokenHolding.Name, "Splice.Api.Token.HoldingV1", "Holding"); got != splice.HoldingInterface {
		t.Errorf("Holding is %v, not HoldingInterface %v", got, splice.HoldingInterface)
	}
	if id, ok := reg.PackageID("splice-api-token-allocation-request-v1"); !ok || id != allocReq {
		t.Errorf("PackageID(splice-api-token-allocation-request-v1) = %s, %v", id, ok)
	}
}
