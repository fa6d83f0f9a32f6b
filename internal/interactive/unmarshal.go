package interactive

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/pbwire"
)

// Unmarshal decodes a serialized PreparedTransaction the way protobuf does:
// unknown fields are skipped, a scalar field given twice keeps its last
// value, repeated fields accumulate and a message field given twice is
// merged. Unlike protobuf-java it refuses a known field with the wrong wire
// type, as well as malformed wire data, invalid UTF-8 in a string, a
// numeric daml.ParseNumeric refuses, a Value with no case set or missing a
// required part (a record field, variant or map entry without its value),
// values nested deeper than [daml.MaxNesting], a node that is not a
// create, fetch, exercise or rollback, and the 3.5 contract-key fields.
// Errors are *fault.Error of kind fault.InvalidArgument and say where the
// problem is ("transaction.nodes[0].v1.create.argument.record...").
//
// The result shares no memory with b.
func Unmarshal(b []byte) (*PreparedTransaction, error) {
	pt := &PreparedTransaction{}
	err := eachField(b, func(f field) error {
		switch f.Num {
		case fPTTransaction:
			return mergeMessage(&pt.Transaction, f, "transaction", mergeDamlTransaction)
		case fPTMetadata:
			return mergeMessage(&pt.Metadata, f, "metadata", mergeMetadata)
		}
		return nil
	})
	if err != nil {
		return nil, toFault(err)
	}
	return pt, nil
}

// decodeError is a decoding failure with the path to the offending field,
// built innermost first as the error travels up.
type decodeError struct {
	path []string
	msg  string
}

func (e *decodeError) Error() string { return e.msg }

func errorf(format string, args ...any) error {
	return &decodeError{msg: fmt.Sprintf(format, args...)}
}

// at adds the path segment seg to a decoding error; it passes nil through.
func at(err error, seg string) error {
	if de, ok := err.(*decodeError); ok {
		de.path = append(de.path, seg)
	}
	return err
}

func atIndex(err error, name string, i int) error {
	if err == nil {
		return nil
	}
	return at(err, fmt.Sprintf("%s[%d]", name, i))
}

func toFault(err error) error {
	de, ok := err.(*decodeError)
	if !ok {
		return fault.Wrap(fault.InvalidArgument, err, "invalid prepared transaction")
	}
	if len(de.path) == 0 {
		return fault.New(fault.InvalidArgument, "invalid prepared transaction: %s", de.msg)
	}
	path := slices.Clone(de.path)
	slices.Reverse(path)
	return fault.New(fault.InvalidArgument, "invalid prepared transaction at %s: %s", strings.Join(path, "."), de.msg)
}

// field is one decoded field of a message; its methods read its value as
// the type the message gives it.
type field pbwire.Field

var wireTypeNames = map[protowire.Type]string{
	protowire.VarintType:     "varint",
	protowire.Fixed32Type:    "fixed32",
	protowire.Fixed64Type:    "fixed64",
	protowire.BytesType:      "length-delimited",
	protowire.StartGroupType: "group",
}

func (f field) want(t protowire.Type) error {
	if f.Type != t {
		return errorf("field %d has wire type %s, want %s", f.Num, wireTypeNames[f.Type], wireTypeNames[t])
	}
	return nil
}

// str returns the field as a proto3 string, which must be valid UTF-8 (as
// protobuf-java enforces for proto3 files).
func (f field) str() (string, error) {
	if err := f.want(protowire.BytesType); err != nil {
		return "", err
	}
	if !utf8.Valid(f.Bytes) {
		return "", errorf("field %d is not valid UTF-8", f.Num)
	}
	return intern(f.Bytes), nil
}

// bytes returns a copy of a bytes field; empty is nil, proto3's default.
func (f field) bytes() ([]byte, error) {
	if err := f.want(protowire.BytesType); err != nil {
		return nil, err
	}
	if len(f.Bytes) == 0 {
		return nil, nil
	}
	return slices.Clone(f.Bytes), nil
}

func (f field) varint() (uint64, error) {
	if err := f.want(protowire.VarintType); err != nil {
		return 0, err
	}
	return f.Scalar, nil
}

// eachField calls fn with every field of the message b, in wire order.
// Unknown groups are skipped whole, as protobuf does.
func eachField(b []byte, fn func(field) error) error {
	for len(b) > 0 {
		f, rest, err := pbwire.Next(b)
		if err != nil {
			return errorf("%v", err)
		}
		if err := fn(field(f)); err != nil {
			return err
		}
		b = rest
	}
	return nil
}

