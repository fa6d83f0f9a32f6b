package topology_test

import (
	"bytes"
	"crypto/elliptic"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
	"github.com/sandnet/sandnet/internal/topology"
)

// Protobuf building blocks for hand-made transactions.

func varintField(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func bytesField(num protowire.Number, b []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
}

func stringField(num protowire.Number, s string) []byte { return bytesField(num, []byte(s)) }

func versioned(tx []byte) []byte { return slices.Concat(bytesField(1, tx), varintField(2, 30)) }

// transaction is a versioned TopologyTransaction of the given fields.
func transaction(fields ...[]byte) []byte { return versioned(slices.Concat(fields...)) }

// mapping is a TopologyTransaction's mapping field holding one mapping.
func mapping(num protowire.Number, m []byte) []byte { return bytesField(3, bytesField(num, m)) }

var (
	replaceOp = varintField(1, 1)
	serial1   = varintField(2, 1)
)

// ptpMessage is a valid PartyToParticipant without keys, with extra
// fields appended.
func ptpMessage(extra ...[]byte) []byte {
	host := slices.Concat(stringField(1, "p1::1220cd"), varintField(2, 2))
	return slices.Concat(stringField(1, "alice::1220ab"), varintField(2, 1), bytesField(3, host), slices.Concat(extra...))
}

func TestUnmarshalVectors(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	for _, set := range []txVectors{v.V35, v.V340} {
		for i, b := range set.transactions(t) {
			tx, err := topology.Unmarshal(b)
			if err != nil {
				t.Fatalf("%s: %v", set.TxHashes[i], err)
			}
			if !bytes.Equal(topology.Marshal(tx), b) || !bytes.Equal(tx.Bytes(), b) {
				t.Errorf("%s: the round trip differs", set.TxHashes[i])
			}
			if got := hex.EncodeToString(tx.Hash()); got != set.TxHashes[i] {
				t.Errorf("hash = %s, want %s", got, set.TxHashes[i])
			}
		}
	}
	// The 3.4.0 set's mappings, in order.
	txs := v.V340.transactions(t)
	for i, want := range []string{"NamespaceDelegation", "PartyToKeyMapping", "PartyToParticipant"} {
		tx, _ := topology.Unmarshal(txs[i])
		if tx.Mapping.Name() != want || tx.Operation != topology.OperationAddReplace || tx.Serial != 1 {
			t.Errorf("transaction %d: %s op %d serial %d", i, tx.Mapping.Name(), tx.Operation, tx.Serial)
		}
	}
}

func TestUnmarshalKeepsBytes(t *testing.T) {
	t.Parallel()
	// The fields in another order: the same transaction, other bytes,
	// another hash.
	v := loadVectors(t)
	canonical := v.V35.transactions(t)[0]
	tx, err := topology.Unmarshal(canonical)
	if err != nil {
		t.Fatal(err)
	}
	reordered := reverseFields(t, canonical)
	back, err := topology.Unmarshal(reordered)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), reordered) || bytes.Equal(back.Hash(), tx.Hash()) {
		t.Fatal("the hash is not of the bytes as received")
	}
	if !bytes.Equal(topology.Marshal(back), canonical) {
		t.Fatal("Marshal does not write the canonical bytes")
	}
}

// reverseFields returns a versioned transaction with the fields of its
// TopologyTransaction in reverse order.
func reverseFields(tb testing.TB, b []byte) []byte {
	tb.Helper()
	_, _, n := protowire.ConsumeTag(b)
	data, m := protowire.ConsumeBytes(b[n:])
	if n < 0 || m < 0 {
		tb.Fatal("not a versioned message")
	}
	var fields [][]byte
	for rest := data; len(rest) > 0; {
		_, typ, n := protowire.ConsumeTag(rest)
		m := protowire.ConsumeFieldValue(0, typ, rest[n:])
		if n < 0 || m < 0 {
			tb.Fatal("bad field")
		}
		fields = append(fields, rest[:n+m])
		rest = rest[n+m:]
	}
	slices.Reverse(fields)
	return transaction(fields...)
}

