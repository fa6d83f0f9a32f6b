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
// set. The same list includes the reassignments of the contracts the DSO
// party is a stakeholder of (includeReassignments), which
// [DecodeReassignment] turns back into *ledger.Reassignment values, as
// scan.NetworkSource keeps them.
//
// # Migration ids
//
// The JSON Ledger API carries no migration id. With Config.AdminURL set,
// Read asks sandnet's admin API (GET /api/sandnet/v0/network) where each
// hard migration starts in the participant's stream (ledger.Network.Migrate
// records it with the migration) and gives each update the migration of
// the last start it is after, and each checkpoint the last migration
// started at or before its offset, so that a Scan's ingester makes the
// import updates of a new migration as it does in process. Without it,
// every update has Config.MigrationID, as Splice apps are configured with
// their migration id, and checkpoints carry migration 0 ("unknown").
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
//   - MigrationID (of updates and the contracts they create) is told by
//     offset from the admin API's migration starts, or is
//     Config.MigrationID without it (see above). A migration that a
//     sandnet predating the record of its start ran is not listed: its
//     updates are tagged with the migration before it.
//   - An assignment does not say where its contract was created
//     (Contract.CreatedBy, and Contract.MigrationID, the migration it was
//     created in), which a Scan serves (created_in_update_id, contract
//     blobs). The client finds the creation in the DSO party's stream, by
//     a list of the creations of the contract's template up to the
//     assignment (once per contract; see Client.origin), and tells its
//     migration by offset as for updates. When the creation is not in the
//     stream (pruned, or not seen by the DSO party), CreatedBy is empty
//     and MigrationID that of the assignment.
//   - An unassignment names its contract by id and template only
//     (JsUnassignedEvent): its argument, signatories, observers and
//     creation time are left empty, its synchronizer is the source and
//     its reassignment counter the one before the unassignment's.
//     Reassignment.Parties is therefore empty for a decoded unassignment;
//     the ledger API has already kept only those of the DSO party's
//     contracts.
//   - A reassignment's CommandID is shown only when the DSO party
//     submitted it (the ledger API shows it to the submitting party).
//   - The trace context the server derives for updates submitted without
//     one is recognised and decoded as the empty TraceContext.
//   - Empty party and child lists may decode as empty slices where the
//     engine has nil ones, and the reverse.
package ledgerclient
