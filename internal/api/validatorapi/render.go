package validatorapi

import (
	"encoding/base64"
	"encoding/json"
	"regexp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Contract is Splice's HTTP Contract: a contract with the blob a client
// submits back as a disclosed contract.
type Contract struct {
	TemplateID       string          `json:"template_id"`
	ContractID       string          `json:"contract_id"`
	Payload          json.RawMessage `json:"payload"`
	CreatedEventBlob string          `json:"created_event_blob"`
	CreatedAt        string          `json:"created_at"`
}

// ContractWithState is a contract and the synchronizer it is assigned to.
type ContractWithState struct {
	Contract *Contract `json:"contract"`
	DomainID string    `json:"domain_id,omitempty"`
}

// payloadCodec renders Contract.payload as Splice does (Canton's
// ApiCodecCompressed; the same as the Scan API's contracts).
var payloadCodec = daml.PayloadJSON

// contractOf renders Splice's HTTP Contract. The blob is the ledger API's
// created_event_blob.
func contractOf(c *ledger.Contract) (*Contract, error) {
	var v daml.Value = daml.Unit{}
	if c.Argument != nil {
		v = c.Argument
	}
	payload, err := payloadCodec.Encode(v)
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

// contractsOf renders contracts, never as null.
func contractsOf(cs []*ledger.Contract) ([]*Contract, error) {
	out := make([]*Contract, 0, len(cs))
	for _, c := range cs {
		k, err := contractOf(c)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// decimalPattern is the form Splice's decoders accept for a Decimal.
const decimalPattern = `-?\d{1,28}(\.\d{1,10})?`

var decimalRE = regexp.MustCompile(`^` + decimalPattern + `$`)

// parseDecimal reads a Decimal string of a request, with Splice's 400.
func parseDecimal(s string) (daml.Numeric, error) {
	if !decimalRE.MatchString(s) {
		return daml.Numeric{}, badRequest(`Failed to decode: Invalid Decimal string "%s", as it does not match "%s"`, s, decimalPattern)
	}
	n, err := daml.ParseNumeric(s)
	if err != nil {
		return daml.Numeric{}, badRequest("Failed to decode: %v", err)
	}
	return n, nil
}
