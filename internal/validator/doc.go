// Package validator is the validator app's domain: the users it onboards
// and their wallets (taps, balances, direct transfer offers), the name
// service entries they buy, the wallet automation that completes accepted
// offers, expires stale ones and renews subscriptions, and the scan-proxy.
//
// Like Splice's validator it acts through its participant's command seam
// (ledger.Network.Submit) and reads the DSO's contracts (amulet rules, open
// rounds) from a Scan over HTTP, submitting them as disclosed contracts.
// Its transaction log (the states of transfer offers) is built by
// ingesting its participant's update stream into its own store, so it
// agrees with the ledger after any crash. The package imports neither SQL
// nor HTTP servers; the Scan is reached through the ScanClient seam.
package validator
