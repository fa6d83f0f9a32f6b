package interactive

import (
	"strings"
	"sync"
	"testing"
)

func TestIntern(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxInterned+1)
	for _, tc := range []struct{ name, in string }{
		{"empty", ""},
		{"short", "Splice.Amulet"},
		{"party", "alice::1220" + strings.Repeat("ab", 32)},
		{"longest cached", strings.Repeat("y", maxInterned)},
		{"too long", long},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := []byte(tc.in)
			first := intern(b)
			// The bytes change after the call: the strings returned must not.
			second := intern([]byte(tc.in))
			for i := range b {
				b[i] = '!'
			}
			if first != tc.in || second != tc.in {
				t.Errorf("intern(%q) = %q, then %q", tc.in, first, second)
			}
		})
	}
}

// TestInternConcurrent checks that concurrent decodes of colliding and
// equal strings always get their own bytes back (run with -race).
func TestInternConcurrent(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				want := strings.Repeat(string(rune('a'+(i+g)%26)), 1+i%maxInterned)
				if got := intern([]byte(want)); got != want {
					t.Errorf("intern(%q) = %q", want, got)
					return
				}
			}
		})
	}
	wg.Wait()
}
