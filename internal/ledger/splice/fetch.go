package splice

import (
	"strconv"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// dsoOwned is implemented by templates that belong to a DSO party; Splice
// fetches them with checked fetches (Splice.Util's fetchChecked and
// friends) that fail when the contract is another DSO's.
type dsoOwned interface {
	ledger.Template
	dsoParty() daml.Party
}

// fetchDsoContract is Splice's fetchChecked (ForDso dso): fetch a contract
// and require that it belongs to dso.
func fetchDsoContract[T dsoOwned](tx *ledger.Tx, cid daml.ContractID, dso daml.Party) (T, error) {
	c, err := ledger.Fetch[T](tx, cid)
	if err != nil {
		return c, err
	}
	if err := tx.Require(c.dsoParty() == dso, "contract %s belongs to DSO %s, not %s", cid, c.dsoParty(), dso); err != nil {
		var zero T
		return zero, err
	}
	return c, nil
}

// fetchAndArchiveDso is Splice's fetchAndArchive (ForDso dso).
func fetchAndArchiveDso[T dsoOwned](tx *ledger.Tx, cid daml.ContractID, dso daml.Party) (T, error) {
	c, err := fetchDsoContract[T](tx, cid, dso)
	if err != nil {
		return c, err
	}
	return c, tx.Archive(cid)
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func (a Amulet) dsoParty() daml.Party           { return a.DSO }
func (l LockedAmulet) dsoParty() daml.Party     { return l.Amulet.DSO }
func (f FeaturedAppRight) dsoParty() daml.Party { return f.DSO }
