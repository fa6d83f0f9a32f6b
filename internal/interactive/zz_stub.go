package interactive

import "github.com/sandnet/sandnet/internal/daml"

type PreparedTransaction struct {
	Transaction *DamlTransaction
	Metadata    *Metadata
}
type DamlTransaction struct {
	Version   string
	Roots     []string
	Nodes     []Node
	NodeSeeds []NodeSeed
}
type NodeSeed struct {
	NodeID int32
	Seed   []byte
}
type Node struct {
	NodeID   string
	Create   *Create
	Fetch    *Fetch
	Exercise *Exercise
	Rollback *Rollback
}
type Create struct {
	LfVersion    string
	ContractID   daml.ContractID
	PackageName  string
	TemplateID   daml.Identifier
	Argument     daml.Value
	Signatories  []daml.Party
	Stakeholders []daml.Party
}
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
	ExerciseResult  daml.Value
	ChoiceObservers []daml.Party
}
type Rollback struct{ Children []string }
type Metadata struct {
	SubmitterInfo          *SubmitterInfo
	SynchronizerID         string
	MediatorGroup          uint32
	TransactionUUID        string
	PreparationTime        int64
	InputContracts         []InputContract
	MinLedgerEffectiveTime *int64
	MaxLedgerEffectiveTime *int64
	MaxRecordTime          *int64
}
type SubmitterInfo struct {
	ActAs     []daml.Party
	CommandID string
}
type InputContract struct {
	Create    *Create
	CreatedAt int64
	EventBlob []byte
}
type Hashes struct{ Transaction, Metadata, Final [32]byte }

func HashV2(pt *PreparedTransaction) (Hashes, error) { return Hashes{}, nil }
