package interactive

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/bufpool"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/pbwire"
)

// Field numbers of the messages, from Canton's .proto files
// (interactive_submission_service.proto, interactive_submission_data.proto
// and the ledger API's value.proto). The 3.5 key fields are listed so that
// the decoder can refuse them.
const (
	// PreparedTransaction
	fPTTransaction = 1
	fPTMetadata    = 2

	// DamlTransaction
	fTxVersion   = 1
	fTxRoots     = 2
	fTxNodes     = 3
	fTxNodeSeeds = 4

	// DamlTransaction.NodeSeed
	fSeedNodeID = 1
	fSeedSeed   = 2

	// DamlTransaction.Node
	fNodeID = 1
	fNodeV1 = 1000

	// transaction.v1.Node (oneof node_type)
	fV1Create     = 1
	fV1Fetch      = 2
	fV1Exercise   = 3
	fV1Rollback   = 4
	fV1QueryByKey = 5 // 3.5

	// transaction.v1.Create
	fCreateLfVersion    = 1
	fCreateContractID   = 2
	fCreatePackageName  = 3
	fCreateTemplateID   = 4
	fCreateArgument     = 5
	fCreateSignatories  = 6
	fCreateStakeholders = 7
	fCreateKey          = 8 // 3.5

	// transaction.v1.Fetch
	fFetchLfVersion     = 1
	fFetchContractID    = 2
	fFetchPackageName   = 3
	fFetchTemplateID    = 4
	fFetchSignatories   = 5
	fFetchStakeholders  = 6
	fFetchActingParties = 7
	fFetchInterfaceID   = 8
	fFetchKey           = 9  // 3.5
	fFetchByKey         = 10 // 3.5

	// transaction.v1.Exercise
	fExLfVersion       = 1
	fExContractID      = 2
	fExPackageName     = 3
	fExTemplateID      = 4
	fExSignatories     = 5
	fExStakeholders    = 6
	fExActingParties   = 7
	fExInterfaceID     = 8
	fExChoiceID        = 9
	fExChosenValue     = 10
	fExConsuming       = 11
	fExChildren        = 12
	fExExerciseResult  = 13
	fExChoiceObservers = 14
	fExKey             = 15 // 3.5
	fExByKey           = 16 // 3.5

	// transaction.v1.Rollback
	fRollbackChildren = 1

	// Metadata (1 is reserved)
	fMDSubmitterInfo   = 2
	fMDSynchronizerID  = 3
	fMDMediatorGroup   = 4
	fMDTransactionUUID = 5
	fMDPreparationTime = 6
	fMDInputContracts  = 7
	fMDGlobalKeyMap    = 8 // deprecated, always empty
	fMDMinLET          = 9
	fMDMaxLET          = 10
	fMDMaxRecordTime   = 11

	// Metadata.SubmitterInfo
	fSIActAs     = 1
	fSICommandID = 2

	// Metadata.InputContract
	fICV1        = 1
	fICCreatedAt = 1000
	fICEventBlob = 1002

	// Value (oneof sum)
	fValUnit       = 1
	fValBool       = 2
	fValInt64      = 3 // sint64
	fValDate       = 4 // int32
	fValTimestamp  = 5 // sfixed64
	fValNumeric    = 6
	fValParty      = 7
	fValText       = 8
	fValContractID = 9
	fValOptional   = 10
	fValList       = 11
	fValTextMap    = 12
	fValGenMap     = 13
	fValRecord     = 14
	fValVariant    = 15
	fValEnum       = 16

	// Identifier
	fIDPackageID  = 1
	fIDModuleName = 2
	fIDEntityName = 3

	// Record, RecordField
	fRecordID     = 1
	fRecordFields = 2
	fFieldLabel   = 1
	fFieldValue   = 2

	// Variant, Enum
	fVariantID    = 1
	fVariantCtor  = 2
	fVariantValue = 3
	fEnumID       = 1
	fEnumCtor     = 2

	// Optional, List, TextMap, GenMap and their entries
	fOptionalValue = 1
	fListElements  = 1
	fMapEntries    = 1
	fEntryKey      = 1
	fEntryValue    = 2
)

