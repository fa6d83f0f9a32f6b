package splice_test

import (
	"reflect"
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
		{splice.PackageAmulet, "Splice.AmuletRules", "AmuletRules"},
		{splice.PackageAmulet, "Splice.Round", "OpenMiningRound"},
		{splice.PackageAmulet, "Splice.Round", "SummarizingMiningRound"},
		{splice.PackageAmulet, "Splice.Round", "IssuingMiningRound"},
		{splice.PackageAmulet, "Splice.Round", "ClosedMiningRound"},
		{splice.PackageAmulet, "Splice.ValidatorLicense", "ValidatorLicense"},
		{splice.PackageWallet, "Splice.Wallet.Install", "WalletAppInstall"},
		{splice.PackageWallet, "Splice.Wallet.TransferOffer", "TransferOffer"},
		{splice.PackageWallet, "Splice.Wallet.TransferOffer", "AcceptedTransferOffer"},
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
		{splice.PackageDsoGovernance, "Splice.DSO.SvState", "SvNodeState"},
		{splice.PackageDsoGovernance, "Splice.DSO.SvState", "SvRewardState"},
		{splice.PackageDsoGovernance, "Splice.DSO.SvState", "SvStatusReport"},
		{splice.PackageDsoGovernance, "Splice.DSO.AmuletPrice", "AmuletPriceVote"},
		{splice.PackageDsoGovernance, "Splice.SvOnboarding", "SvOnboardingConfirmed"},
	} {
		tid, ok := reg.TemplateByName(tc.pkg.Name, tc.module, tc.entity)
		want := daml.Identifier{PackageID: tc.pkg.ID, ModuleName: tc.module, EntityName: tc.entity}
		if !ok || tid.Identifier != want {
			t.Errorf("%s:%s:%s is %v (%v)", tc.pkg.Name, tc.module, tc.entity, tid, ok)
		}
	}
	if got := len(reg.Templates()); got != 30 {
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
		splice.DsoRules{}, splice.DsoBootstrap{Sv1SynchronizerNodes: nil}, splice.VoteRequest{Action: &daml.Record{}},
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

// The token standard's Holding interface resolves from its package-name
// form, as ledger API interface filters name it; names of unknown packages
// and of entities that are no implemented interface do not resolve.
func TestInterfaceByName(t *testing.T) {
	t.Parallel()
	reg := splice.NewRegistry()
	got, ok := reg.InterfaceByName(splice.PackageTokenHolding.Name, "Splice.Api.Token.HoldingV1", "Holding")
	if !ok || got != splice.HoldingInterface {
		t.Errorf("Holding resolves to %v, %v; want %v", got, ok, splice.HoldingInterface)
	}
	for _, name := range [][3]string{
		{"no-such-package", "Splice.Api.Token.HoldingV1", "Holding"},
		{splice.PackageTokenHolding.Name, "Splice.Api.Token.HoldingV1", "HoldingView"},
		{splice.PackageAmulet.Name, "Splice.Amulet", "Amulet"},
	} {
		if id, ok := reg.InterfaceByName(name[0], name[1], name[2]); ok {
			t.Errorf("%v resolves to %v", name, id)
		}
	}
	if id, ok := reg.PackageID(splice.PackageTokenHolding.Name); !ok || id != splice.PackageTokenHolding.ID {
		t.Errorf("PackageID(%s) = %s, %v", splice.PackageTokenHolding.Name, id, ok)
	}
}
