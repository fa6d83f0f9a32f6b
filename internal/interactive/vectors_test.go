package interactive

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// vector is one prepared transaction of testdata/vectors.json with the
// hashes Canton's reference implementations compute for it.
type vector struct {
	Name                   string `json:"name"`
	PreparedTransactionB64 string `json:"preparedTransactionB64"`
	V2                     struct {
		Node0EncodingHex        string `json:"node0EncodingHex"`
		Node0Hash               string `json:"node0Hash"`
		Node1Hash               string `json:"node1Hash"`
		Node2Hash               string `json:"node2Hash"`
		TransactionHash         string `json:"transactionHash"`
		MetadataEncodingHex     string `json:"metadataEncodingHex"`
		MetadataHash            string `json:"metadataHash"`
		PreparedTransactionHash string `json:"preparedTransactionHash"`
	} `json:"v2"`
	V3 struct {
		Node0Hash               string `json:"node0Hash"`
		TransactionHash         string `json:"transactionHash"`
		MetadataHash            string `json:"metadataHash"`
		PreparedTransactionHash string `json:"preparedTransactionHash"`
	} `json:"v3"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []vector `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) != 2 {
		t.Fatalf("want the compact and the full vector, got %d vectors", len(file.Vectors))
	}
	return file.Vectors
}

func (v vector) bytes(t testing.TB) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(v.PreparedTransactionB64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVectorsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			in := v.bytes(t)
			pt, err := Unmarshal(in)
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if out := Marshal(pt); !bytes.Equal(out, in) {
				t.Errorf("Marshal(Unmarshal(b)) differs from b\n got %x\nwant %x", out, in)
			}
		})
	}
}

func TestVectorsHashes(t *testing.T) {
	t.Parallel()
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			pt, err := Unmarshal(v.bytes(t))
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			check := func(what, got, want string) {
				t.Helper()
				if want == "" {
					return // not given by this vector
				}
				if got != want {
					t.Errorf("%s\n got %s\nwant %s", what, got, want)
				}
			}

			// V2: node encodings and hashes, metadata encoding, all hashes.
			encs := map[string][]byte{}
			if _, err := hashTransactionWith(pt.Transaction, SchemeV2, nil, encs); err != nil {
				t.Fatalf("V2 transaction: %v", err)
			}
			check("V2 node 0 encoding", hex.EncodeToString(encs["0"]), v.V2.Node0EncodingHex)
			for id, want := range map[string]string{"0": v.V2.Node0Hash, "1": v.V2.Node1Hash, "2": v.V2.Node2Hash} {
				if want == "" {
					continue
				}
				check("V2 node "+id+" hash", sha256Hex(encs[id]), want)
			}
			md, err := encodeMetadata(pt.Metadata, SchemeV2, nil)
			if err != nil {
				t.Fatalf("V2 metadata: %v", err)
			}
			check("V2 metadata encoding", hex.EncodeToString(md.buf), v.V2.MetadataEncodingHex)
			h2, err := HashV2(pt)
			if err != nil {
				t.Fatalf("HashV2: %v", err)
			}
			check("V2 transaction hash", hex.EncodeToString(h2.Transaction[:]), v.V2.TransactionHash)
			check("V2 metadata hash", hex.EncodeToString(h2.Metadata[:]), v.V2.MetadataHash)
			check("V2 final hash", hex.EncodeToString(h2.Final[:]), v.V2.PreparedTransactionHash)

			// The traced computation gives the same hashes.
			h2t, trace, err := HashV2Trace(pt)
			if err != nil || h2t != h2 {
				t.Errorf("HashV2Trace = %x, %v; want %x", h2t.Final, err, h2.Final)
			}
			for _, want := range []string{v.V2.Node0Hash, v.V2.TransactionHash, v.V2.MetadataHash, v.V2.PreparedTransactionHash} {
				if !strings.Contains(trace, want) {
					t.Errorf("the V2 trace lacks %s:\n%s", want, trace)
				}
			}

			// V3.
			encs3 := map[string][]byte{}
			if _, err := hashTransactionWith(pt.Transaction, SchemeV3, nil, encs3); err != nil {
				t.Fatalf("V3 transaction: %v", err)
			}
			check("V3 node 0 hash", sha256Hex(encs3["0"]), v.V3.Node0Hash)
			h3, err := HashV3(pt)
			if err != nil {
				t.Fatalf("HashV3: %v", err)
			}
			check("V3 transaction hash", hex.EncodeToString(h3.Transaction[:]), v.V3.TransactionHash)
			check("V3 metadata hash", hex.EncodeToString(h3.Metadata[:]), v.V3.MetadataHash)
			check("V3 final hash", hex.EncodeToString(h3.Final[:]), v.V3.PreparedTransactionHash)
			h3t, _, err := HashV3Trace(pt)
			if err != nil || h3t != h3 {
				t.Errorf("HashV3Trace = %x, %v; want %x", h3t.Final, err, h3.Final)
			}
		})
	}
}