// Marshal serializes pt as Canton's protobuf-java does: fields in
// field-number order, proto3 defaults (empty strings and lists, zeros,
// false) omitted, message fields written when present, and oneof cases
// always written, even with a default value (Value{bool: false},
// Value{text: ""}, Value{unit: {}}). No field of these messages is a packed
// scalar list (the repeated fields are strings and messages).
//
// A value Marshal cannot represent is written as the protobuf
// representation of its parts: a nil daml.Value inside a record, list or
// map becomes a Value message with no case set, which [Unmarshal] refuses.
func Marshal(pt *PreparedTransaction) []byte {
	if pt == nil || (pt.Transaction == nil && pt.Metadata == nil) {
		return nil
	}
	// Appended to a scratch buffer kept from earlier calls and copied out
	// once: a prepared transaction is tens of kilobytes, which growing a
	// fresh slice would allocate about twice over.
	scratch := marshalScratch.Get()
	b := AppendMarshal((*scratch)[:0], pt)
	out := bytes.Clone(b)
	marshalScratch.Put(scratch, b)
	return out
}

// AppendMarshal appends [Marshal]'s encoding of pt to dst and returns the
// extended buffer, for a caller that has a buffer of its own to reuse.
func AppendMarshal(dst []byte, pt *PreparedTransaction) []byte {
	if pt == nil {
		return dst
	}
	if pt.Transaction != nil {
		dst = pbwire.AppendMessage(dst, fPTTransaction, func(b []byte) []byte { return appendDamlTransaction(b, pt.Transaction) })
	}
	if pt.Metadata != nil {
		dst = pbwire.AppendMessage(dst, fPTMetadata, func(b []byte) []byte { return appendMetadata(b, pt.Metadata) })
	}
	return dst
}

// marshalScratch holds Marshal's scratch buffers; one grown past 1 MiB
// (an outsized transaction) is left to the collector.
var marshalScratch = bufpool.Pool{Max: 1 << 20}

