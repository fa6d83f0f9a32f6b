package ledgerclient

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// DSOView returns what a transaction (whole, or projected to the DSO
// party) does to the DSO party's active contract set, as scan.Update's
// Created and Archived hold it, in node order:
//
//   - created: the contracts it creates that the DSO party is a
//     stakeholder of;
//   - archived: the ids of the contracts consumed by its exercises whose
//     Stakeholders include the DSO party.
//
// A contract the transaction both creates and archives is in neither, as
// the ACS_DELTA shape leaves it out: it never enters the set.
func DSOView(tx *ledger.Transaction, dso daml.Party) (created []*ledger.Contract, archived []daml.ContractID) {
	transient := map[daml.ContractID]bool{}
	made := map[daml.ContractID]bool{}
	for _, c := range tx.Created() {
		made[c.ID] = true
	}
	for _, id := range tx.Consumed() {
		if made[id] {
			transient[id] = true
		}
	}
	for i := range tx.Events {
		e := &tx.Events[i]
		switch {
		case e.Created != nil:
			if c := e.Created; !transient[c.ID] && slices.Contains(c.Stakeholders(), dso) {
				created = append(created, c)
			}
		case e.Exercised != nil:
			if x := e.Exercised; x.Consuming && !transient[x.ContractID] && slices.Contains(x.Stakeholders, dso) {
				archived = append(archived, x.ContractID)
			}
		}
	}
	return created, archived
}
