// Package ping is Canton's built-in ping package
// (canton-builtin-admin-workflow-ping), which every Canton participant
// vets and the wallet SDK's documentation uses as its smoke test: a Ping
// that the initiator creates and the responder answers (Respond) or
// anyone named aborts (AbortPing). sandnet runs it beside the Splice
// packages, with its real package name, version and id.
package ping

import (
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Package is the ping package as Canton 3.4 ships it in its participants'
// resources (canton-builtin-admin-workflow-ping.dar, LF 2.2).
var Package = ledger.Package{
	Name:    "canton-builtin-admin-workflow-ping",
	Version: "3.4.0",
	ID:      "de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54",
}

const module = "Canton.Internal.Ping"

// TemplateID is Canton.Internal.Ping:Ping.
var TemplateID = ledger.TemplateID{
	Identifier:  daml.Identifier{PackageID: Package.ID, ModuleName: module, EntityName: "Ping"},
	PackageName: Package.Name,
}

// Ping is the template: the initiator signs it, the responder observes it.
type Ping struct {
	ID        string     `daml:"id"`
	Initiator daml.Party `daml:"initiator"`
	Responder daml.Party `daml:"responder"`
}

// TemplateID implements ledger.Template.
func (Ping) TemplateID() ledger.TemplateID { return TemplateID }

// DamlIdentifier names the payload's record type.
func (Ping) DamlIdentifier() daml.Identifier { return TemplateID.Identifier }

// Signatories implements ledger.Template: the initiator.
func (p Ping) Signatories() []daml.Party { return []daml.Party{p.Initiator} }

// Observers implements ledger.Template: the responder.
func (p Ping) Observers() []daml.Party { return []daml.Party{p.Responder} }

// Respond is the argument of the Respond choice: an empty record.
type Respond struct{}

// DamlIdentifier names the choice's argument record.
func (Respond) DamlIdentifier() daml.Identifier {
	return daml.Identifier{PackageID: Package.ID, ModuleName: module, EntityName: "Respond"}
}

// AbortPing is the argument of the AbortPing choice: who aborts.
type AbortPing struct {
	Anyone daml.Party `daml:"anyone"`
}

// DamlIdentifier names the choice's argument record.
func (AbortPing) DamlIdentifier() daml.Identifier {
	return daml.Identifier{PackageID: Package.ID, ModuleName: module, EntityName: "AbortPing"}
}

// Register adds the ping package to a registry: the Ping template with
// its consuming choices Respond (controller: the responder) and AbortPing
// (controller: the party the argument names), both returning (), and the
// Archive every template has.
func Register(r *ledger.Registry) {
	r.AddPackage(Package)
	ledger.RegisterTemplate[Ping](r)
	ledger.AddChoice(r, "Respond", true,
		func(p Ping, _ Respond) []daml.Party { return []daml.Party{p.Responder} },
		func(*ledger.Tx, daml.ContractID, Ping, Respond) (daml.Unit, error) { return daml.Unit{}, nil })
	ledger.AddChoice(r, "AbortPing", true,
		func(_ Ping, a AbortPing) []daml.Party { return []daml.Party{a.Anyone} },
		func(*ledger.Tx, daml.ContractID, Ping, AbortPing) (daml.Unit, error) { return daml.Unit{}, nil })
}