// countFields counts the fields numbered num at the top level of b, for
// preallocating a repeated field; it stops at malformed data, which the
// decoding proper reports.
func countFields(b []byte, num protowire.Number) int {
	n := 0
	for len(b) > 0 {
		f, rest, err := pbwire.Next(b)
		if err != nil {
			break
		}
		if f.Num == num {
			n++
		}
		b = rest
	}
	return n
}

// checkMessage checks that b is a well-formed message, for fields whose
// content sandnet ignores (protobuf-java still parses them).
func checkMessage(b []byte) error {
	return eachField(b, func(field) error { return nil })
}

func mergeDamlTransaction(tx *DamlTransaction, b []byte) error {
	return eachField(b, func(f field) error {
		var err error
		switch f.Num {
		case fTxVersion:
			tx.Version, err = f.str()
			return at(err, "version")
		case fTxRoots:
			return addString(&tx.Roots, f, "roots")
		case fTxNodes:
			return addMessage(&tx.Nodes, f, "nodes", decodeNode)
		case fTxNodeSeeds:
			return addMessage(&tx.NodeSeeds, f, "node_seeds", mergeNodeSeed)
		}
		return nil
	})
}

func mergeNodeSeed(s *NodeSeed, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fSeedNodeID:
			v, err := f.varint()
			if err != nil {
				return at(err, "node_id")
			}
			// protobuf-java reads an int32 by truncating the varint.
			s.NodeID = int32(v)
		case fSeedSeed:
			var err error
			s.Seed, err = f.bytes()
			return at(err, "seed")
		}
		return nil
	})
}

// decodeNode decodes a DamlTransaction.Node and checks it has a kind.
func decodeNode(n *Node, b []byte) error {
	hasV1 := false
	err := eachField(b, func(f field) error {
		switch f.Num {
		case fNodeID:
			var err error
			n.NodeID, err = f.str()
			return at(err, "node_id")
		case fNodeV1:
			if err := f.want(protowire.BytesType); err != nil {
				return at(err, "v1")
			}
			hasV1 = true
			return at(mergeV1Node(n, f.Bytes), "v1")
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case !hasV1:
		return errorf("node %s has no v1 node (unsupported node version)", fault.Quote(n.NodeID))
	case n.kind() == "":
		return errorf("node %s is neither a create, fetch, exercise nor rollback node", fault.Quote(n.NodeID))
	}
	return nil
}

// mergeV1Node merges a transaction.v1.Node into n. Its node_type is a
// oneof: a case replaces any other, the same case merges.
func mergeV1Node(n *Node, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fV1Create, fV1Fetch, fV1Exercise, fV1Rollback:
		case fV1QueryByKey:
			return errorf("QueryByKey nodes are not supported (sandnet has no contract keys)")
		default:
			return nil
		}
		if err := f.want(protowire.BytesType); err != nil {
			return err
		}
		switch f.Num {
		case fV1Create:
			if n.Create == nil {
				*n = Node{NodeID: n.NodeID, Create: &Create{}}
			}
			return at(mergeCreate(n.Create, f.Bytes), "create")
		case fV1Fetch:
			if n.Fetch == nil {
				*n = Node{NodeID: n.NodeID, Fetch: &Fetch{}}
			}
			return at(mergeFetch(n.Fetch, f.Bytes), "fetch")
		case fV1Exercise:
			if n.Exercise == nil {
				*n = Node{NodeID: n.NodeID, Exercise: &Exercise{}}
			}
			return at(mergeExercise(n.Exercise, f.Bytes), "exercise")
		default:
			if n.Rollback == nil {
				*n = Node{NodeID: n.NodeID, Rollback: &Rollback{}}
			}
			return at(eachField(f.Bytes, func(f field) error {
				if f.Num != fRollbackChildren {
					return nil
				}
				s, err := f.str()
				if err != nil {
					return atIndex(err, "children", len(n.Rollback.Children))
				}
				n.Rollback.Children = append(n.Rollback.Children, s)
				return nil
			}), "rollback")
		}
	})
}

// Small field decoders shared by the node messages; each adds the field's
// name to the path of its error.

func setString(dst *string, f field, name string) error {
	s, err := f.str()
	if err != nil {
		return at(err, name)
	}
	*dst = s
	return nil
}