// richTransactions are transactions that use every field of the model.
func richTransactions(t *testing.T) []*topology.Transaction {
	ed := signingtest.SeqEd25519(t, 0x40)
	ec := signingtest.NewECDSA(t, elliptic.P256())
	raw := ed.Public.SPKI[12:]
	legacyKey := topology.SigningPublicKey{Format: signing.ProtoKeyFormatRaw, Key: raw, Scheme: 1,
		Usage: []signing.Usage{signing.UsageProtocol}}
	ecKey := topology.SigningPublicKey{Format: signing.ProtoKeyFormatDER, Key: ec.Public.SPKI, Spec: signing.KeySpecP256,
		Usage: []signing.Usage{signing.UsageNamespace, signing.UsageProtocol}}
	replace := func(m topology.Mapping) *topology.Transaction {
		return &topology.Transaction{Operation: topology.OperationAddReplace, Serial: 1, Mapping: m}
	}
	return []*topology.Transaction{
		replace(&topology.NamespaceDelegation{Namespace: "1220ff", TargetKey: ecKey,
			Restriction: topology.RestrictionCanSignSpecificMappings, SpecificMappings: []int32{1, 9}}),
		replace(&topology.NamespaceDelegation{Namespace: "1220ff", TargetKey: ecKey,
			Restriction: topology.RestrictionCanSignAllButNamespaceDelegations}),
		replace(&topology.NamespaceDelegation{Namespace: ec.Public.Fingerprint(), TargetKey: ecKey, IsRootDelegation: true}),
		{Operation: topology.OperationRemove, Serial: 7, Mapping: &topology.DecentralizedNamespaceDefinition{
			Namespace: "1220dd", Threshold: 2, Owners: []string{"1220aa", "1220bb", "1220aa"}}},
		replace(&topology.PartyToParticipant{Party: "bob::1220ee", Threshold: 2,
			Participants: []topology.HostingParticipant{
				{UID: "p1::1220aa", Permission: topology.PermissionConfirmation},
				{UID: "p2::1220bb", Permission: topology.PermissionObservation, Onboarding: true},
				{UID: "p3::1220cc", Permission: topology.PermissionConfirmation},
			},
			SigningKeys: &topology.PartySigningKeys{Keys: []topology.SigningPublicKey{legacyKey, ecKey}, Threshold: 2}}),
		replace(&topology.PartyToKeyMapping{Party: "bob::1220ee", Threshold: 1, SigningKeys: []topology.SigningPublicKey{legacyKey}}),
		replace(&topology.UnsupportedMapping{Field: 5, Raw: slices.Concat(stringField(1, "p1::1220aa"), stringField(2, "sync::1220bb"))}),
		replace(&topology.UnsupportedMapping{Field: 42, Raw: []byte{}}),
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tx := range richTransactions(t) {
		t.Run(tx.Mapping.Name(), func(t *testing.T) {
			t.Parallel()
			b := topology.Marshal(tx)
			back, err := topology.Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tx, back, cmpopts.IgnoreUnexported(topology.Transaction{}), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("round trip (-want +got):\n%s", diff)
			}
			if !bytes.Equal(topology.Marshal(back), b) || !bytes.Equal(back.Bytes(), b) {
				t.Fatal("bytes differ")
			}
		})
	}
}

