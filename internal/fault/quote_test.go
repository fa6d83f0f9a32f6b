package fault_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sandnet/sandnet/internal/fault"
)

func TestQuote(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 1<<20)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "alice::1220ab", `"alice::1220ab"`},
		{"quotes and control characters are escaped", "a\"b\n", `"a\"b\n"`},
		{"exactly the limit", strings.Repeat("x", 80), `"` + strings.Repeat("x", 80) + `"`},
		{"one byte over", strings.Repeat("x", 81), `"` + strings.Repeat("x", 80) + `"…(81 bytes)`},
		{"1 MiB", long, `"` + strings.Repeat("a", 80) + `"…(1048576 bytes)`},
		// "é" is two bytes: at offset 79 it straddles the cut and is left
		// out whole rather than split.
		{"a character straddling the cut", strings.Repeat("x", 79) + "é" + "yy", `"` + strings.Repeat("x", 79) + `"…(83 bytes)`},
		{"a character ending at the cut", strings.Repeat("x", 78) + "é" + "yy", `"` + strings.Repeat("x", 78) + `é"…(82 bytes)`},
		{"invalid UTF-8 is escaped", "\xff\xfe", `"\xff\xfe"`},
		{"invalid UTF-8 at the cut", strings.Repeat("x", 79) + "\xff\xff\xff", `"` + strings.Repeat("x", 79) + `\xff"…(82 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := fault.Quote(tc.in)
			if got != tc.want {
				t.Errorf("Quote = %.200q, want %.200q", got, tc.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Quote = %q is not valid UTF-8", got)
			}
		})
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short", "bob.unverified.cns", "bob.unverified.cns"},
		{"a contract id is kept whole", strings.Repeat("0a", 69), strings.Repeat("0a", 69)},
		{"exactly the limit", strings.Repeat("x", 255), strings.Repeat("x", 255)},
		{"1 MiB", strings.Repeat("a", 1<<20), strings.Repeat("a", 255) + "…(1048576 bytes)"},
		{"a character straddling the cut", strings.Repeat("x", 254) + "é" + "yy", strings.Repeat("x", 254) + "…(258 bytes)"},
		{"invalid UTF-8 is replaced", "a\xffb", "a\uFFFDb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := fault.Clip(tc.in); got != tc.want {
				t.Errorf("Clip = %.200q, want %.200q", got, tc.want)
			}
		})
	}
}

// FuzzQuote checks that whatever the input, the result is valid UTF-8,
// short, and a prefix of the quoted input.
func FuzzQuote(f *testing.F) {
	f.Add(strings.Repeat("é", 50))
	f.Add(strings.Repeat("\xf0\x9f\x98\x80", 30))
	f.Add("\x00\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := fault.Quote(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Quote(%q) = %q: not valid UTF-8", s, got)
		}
		if c := fault.Clip(s); !utf8.ValidString(c) || len(c) > 3*255+40 {
			t.Fatalf("Clip(%q) = %q: not valid UTF-8, or too long", s, c)
		}
		// Every byte kept quotes to at most 10 characters (\U0010ffff for
		// a 4-byte rune is the worst per byte: \x00 is 4 for 1).
		if len(got) > 4*80+40 {
			t.Fatalf("Quote(%q) is %d bytes long", s, len(got))
		}
	})
}
