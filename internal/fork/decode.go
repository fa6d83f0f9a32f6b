package fork

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// Decode turns the source's contracts into ledger contracts: the
// template resolved in the registry, create_arguments decoded from
// compact_json with the template's payload type (compact_json is not
// self-describing), or from the protobuf_json ReadExact fetched, created_at,
// signatories and observers as served. Run CheckPackages first: an unknown
// template here is an error without the overview CheckPackages gives.
func Decode(reg *ledger.Registry, src *Source) ([]*ledger.Contract, error) {
	out := make([]*ledger.Contract, 0, len(src.Contracts))
	for _, c := range src.Contracts {
		id, err := parseIdentifier(c.TemplateID)
		if err != nil {
			return nil, fault.Wrap(fault.FailedPrecondition, err, "contract %s", c.ContractID)
		}
		tid, ok := reg.Template(id)
		if !ok {
			return nil, fault.New(fault.FailedPrecondition, "contract %s: unknown template %s", c.ContractID, c.TemplateID)
		}
		typ, err := reg.PayloadType(id)
		if err != nil {
			return nil, err
		}
		var v daml.Value
		if exact, ok := src.Exact[c.ContractID]; ok {
			v, err = daml.ProtobufJSON.Decode(exact, typ)
		} else {
			v, err = daml.CompactJSON.Decode(c.CreateArguments, typ)
		}
		if err != nil {
			return nil, fault.Wrap(fault.FailedPrecondition, err, "contract %s: create_arguments are not a %s", c.ContractID, c.TemplateID)
		}
		arg, ok := v.(*daml.Record)
		if !ok {
			return nil, fault.New(fault.FailedPrecondition, "contract %s: create_arguments are not a record", c.ContractID)
		}
		at, err := daml.ParseTimestamp(c.CreatedAt)
		if err != nil {
			return nil, fault.Wrap(fault.FailedPrecondition, err, "contract %s: created_at %q", c.ContractID, c.CreatedAt)
		}
		out = append(out, &ledger.Contract{
			ID: daml.ContractID(c.ContractID), Template: tid, Argument: arg,
			Signatories: parties(c.Signatories), Observers: parties(c.Observers), CreatedAt: at,
		})
	}
	return out, nil
}

func parties(ss []string) []daml.Party {
	out := make([]daml.Party, len(ss))
	for i, s := range ss {
		out[i] = daml.Party(s)
	}
	return out
}

// ReadExact fetches, into src.Exact, the protobuf_json payload of every
// contract whose template's payload has a part of a type the engine does
// not model (daml.KindDynamic: a vote request's action, say): compact_json
// cannot be typed there, and a guess would lose the value's type ids and
// scalar kinds. It reads the contract's creating update, which the v2 ACS
// names, or, for a contract created in an earlier migration (the ACS
// names no creating update then), its import update, whose id is the
// contract's.
func ReadExact(ctx context.Context, c *scanclient.Client, reg *ledger.Registry, src *Source) error {
	for _, k := range src.Contracts {
		id, err := parseIdentifier(k.TemplateID)
		if err != nil {
			return fault.Wrap(fault.FailedPrecondition, err, "contract %s", k.ContractID)
		}
		typ, err := reg.PayloadType(id)
		if err != nil {
			return err
		}
		if !hasDynamic(typ, map[*daml.Type]bool{}) {
			continue
		}
		from := k.CreatedInUpdateID
		if from == "" {
			// Created in an earlier migration: the snapshot's migration
			// holds it by an import update, whose id is the contract id.
			from = k.ContractID
		}
		raw, err := c.CreateArguments(ctx, from, k.ContractID)
		if err != nil {
			return fmt.Errorf("read the payload of contract %s from update %s: %w", k.ContractID, from, err)
		}
		if src.Exact == nil {
			src.Exact = map[string]json.RawMessage{}
		}
		src.Exact[k.ContractID] = raw
	}
	return nil
}

// hasDynamic reports whether t has a part of dynamic type.
func hasDynamic(t *daml.Type, seen map[*daml.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind == daml.KindDynamic || hasDynamic(t.Elem, seen) || hasDynamic(t.Key, seen) {
		return true
	}
	for _, f := range t.Fields {
		if hasDynamic(f.Type, seen) {
			return true
		}
	}
	return false
}
