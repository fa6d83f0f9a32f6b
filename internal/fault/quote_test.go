package fault_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sandnet/sandnet/internal/fault"
)

func TestQuoteAndTruncate(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 1<<20)
	// MaxQuoted-1 ASCII bytes then a 3-byte rune across the limit.
	straddle := strings.Repeat("b", fault.MaxQuoted-1) + "€" + "tail"
	tests := []struct {
		name, in, quoted, bare string
	}{
		{"empty", "", `""`, ""},
		{"short", "bob::1220ab", `"bob::1220ab"`, "bob::1220ab"},
		{"control characters", "a\x00b\n", `"a\x00b\n"`, "a\x00b\n"},
		{"exactly the limit", strings.Repeat("c", fault.MaxQuoted), `"` + strings.Repeat("c", fault.MaxQuoted) + `"`, strings.Repeat("c", fault.MaxQuoted)},
		{"1 MiB", long, `"` + long[:fault.MaxQuoted] + `"… (1048576 bytes)`, long[:fault.MaxQuoted] + "… (1048576 bytes)"},
		{"rune across the limit", straddle, `"` + straddle[:fault.MaxQuoted-1] + `"… (262 bytes)`, straddle[:fault.MaxQuoted-1] + "… (262 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := fault.Quote(tc.in); got != tc.quoted {
				t.Errorf("Quote = %.200q, want %.200q", got, tc.quoted)
			}
			got := fault.Truncate(tc.in)
			if got != tc.bare {
				t.Errorf("Truncate = %.200q, want %.200q", got, tc.bare)
			}
			if utf8.ValidString(tc.in) && !utf8.ValidString(got) {
				t.Errorf("Truncate split a rune: %q", got)
			}
		})
	}
}