func setContractID(dst *daml.ContractID, f field, name string) error {
	s, err := f.str()
	if err != nil {
		return at(err, name)
	}
	*dst = daml.ContractID(s)
	return nil
}

func addParty(dst *[]daml.Party, f field, name string) error {
	s, err := f.str()
	if err != nil {
		return atIndex(err, name, len(*dst))
	}
	*dst = append(*dst, daml.Party(s))
	return nil
}

func addString(dst *[]string, f field, name string) error {
	s, err := f.str()
	if err != nil {
		return atIndex(err, name, len(*dst))
	}
	*dst = append(*dst, s)
	return nil
}

func mergeIdentifierField(dst *daml.Identifier, f field, name string) error {
	if err := f.want(protowire.BytesType); err != nil {
		return at(err, name)
	}
	return at(mergeIdentifier(dst, f.Bytes), name)
}

// mergeMessage merges a singular message field into *dst, which it
// allocates the first time: a message given twice is merged, as protobuf
// merges it.
func mergeMessage[T any](dst **T, f field, name string, merge func(*T, []byte) error) error {
	if err := f.want(protowire.BytesType); err != nil {
		return at(err, name)
	}
	if *dst == nil {
		*dst = new(T)
	}
	return at(merge(*dst, f.Bytes), name)
}

// addMessage decodes one element of a repeated message field with decode
// and appends it to *dst; an error is placed at name[i].
func addMessage[S ~[]T, T any](dst *S, f field, name string, decode func(*T, []byte) error) error {
	i := len(*dst)
	if err := f.want(protowire.BytesType); err != nil {
		return atIndex(err, name, i)
	}
	// Decoded in place, in a zero element appended first: a local
	// variable handed to decode (a func value) would escape, one heap
	// object per element.
	var zero T
	*dst = append(*dst, zero)
	if err := decode(&(*dst)[i], f.Bytes); err != nil {
		*dst = (*dst)[:i]
		return atIndex(err, name, i)
	}
	return nil
}

// refuseByKey refuses a by_key flag that is set: exercising or fetching by
// key needs contract keys.
func refuseByKey(f field, node string) error {
	v, err := f.varint()
	if err != nil {
		return at(err, "by_key")
	}
	if v != 0 {
		return errorf("%s by key is not supported (sandnet has no contract keys)", node)
	}
	return nil
}

func mergeCreate(c *Create, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fCreateLfVersion:
			return setString(&c.LfVersion, f, "lf_version")
		case fCreateContractID:
			return setContractID(&c.ContractID, f, "contract_id")
		case fCreatePackageName:
			return setString(&c.PackageName, f, "package_name")
		case fCreateTemplateID:
			return mergeIdentifierField(&c.TemplateID, f, "template_id")
		case fCreateArgument:
			return mergeValueAt(&c.Argument, f, 0, "argument")
		case fCreateSignatories:
			return addParty(&c.Signatories, f, "signatories")
		case fCreateStakeholders:
			return addParty(&c.Stakeholders, f, "stakeholders")
		case fCreateKey:
			return errorf("contract keys are not supported (create node with a key)")
		}
		return nil
	})
}

func mergeFetch(x *Fetch, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fFetchLfVersion:
			return setString(&x.LfVersion, f, "lf_version")
		case fFetchContractID:
			return setContractID(&x.ContractID, f, "contract_id")
		case fFetchPackageName:
			return setString(&x.PackageName, f, "package_name")
		case fFetchTemplateID:
			return mergeIdentifierField(&x.TemplateID, f, "template_id")
		case fFetchSignatories:
			return addParty(&x.Signatories, f, "signatories")
		case fFetchStakeholders:
			return addParty(&x.Stakeholders, f, "stakeholders")
		case fFetchActingParties:
			return addParty(&x.ActingParties, f, "acting_parties")
		case fFetchInterfaceID:
			return mergeMessage(&x.InterfaceID, f, "interface_id", mergeIdentifier)
		case fFetchKey:
			return errorf("contract keys are not supported (fetch node with a key)")
		case fFetchByKey:
			return refuseByKey(f, "fetch")
		}
		return nil
	})
}

