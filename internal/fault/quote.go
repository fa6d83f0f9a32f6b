package fault

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is the most bytes of an offending value an error message
// quotes. Error bodies must not echo a request back whole (1 MiB in,
// 1 MiB out); a prefix this long still quotes any well-formed id whole
// (Canton's parties and contract ids have at most 255 characters).
const MaxQuoted = 256

// Quote returns s quoted as %q quotes it, cut to its first MaxQuoted bytes
// (at a rune boundary) and followed by "… (N bytes)" when it is longer:
// the one way every API quotes a bad value in an error message.
func Quote(s string) string {
	p, cut := prefix(s)
	if !cut {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(p), len(s))
}

// Truncate is [Quote] without the quotes, for the messages that name a
// value bare, as some upstream messages do ("… with tracking id X").
func Truncate(s string) string {
	p, cut := prefix(s)
	if !cut {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", p, len(s))
}

// prefix cuts s to at most MaxQuoted bytes without splitting a rune; cut
// reports whether anything was left out.
func prefix(s string) (p string, cut bool) {
	if len(s) <= MaxQuoted {
		return s, false
	}
	n := MaxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
