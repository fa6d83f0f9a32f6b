package netconfig

import (
	"reflect"
	"testing"

	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The example sandnet init writes seeds the default network.
func TestExampleIsTheDefaultNetwork(t *testing.T) {
	t.Parallel()
	c, err := Parse("sandnet.yaml", Example())
	if err != nil {
		t.Fatal(err)
	}
	got := c.Spec("sandnet", 4, false)
	if d := Diff(DefaultSpec("sandnet", 4, false), got); len(d) > 0 {
		t.Fatalf("the example differs from the default network: %v", d)
	}
	if cfg := got.SeedConfig(); !reflect.DeepEqual(cfg, splice.SeedConfig{SVs: 4}) {
		t.Fatalf("the example's seeding differs from the default: %+v", cfg)
	}
}
