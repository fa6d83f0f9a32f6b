// Package storetest is the conformance suite of the [ledger.Store] seam.
//
// Every adapter runs [Exercise] from its own tests, with a function that
// opens a fresh, empty store and one that reopens a store on the same data.
// A behaviour is specified here once, and a bug fixed in one adapter gets a
// test that the other must pass too. The package also has the shared body
// of the adapters' append benchmarks ([BenchmarkAppend]), so that the
// figures of both engines measure the same work.
//
// Fixtures are built by hand from Daml values (no engine involved): a small
// network of one synchronizer, two participants and a few parties, and
// transactions whose positions (sequence, record time, offsets) are
// allocated from the head inside the write transaction, the way the engine
// does it.
package storetest
