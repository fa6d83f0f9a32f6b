package interactive

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// cmpOpts compares decoded transactions: Numerics by value, and nil and
// empty slices alike (proto3 cannot tell them apart).
var cmpOpts = cmp.Options{
	cmp.Comparer(func(a, b daml.Numeric) bool { return a.Cmp(b) == 0 }),
	cmpopts.EquateEmpty(),
}

const (
	pkg    = "9bf0ce026d24003c3c9708efcbd0768f6265a3fc43cfcaadc3d9e2997588fe2d"
	alice  = daml.Party("alice::1220247136781190caa1cebb2562a63effa0e79e4bbffc9a55a61f9bbe2650000685")
	bank   = daml.Party("bank::12204381dc2ab14285160c808659aee005d51255add7264b318d07c7417292c7442c")
	cidA   = daml.ContractID("00f8e4ff547304769d68140857a6b7b35c367cf14e99c42639fc699d73bfb25bdeca1220635521aa2369c3206b829a11d2f6f720e1655fdae65272054e8c6e788804b967")
	cidB   = daml.ContractID("00f22968b3dfe02c9f8fd586db1df6c814ef7c7d2acb8cee91d62fc1ba8818dbdcca12203187901cb00af74a7fec101acd481eac0c62a1eaa0ca52a48dda44e6ac6c4d72")
	seedHx = "532b20b0105c9883348558ed2711c7d23ea6b4ee718364a87e16fad4b3c3a029"
)

func ident(module, entity string) *daml.Identifier {
	return &daml.Identifier{PackageID: pkg, ModuleName: module, EntityName: entity}
}

func ptr[T any](v T) *T { return &v }

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// everyKind is a record holding every kind of value, with the defaults
// protobuf would omit outside a oneof, records without ids and fields
// without labels, negative numbers and nesting.
func everyKind() daml.Value {
	return &daml.Record{ID: ident("Demo.Every", "Kind"), Fields: []daml.Field{
		{Label: "unit", Value: daml.Unit{}},
		{Label: "false", Value: daml.Bool(false)},
		{Label: "true", Value: daml.Bool(true)},
		{Label: "zero", Value: daml.Int64(0)},
		{Label: "negative", Value: daml.Int64(-42)},
		{Label: "numeric", Value: daml.MustNumeric("-1234.5")},
		{Label: "numericZero", Value: daml.NumericFromInt(0)},
		{Label: "epoch", Value: daml.Timestamp(0)},
		{Label: "before", Value: daml.Timestamp(-1)},
		{Label: "date", Value: daml.Date(-719162)},
		{Label: "party", Value: alice},
		{Label: "emptyText", Value: daml.Text("")},
		{Label: "text", Value: daml.Text("héllo\x00")},
		{Label: "cid", Value: cidA},
		{Label: "none", Value: daml.None},
		{Label: "someNone", Value: daml.Some(daml.None)},
		{Label: "some", Value: daml.Some(daml.Some(daml.Int64(1)))},
		{Label: "emptyList", Value: daml.List{}},
		{Label: "list", Value: daml.List{daml.Text("a"), daml.Unit{}, daml.List{}}},
		{Label: "emptyTextMap", Value: daml.TextMap{}},
		{Label: "textMap", Value: daml.TextMap{{Key: "", Value: daml.Int64(1)}, {Key: "k", Value: daml.Bool(false)}}},
		{Label: "emptyGenMap", Value: daml.GenMap{}},
		{Label: "genMap", Value: daml.GenMap{{Key: daml.Int64(2), Value: daml.Text("two")}, {Key: daml.Unit{}, Value: daml.Unit{}}}},
		{Label: "anonymous", Value: &daml.Record{Fields: []daml.Field{{Value: daml.Int64(7)}, {Label: "x", Value: &daml.Record{}}}}},
		{Label: "variant", Value: &daml.Variant{ID: ident("Demo.Every", "V"), Constructor: "Left", Value: daml.Unit{}}},
		{Label: "bareVariant", Value: &daml.Variant{Constructor: "Right", Value: daml.Text("")}},
		{Label: "enum", Value: &daml.Enum{ID: ident("Demo.Every", "Color"), Constructor: "Red"}},
		{Label: "bareEnum", Value: &daml.Enum{Constructor: "Blue"}},
		{Label: "emptyID", Value: &daml.Record{ID: &daml.Identifier{}}},
	}}
}

