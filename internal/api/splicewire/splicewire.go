// Package splicewire holds the JSON shapes the Splice APIs share —
// Splice's HTTP Contract and ContractWithState, a snapshot's
// ActiveContract — and their conversion to
// and from ledger contracts. The Scan API serves them, the scan client
// reads them back, and the validator API serves them again.
package splicewire

import (
	"encoding/base64"
	"encoding/json"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Contract is Splice's HTTP Contract: a contract with the blob a
// validator submits back as a disclosed contract.
type Contract struct {
	TemplateID       string          `json:"template_id"`
	ContractID       string          `json:"contract_id"`
	Payload          json.RawMessage `json:"payload"`
	CreatedEventBlob string          `json:"created_event_blob"`
	CreatedAt        string          `json:"created_at"`
}

// ActiveContract is a contract of a Scan's ACS snapshot as /v1 and /v2
// state/acs serve it: created_in_update_id is left out for a contract
// created in an earlier migration than the snapshot's.
type ActiveContract struct {
	CreatedInUpdateID string          `json:"created_in_update_id,omitempty"`
	ContractID        string          `json:"contract_id"`
	TemplateID        string          `json:"template_id"`
	PackageName       string          `json:"package_name"`
	CreateArguments   json.RawMessage `json:"create_arguments"`
	CreatedAt         string          `json:"created_at"`
	Signatories       []string        `json:"signatories"`
	Observers         []string        `json:"observers"`
}

// ContractWithState is a contract and the synchronizer (domain) it is
// assigned to, as the Scan serves it: Contract is nil, and left out of
// the JSON, when the caller had it cached.
type ContractWithState struct {
	Contract *Contract `json:"contract,omitempty"`
	DomainID string    `json:"domain_id,omitempty"`
}

// FullContractWithState is the validator API's ContractWithState, whose
// contract is required: it is always written, never left out. It has
// the fields of ContractWithState, so either converts to the other.
type FullContractWithState struct {
	Contract *Contract `json:"contract"`
	DomainID string    `json:"domain_id,omitempty"`
}

// State is either shape of ContractWithState.
type State interface {
	ContractWithState | FullContractWithState
}

// ContractOf renders Splice's HTTP Contract: the payload in
// daml.PayloadJSON and, as created_event_blob, the base64 of
// ledger.EncodeContract, which the ledger API accepts as a disclosed
// contract.
func ContractOf(c *ledger.Contract) (*Contract, error) {
	var v daml.Value = daml.Unit{}
	if c.Argument != nil {
		v = c.Argument
	}
	payload, err := daml.PayloadJSON.Encode(v)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode the payload of contract %s", c.ID)
	}
	blob, err := ledger.EncodeContract(c)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode contract %s", c.ID)
	}
	return &Contract{
		TemplateID: c.Template.Identifier.String(), ContractID: string(c.ID), Payload: payload,
		CreatedEventBlob: base64.StdEncoding.EncodeToString(blob), CreatedAt: c.CreatedAt.MicrosString(),
	}, nil
}

// ContractsOf renders contracts, never as null.
func ContractsOf(cs []*ledger.Contract) ([]*Contract, error) {
	out := make([]*Contract, 0, len(cs))
	for _, c := range cs {
		k, err := ContractOf(c)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// WithState renders a contract with the synchronizer it is on, in either
// shape S.
func WithState[S State](c *ledger.Contract) (*S, error) {
	k, err := ContractOf(c)
	if err != nil {
		return nil, err
	}
	s := S(ContractWithState{Contract: k, DomainID: string(c.Synchronizer)})
	return &s, nil
}

// WithStates renders contracts with their synchronizers, never as null.
func WithStates[S State](cs []*ledger.Contract) ([]*S, error) {
	out := make([]*S, 0, len(cs))
	for _, c := range cs {
		s, err := WithState[S](c)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Decode decodes the contract from its created_event_blob and checks it
// is the contract the JSON names: same contract id and template id. With
// a registry, the template must be registered. A bad contract is
// fault.Unavailable: the server that sent it is at fault.
func (k *Contract) Decode(reg *ledger.Registry) (*ledger.Contract, error) {
	blob, err := base64.StdEncoding.DecodeString(k.CreatedEventBlob)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "contract %s: created_event_blob is not base64", k.ContractID)
	}
	c, err := ledger.DecodeContract(blob)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "contract %s: undecodable created_event_blob", k.ContractID)
	}
	if string(c.ID) != k.ContractID || c.Template.Identifier.String() != k.TemplateID {
		return nil, fault.New(fault.Unavailable, "contract %s of %s: its created_event_blob is contract %s of %s",
			k.ContractID, k.TemplateID, c.ID, c.Template.Identifier)
	}
	if reg != nil {
		if _, ok := reg.Template(c.Template.Identifier); !ok {
			return nil, fault.New(fault.Unavailable, "contract %s: unknown template %s", k.ContractID, k.TemplateID)
		}
	}
	return c, nil
}
