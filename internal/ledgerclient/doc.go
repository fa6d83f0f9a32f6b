// Package ledgerclient is a client of a participant's JSON Ledger API v2
// (as sandnet's internal/api/ledgerapi serves it) that implements
// scan.Source, so that a Scan can run in its own process and ingest the
// update stream of a remote SV participant.
//
// [Client.Read] lists the participant's updates for the DSO party with the
// LEDGER_EFFECTS shape (POST /v2/updates) and decodes each JsTransaction
// back into the *ledger.Transaction the in-process projection gives
// (ledger.Transaction.Project to the DSO party): the tree is rebuilt from
// the events' nodeId and lastDescendantNodeId, and Daml values are typed
// with the templates and choices of a *ledger.Registry. [DSOView] derives
// what an update adds to and removes from the DSO party's active contract
// set.
//
// # Checkpoints and time
//
// A batch that reaches the ledger end carries a checkpoint: the offset
// checkpoint of an open-ended updates list at the ledger end, whose
// synchronizer time is the network's watermark (every later update has a
// later record time). [Client.Now] reads the ledger clock from sandnet's
// admin API when Config.AdminURL is set, and otherwise uses that
// watermark, which trails the clock by a microsecond on an idle network.
// [Client.Wait] long-polls an open-ended updates list.
//
// # Known differences from the in-process projection
//
// The JSON Ledger API does not carry everything a ledger.Transaction
// holds:
//
//   - Transaction.Submission is left empty (the API shows the command id
//     only to the submitting parties, and never the user or act-as
//     parties).
//   - Exercised.Stakeholders is narrowed to the DSO party, as Witnesses
//     are: [DSO] or nil. It is exact for consuming exercises (the event's
//     acsDelta says whether the DSO is a stakeholder) and for contracts
//     created in the same transaction; for other non-consuming exercises
//     it is nil, since nothing on the wire says. [DSOView] only needs the
//     former, so Update.Archived is exact.
//   - MigrationID (of transactions and contracts) is that of the
//     transaction's synchronizer as the admin API lists it when
//     Config.AdminURL is set, else Config.MigrationID, as Splice apps are
//     configured with their migration id.
//   - The trace context the server derives for updates submitted without
//     one is recognised and decoded as the empty TraceContext.
//   - Empty party and child lists may decode as empty slices where the
//     engine has nil ones, and the reverse.
package ledgerclient
