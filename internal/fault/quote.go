package fault

import (
	"strconv"
	"unicode/utf8"
)

// quoteMax is the most bytes of a value Quote keeps: enough to recognise
// a party id's hint or a mistyped time, and small enough that an error
// about a 1 MiB field is not itself 1 MiB.
const quoteMax = 80

// Quote returns s Go-quoted for an error message, cut to its first
// quoteMax bytes (at a character boundary) and followed by "…(N bytes)"
// when it is longer, so that an error never echoes a large input back
// whole. The result is valid UTF-8 whatever s holds: strconv.Quote
// escapes invalid bytes.
func Quote(s string) string {
	if len(s) <= quoteMax {
		return strconv.Quote(s)
	}
	// Cut before the rune that straddles quoteMax rather than inside it;
	// at most utf8.UTFMax-1 steps back, so that a run of stray
	// continuation bytes cannot shorten the prefix further.
	cut := quoteMax
	for cut > quoteMax-(utf8.UTFMax-1) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}
