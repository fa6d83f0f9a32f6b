package daml

import (
	"errors"
	"testing"
)

func TestSum(t *testing.T) {
	t.Parallel()
	const max = "9999999999999999999999999999.9999999999"
	tests := []struct {
		name  string
		terms []string
		want  string
		// inRange says whether the total is still a Numeric.
		inRange bool
	}{
		{"empty", nil, "0.0000000000", true},
		{"exact decimals", []string{"0.1", "0.2", "0.0000000001"}, "0.3000000001", true},
		{"cancels to zero", []string{"-1.5", "1.5"}, "0.0000000000", true},
		{"negative", []string{"-2", "0.5"}, "-1.5000000000", true},
		{"three taps of 4e27", []string{"4000000000000000000000000000", "4000000000000000000000000000", "4000000000000000000000000000"},
			"12000000000000000000000000000.0000000000", false},
		{"many maxima", []string{max, max, max, max}, "39999999999999999999999999999.9999999996", false},
		{"back in range", []string{max, max, "-" + max}, max, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s Sum
			for _, x := range tt.terms {
				s.Add(MustNumeric(x))
			}
			if got := s.String(); got != tt.want {
				t.Errorf("String() = %s, want %s", got, tt.want)
			}
			n, err := s.Numeric()
			switch {
			case tt.inRange && (err != nil || n.String() != tt.want):
				t.Errorf("Numeric() = %s, %v; want %s", n, err, tt.want)
			case !tt.inRange && !errors.Is(err, ErrNumericRange):
				t.Errorf("Numeric() = %s, %v; want ErrNumericRange", n, err)
			}
			if want := MustNumeric("1"); tt.inRange && s.Cmp(want) != n.Cmp(want) {
				t.Errorf("Cmp(1) = %d, want %d", s.Cmp(want), n.Cmp(want))
			}
		})
	}
}
