package scanclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"reflect"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The registry reads a wallet makes to exercise token-standard choices:
// the registry's JSON decoded into what a ledger command takes, as
// Splice's validator decodes its ScanConnection's answers.

// registryChoiceContext is the registry's HTTP ChoiceContext.
type registryChoiceContext struct {
	ChoiceContextData  json.RawMessage `json:"choiceContextData"`
	DisclosedContracts []struct {
		ContractID       string `json:"contractId"`
		CreatedEventBlob string `json:"createdEventBlob"`
	} `json:"disclosedContracts"`
}

// choiceContextType is the Daml type of a ChoiceContext, for decoding the
// registry's choiceContextData.
var choiceContextType = func() *daml.Type {
	t, err := daml.TypeOf(reflect.TypeOf(splice.ChoiceContext{}))
	if err != nil {
		panic(err)
	}
	return t
}()

// decode turns the registry's context into a command's: an answer that
// does not decode is the Scan's fault (Unavailable), not the caller's.
func (r registryChoiceContext) decode() (splice.RegistryContext, error) {
	bad := func(format string, args ...any) (splice.RegistryContext, error) {
		return splice.RegistryContext{}, fault.New(fault.Unavailable, "the registry's choice context: "+format, args...)
	}
	v, err := daml.PayloadJSON.Decode(r.ChoiceContextData, choiceContextType)
	if err != nil {
		return bad("choiceContextData: %v", err)
	}
	var out splice.RegistryContext
	if err := daml.ToGo(v, &out.Context); err != nil {
		return bad("choiceContextData: %v", err)
	}
	for _, d := range r.DisclosedContracts {
		b, err := base64.StdEncoding.DecodeString(d.CreatedEventBlob)
		if err != nil {
			return bad("contract %s: createdEventBlob: %v", d.ContractID, err)
		}
		k, err := ledger.DecodeContract(b)
		if err != nil {
			return bad("contract %s: createdEventBlob: %v", d.ContractID, err)
		}
		if string(k.ID) != d.ContractID {
			return bad("contract %s: its blob holds %s", d.ContractID, k.ID)
		}
		out.Disclosed = append(out.Disclosed, k)
	}
	return out, nil
}

// TransferFactory asks the registry for the factory of a transfer, with
// arg as the choice arguments the wallet will exercise
// TransferFactory_Transfer with (its extraArgs are not read), and decodes
// the answer.
func (c *Client) TransferFactory(ctx context.Context, arg splice.TransferFactoryTransfer) (splice.RegistryFactory, error) {
	v, err := daml.FromGo(arg)
	if err != nil {
		return splice.RegistryFactory{}, fault.Wrap(fault.Internal, err, "encode the transfer's choice arguments")
	}
	args, err := daml.PayloadJSON.Encode(v)
	if err != nil {
		return splice.RegistryFactory{}, fault.Wrap(fault.Internal, err, "encode the transfer's choice arguments")
	}
	body, err := json.Marshal(struct {
		ChoiceArguments    json.RawMessage `json:"choiceArguments"`
		ExcludeDebugFields bool            `json:"excludeDebugFields"`
	}{args, true})
	if err != nil {
		return splice.RegistryFactory{}, fault.Wrap(fault.Internal, err, "encode the transfer-factory request")
	}
	raw, err := c.RegistryPost(ctx, "/transfer-instruction/v1/transfer-factory", body)
	if err != nil {
		return splice.RegistryFactory{}, err
	}
	var ans struct {
		FactoryID     string                `json:"factoryId"`
		TransferKind  string                `json:"transferKind"`
		ChoiceContext registryChoiceContext `json:"choiceContext"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil || ans.FactoryID == "" {
		return splice.RegistryFactory{}, fault.New(fault.Unavailable, "the registry's transfer factory is not a TransferFactoryWithChoiceContext: %s", fault.Clip(string(raw)))
	}
	rc, err := ans.ChoiceContext.decode()
	if err != nil {
		return splice.RegistryFactory{}, err
	}
	return splice.RegistryFactory{FactoryID: daml.ContractID(ans.FactoryID), Kind: ans.TransferKind, RegistryContext: rc}, nil
}

// TransferInstructionContext asks the registry for the context of choice
// ("accept", "reject" or "withdraw") on the transfer instruction id. A
// failure the registry answers (a 404 for an instruction it does not
// know) comes back with its message and kind.
func (c *Client) TransferInstructionContext(ctx context.Context, id daml.ContractID, choice string) (splice.RegistryContext, error) {
	raw, err := c.RegistryPost(ctx, "/transfer-instruction/v1/"+url.PathEscape(string(id))+"/choice-contexts/"+url.PathEscape(choice), json.RawMessage(`{"meta":{},"excludeDebugFields":true}`))
	if err != nil {
		return splice.RegistryContext{}, err
	}
	var cc registryChoiceContext
	if err := json.Unmarshal(raw, &cc); err != nil {
		return splice.RegistryContext{}, fault.New(fault.Unavailable, "the registry's choice context is not a ChoiceContext: %s", fault.Clip(string(raw)))
	}
	return cc.decode()
}
