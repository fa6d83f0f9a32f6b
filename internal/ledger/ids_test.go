package ledger_test

import (
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/ledger"
)

func TestValidHint(t *testing.T) {
	t.Parallel()
	fp := ledger.Fingerprint("ids-test", "ns")
	for _, tc := range []struct {
		hint string
		want bool
	}{
		{"alice", true},
		{"a-b_c.d@e", true},
		{strings.Repeat("h", ledger.MaxHintLen), true},
		{"", false},
		{strings.Repeat("h", ledger.MaxHintLen+1), false},
		{strings.Repeat("h", 1<<20), false},
		{"a::b", false},
		{"a b", false},
		{"josé", false},
		{"tab\there", false},
	} {
		got := ledger.ValidHint(tc.hint)
		if got != tc.want {
			t.Errorf("ValidHint(%.30q) = %v, want %v", tc.hint, got, tc.want)
		}
		// A valid hint makes a valid party id: the two checks agree.
		if got && !ledger.ValidPartyID(string(ledger.PartyID(tc.hint, fp))) {
			t.Errorf("ValidHint(%.30q) holds, but its party id is not valid", tc.hint)
		}
	}
}

func TestValidUserID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"alice", true},
		{"participant_admin", true},
		{"a@^$.!`-#+'~_|:()z", true},
		{strings.Repeat("u", ledger.MaxUserIDLength), true},
		{"", false},
		{strings.Repeat("u", ledger.MaxUserIDLength+1), false},
		{"with space", false},
		{"slash/user", false},
		{"ünïcode", false},
		{"nul\x00", false},
	} {
		if got := ledger.ValidUserID(tc.id); got != tc.want {
			t.Errorf("ValidUserID(%.40q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
