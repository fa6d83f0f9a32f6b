package splice

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Package is a Daml package whose templates sandnet implements in Go, or
// whose interfaces it declares: its name (what filters match on), the
// version sandnet models, the package id responses carry, and the
// interfaces the package defines (whether or not a template implements
// them, as a participant that vetted the package knows them).
type Package struct {
	Name       string
	Version    string
	ID         string
	Interfaces []QualifiedName
}

// QualifiedName is a module-qualified entity name of a package.
type QualifiedName struct {
	Module, Entity string
}

// The packages, in the one table of package ids sandnet serves. The Splice
// ids are the ones of the versions listed (daml/dars.lock of the Splice
// release the project's reference digest was taken from); the token-standard
// ids are those of the released 1.0.0 API packages, with the V1 interfaces
// each defines. Package ids change with every Splice version, so clients
// should match on Name, Module and Entity, as the ledger API's
// package-name filters do.
var (
	PackageAmulet            = Package{Name: "splice-amulet", Version: "0.1.22", ID: "dbeda50efee6c5e53959638ef5422116723a9a6137fcdd4d2d82544291726a88"}
	PackageWallet            = Package{Name: "splice-wallet", Version: "0.1.23", ID: "10c31d3a0cdb5deea37c93f1c664866a4e3f5da88406805a7defb8b8de685bfc"}
	PackageAmuletNameService = Package{Name: "splice-amulet-name-service", Version: "0.1.23", ID: "6159bb3accbf71406a8749f5e687a650e9c5422228b56d8cc0e9b174233f80c8"}
	PackageDsoGovernance     = Package{Name: "splice-dso-governance", Version: "0.1.28", ID: "3b372c1b3665da6b09b69a0c89d9c721ef06ebbab88f08541b2a6ff2c3450ef3"}
	PackageWalletPayments    = Package{Name: "splice-wallet-payments", Version: "0.1.22", ID: "f1ffb7934690ff978ae04a4beacf9acd5744451485f17814c267370de9e12e2b"}
	PackageTokenHolding      = Package{Name: "splice-api-token-holding-v1", Version: "1.0.0", ID: "718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b",
		Interfaces: []QualifiedName{{moduleTokenHoldingV1, "Holding"}}}
	// PackageTokenMetadata's AnyContract is never implemented: it only
	// types the contract ids inside choice contexts.
	PackageTokenMetadata = Package{Name: "splice-api-token-metadata-v1", Version: "1.0.0", ID: "4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f",
		Interfaces: []QualifiedName{{moduleTokenMetadataV1, "AnyContract"}}}
	PackageTokenTransferInstruction = Package{Name: "splice-api-token-transfer-instruction-v1", Version: "1.0.0", ID: "55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281",
		Interfaces: []QualifiedName{{moduleTokenTransferInstrV1, "TransferFactory"}, {moduleTokenTransferInstrV1, "TransferInstruction"}}}
	PackageTokenAllocation = Package{Name: "splice-api-token-allocation-v1", Version: "1.0.0", ID: "93c942ae2b4c2ba674fb152fe38473c507bda4e82b4e4c5da55a552a9d8cce1d",
		Interfaces: []QualifiedName{{moduleTokenAllocationV1, "Allocation"}}}
	PackageTokenAllocationInstruction = Package{Name: "splice-api-token-allocation-instruction-v1", Version: "1.0.0", ID: "275064aacfe99cea72ee0c80563936129563776f67415ef9f13e4297eecbc520",
		Interfaces: []QualifiedName{{moduleTokenAllocationInstrV1, "AllocationFactory"}, {moduleTokenAllocationInstrV1, "AllocationInstruction"}}}
	// PackageTokenAllocationRequest's AllocationRequest is implemented by
	// apps, never by Amulet.
	PackageTokenAllocationRequest = Package{Name: "splice-api-token-allocation-request-v1", Version: "1.0.0", ID: "6fe848530b2404017c4a12874c956ad7d5c8a419ee9b040f96b5c13172d2e193",
		Interfaces: []QualifiedName{{moduleTokenAllocationReqV1, "AllocationRequest"}}}
	PackageFeaturedApp = Package{Name: "splice-api-featured-app-v1", Version: "1.0.0", ID: "7804375fe5e4c6d5afe067bd314c42fe0b7d005a1300019c73154dd939da4dda"}
	// PackageValidatorLifecycle is not implemented; only its version appears,
	// in AmuletConfig.packageConfig.
	PackageValidatorLifecycle = Package{Name: "splice-validator-lifecycle", Version: "0.1.5"}
)

// Packages lists the packages whose templates or interfaces sandnet serves.
func Packages() []Package {
	return []Package{
		PackageAmulet, PackageWallet, PackageAmuletNameService, PackageDsoGovernance,
		PackageWalletPayments, PackageTokenHolding, PackageTokenMetadata,
		PackageTokenTransferInstruction, PackageTokenAllocation, PackageTokenAllocationInstruction,
		PackageTokenAllocationRequest, PackageFeaturedApp,
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
	moduleAmulet              = "Splice.Amulet"
	moduleAmuletRules         = "Splice.AmuletRules"
	moduleRound               = "Splice.Round"
	moduleValidatorLic        = "Splice.ValidatorLicense"
	moduleTransferOffer       = "Splice.Wallet.TransferOffer"
	moduleTransferPreapproval = "Splice.Wallet.TransferPreapproval"
	moduleInstall             = "Splice.Wallet.Install"
	moduleSubscriptions       = "Splice.Wallet.Subscriptions"
	moduleAns                 = "Splice.Ans"
	moduleDsoRules            = "Splice.DsoRules"
	moduleDsoBootstrap        = "Splice.DsoBootstrap"
	moduleSvState             = "Splice.DSO.SvState"
	moduleAmuletPrice         = "Splice.DSO.AmuletPrice"
	moduleSvOnboarding        = "Splice.SvOnboarding"
	moduleTokenHoldingV1      = "Splice.Api.Token.HoldingV1"
	moduleTokenMetadataV1     = "Splice.Api.Token.MetadataV1"

	moduleTokenTransferInstrV1   = "Splice.Api.Token.TransferInstructionV1"
	moduleTokenAllocationV1      = "Splice.Api.Token.AllocationV1"
	moduleTokenAllocationInstrV1 = "Splice.Api.Token.AllocationInstructionV1"
	moduleTokenAllocationReqV1   = "Splice.Api.Token.AllocationRequestV1"
)

// HoldingInterface is the token standard's Holding interface
// (splice-api-token-holding-v1), which Amulet and LockedAmulet implement.
var HoldingInterface = PackageTokenHolding.Identifier(moduleTokenHoldingV1, "Holding")
