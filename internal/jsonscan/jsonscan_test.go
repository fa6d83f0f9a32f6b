package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestSkipSpace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		from int
		want int
	}{
		{"", 0, 0},
		{" \t\r\n", 0, 4},
		{"  x ", 0, 2},
		{"x  ", 1, 3},
		{"\v", 0, 0}, // not JSON whitespace
	} {
		if got := SkipSpace([]byte(tc.in), tc.from); got != tc.want {
			t.Errorf("SkipSpace(%q, %d) = %d, want %d", tc.in, tc.from, got, tc.want)
		}
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		end   int
		fault NumberFault
	}{
		{"0", 1, NumberOK},
		{"-0", 2, NumberOK},
		{"01", 1, NumberOK}, // the number is "0"; the "1" is the caller's
		{"123,", 3, NumberOK},
		{"-1.5e+10]", 8, NumberOK},
		{"2E-3", 4, NumberOK},
		{"1.25", 4, NumberOK},
		{"", 0, NoIntegerDigit},
		{"-", 1, NoIntegerDigit},
		{"-x", 1, NoIntegerDigit},
		{".5", 0, NoIntegerDigit},
		{"1.", 2, NoFractionDigit},
		{"1.e5", 2, NoFractionDigit},
		{"1e", 2, NoExponentDigit},
		{"1e+", 3, NoExponentDigit},
		{"1.5E-x", 5, NoExponentDigit},
	} {
		end, fault := Number([]byte(tc.in), 0)
		if end != tc.end || fault != tc.fault {
			t.Errorf("Number(%q) = %d, %d; want %d, %d", tc.in, end, fault, tc.end, tc.fault)
		}
	}
}

// FuzzNumber checks Number against encoding/json: a scanned number that
// is the whole input is valid JSON, and valid JSON numbers scan whole.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-1.5e+10", "1.", "01", "1e", "-", "12345678901234567890"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		end, fault := Number([]byte(s), 0)
		whole := fault == NumberOK && end == len(s)
		var n json.Number
		valid := len(s) > 0 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && json.Unmarshal([]byte(s), &n) == nil && string(n) == s
		if whole != valid {
			t.Errorf("Number(%q) = %d, %d; encoding/json valid: %v", s, end, fault, valid)
		}
	})
}
