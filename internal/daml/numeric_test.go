package daml

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseNumeric(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"0":             "0.0000000000",
		"-0":            "0.0000000000",
		"-0.0":          "0.0000000000",
		"10":            "10.0000000000",
		"1.5":           "1.5000000000",
		"007.25":        "7.2500000000",
		"-0.0000000001": "-0.0000000001",
		"9999999999999999999999999999.9999999999":  "9999999999999999999999999999.9999999999",
		"-9999999999999999999999999999.9999999999": "-9999999999999999999999999999.9999999999",
		"1234567890123456789.0123456789":           "1234567890123456789.0123456789",
	}
	for in, want := range good {
		n, err := ParseNumeric(in)
		if err != nil {
			t.Errorf("ParseNumeric(%q): %v", in, err)
			continue
		}
		if got := n.String(); got != want {
			t.Errorf("ParseNumeric(%q).String() = %q, want %q", in, got, want)
		}
	}
	bad := []string{
		"", " 1", "1 ", "+1", "1.", ".5", "1e5", "0x1", "NaN", "Infinity", "--1", "1.2.3",
		"1.00000000001",                   // 11 decimals
		"10000000000000000000000000000",   // 29 digits
		"12345678901234567890123456789.0", // 29 digits
	}
	for _, in := range bad {
		if n, err := ParseNumeric(in); err == nil {
			t.Errorf("ParseNumeric(%q) = %s, want an error", in, n)
		}
	}
}

func TestNumericLenientParse(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"1e-10":          "0.0000000001",
		"1E+3":           "1000.0000000000",
		"0E-10":          "0.0000000000",
		"-1.000E-7":      "-0.0000001000",
		"+2.5":           "2.5000000000",
		"1.":             "1.0000000000",
		".5":             "0.5000000000",
		"0.100000000000": "0.1000000000",
		"0e99999":        "0.0000000000",
		"9999999999999999999999999999.9999999999": "9999999999999999999999999999.9999999999",
	}
	for in, want := range good {
		n, err := parseNumericLenient(in)
		if err != nil {
			t.Errorf("parseNumericLenient(%q): %v", in, err)
			continue
		}
		if got := n.String(); got != want {
			t.Errorf("parseNumericLenient(%q) = %q, want %q", in, got, want)
		}
	}
	bad := []string{"", "e5", "1e", "1e+", ".", "-", "1.5.", "Inf", "NaN", "1_000", "0x10",
		"1e10000000", "1e28", "10000000000000000000000000000", "0.00000000001", "1e-11"}
	for _, in := range bad {
		if n, err := parseNumericLenient(in); err == nil {
			t.Errorf("parseNumericLenient(%q) = %s, want an error", in, n)
		}
	}
}

