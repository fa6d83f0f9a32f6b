package validator

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

func TestSelectInputs(t *testing.T) {
	t.Parallel()
	// holdings are amulets a0, a1, … worth the given amounts; a name
	// starting with "L" is locked, one starting with "+" has an initial
	// amount 1 above its effective amount (holding fees).
	holdings := func(amounts ...string) []Holding {
		hs := make([]Holding, len(amounts))
		for i, a := range amounts {
			locked, fee := a[0] == 'L', a[0] == '+'
			if locked || fee {
				a = a[1:]
			}
			eff := daml.MustNumeric(a)
			initial := eff
			if fee {
				initial, _ = eff.Add(daml.MustNumeric("1"))
			}
			hs[i] = Holding{Contract: &ledger.Contract{ID: daml.ContractID(fmt.Sprint("a", i))}, EffectiveAmount: eff, InitialAmount: initial, Locked: locked}
		}
		return hs
	}
	amount := func(s string) *daml.Numeric { n := daml.MustNumeric(s); return &n }
	const big = "6000000000000000000000000000"
	tests := []struct {
		name      string
		hs        []Holding
		max       int64
		amount    *daml.Numeric
		want      []string
		covered   bool
		available string
	}{
		{"largest first until covered", holdings("1", "5", "3", "2"), 100, amount("7"), []string{"a1", "a2"}, true, "11.0000000000"},
		{"exactly covered", holdings("1", "5", "3", "2"), 100, amount("8"), []string{"a1", "a2"}, true, "11.0000000000"},
		{"not enough coin", holdings("1", "5"), 100, amount("7"), []string{"a1", "a0"}, false, "6.0000000000"},
		{"capped at maxNumInputs", holdings("1", "1", "1", "1", "1"), 3, amount("4"), []string{"a0", "a1", "a2"}, false, "5.0000000000"},
		{"locked amulets are not spent", holdings("L9", "2", "1"), 100, amount("3"), []string{"a1", "a2"}, true, "3.0000000000"},
		{"no amount: the largest up to the cap", holdings("1", "4", "2", "3"), 3, nil, []string{"a1", "a3", "a2"}, true, "10.0000000000"},
		{"zero amount takes one", holdings("1", "4"), 100, amount("0"), []string{"a1"}, true, "5.0000000000"},
		{"nothing to spend", holdings("L1"), 100, nil, nil, true, "0.0000000000"},
		// Two of these would sum past a Decimal in the transfer: only one is taken.
		{"inputs a transfer cannot sum", holdings(big, big, "1"), 100, nil, []string{"a0", "a2"}, true, "12000000000000000000000000001.0000000000"},
		{"initial amounts count", holdings("+4999999999999999999999999999", "+4999999999999999999999999999", "1"), 100, nil,
			[]string{"a0", "a2"}, true, "9999999999999999999999999999.0000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sel := selectInputs(tt.hs, tt.max, tt.amount)
			var got []string
			for _, id := range sel.IDs {
				got = append(got, string(id))
			}
			if !slices.Equal(got, tt.want) || sel.Covered != tt.covered || sel.Available.String() != tt.available {
				t.Errorf("selected %v (covered %v, available %s), want %v (covered %v, available %s)",
					got, sel.Covered, sel.Available, tt.want, tt.covered, tt.available)
			}
		})
	}
}
