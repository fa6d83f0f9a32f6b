package interactive

import "github.com/sandnet/sandnet/internal/daml"

// PreparedTransaction mirrors the protobuf message
// com.daml.ledger.api.v2.interactive.PreparedTransaction: the transaction an
// external party signs and the metadata needed to execute it.
type PreparedTransaction struct {
	Transaction *DamlTransaction // nil when absent
	Metadata    *Metadata        // nil when absent
}

// DamlTransaction mirrors the protobuf DamlTransaction: a forest of nodes
// referenced by id, with the seeds of its create and exercise nodes.
type DamlTransaction struct {
	// Version is the transaction's LF serialization version, "2.1".
	Version string
	// Roots are the ids of the root nodes, in execution order.
	Roots []string
	// Nodes are the transaction's nodes, in any order.
	Nodes []Node
	// NodeSeeds are the seeds of the create and exercise nodes.
	NodeSeeds []NodeSeed
}

// NodeSeed is the seed of one node (DamlTransaction.NodeSeed): the node's
// id as an integer and its 32-byte seed.
type NodeSeed struct {
	NodeID int32
	Seed   []byte
}

// Node is one node; exactly one of Create, Fetch, Exercise, Rollback is set.
// It mirrors DamlTransaction.Node with its only versioned case, v1. A
// decoded node with none of them (the 3.5 QueryByKey or an unknown case) is
// refused by [Unmarshal], since sandnet does not use contract keys.
type Node struct {
	// NodeID is the node's id, the decimal LF node index.
	NodeID   string
	Create   *Create
	Fetch    *Fetch
	Exercise *Exercise
	Rollback *Rollback
}

// kind names the node's kind, "" for a node of none.
func (n *Node) kind() string {
	switch {
	case n.Create != nil:
		return "create"
	case n.Exercise != nil:
		return "exercise"
	case n.Fetch != nil:
		return "fetch"
	case n.Rollback != nil:
		return "rollback"
	}
	return ""
}

// Create is a create node (transaction.v1.Create). It also describes the
// input contracts of [Metadata].
type Create struct {
	LfVersion    string
	ContractID   daml.ContractID // hex string in the proto
	PackageName  string
	TemplateID   daml.Identifier
	Argument     daml.Value
	Signatories  []daml.Party
	Stakeholders []daml.Party
}

// Fetch is a fetch node (transaction.v1.Fetch).
type Fetch struct {
	LfVersion     string
	ContractID    daml.ContractID
	PackageName   string
	TemplateID    daml.Identifier
	Signatories   []daml.Party
	Stakeholders  []daml.Party
	ActingParties []daml.Party
	InterfaceID   *daml.Identifier
}

// Exercise is an exercise node (transaction.v1.Exercise).
type Exercise struct {
	LfVersion       string
	ContractID      daml.ContractID
	PackageName     string
	TemplateID      daml.Identifier
	Signatories     []daml.Party
	Stakeholders    []daml.Party
	ActingParties   []daml.Party
	InterfaceID     *daml.Identifier
	ChoiceID        string
	ChosenValue     daml.Value
	Consuming       bool
	Children        []string
	ExerciseResult  daml.Value // nil when absent
	ChoiceObservers []daml.Party
}

// Rollback is a rollback node (transaction.v1.Rollback).
type Rollback struct {
	Children []string
}

// Metadata mirrors the protobuf Metadata: what the participant needs to
// execute the transaction. Times are microseconds since the Unix epoch.
type Metadata struct {
	SubmitterInfo          *SubmitterInfo
	SynchronizerID         string
	MediatorGroup          uint32
	TransactionUUID        string
	PreparationTime        int64 // µs
	InputContracts         []InputContract
	MinLedgerEffectiveTime *int64 // µs, optional
	MaxLedgerEffectiveTime *int64
	MaxRecordTime          *int64
}

// SubmitterInfo mirrors Metadata.SubmitterInfo.
type SubmitterInfo struct {
	ActAs     []daml.Party
	CommandID string
}

// InputContract mirrors Metadata.InputContract: a contract the transaction
// uses but does not create, with its creation time and event blob.
type InputContract struct {
	Create    *Create // the v1 case of the oneof
	CreatedAt int64   // µs
	EventBlob []byte
}
