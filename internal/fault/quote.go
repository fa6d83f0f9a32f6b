package fault

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// quoteMax is the most bytes of a value Quote keeps: enough to recognise
// a party id's hint or a mistyped time, and small enough that an error
// about a 1 MiB field is not itself 1 MiB.
const quoteMax = 80

// clipMax is the most bytes Clip keeps. It is larger than quoteMax
// because Clip names ids that were well-formed but not found, and those
// must come back whole: a contract id is 138 bytes, and Canton bounds its
// identifiers at 255.
const clipMax = 255

// Quote returns s Go-quoted for an error message, cut to its first
// quoteMax bytes (at a character boundary) and followed by "…(N bytes)"
// when it is longer, so that an error never echoes a large input back
// whole. The result is valid UTF-8 whatever s holds: strconv.Quote
// escapes invalid bytes.
func Quote(s string) string {
	prefix, cut := clip(s, quoteMax)
	if !cut {
		return strconv.Quote(s)
	}
	return strconv.Quote(prefix) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// Clip is Quote without the quotes, for messages that name a value bare
// (upstream's "No ans entry found for name: <name>"): s itself when it is
// at most clipMax bytes of valid UTF-8, else its prefix followed by
// "…(N bytes)". Invalid UTF-8 is replaced, so that the result is always
// valid.
func Clip(s string) string {
	prefix, cut := clip(s, clipMax)
	prefix = strings.ToValidUTF8(prefix, "\uFFFD")
	if !cut {
		return prefix
	}
	return prefix + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// clip returns the first max bytes of s, cut before the rune that
// straddles the limit rather than inside it, and whether anything was cut.
func clip(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	// At most utf8.UTFMax-1 steps back, so that a run of stray
	// continuation bytes cannot shorten the prefix further.
	cut := max
	for cut > max-(utf8.UTFMax-1) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}