func TestNumericArithmetic(t *testing.T) {
	t.Parallel()
	type op func(a, b Numeric) (Numeric, error)
	add := Numeric.Add
	sub := Numeric.Sub
	mul := Numeric.Mul
	div := Numeric.Div
	divCeil := Numeric.DivCeil
	tests := []struct {
		name    string
		f       op
		a, b    string
		want    string
		wantErr bool
	}{
		{"add", add, "1.5", "2.25", "3.7500000000", false},
		{"add negative", add, "1", "-3", "-2.0000000000", false},
		{"add to zero", add, "-0.0000000001", "0.0000000001", "0.0000000000", false},
		{"add overflow", add, "9999999999999999999999999999.9999999999", "0.0000000001", "", true},
		{"sub", sub, "1", "0.0000000001", "0.9999999999", false},
		{"sub overflow", sub, "-9999999999999999999999999999.9999999999", "1", "", true},
		{"mul", mul, "1.5", "2", "3.0000000000", false},
		{"operand with 11 decimals", mul, "0.00000000005", "1", "", true},
		{"mul round half even to even", mul, "0.0000000001", "0.5", "0.0000000000", false},
		{"mul round half even up", mul, "0.0000000003", "0.5", "0.0000000002", false},
		{"mul round half even negative", mul, "-0.0000000003", "0.5", "-0.0000000002", false},
		{"mul round above half", mul, "0.0000000003", "0.6", "0.0000000002", false},
		{"mul round below half", mul, "0.0000000003", "0.4", "0.0000000001", false},
		{"mul big exact", mul, "9999999999999999999.9999999999", "1000000000", "9999999999999999999999999999.9000000000", false},
		{"mul overflow", mul, "100000000000000", "100000000000000", "", true},
		// The exact product is ...0.25275857734999999995: rounding it to 40
		// digits first would make a tie and then round the wrong way.
		{"mul no double rounding", mul, "100000000000000000000.2047344495", "1.2345678901", "123456789010000000000.2527585773", false},
		{"div", div, "1", "3", "0.3333333333", false},
		{"div two thirds", div, "2", "3", "0.6666666667", false},
		{"div negative", div, "-2", "3", "-0.6666666667", false},
		{"div half even", div, "0.0000000001", "2", "0.0000000000", false},
		{"div half even odd", div, "0.0000000003", "2", "0.0000000002", false},
		{"div by zero", div, "1", "0", "", true},
		{"div overflow", div, "9999999999999999999999999999", "0.1", "", true},
		{"div exact", div, "7.5", "2.5", "3.0000000000", false},
		{"divceil", divCeil, "1", "3", "0.3333333334", false},
		{"divceil exact", divCeil, "1", "4", "0.2500000000", false},
		{"divceil negative", divCeil, "-1", "3", "-0.3333333333", false},
		{"divceil negative divisor", divCeil, "1", "-3", "-0.3333333333", false},
		{"divceil both negative", divCeil, "-1", "-3", "0.3333333334", false},
		{"divceil tiny remainder", divCeil, "1000000000000000000.0000000001", "1000000000000000000", "1.0000000001", false},
		{"divceil by zero", divCeil, "1", "0", "", true},
		{"divceil usd to cc", divCeil, "10", "0.005", "2000.0000000000", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, errA := ParseNumeric(tc.a)
			b, errB := ParseNumeric(tc.b)
			if errA != nil || errB != nil {
				if !tc.wantErr {
					t.Fatalf("bad operands: %v %v", errA, errB)
				}
				return
			}
			got, err := tc.f(a, b)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("got %s, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := num("1").Add(num("9999999999999999999999999999")); !errors.Is(err, ErrNumericRange) {
		t.Errorf("Add overflow error = %v, want ErrNumericRange", err)
	}
	if _, err := num("100000000000000").Mul(num("100000000000000")); !errors.Is(err, ErrNumericRange) {
		t.Errorf("Mul overflow error = %v, want ErrNumericRange", err)
	}
}

func TestNumericHelpers(t *testing.T) {
	t.Parallel()
	a, b := num("1.5"), num("-2")
	if a.Cmp(b) != 1 || b.Cmp(a) != -1 || a.Cmp(num("1.50")) != 0 {
		t.Error("Cmp")
	}
	if a.Max(b) != a || a.Min(b) != b {
		t.Error("Max/Min")
	}
	if a.Sign() != 1 || b.Sign() != -1 || (Numeric{}).Sign() != 0 || !(Numeric{}).IsZero() {
		t.Error("Sign/IsZero")
	}
	if got := b.Neg().String(); got != "2.0000000000" {
		t.Errorf("Neg = %s", got)
	}
	if got := (Numeric{}).Neg().String(); got != "0.0000000000" {
		t.Errorf("Neg(0) = %s", got)
	}
	if got := NumericFromInt(-9223372036854775808).String(); got != "-9223372036854775808.0000000000" {
		t.Errorf("NumericFromInt = %s", got)
	}
	if got := (Numeric{}).String(); got != "0.0000000000" {
		t.Errorf("zero value = %s", got)
	}
	// encoding/json uses the text form.
	out, err := json.Marshal(struct{ A Numeric }{num("12.5")})
	if err != nil || string(out) != `{"A":"12.5000000000"}` {
		t.Errorf("json.Marshal = %s, %v", out, err)
	}
	var back struct{ A Numeric }
	if err := json.Unmarshal(out, &back); err != nil || back.A.Cmp(num("12.5")) != 0 {
		t.Errorf("json.Unmarshal = %v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"A":"1e5"}`), &back); err == nil {
		t.Error("UnmarshalText accepted 1e5")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustNumeric did not panic")
		}
	}()
	MustNumeric("x")
}

func TestNumericRenderings(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, fixed, java, unscaled string }{
		{"0", "0.0000000000", "0E-10", "0.0"},
		{"1", "1.0000000000", "1.0000000000", "1.0"},
		{"-1", "-1.0000000000", "-1.0000000000", "-1.0"},
		{"100", "100.0000000000", "100.0000000000", "100.0"},
		{"0.5", "0.5000000000", "0.5000000000", "0.5"},
		{"0.000001", "0.0000010000", "0.0000010000", "0.000001"},
		{"0.0000012345", "0.0000012345", "0.0000012345", "0.0000012345"},
		{"0.0000001", "0.0000001000", "1.000E-7", "0.0000001"},
		{"0.0000009999", "0.0000009999", "9.999E-7", "0.0000009999"},
		{"-0.0000000123", "-0.0000000123", "-1.23E-8", "-0.0000000123"},
		{"0.0000000001", "0.0000000001", "1E-10", "0.0000000001"},
		{"9999999999999999999999999999.9999999999", "9999999999999999999999999999.9999999999", "9999999999999999999999999999.9999999999", "9999999999999999999999999999.9999999999"},
		{"1844674407.3709551615", "1844674407.3709551615", "1844674407.3709551615", "1844674407.3709551615"}, // max uint64 unscaled
		{"1844674407.3709551616", "1844674407.3709551616", "1844674407.3709551616", "1844674407.3709551616"}, // just past the fast path
	}
	for _, tc := range tests {
		n := num(tc.in)
		if got := string(n.appendFixed(nil)); got != tc.fixed {
			t.Errorf("%s fixed = %s, want %s", tc.in, got, tc.fixed)
		}
		if got := string(n.appendJava(nil)); got != tc.java {
			t.Errorf("%s java = %s, want %s", tc.in, got, tc.java)
		}
		if got := string(n.appendUnscaled(nil)); got != tc.unscaled {
			t.Errorf("%s unscaled = %s, want %s", tc.in, got, tc.unscaled)
		}
		back, err := parseNumericLenient(tc.java)
		if err != nil || back.Cmp(n) != 0 {
			t.Errorf("%s: java form %s does not parse back: %v", tc.in, tc.java, err)
		}
	}
}
