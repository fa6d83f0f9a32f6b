package scanapi

import (
	"encoding/base64"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// TestBlobCache checks that a cached blob is the contract's, and that a
// contract the cache holds gets a new blob once a reassignment or a
// migration changed it.
func TestBlobCache(t *testing.T) {
	t.Parallel()
	base := ledger.Contract{
		ID:          "00abcd",
		Template:    ledger.TemplateID{PackageName: "p", Identifier: daml.Identifier{PackageID: "pkg", ModuleName: "M", EntityName: "T"}},
		Argument:    &daml.Record{Fields: []daml.Field{{Label: "owner", Value: daml.Party("alice::1220")}}},
		Signatories: []daml.Party{"alice::1220"}, CreatedAt: 42, CreatedBy: "update-1", Synchronizer: "global::1220",
	}
	moved := base
	moved.Synchronizer, moved.ReassignmentCounter = "other::1220", 1
	migrated := base
	migrated.MigrationID = 1
	var bc blobCache
	for i, c := range []*ledger.Contract{&base, &moved, &base, &migrated, &moved} {
		got, err := bc.blob(c)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ledger.EncodeContract(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := base64.StdEncoding.EncodeToString(b); got != want {
			t.Errorf("step %d: blob %s, want %s", i, got, want)
		}
	}
	if len(bc.m) != 3 {
		t.Errorf("%d entries, want 3", len(bc.m))
	}
}