// appendStringAlways appends a string field even when empty (a oneof case).
func appendStringAlways(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// appendOptionalVarint appends a proto3 `optional` varint field when set,
// even when zero.
func appendOptionalVarint(b []byte, num protowire.Number, v *int64) []byte {
	if v == nil {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(*v))
}

func appendDamlTransaction(b []byte, tx *DamlTransaction) []byte {
	b = pbwire.AppendString(b, fTxVersion, tx.Version)
	b = pbwire.AppendStrings(b, fTxRoots, tx.Roots)
	for i := range tx.Nodes {
		n := &tx.Nodes[i]
		b = pbwire.AppendMessage(b, fTxNodes, func(b []byte) []byte { return appendNode(b, n) })
	}
	for i := range tx.NodeSeeds {
		s := &tx.NodeSeeds[i]
		b = pbwire.AppendMessage(b, fTxNodeSeeds, func(b []byte) []byte {
			b = pbwire.AppendVarint(b, fSeedNodeID, uint64(int64(s.NodeID)))
			return pbwire.AppendBytes(b, fSeedSeed, s.Seed)
		})
	}
	return b
}

func appendNode(b []byte, n *Node) []byte {
	b = pbwire.AppendString(b, fNodeID, n.NodeID)
	if n.kind() == "" {
		return b
	}
	// The v1 oneof case is written whenever the node has a kind; inside it,
	// the node_type oneof case is written even for an empty message.
	return pbwire.AppendMessage(b, fNodeV1, func(b []byte) []byte {
		switch {
		case n.Create != nil:
			return pbwire.AppendMessage(b, fV1Create, func(b []byte) []byte { return appendCreate(b, n.Create) })
		case n.Fetch != nil:
			return pbwire.AppendMessage(b, fV1Fetch, func(b []byte) []byte { return appendFetch(b, n.Fetch) })
		case n.Exercise != nil:
			return pbwire.AppendMessage(b, fV1Exercise, func(b []byte) []byte { return appendExercise(b, n.Exercise) })
		default:
			return pbwire.AppendMessage(b, fV1Rollback, func(b []byte) []byte {
				return pbwire.AppendStrings(b, fRollbackChildren, n.Rollback.Children)
			})
		}
	})
}

// appendTemplateID writes a required identifier field. Canton always sets
// it, so it is written even when zero (as an empty message).
func appendTemplateID(b []byte, num protowire.Number, id daml.Identifier) []byte {
	return pbwire.AppendMessage(b, num, func(b []byte) []byte { return appendIdentifier(b, id) })
}

func appendOptionalID(b []byte, num protowire.Number, id *daml.Identifier) []byte {
	if id == nil {
		return b
	}
	return appendTemplateID(b, num, *id)
}

func appendIdentifier(b []byte, id daml.Identifier) []byte {
	b = pbwire.AppendString(b, fIDPackageID, id.PackageID)
	b = pbwire.AppendString(b, fIDModuleName, id.ModuleName)
	return pbwire.AppendString(b, fIDEntityName, id.EntityName)
}

// appendValueField writes a Value-typed message field when v is not nil.
func appendValueField(b []byte, num protowire.Number, v daml.Value) []byte {
	if v == nil {
		return b
	}
	return pbwire.AppendMessage(b, num, func(b []byte) []byte { return appendValue(b, v) })
}

// appendValueAlways writes a Value-typed field even for a nil value (an
// element of a list, say, which has no absent state): an empty message.
func appendValueAlways(b []byte, num protowire.Number, v daml.Value) []byte {
	return pbwire.AppendMessage(b, num, func(b []byte) []byte { return appendValue(b, v) })
}

func appendCreate(b []byte, c *Create) []byte {
	b = pbwire.AppendString(b, fCreateLfVersion, c.LfVersion)
	b = pbwire.AppendString(b, fCreateContractID, string(c.ContractID))
	b = pbwire.AppendString(b, fCreatePackageName, c.PackageName)
	b = appendTemplateID(b, fCreateTemplateID, c.TemplateID)
	b = appendValueField(b, fCreateArgument, c.Argument)
	b = pbwire.AppendStrings(b, fCreateSignatories, c.Signatories)
	return pbwire.AppendStrings(b, fCreateStakeholders, c.Stakeholders)
}

func appendFetch(b []byte, f *Fetch) []byte {
	b = pbwire.AppendString(b, fFetchLfVersion, f.LfVersion)
	b = pbwire.AppendString(b, fFetchContractID, string(f.ContractID))
	b = pbwire.AppendString(b, fFetchPackageName, f.PackageName)
	b = appendTemplateID(b, fFetchTemplateID, f.TemplateID)
	b = pbwire.AppendStrings(b, fFetchSignatories, f.Signatories)
	b = pbwire.AppendStrings(b, fFetchStakeholders, f.Stakeholders)
	b = pbwire.AppendStrings(b, fFetchActingParties, f.ActingParties)
	return appendOptionalID(b, fFetchInterfaceID, f.InterfaceID)
}

func appendExercise(b []byte, e *Exercise) []byte {
	b = pbwire.AppendString(b, fExLfVersion, e.LfVersion)
	b = pbwire.AppendString(b, fExContractID, string(e.ContractID))
	b = pbwire.AppendString(b, fExPackageName, e.PackageName)
	b = appendTemplateID(b, fExTemplateID, e.TemplateID)
	b = pbwire.AppendStrings(b, fExSignatories, e.Signatories)
	b = pbwire.AppendStrings(b, fExStakeholders, e.Stakeholders)
	b = pbwire.AppendStrings(b, fExActingParties, e.ActingParties)
	b = appendOptionalID(b, fExInterfaceID, e.InterfaceID)
	b = pbwire.AppendString(b, fExChoiceID, e.ChoiceID)
	b = appendValueField(b, fExChosenValue, e.ChosenValue)
	b = pbwire.AppendBool(b, fExConsuming, e.Consuming)
	b = pbwire.AppendStrings(b, fExChildren, e.Children)
	b = appendValueField(b, fExExerciseResult, e.ExerciseResult)
	return pbwire.AppendStrings(b, fExChoiceObservers, e.ChoiceObservers)
}

func appendMetadata(b []byte, md *Metadata) []byte {
	if si := md.SubmitterInfo; si != nil {
		b = pbwire.AppendMessage(b, fMDSubmitterInfo, func(b []byte) []byte {
			b = pbwire.AppendStrings(b, fSIActAs, si.ActAs)
			return pbwire.AppendString(b, fSICommandID, si.CommandID)
		})
	}
	b = pbwire.AppendString(b, fMDSynchronizerID, md.SynchronizerID)
	b = pbwire.AppendVarint(b, fMDMediatorGroup, uint64(md.MediatorGroup))
	b = pbwire.AppendString(b, fMDTransactionUUID, md.TransactionUUID)
	b = pbwire.AppendVarint(b, fMDPreparationTime, uint64(md.PreparationTime))
	for i := range md.InputContracts {
		ic := &md.InputContracts[i]
		b = pbwire.AppendMessage(b, fMDInputContracts, func(b []byte) []byte {
			if ic.Create != nil {
				b = pbwire.AppendMessage(b, fICV1, func(b []byte) []byte { return appendCreate(b, ic.Create) })
			}
			b = pbwire.AppendVarint(b, fICCreatedAt, uint64(ic.CreatedAt))
			return pbwire.AppendBytes(b, fICEventBlob, ic.EventBlob)
		})
	}
	b = appendOptionalVarint(b, fMDMinLET, md.MinLedgerEffectiveTime)
	b = appendOptionalVarint(b, fMDMaxLET, md.MaxLedgerEffectiveTime)
	return appendOptionalVarint(b, fMDMaxRecordTime, md.MaxRecordTime)
}

// appendValue writes the body of a Value message: its one oneof case,
// written even when it holds a default. A nil v writes nothing.
func appendValue(b []byte, v daml.Value) []byte {
	switch x := v.(type) {
	case daml.Unit:
		return pbwire.AppendMessage(b, fValUnit, nil)
	case daml.Bool:
		b = protowire.AppendTag(b, fValBool, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(bool(x)))
	case daml.Int64:
		b = protowire.AppendTag(b, fValInt64, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeZigZag(int64(x)))
	case daml.Date:
		b = protowire.AppendTag(b, fValDate, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(int64(x)))
	case daml.Timestamp:
		b = protowire.AppendTag(b, fValTimestamp, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, uint64(x))
	case daml.Numeric:
		return appendStringAlways(b, fValNumeric, x.String())
	case daml.Party:
		return appendStringAlways(b, fValParty, string(x))
	case daml.Text:
		return appendStringAlways(b, fValText, string(x))
	case daml.ContractID:
		return appendStringAlways(b, fValContractID, string(x))
	case *daml.Optional:
		if x == nil {
			return b
		}
		return pbwire.AppendMessage(b, fValOptional, func(b []byte) []byte {
			return appendValueField(b, fOptionalValue, x.Value)
		})
	case daml.List:
		return pbwire.AppendMessage(b, fValList, func(b []byte) []byte {
			for _, el := range x {
				b = appendValueAlways(b, fListElements, el)
			}
			return b
		})
	case daml.TextMap:
		return pbwire.AppendMessage(b, fValTextMap, func(b []byte) []byte {
			for i := range x {
				e := &x[i]
				b = pbwire.AppendMessage(b, fMapEntries, func(b []byte) []byte {
					b = pbwire.AppendString(b, fEntryKey, e.Key)
					return appendValueField(b, fEntryValue, e.Value)
				})
			}
			return b
		})
	case daml.GenMap:
		return pbwire.AppendMessage(b, fValGenMap, func(b []byte) []byte {
			for i := range x {
				e := &x[i]
				b = pbwire.AppendMessage(b, fMapEntries, func(b []byte) []byte {
					b = appendValueField(b, fEntryKey, e.Key)
					return appendValueField(b, fEntryValue, e.Value)
				})
			}
			return b
		})
	case *daml.Record:
		if x == nil {
			return b
		}
		return pbwire.AppendMessage(b, fValRecord, func(b []byte) []byte {
			b = appendOptionalID(b, fRecordID, x.ID)
			for i := range x.Fields {
				f := &x.Fields[i]
				b = pbwire.AppendMessage(b, fRecordFields, func(b []byte) []byte {
					b = pbwire.AppendString(b, fFieldLabel, f.Label)
					return appendValueField(b, fFieldValue, f.Value)
				})
			}
			return b
		})
	case *daml.Variant:
		if x == nil {
			return b
		}
		return pbwire.AppendMessage(b, fValVariant, func(b []byte) []byte {
			b = appendOptionalID(b, fVariantID, x.ID)
			b = pbwire.AppendString(b, fVariantCtor, x.Constructor)
			return appendValueField(b, fVariantValue, x.Value)
		})
	case *daml.Enum:
		if x == nil {
			return b
		}
		return pbwire.AppendMessage(b, fValEnum, func(b []byte) []byte {
			b = appendOptionalID(b, fEnumID, x.ID)
			return pbwire.AppendString(b, fEnumCtor, x.Constructor)
		})
	}
	return b
}
