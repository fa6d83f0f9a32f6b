package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Package is a Daml package whose templates sandnet implements in Go: its
// name (what filters match on), the version sandnet models, and the package
// id responses carry.
type Package struct {
	Name    string
	Version string
	ID      string
}

// The packages, in the one table of package ids sandnet serves. The Splice
// ids are the ones of the versions listed (daml/dars.lock of the Splice
// release the project's reference digest was taken from); the token-standard
// ids are those of the released 1.0.0 API packages. Package ids change with
// every Splice version, so clients should match on Name, Module and Entity,
// as the ledger API's package-name filters do.
var (
	PackageAmulet            = Package{"splice-amulet", "0.1.22", "dbeda50efee6c5e53959638ef5422116723a9a6137fcdd4d2d82544291726a88"}
	PackageWallet            = Package{"splice-wallet", "0.1.23", "10c31d3a0cdb5deea37c93f1c664866a4e3f5da88406805a7defb8b8de685bfc"}
	PackageAmuletNameService = Package{"splice-amulet-name-service", "0.1.23", "6159bb3accbf71406a8749f5e687a650e9c5422228b56d8cc0e9b174233f80c8"}
	PackageDsoGovernance     = Package{"splice-dso-governance", "0.1.28", "3b372c1b3665da6b09b69a0c89d9c721ef06ebbab88f08541b2a6ff2c3450ef3"}
	PackageWalletPayments    = Package{"splice-wallet-payments", "0.1.22", "f1ffb7934690ff978ae04a4beacf9acd5744451485f17814c267370de9e12e2b"}
	PackageTokenHolding      = Package{"splice-api-token-holding-v1", "1.0.0", "718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b"}
	PackageTokenMetadata     = Package{"splice-api-token-metadata-v1", "1.0.0", "4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f"}
	PackageFeaturedApp       = Package{"splice-api-featured-app-v1", "1.0.0", "7804375fe5e4c6d5afe067bd314c42fe0b7d005a1300019c73154dd939da4dda"}
	// PackageValidatorLifecycle is not implemented; only its version appears,
	// in AmuletConfig.packageConfig.
	PackageValidatorLifecycle = Package{"splice-validator-lifecycle", "0.1.5", ""}
)

// Packages lists the packages whose templates or interfaces sandnet serves.
func Packages() []Package {
	return []Package{
		PackageAmulet, PackageWallet, PackageAmuletNameService, PackageDsoGovernance,
		PackageWalletPayments, PackageTokenHolding, PackageTokenMetadata, PackageFeaturedApp,
	}
}

// Identifier names an entity of the package.
func (p Package) Identifier(module, entity string) daml.Identifier {
	return daml.Identifier{PackageID: p.ID, ModuleName: module, EntityName: entity}
}

// Template names a template of the package.
func (p Package) Template(module, entity string) ledger.TemplateID {
	return ledger.TemplateID{Identifier: p.Identifier(module, entity), PackageName: p.Name}
}

// The modules sandnet implements, as Splice names them.
const (
	moduleAmulet          = "Splice.Amulet"
	moduleAmuletRules     = "Splice.AmuletRules"
	moduleRound           = "Splice.Round"
	moduleValidatorLic    = "Splice.ValidatorLicense"
	moduleTransferOffer   = "Splice.Wallet.TransferOffer"
	moduleInstall         = "Splice.Wallet.Install"
	moduleSubscriptions   = "Splice.Wallet.Subscriptions"
	moduleAns             = "Splice.Ans"
	moduleDsoRules        = "Splice.DsoRules"
	moduleDsoBootstrap    = "Splice.DsoBootstrap"
	moduleSvState         = "Splice.DSO.SvState"
	moduleAmuletPrice     = "Splice.DSO.AmuletPrice"
	moduleSvOnboarding    = "Splice.SvOnboarding"
	moduleTokenHoldingV1  = "Splice.Api.Token.HoldingV1"
	moduleTokenMetadataV1 = "Splice.Api.Token.MetadataV1"
)

// HoldingInterface is the token standard's Holding interface
// (splice-api-token-holding-v1), which Amulet and LockedAmulet implement.
var HoldingInterface = PackageTokenHolding.Identifier(moduleTokenHoldingV1, "Holding")