// handBuilt is a transaction using every node kind and metadata field.
func handBuilt() *PreparedTransaction {
	return &PreparedTransaction{
		Transaction: &DamlTransaction{
			Version: "2.1",
			Roots:   []string{"0", "4"},
			Nodes: []Node{
				{NodeID: "0", Exercise: &Exercise{
					LfVersion: "2.1", ContractID: cidA, PackageName: "demo", TemplateID: *ident("Demo.Token", "Token"),
					Signatories: []daml.Party{bank}, Stakeholders: []daml.Party{alice, bank}, ActingParties: []daml.Party{alice},
					InterfaceID: ident("Demo.Iface", "Holding"), ChoiceID: "Transfer", ChosenValue: everyKind(),
					Consuming: true, Children: []string{"1", "2", "3"}, ExerciseResult: daml.Unit{},
					ChoiceObservers: []daml.Party{bank},
				}},
				{NodeID: "1", Fetch: &Fetch{
					LfVersion: "2.1", ContractID: cidB, PackageName: "demo", TemplateID: *ident("Demo.Token", "Token"),
					Signatories: []daml.Party{bank}, Stakeholders: []daml.Party{bank}, ActingParties: []daml.Party{alice},
					InterfaceID: ident("Demo.Iface", "Holding"),
				}},
				{NodeID: "2", Create: &Create{
					LfVersion: "2.1", ContractID: cidB, PackageName: "demo", TemplateID: *ident("Demo.Token", "Token"),
					Argument: everyKind(), Signatories: []daml.Party{bank}, Stakeholders: []daml.Party{alice, bank},
				}},
				{NodeID: "3", Rollback: &Rollback{Children: []string{"5"}}},
				{NodeID: "4", Rollback: &Rollback{}},
				{NodeID: "5", Exercise: &Exercise{
					LfVersion: "2.1", ContractID: cidA, PackageName: "demo", TemplateID: *ident("Demo.Token", "Token"),
					ChoiceID: "Archive", ChosenValue: &daml.Record{ID: ident("DA.Internal.Template", "Archive")},
				}},
			},
			NodeSeeds: []NodeSeed{
				{NodeID: 0, Seed: mustHex(seedHx)},
				{NodeID: 2, Seed: mustHex(seedHx)},
				{NodeID: 5, Seed: mustHex(seedHx)},
				{NodeID: -1, Seed: []byte{1}}, // of no node: never looked up
			},
		},
		Metadata: &Metadata{
			SubmitterInfo:   &SubmitterInfo{ActAs: []daml.Party{alice, ""}, CommandID: "cmd"},
			SynchronizerID:  "global-domain::1220b20a7257b2d3cdf2ff1e76c30e488f57329c858978e7392b60102c5d7b634bda::35-0",
			MediatorGroup:   7,
			TransactionUUID: "6f1c2d3e-4b5a-4978-8695-a4b3c2d1e0f9",
			PreparationTime: 1767225600000000,
			InputContracts: []InputContract{
				{Create: &Create{LfVersion: "2.1", ContractID: cidA, PackageName: "demo", TemplateID: *ident("Demo.Token", "Token"),
					Argument: everyKind(), Signatories: []daml.Party{bank}, Stakeholders: []daml.Party{bank}},
					CreatedAt: -5, EventBlob: []byte{0, 1, 2}},
			},
			MinLedgerEffectiveTime: ptr(int64(0)), // set to zero: still written
			MaxLedgerEffectiveTime: ptr(int64(1767229200000000)),
			MaxRecordTime:          ptr(int64(-1)),
		},
	}
}

func TestHandBuiltRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pt   *PreparedTransaction
	}{
		{"every kind", handBuilt()},
		{"empty", &PreparedTransaction{}},
		{"empty parts", &PreparedTransaction{Transaction: &DamlTransaction{}, Metadata: &Metadata{SubmitterInfo: &SubmitterInfo{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := Marshal(tt.pt)
			got, err := Unmarshal(b)
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if diff := cmp.Diff(tt.pt, got, cmpOpts); diff != "" {
				t.Errorf("round trip changed the transaction (-want +got):\n%s", diff)
			}
			if b2 := Marshal(got); !bytes.Equal(b, b2) {
				t.Errorf("second Marshal differs:\n got %x\nwant %x", b2, b)
			}
			if _, err := HashV2(got); err != nil && tt.name == "every kind" {
				t.Errorf("HashV2: %v", err)
			}
		})
	}
}

// TestMarshalValueBytes pins the encoding of oneof cases holding defaults
// and of the integer kinds, which protobuf-java writes as shown.
func TestMarshalValueBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    daml.Value
		want string
	}{
		{"unit", daml.Unit{}, "0a00"},
		{"false", daml.Bool(false), "1000"},
		{"true", daml.Bool(true), "1001"},
		{"int64 zero", daml.Int64(0), "1800"},
		{"int64 -1 zigzag", daml.Int64(-1), "1801"},
		{"int64 1 zigzag", daml.Int64(1), "1802"},
		{"date zero", daml.Date(0), "2000"},
		{"date -1 sign-extended", daml.Date(-1), "20ffffffffffffffffff01"},
		{"timestamp zero", daml.Timestamp(0), "290000000000000000"},
		{"numeric", daml.MustNumeric("1"), "320c312e30303030303030303030"},
		{"party empty", daml.Party(""), "3a00"},
		{"text empty", daml.Text(""), "4200"},
		{"contract id empty", daml.ContractID(""), "4a00"},
		{"none", daml.None, "5200"},
		{"some false", daml.Some(daml.Bool(false)), "52040a021000"},
		{"empty list", daml.List{}, "5a00"},
		{"list of unit", daml.List{daml.Unit{}}, "5a040a020a00"},
		{"empty text map", daml.TextMap{}, "6200"},
		{"text map empty key", daml.TextMap{{Value: daml.Unit{}}}, "62060a0412020a00"},
		{"gen map", daml.GenMap{{Key: daml.Unit{}, Value: daml.Unit{}}}, "6a0a0a080a020a0012020a00"},
		{"record bare", &daml.Record{}, "7200"},
		{"record unlabelled field", &daml.Record{Fields: []daml.Field{{Value: daml.Unit{}}}}, "72061204" + "12020a00"},
		{"variant bare", &daml.Variant{Value: daml.Unit{}}, "7a041a020a00"},
		{"enum bare", &daml.Enum{}, "820100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := hex.EncodeToString(appendValue(nil, tt.v)); got != tt.want {
				t.Errorf("appendValue(%#v) = %s, want %s", tt.v, got, tt.want)
			}
		})
	}
}

// Wire-building helpers for the error and merge tests.

func tagBytes(num protowire.Number, b []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
}

func tagVarint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// txWithNode wraps a v1 node body (the node_type oneof's bytes) in a
// transaction.
func txWithNode(v1 []byte) []byte {
	return tagBytes(fPTTransaction, tagBytes(fTxNodes, cat(tagBytes(fNodeID, []byte("0")), tagBytes(fNodeV1, v1))))
}

// txWithValue puts a Value message as the argument of a create node.
func txWithValue(value []byte) []byte {
	return txWithNode(tagBytes(fV1Create, tagBytes(fCreateArgument, value)))
}

// nestedOptionals is n Optional levels around a unit.
func nestedOptionals(n int) []byte {
	v := tagBytes(fValUnit, nil)
	for range n {
		v = tagBytes(fValOptional, tagBytes(fOptionalValue, v))
	}
	return v
}

func TestUnmarshalErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []byte
		want string // a part of the message
	}{
		{"truncated tag", []byte{0x80}, "malformed field tag"},
		{"truncated length", []byte{0x0a, 0x05, 0x01}, "malformed field 1"},
		{"field number zero", []byte{0x00, 0x00}, "malformed field tag"},
		{"end group at top", []byte{0x0c}, "invalid wire type"},
		{"transaction as varint", tagVarint(fPTTransaction, 1), "at transaction: field 1 has wire type varint, want length-delimited"},
		{"bad utf-8 version", tagBytes(fPTTransaction, tagBytes(fTxVersion, []byte{0xff})), "at transaction.version: field 1 is not valid UTF-8"},
		{"bad utf-8 party", tagBytes(fPTMetadata, tagBytes(fMDSubmitterInfo, tagBytes(fSIActAs, []byte{0xc3}))), "metadata.submitter_info.act_as[0]"},
		{"node without v1", tagBytes(fPTTransaction, tagBytes(fTxNodes, tagBytes(fNodeID, []byte("7")))), `node "7" has no v1 node`},
		{"node without kind", txWithNode(nil), "neither a create, fetch, exercise nor rollback"},
		{"query by key", txWithNode(tagBytes(fV1QueryByKey, nil)), "QueryByKey nodes are not supported"},
		{"unknown node kind", txWithNode(tagBytes(9, nil)), "neither a create"},
		{"create key", txWithNode(tagBytes(fV1Create, tagBytes(fCreateKey, nil))), "contract keys are not supported"},
		{"fetch key", txWithNode(tagBytes(fV1Fetch, tagBytes(fFetchKey, nil))), "contract keys are not supported"},
		{"fetch by key", txWithNode(tagBytes(fV1Fetch, tagVarint(fFetchByKey, 1))), "fetch by key is not supported"},
		{"exercise key", txWithNode(tagBytes(fV1Exercise, tagBytes(fExKey, nil))), "contract keys are not supported"},
		{"exercise by key", txWithNode(tagBytes(fV1Exercise, tagVarint(fExByKey, 1))), "exercise by key is not supported"},
		{"exercise consuming as bytes", txWithNode(tagBytes(fV1Exercise, tagBytes(fExConsuming, nil))), "v1.exercise.consuming: field 11 has wire type length-delimited, want varint"},
		{"value without sum", txWithValue(nil), "create.argument: value has no sum"},
		{"value of unknown kind", txWithValue(tagVarint(17, 1)), "value has no sum"},
		{"bad numeric", txWithValue(tagBytes(fValNumeric, []byte("1e5"))), "argument.numeric: invalid Decimal string"},
		{"numeric too precise", txWithValue(tagBytes(fValNumeric, []byte("0.00000000001"))), "invalid Decimal string"},
		{"timestamp as varint", txWithValue(tagVarint(fValTimestamp, 1)), "argument.timestamp: field 5 has wire type varint, want fixed64"},
		{"bad utf-8 text", txWithValue(tagBytes(fValText, []byte{0xe2, 0x82})), "argument.text: field 8 is not valid UTF-8"},
		{"record field without value", txWithValue(tagBytes(fValRecord, tagBytes(fRecordFields, tagBytes(fFieldLabel, []byte("x"))))), `argument.record.fields[0]: record field "x" has no value`},
		{"variant without value", txWithValue(tagBytes(fValVariant, tagBytes(fVariantCtor, []byte("C")))), `variant "C" has no value`},
		{"text map entry without value", txWithValue(tagBytes(fValTextMap, tagBytes(fMapEntries, nil))), "text map entry"},
		{"gen map entry without key", txWithValue(tagBytes(fValGenMap, tagBytes(fMapEntries, tagBytes(fEntryValue, tagBytes(fValUnit, nil))))), "gen map entry has no key"},
		{"list element without sum", txWithValue(tagBytes(fValList, tagBytes(fListElements, nil))), "list.elements[0]: value has no sum"},
		{"nested too deep", txWithValue(nestedOptionals(daml.MaxNesting + 1)), "value nested deeper than 100 levels"},
		{"malformed unit", txWithValue(tagBytes(fValUnit, []byte{0x0a})), "argument.unit: malformed field 1"},
		{"malformed global key mapping", tagBytes(fPTMetadata, tagBytes(fMDGlobalKeyMap, []byte{0x0a, 0x09})), "metadata.global_key_mapping"},
		{"seed as varint", tagBytes(fPTTransaction, tagBytes(fTxNodeSeeds, tagVarint(fSeedSeed, 1))), "transaction.node_seeds[0].seed"},
		{"time as bytes", tagBytes(fPTMetadata, tagBytes(fMDMinLET, nil)), "metadata.min_ledger_effective_time"},
		{"input contract index", tagBytes(fPTMetadata, cat(tagBytes(fMDInputContracts, nil), tagBytes(fMDInputContracts, tagVarint(fICV1, 1)))), "metadata.input_contracts[1].v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pt, err := Unmarshal(tt.in)
			if err == nil {
				t.Fatalf("Unmarshal(%x) = %+v, want an error", tt.in, pt)
			}
			if !fault.Is(err, fault.InvalidArgument) {
				t.Errorf("error %v is not an InvalidArgument fault", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestUnmarshalNestingLimit(t *testing.T) {
	t.Parallel()
	pt, err := Unmarshal(txWithValue(nestedOptionals(daml.MaxNesting)))
	if err != nil {
		t.Fatalf("Unmarshal of %d nested optionals: %v", daml.MaxNesting, err)
	}
	if _, err := HashV2(&PreparedTransaction{Transaction: &DamlTransaction{
		Roots: []string{"0"}, Nodes: []Node{{NodeID: "0", Create: &Create{LfVersion: "2.1", Argument: pt.Transaction.Nodes[0].Create.Argument}}},
	}}); err != nil {
		t.Errorf("HashV2 of %d nested optionals: %v", daml.MaxNesting, err)
	}
}

// TestUnmarshalProtobufSemantics checks what protobuf parsers do and
// Unmarshal must too: unknown fields skipped, the last scalar wins,
// repeated fields accumulate, message fields and oneof cases merge.
func TestUnmarshalProtobufSemantics(t *testing.T) {
	t.Parallel()
	unknownGroup := protowire.AppendTag(nil, 50, protowire.StartGroupType)
	unknownGroup = append(unknownGroup, tagVarint(1, 5)...)
	unknownGroup = protowire.AppendTag(unknownGroup, 50, protowire.EndGroupType)
	record := func(label string, v []byte) []byte {
		return tagBytes(fValRecord, tagBytes(fRecordFields, cat(tagBytes(fFieldLabel, []byte(label)), tagBytes(fFieldValue, v))))
	}
	tests := []struct {
		name string
		in   []byte
		want *PreparedTransaction
	}{
		{
			name: "unknown fields",
			in: cat(tagVarint(99, 1), unknownGroup, tagBytes(fPTMetadata, cat(
				tagVarint(1, 3), // reserved
				tagBytes(fMDSynchronizerID, []byte("s")),
				protowire.AppendFixed32(protowire.AppendTag(nil, 77, protowire.Fixed32Type), 1),
			))),
			want: &PreparedTransaction{Metadata: &Metadata{SynchronizerID: "s"}},
		},
		{
			name: "last scalar wins, lists accumulate, messages merge",
			in: cat(
				tagBytes(fPTMetadata, cat(tagBytes(fMDSynchronizerID, []byte("a")), tagBytes(fMDSubmitterInfo, tagBytes(fSIActAs, []byte("p"))))),
				tagBytes(fPTMetadata, cat(tagBytes(fMDSynchronizerID, []byte("b")), tagBytes(fMDSubmitterInfo, cat(tagBytes(fSIActAs, []byte("q")), tagBytes(fSICommandID, []byte("c")))))),
			),
			want: &PreparedTransaction{Metadata: &Metadata{SynchronizerID: "b", SubmitterInfo: &SubmitterInfo{ActAs: []daml.Party{"p", "q"}, CommandID: "c"}}},
		},
		{
			name: "oneof: same case merges, other case replaces",
			in: txWithNode(cat(
				tagBytes(fV1Fetch, tagBytes(fFetchLfVersion, []byte("x"))),
				tagBytes(fV1Create, tagBytes(fCreateLfVersion, []byte("2.1"))),
				tagBytes(fV1Create, cat(
					tagBytes(fCreatePackageName, []byte("p")),
					tagBytes(fCreateArgument, record("a", tagVarint(fValBool, 2))),
					tagBytes(fCreateArgument, record("b", tagBytes(fValText, nil))),
				)),
			)),
			want: &PreparedTransaction{Transaction: &DamlTransaction{Nodes: []Node{{NodeID: "0", Create: &Create{
				LfVersion: "2.1", PackageName: "p",
				Argument: &daml.Record{Fields: []daml.Field{{Label: "a", Value: daml.Bool(true)}, {Label: "b", Value: daml.Text("")}}},
			}}}}},
		},
		{
			name: "value case changes",
			in:   txWithValue(cat(tagBytes(fValList, tagBytes(fListElements, tagBytes(fValUnit, nil))), tagVarint(fValInt64, 3), tagBytes(fValList, nil))),
			want: &PreparedTransaction{Transaction: &DamlTransaction{Nodes: []Node{{NodeID: "0", Create: &Create{Argument: daml.List{}}}}}},
		},
		{
			name: "by_key false and truncated int32",
			in: cat(
				txWithNode(tagBytes(fV1Fetch, tagVarint(fFetchByKey, 0))),
				tagBytes(fPTTransaction, tagBytes(fTxNodeSeeds, tagVarint(fSeedNodeID, 1<<32+5))),
			),
			want: &PreparedTransaction{Transaction: &DamlTransaction{
				Nodes:     []Node{{NodeID: "0", Fetch: &Fetch{}}},
				NodeSeeds: []NodeSeed{{NodeID: 5}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Unmarshal(tt.in)
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpOpts); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
