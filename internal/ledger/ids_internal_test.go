package ledger

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
)

// TestSeedDerivations pins the byte layouts of Daml-LF's seed and
// discriminator derivations (HMAC-SHA256 over big-endian ints and
// length-prefixed strings, sets sorted), with values computed
// independently from that description.
func TestSeedDerivations(t *testing.T) {
	t.Parallel()
	var parent Seed
	for i := range parent {
		parent[i] = byte(i)
	}
	const at = daml.Timestamp(1767225600000000)
	tests := []struct {
		name string
		got  Seed
		want string
	}{
		{"node seed", nodeSeed(parent, 3), "88a514926e60dbe566dc0027aba5fe8e5a9943918ea593f2337a8a3a47bd1311"},
		{"discriminator", discriminator(nodeSeed(parent, 3), at, union([]daml.Party{"bob::1220ff", "alice::1220ab"})),
			"53993d6870a7a41bc8fb237881308b4b9bc99ea43da806a24c6d32309ab83fe5"},
		{"transaction seed", transactionSeed(parent, "PAR::p1::1220aa", at), "5e5297b50fa1028bb4c9f39bf799055b4e1af42d3e516df00e18540a501c92d5"},
	}
	for _, tc := range tests {
		if got := hex.EncodeToString(tc.got[:]); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestContractIDShape(t *testing.T) {
	t.Parallel()
	id := unsuffixedID(discriminator(nodeSeed(Seed{}, 0), 0, nil))
	if !isUnsuffixed(id) || len(id) != 66 {
		t.Fatalf("unsuffixed id %s", id)
	}
	final := suffixed(id, "1220abcd")
	rest, ok := strings.CutPrefix(string(final), string(id))
	if !ok || !strings.HasPrefix(rest, ContractIDSuffixPrefix+"1220") || len(rest) != 2*36 || isUnsuffixed(final) {
		t.Errorf("suffixed id %s", final)
	}
	if suffixed(id, "1220abce") == final {
		t.Error("the suffix does not depend on the update")
	}
	tr := &Transaction{Events: []Event{{Created: &Contract{ID: final}}}}
	if tr.Final(id) != final || tr.Final("00ab") != "00ab" {
		t.Errorf("Final(%s) = %s", id, tr.Final(id))
	}
}
