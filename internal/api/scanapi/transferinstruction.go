package scanapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"sync"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// The registry's transfer-instruction API (v1): the factory and choice
// contexts a wallet needs to transfer amulet through the token standard's
// interfaces. The answers are computed by scan.Service; this file reads
// the requests and writes Splice's shapes.

// GetFactoryRequest is the body of POST
// /registry/transfer-instruction/v1/transfer-factory.
type GetFactoryRequest struct {
	// ChoiceArguments are the arguments the wallet will exercise
	// TransferFactory_Transfer with, as Daml JSON; the registry reads the
	// transfer's parties from them.
	ChoiceArguments json.RawMessage `json:"choiceArguments"`
	// ExcludeDebugFields leaves the disclosed contracts' debug fields out.
	ExcludeDebugFields *bool `json:"excludeDebugFields,omitempty"`
}

// GetChoiceContextRequest is the body of POST
// /registry/transfer-instruction/v1/{id}/choice-contexts/{choice}. Meta is
// accepted and ignored, as Amulet's registry ignores it.
type GetChoiceContextRequest struct {
	Meta               map[string]string `json:"meta,omitempty"`
	ExcludeDebugFields *bool             `json:"excludeDebugFields,omitempty"`
}

// TransferFactoryWithChoiceContext is the answer of the transfer-factory
// endpoint.
type TransferFactoryWithChoiceContext struct {
	FactoryID     string        `json:"factoryId"`
	TransferKind  string        `json:"transferKind"`
	ChoiceContext ChoiceContext `json:"choiceContext"`
}

// ChoiceContext is the token standard's HTTP ChoiceContext: the Daml JSON
// of a Splice.Api.Token.MetadataV1:ChoiceContext, which wallets copy
// verbatim into extraArgs.context, and the contracts to disclose.
type ChoiceContext struct {
	ChoiceContextData  json.RawMessage     `json:"choiceContextData"`
	DisclosedContracts []DisclosedContract `json:"disclosedContracts"`
}

// DisclosedContract is a contract a wallet passes to the ledger as
// disclosed. The debug fields are left out when the request asks.
type DisclosedContract struct {
	TemplateID       string          `json:"templateId"`
	ContractID       string          `json:"contractId"`
	CreatedEventBlob string          `json:"createdEventBlob"`
	SynchronizerID   string          `json:"synchronizerId"`
	DebugPackageName string          `json:"debugPackageName,omitempty"`
	DebugPayload     json.RawMessage `json:"debugPayload,omitempty"`
	DebugCreatedAt   string          `json:"debugCreatedAt,omitempty"`
}

// transferFactoryTransferType is the Daml type of TransferFactory_Transfer:
// choiceArguments are checked against it, as Splice decodes them with its
// codegen, before the transfer's parties are read.
var transferFactoryTransferType = sync.OnceValues(func() (*daml.Type, error) {
	return daml.TypeOf(reflect.TypeFor[splice.TransferFactoryTransfer]())
})

// notATransfer is Splice's 400 for choiceArguments that are not a
// TransferFactory_Transfer. The reason (Splice's is its JSON decoder's
// exception) says what is wrong where.
func notATransfer(err error) error {
	reason := err.Error()
	if e, ok := errors.AsType[*daml.Error](err); ok {
		reason = e.Msg + " at " + e.Path
	}
	return badRequest("Field `choiceArguments` does not contain a valid `TransferFactory_Transfer`: %s", fault.Clip(reason))
}

// DecodeTransferFactoryTransfer reads the sender and receiver of a
// TransferFactory_Transfer given as Daml JSON (the Ledger API's, which
// the Java codegen's decoder also accepts): every field of the choice
// argument must be there and well typed; unknown fields must be null.
// Anything else is Splice's fault.InvalidArgument.
func DecodeTransferFactoryTransfer(data []byte) (sender, receiver daml.Party, err error) {
	t, err := transferFactoryTransferType()
	if err != nil {
		return "", "", fault.Wrap(fault.Internal, err, "the type of TransferFactory_Transfer")
	}
	v, err := daml.LedgerJSON.Decode(data, t)
	if err != nil {
		return "", "", notATransfer(err)
	}
	var tr splice.TransferFactoryTransfer
	if err := daml.ToGo(v, &tr); err != nil {
		return "", "", notATransfer(err)
	}
	for _, p := range []daml.Party{tr.Transfer.Sender, tr.Transfer.Receiver} {
		if !ledger.ValidPartyID(string(p)) {
			return "", "", badRequest("Invalid party ID: %s is not of the form <identifier>::<namespace>", fault.Quote(string(p)))
		}
	}
	return tr.Transfer.Sender, tr.Transfer.Receiver, nil
}

func (h *Handler) transferFactory(w http.ResponseWriter, r *http.Request) error {
	var req GetFactoryRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if len(req.ChoiceArguments) == 0 || string(req.ChoiceArguments) == "null" {
		return missing("choiceArguments")
	}
	sender, receiver, err := DecodeTransferFactoryTransfer(req.ChoiceArguments)
	if err != nil {
		return err
	}
	f, err := h.svc.TransferFactory(r.Context(), sender, receiver)
	if err != nil {
		return err
	}
	cc, err := choiceContextOf(&h.blobs, f.Context, req.ExcludeDebugFields != nil && *req.ExcludeDebugFields)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, TransferFactoryWithChoiceContext{
		FactoryID: string(f.Factory.ID), TransferKind: string(f.Kind), ChoiceContext: cc,
	})
	return nil
}

