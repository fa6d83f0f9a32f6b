package ledgerapi

import "net/http"

// registerNeighbours adds the routes an app needs beside command
// submission: party allocation and update, identity provider
// configurations, lookups of updates and contracts, the paged reads, and
// the packages and the package preferences.
func (h *Handler) registerNeighbours(mux *http.ServeMux, prefix string) {
	mux.Handle("POST "+prefix+"/v2/parties", h.serve(h.allocateParty))
	mux.Handle("PATCH "+prefix+"/v2/parties/{party}", h.serve(h.updateParty))
	mux.Handle("GET "+prefix+"/v2/idps", h.serve(h.listIDPs))
	mux.Handle("POST "+prefix+"/v2/idps", h.serve(h.createIDP))
	mux.Handle("GET "+prefix+"/v2/idps/{idp}", h.serve(h.getIDP))
	mux.Handle("PATCH "+prefix+"/v2/idps/{idp}", h.serve(h.updateIDP))
	mux.Handle("DELETE "+prefix+"/v2/idps/{idp}", h.serve(h.deleteIDP))
	mux.Handle("POST "+prefix+"/v2/updates/update-by-id", h.serve(h.getUpdate(true)))
	mux.Handle("POST "+prefix+"/v2/updates/update-by-offset", h.serve(h.getUpdate(false)))
	mux.Handle("POST "+prefix+"/v2/updates/transaction-by-id", h.serve(h.getTransaction(true)))
	mux.Handle("POST "+prefix+"/v2/updates/transaction-by-offset", h.serve(h.getTransaction(false)))
	mux.Handle("GET "+prefix+"/v2/updates/transaction-tree-by-id/{id}", h.serve(h.getTransactionTree(true)))
	mux.Handle("GET "+prefix+"/v2/updates/transaction-tree-by-offset/{offset}", h.serve(h.getTransactionTree(false)))
	mux.Handle("POST "+prefix+"/v2/events/events-by-contract-id", h.serve(h.eventsByContractID))
	mux.Handle("POST "+prefix+"/v2/contracts/contract-by-id", h.serve(h.contractByID))
	mux.Handle("POST "+prefix+"/v2/state/active-contracts-page", h.serve(h.activeContractsPage))
	mux.Handle("GET "+prefix+"/v2/state/active-contracts-page", h.serve(h.activeContractsPage))
	mux.Handle("POST "+prefix+"/v2/updates/get-updates-page", h.serve(h.updatesPage))
	mux.Handle("GET "+prefix+"/v2/packages", h.serve(h.listPackages))
	mux.Handle("POST "+prefix+"/v2/packages", h.serve(h.refuse(refuseUpload, "vetAllPackages")))
	mux.Handle("GET "+prefix+"/v2/packages/{package}", h.serve(h.downloadPackage))
	mux.Handle("GET "+prefix+"/v2/packages/{package}/status", h.serve(h.packageStatus))
	mux.Handle("POST "+prefix+"/v2/dars", h.serve(h.refuse(refuseUpload, "vetAllPackages")))
	mux.Handle("POST "+prefix+"/v2/dars/validate", h.serve(h.refuse(refuseValidate)))
	mux.Handle("GET "+prefix+"/v2/package-vetting", h.serve(h.listVettedPackages))
	mux.Handle("POST "+prefix+"/v2/package-vetting/list", h.serve(h.listVettedPackages))
	mux.Handle("POST "+prefix+"/v2/package-vetting", h.serve(h.refuseVettingUpdate))
	mux.Handle("POST "+prefix+"/v2/package-vetting/update", h.serve(h.refuseVettingUpdate))
	mux.Handle("GET "+prefix+"/v2/interactive-submission/preferred-package-version", h.serve(h.preferredPackageVersion))
	mux.Handle("POST "+prefix+"/v2/interactive-submission/preferred-packages", h.serve(h.preferredPackages))
}