func mergeExercise(x *Exercise, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fExLfVersion:
			return setString(&x.LfVersion, f, "lf_version")
		case fExContractID:
			return setContractID(&x.ContractID, f, "contract_id")
		case fExPackageName:
			return setString(&x.PackageName, f, "package_name")
		case fExTemplateID:
			return mergeIdentifierField(&x.TemplateID, f, "template_id")
		case fExSignatories:
			return addParty(&x.Signatories, f, "signatories")
		case fExStakeholders:
			return addParty(&x.Stakeholders, f, "stakeholders")
		case fExActingParties:
			return addParty(&x.ActingParties, f, "acting_parties")
		case fExInterfaceID:
			return mergeMessage(&x.InterfaceID, f, "interface_id", mergeIdentifier)
		case fExChoiceID:
			return setString(&x.ChoiceID, f, "choice_id")
		case fExChosenValue:
			return mergeValueAt(&x.ChosenValue, f, 0, "chosen_value")
		case fExConsuming:
			v, err := f.varint()
			x.Consuming = v != 0
			return at(err, "consuming")
		case fExChildren:
			return addString(&x.Children, f, "children")
		case fExExerciseResult:
			return mergeValueAt(&x.ExerciseResult, f, 0, "exercise_result")
		case fExChoiceObservers:
			return addParty(&x.ChoiceObservers, f, "choice_observers")
		case fExKey:
			return errorf("contract keys are not supported (exercise node with a key)")
		case fExByKey:
			return refuseByKey(f, "exercise")
		}
		return nil
	})
}

func mergeMetadata(md *Metadata, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fMDSubmitterInfo:
			return mergeMessage(&md.SubmitterInfo, f, "submitter_info", mergeSubmitterInfo)
		case fMDSynchronizerID:
			return setString(&md.SynchronizerID, f, "synchronizer_id")
		case fMDMediatorGroup:
			v, err := f.varint()
			md.MediatorGroup = uint32(v) // protobuf-java truncates, as for int32
			return at(err, "mediator_group")
		case fMDTransactionUUID:
			return setString(&md.TransactionUUID, f, "transaction_uuid")
		case fMDPreparationTime:
			v, err := f.varint()
			md.PreparationTime = int64(v)
			return at(err, "preparation_time")
		case fMDInputContracts:
			return addMessage(&md.InputContracts, f, "input_contracts", mergeInputContract)
		case fMDGlobalKeyMap:
			// Deprecated and always empty; its content does not enter the
			// hash, so it is checked for well-formedness and dropped.
			if err := f.want(protowire.BytesType); err != nil {
				return at(err, "global_key_mapping")
			}
			return at(checkMessage(f.Bytes), "global_key_mapping")
		case fMDMinLET:
			return setOptionalTime(&md.MinLedgerEffectiveTime, f, "min_ledger_effective_time")
		case fMDMaxLET:
			return setOptionalTime(&md.MaxLedgerEffectiveTime, f, "max_ledger_effective_time")
		case fMDMaxRecordTime:
			return setOptionalTime(&md.MaxRecordTime, f, "max_record_time")
		}
		return nil
	})
}

func mergeSubmitterInfo(si *SubmitterInfo, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fSIActAs:
			return addParty(&si.ActAs, f, "act_as")
		case fSICommandID:
			return setString(&si.CommandID, f, "command_id")
		}
		return nil
	})
}

// setOptionalTime reads an `optional uint64` of microseconds; Java and
// the hash take it as a signed long.
func setOptionalTime(dst **int64, f field, name string) error {
	v, err := f.varint()
	if err != nil {
		return at(err, name)
	}
	t := int64(v)
	*dst = &t
	return nil
}

func mergeInputContract(ic *InputContract, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fICV1:
			return mergeMessage(&ic.Create, f, "v1", mergeCreate)
		case fICCreatedAt:
			v, err := f.varint()
			ic.CreatedAt = int64(v)
			return at(err, "created_at")
		case fICEventBlob:
			var err error
			ic.EventBlob, err = f.bytes()
			return at(err, "event_blob")
		}
		return nil
	})
}

func mergeIdentifier(id *daml.Identifier, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fIDPackageID:
			return setString(&id.PackageID, f, "package_id")
		case fIDModuleName:
			return setString(&id.ModuleName, f, "module_name")
		case fIDEntityName:
			return setString(&id.EntityName, f, "entity_name")
		}
		return nil
	})
}

// nest checks the nesting depth a container value's children would have.
func nest(depth int) (int, error) {
	depth++
	if depth > daml.MaxNesting {
		return 0, errorf("value nested deeper than %d levels", daml.MaxNesting)
	}
	return depth, nil
}

