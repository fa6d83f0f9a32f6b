package validator

import (
	"strconv"
	"testing"
)

// FuzzParseEventID: an event id parses only as Splice's
// "#<update id>:<node id>", and what parses renders back to itself.
func FuzzParseEventID(f *testing.F) {
	for _, s := range []string{"#1220ab:0", "#1220ab:17", "", "#", "#:1", "#a:b", "#a:-1", "1220ab:0", "#a:b:3", "#x:99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, n, ok := parseEventID(s)
		if !ok {
			return
		}
		if u == "" || n < 0 {
			t.Fatalf("%q parsed as (%q, %d)", s, u, n)
		}
		if back := "#" + u + ":" + strconv.Itoa(int(n)); back != s {
			t.Fatalf("%q parsed as (%q, %d), renders %q", s, u, n, back)
		}
	})
}
