// Package ledger is the network engine: the domain of the ledger nodes.
//
// It orders every transaction once, as a synchronizer does (update id, a
// record time unique and strictly increasing within a migration, an effective
// time), and commits it atomically with its effect on the active contract
// set. Participants host parties; each has its own strictly increasing
// offsets and sees exactly the transactions in which a party it hosts is a
// stakeholder or witness. Users of a participant have rights.
//
// Commands run Go implementations of Daml choices (package
// internal/ledger/splice registers them) inside a [Tx], which records the
// transaction tree: created and exercised events, child ids, witnesses and
// stakeholders. A command that reaches the sequencer yields one
// [Completion] in its participant's completion stream, and commands are
// deduplicated by their change id (user, command id, actAs); see
// completion.go.
//
// The package imports neither SQL nor HTTP. Persistence goes through the
// [Store] seam, implemented by the adapters under internal/store.
package ledger