// choiceContext serves a choice's context on the contract the path's id
// names, as lookup computes it: the transfer instructions' and the
// allocations' choice-context endpoints.
func (h *Handler) choiceContext(lookup func(context.Context, daml.ContractID) (scan.ChoiceContext, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req GetChoiceContextRequest
		if err := web.DecodeJSON(r, &req); err != nil {
			return err
		}
		c, err := lookup(r.Context(), daml.ContractID(r.PathValue("id")))
		if err != nil {
			return err
		}
		cc, err := choiceContextOf(&h.blobs, c, req.ExcludeDebugFields != nil && *req.ExcludeDebugFields)
		if err != nil {
			return err
		}
		web.WriteJSON(w, http.StatusOK, cc)
		return nil
	}
}

// choiceContextOf renders a choice context: the entries as the Daml JSON
// of a MetadataV1 ChoiceContext, in the order Splice adds them, and the
// contracts on the DSO's active synchronizer.
func choiceContextOf(blobs *blobCache, c scan.ChoiceContext, excludeDebug bool) (ChoiceContext, error) {
	data := []byte(`{"values":{`)
	for i, e := range c.Entries {
		if i > 0 {
			data = append(data, ',')
		}
		key, _ := json.Marshal(e.Key)
		data = append(data, key...)
		var av []byte
		if e.Bool != nil {
			av, _ = json.Marshal(struct {
				Tag   string `json:"tag"`
				Value bool   `json:"value"`
			}{"AV_Bool", *e.Bool})
		} else {
			av, _ = json.Marshal(struct {
				Tag   string `json:"tag"`
				Value string `json:"value"`
			}{"AV_ContractId", string(e.ContractID)})
		}
		data = append(append(data, ':'), av...)
	}
	data = append(data, "}}"...)
	out := ChoiceContext{ChoiceContextData: data, DisclosedContracts: make([]DisclosedContract, 0, len(c.Disclosed))}
	for _, k := range c.Disclosed {
		d, err := disclosedContractOf(blobs, k, c.Synchronizer, excludeDebug)
		if err != nil {
			return ChoiceContext{}, err
		}
		out.DisclosedContracts = append(out.DisclosedContracts, d)
	}
	return out, nil
}

// disclosedContractOf renders a contract to disclose: its template in
// package-id form and its created-event blob as the ledger API's
// createdEventBlob, with (unless excluded) its package name, create
// arguments and creation time.
func disclosedContractOf(blobs *blobCache, c *ledger.Contract, synchronizer string, excludeDebug bool) (DisclosedContract, error) {
	blob, err := blobs.blob(c)
	if err != nil {
		return DisclosedContract{}, err
	}
	d := DisclosedContract{
		TemplateID: c.Template.Identifier.String(), ContractID: string(c.ID),
		CreatedEventBlob: blob, SynchronizerID: synchronizer,
	}
	if excludeDebug {
		return d, nil
	}
	var v daml.Value = daml.Unit{}
	if c.Argument != nil {
		v = c.Argument
	}
	if d.DebugPayload, err = daml.PayloadJSON.Encode(v); err != nil {
		return DisclosedContract{}, fault.Wrap(fault.Internal, err, "encode the payload of contract %s", c.ID)
	}
	d.DebugPackageName, d.DebugCreatedAt = c.Template.PackageName, c.CreatedAt.String()
	return d, nil
}

// blobCache remembers the created-event blobs (base64) of the contracts
// the registry discloses: every transfer discloses the same few DSO
// contracts, and encoding the AmuletRules, with its whole configuration
// schedule, is most of rendering a transfer factory's answer.
//
// A blob encodes the whole contract. Of a contract of one ledger, the id
// fixes the template, argument, parties and creation; what a reassignment
// or a migration changes is in the key too.
type blobCache struct {
	mu sync.Mutex
	m  map[blobKey]string
}

type blobKey struct {
	id                 daml.ContractID
	synchronizer       ledger.SynchronizerID
	createdBy          string
	createdAt          daml.Timestamp
	migration, counter int64
}

// blobCacheSize bounds the cache; when full it starts over.
const blobCacheSize = 256

// blob returns the contract's created-event blob in base64.
func (bc *blobCache) blob(c *ledger.Contract) (string, error) {
	k := blobKey{id: c.ID, synchronizer: c.Synchronizer, createdBy: c.CreatedBy, createdAt: c.CreatedAt,
		migration: c.MigrationID, counter: c.ReassignmentCounter}
	bc.mu.Lock()
	s, ok := bc.m[k]
	bc.mu.Unlock()
	if ok {
		return s, nil
	}
	b, err := ledger.EncodeContract(c)
	if err != nil {
		return "", fault.Wrap(fault.Internal, err, "encode contract %s", c.ID)
	}
	s = base64.StdEncoding.EncodeToString(b)
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if bc.m == nil || len(bc.m) >= blobCacheSize {
		bc.m = make(map[blobKey]string, 16)
	}
	bc.m[k] = s
	return s, nil
}
