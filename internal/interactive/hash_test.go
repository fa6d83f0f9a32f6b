package interactive

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// simpleTx is one root exercise with a create child, both seeded.
func simpleTx() *PreparedTransaction {
	return &PreparedTransaction{
		Transaction: &DamlTransaction{
			Version: "2.1",
			Roots:   []string{"0"},
			Nodes: []Node{
				{NodeID: "0", Exercise: &Exercise{LfVersion: "2.1", ContractID: cidA, ChoiceID: "C",
					ChosenValue: daml.Unit{}, Children: []string{"1"}}},
				{NodeID: "1", Create: &Create{LfVersion: "2.1", ContractID: cidB, Argument: &daml.Record{}}},
			},
			NodeSeeds: []NodeSeed{{NodeID: 0, Seed: mustHex(seedHx)}, {NodeID: 1, Seed: mustHex(seedHx)}},
		},
		Metadata: &Metadata{SubmitterInfo: &SubmitterInfo{ActAs: []daml.Party{alice}}},
	}
}

func TestHashErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   func(pt *PreparedTransaction)
		scheme Scheme
		want   string
	}{
		{"missing root", func(pt *PreparedTransaction) { pt.Transaction.Roots = []string{"9"} }, SchemeV2,
			`does not contain a node with node id "9"`},
		{"missing child", func(pt *PreparedTransaction) { pt.Transaction.Nodes[0].Exercise.Children = []string{"1", "2"} }, SchemeV2,
			`does not contain a node with node id "2"`},
		{"missing exercise seed", func(pt *PreparedTransaction) { pt.Transaction.NodeSeeds = pt.Transaction.NodeSeeds[1:] }, SchemeV2,
			`node "0": missing node seed for an exercise node`},
		{"short seed", func(pt *PreparedTransaction) { pt.Transaction.NodeSeeds[1].Seed = []byte{1, 2} }, SchemeV2,
			`node "1": node seed has 2 bytes, want 32`},
		{"cycle", func(pt *PreparedTransaction) { pt.Transaction.Nodes[0].Exercise.Children = []string{"0"} }, SchemeV2,
			`node "0" is its own descendant`},
		{"duplicate node id", func(pt *PreparedTransaction) {
			pt.Transaction.Nodes = append(pt.Transaction.Nodes, pt.Transaction.Nodes[1])
		}, SchemeV2, `two nodes with node id "1"`},
		{"contract id not hex", func(pt *PreparedTransaction) { pt.Transaction.Nodes[1].Create.ContractID = "00zz" }, SchemeV2,
			`contract_id: contract id "00zz" is not a hex string`},
		{"contract id in a value not hex", func(pt *PreparedTransaction) {
			pt.Transaction.Nodes[1].Create.Argument = &daml.Record{Fields: []daml.Field{{Label: "c", Value: daml.List{daml.ContractID("0")}}}}
		}, SchemeV2, `argument: field "c": [0]: contract id "0" is not a hex string`},
		{"missing argument", func(pt *PreparedTransaction) { pt.Transaction.Nodes[1].Create.Argument = nil }, SchemeV2,
			`node "1": argument: missing value`},
		{"missing chosen value", func(pt *PreparedTransaction) { pt.Transaction.Nodes[0].Exercise.ChosenValue = nil }, SchemeV3,
			`chosen_value: missing value`},
		{"nil inside a value", func(pt *PreparedTransaction) {
			pt.Transaction.Nodes[1].Create.Argument = daml.GenMap{{Key: daml.Unit{}}}
		}, SchemeV2, `value: missing value`},
		{"value too deep", func(pt *PreparedTransaction) {
			var v daml.Value = daml.Unit{}
			for range daml.MaxNesting + 1 {
				v = daml.List{v}
			}
			pt.Transaction.Nodes[1].Create.Argument = v
		}, SchemeV2, `value nested deeper than 100 levels`},
		{"LF 2 under V2", func(pt *PreparedTransaction) { pt.Transaction.Nodes[1].Create.LfVersion = "2" }, SchemeV2,
			"Cannot hash node with LF serialization version V2 using hashing scheme V2. Does the transaction use contract keys? Please using hashing scheme V3 or higher."},
		{"LF dev", func(pt *PreparedTransaction) { pt.Transaction.Nodes[1].Create.LfVersion = "dev" }, SchemeV3,
			`LF serialization version "dev"`},
		{"input contract without contract", func(pt *PreparedTransaction) {
			pt.Metadata.InputContracts = []InputContract{{CreatedAt: 1}}
		}, SchemeV2, "input contract 0 has no contract"},
		{"input contract with LF 2", func(pt *PreparedTransaction) {
			c := *pt.Transaction.Nodes[1].Create
			c.LfVersion = "2"
			pt.Metadata.InputContracts = []InputContract{{Create: &c}}
		}, SchemeV2, "Does the transaction use contract keys?"},
		{"unknown scheme", func(*PreparedTransaction) {}, Scheme(4), "unsupported hashing scheme version 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pt := simpleTx()
			tt.edit(pt)
			_, err := Hash(pt, tt.scheme)
			if err == nil {
				t.Fatal("Hash succeeded, want an error")
			}
			if !fault.Is(err, fault.InvalidArgument) {
				t.Errorf("error %v is not an InvalidArgument fault", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if _, _, terr := HashTrace(pt, tt.scheme); terr == nil || terr.Error() != err.Error() {
				t.Errorf("HashTrace error %v, want %v", terr, err)
			}
		})
	}
}

func TestHashAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   func(pt *PreparedTransaction)
		scheme Scheme
	}{
		{"as built", func(*PreparedTransaction) {}, SchemeV2},
		{"create without seed", func(pt *PreparedTransaction) { pt.Transaction.NodeSeeds = pt.Transaction.NodeSeeds[:1] }, SchemeV2},
		{"LF 2 under V3", func(pt *PreparedTransaction) { pt.Transaction.Nodes[1].Create.LfVersion = "2" }, SchemeV3},
		{"shared child", func(pt *PreparedTransaction) {
			pt.Transaction.Roots = []string{"0", "1"}
			pt.Transaction.Nodes[0].Exercise.Children = []string{"1", "1"}
		}, SchemeV2},
		{"unreferenced node", func(pt *PreparedTransaction) {
			pt.Transaction.Nodes = append(pt.Transaction.Nodes, Node{NodeID: "x"})
		}, SchemeV2},
		{"no transaction nor metadata", func(pt *PreparedTransaction) { *pt = PreparedTransaction{} }, SchemeV3},
		{"deep tree", func(pt *PreparedTransaction) {
			// A chain of 100000 rollbacks: the walk must not recurse.
			tx := pt.Transaction
			const depth = 100000
			for i := range depth {
				id, child := "r"+strconv.Itoa(i), "r"+strconv.Itoa(i+1)
				if i == depth-1 {
					child = "0"
				}
				tx.Nodes = append(tx.Nodes, Node{NodeID: id, Rollback: &Rollback{Children: []string{child}}})
			}
			tx.Roots = []string{"r0"}
		}, SchemeV2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pt := simpleTx()
			tt.edit(pt)
			if _, err := Hash(pt, tt.scheme); err != nil {
				t.Fatalf("Hash: %v", err)
			}
		})
	}
}

// TestHashCreateSeed checks that a create's seed is optional: a create
// without one encodes 00 where the seed would be.
func TestHashCreateSeed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		seeds []NodeSeed
		want  []byte // the bytes after "01 <lf version> 00"
	}{
		{"seeded", []NodeSeed{{NodeID: 0, Seed: mustHex(seedHx)}}, append([]byte{1}, mustHex(seedHx)...)},
		{"first seed wins", []NodeSeed{{NodeID: 0, Seed: mustHex(seedHx)}, {NodeID: 0, Seed: make([]byte, 32)}}, append([]byte{1}, mustHex(seedHx)...)},
		{"unseeded", nil, []byte{0, 0, 0, 0, 0x44}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tx := &DamlTransaction{Version: "2.1", Roots: []string{"0"}, NodeSeeds: tt.seeds,
				Nodes: []Node{{NodeID: "0", Create: &Create{LfVersion: "2.1", ContractID: cidB, Argument: daml.Unit{}}}}}
			encs := map[string][]byte{}
			if _, err := hashTransactionWith(tx, SchemeV2, nil, encs); err != nil {
				t.Fatal(err)
			}
			prefix := []byte{1, 0, 0, 0, 3, '2', '.', '1', 0}
			if enc := encs["0"]; !bytes.HasPrefix(enc, append(prefix, tt.want...)) {
				t.Errorf("encoding %x does not start with %x%x", enc, prefix, tt.want)
			}
		})
	}
}

// TestHashOrderMatters checks that party lists and input contracts are
// hashed as given, not sorted.
func TestHashOrderMatters(t *testing.T) {
	t.Parallel()
	a, b := simpleTx(), simpleTx()
	a.Metadata.SubmitterInfo.ActAs = []daml.Party{alice, bank}
	b.Metadata.SubmitterInfo.ActAs = []daml.Party{bank, alice}
	ha, err := HashV2(a)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := HashV2(b)
	if err != nil {
		t.Fatal(err)
	}
	if ha.Metadata == hb.Metadata {
		t.Error("act_as in another order gives the same metadata hash")
	}
}

func TestHashV2IgnoresMaxRecordTime(t *testing.T) {
	t.Parallel()
	a, b := simpleTx(), simpleTx()
	b.Metadata.MaxRecordTime = ptr(int64(5))
	for _, tt := range []struct {
		scheme Scheme
		same   bool
	}{{SchemeV2, true}, {SchemeV3, false}} {
		ha, err := Hash(a, tt.scheme)
		if err != nil {
			t.Fatal(err)
		}
		hb, err := Hash(b, tt.scheme)
		if err != nil {
			t.Fatal(err)
		}
		if (ha == hb) != tt.same {
			t.Errorf("%s: hashes equal = %v, want %v", tt.scheme, ha == hb, tt.same)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestHashTraceGolden pins the trace of a transaction holding every node
// and value kind, byte for byte: the hash builds its labels only when
// tracing, and a change there must leave the trace as it is. Run with
// -update to rewrite testdata/trace_*.txt after a deliberate change.
func TestHashTraceGolden(t *testing.T) {
	t.Parallel()
	for _, s := range []Scheme{SchemeV2, SchemeV3} {
		t.Run(s.String(), func(t *testing.T) {
			t.Parallel()
			h, trace, err := HashTrace(handBuilt(), s)
			if err != nil {
				t.Fatalf("HashTrace: %v", err)
			}
			if h2, err := Hash(handBuilt(), s); err != nil || h2 != h {
				t.Errorf("Hash = %x, %v; the traced hash is %x", h2.Final, err, h.Final)
			}
			path := filepath.Join("testdata", "trace_v"+strconv.Itoa(int(s))+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if trace != string(want) {
				t.Errorf("the trace differs from %s:\n%s", path, trace)
			}
		})
	}
}
