package ledger

import (
	"encoding/json"
	"fmt"

	"github.com/sandnet/sandnet/internal/daml"
)

// The store adapters persist transactions and contracts as opaque blobs
// produced here, plus the index columns they query on. Keeping the encoding
// in the domain means both adapters store byte-identical data and neither
// re-implements it. Daml values are kept in protobuf_json, the lossless
// self-describing format, so they decode without a schema.

type wireTemplate struct {
	PackageID   string `json:"p"`
	Module      string `json:"m"`
	Entity      string `json:"e"`
	PackageName string `json:"n"`
}

type wireContract struct {
	ID           daml.ContractID `json:"id"`
	Template     wireTemplate    `json:"t"`
	Argument     json.RawMessage `json:"arg"`
	Signatories  []daml.Party    `json:"sig"`
	Observers    []daml.Party    `json:"obs"`
	CreatedAt    daml.Timestamp  `json:"at"`
	CreatedBy    string          `json:"by"`
	Synchronizer SynchronizerID  `json:"sync"`
	MigrationID  int64           `json:"mig"`
}

type wireExercised struct {
	ContractID     daml.ContractID  `json:"cid"`
	Template       wireTemplate     `json:"t"`
	Interface      *daml.Identifier `json:"if,omitempty"`
	Choice         string           `json:"ch"`
	ChoiceArgument json.RawMessage  `json:"arg"`
	ActingParties  []daml.Party     `json:"act"`
	Consuming      bool             `json:"cons"`
	Children       []int32          `json:"kids"`
	LastDescendant int32            `json:"last"`
	ExerciseResult json.RawMessage  `json:"res"`
	Stakeholders   []daml.Party     `json:"sh"`
}

type wireEvent struct {
	NodeID    int32          `json:"n"`
	Created   *wireContract  `json:"c,omitempty"`
	Exercised *wireExercised `json:"x,omitempty"`
	Witnesses []daml.Party   `json:"w"`
}

type wireTransaction struct {
	UpdateID     string         `json:"u"`
	WorkflowID   string         `json:"wf,omitempty"`
	Submission   Submission     `json:"sub"`
	Synchronizer SynchronizerID `json:"sync"`
	MigrationID  int64          `json:"mig"`
	RecordTime   daml.Timestamp `json:"rt"`
	EffectiveAt  daml.Timestamp `json:"at"`
	Events       []wireEvent    `json:"ev"`
	Roots        []int32        `json:"roots"`
	TraceContext TraceContext   `json:"tc"`
}

func toWireTemplate(t TemplateID) wireTemplate {
	return wireTemplate{t.PackageID, t.ModuleName, t.EntityName, t.PackageName}
}

func (w wireTemplate) template() TemplateID {
	return TemplateID{Identifier: daml.Identifier{PackageID: w.PackageID, ModuleName: w.Module, EntityName: w.Entity}, PackageName: w.PackageName}
}

func encodeValue(v daml.Value) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	return daml.ProtobufJSON.Encode(v)
}

func decodeValue(b json.RawMessage) (daml.Value, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return daml.ProtobufJSON.Decode(b, nil)
}

func toWireContract(c *Contract) (*wireContract, error) {
	arg, err := encodeValue(c.Argument)
	if err != nil {
		return nil, err
	}
	return &wireContract{
		ID: c.ID, Template: toWireTemplate(c.Template), Argument: arg,
		Signatories: c.Signatories, Observers: c.Observers, CreatedAt: c.CreatedAt,
		CreatedBy: c.CreatedBy, Synchronizer: c.Synchronizer, MigrationID: c.MigrationID,
	}, nil
}

func (w *wireContract) contract() (*Contract, error) {
	v, err := decodeValue(w.Argument)
	if err != nil {
		return nil, err
	}
	rec, ok := v.(*daml.Record)
	if !ok {
		return nil, fmt.Errorf("contract %s: argument is not a record", w.ID)
	}
	return &Contract{
		ID: w.ID, Template: w.Template.template(), Argument: rec,
		Signatories: w.Signatories, Observers: w.Observers, CreatedAt: w.CreatedAt,
		CreatedBy: w.CreatedBy, Synchronizer: w.Synchronizer, MigrationID: w.MigrationID,
	}, nil
}

// EncodeContract serialises a contract for storage.
func EncodeContract(c *Contract) ([]byte, error) {
	w, err := toWireContract(c)
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// DecodeContract reverses [EncodeContract].
func DecodeContract(b []byte) (*Contract, error) {
	var w wireContract
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("decode contract: %w", err)
	}
	return w.contract()
}

// EncodeTransaction serialises a transaction for storage.
func EncodeTransaction(t *Transaction) ([]byte, error) {
	w := wireTransaction{
		UpdateID: t.UpdateID, WorkflowID: t.WorkflowID, Submission: t.Submission,
		Synchronizer: t.Synchronizer, MigrationID: t.MigrationID, RecordTime: t.RecordTime,
		EffectiveAt: t.EffectiveAt, Roots: t.Roots, TraceContext: t.TraceContext,
		Events: make([]wireEvent, len(t.Events)),
	}
	for i := range t.Events {
		e := &t.Events[i]
		we := wireEvent{NodeID: e.NodeID, Witnesses: e.Witnesses}
		if e.Created != nil {
			c, err := toWireContract(e.Created)
			if err != nil {
				return nil, err
			}
			we.Created = c
		}
		if x := e.Exercised; x != nil {
			arg, err := encodeValue(x.ChoiceArgument)
			if err != nil {
				return nil, err
			}
			res, err := encodeValue(x.ExerciseResult)
			if err != nil {
				return nil, err
			}
			we.Exercised = &wireExercised{
				ContractID: x.ContractID, Template: toWireTemplate(x.Template), Interface: x.Interface,
				Choice: x.Choice, ChoiceArgument: arg, ActingParties: x.ActingParties,
				Consuming: x.Consuming, Children: x.Children, LastDescendant: x.LastDescendant,
				ExerciseResult: res, Stakeholders: x.Stakeholders,
			}
		}
		w.Events[i] = we
	}
	return json.Marshal(&w)
}

// DecodeTransaction reverses [EncodeTransaction].
func DecodeTransaction(b []byte) (*Transaction, error) {
	var w wireTransaction
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("decode transaction: %w", err)
	}
	t := &Transaction{
		UpdateID: w.UpdateID, WorkflowID: w.WorkflowID, Submission: w.Submission,
		Synchronizer: w.Synchronizer, MigrationID: w.MigrationID, RecordTime: w.RecordTime,
		EffectiveAt: w.EffectiveAt, Roots: w.Roots, TraceContext: w.TraceContext,
		Events: make([]Event, len(w.Events)),
	}
	for i, we := range w.Events {
		e := Event{NodeID: we.NodeID, Witnesses: we.Witnesses}
		if we.Created != nil {
			c, err := we.Created.contract()
			if err != nil {
				return nil, err
			}
			e.Created = c
		}
		if x := we.Exercised; x != nil {
			arg, err := decodeValue(x.ChoiceArgument)
			if err != nil {
				return nil, err
			}
			res, err := decodeValue(x.ExerciseResult)
			if err != nil {
				return nil, err
			}
			e.Exercised = &Exercised{
				ContractID: x.ContractID, Template: x.Template.template(), Interface: x.Interface,
				Choice: x.Choice, ChoiceArgument: arg, ActingParties: x.ActingParties,
				Consuming: x.Consuming, Children: x.Children, LastDescendant: x.LastDescendant,
				ExerciseResult: res, Stakeholders: x.Stakeholders,
			}
		}
		t.Events[i] = e
	}
	return t, nil
}
