// Package splice is the Splice part of the network engine: Splice's Daml
// templates as Go types, their choices as Go functions, the DSO's
// automation, and Seed, which builds a fresh network.
//
// # Templates
//
// Every template is a Go struct with `daml:"label"` tags whose fields have
// Splice's names, types and order, and whose TemplateID is the real
// package name, package id, module and entity (the package ids are in one
// table, packages.go). Nested records name their Daml type
// (DamlIdentifier), enums and variants use the daml package's markers. The
// modelled versions are those of the packages in the table, field for
// field; testdata/types pins every payload's, choice argument's and
// result's type, and docs/packages.md lists them with their controllers.
//
// Amulet and LockedAmulet implement the token standard's Holding interface
// (splice-api-token-holding-v1); AmuletHoldingView computes the view the
// ledger API serves.
//
// # Choices
//
// Choices are registered with the real choice names and argument and result
// records, and their bodies keep the semantics clients observe: the same
// controllers and signatories (so the same authorization failures), the same
// checks failing the same way (require as UNHANDLED_EXCEPTION,
// failWithStatus as DAML_FAILURE, see failures.go), the same contracts
// created and archived, in the same tree. Where sandnet differs from Splice
// the choice's comment says so; in short:
//
//   - there are no reward coupons: transfers accept amulet inputs only and
//     (as Splice since CIP-78) charge no fees, and rounds are summarized
//     with zero totals;
//   - the token standard's V2 event log is not recorded, and the external
//     parties' configuration contracts are not created;
//   - an offer may be accepted or completed exactly at its expiry time and
//     expired only after it (the project's decision);
//   - a new open round opens one tick after the latest one but never more
//     than a tick in the past, so that after the clock jumps ahead three
//     advances bring the rounds back to a current set;
//   - actions Splice runs through SV confirmations are exercised by the DSO
//     party directly; votes are recorded but not executed;
//   - WalletAppInstall_ExecuteBatch (the wallet's batched operations) is not
//     implemented: wallets exercise the underlying choices directly.
//
// # Automation and seeding
//
// Automation is the DSO's background service: it advances rounds as ledger
// time passes and runs the name service's collections and expiries, waking
// on clock advances, commits and its next deadline rather than polling.
// Seed builds a network (synchronizer, SVs, DSO, validator, users, wallets,
// coin, names, a vote) through ordinary transactions, deterministically
// from the network seed. ComputeSupply checks the amulet accounting.
package splice
