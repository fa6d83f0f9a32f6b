package splice

import (
	"strconv"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Splice fetches contracts with checked fetches (Splice.Util's
// fetchChecked and friends): each contract belongs to a group (the DSO's
// contracts, an owner's, a round's…) and a fetch names the group it
// expects, failing when the contract is another DSO's or another owner's.

// group is a contract group of Splice.Types (ForDso, ForOwner…), shown as
// Daml's `show` shows it.
type group interface {
	comparable
	show() string
}

// forDso is Splice.Types:ForDso.
type forDso struct{ dso daml.Party }

func (g forDso) show() string { return "ForDso {dso = " + showParty(g.dso) + "}" }

// forOwner is Splice.Types:ForOwner.
type forOwner struct{ dso, owner daml.Party }

func (g forOwner) show() string {
	return "ForOwner {dso = " + showParty(g.dso) + ", owner = " + showParty(g.owner) + "}"
}

// forRound is Splice.Types:ForRound.
type forRound struct {
	dso   daml.Party
	round Round
}

func (g forRound) show() string {
	return "ForRound {dso = " + showParty(g.dso) + ", round = Round {number = " + itoa(g.round.Number) + "}}"
}

// forSvNode is Splice.DSO.SvState:ForSvNode.
type forSvNode struct {
	dso, sv daml.Party
	svName  string
}

func (g forSvNode) show() string {
	return "ForSvNode {dso = " + showParty(g.dso) + ", sv = " + showParty(g.sv) + ", svName = " + strconv.Quote(g.svName) + "}"
}

// showParty is Daml's `show` of a Party.
func showParty(p daml.Party) string { return "'" + string(p) + "'" }

// checkGroup is Splice.Util's checkContractGroupId.
func checkGroup[G group](cid daml.ContractID, want, got G) error {
	if want == got {
		return nil
	}
	return abort("Contract group identifier mismatch: expected " + want.show() + ", got " + got.show() + " for " + string(cid))
}

// fetchChecked is Splice.Util's fetchChecked (and fetchReferenceData,
// fetchButArchiveLater): fetch a contract and require it is in the group
// want, as of gives its group.
func fetchChecked[T ledger.Template, G group](tx *ledger.Tx, want G, cid daml.ContractID, of func(T) G) (T, error) {
	c, err := ledger.Fetch[T](tx, cid)
	if err != nil {
		return c, err
	}
	if err := checkGroup(cid, want, of(c)); err != nil {
		var zero T
		return zero, err
	}
	return c, nil
}

// fetchAndArchive is Splice.Util's fetchAndArchive.
func fetchAndArchive[T ledger.Template, G group](tx *ledger.Tx, want G, cid daml.ContractID, of func(T) G) (T, error) {
	c, err := fetchChecked(tx, want, cid, of)
	if err != nil {
		return c, err
	}
	return c, tx.Archive(cid)
}

// dsoOwned is implemented by templates in a DSO's group (ForDso).
type dsoOwned interface {
	ledger.Template
	dsoParty() daml.Party
}

func dsoGroup[T dsoOwned](c T) forDso { return forDso{c.dsoParty()} }

// fetchDsoContract is fetchChecked (ForDso with dso).
func fetchDsoContract[T dsoOwned](tx *ledger.Tx, cid daml.ContractID, dso daml.Party) (T, error) {
	return fetchChecked(tx, forDso{dso}, cid, dsoGroup[T])
}

// fetchAndArchiveDso is fetchAndArchive (ForDso with dso).
func fetchAndArchiveDso[T dsoOwned](tx *ledger.Tx, cid daml.ContractID, dso daml.Party) (T, error) {
	return fetchAndArchive(tx, forDso{dso}, cid, dsoGroup[T])
}

// ownerOf is the ForOwner group of an amulet.
func ownerOf(a Amulet) forOwner { return forOwner{a.DSO, a.Owner} }

// fetchOpenRound is Splice.Util's fetchPublicReferenceData (ForDso with
// dso) over OpenMiningRound_Fetch: the round is read through a choice any
// party may exercise on a round disclosed to it.
func fetchOpenRound(tx *ledger.Tx, cid daml.ContractID, dso, by daml.Party) (OpenMiningRound, error) {
	r, err := ledger.Exercise[OpenMiningRound](tx, cid, "OpenMiningRound_Fetch", OpenMiningRoundFetch{P: by})
	if err != nil {
		return r, err
	}
	return r, checkGroup(cid, forDso{dso}, dsoGroup(r))
}

// requireMatchingContract is Splice.Util's requireMatchingContract: the
// contract behind cid must equal want.
func requireMatchingContract[T interface {
	ledger.Template
	comparable
}](tx *ledger.Tx, cid daml.ContractID, want T) error {
	got, err := ledger.Fetch[T](tx, cid)
	if err != nil {
		return err
	}
	if got != want {
		return abort("Contract mismatch: expected " + want.TemplateID().EntityName + " " + showValue(want) +
			", got " + showValue(got) + " referenced by " + string(cid))
	}
	return nil
}

// showValue renders a contract payload for an error message.
func showValue(t ledger.Template) string {
	v, err := daml.FromGo(t)
	if err != nil {
		return "?"
	}
	b, err := daml.LedgerJSON.Encode(v)
	if err != nil {
		return "?"
	}
	return string(b)
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func (a Amulet) dsoParty() daml.Party           { return a.DSO }
func (l LockedAmulet) dsoParty() daml.Party     { return l.Amulet.DSO }
func (f FeaturedAppRight) dsoParty() daml.Party { return f.DSO }
