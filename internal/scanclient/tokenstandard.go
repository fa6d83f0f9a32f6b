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
	return c.factory(ctx, "/transfer-instruction/v1/transfer-factory", "transfer", "TransferFactoryWithChoiceContext", arg)
}

// AllocationFactory asks the registry for the factory of an allocation,
// with arg as the choice arguments the wallet will exercise
// AllocationFactory_Allocate with, and decodes the answer (whose Kind is
// empty: the registry names none for allocations).
func (c *Client) AllocationFactory(ctx context.Context, arg splice.AllocationFactoryAllocate) (splice.RegistryFactory, error) {
	return c.factory(ctx, "/allocation-instruction/v1/allocation-factory", "allocation", "FactoryWithChoiceContext", arg)
}

// factory POSTs arg as the choiceArguments of a factory request to path
// of the registry and decodes the factory and its context; what names the
// factory in errors ("transfer", "allocation"), wire the answer's schema.
func (c *Client) factory(ctx context.Context, path, what, wire string, arg any) (splice.RegistryFactory, error) {
	v, err := daml.FromGo(arg)
	if err != nil {
		return splice.RegistryFactory{}, fault.Wrap(fault.Internal, err, "encode the %s's choice arguments", what)
	}
	args, err := daml.PayloadJSON.Encode(v)
	if err != nil {
		return splice.RegistryFactory{}, fault.Wrap(fault.Internal, err, "encode the %s's choice arguments", what)
	}
	body, err := json.Marshal(struct {
		ChoiceArguments    json.RawMessage `json:"choiceArguments"`
		ExcludeDebugFields bool            `json:"excludeDebugFields"`
	}{args, true})
	if err != nil {
		return splice.RegistryFactory{}, fault.Wrap(fault.Internal, err, "encode the %s-factory request", what)
	}
	raw, err := c.RegistryPost(ctx, path, body)
	if err != nil {
		return splice.RegistryFactory{}, err
	}
	var ans struct {
		FactoryID     string                `json:"factoryId"`
		TransferKind  string                `json:"transferKind"`
		ChoiceContext registryChoiceContext `json:"choiceContext"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil || ans.FactoryID == "" {
		return splice.RegistryFactory{}, fault.New(fault.Unavailable, "the registry's %s factory is not a %s: %s", what, wire, fault.Clip(string(raw)))
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
	return c.choiceContext(ctx, "/transfer-instruction/v1/"+url.PathEscape(string(id))+"/choice-contexts/"+url.PathEscape(choice))
}

// AllocationContext asks the registry for the context of choice
// ("execute-transfer", "withdraw" or "cancel") on the allocation id, as
// TransferInstructionContext does for a transfer instruction.
func (c *Client) AllocationContext(ctx context.Context, id daml.ContractID, choice string) (splice.RegistryContext, error) {
	return c.choiceContext(ctx, "/allocations/v1/"+url.PathEscape(string(id))+"/choice-contexts/"+url.PathEscape(choice))
}

func (c *Client) choiceContext(ctx context.Context, path string) (splice.RegistryContext, error) {
	raw, err := c.RegistryPost(ctx, path, json.RawMessage(`{"meta":{},"excludeDebugFields":true}`))
	if err != nil {
		return splice.RegistryContext{}, err
	}
	var cc registryChoiceContext
	if err := json.Unmarshal(raw, &cc); err != nil {
		return splice.RegistryContext{}, fault.New(fault.Unavailable, "the registry's choice context is not a ChoiceContext: %s", fault.Clip(string(raw)))
	}
	return cc.decode()
}