func TestSigningPublicKeyReading(t *testing.T) {
	t.Parallel()
	ed := signingtest.SeqEd25519(t, 0x40)
	raw := ed.Public.SPKI[12:]
	for _, tc := range []struct {
		name      string
		key       topology.SigningPublicKey
		wantUsage []signing.Usage
		err       string
	}{
		{"raw by scheme", topology.SigningPublicKey{Format: signing.ProtoKeyFormatRaw, Key: raw, Scheme: 1},
			[]signing.Usage{1, 3, 4, 5}, ""},
		{"spki", topology.SigningPublicKey{Format: signing.ProtoKeyFormatSPKI, Key: ed.Public.SPKI, Spec: signing.KeySpecCurve25519,
			Usage: []signing.Usage{signing.UsageProtocol}}, []signing.Usage{4, 5}, ""},
		{"no format", topology.SigningPublicKey{Key: raw, Scheme: 1}, nil, "Field `format` is not set"},
		{"pkcs8", topology.SigningPublicKey{Format: signing.ProtoKeyFormatPKCS8, Key: raw, Scheme: 1}, nil, "Invalid format for public key: CRYPTO_KEY_FORMAT_DER_PKCS8_PRIVATE_KEY_INFO"},
		{"no spec nor scheme", topology.SigningPublicKey{Format: signing.ProtoKeyFormatRaw, Key: raw}, nil, "Field `key_spec and scheme` is not set"},
		{"unknown scheme", topology.SigningPublicKey{Format: signing.ProtoKeyFormatRaw, Key: raw, Scheme: 9}, nil, "Unrecognized value `9` in enum field `scheme`"},
		{"bad usage", topology.SigningPublicKey{Format: signing.ProtoKeyFormatRaw, Key: raw, Scheme: 1, Usage: []signing.Usage{5}}, nil, "Invalid key usage"},
		{"bad key", topology.SigningPublicKey{Format: signing.ProtoKeyFormatRaw, Key: raw[1:], Scheme: 1}, nil, "must be 32 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pk, err := tc.key.PublicKey()
			if tc.err != "" {
				if !fault.Is(err, fault.InvalidArgument) || !bytes.Contains([]byte(err.Error()), []byte(tc.err)) {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pk.Fingerprint() != ed.Fingerprint() || !slices.Equal(pk.Usage, tc.wantUsage) {
				t.Fatalf("key %s usage %v", pk.Fingerprint(), pk.Usage)
			}
		})
	}
}

func TestUnsupportedMappingNames(t *testing.T) {
	t.Parallel()
	for field, want := range map[int32]string{4: "OwnerToKeyMapping", 5: "SynchronizerTrustCertificate", 8: "VettedPackages", 99: "TopologyMapping(99)"} {
		if got := (&topology.UnsupportedMapping{Field: field}).Name(); got != want {
			t.Errorf("field %d: %q, want %q", field, got, want)
		}
	}
}

func TestUnmarshalRefusals(t *testing.T) {
	t.Parallel()
	ed := signingtest.SeqEd25519(t, 0x40)
	key := func(fields ...[]byte) []byte { return slices.Concat(fields...) }
	goodKey := key(varintField(2, 4), bytesField(3, ed.Public.SPKI), bytesField(5, []byte{1, 5, 4}), varintField(6, 1))
	keys := func(k []byte, threshold uint64) []byte {
		return bytesField(6, slices.Concat(bytesField(1, k), varintField(2, threshold)))
	}
	good := transaction(replaceOp, serial1, mapping(9, ptpMessage()))
	if _, err := topology.Unmarshal(good); err != nil {
		t.Fatalf("the base case fails: %v", err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "Field `data` is not set"},
		{"garbage", []byte("garbage!"), ""},
		{"truncated", good[:len(good)-3], ""},
		{"trailing byte", append(slices.Clone(good), 0x08), ""},
		{"group", append(slices.Clone(good), protowire.AppendTag(nil, 7, protowire.StartGroupType)...), "unsupported wire type"},
		{"field 0", append([]byte{0x00, 0x01}, good...), ""},
		{"version 31", slices.Concat(bytesField(1, nil), varintField(2, 31)), "Unsupported version 31"},
		{"no version", bytesField(1, nil), "Unsupported version 0"},
		{"data twice", slices.Concat(good, bytesField(1, nil)), "occurs more than once"},
		{"data as varint", slices.Concat(varintField(1, 3), varintField(2, 30)), "wire type"},
		{"no operation", transaction(serial1, mapping(9, ptpMessage())), "Field `operation` is not set"},
		{"unknown operation", transaction(varintField(1, 3), serial1, mapping(9, ptpMessage())), "Unrecognized value `3` in enum field `operation`"},
		{"huge operation", transaction(varintField(1, 1<<40), serial1, mapping(9, ptpMessage())), "out of the int32 range"},
		{"serial 0", transaction(replaceOp, mapping(9, ptpMessage())), "`serial`: 0 is not positive"},
		{"huge serial", transaction(replaceOp, varintField(2, 1<<33), mapping(9, ptpMessage())), "out of the uint32 range"},
		{"serial twice", transaction(replaceOp, serial1, serial1, mapping(9, ptpMessage())), "occurs more than once"},
		{"no mapping", transaction(replaceOp, serial1), "Field `mapping` is not set"},
		{"empty mapping", transaction(replaceOp, serial1, bytesField(3, nil)), "Field `TopologyMapping.mapping` is not set"},
		{"two mappings", transaction(replaceOp, serial1, bytesField(3, slices.Concat(bytesField(9, ptpMessage()), bytesField(5, nil)))), "more than one mapping"},
		{"mapping as varint", transaction(replaceOp, serial1, bytesField(3, varintField(9, 1))), "wire type"},
		{"invalid UTF-8", transaction(replaceOp, serial1, mapping(9, slices.Concat(bytesField(1, []byte{0xff}), varintField(2, 1)))), "not valid UTF-8"},
		{"bad party", transaction(replaceOp, serial1, mapping(9, slices.Concat(stringField(1, "alice"), varintField(2, 1)))), "Unable to convert field `party`: Invalid unique identifier `alice` with missing namespace."},
		{"bad party character", transaction(replaceOp, serial1, mapping(9, slices.Concat(stringField(1, "al@ce::1220"), varintField(2, 1)))), "Identifier decoding of `al@ce::1220` failed with: non expected character 0x40"},
		{"threshold 0", transaction(replaceOp, serial1, mapping(9, stringField(1, "alice::1220ab"))), "`threshold`: 0 is not positive"},
		{"no permission", transaction(replaceOp, serial1, mapping(9, slices.Concat(stringField(1, "alice::1220ab"), varintField(2, 1),
			bytesField(3, stringField(1, "p1::1220cd"))))), "Field `PARTICIPANT_PERMISSION_UNSPECIFIED` is not set"},
		{"unknown permission", transaction(replaceOp, serial1, mapping(9, slices.Concat(stringField(1, "alice::1220ab"), varintField(2, 1),
			bytesField(3, slices.Concat(stringField(1, "p1::1220cd"), varintField(2, 4)))))), "Unrecognized value `4`"},
		{"bad host", transaction(replaceOp, serial1, mapping(9, slices.Concat(stringField(1, "alice::1220ab"), varintField(2, 1),
			bytesField(3, slices.Concat(stringField(1, "p1"), varintField(2, 2)))))), "Unable to convert field `participant_uid`"},
		{"onboarding garbage", transaction(replaceOp, serial1, mapping(9, slices.Concat(stringField(1, "alice::1220ab"), varintField(2, 1),
			bytesField(3, slices.Concat(stringField(1, "p1::1220cd"), varintField(2, 2), bytesField(3, []byte{0xff})))))), ""},
		{"no keys", transaction(replaceOp, serial1, mapping(9, ptpMessage(bytesField(6, varintField(2, 1))))), "Field `keys` is not set"},
		{"keys threshold 0", transaction(replaceOp, serial1, mapping(9, ptpMessage(keys(goodKey, 0)))), "`threshold`: 0 is not positive"},
		{"keys threshold 2", transaction(replaceOp, serial1, mapping(9, ptpMessage(keys(goodKey, 2)))), "the threshold 2 exceeds the number of signing keys 1"},
		{"bad key", transaction(replaceOp, serial1, mapping(9, ptpMessage(keys(key(varintField(2, 4), bytesField(3, []byte{1, 2}), varintField(6, 1)), 1)))),
			"Unable to convert field `keys`: Failed to deserialize or validate"},
		{"key usage 0", transaction(replaceOp, serial1, mapping(9, ptpMessage(keys(key(varintField(2, 4), bytesField(3, ed.Public.SPKI), varintField(5, 0), varintField(6, 1)), 1)))),
			"Field `usage` is not set"},
		{"bad packed usage", transaction(replaceOp, serial1, mapping(9, ptpMessage(keys(key(varintField(2, 4), bytesField(3, ed.Public.SPKI), bytesField(5, []byte{0x80}), varintField(6, 1)), 1)))),
			""},
		{"p2k without keys", transaction(replaceOp, serial1, mapping(16, slices.Concat(stringField(1, "alice::1220ab"), varintField(3, 1)))), "Field `signing_keys` is not set"},
		{"nsd without key", transaction(replaceOp, serial1, mapping(1, stringField(1, "1220ab"))), "Field `target_key` is not set"},
		{"nsd bad namespace", transaction(replaceOp, serial1, mapping(1, slices.Concat(stringField(1, "12::20"), bytesField(2, goodKey), bytesField(4, nil)))), "Unable to convert field `namespace`"},
		{"root without namespace delegations", transaction(replaceOp, serial1, mapping(1, slices.Concat(stringField(1, ed.Fingerprint()), bytesField(2, goodKey), bytesField(5, nil)))),
			"Root certificate for " + ed.Fingerprint() + " needs to be be able to sign other NamespaceDelegations"},
		{"root flag without restriction field", transaction(replaceOp, serial1, mapping(1, slices.Concat(stringField(1, ed.Fingerprint()), bytesField(2, goodKey)))),
			"needs to be be able to sign other NamespaceDelegations"},
		{"root flag with restriction", transaction(replaceOp, serial1, mapping(1, slices.Concat(stringField(1, ed.Fingerprint()), bytesField(2, goodKey), varintField(3, 1), bytesField(4, nil)))),
			"is_root_delegation was set to true"},
		{"two restrictions", transaction(replaceOp, serial1, mapping(1, slices.Concat(stringField(1, ed.Fingerprint()), bytesField(2, goodKey), bytesField(4, nil), bytesField(5, nil)))),
			"more than one restriction"},
		{"target without namespace usage", transaction(replaceOp, serial1, mapping(1, slices.Concat(stringField(1, "1220ab"),
			bytesField(2, key(varintField(2, 4), bytesField(3, ed.Public.SPKI), varintField(5, 4), varintField(6, 1))), bytesField(4, nil)))), "must include a namespace usage"},
		{"dnd threshold over owners", transaction(replaceOp, serial1, mapping(3, slices.Concat(stringField(1, "1220dd"), varintField(2, 3), stringField(3, "1220aa"), stringField(3, "1220aa"), stringField(3, "1220bb")))),
			"Invalid threshold (3) for 1220dd with 2 owners"},
		{"dnd without owners", transaction(replaceOp, serial1, mapping(3, slices.Concat(stringField(1, "1220dd"), varintField(2, 1)))), "`owners`: cannot be empty"},
		{"dnd negative threshold", transaction(replaceOp, serial1, mapping(3, slices.Concat(stringField(1, "1220dd"), varintField(2, uint64(1<<64-1)), stringField(3, "1220aa")))), "-1 is not positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tx, err := topology.Unmarshal(tc.b)
			if err == nil {
				t.Fatalf("Unmarshal = %+v, want an error", tx)
			}
			if !fault.Is(err, fault.InvalidArgument) || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestUnmarshalSkipsUnknownFields(t *testing.T) {
	t.Parallel()
	b := transaction(replaceOp, serial1, mapping(9, ptpMessage(varintField(77, 5), bytesField(78, []byte("x")))), varintField(99, 1))
	tx, err := topology.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Mapping.(*topology.PartyToParticipant).Party != "alice::1220ab" || !bytes.Equal(tx.Bytes(), b) {
		t.Fatal("unexpected decoding")
	}
}

func TestMultiHash(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	var hashes [][]byte
	for _, h := range v.V340.TxHashes {
		hashes = append(hashes, signingtest.DecodeHex(t, h))
	}
	for _, tc := range []struct {
		name   string
		hashes [][]byte
		want   string
	}{
		{"3.4.0 in order", hashes, v.V340.MultiHash},
		{"3.4.0 reversed", [][]byte{hashes[2], hashes[1], hashes[0]}, v.V340.MultiHash},
		{"3.4.0 with repeats", [][]byte{hashes[1], hashes[0], hashes[1], hashes[2], hashes[0]}, v.V340.MultiHash},
		{"3.5", [][]byte{signingtest.DecodeHex(t, v.V35.TxHashes[0])}, v.V35.MultiHash},
		{"3.5 twice", [][]byte{signingtest.DecodeHex(t, v.V35.TxHashes[0]), signingtest.DecodeHex(t, v.V35.TxHashes[0])}, v.V35.MultiHash},
	} {
		if got := hex.EncodeToString(topology.MultiHash(tc.hashes)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestCanSignNamespaceDelegations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		m    topology.NamespaceDelegation
		want bool
	}{
		{topology.NamespaceDelegation{Restriction: topology.RestrictionCanSignAllMappings}, true},
		{topology.NamespaceDelegation{Restriction: topology.RestrictionCanSignAllButNamespaceDelegations}, false},
		{topology.NamespaceDelegation{Restriction: topology.RestrictionCanSignSpecificMappings, SpecificMappings: []int32{9, 1}}, true},
		{topology.NamespaceDelegation{Restriction: topology.RestrictionCanSignSpecificMappings, SpecificMappings: []int32{9}}, false},
		{topology.NamespaceDelegation{IsRootDelegation: true}, true},
		{topology.NamespaceDelegation{}, false},
	} {
		if got := tc.m.CanSignNamespaceDelegations(); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.m, got, tc.want)
		}
	}
}

func TestPermissionString(t *testing.T) {
	t.Parallel()
	for p, want := range map[topology.Permission]string{
		topology.PermissionSubmission: "Submission", topology.PermissionConfirmation: "Confirmation",
		topology.PermissionObservation: "Observation", 0: "Permission(0)", 9: "Permission(9)",
	} {
		if got := p.String(); got != want {
			t.Errorf("%d: %q, want %q", p, got, want)
		}
	}
}