// mergeValue merges the Value message b into dst (nil for a fresh value)
// and returns the result. Its sum is a oneof: a scalar case replaces dst,
// a message case merges into dst when dst has the same case. depth is the
// nesting of the value's container (0 at the top).
func mergeValue(dst daml.Value, b []byte, depth int) (daml.Value, error) {
	v := dst
	err := eachField(b, func(f field) error {
		var err error
		switch f.Num {
		case fValUnit:
			if err = f.want(protowire.BytesType); err == nil {
				err = checkMessage(f.Bytes)
			}
			v = daml.Unit{}
			return at(err, "unit")
		case fValBool:
			var u uint64
			u, err = f.varint()
			v = daml.Bool(u != 0)
			return at(err, "bool")
		case fValInt64:
			var u uint64
			u, err = f.varint()
			v = daml.Int64(protowire.DecodeZigZag(u))
			return at(err, "int64")
		case fValDate:
			var u uint64
			u, err = f.varint()
			v = daml.Date(int32(u))
			return at(err, "date")
		case fValTimestamp:
			err = f.want(protowire.Fixed64Type)
			v = daml.Timestamp(int64(f.Scalar))
			return at(err, "timestamp")
		case fValNumeric:
			var s string
			if s, err = f.str(); err != nil {
				return at(err, "numeric")
			}
			n, perr := daml.ParseNumeric(s)
			if perr != nil {
				return at(errorf("%v", perr), "numeric")
			}
			v = n
		case fValParty:
			var s string
			s, err = f.str()
			v = daml.Party(s)
			return at(err, "party")
		case fValText:
			var s string
			s, err = f.str()
			v = daml.Text(s)
			return at(err, "text")
		case fValContractID:
			var s string
			s, err = f.str()
			v = daml.ContractID(s)
			return at(err, "contract_id")
		case fValOptional, fValList, fValTextMap, fValGenMap, fValRecord, fValVariant, fValEnum:
			if err = f.want(protowire.BytesType); err != nil {
				return err
			}
			v, err = mergeContainer(v, f, depth)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errorf("value has no sum (none of the known Value cases is set)")
	}
	return v, nil
}

// mergeContainer merges the message case f of a Value into v.
func mergeContainer(v daml.Value, f field, depth int) (daml.Value, error) {
	if f.Num == fValEnum {
		return mergeCase(v, f.Bytes, "enum", mergeEnum)
	}
	depth, err := nest(depth)
	if err != nil {
		return nil, err
	}
	switch f.Num {
	case fValOptional:
		return mergeCase(v, f.Bytes, "optional", func(o *daml.Optional, b []byte) error {
			return eachField(b, func(f field) error {
				if f.Num == fOptionalValue {
					return mergeValueAt(&o.Value, f, depth, "value")
				}
				return nil
			})
		})
	case fValList:
		return mergeElements[daml.List](v, f.Bytes, "list", fListElements, "elements", func(el *daml.Value, b []byte) error {
			var err error
			*el, err = mergeValue(nil, b, depth)
			return err
		})
	case fValTextMap:
		return mergeElements[daml.TextMap](v, f.Bytes, "text_map", fMapEntries, "entries", func(e *daml.TextMapEntry, b []byte) error {
			return mergeTextMapEntry(e, b, depth)
		})
	case fValGenMap:
		return mergeElements[daml.GenMap](v, f.Bytes, "gen_map", fMapEntries, "entries", func(e *daml.GenMapEntry, b []byte) error {
			return mergeGenMapEntry(e, b, depth)
		})
	case fValRecord:
		return mergeCase(v, f.Bytes, "record", func(r *daml.Record, b []byte) error { return mergeRecord(r, b, depth) })
	default:
		return mergeCase(v, f.Bytes, "variant", func(x *daml.Variant, b []byte) error { return mergeVariant(x, b, depth) })
	}
}

// mergeCase merges the message b of a case of Value's sum into v when v
// holds that case already (a oneof case given twice is merged), into a
// new one otherwise.
func mergeCase[T any, P interface {
	*T
	daml.Value
}](v daml.Value, b []byte, name string, merge func(P, []byte) error) (P, error) {
	x, ok := v.(P)
	if !ok {
		x = new(T)
	}
	return x, at(merge(x, b), name)
}

// mergeElements merges the case name of Value's sum that is a repeated
// message field num of b (a list's elements, a map's entries) into v: the
// elements decode reads are appended to v's when v holds that case
// already, to none otherwise. The result is never nil: an empty list is a
// list.
func mergeElements[S ~[]T, T any](v daml.Value, b []byte, name string, num protowire.Number, elements string, decode func(*T, []byte) error) (S, error) {
	s, _ := v.(S)
	err := eachField(b, func(f field) error {
		if f.Num != num {
			return nil
		}
		return addMessage(&s, f, elements, decode)
	})
	if s == nil {
		s = S{}
	}
	return s, at(err, name)
}

// mergeValueAt merges a Value-typed field into *dst at the given depth.
// An empty name adds no path segment (the caller adds an index).
func mergeValueAt(dst *daml.Value, f field, depth int, name string) error {
	wrap := func(err error) error {
		if name == "" {
			return err
		}
		return at(err, name)
	}
	if err := f.want(protowire.BytesType); err != nil {
		return wrap(err)
	}
	v, err := mergeValue(*dst, f.Bytes, depth)
	if err != nil {
		return wrap(err)
	}
	*dst = v
	return nil
}

func mergeTextMapEntry(e *daml.TextMapEntry, b []byte, depth int) error {
	err := eachField(b, func(f field) error {
		switch f.Num {
		case fEntryKey:
			return setString(&e.Key, f, "key")
		case fEntryValue:
			return mergeValueAt(&e.Value, f, depth, "value")
		}
		return nil
	})
	if err == nil && e.Value == nil {
		err = errorf("text map entry %s has no value", fault.Quote(e.Key))
	}
	return err
}

func mergeGenMapEntry(e *daml.GenMapEntry, b []byte, depth int) error {
	err := eachField(b, func(f field) error {
		switch f.Num {
		case fEntryKey:
			return mergeValueAt(&e.Key, f, depth, "key")
		case fEntryValue:
			return mergeValueAt(&e.Value, f, depth, "value")
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case e.Key == nil:
		return errorf("gen map entry has no key")
	case e.Value == nil:
		return errorf("gen map entry has no value")
	}
	return nil
}

// mergeRecord merges a Record message into r. A record without a
// record_id keeps a nil ID, a field without a label an empty Label: the
// hash tells them apart from present ones.
func mergeRecord(r *daml.Record, b []byte, depth int) error {
	if r.Fields == nil {
		// Sized once rather than grown field by field.
		if n := countFields(b, fRecordFields); n > 0 {
			r.Fields = make([]daml.Field, 0, n)
		}
	}
	return eachField(b, func(f field) error {
		switch f.Num {
		case fRecordID:
			return mergeMessage(&r.ID, f, "record_id", mergeIdentifier)
		case fRecordFields:
			return addMessage(&r.Fields, f, "fields", func(fld *daml.Field, b []byte) error {
				return mergeRecordField(fld, b, depth)
			})
		}
		return nil
	})
}

func mergeRecordField(fld *daml.Field, b []byte, depth int) error {
	err := eachField(b, func(f field) error {
		switch f.Num {
		case fFieldLabel:
			return setString(&fld.Label, f, "label")
		case fFieldValue:
			return mergeValueAt(&fld.Value, f, depth, "value")
		}
		return nil
	})
	if err == nil && fld.Value == nil {
		err = errorf("record field %s has no value", fault.Quote(fld.Label))
	}
	return err
}

func mergeVariant(x *daml.Variant, b []byte, depth int) error {
	err := eachField(b, func(f field) error {
		switch f.Num {
		case fVariantID:
			return mergeMessage(&x.ID, f, "variant_id", mergeIdentifier)
		case fVariantCtor:
			return setString(&x.Constructor, f, "constructor")
		case fVariantValue:
			return mergeValueAt(&x.Value, f, depth, "value")
		}
		return nil
	})
	if err == nil && x.Value == nil {
		err = errorf("variant %s has no value", fault.Quote(x.Constructor))
	}
	return err
}

func mergeEnum(e *daml.Enum, b []byte) error {
	return eachField(b, func(f field) error {
		switch f.Num {
		case fEnumID:
			return mergeMessage(&e.ID, f, "enum_id", mergeIdentifier)
		case fEnumCtor:
			return setString(&e.Constructor, f, "constructor")
		}
		return nil
	})
}
